/*
** mm3: PolyBench 3MM, E = A * B; F = C * D; G = E * F, n x n float matrices
** (seed 001 Table 3: 64 MB = 7 matrices, n = 1536). Uses the gemm kernel.
**
** Placement: gather. A, C, E and G are split into bands of rows, one per
** GPU, on that GPU. B and D are read by every GPU and spread over
** all GPUs; F is written band by band by the GPUs and then read whole
** by every GPU, so it is spread over all GPUs too (MGS_GPU_ALL).
** Verification: relative tolerance 1e-4 (+1e-5 absolute); inputs in [0, 1).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_N };
static uint64_t mm3_footprint(const wl_args *a);

static int mm3_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    int bad = wl_param_order(a, "mm3", n, 16, 32768, 16, mm3_footprint);
    if (bad)
        return bad;
    size_t nn = (size_t)(n * n);
    float *h[4], *e = mgs_xcalloc(nn, 4), *f = mgs_xcalloc(nn, 4);
    float *g = mgs_xcalloc(nn, 4), *got = mgs_xmalloc(nn * 4);
    for (int i = 0; i < 4; i++) {
        h[i] = mgs_xmalloc(nn * 4);  /* A, B, C, D */
        wl_fill_float(h[i], nn, a->seed, (uint64_t)i, 0.0f, 1.0f);
    }
    wl_ctx c;
    wl_rows da, dc, de, dg;
    mgs_kernel *k;
    mgs_dptr db, dd, df, fpart[WL_MAX_PARTS];
    int rc = wl_ctx_open(&c, rt, a, "gemm.hsaco");
    if (!rc) rc = wl_kernel(&c, "gemm", &k);
    if (!rc) rc = wl_rows_alloc(&c, &da, n, (size_t)n * 4, 0, 16);
    if (!rc) rc = wl_rows_alloc(&c, &dc, n, (size_t)n * 4, 0, 16);
    if (!rc) rc = wl_rows_alloc(&c, &de, n, (size_t)n * 4, 0, 16);
    if (!rc) rc = wl_rows_alloc(&c, &dg, n, (size_t)n * 4, 0, 16);
    if (!rc) rc = wl_rows_upload(&c, &da, h[0]);
    if (!rc) rc = wl_rows_upload(&c, &dc, h[2]);
    if (!rc) rc = wl_rows_upload(&c, &de, e); /* zeros: beta is 0 */
    if (!rc) rc = wl_rows_upload(&c, &dg, g);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), h[1], nn * 4, &db);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), h[3], nn * 4, &dd);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), f, nn * 4, &df);
    for (int p = 0; !rc && p < c.parts; p++)
        fpart[p] = df + (mgs_dptr)dc.begin[p] * (mgs_dptr)n * 4;
    if (!rc) rc = wl_gemm_parts(&c, k, da.count, da.d, db, de.d, n, n,
                                1.0f, 0.0f);
    if (!rc) rc = wl_gemm_parts(&c, k, dc.count, dc.d, dd, fpart, n, n,
                                1.0f, 0.0f);
    if (!rc) rc = wl_sync(&c); /* G = E * F reads every band of F */
    if (!rc) rc = wl_gemm_parts(&c, k, de.count, de.d, df, dg.d, n, n,
                                1.0f, 0.0f);
    if (!rc) rc = wl_rows_download(&c, &dg, got);
    if (!rc) {
        wl_ref_gemm(e, h[0], h[1], n, n, n, 1.0f, 0.0f);
        wl_ref_gemm(f, h[2], h[3], n, n, n, 1.0f, 0.0f);
        wl_ref_gemm(g, e, f, n, n, n, 1.0f, 0.0f);
        rc = wl_check_f32("mm3 G", got, g, nn, 1e-4f, 1e-5f);
    }
    wl_ctx_close(&c);
    for (int i = 0; i < 4; i++)
        free(h[i]);
    free(e);
    free(f);
    free(g);
    free(got);
    return rc;
}

static uint64_t mm3_footprint(const wl_args *a)
{
    return (uint64_t)(a->param[P_N] * a->param[P_N]) * 28;
}

const mgs_workload wl_mm3 = {
    .name = "mm3",
    .suite = "REC",
    .pattern = "gather",
    .description = "three matrix multiplications (PolyBench 3MM)",
    .kernel_file = "gemm.hsaco",
    .params = {
        { "n", 32, 1536, "matrix order, multiple of 16 (63 MiB)" },
    },
    .run = mm3_run,
    .footprint = mm3_footprint,
};
