/*
** vecadd: c = a + b for float vectors, one work-item per element
** (kernels/vecadd.hip). The smallest end-to-end check of the runtime and
** the emulator: kernarg loads, dispatch-packet reads, flat loads/stores.
**
** Placement: partitioned. On a discrete multi-GPU platform each GPU gets a
** contiguous slice of a, b and c in its own memory and its own launch; the
** host copies every slice in, launches on every GPU, then copies every
** slice out, so the GPUs' kernels overlap. On unified, shared and
** monolithic one launch spans all GPUs over buffers spread by
** platform.placement.
** Inputs: wl_fill_float (splitmix64 keyed by seed) in [-1, 1).
** Verification: bit-exact (one IEEE fp32 addition is correctly rounded).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_N };

static int vecadd_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    if (n < 1 || n > (1ll << 30))
        return mgs_error_set(MGS_EINVAL, "vecadd: n must be in [1, 2^30], "
                             "got %lld", (long long)n);
    size_t bytes = (size_t)n * 4;
    float *ha = mgs_xmalloc(bytes), *hb = mgs_xmalloc(bytes);
    float *want = mgs_xmalloc(bytes), *got = mgs_xmalloc(bytes);
    wl_fill_float(ha, (size_t)n, a->seed, 0, -1.0f, 1.0f);
    wl_fill_float(hb, (size_t)n, a->seed, 1, -1.0f, 1.0f);
    for (int64_t i = 0; i < n; i++)
        want[i] = ha[i] + hb[i];
    wl_ctx c;
    mgs_kernel *k = NULL;
    int rc = wl_ctx_open(&c, rt, a, "vecadd.hsaco");
    if (!rc)
        rc = wl_kernel(&c, "vecadd", &k);
    int64_t b[WL_MAX_PARTS], cnt[WL_MAX_PARTS];
    mgs_dptr da[WL_MAX_PARTS], db[WL_MAX_PARTS], dc[WL_MAX_PARTS];
    for (int p = 0; !rc && p < c.parts; p++) {
        wl_split(&c, n, 256, p, &b[p], &cnt[p]);
        int gpu = wl_part_gpu(&c, p);
        size_t sz = (size_t)cnt[p] * 4;
        rc = wl_upload(&c, gpu, ha + b[p], sz, &da[p]);
        if (!rc) rc = wl_upload(&c, gpu, hb + b[p], sz, &db[p]);
        if (!rc) rc = wl_alloc(&c, gpu, sz, &dc[p]);
    }
    for (int p = 0; !rc && p < c.parts; p++)
        rc = wl_launch1(&c, k, wl_part_gpu(&c, p), (uint64_t)cnt[p], 256,
                        "pppu", da[p], db[p], dc[p], (uint32_t)cnt[p]);
    for (int p = 0; !rc && p < c.parts; p++)
        rc = wl_download(&c, got + b[p], dc[p], (size_t)cnt[p] * 4);
    if (!rc)
        rc = wl_check_f32("vecadd: c", got, want, (size_t)n, 0.0f, 0.0f);
    wl_ctx_close(&c);
    free(ha);
    free(hb);
    free(want);
    free(got);
    return rc;
}

static uint64_t vecadd_footprint(const wl_args *a)
{
    return 3ull * 4 * (uint64_t)a->param[P_N];
}

const mgs_workload wl_vecadd = {
    .name = "vecadd",
    .suite = "micro",
    .pattern = "partitioned",
    .description = "vector addition c = a + b (fp32), one work-item per element",
    .kernel_file = "vecadd.hsaco",
    .params = {{"n", 65536, 16 << 20,
                "elements (default: 16 Mi = 192 MB for a, b, c; assumed)"}},
    .run = vecadd_run,
    .footprint = vecadd_footprint,
};
