/*
** conv: simple 2-D convolution of an unsigned image with a (2r+1)^2
** unsigned mask, zero padding, after the AMD APP SDK SimpleConvolution
** (seed 000 Table 3: 145 MB; seed 002 Table 5.2 "SC": adjacent access).
**
** Placement: adjacent (2-D). The image is split into bands of rows, one per
** GPU, stored on that GPU with r halo rows above and below; the halo rows
** come from the neighbouring GPUs by device-to-device copies. The output
** band is written locally; the mask is duplicated on each GPU.
** Inputs: pixels 0..255, mask weights 0..15. Integer arithmetic (mod 2^32),
** so verification is bit-exact.
*/
#include "workloads/wl_locality.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_N, P_RADIUS, P_LOCALITY };
static uint64_t conv_footprint(const wl_args *a);

static int conv_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N], rad = a->param[P_RADIUS];
    if (n < 1 || n > 65536 || rad < 0 || rad > 15)
        return mgs_error_set(MGS_EINVAL, "conv: need 1 <= n <= 65536 and "
                             "0 <= radius <= 15, got n=%lld radius=%lld",
                             (long long)n, (long long)rad);
    int fits = wl_host_fits("conv", conv_footprint(a));
    if (fits)
        return fits;
    size_t nn = (size_t)(n * n), m = (size_t)(2 * rad + 1);
    uint32_t *img = mgs_xmalloc(nn * 4), *got = mgs_xmalloc(nn * 4);
    uint32_t *want = mgs_xmalloc(nn * 4), mask[31 * 31];
    wl_rng r;
    wl_rng_init(&r, a->seed, 0);
    for (size_t i = 0; i < nn; i++)
        img[i] = wl_rng_below(&r, 256);
    for (size_t i = 0; i < m * m; i++)
        mask[i] = wl_rng_below(&r, 16);
    wl_ctx c;
    wl_rows din, dout;
    mgs_kernel *k;
    int rc = wl_ctx_open(&c, rt, a, "conv.hsaco");
    if (!rc) rc = wl_ctx_locality(&c, a->param[P_LOCALITY]);
    if (!rc) rc = wl_kernel(&c, "simple_conv", &k);
    if (!rc) rc = wl_rows_alloc(&c, &din, n, (size_t)n * 4, (int)rad, 1);
    if (!rc) rc = wl_rows_alloc(&c, &dout, n, (size_t)n * 4, 0, 1);
    /* Locality API: each member's band of image rows (16 per row of
    ** work-groups) on it, the mask on every member; a member reads the
    ** radius rows beyond its band from its neighbours (adjacent access). */
    if (!rc) rc = wl_loc_place(&c, wl_rows_own(&din, 0), 1, n,
                               (size_t)n * 4, 16);
    if (!rc) rc = wl_loc_place(&c, wl_rows_own(&dout, 0), 1, n,
                               (size_t)n * 4, 16);
    if (!rc) rc = wl_rows_upload(&c, &din, img);
    if (!rc) rc = wl_rows_exchange(&c, &din);
    mgs_dptr dm[WL_MAX_PARTS];
    for (int p = 0; !rc && p < c.parts; p++)
        rc = wl_upload_copies(&c, wl_part_gpu(&c, p), mask, m * m * 4,
                              &dm[p]);
    for (int p = 0; !rc && p < c.parts; p++)
        rc = wl_launch2(&c, k, wl_part_gpu(&c, p), (uint64_t)n,
                        (uint64_t)din.count[p], 16, 16, "pppuuu",
                        wl_rows_own(&din, p), dm[p], wl_rows_own(&dout, p),
                        (uint32_t)n, (uint32_t)din.count[p], (uint32_t)rad);
    if (!rc) rc = wl_rows_download(&c, &dout, got);
    if (!rc) {
        for (int64_t y = 0; y < n; y++)
            for (int64_t x = 0; x < n; x++) {
                uint32_t acc = 0;
                for (int64_t dy = -rad; dy <= rad; dy++)
                    for (int64_t dx = -rad; dx <= rad; dx++) {
                        int64_t yy = y + dy, xx = x + dx;
                        if (yy >= 0 && yy < n && xx >= 0 && xx < n)
                            acc += img[yy * n + xx] *
                                   mask[(dy + rad) * (int64_t)m + dx + rad];
                    }
                want[y * n + x] = acc;
            }
        rc = wl_check_u32("conv out", got, want, nn);
    }
    wl_ctx_close(&c);
    free(img);
    free(got);
    free(want);
    return rc;
}

static uint64_t conv_footprint(const wl_args *a)
{
    int64_t m = 2 * a->param[P_RADIUS] + 1;
    return (uint64_t)(a->param[P_N] * a->param[P_N]) * 8 +
           (uint64_t)(m * m) * 4;
}

const mgs_workload wl_conv = {
    .name = "conv",
    .suite = "HALCONE",
    .pattern = "adjacent",
    .description = "simple 2-D convolution of an integer image",
    .kernel_file = "conv.hsaco",
    .params = {
        { "n", 64, 4352, "image height = width (145 MB: in + out)" },
        { "radius", 1, 1, "mask radius r: (2r+1)^2 mask" },
        { "locality", 0, 0, "1: the Locality API variant (unified "
          "platform, docs/workloads.md)" },
    },
    .run = conv_run,
    .footprint = conv_footprint,
};
