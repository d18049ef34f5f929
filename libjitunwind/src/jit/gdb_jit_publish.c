/* In-process registrations published through the GDB JIT interface
 * (image.h). The ranges live in objects of at most RANGES_PER_OBJECT; each
 * object holds one ELF image linked into the descriptor's list. Changes
 * arrive through the registration hook (jit/jit_hook.h), one at a
 * time, under the registration lock; `pub_lock` guards the objects
 * against jitunwind_jit_set_gdb_jit(0) and the status. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#include "image/image_internal.h"
#include "jit/jit_hook.h"

/* The interface, as gdb's documentation ("JIT Compilation Interface")
 * defines it. */
struct jit_code_entry {
    struct jit_code_entry *next_entry;
    struct jit_code_entry *prev_entry;
    const char *symfile_addr;
    uint64_t symfile_size;
};

enum { JIT_NOACTION = 0, JIT_REGISTER_FN = 1, JIT_UNREGISTER_FN = 2 };

struct jit_descriptor {
    uint32_t version;
    uint32_t action_flag;
    struct jit_code_entry *relevant_entry;
    struct jit_code_entry *first_entry;
};

JITUNWIND_API extern struct jit_descriptor __jit_debug_descriptor;
JITUNWIND_API void __jit_debug_register_code(void);

JITUNWIND_API struct jit_descriptor __jit_debug_descriptor = {1, JIT_NOACTION, NULL, NULL};

/* Debuggers put a breakpoint here; the asm keeps the call and the stores
 * before it from being optimised away. */
JITUNWIND_API __attribute__((noinline)) void __jit_debug_register_code(void)
{
    __asm__ volatile("" ::: "memory");
}

/* This library's own definitions, bound locally even when the names are
 * interposed by an earlier definition (image.h). */
extern struct jit_descriptor ju_own_descriptor
    __attribute__((alias("__jit_debug_descriptor"), visibility("hidden")));
extern void ju_own_register_code(void)
    __attribute__((alias("__jit_debug_register_code"), visibility("hidden")));

struct object {
    jitunwind_registry *ranges;
    struct jit_code_entry entry;
    void *image;
    int linked;
    size_t linked_ranges; /* ranges in the linked image (the registry may be ahead) */
    int dirty;            /* BATCHED: ranges added since the image was made */
};

static pthread_mutex_t pub_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t mode_lock = PTHREAD_MUTEX_INITIALIZER;
static struct object **objects;
static size_t nobjects, objects_cap;
static struct jitunwind_gdb_jit_status status; /* status.enabled: the mode */
/* The list written and the function called: this library's own, or with
 * JITUNWIND_GDB_JIT_SHARE_FOREIGN the process's first definitions. Chosen
 * when publishing is turned on, while no image is linked. */
static struct jit_descriptor *desc = &ju_own_descriptor;
static int share_requested; /* the mode's SHARE_FOREIGN, while on */
static void (*register_code)(void) = ju_own_register_code;

static void announce(struct jit_code_entry *e, uint32_t action)
{
    desc->relevant_entry = e;
    desc->action_flag = action;
    register_code();
    desc->action_flag = JIT_NOACTION;
}

static void unlink_object(struct object *o)
{
    struct jit_code_entry *e = &o->entry;
    if (!o->linked)
        return;
    if (e->prev_entry)
        e->prev_entry->next_entry = e->next_entry;
    else
        desc->first_entry = e->next_entry;
    if (e->next_entry)
        e->next_entry->prev_entry = e->prev_entry;
    announce(e, JIT_UNREGISTER_FN);
    o->linked = 0;
    status.objects--;
    status.ranges -= o->linked_ranges;
}

static void link_object(struct object *o)
{
    struct jit_code_entry *e = &o->entry;
    e->prev_entry = NULL;
    e->next_entry = desc->first_entry;
    if (e->next_entry)
        e->next_entry->prev_entry = e;
    desc->first_entry = e;
    announce(e, JIT_REGISTER_FN);
    o->linked = 1;
    status.objects++;
    o->linked_ranges = jitunwind_registry_count(o->ranges);
    status.ranges += o->linked_ranges;
    status.publishes++;
}

/* This process's memory, for the first bytes of trampolines: a range
 * unmapped behind the library's back reads as unreadable, not a fault. */
static int read_self(void *arg, uint64_t addr, void *dst, size_t len)
{
    struct iovec local = {dst, len}, remote = {(void *)(uintptr_t)addr, len};
    (void)arg;
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len
               ? 0
               : JITUNWIND_EREAD;
}

/* Rebuild o's image from its ranges and swap it in; on failure the old
 * image stays linked (it still describes the ranges it had). */
static void republish(struct object *o)
{
    struct jitunwind_memory self = {sizeof(struct jitunwind_memory), read_self, NULL};
    void *image = NULL;
    size_t size = 0;
    int rc = 0;
    if (jitunwind_registry_count(o->ranges) > 0 &&
        (rc = jitunwind_elf_image_write_registry(jitunwind_host_arch(), o->ranges, &self,
                                                 &image, &size, NULL)) < 0) {
        status.failures++;
        ju_log(JITUNWIND_LOG_WARNING, "gdb-jit: image of %zu ranges not written: %s",
               jitunwind_registry_count(o->ranges), jitunwind_strerror(rc));
        return;
    }
    unlink_object(o);
    jitunwind_elf_image_free(o->image);
    o->image = image;
    o->entry.symfile_addr = image;
    o->entry.symfile_size = size;
    o->dirty = 0;
    if (image)
        link_object(o);
}

static struct object *open_object(void)
{
    struct object *o, **grown;
    if (nobjects && jitunwind_registry_count(objects[nobjects - 1]->ranges) <
                        JITUNWIND_GDB_JIT_RANGES_PER_OBJECT)
        return objects[nobjects - 1];
    if (!(grown = ju_reserve_one(objects, &objects_cap, nobjects, sizeof *objects, 8)))
        return NULL;
    objects = grown;
    if (!(o = calloc(1, sizeof *o)) || jitunwind_registry_new(&o->ranges) < 0) {
        free(o);
        return NULL;
    }
    objects[nobjects++] = o;
    return o;
}

static void drop_object(size_t i)
{
    struct object *o = objects[i];
    unlink_object(o);
    jitunwind_elf_image_free(o->image);
    jitunwind_registry_free(o->ranges);
    free(o);
    memmove(&objects[i], &objects[i + 1], (nobjects - i - 1) * sizeof *objects);
    nobjects--;
}

static void added(const struct jitunwind_range *r)
{
    struct object *o = open_object();
    if (!o || jitunwind_registry_add(o->ranges, r) < 0) {
        status.failures++;
        return;
    }
    if (status.enabled == JITUNWIND_GDB_JIT_EACH ||
        jitunwind_registry_count(o->ranges) == JITUNWIND_GDB_JIT_RANGES_PER_OBJECT)
        republish(o);
    else
        o->dirty = 1;
}

static void removed(uint64_t start)
{
    size_t i;
    for (i = 0; i < nobjects; i++) {
        struct object *o = objects[i];
        const struct jitunwind_range *r = jitunwind_registry_lookup(o->ranges, start);
        if (!r || r->start != start)
            continue;
        jitunwind_registry_remove(o->ranges, start);
        if (jitunwind_registry_count(o->ranges) == 0)
            drop_object(i);
        else if (o->linked) /* a stale image would name reused memory: now */
            republish(o);
        return;
    }
}

static void on_change(int change, const struct jitunwind_range *r)
{
    pthread_mutex_lock(&pub_lock);
    if (change == JU_JIT_ADDED)
        added(r);
    else if (change == JU_JIT_REMOVED)
        removed(r->start);
    else
        while (nobjects)
            drop_object(nobjects - 1);
    pthread_mutex_unlock(&pub_lock);
}

/* The process's first definitions of the interface, when they are not
 * this library's: both found, or neither used. */
static void find_foreign(struct jit_descriptor **d, void (**fn)(void))
{
    void *first = dlsym(RTLD_DEFAULT, "__jit_debug_descriptor");
    void *first_fn = dlsym(RTLD_DEFAULT, "__jit_debug_register_code");
    *d = NULL;
    *fn = NULL;
    if (first && first != (void *)&ju_own_descriptor && first_fn &&
        first_fn != (void *)(uintptr_t)ju_own_register_code &&
        ((struct jit_descriptor *)first)->version == 1) {
        *d = first;
        *fn = (void (*)(void))(uintptr_t)first_fn;
    }
}

JITUNWIND_API int jitunwind_jit_set_gdb_jit(int mode)
{
    int base = mode & ~JITUNWIND_GDB_JIT_SHARE_FOREIGN, share = !!(mode & JITUNWIND_GDB_JIT_SHARE_FOREIGN);
    if (base < 0 || base > JITUNWIND_GDB_JIT_BATCHED || (share && !base))
        return JITUNWIND_EINVAL;
    if (base && jitunwind_host_arch() == 0)
        return JITUNWIND_EUNSUPPORTED;
    pthread_mutex_lock(&mode_lock);
    if (base && status.enabled && share != share_requested) {
        pthread_mutex_unlock(&mode_lock);
        return JITUNWIND_EINVAL; /* the list is chosen when publishing starts: turn it off first */
    }
    if (base && status.enabled) { /* a new mode for the next changes */
        pthread_mutex_lock(&pub_lock);
        status.enabled = (uint32_t)base;
        pthread_mutex_unlock(&pub_lock);
    } else if (base) {
        struct jit_descriptor *foreign;
        void (*foreign_fn)(void);
        find_foreign(&foreign, &foreign_fn);
        pthread_mutex_lock(&pub_lock);
        status.foreign = foreign != NULL;
        status.shared = share && foreign;
        share_requested = share;
        desc = status.shared ? foreign : &ju_own_descriptor;
        register_code = status.shared ? foreign_fn : ju_own_register_code;
        status.enabled = JITUNWIND_GDB_JIT_BATCHED; /* one image per batch for the replay */
        pthread_mutex_unlock(&pub_lock);
        ju_jit_set_change_hook(on_change); /* takes in what is registered already */
        jitunwind_jit_gdb_jit_flush();
        pthread_mutex_lock(&pub_lock);
        status.enabled = (uint32_t)base;
        pthread_mutex_unlock(&pub_lock);
    } else if (status.enabled) {
        ju_jit_set_change_hook(NULL);
        pthread_mutex_lock(&pub_lock);
        while (nobjects)
            drop_object(nobjects - 1);
        status.enabled = 0;
        status.shared = 0;
        pthread_mutex_unlock(&pub_lock);
    }
    pthread_mutex_unlock(&mode_lock);
    return 0;
}

JITUNWIND_API void jitunwind_jit_gdb_jit_flush(void)
{
    size_t i;
    pthread_mutex_lock(&pub_lock);
    for (i = 0; i < nobjects; i++)
        if (objects[i]->dirty)
            republish(objects[i]);
    pthread_mutex_unlock(&pub_lock);
}

JITUNWIND_API void jitunwind_jit_gdb_jit_status(struct jitunwind_gdb_jit_status *out)
{
    if (!out)
        return;
    pthread_mutex_lock(&pub_lock);
    *out = status;
    pthread_mutex_unlock(&pub_lock);
}

/* JITUNWIND_GDB_JIT=1 (each) or =batched: opt in without changing the
 * JIT's code. */
__attribute__((constructor)) static void gdb_jit_from_environment(void)
{
    const char *v = getenv("JITUNWIND_GDB_JIT");
    if (v && strcmp(v, "1") == 0)
        jitunwind_jit_set_gdb_jit(JITUNWIND_GDB_JIT_EACH);
    else if (v && strcmp(v, "batched") == 0)
        jitunwind_jit_set_gdb_jit(JITUNWIND_GDB_JIT_BATCHED);
}
