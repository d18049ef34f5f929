/* Opening a target: its memory (a live process or a core), its native
 * modules (CFI, symbols), its JIT and trampoline ranges in the library's
 * order of trust (docs/design.md), and the CPython reader. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "read_batch.h"

#define EXIT_WAIT_MS 500 /* for a process whose memory is gone to be a zombie */

void cli_target_note(struct cli_target *t, const char *fmt, ...)
{
    va_list ap;
    if (t->n_notes >= CLI_MAX_NOTES)
        return;
    va_start(ap, fmt);
    vsnprintf(t->notes[t->n_notes++], CLI_NOTE_MAX, fmt, ap);
    va_end(ap);
}

static const char *last_message(void)
{
    const struct jitunwind_error *e = jitunwind_last_error();
    return e->message[0] ? e->message : jitunwind_strerror(e->code);
}

/* The runtime address of `name` in the module at `path`, or 0. */
static uint64_t module_symbol(const jitunwind_modules *mods, const char *path, const char *name,
                              uint64_t *size)
{
    size_t i, n = jitunwind_modules_count(mods);
    for (i = 0; i < n; i++) {
        struct jitunwind_module_info info;
        uint64_t value, sz;
        if (jitunwind_modules_info(mods, i, &info) < 0 || !info.path)
            continue;
        if (path && strcmp(info.path, path) != 0)
            continue;
        if (jitunwind_elf_symbol(info.path, name, &value, &sz) == 0 && value) {
            if (size)
                *size = sz;
            return value + info.bias;
        }
        if (path)
            break;
    }
    return 0;
}

/* CPython's -X perf writes a perf map, -X perf_jit a jitdump file. */
static void load_perf_map(struct cli_target *t)
{
    static const struct {
        const char *name, *unit;
        int (*load)(jitunwind_registry *, const char *, int, const struct jitunwind_memory *,
                    size_t *, size_t *);
    } files[] = {{"/tmp/perf-%d.map", "lines", jitunwind_registry_load_perf_map},
                 {"/tmp/jit-%d.dump", "records", jitunwind_registry_load_jitdump}};
    char path[64];
    size_t added = 0, skipped = 0, i;
    int rc;
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, files[i].name, t->pid);
        if (access(path, F_OK) != 0)
            continue;
        rc = files[i].load(t->reg, path, t->arch, &t->mem, &added, &skipped);
        if (rc < 0) {
            const char *why = jitunwind_registry_last_error(t->reg)->message;
            if (strstr(why, path)) /* the library's refusals name the file */
                cli_target_note(t, "%s", why);
            else
                cli_target_note(t, "%s: %s", path, why);
        } else if (skipped) {
            cli_target_note(t, "%s: %zu %s skipped", path, skipped, files[i].unit);
        }
    }
}

/* The eval loop's function itself (the reader's ranges; scanning for a
 * return address wants its entry): 1, or 0 when unknown. */
static int eval_main(const struct cli_target *t, uint64_t *start, uint64_t *end)
{
    struct jitunwind_py_code_range parts[JITUNWIND_PY_MAX_EVAL_RANGES];
    size_t i, n = 0;
    if (!t->py || jitunwind_pyreader_eval_ranges(t->py, parts, JITUNWIND_PY_MAX_EVAL_RANGES,
                                                 &n) < 0)
        return 0;
    for (i = 0; i < n && i < JITUNWIND_PY_MAX_EVAL_RANGES; i++)
        if (parts[i].main) {
            *start = parts[i].start;
            *end = parts[i].end;
            return 1;
        }
    return 0;
}

static void load_guesses(struct cli_target *t)
{
    struct jitunwind_mapping *maps = calloc(JITUNWIND_MAX_MAPPINGS, sizeof *maps);
    size_t n = 0, added = 0;
    uint64_t start, end;
    int rc;
    if (!maps)
        return;
    rc = t->live ? jitunwind_anonymous_exec_mappings(t->pid, maps, JITUNWIND_MAX_MAPPINGS, &n)
                 : jitunwind_core_anonymous_exec_mappings(t->core_path, maps,
                                                          JITUNWIND_MAX_MAPPINGS, &n);
    if (rc == 0 && n)
        rc = jitunwind_registry_add_guesses(t->reg, &t->mem, t->arch, maps, n, &added);
    if (rc < 0)
        cli_target_note(t, "anonymous mappings: %s", jitunwind_strerror(rc));
    else if (added) {
        cli_target_note(t, "no JIT metadata found: %zu ranges GUESSED from anonymous "
                           "executable mappings", added);
        if (t->arch == JITUNWIND_ARCH_X86_64 && eval_main(t, &start, &end))
            jitunwind_registry_scan_guesses(t->reg, start, end);
    }
    free(maps);
}

void cli_target_load_ranges(struct cli_target *t)
{
    uint64_t addr;
    jitunwind_registry_clear(t->reg);
    t->pc_outside = 0;
    if ((addr = t->jit_descriptor = module_symbol(t->mods, NULL, "jitunwind_jit_descriptor",
                                                  NULL))) {
        struct jitunwind_jit_read_info info;
        int rc = jitunwind_jit_read_descriptor(t->reg, &t->mem, addr, &info);
        if (rc < 0)
            cli_target_note(t, "descriptor at %#llx: %s", (unsigned long long)addr,
                            jitunwind_registry_last_error(t->reg)->message);
        else if (info.torn)
            cli_target_note(t, "descriptor was mid-update when read");
        if (rc == 0 && info.left_out)
            cli_target_note(t, "descriptor: %llu ranges left out (more than %u MiB of ranges)",
                            (unsigned long long)info.left_out, JITUNWIND_JIT_MAX_BYTES >> 20);
    }
    if ((addr = module_symbol(t->mods, t->loc.module, JITUNWIND_GDB_JIT_DESCRIPTOR_SYMBOL,
                              NULL)) &&
        jitunwind_registry_load_gdb_jit(t->reg, &t->mem, addr, t->arch, NULL, NULL) < 0)
        cli_target_note(t, "GDB JIT interface: %s",
                        jitunwind_registry_last_error(t->reg)->message);
    /* A core's perf map is the dumped process's, if it is still there (its
     * code is checked against the core's bytes, so a stale one is skipped). */
    if (t->pid)
        load_perf_map(t);
    if (t->py) {
        int rc = jitunwind_pyreader_executor_ranges(t->py, t->reg, t->arch, 0, 0, NULL);
        if (rc < 0 && rc != JITUNWIND_EUNSUPPORTED && rc != JITUNWIND_ENOTFOUND)
            cli_target_note(t, "JIT executors: %s", jitunwind_pyreader_last_error(t->py)->message);
        if (*jitunwind_pyreader_executor_ranges_note(t->py))
            cli_target_note(t, "JIT executors: %s", jitunwind_pyreader_executor_ranges_note(t->py));
        rc = jitunwind_pyreader_trampoline_ranges(t->py, t->reg, t->arch, NULL);
        if (rc < 0 && rc != JITUNWIND_EUNSUPPORTED && rc != JITUNWIND_ENOTFOUND)
            cli_target_note(t, "trampoline arenas: %s",
                            jitunwind_pyreader_last_error(t->py)->message);
    }
    if (jitunwind_registry_count(t->reg) == 0)
        load_guesses(t);
    /* JIT code and trampolines live in anonymous memory: a range over a
     * mapped file comes from corrupt metadata (as in the debugger plugins). */
    if (jitunwind_registry_count(t->reg)) {
        size_t dropped = jitunwind_registry_drop_over_modules(t->reg, t->mods);
        if (dropped)
            cli_target_note(t, "%zu ranges dropped: they overlap mapped files, so their "
                            "metadata is corrupt", dropped);
    }
}

#define BLOCK 4096u /* a page: a block read never crosses into another mapping */
#define BLOCKS 128u
#define GRAIN 64u /* a partly read block is read from and to a multiple of this */

struct cli_blocks {
    uint64_t base[BLOCKS]; /* block address + 1; 0: empty */
    uint8_t data[BLOCKS][BLOCK];
    /* The blocks the last sample read from, read again in one call at the
     * next sample's first read (live processes: read_batch.c). */
    uint64_t last[BLOCKS];
    uint16_t last_lo[BLOCKS], last_hi[BLOCKS]; /* the part of each to read again */
    size_t n_last;
    uint8_t used[BLOCKS];  /* read from during this sample (a prefetched block may not be) */
    /* A slot holds bytes [lo, hi) of its block; bytes [ulo, uhi) were read
     * from this sample (when used). */
    uint16_t lo[BLOCKS], hi[BLOCKS], ulo[BLOCKS], uhi[BLOCKS];
    int batch_off;         /* process_vm_readv refused: reads go one by one */
    /* Carried (cli_target_read_carrying): the blocks held are the next
     * sample's, read with the last check; last[0..n_carried) is what a
     * sample after a sleep reads again instead. */
    int carried;
    size_t n_carried;
};

/* A block lives in one of PROBES slots from its home slot: pages a
 * multiple of BLOCKS pages apart (a thread's stack and the runtime's
 * statics, say) are all held at once instead of evicting each other
 * within a sample. */
#define PROBES 8u

static unsigned block_probe(uint64_t base, unsigned i)
{
    return (unsigned)((base / BLOCK + i) % BLOCKS);
}

/* The slot holding the block at `base` (BLOCK-aligned), or BLOCKS. */
static unsigned block_find(const struct cli_blocks *b, uint64_t base)
{
    unsigned i;
    for (i = 0; i < PROBES; i++)
        if (b->base[block_probe(base, i)] == base + 1)
            return block_probe(base, i);
    return BLOCKS;
}

/* A slot for a block not held: the first empty one of its probes, else
 * its home slot (whose block is evicted). */
static unsigned block_place(const struct cli_blocks *b, uint64_t base)
{
    unsigned i;
    for (i = 0; i < PROBES; i++)
        if (!b->base[block_probe(base, i)])
            return block_probe(base, i);
    return block_probe(base, 0);
}

/* The slot now holds bytes [lo, hi) of the block at `base`, none read from. */
static void block_take(struct cli_blocks *b, unsigned slot, uint64_t base, unsigned lo, unsigned hi)
{
    b->base[slot] = base + 1;
    b->lo[slot] = (uint16_t)lo;
    b->hi[slot] = (uint16_t)hi;
    b->used[slot] = 0;
}

/* Bytes [off, off + len) of the slot's block are read from. */
static void block_use(struct cli_blocks *b, unsigned slot, size_t off, size_t len)
{
    if (!b->used[slot] || off < b->ulo[slot])
        b->ulo[slot] = (uint16_t)off;
    if (!b->used[slot] || off + len > b->uhi[slot])
        b->uhi[slot] = (uint16_t)(off + len);
    b->used[slot] = 1;
}

/* Make bytes [off, off + len) of the slot's block held: a slot holding
 * only part of it (the part the last sample used) reads the whole block,
 * keeping the bytes it held, so that what this sample already read from
 * it does not change under it. 0, or -1: the block is unreadable now. */
static int block_cover(struct cli_target *t, struct cli_blocks *b, unsigned slot, size_t off,
                       size_t len)
{
    uint8_t whole[BLOCK];
    if (b->lo[slot] <= off && off + len <= b->hi[slot])
        return 0;
    t->reads++;
    t->read_calls++;
    if (t->raw.read(t->raw.arg, b->base[slot] - 1, whole, BLOCK) < 0)
        return -1;
    t->read_bytes += BLOCK;
    memcpy(b->data[slot], whole, b->lo[slot]);
    memcpy(b->data[slot] + b->hi[slot], whole + b->hi[slot], BLOCK - b->hi[slot]);
    b->lo[slot] = 0;
    b->hi[slot] = BLOCK;
    return 0;
}

/* Before the first read of a sample: the last sample's blocks at once,
 * each only the part the last sample used (the rest is read if asked). */
static void prefetch(struct cli_target *t, struct cli_blocks *b)
{
    void *dst[BLOCKS];
    size_t lens[BLOCKS];
    unsigned slot[BLOCKS];
    size_t i;
    long got;
    /* Each block is given its slot at once, so that the next one is placed
     * past it; a block evicted here by a later one is simply not held. */
    for (i = 0; i < b->n_last; i++) {
        slot[i] = block_place(b, b->last[i]);
        block_take(b, slot[i], b->last[i], b->last_lo[i], b->last_hi[i]);
        dst[i] = b->data[slot[i]] + b->last_lo[i];
        lens[i] = (size_t)(b->last_hi[i] - b->last_lo[i]);
        b->last[i] += b->last_lo[i];
    }
    got = cli_read_pieces(t->pid, b->last, lens, b->n_last, dst);
    t->read_calls++;
    if (got > 0)
        t->reads += (uint64_t)got;
    if (got < 0)
        b->batch_off = 1; /* the reader's own fallback (/proc/PID/mem) reads on */
    for (i = 0; got > 0 && i < (size_t)got; i++)
        t->read_bytes += lens[i];
    for (i = got > 0 ? (size_t)got : 0; i < b->n_last; i++)
        b->base[slot[i]] = 0; /* not read (or only partly) */
    b->n_last = 0;
}

#define SPAN_BLOCKS 32u /* blocks one read may cover and still go through the cache */

/* A read across blocks (the chain cache's frames, in one read) through the
 * cache: the blocks not held are read in one call, and so join the next
 * sample's prefetch with the rest. Whole blocks are copied where the read
 * wanted less: worth it where calls cost most, record --nonblocking (a
 * stopped thread's sample costs its stop far more). 0, or -1: some block
 * is unreadable (or the read too wide), and the caller reads directly, to
 * fail or succeed as the target says. */
static int spanning_read(struct cli_target *t, struct cli_blocks *b, uint64_t addr, void *dst,
                         size_t len)
{
    uint64_t first = addr & ~(uint64_t)(BLOCK - 1), base, miss[SPAN_BLOCKS];
    uint64_t last = (addr + len - 1) & ~(uint64_t)(BLOCK - 1);
    void *to[SPAN_BLOCKS];
    unsigned slot[SPAN_BLOCKS];
    size_t n = 0, i, done = 0, blocks = (size_t)((last - first) / BLOCK) + 1;
    long got;
    if (blocks > SPAN_BLOCKS)
        return -1;
    if (b->n_last)
        prefetch(t, b);
    for (i = 0; i < blocks; i++) /* counted: the last block may be the top of the space */
        if (block_find(b, (base = first + i * BLOCK)) == BLOCKS) {
            miss[n] = base;
            slot[n] = block_place(b, base);
            block_take(b, slot[n], base, 0, BLOCK);
            to[n] = b->data[slot[n]];
            n++;
        }
    if (n) {
        got = cli_read_blocks(t->pid, miss, n, BLOCK, to);
        t->read_calls++;
        t->reads += got > 0 ? (uint64_t)got : 0;
        t->read_bytes += got > 0 ? (uint64_t)got * BLOCK : 0;
        for (i = got > 0 ? (size_t)got : 0; i < n; i++)
            b->base[slot[i]] = 0;
    }
    /* Every block is held now unless unreadable, or placed over another
     * of this read (a crowded cache). */
    for (i = 0; i < blocks; i++)
        if (block_find(b, first + i * BLOCK) == BLOCKS)
            return -1;
    while (done < len) {
        uint64_t at = addr + done;
        unsigned s = block_find(b, at & ~(uint64_t)(BLOCK - 1));
        size_t off = (size_t)(at & (BLOCK - 1)), piece = BLOCK - off;
        if (piece > len - done)
            piece = len - done;
        if (block_cover(t, b, s, off, piece) < 0)
            return -1;
        block_use(b, s, off, piece);
        memcpy((uint8_t *)dst + done, b->data[s] + off, piece);
        done += piece;
    }
    return 0;
}

static int counted_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct cli_target *t = arg;
    struct cli_blocks *b = t->blocks;
    uint64_t base = addr & ~(uint64_t)(BLOCK - 1);
    int rc;
    if (b && !t->fresh_reads && len <= BLOCK && addr + len >= addr && addr + len <= base + BLOCK) {
        unsigned slot;
        if (b->n_last)
            prefetch(t, b);
        if ((slot = block_find(b, base)) == BLOCKS) {
            slot = block_place(b, base);
            t->reads++;
            t->read_calls++;
            if (t->raw.read(t->raw.arg, base, b->data[slot], BLOCK) < 0) {
                b->base[slot] = 0;
                goto direct; /* the page is unreadable: the read fails as asked */
            }
            block_take(b, slot, base, 0, BLOCK);
            t->read_bytes += BLOCK;
        } else if (block_cover(t, b, slot, (size_t)(addr - base), len) < 0) {
            goto direct;
        }
        block_use(b, slot, (size_t)(addr - base), len);
        memcpy(dst, b->data[slot] + (addr - base), len);
        return 0;
    }
    if (b && t->spans_in_blocks && !t->fresh_reads && len > 0 && addr + len > addr &&
        t->live && t->pid > 0 && !b->batch_off && spanning_read(t, b, addr, dst, len) == 0)
        return 0;
    if (!b && t->read_log) {
        if (cli_read_log_serve(t, addr, dst, len))
            return 0;
        cli_read_log_note(t, addr, len);
    }
direct:
    if (t->fresh_reads && cli_check_reads_serve(t, addr, dst, len) == 0)
        return 0;
    t->reads++;
    t->read_calls++;
    if ((rc = t->raw.read(t->raw.arg, addr, dst, len)) == 0)
        t->read_bytes += len;
    if (rc == 0 && t->fresh_reads)
        cli_check_reads_missed(t, addr, len);
    return rc;
}

int cli_target_cache_reads(struct cli_target *t)
{
    if (!t->blocks && !(t->blocks = calloc(1, sizeof *t->blocks)))
        return -1;
    return 0;
}

/* Drop the cached blocks; the ones read from (`all`: every one held) are
 * read again, in one call, at the next read. */
static void drop_blocks(struct cli_target *t, struct cli_blocks *b, int all)
{
    size_t i;
    b->n_last = 0;
    b->carried = 0;
    for (i = 0; i < BLOCKS && t->live && t->pid > 0 && !b->batch_off; i++)
        if (b->base[i] && (b->used[i] || all)) {
            /* the part used, widened to whole grains: a frame a few bytes
             * off the last sample's is still held */
            unsigned lo = b->used[i] ? b->ulo[i] : b->lo[i];
            unsigned hi = (b->used[i] ? b->uhi[i] : b->hi[i]) + GRAIN - 1;
            b->last_lo[b->n_last] = (uint16_t)(lo & ~(GRAIN - 1));
            b->last_hi[b->n_last] = (uint16_t)(hi > BLOCK ? BLOCK : hi & ~(GRAIN - 1));
            b->last[b->n_last++] = b->base[i] - 1;
        }
    memset(b->base, 0, sizeof b->base);
}

void cli_target_forget_reads(struct cli_target *t)
{
    if (!t->blocks)
        return;
    drop_blocks(t, t->blocks, 0);
    memset(t->blocks->used, 0, sizeof t->blocks->used);
}

void cli_target_next_sample(struct cli_target *t, int slept)
{
    struct cli_blocks *b = t->blocks;
    if (!b)
        return;
    if (!b->carried) {
        cli_target_forget_reads(t);
        return;
    }
    b->carried = 0;
    memset(b->used, 0, sizeof b->used);
    if (slept) { /* what was carried is old now: read it again at the first read */
        memset(b->base, 0, sizeof b->base);
        b->n_last = b->n_carried;
    }
}

/* Is `page` one of the n pages? */
static int among(const uint64_t *pages, size_t n, uint64_t page)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (pages[i] == page)
            return 1;
    return 0;
}

/* The index in last[0..n_last) of the block at `base`, or n_last. */
static size_t last_index(const struct cli_blocks *b, uint64_t base)
{
    size_t i;
    for (i = 0; i < b->n_last; i++)
        if (b->last[i] == base)
            return i;
    return b->n_last;
}

long cli_target_read_carrying(struct cli_target *t, const uint64_t *pages, const uint16_t *lo,
                              const uint16_t *hi, size_t n, void *const *first,
                              const uint8_t **second)
{
    struct cli_blocks *b = t->blocks;
    uint64_t addr[CLI_READ_BATCH_MAX];
    size_t len[CLI_READ_BATCH_MAX], i, k = 0;
    unsigned slot[CLI_READ_BATCH_MAX];
    void *dst[CLI_READ_BATCH_MAX];
    long got;
    int whole = 1; /* the call was made: the blocks it read are carried */
    if (!b || b->batch_off || !t->live || t->pid <= 0 || 2 * n > CLI_READ_BATCH_MAX)
        return -1;
    drop_blocks(t, b, 0); /* last[]: the part of each block this sample read from */
    memset(b->used, 0, sizeof b->used);
    for (k = 0; k < n; k++) { /* the first copy, the check's own */
        addr[k] = pages[k] + lo[k];
        len[k] = (size_t)(hi[k] - lo[k]);
        dst[k] = first[k];
    }
    /* The second copy into blocks, then the rest of the next
     * sample's parts; a block whose slot is taken (a crowded cache) is
     * not carried (a check page's second copy then goes to the caller's
     * buffer). */
    for (i = 0; i < n + b->n_last && k < CLI_READ_BATCH_MAX; i++) {
        uint64_t base = i < n ? pages[i] : b->last[i - n];
        unsigned s;
        if (i >= n && among(pages, n, base))
            continue;
        if (b->base[(s = block_place(b, base))]) {
            if (i < n) {
                slot[k] = BLOCKS;
                addr[k] = pages[i] + lo[i];
                len[k] = (size_t)(hi[i] - lo[i]);
                dst[k++] = first[n + i];
            }
            continue;
        }
        slot[k] = s;
        if (i < n) { /* the check's part, and what this sample read of the block */
            size_t l = last_index(b, base);
            unsigned from = lo[i], to = hi[i];
            if (l < b->n_last) {
                from = b->last_lo[l] < from ? b->last_lo[l] : from;
                to = b->last_hi[l] > to ? b->last_hi[l] : to;
            }
            block_take(b, s, base, from, to);
        } else
            block_take(b, s, base, b->last_lo[i - n], b->last_hi[i - n]);
        addr[k] = base + b->lo[s];
        len[k] = (size_t)(b->hi[s] - b->lo[s]);
        dst[k] = b->data[s] + b->lo[s];
        k++;
    }
    got = cli_read_pieces(t->pid, addr, len, k, dst);
    t->read_calls++;
    if (got < 0) {
        b->batch_off = 1;
        got = 0;
        whole = 0;
    }
    t->reads += (uint64_t)got;
    for (i = 0; i < k; i++) {
        if (i < (size_t)got)
            t->read_bytes += len[i];
        else if (i >= n && slot[i] != BLOCKS)
            b->base[slot[i]] = 0; /* not read: this sample's first read reads it */
    }
    for (i = n; i < 2 * n && i < (size_t)got; i++)
        if (slot[i] != BLOCKS)
            second[i - n] = b->data[slot[i]];
    if (whole) {
        b->n_carried = b->n_last;
        b->n_last = 0;
        b->carried = 1;
    } else { /* nothing carried: the next sample reads its parts as usual */
        memset(b->base, 0, sizeof b->base);
    }
    return got < (long)(2 * n) ? got : (long)(2 * n);
}

void cli_target_reread(struct cli_target *t)
{
    if (t->blocks)
        drop_blocks(t, t->blocks, 1);
    else
        cli_read_log_reread(t);
}

/* A write (record --mark-frames only) goes to the target, and the cached
 * blocks it touches are dropped. */
static int counted_write(void *arg, uint64_t addr, const void *src, size_t len)
{
    struct cli_target *t = arg;
    uint64_t base;
    if (t->blocks && len > 0 && addr + len > addr)
        for (base = addr & ~(uint64_t)(BLOCK - 1); base < addr + len; base += BLOCK)
            if (block_find(t->blocks, base) != BLOCKS)
                t->blocks->base[block_find(t->blocks, base)] = 0;
    t->writes++;
    return t->raw.write(t->raw.arg, addr, src, len);
}

/* Every read of the target goes through a counter (--stats of stack and record). */
static int count_reads(struct cli_target *t)
{
    t->raw = t->mem;
    t->mem.read = counted_read;
    t->mem.write = t->raw.write ? counted_write : NULL;
    t->mem.arg = t;
    return CLI_OK;
}

static int open_memory(struct cli_target *t, const struct cli_options *opt)
{
    char path[64], why[128];
    if (!t->live) {
        int fd = cli_open_regular(opt->core, why, sizeof why);
        if (fd < 0) {
            fprintf(stderr, "jitunwind: %s: %s\n", opt->core, why);
            return CLI_NO_TARGET;
        }
        close(fd);
        if (jitunwind_core_reader_new(&t->core, opt->core) < 0) {
            fprintf(stderr, "jitunwind: %s\n", last_message());
            return CLI_MISMATCH;
        }
        t->mem = jitunwind_core_reader_memory(t->core);
        return count_reads(t);
    }
    snprintf(path, sizeof path, "/proc/%d", t->pid);
    if (t->pid <= 0 || access(path, F_OK) != 0) {
        fprintf(stderr, "jitunwind: no process %d\n", t->pid);
        return CLI_NO_TARGET;
    }
    t->pidfd = (int)syscall(SYS_pidfd_open, t->pid, 0);
    if (cli_target_gone(t)) {
        int code = cli_process_unreadable(t->pid); /* says why: a zombie, ... */
        if (code == 0)
            fprintf(stderr, "jitunwind: process %d has exited\n", t->pid);
        return code ? code : CLI_NO_TARGET;
    }
    if (jitunwind_process_reader_new(&t->proc, t->pid) < 0) {
        fprintf(stderr, "jitunwind: process %d: %s\n", t->pid, last_message());
        return CLI_NO_TARGET;
    }
    /* Only record --mark-frames writes into the process. */
    t->mem = opt->mark_frames ? jitunwind_process_reader_writable_memory(t->proc)
                              : jitunwind_process_reader_memory(t->proc);
    return count_reads(t);
}

/* Whether memory of the process can be read at all (ptrace access mode). */
static int check_access(struct cli_target *t)
{
    uint64_t word;
    char reason[320];
    if (!t->live || t->mem.read(t->mem.arg, t->loc.runtime_addr, &word, sizeof word) == 0)
        return CLI_OK;
    cli_access_reason(t->pid, EPERM, reason, sizeof reason);
    fprintf(stderr, "jitunwind: cannot read the memory of process %d: permission denied (%s)\n",
            t->pid, reason);
    return CLI_PERMISSION;
}

static void watch_exec(struct cli_target *t)
{
    char path[64];
    uint8_t byte;
    snprintf(path, sizeof path, "/proc/%d/mem", t->pid);
    t->memfd = open(path, O_RDONLY | O_CLOEXEC);
    if (t->memfd >= 0 && pread(t->memfd, &byte, 1, (off_t)t->loc.runtime_addr) != 1) {
        close(t->memfd);
        t->memfd = -1; /* no exec is seen */
    }
}

/* A core whose interpreter file was replaced on disk since the dump is
 * refused (its layout and symbols would be the new build's); other
 * replaced files are noted (their code and unwind tables are). */
static int check_core_files(struct cli_target *t)
{
    char which[CLI_NOTE_MAX];
    size_t n = cli_core_replaced_files(t, t->loc.module, which, sizeof which);
    if (which[0]) {
        fprintf(stderr, "jitunwind: %s: the interpreter's file was replaced since the dump: "
                        "%s\n", t->core_path, which);
        return CLI_MISMATCH;
    }
    if (n) {
        cli_core_replaced_files(t, NULL, which, sizeof which);
        cli_target_note(t, "%zu file%s replaced on disk since the dump (native frames through "
                           "them may be wrong): %s", n, n == 1 ? "" : "s", which);
    }
    return CLI_OK;
}

static int check_exe(struct cli_target *t, const char *exe)
{
    char in_core[128], in_file[128], why[128];
    int fd = cli_open_regular(exe, why, sizeof why);
    if (fd < 0) {
        fprintf(stderr, "jitunwind: --exe %s: %s\n", exe, why);
        return CLI_NO_TARGET;
    }
    close(fd);
    if (cli_file_build_id(exe, in_file, sizeof in_file) < 0) {
        fprintf(stderr, "jitunwind: --exe %s is not an ELF executable with a build id\n", exe);
        return CLI_MISMATCH;
    }
    if (cli_core_exe_build_id(t, exe, in_core, sizeof in_core) < 0) {
        cli_target_note(t, "the core does not say which executable it was dumped from; "
                           "--exe %s not checked", exe);
        return CLI_OK;
    }
    if (strcmp(in_core, in_file) != 0) {
        fprintf(stderr, "jitunwind: the core does not match the executable: %s has build id "
                        "%s, the core's executable %s\n", exe, in_file, in_core);
        return CLI_MISMATCH;
    }
    return CLI_OK;
}

/* The reader, with the interpreter's DWARF answers cached between runs
 * (cache_dir.c): the same layout either way, without reading the debug
 * file again. */
static int open_python(struct cli_target *t, const struct cli_options *opt)
{
    char dir[1024], debug_file[4096], refused[CLI_NOTE_MAX];
    jitunwind_dwarf_types *types = NULL;
    int rc, kept = 0;
    jitunwind_debug_file_find(t->loc.module, debug_file, sizeof debug_file, refused,
                              sizeof refused);
    if (refused[0])
        cli_target_note(t, "%s", refused);
    /* --all: a release the tables describe is read without its DWARF
     * (inflating it is most of the cost of opening a process); the DWARF
     * of any other is opened once a run. */
    if (opt->all && jitunwind_pyreader_open(&t->py, &t->mem, t->loc.runtime_addr,
                                            t->loc.version_hex,
                                            JITUNWIND_PYREADER_OPTS(
                                                .module = t->loc.module,
                                                .flags = JITUNWIND_PYREADER_NO_DWARF)) == 0)
        return CLI_OK;
    if (opt->all)
        kept = cli_types_kept(t->loc.module, cli_cache_dir(opt, dir, sizeof dir), &types) == 0;
    else if (jitunwind_dwarf_types_open_cached(&types, t->loc.module,
                                               cli_cache_dir(opt, dir, sizeof dir)) < 0)
        types = NULL; /* no DWARF: the tables alone, as without a cache */
    rc = jitunwind_pyreader_open(&t->py, &t->mem, t->loc.runtime_addr, t->loc.version_hex,
                                 JITUNWIND_PYREADER_OPTS(.module = t->loc.module, .types = types,
                                                         .flags = types ? 0 : JITUNWIND_PYREADER_NO_DWARF));
    if (types && *jitunwind_dwarf_types_cache_note(types))
        cli_target_note(t, "%s", jitunwind_dwarf_types_cache_note(types));
    if (!kept)
        jitunwind_dwarf_types_free(types);
    if (rc == 0) {
        const char *name = jitunwind_pyreader_layout_name(t->py);
        if (name && strstr(name, "assumed"))
            cli_target_note(t, "reading it as %s", name);
        return CLI_OK;
    }
    /* Caught in its first moments (just started or exec'ed): the dynamic
     * loader has not relocated the interpreter, or Py_Initialize has not
     * made an interpreter yet. --all opens such a process again later,
     * unasked; so do callers asking for quiet_starting. */
    t->starting = t->live && (rc == JITUNWIND_EBUSY || rc == JITUNWIND_ENOTFOUND);
    if (!((opt->all && rc == JITUNWIND_EBUSY) || (opt->quiet_starting && t->starting)))
        fprintf(stderr, "jitunwind: %s (CPython %u.%u): %s\n", t->loc.module,
                t->loc.version_hex >> 24, (t->loc.version_hex >> 16) & 0xff, last_message());
    if (rc == JITUNWIND_EVERSION)
        return CLI_VERSION;
    return rc == JITUNWIND_EREAD && t->live ? CLI_PERMISSION : CLI_NOT_PYTHON;
}

/* A pidfd is readable once its process has exited (a zombie, or reaped):
 * it never names a process that took the PID over. Without one (a kernel
 * before 5.3), the PID's state is looked at instead. */
static int exited(const struct cli_target *t, int wait_ms)
{
    char path[64], line[512];
    const char *state;
    FILE *f;
    if (t->pidfd >= 0) {
        struct pollfd p = {t->pidfd, POLLIN, 0};
        return poll(&p, 1, wait_ms) > 0;
    }
    snprintf(path, sizeof path, "/proc/%d/stat", t->pid);
    if (!(f = fopen(path, "re")))
        return 1;
    state = fgets(line, sizeof line, f) ? strrchr(line, ')') : NULL;
    fclose(f);
    return !state || state[1] == '\0' || state[2] == 'Z' || state[2] == 'X';
}

/* /proc/PID/mem stays bound to the memory it was opened on: once the
 * process has called execve, it reads nothing; nor does it while the
 * process exits (its memory goes before it is a zombie), hence the wait. */
int cli_target_gone(const struct cli_target *t)
{
    uint8_t byte;
    if (exited(t, 0))
        return CLI_GONE_EXITED;
    if (t->memfd >= 0 && pread(t->memfd, &byte, 1, (off_t)t->loc.runtime_addr) != 1)
        return exited(t, EXIT_WAIT_MS) ? CLI_GONE_EXITED : CLI_GONE_EXECED;
    return 0;
}

int cli_target_open(struct cli_target *t, const struct cli_options *opt, int need_native)
{
    int code, rc;
    memset(t, 0, sizeof *t);
    t->pidfd = t->memfd = -1;
    t->live = opt->core == NULL;
    t->pid = opt->pid;
    t->core_path = opt->core;
    t->arch = jitunwind_host_arch();
    if ((code = open_memory(t, opt)) != CLI_OK)
        return code;
    if (jitunwind_modules_new(&t->mods) < 0 || jitunwind_registry_new(&t->reg) < 0) {
        fprintf(stderr, "jitunwind: out of memory\n");
        return CLI_NO_TARGET;
    }
    if (!t->live && cli_core_notes_cut(t->core_path)) {
        fprintf(stderr, "jitunwind: %s is a damaged core: the file ends before its notes "
                        "(threads, registers, mapped files)\n", t->core_path);
        return CLI_MISMATCH;
    }
    if (!t->live && opt->exe && (code = check_exe(t, opt->exe)) != CLI_OK)
        return code;
    if (!t->live)
        t->pid = cli_core_pid(t->core_path);
    if ((rc = t->live ? jitunwind_py_locate_live(t->pid, &t->loc)
                      : jitunwind_py_locate_core(t->core_path, &t->loc)) < 0) {
        if (t->live && (code = cli_process_unreadable(t->pid)) != CLI_OK)
            return code;
        if (t->live)
            fprintf(stderr, "jitunwind: process %d is not a Python process (no _PyRuntime in "
                            "its mapped files)\n", t->pid);
        else if (rc == JITUNWIND_ENOTFOUND) /* searched, and none has it */
            fprintf(stderr, "jitunwind: %s: no Python runtime (no _PyRuntime in the files "
                            "its NT_FILE note names)\n", t->core_path);
        else
            fprintf(stderr, "jitunwind: %s: no Python runtime (no _PyRuntime in the files "
                            "its NT_FILE note names: %s)\n", t->core_path, last_message());
        return CLI_NOT_PYTHON;
    }
    if (!jitunwind_py_version_supported(t->loc.version_hex)) {
        fprintf(stderr, "jitunwind: CPython %u.%u (%s) is not supported\n",
                t->loc.version_hex >> 24, (t->loc.version_hex >> 16) & 0xff, t->loc.module);
        return CLI_VERSION;
    }
    if ((code = check_access(t)) != CLI_OK)
        return code;
    if (!t->live && (code = check_core_files(t)) != CLI_OK)
        return code;
    if (t->live)
        watch_exec(t);
    if ((code = open_python(t, opt)) != CLI_OK)
        return code;
    if (!need_native)
        return CLI_OK;
    if ((t->live ? jitunwind_modules_load_proc(t->mods, t->pid)
                 : jitunwind_modules_load_core(t->mods, t->core_path)) < 0)
        cli_target_note(t, "native modules: %s", jitunwind_modules_last_error(t->mods)->message);
    cli_target_load_ranges(t);
    return CLI_OK;
}

/* A target's own modules_epoch: a symbol cache never serves a freed one's. */
static unsigned new_epoch(void)
{
    static unsigned epochs;
    return epochs += 1u << 16;
}

int cli_target_open_files(struct cli_target *t, int pid, jitunwind_module_files *files)
{
    memset(t, 0, sizeof *t);
    t->pidfd = t->memfd = -1;
    t->pid = pid;
    t->arch = jitunwind_host_arch();
    t->modules_epoch = new_epoch();
    return jitunwind_modules_new(&t->mods) < 0 || jitunwind_registry_new(&t->reg) < 0 ||
                   jitunwind_modules_share_files(t->mods, files) < 0
               ? -1
               : 0;
}

int cli_target_open_any(struct cli_target *t, const struct cli_options *opt, int pid,
                        jitunwind_module_files *files)
{
    struct cli_options one = *opt;
    uint64_t word;
    int code;
    one.pid = pid;
    one.core = NULL;
    one.mark_frames = 0; /* nothing is written into a process it was not asked about */
    memset(t, 0, sizeof *t);
    t->pidfd = t->memfd = -1;
    t->live = 1;
    t->pid = pid;
    t->arch = jitunwind_host_arch();
    t->modules_epoch = new_epoch();
    if ((code = open_memory(t, &one)) != CLI_OK)
        return code;
    if (jitunwind_modules_new(&t->mods) < 0 || jitunwind_registry_new(&t->reg) < 0 ||
        jitunwind_modules_share_files(t->mods, files) < 0)
        return CLI_NO_TARGET;
    if (jitunwind_modules_load_proc(t->mods, pid) < 0 && jitunwind_modules_count(t->mods) == 0)
        return CLI_PERMISSION;
    if (jitunwind_py_locate_modules(t->mods, &t->loc) == 0 &&
        jitunwind_py_version_supported(t->loc.version_hex) &&
        t->mem.read(t->mem.arg, t->loc.runtime_addr, &word, sizeof word) == 0) {
        watch_exec(t);
        if (open_python(t, &one) != CLI_OK)
            t->py = NULL; /* sampled as a native process; open_python said why */
    }
    cli_target_load_ranges(t);
    return CLI_OK;
}

void cli_target_close(struct cli_target *t)
{
    jitunwind_pyreader_free(t->py);
    jitunwind_registry_free(t->reg);
    jitunwind_modules_free(t->mods);
    jitunwind_process_reader_free(t->proc);
    jitunwind_core_reader_free(t->core);
    free(t->blocks);
    cli_read_log_free(t);
    free(t->check_reads);
    free(t->py_threads);
    free(t->py_order);
    free(t->py_names);
    if (t->pidfd >= 0)
        close(t->pidfd);
    if (t->memfd >= 0)
        close(t->memfd);
    memset(t, 0, sizeof *t);
    t->pidfd = t->memfd = -1;
}
