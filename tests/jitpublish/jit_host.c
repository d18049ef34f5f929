/* A JIT that links the library and publishes its ranges through the GDB
 * JIT interface (image.h), for stock gdb and LLDB with no plugin:
 *   main -> host_fp_enter -> [jit:fp_code, FP_PRESERVING]
 *        -> host_garbage (rbp := garbage) -> [jit:tramp, TRAMPOLINE_SUB8]
 *        -> jit_callee (the breakpoint)
 * Usage: jit_host [FILLERS [PUBLISH]]: FILLERS more one-instruction ranges
 * (default 300: two images), half registered before and half after the two
 * real ones; PUBLISH: the jitunwind_jit_set_gdb_jit mode (default 1, EACH; 2
 * BATCHED; 257 EACH | SHARE_FOREIGN), 0 leaves the GDB JIT interface alone
 * (the control).
 * JIT_HOST_WAIT=1: wait (for a debugger to attach) after registering. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jitunwind/jitunwind.h"

void host_garbage(void (*trampoline)(void), void (*callee)(void));

/* sub $8,%rsp; call *%rdx; add $8,%rsp; ret: keeps %rbp, calls its third argument */
static const unsigned char FP_CODE[] = {0x48, 0x83, 0xec, 0x08, 0xff, 0xd2,
                                        0x48, 0x83, 0xc4, 0x08, 0xc3};
/* CPython 3.12's perf trampoline: sub $8,%rsp; call *%rcx; add $8,%rsp; ret */
static const unsigned char TRAMPOLINE[] = {0x48, 0x83, 0xec, 0x08, 0xff, 0xd1,
                                           0x48, 0x83, 0xc4, 0x08, 0xc3};

#ifdef JIT_HOST_OWN_GDB_JIT
/* The executable's own GDB JIT interface, as CPython 3.15 has: it comes
 * first in symbol lookup, ahead of the library's (image.h). Never used. */
struct jit_descriptor {
    unsigned version, action_flag;
    void *relevant_entry, *first_entry;
};
struct jit_descriptor __jit_debug_descriptor = {1, 0, 0, 0};
void __jit_debug_register_code(void);
__attribute__((noinline)) void __jit_debug_register_code(void)
{
    __asm__ volatile("" ::: "memory");
}
#endif

volatile int jit_callee_calls;
void jit_callee(void);

__attribute__((noinline)) void jit_callee(void)
{
    jit_callee_calls++; /* the breakpoint */
    __asm__ volatile("" ::: "memory");
}

typedef void (*fp_code_fn)(void (*)(void), void (*)(void), void (*)(void (*)(void), void (*)(void)));

__attribute__((noinline)) static void host_fp_enter(fp_code_fn code, void (*trampoline)(void))
{
    code(trampoline, jit_callee, host_garbage);
    __asm__ volatile("" ::: "memory"); /* not a tail call: keep this frame record */
}

static int register_or_die(const void *at, size_t size, int kind, int rule, const char *name)
{
    int rc = jitunwind_jit_register(at, size, kind, rule, name, 0, NULL);
    if (rc < 0) {
        fprintf(stderr, "jit_host: register %s: %s\n", name, jitunwind_strerror(rc));
        exit(1);
    }
    return rc;
}

static void fillers(unsigned char *page, size_t from, size_t to)
{
    char name[32];
    for (size_t i = from; i < to; i++) {
        snprintf(name, sizeof name, "jit:filler%zu", i);
        register_or_die(page + 16 * i, 16, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, name);
    }
}

/* Called every 10 ms while JIT_HOST_WAIT waits: a debugger's breakpoint
 * here makes a stop with the ranges unchanged. */
void jit_host_tick(void);

__attribute__((noinline)) void jit_host_tick(void)
{
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    size_t nfill = argc > 1 ? strtoul(argv[1], NULL, 10) : 300;
    int publish = argc > 2 ? atoi(argv[2]) : JITUNWIND_GDB_JIT_EACH;
    size_t code_size = 4096, fill_size = (nfill * 16 + 4095) / 4096 * 4096 + 4096;
    unsigned char *code = mmap(NULL, code_size, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *fill = mmap(NULL, fill_size, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct jitunwind_gdb_jit_status st;
    if (code == MAP_FAILED || fill == MAP_FAILED)
        return 1;
    memcpy(code, FP_CODE, sizeof FP_CODE);
    memcpy(code + 64, TRAMPOLINE, sizeof TRAMPOLINE);
    memset(fill, 0xc3, fill_size);
    if (mprotect(code, code_size, PROT_READ | PROT_EXEC) || mprotect(fill, fill_size, PROT_READ | PROT_EXEC))
        return 1;
    if (publish && jitunwind_jit_set_gdb_jit(publish) < 0)
        return 1;
    fillers(fill, 0, nfill / 2);
    register_or_die(code, sizeof FP_CODE, JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING,
                    "jit:fp_code");
    register_or_die(code + 64, sizeof TRAMPOLINE, JITUNWIND_KIND_TRAMPOLINE,
                    JITUNWIND_RULE_TRAMPOLINE_SUB8, "jit:tramp");
    fillers(fill, nfill / 2, nfill);
    jitunwind_jit_gdb_jit_flush(); /* BATCHED: the last, partly filled image */
    jitunwind_jit_gdb_jit_status(&st);
    printf("jit_host: %zu ranges at %p, %llu images, %llu published, %llu failed%s%s\n", nfill + 2,
           (void *)(code + 64),
           (unsigned long long)st.objects, (unsigned long long)st.publishes,
           (unsigned long long)st.failures, st.foreign ? " (another descriptor first)" : "",
           st.shared ? " (in its list)" : "");
    fflush(stdout);
    if (getenv("JIT_HOST_WAIT")) /* the benchmark attaches a debugger here */
        for (;;) {
            jit_host_tick();
            usleep(10000);
        }
    host_fp_enter((fp_code_fn)(void *)code, (void (*)(void))(void *)(code + 64));
    return jit_callee_calls == 1 ? 0 : 1;
}
