/*
** Component base: registration, progress-driven ticking, task hooks.
** See comp.h for the tick-event state machine; dispatch of the tick event
** itself lives in the engine's run loop (engine.c) so that the hot path is
** one function.
*/
#include "sim/comp.h"

#include <stdlib.h>

#include "sim/engine_int.h"
#include "sim/port.h"
#include "util/xmalloc.h"

void comp_init(sim_comp *c, sim_engine *e, const sim_comp_ops *ops,
               const char *name, mgs_time period_ps)
{
    assert(ops && name);
    assert(!ops->tick || period_ps > 0);
    c->ops = ops;
    c->eng = e;
    c->name = mgs_xstrdup(name);
    c->period = period_ps;
    eng_event_init(&c->tick_ev, c, 0, NULL);
    c->ports = c->ports_tail = NULL;
    c->ticks = 0;
    c->last_tick = 0;
    eng_register_comp_(e, c);
}

void comp_move_(sim_comp *c, sim_engine *e)
{
    assert(!c->tick_ev.scheduled && e->root == c->eng->root);
    c->eng = e;
}

void comp_fini(sim_comp *c)
{
    free(c->name);
    c->name = NULL;
}

void comp_wake(sim_comp *c)
{
    if (c->tick_ev.scheduled || !c->ops->tick)
        return;
    sim_engine *e = c->eng;
    /* Usually woken within the cycle after its last tick: the next edge
    ** follows without a division. */
    mgs_time t = e->now - c->last_tick < c->period && e->now >= c->last_tick
        ? c->last_tick + c->period
        : mgs_edge_after(e->now, c->period);
    eng_schedule_any_(e, &c->tick_ev, t);
}

static void task_hook(sim_comp *c, sim_hook_pos pos, uint64_t id,
                      const char *kind)
{
    sim_engine *e = c->eng;
    if (eng_hooked_(e, pos)) {
        sim_hook_ctx ctx = {.pos = pos, .now = e->now, .comp = c,
                            .task_id = id, .task_kind = kind};
        eng_fire_hooks_(e, &ctx);
    }
}

void comp_task_start(sim_comp *c, uint64_t task_id, const char *kind)
{
    task_hook(c, SIM_HOOK_TASK_START, task_id, kind);
}

void comp_task_end(sim_comp *c, uint64_t task_id, const char *kind)
{
    task_hook(c, SIM_HOOK_TASK_END, task_id, kind);
}

void comp_dump(const sim_comp *c, FILE *f)
{
    fprintf(f, "%s (%s) period=%llu ps ticks=%llu tick_pending=%d\n",
            c->name, c->ops->kind ? c->ops->kind : "?",
            (unsigned long long)c->period, (unsigned long long)c->ticks,
            (int)c->tick_ev.scheduled);
    for (const sim_port *p = c->ports; p; p = p->next)
        fprintf(f, "  port %s %u/%u%s\n", p->name, p->count, p->capacity,
                p->sender_waiting ? " (sender waiting)" : "");
    if (c->ops->dump)
        c->ops->dump(c, f);
}
