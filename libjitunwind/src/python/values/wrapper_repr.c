/* repr() of a method-wrapper (see repr.h). Its object (wrapperobject, private
 * to descrobject.c) is, after the object head, the slot wrapper descriptor
 * and the bound object; the descriptor (PyDescr_COMMON) holds, after its
 * head, its type and its name: the same layout in 3.11 to 3.15. */
#include "python/values/repr.h"

#define WRAPPER_DESCR 0 /* after the head: PyWrapperDescrObject *descr */
#define WRAPPER_SELF 8  /* PyObject *self */
#define DESCR_NAME 8    /* after the descriptor's head: d_type, then d_name */

int ju_repr_method_wrapper(struct ju_py_objects *o, struct ju_writer *w, uint64_t obj,
                           int libpython)
{
    const struct jitunwind_memory *mem = &o->r->mem;
    struct ju_py_type_info *t;
    uint64_t descr, self, name_obj;
    char name[128];
    int rc;
    if ((rc = ju_read_u64(mem, obj + o->head + WRAPPER_DESCR, &descr)) < 0 ||
        (rc = ju_read_u64(mem, obj + o->head + WRAPPER_SELF, &self)) < 0 ||
        (rc = ju_read_u64(mem, descr + o->head + DESCR_NAME, &name_obj)) < 0)
        return rc;
    if ((rc = ju_py_object_str(o, name_obj, name, sizeof name)) < 0 ||
        (rc = ju_py_object_type(o, self, &t)) < 0)
        return rc;
    ju_w_fmt(w, "<method-wrapper '%s' of %s object at %s0x%llx>", name, t->tp_name,
             libpython ? "remote " : "", (unsigned long long)self);
    return 0;
}
