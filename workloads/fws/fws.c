/*
** fws: Floyd-Warshall all-pairs shortest paths with next-hop matrix, after
** the AMD APP SDK (seed 000 Table 3: 32 MB = two n x n uint32 matrices).
**
** The host launches fws_step once per intermediate vertex k (n launches).
** Placement: the distance and next-hop matrices are spread over
** all GPUs (MGS_GPU_ALL); on a discrete platform each step is split
** into one launch per GPU over a contiguous band of rows. Every band reads
** row k, which lives wherever its pages are: a gather that moves with k.
** Inputs: a random directed graph; each edge is present with probability
** 1/4 and weighs 1..1000; absent edges are "infinity" (2^30, so that two of
** them still add without overflow).
** Verification: bit-exact for both matrices.
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

enum { P_N };
static uint64_t fws_footprint(const wl_args *a);

#define FWS_INF (1u << 30)

static int fws_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    int bad = wl_param_order(a, "fws", n, 1, 32768, 1, fws_footprint);
    if (bad)
        return bad;
    size_t nn = (size_t)(n * n);
    uint32_t *dist = mgs_xmalloc(nn * 4), *next = mgs_xmalloc(nn * 4);
    uint32_t *gd = mgs_xmalloc(nn * 4), *gn = mgs_xmalloc(nn * 4);
    wl_rng r;
    wl_rng_init(&r, a->seed, 0);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            uint32_t w = wl_rng_below(&r, 4) == 0 ? 1 + wl_rng_below(&r, 1000)
                                                 : FWS_INF;
            dist[i * n + j] = i == j ? 0 : w;
            next[i * n + j] = (uint32_t)j;
        }
    wl_ctx c;
    mgs_kernel *k;
    mgs_dptr dd, dn;
    int rc = wl_ctx_open(&c, rt, a, "fws.hsaco");
    if (!rc) rc = wl_kernel(&c, "fws_step", &k);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), dist, nn * 4, &dd);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), next, nn * 4, &dn);
    for (int64_t v = 0; !rc && v < n; v++) {
        for (int p = 0; !rc && p < c.parts; p++) {
            int64_t b, cnt;
            wl_split(&c, n, 1, p, &b, &cnt);
            rc = wl_launch2(&c, k, wl_part_gpu(&c, p), (uint64_t)n,
                            (uint64_t)cnt, 16, 16, "ppuuuu", dd, dn,
                            (uint32_t)n, (uint32_t)v, (uint32_t)b,
                            (uint32_t)cnt);
        }
        /* step v + 1 reads row v + 1, which one GPU just updated */
        if (!rc) rc = wl_sync(&c);
    }
    if (!rc) rc = wl_download(&c, gd, dd, nn * 4);
    if (!rc) rc = wl_download(&c, gn, dn, nn * 4);
    if (!rc) {
        for (int64_t v = 0; v < n; v++)
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < n; j++) {
                    uint32_t via = dist[i * n + v] + dist[v * n + j];
                    if (via < dist[i * n + j]) {
                        dist[i * n + j] = via;
                        next[i * n + j] = next[i * n + v];
                    }
                }
        rc = wl_check_u32("fws dist", gd, dist, nn);
        if (!rc) rc = wl_check_u32("fws next", gn, next, nn);
    }
    wl_ctx_close(&c);
    free(dist);
    free(next);
    free(gd);
    free(gn);
    return rc;
}

static uint64_t fws_footprint(const wl_args *a)
{
    return (uint64_t)(a->param[P_N] * a->param[P_N]) * 8;
}

const mgs_workload wl_fws = {
    .name = "fws",
    .suite = "HALCONE",
    .pattern = "gather",
    .description = "Floyd-Warshall shortest paths, one launch per vertex",
    .kernel_file = "fws.hsaco",
    .params = {
        { "n", 48, 2048, "vertices (32 MiB: distance + next-hop)" },
    },
    .run = fws_run,
    .footprint = fws_footprint,
};
