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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    bench_mm mm;
    if ((rc = bench_mm_setup(rt, where, n, a, b, &mm))) {
        mgs_rt_free(rt);
        return fail("setup", rc);
    }
    rc = bench_mm_launch(rt, &mm, n, where, 1, &out->wall, &out->cpu);
    if (rc == MGS_OK)
        rc = mgs_memcpy_d2h(rt, c, mm.dc, nn * 4);
    mgs_rt_totals_get(rt, &out->totals);
    mgs_rt_free(rt);
    if (rc)
        return fail("launch", rc);
    char who[64];
    snprintf(who, sizeof who, "bench_timing4: %d GPU(s)", gpus);
    return bench_mm_check(who, n, a, b, c);
}

static double rate(const bench_run *r)
{
    return r->cpu > 0 ? (double)r->totals.wf_insts / r->cpu : 0.0;
}

static void print_run(const char *name, const bench_run *r, uint32_t n,
                      int gpus, const char *platform)
{
    double cycles = (double)r->totals.sim_time_ps / 1000.0; /* 1 GHz */
    printf("BENCH %s wf_insts_per_s=%.0f sim_cycles_per_s=%.0f wall_s=%.3f "
           "cpu_s=%.3f n=%u gpus=%d platform=%s wf_insts=%llu "
           "sim_cycles=%.0f peak_rss_mb=%.1f\n",
           name, rate(r), r->cpu > 0 ? cycles / r->cpu : 0.0, r->wall,
           r->cpu, n, gpus, platform,
           (unsigned long long)r->totals.wf_insts, cycles,
           bench_peak_rss_mb());
}

int main(int argc, char **argv)
{
    uint32_t n;
    if (bench_mm_order(argc, argv, 256, "bench_timing4", &n))
        return 2;
    const char *platform = argc > 2 ? argv[2] : "unified";
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
