/* A small table of symbol answers keyed by the file's identity (device,
 * inode, size, modification time: a file replaced at its path is another
 * file) and the name, and, for an answer read from a separate debug file,
 * that file's identity too: a debug file installed, removed or replaced
 * since makes the answer stale. The oldest answer gives way. */
#include <pthread.h>
#include <string.h>

#include "internal.h"
#include "base/host_files.h"
#include "elf/symbol_memo.h"

#define MEMO_ANSWERS 256u
#define MEMO_NAME 64u /* longer names are not kept */

struct answer {
    struct ju_file_id file, debug;
    int uses_debug;  /* read from a debug file (or from none, the file being stripped) */
    char name[MEMO_NAME];
    struct ju_symbol_answer a;
    unsigned long long age;
};

static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
static struct answer memo[MEMO_ANSWERS];
static unsigned long long memo_clock;

/* The answer for (file, name), or NULL; the lock held. */
static struct answer *lookup(const struct ju_file_id *file, const char *name)
{
    size_t i;
    if (!file->exists || strlen(name) >= MEMO_NAME)
        return NULL;
    for (i = 0; i < MEMO_ANSWERS; i++)
        if (memo[i].file.exists && ju_file_id_same(&memo[i].file, file) &&
            strcmp(memo[i].name, name) == 0)
            return &memo[i];
    return NULL;
}

int ju_symbol_memo_used_debug(const char *path, const char *name)
{
    struct ju_file_id file;
    const struct answer *e;
    int used = -1;
    ju_file_id_of_path(path, &file);
    pthread_mutex_lock(&memo_lock);
    if ((e = lookup(&file, name)) != NULL)
        used = e->uses_debug;
    pthread_mutex_unlock(&memo_lock);
    return used;
}

int ju_symbol_memo_find(const char *path, const char *name, const char *debug,
                        struct ju_symbol_answer *out)
{
    struct ju_file_id file, debug_now;
    const struct answer *e;
    int hit = 0;
    ju_file_id_of_path(path, &file);
    ju_file_id_of_path(debug, &debug_now);
    pthread_mutex_lock(&memo_lock);
    if ((e = lookup(&file, name)) != NULL &&
        (e->uses_debug ? debug && ju_file_id_same(&e->debug, &debug_now) : !debug)) {
        *out = e->a;
        hit = 1;
    }
    pthread_mutex_unlock(&memo_lock);
    return hit;
}

void ju_symbol_memo_keep(const char *path, const char *name, const char *debug,
                         const struct ju_symbol_answer *a)
{
    struct ju_file_id file;
    struct answer *e;
    size_t i;
    ju_file_id_of_path(path, &file);
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
    ju_file_id_of_path(debug, &e->debug);
    ju_strlcpy(e->name, name, sizeof e->name);
    e->a = *a;
    e->age = ++memo_clock;
    pthread_mutex_unlock(&memo_lock);
}
