/* Instances of heap types in libpython's style, over synthetic targets of
 * every version with a value layout (3.11-3.14, GIL and free-threaded):
 * attributes from a __dict__ at tp_dictoffset, from a managed dict before
 * the object, from inline values (the version's own encoding, keys from
 * ht_cached_keys), and __slots__ members; attribute lookup; self-reference;
 * libpython's output cap; garbage member tables stay bounded. */
#include <stdio.h>
#include <stdlib.h>

#include "py_objects.h"
#include "suite.h"

#define TPFLAGS_INLINE_VALUES (1ull << 2)
#define TPFLAGS_MANAGED_DICT (1ull << 4)
#define TPFLAGS_HEAPTYPE (1ull << 9)

static const char *render(struct pyo_target *t, uint64_t obj, uint32_t style)
{
    static char buf[4096];
    struct jitunwind_py_repr_options opt = {sizeof opt, 0, 0, 0, style};
    uint32_t flags;
    ck_assert_int_eq(jitunwind_pyreader_repr(t->r, obj, &opt, buf, sizeof buf, &flags), 0);
    return buf;
}

static uint64_t load(struct pyo_target *t, uint64_t addr)
{
    uint64_t v = 0;
    ck_assert_int_eq(t->mem.read(t->mem.arg, addr, &v, 8), 0);
    return v;
}

static void expect(struct pyo_target *t, uint64_t obj, const char *attrs)
{
    char want[512];
    snprintf(want, sizeof want, "<Order%s at remote 0x%llx>", attrs, (unsigned long long)obj);
    ck_assert_msg(strcmp(render(t, obj, JITUNWIND_PYREPR_STYLE_LIBPYTHON), want) == 0,
                  "%s: got %s, expected %s", t->p.L->name,
                  render(t, obj, JITUNWIND_PYREPR_STYLE_LIBPYTHON), want);
}

/* A heap type Order with `flags` and tp_basicsize `basicsize`. */
static uint64_t order_type(struct pyo *o, uint64_t flags, uint64_t basicsize)
{
    uint64_t type = pyo_type(o, "Order", 1, "app");
    ju_builder_u64(o->p->b, type + o->head + o->V->tp_flags, TPFLAGS_HEAPTYPE | flags);
    ju_builder_u64(o->p->b, type + o->head + o->V->tp_basicsize, basicsize);
    return type;
}

/* An object of `type` with `before` zeroed bytes before it (a pre-header). */
static uint64_t object_after(struct pyo *o, uint64_t type, size_t before, size_t size)
{
    uint64_t block = pyo_object(o, type, before + size), obj = block + before;
    size_t i;
    for (i = 0; i < o->head + size; i += 8)
        ju_builder_u64(o->p->b, obj + i, 0);
    ju_builder_u64(o->p->b, obj + o->p->L->ob_type, type);
    return obj;
}

START_TEST(a_dict_at_tp_dictoffset)
{
    size_t b;
    for (b = 0; b < PYO_NBUILDS; b++) {
        struct pyo_target t;
        struct pyo *o;
        uint64_t type, obj, k[2], v[2], found = 0;
        pyo_target_open(&t, b);
        o = &t.o;
        type = order_type(o, 0, o->head + 8);
        ju_builder_u64(o->p->b, type + o->head + o->V->tp_dictoffset, o->head);
        obj = pyo_object(o, type, 8);
        k[0] = pyo_str(o, "oid");
        k[1] = pyo_str(o, "items");
        v[0] = pyo_int(o, 1);
        v[1] = pyo_list(o, 1, (uint64_t[]){pyo_str(o, "x")});
        ju_builder_u64(o->p->b, obj + o->head, pyo_dict(o, 2, k, v));
        expect(&t, obj, "(oid=1, items=['x'])");
        /* repr() style: Python's own default repr */
        ck_assert_ptr_nonnull(strstr(render(&t, obj, 0), "<app.Order object at 0x"));
        ck_assert_int_eq(jitunwind_pyreader_attribute(t.r, obj, "items", &found), 0);
        ck_assert_uint_eq(found, v[1]);
        ck_assert_int_eq(jitunwind_pyreader_attribute(t.r, obj, "nope", &found),
                         JITUNWIND_ENOTFOUND);
        /* no dict yet */
        ju_builder_u64(o->p->b, obj + o->head, 0);
        expect(&t, obj, "");
        /* itself as an attribute: libpython's <...> */
        k[0] = pyo_str(o, "me");
        ju_builder_u64(o->p->b, obj + o->head, pyo_dict(o, 1, k, &obj));
        expect(&t, obj, "(me=<...>)");
        pyo_target_close(&t);
    }
}
END_TEST

START_TEST(managed_dicts_and_inline_values)
{
    size_t b;
    for (b = 0; b < PYO_NBUILDS; b++) {
        struct pyo_target t;
        struct pyo *o;
        uint64_t type, obj, split, keys, vals, k[2], v[2];
        uint8_t order[2] = {1, 0}; /* items was set first */
        uint32_t minor;
        int64_t dict_at;
        pyo_target_open(&t, b);
        o = &t.o;
        minor = (t.version >> 16) & 0xff;
        dict_at = o->V->free_threaded ? -8 : -24;
        k[0] = pyo_str(o, "oid");
        k[1] = pyo_str(o, "items");
        v[0] = pyo_int(o, 1);
        v[1] = pyo_list(o, 0, k);
        /* the managed dict: a dict pointer before the object */
        type = order_type(o, TPFLAGS_MANAGED_DICT, o->head);
        obj = object_after(o, type, 32, 0);
        ju_builder_u64(o->p->b, obj + dict_at, pyo_dict(o, 2, k, v));
        expect(&t, obj, "(oid=1, items=[])");
        /* inline values: a split dict's keys and values, as the object's */
        split = pyo_split_dict(o, 2, k, v, order);
        keys = load(&t, split + o->head + o->V->dict_keys);
        vals = load(&t, split + o->head + o->V->dict_values);
        ju_builder_u64(o->p->b, type + o->head + o->V->ht_cached_keys, keys);
        if (minor == 11) {
            ju_builder_u64(o->p->b, obj + dict_at, 0);
            ju_builder_u64(o->p->b, obj - 32, vals);
        } else if (minor == 12) {
            ju_builder_u64(o->p->b, obj + dict_at, vals - 1);
        } else {
            /* 3.13+: right after tp_basicsize bytes, while no dict is made */
            ju_builder_u64(o->p->b, type + o->head + o->V->tp_flags,
                           TPFLAGS_HEAPTYPE | TPFLAGS_MANAGED_DICT | TPFLAGS_INLINE_VALUES);
            ju_builder_u64(o->p->b, type + o->head + o->V->tp_basicsize, vals - obj);
            ju_builder_u8(o->p->b, vals + o->V->dv_valid, 1);
            ju_builder_u64(o->p->b, obj + dict_at, 0);
        }
        expect(&t, obj, "(items=[], oid=1)");
        if (minor >= 13) { /* values no longer valid: no attributes */
            ju_builder_u8(o->p->b, vals + o->V->dv_valid, 0);
            expect(&t, obj, "");
        }
        pyo_target_close(&t);
    }
}
END_TEST

/* A PyMemberDef: name, type, offset (flags and doc left 0). */
static void member(struct pyo *o, uint64_t at, const char *name, uint32_t type, int64_t offset)
{
    uint64_t text = 0;
    if (name) {
        text = pyi_alloc(o->p, strlen(name) + 1);
        ju_builder_write(o->p->b, text, name, strlen(name) + 1);
    }
    ju_builder_u64(o->p->b, at, text);
    ju_builder_u32(o->p->b, at + 8, type);
    ju_builder_u64(o->p->b, at + 16, (uint64_t)offset);
    ju_builder_u64(o->p->b, at + 24, 0);
    ju_builder_u64(o->p->b, at + 32, 0);
}

START_TEST(slots_and_their_bounds)
{
    size_t b;
    for (b = 0; b < PYO_NBUILDS; b++) {
        struct pyo_target t;
        struct pyo *o;
        uint64_t type, obj, members, found = 0;
        size_t i;
        pyo_target_open(&t, b);
        o = &t.o;
        type = order_type(o, 0, o->head + 24);
        members = pyi_alloc(o->p, 40 * 80);
        member(o, members, "a", 16, o->head);
        member(o, members + 40, "__weakref__", 16, o->head + 8);
        member(o, members + 80, "b", 16, o->head + 16);
        member(o, members + 120, "unset", 6, o->head + 8);
        member(o, members + 160, "flag", 0 /* a C short */, o->head);
        member(o, members + 200, NULL, 0, 0);
        ju_builder_u64(o->p->b, type + o->head + o->V->tp_members, members);
        obj = pyo_object(o, type, 24);
        ju_builder_u64(o->p->b, obj + o->head, pyo_int(o, 1));
        ju_builder_u64(o->p->b, obj + o->head + 16, pyo_str(o, "two"));
        expect(&t, obj, "(a=1, b='two')");
        ck_assert_int_eq(jitunwind_pyreader_attribute(t.r, obj, "b", &found), 0);
        /* a table with no end: at most 64 members are read */
        for (i = 0; i < 80; i++)
            member(o, members + 40 * i, "a", 16, o->head);
        ck_assert_ptr_nonnull(strstr(render(&t, obj, JITUNWIND_PYREPR_STYLE_LIBPYTHON),
                                     "(a=1, a=1"));
        /* a member table in unmapped memory: the instance without them */
        ju_builder_u64(o->p->b, type + o->head + o->V->tp_members, 0xdead00000000ull);
        expect(&t, obj, "");
        pyo_target_close(&t);
    }
}
END_TEST

START_TEST(libpython_output_is_cut_at_1024)
{
    struct pyo_target t;
    uint64_t items[400], list;
    const char *text;
    size_t i;
    pyo_target_open(&t, 2);
    for (i = 0; i < 400; i++)
        items[i] = pyo_int(&t.o, (int64_t)i);
    list = pyo_list(&t.o, 400, items);
    text = render(&t, list, JITUNWIND_PYREPR_STYLE_LIBPYTHON);
    ck_assert_uint_eq(strlen(text), 1024 + strlen("...(truncated)"));
    ck_assert_str_eq(text + 1024, "...(truncated)");
    ck_assert(strncmp(text, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,", 38) == 0);
    /* nested deeper than the repr() style's 2 */
    {
        uint64_t inner = pyo_list(&t.o, 1, items + 5), mid = pyo_list(&t.o, 1, &inner);
        uint64_t outer = pyo_tuple(&t.o, 1, &mid);
        ck_assert_str_eq(render(&t, outer, JITUNWIND_PYREPR_STYLE_LIBPYTHON), "([[5]],)");
        ck_assert_str_eq(render(&t, outer, 0), "([[...]],)");
    }
    pyo_target_close(&t);
}
END_TEST

int main(void)
{
    return ju_run_tests("py_instances",
                        JU_TESTS(a_dict_at_tp_dictoffset, managed_dicts_and_inline_values,
                                 slots_and_their_bounds, libpython_output_is_cut_at_1024));
}
