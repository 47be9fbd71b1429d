/*
** Test agents for the interconnect tests: a component with one port that
** sends a prepared list of messages as fast as its port accepts them, and
** records what it receives (time, id, source port). A receiver with
** drain_period > 0 retrieves one message per drain_period (a slow sink,
** for back-pressure); 0 retrieves everything on arrival.
*/
#ifndef MGS_TESTS_NOC_TESTBED_H
#define MGS_TESTS_NOC_TESTBED_H

#include <stdlib.h>

#include "mgsim/errors.h"
#include "sim/comp.h"
#include "sim/engine.h"
#include "sim/name.h"
#include "sim/port.h"
#include "util/xmalloc.h"

#define TB_MAX 4096

typedef struct tb_agent {
    sim_comp base; /* first */
    sim_port port;
    sim_msg *msgs; /* owned; nmsgs to send, dst set by the test */
    uint32_t nmsgs, next_send;
    sim_event send_ev, drain_ev;
    mgs_time drain_period;
    bool hold;     /* never retrieve: a stuck receiver */
    uint32_t nrecv;
    mgs_time recv_at[TB_MAX];
    uint64_t recv_id[TB_MAX];
    const sim_port *recv_src[TB_MAX];
} tb_agent;

static inline void tb_record(tb_agent *a, const sim_msg *m)
{
    if (a->nrecv < TB_MAX) {
        a->recv_at[a->nrecv] = eng_now(a->base.eng);
        a->recv_id[a->nrecv] = m->id;
        a->recv_src[a->nrecv] = m->src;
    }
    a->nrecv++;
}

static inline void tb_send_some(tb_agent *a)
{
    while (a->next_send < a->nmsgs &&
           port_send(&a->port, &a->msgs[a->next_send]) == MGS_OK)
        a->next_send++;
}

static inline void tb_handle(sim_comp *c, sim_event *ev)
{
    tb_agent *a = (tb_agent *)c;
    if (ev == &a->send_ev) {
        tb_send_some(a);
        return;
    }
    sim_msg *m = port_retrieve(&a->port);
    if (m)
        tb_record(a, m);
    if (port_occupancy(&a->port))
        eng_schedule(c->eng, &a->drain_ev, eng_now(c->eng) + a->drain_period);
}

static inline void tb_notify_recv(sim_comp *c, sim_port *p)
{
    tb_agent *a = (tb_agent *)c;
    if (a->hold)
        return;
    if (a->drain_period == 0) {
        sim_msg *m;
        while ((m = port_retrieve(p)))
            tb_record(a, m);
    } else if (!a->drain_ev.scheduled) {
        eng_schedule(c->eng, &a->drain_ev, eng_now(c->eng) + a->drain_period);
    }
}

static inline void tb_notify_port_free(sim_comp *c, sim_port *p)
{
    (void)p;
    tb_send_some((tb_agent *)c);
}

static inline bool tb_busy(const sim_comp *c)
{
    const tb_agent *a = (const tb_agent *)c;
    return a->next_send < a->nmsgs;
}

static const sim_comp_ops tb_agent_ops = {
    .kind = "Agent", .handle = tb_handle, .notify_recv = tb_notify_recv,
    .notify_port_free = tb_notify_port_free, .busy = tb_busy,
};

static inline tb_agent *tb_agent_new(sim_engine *e, long index,
                                     uint32_t port_capacity)
{
    tb_agent *a = MGS_NEW(tb_agent);
    char *name = name_new(NULL, "Agent", index);
    comp_init(&a->base, e, &tb_agent_ops, name, 0);
    free(name);
    port_init(&a->port, &a->base, "port", port_capacity);
    eng_event_init(&a->send_ev, &a->base, 1, NULL);
    eng_event_init(&a->drain_ev, &a->base, 2, NULL);
    return a;
}

/* Prepares n messages of `bytes` to dst with ids base_id.., sent from t. */
static inline void tb_plan(tb_agent *a, sim_port *dst, uint32_t n,
                           uint32_t bytes, uint64_t base_id, mgs_time t)
{
    free(a->msgs);
    a->msgs = MGS_NEW_ARRAY(sim_msg, n ? n : 1);
    for (uint32_t i = 0; i < n; i++) {
        a->msgs[i].dst = dst;
        a->msgs[i].bytes = bytes;
        a->msgs[i].id = base_id + i;
    }
    a->nmsgs = n;
    a->next_send = 0;
    eng_schedule(a->base.eng, &a->send_ev, t);
}

static inline void tb_agent_free(tb_agent *a)
{
    port_fini(&a->port);
    comp_fini(&a->base);
    free(a->msgs);
    free(a);
}

#endif
