/*
** Helpers shared by the benchmark programs, header-only because every
** bench .c file is a separate binary: clocks, the deterministic input
** generator, the one-line failure report, the peak resident set, and the
** steps of the tiled matrix multiply benchmarks (bench_emu, bench_timing,
** bench_timing4): the order argument, device setup, the timed launch and
** the spot check of C against the CPU.
*/
#ifndef MGS_BENCH_UTIL_H
#define MGS_BENCH_UTIL_H

#include "mgsim/errors.h"
#include "config/config.h"
#include "mgsim/runtime.h"
#include "workloads/workload.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

/* Seconds on clock id (CLOCK_MONOTONIC for wall time,
** CLOCK_THREAD_CPUTIME_ID for CPU time: the machines are shared). */
static inline double bench_clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* splitmix64: the inputs of every benchmark, reproducible from a seed. */
static inline uint64_t bench_splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Allocates the three n x n float matrices of the mm benchmarks and fills
** a and b with seeded values in [0, 1). Returns 0, or 4 (internal error
** exit code) if the host is out of memory. The caller frees all three. */
static inline int bench_mm_inputs(size_t n, float **a, float **b, float **c)
{
    size_t nn = n * n;
    *a = malloc(nn * 4);
    *b = malloc(nn * 4);
    *c = malloc(nn * 4);
    if (!*a || !*b || !*c)
        return 4;
    uint64_t s = 1;
    for (size_t i = 0; i < nn; i++) {
        (*a)[i] = (float)(bench_splitmix64(&s) >> 40) / (float)(1 << 24);
        (*b)[i] = (float)(bench_splitmix64(&s) >> 40) / (float)(1 << 24);
    }
    return 0;
}

/* Prints "<prog>: <what>: <last error>" and returns the exit code. */
static inline int bench_fail(const char *prog, const char *what, int rc)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, mgs_error_msg());
    return rc ? mgs_exit_code(rc) : 1;
}

/* The process's maximum resident set so far, in MiB (getrusage). */
static inline double bench_peak_rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* The matrix order of the mm benchmarks: argv[1], or def without one.
** Returns 0, or 2 (usage exit code) after saying so if it is not a
** positive multiple of 16 (the kernel's tile). */
static inline int bench_mm_order(int argc, char **argv, uint32_t def,
                                 const char *prog, uint32_t *n)
{
    *n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : def;
    if (*n < 16 || *n % 16) {
        fprintf(stderr, "%s: n must be a positive multiple of 16\n", prog);
        return 2;
    }
    return 0;
}

/* The device side of an mm run: the kernel and the three matrices. */
typedef struct bench_mm {
    mgs_kernel *k;
    mgs_dptr da, db, dc;
} bench_mm;

/* Loads kernels/mm.hip's "mm", allocates A, B and C on `gpu` (a GPU or
** MGS_GPU_ALL) and copies a and b in. Returns an MGS_ status. */
static inline int bench_mm_setup(mgs_rt *rt, int gpu, uint32_t n,
                                 const float *a, const float *b, bench_mm *mm)
{
    size_t nn = (size_t)n * n;
    char path[4096];
    wl_kernel_path("mm.hsaco", path, sizeof path);
    mgs_module *m;
    int rc;
    if ((rc = mgs_module_load(rt, path, &m)) ||
        (rc = mgs_module_kernel(m, "mm", &mm->k)) ||
        (rc = mgs_malloc(rt, gpu, nn * 4, &mm->da)) ||
        (rc = mgs_malloc(rt, gpu, nn * 4, &mm->db)) ||
        (rc = mgs_malloc(rt, gpu, nn * 4, &mm->dc)) ||
        (rc = mgs_memcpy_h2d(rt, mm->da, a, nn * 4)) ||
        (rc = mgs_memcpy_h2d(rt, mm->db, b, nn * 4)))
        return rc;
    return MGS_OK;
}

/* Launches C = A x B with 16 x 16 work-groups on `gpu`, then, with sync,
** waits for it (launches may be asynchronous). *wall and *cpu get the wall
** and thread CPU seconds of exactly that. Returns an MGS_ status. */
static inline int bench_mm_launch(mgs_rt *rt, const bench_mm *mm, uint32_t n,
                                  int gpu, int sync, double *wall, double *cpu)
{
    struct { uint64_t a, b, c; uint32_t n; } args = {mm->da, mm->db, mm->dc, n};
    mgs_launch l = {.grid = {n, n, 1}, .block = {16, 16, 1}, .args = &args,
                    .args_size = 28, .gpu = gpu};
    double t0 = bench_clock_s(CLOCK_MONOTONIC), c0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
    int rc = mgs_launch_kernel(rt, mm->k, &l);
    if (sync && rc == MGS_OK)
        rc = mgs_synchronize(rt);
    *wall = bench_clock_s(CLOCK_MONOTONIC) - t0;
    *cpu = bench_clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    return rc;
}

/* Spot checks a diagonal of C = A x B against the CPU. Returns 0, or 1
** after printing "<who>: C[i][j] = <got>, expected <want>". */
static inline int bench_mm_check(const char *who, uint32_t n, const float *a,
                                 const float *b, const float *c)
{
    for (uint32_t i = 0; i < n; i += 7) {
        uint32_t j = (i * 13) % n;
        float want = 0.0f;
        for (uint32_t kk = 0; kk < n; kk++)
            want += a[(size_t)i * n + kk] * b[(size_t)kk * n + j];
        float got = c[(size_t)i * n + j];
        if (fabsf(got - want) > 1e-4f * fabsf(want)) {
            fprintf(stderr, "%s: C[%u][%u] = %g, expected %g\n", who, i, j,
                    (double)got, (double)want);
            return 1;
        }
    }
    return 0;
}

/* One timing run of the multiply (n, inputs a, b; c receives the result)
** on gpus GPUs of platform under cfg (the caller's: protocol and keys),
** one launch over every GPU: wall and CPU seconds of the launch and the
** run's totals. 0, or bench_fail's code (who names the program). */
typedef struct bench_run {
    double wall, cpu;
    mgs_rt_totals totals;
} bench_run;

static inline int bench_mm_run_cfg(const char *who, mgs_config *cfg,
                                   const char *platform, int gpus,
                                   uint32_t n, const float *a,
                                   const float *b, float *c, bench_run *out)
{
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.mode = MGS_MODE_TIMING;
    o.num_gpus = gpus;
    o.platform = platform;
    o.config = cfg;
    mgs_rt *rt;
    int rc = mgs_rt_new(&o, &rt);
    if (rc)
        return bench_fail(who, "runtime", rc);
    bench_mm mm;
    if ((rc = bench_mm_setup(rt, MGS_GPU_ALL, n, a, b, &mm))) {
        mgs_rt_free(rt);
        return bench_fail(who, "setup", rc);
    }
    rc = bench_mm_launch(rt, &mm, n, MGS_GPU_ALL, 1, &out->wall, &out->cpu);
    if (rc == MGS_OK)
        rc = mgs_memcpy_d2h(rt, c, mm.dc, (size_t)n * n * 4);
    mgs_rt_totals_get(rt, &out->totals);
    mgs_rt_free(rt);
    if (rc)
        return bench_fail(who, "launch", rc);
    return bench_mm_check(who, n, a, b, c);
}

/* Wavefront instructions per CPU second of a run. */
static inline double bench_run_rate(const bench_run *r)
{
    return r->cpu > 0 ? (double)r->totals.wf_insts / r->cpu : 0.0;
}

#endif
