/*
** Routing tables: shortest path in hops, computed once per build.
**
** For each destination endpoint d, a breadth-first search from d over the
** (undirected) link graph gives every node its hop distance to d. Only d
** and switches are expanded: an endpoint never forwards other traffic, so
** a path may pass through switches only. Node x then routes d through its
** LOWEST-numbered port whose neighbour is d or a switch one hop closer;
** ports are numbered in noc_link call order, so the tables (and every
** simulated result) depend only on the build order. An endpoint's route to
** itself is its ejection output (index nports).
**
** Cost: O(endpoints x (nodes + links)) time, O(nodes) scratch; done once.
*/
#include <stdlib.h>

#include "mgsim/errors.h"
#include "noc/noc_int.h"
#include "util/xmalloc.h"

static void bfs_from(const noc_net *n, uint32_t d, uint32_t *dist,
                     uint32_t *queue)
{
    for (uint32_t i = 0; i < n->nnodes; i++)
        dist[i] = UINT32_MAX;
    uint32_t qh = 0, qt = 0;
    dist[d] = 0;
    queue[qt++] = d;
    while (qh < qt) {
        const noc_node *u = n->nodes[queue[qh++]];
        if (u->endpoint && u->id != d)
            continue; /* endpoints do not forward */
        for (uint32_t p = 0; p < u->nports; p++) {
            uint32_t v = u->out[p]->to->id;
            if (dist[v] == UINT32_MAX) {
                dist[v] = dist[u->id] + 1;
                queue[qt++] = v;
            }
        }
    }
}

int noc_route_compute_(noc_net *n)
{
    const uint32_t nn = n->nnodes;
    for (uint32_t i = 0; i < nn; i++) {
        noc_node *x = n->nodes[i];
        free(x->route);
        free(x->rr);
        x->route = MGS_NEW_ARRAY(uint32_t, nn ? nn : 1);
        x->rr = MGS_NEW_ARRAY(uint32_t, x->nports + 1);
        for (uint32_t d = 0; d < nn; d++)
            x->route[d] = NOC_NO_ROUTE;
    }
    uint32_t *dist = MGS_NEW_ARRAY(uint32_t, nn ? nn : 1);
    uint32_t *queue = MGS_NEW_ARRAY(uint32_t, nn ? nn : 1);
    int rc = MGS_OK;
    for (uint32_t d = 0; d < nn && rc == MGS_OK; d++) {
        noc_node *dn = n->nodes[d];
        if (!dn->endpoint)
            continue;
        bfs_from(n, d, dist, queue);
        dn->route[d] = dn->nports; /* ejection */
        for (uint32_t i = 0; i < nn; i++) {
            noc_node *x = n->nodes[i];
            if (i == d || dist[i] == UINT32_MAX)
                continue;
            for (uint32_t p = 0; p < x->nports; p++) {
                const noc_node *v = x->out[p]->to;
                if ((v->id == d || !v->endpoint) &&
                    dist[v->id] + 1 == dist[i]) {
                    x->route[d] = p;
                    break;
                }
            }
        }
        for (uint32_t s = 0; s < nn; s++)
            if (n->nodes[s]->endpoint && n->nodes[s]->route[d] ==
                NOC_NO_ROUTE) {
                rc = mgs_error_set(MGS_EINVAL, "%s: no route from %s to %s",
                                   n->base.name, n->nodes[s]->name,
                                   dn->name);
                break;
            }
    }
    free(dist);
    free(queue);
    n->routed = rc == MGS_OK;
    return rc;
}

int noc_route_hops(const noc_net *n, int src, int dst)
{
    if (!n->routed || src < 0 || dst < 0 || (uint32_t)src >= n->nnodes ||
        (uint32_t)dst >= n->nnodes || !n->nodes[dst]->endpoint)
        return -1;
    const noc_node *x = n->nodes[src];
    int hops = 0;
    while (x->id != (uint32_t)dst) {
        uint32_t o = x->route[dst];
        if (o >= x->nports || hops > (int)n->nnodes)
            return -1;
        x = x->out[o]->to;
        hops++;
    }
    return hops;
}
