/*
** Demo world: streaming agent pairs (see demo.h).
**
** Message storage. Each agent owns a ring of sim_msg slots and reuses slot
** (sent % pool) for the next message. Reuse is safe without any knowledge
** of the partner: when a send is accepted, at most lane_capacity - 1
** messages sit in the lane and buffer_capacity in the partner's buffer, and
** the partner consumes each message within the tick that retrieves it; so
** with pool = lane_capacity + buffer_capacity + 1 the reused slot was
** consumed long ago.
**
** Agent state per tick: retrieve <= 1 message; send <= 1 message unless a
** refused send is waiting for notify_port_free.
*/
#include "sim/demo.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "mgsim/errors.h"
#include "sim/comp.h"
#include "sim/conn.h"
#include "sim/engine.h"
#include "sim/name.h"
#include "sim/port.h"
#include "util/xmalloc.h"

#define DEMO_MAX_AGENTS (1u << 20)
#define DEMO_MAX_CAPACITY (1u << 16)
#define DEMO_MSG_TYPE 1u
#define DEMO_MAX_HOST_BYTES (4.0 * (1 << 30))

typedef struct demo_agent {
    sim_comp base;           /* first: the engine sees a sim_comp */
    sim_port port;
    sim_port *peer;          /* partner's port (destination) */
    uint64_t to_send, sent, received;
    bool send_blocked;       /* refused; waiting for notify_port_free */
    bool order_error;        /* a message arrived out of order */
    uint32_t msg_bytes;
    sim_msg *pool;           /* owned ring of pool_n message slots */
    uint32_t pool_n;
    uint32_t pool_next;      /* == sent % pool_n */
    stat_counter *s_sent, *s_received, *s_refused;
    stat_hist *s_latency;
    stat_counter own[3];     /* targets when no registry is given */
    stat_hist own_latency;
} demo_agent;

static bool agent_tick(sim_comp *c)
{
    demo_agent *a = (demo_agent *)c;
    bool progress = false;
    sim_msg *in = port_retrieve(&a->port);
    if (in) {
        if (in->id != a->received)
            a->order_error = true;
        stat_hist_sample(a->s_latency,
                         eng_now(c->eng) - in->send_time);
        a->received++;
        stat_inc(a->s_received);
        progress = true;
    }
    if (a->sent < a->to_send && !a->send_blocked) {
        sim_msg *m = &a->pool[a->pool_next];
        m->dst = a->peer;
        m->id = a->sent;
        m->bytes = a->msg_bytes;
        m->type = DEMO_MSG_TYPE;
        if (port_send(&a->port, m) == MGS_OK) {
            a->sent++;
            if (++a->pool_next == a->pool_n)
                a->pool_next = 0;
            stat_inc(a->s_sent);
            progress = true;
        } else {
            a->send_blocked = true;
            stat_inc(a->s_refused);
        }
    }
    return progress;
}

static void agent_port_free(sim_comp *c, sim_port *p)
{
    (void)p;
    ((demo_agent *)c)->send_blocked = false;
    comp_wake(c);
}

static bool agent_busy(const sim_comp *c)
{
    const demo_agent *a = (const demo_agent *)c;
    return a->sent < a->to_send || a->received < a->to_send;
}

static void agent_dump(const sim_comp *c, FILE *f)
{
    const demo_agent *a = (const demo_agent *)c;
    fprintf(f, "  sent=%llu received=%llu of %llu%s\n",
            (unsigned long long)a->sent, (unsigned long long)a->received,
            (unsigned long long)a->to_send,
            a->send_blocked ? " (send blocked)" : "");
}

static const sim_comp_ops agent_ops = {
    .kind = "Agent",
    .tick = agent_tick,
    .notify_port_free = agent_port_free,
    .busy = agent_busy,
    .dump = agent_dump,
};

void sim_demo_params_default(sim_demo_params *p)
{
    /* About 1 s at -O2 on one idle core: 8 agents x 1M messages at about
    ** 2.5 events per message (send tick, delivery, receive tick; ticks
    ** that both send and receive are shared) = 20 M events. */
    p->agents = 8;
    p->messages = 1000000;
    p->latency_cycles = 10;
    p->bytes_per_cycle = 32;
    p->msg_bytes = 64;
    p->buffer_capacity = 4;
    p->freq_hz = 1000000000ULL;
}

/* Connection of every pair: agents' clock, lanes as deep as buffers. */
static void demo_conn_config(const sim_demo_params *p, sim_conn_config *cc)
{
    conn_config_default(cc);
    cc->period = mgs_period_from_hz(p->freq_hz);
    conn_config_set_latency_cycles(cc, p->latency_cycles);
    cc->bytes_per_cycle = p->bytes_per_cycle;
    cc->lane_capacity = p->buffer_capacity;
}

int sim_demo_params_validate(const sim_demo_params *p)
{
    if (p->agents < 2 || p->agents % 2 || p->agents > DEMO_MAX_AGENTS)
        return mgs_error_set(MGS_EINVAL,
                             "demo agents = %u: must be an even number in "
                             "[2, %u]", p->agents, DEMO_MAX_AGENTS);
    if (p->messages < 1)
        return mgs_error_set(MGS_EINVAL, "demo messages must be >= 1");
    if (p->bytes_per_cycle < 1)
        return mgs_error_set(MGS_EINVAL,
                             "demo bytes_per_cycle = 0: must be >= 1");
    if (p->msg_bytes < 1)
        return mgs_error_set(MGS_EINVAL, "demo msg_bytes = 0: must be >= 1");
    if (p->buffer_capacity < 1 || p->buffer_capacity > DEMO_MAX_CAPACITY)
        return mgs_error_set(MGS_EINVAL,
                             "demo buffer_capacity = %u: must be in [1, %u]",
                             p->buffer_capacity, DEMO_MAX_CAPACITY);
    if (p->freq_hz < 1 || p->freq_hz > MGS_PS_PER_S)
        return mgs_error_set(MGS_EINVAL,
                             "demo freq_hz = %llu: must be in [1, 10^12]",
                             (unsigned long long)p->freq_hz);
    sim_conn_config cc;
    demo_conn_config(p, &cc);
    int rc = conn_config_validate(&cc);
    if (rc != MGS_OK) {
        char why[256]; /* copy: the message slot is about to be rewritten */
        snprintf(why, sizeof why, "%s", mgs_error_msg());
        return mgs_error_set(rc, "demo latency_cycles = %u at freq_hz = "
                             "%llu: %s", p->latency_cycles,
                             (unsigned long long)p->freq_hz, why);
    }
    /* Per agent: a message pool of 2 * capacity + 1, an incoming buffer
    ** and a lane of capacity pointers each, plus the agent itself. */
    double host_bytes = (double)p->agents *
        ((2.0 * p->buffer_capacity + 1) * sizeof(sim_msg) +
         2.0 * p->buffer_capacity * sizeof(sim_msg *) + 1024);
    if (host_bytes > DEMO_MAX_HOST_BYTES)
        return mgs_error_set(MGS_EINVAL,
                             "demo agents = %u with buffer_capacity = %u "
                             "needs %.1f GiB of host memory (limit %.0f)",
                             p->agents, p->buffer_capacity,
                             host_bytes / (1 << 30),
                             DEMO_MAX_HOST_BYTES / (1 << 30));
    /* Simulated time must fit 64-bit ps comfortably. */
    double cycles_per_msg = (double)p->msg_bytes / p->bytes_per_cycle + 1;
    double end_ps = ((double)p->messages * cycles_per_msg +
                     p->latency_cycles + 1) *
                    (double)mgs_period_from_hz(p->freq_hz);
    if (end_ps > 1e18)
        return mgs_error_set(MGS_EINVAL,
                             "demo would run past 10^18 ps of simulated "
                             "time; lower messages or msg_bytes");
    return MGS_OK;
}

typedef struct demo_world {
    sim_engine *eng;
    demo_agent *agents;
    uint32_t nagents;
    sim_conn **conns;
    uint64_t total;          /* messages to deliver in all */
    sim_progress_fn progress;
    void *progress_ud;
} demo_world;

static uint64_t world_received(const demo_world *w)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < w->nagents; i++)
        n += w->agents[i].received;
    return n;
}

static void world_progress(const eng_progress_info *info, void *ud)
{
    const demo_world *w = ud;
    sim_progress p = {info->now, info->events,
                      (double)world_received(w) / (double)w->total};
    w->progress(&p, w->progress_ud);
}

static void agent_init(demo_agent *a, demo_world *w, uint32_t i,
                       const sim_demo_params *p, mgs_time period,
                       stat_registry *stats)
{
    char *name = name_new("Demo", "Agent", i);
    comp_init(&a->base, w->eng, &agent_ops, name, period);
    port_init(&a->port, &a->base, "port", p->buffer_capacity);
    a->to_send = p->messages;
    a->msg_bytes = p->msg_bytes;
    /* lane capacity == buffer capacity in the demo (see file note). */
    a->pool_n = 2 * p->buffer_capacity + 1;
    a->pool = MGS_NEW_ARRAY(sim_msg, a->pool_n);
    a->s_sent = &a->own[0];
    a->s_received = &a->own[1];
    a->s_refused = &a->own[2];
    a->s_latency = &a->own_latency;
    if (stats) {
        a->s_sent = stat_counter_add(stats, name, "sent", "count");
        a->s_received = stat_counter_add(stats, name, "received", "count");
        a->s_refused = stat_counter_add(stats, name, "send_refused",
                                        "count");
        a->s_latency = stat_hist_add(stats, name, "latency", "ps");
    }
    free(name);
}

int sim_demo_run(const sim_demo_params *p, stat_registry *stats,
                 sim_progress_fn progress, void *progress_ud,
                 sim_demo_result *out)
{
    if (out)
        *out = (sim_demo_result){0};
    int rc = sim_demo_params_validate(p);
    if (rc != MGS_OK)
        return rc;

    const mgs_time period = mgs_period_from_hz(p->freq_hz);
    demo_world w = {0};
    w.eng = eng_new(NULL);
    w.nagents = p->agents;
    w.total = (uint64_t)p->agents * p->messages;
    w.agents = MGS_NEW_ARRAY(demo_agent, w.nagents);
    w.conns = MGS_NEW_ARRAY(sim_conn *, w.nagents / 2);
    for (uint32_t i = 0; i < w.nagents; i++)
        agent_init(&w.agents[i], &w, i, p, period, stats);

    sim_conn_config cc;
    demo_conn_config(p, &cc);
    for (uint32_t k = 0; k < w.nagents / 2; k++) {
        char *name = name_new("Demo", "Conn", k);
        w.conns[k] = conn_new(w.eng, name, &cc, stats);
        free(name);
        demo_agent *a = &w.agents[2 * k], *b = &w.agents[2 * k + 1];
        conn_plug(w.conns[k], &a->port);
        conn_plug(w.conns[k], &b->port);
        a->peer = &b->port;
        b->peer = &a->port;
    }
    for (uint32_t i = 0; i < w.nagents; i++)
        comp_wake(&w.agents[i].base);

    if (progress) {
        w.progress = progress;
        w.progress_ud = progress_ud;
        eng_set_progress(w.eng, world_progress, &w, 0, 0.5);
    }
    rc = eng_run(w.eng);

    uint64_t received = world_received(&w);
    for (uint32_t i = 0; rc == MGS_OK && i < w.nagents; i++)
        if (w.agents[i].order_error)
            rc = mgs_error_set(MGS_EINTERNAL,
                               "%s received messages out of order",
                               w.agents[i].base.name);
    if (out)
        *out = (sim_demo_result){eng_events(w.eng), eng_now(w.eng),
                                 received};
    if (stats) {
        stat_value_add(stats, "Demo", "events", (double)eng_events(w.eng),
                       "count");
        stat_value_add(stats, "Demo", "sim_time", (double)eng_now(w.eng),
                       "ps");
    }
    if (progress && rc == MGS_OK) {
        sim_progress fin = {eng_now(w.eng), eng_events(w.eng), 1.0};
        progress(&fin, progress_ud);
    }

    for (uint32_t k = 0; k < w.nagents / 2; k++)
        conn_free(w.conns[k]);
    for (uint32_t i = 0; i < w.nagents; i++) {
        port_fini(&w.agents[i].port);
        comp_fini(&w.agents[i].base);
        free(w.agents[i].pool);
    }
    free(w.conns);
    free(w.agents);
    eng_free(w.eng);
    return rc;
}
