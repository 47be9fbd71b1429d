/*
** Timed copies (src/runtime/runtime.c + timing.c, the DMA engines wired
** by src/platform/platform.c). Checked:
**   - a 1 MiB h2d / d2h on a discrete 2-GPU platform over PCIe 4.0 takes
**     what the link model predicts (±10 %), PCIe 3.0 about twice as long;
**     copy_time_ps reports it (h2d: plus the L2 write-back of the copied
**     lines) and sim_time_ps (the kernels') stays 0;
**   - bytes round-trip h2d -> d2h bit-exact at odd offsets, for a buffer
**     on one GPU, one spread over GPUs (MGS_GPU_ALL), and through a peer
**     d2d between GPUs (which the statistics show went over RDMA);
**   - bursts (the default) keep a copy's time, also when 4 engines copy
**     over one host link at once, and a burst over several L2 banks goes
**     to each as one request (device runs);
**   - coherence: a kernel after an h2d reads the new data, a d2h after a
**     kernel reads its results, twice in a row (stale L2 lines would show),
**     on 1 and 2 discrete GPUs, chunk by chunk and with device-side copy
**     bursts;
**   - unified, monolithic, shared and links platforms: the same, with the
**     host tree of their own where RDMA does not share one (none on
**     shared);
**   - platform.host_link: pcie4 or 32GB/s on a PCIe 3.0 platform copies at
**     the PCIe 4.0 time over a HostPCIe tree of its own; a bad value fails
**     with one error naming the key;
**   - shared (MGPU-SM): host copies take no time and cross no link (the
**     CPU shares the memory, seed 000 §5), d2d still uses the engines;
**   - platform.copy_timing = instant and emu mode: same data, copy time 0;
**   - an unmapped device address fails with MGS_EFAULT, no hang.
** Small GPUs (4 CUs) keep the kernel parts quick.
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

#define MIB (1u << 20)

typedef struct rt_env {
    mgs_config cfg;
    stat_registry *stats;
    mgs_rt *rt;
} rt_env;

/* A runtime of `gpus` GPUs of `platform` type; sets are "k=v" config
** assignments (NULL-terminated). */
static void env_new(rt_env *e, mgs_mode mode, int gpus, const char *platform,
                    const char *const *sets)
{
    memset(e, 0, sizeof *e);
    mgs_config_defaults(&e->cfg);
    assert_int_equal(mgs_config_set(&e->cfg, "gpu.num_cus=4", "test"),
                     MGS_OK);
    for (size_t i = 0; sets && sets[i]; i++)
        assert_int_equal(mgs_config_set(&e->cfg, sets[i], "test"), MGS_OK);
    e->stats = stat_registry_new();
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.mode = mode;
    o.num_gpus = gpus;
    o.mem_per_gpu = 64ull << 20;
    o.platform = platform;
    o.config = &e->cfg;
    o.stats = e->stats;
    assert_int_equal(mgs_rt_new(&o, &e->rt), MGS_OK);
}

static void env_free(rt_env *e)
{
    mgs_rt_free(e->rt);
    stat_registry_free(e->stats);
}

typedef struct stat_query {
    const char *component, *metric;
    double sum;
} stat_query;

static void sum_row(const stat_row *row, void *ud)
{
    stat_query *q = ud;
    if (!strcmp(row->component, q->component) &&
        !strcmp(row->metric, q->metric))
        q->sum += row->value;
}

static double stat_of(rt_env *e, const char *component, const char *metric)
{
    stat_query q = {component, metric, 0};
    stat_registry_foreach(e->stats, 0, sum_row, &q);
    return q.sum;
}

static void fill_random(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

static void check_ok(int rc, const char *what)
{
    if (rc != MGS_OK)
        fail_msg("%s: %s", what, mgs_error_msg());
}

/* Times of one 1 MiB h2d and d2h with GPU 0 of a discrete 2-GPU
** platform: what the runtime reports (copy_time_ps deltas) and what the
** DMA engine measured from command to last byte (its copy_time_total). */
typedef struct copy_times {
    uint64_t h2d, d2h;          /* copy_time_ps: transfer + L2 write-back */
    uint64_t h2d_dma, d2h_dma;  /* the DMA engine's transfer alone */
} copy_times;

static copy_times copy_time_1mib(int pcie, const char *extra)
{
    char ver[64];
    snprintf(ver, sizeof ver, "platform.pcie_version=%d", pcie);
    const char *sets[] = {ver, extra, NULL};
    rt_env e;
    env_new(&e, MGS_MODE_TIMING, 2, "discrete", sets);
    copy_times ct;
    uint8_t *buf = malloc(MIB), *want = malloc(MIB);
    fill_random(buf, MIB, 7);
    memcpy(want, buf, MIB);
    mgs_dptr d;
    check_ok(mgs_malloc(e.rt, 0, MIB, &d), "malloc");
    check_ok(mgs_memcpy_h2d(e.rt, d, buf, MIB), "h2d");
    mgs_rt_totals t;
    mgs_rt_totals_get(e.rt, &t);
    ct.h2d = t.copy_time_ps;
    ct.h2d_dma = (uint64_t)stat_of(&e, "GPU[0].DMA", "copy_time_total");
    assert_int_equal(t.sim_time_ps, 0);       /* no kernel ran */
    assert_int_equal(t.copies, 1);
    assert_int_equal(t.copy_bytes, MIB);
    assert_int_equal(stat_of(&e, "GPU[0].DMA", "bytes_h2d"), MIB);
    memset(buf, 0, MIB);
    check_ok(mgs_memcpy_d2h(e.rt, buf, d, MIB), "d2h");
    mgs_rt_totals_get(e.rt, &t);
    ct.d2h = t.copy_time_ps - ct.h2d;
    ct.d2h_dma = (uint64_t)stat_of(&e, "GPU[0].DMA", "copy_time_total") -
                 ct.h2d_dma;
    assert_memory_equal(buf, want, MIB);
    printf("# PCIe %d.0, 1 MiB: h2d %.3f us (DMA %.3f us), d2h %.3f us "
           "(DMA %.3f us)\n", pcie, (double)ct.h2d * 1e-6,
           (double)ct.h2d_dma * 1e-6, (double)ct.d2h * 1e-6,
           (double)ct.d2h_dma * 1e-6);
    free(want);
    free(buf);
    env_free(&e);
    return ct;
}

/* The link model's time for 1 MiB (noc.h): 64-byte chunks, each a 72-byte
** message (8-byte memory header) in one PCIe packet with a 24-byte TLP
** header, so 96 wire bytes per 64 payload bytes (67 % efficiency) on the
** busy direction, plus one round trip GPU -> host memory -> GPU (3 links
** of 20 ns and 2 switches of 140 ns each way, 100 ns host memory). */
static double predicted_ps(double bw_bytes_per_s)
{
    double chunks = MIB / 64.0;
    double stream = chunks * 96.0 / bw_bytes_per_s * 1e12;
    double rtt = 2 * (3 * 20e3 + 2 * 140e3) + 100e3;
    return stream + rtt;
}

static bool within(double v, double want, double tol)
{
    return v > want * (1 - tol) && v < want * (1 + tol);
}

/* Tolerance 10 %. The DMA engine's transfer matches the link model in
** both directions; the runtime's d2h time adds only the flush of clean L2
** lines; its h2d time adds the write-back of the 1 MiB the engine left
** dirty in the L2s (bounded here by half the transfer). */
static void test_h2d_time_pcie4(void **state)
{
    (void)state;
    copy_times c4 = copy_time_1mib(4, NULL), c3 = copy_time_1mib(3, NULL);
    double want4 = predicted_ps(32e9), want3 = predicted_ps(16e9);
    printf("# predicted transfer: PCIe 4.0 %.3f us, PCIe 3.0 %.3f us\n",
           want4 * 1e-6, want3 * 1e-6);
    assert_true(within((double)c4.h2d_dma, want4, 0.10));
    assert_true(within((double)c4.d2h_dma, want4, 0.10));
    assert_true(within((double)c4.d2h, want4, 0.10));
    assert_true(c4.h2d > c4.h2d_dma && c4.h2d < 1.5 * want4);
    assert_true(within((double)c3.h2d_dma, want3, 0.10));
    assert_true(within((double)c3.d2h, want3, 0.10));
    double ratio = (double)c3.h2d_dma / (double)c4.h2d_dma;
    assert_true(ratio > 1.8 && ratio < 2.1);
}

/* Bursts (platform.copy_burst=4KB; the default 8KB moves the same bursts
** below 2 MiB: test_device_runs has 4 MiB) are a speed-up of the
** simulation only: against every chunk its own message (0) an h2d copy
** takes the same time within 0.05 % on PCIe 3.0 and 6.0, a d2h copy the
** same on PCIe 3.0 and less than 1 % more on 6.0 (a burst's host write
** waits for all its device reads, which a 128 GB/s link can outrun). */
static void test_bursts_keep_copy_time(void **state)
{
    (void)state;
    for (int pcie = 3; pcie <= 6; pcie += 3) {
        copy_times b = copy_time_1mib(pcie, "platform.copy_burst=4KB");
        copy_times c = copy_time_1mib(pcie, "platform.copy_burst=0");
        /* Device-side bursts (one L2 request per 4 KiB, written once its
        ** last part came) move an h2d by 3 ns of 99 us on PCIe 3.0 and
        ** 0.5 % on PCIe 6.0. */
        double tol = pcie == 3 ? 0.0005 : 0.01;
        assert_true(within((double)b.h2d_dma, (double)c.h2d_dma, tol));
        assert_true(within((double)b.h2d, (double)c.h2d, tol));
        assert_true(within((double)b.d2h_dma, (double)c.d2h_dma, tol));
        assert_true(within((double)b.d2h, (double)c.d2h, tol));
    }
}

/* Copy time of vecadd's copies (two h2d and one d2h of 256 KiB) into
** buffers spread over 4 unified GPUs: each engine copies its GPU's 64
** KiB at the same time as the others, over the shared host link. */
static uint64_t spread_copy_time(const char *burst)
{
    const char *sets[] = {burst, NULL};
    rt_env e;
    env_new(&e, MGS_MODE_TIMING, 4, "unified", sets);
    const size_t n = 256u << 10;
    uint8_t *buf = malloc(n), *back = malloc(n);
    fill_random(buf, n, 11);
    mgs_dptr a, b;
    check_ok(mgs_malloc(e.rt, MGS_GPU_ALL, n, &a), "malloc a");
    check_ok(mgs_malloc(e.rt, MGS_GPU_ALL, n, &b), "malloc b");
    check_ok(mgs_memcpy_h2d(e.rt, a, buf, n), "h2d a");
    check_ok(mgs_memcpy_h2d(e.rt, b, buf, n), "h2d b");
    check_ok(mgs_memcpy_d2h(e.rt, back, a, n), "d2h a");
    assert_memory_equal(back, buf, n);
    mgs_rt_totals t;
    mgs_rt_totals_get(e.rt, &t);
    free(buf);
    free(back);
    env_free(&e);
    return t.copy_time_ps;
}

/* Engines that copy at once share the host link burst by burst; the one
** whose last bursts come last ends its copy alone. A command therefore
** goes in at least 256 bursts (dma_config.min_bursts): with whole 4 KiB
** bursts these copies took 3.8 % longer than chunk by chunk, with the
** bound 0.23 %. */
static void test_bursts_share_links_fairly(void **state)
{
    (void)state;
    double chunks = (double)spread_copy_time("platform.copy_burst=0");
    double bursts = (double)spread_copy_time("platform.copy_burst=4KB");
    printf("# 4 unified GPUs, 3 x 256 KiB: %.3f us chunk by chunk, %.3f us "
           "in bursts\n", chunks * 1e-6, bursts * 1e-6);
    assert_true(within(bursts, chunks, 0.01));
}

/* h2d then d2h of n bytes at device offset off into buffer d. */
static void round_trip(rt_env *e, mgs_dptr d, size_t off, size_t n,
                       uint32_t seed)
{
    uint8_t *in = malloc(n), *out = malloc(n);
    fill_random(in, n, seed);
    memset(out, 0xee, n);
    check_ok(mgs_memcpy_h2d(e->rt, d + off, in, n), "h2d");
    check_ok(mgs_memcpy_d2h(e->rt, out, d + off, n), "d2h");
    assert_memory_equal(in, out, n);
    free(in);
    free(out);
}

static void test_round_trip_placements(void **state)
{
    (void)state;
    rt_env e;
    env_new(&e, MGS_MODE_TIMING, 2, "discrete", NULL);
    mgs_dptr on1, all, peer;
    size_t n = 256 * 1024 + 77;
    check_ok(mgs_malloc(e.rt, 1, n + 64, &on1), "malloc gpu 1");
    check_ok(mgs_malloc(e.rt, MGS_GPU_ALL, n + 64, &all), "malloc all");
    check_ok(mgs_malloc(e.rt, 0, n + 64, &peer), "malloc gpu 0");
    assert_int_not_equal(mgs_rt_gpu_of(e.rt, all),
                         mgs_rt_gpu_of(e.rt, all + n));
    round_trip(&e, on1, 3, n, 1);
    round_trip(&e, all, 5, n, 2);
    /* Each engine served its own GPU's pages of the spread buffer. */
    assert_true(stat_of(&e, "GPU[0].DMA", "bytes_h2d") > n / 3);
    assert_true(stat_of(&e, "GPU[1].DMA", "bytes_h2d") > n);
    /* Peer: GPU 1's buffer into GPU 0's, by GPU 1's engine over RDMA. */
    check_ok(mgs_memcpy_d2d(e.rt, peer + 1, on1 + 3, n), "d2d peer");
    assert_int_equal(stat_of(&e, "GPU[1].DMA", "bytes_peer"), n);
    assert_true(stat_of(&e, "GPU[1].RDMA", "out_writes") > 0);
    uint8_t *want = malloc(n), *got = malloc(n);
    fill_random(want, n, 1);
    check_ok(mgs_memcpy_d2h(e.rt, got, peer + 1, n), "d2h peer");
    assert_memory_equal(want, got, n);
    /* Overlapping d2d (memmove through a host bounce). */
    check_ok(mgs_memcpy_d2d(e.rt, peer + 1 + 100, peer + 1, n - 100),
             "d2d overlap");
    check_ok(mgs_memcpy_d2h(e.rt, got, peer + 1 + 100, n - 100), "d2h");
    assert_memory_equal(want, got, n - 100);
    mgs_rt_totals t;
    mgs_rt_totals_get(e.rt, &t);
    assert_true(t.copy_time_ps > 0);
    assert_int_equal(t.sim_time_ps, 0);
    free(want);
    free(got);
    env_free(&e);
}

/* vecadd c = a + b on GPU gpu, data copied in, result copied out, twice
** with different inputs in the same buffers. */
static void vecadd_twice(rt_env *e, int gpu)
{
    char path[512];
    snprintf(path, sizeof path, "%s/vecadd.hsaco", MGS_KERNEL_DIR);
    mgs_module *m;
    mgs_kernel *k;
    check_ok(mgs_module_load(e->rt, path, &m), "module");
    check_ok(mgs_module_kernel(m, "vecadd", &k), "kernel");
    enum { N = 8192 };
    float *a = malloc(N * 4), *b = malloc(N * 4), *c = malloc(N * 4);
    mgs_dptr da, db, dc;
    check_ok(mgs_malloc(e->rt, gpu, N * 4, &da), "malloc");
    check_ok(mgs_malloc(e->rt, gpu, N * 4, &db), "malloc");
    check_ok(mgs_malloc(e->rt, gpu, N * 4, &dc), "malloc");
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < N; i++) {
            a[i] = (float)(i + round * 1000);
            b[i] = (float)(3 * i + 7 * round);
        }
        check_ok(mgs_memcpy_h2d(e->rt, da, a, N * 4), "h2d a");
        check_ok(mgs_memcpy_h2d(e->rt, db, b, N * 4), "h2d b");
        uint8_t args[32] = {0};
        uint32_t off, size, n = N;
        mgs_dptr ptrs[3] = {da, db, dc};
        for (int i = 0; i < 3; i++) {
            check_ok(mgs_kernel_arg_offset(k, i, &off, &size), "arg");
            memcpy(args + off, &ptrs[i], 8);
        }
        check_ok(mgs_kernel_arg_offset(k, 3, &off, &size), "arg");
        memcpy(args + off, &n, 4);
        mgs_launch l = {.grid = {N, 1, 1}, .block = {256, 1, 1},
                        .args = args, .args_size = off + 4, .gpu = gpu};
        check_ok(mgs_launch_kernel(e->rt, k, &l), "launch");
        memset(c, 0, N * 4);
        check_ok(mgs_memcpy_d2h(e->rt, c, dc, N * 4), "d2h c");
        for (int i = 0; i < N; i++)
            if (c[i] != a[i] + b[i])
                fail_msg("round %d: c[%d] = %g, want %g", round, i, c[i],
                         a[i] + b[i]);
    }
    free(a);
    free(b);
    free(c);
}

static void test_coherence_1gpu(void **state)
{
    (void)state;
    const char *sets[] = {"platform.copy_burst=0", NULL}; /* bursts: below */
    rt_env e;
    env_new(&e, MGS_MODE_TIMING, 1, "discrete", sets);
    vecadd_twice(&e, 0);
    mgs_rt_totals t;
    mgs_rt_totals_get(e.rt, &t);
    assert_int_equal(t.kernels, 2);
    assert_int_equal(t.copies, 6);
    assert_true(t.copy_time_ps > 0 && t.sim_time_ps > 0);
    /* 1 GPU: the host link is a PCIe tree of its own. */
    assert_true(stat_of(&e, "HostPCIe.Link[0]", "b_to_a.payload_bytes") +
                    stat_of(&e, "HostPCIe.Link[0]", "a_to_b.payload_bytes") >
                0);
    env_free(&e);
}

/* Device runs (dma.c device_run): a burst's device side goes as one
** request per L2 bank its lines lie in. 4 MiB at 2 KiB into a buffer in
** 8 KiB bursts: after the ramp each burst covers 2 KiB of one bank, 4 KiB
** of the next and 2 KiB of a third (4 KiB of l2.interleave), so three
** requests, where before runs every line of such a burst went alone. The
** bytes round-trip and the copies take the time they take chunk by
** chunk. */
static void test_device_runs(void **state)
{
    (void)state;
    const size_t n = 4 * MIB, off = 2048;
    const char *burst[2] = {"platform.copy_burst=0", "platform.copy_burst=8KB"};
    double time[2], runs = 0;
    for (int k = 0; k < 2; k++) {
        const char *sets[] = {burst[k], NULL};
        rt_env e;
        env_new(&e, MGS_MODE_TIMING, 1, "discrete", sets);
        mgs_dptr d;
        check_ok(mgs_malloc(e.rt, 0, n + off, &d), "malloc");
        round_trip(&e, d, off, n, 5);
        mgs_rt_totals t;
        mgs_rt_totals_get(e.rt, &t);
        time[k] = (double)t.copy_time_ps;
        runs = stat_of(&e, "GPU[0].DMA", "device_bursts");
        env_free(&e);
    }
    printf("# 4 MiB at 2 KiB, each way: %.3f us chunk by chunk, %.3f us in "
           "8 KiB bursts, %.0f device runs\n", time[0] * 1e-6, time[1] * 1e-6,
           runs);
    /* About 510 full bursts each way, 3 runs each, and the ramps' short
    ** bursts, one or two runs each (a run of one line is a plain request
    ** and not counted): 3,088. */
    assert_true(runs >= 2 * 3 * 500 && runs <= 2 * (3 * 512 + 32));
    assert_true(within(time[1], time[0], 0.001));
}

/* Device-side bursts (dma.h device_bursts) against lines the L2 holds:
** round 2's h2d must update the L2's copies of a and b (the kernel of
** round 1 left them there), and each d2h must read c's lines the kernel
** left dirty in the L2, not the stale DRAM; on 1 GPU (the L2 is kept
** across kernels) and 2 (written back and dropped at kernel end). */
static void test_coherence_bursts(void **state)
{
    (void)state;
    const char *sets[] = {"platform.copy_burst=4KB", NULL};
    for (int gpus = 1; gpus <= 2; gpus++) {
        rt_env e;
        env_new(&e, MGS_MODE_TIMING, gpus, "discrete", sets);
        vecadd_twice(&e, gpus - 1);
        char dma[32];
        snprintf(dma, sizeof dma, "GPU[%d].DMA", gpus - 1);
        /* 6 copies of 32 KiB, each in at least 256 bursts
        ** (dma_config.min_bursts): 2-chunk bursts after the ramps. */
        assert_true(stat_of(&e, dma, "device_bursts") >= 6 * 200);
        env_free(&e);
    }
}

static void test_coherence_2gpu(void **state)
{
    (void)state;
    const char *sets[] = {"platform.copy_burst=0", NULL}; /* bursts: below */
    rt_env e;
    env_new(&e, MGS_MODE_TIMING, 2, "discrete", sets);
    vecadd_twice(&e, 1);
    assert_int_equal(stat_of(&e, "GPU[1].DMA", "bytes_d2h"), 2 * 8192 * 4);
    env_free(&e);
}

/* Instant copies and emu mode: same bytes, no copy time. */
static void test_instant_and_emu(void **state)
{
    (void)state;
    const char *instant[] = {"platform.copy_timing=instant", NULL};
    rt_env e;
    for (int v = 0; v < 2; v++) {
        env_new(&e, v ? MGS_MODE_EMU : MGS_MODE_TIMING, 2, "discrete",
                v ? NULL : instant);
        mgs_dptr d;
        check_ok(mgs_malloc(e.rt, MGS_GPU_ALL, 64 * 1024, &d), "malloc");
        round_trip(&e, d, 9, 60000, 3);
        vecadd_twice(&e, 0);
        mgs_rt_totals t;
        mgs_rt_totals_get(e.rt, &t);
        assert_int_equal(t.copy_time_ps, 0);
        assert_int_equal(t.copies, 8);
        assert_int_equal(t.copy_bytes, 2 * 60000 + 6 * 8192 * 4);
        assert_int_equal(stat_of(&e, "GPU[0].DMA", "copies"), 0);
        env_free(&e);
    }
}

/* The other platform types and the links interconnect: copies round-trip
** (spread buffer, d2d between GPUs), take time, and a kernel sees them. */
static void test_other_platforms(void **state)
{
    (void)state;
    const char *types[] = {"unified", "monolithic", "shared", "discrete"};
    const char *links[] = {"platform.interconnect=links", NULL};
    for (int i = 0; i < 4; i++) {
        rt_env e;
        env_new(&e, MGS_MODE_TIMING, 2, types[i], i == 3 ? links : NULL);
        size_t n = 40000;
        mgs_dptr all, on1;
        check_ok(mgs_malloc(e.rt, MGS_GPU_ALL, n, &all), "malloc all");
        check_ok(mgs_malloc(e.rt, 1, n, &on1), "malloc gpu 1");
        round_trip(&e, all, 0, n, 10 + (uint32_t)i);
        check_ok(mgs_memcpy_d2d(e.rt, on1, all, n), "d2d");
        uint8_t *want = malloc(n), *got = malloc(n);
        fill_random(want, n, 10 + (uint32_t)i);
        check_ok(mgs_memcpy_d2h(e.rt, got, on1, n), "d2h");
        assert_memory_equal(want, got, n);
        vecadd_twice(&e, i == 1 ? 0 : 1);
        mgs_rt_totals t;
        mgs_rt_totals_get(e.rt, &t);
        assert_true(t.copy_time_ps > 0);
        /* Only discrete/unified over a PCIe tree share it with RDMA;
        ** shared has no host link at all. */
        double host_tree = stat_of(&e, "HostPCIe.Link[0]",
                                   "a_to_b.payload_bytes");
        if (i == 0 || i == 2)
            assert_true(host_tree == 0);
        else
            assert_true(host_tree > 0);
        free(want);
        free(got);
        env_free(&e);
    }
}

/* platform.host_link overrides pcie_version for the host copies only: a
** PCIe 3.0 platform with a PCIe 4.0 (or 32 GB/s) host link copies in the
** PCIe 4.0 time, over a HostPCIe tree of its own, while the GPUs keep
** their PCIe 3.0 tree; a bad value is one error naming the key. */
static void test_host_link(void **state)
{
    (void)state;
    double want4 = predicted_ps(32e9);
    copy_times v4 = copy_time_1mib(3, "platform.host_link=pcie4");
    copy_times bw = copy_time_1mib(3, "platform.host_link=32GB/s");
    copy_times v3 = copy_time_1mib(3, "platform.host_link=auto");
    assert_true(within((double)v4.h2d_dma, want4, 0.10));
    assert_true(within((double)v4.d2h_dma, want4, 0.10));
    assert_int_equal(bw.h2d_dma, v4.h2d_dma);
    assert_true(within((double)v3.h2d_dma, predicted_ps(16e9), 0.10));

    const char *sets[] = {"platform.host_link=pcie4", NULL};
    rt_env e;
    env_new(&e, MGS_MODE_TIMING, 2, "discrete", sets);
    mgs_dptr d;
    check_ok(mgs_malloc(e.rt, 1, 4096, &d), "malloc");
    uint8_t buf[4096] = {1};
    check_ok(mgs_memcpy_h2d(e.rt, d, buf, sizeof buf), "h2d");
    assert_true(stat_of(&e, "HostPCIe.Link[0]", "a_to_b.payload_bytes") > 0);
    assert_true(stat_of(&e, "PCIe.Link[0]", "a_to_b.payload_bytes") == 0);
    env_free(&e);

    const char *bad[] = {"pcie7", "fast", "0GB/s"};
    for (int i = 0; i < 3; i++) {
        char set[64];
        snprintf(set, sizeof set, "platform.host_link=%s", bad[i]);
        const char *s1[] = {set, NULL};
        env_new(&e, MGS_MODE_TIMING, 2, "discrete", s1);
        check_ok(mgs_malloc(e.rt, 0, 4096, &d), "malloc");
        assert_int_equal(mgs_memcpy_h2d(e.rt, d, buf, sizeof buf),
                         MGS_ECONFIG);
        assert_non_null(strstr(mgs_error_msg(), "platform.host_link"));
        assert_null(strchr(mgs_error_msg(), '\n'));
        env_free(&e);
    }
}

/* Shared memory (MGPU-SM): the CPU and the GPUs share one memory, so a
** host copy is a hand-off: no simulated time, no DMA host traffic, no
** host link at all; the bytes are there for a kernel and come back.
** A device-to-device copy still moves bytes through the engines. */
static void test_shared_host_copies(void **state)
{
    (void)state;
    rt_env e;
    env_new(&e, MGS_MODE_TIMING, 2, "shared", NULL);
    size_t n = MIB;
    uint8_t *in = malloc(n), *out = malloc(n);
    fill_random(in, n, 21);
    mgs_dptr all, on1;
    check_ok(mgs_malloc(e.rt, MGS_GPU_ALL, n, &all), "malloc all");
    check_ok(mgs_malloc(e.rt, 1, n, &on1), "malloc gpu 1");
    check_ok(mgs_memcpy_h2d(e.rt, all, in, n), "h2d");
    check_ok(mgs_memcpy_d2h(e.rt, out, all, n), "d2h");
    assert_memory_equal(in, out, n);
    mgs_rt_totals t;
    mgs_rt_totals_get(e.rt, &t);
    assert_int_equal(t.copy_time_ps, 0);
    assert_int_equal(t.copies, 2);
    assert_int_equal(stat_of(&e, "GPU[0].DMA", "bytes_h2d") +
                         stat_of(&e, "GPU[1].DMA", "bytes_h2d"), 0);
    assert_true(stat_of(&e, "HostPCIe.Link[0]", "a_to_b.payload_bytes") ==
                0);
    assert_true(stat_of(&e, "Host.Memory", "reads") == 0);
    check_ok(mgs_memcpy_d2d(e.rt, on1, all, n), "d2d");
    mgs_rt_totals_get(e.rt, &t);
    assert_true(t.copy_time_ps > 0);
    double d2d = 0;
    for (int g = 0; g < 2; g++) {
        char dma[32];
        snprintf(dma, sizeof dma, "GPU[%d].DMA", g);
        d2d += stat_of(&e, dma, "bytes_d2d") + stat_of(&e, dma, "bytes_peer");
    }
    assert_true(d2d == (double)n);
    memset(out, 0, n);
    check_ok(mgs_memcpy_d2h(e.rt, out, on1, n), "d2h");
    assert_memory_equal(in, out, n);
    vecadd_twice(&e, 1);
    free(in);
    free(out);
    env_free(&e);
}

static void test_unmapped_fails(void **state)
{
    (void)state;
    rt_env e;
    env_new(&e, MGS_MODE_TIMING, 1, "discrete", NULL);
    mgs_dptr d;
    check_ok(mgs_malloc(e.rt, 0, 4096, &d), "malloc");
    uint8_t buf[8192] = {0};
    assert_int_equal(mgs_memcpy_h2d(e.rt, d, buf, sizeof buf), MGS_EFAULT);
    assert_int_equal(mgs_memcpy_d2h(e.rt, buf, d + (1ull << 30), 16),
                     MGS_EFAULT);
    check_ok(mgs_memcpy_h2d(e.rt, d, buf, 4096), "h2d after a fault");
    env_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h2d_time_pcie4),
        cmocka_unit_test(test_bursts_keep_copy_time),
        cmocka_unit_test(test_bursts_share_links_fairly),
        cmocka_unit_test(test_round_trip_placements),
        cmocka_unit_test(test_coherence_1gpu),
        cmocka_unit_test(test_coherence_2gpu),
        cmocka_unit_test(test_coherence_bursts),
        cmocka_unit_test(test_device_runs),
        cmocka_unit_test(test_instant_and_emu),
        cmocka_unit_test(test_other_platforms),
        cmocka_unit_test(test_host_link),
        cmocka_unit_test(test_shared_host_copies),
        cmocka_unit_test(test_unmapped_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
