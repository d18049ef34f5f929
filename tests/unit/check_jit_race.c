/* A thread of the JIT's own process reads the descriptor
 * while 8 threads register and unregister ranges. The slot array grows
 * under the reader and names are retired under it: neither may be freed
 * while a reader can still see it. Run under ASan (build-asan) and
 * TSan (build-tsan, tests/dev.sh): the reader through
 * jitunwind_jit_read_self() must race with nothing; a plain memcpy reader
 * (what jit.h allowed) must never touch freed memory. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "suite.h"

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

enum { WRITERS = 8 };
/* Registrations per writer (TSan is about ten times slower). The live
 * window grows with the count, so the slot array keeps growing under the
 * reader. */
#define PER_WRITER (UNDER_TSAN ? 20000 : 100000)

static int writers_done;

static uint64_t start_of(int w, int i)
{
    return ((uint64_t)(w + 1) << 36) | ((uint64_t)i << 6);
}

/* Names of varying length, so slots of every name class are reused. */
static void name_of(int w, int i, char *buf, size_t size)
{
    int pad = (i * 37) % 300;
    snprintf(buf, size, "w%d:%d:%.*s", w, i, pad,
             "pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp"
             "pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp"
             "pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp"
             "pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp");
}

static void *writer(void *arg)
{
    int w = (int)(intptr_t)arg, i;
    jitunwind_jit_id *ids = calloc(PER_WRITER, sizeof *ids);
    char name[400];
    int oldest = 0;
    for (i = 0; i < PER_WRITER; i++) {
        name_of(w, i, name, sizeof name);
        if (jitunwind_jit_register((const void *)(uintptr_t)start_of(w, i), 48, JITUNWIND_KIND_JIT,
                                   JITUNWIND_RULE_FP_PRESERVING, name, (uint64_t)i, &ids[i]) != 0)
            abort();
        while (i - oldest > 16 + i / 16) /* the live window widens as the run goes */
            if (jitunwind_jit_unregister(ids[oldest++]) != 0)
                abort();
    }
    while (oldest < PER_WRITER)
        if (jitunwind_jit_unregister(ids[oldest++]) != 0)
            abort();
    free(ids);
    __atomic_add_fetch(&writers_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* What jit.h used to allow: the descriptor read with a plain memcpy. */
static int memcpy_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    (void)arg;
    if (!addr)
        return JITUNWIND_EREAD;
    memcpy(dst, (const void *)(uintptr_t)addr, len);
    return 0;
}

/* Every range a consistent read returns is one a writer registered, with
 * its own name. */
static void check_ranges(const jitunwind_registry *reg)
{
    size_t k;
    char name[400];
    for (k = 0; k < jitunwind_registry_count(reg); k++) {
        const struct jitunwind_range *r = jitunwind_registry_at(reg, k);
        int w = (int)(r->start >> 36) - 1, i = (int)((r->start & ((1ull << 36) - 1)) >> 6);
        ck_assert_int_ge(w, 0);
        ck_assert_int_lt(w, WRITERS);
        ck_assert_uint_eq(r->start, start_of(w, i));
        ck_assert_uint_eq(r->end - r->start, 48);
        ck_assert_uint_eq(r->cookie, (uint64_t)i);
        name_of(w, i, name, sizeof name);
        ck_assert_ptr_nonnull(r->name);
        ck_assert_str_eq(r->name, name);
    }
}

static void race(int use_memcpy)
{
    static const struct jitunwind_memory plain = {sizeof(struct jitunwind_memory), memcpy_read, NULL};
    pthread_t t[WRITERS];
    int w, ok = 0, busy = 0;
    jitunwind_jit_reset();
    writers_done = 0;
    for (w = 0; w < WRITERS; w++)
        ck_assert_int_eq(pthread_create(&t[w], NULL, writer, (void *)(intptr_t)w), 0);
    while (__atomic_load_n(&writers_done, __ATOMIC_ACQUIRE) < WRITERS) {
        jitunwind_registry *reg;
        struct jitunwind_jit_read_info info;
        int rc;
        ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
        rc = use_memcpy ? jitunwind_jit_read_descriptor(
                              reg, &plain, (uint64_t)(uintptr_t)&jitunwind_jit_descriptor, &info)
                        : jitunwind_jit_read_self(reg, &info);
        ck_assert_msg(rc == 0 || rc == JITUNWIND_EBUSY, "rc %d: %s", rc,
                      jitunwind_registry_last_error(reg)->message);
        if (rc == 0) {
            ok++;
            ck_assert_uint_eq(info.skipped, 0);
            check_ranges(reg);
        } else {
            busy++;
        }
        jitunwind_registry_free(reg);
    }
    for (w = 0; w < WRITERS; w++)
        pthread_join(t[w], NULL);
    printf("%s reader: %d consistent reads, %d busy, capacity %llu\n",
           use_memcpy ? "memcpy" : "read_self", ok, busy,
           (unsigned long long)jitunwind_jit_descriptor.capacity);
    /* The checks above ran on at least one read: a reader that only ever
     * answered EBUSY would pass them without reading anything. */
    ck_assert_msg(ok > 0, "no read succeeded (%d busy)", busy);
    ck_assert_uint_eq(jitunwind_jit_descriptor.count, 0);
    ck_assert_uint_ge(jitunwind_jit_descriptor.capacity, 4096); /* it grew under the reader */
    jitunwind_jit_reset();
}

START_TEST(read_self_races_with_no_writer)
{
    race(0);
}
END_TEST

/* A plain memcpy of memory other threads write is a data race by C11's
 * rules, which TSan would rightly report: this case is built only without
 * TSan (the ASan build runs it). */
#if !UNDER_TSAN
START_TEST(a_memcpy_reader_never_touches_freed_memory)
{
    race(1);
}
END_TEST
#endif

int main(void)
{
#if UNDER_TSAN
    return ju_run_tests("jit_race", JU_TESTS(read_self_races_with_no_writer));
#else
    return ju_run_tests("jit_race", JU_TESTS(read_self_races_with_no_writer,
                                             a_memcpy_reader_never_touches_freed_memory));
#endif
}
