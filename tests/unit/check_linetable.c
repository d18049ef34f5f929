/* The 3.11+ location table: every entry form by hand, corrupt tables, and a
 * cross-check against the real interpreter's own co_lines(). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "suite.h"

#define LINE(t, first, lasti) jitunwind_py_linetable_line(t, sizeof t, first, lasti)

START_TEST(every_entry_form)
{
    /* first line 10 */
    static const uint8_t t[] = {
        0x80 | (0 << 3) | 1, 0x12,             /* short form, 2 units: line 10 */
        0x80 | (11 << 3) | 0, 4, 9,            /* one-line form +1, 1 unit: line 11 */
        0x80 | (12 << 3) | 2, 0, 5,            /* one-line +2, 3 units: line 13 */
        0x80 | (13 << 3) | 0, 7,               /* no-column, svarint 7 = -3: line 10 */
        0x80 | (14 << 3) | 1, 40, 2, 5, 9,     /* long form, svarint 40 = +20: line 30 */
        0x80 | (15 << 3) | 0,                  /* no location, 1 unit */
        0x80 | (10 << 3) | 7, 1, 2,            /* one-line +0, 8 units: still 30 */
    };
    ck_assert_int_eq(LINE(t, 10, 0), 10);
    ck_assert_int_eq(LINE(t, 10, 1), 10);
    ck_assert_int_eq(LINE(t, 10, 2), 11);
    ck_assert_int_eq(LINE(t, 10, 3), 13);
    ck_assert_int_eq(LINE(t, 10, 5), 13);
    ck_assert_int_eq(LINE(t, 10, 6), 10);
    ck_assert_int_eq(LINE(t, 10, 7), 30);
    ck_assert_int_eq(LINE(t, 10, 8), 30);
    ck_assert_int_eq(LINE(t, 10, 9), -1);  /* no location */
    ck_assert_int_eq(LINE(t, 10, 10), 30); /* the running line survives it */
    ck_assert_int_eq(LINE(t, 10, 17), 30);
    ck_assert_int_eq(LINE(t, 10, 18), -1); /* beyond the table */
    ck_assert_int_eq(LINE(t, 10, -1), -1);
}
END_TEST

START_TEST(multi_byte_varints)
{
    /* no-column form with svarint 400 = +200 (varint 0x50 | 0x40, 0x06). */
    static const uint8_t t[] = {0x80 | (13 << 3) | 0, 0x40 | (400 & 63), 400 >> 6};
    ck_assert_int_eq(LINE(t, 1, 0), 201);
}
END_TEST

START_TEST(corrupt_tables_are_bounded)
{
    static const uint8_t not_entry[] = {0x12, 0x34};
    static const uint8_t cut_long[] = {0x80 | (14 << 3), 0x41};        /* varint never ends */
    static const uint8_t cut_one_line[] = {0x80 | (11 << 3), 4};       /* one byte missing */
    static const uint8_t endless_varint[] = {0x80 | (13 << 3), 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f,
                                             0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x01};
    ck_assert_int_eq(LINE(not_entry, 1, 0), -1);
    ck_assert_int_eq(LINE(cut_long, 1, 0), -1);
    ck_assert_int_eq(LINE(cut_one_line, 1, 0), -1);
    ck_assert_int_eq(LINE(endless_varint, 1, 0), -1);
    ck_assert_int_eq(jitunwind_py_linetable_line(NULL, 0, 1, 0), -1);
}
END_TEST

/* Ask a real 3.11 interpreter for functions' tables and co_lines(), and
 * compare every code unit. */
static const char SCRIPT[] =
    "import dis, sys\n"
    "def f(a):\n"
    "    x = a + 1\n"
    "    if x:\n"
    "        for i in range(3):\n"
    "            x += i\n"
    "    try:\n"
    "        y = 1 / x\n"
    "    except ZeroDivisionError:\n"
    "        y = (\n"
    "            0\n"
    "        )\n"
    "    return [z * 2 for z in range(y)]\n"
    "codes = [f, dis.dis, dis.Bytecode.__init__, sys.modules['os'].walk]\n"
    "for c in codes:\n"
    "    co = c.__code__\n"
    "    print('CODE', co.co_firstlineno, co.co_linetable.hex())\n"
    "    for start, end, line in co.co_lines():\n"
    "        print('RANGE', start // 2, end // 2, -1 if line is None else line)\n";

START_TEST(matches_the_real_interpreter)
{
    const char *python = "/usr/bin/python3.11";
    char cmd[256], line[200000];
    uint8_t table[100000];
    size_t len = 0;
    int first = 0, codes = 0, checked = 0;
    FILE *script, *p;
    char path[64];
    if (access(python, X_OK) != 0) {
        ju_skip("%s is not installed", python);
        return;
    }
    snprintf(path, sizeof path, "/tmp/ju-linetable-%d.py", (int)getpid());
    script = fopen(path, "w");
    fputs(SCRIPT, script);
    fclose(script);
    snprintf(cmd, sizeof cmd, "%s %s", python, path);
    p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    while (fgets(line, sizeof line, p)) {
        int s, e, want, u;
        if (sscanf(line, "CODE %d", &first) == 1) {
            const char *hex = strchr(line + 5, ' ') + 1;
            for (len = 0; hex[2 * len] && hex[2 * len] != '\n'; len++) {
                unsigned v;
                sscanf(hex + 2 * len, "%2x", &v);
                table[len] = (uint8_t)v;
            }
            codes++;
        } else if (sscanf(line, "RANGE %d %d %d", &s, &e, &want) == 3) {
            for (u = s; u < e; u++) {
                ck_assert_msg(jitunwind_py_linetable_line(table, len, first, u) == want,
                              "code %d unit %d: want line %d got %d", codes, u, want,
                              jitunwind_py_linetable_line(table, len, first, u));
                checked++;
            }
        }
    }
    pclose(p);
    unlink(path);
    ck_assert_int_eq(codes, 4);
    ck_assert_int_gt(checked, 200);
}
END_TEST

int main(void)
{
    return ju_run_tests("linetable", JU_TESTS(every_entry_form, multi_byte_varints,
                                              corrupt_tables_are_bounded, matches_the_real_interpreter));
}
