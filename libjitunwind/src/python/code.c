/* Code objects: names, first line, and the line of an instruction. */
#include "python/sampling/code_cache.h"
#include "python/pyreader.h"

/* Is `type` PyCode_Type? Checked once by its tp_name, then by address. */
static int is_code_type(struct jitunwind_pyreader *r, uint64_t type)
{
    char name[8];
    uint64_t name_ptr;
    if (type == 0)
        return 0;
    if (r->code_type)
        return type == r->code_type;
    if (ju_py_fetch(&r->mem, r->layout, type, JU_PYF_tp_name, &name_ptr) < 0 ||
        ju_read(&r->mem, name_ptr, name, 5) < 0 || memcmp(name, "code", 5) != 0)
        return 0;
    r->code_type = type;
    return 1;
}

#define MAX_TLBC_ENTRIES (1u << 20)

/* 3.14t: the bytecode copy that thread-local index `index` runs, from
 * co_tlbc = {Py_ssize_t size; char *entries[]}. 0 when unreadable or out of
 * range. */
static uint64_t tlbc_entry(struct jitunwind_pyreader *r, uint64_t array, int32_t index)
{
    uint64_t size, entry;
    if (array == 0 || index < 0 || ju_read_u64(&r->mem, array, &size) < 0 ||
        size > MAX_TLBC_ENTRIES || (uint64_t)index >= size ||
        ju_read_u64(&r->mem, array + 8 + 8 * (uint64_t)index, &entry) < 0)
        return 0;
    return entry;
}

static void decode_names(struct jitunwind_pyreader *r, uint64_t qualname, uint64_t filename,
                         struct jitunwind_py_frame *out)
{
    int trunc = 0, trunc2 = 0;
    if (ju_py_read_str(r, qualname, out->qualname, sizeof out->qualname, &trunc) < 0)
        ju_strlcpy(out->qualname, "<unreadable name>", sizeof out->qualname);
    if (ju_py_read_str(r, filename, out->filename, sizeof out->filename, &trunc2) < 0)
        ju_strlcpy(out->filename, "<unreadable filename>", sizeof out->filename);
    if (trunc || trunc2)
        out->flags |= JITUNWIND_PYFRAME_NAME_TRUNCATED;
    /* 3.13+ pushes a cleanup frame after __init__ whose static code object
     * is named "__init__" in file "__init__": interpreter plumbing. */
    if (strcmp(out->qualname, "__init__") == 0 && strcmp(out->filename, "__init__") == 0)
        out->flags |= JITUNWIND_PYFRAME_SHIM;
}

/* Reads through a counter, so an entry knows what a hit on it saves. */
struct counted {
    struct jitunwind_memory inner;
    uint32_t reads;
};

static int counted_read(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct counted *c = arg;
    c->reads++;
    return c->inner.read(c->inner.arg, addr, dst, len);
}

/* Decode the names of `code` and keep them, with its line table (up to
 * JU_CODE_CACHE_TABLE_MAX bytes), in its cache entry; the reads are counted
 * so that a hit knows what it saved. An unreadable name is not kept: the
 * next frame tries again. */
static struct ju_code_cache_entry *decode_and_fill(struct jitunwind_pyreader *r, uint64_t code,
                                                   uint64_t qualname, uint64_t filename,
                                                   uint64_t linetable, int32_t first_line,
                                                   struct jitunwind_py_frame *out)
{
    struct ju_code_cache_entry *e = NULL;
    struct counted counter;
    uint32_t name_reads;
    size_t len = 0;
    int trunc = 0;
    counter.inner = r->mem;
    counter.reads = 0;
    r->mem.read = counted_read;
    r->mem.arg = &counter;
    r->mem.write = NULL; /* the writer's arg is replaced: no writes while counting */
    decode_names(r, qualname, filename, out);
    name_reads = counter.reads;
    if (strncmp(out->qualname, "<unreadable", 11) != 0 &&
        strncmp(out->filename, "<unreadable", 11) != 0) {
        e = ju_code_cache_slot(r->code_cache, code, qualname, filename, linetable, first_line);
        ju_strlcpy(e->qualname_text, out->qualname, sizeof e->qualname_text);
        ju_strlcpy(e->filename_text, out->filename, sizeof e->filename_text);
        e->flags = out->flags & (JITUNWIND_PYFRAME_NAME_TRUNCATED | JITUNWIND_PYFRAME_SHIM);
        if (ju_py_read_bytes(r, linetable, e->table, sizeof e->table, &len, &trunc) == 0 &&
            !trunc) {
            e->table_len = (uint32_t)len;
            e->table_held = 1;
        }
        e->fill_reads = e->table_held ? counter.reads : name_reads;
    }
    r->mem = counter.inner;
    return e;
}

/* Whether the entry's qualname is still the text at `qualname`: a new code
 * object at a freed address can hold new strings at the freed strings'
 * addresses. Its reads are not saved reads. */
static int same_qualname(struct jitunwind_pyreader *r, struct ju_code_cache_entry *e,
                         uint64_t qualname)
{
    char text[JITUNWIND_PY_NAME_MAX];
    struct counted counter;
    int trunc = 0, same;
    counter.inner = r->mem;
    counter.reads = 0;
    r->mem.read = counted_read;
    r->mem.arg = &counter;
    r->mem.write = NULL;
    same = ju_py_read_str(r, qualname, text, sizeof text, &trunc) == 0 &&
           strcmp(text, e->qualname_text) == 0;
    r->mem = counter.inner;
    if (same)
        r->code_cache->stats.reads_saved -= counter.reads < e->fill_reads ? counter.reads
                                                                          : e->fill_reads;
    return same;
}

static void names_from_cache(const struct ju_code_cache_entry *e, struct jitunwind_py_frame *out)
{
    ju_strlcpy(out->qualname, e->qualname_text, sizeof out->qualname);
    ju_strlcpy(out->filename, e->filename_text, sizeof out->filename);
    out->flags |= e->flags;
}

/* The line of `instr_addr` (in the code whose first instruction is at
 * `first_instr`) into out->line and out->lasti, from the entry's held line
 * table when there is one, else from the table at `linetable` read now. */
static void decode_line(struct jitunwind_pyreader *r, struct ju_code_cache_entry *cached,
                        uint64_t linetable, int32_t first_line, uint64_t first_instr,
                        uint64_t instr_addr, struct jitunwind_py_frame *out)
{
    const struct ju_py_layout *L = r->layout;
    size_t table_len = 0;
    int table_trunc = 0;
    int64_t delta = (int64_t)(instr_addr - first_instr);
    if (L->instr_is_previous && delta == -2) {
        out->line = first_line;
        return;
    }
    if (delta < 0 || delta / 2 > INT32_MAX) {
        out->flags |= JITUNWIND_PYFRAME_NO_LINE;
        return;
    }
    if (cached && cached->table_held) {
        out->lasti = (int32_t)(delta / 2);
        out->line = ju_code_cache_line(cached, out->lasti);
    } else if (ju_py_read_bytes(r, linetable, r->linetable, sizeof r->linetable, &table_len,
                                &table_trunc) < 0) {
        out->flags |= JITUNWIND_PYFRAME_NO_LINE;
        return;
    } else {
        out->lasti = (int32_t)(delta / 2);
        out->line = jitunwind_py_linetable_line(r->linetable, table_len, first_line, out->lasti);
    }
    if (out->line < 0)
        out->flags |= JITUNWIND_PYFRAME_NO_LINE;
}

/* Everything the head gave is in the entry: names, first line, line. */
static void decode_from_entry(struct jitunwind_pyreader *r, struct ju_code_cache_entry *e,
                              uint64_t code, uint64_t instr_addr, struct jitunwind_py_frame *out)
{
    out->code = code;
    out->line = -1;
    out->lasti = -1;
    names_from_cache(e, out);
    out->first_line = e->first_line;
    decode_line(r, e, e->linetable, e->first_line, code + r->layout->co_code_adaptive,
                instr_addr, out);
}

int ju_py_decode_vouched_code(struct jitunwind_pyreader *r, uint64_t code, uint64_t instr_addr,
                              int32_t tlbc_index, struct jitunwind_py_frame *out)
{
    struct ju_code_cache_entry *e;
    if (!r->code_cache || (r->layout->co_tlbc != JU_PY_NONE && tlbc_index > 0) ||
        !(e = ju_code_cache_vouched(r->code_cache, code)))
        return 0;
    decode_from_entry(r, e, code, instr_addr, out);
    return 1;
}

void ju_py_decode_code(struct jitunwind_pyreader *r, uint64_t code, uint64_t instr_addr,
                       int32_t tlbc_index, struct jitunwind_py_frame *out)
{
    const struct ju_py_layout *L = r->layout;
    uint8_t head[JU_PY_CODE_COPY];
    uint64_t qualname, filename, linetable, first_instr;
    int32_t first_line;
    struct ju_code_cache_entry *cached = NULL;

    r->code_head_read = 0;
    /* Checked once in this sample already (jitunwind_pyreader_cache_next_sample):
     * not even its head is read again; 3.14t's per-thread bytecode needs it. */
    if (r->code_cache && !(L->co_tlbc != JU_PY_NONE && tlbc_index > 0) &&
        (cached = ju_code_cache_checked(r->code_cache, code))) {
        decode_from_entry(r, cached, code, instr_addr, out);
        return;
    }
    out->code = code;
    out->line = -1;
    out->lasti = -1;
    if (code == 0 || L->co_size > sizeof head || ju_read(&r->mem, code, head, L->co_size) < 0 ||
        !is_code_type(r, ju_py_get(L, JU_PYF_ob_type, head, L->co_size))) {
        out->flags |= JITUNWIND_PYFRAME_BAD_CODE | JITUNWIND_PYFRAME_NO_LINE;
        ju_fail(&r->err, JITUNWIND_ECORRUPT, code, "frame %#llx: no code object at %#llx",
                (unsigned long long)out->address, (unsigned long long)code);
        return;
    }
    qualname = ju_py_get(L, JU_PYF_co_qualname, head, L->co_size);
    filename = ju_py_get(L, JU_PYF_co_filename, head, L->co_size);
    linetable = ju_py_get(L, JU_PYF_co_linetable, head, L->co_size);
    first_line = (int32_t)ju_py_get(L, JU_PYF_co_firstlineno, head, L->co_size);
    out->first_line = first_line;
    if (r->code_cache &&
        (cached = ju_code_cache_find(r->code_cache, code, qualname, filename, linetable,
                                     first_line)) &&
        !same_qualname(r, cached, qualname)) {
        ju_code_cache_reject(r->code_cache, cached);
        cached = NULL;
    }
    if (cached)
        names_from_cache(cached, out);
    else if (r->code_cache)
        cached = decode_and_fill(r, code, qualname, filename, linetable, first_line, out);
    else
        decode_names(r, qualname, filename, out);
    r->code_head_read = cached != NULL;
    /* 3.11/3.12 point at the last started code unit, so a frame that has
     * not started yet points one unit before the code: its line is the first. */
    first_instr = code + L->co_code_adaptive;
    if (L->co_tlbc != JU_PY_NONE && tlbc_index > 0) /* entry 0 is co_code_adaptive itself */
        first_instr = tlbc_entry(r, ju_py_get(L, JU_PYF_co_tlbc, head, L->co_size), tlbc_index);
    if (first_instr == 0) {
        out->flags |= JITUNWIND_PYFRAME_NO_LINE;
        return;
    }
    decode_line(r, cached, linetable, first_line, first_instr, instr_addr, out);
}
