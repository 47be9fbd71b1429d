/*
** st: SHOC Stencil2D, `iters` iterations of a 9-point weighted stencil
** (centre 0.25, edge neighbours 0.15, diagonals 0.05; boundary fixed), seed
** 001 Table 3 (128 MB: two n x n float grids, n = 4096).
**
** Placement: adjacent. Both grids are split into bands of rows, one per GPU,
** with one halo row above and below refreshed from the neighbouring GPUs
** after every iteration (wl_stencil2d).
** Verification: relative tolerance 1e-5 + 1e-6 absolute (inputs in [0, 1);
** fused multiply-add rounding).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

enum { P_N, P_ITERS };
static uint64_t st_footprint(const wl_args *a);

static int st_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N], iters = a->param[P_ITERS];
    if (n < 3 || n > 65536 || iters < 1 || iters > 100000)
        return mgs_error_set(MGS_EINVAL, "st: need 3 <= n <= 65536 and "
                             "1 <= iters <= 100000, got n=%lld iters=%lld",
                             (long long)n, (long long)iters);
    int fits = wl_host_fits("st", st_footprint(a));
    if (fits)
        return fits;
    size_t nn = (size_t)(n * n);
    float *cur = mgs_xmalloc(nn * 4), *got = mgs_xmalloc(nn * 4);
    float *nxt = mgs_xmalloc(nn * 4);
    wl_fill_float(cur, nn, a->seed, 0, 0.0f, 1.0f);
    memcpy(got, cur, nn * 4);
    wl_ctx c;
    mgs_kernel *k;
    int rc = wl_ctx_open(&c, rt, a, "st.hsaco");
    if (!rc) rc = wl_kernel(&c, "stencil2d", &k);
    if (!rc) rc = wl_stencil2d(&c, k, n, (int)iters, got);
    if (!rc) {
        for (int64_t s = 0; s < iters; s++) {
            memcpy(nxt, cur, nn * 4);
            for (int64_t i = 1; i < n - 1; i++)
                for (int64_t j = 1; j < n - 1; j++) {
                    const float *m = cur + i * n, *u = m - n, *d = m + n;
                    nxt[i * n + j] = 0.25f * m[j]
                        + 0.15f * (u[j] + d[j] + m[j - 1] + m[j + 1])
                        + 0.05f * (u[j - 1] + u[j + 1] + d[j - 1] + d[j + 1]);
                }
            float *t = cur;
            cur = nxt;
            nxt = t;
        }
        rc = wl_check_f32("st grid", got, cur, nn, 1e-5f, 1e-6f);
    }
    wl_ctx_close(&c);
    free(cur);
    free(got);
    free(nxt);
    return rc;
}

static uint64_t st_footprint(const wl_args *a)
{
    return (uint64_t)(a->param[P_N] * a->param[P_N]) * 8;
}

const mgs_workload wl_st = {
    .name = "st",
    .suite = "REC",
    .pattern = "adjacent",
    .description = "2-D 9-point stencil (SHOC Stencil2D)",
    .kernel_file = "st.hsaco",
    .params = {
        { "n", 64, 4096, "grid height = width (128 MiB: two grids)" },
        { "iters", 2, 4, "stencil iterations" },
    },
    .run = st_run,
    .footprint = st_footprint,
};
