/*
** bs: bitonic sort of unsigned 32-bit keys, after the AMD APP SDK
** (seed 000 Table 3: 67 MB; seed 002 Table 5.2: "random" = irregular).
**
** The host runs the full sorting network: for k = 2, 4, ..., n and
** j = k/2, ..., 1 one launch of bitonic_step (log2(n)(log2(n)+1)/2 launches).
** Placement: irregular. The key array is one buffer spread over
** all GPUs (MGS_GPU_ALL); on a discrete platform each step is split
** into one launch per GPU over a contiguous range of indices, and a
** work-item's partner i ^ j may live on any GPU.
** Verification: bit-exact against qsort of the same keys.
*/
#include "workloads/wl_locality.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

enum { P_N, P_LOCALITY };
static uint64_t bs_footprint(const wl_args *a);

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

static int bs_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    if (n < 2 || n > (1ll << 31) || (n & (n - 1)))
        return mgs_error_set(MGS_EINVAL, "bs: n must be a power of two in "
                             "[2, 2^31], got %lld", (long long)n);
    int fits = wl_host_fits("bs", bs_footprint(a));
    if (fits)
        return fits;
    uint32_t *keys = mgs_xmalloc((size_t)n * 4);
    uint32_t *got = mgs_xmalloc((size_t)n * 4);
    wl_rng r;
    wl_rng_init(&r, a->seed, 0);
    for (int64_t i = 0; i < n; i++)
        keys[i] = (uint32_t)wl_rng_u64(&r);
    wl_ctx c;
    mgs_kernel *kern;
    mgs_dptr d;
    int rc = wl_ctx_open(&c, rt, a, "bs.hsaco");
    if (!rc) rc = wl_ctx_locality(&c, a->param[P_LOCALITY]);
    if (!rc) rc = wl_kernel(&c, "bitonic_step", &kern);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), (size_t)n * 4, &d);
    /* Locality API: each member's run of keys (256 per work-group) on it;
    ** steps with a distance beyond a member's run compare keys of
    ** another member (random pattern). */
    if (!rc) rc = wl_loc_place(&c, d, 1, n, 4, 256);
    if (!rc) rc = mgs_memcpy_h2d(rt, d, keys, (size_t)n * 4);
    for (int64_t k = 2; !rc && k <= n; k <<= 1)
        for (int64_t j = k >> 1; !rc && j > 0; j >>= 1) {
            for (int p = 0; !rc && p < c.parts; p++) {
                int64_t b, cnt;
                wl_split(&c, n, 256, p, &b, &cnt);
                rc = wl_launch1(&c, kern, wl_part_gpu(&c, p), (uint64_t)cnt,
                                256, "puuuu", d, (uint32_t)j, (uint32_t)k,
                                (uint32_t)b, (uint32_t)cnt);
            }
            /* the next step compares keys other GPUs just wrote */
            if (!rc) rc = wl_sync(&c);
        }
    if (!rc) rc = wl_download(&c, got, d, (size_t)n * 4);
    if (!rc) {
        qsort(keys, (size_t)n, 4, cmp_u32);
        rc = wl_check_u32("bs keys", got, keys, (size_t)n);
    }
    wl_ctx_close(&c);
    free(keys);
    free(got);
    return rc;
}

static uint64_t bs_footprint(const wl_args *a)
{
    return (uint64_t)a->param[P_N] * 4;
}

const mgs_workload wl_bs = {
    .name = "bs",
    .suite = "HALCONE",
    .pattern = "irregular",
    .description = "bitonic sort of 32-bit keys, one launch per network step",
    .kernel_file = "bs.hsaco",
    .params = {
        { "n", 4096, 16777216, "keys, a power of two (64 MiB)" },
        { "locality", 0, 0, "1: the Locality API variant (unified "
          "platform, docs/workloads.md)" },
    },
    .run = bs_run,
    .footprint = bs_footprint,
};
