/* Synthetic CPython targets for unit tests, laid out with the library's own
 * layout table for a version, so every supported version reuses them. */
#ifndef JU_TEST_PY_IMAGE_H
#define JU_TEST_PY_IMAGE_H

#include "builder.h"
#include "python/layout/layout.h"

struct py_image {
    struct ju_builder *b;
    const struct ju_py_layout *L; /* points at `layout` */
    struct ju_py_layout layout;
    uint64_t heap;      /* bump allocator for objects */
    uint64_t code_type; /* a type object named "code" */
    uint64_t runtime;
};

void pyi_init(struct py_image *p, uint32_t version_hex);
/* The same for a GIL (0) or free-threaded (1) build. */
void pyi_init_build(struct py_image *p, uint32_t version_hex, int free_threaded);
/* The same with the table for `arch` (enum jitunwind_arch). */
void pyi_init_arch(struct py_image *p, uint32_t version_hex, int free_threaded, int arch);
/* A target laid out with `layout` (copied), for a version without a table:
 * the runtime starts with a bare _Py_DebugOffsets header (cookie, version,
 * free_threaded) and no field list. */
void pyi_init_from(struct py_image *p, const struct ju_py_layout *layout, uint32_t version_hex);
void pyi_free(struct py_image *p);
uint64_t pyi_alloc(struct py_image *p, size_t size);
/* A compact str of `n` code points of width `kind` (1, 2 or 4). */
uint64_t pyi_str_kind(struct py_image *p, const uint32_t *cps, size_t n, unsigned kind);
uint64_t pyi_str(struct py_image *p, const char *ascii);
uint64_t pyi_bytes(struct py_image *p, const uint8_t *data, size_t len);
/* A code object whose location table puts every unit i at line first + i. */
uint64_t pyi_code(struct py_image *p, const char *qualname, const char *filename, int first_line,
                  int units);
/* A frame running `code` at instruction `lasti` (-1: not started). */
uint64_t pyi_frame(struct py_image *p, uint64_t code, uint64_t previous, int lasti, int owner,
                   int is_entry);
uint64_t pyi_interp(struct py_image *p, uint64_t next, int64_t id);
/* A thread state appended to `interp`'s list, with `frame` current. */
uint64_t pyi_thread(struct py_image *p, uint64_t interp, uint64_t frame, uint64_t native_tid);
void pyi_set_interpreters(struct py_image *p, uint64_t head);
void pyi_set_gil_holder(struct py_image *p, uint64_t tstate);

#endif
