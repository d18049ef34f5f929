#include "py_objects.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define HEAPTYPE (1ul << 9)

static void set_type(struct pyo *o, uint64_t obj, uint64_t type)
{
    ju_builder_u64(o->p->b, obj + o->p->L->ob_type, type);
}

uint64_t pyo_object(struct pyo *o, uint64_t type, size_t size)
{
    uint64_t obj = pyi_alloc(o->p, o->head + size + 8);
    size_t i;
    for (i = 0; i < o->head + size; i += 8)
        ju_builder_u64(o->p->b, obj + i, 0);
    set_type(o, obj, type);
    return obj;
}

uint64_t pyo_str(struct pyo *o, const char *ascii)
{
    uint64_t s = pyi_str(o->p, ascii);
    set_type(o, s, o->t_str);
    return s;
}

uint64_t pyo_str_cps(struct pyo *o, const uint32_t *cps, size_t n, unsigned kind)
{
    uint64_t s = pyi_str_kind(o->p, cps, n, kind);
    set_type(o, s, o->t_str);
    return s;
}

uint64_t pyo_bytes(struct pyo *o, const void *data, size_t n)
{
    uint64_t b = pyi_bytes(o->p, data, n);
    set_type(o, b, o->t_bytes);
    return b;
}

uint64_t pyo_type(struct pyo *o, const char *name, int heap, const char *module)
{
    uint64_t t = pyi_alloc(o->p, 1024), text = pyi_alloc(o->p, strlen(name) + 1);
    size_t i;
    for (i = 0; i < 1024; i += 8)
        ju_builder_u64(o->p->b, t + i, 0);
    ju_builder_write(o->p->b, text, name, strlen(name) + 1);
    set_type(o, t, o->t_type ? o->t_type : t);
    ju_builder_u64(o->p->b, t + o->p->L->tp_name, text);
    ju_builder_u64(o->p->b, t + o->head + o->V->tp_flags, heap ? HEAPTYPE : 0);
    if (heap) {
        uint64_t key = pyo_str(o, "__module__"), value = pyo_str(o, module);
        ju_builder_u64(o->p->b, t + o->head + o->V->ht_qualname, pyo_str(o, name));
        ju_builder_u64(o->p->b, t + o->head + o->V->tp_dict, pyo_dict(o, 1, &key, &value));
    }
    return t;
}

void pyo_init(struct pyo *o, struct py_image *p)
{
    memset(o, 0, sizeof *o);
    o->p = p;
    /* 3.15+: the newest, as the reader starts */
    o->V = ju_py_value_table(p->L->version, p->L->free_threaded);
    if (!o->V)
        o->V = ju_py_value_table_newest(p->L->free_threaded);
    o->head = p->L->ob_type + 8;
    o->t_type = pyo_type(o, "type", 0, NULL);
    o->t_str = pyo_type(o, "str", 0, NULL);
    o->t_dict = pyo_type(o, "dict", 0, NULL);
    o->t_none = pyo_type(o, "NoneType", 0, NULL);
    o->t_bool = pyo_type(o, "bool", 0, NULL);
    o->t_int = pyo_type(o, "int", 0, NULL);
    o->t_float = pyo_type(o, "float", 0, NULL);
    o->t_bytes = pyo_type(o, "bytes", 0, NULL);
    o->t_tuple = pyo_type(o, "tuple", 0, NULL);
    o->t_list = pyo_type(o, "list", 0, NULL);
    o->t_set = pyo_type(o, "set", 0, NULL);
    o->t_frozenset = pyo_type(o, "frozenset", 0, NULL);
    o->t_function = pyo_type(o, "function", 0, NULL);
    o->t_cell = pyo_type(o, "cell", 0, NULL);
    o->t_module = pyo_type(o, "module", 0, NULL);
    o->none = pyo_object(o, o->t_none, 0);
    /* the image's code objects get a real "code" type object */
    set_type(o, p->code_type, o->t_type);
}

uint64_t pyo_bigint(struct pyo *o, const uint32_t *digits, size_t n, int negative)
{
    uint64_t obj = pyo_object(o, o->t_int, 8 + 4 * n + 4);
    size_t i;
    if (o->V->long_tag != JU_PY_NONE)
        ju_builder_u64(o->p->b, obj + o->head + o->V->long_tag,
                       ((uint64_t)n << 3) | (n == 0 ? 1 : negative ? 2 : 0));
    else
        ju_builder_u64(o->p->b, obj + o->head + o->V->long_size,
                       negative ? (uint64_t)-(int64_t)n : n);
    for (i = 0; i < n; i++)
        ju_builder_u32(o->p->b, obj + o->head + o->V->long_digits + 4 * i, digits[i]);
    return obj;
}

uint64_t pyo_int(struct pyo *o, int64_t v)
{
    uint64_t mag = v < 0 ? (uint64_t)-v : (uint64_t)v;
    uint32_t d[3];
    size_t n = 0;
    while (mag) {
        d[n++] = (uint32_t)(mag & 0x3fffffff);
        mag >>= 30;
    }
    return pyo_bigint(o, d, n, v < 0);
}

uint64_t pyo_bool(struct pyo *o, int v)
{
    uint32_t one = 1;
    uint64_t obj = pyo_bigint(o, &one, v ? 1 : 0, 0);
    set_type(o, obj, o->t_bool);
    return obj;
}

uint64_t pyo_float(struct pyo *o, double v)
{
    uint64_t obj = pyo_object(o, o->t_float, 8), bits;
    memcpy(&bits, &v, 8);
    ju_builder_u64(o->p->b, obj + o->head + o->V->float_value, bits);
    return obj;
}

static uint64_t sequence(struct pyo *o, uint64_t type, size_t n, const uint64_t *items, int inline_items)
{
    uint64_t obj = pyo_object(o, type, 32 + (inline_items ? 8 * n : 0)), at;
    size_t i;
    ju_builder_u64(o->p->b, obj + o->head + o->V->var_size, n);
    if (inline_items) {
        at = obj + o->head + o->V->tuple_items;
    } else {
        at = pyi_alloc(o->p, 8 * n + 8);
        ju_builder_u64(o->p->b, obj + o->head + o->V->list_items, at);
    }
    for (i = 0; i < n; i++)
        ju_builder_u64(o->p->b, at + 8 * i, items[i]);
    return obj;
}

uint64_t pyo_tuple(struct pyo *o, size_t n, const uint64_t *items)
{
    return sequence(o, o->t_tuple, n, items, 1);
}

uint64_t pyo_list(struct pyo *o, size_t n, const uint64_t *items)
{
    return sequence(o, o->t_list, n, items, 0);
}

/* A keys object of kind `kind` (0 general: hash, key, value; 2 split: key,
 * value) for n entries, with 1-byte indices. */
static uint64_t keys_object(struct pyo *o, size_t n, const uint64_t *keys, const uint64_t *values,
                            int kind)
{
    const struct ju_py_value_layout *V = o->V;
    unsigned log2 = 3;
    size_t entry = kind == 0 ? 24 : 16, i;
    uint64_t k, entries;
    while ((1u << log2) < 2 * n)
        log2++;
    k = pyi_alloc(o->p, V->dk_indices + (1u << log2) + entry * n + 8);
    ju_builder_u8(o->p->b, k + V->dk_log2_size, (uint8_t)log2);
    ju_builder_u8(o->p->b, k + V->dk_log2_index_bytes, (uint8_t)log2); /* 1-byte indices */
    ju_builder_u8(o->p->b, k + V->dk_kind, (uint8_t)kind);
    ju_builder_u64(o->p->b, k + V->dk_nentries, n);
    entries = k + V->dk_indices + (1u << log2);
    for (i = 0; i < n; i++) {
        uint64_t e = entries + entry * i;
        if (kind == 0) {
            ju_builder_u64(o->p->b, e, 1000 + i); /* hash */
            ju_builder_u64(o->p->b, e + 8, keys[i]);
            ju_builder_u64(o->p->b, e + 16, values ? values[i] : 0);
        } else {
            ju_builder_u64(o->p->b, e, keys[i]);
            ju_builder_u64(o->p->b, e + 8, 0);
        }
    }
    return k;
}

uint64_t pyo_dict(struct pyo *o, size_t n, const uint64_t *keys, const uint64_t *values)
{
    uint64_t d = pyo_object(o, o->t_dict, 32);
    size_t used = 0, i;
    for (i = 0; i < n; i++)
        used += values[i] != 0; /* a 0 value: a deleted entry */
    ju_builder_u64(o->p->b, d + o->head + o->V->dict_used, used);
    ju_builder_u64(o->p->b, d + o->head + o->V->dict_keys, keys_object(o, n, keys, values, 0));
    return d;
}

uint64_t pyo_split_dict(struct pyo *o, size_t n, const uint64_t *keys, const uint64_t *values,
                        const uint8_t *order)
{
    const struct ju_py_value_layout *V = o->V;
    uint64_t d = pyo_object(o, o->t_dict, 32), block, vals;
    size_t i, capacity = n;
    block = pyi_alloc(o->p, 64 + 8 * capacity + 64);
    vals = block + 32; /* room before for 3.11/3.12's order bytes */
    if (V->dv_order_before) {
        ju_builder_u8(o->p->b, vals - 2, (uint8_t)n);
        for (i = 0; i < n; i++)
            ju_builder_u8(o->p->b, vals - 3 - i, order[i]);
    } else {
        ju_builder_u8(o->p->b, vals, (uint8_t)capacity);
        ju_builder_u8(o->p->b, vals + 1, (uint8_t)n);
        for (i = 0; i < n; i++)
            ju_builder_u8(o->p->b, vals + V->dv_values + 8 * capacity + i, order[i]);
    }
    for (i = 0; i < n; i++)
        ju_builder_u64(o->p->b, vals + V->dv_values + 8 * i, values[i]);
    ju_builder_u64(o->p->b, d + o->head + V->dict_used, n);
    ju_builder_u64(o->p->b, d + o->head + V->dict_keys, keys_object(o, n, keys, NULL, 2));
    ju_builder_u64(o->p->b, d + o->head + V->dict_values, vals);
    return d;
}

uint64_t pyo_set(struct pyo *o, int frozen, size_t n, const uint64_t *items)
{
    uint64_t s = pyo_object(o, frozen ? o->t_frozenset : o->t_set, 200), table;
    size_t slots = 8, i;
    while (slots < 2 * n)
        slots *= 2;
    table = pyi_alloc(o->p, 16 * slots);
    for (i = 0; i < slots; i++) {
        ju_builder_u64(o->p->b, table + 16 * i, 0);
        ju_builder_u64(o->p->b, table + 16 * i + 8, 0);
    }
    for (i = 0; i < n; i++) { /* every other slot, so empty ones are skipped */
        ju_builder_u64(o->p->b, table + 16 * (2 * i), items[i]);
        ju_builder_u64(o->p->b, table + 16 * (2 * i) + 8, 77);
    }
    ju_builder_u64(o->p->b, s + o->head + o->V->set_used, n);
    ju_builder_u64(o->p->b, s + o->head + o->V->set_mask, slots - 1);
    ju_builder_u64(o->p->b, s + o->head + o->V->set_table, table);
    return s;
}

uint64_t pyo_function(struct pyo *o, const char *qualname)
{
    uint64_t f = pyo_object(o, o->t_function, 160);
    ju_builder_u64(o->p->b, f + o->head + o->V->func_qualname, pyo_str(o, qualname));
    return f;
}

uint64_t pyo_cell(struct pyo *o, uint64_t ref)
{
    uint64_t c = pyo_object(o, o->t_cell, 8);
    ju_builder_u64(o->p->b, c + o->head + o->V->cell_ref, ref);
    return c;
}

const struct pyo_build PYO_BUILDS[PYO_NBUILDS] = {
    {0x030b07f0, 0}, {0x030c01f0, 0}, {0x030d00f0, 0}, {0x030d00f0, 1},
    {0x030e07f0, 0}, {0x030e07f0, 1}};

void pyo_target_open(struct pyo_target *t, size_t build)
{
    uint64_t interp;
    t->version = PYO_BUILDS[build].version;
    pyi_init_build(&t->p, t->version, PYO_BUILDS[build].free_threaded);
    pyo_init(&t->o, &t->p);
    interp = pyi_interp(&t->p, 0, 0);
    pyi_thread(&t->p, interp, 0, 1);
    pyi_set_interpreters(&t->p, interp);
    t->mem = ju_builder_memory(t->p.b);
    ck_assert_int_eq(jitunwind_pyreader_open(&t->r, &t->mem, t->p.runtime, t->version, NULL), 0);
}

void pyo_target_close(struct pyo_target *t)
{
    jitunwind_pyreader_free(t->r);
    pyi_free(&t->p);
}
