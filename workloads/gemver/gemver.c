/*
** gemver: PolyBench GEMVER for an n x n float matrix (seed 001 Table 3:
** 256 MB, n = 8192):
**   A = A + u1 v1^T + u2 v2^T;  x = x + beta A^T y;  x = x + z;
**   w = w + alpha A x.
** Three kernels: gemver_a (rows), gemver_x (columns, reads every row of A),
** gemver_w (rows, reads all of x).
** Placement: gather. A and x are read across partitions and are spread page
** by page over all GPUs (MGS_GPU_ALL); each GPU updates its band of rows of
** A, its band of x (in place) and its band of w (stored locally). The small
** vectors u1, u2, v1, v2, y, z are read by every GPU and spread as well.
** Verification: relative tolerance 1e-4 (+1e-5 absolute) on x and w;
** inputs in [0, 1), so sums do not cancel.
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_N };
static uint64_t gemver_footprint(const wl_args *a);

#define GEMVER_ALPHA 1.5f
#define GEMVER_BETA 1.25f

enum { U1, V1, U2, V2, Y, Z, X, W, NVEC };

static int gemver_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    int bad = wl_param_order(a, "gemver", n, 1, 65536, 1, gemver_footprint);
    if (bad)
        return bad;
    size_t nn = (size_t)(n * n), vb = (size_t)n * 4;
    float *ha = mgs_xmalloc(nn * 4), *v[NVEC];
    float *gx = mgs_xmalloc(vb), *gw = mgs_xmalloc(vb);
    wl_fill_float(ha, nn, a->seed, 0, 0.0f, 1.0f);
    for (int i = 0; i < NVEC; i++) {
        v[i] = mgs_xmalloc(vb);
        wl_fill_float(v[i], (size_t)n, a->seed, (uint64_t)i + 1, 0.0f, 1.0f);
    }
    wl_ctx c;
    wl_rows dw;
    mgs_kernel *ka, *kx, *kw;
    mgs_dptr da, dv[NVEC];
    int rc = wl_ctx_open(&c, rt, a, "gemver.hsaco");
    if (!rc) rc = wl_kernel(&c, "gemver_a", &ka);
    if (!rc) rc = wl_kernel(&c, "gemver_x", &kx);
    if (!rc) rc = wl_kernel(&c, "gemver_w", &kw);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), ha, nn * 4, &da);
    for (int i = 0; !rc && i < W; i++)
        rc = wl_upload(&c, wl_shared_gpu(&c), v[i], vb, &dv[i]);
    if (!rc) rc = wl_rows_alloc(&c, &dw, n, 4, 0, 64);
    if (!rc) rc = wl_rows_upload(&c, &dw, v[W]);
    for (int p = 0; !rc && p < c.parts; p++) {
        mgs_dptr off = (mgs_dptr)dw.begin[p] * 4;
        rc = wl_launch2(&c, ka, wl_part_gpu(&c, p), (uint64_t)n,
                        (uint64_t)dw.count[p], 16, 16, "pppppuu",
                        da + off * (mgs_dptr)n, dv[U1] + off, dv[V1],
                        dv[U2] + off, dv[V2], (uint32_t)n,
                        (uint32_t)dw.count[p]);
    }
    if (!rc) rc = wl_sync(&c); /* gemver_x reads columns of every band */
    for (int p = 0; !rc && p < c.parts; p++)
        rc = wl_launch1(&c, kx, wl_part_gpu(&c, p), (uint64_t)dw.count[p],
                        64, "ppppuuuf", da, dv[Y], dv[Z], dv[X],
                        (uint32_t)dw.begin[p], (uint32_t)dw.count[p],
                        (uint32_t)n, (double)GEMVER_BETA);
    if (!rc) rc = wl_sync(&c); /* gemver_w reads all of x */
    for (int p = 0; !rc && p < c.parts; p++)
        rc = wl_launch1(&c, kw, wl_part_gpu(&c, p), (uint64_t)dw.count[p],
                        64, "pppuuf", da + (mgs_dptr)(dw.begin[p] * n) * 4,
                        dv[X], wl_rows_own(&dw, p), (uint32_t)n,
                        (uint32_t)dw.count[p], (double)GEMVER_ALPHA);
    if (!rc) rc = wl_download(&c, gx, dv[X], vb);
    if (!rc) rc = wl_rows_download(&c, &dw, gw);
    if (!rc) {
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++)
                ha[i * n + j] = ha[i * n + j] + v[U1][i] * v[V1][j] +
                                v[U2][i] * v[V2][j];
        float *acc = mgs_xcalloc((size_t)n, 4);
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++)
                acc[j] += ha[i * n + j] * v[Y][i];
        for (int64_t j = 0; j < n; j++) {
            float t = v[X][j] + GEMVER_BETA * acc[j];
            v[X][j] = t + v[Z][j];
        }
        for (int64_t i = 0; i < n; i++) {
            float s = 0.0f;
            for (int64_t j = 0; j < n; j++)
                s += ha[i * n + j] * v[X][j];
            v[W][i] = v[W][i] + GEMVER_ALPHA * s;
        }
        free(acc);
        rc = wl_check_f32("gemver x", gx, v[X], (size_t)n, 1e-4f, 1e-5f);
        if (!rc) rc = wl_check_f32("gemver w", gw, v[W], (size_t)n, 1e-4f,
                                   1e-5f);
    }
    wl_ctx_close(&c);
    free(ha);
    free(gx);
    free(gw);
    for (int i = 0; i < NVEC; i++)
        free(v[i]);
    return rc;
}

static uint64_t gemver_footprint(const wl_args *a)
{
    return (uint64_t)(a->param[P_N] * a->param[P_N] + NVEC * a->param[P_N]) * 4;
}

const mgs_workload wl_gemver = {
    .name = "gemver",
    .suite = "REC",
    .pattern = "gather",
    .description = "vector multiplication and matrix addition (GEMVER)",
    .kernel_file = "gemver.hsaco",
    .params = {
        { "n", 128, 8192, "matrix order (256 MiB)" },
    },
    .run = gemver_run,
    .footprint = gemver_footprint,
};
