/* Last-resort guesses from this process's own anonymous executable
 * mappings: a trampoline arena and some other code. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "suite.h"
#include "trampoline_code.h"


START_TEST(guesses_from_anonymous_exec_mappings)
{
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *area = mmap(NULL, (size_t)page * 5, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
    uint8_t *arena, *code, *known;
    struct jitunwind_mapping maps[4096];
    size_t n, i, added, found = 0;
    jitunwind_process_reader *pr;
    struct jitunwind_memory mem;
    jitunwind_registry *reg;
    struct jitunwind_range k;
    const struct jitunwind_range *r;
    ck_assert_ptr_ne(area, MAP_FAILED);
    arena = area;                 /* page 0: trampoline copies at a 16-byte stride */
    code = area + 2 * page;       /* page 2: something else */
    known = area + 4 * page;      /* page 4: already registered */
    for (i = 0; i + 16 <= (size_t)page; i += 16)
        memcpy(arena + i, JU_X86_SUB8, sizeof JU_X86_SUB8);
    memset(code, 0x90, (size_t)page);
    munmap(area + page, (size_t)page);      /* gaps keep the mappings apart */
    munmap(area + 3 * page, (size_t)page);
    ck_assert_int_eq(mprotect(arena, (size_t)page, PROT_READ | PROT_EXEC), 0);
    ck_assert_int_eq(mprotect(code, (size_t)page, PROT_READ | PROT_EXEC), 0);
    ck_assert_int_eq(mprotect(known, (size_t)page, PROT_READ | PROT_EXEC), 0);

    ck_assert_int_eq(jitunwind_anonymous_exec_mappings(getpid(), maps, 4096, &n), 0);
    for (i = 0; i < n; i++)
        found += maps[i].start == (uint64_t)(uintptr_t)arena || maps[i].start == (uint64_t)(uintptr_t)code;
    ck_assert_uint_eq(found, 2);

    ck_assert_int_eq(jitunwind_process_reader_new(&pr, getpid()), 0);
    mem = jitunwind_process_reader_memory(pr);
    ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
    k = (struct jitunwind_range){(uint64_t)(uintptr_t)known, (uint64_t)(uintptr_t)known + 64,
                                 JITUNWIND_KIND_JIT, JITUNWIND_RULE_FP_PRESERVING, 0,
                                 JITUNWIND_ORIGIN_DESCRIPTOR, 0, "known"};
    ck_assert_int_eq(jitunwind_registry_add(reg, &k), 0);
    ck_assert_int_eq(jitunwind_registry_add_guesses(reg, &mem, JITUNWIND_ARCH_X86_64, maps, n, &added), 0);
    r = jitunwind_registry_lookup(reg, (uint64_t)(uintptr_t)arena + 16 * 7 + 6);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->kind, JITUNWIND_KIND_TRAMPOLINE);
    ck_assert_int_eq(r->rule, JITUNWIND_RULE_TRAMPOLINE_SUB8);
    ck_assert_uint_eq(r->stride, 16);
    ck_assert_int_eq(r->origin, JITUNWIND_ORIGIN_GUESS);
    ck_assert_ptr_nonnull(strstr(r->name, "guess"));
    r = jitunwind_registry_lookup(reg, (uint64_t)(uintptr_t)code + 100);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->kind, JITUNWIND_KIND_JIT);
    ck_assert_int_eq(r->origin, JITUNWIND_ORIGIN_GUESS);
    r = jitunwind_registry_lookup(reg, (uint64_t)(uintptr_t)known + 10);
    ck_assert_str_eq(r->name, "known"); /* a registered range is never replaced by a guess */
    /* At least the two mappings above exist: a one-entry array is too small. */
    ck_assert_int_eq(jitunwind_anonymous_exec_mappings(getpid(), maps, 1, &n), JITUNWIND_ELIMIT);
    ck_assert_uint_eq(n, 1);
    jitunwind_registry_free(reg);
    jitunwind_process_reader_free(pr);
}
END_TEST

/* Core files: a real core of this process (gcore) has its executable
 * file-backed segments covered by NT_FILE, and the anonymous executable
 * mapping made here is reported; bad files get a clear status. */
START_TEST(core_mappings)
{
    char core[64], cmd[256], garbage[] = "/tmp/ju-guess-garbage-XXXXXX";
    struct jitunwind_mapping maps[64];
    size_t n = 0, i;
    int fd, found = 0;
    uint8_t *code = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(code, MAP_FAILED);
    memset(code, 0xc3, 8192); /* ret: not an ELF image, not a trampoline */
    ck_assert_int_eq(mprotect(code, 8192, PROT_READ | PROT_EXEC), 0);
    snprintf(core, sizeof core, "/tmp/ju-guess-core-%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "gcore -o %s %d >/dev/null 2>&1", core, (int)getpid());
#ifdef __SANITIZE_ADDRESS__
    /* A core of a sanitized process would include terabytes of shadow. */
    ju_skip("no core of a sanitized process: the real-core part is not checked");
    if (0) {
#else
    if (access("/usr/bin/gcore", X_OK) == 0 && system(cmd) == 0) {
#endif
        snprintf(core + strlen(core), sizeof core - strlen(core), ".%d", (int)getpid());
        ck_assert_int_eq(jitunwind_core_anonymous_exec_mappings(core, maps, 64, &n), 0);
        for (i = 0; i < n; i++)
            if (maps[i].start == (uint64_t)(uintptr_t)code && maps[i].end == maps[i].start + 8192)
                found = 1;
        ck_assert_msg(found, "the anonymous r-x mapping is not among %zu core segments", n);
        ck_assert_int_eq(jitunwind_core_anonymous_exec_mappings(core, maps, 0, &n),
                         JITUNWIND_ELIMIT);
        unlink(core);
    }
#ifndef __SANITIZE_ADDRESS__
    else {
        ju_skip("gcore unavailable: the real-core part is not checked");
    }
#endif
    fd = mkstemp(garbage);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "garbage", 7), 7);
    close(fd);
    ck_assert_int_eq(jitunwind_core_anonymous_exec_mappings(garbage, maps, 64, &n), JITUNWIND_EELF);
    ck_assert_uint_eq(n, 0);
    unlink(garbage);
    ck_assert_int_eq(jitunwind_core_anonymous_exec_mappings("/nonexistent/core", maps, 64, &n),
                     JITUNWIND_EIO);
    ck_assert_int_eq(jitunwind_core_anonymous_exec_mappings(NULL, maps, 64, &n), JITUNWIND_EINVAL);
    munmap(code, 8192);
}
END_TEST

int main(void)
{
    return ju_run_tests("guess", JU_TESTS(guesses_from_anonymous_exec_mappings, core_mappings));
}
