/*
** The coherence interface and its worked example, nc (src/coh/):
**   - nc's answer at every synchronisation point, on one and four GPUs;
**   - coh_sync ranges: merging, collapse to the whole cache, union;
**   - on one GPU the L2 keeps its lines from kernel to kernel (the second
**     of two back-to-back kernels over an L2-resident array hits in L2);
**   - on four GPUs the cross-GPU write-back still happens (counted);
**   - each boundary action is needed: deliberately broken variants of nc
**     (registered with coh_register) make real workloads fail
**     verification - no L1 invalidation at launch, no L2 write-back across
**     GPUs, no host-write maintenance.
** Runs real kernels in timing mode through the runtime API.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coh/coh.h"
#include "config/config.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"
#include "sim/stats.h"
#include "workloads/workload.h"

#include "coh_run.h"

extern const coh_protocol coh_nc;

/* The workload that needs the L1 invalidation at launch (one GPU), and the
** platform on which xtreme3 needs the L2 write-back across GPUs. */
#ifndef ACQUIRE_WORKLOAD
#define ACQUIRE_WORKLOAD "fws"
#endif
#ifndef RELEASE_PLATFORM
#define RELEASE_PLATFORM "shared"
#endif

/* ---- nc's rules ---- */

static coh_sync nc_at(uint32_t ngpus, bool rdma, coh_point p)
{
    coh_system sys = {.ngpus = ngpus, .rdma = rdma,
                      .shared_memory = ngpus > 1 && !rdma};
    coh_sync s;
    memset(&s, 0, sizeof s);
    coh_nc.sync(&sys, p, 0, &s);
    return s;
}

static void test_nc_rules(void **state)
{
    (void)state;
    coh_sync s = nc_at(1, false, COH_LAUNCH);
    assert_int_equal(s.l1, COH_INVALIDATE);
    assert_int_equal(s.tlb, COH_INVALIDATE);
    assert_int_equal(s.l2, COH_KEEP);
    /* One GPU: the L2 survives kernels and copies. */
    assert_false(coh_sync_any(&(coh_sync){0}));
    s = nc_at(1, false, COH_KERNEL_END);
    assert_false(coh_sync_any(&s));
    s = nc_at(1, false, COH_COPY_END);
    assert_false(coh_sync_any(&s));
    s = nc_at(1, false, COH_HOST_WRITE);
    assert_int_equal(s.l2, COH_WRITEBACK_INVALIDATE);
    s = nc_at(1, false, COH_HOST_READ);
    assert_int_equal(s.l2, COH_WRITEBACK);
    /* Several GPUs: write back and drop at kernel end and after copies;
    ** the peer release only over RDMA; host points find empty L2s. */
    for (int rdma = 0; rdma < 2; rdma++) {
        s = nc_at(4, rdma, COH_KERNEL_END);
        assert_int_equal(s.l2, COH_WRITEBACK_INVALIDATE);
        assert_true(s.l2_all);
        s = nc_at(4, rdma, COH_COPY_END);
        assert_int_equal(s.l2, COH_WRITEBACK_INVALIDATE);
        s = nc_at(4, rdma, COH_PEER_RELEASE);
        assert_int_equal(s.l2, rdma ? COH_WRITEBACK_INVALIDATE : COH_KEEP);
        s = nc_at(4, rdma, COH_HOST_WRITE);
        assert_int_equal(s.l2, COH_KEEP);
    }
    assert_ptr_equal(coh_find("nc"), &coh_nc);
    assert_null(coh_find("nope"));
    assert_int_equal(coh_remote_cache_parse("l2"), COH_REMOTE_L2);
    assert_int_equal(coh_remote_cache_parse("l3"), -1);
}

static void test_sync_ranges(void **state)
{
    (void)state;
    coh_sync s;
    memset(&s, 0, sizeof s);
    s.l2 = COH_WRITEBACK;
    coh_sync_add_range(&s, 0x1000, 0x100);
    coh_sync_add_range(&s, 0x1100, 0x100);  /* touches: merges */
    coh_sync_add_range(&s, 0x0f80, 0x100);  /* overlaps: merges */
    assert_int_equal(s.nranges, 1);
    assert_int_equal(s.range[0].addr, 0x0f80);
    assert_int_equal(s.range[0].bytes, 0x280);
    for (uint64_t i = 1; i < COH_MAX_RANGES; i++)
        coh_sync_add_range(&s, 0x100000 * i, 64);
    assert_int_equal(s.nranges, COH_MAX_RANGES);
    assert_false(s.l2_all);
    coh_sync_add_range(&s, 0x9000000, 64);   /* one too many */
    assert_true(s.l2_all);
    assert_int_equal(s.nranges, 0);
    coh_sync_add_range(&s, 0x1000, 64);      /* stays whole */
    assert_true(s.l2_all);

    coh_sync a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.l1 = COH_INVALIDATE;
    a.l2 = COH_WRITEBACK;
    coh_sync_add_range(&a, 0x2000, 64);
    b.l2 = COH_INVALIDATE;
    coh_sync_add_range(&b, 0x8000, 64);
    coh_sync_merge(&a, &b);
    assert_int_equal(a.l1, COH_INVALIDATE);
    assert_int_equal(a.l2, COH_WRITEBACK_INVALIDATE);
    assert_int_equal(a.nranges, 2);
    b.l2_all = true;
    coh_sync_merge(&a, &b);
    assert_true(a.l2_all);
}

/* TLB spans (cp.launch_tlb_shootdown = changed) merge into their union; a
** whole-TLB drop on either side wins. */
static void test_sync_tlb_spans(void **state)
{
    (void)state;
    coh_sync a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    b.tlb = COH_INVALIDATE;
    b.tlb_span = true;
    b.tlb_lo = 0x5000;
    b.tlb_hi = 0x6000;
    coh_sync_merge(&a, &b);                  /* nothing + span = span */
    assert_int_equal(a.tlb, COH_INVALIDATE);
    assert_true(a.tlb_span && a.tlb_lo == 0x5000 && a.tlb_hi == 0x6000);
    b.tlb_lo = 0x1000;
    b.tlb_hi = 0x2000;
    coh_sync_merge(&a, &b);                  /* span + span = union */
    assert_true(a.tlb_span && a.tlb_lo == 0x1000 && a.tlb_hi == 0x6000);
    memset(&b, 0, sizeof b);
    coh_sync_merge(&a, &b);                  /* + nothing: unchanged */
    assert_true(a.tlb_span && a.tlb_lo == 0x1000 && a.tlb_hi == 0x6000);
    b.tlb = COH_INVALIDATE;                  /* + every entry = every entry */
    coh_sync_merge(&a, &b);
    assert_int_equal(a.tlb, COH_INVALIDATE);
    assert_false(a.tlb_span);
    b.tlb_span = true;
    coh_sync_merge(&a, &b);                  /* every entry stays */
    assert_false(a.tlb_span);
}

/* ---- runs ---- */

/* Runs a registered workload at its small size; returns its code. */
static int run_workload(const char *protocol, const char *name,
                        const char *platform, int gpus)
{
    wl_args a;
    const mgs_workload *wl = coh_small_args(name, gpus,
                                            strcmp(platform, "discrete"), &a);
    coh_run r;
    coh_run_open(&r, protocol, platform, gpus);
    int rc = wl->run(r.rt, &a);
    coh_run_close(&r);
    return rc;
}

static void vecadd_launch(mgs_rt *rt, mgs_kernel *k, int gpu, mgs_dptr a,
                          mgs_dptr b, mgs_dptr c, unsigned n)
{
    struct { uint64_t a, b, c; uint32_t n; } args = {a, b, c, n};
    mgs_launch l = {.grid = {n, 1, 1}, .block = {256, 1, 1},
                    .args = &args, .args_size = 28, .gpu = gpu};
    assert_int_equal(mgs_launch_kernel(rt, k, &l), MGS_OK);
}

enum { N = 32768 };   /* 3 x 128 KiB: resident in a 2 MiB L2 */

/* One GPU: the second of two kernels over the same arrays reads them from
** the L2 (the first left them there); before nc owned synchronisation the
** L2 was flushed and emptied at every kernel end. */
static void test_l2_survives_kernels_on_one_gpu(void **state)
{
    (void)state;
    coh_run r;
    coh_run_open(&r, "nc", "discrete", 1);
    mgs_kernel *k = coh_kernel(r.rt, "vecadd", "vecadd");
    static float ha[N], hb[N], hc[N];
    for (int i = 0; i < N; i++) {
        ha[i] = (float)i;
        hb[i] = 2.0f * (float)i;
    }
    mgs_dptr a, b, c;
    assert_int_equal(mgs_malloc(r.rt, 0, sizeof ha, &a), MGS_OK);
    assert_int_equal(mgs_malloc(r.rt, 0, sizeof hb, &b), MGS_OK);
    assert_int_equal(mgs_malloc(r.rt, 0, sizeof hc, &c), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(r.rt, a, ha, sizeof ha), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(r.rt, b, hb, sizeof hb), MGS_OK);
    vecadd_launch(r.rt, k, 0, a, b, c, N);
    assert_int_equal(mgs_synchronize(r.rt), MGS_OK);
    double miss1 = coh_stat_sum(&r, "GPU[0].L2", "read_misses");
    double hit1 = coh_stat_sum(&r, "GPU[0].L2", "read_hits");
    vecadd_launch(r.rt, k, 0, a, b, c, N);
    assert_int_equal(mgs_synchronize(r.rt), MGS_OK);
    double miss2 = coh_stat_sum(&r, "GPU[0].L2", "read_misses") - miss1;
    double hit2 = coh_stat_sum(&r, "GPU[0].L2", "read_hits") - hit1;
    /* Every line of a and b (2 x 2048 lines) hits the second time. */
    assert_true(hit2 >= 2.0 * N * 4 / 64);
    printf("# second kernel: L2 read hits %.0f, misses %.0f\n", hit2, miss2);
    assert_true(miss2 <= 16);
    assert_int_equal(mgs_memcpy_d2h(r.rt, hc, c, sizeof hc), MGS_OK);
    for (int i = 0; i < N; i++)
        assert_true(hc[i] == 3.0f * (float)i);
    coh_run_close(&r);
}

/* Four GPUs: the cross-GPU write-back at kernel end still happens, and is
** counted (one per L2 bank and kernel on every GPU). */
static void test_cross_gpu_writeback_counted(void **state)
{
    (void)state;
    coh_run r;
    coh_run_open(&r, "nc", "unified", 4);
    mgs_kernel *k = coh_kernel(r.rt, "vecadd", "vecadd");
    static float ha[N], hc[N];
    for (int i = 0; i < N; i++)
        ha[i] = (float)i;
    mgs_dptr a, c;
    assert_int_equal(mgs_malloc(r.rt, MGS_GPU_ALL, sizeof ha, &a), MGS_OK);
    assert_int_equal(mgs_malloc(r.rt, MGS_GPU_ALL, sizeof hc, &c), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(r.rt, a, ha, sizeof ha), MGS_OK);
    double before = coh_stat_sum(&r, "GPU[", "flushes");
    vecadd_launch(r.rt, k, MGS_GPU_ALL, a, a, c, N);
    assert_int_equal(mgs_synchronize(r.rt), MGS_OK);
    double flushes = coh_stat_sum(&r, "GPU[", "flushes") - before;
    /* 4 GPUs x 8 banks at kernel end, and again at the peer release. */
    assert_true(flushes >= 2 * 4 * 8);
    assert_int_equal(mgs_memcpy_d2h(r.rt, hc, c, sizeof hc), MGS_OK);
    for (int i = 0; i < N; i++)
        assert_true(hc[i] == 2.0f * (float)i);
    coh_run_close(&r);
}

/* coherence.remote_cache = l2: remote lines are cached in the requesting
** GPU's L2 (write-through), every workload still verifies on 4 GPUs (no
** deadlock between the L2s and RDMA engines), fewer requests cross the
** network than with remote data in L1 only, and atomics on remote lines
** from every GPU are performed at one point, the home. */
static double rdma_reads(const char *remote, const char *name)
{
    wl_args a;
    const mgs_workload *wl = coh_small_args(name, 4, true, &a);
    coh_run r;
    coh_run_config(&r, "nc");
    snprintf(r.cfg.coherence_remote_cache, sizeof r.cfg.coherence_remote_cache,
             "%s", remote);
    coh_run_start(&r, "unified", 4);
    assert_int_equal(wl->run(r.rt, &a), MGS_OK);
    double n = coh_stat_sum(&r, "GPU[", "out_reads");
    coh_run_close(&r);
    return n;
}

static void test_remote_data_in_l2(void **state)
{
    (void)state;
    double l1 = rdma_reads("l1", "mm"), l2 = rdma_reads("l2", "mm");
    printf("# mm on 4 unified GPUs: %.0f remote reads with remote data in "
           "L1, %.0f in L2\n", l1, l2);
    assert_true(l2 > 0 && l2 < l1);
    assert_true(rdma_reads("l2", "xtreme3") > 0);

    /* Atomics from 4 GPUs on counters homed on GPU 0. */
    coh_run r;
    coh_run_config(&r, "nc");
    snprintf(r.cfg.coherence_remote_cache, sizeof r.cfg.coherence_remote_cache,
             "l2");
    coh_run_start(&r, "unified", 4);
    enum { NA = 4096 };
    int32_t g[8];
    uint64_t g64[4];
    coh_isa_atomics(r.rt, NA, g, g64);
    assert_int_equal(g64[0], NA);          /* one atomicAdd per work-item */
    assert_int_equal(g[5], -NA);           /* one atomicSub per work-item */
    coh_run_close(&r);
}

/* ---- deliberately broken variants of nc ---- */

static void no_l1_acquire_sync(const coh_system *sys, coh_point p,
                               uint32_t gpu, coh_sync *out)
{
    coh_nc.sync(sys, p, gpu, out);
    if (p == COH_LAUNCH)
        out->l1 = COH_KEEP;
}
static const coh_protocol nc_no_l1_acquire = {
    .name = "test-nc-no-l1-acquire", .summary = "nc without the L1 "
    "invalidation at launch", .sync = no_l1_acquire_sync,
    .fence_l1 = COH_INVALIDATE};

static void no_l2_release_sync(const coh_system *sys, coh_point p,
                               uint32_t gpu, coh_sync *out)
{
    coh_nc.sync(sys, p, gpu, out);
    if (p == COH_KERNEL_END || p == COH_PEER_RELEASE)
        out->l2 = COH_KEEP;
}
static const coh_protocol nc_no_l2_release = {
    .name = "test-nc-no-l2-release", .summary = "nc without the L2 "
    "write-back across GPUs", .sync = no_l2_release_sync,
    .fence_l1 = COH_INVALIDATE};

static void no_host_write_sync(const coh_system *sys, coh_point p,
                               uint32_t gpu, coh_sync *out)
{
    coh_nc.sync(sys, p, gpu, out);
    if (p == COH_HOST_WRITE)
        out->l2 = COH_KEEP;
}
static const coh_protocol nc_no_host_write = {
    .name = "test-nc-no-host-write", .summary = "nc without the L2 "
    "maintenance of direct host writes", .sync = no_host_write_sync,
    .fence_l1 = COH_INVALIDATE};

static int setup_broken(void **state)
{
    (void)state;
    static bool done;
    if (!done) {
        assert_int_equal(coh_register(&nc_no_l1_acquire), MGS_OK);
        assert_int_equal(coh_register(&nc_no_l2_release), MGS_OK);
        assert_int_equal(coh_register(&nc_no_host_write), MGS_OK);
        assert_int_not_equal(coh_register(&nc_no_host_write), MGS_OK);
        mgs_error_clear();
        done = true;
    }
    return 0;
}

/* Without the L1 invalidation at launch a CU reads lines it cached in an
** earlier kernel that another CU has since rewritten. */
static void test_without_l1_acquire_fails(void **state)
{
    (void)state;
    assert_int_equal(run_workload("nc", ACQUIRE_WORKLOAD, "discrete", 1),
                     MGS_OK);
    assert_int_equal(run_workload("test-nc-no-l1-acquire", ACQUIRE_WORKLOAD,
                                  "discrete", 1), MGS_EVERIFY);
}

/* Without the L2 write-back across GPUs, results stay dirty in one GPU's
** L2 while another GPU reads stale memory. */
static void test_without_l2_release_fails(void **state)
{
    (void)state;
    assert_int_equal(run_workload("nc", "xtreme3", RELEASE_PLATFORM, 2),
                     MGS_OK);
    assert_int_equal(run_workload("test-nc-no-l2-release", "xtreme3",
                                  RELEASE_PLATFORM, 2), MGS_EVERIFY);
}

/* One GPU keeps dirty lines in its L2: a memset (a direct write of the
** runtime) that does not drop them first is undone by a later write-back,
** or the next kernel reads the stale lines. */
static void test_without_host_write_fails(void **state)
{
    (void)state;
    for (int broken = 0; broken < 2; broken++) {
        coh_run r;
        coh_run_open(&r, broken ? "test-nc-no-host-write" : "nc", "discrete", 1);
        mgs_kernel *k = coh_kernel(r.rt, "vecadd", "vecadd");
        static float ha[N], hc[N];
        for (int i = 0; i < N; i++)
            ha[i] = 1.0f + (float)i;
        mgs_dptr a, c;
        assert_int_equal(mgs_malloc(r.rt, 0, sizeof ha, &a), MGS_OK);
        assert_int_equal(mgs_malloc(r.rt, 0, sizeof hc, &c), MGS_OK);
        assert_int_equal(mgs_memcpy_h2d(r.rt, a, ha, sizeof ha), MGS_OK);
        vecadd_launch(r.rt, k, 0, a, a, c, N);      /* c dirty in L2 */
        assert_int_equal(mgs_memset(r.rt, a, 0, sizeof ha), MGS_OK);
        vecadd_launch(r.rt, k, 0, a, a, c, N);      /* must read zeros */
        assert_int_equal(mgs_memcpy_d2h(r.rt, hc, c, sizeof hc), MGS_OK);
        int wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += hc[i] != 0.0f;
        if (broken)
            assert_true(wrong > 0);
        else
            assert_int_equal(wrong, 0);
        coh_run_close(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nc_rules),
        cmocka_unit_test(test_sync_ranges),
        cmocka_unit_test(test_sync_tlb_spans),
        cmocka_unit_test(test_l2_survives_kernels_on_one_gpu),
        cmocka_unit_test(test_cross_gpu_writeback_counted),
        cmocka_unit_test(test_remote_data_in_l2),
        cmocka_unit_test_setup(test_without_l1_acquire_fails, setup_broken),
        cmocka_unit_test_setup(test_without_l2_release_fails, setup_broken),
        cmocka_unit_test_setup(test_without_host_write_fails, setup_broken),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
