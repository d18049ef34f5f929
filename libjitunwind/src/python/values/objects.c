/* Object kinds, type names and dict iteration (see objects.h). */
#include <stdio.h>

#include "python/values/objects.h"

#define TPFLAGS_HEAPTYPE (1ul << 9)

/* Builtin types recognised by their tp_name (only when not a heap type, so
 * a user's class named "int" is not taken for one). */
static const struct {
    const char *name;
    uint8_t kind;
} BUILTIN_KINDS[] = {
    {"NoneType", JU_K_NONE}, {"bool", JU_K_BOOL}, {"int", JU_K_INT}, {"float", JU_K_FLOAT},
    {"str", JU_K_STR}, {"bytes", JU_K_BYTES}, {"tuple", JU_K_TUPLE}, {"list", JU_K_LIST},
    {"dict", JU_K_DICT}, {"set", JU_K_SET}, {"frozenset", JU_K_FROZENSET},
    {"type", JU_K_TYPE}, {"function", JU_K_FUNCTION},
    {"builtin_function_or_method", JU_K_CFUNCTION}, {"method", JU_K_METHOD},
    {"module", JU_K_MODULE}, {"code", JU_K_CODE}, {"cell", JU_K_CELL},
    {"ellipsis", JU_K_ELLIPSIS}, {"NotImplementedType", JU_K_NOTIMPLEMENTED},
    {"method-wrapper", JU_K_METHOD_WRAPPER},
};

int ju_py_objects_init(struct ju_py_objects *o, struct jitunwind_pyreader *r)
{
    memset(o, 0, sizeof *o);
    o->r = r;
    o->L = r->layout;
    o->V = &r->values.V;
    o->head = r->layout->ob_type + 8;
    if (r->values.status < 0)
        return ju_fail(&r->err, r->values.status, 0, "%s", r->values.why);
    return 0;
}

/* A C string of the target, cut at size - 1 bytes; stops at the first
 * unreadable byte (reads in small pieces so a name near the end of a
 * mapping still reads). */
int ju_py_read_cstring(struct ju_py_objects *o, uint64_t addr, char *buf, size_t size)
{
    size_t got = 0;
    buf[0] = '\0';
    while (got + 1 < size) {
        size_t n = 16 - (size_t)((addr + got) & 15); /* up to the next 16-byte boundary */
        size_t i;
        char piece[16];
        if (n > size - 1 - got)
            n = size - 1 - got;
        if (ju_read(&o->r->mem, addr + got, piece, n) < 0)
            return got ? 0 : JITUNWIND_EREAD;
        for (i = 0; i < n; i++) {
            buf[got++] = piece[i];
            if (piece[i] == '\0')
                return 0;
        }
    }
    buf[got] = '\0';
    return 0;
}

int ju_py_object_type(struct ju_py_objects *o, uint64_t obj, struct ju_py_type_info **info)
{
    uint64_t type;
    if (obj == 0 || ju_py_fetch(&o->r->mem, o->L, obj, JU_PYF_ob_type, &type) < 0)
        return JITUNWIND_EREAD;
    return ju_py_type_lookup(o, type, info);
}

int ju_py_type_lookup(struct ju_py_objects *o, uint64_t type, struct ju_py_type_info **info)
{
    struct ju_py_type_info *t;
    uint64_t name_ptr, flags;
    unsigned i;
    if (type == 0)
        return JITUNWIND_EREAD;
    for (i = 0; i < JU_PY_TYPE_CACHE; i++)
        if (o->types[i].type == type) {
            *info = &o->types[i];
            return 0;
        }
    t = &o->types[o->next_slot++ % JU_PY_TYPE_CACHE];
    memset(t, 0, sizeof *t);
    if (ju_py_fetch(&o->r->mem, o->L, type, JU_PYF_tp_name, &name_ptr) < 0 ||
        ju_read_u64(&o->r->mem, type + o->head + o->V->tp_flags, &flags) < 0 ||
        ju_py_read_cstring(o, name_ptr, t->tp_name, sizeof t->tp_name) < 0 ||
        t->tp_name[0] == '\0')
        return JITUNWIND_EREAD;
    t->type = type;
    t->heap = (flags & TPFLAGS_HEAPTYPE) != 0;
    t->flags = flags;
    t->kind = JU_K_OTHER;
    if (!t->heap)
        for (i = 0; i < sizeof BUILTIN_KINDS / sizeof BUILTIN_KINDS[0]; i++)
            if (strcmp(t->tp_name, BUILTIN_KINDS[i].name) == 0)
                t->kind = BUILTIN_KINDS[i].kind;
    *info = t;
    return 0;
}

int ju_py_object_str(struct ju_py_objects *o, uint64_t addr, char *buf, size_t size)
{
    struct ju_py_type_info *t;
    int truncated, rc;
    buf[0] = '\0';
    if ((rc = ju_py_object_type(o, addr, &t)) < 0)
        return rc;
    if (t->kind != JU_K_STR)
        return JITUNWIND_ECORRUPT;
    return ju_py_read_str(o->r, addr, buf, size, &truncated);
}

/* Python's type_repr and object_repr name a type by its module (heap
 * types: __module__ in the type's dict; static ones: tp_name before the
 * last dot, else builtins) and qualified name (heap types: ht_qualname;
 * static ones: tp_name after the last dot). */
int ju_py_type_display(struct ju_py_objects *o, const struct ju_py_type_info *info, char *out,
                       size_t size)
{
    int rc = 0;
    struct ju_py_type_info t = *info; /* lookups below may reuse the cache slot */
    char module[96] = "builtins", qualname[96];
    const char *dot = strrchr(t.tp_name, '.');
    if (t.heap) {
        uint64_t dict = 0, mod = 0, qual = 0;
        int found = 0;
        if (ju_read_u64(&o->r->mem, t.type + o->head + o->V->tp_dict, &dict) < 0 ||
            (dict && (found = ju_py_dict_find(o, dict, "__module__", &mod)) < 0) ||
            (found == 1 && ju_py_object_str(o, mod, module, sizeof module) < 0)) {
            ju_strlcpy(module, "builtins", sizeof module);
            rc = JITUNWIND_EREAD;
        }
        if (ju_read_u64(&o->r->mem, t.type + o->head + o->V->ht_qualname, &qual) < 0 ||
            ju_py_object_str(o, qual, qualname, sizeof qualname) < 0) {
            ju_strlcpy(qualname, t.tp_name, sizeof qualname);
            rc = JITUNWIND_EREAD;
        }
    } else {
        ju_strlcpy(qualname, dot ? dot + 1 : t.tp_name, sizeof qualname);
        if (dot) {
            size_t n = (size_t)(dot - t.tp_name);
            if (n >= sizeof module)
                n = sizeof module - 1;
            memcpy(module, t.tp_name, n);
            module[n] = '\0';
        }
    }
    if (strcmp(module, "builtins") == 0)
        snprintf(out, size, "%s", qualname);
    else
        snprintf(out, size, "%s.%s", module, qualname);
    return rc;
}

#define DICT_KEYS_GENERAL 0
#define MAX_LOG2_SIZE 40u

/* The entries of the keys object at `keys` into it: where they start, their
 * size and dk_nentries; 0 or a negative status. */
static int keys_entries(struct ju_py_objects *o, uint64_t keys, struct ju_py_dict_iter *it,
                        uint64_t *nentries)
{
    const struct ju_py_value_layout *V = o->V;
    uint8_t keys_head[JU_PY_DICT_KEYS_COPY];
    uint8_t log2_size, log2_index_bytes, kind;
    int rc;
    if (V->dk_indices > sizeof keys_head)
        return JITUNWIND_ECORRUPT;
    if ((rc = ju_read(&o->r->mem, keys, keys_head, V->dk_indices)) < 0)
        return rc;
    log2_size = keys_head[V->dk_log2_size];
    log2_index_bytes = keys_head[V->dk_log2_index_bytes];
    kind = keys_head[V->dk_kind];
    *nentries = ju_load_u64(keys_head + V->dk_nentries);
    if (log2_size > MAX_LOG2_SIZE || log2_index_bytes > MAX_LOG2_SIZE + 3 || kind > 2 ||
        (int64_t)*nentries < 0 || *nentries > (1ull << log2_size))
        return JITUNWIND_ECORRUPT;
    it->entries = keys + V->dk_indices + (1ull << log2_index_bytes);
    it->entry_size = kind == DICT_KEYS_GENERAL ? 24 : 16;
    return 0;
}

int ju_py_dict_iter_init(struct ju_py_objects *o, uint64_t dict, struct ju_py_dict_iter *it)
{
    const struct ju_py_value_layout *V = o->V;
    uint64_t used, keys, values, nentries;
    int rc;
    memset(it, 0, sizeof *it);
    if ((rc = ju_read_u64(&o->r->mem, dict + o->head + V->dict_used, &used)) < 0 ||
        (rc = ju_read_u64(&o->r->mem, dict + o->head + V->dict_keys, &keys)) < 0 ||
        (rc = ju_read_u64(&o->r->mem, dict + o->head + V->dict_values, &values)) < 0)
        return rc;
    if ((int64_t)used < 0)
        return JITUNWIND_ECORRUPT;
    if (used == 0)
        return 0; /* empty: count stays 0, keys not read */
    if ((rc = keys_entries(o, keys, it, &nentries)) < 0)
        return rc;
    if (values == 0) {
        it->count = nentries;
        return 0;
    }
    /* split table: keys from the shared keys, values and order from ma_values */
    it->values = values + V->dv_values;
    it->count = used;
    if (V->dv_order_before) {
        it->order = values - 3;
        it->order_step = -1;
    } else {
        uint8_t capacity;
        if ((rc = ju_read(&o->r->mem, values, &capacity, 1)) < 0)
            return rc;
        it->order = it->values + 8ull * capacity;
        it->order_step = 1;
    }
    if (used > 256) /* insertion order is kept in bytes: a split table has < 256 keys */
        return JITUNWIND_ECORRUPT;
    return 0;
}

int ju_py_keys_values_iter_init(struct ju_py_objects *o, uint64_t keys, uint64_t values,
                                struct ju_py_dict_iter *it)
{
    uint64_t nentries;
    uint8_t head[2], count;
    int rc;
    memset(it, 0, sizeof *it);
    if ((rc = keys_entries(o, keys, it, &nentries)) < 0)
        return rc;
    it->values = values + o->V->dv_values;
    if (o->V->dv_order_before) {
        if ((rc = ju_read(&o->r->mem, values - 2, &count, 1)) < 0)
            return rc;
        it->order = values - 3;
        it->order_step = -1;
    } else {
        if ((rc = ju_read(&o->r->mem, values, head, 2)) < 0)
            return rc;
        count = head[1];
        it->order = it->values + 8ull * head[0];
        it->order_step = 1;
    }
    it->count = count < nentries ? count : nentries;
    return 0;
}

int ju_py_dict_next(struct ju_py_objects *o, struct ju_py_dict_iter *it, uint64_t *key,
                    uint64_t *value)
{
    const struct jitunwind_memory *mem = &o->r->mem;
    int rc;
    while (it->index < it->count) {
        uint8_t entry[24];
        uint32_t key_at = it->entry_size == 24 ? 8 : 0;
        uint64_t slot;
        if (++it->scanned > JU_PY_MAX_DICT_SCAN)
            return JITUNWIND_ELIMIT;
        if (it->values) {
            uint8_t index;
            if ((rc = ju_read(mem, it->order + (uint64_t)((int64_t)it->index * it->order_step),
                              &index, 1)) < 0)
                return rc;
            it->index++;
            if ((rc = ju_read(mem, it->entries + 16ull * index, entry, 16)) < 0 ||
                (rc = ju_read_u64(mem, it->values + 8ull * index, value)) < 0)
                return rc;
            *key = ju_load_u64(entry);
            if (*key && *value)
                return 1;
            continue;
        }
        slot = it->entries + (uint64_t)it->entry_size * it->index++;
        if ((rc = ju_read(mem, slot, entry, it->entry_size)) < 0)
            return rc;
        *key = ju_load_u64(entry + key_at);
        *value = ju_load_u64(entry + key_at + 8);
        if (*key && *value)
            return 1;
    }
    return 0;
}

int ju_py_dict_find(struct ju_py_objects *o, uint64_t dict, const char *name, uint64_t *value)
{
    struct ju_py_dict_iter it;
    uint64_t key;
    char text[128];
    int rc, unreadable = 0;
    if ((rc = ju_py_dict_iter_init(o, dict, &it)) < 0)
        return rc;
    while ((rc = ju_py_dict_next(o, &it, &key, value)) == 1) {
        int got = ju_py_object_str(o, key, text, sizeof text);
        if (got == 0 && strcmp(text, name) == 0)
            return 1;
        unreadable |= got == JITUNWIND_EREAD;
    }
    return rc == 0 && unreadable ? JITUNWIND_EREAD : rc;
}
