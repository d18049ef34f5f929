/* One place for the Check boilerplate: build a suite from test functions
 * and run it, returning the process exit status. */
#ifndef JU_TEST_SUITE_H
#define JU_TEST_SUITE_H

#include <check.h>

/* Runs every test of `tests` (NULL-terminated) in one TCase named `name`. */
int ju_run_tests(const char *name, const TTest *const *tests);

#define JU_TESTS(...) ((const TTest *const[]){__VA_ARGS__, NULL})

#endif
