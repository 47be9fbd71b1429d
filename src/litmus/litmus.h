/*
** Litmus tests of the memory model (docs/litmus.md): MP, SB, LB, CoRR,
** IRIW and 2+2W as HIP kernels (kernels/litmus.hip), run many times with
** randomised placement and timing on a runtime the caller built (any
** platform, protocol and mode), counting each outcome.
**
** One run = one test, one placement, one variant, N instances. Instances are
** batched: a launch holds `groups` groups of 64 instances (lane l of a group
** is one instance; every thread of the test is one work-group per group),
** each instance on its own lines, so 10^5 instances take a few dozen
** launches. Per batch the host draws from the seed: which GPU each location
** lives on, which GPU(s) run the threads, the order of the threads' work-
** groups, a delay before each work-group's accesses and where the stress
** work-groups go. Same runtime configuration + same seed -> same histogram.
**
** Ownership: litmus_run borrows the runtime; it frees what it allocates.
*/
#ifndef MGS_LITMUS_LITMUS_H
#define MGS_LITMUS_LITMUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mgsim/runtime.h"

#define LITMUS_MAX_THREADS 4
#define LITMUS_MAX_SLOTS 4       /* observed values per instance */
#define LITMUS_MAX_OUTCOMES 81   /* 3^LITMUS_MAX_SLOTS: values 0, 1, 2 */

typedef struct litmus_test {
    const char *name;            /* "MP" (matched case-insensitively) */
    const char *kernel;          /* kernels litmus_<kernel>_<variant> */
    int threads;                 /* work-groups (roles) per instance */
    int nslots;                  /* observed values */
    bool finals;                 /* slots are the final x, y (read by the
                                    host after the kernel), not registers */
    const char *slot[LITMUS_MAX_SLOTS];      /* "r0", ... or "x", "y" */
    uint8_t forbidden[LITMUS_MAX_SLOTS];     /* the outcome fences forbid */
    const char *program;         /* one line, for reports */
} litmus_test;

typedef enum litmus_placement {
    LITMUS_CU = 0,               /* threads on different CUs of one GPU */
    LITMUS_GPU = 1               /* threads on different GPUs */
} litmus_placement;

typedef struct litmus_opts {
    uint64_t iterations;         /* instances (>= 1) */
    uint64_t seed;
    litmus_placement placement;
    bool fenced;                 /* the fenced variant (scope: agent for
                                    LITMUS_CU, system for LITMUS_GPU) */
    uint32_t groups;             /* 64-instance groups per launch (>= 1) */
    uint32_t max_delay;          /* delay loop iterations, drawn in [0, max] */
    uint32_t stress_wgs;         /* stress work-groups per launch */
    uint32_t stress_iters;       /* accesses of each stress lane */
    bool gps;                    /* x and y are GPS allocations
                                    (mgs_malloc_gps: a replica on every GPU,
                                    docs/gps.md) */
} litmus_opts;

typedef struct litmus_result {
    uint64_t iterations;
    uint64_t count[LITMUS_MAX_OUTCOMES]; /* by litmus_outcome_key */
    uint64_t forbidden;          /* instances showing the forbidden outcome
                                    (counted in both variants; it is only
                                    forbidden in the fenced one) */
    uint64_t launches;
    uint64_t sim_time_ps;        /* simulated time of the run's kernels */
} litmus_result;

/* Defaults: 10^4 iterations, seed 1, CU placement, fenced, 64 groups,
** delays up to 512, 4 stress work-groups of 32 accesses. */
void litmus_opts_default(litmus_opts *o);

size_t litmus_count(void);
const litmus_test *litmus_get(size_t i);
const litmus_test *litmus_find(const char *name);
const char *litmus_placement_name(litmus_placement p);

/* Outcome key: sum of value[k] * 3^k; and its text ("r0=1 r1=0"). */
unsigned litmus_outcome_key(const litmus_test *t, const uint8_t *values);
void litmus_outcome_text(const litmus_test *t, unsigned key, char *buf,
                         size_t n);
unsigned litmus_forbidden_key(const litmus_test *t);

/* Runs test t on rt (the litmus code object is loaded from the kernel
** directory). MGS_EINVAL (message) for a placement the runtime cannot give
** (LITMUS_GPU on one GPU) or bad options; other MGS_E* from the runtime. */
int litmus_run(mgs_rt *rt, const litmus_test *t, const litmus_opts *o,
               litmus_result *out);

#endif
