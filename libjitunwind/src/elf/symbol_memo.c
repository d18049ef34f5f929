/* A small table of symbol answers keyed by the file's identity (device,
 * inode, size, modification time: a file replaced at its path is another
 * file) and the name, and, for an answer read from a separate debug file,
 * that file's identity too: a debug file installed, removed or replaced
 * since makes the answer stale. The oldest answer gives way. */
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "elf/symbol_memo.h"

#define MEMO_ANSWERS 256u
#define MEMO_NAME 64u /* longer names are not kept */

struct file_id {
    dev_t dev;
    ino_t ino;
    off_t size;
    long long mtime_s, mtime_ns;
    int exists;
};

struct answer {
    struct file_id file, debug;
    int uses_debug;  /* read from a debug file (or from none, the file being stripped) */
    char name[MEMO_NAME];
    struct ju_symbol_answer a;
    unsigned long long age;
};

static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
static struct answer memo[MEMO_ANSWERS];
static unsigned long long memo_clock;

static void identify(const char *path, struct file_id *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    if (!path || !path[0] || stat(path, &st) != 0)
        return;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    id->size = st.st_size;
    id->mtime_s = (long long)st.st_mtim.tv_sec;
    id->mtime_ns = (long long)st.st_mtim.tv_nsec;
    id->exists = 1;
}

static int same(const struct file_id *x, const struct file_id *y)
{
    return x->exists == y->exists && x->dev == y->dev && x->ino == y->ino &&
           x->size == y->size && x->mtime_s == y->mtime_s && x->mtime_ns == y->mtime_ns;
}

/* The answer for (file, name), or NULL; the lock held. */
static struct answer *lookup(const struct file_id *file, const char *name)
{
    size_t i;
    if (!file->exists || strlen(name) >= MEMO_NAME)
        return NULL;
    for (i = 0; i < MEMO_ANSWERS; i++)
        if (memo[i].file.exists && same(&memo[i].file, file) && strcmp(memo[i].name, name) == 0)
            return &memo[i];
    return NULL;
}

int ju_symbol_memo_used_debug(const char *path, const char *name)
{
    struct file_id file;
    const struct answer *e;
    int used = -1;
    identify(path, &file);
    pthread_mutex_lock(&memo_lock);
    if ((e = lookup(&file, name)) != NULL)
        used = e->uses_debug;
    pthread_mutex_unlock(&memo_lock);
    return used;
}

int ju_symbol_memo_find(const char *path, const char *name, const char *debug,
                        struct ju_symbol_answer *out)
{
    struct file_id file, debug_now;
    const struct answer *e;
    int hit = 0;
    identify(path, &file);
    identify(debug, &debug_now);
    pthread_mutex_lock(&memo_lock);
    if ((e = lookup(&file, name)) != NULL &&
        (e->uses_debug ? debug && same(&e->debug, &debug_now) : !debug)) {
        *out = e->a;
        hit = 1;
    }
    pthread_mutex_unlock(&memo_lock);
    return hit;
}

void ju_symbol_memo_keep(const char *path, const char *name, const char *debug,
                         const struct ju_symbol_answer *a)
{
    struct file_id file;
    struct answer *e;
    size_t i;
    identify(path, &file);
    if (!file.exists || strlen(name) >= MEMO_NAME)
        return;
    pthread_mutex_lock(&memo_lock);
    if (!(e = lookup(&file, name))) {
        e = &memo[0];
        for (i = 1; i < MEMO_ANSWERS; i++)
            if (memo[i].age < e->age)
                e = &memo[i];
    }
    memset(e, 0, sizeof *e);
    e->file = file;
    e->uses_debug = debug != NULL;
    identify(debug, &e->debug);
    ju_strlcpy(e->name, name, sizeof e->name);
    e->a = *a;
    e->age = ++memo_clock;
    pthread_mutex_unlock(&memo_lock);
}
