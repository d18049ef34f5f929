/* Instance attributes (see instance.h). Where the dict is, by version:
 * 3.11: a managed dict's object has its values pointer (then the keys are
 * the type's ht_cached_keys) four words before the object, its dict
 * pointer (when no values are in use) three words before; 3.12: one
 * tagged word three words before, the values' address - 1 (bit 0 set),
 * else the dict; 3.13+: the dict pointer there (one word before in
 * free-threaded builds), and while it is NULL, inline values right after
 * the object's tp_basicsize bytes when the type has them and their
 * `valid` byte is set. A type without a managed dict keeps its dict at
 * tp_dictoffset (a positive offset; a negative one, of variable-size
 * objects, is not followed). */
#include "python/values/instance.h"
#include "python/values/read_cache.h"

#define TPFLAGS_INLINE_VALUES (1ull << 2)
#define TPFLAGS_MANAGED_DICT (1ull << 4)
#define MEMBER_SIZE 40u       /* PyMemberDef: name, type, offset, flags, doc */
#define MEMBER_TYPE_OBJECT 6u /* T_OBJECT / Py_T_OBJECT */
#define MEMBER_TYPE_OBJECT_EX 16u
#define MAX_DICT_OFFSET (1u << 20)

static int field_u64(struct ju_py_objects *o, uint64_t obj, uint32_t offset, uint64_t *out)
{
    if (offset == JU_PY_NONE)
        return JITUNWIND_EUNSUPPORTED;
    return ju_read_u64(&o->r->mem, obj + o->head + offset, out);
}

/* The instance's values array and keys (inline values), or its dict. */
static int locate(struct ju_py_objects *o, uint64_t obj, const struct ju_py_type_info *t,
                  uint64_t *dict, uint64_t *keys, uint64_t *values)
{
    const struct ju_py_value_layout *V = o->V;
    uint32_t version = V->version >> 16;
    uint64_t word = 0, basicsize = 0;
    int rc;
    *dict = *keys = *values = 0;
    if (!(t->flags & TPFLAGS_MANAGED_DICT)) {
        int64_t offset;
        if ((rc = field_u64(o, t->type, V->tp_dictoffset, &word)) < 0)
            return rc;
        offset = (int64_t)word;
        if (offset <= 0 || offset >= MAX_DICT_OFFSET || (offset & 7))
            return 0; /* no dict, or one after variable-size items */
        return ju_read_u64(&o->r->mem, obj + (uint64_t)offset, dict);
    }
    if ((rc = ju_read_u64(&o->r->mem, obj - (V->free_threaded ? 8 : 24), &word)) < 0)
        return rc;
    if (version == 0x030b) {
        if ((rc = ju_read_u64(&o->r->mem, obj - 32, values)) < 0)
            return rc;
        if (*values == 0)
            *dict = word;
    } else if (version == 0x030c) {
        if (word & 1)
            *values = word + 1; /* stored as the values' address - 1 */
        else
            *dict = word;
    } else {
        uint8_t valid = 0;
        *dict = word;
        if (word || !(t->flags & TPFLAGS_INLINE_VALUES) || V->dv_valid == JU_PY_NONE)
            return 0;
        if ((rc = field_u64(o, t->type, V->tp_basicsize, &basicsize)) < 0)
            return rc;
        if ((int64_t)basicsize < (int64_t)o->head || basicsize > MAX_DICT_OFFSET ||
            (basicsize & 7))
            return JITUNWIND_ECORRUPT;
        if ((rc = ju_read(&o->r->mem, obj + basicsize + V->dv_valid, &valid, 1)) < 0)
            return rc;
        if (valid)
            *values = obj + basicsize;
    }
    if (*values)
        return field_u64(o, t->type, V->ht_cached_keys, keys);
    return 0;
}

int ju_py_attrs_init(struct ju_py_objects *o, uint64_t obj, const struct ju_py_type_info *t,
                     struct ju_py_attr_iter *it)
{
    uint64_t dict, keys, values;
    int rc;
    memset(it, 0, sizeof *it);
    it->obj = obj;
    if ((rc = locate(o, obj, t, &dict, &keys, &values)) < 0)
        return rc;
    if (values && keys)
        rc = ju_py_keys_values_iter_init(o, keys, values, &it->dict);
    else if (dict)
        rc = ju_py_dict_iter_init(o, dict, &it->dict);
    if (rc < 0)
        return rc;
    it->in_dict = (values && keys) || dict;
    it->type = o->V->tp_members != JU_PY_NONE ? t->type : 0;
    return 0;
}

/* The next type up the chain whose slots to read: a heap type only. */
static void next_type(struct ju_py_objects *o, struct ju_py_attr_iter *it)
{
    uint64_t base = 0;
    struct ju_py_type_info *bt;
    it->members = 0;
    it->member_index = 0;
    if (++it->types_seen >= JU_PY_MAX_SLOT_TYPES || o->V->tp_base == JU_PY_NONE ||
        field_u64(o, it->type, o->V->tp_base, &base) < 0 || base == 0 ||
        ju_py_type_lookup(o, base, &bt) < 0 || !bt->heap)
        it->type = 0;
    else
        it->type = base;
}

/* The next __slots__ member of the type chain that holds an object. */
static int next_slot(struct ju_py_objects *o, struct ju_py_attr_iter *it, char *name,
                     size_t size, uint64_t *value)
{
    const struct jitunwind_memory *mem = &o->r->mem;
    while (it->type) {
        uint8_t member[MEMBER_SIZE];
        uint64_t name_ptr;
        int64_t offset;
        uint32_t type;
        if (it->members == 0 && (field_u64(o, it->type, o->V->tp_members, &it->members) < 0 ||
                                 it->members == 0)) {
            next_type(o, it);
            continue;
        }
        if (it->member_index >= JU_PY_MAX_MEMBERS ||
            ju_read(mem, it->members + (uint64_t)MEMBER_SIZE * it->member_index++, member,
                    sizeof member) < 0 ||
            (name_ptr = ju_load_u64(member)) == 0) {
            next_type(o, it);
            continue;
        }
        type = ju_load_u32(member + 8);
        offset = (int64_t)ju_load_u64(member + 16);
        if ((type != MEMBER_TYPE_OBJECT && type != MEMBER_TYPE_OBJECT_EX) ||
            offset < (int64_t)o->head || offset >= MAX_DICT_OFFSET ||
            ju_py_read_cstring(o, name_ptr, name, size) < 0 ||
            strcmp(name, "__weakref__") == 0 || strcmp(name, "__dict__") == 0)
            continue;
        if (ju_read_u64(mem, it->obj + (uint64_t)offset, value) < 0)
            return JITUNWIND_EREAD;
        if (*value)
            return 1; /* an unset slot has no attribute */
    }
    return 0;
}

int ju_py_attrs_next(struct ju_py_objects *o, struct ju_py_attr_iter *it, char *name,
                     size_t size, uint64_t *value)
{
    int rc;
    if (it->yielded >= JU_PY_MAX_ATTRS)
        return JITUNWIND_ELIMIT;
    while (it->in_dict) {
        uint64_t key;
        rc = ju_py_dict_next(o, &it->dict, &key, value);
        if (rc <= 0) {
            it->in_dict = 0;
            if (rc < 0)
                return rc;
            break;
        }
        if (ju_py_object_str(o, key, name, size) < 0)
            ju_strlcpy(name, "?", size); /* a key that is not a str: shown, not named */
        it->yielded++;
        return 1;
    }
    rc = next_slot(o, it, name, size, value);
    it->yielded += rc == 1;
    return rc;
}

int jitunwind_pyreader_attribute(jitunwind_pyreader *reader, uint64_t object,
                                 const char *name, uint64_t *value)
{
    struct ju_py_objects o;
    struct ju_read_cache cache;
    int rc;
    if (!reader || !name || !value)
        return JITUNWIND_EINVAL;
    *value = 0;
    if ((rc = ju_py_objects_init(&o, reader)) < 0)
        return rc;
    ju_read_cache_install(&cache, reader);
    rc = ju_py_attr_find(&o, object, name, value);
    ju_read_cache_remove(&cache, reader);
    if (rc == 0)
        *value = 0;
    return rc == 1 ? 0 : rc == 0 ? JITUNWIND_ENOTFOUND : rc;
}

int ju_py_attr_find(struct ju_py_objects *o, uint64_t obj, const char *name, uint64_t *value)
{
    struct ju_py_type_info *t;
    struct ju_py_attr_iter it;
    char text[128];
    uint64_t dict = 0;
    int rc;
    if ((rc = ju_py_object_type(o, obj, &t)) < 0)
        return rc;
    if (t->kind == JU_K_MODULE || t->kind == JU_K_TYPE) {
        uint32_t at = t->kind == JU_K_MODULE ? o->V->module_dict : o->V->tp_dict;
        if ((rc = field_u64(o, obj, at, &dict)) < 0)
            return rc;
        return dict ? ju_py_dict_find(o, dict, name, value) : 0;
    }
    if (!t->heap)
        return 0;
    if ((rc = ju_py_attrs_init(o, obj, t, &it)) < 0)
        return rc;
    while ((rc = ju_py_attrs_next(o, &it, text, sizeof text, value)) == 1)
        if (strcmp(text, name) == 0)
            return 1;
    return rc;
}
