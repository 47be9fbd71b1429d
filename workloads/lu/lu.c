/*
** lu: PolyBench LU decomposition without pivoting, in place on an n x n
** float matrix (seed 001 Table 3: 128 MB, n = 5792).
**
** For each k: lu_scale divides row k right of the diagonal by the pivot,
** then lu_update applies the rank-1 update to the rows below (2n launches).
** Placement: irregular. The matrix is spread over all GPUs (MGS_GPU_ALL);
** each GPU owns a fixed band of rows and updates the part of its band below
** row k, reading row k wherever it lives. As k grows the active rows shrink
** towards the last GPU. On unified, shared and monolithic both kernels
** are single launches over all GPUs.
** Synchronisation (HIP: one stream per GPU): lu_scale of row k runs on the
** GPU whose band holds row k, in order after that GPU's update of step
** k - 1 (which wrote row k); the host then synchronises every GPU before
** the updates, which read row k: one synchronisation per step.
** Inputs: diagonally dominant (diagonal n + [0, 1), elsewhere [0, 1)), so
** no pivoting is needed and the factors stay well conditioned.
** Verification: relative tolerance 1e-3 (+1e-4 absolute) on the packed L
** and U factors: rounding of the fused update and of the division differs
** slightly from the C reference and accumulates over n steps.
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_N };
static uint64_t lu_footprint(const wl_args *a);

static int lu_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    int bad = wl_param_order(a, "lu", n, 1, 65536, 1, lu_footprint);
    if (bad)
        return bad;
    size_t nn = (size_t)(n * n);
    float *m = mgs_xmalloc(nn * 4), *got = mgs_xmalloc(nn * 4);
    wl_fill_float(m, nn, a->seed, 0, 0.0f, 1.0f);
    for (int64_t i = 0; i < n; i++)
        m[i * n + i] += (float)n;
    wl_ctx c;
    mgs_kernel *ks, *ku;
    mgs_dptr d;
    int rc = wl_ctx_open(&c, rt, a, "lu.hsaco");
    if (!rc) rc = wl_kernel(&c, "lu_scale", &ks);
    if (!rc) rc = wl_kernel(&c, "lu_update", &ku);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), m, nn * 4, &d);
    for (int64_t k = 0; !rc && k < n - 1; k++) {
        int owner = 0;
        for (int p = 0; p < c.parts; p++) {
            int64_t b, cnt;
            wl_split(&c, n, 1, p, &b, &cnt);
            if (k >= b && k < b + cnt)
                owner = p;
        }
        rc = wl_launch1(&c, ks, wl_part_gpu(&c, owner),
                        (uint64_t)(n - k - 1), 64, "puu", d, (uint32_t)n,
                        (uint32_t)k);
        if (!rc) rc = wl_sync(&c); /* every band reads the scaled row k */
        for (int p = 0; !rc && p < c.parts; p++) {
            int64_t b, cnt;
            wl_split(&c, n, 1, p, &b, &cnt);
            if (b + cnt <= k + 1)
                continue; /* this band is finished */
            rc = wl_launch2(&c, ku, wl_part_gpu(&c, p),
                            (uint64_t)(n - k - 1), (uint64_t)cnt, 16, 16,
                            "puuuu", d, (uint32_t)n, (uint32_t)k,
                            (uint32_t)b, (uint32_t)cnt);
        }
    }
    if (!rc) rc = wl_download(&c, got, d, nn * 4);
    if (!rc) {
        for (int64_t k = 0; k < n - 1; k++) {
            for (int64_t j = k + 1; j < n; j++)
                m[k * n + j] = m[k * n + j] / m[k * n + k];
            for (int64_t i = k + 1; i < n; i++)
                for (int64_t j = k + 1; j < n; j++)
                    m[i * n + j] -= m[i * n + k] * m[k * n + j];
        }
        rc = wl_check_f32("lu A", got, m, nn, 1e-3f, 1e-4f);
    }
    wl_ctx_close(&c);
    free(m);
    free(got);
    return rc;
}

static uint64_t lu_footprint(const wl_args *a)
{
    return (uint64_t)(a->param[P_N] * a->param[P_N]) * 4;
}

const mgs_workload wl_lu = {
    .name = "lu",
    .suite = "REC",
    .pattern = "irregular",
    .description = "LU decomposition without pivoting, 2 launches per step",
    .kernel_file = "lu.hsaco",
    .params = {
        { "n", 48, 5792, "matrix order (128 MiB)" },
    },
    .run = lu_run,
    .footprint = lu_footprint,
};
