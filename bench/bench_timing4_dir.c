/*
** bench_timing4_dir: timing-mode speed of the directory protocols
** (src/coh/dir/) on the multiply of bench_timing4 (kernels/mm.hip,
** n = 256, 4 R9 Nano GPUs, discrete, MGS_GPU_ALL placement, one launch
** over all GPUs) with remote lines cached in the L2s, under dir, hmg and
** rec against nc with the same remote_cache = l2.
**
** Prints, per protocol P of nc, dir, hmg, rec:
**   BENCH timing4_P_l2_mm wf_insts_per_s=<n> sim_cycles_per_s=<n>
**         wall_s=<t> cpu_s=<t> n=<order> gpus=4 platform=discrete
**         protocol=P wf_insts=<n> sim_cycles=<n>
**   BENCH timing4_dir_cost speed_ratio_dir=<dir rate / nc rate>
**         speed_ratio_rec=<...> sim_time_ratio_rec=<rec / nc simulated time>
** Rates divide by the thread's CPU time (shared machines).
** Usage: bench_timing4_dir [n]   (default 256)
*/
#include "bench/bench_util.h"
#include "config/config.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPROTO 4

static int run_mm(const char *protocol, uint32_t n, const float *a,
                  const float *b, float *c, bench_run *out)
{
    static mgs_config cfg;
    mgs_config_defaults(&cfg);
    snprintf(cfg.coherence_protocol, sizeof cfg.coherence_protocol, "%s",
             protocol);
    snprintf(cfg.coherence_remote_cache, sizeof cfg.coherence_remote_cache,
             "l2");
    char who[64];
    snprintf(who, sizeof who, "bench_timing4_dir: %s", protocol);
    return bench_mm_run_cfg(who, &cfg, "discrete", 4, n, a, b, c, out);
}

int main(int argc, char **argv)
{
    static const char *const proto[NPROTO] = {"nc", "dir", "hmg", "rec"};
    uint32_t n;
    if (bench_mm_order(argc, argv, 256, "bench_timing4_dir", &n))
        return 2;
    float *a, *b, *c;
    if (bench_mm_inputs(n, &a, &b, &c))
        return 4;
    bench_run r[NPROTO];
    int rc = 0;
    for (int i = 0; i < NPROTO && !rc; i++)
        rc = run_mm(proto[i], n, a, b, c, &r[i]);
    for (int i = 0; i < NPROTO && !rc; i++) {
        double cycles = (double)r[i].totals.sim_time_ps / 1000.0; /* 1 GHz */
        printf("BENCH timing4_%s_l2_mm wf_insts_per_s=%.0f "
               "sim_cycles_per_s=%.0f wall_s=%.3f cpu_s=%.3f n=%u gpus=4 "
               "platform=discrete protocol=%s wf_insts=%llu sim_cycles=%.0f\n",
               proto[i], bench_run_rate(&r[i]),
               r[i].cpu > 0 ? cycles / r[i].cpu : 0.0, r[i].wall, r[i].cpu,
               n, proto[i], (unsigned long long)r[i].totals.wf_insts, cycles);
    }
    if (!rc) {
        double nc = bench_run_rate(&r[0]);
        printf("BENCH timing4_dir_cost speed_ratio_dir=%.3f "
               "speed_ratio_rec=%.3f sim_time_ratio_rec=%.3f\n",
               nc > 0 ? bench_run_rate(&r[1]) / nc : 0.0,
               nc > 0 ? bench_run_rate(&r[3]) / nc : 0.0,
               r[0].totals.sim_time_ps ? (double)r[3].totals.sim_time_ps /
                                             (double)r[0].totals.sim_time_ps
                                       : 0.0);
    }
    free(a);
    free(b);
    free(c);
    return rc;
}
