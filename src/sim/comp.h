/*
** Components: the common base every simulated unit embeds as its FIRST
** member, plus the static ops table that gives it behaviour.
**
**     typedef struct my_cache { sim_comp base; sim_port top; ... } my_cache;
**     static const sim_comp_ops my_cache_ops = { .kind = "L1V",
**         .tick = my_cache_tick, ... };
**
** Ticking. A component with ops->tick and a clock period ticks on its clock
** edges (k * period) only while tick() returns true ("made progress"). When
** a tick makes no progress the component sleeps: no event is scheduled for
** it until something wakes it (comp_wake), which the default notify_recv /
** notify_port_free do. A wake-up schedules the tick at the first edge
** strictly after now, so a message that arrives at t is seen at the next
** edge; a component already due to tick is not scheduled twice.
**
** States of the tick event:  ASLEEP --comp_wake--> PENDING --fires--> tick()
**   tick()==true -> PENDING (now + period);  tick()==false -> ASLEEP.
**
** Ownership: the caller owns the component storage; comp_init copies the
** name; comp_fini frees it. Ports register themselves with their owner so
** the watchdog can list buffers.
*/
#ifndef MGS_SIM_COMP_H
#define MGS_SIM_COMP_H

#include <stdbool.h>
#include <stdio.h>

#include "sim/engine.h"

/* Reports one buffer (name, occupancy, capacity) to the watchdog. */
typedef void (*sim_buf_visit_fn)(const char *name, uint32_t occupancy,
                                 uint32_t capacity, void *ud);

typedef struct sim_comp_ops {
    const char *kind; /* e.g. "L1V"; for dumps */
    /* Does one cycle of work; returns whether anything happened. NULL for
    ** components driven only by events. */
    bool (*tick)(sim_comp *c);
    /* Handles one of the component's own events (not the tick event). */
    void (*handle)(sim_comp *c, sim_event *ev);
    /* A message entered port p's buffer. NULL: comp_wake(c). */
    void (*notify_recv)(sim_comp *c, sim_port *p);
    /* Port p can send again after a refused send. NULL: comp_wake(c). */
    void (*notify_port_free)(sim_comp *c, sim_port *p);
    /* Whether the component still has work to do (watchdog). NULL: never. */
    bool (*busy)(const sim_comp *c);
    /* Reports internal buffers beyond its ports (watchdog). May be NULL. */
    void (*visit_buffers)(const sim_comp *c, sim_buf_visit_fn fn, void *ud);
    /* Debug dump of the state. May be NULL. */
    void (*dump)(const sim_comp *c, FILE *f);
    /* What the component waits for, in a few words naming the work and
    ** the agents (watchdog and deadlock messages); writes at most n bytes
    ** to buf and returns whether it said anything. May be NULL. */
    bool (*stall)(const sim_comp *c, char *buf, size_t n);
} sim_comp_ops;

struct sim_comp {
    const sim_comp_ops *ops;
    sim_engine *eng;
    char *name;           /* owned; hierarchical, e.g. "GPU[1].SA[3].L1V[2]" */
    mgs_time period;      /* clock period, ps; 0 = no clock */
    sim_event tick_ev;    /* scheduled iff a tick is pending */
    sim_port *ports;      /* first registered port (list via port->next) */
    sim_port *ports_tail;
    uint32_t id;          /* registration index in the engine */
    uint64_t ticks;       /* ticks executed (idle ones included) */
    mgs_time last_tick;   /* time of the last tick (an edge), ps */
};

/* Registers c with e. period_ps may be 0 for components without a clock
** (then ops->tick must be NULL). */
void comp_init(sim_comp *c, sim_engine *e, const sim_comp_ops *ops,
               const char *name, mgs_time period_ps);
void comp_fini(sim_comp *c);

/* Makes a sleeping ticking component tick at the next edge after now.
** Engine machinery (ports, connections) calls this across components;
** a component may also call it on itself. */
void comp_wake(sim_comp *c);
static inline bool comp_tick_pending(const sim_comp *c)
{
    return c->tick_ev.scheduled;
}

/* Hook-only markers for the span of a component-level task (a memory
** request, a wavefront instruction). kind must be a static string. */
void comp_task_start(sim_comp *c, uint64_t task_id, const char *kind);
void comp_task_end(sim_comp *c, uint64_t task_id, const char *kind);

void comp_dump(const sim_comp *c, FILE *f);

/* Building only: moves c (no event pending) into partition e of the same
** group (sim/partition.h). */
void comp_move_(sim_comp *c, sim_engine *e);

#endif
