/*
** gemm: PolyBench GEMM, C = alpha * A * B + beta * C for n x n float
** matrices (seed 001 Table 3: 128 MB, n = 3344).
**
** Placement: gather. A and C are split into bands of rows, one per GPU,
** stored on that GPU; B is read by every GPU and spread over
** all GPUs (MGS_GPU_ALL). Each GPU reads local and remote parts of B and
** writes only its own band of C.
** Verification: relative tolerance 1e-4 (+1e-5 absolute); inputs are in
** [0, 1), so sums do not cancel, and only fused multiply-add rounding
** differs from the C reference (same summation order).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_N };
static uint64_t gemm_footprint(const wl_args *a);

#define GEMM_ALPHA 1.5f
#define GEMM_BETA 1.25f

static int gemm_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    int bad = wl_param_order(a, "gemm", n, 16, 32768, 16, gemm_footprint);
    if (bad)
        return bad;
    size_t nn = (size_t)(n * n);
    float *ha = mgs_xmalloc(nn * 4), *hb = mgs_xmalloc(nn * 4);
    float *hc = mgs_xmalloc(nn * 4), *got = mgs_xmalloc(nn * 4);
    wl_fill_float(ha, nn, a->seed, 0, 0.0f, 1.0f);
    wl_fill_float(hb, nn, a->seed, 1, 0.0f, 1.0f);
    wl_fill_float(hc, nn, a->seed, 2, 0.0f, 1.0f);
    wl_ctx c;
    wl_rows da, dc;
    mgs_kernel *k;
    mgs_dptr db;
    int rc = wl_ctx_open(&c, rt, a, "gemm.hsaco");
    if (!rc) rc = wl_kernel(&c, "gemm", &k);
    if (!rc) rc = wl_rows_alloc(&c, &da, n, (size_t)n * 4, 0, 16);
    if (!rc) rc = wl_rows_alloc(&c, &dc, n, (size_t)n * 4, 0, 16);
    if (!rc) rc = wl_rows_upload(&c, &da, ha);
    if (!rc) rc = wl_rows_upload(&c, &dc, hc);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), hb, nn * 4, &db);
    if (!rc) rc = wl_gemm_parts(&c, k, da.count, da.d, db, dc.d, n, n,
                                GEMM_ALPHA, GEMM_BETA);
    if (!rc) rc = wl_rows_download(&c, &dc, got);
    if (!rc) {
        wl_ref_gemm(hc, ha, hb, n, n, n, GEMM_ALPHA, GEMM_BETA);
        rc = wl_check_f32("gemm C", got, hc, nn, 1e-4f, 1e-5f);
    }
    wl_ctx_close(&c);
    free(ha);
    free(hb);
    free(hc);
    free(got);
    return rc;
}

static uint64_t gemm_footprint(const wl_args *a)
{
    return (uint64_t)(a->param[P_N] * a->param[P_N]) * 12;
}

const mgs_workload wl_gemm = {
    .name = "gemm",
    .suite = "REC",
    .pattern = "gather",
    .description = "C = alpha*A*B + beta*C, 16x16 LDS tiles",
    .kernel_file = "gemm.hsaco",
    .params = {
        { "n", 64, 3344, "matrix order, multiple of 16 (128 MiB)" },
    },
    .run = gemm_run,
    .footprint = gemm_footprint,
};
