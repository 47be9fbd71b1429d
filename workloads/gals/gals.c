/*
** gals: ALS-like matrix factorisation (seed 003 Table 2: "matrix
** factorization", all-to-all): a dense n x n rating matrix R ~ U V^T with
** k = 8 factors; each iteration updates U from all of V (rows of R split
** over the GPUs), then V from all of U (rows of R^T), with the diagonal
** approximation u_ic = sum_j R_ij v_jc / (sum_j v_jc^2 + lambda) of the
** least-squares solve (assumed: the seed gives no algorithm; the sharing,
** every GPU reading every factor row, is ALS's). Paradigm: the `paradigm`
** parameter (workloads/wl_gps.h). Verification: relative 1e-4.
*/
#include "workloads/wl_gps.h"

#include <stdlib.h>

#include "mgsim/errors.h"

enum { P_N, P_ITERS, P_PARADIGM };
extern const mgs_workload wl_gals;

#define K 8
#define LAMBDA 0.5f

static void ref_step(const float *R, const float *F, float *out, int64_t rows,
                     int64_t cols)
{
    for (int64_t i = 0; i < rows; i++)
        for (int c = 0; c < K; c++) {
            float num = 0.0f, den = LAMBDA;
            for (int64_t j = 0; j < cols; j++) {
                float f = F[j * K + c];
                num += R[i * cols + j] * f;
                den += f * f;
            }
            out[i * K + c] = num / den;
        }
}

static int gals_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N], iters = a->param[P_ITERS];
    if (n < 16 || n > 16384 || iters < 1)
        return mgs_error_set(MGS_EINVAL, "gals: n in [16, 16384], iters >= 1");
    size_t nn = (size_t)(n * n), nk = (size_t)n * K;
    float *R = malloc(nn * 4), *RT = malloc(nn * 4), *U = malloc(nk * 4),
          *V = malloc(nk * 4), *got = malloc(nk * 4);
    wl_fill_float(R, nn, a->seed, 1, 0.0f, 1.0f);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            RT[j * n + i] = R[i * n + j];
    wl_fill_float(U, nk, a->seed, 2, 0.0f, 1.0f);
    wl_fill_float(V, nk, a->seed, 3, 0.0f, 1.0f);
    wl_gps w;
    wl_gbuf *gR, *gRT, *gU, *gV;
    mgs_kernel *k = NULL;
    int64_t r0[WL_MAX_PARTS], nr[WL_MAX_PARTS];
    wl_grange ownR[WL_MAX_PARTS], ownF[WL_MAX_PARTS];
    int rc = wl_gps_open(&w, rt, a, "gps.hsaco", (int)a->param[P_PARADIGM]);
    for (int p = 0; !rc && p < w.ngpu; p++) {
        wl_gps_split(&w, n, p, &r0[p], &nr[p]);
        ownR[p] = (wl_grange){(uint64_t)(r0[p] * n) * 4,
                              (uint64_t)((r0[p] + nr[p]) * n) * 4};
        ownF[p] = (wl_grange){(uint64_t)(r0[p] * K) * 4,
                              (uint64_t)((r0[p] + nr[p]) * K) * 4};
    }
    if (!rc)
        rc = wl_gps_array(&w, R, nn * 4, ownR, false, &gR);
    if (!rc)
        rc = wl_gps_array(&w, RT, nn * 4, ownR, false, &gRT);
    if (!rc)
        rc = wl_gps_array(&w, U, nk * 4, ownF, false, &gU);
    if (!rc)
        rc = wl_gps_array(&w, V, nk * 4, ownF, false, &gV);
    for (int p = 0; !rc && p < w.ngpu; p++) {
        wl_gps_access(gU, p, 0, nk * 4);   /* every factor row */
        wl_gps_access(gV, p, 0, nk * 4);
    }
    if (!rc)
        rc = wl_gps_setup(&w);
    if (!rc)
        rc = wl_kernel(&w.c, "gps_als_step", &k);
    for (int64_t it = 0; !rc && it < iters; it++) {
        rc = wl_gps_iter_begin(&w, (int)it);
        for (int p = 0; !rc && p < w.ngpu; p++)
            rc = wl_launch1(&w.c, k, wl_part_gpu(&w.c, p),
                            (uint64_t)(nr[p] * K), 256, "pppuuuuf",
                            wl_gps_ptr(&w, gR, p), wl_gps_ptr(&w, gV, p),
                            wl_gps_ptr(&w, gU, p), (uint32_t)n, (uint32_t)K,
                            (uint32_t)r0[p], (uint32_t)nr[p],
                            (double)LAMBDA);
        if (!rc)
            rc = wl_gps_exchange(&w, gU);
        for (int p = 0; !rc && p < w.ngpu; p++)
            rc = wl_launch1(&w.c, k, wl_part_gpu(&w.c, p),
                            (uint64_t)(nr[p] * K), 256, "pppuuuuf",
                            wl_gps_ptr(&w, gRT, p), wl_gps_ptr(&w, gU, p),
                            wl_gps_ptr(&w, gV, p), (uint32_t)n, (uint32_t)K,
                            (uint32_t)r0[p], (uint32_t)nr[p],
                            (double)LAMBDA);
        if (!rc)
            rc = wl_gps_exchange(&w, gV);
        if (!rc)
            rc = wl_gps_iter_end(&w, (int)it);
    }
    if (!rc)
        rc = wl_gps_download(&w, gV, got);
    if (!rc) {
        for (int64_t it = 0; it < iters; it++) {
            ref_step(R, V, U, n, n);
            ref_step(RT, U, V, n, n);
        }
        rc = wl_check_f32("gals V", got, V, nk, 1e-4f, 1e-6f);
    }
    wl_gps_close(&w);
    free(R);
    free(RT);
    free(U);
    free(V);
    free(got);
    return rc;
}

static uint64_t gals_footprint(const wl_args *a)
{
    uint64_t n = (uint64_t)a->param[P_N];
    return (n * n * 8 + n * K * 8) *
           (uint64_t)(a->num_gpus > 0 ? a->num_gpus : 1);
}

const mgs_workload wl_gals = {
    .name = "gals",
    .suite = "GPS",
    .pattern = "all-to-all",
    .description = "ALS-like matrix factorisation, k = 8 (seed 003 Table 2)",
    .kernel_file = "gps.hsaco",
    .params = {
        { "n", 256, 2048, "users = items (R and R^T: 2 n^2 floats)" },
        { "iters", 3, 4, "iterations (the first is the profiling window)" },
        { "paradigm", 0, 0, "0 gps, 1 manual, 2 gps-all, 3 memcpy, 4 rdl, 5 um (workloads/wl_gps.h)" },
    },
    .run = gals_run,
    .footprint = gals_footprint,
};
