#include "py_adversarial.h"

#include <string.h>

#define HUGE (1ull << 40)

/* A str of 300 ASCII characters whose first 10 are the last bytes before
 * an unmapped page. */
static uint64_t str_at_gap(struct pyo *o)
{
    struct py_image *p = o->p;
    const struct ju_py_layout *L = p->L;
    uint64_t page_end, s;
    uint8_t zero[256] = {0};
    p->heap = (p->heap + 2 * JU_BUILDER_PAGE) & ~(uint64_t)(JU_BUILDER_PAGE - 1);
    page_end = p->heap;
    s = page_end - 10 - L->str_ascii_size;
    ju_builder_write(p->b, s, zero, L->str_ascii_size + 10);
    ju_builder_u64(p->b, s + L->ob_type, o->t_str);
    ju_builder_u64(p->b, s + L->str_length, 300);
    ju_builder_u32(p->b, s + L->str_state,
                   (1u << L->st_kind_shift) | (1u << L->st_compact_bit) |
                       (1u << L->st_ascii_bit) |
                       (L->st_ready_bit != 0xff ? 1u << L->st_ready_bit : 0));
    ju_builder_write(p->b, s + L->str_ascii_size, "0123456789", 10);
    ju_builder_unmap(p->b, page_end);
    p->heap += 2 * JU_BUILDER_PAGE;
    return s;
}

/* 1,000 nested lists around [1]; *innermost gets that innermost list. */
static uint64_t chain(struct pyo *o, uint64_t one, uint64_t *innermost)
{
    uint64_t c = pyo_list(o, 1, &one);
    size_t i;
    *innermost = c;
    for (i = 0; i < 1000; i++)
        c = pyo_list(o, 1, &c);
    return c;
}

/* Item `index` of list `list` set to `item`. */
static void set_item(struct pyo *o, uint64_t list, size_t index, uint64_t item)
{
    struct jitunwind_memory mem = ju_builder_memory(o->p->b);
    uint64_t array;
    mem.read(mem.arg, list + o->head + o->V->list_items, &array, 8);
    ju_builder_u64(o->p->b, array + 8 * index, item);
}

void pyo_adversarial(struct pyo *o, struct pyo_adversarial *a)
{
    struct ju_builder *b = o->p->b;
    const struct ju_py_value_layout *V = o->V;
    uint64_t garbage, key, keys, end, table = 0x20000000ull;
    size_t i;
    memset(a, 0, sizeof *a);
    a->one = pyo_int(o, 1);
    a->huge_list = pyo_list(o, 1, &a->one);
    ju_builder_u64(b, a->huge_list + o->head + V->var_size, HUGE);
    a->unmapped_type = pyo_object(o, 0xdead0000ull, 8);
    garbage = pyo_object(o, 0, 512);
    ju_builder_u64(b, garbage + o->p->L->tp_name, 0x4141414141414141ull);
    a->garbage_type = pyo_object(o, garbage, 8);
    a->str_at_gap = str_at_gap(o);
    a->huge_str = pyo_str(o, "abc");
    ju_builder_u64(b, a->huge_str + o->p->L->str_length, HUGE);
    a->huge_int = pyo_int(o, 7);
    if (V->long_tag != JU_PY_NONE)
        ju_builder_u64(b, a->huge_int + o->head + V->long_tag, HUGE << 3);
    else
        ju_builder_u64(b, a->huge_int + o->head + V->long_size, HUGE);
    a->huge_set = pyo_set(o, 0, 1, &a->one);
    ju_builder_u64(b, a->huge_set + o->head + V->set_mask, HUGE - 1);
    ju_builder_u64(b, a->huge_set + o->head + V->set_table, table);
    for (i = 0; i < 8; i++)
        ju_builder_u64(b, table + 4096 * i, 0);
    a->deep_chain = chain(o, a->one, &a->deep_chain_end);
    a->deep_cycle = chain(o, a->one, &end);
    set_item(o, end, 0, a->deep_cycle);
    key = pyo_str(o, "k");
    a->huge_dict = pyo_dict(o, 1, &key, &a->one);
    {
        struct jitunwind_memory mem = ju_builder_memory(b);
        mem.read(mem.arg, a->huge_dict + o->head + V->dict_keys, &keys, 8);
    }
    ju_builder_u64(b, keys + V->dk_nentries, HUGE);
    a->self_list = pyo_list(o, 2, (uint64_t[]){a->one, a->one});
    set_item(o, a->self_list, 1, a->self_list);
    key = pyo_str(o, "self");
    a->self_dict = pyo_dict(o, 1, &key, &a->one);
    {
        /* its one entry's value (hash, key, value after 8 one-byte indices) */
        struct jitunwind_memory mem = ju_builder_memory(b);
        mem.read(mem.arg, a->self_dict + o->head + V->dict_keys, &keys, 8);
    }
    ju_builder_u64(b, keys + V->dk_indices + 8 + 16, a->self_dict);
    {
        uint64_t every[] = {a->huge_list, a->unmapped_type, a->garbage_type, a->str_at_gap,
                            a->huge_str,  a->huge_int,      a->huge_set,     a->deep_chain,
                            a->deep_cycle, a->huge_dict,    a->self_list,    a->self_dict};
        a->all = pyo_list(o, sizeof every / sizeof every[0], every);
    }
}
