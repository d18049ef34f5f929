/* One place for the Check boilerplate: build a suite from test functions
 * and run it, returning the process exit status. */
#ifndef JU_TEST_SUITE_H
#define JU_TEST_SUITE_H

#include <check.h>

/* CTest's SKIP_RETURN_CODE for the unit suites (tests/CMakeLists.txt). */
#define JU_SKIP_EXIT 77

/* Runs every test of `tests` (NULL-terminated) in one TCase named `name`.
 * Returns EXIT_FAILURE when a test failed; else JU_SKIP_EXIT, after listing
 * the reasons, when a test skipped something (ju_skip), so that the summary
 * shows a skip rather than a pass; else EXIT_SUCCESS. */
int ju_run_tests(const char *name, const TTest *const *tests);

/* Record that the calling test could not check something (a missing
 * interpreter or tool), with a one-line reason; the test then returns. */
void ju_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define JU_TESTS(...) ((const TTest *const[]){__VA_ARGS__, NULL})

#endif
