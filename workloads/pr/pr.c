/*
** pr: PageRank by power iteration over a generated R-MAT graph (wl_rmat),
** pull formulation, after Hetero-Mark PageRank (seed 001 Table 3: 256 MB;
** default 2^21 vertices x 27 edges = 256 MiB).
**
** Each iteration: pr_contrib (share = rank / out-degree, per GPU over its
** vertices) then pr_pull (next = (1 - 0.85) / n + 0.85 * sum of the
** in-neighbours' shares). Vertices without out-edges keep their rank mass
** (no redistribution), as in the simple Hetero-Mark formulation.
** Placement: gather. Each GPU owns a contiguous range of vertices and stores
** their in-edge rows locally (offsets rebased, source ids global:
** wl_graph_part); the rank, share and out-degree arrays are spread page by
** page over all GPUs (MGS_GPU_ALL), and pr_pull reads the shares of
** in-neighbours anywhere.
** Verification: relative tolerance 1e-4 on the final ranks; the reference
** sums each row in the same (CSR) order, so only fused multiply-add
** rounding differs.
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

enum { P_SCALE, P_EDGEFACTOR, P_ITERS };
static uint64_t pr_footprint(const wl_args *a);

#define PR_DAMPING 0.85f

static int pr_run(mgs_rt *rt, const wl_args *a)
{
    int64_t scale = a->param[P_SCALE], ef = a->param[P_EDGEFACTOR];
    int64_t iters = a->param[P_ITERS];
    if (scale < 1 || scale > 28 || ef < 1 || ef > 256 ||
        (ef << scale) > (int64_t)UINT32_MAX || iters < 1 || iters > 10000)
        return mgs_error_set(MGS_EINVAL, "pr: need 1 <= scale <= 28, 1 <= "
                             "edgefactor <= 256, edges < 2^32, 1 <= iters <= "
                             "10000; got scale=%lld edgefactor=%lld "
                             "iters=%lld", (long long)scale, (long long)ef,
                             (long long)iters);
    int fits = wl_host_fits("pr", pr_footprint(a));
    if (fits)
        return fits;
    wl_graph g;
    wl_rmat(&g, (int)scale, ef, a->seed, 1);
    size_t vb = (size_t)g.nv * 4;
    uint32_t *outdeg = mgs_xcalloc((size_t)g.nv, 4);
    float *rank = mgs_xmalloc(vb), *next = mgs_xmalloc(vb);
    float *contrib = mgs_xmalloc(vb), *got = mgs_xmalloc(vb);
    for (int64_t e = 0; e < g.ne; e++)
        outdeg[g.adj[e]]++;
    for (int64_t v = 0; v < g.nv; v++)
        rank[v] = 1.0f / (float)g.nv;
    const float base = (1.0f - PR_DAMPING) / (float)g.nv;

    wl_ctx c;
    mgs_kernel *kc, *kp;
    mgs_dptr ddeg, drank[2], dcon, doff[WL_MAX_PARTS], dsrc[WL_MAX_PARTS];
    int64_t first[WL_MAX_PARTS], count[WL_MAX_PARTS];
    int rc = wl_ctx_open(&c, rt, a, "pr.hsaco");
    if (!rc) rc = wl_kernel(&c, "pr_contrib", &kc);
    if (!rc) rc = wl_kernel(&c, "pr_pull", &kp);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), outdeg, vb, &ddeg);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), rank, vb, &drank[0]);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), vb, &drank[1]);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), vb, &dcon);
    for (int p = 0; !rc && p < c.parts; p++)
        rc = wl_graph_part(&c, &g, p, 64, &first[p], &count[p], &doff[p],
                           &dsrc[p]);
    int cur = 0;
    for (int64_t it = 0; !rc && it < iters; it++) {
        for (int p = 0; !rc && p < c.parts; p++)
            rc = wl_launch1(&c, kc, wl_part_gpu(&c, p), (uint64_t)count[p],
                            64, "pppuu", drank[cur], ddeg, dcon,
                            (uint32_t)first[p], (uint32_t)count[p]);
        if (!rc) rc = wl_sync(&c); /* pr_pull reads every contribution */
        for (int p = 0; !rc && p < c.parts; p++)
            rc = wl_launch1(&c, kp, wl_part_gpu(&c, p), (uint64_t)count[p],
                            64, "ppppuuff", doff[p], dsrc[p], dcon,
                            drank[cur ^ 1], (uint32_t)first[p],
                            (uint32_t)count[p], (double)base,
                            (double)PR_DAMPING);
        /* the next pr_contrib overwrites shares that other GPUs' pr_pull
        ** may still be reading */
        if (!rc) rc = wl_sync(&c);
        cur ^= 1;
    }
    if (!rc) rc = wl_download(&c, got, drank[cur], vb);
    if (!rc) {
        for (int64_t it = 0; it < iters; it++) {
            for (int64_t v = 0; v < g.nv; v++)
                contrib[v] = outdeg[v] ? rank[v] / (float)outdeg[v] : 0.0f;
            for (int64_t v = 0; v < g.nv; v++) {
                float sum = 0.0f;
                for (uint32_t e = g.off[v]; e < g.off[v + 1]; e++)
                    sum += contrib[g.adj[e]];
                next[v] = base + PR_DAMPING * sum;
            }
            float *t = rank;
            rank = next;
            next = t;
        }
        rc = wl_check_f32("pr rank", got, rank, (size_t)g.nv, 1e-4f, 1e-9f);
    }
    wl_ctx_close(&c);
    wl_graph_free(&g);
    free(outdeg); free(rank); free(next); free(contrib);
    free(got);
    return rc;
}

static uint64_t pr_footprint(const wl_args *a)
{
    uint64_t nv = (uint64_t)1 << a->param[P_SCALE];
    return (5 * nv + nv * (uint64_t)a->param[P_EDGEFACTOR]) * 4;
}

const mgs_workload wl_pr = {
    .name = "pr",
    .suite = "REC",
    .pattern = "gather",
    .description = "PageRank power iteration over an R-MAT graph (pull)",
    .kernel_file = "pr.hsaco",
    .params = {
        { "scale", 10, 21, "log2 of the vertex count" },
        { "edgefactor", 8, 27, "edges per vertex (default: 256 MiB)" },
        { "iters", 3, 10, "power iterations" },
    },
    .run = pr_run,
    .footprint = pr_footprint,
};
