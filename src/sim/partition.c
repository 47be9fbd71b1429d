/*
** Partitions and their conservative parallel run (model in partition.h).
**
** Data owned per partition: its engine (queue, now, stop flag), its post
** records, its outgoing mailboxes box[p][*] (written only by the thread
** running p during a window), and its result slot. The boundary work
** (merge, horizons, checks) runs on the calling thread while every worker
** waits at a barrier, so nothing here needs a lock.
**
** Determinism. Within a window partition q reads nothing another
** partition writes in that window: posts wait in the sender's mailbox
** until the boundary, and a post is never due before the receiver's
** horizon (asserted). The merge order (a post before the receiver's own
** events at its time; same-time posts by source index, then send order:
** schedule_crossed) and the horizons depend on the simulation state only,
** not on which window made or merged a post.
** So each partition fires the same events in the same order whatever the
** thread count, and results are identical for sim.threads = 1, 2, 4, ...
** With two threads or more the partitions run ahead between boundaries
** instead of in windows: partition_ahead.c.
*/
#include "sim/partition.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mgsim/errors.h"
#include "sim/engine_int.h"
#include "sim/partition_int.h"
#include "util/interrupt.h"
#include "util/xmalloc.h"

__attribute__((tls_model("initial-exec"))) _Thread_local sim_engine
    *eng_running_;
__attribute__((tls_model("initial-exec"))) _Thread_local uint32_t
    eng_thread_part_;

/* Barrier waits spin this many rounds (yielding now and then, for a
** machine with more threads than free cores) before they sleep: a window
** lasts tens of microseconds, a futex wake-up costs about as much. */
#define BARRIER_SPINS 20000u
#define BARRIER_YIELD_EVERY 256u

void eng_barrier_wait_(par_barrier *b)
{
    uint32_t g = __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == b->n) {
        __atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&b->gen, g + 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&b->sleepers, __ATOMIC_SEQ_CST))
            syscall(SYS_futex, &b->gen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL,
                    NULL, 0);
        return;
    }
    for (uint32_t i = 1; i <= BARRIER_SPINS; i++) {
        if (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) != g)
            return;
        if (i % BARRIER_YIELD_EVERY == 0)
            sched_yield();
        else
            eng_cpu_pause_();
    }
    __atomic_add_fetch(&b->sleepers, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&b->gen, __ATOMIC_SEQ_CST) == g)
        syscall(SYS_futex, &b->gen, FUTEX_WAIT_PRIVATE, g, NULL, NULL, 0);
    __atomic_sub_fetch(&b->sleepers, 1, __ATOMIC_SEQ_CST);
}

double eng_wall_s_(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the mailbox component ------------------------------------------ */

static eng_post_rec *rec_alloc(sim_engine *e)
{
    eng_post_rec *r = e->post_free;
    if (r) {
        e->post_free = r->next_free;
        return r;
    }
    eng_group *g = e->root->group;
    r = MGS_NEW(eng_post_rec);
    eng_event_init(&r->ev, e->mailbox, 0, r);
    r->next_all = g->part[e->part].all;
    g->part[e->part].all = r;
    return r;
}

static void mailbox_handle(sim_comp *c, sim_event *ev)
{
    sim_engine *e = c->eng;
    eng_post_rec *r = ev->data;
    eng_mail m = r->m;
    r->next_free = e->post_free;
    e->post_free = r;
    ENG_AS_CURRENT_(e, m.target, m.fn(e, m.a, m.b, m.x));
}

static const sim_comp_ops mailbox_ops = {.kind = "Mailbox",
                                         .handle = mailbox_handle};

static void schedule_mail(sim_engine *e, const eng_mail *m)
{
    eng_post_rec *r = rec_alloc(e);
    r->m = *m;
    eng_schedule_any_(e, &r->ev, m->t);
}

/* Whether queued crossing post a fires before the post b. */
static bool mail_before(const sim_event *a, const sim_event *b)
{
    if (a->comp != b->comp)
        return false;             /* not a post */
    const eng_mail *x = &((const eng_post_rec *)a->data)->m;
    const eng_mail *y = &((const eng_post_rec *)b->data)->m;
    return x->crossed &&
           (x->from < y->from || (x->from == y->from && x->seq < y->seq));
}

/* A crossing's post due at t fires before every event of the receiver
** at t, and posts due at the same time fire in order of (source
** partition, post order): so the order does not depend on the window
** that merged them, and a larger lookahead changes no result. */
void eng_schedule_crossed_(sim_engine *e, const eng_mail *m)
{
    eng_post_rec *r = rec_alloc(e);
    r->m = *m;
    assert(!r->ev.scheduled && m->t >= e->now);
    r->ev.scheduled = true;
    evq_push_ordered(&e->q, &r->ev, m->t, mail_before);
}

void eng_post(sim_engine *from, sim_engine *to, mgs_time t, sim_comp *target,
              eng_post_fn fn, void *a, void *b, uint64_t x)
{
    eng_mail m = {t, fn, target, a, b, x, false, 0, 0};
    /* target normally lives in `to`; a network spans partitions. */
    assert(target->eng->root == to->root);
    if (to == from) {
        schedule_mail(to, &m);
        return;
    }
    eng_group *g = from->root->group;
    assert(g && to->root == from->root && "post outside the group");
    assert(g->lat[from->part][to->part] != MGS_TIME_MAX &&
           t >= from->now + g->lat[from->part][to->part] &&
           "post before the declared crossing latency");
    assert((!g->npromise[from->part] ||
            from->now >= g->bound[from->part][to->part]) &&
           "post before the partition's promise");
    eng_box *b_ = &g->box[from->part][to->part];
    if (b_->n == b_->cap) {
        b_->cap = b_->cap ? 2 * b_->cap : 64;
        b_->v = mgs_xrealloc(b_->v, b_->cap * sizeof *b_->v);
    }
    m.crossed = true;
    m.from = from->part;
    m.seq = b_->seq++;
    b_->v[b_->n++] = m;
}

/* ---- building ------------------------------------------------------- */

static void part_attach(eng_group *g, sim_engine *e, const char *name)
{
    uint32_t i = g->n++;
    e->group = g;
    e->part = i;
    g->part[i] = (eng_part){.e = e, .name = mgs_xstrdup(name)};
    /* Until costs are known, the last-added (the GPUs) go first. */
    memmove(&g->order[1], &g->order[0], i * sizeof g->order[0]);
    g->order[0] = i;
    char cname[96];
    snprintf(cname, sizeof cname, "%s.Mailbox", name);
    e->mailbox = MGS_NEW(sim_comp);
    comp_init(e->mailbox, e, &mailbox_ops, cname, 0);
}

sim_engine *eng_partition_new(sim_engine *root, const char *name)
{
    assert(root->root == root && "partitions are added to the root");
    eng_group *g = root->group;
    if (!g) {
        /* Aligned for its per-line flags (eng_flag, eng_count). */
        void *mem = NULL;
        if (posix_memalign(&mem, 64, sizeof(eng_group)))
            abort();
        g = root->group = memset(mem, 0, sizeof(eng_group));
        for (uint32_t i = 0; i < ENG_MAX_PARTITIONS; i++)
            for (uint32_t j = 0; j < ENG_MAX_PARTITIONS; j++)
                g->lat[i][j] = MGS_TIME_MAX;
        g->threads = 1;
        part_attach(g, root, "Host");
    }
    if (g->n == ENG_MAX_PARTITIONS)
        abort();              /* 16 GPUs + host + network fit */
    sim_engine_config cfg = root->cfg;
    cfg.max_events = 0;       /* checked for the group at boundaries */
    cfg.watchdog = 0;
    sim_engine *e = eng_new(&cfg);
    e->root = root;
    part_attach(g, e, name);
    return e;
}

uint32_t eng_partition_count(const sim_engine *root)
{
    return root->group ? root->group->n : 1;
}
uint32_t eng_partition_index(const sim_engine *e) { return e->part; }
sim_engine *eng_partition_root(sim_engine *e) { return e->root; }
sim_engine *eng_partition_get(sim_engine *root, uint32_t i)
{
    return root->group && i < root->group->n ? root->group->part[i].e
                                             : i == 0 ? root : NULL;
}
const char *eng_partition_name(const sim_engine *e)
{
    return e->root->group ? e->root->group->part[e->part].name : "Host";
}

void eng_crossing_add(sim_engine *from, sim_engine *to, mgs_time latency,
                      const char *what)
{
    if (from == to)
        return;
    eng_group *g = from->root->group;
    assert(g && to->root == from->root);
    if (latency == 0 && !g->zero_what[0])
        snprintf(g->zero_what, sizeof g->zero_what, "%s (%s -> %s)", what,
                 g->part[from->part].name, g->part[to->part].name);
    mgs_time *l = &g->lat[from->part][to->part];
    if (latency < *l)
        *l = latency;
}

void eng_promise_add(sim_engine *p, eng_promise_fn fn, void *ud)
{
    eng_group *g = p->root->group;
    assert(g && g->npromise[p->part] < ENG_MAX_PROMISES);
    uint32_t k = g->npromise[p->part]++;
    g->promise_fn[p->part][k] = fn;
    g->promise_ud[p->part][k] = ud;
}

mgs_time eng_lookahead(const sim_engine *root)
{
    const eng_group *g = root->group;
    mgs_time la = MGS_TIME_MAX;
    for (uint32_t i = 0; g && i < g->n; i++)
        for (uint32_t j = 0; j < g->n; j++)
            if (g->lat[i][j] < la)
                la = g->lat[i][j];
    return la;
}

int eng_set_threads(sim_engine *root, uint32_t threads)
{
    if (threads < 1 || threads > ENG_MAX_THREADS)
        return mgs_error_set(MGS_EINVAL, "sim.threads = %u: must be in "
                             "[1, %u]", threads, ENG_MAX_THREADS);
    if (root->group && !root->group->started)
        root->group->threads = threads;
    return MGS_OK;
}

void eng_set_window_cap(sim_engine *root, mgs_time cap)
{
    if (root->group)
        root->group->window_cap = cap;
}

void eng_set_profile(sim_engine *root, bool on)
{
    if (root->group) {
        root->group->profile = on;
        if (on)
            eng_profile_reset_(root->group);
    }
}

void eng_group_stats_get(const sim_engine *root, eng_group_stats *out)
{
    memset(out, 0, sizeof *out);
    const eng_group *g = root->group;
    if (!g)
        return;
    *out = g->st;
    out->events = eng_group_events_(root);
    out->wait_s = g->wait_s;
    out->steps = eng_steps_total_(g);
    for (uint32_t p = 0; p < g->n; p++)
        out->posts += g->part[p].posts;
    for (uint32_t k = 0; k < ENG_MAX_THREADS; k++)
        out->wait_s += g->idle_s[k];
    static const uint32_t threads[ENG_PROFILE_WIDTHS] = {2, 4, 8};
    for (int k = 0; k < ENG_PROFILE_WIDTHS; k++)
        out->ahead_s[k] = eng_profile_ahead_(g, threads[k]);
}

uint64_t eng_group_events_(const sim_engine *root)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < root->group->n; i++)
        n += root->group->part[i].e->events;
    return n;
}

size_t eng_group_pending_(const sim_engine *root)
{
    const eng_group *g = root->group;
    size_t n = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        n += evq_count(&g->part[i].e->q) + g->inbox[i].n;
        for (uint32_t j = 0; j < g->n; j++)
            n += g->box[i][j].n;
    }
    return n;
}

/* ---- threads -------------------------------------------------------- */

/* Partition p's share of the window. */
void eng_run_part_(eng_group *g, uint32_t p)
{
    eng_part *pt = &g->part[p];
    sim_engine *e = pt->e;
    if (pt->failed || !evq_count(&e->q) ||
        evq_min_time(&e->q) >= g->horizon[p])
        return;
    eng_running_ = e;
    eng_thread_part_ = p;
    mgs_error_clear();        /* what is set now is this partition's */
    pt->rc = eng_run_window_(e, g->horizon[p] - 1);
    eng_running_ = NULL;
    eng_thread_part_ = 0;
    if (pt->rc || e->stop) {
        pt->failed = true;
        pt->fail_t = e->now;
        /* Errors live in thread-local storage: keep it for the caller. */
        if (mgs_error_code()) {
            pt->err_code = mgs_error_code();
            snprintf(pt->err, sizeof pt->err, "%s", mgs_error_msg());
        }
    }
}

/* The k-th partition to hand out in a window: by the cost of its recent
** shares, dearest first (longest processing time first), so that the
** last partitions handed out are the cheap ones that fill the gaps. The
** order is only a schedule: which thread runs which partition does not
** matter to the results. Measured on mm n = 256, 4 unified GPUs, 2
** threads (bench_parallel4's estimate with free barriers): 1.59 with the
** fixed order (GPUs, then the network, then the host), 1.67 with this
** one, 1.70 with an oracle that knew each window's costs (docs/engine.md,
** "Speed"). */
static inline uint32_t part_order(const eng_group *g, uint32_t k)
{
    return g->order[k];
}

/* Sorts the hand-out order by cost, dearest first; ties keep the current
** order (at the start: the last-added, the GPUs, first; the root last). */
static void order_by_cost(eng_group *g)
{
    for (uint32_t i = 1; i < g->n; i++) {
        uint32_t x = g->order[i], j = i;
        for (; j > 0 && g->part[g->order[j - 1]].cost < g->part[x].cost; j--)
            g->order[j] = g->order[j - 1];
        g->order[j] = x;
    }
}

static inline void note_cost(eng_part *pt, double s)
{
    pt->cost = 0.5 * pt->cost + 0.5 * s;
}

/* Threads take partitions one at a time from a shared counter until none
** is left: a thread that finished a dear one takes the next. Each
** partition's cost is written by the thread that ran it and read after
** the window's end barrier. */
static void run_share(eng_group *g, uint32_t k)
{
    (void)k;
    uint32_t i;
    while ((i = __atomic_fetch_add(&g->next_part, 1, __ATOMIC_RELAXED)) <
           g->n) {
        uint32_t p = part_order(g, i);
        double t0 = eng_wall_s_();
        eng_run_part_(g, p);
        note_cost(&g->part[p], eng_wall_s_() - t0);
    }
}

static void *worker_loop(void *arg)
{
    worker_arg *w = arg;
    eng_group *g = w->g;
    for (;;) {
        eng_barrier_wait_(&g->start);
        if (g->quit)
            return NULL;
        if (g->ahead)
            eng_ahead_worker_(g, w->k);
        else
            run_share(g, w->k);
        g->arrive[w->k] = eng_wall_s_();
        eng_barrier_wait_(&g->end);
    }
}

static void threads_start(eng_group *g)
{
    if (g->started || g->threads < 2)
        return;
    if (g->threads > g->n)
        g->threads = g->n;
    if (g->threads < 2)
        return;
    g->start = (par_barrier){.n = g->threads};
    g->end = (par_barrier){.n = g->threads};
    for (uint32_t k = 1; k < g->threads; k++) {
        g->warg[k] = (worker_arg){g, k};
        if (pthread_create(&g->tid[k], NULL, worker_loop, &g->warg[k]))
            abort();
    }
    g->started = g->threads;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One thread, profiling: the CPU time of each partition's share, and the
** window's critical path had 2, 4 or 8 threads run it as run_share hands
** out (in cost order, each to the thread free first), which estimates the
** parallel run without its barrier costs (eng_group_stats.crit_s). */
static void run_window_profiled(eng_group *g)
{
    double t[ENG_MAX_PARTITIONS];
    for (uint32_t p = 0; p < g->n; p++) {
        double t0 = cpu_s();
        eng_run_part_(g, p);
        t[p] = cpu_s() - t0;
        g->st.part_s += t[p];
    }
    eng_profile_note_(g, t);
    /* The estimate hands out as run_share would have: by the costs known
    ** before this window. */
    order_by_cost(g);
    for (uint32_t p = 0; p < g->n; p++)
        note_cost(&g->part[p], t[p]);
    static const uint32_t threads[ENG_PROFILE_WIDTHS] = {2, 4, 8};
    for (int k = 0; k < ENG_PROFILE_WIDTHS; k++) {
        /* Each partition goes to the thread that becomes free first. */
        double load[8] = {0}, worst = 0;
        for (uint32_t i = 0; i < g->n; i++) {
            uint32_t j = 0;
            for (uint32_t q = 1; q < threads[k]; q++)
                if (load[q] < load[j])
                    j = q;
            load[j] += t[part_order(g, i)];
        }
        for (uint32_t j = 0; j < threads[k]; j++)
            if (load[j] > worst)
                worst = load[j];
        g->st.crit_s[k] += worst;
    }
}

static void run_window(eng_group *g)
{
    if (!g->started) {
        if (g->profile) {
            run_window_profiled(g);
            return;
        }
        for (uint32_t p = 0; p < g->n; p++)
            eng_run_part_(g, p);
        return;
    }
    g->next_part = 0;
    order_by_cost(g);
    eng_barrier_wait_(&g->start);
    run_share(g, 0);
    g->arrive[0] = eng_wall_s_();
    eng_barrier_wait_(&g->end);
    /* Each thread waited from its arrival until the last one arrived. */
    double last = 0;
    for (uint32_t k = 0; k < g->started; k++)
        if (g->arrive[k] > last)
            last = g->arrive[k];
    for (uint32_t k = 0; k < g->started; k++)
        g->wait_s += last - g->arrive[k];
}

void eng_group_free_(sim_engine *root)
{
    eng_group *g = root->group;
    if (!g || root->root != root)
        return;
    if (g->started) {
        g->quit = true;
        eng_barrier_wait_(&g->start);
        for (uint32_t k = 1; k < g->started; k++)
            pthread_join(g->tid[k], NULL);
    }
    for (uint32_t i = 0; i < g->n; i++) {
        eng_part *pt = &g->part[i];
        for (eng_post_rec *r = pt->all; r;) {
            eng_post_rec *next = r->next_all;
            free(r);
            r = next;
        }
        for (uint32_t j = 0; j < g->n; j++)
            free(g->box[i][j].v);
        free(g->inbox[i].v);
        free(g->inbox[i].spare);
        comp_fini(pt->e->mailbox);
        free(pt->e->mailbox);
        free(pt->name);
        if (i > 0)
            eng_free(pt->e);
    }
    eng_profile_free_(g);
    root->group = NULL;
    free(g);
}

/* ---- the boundary --------------------------------------------------- */

/* Moves every post of the last window into its destination's queue. */
static void merge_mail(eng_group *g)
{
    for (uint32_t q = 0; q < g->n; q++) {
        sim_engine *e = g->part[q].e;
        for (uint32_t p = 0; p < g->n; p++) {
            eng_box *b = &g->box[p][q];
            for (uint32_t i = 0; i < b->n; i++) {
                assert(b->v[i].t >= e->now && "post into the past");
                eng_schedule_crossed_(e, &b->v[i]);
            }
            g->st.posts += b->n;
            b->n = 0;
        }
    }
}

/* Fills bound[p][q]: the earliest time partition p can make a post to q
** if it fires nothing before e (MGS_TIME_MAX: never). */
void eng_post_bounds_(eng_group *g, uint32_t p, mgs_time e)
{
    mgs_time *b = g->bound[p];
    for (uint32_t q = 0; q < g->n; q++) {
        b[q] = g->lat[p][q] == MGS_TIME_MAX ? MGS_TIME_MAX : e;
        if (e == MGS_TIME_MAX || b[q] == MGS_TIME_MAX || !g->npromise[p])
            continue;
        mgs_time t = MGS_TIME_MAX;
        for (uint32_t k = 0; k < g->npromise[p]; k++) {
            mgs_time u = g->promise_fn[p][k](g->promise_ud[p][k],
                                             g->part[p].e, e,
                                             g->part[q].e);
            assert(u >= e && "a promise before the partition's earliest");
            if (u < t)
                t = u;
        }
        b[q] = t;
    }
}

static inline mgs_time post_arrival(const eng_group *g, uint32_t p,
                                    uint32_t q)
{
    mgs_time b = g->bound[p][q], l = g->lat[p][q];
    return b == MGS_TIME_MAX || l == MGS_TIME_MAX || b > MGS_TIME_MAX - l
               ? MGS_TIME_MAX : b + l;
}

/* Horizons for the next window; returns the earliest pending time. */
static mgs_time compute_horizons(eng_group *g)
{
    mgs_time earliest[ENG_MAX_PARTITIONS], first = MGS_TIME_MAX;
    const uint32_t n = g->n;
    for (uint32_t p = 0; p < n; p++) {
        sim_engine *e = g->part[p].e;
        earliest[p] = evq_count(&e->q) && !g->part[p].failed
                          ? evq_min_time(&e->q) : MGS_TIME_MAX;
        if (earliest[p] < first)
            first = earliest[p];
        eng_post_bounds_(g, p, earliest[p]);
    }
    /* Relax: a partition can act no earlier than a post can reach it. */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t p = 0; p < n; p++)
            for (uint32_t q = 0; q < n; q++) {
                mgs_time t = post_arrival(g, p, q);
                if (t < earliest[q]) {
                    earliest[q] = t;
                    eng_post_bounds_(g, q, t);
                    changed = true;
                }
            }
    }
    for (uint32_t q = 0; q < n; q++) {
        mgs_time h = MGS_TIME_MAX;
        for (uint32_t p = 0; p < n; p++) {
            mgs_time t = post_arrival(g, p, q);
            if (t < h)
                h = t;
        }
        g->horizon[q] = h;
    }
    return first;
}

static mgs_time group_now(const eng_group *g)
{
    mgs_time t = 0;
    for (uint32_t p = 0; p < g->n; p++)
        if (g->part[p].e->now > t)
            t = g->part[p].e->now;
    return t;
}

static void set_all_now(eng_group *g, mgs_time t)
{
    for (uint32_t p = 0; p < g->n; p++)
        if (g->part[p].e->now < t)
            g->part[p].e->now = t;
}

/* Progress reports at boundaries (the root's eng_set_progress). */
void eng_group_progress_(sim_engine *root, uint64_t events)
{
    if (!root->progress_fn)
        return;
    bool due = false;
    if (root->progress_every && events >= root->progress_next_events) {
        due = true;
        root->progress_next_events = events + root->progress_every;
    }
    double wall = eng_wall_s_();
    if (root->progress_wall_s > 0 &&
        wall - root->progress_last_wall >= root->progress_wall_s)
        due = true;
    if (!due)
        return;
    double dt = wall - root->progress_last_wall;
    eng_progress_info info = {
        .now = group_now(root->group),
        .events = events,
        .events_per_s = dt > 0 ? (double)(events -
                                          root->progress_last_events) / dt
                               : 0.0,
    };
    root->progress_last_wall = wall;
    root->progress_last_events = events;
    root->progress_fn(&info, root->progress_ud);
}

/* The outcome of a window: the partition that failed or stopped first
** (by time, then index) decides; the others must have run through that
** time. */
static int window_outcome(eng_group *g, bool *stopped)
{
    *stopped = false;
    eng_part *first = NULL;
    for (uint32_t p = 0; p < g->n; p++) {
        eng_part *pt = &g->part[p];
        if (pt->failed && (!first || pt->fail_t < first->fail_t))
            first = pt;
    }
    if (!first)
        return MGS_OK;
    if (first->rc) {
        mgs_error_set(first->err_code ? first->err_code : first->rc, "%s",
                      first->err);
        return first->rc;
    }
    if (first->err_code)
        mgs_error_set(first->err_code, "%s", first->err);
    *stopped = true;
    return MGS_OK;
}

static bool any_failed(const eng_group *g)
{
    for (uint32_t p = 0; p < g->n; p++)
        if (g->part[p].failed)
            return true;
    return false;
}

/* After a partition failed or stopped at time T (the earliest such so
** far): the others run, in windows, through every event at or before T,
** where one may fail earlier. Then the earliest failure decides, the same
** whatever the threads and the windows. */
static int finish_failed(eng_group *g, sim_engine *root, bool *stopped)
{
    for (;;) {
        mgs_time t = MGS_TIME_MAX;
        for (uint32_t p = 0; p < g->n; p++)
            if (g->part[p].failed && g->part[p].fail_t < t)
                t = g->part[p].fail_t;
        int rc = MGS_OK;
        int b = eng_boundary_(g, root, t, &rc);
        if (b == BOUNDARY_FAIL)
            return rc;
        if (b == BOUNDARY_END)
            break;
        run_window(g);
        g->st.windows++;
    }
    return window_outcome(g, stopped);
}

/* The boundary: every post merged, the checks, the horizons. Returns
** BOUNDARY_RUN (horizons set), BOUNDARY_END (nothing before limit) or
** BOUNDARY_FAIL (*rc). */
int eng_boundary_(eng_group *g, sim_engine *root, mgs_time limit, int *rc)
{
    const uint64_t max_events = root->cfg.max_events;
    const mgs_time watchdog = root->cfg.watchdog;
    for (uint32_t q = 0; q < g->n; q++)
        eng_take_mail_(g, q);
    merge_mail(g);
    uint64_t events = eng_group_events_(root);
    if (MGS_UNLIKELY(mgs_interrupted())) {
        root->stop = root->interrupted = true;
        char where[96];
        snprintf(where, sizeof where, "at t=%llu ps after %llu events",
                 (unsigned long long)group_now(g),
                 (unsigned long long)events);
        *rc = mgs_interrupt_error(where);
        return BOUNDARY_FAIL;
    }
    if (max_events && events >= max_events) {
        char list[200];
        eng_busy_list(root, list, sizeof list, 4);
        *rc = mgs_error_set(MGS_ELIMIT, "sim.max_events: stopped after "
                            "%llu events at t=%llu ps; still busy: %s",
                            (unsigned long long)events,
                            (unsigned long long)group_now(g), list);
        return BOUNDARY_FAIL;
    }
    mgs_time first = compute_horizons(g);
    if (first == MGS_TIME_MAX || first > limit)
        return BOUNDARY_END;
    mgs_time cap = limit == MGS_TIME_MAX ? MGS_TIME_MAX : limit + 1;
    if (watchdog) {
        mgs_time fwd = 0;
        uint64_t since = 0;
        for (uint32_t p = 0; p < g->n; p++) {
            const sim_engine *e = g->part[p].e;
            if (e->forward_time > fwd)
                fwd = e->forward_time;
            since += e->events - e->forward_events;
        }
        if (first > fwd && first - fwd > watchdog &&
            since > ENG_WATCHDOG_MIN_EVENTS) {
            char list[200], what[400];
            eng_busy_list(root, list, sizeof list, 4);
            snprintf(what, sizeof what,
                     "livelock (sim.watchdog = %llu ps): %llu events "
                     "over %llu ps consumed no message; still busy: %s",
                     (unsigned long long)watchdog,
                     (unsigned long long)since,
                     (unsigned long long)(first - fwd), list);
            root->now = group_now(g);
            *rc = eng_fail_deadlock_(root, what);
            return BOUNDARY_FAIL;
        }
        /* Running ahead, no partition passes the point where the check
        ** would fire without a global step first. */
        if (fwd < MGS_TIME_MAX - watchdog - 1 && fwd + watchdog + 1 > first &&
            fwd + watchdog + 1 < cap)
            cap = fwd + watchdog + 1;
    }
    /* Read by threads looking for work (a hint) while this one holds
    ** every partition. */
    __atomic_store_n(&g->ctl.cap, cap, __ATOMIC_RELAXED);
    if (g->window_cap && first < MGS_TIME_MAX - g->window_cap)
        for (uint32_t p = 0; p < g->n; p++)
            if (g->horizon[p] > first + g->window_cap)
                g->horizon[p] = first + g->window_cap;
    for (uint32_t p = 0; p < g->n; p++)
        if (g->horizon[p] > cap)
            g->horizon[p] = cap;
    return BOUNDARY_RUN;
}

int eng_group_run_(sim_engine *root, mgs_time limit, bool to_completion)
{
    eng_group *g = root->group;
    if (g->zero_what[0])
        return mgs_error_set(MGS_ECONFIG, "sim.partition: the crossing %s "
                             "has no latency, so partitions cannot run "
                             "ahead of each other (set sim.partition = "
                             "none)", g->zero_what);
    for (uint32_t p = 0; p < g->n; p++)
        if (g->part[p].e->hook_mask)
            return mgs_error_set(MGS_ECONFIG, "sim.partition: engine "
                                 "hooks (--trace) need sim.partition = "
                                 "none");
    for (uint32_t p = 0; p < g->n; p++) {
        sim_engine *e = g->part[p].e;
        e->stop = e->interrupted = false;
        g->part[p].failed = false;
        g->part[p].rc = MGS_OK;
        g->part[p].err_code = 0;
        eng_note_forward(e);
    }
    root->stop = false;
    threads_start(g);
    /* Windows where the stop point must not depend on the threads
    ** (sim.max_events counts at boundaries) or a test caps them. */
    const bool ahead = g->started && !g->window_cap && !root->cfg.max_events;
    for (;;) {
        double t0 = eng_wall_s_();
        int rc = MGS_OK;
        int b = eng_boundary_(g, root, limit, &rc);
        if (b == BOUNDARY_FAIL) {
            root->stop = true;
            return rc;
        }
        if (b == BOUNDARY_END)
            break;
        g->st.serial_s += eng_wall_s_() - t0;
        if (ahead) {
            b = eng_run_ahead_(g, root, limit, &rc);
            if (b == BOUNDARY_FAIL) {
                root->stop = true;
                return rc;
            }
            if (b == BOUNDARY_END && !any_failed(g))
                break;
        } else {
            run_window(g);
            g->st.windows++;
        }
        if (any_failed(g)) {
            bool stopped;
            rc = finish_failed(g, root, &stopped);
            root->stop = true;
            return rc;
        }
        eng_group_progress_(root, eng_group_events_(root));
    }
    if (to_completion) {
        set_all_now(g, group_now(g));
        return eng_check_idle_(root);
    }
    set_all_now(g, limit);
    return MGS_OK;
}
