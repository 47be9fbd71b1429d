/*
** The event engine: one queue of events ordered by (time, sequence number).
**
** Model. Simulated time is integer picoseconds (sim/time.h). An event is a
** small intrusive record (sim_event) owned by the component that handles it;
** scheduling links it into the engine's queue (sim/evq.h), so the hot path
** never allocates. Events fire in (time, schedule order): the order is
** total and deterministic, and two events at the same time fire in the
** order they were scheduled.
**
** Invariants:
**   - An event is in the queue at most once (ev->scheduled), never earlier
**     than eng_now().
**   - Components schedule events only for themselves: while the engine runs
**     an event of component C, eng_schedule() asserts ev->comp == C. The
**     only crossings are the engine-owned wake-ups done by ports and
**     connections (comp_wake, delivery of a message); those are the points
**     the parallel engine synchronises on (sim/partition.h).
**   - The engine owns no component; components register at comp_init and
**     must outlive every eng_run call. eng_free never touches them.
**
** Stopping. eng_run returns MGS_OK when the queue empties (or eng_stop was
** requested), MGS_ELIMIT when cfg.max_events fired, or MGS_EDEADLOCK from
** the progress watchdog:
**   - livelock: more than cfg.livelock_events events fired at one simulated
**     time without any component making progress (eng_note_progress);
**   - deadlock: the queue emptied while a component still reports pending
**     work (ops->busy) or a connection still holds undelivered messages;
**   - stall: cfg.watchdog of simulated time passed with events firing but
**     no message consumed anywhere (see sim_engine_config.watchdog).
** Both record one line naming the fullest buffers (eng_diagnose).
**
** Hooks (before/after event, port send/receive, task start/end) are kept
** per position; a position with no hook costs one predictable branch on a
** bit mask.
*/
#ifndef MGS_SIM_ENGINE_H
#define MGS_SIM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/time.h"

typedef struct sim_engine sim_engine;
typedef struct sim_comp sim_comp;
typedef struct sim_port sim_port;
typedef struct sim_msg sim_msg;
typedef struct sim_conn sim_conn;

/* An event handled by exactly one component. Storage belongs to that
** component (usually embedded in it); the engine only links it. */
typedef struct sim_event {
    struct sim_event *next; /* queue link (engine-private) */
    sim_comp *comp;  /* handler: the only component this event may modify */
    void *data;      /* handler-defined (e.g. which lane, which bank) */
    uint32_t kind;   /* handler-defined */
    bool scheduled;  /* in the queue now; cleared just before handling */
} sim_event;

static inline void eng_event_init(sim_event *ev, sim_comp *comp,
                                  uint32_t kind, void *data)
{
    ev->next = NULL;
    ev->comp = comp;
    ev->data = data;
    ev->kind = kind;
    ev->scheduled = false;
}

typedef struct sim_engine_config {
    uint64_t livelock_events; /* events at one time w/o progress; 0 = off */
    size_t queue_hint;        /* initial queue capacity, events */
    /* Stop with MGS_ELIMIT once this many events fired (sim.max_events;
    ** 0 = no limit). */
    uint64_t max_events;
    /* Watchdog (sim.watchdog; 0 = off): stop with MGS_EDEADLOCK when
    ** simulated time advanced more than this (ps) while events kept firing
    ** (more than ENG_WATCHDOG_MIN_EVENTS of them) and no component took a
    ** message from a port (port_retrieve) or noted forward progress
    ** (eng_note_forward). A wave spinning on s_branch, a component retrying
    ** forever or polling an empty queue all end this way; a long quiet
    ** wait (one far event) does not. */
    mgs_time watchdog;
} sim_engine_config;

#define ENG_WATCHDOG_MIN_EVENTS 1000u

void eng_config_default(sim_engine_config *cfg);

/* cfg may be NULL for defaults. Free with eng_free. */
sim_engine *eng_new(const sim_engine_config *cfg);
void eng_free(sim_engine *e);

mgs_time eng_now(const sim_engine *e);
uint64_t eng_events(const sim_engine *e);    /* events fired so far */
size_t eng_pending(const sim_engine *e);     /* events in the queue */

/* Schedules ev (not already scheduled) at time t >= now. When called from
** an event handler, ev must belong to the component being handled. */
void eng_schedule(sim_engine *e, sim_event *ev, mgs_time t);

/* Runs until the queue is empty, a stop is requested, or the watchdog
** fires (MGS_EDEADLOCK with a message). */
int eng_run(sim_engine *e);
/* Fires only events with time <= t, then advances now to t (unless
** stopped). An empty queue is not a deadlock here: the caller owns the
** horizon and may inject more work (the host runtime, another partition of
** a parallel engine); the livelock check still applies. */
int eng_run_until(sim_engine *e, mgs_time t);
/* Requests the running loop to return after the current event. */
void eng_stop(sim_engine *e);
bool eng_stop_requested(const sim_engine *e);

/* Called (by ticks, ports and connections) whenever real work happened;
** resets the livelock counter. */
void eng_note_progress(sim_engine *e);
/* Forward progress for the watchdog (cfg.watchdog): a message was
** consumed or a unit of work completed. port_retrieve calls it. */
static inline void eng_note_forward_(mgs_time now, mgs_time *last_t,
                                     uint64_t events, uint64_t *last_ev)
{
    *last_t = now;
    *last_ev = events;
}
void eng_note_forward(sim_engine *e);
/* Limits after construction (sim.max_events, sim.watchdog; 0 = off). */
void eng_set_limits(sim_engine *e, uint64_t max_events, mgs_time watchdog);
/* Names of up to max_items components that report pending work
** (ops->busy), "A, B and 3 more", or "nothing"; like snprintf. */
size_t eng_busy_list(const sim_engine *e, char *buf, size_t n,
                     size_t max_items);

/* Writes "fullest buffers: A.in 4/4, B.in 3/4, ..." (or "no buffered
** messages") into buf, NUL-terminated, buffers sorted by fullness then by
** registration order, at most max_items of them. Returns the length the
** full line needs (like snprintf). */
size_t eng_diagnose(const sim_engine *e, char *buf, size_t n,
                    size_t max_items);

/* Debug dump: time, queue size, then comp_dump of every component in
** registration order. */
void eng_dump(const sim_engine *e, FILE *f);

/* Index of the partition (sim/partition.h) the calling thread runs: 0
** outside a parallel window. Per-partition state outside the engine (the
** memory message pool) picks its share with it. */
extern __attribute__((tls_model("initial-exec"))) _Thread_local uint32_t
    eng_thread_part_;

/* ---- hooks ---------------------------------------------------------- */

typedef enum sim_hook_pos {
    SIM_HOOK_BEFORE_EVENT,
    SIM_HOOK_AFTER_EVENT,
    SIM_HOOK_PORT_SEND,  /* a port accepted a message (port_send == 0) */
    SIM_HOOK_PORT_RECV,  /* a message entered a port's incoming buffer */
    SIM_HOOK_TASK_START, /* comp_task_start */
    SIM_HOOK_TASK_END,   /* comp_task_end */
    SIM_HOOK_POS_COUNT
} sim_hook_pos;

typedef struct sim_hook_ctx {
    sim_hook_pos pos;
    mgs_time now;
    sim_comp *comp;        /* handler / port owner / task owner */
    const sim_event *ev;   /* BEFORE/AFTER_EVENT */
    sim_port *port;        /* PORT_SEND: sender port; PORT_RECV: receiver */
    sim_msg *msg;          /* PORT_*; a fault injector may edit payloads */
    uint64_t task_id;      /* TASK_* */
    const char *task_kind; /* TASK_*, static string */
} sim_hook_ctx;

typedef void (*sim_hook_fn)(const sim_hook_ctx *ctx, void *ud);

/* Hooks at one position run in registration order. Returns a handle > 0. */
int eng_hook_add(sim_engine *e, sim_hook_pos pos, sim_hook_fn fn, void *ud);
void eng_hook_remove(sim_engine *e, int handle);

/* ---- progress reporting -------------------------------------------- */

typedef struct eng_progress_info {
    mgs_time now;
    uint64_t events;      /* fired since eng_new */
    double events_per_s;  /* wall-clock rate since the previous report */
} eng_progress_info;

typedef void (*eng_progress_fn)(const eng_progress_info *info, void *ud);

/* Calls fn every every_events events (0 = no event trigger) and whenever
** wall_interval_s seconds of wall time passed (checked every few thousand
** events; <= 0 = no wall trigger). fn == NULL disables. The callback only
** observes: it must not schedule events (it may call eng_stop). */
void eng_set_progress(sim_engine *e, eng_progress_fn fn, void *ud,
                      uint64_t every_events, double wall_interval_s);

#endif
