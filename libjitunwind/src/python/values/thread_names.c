/* jitunwind_pyreader_thread_names: sys.modules['threading']._active[ident]._name,
 * read from the target's memory, each interpreter's dict once for all threads. */
#include "python/values/instance.h"
#include "python/values/read_cache.h"

#define MAX_IDENT_DIGITS 3u /* 30-bit digits: a thread ident fits in 64 bits */

/* The value of a non-negative int of at most 64 bits: 0, or ECORRUPT. */
static int read_ident(struct ju_py_objects *o, uint64_t obj, uint64_t *out)
{
    const struct ju_py_value_layout *V = o->V;
    uint32_t digits[MAX_IDENT_DIGITS];
    uint64_t word, n, value = 0;
    int rc;
    uint32_t i;
    int tagged = V->long_tag != JU_PY_NONE;
    if ((rc = ju_read_u64(&o->r->mem, obj + o->head + (tagged ? V->long_tag : V->long_size),
                          &word)) < 0)
        return rc;
    if (tagged && (word & 3) == 2)
        return JITUNWIND_ECORRUPT; /* negative */
    n = tagged ? word >> 3 : word;
    if ((int64_t)n < 0 || n > MAX_IDENT_DIGITS)
        return JITUNWIND_ECORRUPT;
    if (n && (rc = ju_read(&o->r->mem, obj + o->head + V->long_digits, digits, 4 * n)) < 0)
        return rc;
    for (i = (uint32_t)n; i-- > 0;) {
        if (value >> 34)
            return JITUNWIND_ECORRUPT; /* more than 64 bits */
        value = (value << 30) | (digits[i] & 0x3fffffffu);
    }
    *out = value;
    return 0;
}

/* The dict a module keeps its globals in, or 0. */
static uint64_t module_dict(struct ju_py_objects *o, uint64_t module)
{
    struct ju_py_type_info *t;
    uint64_t dict = 0;
    if (ju_py_object_type(o, module, &t) < 0 || t->kind != JU_K_MODULE ||
        ju_read_u64(&o->r->mem, module + o->head + o->V->module_dict, &dict) < 0)
        return 0;
    return dict;
}

/* INTERP's threading._active dict: 0, ENOTFOUND (threading not imported),
 * EUNSUPPORTED, ECORRUPT or EREAD. */
static int active_threads(struct ju_py_objects *o, uint64_t interp, uint64_t *active)
{
    struct ju_py_type_info *t;
    uint64_t modules, threading = 0;
    int rc;
    if (o->V->interp_modules == JU_PY_NONE)
        return JITUNWIND_EUNSUPPORTED;
    if ((rc = ju_read_u64(&o->r->mem, interp + o->V->interp_modules, &modules)) < 0)
        return rc;
    if (modules == 0 || (rc = ju_py_dict_find(o, modules, "threading", &threading)) == 0)
        return JITUNWIND_ENOTFOUND;
    if (rc < 0)
        return rc;
    if ((rc = ju_py_dict_find(o, module_dict(o, threading), "_active", active)) <= 0)
        return rc ? rc : JITUNWIND_ENOTFOUND;
    if (ju_py_object_type(o, *active, &t) < 0 || t->kind != JU_K_DICT)
        return JITUNWIND_ECORRUPT;
    return 0;
}

/* The `_name` of a threading.Thread into BUF: 0, ENOTFOUND, ECORRUPT or EREAD. */
static int name_of(struct ju_py_objects *o, uint64_t thread_object, char *buf, size_t size)
{
    uint64_t name;
    int rc;
    if ((rc = ju_py_attr_find(o, thread_object, "_name", &name)) <= 0)
        return rc ? rc : JITUNWIND_ENOTFOUND;
    return ju_py_object_str(o, name, buf, size) < 0 ? JITUNWIND_ECORRUPT : 0;
}

/* One pass over the _active dict of THREADS[first].interp names every
 * thread of that interpreter from FIRST on. Returns 0 or the first error. */
static int name_interpreter(struct ju_py_objects *o, const struct jitunwind_py_thread *threads,
                            size_t first, size_t count, char *names, size_t name_size,
                            size_t *named)
{
    struct ju_py_dict_iter it;
    struct ju_py_type_info *t;
    uint64_t interp = threads[first].interp, active, key, value, ident;
    int rc, err = 0;
    size_t k;
    if ((rc = active_threads(o, interp, &active)) < 0 ||
        (rc = ju_py_dict_iter_init(o, active, &it)) < 0)
        return rc;
    while ((rc = ju_py_dict_next(o, &it, &key, &value)) == 1) {
        if (ju_py_object_type(o, key, &t) < 0 || t->kind != JU_K_INT ||
            read_ident(o, key, &ident) < 0)
            continue;
        for (k = first; k < count; k++) {
            char *buf = names + k * name_size;
            if (threads[k].interp != interp || threads[k].thread_id != ident || buf[0])
                continue;
            if ((rc = name_of(o, value, buf, name_size)) < 0) {
                buf[0] = '\0';
                err = err ? err : rc;
            } else if (buf[0]) {
                (*named)++;
            }
        }
    }
    return rc < 0 ? rc : err;
}

int jitunwind_pyreader_thread_names(jitunwind_pyreader *reader,
                                    const struct jitunwind_py_thread *threads, size_t count,
                                    char *names, size_t name_size, size_t *named)
{
    struct ju_py_objects o;
    struct ju_read_cache cache;
    size_t i, j, n = 0;
    int rc, err = 0;
    if (named)
        *named = 0;
    if (!reader || (count && (!threads || !names)) || name_size < 2 ||
        (count && name_size > SIZE_MAX / count))
        return JITUNWIND_EINVAL;
    for (i = 0; i < count; i++)
        names[i * name_size] = '\0';
    if ((rc = ju_py_objects_init(&o, reader)) < 0)
        return rc;
    ju_read_cache_install(&cache, reader);
    for (i = 0; i < count; i++) {
        for (j = 0; j < i && threads[j].interp != threads[i].interp; j++)
            ;
        if (j < i) /* its interpreter's dict was read already */
            continue;
        if ((rc = name_interpreter(&o, threads, i, count, names, name_size, &n)) < 0)
            err = err ? err : rc;
    }
    ju_read_cache_remove(&cache, reader);
    if (named)
        *named = n;
    return n ? 0 : err ? err : JITUNWIND_ENOTFOUND;
}

int jitunwind_pyreader_thread_name(jitunwind_pyreader *reader,
                                   const struct jitunwind_py_thread *thread, char *buf,
                                   size_t size)
{
    if (buf && size)
        buf[0] = '\0';
    if (!thread || !buf)
        return JITUNWIND_EINVAL;
    return jitunwind_pyreader_thread_names(reader, thread, 1, buf, size, NULL);
}
