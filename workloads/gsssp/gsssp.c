/*
** gsssp: single-source shortest paths (seed 003 Table 2: "shortest path
** computation", many-to-many), Bellman-Ford rounds on a symmetric grid
** graph with one far edge per vertex (weights 1..16), source vertex 0.
** Each round: nd = d on the own vertices, then every GPU relaxes its
** vertices' edges with atomicMin on nd (atomics to shared pages: GPS
** forwards each to the other subscribers, never coalesced). The memcpy
** paradigm runs the same push on each GPU's own full copy of nd, then
** exchanges: GPU p copies its candidates for GPU q's vertices into q's
** staging array (slot p) and q takes the minimum at the start of the next
** round (gps_sssp_init_merge: the init kernel with the merge folded in;
** gps_sssp_merge after the last round); the result is broadcast once,
** before the download. So every paradigm, and
** the infinite-bandwidth bound (memcpy with instant copies), does the
** same work as one GPU (an earlier pull version scanned every vertex's
** edges every round: 8x the work of the push, which skips unreached
** vertices, and put the "bound" below one GPU, issue 20). Paradigm: the
** `paradigm` parameter (workloads/wl_gps.h). Verification: exact.
*/
#include "workloads/wl_gps.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"

enum { P_N, P_ITERS, P_PARADIGM };
extern const mgs_workload wl_gsssp;

#define INF 0xffffffffu

/* memcpy: each GPU's candidates for the others' vertices (its copy of nd)
** go to their owner's staging array, slot p; the owner takes the minimum
** in the next round's init (gps_sssp_init_merge) or merge_last. */
static int exchange(wl_gps *w, const wl_gbuf *nd, const wl_gbuf *stage,
                    int64_t n, const int64_t v0[], const int64_t nv[])
{
    int rc = wl_sync(&w->c);
    for (int p = 0; !rc && p < w->ngpu; p++)
        for (int q = 0; !rc && q < w->ngpu; q++)
            if (q != p && nv[q])
                rc = mgs_memcpy_d2d(w->c.rt,
                                    stage->copy[q] +
                                        (uint64_t)(p * n + v0[q]) * 4,
                                    nd->copy[p] + (uint64_t)v0[q] * 4,
                                    (uint64_t)nv[q] * 4);
    return rc;
}

/* After the last round's exchange: each owner's minimum (gps_sssp_merge). */
static int merge_last(wl_gps *w, const wl_gbuf *nd, const wl_gbuf *stage,
                      mgs_kernel *kmerge, int64_t n, const int64_t v0[],
                      const int64_t nv[])
{
    int rc = wl_sync(&w->c);
    for (int q = 0; !rc && q < w->ngpu; q++)
        rc = wl_launch1(&w->c, kmerge, wl_part_gpu(&w->c, q), (uint64_t)nv[q],
                        256, "ppuuuuu", wl_gps_ptr(w, stage, q),
                        wl_gps_ptr(w, nd, q), (uint32_t)n, (uint32_t)w->ngpu,
                        (uint32_t)q, (uint32_t)v0[q], (uint32_t)nv[q]);
    return rc;
}

static int gsssp_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N], iters = a->param[P_ITERS];
    int paradigm = (int)a->param[P_PARADIGM];
    if (n < 64 || n > (1 << 24) || iters < 1)
        return mgs_error_set(MGS_EINVAL, "gsssp: n in [64, 2^24], iters >= 1");
    wl_gps_graph g;
    wl_gps_graph_make(&g, n, (int64_t)sqrt((double)n), 1, a->seed);
    uint32_t *d[2], *got = malloc((size_t)n * 4);
    for (int v = 0; v < 2; v++) {
        d[v] = malloc((size_t)n * 4);
        memset(d[v], 0xff, (size_t)n * 4);
        d[v][0] = 0;
    }
    wl_gps w;
    wl_gbuf *rowp, *col, *wt, *gd[2], *stage = NULL;
    mgs_kernel *kinit = NULL, *kstep = NULL, *kmerge = NULL, *kinitm = NULL;
    int64_t v0[WL_MAX_PARTS], nv[WL_MAX_PARTS];
    wl_grange own[WL_MAX_PARTS];
    int rc = wl_gps_open(&w, rt, a, "gps.hsaco", paradigm);
    bool copies = paradigm == WL_GPS_MEMCPY;
    for (int p = 0; !rc && p < w.ngpu; p++) {
        wl_gps_split(&w, n, p, &v0[p], &nv[p]);
        own[p] = (wl_grange){(uint64_t)v0[p] * 4,
                             (uint64_t)(v0[p] + nv[p]) * 4};
    }
    if (!rc)
        rc = wl_gps_graph_arrays(&w, &g, v0, nv, &rowp, &col, &wt);
    /* memcpy: nd is not broadcast after every round (the push reads only
    ** the own vertices' d); the exchange below sends the candidates. */
    for (int v = 0; v < 2 && !rc; v++) {
        rc = wl_gps_array(&w, d[v], (size_t)n * 4, own, !copies, &gd[v]);
        for (int p = 0; !rc && p < w.ngpu; p++)
            wl_gps_graph_access(&g, gd[v], p, v0[p], nv[p]);
    }
    copies = copies && w.ngpu > 1;
    if (!rc && copies)
        rc = wl_gps_array(&w, NULL, (size_t)(n * 4 * w.ngpu), own, false,
                          &stage);
    if (!rc)
        rc = wl_gps_setup(&w);
    if (!rc)
        rc = wl_kernel(&w.c, "gps_sssp_init", &kinit);
    if (!rc)
        rc = wl_kernel(&w.c, "gps_sssp_push", &kstep);
    if (!rc && copies)
        rc = wl_kernel(&w.c, "gps_sssp_merge", &kmerge);
    if (!rc && copies)
        rc = wl_kernel(&w.c, "gps_sssp_init_merge", &kinitm);
    for (int64_t it = 0; !rc && it < iters; it++) {
        const wl_gbuf *in = gd[it & 1], *out = gd[!(it & 1)];
        rc = wl_gps_iter_begin(&w, (int)it);
        for (int p = 0; !rc && p < w.ngpu; p++)
            rc = copies && it > 0
                     ? wl_launch1(&w.c, kinitm, wl_part_gpu(&w.c, p),
                                  (uint64_t)nv[p], 256, "pppuuuuu",
                                  wl_gps_ptr(&w, stage, p),
                                  wl_gps_ptr(&w, in, p),
                                  wl_gps_ptr(&w, out, p), (uint32_t)n,
                                  (uint32_t)w.ngpu, (uint32_t)p,
                                  (uint32_t)v0[p], (uint32_t)nv[p])
                     : wl_launch1(&w.c, kinit, wl_part_gpu(&w.c, p),
                                  (uint64_t)nv[p], 256, "ppuu",
                                  wl_gps_ptr(&w, in, p),
                                  wl_gps_ptr(&w, out, p), (uint32_t)v0[p],
                                  (uint32_t)nv[p]);
        if (!rc)
            rc = wl_sync(&w.c);
        for (int p = 0; !rc && p < w.ngpu; p++)
            rc = wl_launch1(&w.c, kstep, wl_part_gpu(&w.c, p),
                            (uint64_t)nv[p], 256, "pppppuu",
                            wl_gps_ptr(&w, rowp, p), wl_gps_ptr(&w, col, p),
                            wl_gps_ptr(&w, wt, p), wl_gps_ptr(&w, in, p),
                            wl_gps_ptr(&w, out, p), (uint32_t)v0[p],
                            (uint32_t)nv[p]);
        if (!rc && copies)
            rc = exchange(&w, out, stage, n, v0, nv);
        if (!rc)
            rc = wl_gps_iter_end(&w, (int)it);
    }
    if (!rc && copies)
        rc = merge_last(&w, gd[iters & 1], stage, kmerge, n, v0, nv);
    if (!rc && copies)
        rc = wl_gps_exchange(&w, gd[iters & 1]);
    if (!rc)
        rc = wl_gps_download(&w, gd[iters & 1], got);
    if (!rc) {
        for (int64_t it = 0; it < iters; it++) {
            const uint32_t *in = d[it & 1];
            uint32_t *out = d[!(it & 1)];
            for (int64_t v = 0; v < n; v++) {
                uint32_t m = in[v];
                for (uint32_t e = g.rowp[v]; e < g.rowp[v + 1]; e++) {
                    uint32_t du = in[g.col[e]];
                    if (du != INF && du + g.wt[e] < m)
                        m = du + g.wt[e];
                }
                out[v] = m;
            }
        }
        rc = wl_check_u32("gsssp dist", got, d[iters & 1], (size_t)n);
    }
    wl_gps_close(&w);
    wl_gps_graph_free(&g);
    free(d[0]);
    free(d[1]);
    free(got);
    return rc;
}

static uint64_t gsssp_footprint(const wl_args *a)
{
    return (uint64_t)a->param[P_N] * 60 *
           (uint64_t)(a->num_gpus > 0 ? a->num_gpus : 1);
}

const mgs_workload wl_gsssp = {
    .name = "gsssp",
    .suite = "GPS",
    .pattern = "many-to-many",
    .description = "SSSP, Bellman-Ford rounds with atomicMin (seed 003 Table 2)",
    .kernel_file = "gps.hsaco",
    .params = {
        { "n", 65536, 1048576, "vertices (grid graph plus one far edge each)" },
        { "iters", 4, 6, "relaxation rounds (the first is the profiling window)" },
        { "paradigm", 0, 0, "0 gps, 1 manual, 2 gps-all, 3 memcpy, 4 rdl, 5 um (workloads/wl_gps.h)" },
    },
    .run = gsssp_run,
    .footprint = gsssp_footprint,
};
