/*
** Engine internals shared by engine.c, comp.c, port.c and conn.c only.
**
** The struct body is visible here so that the hot paths in ports and
** connections can test the hook mask and the current handler inline.
** Nothing outside src/sim includes this file.
*/
#ifndef MGS_SIM_ENGINE_INT_H
#define MGS_SIM_ENGINE_INT_H

#include <assert.h>

#include "sim/comp.h"
#include "sim/engine.h"
#include "sim/evq.h"

typedef struct eng_hook {
    sim_hook_fn fn;
    void *ud;
    int handle;
} eng_hook;

typedef struct eng_group eng_group;
typedef struct eng_post_rec eng_post_rec;

struct sim_engine {
    sim_engine_config cfg;
    mgs_time now;
    uint64_t events;         /* fired */
    sim_evq q;               /* pending events */
    sim_comp *current;       /* handler of the running event, or NULL */
    sim_comp **comps;        /* registration order; borrowed */
    uint32_t ncomps, comps_cap;
    bool stop;
    bool interrupted;        /* the stop came from a signal (MGS_EINTR) */
    uint64_t same_time_events; /* since time advanced or progress noted */
    mgs_time forward_time;     /* last forward progress (watchdog), ps */
    uint64_t forward_events;   /* e->events at that point */

    uint32_t hook_mask;      /* bit per sim_hook_pos with >= 1 hook */
    eng_hook *hooks[SIM_HOOK_POS_COUNT];
    uint32_t nhooks[SIM_HOOK_POS_COUNT];
    int next_hook_handle;

    eng_progress_fn progress_fn;
    void *progress_ud;
    uint64_t progress_every;   /* events; 0 = off */
    double progress_wall_s;    /* <= 0 = off */
    uint64_t progress_countdown;
    uint64_t progress_next_events;
    double progress_last_wall; /* s, CLOCK_MONOTONIC */
    uint64_t progress_last_events;

    /* Partitions (partition.h). root is this engine unless it is one
    ** partition of a parallel group; group is NULL while the root has no
    ** partition besides itself. Components register with the root, so
    ** diagnosis and dumps see all of them. */
    sim_engine *root;
    eng_group *group;
    uint32_t part;            /* index in the group (root = 0) */
    sim_comp *mailbox;        /* runs the posts delivered here */
    eng_post_rec *post_free;  /* recycled post records */
};

#if defined(__GNUC__)
#define MGS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define MGS_UNLIKELY(x) (x)
#endif

/* Schedules ev regardless of which component is running: the sanctioned
** crossings (wake-ups, message delivery) only. */
void eng_schedule_any_(sim_engine *e, sim_event *ev, mgs_time t);
void eng_register_comp_(sim_engine *e, sim_comp *c);
void eng_fire_hooks_(sim_engine *e, const sim_hook_ctx *ctx);
/* Fires the events of e with time <= limit, without the run-level checks
** (limits, watchdog, progress): one partition's share of a window. */
int eng_run_window_(sim_engine *e, mgs_time limit);
/* Group-wide run behind eng_run / eng_run_until (partition.c). */
int eng_group_run_(sim_engine *root, mgs_time limit, bool to_completion);
void eng_group_free_(sim_engine *root);
uint64_t eng_group_events_(const sim_engine *root);
size_t eng_group_pending_(const sim_engine *root);
/* Diagnosis helpers engine.c shares with partition.c. */
int eng_fail_deadlock_(sim_engine *e, const char *what);
int eng_check_idle_(sim_engine *e);

/* The partition the calling thread is running (debug check of the rule
** "a handler touches only its own partition"); NULL outside a window. */
extern __attribute__((tls_model("initial-exec"))) _Thread_local sim_engine
    *eng_running_;
/* On in the sanitizer builds (make test) or with -DMGS_CHECK_PARTITIONS;
** the optimised build keeps its asserts but skips this one (0.3 % of the
** instructions of a timing run). */
#if !defined(NDEBUG) &&                                                    \
    (defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) ||     \
     defined(MGS_CHECK_PARTITIONS))
#define ENG_CHECK_PARTITIONS_ 1
#define ENG_ASSERT_OWN_(e)                                                 \
    assert((!(e)->group || eng_running_ == NULL ||                        \
            eng_running_ == (e)) &&                                        \
           "a handler touched another partition's engine")
#else
#define ENG_ASSERT_OWN_(e) ((void)0)
#endif

static inline bool eng_hooked_(const sim_engine *e, sim_hook_pos pos)
{
    return MGS_UNLIKELY(e->hook_mask & (1u << pos));
}

/* Runs a notification of component c from inside another component's
** event: c becomes the current handler for the call, so anything it
** schedules is checked against c. */
#define ENG_AS_CURRENT_(e, c, call)                                        \
    do {                                                                   \
        sim_comp *saved_ = (e)->current;                                   \
        (e)->current = (c);                                                \
        call;                                                              \
        (e)->current = saved_;                                             \
    } while (0)

#endif
