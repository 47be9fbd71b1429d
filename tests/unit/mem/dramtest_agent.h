/*
** Test-only requester for the DRAM / TLB / MMU / xlat unit tests: a ticking
** component that sends a script of pre-built mem_msg requests (each not
** before its send time, at most per_tick per cycle, honouring port
** back-pressure) and records every response it receives with its arrival
** time. Header-only (static functions) so each test binary gets its own copy.
**
** Ownership: requests come from the pool; after the run the test calls
** agent_release_all, which frees every recorded response and its request.
*/
#ifndef MGS_TESTS_DRAMTEST_AGENT_H
#define MGS_TESTS_DRAMTEST_AGENT_H

#include <stdlib.h>
#include <string.h>

#include "mem/memmsg.h"
#include "mgsim/errors.h"
#include "sim/comp.h"
#include "sim/conn.h"
#include "sim/port.h"

#define AGENT_MAX 16384

typedef struct agent {
    sim_comp base;
    sim_port port;
    mem_pool *pool;
    sim_port *dst;                /* where requests go */
    mem_msg *req[AGENT_MAX];      /* script, in send order */
    mgs_time at[AGENT_MAX];       /* earliest send time of each */
    uint32_t nreq, next;
    uint32_t per_tick;            /* sends per cycle */
    mem_msg *rsp[AGENT_MAX];      /* responses in arrival order */
    mgs_time rsp_time[AGENT_MAX];
    uint32_t nrsp;
    uint64_t refused;             /* port_send answered MGS_EBUSY */
} agent;

static inline bool agent_tick(sim_comp *c)
{
    agent *a = (agent *)c;
    mgs_time now = eng_now(c->eng);
    uint32_t sent = 0;
    while (a->next < a->nreq && sent < a->per_tick && a->at[a->next] <= now) {
        mem_msg *m = a->req[a->next];
        m->base.dst = a->dst;
        m->issue_time = now;
        if (port_send(&a->port, &m->base) != MGS_OK) {
            a->refused++;
            return false; /* notify_port_free wakes us */
        }
        a->next++;
        sent++;
    }
    return a->next < a->nreq;
}

static inline void agent_recv(sim_comp *c, sim_port *p)
{
    agent *a = (agent *)c;
    sim_msg *m;
    while ((m = port_retrieve(p))) {
        if (a->nrsp < AGENT_MAX) {
            a->rsp[a->nrsp] = (mem_msg *)m;
            a->rsp_time[a->nrsp] = eng_now(c->eng);
            a->nrsp++;
        }
    }
}

static const sim_comp_ops agent_ops = {
    .kind = "Agent", .tick = agent_tick, .notify_recv = agent_recv,
};

static inline agent *agent_new(sim_engine *e, const char *name, mem_pool *pool,
                        mgs_time period, uint32_t buffer)
{
    agent *a = calloc(1, sizeof *a);
    comp_init(&a->base, e, &agent_ops, name, period);
    port_init(&a->port, &a->base, "port", buffer);
    a->pool = pool;
    a->per_tick = 1;
    return a;
}

/* Adds a request (type, addr, size) to the script, sent not before `at`. */
static inline mem_msg *agent_add(agent *a, mem_msg_type type, uint64_t addr,
                          uint32_t size, mgs_time at)
{
    mem_msg *m = mem_msg_alloc(a->pool, type);
    m->addr = addr;
    m->size = size;
    m->flags = MEM_F_PHYS;
    m->base.id = a->nreq;
    m->base.bytes = 8 + (type == MEM_WRITE ? size : 0);
    a->at[a->nreq] = at;
    a->req[a->nreq++] = m;
    return m;
}

static inline void agent_start(agent *a)
{
    comp_wake(&a->base);
}

/* The response to script entry i, or NULL. */
static inline mem_msg *agent_rsp_of(const agent *a, uint32_t i)
{
    for (uint32_t k = 0; k < a->nrsp; k++)
        if (a->rsp[k]->req == a->req[i])
            return a->rsp[k];
    return NULL;
}

static inline void agent_release_all(agent *a)
{
    for (uint32_t k = 0; k < a->nrsp; k++)
        mem_msg_release(a->pool, a->rsp[k]);
    for (uint32_t i = 0; i < a->nreq; i++)
        mem_msg_release(a->pool, a->req[i]);
    a->nrsp = a->nreq = a->next = 0;
}

static inline void agent_free(agent *a)
{
    port_fini(&a->port);
    comp_fini(&a->base);
    free(a);
}

/* A connection with the given period, zero latency and a wide link. */
static inline sim_conn *agent_conn(sim_engine *e, const char *name, mgs_time period,
                            uint32_t lane_capacity)
{
    sim_conn_config cc;
    conn_config_default(&cc);
    cc.period = period;
    cc.latency = 0;
    cc.bytes_per_cycle = 1u << 20;
    cc.lane_capacity = lane_capacity;
    return conn_new(e, name, &cc, NULL);
}

#endif
