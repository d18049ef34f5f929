/* Reading objects of another process for the value renderer and the frame
 * variables: what kind an object is (by its type, cached per type), its
 * type's display name, and dict iteration in insertion order (combined and
 * split tables). Everything is bounded: a dict scan stops after
 * JU_PY_MAX_DICT_SCAN entries, names are cut at their buffer. */
#ifndef JITUNWIND_PY_OBJECTS_H
#define JITUNWIND_PY_OBJECTS_H

#include "python/pyreader.h"
#include "python/layout/value_layout.h"

#define JU_PY_MAX_DICT_SCAN 4096u /* entries (or set slots) looked at per container */

enum ju_py_kind {
    JU_K_OTHER = 0, JU_K_NONE, JU_K_BOOL, JU_K_INT, JU_K_FLOAT, JU_K_STR, JU_K_BYTES,
    JU_K_TUPLE, JU_K_LIST, JU_K_DICT, JU_K_SET, JU_K_FROZENSET, JU_K_TYPE, JU_K_FUNCTION,
    JU_K_CFUNCTION, JU_K_METHOD, JU_K_MODULE, JU_K_CODE, JU_K_CELL, JU_K_ELLIPSIS,
    JU_K_NOTIMPLEMENTED, JU_K_METHOD_WRAPPER,
    JU_K_INSTANCE /* not a type's kind: an instance shown with its attributes */
};

struct ju_py_type_info {
    uint64_t type;           /* the type object's address; 0: slot unused */
    uint8_t kind;            /* enum ju_py_kind of its instances */
    uint8_t heap;            /* Py_TPFLAGS_HEAPTYPE */
    uint64_t flags;          /* tp_flags */
    char tp_name[64];        /* cut at 63 bytes */
};

#define JU_PY_TYPE_CACHE 16u

/* The reader's layouts plus a small type cache; lives on the caller's stack
 * for one rendering. */
struct ju_py_objects {
    struct jitunwind_pyreader *r;
    const struct ju_py_layout *L;
    const struct ju_py_value_layout *V;
    uint32_t head;           /* bytes of the object header */
    unsigned next_slot;
    struct ju_py_type_info types[JU_PY_TYPE_CACHE];
};

/* 0, or the status of the reader's value layout when it failed (ECORRUPT:
 * a field that does not fit; EUNSUPPORTED: a version whose needed fields
 * are not all known), recorded in r->err with the field's name. */
JU_HIDDEN int ju_py_objects_init(struct ju_py_objects *o, struct jitunwind_pyreader *r);
/* The type of `obj`: 0 with *info set, or EREAD when the object or its type
 * cannot be read (a garbage pointer). */
JU_HIDDEN int ju_py_object_type(struct ju_py_objects *o, uint64_t obj,
                                struct ju_py_type_info **info);
/* The same for a type object's own address. */
JU_HIDDEN int ju_py_type_lookup(struct ju_py_objects *o, uint64_t type,
                                struct ju_py_type_info **info);
/* A C string of the target into buf, cut at size - 1 bytes, read in small
 * pieces so that one near the end of a mapping still reads: 0, or EREAD
 * when not even its first byte reads. */
JU_HIDDEN int ju_py_read_cstring(struct ju_py_objects *o, uint64_t addr, char *buf, size_t size);
/* "module.qualname" as Python's default repr names the type (builtins
 * without the module), into out. Parts that cannot be read fall back to
 * tp_name (and the result is EREAD; 0 otherwise). May reuse type-cache
 * slots: `t` is copied first. */
JU_HIDDEN int ju_py_type_display(struct ju_py_objects *o, const struct ju_py_type_info *t,
                                  char *out, size_t size);
/* The str at `addr` as UTF-8, only if it is a str: 0, or a negative status. */
JU_HIDDEN int ju_py_object_str(struct ju_py_objects *o, uint64_t addr, char *buf, size_t size);

struct ju_py_dict_iter {
    uint64_t entries;        /* first entry (combined) or the keys' entries (split) */
    uint64_t values;         /* split: the values array, else 0 */
    uint64_t order;          /* split: address of insertion-order byte 0 */
    int64_t order_step;      /* +1 or -1 */
    uint32_t entry_size;     /* 24 (hash, key, value) or 16 (key, value) */
    uint64_t count;          /* entries (combined) or used (split) */
    uint64_t index, scanned;
};

/* 0 with the iterator ready, or a negative status. */
JU_HIDDEN int ju_py_dict_iter_init(struct ju_py_objects *o, uint64_t dict,
                                   struct ju_py_dict_iter *it);
/* The same over a keys object and a values array that no dict holds (an
 * instance's inline values), in insertion order; unset values are skipped. */
JU_HIDDEN int ju_py_keys_values_iter_init(struct ju_py_objects *o, uint64_t keys,
                                          uint64_t values, struct ju_py_dict_iter *it);
/* 1 with the next key and value, 0 at the end, ELIMIT after
 * JU_PY_MAX_DICT_SCAN entries, or EREAD. */
JU_HIDDEN int ju_py_dict_next(struct ju_py_objects *o, struct ju_py_dict_iter *it,
                              uint64_t *key, uint64_t *value);
/* The value of str key `name` in `dict`: 1 found, 0 not, or a negative status. */
JU_HIDDEN int ju_py_dict_find(struct ju_py_objects *o, uint64_t dict, const char *name,
                              uint64_t *value);

#endif
