/*
** Test-only requester for the DRAM / TLB / MMU / xlat unit tests: a ticking
** component that sends a script of pre-built mem_msg requests (each not
** before its send time, at most per_tick per cycle, honouring port
** back-pressure) and records every response it receives with its arrival
** time. Header-only (static functions) so each test binary gets its own copy.
**
** Ownership: requests come from the pool; after the run the test calls
** agent_release_all, which frees every recorded response and its request.
**
** The end of the file holds the scaffolding those tests share around the
** agent: a flat backing array, virtual-address requests of pid 1, one-agent
** runs, latencies, the one-statistic lookup and the common teardown. The
** checks there are cmocka asserts, so a test file includes cmocka (and its
** prerequisite headers) before this header.
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
#include "sim/stats.h"

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

/* ---- shared test scaffolding ------------------------------------------ */

/* A flat backing store of AGENT_MEM_BYTES bytes at ud (mem_backing
** callbacks); accesses past the end fault. */
#define AGENT_MEM_BYTES (1u << 20)

static inline int agent_mem_read(void *ud, uint64_t paddr, void *dst, size_t n)
{
    if (paddr + n > AGENT_MEM_BYTES)
        return MGS_EFAULT;
    memcpy(dst, (uint8_t *)ud + paddr, n);
    return MGS_OK;
}

static inline int agent_mem_write(void *ud, uint64_t paddr, const void *src,
                                  size_t n)
{
    if (paddr + n > AGENT_MEM_BYTES)
        return MGS_EFAULT;
    memcpy((uint8_t *)ud + paddr, src, n);
    return MGS_OK;
}

/* agent_add for a virtual address of pid 1. */
static inline mem_msg *agent_add_virt(agent *a, mem_msg_type type,
                                      uint64_t vaddr, uint32_t size,
                                      mgs_time at)
{
    mem_msg *m = agent_add(a, type, vaddr, size, at);
    m->pid = 1;
    m->flags = 0; /* virtual */
    return m;
}

/* Starts the agent, runs the engine dry and checks that every request of
** the script was answered. */
static inline void agent_run(sim_engine *e, agent *a)
{
    agent_start(a);
    assert_int_equal(eng_run(e), MGS_OK);
    assert_int_equal(a->nrsp, a->nreq);
}

/* Time the device held request i: response sent - request arrived. */
static inline mgs_time agent_latency(const agent *a, uint32_t i)
{
    mem_msg *r = agent_rsp_of(a, i);
    assert_non_null(r);
    return r->base.send_time - r->req->base.arrive_time;
}

/* Common teardown once the components are freed: checks every message went
** back to the pool, then frees the pool, the statistics and the engine. */
static inline void agent_env_free(sim_engine *e, mem_pool *pool,
                                  stat_registry *stats)
{
    assert_int_equal(mem_pool_outstanding(pool), 0);
    mem_pool_free(pool);
    stat_registry_free(stats);
    eng_free(e);
}

typedef struct agent_stat_find {
    const char *comp, *metric; /* comp NULL: any component */
    double v;
    int n;
} agent_stat_find;

static inline void agent_stat_row(const stat_row *r, void *ud)
{
    agent_stat_find *f = ud;
    if ((!f->comp || !strcmp(r->component, f->comp)) &&
        !strcmp(r->metric, f->metric)) {
        f->v = r->value;
        f->n++;
    }
}

/* The value of statistic `metric` of component `comp` (NULL: of any
** component) at `now`; checks that exactly one row matches. */
static inline double agent_stat(const stat_registry *stats, mgs_time now,
                                const char *comp, const char *metric)
{
    agent_stat_find f = {comp, metric, 0, 0};
    stat_registry_foreach(stats, now, agent_stat_row, &f);
    assert_int_equal(f.n, 1);
    return f.v;
}

#endif
