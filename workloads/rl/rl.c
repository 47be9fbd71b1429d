/*
** rl: ReLU activation y = max(x, 0) over a float vector, after DNNMark
** (seed 000 Table 3: 67 MB).
**
** Placement: partitioned. x and y are split into one contiguous run per
** GPU, each stored on its GPU; no inter-GPU traffic.
** Verification: bit-exact (a comparison and a copy, no rounding).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_N };
static uint64_t rl_footprint(const wl_args *a);

static int rl_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    if (n < 1 || n > (int64_t)UINT32_MAX)
        return mgs_error_set(MGS_EINVAL, "rl: n must be in [1, 2^32), got "
                             "%lld", (long long)n);
    int fits = wl_host_fits("rl", rl_footprint(a));
    if (fits)
        return fits;
    float *x = mgs_xmalloc((size_t)n * 4), *got = mgs_xmalloc((size_t)n * 4);
    float *want = mgs_xmalloc((size_t)n * 4);
    wl_fill_float(x, (size_t)n, a->seed, 0, -1.0f, 1.0f);
    wl_ctx c;
    wl_rows dx, dy;
    mgs_kernel *k;
    int rc = wl_ctx_open(&c, rt, a, "rl.hsaco");
    if (!rc) rc = wl_kernel(&c, "relu", &k);
    if (!rc) rc = wl_rows_alloc(&c, &dx, n, 4, 0, 64);
    if (!rc) rc = wl_rows_alloc(&c, &dy, n, 4, 0, 64);
    if (!rc) rc = wl_rows_upload(&c, &dx, x);
    for (int p = 0; !rc && p < c.parts; p++)
        rc = wl_launch1(&c, k, wl_part_gpu(&c, p), (uint64_t)dx.count[p],
                        256, "ppu", wl_rows_own(&dx, p), wl_rows_own(&dy, p),
                        (uint32_t)dx.count[p]);
    if (!rc) rc = wl_rows_download(&c, &dy, got);
    if (!rc) {
        for (int64_t i = 0; i < n; i++)
            want[i] = x[i] > 0.0f ? x[i] : 0.0f;
        rc = wl_check_u32("rl y", (uint32_t *)got, (const uint32_t *)want,
                          (size_t)n);
    }
    wl_ctx_close(&c);
    free(x);
    free(got);
    free(want);
    return rc;
}

static uint64_t rl_footprint(const wl_args *a)
{
    return (uint64_t)a->param[P_N] * 8;
}

const mgs_workload wl_rl = {
    .name = "rl",
    .suite = "HALCONE",
    .pattern = "partitioned",
    .description = "ReLU activation over a float vector",
    .kernel_file = "rl.hsaco",
    .params = {
        { "n", 8192, 8388608, "elements (67 MB: x and y)" },
    },
    .run = rl_run,
    .footprint = rl_footprint,
};
