/*
** The shared IOMMU (mmu.shared_iommu, platform.c wire_iommu): one page-walk
** unit for all GPUs behind the host PCIe tree.
**   - vecadd over 1, 2 and 4 GPUs (unified, one launch over all) verifies,
**     every walk happens in the one IOMMU (no per-GPU walker exists), and
**     with the work per GPU fixed its queueing delay grows with the GPUs
**     (a walker per GPU sees less queueing for the same run);
**   - a translation fault goes to IOMMU.FaultHandler as a message (counted)
**     and ends the run with MGS_EFAULT naming the address and the GPU.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/runtime/rt_rig.h"
#include "workloads/workload.h"

/* gpus small GPUs of `platform`, timing mode, shared IOMMU or not; one
** walk at a time, in the IOMMU or in each GPU's walker, so that small GPUs
** still contend. */
static void rig_init(rt_rig *r, int gpus, const char *platform, bool shared)
{
    const char *sets[] = {shared ? "mmu.shared_iommu=true"
                                 : "mmu.shared_iommu=false",
                          "mmu.iommu_walkers=1", "tlb.max_walks=1", NULL};
    rt_rig_init(r, MGS_MODE_TIMING, gpus, platform, sets);
}

/* vecadd with n = 16384 per GPU over all GPUs; returns the IOMMU's mean
** queueing delay (ps) or, without it, the per-GPU walkers' mean. */
static double vecadd_queue_delay(int gpus, bool shared, double *walks)
{
    rt_rig r;
    rig_init(&r, gpus, "unified", shared);
    const mgs_workload *wl = wl_find("vecadd");
    assert_non_null(wl);
    wl_args a;
    memset(&a, 0, sizeof a);
    a.seed = 7;
    a.num_gpus = gpus;
    a.gpu_all = 1;
    a.param[0] = 16384 * gpus;
    int rc = wl->run(r.rt, &a);
    if (rc)
        fail_msg("vecadd on %d GPUs: %s", gpus, mgs_error_msg());
    int rows;
    double delay;
    if (shared) {
        *walks = rt_rig_stat(&r, "IOMMU", "walks", &rows);
        assert_int_equal(rows, 1);
        delay = rt_rig_stat(&r, "IOMMU", "queue_delay.mean", NULL);
        rt_rig_stat(&r, "GPU[*", "walks", &rows);
        assert_int_equal(rows, 0);          /* no walker inside a GPU */
    } else {
        *walks = rt_rig_stat(&r, "GPU[*", "walks", &rows);
        assert_int_equal(rows, gpus);
        delay = rt_rig_stat(&r, "GPU[*", "queue_delay.mean", NULL) / gpus;
        rt_rig_stat(&r, "IOMMU", "walks", &rows);
        assert_int_equal(rows, 0);
    }
    rt_rig_fini(&r);
    return delay;
}

static void test_shared_iommu_contention(void **state)
{
    (void)state;
    double w1, w2, w4, wp;
    double d1 = vecadd_queue_delay(1, true, &w1);
    double d2 = vecadd_queue_delay(2, true, &w2);
    double d4 = vecadd_queue_delay(4, true, &w4);
    double dp = vecadd_queue_delay(4, false, &wp);
    print_message("IOMMU queue delay (ps): 1 GPU %.0f, 2 GPUs %.0f, 4 GPUs "
                  "%.0f; a walker per GPU, 4 GPUs: %.0f; walks %.0f %.0f "
                  "%.0f / %.0f\n", d1, d2, d4, dp, w1, w2, w4, wp);
    /* Every GPU's misses go to the one IOMMU. */
    assert_true(w2 > 1.5 * w1 && w4 > 1.5 * w2);
    /* Contention grows with the GPUs sharing it. */
    assert_true(d2 > d1 && d4 > d2);
    assert_true(d4 > dp);
}

typedef struct vecadd_args {
    mgs_dptr a, b, c;
    uint32_t n;
} vecadd_args;

static void test_fault_names_address_and_gpu(void **state)
{
    (void)state;
    rt_rig r;
    rig_init(&r, 2, "discrete", true);
    char path[4096];
    wl_kernel_path("vecadd.hsaco", path, sizeof path);
    mgs_module *m;
    mgs_kernel *k;
    assert_int_equal(mgs_module_load(r.rt, path, &m), MGS_OK);
    assert_int_equal(mgs_module_kernel(m, "vecadd", &k), MGS_OK);
    /* Buffers of 1000 floats on GPU 1, kernel told n = 2048: lanes past
    ** the buffer's page read the unmapped guard page after a. */
    vecadd_args args = {.n = 2048};
    assert_int_equal(mgs_malloc(r.rt, 1, 4000, &args.a), MGS_OK);
    assert_int_equal(mgs_malloc(r.rt, 1, 4000, &args.b), MGS_OK);
    assert_int_equal(mgs_malloc(r.rt, 1, 4000, &args.c), MGS_OK);
    mgs_launch l = {.grid = {2048, 1, 1}, .block = {256, 1, 1},
                    .args = &args, .args_size = 28, .gpu = 1};
    int rc = mgs_launch_kernel(r.rt, k, &l);
    if (rc == MGS_OK)
        rc = mgs_synchronize(r.rt);
    assert_int_equal(rc, MGS_EFAULT);
    const char *msg = mgs_error_msg();
    const char *at = strstr(msg, "memory fault at address 0x");
    if (!at)
        fail_msg("%s", msg);
    unsigned long long addr = strtoull(at + strlen("memory fault at address "),
                                       NULL, 16);
    /* The first unmapped byte of a or b: the guard page after them. */
    assert_true((addr >= args.a + 4096 && addr < args.a + 8192) ||
                (addr >= args.b + 4096 && addr < args.b + 8192));
    assert_non_null(strstr(msg, "on GPU 1"));
    assert_true(rt_rig_stat(&r, "IOMMU.FaultHandler", "faults", NULL) >= 1);
    assert_true(rt_rig_stat(&r, "IOMMU", "faults", NULL) >= 1);
    rt_rig_fini(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_iommu_contention),
        cmocka_unit_test(test_fault_names_address_and_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
