/*
** bench_emu: functional-emulation speed on the tiled matrix multiply
** (kernels/mm.hip), one core, one GPU.
**
** Prints: BENCH emu_mm wf_insts_per_s=<n> wall_s=<t> n=<order> wf_insts=<n>
** wall_s and cpu_s cover mgs_launch_kernel only (not input generation,
** copies or the spot check). The rate divides by cpu_s, the thread's CPU
** time, because the benchmark machines are shared: wall time includes time
** spent waiting for a core. Target (DESIGN.md): >= 20 M wavefront
** instructions/s on one core.
** Usage: bench_emu [n]   (default 768: 27 M wavefront instructions, ~2 s)
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
#include <time.h>

static int fail(const char *what, int rc)
{
    return bench_fail("bench_emu", what, rc);
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 768;
    if (n < 16 || n % 16) {
        fprintf(stderr, "bench_emu: n must be a positive multiple of 16\n");
        return 2;
    }
    size_t nn = (size_t)n * n;
    float *a, *b, *c;
    if (bench_mm_inputs(n, &a, &b, &c))
        return 4;
    mgs_rt_options o;
    mgs_rt_options_default(&o);
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
            fprintf(stderr, "bench_emu: C[%u][%u] = %g, expected %g\n", i, j,
                    (double)got, (double)want);
            return 1;
        }
    }
    mgs_rt_totals t;
    mgs_rt_totals_get(rt, &t);
    printf("BENCH emu_mm wf_insts_per_s=%.0f wall_s=%.3f cpu_s=%.3f n=%u "
           "wf_insts=%llu\n", (double)t.wf_insts / cpu, wall, cpu, n,
           (unsigned long long)t.wf_insts);
    mgs_rt_free(rt);
    free(a);
    free(b);
    free(c);
    return 0;
}
