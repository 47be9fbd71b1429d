/*
** c2d: PolyBench 2-D convolution (fixed 3x3 coefficients, interior points,
** border 0), seed 001 Table 3 (512 MB: A and B, n = 8192).
**
** Placement: adjacent. A and B are split into bands of rows, one per GPU,
** stored on that GPU; A's band carries one halo row above and below, copied
** from the neighbouring GPUs (wl_stencil2d).
** Verification: relative tolerance 1e-5 + 1e-5 absolute (fused multiply-add
** rounding; the coefficients have mixed signs, so results near zero are
** compared absolutely).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

enum { P_N };
static uint64_t c2d_footprint(const wl_args *a);

static int c2d_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    int bad = wl_param_order(a, "c2d", n, 3, 65536, 1, c2d_footprint);
    if (bad)
        return bad;
    size_t nn = (size_t)(n * n);
    float *in = mgs_xmalloc(nn * 4), *got = mgs_xmalloc(nn * 4);
    float *want = mgs_xcalloc(nn, 4);
    wl_fill_float(in, nn, a->seed, 0, 0.0f, 1.0f);
    memcpy(got, in, nn * 4);
    wl_ctx c;
    mgs_kernel *k;
    int rc = wl_ctx_open(&c, rt, a, "c2d.hsaco");
    if (!rc) rc = wl_kernel(&c, "conv2d", &k);
    if (!rc) rc = wl_stencil2d(&c, k, n, 1, got);
    if (!rc) {
        for (int64_t i = 1; i < n - 1; i++)
            for (int64_t j = 1; j < n - 1; j++) {
                const float *u = in + (i - 1) * n, *m = in + i * n,
                            *d = in + (i + 1) * n;
                want[i * n + j] =
                    0.2f * u[j - 1] + 0.5f * u[j] + -0.8f * u[j + 1]
                    + -0.3f * m[j - 1] + 0.6f * m[j] + -0.9f * m[j + 1]
                    + 0.4f * d[j - 1] + 0.7f * d[j] + 0.1f * d[j + 1];
            }
        rc = wl_check_f32("c2d B", got, want, nn, 1e-5f, 1e-5f);
    }
    wl_ctx_close(&c);
    free(in);
    free(got);
    free(want);
    return rc;
}

static uint64_t c2d_footprint(const wl_args *a)
{
    return (uint64_t)(a->param[P_N] * a->param[P_N]) * 8;
}

const mgs_workload wl_c2d = {
    .name = "c2d",
    .suite = "REC",
    .pattern = "adjacent",
    .description = "2-D convolution with a fixed 3x3 stencil",
    .kernel_file = "c2d.hsaco",
    .params = {
        { "n", 64, 8192, "grid height = width (512 MiB: A and B)" },
    },
    .run = c2d_run,
    .footprint = c2d_footprint,
};
