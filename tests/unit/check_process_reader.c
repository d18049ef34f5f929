/* The live-process reader: this process and a child, all-or-nothing reads
 * at page boundaries, a process that went away, and the /proc/PID/mem
 * fallback when process_vm_readv is refused (forced with a seccomp filter);
 * writes only through the writable memory, into a child. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "suite.h"

#define PATTERN_LEN (256u * 1024u) /* several pages, read in one call */

static uint8_t pattern[PATTERN_LEN];

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 31u + seed);
}

/* Two pages, the second unmapped: [page, page + 4096) readable, nothing after. */
static uint8_t *page_before_hole(void)
{
    long size = sysconf(_SC_PAGESIZE);
    uint8_t *p = mmap(NULL, (size_t)size * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(p, MAP_FAILED);
    ck_assert_int_eq(munmap(p + size, (size_t)size), 0);
    memset(p, 0x5a, (size_t)size);
    return p;
}

/* Reads of this process through `mem`; returns the number of failed checks
 * so that it can also run in a child that reports by exit status. */
static int check_own_memory(const struct jitunwind_memory *mem)
{
    long size = sysconf(_SC_PAGESIZE);
    uint8_t *page = page_before_hole(), *buf = malloc(PATTERN_LEN);
    uint8_t small[16];
    int bad = 0;
    fill(pattern, PATTERN_LEN, 7);
    bad += ju_read(mem, (uint64_t)(uintptr_t)pattern, buf, PATTERN_LEN) != 0;
    bad += memcmp(buf, pattern, PATTERN_LEN) != 0;
    /* Up to the hole: fine. Across it: fails as a whole. */
    bad += ju_read(mem, (uint64_t)(uintptr_t)(page + size - 16), small, 16) != 0;
    bad += small[0] != 0x5a || small[15] != 0x5a;
    bad += ju_read(mem, (uint64_t)(uintptr_t)(page + size - 8), small, 16) != JITUNWIND_EREAD;
    bad += ju_read(mem, (uint64_t)(uintptr_t)(page + size), small, 1) != JITUNWIND_EREAD;
    bad += ju_read(mem, 0, small, 8) != JITUNWIND_EREAD;
    bad += ju_read(mem, 0xffff800000000000ull, small, 8) != JITUNWIND_EREAD; /* kernel half */
    bad += ju_read(mem, UINT64_MAX - 3, small, 8) != JITUNWIND_EREAD;         /* wraps */
    munmap(page, (size_t)size);
    free(buf);
    return bad;
}

/* A child that waits to be killed, after filling `pattern` with `seed`
 * (0: leaving it as it is). */
static pid_t paused_child(uint8_t seed)
{
    int ready[2];
    char c;
    pid_t child;
    ck_assert_int_eq(pipe(ready), 0);
    child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        if (seed)
            fill(pattern, PATTERN_LEN, seed);
        if (write(ready[1], "r", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    close(ready[0]);
    close(ready[1]);
    return child;
}

START_TEST(reads_this_process)
{
    jitunwind_process_reader *pr;
    struct jitunwind_memory mem;
    ck_assert_int_eq(jitunwind_process_reader_new(&pr, getpid()), 0);
    mem = jitunwind_process_reader_memory(pr);
    ck_assert_int_eq(check_own_memory(&mem), 0);
    jitunwind_process_reader_free(pr);
    ck_assert_int_eq(jitunwind_process_reader_new(&pr, 0), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_process_reader_new(&pr, -5), JITUNWIND_EINVAL);
    ck_assert_int_eq(jitunwind_process_reader_new(NULL, getpid()), JITUNWIND_EINVAL);
    jitunwind_process_reader_free(NULL);
}
END_TEST

START_TEST(reads_a_child_process)
{
    pid_t child;
    jitunwind_process_reader *pr;
    struct jitunwind_memory mem;
    uint8_t *buf = malloc(PATTERN_LEN), *want = malloc(PATTERN_LEN);
    fill(pattern, PATTERN_LEN, 1);
    child = paused_child(99); /* same address, different contents: the parent must see these */
    ck_assert_int_eq(jitunwind_process_reader_new(&pr, child), 0);
    mem = jitunwind_process_reader_memory(pr);
    ck_assert_int_eq(ju_read(&mem, (uint64_t)(uintptr_t)pattern, buf, PATTERN_LEN), 0);
    fill(want, PATTERN_LEN, 99);
    ck_assert_int_eq(memcmp(buf, want, PATTERN_LEN), 0);
    ck_assert_int_eq(ju_read(&mem, 0x1000, buf, 8), JITUNWIND_EREAD);
    /* Once the child is gone, reads fail cleanly. */
    kill(child, SIGKILL);
    ck_assert_int_eq(waitpid(child, NULL, 0), child);
    ck_assert_int_eq(ju_read(&mem, (uint64_t)(uintptr_t)pattern, buf, 8), JITUNWIND_EREAD);
    jitunwind_process_reader_free(pr);
    free(buf);
    free(want);
}
END_TEST

/* The writable memory writes into the child (process_vm_writev); the
 * plain memory has no write operation; a gone child fails cleanly. */
START_TEST(writes_a_child_process_only_when_asked)
{
    static volatile uint64_t word = 1;
    pid_t child = paused_child(0);
    uint64_t value = 0x1234567890abcdefull, back = 0;
    jitunwind_process_reader *pr;
    struct jitunwind_memory mem;
    ck_assert_int_eq(jitunwind_process_reader_new(&pr, child), 0);
    ck_assert_ptr_null(jitunwind_process_reader_memory(pr).write);
    mem = jitunwind_process_reader_writable_memory(pr);
    ck_assert_ptr_eq(mem.read, jitunwind_process_reader_memory(pr).read);
    ck_assert_int_eq(mem.write(mem.arg, (uint64_t)(uintptr_t)&word, &value, sizeof value), 0);
    ck_assert_int_eq(ju_read(&mem, (uint64_t)(uintptr_t)&word, &back, sizeof back), 0);
    ck_assert_uint_eq(back, value);
    ck_assert_uint_eq(word, 1); /* the child's copy, not ours */
    ck_assert_int_eq(mem.write(mem.arg, 0x1000, &value, sizeof value), JITUNWIND_EIO);
    kill(child, SIGKILL);
    ck_assert_int_eq(waitpid(child, NULL, 0), child);
    ck_assert_int_eq(mem.write(mem.arg, (uint64_t)(uintptr_t)&word, &value, sizeof value),
                     JITUNWIND_EIO);
    jitunwind_process_reader_free(pr);
}
END_TEST

/* Make process_vm_readv fail with EPERM in this process, as some sandboxes
 * and kernels configured without it do (they give ENOSYS). */
static int forbid_process_vm_readv(void)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof filter / sizeof filter[0]), filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

START_TEST(falls_back_to_proc_mem_when_refused)
{
    int status;
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        jitunwind_process_reader *pr;
        struct jitunwind_memory mem;
        struct iovec l, r;
        uint8_t x = 0, y = 1;
        int bad;
        if (forbid_process_vm_readv() != 0)
            _exit(100);
        l.iov_base = &y;
        l.iov_len = 1;
        r.iov_base = &x;
        r.iov_len = 1;
        if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != -1 || errno != EPERM)
            _exit(101); /* the filter did not take */
        if (jitunwind_process_reader_new(&pr, getpid()) != 0)
            _exit(102);
        mem = jitunwind_process_reader_memory(pr);
        bad = check_own_memory(&mem);
        jitunwind_process_reader_free(pr);
        _exit(bad ? 103 : 0);
    }
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status));
    ck_assert_msg(WEXITSTATUS(status) == 0, "child exit %d (100-102: setup, 103: reads)",
                  WEXITSTATUS(status));
}
END_TEST

int main(void)
{
    return ju_run_tests("process_reader", JU_TESTS(reads_this_process, reads_a_child_process,
                                                   writes_a_child_process_only_when_asked,
                                                   falls_back_to_proc_mem_when_refused));
}
