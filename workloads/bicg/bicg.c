/*
** bicg: PolyBench BiCG kernel, q = A p and s = A^T r for an n x n float
** matrix (seed 000 Table 3: 64 MB, n = 4096).
**
** Two kernels: bicg_q (one work-item per row) and bicg_s (one work-item per
** column, reading every row).
** Placement: gather. A, p and r are read across partitions and are spread
** over all GPUs (MGS_GPU_ALL); each GPU computes a band of q
** and a band of s and stores both locally.
** Verification: relative tolerance 1e-4 (+1e-5 absolute); inputs in [0, 1).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_N };
static uint64_t bicg_footprint(const wl_args *a);

static int bicg_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    int bad = wl_param_order(a, "bicg", n, 1, 65536, 1, bicg_footprint);
    if (bad)
        return bad;
    size_t nn = (size_t)(n * n), vb = (size_t)n * 4;
    float *ha = mgs_xmalloc(nn * 4), *hp = mgs_xmalloc(vb);
    float *hr = mgs_xmalloc(vb), *wq = mgs_xcalloc((size_t)n, 4);
    float *ws = mgs_xcalloc((size_t)n, 4), *gq = mgs_xmalloc(vb);
    float *gs = mgs_xmalloc(vb);
    wl_fill_float(ha, nn, a->seed, 0, 0.0f, 1.0f);
    wl_fill_float(hp, (size_t)n, a->seed, 1, 0.0f, 1.0f);
    wl_fill_float(hr, (size_t)n, a->seed, 2, 0.0f, 1.0f);
    wl_ctx c;
    wl_rows dq, ds;
    mgs_kernel *kq, *ks;
    mgs_dptr da, dp, dr;
    int rc = wl_ctx_open(&c, rt, a, "bicg.hsaco");
    if (!rc) rc = wl_kernel(&c, "bicg_q", &kq);
    if (!rc) rc = wl_kernel(&c, "bicg_s", &ks);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), ha, nn * 4, &da);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), hp, vb, &dp);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), hr, vb, &dr);
    if (!rc) rc = wl_rows_alloc(&c, &dq, n, 4, 0, 64);
    if (!rc) rc = wl_rows_alloc(&c, &ds, n, 4, 0, 64);
    for (int p = 0; !rc && p < c.parts; p++) {
        int gpu = wl_part_gpu(&c, p);
        int64_t b = dq.begin[p], cnt = dq.count[p];
        rc = wl_launch1(&c, kq, gpu, (uint64_t)cnt, 64, "pppuu",
                        da + (mgs_dptr)(b * n) * 4, dp, wl_rows_own(&dq, p),
                        (uint32_t)cnt, (uint32_t)n);
        if (!rc) rc = wl_launch1(&c, ks, gpu, (uint64_t)cnt, 64, "pppuuuu",
                                 da, dr, wl_rows_own(&ds, p), (uint32_t)b,
                                 (uint32_t)cnt, (uint32_t)n, (uint32_t)n);
    }
    if (!rc) rc = wl_rows_download(&c, &dq, gq);
    if (!rc) rc = wl_rows_download(&c, &ds, gs);
    if (!rc) {
        for (int64_t i = 0; i < n; i++) {
            float acc = 0.0f;
            for (int64_t j = 0; j < n; j++) {
                acc += ha[i * n + j] * hp[j];
                ws[j] += hr[i] * ha[i * n + j];
            }
            wq[i] = acc;
        }
        rc = wl_check_f32("bicg q", gq, wq, (size_t)n, 1e-4f, 1e-5f);
        if (!rc) rc = wl_check_f32("bicg s", gs, ws, (size_t)n, 1e-4f, 1e-5f);
    }
    wl_ctx_close(&c);
    free(ha); free(hp); free(hr); free(wq); free(ws); free(gq); free(gs);
    return rc;
}

static uint64_t bicg_footprint(const wl_args *a)
{
    return (uint64_t)(a->param[P_N] * a->param[P_N] + 4 * a->param[P_N]) * 4;
}

const mgs_workload wl_bicg = {
    .name = "bicg",
    .suite = "HALCONE",
    .pattern = "gather",
    .description = "BiCG sub-kernel: q = A p and s = A^T r",
    .kernel_file = "bicg.hsaco",
    .params = {
        { "n", 128, 4096, "matrix order (64 MiB)" },
    },
    .run = bicg_run,
    .footprint = bicg_footprint,
};
