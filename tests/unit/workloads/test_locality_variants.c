/*
** The workloads' Locality API variants (--param locality=1,
** workloads/wl_locality.h) on small unified GPUs:
**   - aes, bs, fir, km, mm, mt and conv verify on 2 and 4 members in emu
**     and timing mode;
**   - aes keeps every access local: no RDMA traffic, each member runs its
**     quarter of the work-groups;
**   - a broken variant is caught: work-group 0 sent to the wrong member
**     still verifies but shows up as traffic and as unequal per-GPU
**     counts; work-group 0 skipped fails verification in every variant;
**   - locality=1 needs a unified GPU (MGS_EINVAL on discrete), and only 0
**     or 1 is accepted.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tests/unit/runtime/rt_rig.h"
#include "tests/unit/workloads/suite_run.h"
#include "workloads/wl_locality.h"

static const char *const variants[] = {"aes", "bs", "fir", "km", "mm",
                                       "mt", "conv"};
#define NVARIANTS (sizeof variants / sizeof variants[0])

typedef struct run_result {
    int rc;
    double rdma_bytes;          /* bytes the RDMA engines sent */
    uint64_t wgs[4];            /* work-groups per GPU */
} run_result;

/* name at its small size with locality = loc on `gpus` small GPUs of
** `platform`. */
static run_result run(const char *name, mgs_mode mode, int gpus,
                      const char *platform, int64_t loc)
{
    const mgs_workload *wl = wl_find(name);
    assert_non_null(wl);
    wl_args a;
    suite_args(wl, &a, gpus, wl_platform_gpu_all(platform));
    int p = suite_param_index(wl, "locality");
    assert_true(p >= 0);
    a.param[p] = loc;
    rt_rig r;
    rt_rig_init(&r, mode, gpus, platform, NULL);
    run_result out = {.rc = wl->run(r.rt, &a)};
    if (out.rc != MGS_OK && out.rc != MGS_EVERIFY)
        fprintf(stderr, "%s: %s\n", name, mgs_error_msg());
    for (int g = 0; g < gpus && g < 4; g++) {
        char comp[32];
        snprintf(comp, sizeof comp, "GPU[%d].RDMA", g);
        out.rdma_bytes += rt_rig_stat(&r, comp, "bytes_out", NULL);
        out.wgs[g] = mgs_rt_gpu_workgroups(r.rt, g);
    }
    rt_rig_fini(&r);
    return out;
}

static void test_variants_verify(void **state)
{
    (void)state;
    for (size_t i = 0; i < NVARIANTS; i++)
        for (int gpus = 2; gpus <= 4; gpus += 2)
            for (int m = 0; m < 2; m++) {
                mgs_mode mode = m ? MGS_MODE_TIMING : MGS_MODE_EMU;
                run_result res = run(variants[i], mode, gpus, "unified", 1);
                if (res.rc)
                    fail_msg("%s x%d %s: %s", variants[i], gpus,
                             m ? "timing" : "emu", mgs_error_msg());
            }
}

/* aes (4096 blocks, 16 work-groups of 256): a perfect partition. */
static void test_aes_local(void **state)
{
    (void)state;
    run_result ok = run("aes", MGS_MODE_TIMING, 4, "unified", 1);
    assert_int_equal(ok.rc, MGS_OK);
    assert_true(ok.rdma_bytes == 0);
    for (int g = 0; g < 4; g++)
        assert_true(ok.wgs[g] == 4);
    /* Without the variant the unified GPU's accesses cross GPUs (the
    ** default contiguous placement does not match work-groups exactly). */
    run_result plain = run("aes", MGS_MODE_TIMING, 4, "unified", 0);
    assert_int_equal(plain.rc, MGS_OK);
    assert_true(plain.rdma_bytes > 0);

    /* Work-group 0 on member 1: still right, but remote and unbalanced. */
    wl_inject_loc_fault(WL_LOC_FAULT_MISPLACE);
    run_result bad = run("aes", MGS_MODE_TIMING, 4, "unified", 1);
    wl_inject_loc_fault(WL_LOC_FAULT_NONE);
    assert_int_equal(bad.rc, MGS_OK);
    assert_true(bad.rdma_bytes > 0);
    assert_true(bad.wgs[0] == 3 && bad.wgs[1] == 5);
}

static void test_skipped_workgroup_fails(void **state)
{
    (void)state;
    wl_inject_loc_fault(WL_LOC_FAULT_SKIP);
    for (size_t i = 0; i < NVARIANTS; i++) {
        run_result res = run(variants[i], MGS_MODE_EMU, 4, "unified", 1);
        if (res.rc != MGS_EVERIFY)
            fprintf(stderr, "%s verified without work-group 0\n",
                    variants[i]);
        assert_int_equal(res.rc, MGS_EVERIFY);
    }
    wl_inject_loc_fault(WL_LOC_FAULT_NONE);
}

static void test_needs_unified(void **state)
{
    (void)state;
    static const char *const others[] = {"discrete", "monolithic"};
    for (int i = 0; i < 2; i++) {
        run_result res = run("fir", MGS_MODE_EMU, 2, others[i], 1);
        assert_int_equal(res.rc, MGS_EINVAL);
        assert_non_null(strstr(mgs_error_msg(), "--platform unified"));
    }
    run_result res = run("fir", MGS_MODE_EMU, 2, "unified", 2);
    assert_int_equal(res.rc, MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "locality must be 0 or 1"));
    /* locality=0 changes nothing on any platform. */
    assert_int_equal(run("fir", MGS_MODE_EMU, 2, "discrete", 0).rc, MGS_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_verify),
        cmocka_unit_test(test_aes_local),
        cmocka_unit_test(test_skipped_workgroup_fails),
        cmocka_unit_test(test_needs_unified),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
