/*
** j2d: PolyBench 2-D Jacobi, `steps` sweeps of the 5-point average
** (boundary fixed), seed 001 Table 3 (128 MB: A and B, n = 4096).
**
** Placement: adjacent. A and B are split into bands of rows, one per GPU,
** each with one halo row above and below; after every sweep the halo rows
** are refreshed from the neighbouring GPUs (wl_stencil2d).
** Verification: relative tolerance 1e-5 + 1e-6 absolute (inputs in [0, 1);
** the GPU may fuse the final multiply-add).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

enum { P_N, P_STEPS };
static uint64_t j2d_footprint(const wl_args *a);

static int j2d_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N], steps = a->param[P_STEPS];
    if (n < 3 || n > 65536 || steps < 1 || steps > 100000)
        return mgs_error_set(MGS_EINVAL, "j2d: need 3 <= n <= 65536 and "
                             "1 <= steps <= 100000, got n=%lld steps=%lld",
                             (long long)n, (long long)steps);
    int fits = wl_host_fits("j2d", j2d_footprint(a));
    if (fits)
        return fits;
    size_t nn = (size_t)(n * n);
    float *cur = mgs_xmalloc(nn * 4), *got = mgs_xmalloc(nn * 4);
    float *nxt = mgs_xmalloc(nn * 4);
    wl_fill_float(cur, nn, a->seed, 0, 0.0f, 1.0f);
    memcpy(got, cur, nn * 4);
    wl_ctx c;
    mgs_kernel *k;
    int rc = wl_ctx_open(&c, rt, a, "j2d.hsaco");
    if (!rc) rc = wl_kernel(&c, "jacobi2d", &k);
    if (!rc) rc = wl_stencil2d(&c, k, n, (int)steps, got);
    if (!rc) {
        for (int64_t s = 0; s < steps; s++) {
            memcpy(nxt, cur, nn * 4);
            for (int64_t i = 1; i < n - 1; i++)
                for (int64_t j = 1; j < n - 1; j++) {
                    const float *m = cur + i * n;
                    nxt[i * n + j] = 0.2f * (m[j] + m[j - 1] + m[j + 1] +
                                             m[j - n] + m[j + n]);
                }
            float *t = cur;
            cur = nxt;
            nxt = t;
        }
        rc = wl_check_f32("j2d A", got, cur, nn, 1e-5f, 1e-6f);
    }
    wl_ctx_close(&c);
    free(cur);
    free(got);
    free(nxt);
    return rc;
}

static uint64_t j2d_footprint(const wl_args *a)
{
    return (uint64_t)(a->param[P_N] * a->param[P_N]) * 8;
}

const mgs_workload wl_j2d = {
    .name = "j2d",
    .suite = "REC",
    .pattern = "adjacent",
    .description = "2-D Jacobi relaxation (5-point stencil)",
    .kernel_file = "j2d.hsaco",
    .params = {
        { "n", 64, 4096, "grid height = width (128 MiB: A and B)" },
        { "steps", 2, 4, "Jacobi sweeps" },
    },
    .run = j2d_run,
    .footprint = j2d_footprint,
};
