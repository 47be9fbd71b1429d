/*
** gd: batch gradient descent for least-squares linear regression, after
** MGPUMark GD (seed 002 §5.1.2: data-parallel minibatches plus an averaging
** step; Table 5.2 gives no size, default assumed 64 MiB of samples).
**
** Each iteration, per GPU: gd_residual (r = X w - y over its samples),
** gd_partial (its partial gradient X^T r, stored in its row of the shared
** gradient array G); then on every GPU gd_update sums all rows of G (the
** gather: each GPU reads the other GPUs' partial gradients) into its own
** copy of the weights, w -= step * sum.
** Synchronisation (HIP: one stream per GPU): the host synchronises every
** GPU between the partials and the updates, since gd_update reads the
** rows the other GPUs wrote. G is double-buffered (iteration i writes
** G[i % 2]), so the next iteration's partials, which may start on one GPU
** while another still runs its update, never overwrite rows being read:
** one synchronisation per iteration.
** Placement: gather. X, y and r are split by samples, one band per GPU on
** that GPU; w is replicated per GPU; G (2 x parts x d) is spread over all
** GPUs. On unified, shared and monolithic (one launch over all GPUs)
** there is one part: X, y, r and G are spread over the GPUs, each GPU
** reads the rows of X of its work-groups wherever they live.
** Inputs: X in [0, 1), y = X w_true + noise, w starts at 0.
** Verification: the final weights of every GPU's copy, relative tolerance
** 1e-4 (+1e-5 absolute); the reference sums in the same order per part.
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

enum { P_SAMPLES, P_FEATURES, P_ITERS };
static uint64_t gd_footprint(const wl_args *a);

static int gd_run(mgs_rt *rt, const wl_args *a)
{
    int64_t m = a->param[P_SAMPLES], d = a->param[P_FEATURES];
    int64_t iters = a->param[P_ITERS];
    if (m < 1 || d < 1 || d > 65536 || m * d > (int64_t)UINT32_MAX ||
        iters < 1 || iters > 100000)
        return mgs_error_set(MGS_EINVAL, "gd: need samples >= 1, 1 <= "
                             "features <= 65536, samples*features < 2^32, "
                             "1 <= iters <= 100000");
    int fits = wl_host_fits("gd", gd_footprint(a));
    if (fits)
        return fits;
    size_t md = (size_t)(m * d);
    float *x = mgs_xmalloc(md * 4), *y = mgs_xmalloc((size_t)m * 4);
    float *wt = mgs_xmalloc((size_t)d * 4), *w = mgs_xcalloc((size_t)d, 4);
    float *r = mgs_xmalloc((size_t)m * 4), *got = mgs_xmalloc((size_t)d * 4);
    float *g = mgs_xcalloc((size_t)d * WL_MAX_PARTS, 4);
    wl_fill_float(x, md, a->seed, 0, 0.0f, 1.0f);
    wl_fill_float(wt, (size_t)d, a->seed, 1, -1.0f, 1.0f);
    wl_fill_float(y, (size_t)m, a->seed, 2, -0.125f, 0.125f);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < d; j++)
            y[i] += x[i * d + j] * wt[j];
    const float step = 0.5f / (float)(m * d);

    wl_ctx c;
    wl_rows dx, dy, dr;
    mgs_kernel *kr, *kp, *ku;
    mgs_dptr dg[2], dw[WL_MAX_PARTS];
    int rc = wl_ctx_open(&c, rt, a, "gd.hsaco");
    if (!rc) rc = wl_kernel(&c, "gd_residual", &kr);
    if (!rc) rc = wl_kernel(&c, "gd_partial", &kp);
    if (!rc) rc = wl_kernel(&c, "gd_update", &ku);
    if (!rc) rc = wl_rows_alloc(&c, &dx, m, (size_t)d * 4, 0, 64);
    if (!rc) rc = wl_rows_alloc(&c, &dy, m, 4, 0, 64);
    if (!rc) rc = wl_rows_alloc(&c, &dr, m, 4, 0, 64);
    if (!rc) rc = wl_rows_upload(&c, &dx, x);
    if (!rc) rc = wl_rows_upload(&c, &dy, y);
    for (int b = 0; !rc && b < 2; b++)
        rc = wl_upload(&c, wl_shared_gpu(&c), g, (size_t)(c.parts * d) * 4,
                       &dg[b]);
    for (int p = 0; !rc && p < c.parts; p++)
        rc = wl_upload(&c, wl_part_gpu(&c, p), w, (size_t)d * 4, &dw[p]);
    for (int64_t it = 0; !rc && it < iters; it++) {
        mgs_dptr gb = dg[it & 1];
        for (int p = 0; !rc && p < c.parts; p++) {
            int gpu = wl_part_gpu(&c, p);
            uint32_t rows = (uint32_t)dx.count[p];
            rc = wl_launch1(&c, kr, gpu, rows, 64, "ppppuu",
                            wl_rows_own(&dx, p), wl_rows_own(&dy, p), dw[p],
                            wl_rows_own(&dr, p), rows, (uint32_t)d);
            if (!rc) rc = wl_launch1(&c, kp, gpu, (uint64_t)d, 64, "pppuu",
                                     wl_rows_own(&dx, p), wl_rows_own(&dr, p),
                                     gb + (mgs_dptr)(p * d) * 4, rows,
                                     (uint32_t)d);
        }
        if (!rc) rc = wl_sync(&c); /* the updates read every partial */
        for (int p = 0; !rc && p < c.parts; p++)
            rc = wl_launch1(&c, ku, wl_part_gpu(&c, p), (uint64_t)d, 64,
                            "ppuuf", dw[p], gb, (uint32_t)c.parts,
                            (uint32_t)d, (double)step);
    }
    if (!rc) {
        /* Reference: the same per-part sums in the same order. */
        for (int64_t it = 0; it < iters; it++) {
            for (int64_t i = 0; i < m; i++) {
                float acc = 0.0f;
                for (int64_t j = 0; j < d; j++)
                    acc += x[i * d + j] * w[j];
                r[i] = acc - y[i];
            }
            for (int p = 0; p < c.parts; p++)
                for (int64_t j = 0; j < d; j++) {
                    float acc = 0.0f;
                    int64_t end = dx.begin[p] + dx.count[p];
                    for (int64_t i = dx.begin[p]; i < end; i++)
                        acc += r[i] * x[i * d + j];
                    g[p * d + j] = acc;
                }
            for (int64_t j = 0; j < d; j++) {
                float sum = 0.0f;
                for (int p = 0; p < c.parts; p++)
                    sum += g[p * d + j];
                w[j] = w[j] - step * sum;
            }
        }
        for (int p = 0; !rc && p < c.parts; p++) {
            rc = wl_download(&c, got, dw[p], (size_t)d * 4);
            if (!rc) rc = wl_check_f32("gd w", got, w, (size_t)d, 1e-4f, 1e-5f);
        }
    }
    wl_ctx_close(&c);
    free(x); free(y); free(wt); free(w); free(r); free(got); free(g);
    return rc;
}

static uint64_t gd_footprint(const wl_args *a)
{
    int64_t m = a->param[P_SAMPLES], d = a->param[P_FEATURES];
    int parts = a->gpu_all || a->num_gpus < 1 ? 1 : a->num_gpus;
    return (uint64_t)(m * d + 2 * m + (int64_t)parts * 3 * d) * 4;
}

const mgs_workload wl_gd = {
    .name = "gd",
    .suite = "MGPUMark",
    .pattern = "gather",
    .description = "gradient descent for linear regression, data parallel",
    .kernel_file = "gd.hsaco",
    .params = {
        { "samples", 1024, 65536, "training samples (64 MiB, assumed)" },
        { "features", 32, 256, "features per sample" },
        { "iters", 2, 4, "gradient steps" },
    },
    .run = gd_run,
    .footprint = gd_footprint,
};
