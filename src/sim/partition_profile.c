/*
** The profile of a partitioned run on one thread, and what running ahead
** with more threads could make of it (docs/engine.md, "Estimates for
** more threads").
**
** With eng_set_profile a 1-thread run records, for every window and
** partition, the CPU seconds the partition's share took and the horizon
** it ran to. Replaying those shares as tasks shows how T threads running
** ahead (partition_ahead.c) would have scheduled them if synchronising
** cost nothing:
**   - a partition runs its windows in order, one at a time;
**   - partition p may run window w (events before its horizon H[w][p])
**     once every source q (a declared crossing q -> p of latency L) has
**     finished a window j with H[j][q] + L >= H[w][p], the bound running
**     ahead would have published; j is at most w - 1, since the window
**     scheme derived H[w][p] from the state after window w - 1;
**   - a free thread takes the ready partition whose next window is the
**     earliest (then the lowest index); the threads are never idle while
**     a partition is ready.
** The makespan of that schedule is the estimate's critical path. It is
** pessimistic in one way (running ahead publishes every quarter of the
** lookahead, so a receiver may start before its source's whole window is
** done) and optimistic in another (claims, inboxes and shared cache lines
** cost nothing); bench_parallel4 compares it with the measured 2 threads.
*/
#include <stdlib.h>
#include <string.h>

#include "sim/partition_int.h"
#include "util/xmalloc.h"

struct eng_profile {
    uint32_t n;               /* partitions */
    uint32_t windows, cap;
    double *cost;             /* [windows][n], CPU seconds */
    mgs_time *horizon;        /* [windows][n] */
};

void eng_profile_reset_(eng_group *g)
{
    if (g->prof)
        g->prof->windows = 0;
}

void eng_profile_free_(eng_group *g)
{
    if (!g->prof)
        return;
    free(g->prof->cost);
    free(g->prof->horizon);
    free(g->prof);
    g->prof = NULL;
}

void eng_profile_note_(eng_group *g, const double *cost)
{
    eng_profile *pr = g->prof;
    if (!pr) {
        pr = g->prof = mgs_xcalloc(1, sizeof *pr);
        pr->n = g->n;
    }
    if (pr->n != g->n) { /* partitions added since: start again */
        pr->windows = 0;
        pr->n = g->n;
        pr->cap = 0;
        free(pr->cost);
        free(pr->horizon);
        pr->cost = NULL;
        pr->horizon = NULL;
    }
    if (pr->windows == pr->cap) {
        pr->cap = pr->cap ? 2 * pr->cap : 1024;
        pr->cost = mgs_xrealloc(pr->cost,
                                (size_t)pr->cap * pr->n * sizeof *pr->cost);
        pr->horizon = mgs_xrealloc(pr->horizon, (size_t)pr->cap * pr->n *
                                                    sizeof *pr->horizon);
    }
    size_t at = (size_t)pr->windows * pr->n;
    memcpy(pr->cost + at, cost, pr->n * sizeof *cost);
    memcpy(pr->horizon + at, g->horizon, pr->n * sizeof *pr->horizon);
    pr->windows++;
}

/* The window of q that p's window w waits for (see the top). */
static uint32_t needed_window(const eng_profile *pr, uint32_t w, uint32_t p,
                              uint32_t q, mgs_time lat)
{
    const mgs_time h = pr->horizon[(size_t)w * pr->n + p];
    uint32_t lo = 0, hi = w - 1; /* the answer is in [lo, hi] */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pr->horizon[(size_t)mid * pr->n + q] + lat >= h)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

double eng_profile_ahead_(const eng_group *g, uint32_t threads)
{
    const eng_profile *pr = g->prof;
    if (!pr || !pr->windows || threads < 1)
        return 0;
    const uint32_t n = pr->n, W = pr->windows;
    /* Each partition's sources, and the window of each that its next
    ** window waits for (req, computed when next_w moves). */
    uint32_t nsrc[ENG_MAX_PARTITIONS],
        src[ENG_MAX_PARTITIONS][ENG_MAX_PARTITIONS],
        req[ENG_MAX_PARTITIONS][ENG_MAX_PARTITIONS];
    for (uint32_t p = 0; p < n; p++) {
        nsrc[p] = 0;
        for (uint32_t q = 0; q < n; q++)
            if (q != p && g->lat[q][p] != MGS_TIME_MAX)
                src[p][nsrc[p]++] = q;
    }
    /* done[p]: windows p finished; next_w[p]: the one it runs next;
    ** end[p]: when its running window ends (busy[p]). */
    uint32_t done[ENG_MAX_PARTITIONS] = {0}, next_w[ENG_MAX_PARTITIONS] = {0};
    bool busy[ENG_MAX_PARTITIONS] = {false};
    double end[ENG_MAX_PARTITIONS];
    uint32_t running = 0;
    double now = 0;
    for (;;) {
        /* Hand ready partitions to the free threads, earliest window
        ** first. */
        while (running < threads) {
            uint32_t best = UINT32_MAX;
            for (uint32_t p = 0; p < n; p++) {
                uint32_t w = next_w[p];
                if (busy[p] || w >= W ||
                    (best != UINT32_MAX && w >= next_w[best]))
                    continue;
                bool ready = true;
                for (uint32_t k = 0; k < nsrc[p] && ready && w > 0; k++)
                    ready = done[src[p][k]] > req[p][k];
                if (ready)
                    best = p;
            }
            if (best == UINT32_MAX)
                break;
            busy[best] = true;
            end[best] = now + pr->cost[(size_t)next_w[best] * n + best];
            running++;
        }
        if (!running)
            break; /* every window replayed */
        /* The next window to finish (the lowest index on a tie). */
        uint32_t f = UINT32_MAX;
        for (uint32_t p = 0; p < n; p++)
            if (busy[p] && (f == UINT32_MAX || end[p] < end[f]))
                f = p;
        now = end[f];
        busy[f] = false;
        running--;
        done[f]++;
        uint32_t w = ++next_w[f];
        for (uint32_t k = 0; k < nsrc[f] && w < W; k++)
            req[f][k] = needed_window(pr, w, f, src[f][k],
                                      g->lat[src[f][k]][f]);
    }
    return now;
}
