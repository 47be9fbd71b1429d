/*
** mm: C = A * B for n x n row-major fp32 matrices with 16x16 tiles staged
** in LDS (kernels/mm.hip): the classic shared-memory tiled matrix multiply,
** exercising ds_write/ds_read2/ds_read_b128, s_barrier and v_mac_f32.
**
** Size: default n = 4096, so that 3 * n^2 * 4 B = 192 MB, the MM footprint
** of seed 000 (HALCONE) Table 3. n must be a multiple of 16.
** Placement: gather. A and C are split into row bands, one per GPU and
** stored there; B is read by every GPU (spread over all GPUs).
** Inputs: wl_fill_float in [0, 1) (no cancellation in the sums).
** Verification: relative tolerance 1e-5 against a CPU reference that sums
** in the kernel's order (k = 0..n-1, one multiply and one add per step):
** wl_ref_gemm with alpha 1 and beta 0 over a zeroed C, so the result is
** the plain sums; the tolerance allows for a fused multiply-add in the
** model.
*/
#include "workloads/wl_locality.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_N, P_LOCALITY };

static int mm_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    if (n < 16 || n > 16384 || n % 16)
        return mgs_error_set(MGS_EINVAL, "mm: n must be a multiple of 16 in "
                             "[16, 16384], got %lld", (long long)n);
    size_t nn = (size_t)(n * n);
    float *ha = mgs_xmalloc(nn * 4), *hb = mgs_xmalloc(nn * 4);
    float *want = mgs_xcalloc(nn, 4), *got = mgs_xmalloc(nn * 4);
    wl_fill_float(ha, nn, a->seed, 0, 0.0f, 1.0f);
    wl_fill_float(hb, nn, a->seed, 1, 0.0f, 1.0f);
    wl_ctx c;
    wl_rows da, dc;
    mgs_kernel *k = NULL;
    mgs_dptr db;
    int rc = wl_ctx_open(&c, rt, a, "mm.hsaco");
    if (!rc) rc = wl_ctx_locality(&c, a->param[P_LOCALITY]);
    if (!rc) rc = wl_kernel(&c, "mm", &k);
    if (!rc) rc = wl_rows_alloc(&c, &da, n, (size_t)n * 4, 0, 16);
    if (!rc) rc = wl_rows_alloc(&c, &dc, n, (size_t)n * 4, 0, 16);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), nn * 4, &db);
    /* Locality API: each member's band of rows of A and C (16 per row of
    ** work-groups) on it, B split in the same bands: a member reads all
    ** of B, three quarters of it remote (gather), and writes locally. */
    if (!rc) rc = wl_loc_place(&c, da.d[0], 1, n, (size_t)n * 4, 16);
    if (!rc) rc = wl_loc_place(&c, dc.d[0], 1, n, (size_t)n * 4, 16);
    if (!rc) rc = wl_loc_place(&c, db, 1, n, (size_t)n * 4, 16);
    if (!rc) rc = wl_rows_upload(&c, &da, ha);
    if (!rc) rc = mgs_memcpy_h2d(rt, db, hb, nn * 4);
    for (int p = 0; !rc && p < c.parts; p++) {
        if (!da.count[p])
            continue;
        rc = wl_launch2(&c, k, wl_part_gpu(&c, p), (uint64_t)n,
                        (uint64_t)da.count[p], 16, 16, "pppu",
                        wl_rows_own(&da, p), db, wl_rows_own(&dc, p),
                        (uint32_t)n);
    }
    if (!rc) rc = wl_rows_download(&c, &dc, got);
    if (!rc) {
        wl_ref_gemm(want, ha, hb, n, n, n, 1.0f, 0.0f); /* want = 0 */
        rc = wl_check_f32("mm: C", got, want, nn, 1e-5f, 0.0f);
    }
    wl_ctx_close(&c);
    free(ha);
    free(hb);
    free(want);
    free(got);
    return rc;
}

static uint64_t mm_footprint(const wl_args *a)
{
    uint64_t n = (uint64_t)a->param[P_N];
    return 3 * n * n * 4;
}

const mgs_workload wl_mm = {
    .name = "mm",
    .suite = "HALCONE",
    .pattern = "gather",
    .description = "tiled matrix multiply C = A * B (fp32, 16x16 LDS tiles)",
    .kernel_file = "mm.hsaco",
    .params = {{"n", 128, 4096,
                "matrix order, multiple of 16 (default: 192 MB, seed 000 "
                "Table 3)"},
               {"locality", 0, 0, "1: the Locality API variant (unified "
                "platform, docs/workloads.md)"}},
    .run = mm_run,
    .footprint = mm_footprint,
};
