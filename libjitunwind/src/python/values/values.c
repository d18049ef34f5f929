/* jitunwind_pyreader_repr: repr() of a remote object without recursion.
 *
 * Containers being shown sit on an explicit stack (at most max_depth deep,
 * plus the bound methods whose `self` is being shown); each step takes the
 * next item of the top one. In libpython's style an instance of a heap
 * type is such a container too, its attributes its items (instance.h). A
 * container already on the stack is a cycle and shows as CPython's
 * Py_ReprEnter makes it ([...], {...}, (...); an instance as libpython's
 * <...>); one beyond the depth limit shows the same way. Each container
 * scans at most JU_PY_MAX_DICT_SCAN slots; every read is bounded. */
#include "base/sized.h"
#include "python/values/instance.h"
#include "python/values/read_cache.h"
#include "python/values/repr.h"

#define DEFAULT_DEPTH 2u
#define DEFAULT_ITEMS 10u
#define DEFAULT_CHARS 200u
/* libpython.py's own bounds: its output is cut at 1,024 characters and
 * marked, and no container shows more than 1,000 items; nesting is
 * bounded only by the renderer's stack. */
#define LIBPYTHON_OUTPUT 1024u
#define LIBPYTHON_ITEMS 1000u
#define LIBPYTHON_CUT "...(truncated)"
#define MAX_DEPTH 16u
#define MAX_STACK (2u * MAX_DEPTH + 2u)

struct open_item {
    uint64_t obj;
    uint8_t kind;      /* enum ju_py_kind: a container, or JU_K_METHOD awaiting ">" */
    uint8_t want_value; /* dict: a key was shown, ": value" is next */
    uint8_t cut;       /* items were left out */
    uint32_t shown;
    uint64_t pending;  /* dict: the value of the key just shown */
    uint64_t items, count, index, scanned; /* tuple/list: item array; set: table, slots */
    struct ju_py_dict_iter dict;
    struct ju_py_attr_iter attrs; /* an instance's attributes */
};

struct renderer {
    struct ju_py_objects o;
    struct ju_writer w;
    uint32_t max_depth, max_items, max_chars, style;
    unsigned depth, containers;
    char attr_name[128];   /* the instance attribute next_item gave */
    struct open_item stack[MAX_STACK];
};

static const char *opening(uint8_t kind)
{
    switch (kind) {
    case JU_K_TUPLE: return "(";
    case JU_K_LIST: return "[";
    case JU_K_FROZENSET: return "frozenset({";
    default: return "{";
    }
}

static const char *closing(uint8_t kind)
{
    switch (kind) {
    case JU_K_TUPLE: return ")";
    case JU_K_LIST: return "]";
    case JU_K_FROZENSET: return "})";
    default: return "}";
    }
}

/* What CPython shows for a container it is already printing. */
static const char *recursion_form(uint8_t kind)
{
    switch (kind) {
    case JU_K_TUPLE: return "(...)";
    case JU_K_LIST: return "[...]";
    case JU_K_SET: return "set(...)";
    case JU_K_FROZENSET: return "frozenset(...)";
    case JU_K_INSTANCE: return "<...>";
    default: return "{...}";
    }
}

static void put_str_object(struct renderer *g, uint64_t obj, const char *fallback)
{
    if (obj == 0 || ju_repr_str(&g->o, &g->w, obj, g->max_chars) < 0) {
        g->w.unreadable |= obj != 0;
        ju_w_str(&g->w, fallback);
    }
}

/* The str at obj as plain text (no quotes), or fallback. */
static void put_str_text(struct renderer *g, uint64_t obj, const char *fallback)
{
    char text[256];
    if (obj && ju_py_object_str(&g->o, obj, text, sizeof text) == 0) {
        ju_w_str(&g->w, text);
        return;
    }
    g->w.unreadable = 1;
    ju_w_str(&g->w, fallback);
}

static uint64_t field(struct renderer *g, uint64_t obj, uint32_t offset)
{
    uint64_t v = 0;
    if (ju_read_u64(&g->o.r->mem, obj + g->o.head + offset, &v) < 0) {
        g->w.unreadable = 1;
        return 0;
    }
    return v;
}

static int read_field(struct renderer *g, uint64_t obj, uint32_t offset, uint64_t *out)
{
    return ju_read_u64(&g->o.r->mem, obj + g->o.head + offset, out);
}

static void put_module(struct renderer *g, uint64_t obj)
{
    uint64_t dict = field(g, obj, g->o.V->module_dict), name = 0, file = 0, loader = 0;
    struct ju_py_type_info *t;
    if (dict) {
        if (ju_py_dict_find(&g->o, dict, "__name__", &name) < 0 ||
            ju_py_dict_find(&g->o, dict, "__file__", &file) < 0 ||
            ju_py_dict_find(&g->o, dict, "__loader__", &loader) < 0)
            g->w.unreadable = 1;
    }
    ju_w_str(&g->w, "<module ");
    put_str_object(g, name, "'?'");
    /* importlib's repr: the spec's origin; frozen and built-in modules are
     * told by their loader class */
    if (loader && ju_py_object_type(&g->o, loader, &t) == 0 && t->kind == JU_K_TYPE &&
        ju_py_type_lookup(&g->o, loader, &t) == 0) {
        if (strcmp(t->tp_name, "FrozenImporter") == 0) {
            ju_w_str(&g->w, " (frozen)>");
            return;
        }
        if (strcmp(t->tp_name, "BuiltinImporter") == 0) {
            ju_w_str(&g->w, " (built-in)>");
            return;
        }
    }
    if (file) {
        ju_w_str(&g->w, " from ");
        put_str_object(g, file, "'?'");
    }
    ju_w_str(&g->w, ">");
}

static void put_cfunction(struct renderer *g, uint64_t obj)
{
    uint64_t ml = field(g, obj, g->o.V->cfunc_ml), self = field(g, obj, g->o.V->cfunc_self);
    uint64_t name_ptr = 0;
    char name[128] = "?";
    struct ju_py_type_info *t;
    if (ml && ju_read_u64(&g->o.r->mem, ml, &name_ptr) == 0 &&
        ju_py_read_cstring(&g->o, name_ptr, name, sizeof name) < 0)
        ju_strlcpy(name, "?", sizeof name);
    int libpython = !!(g->style & JITUNWIND_PYREPR_STYLE_LIBPYTHON);
    if (self == 0 || (!libpython && ju_py_object_type(&g->o, self, &t) == 0 &&
                      t->kind == JU_K_MODULE)) {
        ju_w_fmt(&g->w, "<built-in function %s>", name);
        return;
    }
    if (ju_py_object_type(&g->o, self, &t) < 0) {
        ju_w_fmt(&g->w, "<built-in method %s of ", name);
        ju_w_unreadable(&g->w, self);
        ju_w_str(&g->w, ">");
        return;
    }
    ju_w_fmt(&g->w, "<built-in method %s of %s object at %s0x%llx>", name, t->tp_name,
             libpython ? "remote " : "", (unsigned long long)self);
}

static void put_type(struct renderer *g, uint64_t obj)
{
    struct ju_py_type_info *t;
    char display[192];
    if (ju_py_type_lookup(&g->o, obj, &t) < 0) {
        ju_w_unreadable(&g->w, obj);
        return;
    }
    if (ju_py_type_display(&g->o, t, display, sizeof display) < 0)
        g->w.unreadable = 1;
    ju_w_fmt(&g->w, "<class '%s'>", display);
}

static void put_code(struct renderer *g, uint64_t obj)
{
    const struct ju_py_layout *L = g->o.L;
    uint64_t name = 0, file = 0;
    uint64_t line = 0;
    if (ju_py_fetch(&g->o.r->mem, L, obj, JU_PYF_co_name, &name) < 0 ||
        ju_py_fetch(&g->o.r->mem, L, obj, JU_PYF_co_filename, &file) < 0 ||
        ju_py_fetch(&g->o.r->mem, L, obj, JU_PYF_co_firstlineno, &line) < 0)
        g->w.unreadable = 1;
    ju_w_str(&g->w, "<code object ");
    put_str_text(g, name, "?");
    ju_w_fmt(&g->w, " at 0x%llx, file \"", (unsigned long long)obj);
    put_str_text(g, file, "?");
    ju_w_fmt(&g->w, "\", line %d>", (int)line);
}

static void put_cell(struct renderer *g, uint64_t obj)
{
    uint64_t ref = field(g, obj, g->o.V->cell_ref);
    struct ju_py_type_info *t;
    ju_w_fmt(&g->w, "<cell at 0x%llx: ", (unsigned long long)obj);
    if (ref == 0)
        ju_w_str(&g->w, "empty>");
    else if (ju_py_object_type(&g->o, ref, &t) < 0)
        ju_w_unreadable(&g->w, ref), ju_w_str(&g->w, ">");
    else
        ju_w_fmt(&g->w, "%s object at 0x%llx>", t->tp_name, (unsigned long long)ref);
}

static int on_stack(const struct renderer *g, uint64_t obj)
{
    unsigned i;
    for (i = 0; i < g->depth; i++)
        if (g->stack[i].obj == obj && g->stack[i].kind != JU_K_METHOD)
            return 1;
    return 0;
}

/* Open a container: show its empty form, its recursion form, or push it. */
static void open_container(struct renderer *g, uint64_t obj, uint8_t kind)
{
    const struct ju_py_value_layout *V = g->o.V;
    struct open_item *c;
    uint64_t count = 0;
    int rc = 0;
    if (on_stack(g, obj)) {
        ju_w_str(&g->w, recursion_form(kind));
        return;
    }
    c = &g->stack[g->depth];
    memset(c, 0, sizeof *c);
    c->obj = obj;
    c->kind = kind;
    switch (kind) {
    case JU_K_TUPLE:
    case JU_K_LIST:
        rc = read_field(g, obj, V->var_size, &count);
        if (rc == 0 && kind == JU_K_TUPLE)
            c->items = obj + g->o.head + V->tuple_items;
        else if (rc == 0)
            rc = read_field(g, obj, V->list_items, &c->items);
        break;
    case JU_K_DICT:
        rc = read_field(g, obj, V->dict_used, &count);
        if (rc == 0)
            rc = ju_py_dict_iter_init(&g->o, obj, &c->dict);
        break;
    default: /* set, frozenset */
        rc = read_field(g, obj, V->set_used, &count);
        if (rc == 0)
            rc = read_field(g, obj, V->set_table, &c->items);
        if (rc == 0)
            rc = read_field(g, obj, V->set_mask, &c->count);
        if (rc == 0 && ++c->count == 0)
            rc = JITUNWIND_ECORRUPT; /* a mask of all ones */
        break;
    }
    if (rc == 0 && ((int64_t)count < 0 || (count && c->items == 0 && kind != JU_K_DICT)))
        rc = JITUNWIND_ECORRUPT;
    if (rc < 0) {
        ju_w_unreadable(&g->w, obj);
        return;
    }
    if (count == 0) {
        ju_w_str(&g->w, kind == JU_K_SET ? "set()" : kind == JU_K_FROZENSET ? "frozenset()"
                        : kind == JU_K_TUPLE ? "()" : kind == JU_K_LIST ? "[]" : "{}");
        return;
    }
    if (g->containers >= g->max_depth || g->depth >= MAX_STACK) {
        g->w.truncated = 1;
        ju_w_str(&g->w, recursion_form(kind));
        return;
    }
    if (kind == JU_K_TUPLE || kind == JU_K_LIST)
        c->count = count;
    ju_w_str(&g->w, opening(kind));
    g->depth++;
    g->containers++;
}

/* An attribute name from the target: controls escaped as \xNN. */
static void put_name(struct renderer *g, const char *name)
{
    for (; *name; name++) {
        unsigned char ch = (unsigned char)*name;
        if (ch < 0x20 || ch == 0x7f)
            ju_w_fmt(&g->w, "\\x%02x", ch);
        else
            ju_w_put(&g->w, name, 1);
    }
}

/* An instance of a heap type in libpython's form, `<NAME(attr=value, ...)
 * at remote 0x...>` (`<NAME at remote 0x...>` without attributes): pushed,
 * so that its attributes are shown as a container's items. */
static void open_instance(struct renderer *g, uint64_t obj, const struct ju_py_type_info *t)
{
    struct open_item *c;
    int rc;
    if (on_stack(g, obj)) {
        ju_w_str(&g->w, recursion_form(JU_K_INSTANCE));
        return;
    }
    ju_w_str(&g->w, "<");
    put_name(g, t->tp_name);
    if (g->containers >= g->max_depth || g->depth >= MAX_STACK) {
        g->w.truncated = 1;
        ju_w_fmt(&g->w, " at remote 0x%llx>", (unsigned long long)obj);
        return;
    }
    c = &g->stack[g->depth];
    memset(c, 0, sizeof *c);
    c->obj = obj;
    c->kind = JU_K_INSTANCE;
    if ((rc = ju_py_attrs_init(&g->o, obj, t, &c->attrs)) < 0) {
        g->w.unreadable |= rc != JITUNWIND_EUNSUPPORTED; /* EUNSUPPORTED: a field not known */
        ju_w_fmt(&g->w, " at remote 0x%llx>", (unsigned long long)obj);
        return;
    }
    g->depth++;
    g->containers++;
}

/* Show obj: scalars at once, containers by pushing them. */
static void emit(struct renderer *g, uint64_t obj)
{
    struct ju_py_type_info *t;
    int rc = 0;
    if (obj == 0) {
        ju_w_str(&g->w, "<NULL>");
        return;
    }
    if (ju_py_object_type(&g->o, obj, &t) < 0) {
        ju_w_unreadable(&g->w, obj);
        return;
    }
    switch (t->kind) {
    case JU_K_NONE: ju_w_str(&g->w, "None"); break;
    case JU_K_ELLIPSIS: ju_w_str(&g->w, "Ellipsis"); break;
    case JU_K_NOTIMPLEMENTED: ju_w_str(&g->w, "NotImplemented"); break;
    case JU_K_BOOL: rc = ju_repr_int(&g->o, &g->w, obj, 1, 0); break;
    case JU_K_INT: rc = ju_repr_int(&g->o, &g->w, obj, 0, g->max_chars); break;
    case JU_K_FLOAT: rc = ju_repr_float(&g->o, &g->w, obj); break;
    case JU_K_STR: rc = ju_repr_str(&g->o, &g->w, obj, g->max_chars); break;
    case JU_K_BYTES: rc = ju_repr_bytes(&g->o, &g->w, obj, g->max_chars); break;
    case JU_K_TUPLE: case JU_K_LIST: case JU_K_DICT: case JU_K_SET: case JU_K_FROZENSET:
        open_container(g, obj, t->kind);
        break;
    case JU_K_TYPE: put_type(g, obj); break;
    case JU_K_FUNCTION:
        ju_w_str(&g->w, "<function ");
        put_str_text(g, field(g, obj, g->o.V->func_qualname), "?");
        ju_w_fmt(&g->w, " at 0x%llx>", (unsigned long long)obj);
        break;
    case JU_K_CFUNCTION: put_cfunction(g, obj); break;
    case JU_K_METHOD_WRAPPER:
        rc = ju_repr_method_wrapper(&g->o, &g->w, obj,
                                    !!(g->style & JITUNWIND_PYREPR_STYLE_LIBPYTHON));
        break;
    case JU_K_MODULE: put_module(g, obj); break;
    case JU_K_CODE: put_code(g, obj); break;
    case JU_K_CELL: put_cell(g, obj); break;
    case JU_K_METHOD: {
        uint64_t func = field(g, obj, g->o.V->method_func);
        struct ju_py_type_info *ft;
        ju_w_str(&g->w, "<bound method ");
        if (func && ju_py_object_type(&g->o, func, &ft) == 0 && ft->kind == JU_K_FUNCTION)
            put_str_text(g, field(g, func, g->o.V->func_qualname), "?");
        else
            ju_w_str(&g->w, "?");
        ju_w_str(&g->w, " of ");
        if (g->depth >= MAX_STACK) {
            ju_w_str(&g->w, "...>");
            break;
        }
        memset(&g->stack[g->depth], 0, sizeof g->stack[0]);
        g->stack[g->depth].obj = obj;
        g->stack[g->depth].kind = JU_K_METHOD;
        g->stack[g->depth].pending = field(g, obj, g->o.V->method_self);
        g->stack[g->depth++].want_value = 1; /* run() shows self, then ">" */
        break;
    }
    default: {
        char display[192];
        if (t->heap && (g->style & JITUNWIND_PYREPR_STYLE_LIBPYTHON)) {
            open_instance(g, obj, t);
            break;
        }
        if (ju_py_type_display(&g->o, t, display, sizeof display) < 0)
            g->w.unreadable = 1;
        ju_w_fmt(&g->w, "<%s object at 0x%llx>", display, (unsigned long long)obj);
        break;
    }
    }
    if (rc < 0)
        ju_w_unreadable(&g->w, obj);
}

/* The next item of the top container: 1 with *item (and *value for dicts),
 * 0 at its end, or a negative status when it cannot be read further. */
static int next_item(struct renderer *g, struct open_item *c, uint64_t *item, uint64_t *value)
{
    const struct jitunwind_memory *mem = &g->o.r->mem;
    int rc;
    switch (c->kind) {
    case JU_K_TUPLE:
    case JU_K_LIST:
        if (c->index >= c->count)
            return 0;
        if ((rc = ju_read_u64(mem, c->items + 8 * c->index++, item)) < 0)
            return rc;
        return 1;
    case JU_K_DICT:
        return ju_py_dict_next(&g->o, &c->dict, item, value);
    case JU_K_INSTANCE:
        return ju_py_attrs_next(&g->o, &c->attrs, g->attr_name, sizeof g->attr_name, item);
    default: /* set: slots {key, hash}; empty key NULL, deleted hash -1 */
        while (c->index < c->count) {
            uint8_t slot[16];
            if (++c->scanned > JU_PY_MAX_DICT_SCAN)
                return JITUNWIND_ELIMIT;
            if ((rc = ju_read(mem, c->items + 16 * c->index++, slot, 16)) < 0)
                return rc;
            *item = ju_load_u64(slot);
            if (*item && (int64_t)ju_load_u64(slot + 8) != -1)
                return 1;
        }
        return 0;
    }
}

static void close_top(struct renderer *g)
{
    struct open_item *c = &g->stack[--g->depth];
    if (c->kind == JU_K_METHOD) {
        ju_w_str(&g->w, ">");
        return;
    }
    g->containers--;
    if (c->kind == JU_K_INSTANCE) {
        ju_w_fmt(&g->w, "%s at remote 0x%llx>", c->shown || c->cut ? ")" : "",
                 (unsigned long long)c->obj);
        return;
    }
    if (c->kind == JU_K_TUPLE && c->shown == 1 && !c->cut)
        ju_w_str(&g->w, ",");
    ju_w_str(&g->w, closing(c->kind));
}

static void run(struct renderer *g)
{
    while (g->depth > 0 && !g->w.full) {
        struct open_item *c = &g->stack[g->depth - 1];
        uint64_t item = 0, value = 0;
        int rc;
        if (c->want_value) {
            c->want_value = 0;
            if (c->kind != JU_K_METHOD)
                ju_w_str(&g->w, ": ");
            emit(g, c->pending);
            continue;
        }
        if (c->kind == JU_K_METHOD) {
            close_top(g);
            continue;
        }
        rc = next_item(g, c, &item, &value);
        if (rc == 1 && c->shown >= g->max_items)
            rc = JITUNWIND_ELIMIT;
        if (rc < 0) {
            if (rc != JITUNWIND_ELIMIT)
                g->w.unreadable = 1;
            ju_w_str(&g->w, c->shown ? ", ..." : c->kind == JU_K_INSTANCE ? "(..." : "...");
            g->w.truncated = 1;
            c->cut = 1;
            rc = 0;
        }
        if (rc == 0) {
            close_top(g);
            continue;
        }
        if (c->kind == JU_K_INSTANCE) {
            ju_w_str(&g->w, c->shown++ ? ", " : "(");
            put_name(g, g->attr_name);
            ju_w_str(&g->w, "=");
        } else if (c->shown++)
            ju_w_str(&g->w, ", ");
        if (c->kind == JU_K_DICT) {
            c->pending = value;
            c->want_value = 1;
        }
        emit(g, item);
    }
}

int jitunwind_pyreader_repr(jitunwind_pyreader *reader, uint64_t object,
                            const struct jitunwind_py_repr_options *options, char *buf,
                            size_t size, uint32_t *flags)
{
    struct renderer g;
    struct ju_read_cache cache;
    int rc, libpython;
    if (flags)
        *flags = 0;
    if (!reader || !buf || size < 32 ||
        !JU_OPTS_VALID(options, struct jitunwind_py_repr_options))
        return JITUNWIND_EINVAL;
    buf[0] = '\0';
    memset(&g, 0, offsetof(struct renderer, stack));
    if ((rc = ju_py_objects_init(&g.o, reader)) < 0)
        return rc; /* the reason, naming the field, is in reader->err */
    g.max_depth = JU_SIZED_GET(options, struct jitunwind_py_repr_options, max_depth, 0);
    g.max_items = JU_SIZED_GET(options, struct jitunwind_py_repr_options, max_items, 0);
    g.max_chars = JU_SIZED_GET(options, struct jitunwind_py_repr_options, max_chars, 0);
    g.style = JU_SIZED_GET(options, struct jitunwind_py_repr_options, style, 0);
    libpython = !!(g.style & JITUNWIND_PYREPR_STYLE_LIBPYTHON);
    if (!g.max_depth)
        g.max_depth = libpython ? MAX_DEPTH : DEFAULT_DEPTH;
    if (g.max_depth > MAX_DEPTH)
        g.max_depth = MAX_DEPTH;
    if (!g.max_items)
        g.max_items = libpython ? LIBPYTHON_ITEMS : DEFAULT_ITEMS;
    if (!g.max_chars)
        g.max_chars = libpython ? LIBPYTHON_OUTPUT : DEFAULT_CHARS;
    ju_w_init(&g.w, buf, size);
    if (libpython)
        ju_w_limit(&g.w, LIBPYTHON_OUTPUT, LIBPYTHON_CUT);
    ju_read_cache_install(&cache, reader);
    emit(&g, object);
    run(&g);
    ju_read_cache_remove(&cache, reader);
    if (flags)
        *flags = (g.w.truncated ? JITUNWIND_PYREPR_TRUNCATED : 0) |
                 (g.w.unreadable ? JITUNWIND_PYREPR_UNREADABLE : 0);
    return 0;
}
