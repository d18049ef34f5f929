#include "suite.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Skips are written to a temporary file that forked tests inherit (its
 * offset is shared, so their lines follow one another), and read back after
 * each test, under that test's name. */
static FILE *skips;

void ju_skip(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    fprintf(stderr, "skipped: %.*s", n, line);
    if (skips && write(fileno(skips), line, (size_t)n) < 0)
        perror("recording a skip");
}

void ju_sh_in(const char *dir, const char *fmt, ...)
{
    char cmd[8192];
    int n;
    va_list ap;
    n = snprintf(cmd, sizeof cmd, "cd '%s' && ", dir);
    va_start(ap, fmt);
    vsnprintf(cmd + n, sizeof cmd - (size_t)n, fmt, ap);
    va_end(ap);
    ck_assert_msg(system(cmd) == 0, "failed: %s", cmd);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs one test in a runner of its own and prints one line for it (its
 * result and time) and the reasons of the parts it skipped. Returns the
 * number of failures; *skipped is set when the test recorded a skip. */
static int run_one(const char *name, const TTest *test, int *skipped)
{
    Suite *s = suite_create(name);
    TCase *tc = tcase_create(test->name);
    SRunner *sr;
    TestResult **results;
    char line[512];
    int failed, i;
    long from = skips ? ftell(skips) : -1;
    double start = now();
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_SILENT);
    failed = srunner_ntests_failed(sr);
    *skipped = 0;
    if (skips && from >= 0 && fseek(skips, from, SEEK_SET) == 0) {
        while (fgets(line, sizeof line, skips)) {
            if ((*skipped)++ == 0)
                printf("%s: %s: skipped parts:\n", name, test->name);
            printf("  %s", line);
        }
    }
    printf("%s: %s: %s (%.2f s)\n", name, test->name,
           failed ? "FAILED" : *skipped ? "passed, with skipped parts" : "passed", now() - start);
    results = failed ? srunner_failures(sr) : NULL;
    for (i = 0; results && i < failed; i++)
        printf("  %s:%d: %s\n", tr_lfile(results[i]), tr_lno(results[i]), tr_msg(results[i]));
    free(results);
    srunner_free(sr);
    fflush(stdout);
    return failed;
}

int ju_run_tests(const char *name, const TTest *const *tests)
{
    int failed = 0, ran = 0, skipped_tests = 0;
    skips = tmpfile();
    for (; *tests; tests++) {
        int skipped;
        failed += run_one(name, *tests, &skipped);
        ran++;
        skipped_tests += skipped > 0;
    }
    if (skips)
        fclose(skips);
    if (skipped_tests)
        printf("%s: %d of %d tests skipped a part\n", name, skipped_tests, ran);
    if (failed)
        return EXIT_FAILURE;
    return skipped_tests == ran ? JU_SKIP_EXIT : EXIT_SUCCESS;
}
