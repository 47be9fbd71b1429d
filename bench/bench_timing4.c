/*
** bench_timing4: timing-mode speed of a 4-GPU platform against one GPU, on
** the tiled matrix multiply (kernels/mm.hip), one core, R9 Nano GPUs
** (platform/platform.h with its defaults; PCIe 3.0 tree between GPUs).
**
** The 4-GPU run is the unified platform: A, B and C are spread page by page
** over the GPUs (MGS_GPU_ALL) and one launch spreads the work-groups over
** all four command processors, so every GPU reads remote pages through its
** RDMA engine. The 1-GPU run is the same multiply on one GPU.
**
** Prints one line per run:
**   BENCH timing4_mm wf_insts_per_s=<n> sim_cycles_per_s=<n> wall_s=<t>
**         cpu_s=<t> n=<order> gpus=4 platform=unified wf_insts=<n>
**         sim_cycles=<n> peak_rss_mb=<n>
**   BENCH timing1_mm ... gpus=1 ...
**   BENCH timing4_scaling speed_ratio=<4-GPU rate / 1-GPU rate>
**         sim_speedup=<1-GPU simulated time / 4-GPU simulated time>
** Times cover the launch and synchronise only (the first launch builds the
** platform: included, it is part of a real run); rates divide by cpu_s
** (the thread's CPU time) because the machines are shared.
** Usage: bench_timing4 [n] [platform]   (default 256 unified)
** The kernel directory is $MGSIM_KERNEL_DIR or the build's.
*/
#include "bench/bench_util.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"
#include "workloads/workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef struct bench_run {
    double wall, cpu;
    mgs_rt_totals totals;
} bench_run;

static int fail(const char *what, int rc)
{
    return bench_fail("bench_timing4", what, rc);
}

/* C = A x B on `gpus` GPUs of `platform`; checks a diagonal of C. Returns
** 0 or a process exit code. */
static int run_mm(int gpus, const char *platform, uint32_t n, const float *a,
                  const float *b, float *c, bench_run *out)
{
    size_t nn = (size_t)n * n;
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.mode = MGS_MODE_TIMING;
    o.num_gpus = gpus;
    o.platform = platform;
    mgs_rt *rt;
    int rc = mgs_rt_new(&o, &rt);
    if (rc)
        return fail("runtime", rc);
    int where = gpus > 1 ? MGS_GPU_ALL : 0;
    char path[4096];
    wl_kernel_path("mm.hsaco", path, sizeof path);
    mgs_module *m;
    mgs_kernel *k;
    mgs_dptr da, db, dc;
    if ((rc = mgs_module_load(rt, path, &m)) ||
        (rc = mgs_module_kernel(m, "mm", &k)) ||
        (rc = mgs_malloc(rt, where, nn * 4, &da)) ||
        (rc = mgs_malloc(rt, where, nn * 4, &db)) ||
        (rc = mgs_malloc(rt, where, nn * 4, &dc)) ||
        (rc = mgs_memcpy_h2d(rt, da, a, nn * 4)) ||
        (rc = mgs_memcpy_h2d(rt, db, b, nn * 4))) {
        mgs_rt_free(rt);
        return fail("setup", rc);
    }
    struct { uint64_t a, b, c; uint32_t n; } args = {da, db, dc, n};
    mgs_launch l = {.grid = {n, n, 1}, .block = {16, 16, 1}, .args = &args,
                    .args_size = 28, .gpu = where};
    double t0 = bench_clock_s(CLOCK_MONOTONIC), c0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
    rc = mgs_launch_kernel(rt, k, &l);
    if (rc == MGS_OK)
        rc = mgs_synchronize(rt);
    out->wall = bench_clock_s(CLOCK_MONOTONIC) - t0;
    out->cpu = bench_clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    if (rc == MGS_OK)
        rc = mgs_memcpy_d2h(rt, c, dc, nn * 4);
    mgs_rt_totals_get(rt, &out->totals);
    mgs_rt_free(rt);
    if (rc)
        return fail("launch", rc);
    for (uint32_t i = 0; i < n; i += 7) {
        uint32_t j = (i * 13) % n;
        float want = 0.0f;
        for (uint32_t kk = 0; kk < n; kk++)
            want += a[(size_t)i * n + kk] * b[(size_t)kk * n + j];
        float got = c[(size_t)i * n + j];
        if (fabsf(got - want) > 1e-4f * fabsf(want)) {
            fprintf(stderr, "bench_timing4: %d GPU(s): C[%u][%u] = %g, "
                    "expected %g\n", gpus, i, j, (double)got, (double)want);
            return 1;
        }
    }
    return 0;
}

static double rate(const bench_run *r)
{
    return r->cpu > 0 ? (double)r->totals.wf_insts / r->cpu : 0.0;
}

static void print_run(const char *name, const bench_run *r, uint32_t n,
                      int gpus, const char *platform)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cycles = (double)r->totals.sim_time_ps / 1000.0; /* 1 GHz */
    printf("BENCH %s wf_insts_per_s=%.0f sim_cycles_per_s=%.0f wall_s=%.3f "
           "cpu_s=%.3f n=%u gpus=%d platform=%s wf_insts=%llu "
           "sim_cycles=%.0f peak_rss_mb=%.1f\n",
           name, rate(r), r->cpu > 0 ? cycles / r->cpu : 0.0, r->wall,
           r->cpu, n, gpus, platform,
           (unsigned long long)r->totals.wf_insts, cycles,
           (double)ru.ru_maxrss / 1024.0);
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 256;
    const char *platform = argc > 2 ? argv[2] : "unified";
    if (n < 16 || n % 16) {
        fprintf(stderr, "bench_timing4: n must be a positive multiple of "
                "16\n");
        return 2;
    }
    float *a, *b, *c;
    if (bench_mm_inputs(n, &a, &b, &c))
        return 4;
    bench_run r4, r1;
    int rc = run_mm(4, platform, n, a, b, c, &r4);
    if (!rc)
        rc = run_mm(1, "discrete", n, a, b, c, &r1);
    if (!rc) {
        print_run("timing4_mm", &r4, n, 4, platform);
        print_run("timing1_mm", &r1, n, 1, "discrete");
        printf("BENCH timing4_scaling speed_ratio=%.3f sim_speedup=%.3f\n",
               rate(&r1) > 0 ? rate(&r4) / rate(&r1) : 0.0,
               r4.totals.sim_time_ps
                   ? (double)r1.totals.sim_time_ps /
                         (double)r4.totals.sim_time_ps
                   : 0.0);
    }
    free(a);
    free(b);
    free(c);
    return rc;
}
