/* Readings kept per file and key (file_memo.h). */
#include <string.h>

#include "internal.h"
#include "elf/elf.h"
#include "elf/file_memo.h"

/* The slot of (file, key), or NULL; the lock held. */
static struct ju_file_memo_slot *lookup(struct ju_file_memo *m, const struct ju_file_id *file,
                                        const char *key)
{
    size_t i;
    if (!file->exists || strlen(key) >= JU_FILE_MEMO_KEY)
        return NULL;
    for (i = 0; i < m->n; i++)
        if (m->slots[i].file.exists && ju_file_id_same(&m->slots[i].file, file) &&
            strcmp(m->slots[i].key, key) == 0)
            return &m->slots[i];
    return NULL;
}

static void *reading_of(struct ju_file_memo *m, const struct ju_file_memo_slot *s)
{
    return (unsigned char *)m->readings + (size_t)(s - m->slots) * m->size;
}

int ju_file_memo_find(struct ju_file_memo *m, const char *path, const char *key,
                      unsigned debug_flags, void *out)
{
    struct ju_file_id file, debug_now;
    struct ju_file_memo_slot *s;
    char debug[4096];
    int uses_debug, hit = 0;
    ju_file_id_of_path(path, &file);
    pthread_mutex_lock(&m->lock);
    s = lookup(m, &file, key);
    uses_debug = s ? s->uses_debug : 0;
    pthread_mutex_unlock(&m->lock);
    if (!s)
        return 0;
    /* The debug file is looked for outside the lock: it may be a search. */
    if (uses_debug) {
        ju_elf_debug_file_now(path, debug_flags, debug, sizeof debug);
        ju_file_id_of_path(debug, &debug_now);
    }
    pthread_mutex_lock(&m->lock);
    if ((s = lookup(m, &file, key)) != NULL && s->uses_debug == uses_debug &&
        (!uses_debug || ju_file_id_same(&s->debug, &debug_now))) {
        memcpy(out, reading_of(m, s), m->size);
        hit = 1;
    }
    pthread_mutex_unlock(&m->lock);
    return hit;
}

void ju_file_memo_keep(struct ju_file_memo *m, const char *path, const char *key,
                       const char *debug, const void *reading)
{
    struct ju_file_id file;
    struct ju_file_memo_slot *s;
    size_t i;
    ju_file_id_of_path(path, &file);
    if (!file.exists || strlen(key) >= JU_FILE_MEMO_KEY)
        return;
    pthread_mutex_lock(&m->lock);
    if (!(s = lookup(m, &file, key))) {
        s = &m->slots[0];
        for (i = 1; i < m->n; i++)
            if (m->slots[i].age < s->age)
                s = &m->slots[i];
    }
    memset(s, 0, sizeof *s);
    s->file = file;
    s->uses_debug = debug != NULL;
    ju_file_id_of_path(debug, &s->debug);
    ju_strlcpy(s->key, key, sizeof s->key);
    memcpy(reading_of(m, s), reading, m->size);
    s->age = ++m->clock;
    pthread_mutex_unlock(&m->lock);
}
