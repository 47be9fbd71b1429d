/*
** Demand paging and page migration (src/um/, docs/memory-management.md),
** end to end through the runtime in timing mode on small unified GPUs:
**   - mm verifies with pages migrating (faults, migrations, bytes, and the
**     PMCs' lines agree), and fails verification when the source PMC skips
**     the copy (mm) or the TLB shoot-down (atax, mt, fir), the broken
**     variants of um.h;
**   - a PMC that never answers ends the run with MGS_EDEADLOCK and a
**     message naming the migrator, the page and the GPUs;
**   - two identical runs give identical statistics;
**   - memory.fault_latency = 20us: every fault takes at least 20 us and
**     the run still verifies;
**   - first-touch placement: vecadd maps every page where it is first
**     touched, no page moves;
**   - configuration errors: first_touch without migrate, migrate on a
**     shared platform.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/um/um_rig.h"
#include "um/um.h"

static int run_wl(rt_rig *r, const char *name, int gpus,
                  const char *const *extra)
{
    return um_run(r, "memory.management=migrate", name, gpus, extra);
}

static void test_mm_migrates_and_verifies(void **state)
{
    (void)state;
    rt_rig r;
    assert_int_equal(run_wl(&r, "mm", 2, NULL), MGS_OK);
    double faults = stat_of(&r, "UM.Migrator", "faults");
    double moves = stat_of(&r, "UM.Migrator", "migrations");
    double bytes = stat_of(&r, "UM.Migrator", "bytes_migrated");
    assert_true(moves > 10 && faults >= moves);
    assert_true(bytes == moves * 4096);
    /* Every line of every moved page left one PMC and reached another. */
    assert_true(pmc_sum(&r, "lines_out", 2) == moves * 64);
    assert_true(pmc_sum(&r, "lines_in", 2) == moves * 64);
    assert_true(pmc_sum(&r, "pages_in", 2) == moves);
    /* The pages left GPUs that mapped them: shot down there. */
    assert_true(stat_of(&r, "UM.Migrator", "shootdowns") == moves);
    assert_true(pmc_sum(&r, "shootdowns", 2) == moves);
    rt_rig_fini(&r);
}

static void test_broken_copy_fails(void **state)
{
    (void)state;
    rt_rig r;
    um_test_break = UM_BREAK_NO_COPY;
    int rc = run_wl(&r, "mm", 2, NULL);
    um_test_break = UM_BREAK_NONE;
    assert_int_equal(rc, MGS_EVERIFY);
    assert_true(stat_of(&r, "UM.Migrator", "migrations") > 0);
    assert_true(pmc_sum(&r, "lines_out", 2) == 0);
    rt_rig_fini(&r);
}

/* Without the shoot-down the source GPU keeps its translations: it reads
** and writes the old frame after the page left. (mm happens not to touch a
** page again once it left; these do.) */
static void test_broken_shootdown_fails(void **state)
{
    (void)state;
    static const char *const names[] = {"atax", "mt", "fir"};
    for (size_t i = 0; i < 3; i++) {
        rt_rig r;
        um_test_break = UM_BREAK_NO_SHOOTDOWN;
        int rc = run_wl(&r, names[i], 2, NULL);
        um_test_break = UM_BREAK_NONE;
        assert_int_equal(rc, MGS_EVERIFY);
        assert_true(pmc_sum(&r, "shootdowns", 2) == 0);
        assert_true(stat_of(&r, "UM.Migrator", "migrations") > 0);
        rt_rig_fini(&r);
        /* The same run with the shoot-down verifies. */
        assert_int_equal(run_wl(&r, names[i], 2, NULL), MGS_OK);
        rt_rig_fini(&r);
    }
}

static void test_mute_pmc_is_reported(void **state)
{
    (void)state;
    rt_rig r;
    um_test_break = UM_BREAK_MUTE_PMC;
    int rc = run_wl(&r, "mm", 2, NULL);
    um_test_break = UM_BREAK_NONE;
    assert_int_equal(rc, MGS_EDEADLOCK);
    assert_int_equal(mgs_exit_code(rc), 3);
    const char *msg = mgs_error_msg();
    assert_non_null(strstr(msg, "UM.Migrator"));
    assert_non_null(strstr(msg, "waiting: UM.Migrator ("));
    assert_non_null(strstr(msg, "page 0x"));
    assert_non_null(strstr(msg, "waits for GPU[0].PMC (source) and "
                                "GPU[1].PMC (destination)"));
    rt_rig_fini(&r);
}

static void test_deterministic(void **state)
{
    (void)state;
    char *a = um_all_stats("memory.management=migrate", "atax", 4);
    char *b = um_all_stats("memory.management=migrate", "atax", 4);
    assert_non_null(strstr(a, "UM.Migrator migrations"));
    assert_string_equal(a, b);
    free(a);
    free(b);
}

static void test_fixed_fault_latency(void **state)
{
    (void)state;
    rt_rig r;
    static const char *const fixed[] = {"memory.fault_latency=20us", NULL};
    assert_int_equal(run_wl(&r, "mm", 2, fixed), MGS_OK);
    double moves = stat_of(&r, "UM.Migrator", "migrations");
    assert_true(moves > 0);
    /* The fastest fault that moved a page took the fixed 20 us. */
    assert_true(stat_of(&r, "UM.Migrator", "fault_latency.mean") >= 20e6);
    assert_true(stat_of(&r, "UM.Migrator", "fixed_latency_overruns") == 0);
    assert_true(stat_of(&r, "UM.Migrator", "bytes_migrated") == moves * 4096);
    rt_rig_fini(&r);
}

static void test_first_touch(void **state)
{
    (void)state;
    rt_rig r;
    static const char *const ft[] = {"platform.placement=first_touch", NULL};
    assert_int_equal(run_wl(&r, "vecadd", 2, ft), MGS_OK);
    double faults = stat_of(&r, "UM.Migrator", "faults");
    assert_true(faults > 0);
    /* vecadd's work-groups touch the chunk that contiguous staging put on
    ** their own GPU: every page is mapped in place. */
    assert_true(stat_of(&r, "UM.Migrator", "first_touch") == faults);
    assert_true(stat_of(&r, "UM.Migrator", "migrations") == 0);
    rt_rig_fini(&r);
}

static void test_config_errors(void **state)
{
    (void)state;
    rt_rig r;
    static const char *const ft[] = {"platform.placement=first_touch", NULL};
    rt_rig_configure(&r, ft);
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.config = &r.cfg;
    mgs_rt *rt = NULL;
    assert_int_equal(mgs_rt_new(&o, &rt), MGS_ECONFIG);
    assert_non_null(strstr(mgs_error_msg(), "memory.management = migrate"));

    static const char *const sh[] = {"memory.management=migrate", NULL};
    rt_rig_configure(&r, sh);
    o.mode = MGS_MODE_TIMING;
    o.num_gpus = 2;
    o.platform = "shared";
    assert_int_equal(mgs_rt_check(&o, 1 << 20), MGS_ECONFIG);
    assert_non_null(strstr(mgs_error_msg(), "discrete or unified"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mm_migrates_and_verifies),
        cmocka_unit_test(test_broken_copy_fails),
        cmocka_unit_test(test_broken_shootdown_fails),
        cmocka_unit_test(test_mute_pmc_is_reported),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_fixed_fault_latency),
        cmocka_unit_test(test_first_touch),
        cmocka_unit_test(test_config_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
