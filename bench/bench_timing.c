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
#include "workloads/workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static int fail(const char *what, int rc)
{
    return bench_fail("bench_timing", what, rc);
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 256;
    if (n < 16 || n % 16) {
        fprintf(stderr, "bench_timing: n must be a positive multiple of 16\n");
        return 2;
    }
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
    char path[4096];
    wl_kernel_path("mm.hsaco", path, sizeof path);
    mgs_module *m;
    mgs_kernel *k;
    mgs_dptr da, db, dc;
    if ((rc = mgs_module_load(rt, path, &m)) ||
        (rc = mgs_module_kernel(m, "mm", &k)) ||
        (rc = mgs_malloc(rt, 0, nn * 4, &da)) ||
        (rc = mgs_malloc(rt, 0, nn * 4, &db)) ||
        (rc = mgs_malloc(rt, 0, nn * 4, &dc)) ||
        (rc = mgs_memcpy_h2d(rt, da, a, nn * 4)) ||
        (rc = mgs_memcpy_h2d(rt, db, b, nn * 4)))
        return fail("setup", rc);
    struct { uint64_t a, b, c; uint32_t n; } args = {da, db, dc, n};
    mgs_launch l = {.grid = {n, n, 1}, .block = {16, 16, 1}, .args = &args,
                    .args_size = 28, .gpu = 0};
    double t0 = bench_clock_s(CLOCK_MONOTONIC), c0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
    rc = mgs_launch_kernel(rt, k, &l);
    if (rc == MGS_OK)
        rc = mgs_synchronize(rt); /* launches may be asynchronous */
    double wall = bench_clock_s(CLOCK_MONOTONIC) - t0;
    double cpu = bench_clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    if (rc)
        return fail("launch", rc);
    if ((rc = mgs_memcpy_d2h(rt, c, dc, nn * 4)))
        return fail("copy back", rc);
    /* Spot check a diagonal of C against the CPU. */
    for (uint32_t i = 0; i < n; i += 7) {
        uint32_t j = (i * 13) % n;
        float want = 0.0f;
        for (uint32_t kk = 0; kk < n; kk++)
            want += a[(size_t)i * n + kk] * b[(size_t)kk * n + j];
        float got = c[(size_t)i * n + j];
        if (fabsf(got - want) > 1e-4f * fabsf(want)) {
            fprintf(stderr, "bench_timing: C[%u][%u] = %g, expected %g\n", i, j,
                    (double)got, (double)want);
            return 1;
        }
    }
    mgs_rt_totals t;
    mgs_rt_totals_get(rt, &t);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cycles = (double)t.sim_time_ps / 1000.0; /* 1 GHz GPU clock */
    printf("BENCH timing_mm wf_insts_per_s=%.0f sim_cycles_per_s=%.0f "
           "peak_rss_mb=%.1f wall_s=%.3f cpu_s=%.3f n=%u wf_insts=%llu "
           "sim_cycles=%.0f\n", (double)t.wf_insts / cpu, cycles / cpu,
           (double)ru.ru_maxrss / 1024.0, wall, cpu, n,
           (unsigned long long)t.wf_insts, cycles);
    mgs_rt_free(rt);
    free(a);
    free(b);
    free(c);
    return 0;
}
