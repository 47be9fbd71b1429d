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
    uint32_t n;
    if (bench_mm_order(argc, argv, 768, "bench_emu", &n))
        return 2;
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
    bench_mm mm;
    if ((rc = bench_mm_setup(rt, 0, n, a, b, &mm)))
        return fail("setup", rc);
    double wall, cpu;
    rc = bench_mm_launch(rt, &mm, n, 0, 0, &wall, &cpu);
    if (rc)
        return fail("launch", rc);
    if ((rc = mgs_memcpy_d2h(rt, c, mm.dc, nn * 4)))
        return fail("copy back", rc);
    if (bench_mm_check("bench_emu", n, a, b, c))
        return 1;
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
