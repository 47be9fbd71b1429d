/*
** bench_timing: timing-mode speed on the tiled matrix multiply
** (kernels/mm.hip), one core, one R9 Nano GPU (platform/gpu_build.h with
** its defaults = configs/r9nano.ini).
**
** Prints: BENCH timing_mm wf_insts_per_s=<n> sim_cycles_per_s=<n>
**         peak_rss_mb=<n> wall_s=<t> cpu_s=<t> n=<order> wf_insts=<n>
**         sim_cycles=<n> events=<n>
** wall_s and cpu_s cover mgs_launch_kernel and mgs_synchronize only (a
** launch may just post the kernel and the synchronize run it; the first
** launch also builds the GPU: that is included, it is part of a real
** run). Rates
** divide by cpu_s, the thread's CPU time, because the machines are shared.
** sim_cycles counts 1-GHz GPU cycles of simulated kernel time; peak_rss_mb
** is the process's maximum resident set (getrusage). Target (DESIGN.md):
** >= 1 M wavefront instructions/s on one core.
** Usage: bench_timing [n]   (default 256)
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
    return bench_fail("bench_timing", what, rc);
}

int main(int argc, char **argv)
{
    uint32_t n;
    if (bench_mm_order(argc, argv, 256, "bench_timing", &n))
        return 2;
    size_t nn = (size_t)n * n;
    float *a, *b, *c;
    if (bench_mm_inputs(n, &a, &b, &c))
        return 4;
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.mode = MGS_MODE_TIMING;
    mgs_rt *rt;
    int rc = mgs_rt_new(&o, &rt);
    if (rc)
        return fail("runtime", rc);
    bench_mm mm;
    if ((rc = bench_mm_setup(rt, 0, n, a, b, &mm)))
        return fail("setup", rc);
    double wall, cpu;
    rc = bench_mm_launch(rt, &mm, n, 0, 1, &wall, &cpu); /* and synchronize */
    if (rc)
        return fail("launch", rc);
    if ((rc = mgs_memcpy_d2h(rt, c, mm.dc, nn * 4)))
        return fail("copy back", rc);
    if (bench_mm_check("bench_timing", n, a, b, c))
        return 1;
    mgs_rt_totals t;
    mgs_rt_totals_get(rt, &t);
    double cycles = (double)t.sim_time_ps / 1000.0; /* 1 GHz GPU clock */
    printf("BENCH timing_mm wf_insts_per_s=%.0f sim_cycles_per_s=%.0f "
           "peak_rss_mb=%.1f wall_s=%.3f cpu_s=%.3f n=%u wf_insts=%llu "
           "sim_cycles=%.0f\n", (double)t.wf_insts / cpu, cycles / cpu,
           bench_peak_rss_mb(), wall, cpu, n,
           (unsigned long long)t.wf_insts, cycles);
    mgs_rt_free(rt);
    free(a);
    free(b);
    free(c);
    return 0;
}
