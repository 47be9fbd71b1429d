/*
** Timing microbenchmarks (seed 002 §5.2.7): ALU chain, L1 vector cache hit
** latency, L2 hit latency, DRAM latency and DRAM bandwidth, each as a
** workload (`mgsim run micro_l1 --mode timing -v`).
**
** Method: every benchmark runs its kernel twice with a different amount of
** work (A and B) and reports the difference in simulated kernel time
** divided by the difference in work, so the fixed costs of a launch (L1
** invalidation, dispatch, the L2 flush at the end, the loop prologue)
** cancel. Kernel time is the runtime's simulated time (mgs_rt_totals),
** which only timing mode advances; emu mode verifies the values and
** reports no timing.
**   micro_alu   one wavefront, 16 dependent v_add_f32 per loop iteration:
**               ns per v_add_f32
**   micro_l1    one work-item chases a self-loop (every load reads the same
**               address): ns per L1V hit
**   micro_l2    one work-item chases a ring of `lines` 64-byte lines (larger
**               than the L1V, smaller than the L2) for 2 and then 4 passes:
**               the extra passes are L1 misses that hit in L2
**   micro_dram  one work-item chases a cold ring once (the L2 is flushed
**               and invalidated at every kernel end), with `lines` and 3 x
**               `lines` lines: ns per DRAM access (row hits; one page walk
**               per 64 lines included)
**   micro_bw    256 x 256 work-items stream `mb` and 3 x `mb` MB: GB/s
** The line "<name>: <value> <unit> per ..." goes to stderr with -v;
** tests/cli/timing_micro.sh checks them against the configuration.
** Verification: the chase's final index, the ALU sum and the stream
** checksums equal the CPU reference (bit-exact).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t sim_now(mgs_rt *rt)
{
    mgs_rt_totals t;
    mgs_rt_totals_get(rt, &t);
    return t.sim_time_ps;
}

/* Leaves GPU 0's L2 without any line of the benchmark's buffers: a kernel
** streams through EVICT_BYTES of other lines. Needed since the L2 keeps
** its lines from kernel to kernel (docs/coherence.md): DRAM benchmarks
** must start cold; copies cannot do it, since they go past the L2
** (platform.copy_allocates_l2 = false). assumed: 4 MiB, twice the R9
** Nano's 2 MiB L2 (true LRU then keeps none of the earlier lines). */
enum { EVICT_BYTES = 4 << 20 };

/* Opens c on the streaming kernel (micro_bw's, also the L2 eviction). */
static int stream_open(wl_ctx *c, mgs_rt *rt, const wl_args *a,
                       mgs_kernel **k)
{
    int rc = wl_ctx_open(c, rt, a, "micro_stream.hsaco");
    if (!rc)
        rc = wl_kernel(c, "micro_stream", k);
    return rc;
}

static int evict_l2(mgs_rt *rt, const wl_args *a)
{
    const uint32_t threads = 256 * 256;
    wl_ctx e;
    mgs_kernel *k = NULL;
    int rc = stream_open(&e, rt, a, &k);
    mgs_dptr d = 0, out = 0;
    if (!rc)
        rc = wl_alloc(&e, 0, EVICT_BYTES, &d);
    if (!rc)
        rc = wl_alloc(&e, 0, threads * 4, &out);
    if (!rc)
        rc = wl_launch1(&e, k, 0, threads, 256, "pup", d,
                        (uint32_t)(EVICT_BYTES / 16), out);
    if (!rc)
        rc = mgs_synchronize(rt);
    wl_ctx_close(&e);
    return rc;
}

/* One chase of `iters` steps over next[0..n) from index 0: checks the
** result and returns the kernel's simulated time in *ps. */
static int chase(wl_ctx *c, mgs_kernel *k, mgs_dptr dnext, const uint32_t *next,
                 uint32_t iters, uint64_t *ps)
{
    mgs_dptr dout;
    int rc = wl_alloc(c, 0, 4, &dout);
    uint64_t t0 = sim_now(c->rt);
    if (!rc)
        rc = wl_launch1(c, k, 0, 1, 1, "pup", dnext, iters, dout);
    if (!rc) /* launches are asynchronous: the time is known after a sync */
        rc = mgs_synchronize(c->rt);
    *ps = sim_now(c->rt) - t0;
    uint32_t got = 0, want = 0;
    if (!rc)
        rc = wl_download(c, &got, dout, 4);
    for (uint32_t i = 0; i < iters; i++)
        want = next[want];
    if (!rc && got != want)
        rc = mgs_error_set(MGS_EVERIFY, "micro chase: final index %u, "
                           "expected %u", got, want);
    return rc;
}

/* Ring of `lines` 64-byte lines: element 16*i points at line i+1. */
static uint32_t *ring(uint32_t lines, size_t *n)
{
    *n = (size_t)lines * 16;
    uint32_t *next = mgs_xcalloc(*n, 4);
    for (uint32_t i = 0; i < lines; i++)
        next[(size_t)i * 16] = ((i + 1) % lines) * 16;
    return next;
}

static void report(const wl_args *a, const char *name, double v,
                   const char *unit, const char *what)
{
    if (a->verbose)
        fprintf(stderr, "%s: %.3f %s per %s\n", name, v, unit, what);
}

/* Runs chases A and B over next[] and reports (tB - tA) / (accB - accA). */
static int chase_pair(mgs_rt *rt, const wl_args *a, const char *name,
                      const uint32_t *next, size_t n, uint32_t ia,
                      uint32_t ib, const char *what, bool cold)
{
    wl_ctx c;
    mgs_kernel *k = NULL;
    int rc = wl_ctx_open(&c, rt, a, "micro_chase.hsaco");
    if (!rc)
        rc = wl_kernel(&c, "micro_chase", &k);
    mgs_dptr dnext = 0;
    if (!rc)
        rc = wl_upload(&c, 0, next, n * 4, &dnext);
    uint64_t ta = 0, tb = 0;
    if (!rc && cold)
        rc = evict_l2(rt, a);
    if (!rc)
        rc = chase(&c, k, dnext, next, ia, &ta);
    if (!rc && cold)
        rc = evict_l2(rt, a);
    if (!rc)
        rc = chase(&c, k, dnext, next, ib, &tb);
    if (!rc && tb)
        report(a, name, (double)(tb - ta) / 1000.0 / (double)(ib - ia), "ns",
               what);
    wl_ctx_close(&c);
    return rc;
}

enum { P_ITERS };

static int l1_run(mgs_rt *rt, const wl_args *a)
{
    uint32_t iters = (uint32_t)a->param[P_ITERS];
    if (iters < 1 || iters > (1u << 24))
        return mgs_error_set(MGS_EINVAL, "micro_l1: iters must be in "
                             "[1, 2^24]");
    uint32_t next[16] = {0}; /* next[0] = 0: the same address forever */
    return chase_pair(rt, a, "micro_l1", next, 16, iters, 3 * iters,
                      "L1V hit", false);
}

enum { P_LINES };

static int l2_run(mgs_rt *rt, const wl_args *a)
{
    int64_t lines = a->param[P_LINES];
    if (lines < 2 || lines > (1 << 20))
        return mgs_error_set(MGS_EINVAL, "micro_l2: lines must be in "
                             "[2, 2^20]");
    size_t n;
    uint32_t *next = ring((uint32_t)lines, &n);
    int rc = chase_pair(rt, a, "micro_l2", next, n, 2 * (uint32_t)lines,
                        4 * (uint32_t)lines, "L2 hit", false);
    free(next);
    return rc;
}

static int dram_run(mgs_rt *rt, const wl_args *a)
{
    int64_t lines = a->param[P_LINES];
    if (lines < 2 || lines > (1 << 20))
        return mgs_error_set(MGS_EINVAL, "micro_dram: lines must be in "
                             "[2, 2^20]");
    size_t n;
    uint32_t *next = ring(3 * (uint32_t)lines, &n);
    int rc = chase_pair(rt, a, "micro_dram", next, n, (uint32_t)lines,
                        3 * (uint32_t)lines, "DRAM access", true);
    free(next);
    return rc;
}

static int alu_run(mgs_rt *rt, const wl_args *a)
{
    uint32_t iters = (uint32_t)a->param[P_ITERS];
    if (iters < 1 || iters > (1u << 24))
        return mgs_error_set(MGS_EINVAL, "micro_alu: iters must be in "
                             "[1, 2^24]");
    wl_ctx c;
    mgs_kernel *k = NULL;
    int rc = wl_ctx_open(&c, rt, a, "micro_alu.hsaco");
    if (!rc)
        rc = wl_kernel(&c, "micro_alu", &k);
    mgs_dptr dout = 0;
    if (!rc)
        rc = wl_alloc(&c, 0, 64 * 4, &dout);
    uint64_t t[2] = {0, 0};
    const float y = 0.25f;
    for (int r = 0; r < 2 && !rc; r++) {
        uint32_t it = r ? 3 * iters : iters;
        uint64_t t0 = sim_now(rt);
        rc = wl_launch1(&c, k, 0, 64, 64, "puf", dout, it, (double)y);
        if (!rc)
            rc = mgs_synchronize(rt);
        t[r] = sim_now(rt) - t0;
        float got[64], want[64];
        if (!rc)
            rc = wl_download(&c, got, dout, sizeof got);
        for (int l = 0; l < 64; l++) {
            float x = (float)l;
            for (uint32_t i = 0; i < it; i++)
                for (int j = 0; j < 16; j++)
                    x = x + y;
            want[l] = x;
        }
        if (!rc)
            rc = wl_check_f32("micro_alu: out", got, want, 64, 0.0f, 0.0f);
    }
    if (!rc && t[1])
        report(a, "micro_alu", (double)(t[1] - t[0]) / 1000.0 /
                                   (2.0 * iters * 16), "ns", "v_add_f32");
    wl_ctx_close(&c);
    return rc;
}

enum { P_MB };

static int bw_run(mgs_rt *rt, const wl_args *a)
{
    int64_t mb = a->param[P_MB];
    if (mb < 1 || mb > 256)
        return mgs_error_set(MGS_EINVAL, "micro_bw: mb must be in [1, 256]");
    const uint32_t threads = 256 * 256;
    size_t bytes = (size_t)(3 * mb) << 20;
    uint32_t *host = mgs_xmalloc(bytes);
    wl_rng g;
    wl_rng_init(&g, a->seed, 0);
    for (size_t i = 0; i < bytes / 4; i++)
        host[i] = (uint32_t)wl_rng_u64(&g);
    uint32_t *got = mgs_xmalloc(threads * 4), *want = mgs_xmalloc(threads * 4);
    wl_ctx c;
    mgs_kernel *k = NULL;
    int rc = stream_open(&c, rt, a, &k);
    mgs_dptr din = 0, dout = 0;
    if (!rc)
        rc = wl_upload(&c, 0, host, bytes, &din);
    if (!rc)
        rc = wl_alloc(&c, 0, threads * 4, &dout);
    uint64_t t[2] = {0, 0};
    for (int r = 0; r < 2 && !rc; r++) {
        uint32_t chunks = (uint32_t)(((size_t)(r ? 3 * mb : mb) << 20) / 16);
        if ((rc = evict_l2(rt, a)))
            break;
        uint64_t t0 = sim_now(rt);
        rc = wl_launch1(&c, k, 0, threads, 256, "pup", din, chunks, dout);
        if (!rc)
            rc = mgs_synchronize(rt);
        t[r] = sim_now(rt) - t0;
        if (!rc)
            rc = wl_download(&c, got, dout, threads * 4);
        memset(want, 0, threads * 4);
        for (uint32_t i = 0; i < chunks; i++) {
            const uint32_t *v = host + (size_t)i * 4;
            want[i % threads] += v[0] ^ v[1] ^ v[2] ^ v[3];
        }
        if (!rc)
            rc = wl_check_u32("micro_bw: out", got, want, threads);
    }
    if (!rc && t[1] > t[0] && a->verbose)
        fprintf(stderr, "micro_bw: %.3f GB/s per DRAM stream\n",
                (double)(2 * (uint64_t)mb << 20) / ((double)(t[1] - t[0]) /
                                                    1000.0));
    wl_ctx_close(&c);
    free(host);
    free(got);
    free(want);
    return rc;
}

static uint64_t small_fp(const wl_args *a) { (void)a; return 1 << 20; }
static uint64_t ring_fp(const wl_args *a)
{
    return 3 * 64 * (uint64_t)a->param[P_LINES];
}
static uint64_t bw_fp(const wl_args *a)
{
    return ((uint64_t)(3 * a->param[P_MB]) << 20) + (1 << 20);
}

const mgs_workload wl_micro_alu = {
    .name = "micro_alu", .suite = "micro", .pattern = "single-wave",
    .description = "ALU chain: ns per dependent v_add_f32 (timing mode)",
    .kernel_file = "micro_alu.hsaco",
    .params = {{"iters", 64, 1024, "loop iterations of 16 adds (run A; "
                                   "B = 3x)"}},
    .run = alu_run, .footprint = small_fp,
};
const mgs_workload wl_micro_l1 = {
    .name = "micro_l1", .suite = "micro", .pattern = "single-lane",
    .description = "L1 vector cache hit latency: same-address chase",
    .kernel_file = "micro_chase.hsaco",
    .params = {{"iters", 100, 1000, "loads of run A (B = 3x)"}},
    .run = l1_run, .footprint = small_fp,
};
const mgs_workload wl_micro_l2 = {
    .name = "micro_l2", .suite = "micro", .pattern = "single-lane",
    .description = "L2 hit latency: chase over a ring beyond the L1V",
    .kernel_file = "micro_chase.hsaco",
    .params = {{"lines", 1024, 4096, "64-byte lines in the ring (> L1V "
                                     "lines, < L2 lines)"}},
    .run = l2_run, .footprint = ring_fp,
};
const mgs_workload wl_micro_dram = {
    .name = "micro_dram", .suite = "micro", .pattern = "single-lane",
    .description = "DRAM latency: one cold pass over a ring",
    .kernel_file = "micro_chase.hsaco",
    .params = {{"lines", 512, 4096, "lines of run A (B = 3x)"}},
    .run = dram_run, .footprint = ring_fp,
};
const mgs_workload wl_micro_bw = {
    .name = "micro_bw", .suite = "micro", .pattern = "streaming",
    .description = "DRAM bandwidth: 64 Ki work-items stream a buffer",
    .kernel_file = "micro_stream.hsaco",
    .params = {{"mb", 1, 8, "MB streamed by run A (B = 3x)"}},
    .run = bw_run, .footprint = bw_fp,
};
