/*
** atax: PolyBench ATAX, y = A^T (A x) for an n x n float matrix (seed 000
** Table 3: 64 MB; seed 001 Table 3: 128 MB; default n = 4096 = 64 MiB).
**
** Two kernels: atax_ax (tmp = A x, one work-item per row) and atax_aty
** (y = A^T tmp, one work-item per column).
** Placement: gather. A, x and tmp are read across partitions (atax_aty
** reads every row of A and all of tmp), so they are spread over
** all GPUs (MGS_GPU_ALL); each GPU computes its band of rows of tmp
** and then its band of columns of y, which it stores locally.
** Verification: relative tolerance 1e-4 (+1e-5 absolute); inputs in [0, 1).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_N };
static uint64_t atax_footprint(const wl_args *a);

static int atax_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    int bad = wl_param_order(a, "atax", n, 1, 65536, 1, atax_footprint);
    if (bad)
        return bad;
    size_t nn = (size_t)(n * n);
    float *ha = mgs_xmalloc(nn * 4), *hx = mgs_xmalloc((size_t)n * 4);
    float *tmp = mgs_xcalloc((size_t)n, 4), *want = mgs_xcalloc((size_t)n, 4);
    float *got = mgs_xmalloc((size_t)n * 4);
    wl_fill_float(ha, nn, a->seed, 0, 0.0f, 1.0f);
    wl_fill_float(hx, (size_t)n, a->seed, 1, 0.0f, 1.0f);
    wl_ctx c;
    wl_rows dy;
    mgs_kernel *k1, *k2;
    mgs_dptr da, dx, dt;
    int rc = wl_ctx_open(&c, rt, a, "atax.hsaco");
    if (!rc) rc = wl_kernel(&c, "atax_ax", &k1);
    if (!rc) rc = wl_kernel(&c, "atax_aty", &k2);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), ha, nn * 4, &da);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), hx, (size_t)n * 4, &dx);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), (size_t)n * 4, &dt);
    if (!rc) rc = wl_rows_alloc(&c, &dy, n, 4, 0, 64);
    for (int p = 0; !rc && p < c.parts; p++) {
        int64_t b = dy.begin[p], cnt = dy.count[p];
        rc = wl_launch1(&c, k1, wl_part_gpu(&c, p), (uint64_t)cnt, 64,
                        "pppuu", da + (mgs_dptr)(b * n) * 4, dx,
                        dt + (mgs_dptr)b * 4, (uint32_t)cnt, (uint32_t)n);
    }
    if (!rc) rc = wl_sync(&c); /* atax_aty reads every band of tmp */
    for (int p = 0; !rc && p < c.parts; p++)
        rc = wl_launch1(&c, k2, wl_part_gpu(&c, p), (uint64_t)dy.count[p],
                        64, "pppuuuu", da, dt, wl_rows_own(&dy, p),
                        (uint32_t)dy.begin[p], (uint32_t)dy.count[p],
                        (uint32_t)n, (uint32_t)n);
    if (!rc) rc = wl_rows_download(&c, &dy, got);
    if (!rc) {
        for (int64_t i = 0; i < n; i++) {
            float acc = 0.0f;
            for (int64_t j = 0; j < n; j++)
                acc += ha[i * n + j] * hx[j];
            tmp[i] = acc;
        }
        for (int64_t i = 0; i < n; i++)      /* want[j] sums i in order */
            for (int64_t j = 0; j < n; j++)
                want[j] += ha[i * n + j] * tmp[i];
        rc = wl_check_f32("atax y", got, want, (size_t)n, 1e-4f, 1e-5f);
    }
    wl_ctx_close(&c);
    free(ha);
    free(hx);
    free(tmp);
    free(want);
    free(got);
    return rc;
}

static uint64_t atax_footprint(const wl_args *a)
{
    return (uint64_t)(a->param[P_N] * a->param[P_N] + 3 * a->param[P_N]) * 4;
}

const mgs_workload wl_atax = {
    .name = "atax",
    .suite = "HALCONE",
    .pattern = "gather",
    .description = "matrix transpose and vector multiplication, y = A^T A x",
    .kernel_file = "atax.hsaco",
    .params = {
        { "n", 128, 4096, "matrix order (64 MiB)" },
    },
    .run = atax_run,
    .footprint = atax_footprint,
};
