/* The cache file of DWARF answers (dwarf/dwarf_answers.c): what is written
 * reads back the same, and an entry that is damaged (its version number
 * included), cut short, padded or for another build is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suite.h"
#include "dwarf/dwarf_answers.h"

#define KEY "c561f3aa7232f2bd6ac6d56bd475f1c154a00486"

static struct ju_dwarf_answers *sample(void)
{
    struct ju_dwarf_answers *a = calloc(1, sizeof *a);
    ck_assert_ptr_nonnull(a);
    strcpy(a->key, KEY);
    strcpy(a->source, "/usr/lib/debug/.build-id/c5/with a space.debug");
    strcpy(a->source_id, "00ff");
    a->source_size = 11240720;
    ju_dwarf_answers_add(a, JU_DWARF_MEMBER_OFFSET, "PyThreadState", "interp", 0, 16);
    ju_dwarf_answers_add(a, JU_DWARF_TYPE_SIZE, "_PyRuntimeState", "", 0, 166688);
    ju_dwarf_answers_add(a, JU_DWARF_MEMBER_BITS, "PyASCIIObject", "state.kind", 0, 258);
    ju_dwarf_answers_add(a, JU_DWARF_MEMBER_OFFSET, "_PyExecutorObject", "jit_code",
                         JITUNWIND_ENOTFOUND, 0);
    ck_assert_uint_eq(a->count, 4);
    ck_assert(!a->full);
    return a;
}

static char *format(const struct ju_dwarf_answers *a, int *len)
{
    char *text = malloc(JU_DWARF_ANSWERS_FILE_MAX);
    ck_assert_ptr_nonnull(text);
    *len = ju_dwarf_answers_format(a, text, JU_DWARF_ANSWERS_FILE_MAX);
    ck_assert_int_gt(*len, 0);
    return text;
}

START_TEST(round_trip)
{
    struct ju_dwarf_answers *a = sample(), *b = malloc(sizeof *b);
    const struct ju_dwarf_answer *x;
    int len;
    char *text = format(a, &len);
    ck_assert_int_eq(ju_dwarf_answers_parse(b, text, (size_t)len, KEY), 0);
    ck_assert_str_eq(b->source, a->source);
    ck_assert_str_eq(b->source_id, "00ff");
    ck_assert_uint_eq(b->source_size, 11240720);
    ck_assert_uint_eq(b->count, 4);
    x = ju_dwarf_answers_find(b, JU_DWARF_MEMBER_BITS, "PyASCIIObject", "state.kind");
    ck_assert_ptr_nonnull(x);
    ck_assert_int_eq(x->rc, 0);
    ck_assert_uint_eq(x->value, 258);
    x = ju_dwarf_answers_find(b, JU_DWARF_TYPE_SIZE, "_PyRuntimeState", "");
    ck_assert_ptr_nonnull(x);
    ck_assert_uint_eq(x->value, 166688);
    x = ju_dwarf_answers_find(b, JU_DWARF_MEMBER_OFFSET, "_PyExecutorObject", "jit_code");
    ck_assert_ptr_nonnull(x);
    ck_assert_int_eq(x->rc, JITUNWIND_ENOTFOUND);
    /* The same name, another kind of query: not an answer to it. */
    ck_assert_ptr_null(ju_dwarf_answers_find(b, JU_DWARF_MEMBER_BITS, "PyThreadState", "interp"));
    free(text);
    free(a);
    free(b);
}
END_TEST

/* Parse a copy of text with `edit` applied at `at` (replacing `n` bytes). */
static int parse_edited(const char *text, int len, int at, int n, const char *edit)
{
    struct ju_dwarf_answers *b = malloc(sizeof *b);
    char *copy = malloc((size_t)len + 64);
    size_t elen = strlen(edit);
    int rc;
    ck_assert_ptr_nonnull(b);
    memcpy(copy, text, (size_t)at);
    memcpy(copy + at, edit, elen);
    memcpy(copy + at + (int)elen, text + at + n, (size_t)(len - at - n));
    rc = ju_dwarf_answers_parse(b, copy, (size_t)(len - n) + elen, KEY);
    free(copy);
    free(b);
    return rc;
}

START_TEST(damaged_entries_are_refused)
{
    struct ju_dwarf_answers *a = sample(), *b = malloc(sizeof *b);
    int len, i, at;
    char *text = format(a, &len);
    ck_assert_int_eq(parse_edited(text, len, 0, 0, ""), 0);
    /* Any one byte changed, anywhere. */
    for (i = 0; i < len; i++) {
        char c[2] = {(char)(text[i] == 'x' ? 'y' : 'x'), 0};
        ck_assert_msg(parse_edited(text, len, i, 1, c) == JITUNWIND_ECORRUPT, "byte %d", i);
    }
    /* Cut short at every length, or padded. */
    for (i = 0; i < len; i++)
        ck_assert_int_eq(ju_dwarf_answers_parse(b, text, (size_t)i, KEY), JITUNWIND_ECORRUPT);
    ck_assert_int_eq(parse_edited(text, len, len, 0, "\n"), JITUNWIND_ECORRUPT);
    /* Another build's entry (under this build's name). */
    ck_assert_int_eq(ju_dwarf_answers_parse(b, text, (size_t)len, "c561"), JITUNWIND_ECORRUPT);
    /* An answer line repeated (a well-formed file never has one). */
    at = (int)(strstr(text, "answer ") - text);
    {
        const char *nl = strchr(text + at, '\n');
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)(nl - (text + at) + 1), text + at);
        ck_assert_int_eq(parse_edited(text, len, at, 0, line), JITUNWIND_ECORRUPT);
    }
    free(text);
    free(a);
    free(b);
}
END_TEST

START_TEST(what_cannot_be_kept_is_not)
{
    struct ju_dwarf_answers *a = sample();
    char longname[JU_DWARF_NAME_MAX + 8];
    unsigned i;
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    ju_dwarf_answers_add(a, JU_DWARF_MEMBER_OFFSET, longname, "x", 0, 1);
    ck_assert(a->full); /* the set is incomplete: save refuses it */
    ck_assert_int_eq(ju_dwarf_answers_save(a, "/nonexistent-never-created"), JITUNWIND_EINVAL);
    a->full = 0;
    ju_dwarf_answers_add(a, JU_DWARF_MEMBER_OFFSET, "T", "a b", 0, 1); /* a space */
    ck_assert(a->full);
    a->full = 0;
    for (i = a->count; i < JU_DWARF_ANSWERS_MAX; i++) {
        char name[32];
        snprintf(name, sizeof name, "T%u", i);
        ju_dwarf_answers_add(a, JU_DWARF_TYPE_SIZE, name, "", 0, i);
    }
    ck_assert(!a->full);
    ju_dwarf_answers_add(a, JU_DWARF_TYPE_SIZE, "one_more", "", 0, 1);
    ck_assert(a->full);
    free(a);
}
END_TEST

/* A saved entry loads; the same file made writable by others, or owned by
 * another user, does not (it could say anything). */
START_TEST(only_this_users_private_entry_is_trusted)
{
    struct ju_dwarf_answers *a = sample(), *b = malloc(sizeof *b);
    char dir[] = "/tmp/ju-answers-XXXXXX", file[1200];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(ju_dwarf_answers_save(a, dir), 0);
    ck_assert_int_eq(ju_dwarf_answers_file(file, sizeof file, dir, KEY), 0);
    ck_assert_int_eq(ju_dwarf_answers_load(b, dir, KEY), 0);
    ck_assert_uint_eq(b->count, 4);
    ck_assert_int_eq(chmod(file, 0666), 0);
    ck_assert_int_eq(ju_dwarf_answers_load(b, dir, KEY), JITUNWIND_ECORRUPT);
    ck_assert_int_eq(chmod(file, 0600), 0);
    ck_assert_int_eq(ju_dwarf_answers_load(b, dir, KEY), 0);
    if (geteuid() == 0) { /* only root can give a file away */
        ck_assert_int_eq(chown(file, 65534, 65534), 0);
        ck_assert_int_eq(ju_dwarf_answers_load(b, dir, KEY), JITUNWIND_ECORRUPT);
    }
    unlink(file);
    rmdir(dir);
    free(a);
    free(b);
}
END_TEST

int main(void)
{
    return ju_run_tests("dwarf_answers", JU_TESTS(round_trip, damaged_entries_are_refused,
                                                  what_cannot_be_kept_is_not,
                                                  only_this_users_private_entry_is_trusted));
}
