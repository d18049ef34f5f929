/* Every read of an operation fails once, in turn: each operation must end
 * with a status (never a crash or a hang) and never claim more than the
 * fault-free run found. Operations: opening a reader and walking threads
 * and frames, rendering hostile values, reading the JIT descriptor. */
#include <stdlib.h>

#include "faulty.h"
#include "py_adversarial.h"
#include "suite.h"

/* Every version and build kind whose layout needs no DWARF. */
static const struct {
    uint32_t version;
    int free_threaded;
} BUILDS[] = {{0x030b07f0, 0}, {0x030c01f0, 0}, {0x030d00f0, 0}, {0x030d00f0, 1},
              {0x030e07f0, 0}, {0x030e07f0, 1}, {0x030f00c1, 0}, {0x030f00f0, 1}};

static void sweep_python_decoding(uint32_t version, int free_threaded)
{
    struct py_image p;
    struct ju_faulty f = {0};
    struct jitunwind_memory mem;
    struct jitunwind_py_thread t[8];
    struct jitunwind_py_frame fr[16];
    uint64_t interp, a, b, c, k, total = 0;
    size_t full_threads = 0, full_frames = 0, nt, nf;
    pyi_init_build(&p, version, free_threaded);
    c = pyi_frame(&p, pyi_code(&p, "c", "/c.py", 1, 4), 0, 1, 0, 1);
    b = pyi_frame(&p, pyi_code(&p, "b", "/b.py", 1, 4), c, 2, 0, 1);
    a = pyi_frame(&p, pyi_code(&p, "a", "/a.py", 1, 4), b, 3, 0, 0);
    interp = pyi_interp(&p, 0, 0);
    pyi_thread(&p, interp, a, 1);
    pyi_thread(&p, interp, 0, 2);
    pyi_set_interpreters(&p, interp);
    f.inner = ju_builder_memory(p.b);
    mem = ju_faulty_memory(&f);
    for (k = 0;; k++) { /* k = 0: the fault-free run, counting its reads */
        jitunwind_pyreader *r;
        int rc;
        f.fail_at = k;
        f.reads = 0;
        rc = jitunwind_pyreader_open(&r, &mem, p.runtime, version, NULL);
        if (rc == 0) {
            /* A failed read ends a walk with EREAD and what came before
             * it, or costs a detail (a name, a line) with all of it. */
            rc = jitunwind_pyreader_threads(r, t, 8, &nt);
            ck_assert(rc == 0 || rc == JITUNWIND_EREAD);
            ck_assert_uint_le(nt, (k ? full_threads : 8));
            if (k == 0)
                full_threads = nt;
            else if (rc == 0)
                ck_assert_uint_eq(nt, full_threads);
            rc = jitunwind_pyreader_frames(r, a, fr, 16, &nf);
            ck_assert(rc == 0 || rc == JITUNWIND_EREAD);
            ck_assert_uint_le(nf, (k ? full_frames : 16));
            if (k == 0)
                full_frames = nf;
            else if (rc == 0)
                ck_assert_uint_eq(nf, full_frames);
        } else {
            ck_assert_int_lt(rc, 0);
            ck_assert_str_ne(jitunwind_pyreader_last_error(r)->message, "");
        }
        jitunwind_pyreader_free(r);
        if (k == 0) {
            total = f.reads;
            ck_assert_msg(full_threads == 2 && full_frames == 3, "%s: %zu threads, %zu frames",
                          p.L->name, full_threads, full_frames);
        } else if (k >= total) {
            break;
        }
    }
    pyi_free(&p);
}

static void for_each_build(void (*sweep)(uint32_t version, int free_threaded))
{
    size_t i;
    for (i = 0; i < sizeof BUILDS / sizeof BUILDS[0]; i++)
        sweep(BUILDS[i].version, BUILDS[i].free_threaded);
}

START_TEST(python_decoding_survives_any_failed_read)
{
    for_each_build(sweep_python_decoding);
}
END_TEST

/* The value renderer over every hostile object (py_adversarial.h) at once,
 * a list of them rendered three levels deep, with each of its reads
 * failing in turn: status 0, a terminated text inside the buffer, and a
 * flag whenever the text differs from the fault-free one. A build whose
 * value layout is refused (3.15 without DWARF) says so and reads nothing. */
static void sweep_value_rendering(uint32_t version, int free_threaded)
{
    static char full[16384], buf[16384];
    const struct jitunwind_py_repr_options deep = {sizeof deep, 3, 0, 0};
    struct py_image p;
    struct pyo o;
    struct pyo_adversarial a;
    struct ju_faulty f = {0};
    struct jitunwind_memory mem;
    struct jitunwind_py_dwarf_report rep;
    jitunwind_pyreader *r;
    uint64_t interp, k, total = 0;
    uint32_t flags;
    int status;
    pyi_init_build(&p, version, free_threaded);
    pyo_init(&o, &p);
    pyo_adversarial(&o, &a);
    interp = pyi_interp(&p, 0, 0);
    pyi_thread(&p, interp, 0, 1);
    pyi_set_interpreters(&p, interp);
    f.inner = ju_builder_memory(p.b);
    mem = ju_faulty_memory(&f);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, version, NULL), 0);
    ck_assert_int_eq(jitunwind_pyreader_values_report(r, &rep, &status), 0);
    for (k = 0;; k++) { /* k = 0: the fault-free run, counting its reads */
        int rc;
        f.fail_at = k;
        f.reads = 0;
        memset(buf, 'Z', sizeof buf);
        rc = jitunwind_pyreader_repr(r, a.all, &deep, k ? buf : full, sizeof buf, &flags);
        if (status < 0) {
            ck_assert_int_eq(rc, status);
            ck_assert_uint_eq(f.reads, 0);
            break;
        }
        ck_assert_msg(rc == 0, "%s, read %llu failed: %d", p.L->name, (unsigned long long)k, rc);
        if (k == 0) {
            total = f.reads;
            ck_assert_uint_lt(strlen(full), sizeof full);
            ck_assert_msg(strncmp(full, "[[1, ", 5) == 0, "%s: %s", p.L->name, full);
            continue;
        }
        ck_assert_uint_lt(strlen(buf), sizeof buf);
        ck_assert_msg(flags != 0 || strcmp(buf, full) == 0, "%s: read %llu failed silently: %s",
                      p.L->name, (unsigned long long)k, buf);
        if (k >= total)
            break;
    }
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}

START_TEST(value_rendering_survives_any_failed_read)
{
    for_each_build(sweep_value_rendering);
}
END_TEST

START_TEST(descriptor_reading_survives_any_failed_read)
{
    static char code[8][64];
    struct ju_faulty f = {0};
    struct jitunwind_memory mem;
    uint64_t k, total = 0;
    size_t full = 0;
    int i;
    jitunwind_jit_reset();
    for (i = 0; i < 8; i++)
        ck_assert_int_eq(jitunwind_jit_register(code[i], 64, JITUNWIND_KIND_JIT,
                                                JITUNWIND_RULE_FP_PRESERVING, "x", 0, NULL), 0);
    {
        /* The table lives in this process: read it directly (it is valid memory). */
        jitunwind_image *img;
        const struct jitunwind_jit_descriptor *d = &jitunwind_jit_descriptor;
        ck_assert_int_eq(jitunwind_image_new(&img), 0);
        ck_assert_int_eq(jitunwind_image_add(img, (uint64_t)(uintptr_t)d, d, sizeof *d), 0);
        ck_assert_int_eq(jitunwind_image_add(img, d->entries, (const void *)(uintptr_t)d->entries,
                                             d->capacity * sizeof(struct jitunwind_jit_entry)), 0);
        f.inner = jitunwind_image_memory(img);
        mem = ju_faulty_memory(&f);
        for (k = 0;; k++) {
            jitunwind_registry *reg;
            struct jitunwind_jit_read_info info;
            int rc;
            f.fail_at = k;
            f.reads = 0;
            ck_assert_int_eq(jitunwind_registry_new(&reg), 0);
            rc = jitunwind_jit_read_descriptor(reg, &mem, (uint64_t)(uintptr_t)d, &info);
            /* One failed read: a retry, a slot without its name, or the
             * whole read refused; never success with slots left out. */
            ck_assert_msg(rc == 0 || rc == JITUNWIND_EREAD, "read %llu failed: rc %d",
                          (unsigned long long)k, rc);
            if (rc == 0)
                ck_assert_uint_eq(jitunwind_registry_count(reg), (k ? full : 8));
            else
                ck_assert_uint_eq(jitunwind_registry_count(reg), 0);
            if (k == 0) {
                full = jitunwind_registry_count(reg);
                total = f.reads;
            }
            jitunwind_registry_free(reg);
            if (k && k >= total)
                break;
        }
        jitunwind_image_free(img);
    }
    ck_assert_uint_eq(full, 8);
    jitunwind_jit_reset();
}
END_TEST

int main(void)
{
    return ju_run_tests("fault_sweep", JU_TESTS(python_decoding_survives_any_failed_read,
                                                value_rendering_survives_any_failed_read,
                                                descriptor_reading_survives_any_failed_read));
}
