/*
** mp: 2x2 max pooling (stride 2) over a batch of float planes, after DNNMark
** (seed 000 Table 3: 64 MB).
**
** Placement: partitioned by plane: each GPU stores and pools its own run of
** input planes and writes its own output planes; no inter-GPU traffic.
** Footprint = planes * h * w * 4 * 1.25.
** Verification: bit-exact (maxima only, no rounding).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <math.h>
#include <stdlib.h>

enum { P_PLANES, P_HW };
static uint64_t mp_footprint(const wl_args *a);

static int mp_run(mgs_rt *rt, const wl_args *a)
{
    int64_t planes = a->param[P_PLANES], hw = a->param[P_HW];
    if (planes < 1 || hw < 2 || hw % 2 || hw > 65536 ||
        planes * hw * hw > (int64_t)UINT32_MAX)
        return mgs_error_set(MGS_EINVAL, "mp: need planes >= 1 and an even "
                             "hw >= 2 with planes*hw*hw < 2^32, got planes="
                             "%lld hw=%lld", (long long)planes,
                             (long long)hw);
    int fits = wl_host_fits("mp", mp_footprint(a));
    if (fits)
        return fits;
    size_t nin = (size_t)(planes * hw * hw), nout = nin / 4;
    size_t oplane = (size_t)(hw / 2 * hw / 2);
    float *in = mgs_xmalloc(nin * 4), *got = mgs_xmalloc(nout * 4);
    float *want = mgs_xmalloc(nout * 4);
    wl_fill_float(in, nin, a->seed, 0, -8.0f, 8.0f);
    wl_ctx c;
    wl_rows din, dout;
    mgs_kernel *k;
    int rc = wl_ctx_open(&c, rt, a, "mp.hsaco");
    if (!rc) rc = wl_kernel(&c, "maxpool", &k);
    if (!rc) rc = wl_rows_alloc(&c, &din, planes, (size_t)(hw * hw) * 4, 0, 1);
    if (!rc) rc = wl_rows_alloc(&c, &dout, planes, oplane * 4, 0, 1);
    if (!rc) rc = wl_rows_upload(&c, &din, in);
    for (int p = 0; !rc && p < c.parts; p++)
        rc = wl_launch1(&c, k, wl_part_gpu(&c, p),
                        (uint64_t)din.count[p] * oplane, 256, "ppuuu",
                        wl_rows_own(&din, p), wl_rows_own(&dout, p),
                        (uint32_t)din.count[p], (uint32_t)hw, (uint32_t)hw);
    if (!rc) rc = wl_rows_download(&c, &dout, got);
    if (!rc) {
        size_t ow = (size_t)hw / 2;
        for (size_t o = 0; o < nout; o++) {
            size_t p = o / oplane, r = o % oplane;
            const float *s = in + p * (size_t)(hw * hw) +
                             r / ow * 2 * (size_t)hw + r % ow * 2;
            want[o] = fmaxf(fmaxf(s[0], s[1]), fmaxf(s[hw], s[hw + 1]));
        }
        rc = wl_check_u32("mp out", (uint32_t *)got, (const uint32_t *)want,
                          nout);
    }
    wl_ctx_close(&c);
    free(in);
    free(got);
    free(want);
    return rc;
}

static uint64_t mp_footprint(const wl_args *a)
{
    uint64_t n = (uint64_t)(a->param[P_PLANES] * a->param[P_HW] *
                            a->param[P_HW]);
    return n * 4 + n;
}

const mgs_workload wl_mp = {
    .name = "mp",
    .suite = "HALCONE",
    .pattern = "partitioned",
    .description = "2x2 max pooling, stride 2, over a batch of float planes",
    .kernel_file = "mp.hsaco",
    .params = {
        { "planes", 4, 205, "input planes (images x channels)" },
        { "hw", 64, 256, "plane height = width (even); 64 MiB default" },
    },
    .run = mp_run,
    .footprint = mp_footprint,
};
