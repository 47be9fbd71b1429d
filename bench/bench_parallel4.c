/*
** bench_parallel4: the parallel engine (sim.partition = gpu; docs/engine.md
** "Parallel engine") on the multiply of bench_timing4 (kernels/mm.hip,
** n = 256, 4 R9 Nano GPUs, unified, one launch over all GPUs).
**
** Runs, interleaved (rep by rep, same binary): partition = none (the
** serial engine), partition = gpu with 1 thread, partition = gpu with 2
** threads. Rates use WALL time of the launch and synchronise: CPU time
** would add up the threads' time and hide the speed-up.
**
** Prints:
**   BENCH parallel4_mm speedup=<median wall(1 thread) / wall(2 threads)>
**         speedup_vs_serial=<median wall(none) / wall(2 threads)>
**         wall_none_s=<t> wall_t1_s=<t> wall_t2_s=<t> (medians)
**         windows=<n> events=<n> events_per_window=<x> posts=<n>
**         barrier_wait_s=<t, 2 threads, summed over threads, median run>
**         serial_s=<t, boundary work> reps=<r> n=<order>
** plus one line per run. On a machine shared with other jobs a thread may
** be descheduled at the barrier: barrier_wait_s shows that time, so
**   quiet-machine estimate ~= wall_t1 / (wall_t2 - barrier_wait_s / 2).
** Usage: bench_parallel4 [n [reps [threads [gpus]]]]  (default 256 3 2 4;
** other GPU counts are for the estimates of more threads, docs/engine.md)
*/
#include "bench/bench_util.h"
#include "config/config.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"
#include "runtime/timing.h"
#include "sim/partition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPS 15

static int num_gpus = 4;

typedef struct par_run {
    bench_run r;
    eng_group_stats g;
} par_run;

/* One multiply with sim.partition = part and sim.threads = threads. */
static int run_mm(const char *part, uint32_t threads, uint32_t n,
                  const float *a, const float *b, float *c, par_run *out)
{
    static mgs_config cfg;
    mgs_config_defaults(&cfg);
    snprintf(cfg.sim_partition, sizeof cfg.sim_partition, "%s", part);
    cfg.sim_threads = (int)threads;
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.mode = MGS_MODE_TIMING;
    o.num_gpus = num_gpus;
    o.platform = "unified";
    o.config = &cfg;
    mgs_rt *rt;
    int rc = mgs_rt_new(&o, &rt);
    if (rc)
        return bench_fail("bench_parallel4", "runtime", rc);
    bench_mm mm;
    if ((rc = bench_mm_setup(rt, MGS_GPU_ALL, n, a, b, &mm))) {
        mgs_rt_free(rt);
        return bench_fail("bench_parallel4", "setup", rc);
    }
    /* The copies built the platform; count the launch only. */
    sim_engine *e = mgs_rt_timing_engine(rt);
    eng_group_stats before = {0};
    if (e) {
        eng_set_profile(e, threads == 1);
        eng_group_stats_get(e, &before);
    }
    rc = bench_mm_launch(rt, &mm, n, MGS_GPU_ALL, 1, &out->r.wall,
                         &out->r.cpu);
    memset(&out->g, 0, sizeof out->g);
    if (e) {
        eng_group_stats_get(e, &out->g);
        out->g.windows -= before.windows;
        out->g.events -= before.events;
        out->g.posts -= before.posts;
        out->g.wait_s -= before.wait_s;
        out->g.serial_s -= before.serial_s;
        out->g.part_s -= before.part_s;
        for (int k = 0; k < ENG_PROFILE_WIDTHS; k++)
            out->g.crit_s[k] -= before.crit_s[k];
        /* ahead_s covers the windows since eng_set_profile: no
        ** subtraction. */
    }
    if (rc == MGS_OK)
        rc = mgs_memcpy_d2h(rt, c, mm.dc, (size_t)n * n * 4);
    mgs_rt_totals_get(rt, &out->r.totals);
    mgs_rt_free(rt);
    if (rc)
        return bench_fail("bench_parallel4", "launch", rc);
    return bench_mm_check("bench_parallel4", n, a, b, c);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    uint32_t n;
    if (bench_mm_order(argc, argv, 256, "bench_parallel4", &n))
        return 2;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    uint32_t threads = argc > 3 ? (uint32_t)atoi(argv[3]) : 2;
    num_gpus = argc > 4 ? atoi(argv[4]) : 4;
    if (reps < 1 || reps > MAX_REPS || threads < 2 || threads > 64 ||
        num_gpus < 2 || num_gpus > 16) {
        fprintf(stderr, "bench_parallel4: reps in [1, %d], threads in "
                "[2, 64], gpus in [2, 16]\n", MAX_REPS);
        return 2;
    }
    float *a, *b, *c;
    if (bench_mm_inputs(n, &a, &b, &c))
        return 4;
    double w0[MAX_REPS], w1[MAX_REPS], w2[MAX_REPS], sp[MAX_REPS],
        wait[MAX_REPS], est[ENG_PROFILE_WIDTHS][MAX_REPS],
        ahead[ENG_PROFILE_WIDTHS][MAX_REPS];
    par_run r0, r1, r2;
    int rc = 0;
    for (int i = 0; i < reps && !rc; i++) {
        rc = run_mm("none", 1, n, a, b, c, &r0);
        if (!rc)
            rc = run_mm("gpu", 1, n, a, b, c, &r1);
        if (!rc)
            rc = run_mm("gpu", threads, n, a, b, c, &r2);
        if (rc)
            break;
        w0[i] = r0.r.wall;
        w1[i] = r1.r.wall;
        w2[i] = r2.r.wall;
        sp[i] = r2.r.wall > 0 ? r1.r.wall / r2.r.wall : 0;
        wait[i] = r2.g.wait_s;
        for (int k = 0; k < ENG_PROFILE_WIDTHS; k++) {
            est[k][i] = r1.g.crit_s[k] > 0 ? r1.g.part_s / r1.g.crit_s[k]
                                           : 0;
            ahead[k][i] = r1.g.ahead_s[k] > 0
                              ? r1.g.part_s / r1.g.ahead_s[k]
                              : 0;
        }
        printf("BENCH parallel4_run rep=%d wall_none_s=%.3f wall_t1_s=%.3f "
               "wall_t%u_s=%.3f speedup=%.3f barrier_wait_s=%.3f "
               "sim_time_none_ps=%llu sim_time_gpu_ps=%llu\n",
               i, w0[i], w1[i], threads, w2[i], sp[i], wait[i],
               (unsigned long long)r0.r.totals.sim_time_ps,
               (unsigned long long)r2.r.totals.sim_time_ps);
        if (r1.r.totals.sim_time_ps != r2.r.totals.sim_time_ps ||
            r1.r.totals.wf_insts != r2.r.totals.wf_insts) {
            fprintf(stderr, "bench_parallel4: 1 and %u threads differ\n",
                    threads);
            rc = 1;
        }
    }
    if (!rc) {
        double m0 = median(w0, reps), m1 = median(w1, reps),
               m2 = median(w2, reps);
        printf("BENCH parallel4_mm speedup=%.3f speedup_vs_serial=%.3f "
               "wall_none_s=%.3f wall_t1_s=%.3f wall_t%u_s=%.3f "
               "windows=%llu events=%llu events_per_window=%.1f posts=%llu "
               "barrier_wait_s=%.3f serial_s=%.3f threads=%u reps=%d n=%u "
               "gpus=%d\n",
               median(sp, reps), m2 > 0 ? m0 / m2 : 0.0, m0, m1, threads, m2,
               (unsigned long long)r2.g.windows,
               (unsigned long long)r2.g.events,
               r2.g.windows ? (double)r2.g.events / (double)r2.g.windows
                            : 0.0,
               (unsigned long long)r2.g.posts, median(wait, reps),
               r2.g.serial_s, threads, reps, n, num_gpus);
        /* Quiet-machine estimate from the 1-thread run's per-partition
        ** CPU times per window: the busiest thread's share bounds each
        ** window (barriers free). */
        printf("BENCH parallel4_estimate speedup_2=%.3f speedup_4=%.3f "
               "speedup_8=%.3f partitions_cpu_s=%.3f windows=%llu "
               "(free barriers; each barrier of b s adds windows*b)\n",
               median(est[0], reps), median(est[1], reps),
               median(est[2], reps), r1.g.part_s,
               (unsigned long long)r1.g.windows);
        /* The same windows replayed as running ahead (what 2 or more
        ** threads do), synchronisation free: docs/engine.md. */
        printf("BENCH parallel4_estimate_ahead speedup_2=%.3f "
               "speedup_4=%.3f speedup_8=%.3f (free synchronisation; "
               "compare speedup_2 with parallel4_mm speedup)\n",
               median(ahead[0], reps), median(ahead[1], reps),
               median(ahead[2], reps));
    }
    free(a);
    free(b);
    free(c);
    return rc;
}
