/*
** sssp: single-source shortest paths on a road-like graph (CARVE stand-in
** for SSSP and, with --param unit=1, bfs-road-usa, seed 004 Table II;
** read-write shared distances, Fig. 2's third class). The graph is a
** w x h grid (every vertex linked to its up to 4 neighbours, as a road
** network's planar mesh) with random weights 1-100 (unit = 1: all 1, so
** the distances are BFS levels). Each of `iters` sweeps is one pull-based
** Bellman-Ford step on every vertex (kernels/sssp.hip), double-buffered,
** with a synchronisation between sweeps; vertex 0 is the source.
**
** Placement: adjacency, weights and both distance arrays spread over the
** GPUs (MGS_GPU_ALL); each GPU updates its contiguous band of vertices and
** reads the band's neighbours (across a partition edge: remote).
** Verification: bit-exact against the same sweeps on the CPU.
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

enum { P_W, P_H, P_ITERS, P_UNIT };
#define SSSP_INF 0x3fffffffu

static int sssp_run(mgs_rt *rt, const wl_args *a)
{
    int64_t w = a->param[P_W], h = a->param[P_H];
    int64_t iters = a->param[P_ITERS], unit = a->param[P_UNIT];
    if (w < 2 || h < 2 || w > 65536 || h > 65536 || w * h > (1ll << 28) ||
        iters < 1 || iters > 100000 || unit < 0 || unit > 1)
        return mgs_error_set(MGS_EINVAL, "sssp: w, h in [2, 65536] (w h <= "
                             "2^28), iters in [1, 100000], unit 0 or 1");
    int64_t n = w * h;
    int rc = wl_host_fits("sssp", 40 * (uint64_t)n);
    if (rc)
        return rc;
    int32_t *nbr = mgs_xmalloc((size_t)n * 16);
    uint32_t *wt = mgs_xmalloc((size_t)n * 16);
    uint32_t *cur = mgs_xmalloc((size_t)n * 4), *next = mgs_xmalloc((size_t)n * 4);
    uint32_t *got = mgs_xmalloc((size_t)n * 4);
    wl_rng r;
    wl_rng_init(&r, a->seed, 0);
    static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            int64_t v = y * w + x;
            for (int k = 0; k < 4; k++) {
                int64_t ux = x + dx[k], uy = y + dy[k];
                bool in = ux >= 0 && ux < w && uy >= 0 && uy < h;
                nbr[v * 4 + k] = in ? (int32_t)(uy * w + ux) : -1;
                wt[v * 4 + k] = unit ? 1 : 1 + wl_rng_below(&r, 100);
            }
        }
    for (int64_t v = 0; v < n; v++)
        cur[v] = SSSP_INF;
    cur[0] = 0;
    wl_ctx c;
    mgs_kernel *k = NULL;
    mgs_dptr dn, dw, dd[2];
    rc = wl_ctx_open(&c, rt, a, "sssp.hsaco");
    if (!rc) rc = wl_kernel(&c, "sssp", &k);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), nbr, (size_t)n * 16, &dn);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), wt, (size_t)n * 16, &dw);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), cur, (size_t)n * 4, &dd[0]);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), (size_t)n * 4, &dd[1]);
    for (int64_t it = 0; !rc && it < iters; it++) {
        for (int p = 0; !rc && p < c.parts; p++) {
            int64_t b, cnt;
            wl_split(&c, n, 256, p, &b, &cnt);
            rc = wl_launch1(&c, k, wl_part_gpu(&c, p), (uint64_t)cnt, 256,
                            "ppppuu", dn, dw, dd[it % 2], dd[(it + 1) % 2],
                            (uint32_t)b, (uint32_t)cnt);
        }
        if (!rc) rc = wl_sync(&c);
    }
    if (!rc) rc = wl_download(&c, got, dd[iters % 2], (size_t)n * 4);
    if (!rc) {
        for (int64_t it = 0; it < iters; it++) {
            for (int64_t v = 0; v < n; v++) {
                uint32_t d = cur[v];
                for (int k2 = 0; k2 < 4; k2++) {
                    int32_t u = nbr[v * 4 + k2];
                    if (u >= 0 && cur[u] < SSSP_INF &&
                        cur[u] + wt[v * 4 + k2] < d)
                        d = cur[u] + wt[v * 4 + k2];
                }
                next[v] = d;
            }
            memcpy(cur, next, (size_t)n * 4);
        }
        rc = wl_check_u32("sssp: dist", got, cur, (size_t)n);
    }
    wl_ctx_close(&c);
    free(nbr);
    free(wt);
    free(cur);
    free(next);
    free(got);
    return rc;
}

static uint64_t sssp_footprint(const wl_args *a)
{
    return 40ull * (uint64_t)a->param[P_W] * (uint64_t)a->param[P_H];
}

const mgs_workload wl_sssp = {
    .name = "sssp",
    .suite = "CARVE",
    .pattern = "adjacent",
    .description = "Bellman-Ford sweeps on a road-like grid graph; unit=1: BFS levels (CARVE stand-in for SSSP, bfs-road)",
    .kernel_file = "sssp.hsaco",
    .params = {{"w", 64, 1024,
                "grid width (default 1024 x 1024: 40 MB; seed 004 Table II SSSP 42 MB)"},
               {"h", 64, 1024, "grid height"},
               {"iters", 8, 16, "Bellman-Ford sweeps (assumed)"},
               {"unit", 0, 0, "1: unit weights (BFS levels, the bfs-road stand-in)"}},
    .run = sssp_run,
    .footprint = sssp_footprint,
};
