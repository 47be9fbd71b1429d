/*
** Every benchmark-suite workload runs verified at its small size in emu
** mode on one GPU (one cmocka test per workload, so a failure names it).
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/unit/workloads/suite_run.h"

#include <stdio.h>

static void run_one(void **state)
{
    const char *name = *state;
    int rc = suite_run(name, 1, 0);
    if (rc != MGS_OK)
        fprintf(stderr, "%s: %s\n", name, mgs_error_msg());
    assert_int_equal(rc, MGS_OK);
}

static int setup_name(void **state)
{
    (void)state;
    return 0;
}

#define T(name) { "emu_1gpu_" name, run_one, setup_name, NULL, name }

int main(void)
{
    const struct CMUnitTest tests[] = {
        T("aes"), T("atax"), T("bicg"), T("bs"), T("fir"), T("fws"),
        T("mp"), T("rl"), T("conv"), T("gd"), T("km"), T("gemm"),
        T("gemver"), T("j2d"), T("c2d"), T("st"), T("mm2"), T("mm3"),
        T("lu"), T("xtreme1"), T("xtreme2"), T("xtreme3"), T("bfs"),
        T("pr"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
