/*
** triad: STREAM triad (CARVE stand-in for stream-triad, seed 004 Table II;
** Fig. 2 class: no NUMA bottleneck). Each sweep computes x = y + s * z and
** then y = x + s * z (kernels/triad.hip), `iters` sweeps.
**
** Placement: partitioned. The arrays are spread over the GPUs
** (MGS_GPU_ALL, platform.placement) and each GPU works on its contiguous
** slice (one launch per GPU on discrete, one MGS_GPU_ALL launch on
** unified), so with contiguous placement every access is local.
** Inputs: wl_fill_float in [-1, 1). Verification: relative 1e-5 (the
** model may fuse the multiply-add).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_N, P_ITERS };
#define TRIAD_S 0.5f

static int triad_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N], iters = a->param[P_ITERS];
    if (n < 256 || n > (1ll << 30) || iters < 1 || iters > 1000)
        return mgs_error_set(MGS_EINVAL, "triad: n must be in [256, 2^30] "
                             "and iters in [1, 1000]; got n=%lld iters=%lld",
                             (long long)n, (long long)iters);
    size_t bytes = (size_t)n * 4;
    int rc = wl_host_fits("triad", 3 * bytes);
    if (rc)
        return rc;
    float *x = mgs_xcalloc((size_t)n, 4), *y = mgs_xmalloc(bytes);
    float *z = mgs_xmalloc(bytes), *got = mgs_xmalloc(bytes);
    wl_fill_float(y, (size_t)n, a->seed, 0, -1.0f, 1.0f);
    wl_fill_float(z, (size_t)n, a->seed, 1, -1.0f, 1.0f);
    wl_ctx c;
    mgs_kernel *k = NULL;
    mgs_dptr dx, dy, dz;
    rc = wl_ctx_open(&c, rt, a, "triad.hsaco");
    if (!rc) rc = wl_kernel(&c, "triad", &k);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), bytes, &dx);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), y, bytes, &dy);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), z, bytes, &dz);
    for (int64_t it = 0; !rc && it < 2 * iters; it++) {
        mgs_dptr out = it % 2 ? dy : dx, in = it % 2 ? dx : dy;
        for (int p = 0; !rc && p < c.parts; p++) {
            int64_t b, cnt;
            wl_split(&c, n, 256, p, &b, &cnt);
            rc = wl_launch1(&c, k, wl_part_gpu(&c, p), (uint64_t)cnt, 256,
                            "pppfuu", out, in, dz, (double)TRIAD_S,
                            (uint32_t)b, (uint32_t)cnt);
        }
    }
    if (!rc) rc = wl_download(&c, got, dy, bytes);
    if (!rc) {
        for (int64_t it = 0; it < iters; it++)
            for (int64_t i = 0; i < n; i++) {
                x[i] = y[i] + TRIAD_S * z[i];
                y[i] = x[i] + TRIAD_S * z[i];
            }
        rc = wl_check_f32("triad: y", got, y, (size_t)n, 1e-5f, 1e-6f);
    }
    wl_ctx_close(&c);
    free(x);
    free(y);
    free(z);
    free(got);
    return rc;
}

static uint64_t triad_footprint(const wl_args *a)
{
    return 3ull * 4 * (uint64_t)a->param[P_N];
}

const mgs_workload wl_triad = {
    .name = "triad",
    .suite = "CARVE",
    .pattern = "partitioned",
    .description = "STREAM triad x = y + s z, y = x + s z (CARVE stand-in for stream-triad)",
    .kernel_file = "triad.hsaco",
    .params = {{"n", 65536, 1 << 28,
                "elements (default 2^28: 3 GB, seed 004 Table II stream-triad)"},
               {"iters", 2, 4, "sweeps, two kernels each (assumed)"}},
    .run = triad_run,
    .footprint = triad_footprint,
};
