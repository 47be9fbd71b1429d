/*
** mm2: PolyBench 2MM, tmp = alpha * A * B; D = tmp * C + beta * D, n x n
** float matrices (seed 001 Table 3: 128 MB = 5 matrices, n = 2592).
** Uses the gemm kernel (kernels/gemm.hip).
**
** Placement: gather. A, tmp and D are split into bands of rows, one per
** GPU, on that GPU (row i of tmp feeds only row i of D, so tmp never leaves
** its GPU); B and C are read by every GPU and spread over all
** GPUs (MGS_GPU_ALL).
** Verification: relative tolerance 1e-4 (+1e-5 absolute); inputs in [0, 1).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

enum { P_N };
static uint64_t mm2_footprint(const wl_args *a);

#define MM2_ALPHA 1.5f
#define MM2_BETA 1.25f

static int mm2_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    int bad = wl_param_order(a, "mm2", n, 16, 32768, 16, mm2_footprint);
    if (bad)
        return bad;
    size_t nn = (size_t)(n * n);
    float *h[4], *tmp = mgs_xcalloc(nn, 4), *got = mgs_xmalloc(nn * 4);
    for (int i = 0; i < 4; i++) {
        h[i] = mgs_xmalloc(nn * 4);  /* A, B, C, D */
        wl_fill_float(h[i], nn, a->seed, (uint64_t)i, 0.0f, 1.0f);
    }
    wl_ctx c;
    wl_rows da, dt, dd;
    mgs_kernel *k;
    mgs_dptr db, dc;
    int rc = wl_ctx_open(&c, rt, a, "gemm.hsaco");
    if (!rc) rc = wl_kernel(&c, "gemm", &k);
    if (!rc) rc = wl_rows_alloc(&c, &da, n, (size_t)n * 4, 0, 16);
    if (!rc) rc = wl_rows_alloc(&c, &dt, n, (size_t)n * 4, 0, 16);
    if (!rc) rc = wl_rows_alloc(&c, &dd, n, (size_t)n * 4, 0, 16);
    if (!rc) rc = wl_rows_upload(&c, &da, h[0]);
    if (!rc) rc = wl_rows_upload(&c, &dt, tmp); /* zeros: beta is 0 */
    if (!rc) rc = wl_rows_upload(&c, &dd, h[3]);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), h[1], nn * 4, &db);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), h[2], nn * 4, &dc);
    if (!rc) rc = wl_gemm_parts(&c, k, da.count, da.d, db, dt.d, n, n,
                                MM2_ALPHA, 0.0f);
    if (!rc) rc = wl_gemm_parts(&c, k, dt.count, dt.d, dc, dd.d, n, n,
                                1.0f, MM2_BETA);
    if (!rc) rc = wl_rows_download(&c, &dd, got);
    if (!rc) {
        wl_ref_gemm(tmp, h[0], h[1], n, n, n, MM2_ALPHA, 0.0f);
        wl_ref_gemm(h[3], tmp, h[2], n, n, n, 1.0f, MM2_BETA);
        rc = wl_check_f32("mm2 D", got, h[3], nn, 1e-4f, 1e-5f);
    }
    wl_ctx_close(&c);
    for (int i = 0; i < 4; i++)
        free(h[i]);
    free(tmp);
    free(got);
    return rc;
}

static uint64_t mm2_footprint(const wl_args *a)
{
    return (uint64_t)(a->param[P_N] * a->param[P_N]) * 20;
}

const mgs_workload wl_mm2 = {
    .name = "mm2",
    .suite = "REC",
    .pattern = "gather",
    .description = "two chained matrix multiplications (PolyBench 2MM)",
    .kernel_file = "gemm.hsaco",
    .params = {
        { "n", 48, 2592, "matrix order, multiple of 16 (128 MiB)" },
    },
    .run = mm2_run,
    .footprint = mm2_footprint,
};
