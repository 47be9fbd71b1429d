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

#include "config/config.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"
#include "sim/stats.h"
#include "workloads/workload.h"

typedef struct rig {
    mgs_config cfg;
    stat_registry *stats;
    mgs_rt *rt;
} rig;

/* gpus small GPUs (4 CUs) of `platform`, timing mode. */
static void rig_init(rig *r, int gpus, const char *platform, bool shared)
{
    mgs_config_defaults(&r->cfg);
    const char *sets[] = {shared ? "mmu.shared_iommu=true"
                                 : "mmu.shared_iommu=false",
                          "gpu.num_cus=4", "gpu.cus_per_sa=2",
                          "gpu.l2_banks=2", "tlb.l2_count=2",
                          /* one walk at a time, in the IOMMU or in each
                          ** GPU's walker: small GPUs still contend */
                          "mmu.iommu_walkers=1", "tlb.max_walks=1"};
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
        assert_int_equal(mgs_config_set(&r->cfg, sets[i], "test"), MGS_OK);
    r->stats = stat_registry_new();
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.mode = MGS_MODE_TIMING;
    o.num_gpus = gpus;
    o.mem_per_gpu = 256ull << 20;
    o.platform = platform;
    o.config = &r->cfg;
    o.stats = r->stats;
    assert_int_equal(mgs_rt_new(&o, &r->rt), MGS_OK);
}

static void rig_fini(rig *r)
{
    mgs_rt_free(r->rt);
    stat_registry_free(r->stats);
}

typedef struct stat_sum {
    const char *component;   /* exact, or a prefix ending in '*' */
    const char *metric;
    double sum;
    int rows;
} stat_sum;

static void add_row(const stat_row *row, void *ud)
{
    stat_sum *s = ud;
    size_t n = strlen(s->component);
    bool match = s->component[n - 1] == '*'
                     ? !strncmp(row->component, s->component, n - 1)
                     : !strcmp(row->component, s->component);
    if (match && !strcmp(row->metric, s->metric)) {
        s->sum += row->value;
        s->rows++;
    }
}

static double stat_get(rig *r, const char *component, const char *metric,
                       int *rows)
{
    stat_sum s = {component, metric, 0, 0};
    stat_registry_foreach(r->stats, 0, add_row, &s);
    if (rows)
        *rows = s.rows;
    return s.sum;
}

/* vecadd with n = 16384 per GPU over all GPUs; returns the IOMMU's mean
** queueing delay (ps) or, without it, the per-GPU walkers' mean. */
static double vecadd_queue_delay(int gpus, bool shared, double *walks)
{
    rig r;
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
        *walks = stat_get(&r, "IOMMU", "walks", &rows);
        assert_int_equal(rows, 1);
        delay = stat_get(&r, "IOMMU", "queue_delay.mean", NULL);
        stat_get(&r, "GPU[*", "walks", &rows);
        assert_int_equal(rows, 0);          /* no walker inside a GPU */
    } else {
        *walks = stat_get(&r, "GPU[*", "walks", &rows);
        assert_int_equal(rows, gpus);
        delay = stat_get(&r, "GPU[*", "queue_delay.mean", NULL) / gpus;
        stat_get(&r, "IOMMU", "walks", &rows);
        assert_int_equal(rows, 0);
    }
    rig_fini(&r);
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
    rig r;
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
    assert_true(stat_get(&r, "IOMMU.FaultHandler", "faults", NULL) >= 1);
    assert_true(stat_get(&r, "IOMMU", "faults", NULL) >= 1);
    rig_fini(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_iommu_contention),
        cmocka_unit_test(test_fault_names_address_and_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
