/*
** bench_timing4_halcone: timing-mode speed of the HALCONE protocol
** (src/coh/halcone/) on the same multiply as bench_timing4's timing4_mm
** (kernels/mm.hip, n = 256, 4 R9 Nano GPUs, MGS_GPU_ALL placement and one
** launch over all GPUs), on the `shared` platform (MGPU-SM) with
** write-through L2s, against the same run under nc (SM-WT-NC).
**
** Prints:
**   BENCH timing4_halcone_mm wf_insts_per_s=<n> sim_cycles_per_s=<n>
**         wall_s=<t> cpu_s=<t> n=<order> gpus=4 platform=shared
**         protocol=halcone wf_insts=<n> sim_cycles=<n>
**   BENCH timing4_shared_nc_mm ... protocol=nc ...
**   BENCH timing4_halcone_cost speed_ratio=<halcone rate / nc rate>
**         sim_time_ratio=<halcone simulated time / nc simulated time>
** Rates divide by the thread's CPU time (shared machines).
** Usage: bench_timing4_halcone [n]   (default 256)
*/
#include "bench/bench_util.h"
#include "config/config.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run_mm(const char *protocol, uint32_t n, const float *a,
                  const float *b, float *c, bench_run *out)
{
    static mgs_config cfg;
    mgs_config_defaults(&cfg);
    snprintf(cfg.coherence_protocol, sizeof cfg.coherence_protocol, "%s",
             protocol);
    snprintf(cfg.l2_write_policy, sizeof cfg.l2_write_policy,
             "writethrough");
    char who[64];
    snprintf(who, sizeof who, "bench_timing4_halcone: %s", protocol);
    return bench_mm_run_cfg(who, &cfg, "shared", 4, n, a, b, c, out);
}

static void print_run(const char *name, const char *protocol,
                      const bench_run *r, uint32_t n)
{
    double cycles = (double)r->totals.sim_time_ps / 1000.0; /* 1 GHz */
    printf("BENCH %s wf_insts_per_s=%.0f sim_cycles_per_s=%.0f wall_s=%.3f "
           "cpu_s=%.3f n=%u gpus=4 platform=shared protocol=%s wf_insts=%llu "
           "sim_cycles=%.0f\n", name, bench_run_rate(r),
           r->cpu > 0 ? cycles / r->cpu : 0.0, r->wall, r->cpu, n, protocol,
           (unsigned long long)r->totals.wf_insts, cycles);
}

int main(int argc, char **argv)
{
    uint32_t n;
    if (bench_mm_order(argc, argv, 256, "bench_timing4_halcone", &n))
        return 2;
    float *a, *b, *c;
    if (bench_mm_inputs(n, &a, &b, &c))
        return 4;
    bench_run h, nc;
    int rc = run_mm("halcone", n, a, b, c, &h);
    if (!rc)
        rc = run_mm("nc", n, a, b, c, &nc);
    if (!rc) {
        print_run("timing4_halcone_mm", "halcone", &h, n);
        print_run("timing4_shared_nc_mm", "nc", &nc, n);
        printf("BENCH timing4_halcone_cost speed_ratio=%.3f "
               "sim_time_ratio=%.3f\n",
               bench_run_rate(&nc) > 0
                   ? bench_run_rate(&h) / bench_run_rate(&nc)
                   : 0.0,
               nc.totals.sim_time_ps ? (double)h.totals.sim_time_ps /
                                           (double)nc.totals.sim_time_ps
                                     : 0.0);
    }
    free(a);
    free(b);
    free(c);
    return rc;
}
