/*
** The engine's event queue: a wheel of picoseconds over the near future,
** and a heap of events for the far future.
**
** Simulated hardware is clocked, so most events are due within a few
** cycles of now and many share a timestamp (every component ticking on
** the same edge). The queue therefore has two parts:
**   - the wheel: one bucket per picosecond of the window [base, base +
**     EVQ_WHEEL_BUCKETS), where base is the time of the last event
**     popped; a bucket is the FIFO list of the events due at its time
**     (linked through sim_event.next, no allocation), found from its time
**     modulo the wheel's size. A three-level bitmap of the non-empty
**     buckets finds the next one in a few word operations. With 65,536
**     buckets the window is 65.5 ns: in a 4-GPU run 99.95 % of the events
**     are scheduled less than that ahead;
**   - the far store, for events due beyond the window: a binary min-heap
**     of (time, push number, event). Copies have most such events (a
**     burst's end is some hundred ns ahead); a kernel run few.
** When base advances, the far events that now fall into the window move
** to the wheel, earliest first: since the window only moves forward,
** every far event due at t was pushed before any wheel event due at t,
** and the move keeps them first.
**
** Order: earliest time first; within one time, insertion order (FIFO).
** That is exactly the order of (time, global insertion sequence number),
** without storing the number.
**
** Invariants: every wheel event is due in the window and the bitmaps mark
** exactly the non-empty buckets; no non-empty bucket is due before
** `first`, whose bucket is non-empty when first_known; every far event is due beyond the window; count is the number
** of events in both. Storage grows (amortised) but never shrinks, so a
** steady state allocates nothing. Events may not be pushed before the
** time of the last one popped (the engine never schedules in the past).
*/
#ifndef MGS_SIM_EVQ_H
#define MGS_SIM_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine.h"

#define EVQ_WHEEL_BUCKETS (1u << 16) /* picoseconds; a multiple of 4096 */

typedef struct evq_bucket {
    sim_event *head, *tail;   /* FIFO */
} evq_bucket;

/* The far store: a binary min-heap of the events due beyond the wheel,
** ordered by (time, seq); seq numbers the pushes, so events of one time
** leave in push order. */
typedef struct evq_fent {
    mgs_time time;
    uint64_t seq;
    sim_event *ev;
} evq_fent;

typedef struct evq_far {
    evq_fent *heap;           /* [cap + 1]: one more for a sentinel */
    uint32_t cap;
    uint64_t seq;             /* the next push's; above every queued one */
    size_t count;             /* events in the far store */
} evq_far;

typedef struct sim_evq {
    evq_bucket *bucket;       /* EVQ_WHEEL_BUCKETS, indexed by time mod */
    uint64_t *bits0;          /* bucket i non-empty */
    uint64_t bits1[EVQ_WHEEL_BUCKETS / 4096]; /* bits0 word j non-zero */
    uint64_t bits2;           /* bits1 word k non-zero */
    mgs_time base;            /* the window's first time */
    mgs_time first;           /* no non-empty bucket due before this */
    bool first_known;         /* and first's bucket is non-empty */
    evq_far far;
    size_t count;             /* events queued */
} sim_evq;

void evq_init(sim_evq *q, size_t events_hint);
void evq_fini(sim_evq *q);

/* Appends ev at time t (after every event already queued at t); t not
** before the time of the last event popped. */
static inline void evq_push(sim_evq *q, sim_event *ev, mgs_time t);
/* Inserts ev at time t after the leading events e of t's list for which
** before(e, ev) holds, ahead of all the others (the parallel engine's
** posts: sim/partition.c). */
typedef bool (*evq_before_fn)(const sim_event *queued, const sim_event *ev);
void evq_push_ordered(sim_evq *q, sim_event *ev, mgs_time t,
                      evq_before_fn before);
/* Removes and returns the first event; *t receives its time. q nonempty. */
static inline sim_event *evq_pop(sim_evq *q, mgs_time *t);

static inline size_t evq_count(const sim_evq *q) { return q->count; }
/* Time of the first event; q nonempty. */
static inline mgs_time evq_min_time(sim_evq *q);
/* 1 if the invariants hold (for tests and debug asserts). */
int evq_check(const sim_evq *q);

/* ---- fast paths (the engine's inner loop); the rest is in evq.c ------ */

/* Slow paths: ev into an empty bucket or beyond the window; `first` found
** (moving the window to the far store's first when the wheel is empty
** and jump is set); the bookkeeping after a pop that emptied its bucket
** or moved the window. */
void evq_push_slow_(sim_evq *q, sim_event *ev, mgs_time t);
mgs_time evq_find_first_(sim_evq *q, bool jump);
void evq_popped_(sim_evq *q, evq_bucket *k, mgs_time t);

static inline void evq_push(sim_evq *q, sim_event *ev, mgs_time t)
{
    evq_bucket *k = &q->bucket[t & (EVQ_WHEEL_BUCKETS - 1)];
    if (__builtin_expect(t - q->base >= EVQ_WHEEL_BUCKETS || !k->tail, 0)) {
        evq_push_slow_(q, ev, t);
        return;
    }
    ev->next = NULL;
    k->tail->next = ev;
    k->tail = ev;
    q->count++;
    /* A non-empty bucket cannot be before `first`; at it, it is first. */
    if (t == q->first)
        q->first_known = true;
}

static inline mgs_time evq_min_time(sim_evq *q)
{
    if (__builtin_expect(q->first_known, 1))
        return q->first;
    return evq_find_first_(q, false);
}

static inline sim_event *evq_pop(sim_evq *q, mgs_time *t)
{
    if (__builtin_expect(!q->first_known, 0))
        evq_find_first_(q, true);
    mgs_time b = q->first;
    evq_bucket *k = &q->bucket[b & (EVQ_WHEEL_BUCKETS - 1)];
    sim_event *ev = k->head;
    k->head = ev->next;
    ev->next = NULL;
    *t = b;
    q->count--;
    if (__builtin_expect(!k->head || b != q->base, 0))
        evq_popped_(q, k, b);
    else /* the next pop reads it; it lives in some component */
        __builtin_prefetch(k->head);
    return ev;
}

#endif
