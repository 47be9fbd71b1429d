/*
** fir: finite impulse response filter, out[i] = sum_t coef[t] * in[i - t]
** (in[< 0] = 0), after Hetero-Mark (seed 000 Table 3: 67 MB; seed 002
** Table 5.2: adjacent access).
**
** Placement: adjacent. The signal and the output are split into one
** contiguous run per GPU, stored on that GPU; the small coefficient array is
** duplicated on each GPU. The taps - 1 samples before a GPU's run belong to
** the previous GPU: they are copied device-to-device into a halo in front of
** the run (wl_rows_exchange), the inter-GPU traffic of this pattern.
** Verification: relative tolerance 1e-5 (+1e-5 absolute): the compiler may
** fuse multiply-adds, which rounds differently from the C reference.
*/
#include "workloads/wl_locality.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_N, P_TAPS, P_LOCALITY };
static uint64_t fir_footprint(const wl_args *a);

static int fir_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N], taps = a->param[P_TAPS];
    if (n < 1 || n > (int64_t)UINT32_MAX || taps < 1 || taps > 4096)
        return mgs_error_set(MGS_EINVAL, "fir: need 1 <= n < 2^32 and 1 <= "
                             "taps <= 4096, got n=%lld taps=%lld",
                             (long long)n, (long long)taps);
    int fits = wl_host_fits("fir", fir_footprint(a));
    if (fits)
        return fits;
    float *x = mgs_xmalloc((size_t)n * 4), *got = mgs_xmalloc((size_t)n * 4);
    float *want = mgs_xmalloc((size_t)n * 4), coef[4096];
    wl_fill_float(x, (size_t)n, a->seed, 0, -1.0f, 1.0f);
    wl_fill_float(coef, (size_t)taps, a->seed, 1, 0.0f, 1.0f);
    wl_ctx c;
    wl_rows din, dout;
    mgs_kernel *k;
    int rc = wl_ctx_open(&c, rt, a, "fir.hsaco");
    if (!rc) rc = wl_ctx_locality(&c, a->param[P_LOCALITY]);
    if (!rc) rc = wl_kernel(&c, "fir", &k);
    if (!rc) rc = wl_rows_alloc_halo(&c, &din, n, 4, (int)taps - 1, 0, 64);
    if (!rc) rc = wl_rows_alloc(&c, &dout, n, 4, 0, 64);
    /* Locality API: each member's batch of samples (256 per work-group)
    ** on it, the taps on every member; a member reads the taps - 1
    ** samples before its batch from the previous one (adjacent access). */
    if (!rc) rc = wl_loc_place(&c, wl_rows_own(&din, 0), 1, n, 4, 256);
    if (!rc) rc = wl_loc_place(&c, wl_rows_own(&dout, 0), 1, n, 4, 256);
    /* The upload fills halos from the host copy; the exchange re-fetches
    ** them from the neighbour GPU as a real multi-GPU program would. */
    if (!rc) rc = wl_rows_upload(&c, &din, x);
    if (!rc) rc = wl_rows_exchange(&c, &din);
    mgs_dptr dc[WL_MAX_PARTS];
    for (int p = 0; !rc && p < c.parts; p++)
        rc = wl_upload_copies(&c, wl_part_gpu(&c, p), coef,
                              (size_t)taps * 4, &dc[p]);
    for (int p = 0; !rc && p < c.parts; p++)
        rc = wl_launch1(&c, k, wl_part_gpu(&c, p), (uint64_t)din.count[p],
                        256, "pppuu", wl_rows_own(&din, p), dc[p],
                        wl_rows_own(&dout, p), (uint32_t)din.count[p],
                        (uint32_t)taps);
    if (!rc) rc = wl_rows_download(&c, &dout, got);
    if (!rc) {
        for (int64_t i = 0; i < n; i++) {
            float acc = 0.0f;
            for (int64_t t = 0; t < taps; t++)
                acc += coef[t] * (i - t >= 0 ? x[i - t] : 0.0f);
            want[i] = acc;
        }
        rc = wl_check_f32("fir out", got, want, (size_t)n, 1e-5f, 1e-5f);
    }
    wl_ctx_close(&c);
    free(x);
    free(got);
    free(want);
    return rc;
}

static uint64_t fir_footprint(const wl_args *a)
{
    return (uint64_t)a->param[P_N] * 8 + (uint64_t)a->param[P_TAPS] * 4;
}

const mgs_workload wl_fir = {
    .name = "fir",
    .suite = "HALCONE",
    .pattern = "adjacent",
    .description = "FIR filter, one output sample per work-item",
    .kernel_file = "fir.hsaco",
    .params = {
        { "n", 8192, 8388608, "samples (67 MB: input + output)" },
        { "taps", 16, 16, "filter taps" },
        { "locality", 0, 0, "1: the Locality API variant (unified "
          "platform, docs/workloads.md)" },
    },
    .run = fir_run,
    .footprint = fir_footprint,
};
