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
