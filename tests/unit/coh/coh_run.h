/*
** Helpers shared by the coherence tests (tests/unit/coh/): a timing-mode
** runtime of full R9 Nano GPUs with a chosen protocol and platform, built on
** the runtime tests' rig (tests/unit/runtime/rt_rig.h), a registered
** workload's small-size arguments and a kernel from the build's kernel
** directory. Header-only.
*/
#ifndef MGS_TESTS_COH_RUN_H
#define MGS_TESTS_COH_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/runtime/rt_rig.h"
#include "workloads/workload.h"

typedef rt_rig coh_run;

/* Settings of a run before its runtime exists (coh_run_start). */
static inline void coh_run_config(coh_run *r, const char *protocol)
{
    memset(r, 0, sizeof *r);
    mgs_config_defaults(&r->cfg);
    snprintf(r->cfg.coherence_protocol, sizeof r->cfg.coherence_protocol,
             "%s", protocol);
}

/* The runtime: timing mode, gpus GPUs of 1 GiB on platform. */
static inline void coh_run_start(coh_run *r, const char *platform, int gpus)
{
    rt_rig_start(r, MGS_MODE_TIMING, gpus, 1ull << 30, platform);
}

static inline void coh_run_open(coh_run *r, const char *protocol,
                                const char *platform, int gpus)
{
    coh_run_config(r, protocol);
    coh_run_start(r, platform, gpus);
}

static inline void coh_run_close(coh_run *r)
{
    rt_rig_fini(r);
    mgs_error_clear();
}

/* Small-size arguments of workload `name` on gpus GPUs. */
static inline const mgs_workload *coh_small_args(const char *name, int gpus,
                                                 bool gpu_all, wl_args *a)
{
    const mgs_workload *wl = wl_find(name);
    assert_non_null(wl);
    memset(a, 0, sizeof *a);
    a->seed = 1;
    a->num_gpus = gpus;
    a->gpu_all = gpu_all;
    for (int i = 0; i < WL_MAX_PARAMS && wl->params[i].name; i++)
        a->param[i] = wl->params[i].small;
    return wl;
}

/* Kernel `name` of <kernel dir>/<file>.hsaco. */
static inline mgs_kernel *coh_kernel(mgs_rt *rt, const char *file,
                                     const char *name)
{
    char path[512];
    const char *dir = getenv("MGSIM_KERNEL_DIR");
    snprintf(path, sizeof path, "%s/%s.hsaco",
             dir && *dir ? dir : MGS_KERNEL_DIR, file);
    mgs_module *m;
    mgs_kernel *k;
    assert_int_equal(mgs_module_load(rt, path, &m), MGS_OK);
    assert_int_equal(mgs_module_kernel(m, name, &k), MGS_OK);
    return k;
}

/* Sum of metric over the components whose name starts with prefix. */
static inline double coh_stat_sum(const coh_run *r, const char *prefix,
                                  const char *metric)
{
    char pattern[128];
    snprintf(pattern, sizeof pattern, "%s*", prefix);
    return rt_rig_stat(r, pattern, metric, NULL);
}

/* kernels/isa_sync.hip's isa_atomics over n work-items launched on every
** GPU (MGS_GPU_ALL), its counters in GPU 0's memory: g[] receives the
** 32-bit counters (g[5]: one atomicSub per work-item) and g64[] the 64-bit
** ones (g64[0]: one atomicAdd per work-item). */
static inline void coh_isa_atomics(mgs_rt *rt, int32_t n, int32_t g[8],
                                   uint64_t g64[4])
{
    mgs_kernel *k = coh_kernel(rt, "isa_sync", "isa_atomics");
    uint32_t gu[8] = {0, ~0u, 0, 0, 0, 0, 0, 0};
    memset(g, 0, 8 * sizeof *g);
    memset(g64, 0, 4 * sizeof *g64);
    mgs_dptr dg, dgu, dg64;
    assert_int_equal(mgs_malloc(rt, 0, 8 * sizeof *g, &dg), MGS_OK);
    assert_int_equal(mgs_malloc(rt, 0, sizeof gu, &dgu), MGS_OK);
    assert_int_equal(mgs_malloc(rt, 0, 4 * sizeof *g64, &dg64), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(rt, dg, g, 8 * sizeof *g), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(rt, dgu, gu, sizeof gu), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(rt, dg64, g64, 4 * sizeof *g64), MGS_OK);
    struct { uint64_t g, gu, g64; int32_t n; } args = {dg, dgu, dg64, n};
    mgs_launch l = {.grid = {(uint32_t)n, 1, 1}, .block = {256, 1, 1},
                    .args = &args, .args_size = 28, .gpu = MGS_GPU_ALL};
    assert_int_equal(mgs_launch_kernel(rt, k, &l), MGS_OK);
    assert_int_equal(mgs_memcpy_d2h(rt, g, dg, 8 * sizeof *g), MGS_OK);
    assert_int_equal(mgs_memcpy_d2h(rt, g64, dg64, 4 * sizeof *g64), MGS_OK);
}

/* kernels/fence_pass.hip on an open 2-GPU run, data (n ints) and flags
** on GPU 0, one work-group of 256 on each GPU: the reader (GPU 1) caches
** the zeroed data, the writer (GPU 0) rewrites it, fences and raises a
** flag (atomics), the reader spins on the flag, fences and reads the data
** again. Returns how many of the reader's 256 sums are stale. */
#define COH_FENCE_BLOCK 256
static inline int coh_fence_pass_stale(coh_run *r, int n)
{
    mgs_kernel *k = coh_kernel(r->rt, "fence_pass", "fence_pass");
    mgs_dptr data, flags, out;
    assert_int_equal(mgs_malloc(r->rt, 0, (size_t)n * 4, &data), MGS_OK);
    assert_int_equal(mgs_malloc(r->rt, 0, 2 * 4, &flags), MGS_OK);
    assert_int_equal(mgs_malloc(r->rt, 0, 2 * COH_FENCE_BLOCK * 4, &out),
                     MGS_OK);
    assert_int_equal(mgs_memset(r->rt, data, 0, (size_t)n * 4), MGS_OK);
    assert_int_equal(mgs_memset(r->rt, flags, 0, 2 * 4), MGS_OK);
    struct { uint64_t data, flags, out; uint32_t n; } args = {
        data, flags, out, (uint32_t)n};
    mgs_launch l = {.grid = {2 * COH_FENCE_BLOCK, 1, 1},
                    .block = {COH_FENCE_BLOCK, 1, 1}, .args = &args,
                    .args_size = 28, .gpu = MGS_GPU_ALL};
    assert_int_equal(mgs_launch_kernel(r->rt, k, &l), MGS_OK);
    assert_int_equal(mgs_synchronize(r->rt), MGS_OK);
    int32_t res[2 * COH_FENCE_BLOCK];
    assert_int_equal(mgs_memcpy_d2h(r->rt, res, out, sizeof res), MGS_OK);
    /* One work-group ran on each GPU. */
    assert_int_equal(rt_rig_stat(r, "GPU[1].CP", "workgroups", NULL), 1);
    int stale = 0;
    for (int t = 0; t < COH_FENCE_BLOCK; t++) {
        int want = 0;
        for (int i = t; i < n; i += COH_FENCE_BLOCK)
            want += i + 1;
        assert_int_equal(res[COH_FENCE_BLOCK + t], 0); /* before: old */
        stale += res[t] != want;
    }
    return stale;
}

#endif
