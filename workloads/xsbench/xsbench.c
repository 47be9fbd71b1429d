/*
** xsbench: macroscopic cross-section lookups (CARVE stand-in for XSBench,
** seed 004 Table II; read-only shared data with little locality, >70 %
** remote under NUMA-GPU in the paper). A sorted energy grid of `grid`
** points and 5 cross-section channels per point; each of `iters` kernels
** has every work-item hash an energy (a new salt per kernel), binary-
** search the grid and interpolate the channels (kernels/xsbench.hip).
**
** Placement: grid and table spread over the GPUs (MGS_GPU_ALL); each GPU
** computes its contiguous slice of the lookups.
** Verification: relative 1e-5 (same operations, same order).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_GRID, P_LOOKUPS, P_ITERS };
#define XS_CH 5

static float lookup(const float *eg, const float *xs, uint32_t grid,
                    uint32_t g, uint32_t salt)
{
    float e = (float)(wl_hash32(g ^ (salt * 0x9e3779b9u)) >> 8) *
              (1.0f / 16777216.0f);
    uint32_t lo = 0, hi = grid - 1;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (eg[mid] > e)
            hi = mid;
        else
            lo = mid;
    }
    float f = (e - eg[lo]) / (eg[hi] - eg[lo]);
    float sum = 0.0f;
    for (uint32_t c = 0; c < XS_CH; c++) {
        float x0 = xs[lo * XS_CH + c], x1 = xs[hi * XS_CH + c];
        sum += x0 + f * (x1 - x0);
    }
    return sum;
}

static int xsbench_run(mgs_rt *rt, const wl_args *a)
{
    int64_t grid = a->param[P_GRID], n = a->param[P_LOOKUPS];
    int64_t iters = a->param[P_ITERS];
    if (grid < 16 || grid > (1ll << 28) || n < 256 || n > (1ll << 28) ||
        iters < 1 || iters > 100)
        return mgs_error_set(MGS_EINVAL, "xsbench: grid in [16, 2^28], "
                             "lookups in [256, 2^28], iters in [1, 100]");
    int rc = wl_host_fits("xsbench", 4 * (uint64_t)(grid * (1 + XS_CH) + n));
    if (rc)
        return rc;
    float *eg = mgs_xmalloc((size_t)grid * 4);
    float *xs = mgs_xmalloc((size_t)grid * XS_CH * 4);
    float *want = mgs_xmalloc((size_t)n * 4), *got = mgs_xmalloc((size_t)n * 4);
    /* Strictly increasing energies from 0 to 1 (jittered steps). */
    wl_rng r;
    wl_rng_init(&r, a->seed, 0);
    for (int64_t i = 0; i < grid; i++)
        eg[i] = ((float)i + 0.5f * wl_rng_float(&r, 0.0f, 1.0f)) /
                (float)(grid - 1);
    eg[0] = 0.0f;
    eg[grid - 1] = 1.0f;
    wl_fill_float(xs, (size_t)grid * XS_CH, a->seed, 1, 0.0f, 1.0f);
    wl_ctx c;
    mgs_kernel *k = NULL;
    mgs_dptr deg, dxs, dout;
    rc = wl_ctx_open(&c, rt, a, "xsbench.hsaco");
    if (!rc) rc = wl_kernel(&c, "xsbench", &k);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), eg, (size_t)grid * 4, &deg);
    if (!rc)
        rc = wl_upload(&c, wl_shared_gpu(&c), xs, (size_t)grid * XS_CH * 4,
                       &dxs);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), (size_t)n * 4, &dout);
    for (int64_t it = 0; !rc && it < iters; it++) {
        for (int p = 0; !rc && p < c.parts; p++) {
            int64_t b, cnt;
            wl_split(&c, n, 256, p, &b, &cnt);
            rc = wl_launch1(&c, k, wl_part_gpu(&c, p), (uint64_t)cnt, 256,
                            "pppuuuu", deg, dxs, dout, (uint32_t)grid,
                            (uint32_t)it, (uint32_t)b, (uint32_t)cnt);
        }
        if (!rc) rc = wl_sync(&c);
    }
    if (!rc) rc = wl_download(&c, got, dout, (size_t)n * 4);
    if (!rc) {
        for (int64_t i = 0; i < n; i++)
            want[i] = lookup(eg, xs, (uint32_t)grid, (uint32_t)i,
                             (uint32_t)(iters - 1));
        rc = wl_check_f32("xsbench: out", got, want, (size_t)n, 1e-5f, 1e-6f);
    }
    wl_ctx_close(&c);
    free(eg);
    free(xs);
    free(want);
    free(got);
    return rc;
}

static uint64_t xsbench_footprint(const wl_args *a)
{
    return 4ull * (uint64_t)(a->param[P_GRID] * (1 + XS_CH) +
                             a->param[P_LOOKUPS]);
}

const mgs_workload wl_xsbench = {
    .name = "xsbench",
    .suite = "CARVE",
    .pattern = "random",
    .description = "cross-section lookups: binary search + interpolation (CARVE stand-in for XSBench)",
    .kernel_file = "xsbench.hsaco",
    .params = {{"grid", 4096, 1 << 27,
                "energy grid points x 6 floats (default 2^27: 3 GB; seed 004 Table II XSBench 4.4 GB)"},
               {"lookups", 16384, 1 << 22, "lookups per kernel (assumed)"},
               {"iters", 2, 4, "kernels, each with new energies (assumed)"}},
    .run = xsbench_run,
    .footprint = xsbench_footprint,
};
