/* The attributes of an instance of a heap type (a class defined in Python),
 * found where CPython keeps them: its __dict__ (at tp_dictoffset), its
 * managed dict or inline values (keys from the type's ht_cached_keys), and
 * its __slots__ (the member descriptors of its type and of its heap-type
 * bases). Every pointer is the target's: each is read bounded, and the
 * walk stops at JU_PY_MAX_ATTRS attributes, JU_PY_MAX_SLOT_TYPES types and
 * JU_PY_MAX_MEMBERS members a type. */
#ifndef JITUNWIND_PY_INSTANCE_H
#define JITUNWIND_PY_INSTANCE_H

#include "python/values/objects.h"

#define JU_PY_MAX_ATTRS 256u
#define JU_PY_MAX_SLOT_TYPES 8u
#define JU_PY_MAX_MEMBERS 64u

struct ju_py_attr_iter {
    struct ju_py_dict_iter dict; /* the dict or inline values */
    uint8_t in_dict;             /* 1 while `dict` has items left */
    uint64_t obj;
    uint64_t type;               /* the type whose slots are read next; 0: done */
    uint64_t members;            /* its PyMemberDef array */
    uint32_t member_index, types_seen, yielded;
};

/* Begin the attributes of `obj`, an instance of heap type `t`: 0, or a
 * negative status when none can be read (the layout lacks a field, or the
 * object's memory does not read). */
JU_HIDDEN int ju_py_attrs_init(struct ju_py_objects *o, uint64_t obj,
                               const struct ju_py_type_info *t, struct ju_py_attr_iter *it);
/* 1 with the next attribute's name (UTF-8, cut at `size`) and value, 0 at
 * the end, ELIMIT after JU_PY_MAX_ATTRS or a dict's scan limit, EREAD. */
JU_HIDDEN int ju_py_attrs_next(struct ju_py_objects *o, struct ju_py_attr_iter *it, char *name,
                               size_t size, uint64_t *value);
/* The attribute `name` of `obj` (any object: an instance's attributes as
 * above, a module's globals): 1 with *value, 0 when it has none of that
 * name, or a negative status. */
JU_HIDDEN int ju_py_attr_find(struct ju_py_objects *o, uint64_t obj, const char *name,
                              uint64_t *value);

#endif
