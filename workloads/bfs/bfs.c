/*
** bfs: level-synchronous breadth-first search over a generated R-MAT graph
** (wl_rmat: Graph500 probabilities, permuted ids), after SHOC BFS (seed 000
** Table 3: 574 MB; default 2^22 vertices x 34 edges = 576 MiB).
**
** The host launches bfs_level once per BFS level and per GPU, then reads
** every GPU's "changed" flag back (a CPU round trip per level) and stops
** when no vertex was labelled. The source is the vertex of highest
** out-degree (lowest id on ties), so the search reaches the giant component.
** Placement: irregular. Each GPU owns a contiguous range of vertices and
** stores their CSR rows (offsets rebased, neighbour ids global:
** wl_graph_part) and its flag locally; the level array is spread page by
** page over all GPUs (MGS_GPU_ALL), and a GPU reads and writes the levels
** of neighbours that can be anywhere.
** Verification: bit-exact levels against a CPU queue-based BFS.
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_SCALE, P_EDGEFACTOR };
static uint64_t bfs_footprint(const wl_args *a);

#define BFS_UNVISITED 0xffffffffu

static void bfs_ref(const wl_graph *g, uint32_t source, uint32_t *level)
{
    uint32_t *queue = mgs_xmalloc((size_t)g->nv * 4);
    memset(level, 0xff, (size_t)g->nv * 4);
    size_t head = 0, tail = 0;
    level[source] = 0;
    queue[tail++] = source;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t e = g->off[v]; e < g->off[v + 1]; e++) {
            uint32_t u = g->adj[e];
            if (level[u] == BFS_UNVISITED) {
                level[u] = level[v] + 1;
                queue[tail++] = u;
            }
        }
    }
    free(queue);
}

static int bfs_run(mgs_rt *rt, const wl_args *a)
{
    int64_t scale = a->param[P_SCALE], ef = a->param[P_EDGEFACTOR];
    if (scale < 1 || scale > 28 || ef < 1 || ef > 256 ||
        (ef << scale) > (int64_t)UINT32_MAX)
        return mgs_error_set(MGS_EINVAL, "bfs: need 1 <= scale <= 28, 1 <= "
                             "edgefactor <= 256, edges < 2^32; got scale="
                             "%lld edgefactor=%lld", (long long)scale,
                             (long long)ef);
    int fits = wl_host_fits("bfs", bfs_footprint(a));
    if (fits)
        return fits;
    wl_graph g;
    wl_rmat(&g, (int)scale, ef, a->seed, 0);
    uint32_t source = 0;
    for (int64_t v = 1; v < g.nv; v++)
        if (g.off[v + 1] - g.off[v] > g.off[source + 1] - g.off[source])
            source = (uint32_t)v;
    size_t vb = (size_t)g.nv * 4;
    uint32_t *level = mgs_xmalloc(vb), *got = mgs_xmalloc(vb);
    memset(level, 0xff, vb);
    level[source] = 0;

    wl_ctx c;
    mgs_kernel *k;
    mgs_dptr dlevel, doff[WL_MAX_PARTS], dadj[WL_MAX_PARTS];
    mgs_dptr dflag[WL_MAX_PARTS];
    int64_t first[WL_MAX_PARTS], count[WL_MAX_PARTS];
    int rc = wl_ctx_open(&c, rt, a, "bfs.hsaco");
    if (!rc) rc = wl_kernel(&c, "bfs_level", &k);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), level, vb, &dlevel);
    for (int p = 0; !rc && p < c.parts; p++) {
        rc = wl_graph_part(&c, &g, p, 64, &first[p], &count[p], &doff[p],
                           &dadj[p]);
        if (!rc) rc = wl_alloc(&c, wl_part_gpu(&c, p), 4, &dflag[p]);
    }
    int levels = 0;
    for (uint32_t cur = 0; !rc && cur < (uint32_t)g.nv; cur++) {
        for (int p = 0; !rc && p < c.parts; p++)
            rc = mgs_memset(rt, dflag[p], 0, 4);
        for (int p = 0; !rc && p < c.parts; p++)
            rc = wl_launch1(&c, k, wl_part_gpu(&c, p), (uint64_t)count[p],
                            64, "ppppuuu", doff[p], dadj[p], dlevel,
                            dflag[p], (uint32_t)first[p],
                            (uint32_t)count[p], cur);
        uint32_t any = 0;
        for (int p = 0; !rc && p < c.parts; p++) {
            uint32_t f;
            rc = wl_download(&c, &f, dflag[p], 4);
            any |= f;
        }
        levels++;
        if (!any)
            break;
    }
    if (!rc) rc = wl_download(&c, got, dlevel, vb);
    if (!rc) {
        bfs_ref(&g, source, level);
        rc = wl_check_u32("bfs level", got, level, (size_t)g.nv);
    }
    if (!rc && a->verbose)
        fprintf(stderr, "bfs: %lld vertices, %lld edges, source %u, "
                "%d levels\n", (long long)g.nv, (long long)g.ne, source,
                levels);
    wl_ctx_close(&c);
    wl_graph_free(&g);
    free(level);
    free(got);
    return rc;
}

static uint64_t bfs_footprint(const wl_args *a)
{
    uint64_t nv = (uint64_t)1 << a->param[P_SCALE];
    return (2 * nv + nv * (uint64_t)a->param[P_EDGEFACTOR]) * 4;
}

const mgs_workload wl_bfs = {
    .name = "bfs",
    .suite = "HALCONE",
    .pattern = "irregular",
    .description = "level-synchronous BFS over an R-MAT graph (SHOC BFS)",
    .kernel_file = "bfs.hsaco",
    .params = {
        { "scale", 10, 22, "log2 of the vertex count" },
        { "edgefactor", 8, 34, "edges per vertex (default: 576 MiB)" },
    },
    .run = bfs_run,
    .footprint = bfs_footprint,
};
