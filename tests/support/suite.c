#include "suite.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Skips are written to a temporary file that forked tests inherit (its
 * offset is shared, so their lines follow one another), and read back once
 * every test has run. */
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

int ju_run_tests(const char *name, const TTest *const *tests)
{
    Suite *s = suite_create(name);
    TCase *tc = tcase_create("core");
    SRunner *sr;
    char line[512];
    int failed, skipped = 0;
    skips = tmpfile();
    tcase_set_timeout(tc, 60);
    for (; *tests; tests++)
        _tcase_add_test(tc, *tests, 0, 0, 0, 1);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (skips) {
        rewind(skips);
        while (fgets(line, sizeof line, skips)) {
            if (skipped++ == 0)
                printf("%s: skipped parts (exit %d):\n", name, JU_SKIP_EXIT);
            printf("  %s", line);
        }
        fclose(skips);
    }
    if (failed)
        return EXIT_FAILURE;
    return skipped ? JU_SKIP_EXIT : EXIT_SUCCESS;
}
