/*
** A workload: host program + kernels + CPU reference, runnable by
** `mgsim run NAME`. Each workload lives in workloads/<name>/ and exports one
** `const mgs_workload wl_<name>`, listed in workloads/list.def.
**
** run() generates inputs deterministically from args->seed, allocates device
** memory, launches kernels through the runtime API, copies results back and
** compares them with the CPU reference. It returns MGS_OK when verified,
** MGS_EVERIFY (with a message naming the first mismatching element) when not,
** or another MGS_E* code on error.
*/
#ifndef MGS_WORKLOADS_WORKLOAD_H
#define MGS_WORKLOADS_WORKLOAD_H

#include "mgsim/runtime.h"

#include <stdint.h>

#define WL_MAX_PARAMS 8

typedef struct wl_param {
    const char *name;      /* e.g. "n" */
    int64_t small;         /* value for --size small */
    int64_t dflt;          /* value for --size default (the seed's footprint) */
    const char *help;
} wl_param;

typedef struct wl_args {
    uint64_t seed;
    int64_t param[WL_MAX_PARAMS]; /* resolved values, same order as params */
    int num_gpus;
    int gpu_all;           /* nonzero: one launch across all GPUs
                              (wl_platform_gpu_all) */
    int verbose;
} wl_args;

typedef struct mgs_workload {
    const char *name;
    const char *suite;     /* "MGPUMark", "HALCONE", "REC", "micro", ... */
    const char *pattern;   /* "partitioned", "gather", "adjacent", ... */
    const char *description;
    const char *kernel_file; /* code object name under the kernel dir */
    wl_param params[WL_MAX_PARAMS];
    int (*run)(mgs_rt *rt, const wl_args *args);
    /* Bytes of device memory the workload uses for the given arguments. */
    uint64_t (*footprint)(const wl_args *args);
} mgs_workload;

/* Registry (workloads/registry.c). */
size_t wl_count(void);
const mgs_workload *wl_get(size_t i);
/* Finds a suite workload or an external one (below). */
const mgs_workload *wl_find(const char *name);
/* Workloads running code objects from outside the project, e.g. MGPUSim's
** (workloads/mgpusim/, list_mgpusim.def): not in wl_count/wl_get, so the
** all-workload tests and sweeps leave them out. */
size_t wl_external_count(void);
const mgs_workload *wl_external_get(size_t i);
/* Whether the workloads run in place on platform type `type` (wl_args
** gpu_all): one launch over all GPUs (MGS_GPU_ALL) on buffers spread over
** them, neighbours read remotely. True for unified and monolithic (one
** device to the program) and for shared (MGPU-SM: the GPUs share every
** memory stack, MGPUSim-style in-place multi-GPU runs); false for
** discrete, where the host launches once per GPU and copies halos. */
int wl_platform_gpu_all(const char *type);
/* Full path of a kernel code object: $MGSIM_KERNEL_DIR or the build's dir. */
const char *wl_kernel_path(const char *file, char *buf, size_t n);

#endif
