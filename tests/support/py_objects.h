/* Synthetic Python objects (ints, floats, strs, containers, types,
 * functions, cells, modules, instances) in a py_image, laid out with the
 * library's value layout for the image's version, for the value renderer's
 * unit tests. */
#ifndef JU_TEST_PY_OBJECTS_H
#define JU_TEST_PY_OBJECTS_H

#include "py_image.h"
#include "python/layout/value_layout.h"

struct pyo {
    struct py_image *p;
    const struct ju_py_value_layout *V;
    uint32_t head;
    uint64_t t_type, t_none, t_bool, t_int, t_float, t_str, t_bytes, t_tuple, t_list, t_dict,
        t_set, t_frozenset, t_function, t_cell, t_module, t_code;
    uint64_t none;
};

void pyo_init(struct pyo *o, struct py_image *p);
/* A type object named `name`; `heap`: a class with __module__ `module`. */
uint64_t pyo_type(struct pyo *o, const char *name, int heap, const char *module);
/* An object of `type` with `size` bytes after the header (zeroed). */
uint64_t pyo_object(struct pyo *o, uint64_t type, size_t size);
uint64_t pyo_int(struct pyo *o, int64_t v);
uint64_t pyo_bigint(struct pyo *o, const uint32_t *digits, size_t n, int negative);
uint64_t pyo_bool(struct pyo *o, int v);
uint64_t pyo_float(struct pyo *o, double v);
uint64_t pyo_str(struct pyo *o, const char *ascii);
uint64_t pyo_str_cps(struct pyo *o, const uint32_t *cps, size_t n, unsigned kind);
uint64_t pyo_bytes(struct pyo *o, const void *data, size_t n);
uint64_t pyo_tuple(struct pyo *o, size_t n, const uint64_t *items);
uint64_t pyo_list(struct pyo *o, size_t n, const uint64_t *items);
/* A combined-table dict (general keys) of n pairs, in that order. */
uint64_t pyo_dict(struct pyo *o, size_t n, const uint64_t *keys, const uint64_t *values);
/* A split-table dict: shared str keys, values in insertion order `order`. */
uint64_t pyo_split_dict(struct pyo *o, size_t n, const uint64_t *keys, const uint64_t *values,
                        const uint8_t *order);
uint64_t pyo_set(struct pyo *o, int frozen, size_t n, const uint64_t *items);
uint64_t pyo_function(struct pyo *o, const char *qualname);
uint64_t pyo_cell(struct pyo *o, uint64_t ref);

/* A synthetic target, its objects, and a reader over it (the test opens it). */
struct pyo_target {
    struct py_image p;
    struct pyo o;
    struct jitunwind_memory mem;
    jitunwind_pyreader *r;
    uint32_t version;
};
/* The builds with a value layout the synthetic value tests run on:
 * 3.11-3.14, GIL and free-threaded. */
struct pyo_build {
    uint32_t version;
    int free_threaded;
};
#define PYO_NBUILDS 6u
extern const struct pyo_build PYO_BUILDS[PYO_NBUILDS];
/* Open `t` as PYO_BUILDS[build]: an interpreter with one thread, and a
 * reader over it. */
void pyo_target_open(struct pyo_target *t, size_t build);
/* Free the reader (if any) and the image. */
void pyo_target_close(struct pyo_target *t);

#endif
