/* The value renderer and frame variables over synthetic targets of every
 * version with a value layout (3.11-3.14, GIL and free-threaded): exact
 * reprs of each kind, the limits, cycles, adversarial objects (huge sizes,
 * garbage type pointers, strings running into an unmapped page, deep
 * nesting) with bounded output, and every read failing in turn. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "faulty.h"
#include "py_adversarial.h"
#include "suite.h"

static const char *render_with(struct pyo_target *t, uint64_t obj,
                               const struct jitunwind_py_repr_options *opt, uint32_t *flags)
{
    static char buf[8192];
    ck_assert_int_eq(jitunwind_pyreader_repr(t->r, obj, opt, buf, sizeof buf, flags), 0);
    ck_assert_uint_lt(strlen(buf), sizeof buf);
    return buf;
}

static const char *render(struct pyo_target *t, uint64_t obj)
{
    uint32_t flags;
    return render_with(t, obj, NULL, &flags);
}

#define CHECK_REPR(t, obj, expected)                                                     \
    ck_assert_msg(strcmp(render(t, obj), expected) == 0, "%s: got %s, expected %s",      \
                  (t)->p.L->name, render(t, obj), expected)

START_TEST(scalars_render_as_repr)
{
    size_t b;
    for (b = 0; b < PYO_NBUILDS; b++) {
        struct pyo_target t;
        struct pyo *o = &t.o;
        uint32_t big[3] = {0, 0, 1}; /* 2**60 */
        uint32_t latin[] = {'c', 'a', 'f', 0xe9, 0xa0}, ucs2[] = {0x20ac, 0x4e2d, 0x2028, '\''};
        uint32_t ucs4[] = {0x1f600, 0xdc80};
        pyo_target_open(&t, b);
        CHECK_REPR(&t, o->none, "None");
        CHECK_REPR(&t, pyo_bool(o, 1), "True");
        CHECK_REPR(&t, pyo_bool(o, 0), "False");
        CHECK_REPR(&t, pyo_int(o, 0), "0");
        CHECK_REPR(&t, pyo_int(o, -123456789012345), "-123456789012345");
        CHECK_REPR(&t, pyo_bigint(o, big, 3, 0), "1152921504606846976");
        CHECK_REPR(&t, pyo_float(o, 0.1), "0.1");
        CHECK_REPR(&t, pyo_float(o, -0.0), "-0.0");
        CHECK_REPR(&t, pyo_float(o, 1e16), "1e+16");
        CHECK_REPR(&t, pyo_float(o, 1e15), "1000000000000000.0");
        CHECK_REPR(&t, pyo_float(o, 1e-5), "1e-05");
        CHECK_REPR(&t, pyo_float(o, 0.0001), "0.0001");
        CHECK_REPR(&t, pyo_float(o, INFINITY), "inf");
        CHECK_REPR(&t, pyo_float(o, NAN), "nan");
        CHECK_REPR(&t, pyo_str(o, "it's"), "\"it's\"");
        CHECK_REPR(&t, pyo_str(o, "a\tb\n\\"), "'a\\tb\\n\\\\'");
        CHECK_REPR(&t, pyo_str_cps(o, latin, 5, 1), "'caf\xc3\xa9\\xa0'");
        CHECK_REPR(&t, pyo_str_cps(o, ucs2, 4, 2), "\"\xe2\x82\xac\xe4\xb8\xad\\u2028'\"");
        CHECK_REPR(&t, pyo_str_cps(o, ucs4, 2, 4), "'\xf0\x9f\x98\x80\\udc80'");
        CHECK_REPR(&t, pyo_bytes(o, "a'\0\xff", 4), "b\"a'\\x00\\xff\"");
        CHECK_REPR(&t, 0, "<NULL>");
        pyo_target_close(&t);
    }
}
END_TEST

/* "<function q at 0x...>" and friends carry the address: format expected text. */
static const char *with_addr(const char *fmt, uint64_t a, uint64_t b)
{
    static char text[256];
    snprintf(text, sizeof text, fmt, (unsigned long long)a, (unsigned long long)b);
    return text;
}

START_TEST(objects_render_as_repr)
{
    size_t b;
    for (b = 0; b < PYO_NBUILDS; b++) {
        struct pyo_target t;
        struct pyo *o;
        uint64_t f, cell, thing_type, thing, k[3], v[3], d, l, inner_list;
        pyo_target_open(&t, b);
        o = &t.o;
        f = pyo_function(o, "outer.<locals>.f");
        CHECK_REPR(&t, f, with_addr("<function outer.<locals>.f at 0x%llx>", f, 0));
        cell = pyo_cell(o, pyo_int(o, 5));
        ck_assert_msg(strncmp(render(&t, cell), with_addr("<cell at 0x%llx: int object at", cell, 0),
                              strlen(with_addr("<cell at 0x%llx: int object at", cell, 0))) == 0,
                      "%s", render(&t, cell));
        cell = pyo_cell(o, 0);
        CHECK_REPR(&t, cell, with_addr("<cell at 0x%llx: empty>", cell, 0));
        thing_type = pyo_type(o, "Thing", 1, "app.models");
        thing = pyo_object(o, thing_type, 16);
        CHECK_REPR(&t, thing, with_addr("<app.models.Thing object at 0x%llx>", thing, 0));
        CHECK_REPR(&t, thing_type, "<class 'app.models.Thing'>");
        CHECK_REPR(&t, o->t_int, "<class 'int'>");
        /* containers: tuple of one, nested lists, dict in order, sets */
        k[0] = pyo_int(o, 1);
        CHECK_REPR(&t, pyo_tuple(o, 1, k), "(1,)");
        CHECK_REPR(&t, pyo_tuple(o, 0, k), "()");
        CHECK_REPR(&t, pyo_list(o, 0, k), "[]");
        CHECK_REPR(&t, pyo_set(o, 0, 0, k), "set()");
        CHECK_REPR(&t, pyo_set(o, 1, 0, k), "frozenset()");
        CHECK_REPR(&t, pyo_set(o, 1, 1, k), "frozenset({1})");
        k[0] = pyo_str(o, "a");
        k[1] = pyo_int(o, 2);
        k[2] = pyo_str(o, "gone");
        v[0] = pyo_list(o, 1, &k[1]);
        v[1] = o->none;
        v[2] = 0; /* deleted */
        d = pyo_dict(o, 3, k, v);
        CHECK_REPR(&t, d, "{'a': [2], 2: None}");
        inner_list = pyo_list(o, 1, &d);
        l = pyo_list(o, 1, &inner_list);
        CHECK_REPR(&t, l, "[[{...}]]"); /* depth 2 by default */
        {
            struct jitunwind_py_repr_options deep = {sizeof deep, 5, 0, 0};
            uint32_t flags;
            ck_assert_str_eq(render_with(&t, l, &deep, &flags), "[[{'a': [2], 2: None}]]");
            ck_assert_uint_eq(flags, 0);
        }
        {
            uint64_t sk[2] = {pyo_str(o, "x"), pyo_str(o, "y")};
            uint64_t sv[2] = {pyo_int(o, 1), pyo_int(o, 2)};
            uint8_t order[2] = {1, 0}; /* y was set first */
            CHECK_REPR(&t, pyo_split_dict(o, 2, sk, sv, order), "{'y': 2, 'x': 1}");
        }
        pyo_target_close(&t);
    }
}
END_TEST

START_TEST(limits_and_cycles)
{
    struct pyo_target t;
    struct pyo *o;
    struct pyo_adversarial a;
    uint64_t items[12], l;
    uint32_t flags;
    char text[300];
    struct jitunwind_py_repr_options opt = {sizeof opt, 0, 3, 5};
    size_t i;
    pyo_target_open(&t, 2);
    o = &t.o;
    for (i = 0; i < 12; i++)
        items[i] = pyo_int(o, (int64_t)i);
    l = pyo_list(o, 12, items);
    ck_assert_str_eq(render_with(&t, l, NULL, &flags), "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ...]");
    ck_assert_uint_eq(flags, JITUNWIND_PYREPR_TRUNCATED);
    ck_assert_str_eq(render_with(&t, l, &opt, &flags), "[0, 1, 2, ...]");
    /* The options are read by their size: one without it is refused. */
    {
        struct jitunwind_py_repr_options sizeless = {0, 0, 3, 5};
        ck_assert_int_eq(jitunwind_pyreader_repr(t.r, l, &sizeless, text, sizeof text, &flags),
                         JITUNWIND_EINVAL);
    }
    for (i = 0; i < 250; i++)
        text[i] = (char)('a' + i % 26);
    text[250] = '\0';
    ck_assert_str_eq(render_with(&t, pyo_str(o, text), &opt, &flags), "'abcde...'");
    ck_assert_uint_eq(flags, JITUNWIND_PYREPR_TRUNCATED);
    ck_assert_str_eq(render_with(&t, pyo_int(o, 1234567890123), &opt, &flags), "12345...");
    /* a list that contains itself; a dict that contains itself */
    pyo_adversarial(o, &a);
    ck_assert_str_eq(render(&t, a.self_list), "[1, [...]]");
    ck_assert_str_eq(render(&t, a.self_dict), "{'self': {...}}");
    pyo_target_close(&t);
}
END_TEST

/* Each adversarial object renders in bounded time to bounded text with the
 * expected marker, and the renderer reads a bounded number of times. */
START_TEST(adversarial_objects_are_bounded)
{
    size_t b;
    for (b = 0; b < PYO_NBUILDS; b++) {
        struct pyo_target t;
        struct pyo_adversarial a;
        uint64_t before;
        uint32_t flags;
        const char *text;
        char expect[64];
        pyo_target_open(&t, b);
        pyo_adversarial(&t.o, &a);
        /* ten items (the first real, the rest whatever follows its array), then "..." */
        before = ju_builder_reads(t.p.b);
        text = render_with(&t, a.huge_list, NULL, &flags);
        ck_assert_uint_lt(ju_builder_reads(t.p.b) - before, 200);
        ck_assert_msg(strncmp(text, "[1, ", 4) == 0 && strlen(text) > 6 &&
                          strcmp(text + strlen(text) - 6, ", ...]") == 0, "%s", text);
        ck_assert(flags & JITUNWIND_PYREPR_TRUNCATED);
        snprintf(expect, sizeof expect, "<unreadable 0x%llx>", (unsigned long long)a.unmapped_type);
        ck_assert_str_eq(render_with(&t, a.unmapped_type, NULL, &flags), expect);
        ck_assert(flags & JITUNWIND_PYREPR_UNREADABLE);
        snprintf(expect, sizeof expect, "<unreadable 0x%llx>", (unsigned long long)a.garbage_type);
        ck_assert_str_eq(render(&t, a.garbage_type), expect);
        /* a str whose characters run into an unmapped page: what reads, then "..." */
        ck_assert_str_eq(render_with(&t, a.str_at_gap, NULL, &flags), "'0123456789...'");
        ck_assert(flags & JITUNWIND_PYREPR_UNREADABLE);
        ck_assert(flags & JITUNWIND_PYREPR_TRUNCATED);
        /* the same str claiming 5 characters: all of them read */
        ju_builder_u64(t.p.b, a.str_at_gap + t.p.L->str_length, 5);
        ck_assert_str_eq(render(&t, a.str_at_gap), "'01234'");
        /* a str of 2**40 characters, an int of 2**40 digits */
        render_with(&t, a.huge_str, NULL, &flags);
        ck_assert_uint_lt(strlen(render(&t, a.huge_str)), 1000); /* 200 characters, escaped */
        ck_assert_str_eq(render(&t, a.huge_str) + strlen(render(&t, a.huge_str)) - 4, "...'");
        ck_assert(flags & JITUNWIND_PYREPR_TRUNCATED);
        ck_assert_str_eq(render(&t, a.huge_int), "<int of about 9929579559282 decimal digits>");
        /* the same int negative: the sign is said */
        if (t.o.V->long_tag != JU_PY_NONE)
            ju_builder_u64(t.p.b, a.huge_int + t.o.head + t.o.V->long_tag, (1ull << 43) | 2);
        else
            ju_builder_u64(t.p.b, a.huge_int + t.o.head + t.o.V->long_size,
                           (uint64_t)-(int64_t)(1ull << 40));
        ck_assert_str_eq(render(&t, a.huge_int),
                         "<negative int of about 9929579559282 decimal digits>");
        /* a set of 2**40 slots, all empty: the scan stops */
        ck_assert_str_eq(render_with(&t, a.huge_set, NULL, &flags), "{...}");
        ck_assert(flags & JITUNWIND_PYREPR_TRUNCATED);
        /* 1,000 nested lists, and a 1,000-long cycle of them */
        {
            struct jitunwind_py_repr_options deep = {sizeof deep, 1000, 0, 0};
            ck_assert_uint_lt(strlen(render_with(&t, a.deep_chain, &deep, &flags)), 100);
            ck_assert_uint_lt(strlen(render_with(&t, a.deep_cycle, &deep, &flags)), 100);
        }
        /* a dict whose keys object claims 2**40 entries */
        snprintf(expect, sizeof expect, "<unreadable 0x%llx>", (unsigned long long)a.huge_dict);
        ck_assert_str_eq(render(&t, a.huge_dict), expect);
        pyo_target_close(&t);
    }
}
END_TEST

/* A composite object rendered with each read failing once in turn: always
 * a NUL-terminated, bounded text and status 0. */
START_TEST(every_failed_read_is_survived)
{
    size_t b;
    for (b = 0; b < PYO_NBUILDS; b++) {
        struct pyo_target t;
        struct pyo *o;
        struct ju_faulty f = {0};
        struct jitunwind_memory mem;
        jitunwind_pyreader *r;
        uint64_t k[3], v[3], obj, thing, total = 0, n;
        char full[4096], buf[4096];
        uint32_t flags;
        const struct jitunwind_py_repr_options deep = {sizeof deep, 4, 0, 0};
        pyo_target_open(&t, b);
        o = &t.o;
        thing = pyo_object(o, pyo_type(o, "Thing", 1, "m"), 16);
        k[0] = pyo_str(o, "name");
        k[1] = pyo_int(o, -5);
        k[2] = pyo_tuple(o, 1, &k[1]);
        v[0] = pyo_list(o, 3, (uint64_t[]){thing, pyo_float(o, 2.5), pyo_set(o, 0, 1, &k[1])});
        v[1] = pyo_function(o, "f");
        v[2] = pyo_bytes(o, "xy", 2);
        obj = pyo_dict(o, 3, k, v);
        f.inner = t.mem;
        mem = ju_faulty_memory(&f);
        ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, t.p.runtime, t.version, NULL), 0);
        for (n = 0;; n++) {
            f.fail_at = 0;
            if (n == 0) {
                f.reads = 0;
                ck_assert_int_eq(jitunwind_pyreader_repr(r, obj, &deep, full, sizeof full, &flags), 0);
                ck_assert_uint_eq(flags, 0);
                total = f.reads;
                continue;
            }
            if (n > total)
                break;
            f.reads = 0;
            f.fail_at = n;
            memset(buf, 'Z', sizeof buf);
            ck_assert_int_eq(jitunwind_pyreader_repr(r, obj, &deep, buf, sizeof buf, &flags), 0);
            ck_assert_uint_lt(strlen(buf), sizeof buf);
            ck_assert_msg(flags != 0 || strcmp(buf, full) == 0, "read %llu failed silently: %s",
                          (unsigned long long)n, buf);
        }
        ck_assert_msg(strstr(full, "'name': [<m.Thing object at 0x") == full + 1, "%s", full);
        ck_assert_msg(strstr(full, ", 2.5, {-5}], -5: <function f at 0x") != NULL, "%s", full);
        ck_assert_msg(strstr(full, ">, (-5,): b'xy'}") != NULL, "%s", full);
        jitunwind_pyreader_free(r);
        pyo_target_close(&t);
    }
}
END_TEST

/* Output buffers of every size from 32 up: never overrun, always terminated. */
START_TEST(small_buffers_are_respected)
{
    struct pyo_target t;
    uint64_t items[20];
    char buf[512];
    size_t i, size;
    uint32_t flags;
    pyo_target_open(&t, 0);
    for (i = 0; i < 20; i++)
        items[i] = pyo_str(&t.o, "\xe2\x82\xac-euro");
    for (size = 32; size < 256; size++) {
        memset(buf, 'Z', sizeof buf);
        ck_assert_int_eq(jitunwind_pyreader_repr(t.r, pyo_list(&t.o, 20, items), NULL, buf, size,
                                                 &flags), 0);
        ck_assert_uint_lt(strlen(buf), size);
        ck_assert_int_eq(buf[size], 'Z');
    }
    ck_assert_int_eq(jitunwind_pyreader_repr(t.r, items[0], NULL, buf, 16, &flags),
                     JITUNWIND_EINVAL);
    pyo_target_close(&t);
}
END_TEST

/* A code object with names (arg a, arg *rest, local x, unbound local y,
 * cell c, free v) and kinds, and a frame whose localsplus holds them. */
static uint64_t variables_frame(struct pyo_target *t, struct jitunwind_py_frame *out)
{
    struct pyo *o = &t->o;
    const struct ju_py_value_layout *V = o->V;
    const struct ju_py_layout *L = t->p.L;
    uint64_t code = pyi_code(&t->p, "f", "/f.py", 1, 4), frame, names[6], slots[6];
    uint8_t kinds[6] = {0x20, 0x20, 0x20, 0x20, 0x40, 0x80};
    const char *const text[6] = {"a", "rest", "x", "y", "c", "v"};
    size_t i;
    for (i = 0; i < 6; i++)
        names[i] = pyo_str(o, text[i]);
    ju_builder_u32(t->p.b, code + o->head + V->co_argcount, 1);
    ju_builder_u32(t->p.b, code + o->head + V->co_kwonlyargcount, 0);
    ju_builder_u32(t->p.b, code + o->head + V->co_flags, 0x4 /* CO_VARARGS */);
    ju_builder_u32(t->p.b, code + o->head + V->co_nlocalsplus, 6);
    ju_builder_u64(t->p.b, code + o->head + V->co_localsplusnames, pyo_tuple(o, 6, names));
    ju_builder_u64(t->p.b, code + o->head + V->co_localspluskinds, pyo_bytes(o, kinds, 6));
    frame = pyi_frame(&t->p, code, 0, 1, 0, 0);
    slots[0] = pyo_int(o, 3);
    slots[1] = pyo_tuple(o, 1, slots);
    slots[2] = pyo_str(o, "ex");
    slots[3] = 0;
    slots[4] = pyo_cell(o, pyo_str(o, "celled"));
    slots[5] = pyo_cell(o, o->none);
    for (i = 0; i < 6; i++) /* 3.14: tagged stack references, a tag bit set */
        ju_builder_u64(t->p.b, frame + V->fr_localsplus + 8 * i,
                       slots[i] | (L->code_tag_mask && slots[i] && i % 2 ? 1 : 0));
    memset(out, 0, sizeof *out);
    out->address = frame;
    out->code = code;
    return frame;
}

START_TEST(frame_variables_in_order)
{
    size_t b;
    for (b = 0; b < PYO_NBUILDS; b++) {
        struct pyo_target t;
        struct jitunwind_py_frame fr;
        struct jitunwind_py_variable v[8];
        size_t n, i;
        const char *const expect[6][2] = {{"a", "3"}, {"rest", "(3,)"}, {"x", "'ex'"},
                                           {"y", NULL}, {"c", "'celled'"}, {"v", "None"}};
        const uint32_t kinds[6] = {JITUNWIND_PYVAR_ARG, JITUNWIND_PYVAR_ARG,
                                   JITUNWIND_PYVAR_LOCAL, JITUNWIND_PYVAR_LOCAL,
                                   JITUNWIND_PYVAR_CELL, JITUNWIND_PYVAR_FREE};
        uint64_t value;
        int scope;
        pyo_target_open(&t, b);
        variables_frame(&t, &fr);
        ck_assert_int_eq(jitunwind_pyreader_frame_variables(t.r, &fr, v, 8, &n), 0);
        ck_assert_uint_eq(n, 6);
        for (i = 0; i < 6; i++) {
            ck_assert_str_eq(v[i].name, expect[i][0]);
            ck_assert_uint_eq(v[i].flags & 0xff, kinds[i]);
            ck_assert_uint_eq(!!(v[i].flags & JITUNWIND_PYVAR_MAY_BE_STALE), 0);
            if (expect[i][1] == NULL)
                ck_assert(v[i].flags & JITUNWIND_PYVAR_UNBOUND);
            else
                ck_assert_str_eq(render(&t, v[i].value), expect[i][1]);
        }
        /* JIT frames flag every value; a short array is ELIMIT with a prefix */
        fr.flags = JITUNWIND_PYFRAME_LINE_MAY_LAG;
        ck_assert_int_eq(jitunwind_pyreader_frame_variables(t.r, &fr, v, 2, &n),
                         JITUNWIND_ELIMIT);
        ck_assert_uint_eq(n, 2);
        ck_assert(v[0].flags & JITUNWIND_PYVAR_MAY_BE_STALE);
        /* ... and so do frames whose exact line was found in JIT code */
        fr.flags = JITUNWIND_PYFRAME_IN_JIT;
        ck_assert_int_eq(jitunwind_pyreader_frame_variables(t.r, &fr, v, 2, &n),
                         JITUNWIND_ELIMIT);
        ck_assert(v[0].flags & JITUNWIND_PYVAR_MAY_BE_STALE);
        ck_assert(v[1].flags & JITUNWIND_PYVAR_MAY_BE_STALE);
        /* lookup: a local; an unbound local is said so, not looked for further */
        ck_assert_int_eq(jitunwind_pyreader_frame_lookup(t.r, &fr, "c", &value, &scope), 0);
        ck_assert_int_eq(scope, JITUNWIND_PYSCOPE_LOCAL);
        ck_assert_str_eq(render(&t, value), "'celled'");
        ck_assert_int_eq(jitunwind_pyreader_frame_lookup(t.r, &fr, "y", &value, &scope), 0);
        ck_assert_int_eq(scope, JITUNWIND_PYSCOPE_UNBOUND_LOCAL);
        ck_assert_uint_eq(value, 0);
        /* a bad code object: an error, no variables */
        fr.flags = JITUNWIND_PYFRAME_BAD_CODE;
        ck_assert_int_lt(jitunwind_pyreader_frame_variables(t.r, &fr, v, 8, &n), 0);
        ck_assert_uint_eq(n, 0);
        pyo_target_close(&t);
    }
}
END_TEST

START_TEST(lookup_reads_globals_then_builtins)
{
    struct pyo_target t;
    struct jitunwind_py_frame fr;
    uint64_t frame, gk, gv, bk[2], bv[2], value;
    int scope;
    pyo_target_open(&t, 4);
    frame = variables_frame(&t, &fr);
    gk = pyo_str(&t.o, "CONFIG");
    gv = pyo_int(&t.o, 42);
    bk[0] = pyo_str(&t.o, "len");
    bk[1] = pyo_str(&t.o, "CONFIG");
    bv[0] = pyo_function(&t.o, "len");
    bv[1] = pyo_int(&t.o, 1);
    ju_builder_u64(t.p.b, frame + t.o.V->fr_globals, pyo_dict(&t.o, 1, &gk, &gv));
    ju_builder_u64(t.p.b, frame + t.o.V->fr_builtins, pyo_dict(&t.o, 2, bk, bv));
    ck_assert_int_eq(jitunwind_pyreader_frame_lookup(t.r, &fr, "CONFIG", &value, &scope), 0);
    ck_assert_int_eq(scope, JITUNWIND_PYSCOPE_GLOBAL);
    ck_assert_str_eq(render(&t, value), "42");
    ck_assert_int_eq(jitunwind_pyreader_frame_lookup(t.r, &fr, "len", &value, &scope), 0);
    ck_assert_int_eq(scope, JITUNWIND_PYSCOPE_BUILTIN);
    ck_assert_int_eq(jitunwind_pyreader_frame_lookup(t.r, &fr, "nope", &value, &scope),
                     JITUNWIND_ENOTFOUND);
    pyo_target_close(&t);
}
END_TEST

/* Held reads: what was read stays until released (the documented contract
 * for a stopped target); without holding, every call reads afresh. */
START_TEST(held_reads_are_reused_until_released)
{
    struct pyo_target t;
    uint64_t obj;
    uint64_t before;
    pyo_target_open(&t, 2);
    obj = pyo_int(&t.o, 5);
    ck_assert_int_eq(jitunwind_pyreader_hold_reads(t.r, 1), 0);
    CHECK_REPR(&t, obj, "5");
    before = ju_builder_reads(t.p.b);
    CHECK_REPR(&t, obj, "5");
    ck_assert_uint_eq(ju_builder_reads(t.p.b), before); /* nothing read again */
    ju_builder_u32(t.p.b, obj + t.o.head + t.o.V->long_digits, 6);
    CHECK_REPR(&t, obj, "5");
    ck_assert_int_eq(jitunwind_pyreader_hold_reads(t.r, 0), 0);
    CHECK_REPR(&t, obj, "6");
    ju_builder_u32(t.p.b, obj + t.o.head + t.o.V->long_digits, 7);
    CHECK_REPR(&t, obj, "7");
    ck_assert_int_eq(jitunwind_pyreader_hold_reads(NULL, 1), JITUNWIND_EINVAL);
    pyo_target_close(&t);
}
END_TEST

/* 3.12-3.14: the GIL's last holder holds it only while it is locked; and
 * the interpreter says whether a GC runs. */
START_TEST(a_released_gil_has_no_holder)
{
    size_t b;
    for (b = 1; b < PYO_NBUILDS; b++) {
        struct pyo_target t;
        struct jitunwind_py_thread th[4];
        uint64_t interp, ts, gil;
        size_t n;
        if (PYO_BUILDS[b].free_threaded)
            continue;
        pyi_init_build(&t.p, PYO_BUILDS[b].version, 0);
        pyo_init(&t.o, &t.p);
        interp = pyi_interp(&t.p, 0, 0);
        ts = pyi_thread(&t.p, interp, 0, 1);
        pyi_set_interpreters(&t.p, interp);
        gil = pyi_alloc(&t.p, 64);
        ju_builder_u64(t.p.b, interp + t.p.L->interp_gil_ptr, gil);
        ju_builder_u64(t.p.b, gil + t.p.L->gil_last_holder, ts);
        ju_builder_u32(t.p.b, gil + t.o.V->gil_locked, 0);
        t.mem = ju_builder_memory(t.p.b);
        ck_assert_int_eq(jitunwind_pyreader_open(&t.r, &t.mem, t.p.runtime, PYO_BUILDS[b].version,
                                                 NULL), 0);
        ck_assert_int_eq(jitunwind_pyreader_threads(t.r, th, 4, &n), 0);
        ck_assert_int_eq(th[0].holds_gil, 0);
        ju_builder_u32(t.p.b, gil + t.o.V->gil_locked, 1);
        ck_assert_int_eq(jitunwind_pyreader_threads(t.r, th, 4, &n), 0);
        ck_assert_int_eq(th[0].holds_gil, 1);
        {
            int collecting = -1;
            ck_assert_int_eq(jitunwind_pyreader_gc_collecting(t.r, interp, &collecting), 0);
            ck_assert_int_eq(collecting, 0);
            ju_builder_u32(t.p.b, interp + t.o.V->interp_gc_collecting, 1);
            ck_assert_int_eq(jitunwind_pyreader_gc_collecting(t.r, interp, &collecting), 0);
            ck_assert_int_eq(collecting, 1);
            ck_assert_int_eq(jitunwind_pyreader_gc_collecting(t.r, 0xdead0000ull, &collecting),
                             JITUNWIND_EREAD);
        }
        pyo_target_close(&t);
    }
}
END_TEST

/* 3.15 has no value table: without DWARF to give what its debug offsets
 * do not, a clear status naming the missing field, not a guess
 * (check_py_values_without_table reads one with DWARF). */
START_TEST(unsupported_versions_say_so)
{
    struct py_image p;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    uint64_t interp;
    char buf[64];
    pyi_init(&p, 0x030f00c1);
    interp = pyi_interp(&p, 0, 0);
    pyi_thread(&p, interp, 0, 1);
    pyi_set_interpreters(&p, interp);
    mem = ju_builder_memory(p.b);
    ck_assert_int_eq(jitunwind_pyreader_open(&r, &mem, p.runtime, 0x030f00c1, NULL), 0);
    ck_assert_int_eq(jitunwind_pyreader_repr(r, p.code_type, NULL, buf, sizeof buf, NULL),
                     JITUNWIND_EUNSUPPORTED);
    ck_assert(strstr(jitunwind_pyreader_last_error(r)->message, "3.15") != NULL);
    ck_assert(strstr(jitunwind_pyreader_last_error(r)->message, "PyDictObject.dict_used") != NULL);
    jitunwind_pyreader_free(r);
    pyi_free(&p);
}
END_TEST

int main(void)
{
    return ju_run_tests("py_values",
                        JU_TESTS(scalars_render_as_repr, objects_render_as_repr, limits_and_cycles,
                                 adversarial_objects_are_bounded, every_failed_read_is_survived,
                                 small_buffers_are_respected, frame_variables_in_order,
                                 lookup_reads_globals_then_builtins, held_reads_are_reused_until_released,
                                 a_released_gil_has_no_holder,
                                 unsupported_versions_say_so));
}
