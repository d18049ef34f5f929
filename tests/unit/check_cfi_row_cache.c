/* The CFI row cache (unwind/cfi_row_cache.c) against CFI read afresh each
 * time: one module set, its row cache turned off and on, steps from the
 * same registers over the same memory at thousands of pcs of this
 * process's modules, each pc twice with the cache (the second step served
 * by it), and must give the same answer each time: status, stop reason and
 * registers. Then pairs of rows whose keys share a slot are stepped in
 * turn, so that a slot answering for a key other than its own shows. (One
 * set: a second set loaded from this process's maps would also see the
 * first one's mappings of the same files.) */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "elf/modules_internal.h"
#include "jitunwind/modules.h"
#include "jitunwind/unwind.h"
#include "suite.h"
#include "unwind/cfi_row_cache.h"

#define WORDS 512
#define PCS_PER_MODULE 4000
#define MIN_WITH_CFI 2000
#define MIN_PAIRS 20

/* A stack copy: WORDS words of made-up values, some of them addresses
 * inside it, so that saved-register slots read back something. */
struct copy {
    uint64_t start;
    uint64_t words[WORDS];
};

static int copy_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct copy *c = arg;
    if (addr < c->start || addr - c->start > sizeof c->words ||
        len > sizeof c->words - (addr - c->start))
        return JITUNWIND_EREAD;
    memcpy(dst, (const unsigned char *)c->words + (addr - c->start), len);
    return 0;
}

struct step {
    int rc, stop;
    struct jitunwind_regs out;
};

struct fixture {
    jitunwind_modules *mods;
    struct copy copy;
    struct jitunwind_memory mem;
    int arch;
};

static void fixture_init(struct fixture *f)
{
    uint64_t x = 0x243f6a8885a308d3ull;
    size_t i;
    memset(f, 0, sizeof *f);
    f->arch = jitunwind_host_arch();
    f->copy.start = 0x7ff000100000ull;
    for (i = 0; i < WORDS; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        f->copy.words[i] = i % 3 ? x : f->copy.start + (x % (WORDS * 8));
    }
    f->mem.size = sizeof f->mem;
    f->mem.read = copy_read;
    f->mem.arg = &f->copy;
    ck_assert_int_eq(jitunwind_modules_new(&f->mods), 0);
    ck_assert_int_eq(jitunwind_modules_load_proc(f->mods, getpid()), 0);
}

static void fixture_free(struct fixture *f)
{
    jitunwind_modules_free(f->mods);
}

/* One step at pc, through the row cache or with CFI read afresh. */
static struct step step(struct fixture *f, int cached, uint64_t pc, int innermost)
{
    struct jitunwind_regs in;
    struct step s;
    memset(&in, 0, sizeof in);
    memset(&s, 0, sizeof s);
    in.pc = pc;
    in.sp = f->copy.start + 64 * 8;
    in.fp = f->copy.start + 200 * 8;
    in.lr = 0x1234560;
    in.valid = JITUNWIND_REG_PC | JITUNWIND_REG_SP | JITUNWIND_REG_FP | JITUNWIND_REG_LR;
    s.stop = -1;
    ju_modules_use_row_cache(f->mods, cached);
    s.rc = jitunwind_step_cfi(f->arch, f->mods, &f->mem, &in, innermost, &s.out, &s.stop);
    return s;
}

static void same(const struct step *got, const struct step *want, uint64_t pc, const char *what)
{
    if (got->rc != want->rc || got->stop != want->stop || got->out.valid != want->out.valid ||
        got->out.pc != want->out.pc || got->out.sp != want->out.sp ||
        ((want->out.valid & JITUNWIND_REG_FP) && got->out.fp != want->out.fp))
        ck_abort_msg("%s at pc %#llx: rc %d stop %d pc %#llx sp %#llx fp %#llx, CFI read afresh "
                     "rc %d stop %d pc %#llx sp %#llx fp %#llx", what, (unsigned long long)pc,
                     got->rc, got->stop, (unsigned long long)got->out.pc,
                     (unsigned long long)got->out.sp, (unsigned long long)got->out.fp, want->rc,
                     want->stop, (unsigned long long)want->out.pc,
                     (unsigned long long)want->out.sp, (unsigned long long)want->out.fp);
}

/* Up to `max` pcs spread over the executable part of each module with CFI. */
static size_t module_pcs(jitunwind_modules *mods, uint64_t *pcs, size_t max)
{
    size_t n = 0, i, k;
    for (i = 0; i < jitunwind_modules_count(mods); i++) {
        struct jitunwind_module_info info;
        uint64_t stride;
        if (jitunwind_modules_info(mods, i, &info) < 0 || !info.has_cfi ||
            info.end <= info.start)
            continue;
        stride = (info.end - info.start) / PCS_PER_MODULE + 1;
        stride |= 1; /* odd: every offset within an instruction's bytes is met */
        for (k = 0; k < PCS_PER_MODULE && n < max; k++)
            if (info.start + k * stride < info.end)
                pcs[n++] = info.start + k * stride;
    }
    return n;
}

START_TEST(cached_rows_step_as_cfi_read_afresh)
{
    struct fixture f;
    size_t n, i, with_cfi = 0;
    uint64_t *pcs = calloc(64 * PCS_PER_MODULE, sizeof *pcs);
    ck_assert_ptr_nonnull(pcs);
    fixture_init(&f);
    n = module_pcs(f.mods, pcs, 64 * PCS_PER_MODULE);
    for (i = 0; i < n; i++) {
        int innermost = (int)(i & 1);
        struct step want = step(&f, 0, pcs[i], innermost);
        struct step first = step(&f, 1, pcs[i], innermost);
        struct step again = step(&f, 1, pcs[i], innermost);
        same(&first, &want, pcs[i], "a row met the first time");
        same(&again, &want, pcs[i], "a row met again");
        with_cfi += want.rc == 0;
    }
    /* Enough of them must have had CFI for the comparison to mean something. */
    ck_assert_msg(with_cfi >= MIN_WITH_CFI, "only %zu of %zu pcs had CFI", with_cfi, n);
    fixture_free(&f);
    free(pcs);
}
END_TEST

/* The key a pc's innermost step is cached under: its module's index and
 * its address in the module's file; 0 when in no module. */
static int key_of(jitunwind_modules *mods, uint64_t pc, uint32_t *module, uint64_t *vaddr)
{
    struct jitunwind_module_info info;
    long i = jitunwind_modules_find(mods, pc);
    if (i < 0 || jitunwind_modules_info(mods, (size_t)i, &info) < 0)
        return 0;
    *module = (uint32_t)i;
    *vaddr = pc - info.bias;
    return 1;
}

START_TEST(rows_sharing_a_slot_never_answer_for_each_other)
{
    struct fixture f;
    size_t n, i, pairs = 0;
    uint64_t *pcs = calloc(64 * PCS_PER_MODULE, sizeof *pcs);
    uint64_t holder[JU_CFI_ROW_SLOTS] = {0}; /* a pc seen in each slot */
    struct step held[JU_CFI_ROW_SLOTS];
    ck_assert_ptr_nonnull(pcs);
    fixture_init(&f);
    n = module_pcs(f.mods, pcs, 64 * PCS_PER_MODULE);
    for (i = 0; i < n; i++) {
        uint32_t module;
        uint64_t vaddr;
        size_t slot;
        struct step want;
        if (!key_of(f.mods, pcs[i], &module, &vaddr))
            continue;
        slot = ju_cfi_row_cache_slot(module, vaddr);
        want = step(&f, 0, pcs[i], 1);
        if (want.rc != 0)
            continue;
        if (!holder[slot]) {
            holder[slot] = pcs[i];
            held[slot] = want;
            continue;
        }
        if (held[slot].out.sp == want.out.sp && held[slot].out.pc == want.out.pc)
            continue; /* the same answer: a wrong slot would not show */
        {
            /* Two keys, one slot, two answers: each in turn, twice. */
            struct step a1 = step(&f, 1, holder[slot], 1);
            struct step b1 = step(&f, 1, pcs[i], 1);
            struct step a2 = step(&f, 1, holder[slot], 1);
            struct step b2 = step(&f, 1, pcs[i], 1);
            struct step b3 = step(&f, 1, pcs[i], 1);
            same(&a1, &held[slot], holder[slot], "the first of two keys in one slot");
            same(&b1, &want, pcs[i], "the second key, over the first");
            same(&a2, &held[slot], holder[slot], "the first key again, over the second");
            same(&b2, &want, pcs[i], "the second key again");
            same(&b3, &want, pcs[i], "the second key, held");
        }
        pairs++;
    }
    ck_assert_msg(pairs >= MIN_PAIRS, "only %zu pairs of rows shared a slot", pairs);
    fixture_free(&f);
    free(pcs);
}
END_TEST

int main(void)
{
    return ju_run_tests("cfi_row_cache", JU_TESTS(cached_rows_step_as_cfi_read_afresh,
                                                  rows_sharing_a_slot_never_answer_for_each_other));
}
