/*
** gpagerank: PageRank (seed 003 Table 2, peer-to-peer): pull iterations
** rank'[v] = base + 0.85 * sum over neighbours u of rank[u] / deg(u) on a
** symmetric w-wide grid graph of n vertices (w = sqrt(n)), in 32-bit
** fixed point (exact, so every paradigm and replica agrees bit for bit),
** vertices split over the GPUs, ranks ping-ponging between two arrays.
** (The paper's PageRank is atomic-heavy; here the atomic workload is
** gsssp: PageRank pulls so that the memcpy paradigm, which cannot combine
** remote atomics, runs the same algorithm.) Paradigm: the `paradigm`
** parameter (workloads/wl_gps.h). Verification: exact.
*/
#include "workloads/wl_gps.h"

#include <math.h>
#include <stdlib.h>

#include "mgsim/errors.h"

enum { P_N, P_ITERS, P_PARADIGM };
extern const mgs_workload wl_gpagerank;

#define BASE (150u << 12)          /* (1 - 0.85) x 2^22 */

static int gpagerank_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N], iters = a->param[P_ITERS];
    if (n < 64 || n > (1 << 24) || iters < 1)
        return mgs_error_set(MGS_EINVAL, "gpagerank: n in [64, 2^24], "
                             "iters >= 1");
    wl_gps_graph g;
    wl_gps_graph_make(&g, n, (int64_t)sqrt((double)n), 0, a->seed);
    uint32_t *r[2], *got = malloc((size_t)n * 4);
    for (int v = 0; v < 2; v++) {
        r[v] = malloc((size_t)n * 4);
        for (int64_t i = 0; i < n; i++)
            r[v][i] = 1u << 22;
    }
    wl_gps w;
    wl_gbuf *rowp, *col, *gr[2];
    mgs_kernel *k = NULL;
    int64_t v0[WL_MAX_PARTS], nv[WL_MAX_PARTS];
    wl_grange own[WL_MAX_PARTS];
    int rc = wl_gps_open(&w, rt, a, "gps.hsaco", (int)a->param[P_PARADIGM]);
    for (int p = 0; !rc && p < w.ngpu; p++) {
        wl_gps_split(&w, n, p, &v0[p], &nv[p]);
        own[p] = (wl_grange){(uint64_t)v0[p] * 4,
                             (uint64_t)(v0[p] + nv[p]) * 4};
    }
    if (!rc)
        rc = wl_gps_graph_arrays(&w, &g, v0, nv, &rowp, &col, NULL);
    for (int v = 0; v < 2 && !rc; v++) {
        rc = wl_gps_array(&w, r[v], (size_t)n * 4, own, true, &gr[v]);
        for (int p = 0; !rc && p < w.ngpu; p++)
            wl_gps_graph_access(&g, gr[v], p, v0[p], nv[p]);
    }
    if (!rc)
        rc = wl_gps_setup(&w);
    if (!rc)
        rc = wl_kernel(&w.c, "gps_pr_pull", &k);
    for (int64_t it = 0; !rc && it < iters; it++) {
        const wl_gbuf *in = gr[it & 1], *out = gr[!(it & 1)];
        rc = wl_gps_iter_begin(&w, (int)it);
        for (int p = 0; !rc && p < w.ngpu; p++)
            rc = wl_launch1(&w.c, k, wl_part_gpu(&w.c, p), (uint64_t)nv[p],
                            256, "ppppuuu", wl_gps_ptr(&w, rowp, p),
                            wl_gps_ptr(&w, col, p), wl_gps_ptr(&w, in, p),
                            wl_gps_ptr(&w, out, p), (uint32_t)v0[p],
                            (uint32_t)nv[p], BASE);
        if (!rc)
            rc = wl_gps_iter_end(&w, (int)it);
    }
    if (!rc)
        rc = wl_gps_download(&w, gr[iters & 1], got);
    if (!rc) {
        for (int64_t it = 0; it < iters; it++) {
            const uint32_t *in = r[it & 1];
            uint32_t *out = r[!(it & 1)];
            for (int64_t v = 0; v < n; v++) {
                uint64_t s = 0;
                for (uint32_t e = g.rowp[v]; e < g.rowp[v + 1]; e++) {
                    uint32_t u = g.col[e];
                    s += in[u] / (g.rowp[u + 1] - g.rowp[u]);
                }
                out[v] = BASE + (uint32_t)(s * 85u / 100u);
            }
        }
        rc = wl_check_u32("gpagerank rank", got, r[iters & 1], (size_t)n);
    }
    wl_gps_close(&w);
    wl_gps_graph_free(&g);
    free(r[0]);
    free(r[1]);
    free(got);
    return rc;
}

static uint64_t gpagerank_footprint(const wl_args *a)
{
    return (uint64_t)a->param[P_N] * 36 *
           (uint64_t)(a->num_gpus > 0 ? a->num_gpus : 1);
}

const mgs_workload wl_gpagerank = {
    .name = "gpagerank",
    .suite = "GPS",
    .pattern = "peer-to-peer",
    .description = "PageRank, pull, fixed point, grid graph (seed 003 Table 2)",
    .kernel_file = "gps.hsaco",
    .params = {
        { "n", 65536, 1048576, "vertices (a sqrt(n)-wide grid graph)" },
        { "iters", 4, 5, "iterations (the first is the profiling window)" },
        { "paradigm", 0, 0, "0 gps, 1 manual, 2 gps-all, 3 memcpy, 4 rdl, 5 um (workloads/wl_gps.h)" },
    },
    .run = gpagerank_run,
    .footprint = gpagerank_footprint,
};
