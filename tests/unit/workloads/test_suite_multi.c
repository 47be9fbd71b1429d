/*
** Every benchmark-suite workload runs verified at its small size on a
** 4-GPU discrete platform (one launch per GPU on its slice, data placed per
** the workload's pattern), on a 3-GPU discrete platform (uneven slices) and
** on a 2-GPU unified platform (one launch over MGS_GPU_ALL).
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/unit/workloads/suite_run.h"

#include <stdio.h>

static void run_all(int gpus, int unified)
{
    for (size_t i = 0; i < SUITE_COUNT; i++) {
        int rc = suite_run(suite_names[i], gpus, unified);
        if (rc != MGS_OK)
            fprintf(stderr, "%s on %d GPUs (%s): %s\n", suite_names[i], gpus,
                    unified ? "unified" : "discrete", mgs_error_msg());
        assert_int_equal(rc, MGS_OK);
    }
}

static void discrete_4gpus(void **state)
{
    (void)state;
    run_all(4, 0);
}

static void discrete_3gpus(void **state)
{
    (void)state;
    run_all(3, 0);
}

static void unified_2gpus(void **state)
{
    (void)state;
    run_all(2, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(discrete_4gpus),
        cmocka_unit_test(discrete_3gpus),
        cmocka_unit_test(unified_2gpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
