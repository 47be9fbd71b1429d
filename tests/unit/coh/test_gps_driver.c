/*
** The GPS driver's profiling window (src/coh/gps/gps_driver.c, docs/gps.md):
** at cuGPSTrackingStop a page that no GPU touched keeps one copy, the one
** its allocation placed (contiguous placement: chunk i on GPU i), not
** GPU 0's. Keeping the lowest-numbered GPU made GPU 0 the only holder of
** every page the window missed (gsssp's graph arrays, whose edges only
** the source's GPU reads in iteration 0), and every other GPU read its
** part of them remotely from GPU 0 for the rest of the run (issue 20).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/unit/runtime/rt_rig.h"

enum { GPUS = 4, PAGES = 8 };

static const char *const gps_sets[] = {"coherence.protocol=gps", NULL};

static void test_untouched_pages_stay_home(void **state)
{
    (void)state;
    rt_rig r;
    rt_rig_init(&r, MGS_MODE_TIMING, GPUS, "discrete", gps_sets);
    assert_true(mgs_gps_active(r.rt));
    uint64_t page = mgs_rt_page_size(r.rt);
    mgs_dptr p;
    assert_int_equal(mgs_malloc_gps(r.rt, PAGES * page, MGS_GPS_AUTO, &p),
                     MGS_OK);
    int home[PAGES];
    for (int i = 0; i < PAGES; i++) {
        home[i] = mgs_rt_gpu_of(r.rt, p + (uint64_t)i * page);
        assert_int_equal(home[i], i * GPUS / PAGES);
    }
    /* A window in which nothing runs: no page is touched. */
    assert_int_equal(mgs_gps_tracking_start(r.rt), MGS_OK);
    assert_int_equal(mgs_gps_tracking_stop(r.rt), MGS_OK);
    for (int i = 0; i < PAGES; i++) {
        mgs_dptr a = p + (uint64_t)i * page;
        /* The host still maps the placed copy, the page's only
        ** subscriber: the last one cannot leave. */
        assert_int_equal(mgs_rt_gpu_of(r.rt, a), home[i]);
        assert_int_equal(mgs_gps_unsubscribe(r.rt, a, page, home[i]),
                         MGS_EINVAL);
    }
    int rows;
    assert_true(rt_rig_stat(&r, "GPS", "subscribers_per_page.max", &rows) ==
                1.0);
    assert_int_equal(rows, 1);
    mgs_free(r.rt, p);
    rt_rig_fini(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_untouched_pages_stay_home),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
