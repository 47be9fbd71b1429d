/*
** Helpers shared by the benchmark programs, header-only because every
** bench .c file is a separate binary: clocks, the deterministic input
** generator, and the one-line failure report.
*/
#ifndef MGS_BENCH_UTIL_H
#define MGS_BENCH_UTIL_H

#include "mgsim/errors.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

#endif
