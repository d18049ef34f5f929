/* One place for the Check boilerplate: build a suite from test functions
 * and run it, returning the process exit status. */
#ifndef JU_TEST_SUITE_H
#define JU_TEST_SUITE_H

#include <check.h>
#include <stdint.h>

/* CTest's SKIP_RETURN_CODE for the unit suites (tests/CMakeLists.txt). */
#define JU_SKIP_EXIT 77

/* Runs each test of `tests` (NULL-terminated) in a runner of its own,
 * under the suite name `name`, and prints, per test, the parts it skipped
 * (ju_skip) with their reasons. Returns EXIT_FAILURE when a test failed;
 * else JU_SKIP_EXIT when every test skipped something, so that the summary
 * shows a skip rather than a pass; else EXIT_SUCCESS (a skipped part of one
 * test does not mark the others skipped). */
int ju_run_tests(const char *name, const TTest *const *tests);

/* Record that the calling test could not check something (a missing
 * interpreter or tool), with a one-line reason; the test then returns. */
void ju_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Run the shell command built from FMT in folder DIR; the calling test
 * fails when it does not succeed. */
void ju_sh_in(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define JU_TESTS(...) ((const TTest *const[]){__VA_ARGS__, NULL})

/* A reproducible pseudo-random sequence for randomised tests (an LCG: the
 * low bits are poor, so the top 53 are returned). */
static inline uint64_t ju_next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 11;
}

#endif
