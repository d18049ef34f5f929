#include "suite.h"

#include <stdlib.h>

int ju_run_tests(const char *name, const TTest *const *tests)
{
    Suite *s = suite_create(name);
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;
    tcase_set_timeout(tc, 60);
    for (; *tests; tests++)
        _tcase_add_test(tc, *tests, 0, 0, 0, 1);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
