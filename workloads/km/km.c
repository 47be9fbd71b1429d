/*
** km: k-means clustering, after Hetero-Mark KMeans (seed 002 §5.1.2 and
** Table 5.2: two kernels, partitioned, frequent CPU-GPU communication; no
** size given, default assumed 64 MiB).
**
** Once: km_transpose turns each GPU's points (point-major) into a
** feature-major copy. Each iteration: the host copies the centroids to
** every GPU, km_assign labels each point with its nearest centroid, the host
** copies the labels back and recomputes the centroids from them.
** Placement: partitioned. Points, their transposed copy and the labels are
** split into one band per GPU on that GPU; centroids are duplicated.
** Verification, every iteration: a label must name a centroid whose
** distance (computed by the CPU in the same order) is within a relative
** 1e-5 of the CPU's minimum, so near-ties broken differently by fused
** multiply-add rounding are accepted; anything else is a mismatch.
*/
#include "workloads/wl_locality.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

enum { P_POINTS, P_FEATURES, P_CLUSTERS, P_ITERS, P_LOCALITY };
static uint64_t km_footprint(const wl_args *a);

static float km_dist(const float *pt, const float *cent, int64_t f)
{
    float d = 0.0f;
    for (int64_t j = 0; j < f; j++) {
        float e = pt[j] - cent[j];
        d += e * e;
    }
    return d;
}

static int km_run(mgs_rt *rt, const wl_args *a)
{
    int64_t np = a->param[P_POINTS], f = a->param[P_FEATURES];
    int64_t k = a->param[P_CLUSTERS], iters = a->param[P_ITERS];
    if (np < 1 || f < 1 || f > 4096 || np * f > (int64_t)UINT32_MAX ||
        k < 1 || k > np || k > 4096 || iters < 1 || iters > 10000)
        return mgs_error_set(MGS_EINVAL, "km: need points >= 1, 1 <= "
                             "features <= 4096, 1 <= clusters <= min(points,"
                             " 4096), 1 <= iters <= 10000");
    int fits = wl_host_fits("km", km_footprint(a));
    if (fits)
        return fits;
    size_t nf = (size_t)(np * f);
    float *pts = mgs_xmalloc(nf * 4), *cent = mgs_xmalloc((size_t)(k * f) * 4);
    double *sum = mgs_xmalloc((size_t)(k * f) * sizeof *sum);
    int64_t *cnt = mgs_xmalloc((size_t)k * sizeof *cnt);
    uint32_t *got = mgs_xmalloc((size_t)np * 4);
    uint32_t *want = mgs_xmalloc((size_t)np * 4);
    wl_fill_float(pts, nf, a->seed, 0, 0.0f, 16.0f);
    memcpy(cent, pts, (size_t)(k * f) * 4); /* first k points */

    wl_ctx c;
    wl_rows dp, dt, dm;
    mgs_kernel *kt, *ka;
    mgs_dptr dc[WL_MAX_PARTS];
    int rc = wl_ctx_open(&c, rt, a, "km.hsaco");
    if (!rc) rc = wl_ctx_locality(&c, a->param[P_LOCALITY]);
    if (!rc) rc = wl_kernel(&c, "km_transpose", &kt);
    if (!rc) rc = wl_kernel(&c, "km_assign", &ka);
    if (!rc) rc = wl_rows_alloc(&c, &dp, np, (size_t)f * 4, 0, 64);
    if (!rc) rc = wl_rows_alloc(&c, &dt, np, (size_t)f * 4, 0, 64);
    if (!rc) rc = wl_rows_alloc(&c, &dm, np, 4, 0, 64);
    /* Locality API: each member's points (64 per work-group) on it, in
    ** the point-major input, in every feature row of the transposed copy
    ** and in the labels; the centroids on every member (partition). */
    if (!rc) rc = wl_loc_place(&c, dp.d[0], 1, np, (size_t)f * 4, 64);
    if (!rc) rc = wl_loc_place(&c, dt.d[0], f, np, 4, 64);
    if (!rc) rc = wl_loc_place(&c, dm.d[0], 1, np, 4, 64);
    if (!rc) rc = wl_rows_upload(&c, &dp, pts);
    for (int p = 0; !rc && p < c.parts; p++) {
        rc = wl_upload_copies(&c, wl_part_gpu(&c, p), NULL,
                              (size_t)(k * f) * 4, &dc[p]);
        if (!rc) rc = wl_launch1(&c, kt, wl_part_gpu(&c, p),
                                 (uint64_t)dp.count[p], 64, "ppuu",
                                 wl_rows_own(&dp, p), wl_rows_own(&dt, p),
                                 (uint32_t)dp.count[p], (uint32_t)f);
    }
    for (int64_t it = 0; !rc && it < iters; it++) {
        for (int p = 0; !rc && p < c.parts; p++)
            rc = wl_h2d_copies(&c, dc[p], cent, (size_t)(k * f) * 4);
        for (int p = 0; !rc && p < c.parts; p++)
            rc = wl_launch1(&c, ka, wl_part_gpu(&c, p),
                            (uint64_t)dp.count[p], 64, "pppuuu",
                            wl_rows_own(&dt, p), dc[p], wl_rows_own(&dm, p),
                            (uint32_t)dp.count[p], (uint32_t)f, (uint32_t)k);
        if (!rc) rc = wl_rows_download(&c, &dm, got);
        if (rc)
            break;
        for (int64_t i = 0; i < np; i++) {
            const float *pt = pts + i * f;
            uint32_t best = 0;
            float best_d = 0.0f;
            for (int64_t q = 0; q < k; q++) {
                float d = km_dist(pt, cent + q * f, f);
                if (q == 0 || d < best_d) {
                    best_d = d;
                    best = (uint32_t)q;
                }
            }
            want[i] = best;
            if (got[i] < (uint32_t)k && got[i] != best &&
                km_dist(pt, cent + got[i] * f, f) <= best_d * (1 + 1e-5f))
                want[i] = got[i]; /* a near-tie, fairly broken */
        }
        rc = wl_check_u32("km label", got, want, (size_t)np);
        if (rc)
            break;
        /* Centroid update from the GPU's labels (empty clusters stay). */
        memset(sum, 0, (size_t)(k * f) * sizeof *sum);
        memset(cnt, 0, (size_t)k * sizeof *cnt);
        for (int64_t i = 0; i < np; i++) {
            cnt[got[i]]++;
            for (int64_t j = 0; j < f; j++)
                sum[got[i] * f + j] += pts[i * f + j];
        }
        for (int64_t q = 0; q < k; q++)
            if (cnt[q])
                for (int64_t j = 0; j < f; j++)
                    cent[q * f + j] = (float)(sum[q * f + j] / (double)cnt[q]);
    }
    wl_ctx_close(&c);
    free(pts); free(cent); free(sum); free(cnt); free(got); free(want);
    return rc;
}

static uint64_t km_footprint(const wl_args *a)
{
    int64_t np = a->param[P_POINTS], f = a->param[P_FEATURES];
    int parts = a->gpu_all || a->num_gpus < 1 ? 1 : a->num_gpus;
    return (uint64_t)(2 * np * f + np + parts * a->param[P_CLUSTERS] * f) * 4;
}

const mgs_workload wl_km = {
    .name = "km",
    .suite = "MGPUMark",
    .pattern = "partitioned",
    .description = "k-means: transpose kernel + distance/label kernel, "
                   "host centroid update",
    .kernel_file = "km.hsaco",
    .params = {
        { "points", 1024, 262144, "points (64 MiB with transposed copy, "
                                  "assumed)" },
        { "features", 8, 32, "features per point" },
        { "clusters", 4, 8, "clusters" },
        { "iters", 2, 5, "k-means iterations" },
        { "locality", 0, 0, "1: the Locality API variant (unified "
          "platform, docs/workloads.md)" },
    },
    .run = km_run,
    .footprint = km_footprint,
};
