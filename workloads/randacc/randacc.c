/*
** randacc: random reads of a shared table (CARVE stand-in for "Random
** Memory Access", seed 004 Table II; the paper's worst case for the RDC:
** most lookups miss it). Each of `iters` kernels has every work-item sum
** `reads` table entries at hashed positions (a new salt per kernel) into
** out[i] (kernels/randacc.hip).
**
** Placement: the table and out are spread over the GPUs (MGS_GPU_ALL);
** each GPU computes its contiguous slice of out, and its reads land on
** every GPU's memory alike.
** Verification: bit-exact (unsigned sums).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_TABLE, P_N, P_READS, P_ITERS };

static int randacc_run(mgs_rt *rt, const wl_args *a)
{
    int64_t tn = a->param[P_TABLE], n = a->param[P_N];
    int64_t reads = a->param[P_READS], iters = a->param[P_ITERS];
    if (tn < 256 || tn > (1ll << 31) || n < 256 || n > (1ll << 28) ||
        reads < 1 || reads > 64 || iters < 1 || iters > 100)
        return mgs_error_set(MGS_EINVAL, "randacc: table in [256, 2^31], n "
                             "in [256, 2^28], reads in [1, 64], iters in "
                             "[1, 100]");
    int rc = wl_host_fits("randacc", 4 * (uint64_t)(tn + n));
    if (rc)
        return rc;
    uint32_t *t = mgs_xmalloc((size_t)tn * 4);
    uint32_t *want = mgs_xmalloc((size_t)n * 4), *got = mgs_xmalloc((size_t)n * 4);
    wl_rng r;
    wl_rng_init(&r, a->seed, 0);
    for (int64_t i = 0; i < tn; i++)
        t[i] = (uint32_t)wl_rng_u64(&r);
    wl_ctx c;
    mgs_kernel *k = NULL;
    mgs_dptr dt, dout;
    rc = wl_ctx_open(&c, rt, a, "randacc.hsaco");
    if (!rc) rc = wl_kernel(&c, "randacc", &k);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), t, (size_t)tn * 4, &dt);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), (size_t)n * 4, &dout);
    for (int64_t it = 0; !rc && it < iters; it++) {
        for (int p = 0; !rc && p < c.parts; p++) {
            int64_t b, cnt;
            wl_split(&c, n, 256, p, &b, &cnt);
            rc = wl_launch1(&c, k, wl_part_gpu(&c, p), (uint64_t)cnt, 256,
                            "ppuuuuu", dt, dout, (uint32_t)tn,
                            (uint32_t)reads, (uint32_t)it, (uint32_t)b,
                            (uint32_t)cnt);
        }
        if (!rc) rc = wl_sync(&c);
    }
    if (!rc) rc = wl_download(&c, got, dout, (size_t)n * 4);
    if (!rc) {
        uint32_t salt = (uint32_t)(iters - 1);
        for (int64_t i = 0; i < n; i++) {
            uint32_t s = 0;
            for (uint32_t k2 = 0; k2 < (uint32_t)reads; k2++)
                s += t[wl_hash32((uint32_t)i * 64u + k2 + salt * 0x9e3779b9u) %
                       (uint32_t)tn];
            want[i] = s;
        }
        rc = wl_check_u32("randacc: out", got, want, (size_t)n);
    }
    wl_ctx_close(&c);
    free(t);
    free(want);
    free(got);
    return rc;
}

static uint64_t randacc_footprint(const wl_args *a)
{
    return 4ull * (uint64_t)(a->param[P_TABLE] + a->param[P_N]);
}

const mgs_workload wl_randacc = {
    .name = "randacc",
    .suite = "CARVE",
    .pattern = "random",
    .description = "random reads of a shared table (CARVE stand-in for RandAccess)",
    .kernel_file = "randacc.hsaco",
    .params = {{"table", 1 << 16, 1ll << 31,
                "table entries (default 2^31: 8 GB; seed 004 Table II RandAccess 15 GB)"},
               {"n", 16384, 1 << 22, "work-items (output entries; assumed)"},
               {"reads", 8, 16, "random reads per work-item (assumed)"},
               {"iters", 2, 4, "kernels, each with new positions (assumed)"}},
    .run = randacc_run,
    .footprint = randacc_footprint,
};
