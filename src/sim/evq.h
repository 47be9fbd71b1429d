/*
** The engine's event queue: events grouped into time slots.
**
** Simulated hardware is clocked, so many events share a timestamp (every
** component ticking on the same edge). The queue therefore keeps one slot
** per distinct pending time, holding a FIFO list of its events (linked
** through sim_event.next, no allocation), plus
**   - a binary min-heap of slots keyed by time (distinct keys), and
**   - an open-addressing hash table time -> slot, to append in O(1).
** Heap work happens only when a time appears or disappears, not per event.
**
** Order: earliest time first; within one time, insertion order (FIFO).
** That is exactly the order of (time, global insertion sequence number),
** without storing the number.
**
** Invariants: every slot in the heap is non-empty and in the hash table;
** count == number of events in all slots. Storage grows (amortised) but
** never shrinks, so a steady state allocates nothing.
*/
#ifndef MGS_SIM_EVQ_H
#define MGS_SIM_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine.h"

typedef struct evq_slot {
    mgs_time time;
    sim_event *head, *tail;   /* FIFO; head == NULL iff the slot is free */
    uint32_t next_free;       /* free-list link while unused */
} evq_slot;

typedef struct evq_hent {
    mgs_time time;
    uint32_t slot;            /* EVQ_NONE = empty entry */
} evq_hent;

typedef struct evq_hkey {
    mgs_time time;
    uint32_t slot;
} evq_hkey;

typedef struct sim_evq {
    evq_slot *slots;
    uint32_t nslots, free_head;
    evq_hkey *heap;           /* min-heap on time; entries (time, slot) */
    uint32_t heap_n;
    evq_hent *hash;           /* capacity hmask + 1, a power of two */
    uint32_t hmask, hcount;
    mgs_time last_time;       /* one-entry cache of the last slot used */
    uint32_t last_slot;       /* EVQ_NONE when invalid */
    size_t count;             /* events queued */
} sim_evq;

#define EVQ_NONE UINT32_MAX

void evq_init(sim_evq *q, size_t slots_hint);
void evq_fini(sim_evq *q);

/* Appends ev at time t (after every event already queued at t). */
void evq_push(sim_evq *q, sim_event *ev, mgs_time t);
/* Inserts ev at time t after the leading events e of t's list for which
** before(e, ev) holds, ahead of all the others (the parallel engine's
** posts: sim/partition.c). */
typedef bool (*evq_before_fn)(const sim_event *queued, const sim_event *ev);
void evq_push_ordered(sim_evq *q, sim_event *ev, mgs_time t,
                      evq_before_fn before);
/* Removes and returns the first event; *t receives its time. q nonempty. */
sim_event *evq_pop(sim_evq *q, mgs_time *t);

static inline size_t evq_count(const sim_evq *q) { return q->count; }
/* Time of the first event; q nonempty. */
static inline mgs_time evq_min_time(const sim_evq *q)
{
    return q->heap[0].time;
}
/* 1 if the invariants hold (for tests and debug asserts). */
int evq_check(const sim_evq *q);

#endif
