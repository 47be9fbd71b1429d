/*
** Multi-GPU platforms in timing mode (src/platform/platform.h, runtime
** timing path): workloads verify on every platform type with 1, 2 and 4
** small GPUs (4 CUs, 2 L2 banks each: fast under ASan), and the traffic
** statistics match the access patterns: a partitioned workload on
** discrete GPUs sends nothing over RDMA, a gather reads remotely, unified
** launches split the grid into contiguous chunks, monolithic is one chip,
** the shared-memory platform beats RDMA on a remote-heavy workload,
** launches on different GPUs overlap in time (platform.concurrent_launches)
** and two identical 4-GPU runs give identical statistics.
** (The full workload matrix at R9 Nano size runs from
** tests/cli/platform_matrix.sh in the optimised build.)
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "config/config.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"
#include "platform/gpu_build.h"
#include "sim/stats.h"
#include "workloads/workload.h"

typedef struct run_out {
    int rc;
    mgs_rt_totals totals;
    uint64_t wgs[16];
    stat_registry *st;        /* owned by the caller (run_free) */
} run_out;

/* One more "key=value" for the next run_wl (NULL: none). */
static const char *run_extra_set;

/* Runs workload `name` at its small size in timing mode on `gpus` small
** GPUs of platform `type`; gpu_all: one launch over all GPUs. */
static void run_wl(const char *name, const char *type, int gpus, int gpu_all,
                   run_out *o)
{
    memset(o, 0, sizeof *o);
    mgs_config cfg;
    mgs_config_defaults(&cfg);
    const char *sets[] = {"sim.mode=timing", "gpu.num_cus=4",
                          "gpu.cus_per_sa=2", "gpu.l2_banks=2",
                          "tlb.l2_count=2", "platform.mem_per_gpu=256MB"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        assert_int_equal(mgs_config_set(&cfg, sets[i], "test"), MGS_OK);
    if (run_extra_set)
        assert_int_equal(mgs_config_set(&cfg, run_extra_set, "test"), MGS_OK);
    char buf[64];
    snprintf(buf, sizeof buf, "platform.type=%s", type);
    assert_int_equal(mgs_config_set(&cfg, buf, "test"), MGS_OK);
    snprintf(buf, sizeof buf, "platform.gpus=%d", gpus);
    assert_int_equal(mgs_config_set(&cfg, buf, "test"), MGS_OK);

    const mgs_workload *wl = wl_find(name);
    assert_non_null(wl);
    wl_args a;
    memset(&a, 0, sizeof a);
    a.seed = 1;
    a.num_gpus = gpus;
    a.gpu_all = gpu_all;
    for (int i = 0; i < WL_MAX_PARAMS && wl->params[i].name; i++)
        a.param[i] = wl->params[i].small;

    o->st = stat_registry_new();
    mgs_rt_options ro;
    mgs_rt_options_default(&ro);
    ro.mode = MGS_MODE_TIMING;
    ro.num_gpus = gpus;
    ro.mem_per_gpu = cfg.platform_mem_per_gpu;
    ro.platform = type;
    ro.config = &cfg;
    ro.stats = o->st;
    mgs_rt *rt = NULL;
    assert_int_equal(mgs_rt_new(&ro, &rt), MGS_OK);
    o->rc = wl->run(rt, &a);
    mgs_synchronize(rt);
    mgs_rt_totals_get(rt, &o->totals);
    for (int g = 0; g < gpus; g++)
        o->wgs[g] = mgs_rt_gpu_workgroups(rt, g);
    mgs_rt_free(rt);
}

static void run_free(run_out *o) { stat_registry_free(o->st); }

typedef struct stat_query {
    const char *comp;         /* substring of the component name */
    const char *metric;       /* exact metric name; NULL: any */
    double sum;
    size_t rows;
} stat_query;

static void stat_match(const stat_row *r, void *ud)
{
    stat_query *q = ud;
    if (!strstr(r->component, q->comp))
        return;
    q->rows++;
    if (!q->metric || !strcmp(r->metric, q->metric))
        q->sum += r->value;
}

/* Sum of metric over components whose name contains comp. */
static double stat_sum(const run_out *o, const char *comp, const char *metric)
{
    stat_query q = {.comp = comp, .metric = metric};
    stat_registry_foreach(o->st, 0, stat_match, &q);
    return q.sum;
}

static size_t stat_rows(const run_out *o, const char *comp)
{
    stat_query q = {.comp = comp};
    stat_registry_foreach(o->st, 0, stat_match, &q);
    return q.rows;
}

static double remote_parts(const run_out *o)
{
    return stat_sum(o, "RDMA", "out_reads") +
           stat_sum(o, "RDMA", "out_writes") +
           stat_sum(o, "RDMA", "out_atomics");
}

/* Every platform type x 1, 2, 4 GPUs x a partitioned, a gather and a
** graph workload verifies against the CPU reference. */
static void test_all_platforms_verify(void **state)
{
    (void)state;
    const char *types[] = {"discrete", "unified", "monolithic", "shared"};
    const char *wls[] = {"vecadd", "mm", "pr"};
    const int gpus[] = {1, 2, 4};
    for (size_t t = 0; t < 4; t++)
        for (size_t n = 0; n < 3; n++)
            for (size_t w = 0; w < 3; w++) {
                run_out o;
                run_wl(wls[w], types[t], gpus[n],
                       wl_platform_gpu_all(types[t]), &o);
                if (o.rc != MGS_OK)
                    fail_msg("%s on %s x%d: %s", wls[w], types[t], gpus[n],
                             mgs_error_msg());
                assert_true(o.totals.workgroups > 0);
                assert_true(o.totals.sim_time_ps > 0);
                run_free(&o);
            }
}

/* vecadd on discrete GPUs: each GPU adds its own slice: no RDMA parts,
** no bytes on the PCIe links between GPUs, and every GPU worked. Copies
** are instant here: timed ones (DMA) share the PCIe tree with RDMA
** (tests/unit/runtime/test_copy_timing.c checks them). */
static void test_discrete_partitioned_no_rdma(void **state)
{
    (void)state;
    run_out o;
    run_extra_set = "platform.copy_timing=instant";
    run_wl("vecadd", "discrete", 4, 0, &o);
    run_extra_set = NULL;
    assert_int_equal(o.rc, MGS_OK);
    assert_true(stat_rows(&o, "GPU[3].RDMA") > 0);  /* the engines exist */
    assert_true(remote_parts(&o) == 0);
    assert_true(stat_sum(&o, "RDMA", "in_reads") == 0);
    assert_true(stat_sum(&o, "PCIe.Link", "a_to_b.payload_bytes") == 0);
    for (int g = 0; g < 4; g++)
        assert_true(o.wgs[g] > 0);
    run_free(&o);
}

/* mm on discrete GPUs: B is shared (page-interleaved), so each GPU reads
** remote lines; every part sent is served by some home engine and
** crosses the PCIe tree. */
static void test_discrete_gather_remote_reads(void **state)
{
    (void)state;
    run_out o;
    run_wl("mm", "discrete", 2, 0, &o);
    assert_int_equal(o.rc, MGS_OK);
    double out = stat_sum(&o, "RDMA", "out_reads");
    assert_true(out > 0);
    assert_true(stat_sum(&o, "RDMA", "in_reads") == out);
    assert_true(stat_sum(&o, "GPU[0].RDMA", "out_reads") > 0);
    assert_true(stat_sum(&o, "GPU[1].RDMA", "out_reads") > 0);
    assert_true(stat_sum(&o, "PCIe.Link", "a_to_b.payload_bytes") +
                    stat_sum(&o, "PCIe.Link", "b_to_a.payload_bytes") >=
                out * 8);
    run_free(&o);
}

/* vecadd on the unified platform: one launch, contiguous chunks of work-
** groups per GPU (sizes differ by at most one), and the interleaved pages
** make most accesses remote. */
static void test_unified_chunks(void **state)
{
    (void)state;
    run_out o;
    run_wl("vecadd", "unified", 4, 1, &o);
    assert_int_equal(o.rc, MGS_OK);
    uint64_t lo = UINT64_MAX, hi = 0, sum = 0;
    for (int g = 0; g < 4; g++) {
        lo = o.wgs[g] < lo ? o.wgs[g] : lo;
        hi = o.wgs[g] > hi ? o.wgs[g] : hi;
        sum += o.wgs[g];
    }
    assert_true(lo > 0);
    assert_true(hi - lo <= o.totals.kernels);
    assert_int_equal(sum, o.totals.workgroups);
    assert_true(remote_parts(&o) > 0);
    for (int g = 0; g < 4; g++) {
        char comp[32];
        snprintf(comp, sizeof comp, "GPU[%d].CP", g);
        assert_true(stat_sum(&o, comp, "workgroups") == (double)o.wgs[g]);
    }
    run_free(&o);
}

/* Monolithic x4: one chip with 16 CUs, 8 L2 banks and 8 DRAM channels;
** no second GPU, no RDMA, no network. */
static void test_monolithic_one_chip(void **state)
{
    (void)state;
    run_out o;
    run_wl("vecadd", "monolithic", 4, 1, &o);
    assert_int_equal(o.rc, MGS_OK);
    assert_true(stat_rows(&o, "GPU[0].L2[7]") > 0);
    assert_true(stat_rows(&o, "GPU[0].DRAM[7]") > 0);
    assert_true(stat_rows(&o, "GPU[0].SA[7].CU[1]") > 0);
    assert_int_equal(stat_rows(&o, "GPU[0].L2[8]"), 0);
    assert_int_equal(stat_rows(&o, "GPU[1]"), 0);
    assert_int_equal(stat_rows(&o, "RDMA"), 0);
    assert_int_equal(o.wgs[0], o.totals.workgroups);
    run_free(&o);
}

/* mm x4 (remote-heavy: every GPU reads all of B): the shared-memory
** platform, where every L2 reaches every stack through the 1 TB/s switch
** complex, finishes before discrete GPUs that fetch remote lines over
** PCIe; its memory traffic crosses the switch complex and the stacks. */
static void test_shared_faster_than_rdma(void **state)
{
    (void)state;
    run_out d, s;
    run_wl("mm", "discrete", 4, 0, &d);
    run_wl("mm", "shared", 4, 0, &s);
    assert_int_equal(d.rc, MGS_OK);
    assert_int_equal(s.rc, MGS_OK);
    assert_true(remote_parts(&d) > 0);
    assert_int_equal(stat_rows(&s, "RDMA"), 0);
    assert_true(stat_sum(&s, "SwitchComplex.Link", "a_to_b.payload_bytes") >
                0);
    assert_true(stat_rows(&s, "Stack[3].DRAM[1]") > 0);
    assert_true(s.totals.sim_time_ps < d.totals.sim_time_ps);
    run_free(&d);
    run_free(&s);
}

typedef struct stat_dump {
    double sum;               /* of every value */
    uint64_t hash;            /* of names and values, in order */
    size_t rows;
} stat_dump;

static void dump_row(const stat_row *r, void *ud)
{
    stat_dump *d = ud;
    d->rows++;
    d->sum += r->value;
    for (const char *c = r->component; *c; c++)
        d->hash = (d->hash ^ (uint8_t)*c) * 1099511628211ull;
    for (const char *c = r->metric; *c; c++)
        d->hash = (d->hash ^ (uint8_t)*c) * 1099511628211ull;
    uint64_t v;
    memcpy(&v, &r->value, sizeof v);
    d->hash = (d->hash ^ v) * 1099511628211ull;
}

/* Two identical 4-GPU runs with remote traffic give identical statistics
** (every component, network link and RDMA engine, in order). */
static void test_deterministic(void **state)
{
    (void)state;
    stat_dump d[2];
    for (int k = 0; k < 2; k++) {
        run_out o;
        run_wl("pr", "unified", 4, 1, &o);
        assert_int_equal(o.rc, MGS_OK);
        d[k] = (stat_dump){.hash = 14695981039346656037ull};
        stat_registry_foreach(o.st, 0, dump_row, &d[k]);
        assert_true(remote_parts(&o) > 0);
        run_free(&o);
    }
    assert_true(d[0].rows > 1000);
    assert_int_equal(d[0].rows, d[1].rows);
    assert_true(d[0].hash == d[1].hash);
}

/* Two vecadd launches of n elements, on GPUs g0 and g1 of a discrete
** 2-GPU runtime with platform.concurrent_launches, without a copy between
** them (the launches return at once; the copy back synchronises). Returns the simulated time
** and checks the results. */
static uint64_t two_launches(int g0, int g1)
{
    enum { N = 16384 };
    mgs_config cfg;
    mgs_config_defaults(&cfg);
    const char *sets[] = {"gpu.num_cus=4", "gpu.cus_per_sa=2",
                          "gpu.l2_banks=2", "tlb.l2_count=2",
                          "platform.concurrent_launches=true"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        assert_int_equal(mgs_config_set(&cfg, sets[i], "test"), MGS_OK);
    mgs_rt_options ro;
    mgs_rt_options_default(&ro);
    ro.mode = MGS_MODE_TIMING;
    ro.num_gpus = 2;
    ro.mem_per_gpu = 256ull << 20;
    ro.config = &cfg;
    mgs_rt *rt = NULL;
    assert_int_equal(mgs_rt_new(&ro, &rt), MGS_OK);
    char path[512];
    mgs_module *mod = NULL;
    mgs_kernel *k = NULL;
    assert_int_equal(mgs_module_load(rt, wl_kernel_path("vecadd.hsaco", path,
                                                        sizeof path), &mod),
                     MGS_OK);
    assert_int_equal(mgs_module_kernel(mod, "vecadd", &k), MGS_OK);
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
    }
    const int gpus[2] = {g0, g1};
    mgs_dptr d[2][3];
    for (int l = 0; l < 2; l++)
        for (int j = 0; j < 3; j++) {
            assert_int_equal(mgs_malloc(rt, gpus[l], sizeof a, &d[l][j]),
                             MGS_OK);
            if (j < 2)
                assert_int_equal(mgs_memcpy_h2d(rt, d[l][j], j ? b : a,
                                                sizeof a), MGS_OK);
        }
    uint8_t args[64] = {0};
    for (int l = 0; l < 2; l++) {
        uint32_t off, size, n = N;
        for (int j = 0; j < 3; j++) {
            assert_int_equal(mgs_kernel_arg_offset(k, j, &off, &size),
                             MGS_OK);
            memcpy(args + off, &d[l][j], 8);
        }
        assert_int_equal(mgs_kernel_arg_offset(k, 3, &off, &size), MGS_OK);
        memcpy(args + off, &n, 4);
        mgs_launch ln = {.grid = {N, 1, 1}, .block = {256, 1, 1},
                         .args = args, .args_size = off + 4,
                         .gpu = gpus[l]};
        assert_int_equal(mgs_launch_kernel(rt, k, &ln), MGS_OK);
    }
    for (int l = 0; l < 2; l++) {
        memset(c, 0, sizeof c);
        assert_int_equal(mgs_memcpy_d2h(rt, c, d[l][2], sizeof c), MGS_OK);
        for (int i = 0; i < N; i++)
            assert_true(c[i] == (float)(3 * i));
    }
    mgs_rt_totals t;
    mgs_rt_totals_get(rt, &t);
    assert_int_equal(t.kernels, 2);
    assert_int_equal(mgs_rt_gpu_workgroups(rt, 0) +
                         mgs_rt_gpu_workgroups(rt, 1), 2 * N / 256);
    assert_true(mgs_rt_gpu_workgroups(rt, g1) >= N / 256);
    mgs_rt_free(rt);
    return t.sim_time_ps;
}

/* Launches on different discrete GPUs overlap in simulated time; two on
** the same GPU run one after the other. */
static void test_discrete_launches_overlap(void **state)
{
    (void)state;
    uint64_t same = two_launches(0, 0), apart = two_launches(0, 1);
    print_message("two launches: same GPU %.3f us, two GPUs %.3f us\n",
                  same / 1e6, apart / 1e6);
    assert_true(apart * 10 < same * 7);
}

/* The default crossbar carries one line and its 8-byte header per cycle
** per port (xbar.bytes_per_cycle = 72): with 64-byte ports a line took two
** cycles, halving what the L2 banks could return (issue 13). */
static void test_default_xbar_line_per_cycle(void **state)
{
    (void)state;
    mgs_config cfg;
    mgs_config_defaults(&cfg);
    gpu_build_config g;
    gpu_build_config_from(&g, &cfg);
    uint32_t msg = g.l2.line + 8;
    assert_int_equal((msg + g.xbar.bytes_per_cycle - 1) /
                         g.xbar.bytes_per_cycle, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_discrete_partitioned_no_rdma),
        cmocka_unit_test(test_discrete_gather_remote_reads),
        cmocka_unit_test(test_unified_chunks),
        cmocka_unit_test(test_monolithic_one_chip),
        cmocka_unit_test(test_shared_faster_than_rdma),
        cmocka_unit_test(test_discrete_launches_overlap),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_all_platforms_verify),
        cmocka_unit_test(test_default_xbar_line_per_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
