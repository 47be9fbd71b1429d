/*
** Running ahead (sim.threads >= 2; docs/engine.md "Running ahead"):
** instead of meeting at a barrier after every window, each partition
** steps on as far as its sources allow (Chandy-Misra-Bryant style, without
** null messages: the bounds are shared variables). A step of p, by
** whichever thread claims p:
**   1. H_p = min over crossings (r -> p) of pub[r][p] + latency(r -> p);
**   2. take every post handed to p (its inbox) into its queue;
**   3. fire p's events before H_p, in slices; after each, hand its posts
**      to their receivers' inboxes, then publish pub[p][q] = p's bound for
**      q at E'_p = min(first queued event, H_p): posts not yet taken are
**      due at >= H_p, so p can act no earlier than E'_p (release stores,
**      only ever raised).
** A post from r is made at r's time >= pub[r][p] (a bound r published
** after handing over every earlier post), so it is due at >= H_p: never in
** p's past. The queue order of posts does not depend on when they were
** taken (eng_schedule_crossed_), so each partition fires the same events
** in the same order as with windows, and results are the same for any
** thread count.
** Idle partitions would raise each other's bounds one latency at a time
** over a gap; instead, when no step fires anything, thread 0 claims every
** partition and makes a global step: the window boundary (merge, checks,
** horizons), whose bounds are then published. It does the same every
** 50 ms of wall time for the interrupt flag and the progress line. When a
** partition stops or fails, every thread stops after its step and the
** caller finishes in windows (partition.c, finish_failed).
*/
#include <string.h>

#include "mgsim/errors.h"
#include "sim/partition_int.h"
#include "util/xmalloc.h"

#define AHEAD_CHECK_S 0.05

static inline bool try_claim(eng_group *g, uint32_t p)
{
    return !__atomic_load_n(&g->claim[p].v, __ATOMIC_RELAXED) &&
           !__atomic_exchange_n(&g->claim[p].v, 1, __ATOMIC_ACQUIRE);
}

static inline void unclaim(eng_group *g, uint32_t p)
{
    __atomic_store_n(&g->claim[p].v, 0, __ATOMIC_RELEASE);
}

static void spin_lock(uint32_t *l)
{
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(l, __ATOMIC_RELAXED))
            eng_cpu_pause_();
}

static void spin_unlock(uint32_t *l)
{
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* Hands partition p's posts of its last step to their receivers. */
static void send_mail(eng_group *g, uint32_t p)
{
    for (uint32_t q = 0; q < g->n; q++) {
        eng_box *b = &g->box[p][q];
        if (!b->n)
            continue;
        eng_inbox *in = &g->inbox[q];
        spin_lock(&in->lock);
        if (in->n + b->n > in->cap) {
            in->cap = 2 * (in->n + b->n);
            in->v = mgs_xrealloc(in->v, in->cap * sizeof *in->v);
        }
        memcpy(in->v + in->n, b->v, b->n * sizeof *b->v);
        __atomic_store_n(&in->n, in->n + b->n, __ATOMIC_RELAXED);
        spin_unlock(&in->lock);
        b->n = 0;
    }
}

/* Moves the posts handed to partition q into its queue. */
void eng_take_mail_(eng_group *g, uint32_t q)
{
    eng_inbox *in = &g->inbox[q];
    if (!__atomic_load_n(&in->n, __ATOMIC_RELAXED))
        return;
    spin_lock(&in->lock);
    eng_mail *v = in->v;
    uint32_t n = in->n, cap = in->cap;
    in->v = in->spare;
    in->cap = in->spare_cap;
    __atomic_store_n(&in->n, 0, __ATOMIC_RELAXED);
    spin_unlock(&in->lock);
    sim_engine *e = g->part[q].e;
    for (uint32_t i = 0; i < n; i++) {
        assert(v[i].t >= e->now && "post into the past");
        eng_schedule_crossed_(e, &v[i]);
    }
    g->part[q].posts += n;
    in->spare = v;
    in->spare_cap = cap;
}

/* H_p: nothing can reach p before it (no later than the cap). */
static mgs_time ahead_horizon(eng_group *g, uint32_t p)
{
    mgs_time h = __atomic_load_n(&g->ctl.cap, __ATOMIC_RELAXED);
    for (uint32_t r = 0; r < g->n; r++) {
        mgs_time l = g->lat[r][p];
        if (l == MGS_TIME_MAX)
            continue;
        mgs_time b = __atomic_load_n(&g->pub[r][p], __ATOMIC_ACQUIRE);
        if (b < MGS_TIME_MAX - l && b + l < h)
            h = b + l;
    }
    return h;
}

/* Publishes p's bounds for its earliest possible action ep. */
static void publish(eng_group *g, uint32_t p, mgs_time ep)
{
    eng_post_bounds_(g, p, ep);
    for (uint32_t q = 0; q < g->n; q++)
        if (g->bound[p][q] > __atomic_load_n(&g->pub[p][q], __ATOMIC_RELAXED))
            __atomic_store_n(&g->pub[p][q], g->bound[p][q],
                             __ATOMIC_RELEASE);
    __atomic_store_n(&g->pub_ep[p], ep, __ATOMIC_RELAXED);
}

/* One step of partition p (claimed by the calling thread k); whether it
** fired anything or raised its bounds. */
static bool step_part(eng_group *g, uint32_t k, uint32_t p)
{
    eng_part *pt = &g->part[p];
    sim_engine *e = pt->e;
    if (pt->failed)
        return false;         /* thread 0 finishes the run */
    mgs_time h = ahead_horizon(g, p);
    eng_take_mail_(g, p);
    bool fired = false;
    while (evq_count(&e->q) && evq_min_time(&e->q) < h) {
        /* In slices, each published at once: the others wait on p's
        ** bound, not on the end of its whole step. */
        mgs_time first = evq_min_time(&e->q);     /* < h */
        mgs_time end = g->slice && h - first > g->slice ? first + g->slice
                                                        : h;
        g->horizon[p] = end;
        eng_run_part_(g, p);
        send_mail(g, p);
        fired = true;
        __atomic_store_n(&g->steps[k].v, g->steps[k].v + 1, __ATOMIC_RELAXED);
        if (pt->failed) {
            __atomic_store_n(&g->ctl.halt, 1, __ATOMIC_RELEASE);
            break;
        }
        if (end < h) {
            mgs_time f = evq_count(&e->q) ? evq_min_time(&e->q)
                                          : MGS_TIME_MAX;
            publish(g, p, f < h ? f : h);
        }
    }
    mgs_time first = evq_count(&e->q) ? evq_min_time(&e->q) : MGS_TIME_MAX;
    mgs_time ep = first < h ? first : h;
    if (!fired && ep == __atomic_load_n(&g->pub_ep[p], __ATOMIC_RELAXED))
        return false;
    publish(g, p, ep);
    return true;
}

/* Wall time a thread found nothing to run (eng_group_stats.wait_s):
** from the end of a scan that found nothing to the next claim. */
static inline void note_idle(eng_group *g, uint32_t k, bool fired,
                             double *since)
{
    if (fired && *since > 0) {
        g->idle_s[k] += eng_wall_s_() - *since;
        *since = 0;
    } else if (!fired && *since == 0) {
        *since = eng_wall_s_();
    }
}

/* Steps every partition it can claim, the furthest behind first; *busy:
** another thread held one that had work. A partition whose horizon is
** not above its published earliest time has nothing to do (its first
** event and every post not yet taken are at or after it), so it is
** skipped without a claim. */
static bool ahead_scan(eng_group *g, uint32_t k, double *idle, bool *busy)
{
    uint32_t order[ENG_MAX_PARTITIONS];
    mgs_time ep[ENG_MAX_PARTITIONS];
    const uint32_t n = g->n;
    for (uint32_t i = 0; i < n; i++) {
        mgs_time t = __atomic_load_n(&g->pub_ep[i], __ATOMIC_RELAXED);
        uint32_t j = i;
        for (; j > 0 && ep[j - 1] > t; j--) {
            ep[j] = ep[j - 1];
            order[j] = order[j - 1];
        }
        ep[j] = t;
        order[j] = i;
    }
    bool fired = false;
    *busy = false;
    for (uint32_t i = 0; i < n; i++) {
        if (__atomic_load_n(&g->ctl.global_req, __ATOMIC_ACQUIRE) ||
            __atomic_load_n(&g->ctl.halt, __ATOMIC_ACQUIRE))
            break;
        uint32_t p = order[i];
        if (ahead_horizon(g, p) <= ep[i] &&
            !__atomic_load_n(&g->inbox[p].n, __ATOMIC_RELAXED))
            continue;
        if (!try_claim(g, p)) {
            *busy = true;
            continue;
        }
        note_idle(g, k, true, idle);
        fired |= step_part(g, k, p);
        unclaim(g, p);
    }
    return fired;
}

void eng_ahead_worker_(eng_group *g, uint32_t k)
{
    double idle = 0;
    while (!__atomic_load_n(&g->ctl.done, __ATOMIC_ACQUIRE)) {
        bool busy, fired = ahead_scan(g, k, &idle, &busy);
        note_idle(g, k, fired, &idle);
        if (!fired)
            eng_cpu_pause_();
    }
    note_idle(g, k, true, &idle);
}

static void claim_all(eng_group *g)
{
    __atomic_store_n(&g->ctl.global_req, 1, __ATOMIC_SEQ_CST);
    for (uint32_t p = 0; p < g->n; p++)
        while (!try_claim(g, p))
            eng_cpu_pause_();
}

static void unclaim_all(eng_group *g)
{
    for (uint32_t p = 0; p < g->n; p++)
        unclaim(g, p);
    __atomic_store_n(&g->ctl.global_req, 0, __ATOMIC_RELEASE);
}

/* The bounds of a boundary (every partition claimed): exactly at the
** start of a run, whose state the last run's bounds may not cover; later
** only raising (both are valid, the higher is kept). */
static void publish_boundary(eng_group *g, bool reset)
{
    for (uint32_t p = 0; p < g->n; p++) {
        for (uint32_t q = 0; q < g->n; q++) {
            mgs_time b = g->bound[p][q];
            if (reset || b > g->pub[p][q])
                __atomic_store_n(&g->pub[p][q], b, __ATOMIC_RELEASE);
        }
        /* Unknown until its next step, which this makes it take. */
        __atomic_store_n(&g->pub_ep[p], 0, __ATOMIC_RELAXED);
    }
}

/* Running ahead, thread k stays on the k-th CPU the caller may use, so a
** partition's queue and components are found in that core's caches more
** often (bench_parallel4, 18 interleaved reps each: 2-thread wall median
** 0.615 -> 0.578 s; docs/engine.md). Only when there is a CPU for every
** thread; the caller's thread gets its own CPUs back after the run. */
static void pin_threads(eng_group *g, bool on)
{
    if (!on) {
        if (g->caller_pinned)
            pthread_setaffinity_np(pthread_self(), sizeof g->caller_mask,
                                   &g->caller_mask);
        g->caller_pinned = false;
        return;
    }
    cpu_set_t allowed;
    if (pthread_getaffinity_np(pthread_self(), sizeof allowed, &allowed))
        return;
    int cpus[ENG_MAX_THREADS];
    uint32_t m = 0;
    for (int c = 0; c < CPU_SETSIZE && m < g->started; c++)
        if (CPU_ISSET(c, &allowed))
            cpus[m++] = c;
    if (m < g->started)
        return;
    for (uint32_t k = 0; k < g->started; k++) {
        if (k && g->workers_pinned)
            break;            /* the workers keep theirs between runs */
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpus[k], &one);
        pthread_setaffinity_np(k ? g->tid[k] : pthread_self(), sizeof one,
                               &one);
    }
    g->workers_pinned = true;
    g->caller_mask = allowed;
    g->caller_pinned = true;
}

/* Thread 0's side of a run ahead, from a boundary that said run. */
int eng_run_ahead_(eng_group *g, sim_engine *root, mgs_time limit, int *rc)
{
    publish_boundary(g, true);
    g->ctl.done = g->ctl.halt = g->ctl.global_req = 0;
    g->ahead = true;
    /* A quarter of the lookahead: finer adds publishing, coarser makes
    ** the others wait longer (bench_parallel4: 2, 5 and 10 ns measured). */
    mgs_time la = eng_lookahead(g->part[0].e);
    g->slice = la == MGS_TIME_MAX ? 0 : la / 4;
    pin_threads(g, true);
    eng_barrier_wait_(&g->start);
    uint64_t seen = eng_steps_total_(g);
    uint32_t quiet = 0, iter = 0;
    double idle = 0, next_check = eng_wall_s_() + AHEAD_CHECK_S;
    int b;
    *rc = MGS_OK;
    for (;;) {
        bool busy, fired = ahead_scan(g, 0, &idle, &busy);
        note_idle(g, 0, fired, &idle);
        bool global = false;
        if (__atomic_load_n(&g->ctl.halt, __ATOMIC_ACQUIRE)) {
            /* The caller finishes in windows (the earliest failure). */
            claim_all(g);
            b = BOUNDARY_HALT;
            break;
        }
        /* Quiet: no event fired anywhere since the last scan and nobody
        ** holds a partition with work. Bounds may still be rising one
        ** latency at a time over a gap: the global step jumps it. */
        uint64_t s = eng_steps_total_(g);
        if (s != seen || busy) {
            seen = s;
            quiet = 0;
        } else if (++quiet >= 2) {
            global = true;
        }
        if (++iter % 64 == 0 && eng_wall_s_() >= next_check)
            global = true;
        if (!global) {
            if (!fired)
                eng_cpu_pause_();
            continue;
        }
        claim_all(g);
        note_idle(g, 0, true, &idle);
        double t0 = eng_wall_s_();
        b = eng_boundary_(g, root, limit, rc);
        g->st.windows++;
        if (b != BOUNDARY_RUN)
            break;
        publish_boundary(g, false);
        g->st.serial_s += eng_wall_s_() - t0;
        eng_group_progress_(root, eng_group_events_(root));
        next_check = eng_wall_s_() + AHEAD_CHECK_S;
        quiet = 0;
        seen = eng_steps_total_(g);
        unclaim_all(g);
    }
    note_idle(g, 0, true, &idle);
    __atomic_store_n(&g->ctl.done, 1, __ATOMIC_RELEASE);
    unclaim_all(g);
    eng_barrier_wait_(&g->end);
    g->ahead = false;
    pin_threads(g, false);
    return b;
}

/* Steps (slices) that fired events, all threads. */
uint64_t eng_steps_total_(const eng_group *g)
{
    uint64_t n = 0;
    for (uint32_t k = 0; k < g->started; k++)
        n += __atomic_load_n(&g->steps[k].v, __ATOMIC_RELAXED);
    return n;
}
