/*
** Event engine: the run loop, the progress watchdog, hooks and progress
** reporting. See engine.h for the model and evq.h for the queue.
**
** Queue choice: a wheel of picosecond buckets (evq.h) rather than one
** binary heap of (time, seq, event) entries, because clocked components
** put many events on the same edge and within a few cycles of now; only
** events beyond the wheel's window go to a heap (bench_engine numbers in
** docs/engine.md).
**
** Watchdog. same_time_events counts events fired since simulated time last
** advanced or progress was last noted; passing cfg.livelock_events stops
** the run. On an empty queue the engine asks every component's ops->busy.
*/
#include "sim/engine_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mgsim/errors.h"
#include "sim/port.h"
#include "util/interrupt.h"
#include "util/xmalloc.h"

/* How often (events) the run loop looks at the wall clock when only a
** wall-time progress trigger is set. */
#define PROGRESS_WALL_CHECK_EVENTS 4096u

void eng_config_default(sim_engine_config *cfg)
{
    cfg->livelock_events = 10u * 1000u * 1000u;
    cfg->queue_hint = 1024;
    cfg->max_events = 0;     /* no limit */
    cfg->watchdog = 0;       /* off; the runtime sets sim.watchdog */
}

sim_engine *eng_new(const sim_engine_config *cfg)
{
    sim_engine *e = MGS_NEW(sim_engine);
    if (cfg)
        e->cfg = *cfg;
    else
        eng_config_default(&e->cfg);
    evq_init(&e->q, e->cfg.queue_hint);
    e->next_hook_handle = 1;
    e->root = e;
    return e;
}

void eng_free(sim_engine *e)
{
    if (!e)
        return;
    eng_group_free_(e);
    for (int i = 0; i < SIM_HOOK_POS_COUNT; i++)
        free(e->hooks[i]);
    evq_fini(&e->q);
    free(e->comps);
    free(e);
}

mgs_time eng_now(const sim_engine *e) { return e->now; }
uint64_t eng_events(const sim_engine *e)
{
    return e->group && e->root == e ? eng_group_events_(e) : e->events;
}
size_t eng_pending(const sim_engine *e)
{
    return e->group && e->root == e ? eng_group_pending_(e)
                                    : evq_count(&e->q);
}
void eng_stop(sim_engine *e) { e->stop = true; }
bool eng_stop_requested(const sim_engine *e) { return e->stop; }
void eng_note_progress(sim_engine *e) { e->same_time_events = 0; }
void eng_note_forward(sim_engine *e)
{
    eng_note_forward_(e->now, &e->forward_time, e->events,
                      &e->forward_events);
}

void eng_set_limits(sim_engine *e, uint64_t max_events, mgs_time watchdog)
{
    e->cfg.max_events = max_events;
    e->cfg.watchdog = watchdog;
}

void eng_register_comp_(sim_engine *e, sim_comp *c)
{
    e = e->root;
    if (e->ncomps == e->comps_cap) {
        e->comps_cap = e->comps_cap ? 2 * e->comps_cap : 16;
        e->comps = mgs_xrealloc(e->comps, e->comps_cap * sizeof(*e->comps));
    }
    c->id = e->ncomps;
    e->comps[e->ncomps++] = c;
}

/* ---- scheduling ----------------------------------------------------- */

void eng_schedule_any_(sim_engine *e, sim_event *ev, mgs_time t)
{
    assert(!ev->scheduled && "event already in the queue");
    assert(t >= e->now && "event scheduled in the past");
    ENG_ASSERT_OWN_(e);
    ev->scheduled = true;
    evq_push(&e->q, ev, t);
}

void eng_schedule(sim_engine *e, sim_event *ev, mgs_time t)
{
    assert((e->current == NULL || e->current == ev->comp) &&
           "components schedule events only for themselves");
    eng_schedule_any_(e, ev, t);
}

/* ---- hooks ---------------------------------------------------------- */

int eng_hook_add(sim_engine *e, sim_hook_pos pos, sim_hook_fn fn, void *ud)
{
    assert(pos < SIM_HOOK_POS_COUNT && fn);
    uint32_t n = e->nhooks[pos];
    e->hooks[pos] = mgs_xrealloc(e->hooks[pos], (n + 1) * sizeof(eng_hook));
    e->hooks[pos][n] = (eng_hook){fn, ud, e->next_hook_handle};
    e->nhooks[pos] = n + 1;
    e->hook_mask |= 1u << pos;
    return e->next_hook_handle++;
}

void eng_hook_remove(sim_engine *e, int handle)
{
    for (int pos = 0; pos < SIM_HOOK_POS_COUNT; pos++) {
        for (uint32_t i = 0; i < e->nhooks[pos]; i++) {
            if (e->hooks[pos][i].handle != handle)
                continue;
            memmove(&e->hooks[pos][i], &e->hooks[pos][i + 1],
                    (e->nhooks[pos] - i - 1) * sizeof(eng_hook));
            if (--e->nhooks[pos] == 0)
                e->hook_mask &= ~(1u << pos);
            return;
        }
    }
}

void eng_fire_hooks_(sim_engine *e, const sim_hook_ctx *ctx)
{
    const eng_hook *h = e->hooks[ctx->pos];
    for (uint32_t i = 0; i < e->nhooks[ctx->pos]; i++)
        h[i].fn(ctx, h[i].ud);
}

/* ---- progress ------------------------------------------------------- */

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Events until the next progress_check: the next report, the next look at
** the wall clock, and at least every PROGRESS_WALL_CHECK_EVENTS events a
** look at the interrupt flag (util/interrupt.h). */
static uint64_t progress_countdown(const sim_engine *e)
{
    uint64_t n = UINT64_MAX;
    if (e->progress_every)
        n = e->progress_next_events - e->events;
    if (n > PROGRESS_WALL_CHECK_EVENTS)
        n = PROGRESS_WALL_CHECK_EVENTS;
    return n ? n : 1;
}

void eng_set_progress(sim_engine *e, eng_progress_fn fn, void *ud,
                      uint64_t every_events, double wall_interval_s)
{
    e->progress_fn = fn;
    e->progress_ud = ud;
    e->progress_every = fn ? every_events : 0;
    e->progress_wall_s = fn ? wall_interval_s : 0;
    e->progress_next_events = e->events + every_events;
    e->progress_last_wall = wall_now();
    e->progress_last_events = e->events;
    e->progress_countdown = progress_countdown(e);
}

static void progress_report(sim_engine *e, double wall)
{
    double dt = wall - e->progress_last_wall;
    eng_progress_info info = {
        .now = e->now,
        .events = e->events,
        .events_per_s = dt > 0 ? (double)(e->events -
                                          e->progress_last_events) / dt
                               : 0.0,
    };
    e->progress_last_wall = wall;
    e->progress_last_events = e->events;
    e->progress_fn(&info, e->progress_ud);
}

/* Called when progress_countdown reaches 0. */
static void progress_check(sim_engine *e)
{
    if (MGS_UNLIKELY(mgs_interrupted()))
        e->stop = e->interrupted = true;
    if (!e->progress_fn) {
        e->progress_countdown = PROGRESS_WALL_CHECK_EVENTS;
        return;
    }
    bool due = false;
    if (e->progress_every && e->events >= e->progress_next_events) {
        due = true;
        e->progress_next_events = e->events + e->progress_every;
    }
    double wall = 0;
    if (due || e->progress_wall_s > 0) {
        wall = wall_now();
        if (e->progress_wall_s > 0 &&
            wall - e->progress_last_wall >= e->progress_wall_s)
            due = true;
    }
    if (due)
        progress_report(e, wall);
    e->progress_countdown = progress_countdown(e);
}

/* ---- diagnosis ------------------------------------------------------ */

typedef struct diag_item {
    char name[96];            /* a copy: visitors may pass a stack buffer */
    uint32_t occ, cap;
    uint32_t order;
} diag_item;

typedef struct diag_list {
    diag_item *items;
    uint32_t n, cap;
} diag_list;

static void diag_visit(const char *name, uint32_t occ, uint32_t cap,
                       void *ud)
{
    diag_list *l = ud;
    if (occ == 0)
        return;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->items = mgs_xrealloc(l->items, l->cap * sizeof(*l->items));
    }
    diag_item *it = &l->items[l->n];
    snprintf(it->name, sizeof it->name, "%s", name);
    it->occ = occ;
    it->cap = cap;
    it->order = l->n++;
}

/* Fuller first (occ/cap compared exactly), then more messages, then
** registration order: deterministic. */
static int diag_cmp(const void *pa, const void *pb)
{
    const diag_item *a = pa, *b = pb;
    uint64_t fa = (uint64_t)a->occ * b->cap, fb = (uint64_t)b->occ * a->cap;
    if (fa != fb)
        return fa > fb ? -1 : 1;
    if (a->occ != b->occ)
        return a->occ > b->occ ? -1 : 1;
    return a->order < b->order ? -1 : 1;
}

/* snprintf that appends at *len, tolerating truncation. */
static void appendf(char *buf, size_t n, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void appendf(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(*len < n ? buf + *len : NULL,
                      *len < n ? n - *len : 0, fmt, ap);
    va_end(ap);
    if (k > 0)
        *len += (size_t)k;
}

size_t eng_diagnose(const sim_engine *e, char *buf, size_t n,
                    size_t max_items)
{
    diag_list l = {0};
    for (uint32_t i = 0; i < e->ncomps; i++) {
        const sim_comp *c = e->comps[i];
        for (const sim_port *p = c->ports; p; p = p->next)
            diag_visit(p->name, p->count, p->capacity, &l);
        if (c->ops->visit_buffers)
            c->ops->visit_buffers(c, diag_visit, &l);
    }
    size_t len = 0;
    if (n)
        buf[0] = '\0';
    if (l.n == 0) {
        appendf(buf, n, &len, "no buffered messages");
    } else {
        qsort(l.items, l.n, sizeof(*l.items), diag_cmp);
        appendf(buf, n, &len, "fullest buffers:");
        for (uint32_t i = 0; i < l.n && i < max_items; i++)
            appendf(buf, n, &len, "%s %s %u/%u", i ? "," : "",
                    l.items[i].name, l.items[i].occ, l.items[i].cap);
        if (l.n > max_items)
            appendf(buf, n, &len, ", ... (%u more)",
                    l.n - (uint32_t)max_items);
    }
    free(l.items);
    return len;
}

void eng_dump(const sim_engine *e, FILE *f)
{
    fprintf(f, "engine: now=%llu ps events=%llu pending=%zu components=%u\n",
            (unsigned long long)e->now, (unsigned long long)e->events,
            evq_count(&e->q), e->ncomps);
    for (uint32_t i = 0; i < e->ncomps; i++)
        comp_dump(e->comps[i], f);
}

/* "; waiting: ..." from the first components that say what they wait
** for (sim_comp_ops.stall), or nothing. */
static void stall_list(const sim_engine *e, char *buf, size_t n)
{
    size_t len = 0;
    uint32_t said = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < e->ncomps && said < 2; i++) {
        const sim_comp *c = e->comps[i];
        char why[200];
        if (!c->ops->stall || !c->ops->stall(c, why, sizeof why))
            continue;
        appendf(buf, n, &len, "%s%s", said ? "; " : "; waiting: ", why);
        said++;
    }
}

int eng_fail_deadlock_(sim_engine *e, const char *what)
{
    char diag[640], stalls[420];
    eng_diagnose(e, diag, sizeof diag, 6);
    stall_list(e, stalls, sizeof stalls);
    return mgs_error_set(MGS_EDEADLOCK, "%s at t=%llu ps after %llu events; "
                         "%s%s", what, (unsigned long long)e->now,
                         (unsigned long long)eng_events(e), diag, stalls);
}

size_t eng_busy_list(const sim_engine *e, char *buf, size_t n,
                     size_t max_items)
{
    size_t len = 0;
    uint32_t busy = 0;
    if (n)
        buf[0] = '\0';
    for (uint32_t i = 0; i < e->ncomps; i++) {
        const sim_comp *c = e->comps[i];
        if (!c->ops->busy || !c->ops->busy(c))
            continue;
        if (busy < max_items)
            appendf(buf, n, &len, "%s%s", busy ? ", " : "", c->name);
        busy++;
    }
    if (busy == 0)
        appendf(buf, n, &len, "nothing");
    else if (busy > max_items)
        appendf(buf, n, &len, " and %u more", busy - (uint32_t)max_items);
    return len;
}

static uint32_t busy_count(const sim_engine *e)
{
    uint32_t busy = 0;
    for (uint32_t i = 0; i < e->ncomps; i++) {
        const sim_comp *c = e->comps[i];
        busy += c->ops->busy && c->ops->busy(c);
    }
    return busy;
}

int eng_check_idle_(sim_engine *e)
{
    uint32_t busy = busy_count(e);
    if (busy == 0)
        return MGS_OK;
    char list[200], what[256];
    eng_busy_list(e, list, sizeof list, 3);
    snprintf(what, sizeof what, "deadlock: event queue empty while %s %s "
             "pending work", list, busy == 1 ? "has" : "have");
    return eng_fail_deadlock_(e, what);
}

/* A signal asked the run to stop (util/interrupt.h). */
static int fail_interrupted(sim_engine *e)
{
    char where[96];
    snprintf(where, sizeof where, "at t=%llu ps after %llu events",
             (unsigned long long)e->now, (unsigned long long)e->events);
    return mgs_interrupt_error(where);
}

/* sim.max_events reached: name what was still busy. */
static int fail_max_events(sim_engine *e)
{
    char list[200];
    eng_busy_list(e, list, sizeof list, 4);
    return mgs_error_set(MGS_ELIMIT, "sim.max_events: stopped after %llu "
                         "events at t=%llu ps; still busy: %s",
                         (unsigned long long)e->events,
                         (unsigned long long)e->now, list);
}

/* sim.watchdog: events kept firing but nothing moved for too long. */
static int fail_watchdog(sim_engine *e, mgs_time t)
{
    char list[200], what[400];
    eng_busy_list(e, list, sizeof list, 4);
    snprintf(what, sizeof what,
             "livelock (sim.watchdog = %llu ps): %llu events over %llu ps "
             "consumed no message; still busy: %s",
             (unsigned long long)e->cfg.watchdog,
             (unsigned long long)(e->events - e->forward_events),
             (unsigned long long)(t - e->forward_time), list);
    return eng_fail_deadlock_(e, what);
}

/* ---- run loop ------------------------------------------------------- */

static inline void dispatch(sim_engine *e, sim_event *ev)
{
    sim_comp *c = ev->comp;
    e->current = c;
    if (ev == &c->tick_ev) {
        c->ticks++;
        c->last_tick = e->now;
        if (c->ops->tick(c)) {
            e->same_time_events = 0;
            if (!c->tick_ev.scheduled)
                eng_schedule_any_(e, &c->tick_ev, e->now + c->period);
        }
    } else {
        c->ops->handle(c, ev);
    }
    e->current = NULL;
}

/* Fires ev (popped at time t): the same-time livelock check, the event
** hooks and the handler. Returns MGS_OK or the livelock failure. */
static inline __attribute__((always_inline)) int
fire(sim_engine *e, sim_event *ev, mgs_time t, uint64_t livelock)
{
    if (t != e->now) {
        e->now = t;
        e->same_time_events = 0;
    } else if (MGS_UNLIKELY(++e->same_time_events > livelock && livelock)) {
        char what[200];
        snprintf(what, sizeof what,
                 "livelock: %llu events at one time without progress "
                 "(last handler %s)",
                 (unsigned long long)livelock, ev->comp->name);
        /* Put the event back so the state stays inspectable. */
        ev->scheduled = false;
        eng_schedule_any_(e, ev, t);
        return eng_fail_deadlock_(e, what);
    }
    e->events++;
    ev->scheduled = false;
    if (eng_hooked_(e, SIM_HOOK_BEFORE_EVENT)) {
        sim_hook_ctx ctx = {.pos = SIM_HOOK_BEFORE_EVENT, .now = e->now,
                            .comp = ev->comp, .ev = ev};
        eng_fire_hooks_(e, &ctx);
    }
    dispatch(e, ev);
    if (eng_hooked_(e, SIM_HOOK_AFTER_EVENT)) {
        sim_hook_ctx ctx = {.pos = SIM_HOOK_AFTER_EVENT, .now = e->now,
                            .comp = ev->comp, .ev = ev};
        eng_fire_hooks_(e, &ctx);
    }
    return MGS_OK;
}

/* Fires events up to limit. Only a run to completion (eng_run) treats an
** empty queue as the end, and so checks for components still busy. */
static int run_loop(sim_engine *e, mgs_time limit, bool to_completion)
{
    e->stop = false;
    const uint64_t livelock = e->cfg.livelock_events;
    const uint64_t max_events = e->cfg.max_events ? e->cfg.max_events
                                                  : UINT64_MAX;
    const mgs_time watchdog = e->cfg.watchdog;
    /* A fresh run (or an idle gap between runs) is not a stall. */
    eng_note_forward(e);
    if (MGS_UNLIKELY(mgs_interrupted())) {
        e->stop = e->interrupted = true;
        return fail_interrupted(e);
    }
    while (evq_count(&e->q)) {
        if (evq_min_time(&e->q) > limit)
            return MGS_OK;
        if (MGS_UNLIKELY(e->events >= max_events))
            return fail_max_events(e);
        mgs_time t;
        sim_event *ev = evq_pop(&e->q, &t);
        if (MGS_UNLIKELY(t != e->now && watchdog &&
                         t - e->forward_time > watchdog &&
                         e->events - e->forward_events >
                             ENG_WATCHDOG_MIN_EVENTS)) {
            ev->scheduled = false;
            eng_schedule_any_(e, ev, t);
            return fail_watchdog(e, t);
        }
        int rc = fire(e, ev, t, livelock);
        if (MGS_UNLIKELY(rc))
            return rc;
        if (MGS_UNLIKELY(--e->progress_countdown == 0))
            progress_check(e);
        if (MGS_UNLIKELY(e->stop))
            return e->interrupted ? fail_interrupted(e) : MGS_OK;
    }
    return to_completion ? eng_check_idle_(e) : MGS_OK;
}

int eng_run_window_(sim_engine *e, mgs_time limit)
{
    const uint64_t livelock = e->cfg.livelock_events;
    while (evq_count(&e->q) && evq_min_time(&e->q) <= limit) {
        mgs_time t;
        sim_event *ev = evq_pop(&e->q, &t);
        int rc = fire(e, ev, t, livelock);
        if (MGS_UNLIKELY(rc))
            return rc;
        if (MGS_UNLIKELY(e->stop))
            return MGS_OK;
    }
    return MGS_OK;
}

int eng_run(sim_engine *e)
{
    if (e->group)
        return eng_group_run_(e, MGS_TIME_MAX, true);
    if (e->progress_countdown == 0)
        e->progress_countdown = progress_countdown(e);
    return run_loop(e, MGS_TIME_MAX, true);
}

int eng_run_until(sim_engine *e, mgs_time t)
{
    if (e->group)
        return eng_group_run_(e, t, false);
    if (e->progress_countdown == 0)
        e->progress_countdown = progress_countdown(e);
    int rc = run_loop(e, t, false);
    if (rc == MGS_OK && !e->stop && t > e->now)
        e->now = t;
    return rc;
}
