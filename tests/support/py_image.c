#include "py_image.h"

#include "python/pyreader.h"

#include <stdlib.h>
#include <string.h>

#define HEAP 0x10000000ull
#define RUNTIME 0x900000ull

void pyi_init(struct py_image *p, uint32_t version_hex)
{
    pyi_init_build(p, version_hex, 0);
}

void pyi_init_build(struct py_image *p, uint32_t version_hex, int free_threaded)
{
    pyi_init_arch(p, version_hex, free_threaded, jitunwind_host_arch());
}

void pyi_init_arch(struct py_image *p, uint32_t version_hex, int free_threaded, int arch)
{
    uint64_t name;
    const struct ju_py_layout *base = ju_py_layout_for_build(version_hex, free_threaded, arch);
    memset(p, 0, sizeof *p);
    if (!base)
        abort();
    p->b = ju_builder_new();
    p->layout = *base;
    p->L = &p->layout;
    p->heap = HEAP;
    p->runtime = RUNTIME;
    ju_builder_u64(p->b, RUNTIME, 0); /* the runtime page exists */
    if (ju_py_debug_offsets_supported(version_hex)) {
        /* 3.13+: the runtime starts with _Py_DebugOffsets describing this layout. */
        uint8_t block[2048];
        size_t len;
        if (p->layout.rt_interpreters_head < sizeof block)
            p->layout.rt_interpreters_head = sizeof block;
        if (ju_py_encode_debug_offsets(version_hex, p->L, NULL, block, sizeof block, &len) < 0)
            abort();
        ju_builder_write(p->b, RUNTIME, block, len);
    }
    name = pyi_alloc(p, 8);
    ju_builder_write(p->b, name, "code", 5);
    p->code_type = pyi_alloc(p, 256);
    ju_builder_u64(p->b, p->code_type + p->L->tp_name, name);
}

void pyi_init_from(struct py_image *p, const struct ju_py_layout *layout, uint32_t version_hex)
{
    uint64_t name, header[3] = {0, version_hex, layout->free_threaded};
    memset(p, 0, sizeof *p);
    p->b = ju_builder_new();
    p->layout = *layout;
    p->L = &p->layout;
    p->heap = HEAP;
    p->runtime = RUNTIME;
    memcpy(header, "xdebugpy", 8);
    ju_builder_write(p->b, RUNTIME, header, sizeof header);
    name = pyi_alloc(p, 8);
    ju_builder_write(p->b, name, "code", 5);
    p->code_type = pyi_alloc(p, 256);
    ju_builder_u64(p->b, p->code_type + p->L->tp_name, name);
}

void pyi_free(struct py_image *p)
{
    ju_builder_free(p->b);
}

uint64_t pyi_alloc(struct py_image *p, size_t size)
{
    uint64_t at = p->heap;
    p->heap += (size + 15) & ~(size_t)15;
    ju_builder_u8(p->b, at, 0); /* make the page exist */
    return at;
}

uint64_t pyi_str_kind(struct py_image *p, const uint32_t *cps, size_t n, unsigned kind)
{
    const struct ju_py_layout *L = p->L;
    int ascii = kind == 1;
    size_t i;
    uint64_t obj, data;
    uint32_t state;
    for (i = 0; i < n; i++)
        if (cps[i] > 0x7f)
            ascii = 0;
    obj = pyi_alloc(p, L->str_compact_size + (n + 1) * kind);
    data = obj + (ascii ? L->str_ascii_size : L->str_compact_size);
    state = (kind << L->st_kind_shift) | (1u << L->st_compact_bit) |
            ((uint32_t)ascii << L->st_ascii_bit);
    if (L->st_ready_bit != 0xff)
        state |= 1u << L->st_ready_bit;
    ju_builder_u64(p->b, obj + L->str_length, n);
    ju_builder_u32(p->b, obj + L->str_state, state);
    for (i = 0; i < n; i++) {
        if (kind == 1)
            ju_builder_u8(p->b, data + i, (uint8_t)cps[i]);
        else if (kind == 2)
            ju_builder_u16(p->b, data + 2 * i, (uint16_t)cps[i]);
        else
            ju_builder_u32(p->b, data + 4 * i, cps[i]);
    }
    return obj;
}

uint64_t pyi_str(struct py_image *p, const char *ascii)
{
    uint32_t cps[512];
    size_t i, n = strlen(ascii);
    if (n > 512)
        abort();
    for (i = 0; i < n; i++)
        cps[i] = (unsigned char)ascii[i];
    return pyi_str_kind(p, cps, n, 1);
}

uint64_t pyi_bytes(struct py_image *p, const uint8_t *data, size_t len)
{
    uint64_t obj = pyi_alloc(p, p->L->bytes_sval + len + 1);
    ju_builder_u64(p->b, obj + p->L->bytes_size, len);
    if (len)
        ju_builder_write(p->b, obj + p->L->bytes_sval, data, len);
    return obj;
}

uint64_t pyi_code(struct py_image *p, const char *qualname, const char *filename, int first_line,
                  int units)
{
    const struct ju_py_layout *L = p->L;
    uint8_t table[4096];
    size_t len = 0;
    int i;
    uint64_t code;
    /* One "one-line +1" entry per unit after the first (short form). */
    for (i = 0; i < units && len + 3 <= sizeof table; i++) {
        if (i == 0) {
            table[len++] = 0x80 | (0 << 3);
            table[len++] = 0;
        } else {
            table[len++] = 0x80 | (11 << 3);
            table[len++] = 0;
            table[len++] = 1;
        }
    }
    code = pyi_alloc(p, L->co_size + 2 * (size_t)units);
    ju_builder_u64(p->b, code + L->ob_type, p->code_type);
    ju_builder_u64(p->b, code + L->co_qualname, pyi_str(p, qualname));
    ju_builder_u64(p->b, code + L->co_name, pyi_str(p, qualname));
    ju_builder_u64(p->b, code + L->co_filename, pyi_str(p, filename));
    ju_builder_u64(p->b, code + L->co_linetable, pyi_bytes(p, table, len));
    ju_builder_u32(p->b, code + L->co_firstlineno, (uint32_t)first_line);
    return code;
}

uint64_t pyi_frame(struct py_image *p, uint64_t code, uint64_t previous, int lasti, int owner,
                   int is_entry)
{
    const struct ju_py_layout *L = p->L;
    uint64_t f = pyi_alloc(p, L->fr_size + 64), first = code + L->co_code_adaptive;
    uint64_t instr = first + 2 * (int64_t)lasti; /* 3.11/3.12: the last started unit */
    /* 3.14+ store a tagged _PyStackRef: set a tag bit the decoder must clear. */
    ju_builder_u64(p->b, f + L->fr_code, code && L->code_tag_mask ? code | 1 : code);
    ju_builder_u64(p->b, f + L->fr_previous, previous);
    ju_builder_u64(p->b, f + L->fr_instr, instr);
    ju_builder_u8(p->b, f + L->fr_owner, (uint8_t)owner);
    if (L->fr_is_entry != JU_PY_NONE)
        ju_builder_u8(p->b, f + L->fr_is_entry, (uint8_t)is_entry);
    return f;
}

uint64_t pyi_interp(struct py_image *p, uint64_t next, int64_t id)
{
    uint64_t it = pyi_alloc(p, 4096);
    ju_builder_u64(p->b, it + p->L->interp_next, next);
    ju_builder_u64(p->b, it + p->L->interp_id, (uint64_t)id);
    return it;
}

uint64_t pyi_thread(struct py_image *p, uint64_t interp, uint64_t frame, uint64_t native_tid)
{
    const struct ju_py_layout *L = p->L;
    uint64_t ts = pyi_alloc(p, 1024), last = 0, cur = 0;
    int links = 0;
    struct jitunwind_memory mem = ju_builder_memory(p->b);
    ju_builder_u64(p->b, ts + L->ts_interp, interp);
    ju_builder_u64(p->b, ts + L->ts_thread_id, native_tid * 1000);
    ju_builder_u64(p->b, ts + L->ts_native_thread_id, native_tid);
    if (L->ts_current_frame != JU_PY_NONE) {
        ju_builder_u64(p->b, ts + L->ts_current_frame, frame);
    } else {
        uint64_t cframe = pyi_alloc(p, 64);
        ju_builder_u64(p->b, ts + L->ts_cframe, cframe);
        ju_builder_u64(p->b, cframe + L->cframe_current_frame, frame);
    }
    /* Append to the interpreter's list (a head never written, for a layout
     * whose threads_head lies past the interpreter's first page, reads as
     * unreadable: an empty list). */
    if (mem.read(mem.arg, interp + L->interp_threads_head, &cur, 8) != 0)
        cur = 0;
    while (cur && links++ < 1024) {
        last = cur;
        if (mem.read(mem.arg, cur + L->ts_next, &cur, 8) != 0)
            cur = 0;
    }
    if (last)
        ju_builder_u64(p->b, last + L->ts_next, ts);
    else
        ju_builder_u64(p->b, interp + L->interp_threads_head, ts);
    return ts;
}

void pyi_set_interpreters(struct py_image *p, uint64_t head)
{
    ju_builder_u64(p->b, p->runtime + p->L->rt_interpreters_head, head);
}

void pyi_set_gil_holder(struct py_image *p, uint64_t tstate)
{
    if (p->L->rt_gil_holder != JU_PY_NONE)
        ju_builder_u64(p->b, p->runtime + p->L->rt_gil_holder, tstate);
}
