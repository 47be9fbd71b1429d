/*
** The insertion point between each L2 bank and its DRAM channel
** (coh_protocol.memory_agent, docs/coherence.md): a test protocol inserts a
** pass-through agent that counts what it forwards. Every L2 miss and
** write-back then crosses the agent (the counts equal the L2s' traffic
** below), workloads still verify, and an agent that drops every 50th write
** makes a workload fail verification (the agent really is on the path).
** Also: coherence.protocol must name a protocol (one clear error).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coh/coh.h"
#include "config/config.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"
#include "sim/comp.h"
#include "sim/port.h"
#include "sim/stats.h"
#include "util/xmalloc.h"
#include "workloads/workload.h"

#include "coh_run.h"

extern const coh_protocol coh_nc;

/* ---- a pass-through agent ---- */

typedef struct agent {
    sim_comp base;            /* FIRST */
    sim_port port;            /* on the bank's memory connection */
    sim_port *memory;
    mem_msg *held;            /* refused by the connection, retried */
    uint64_t forwarded, writes, dropped;
    uint32_t drop_every;      /* 0: never */
    mem_pool *pool;
    struct agent *next;
} agent;

typedef struct agents {
    agent *list;
    uint32_t drop_every;
} agents;

static bool agent_tick(sim_comp *c)
{
    agent *a = (agent *)c;
    bool progress = false;
    for (;;) {
        mem_msg *m = a->held ? a->held : (mem_msg *)port_retrieve(&a->port);
        if (!m)
            break;
        if (!a->held) {
            if (m->base.type == MEM_WRITE && a->drop_every &&
                ++a->writes % a->drop_every == 0) {
                /* Broken on purpose: acknowledge without writing. */
                a->dropped++;
                mem_msg *r = mem_msg_response(a->pool, m);
                r->base.dst = m->reply_to ? m->reply_to : m->base.src;
                a->held = NULL;
                if (port_send(&a->port, &r->base) != MGS_OK) {
                    mem_msg_release(a->pool, r);
                    a->held = m;  /* retry the whole write later */
                    a->writes--;
                    a->dropped--;
                    break;
                }
                progress = true;
                continue;
            }
            /* The answer goes straight back to the bank. */
            if (!m->reply_to)
                m->reply_to = m->base.src;
            m->base.dst = a->memory;
        }
        if (port_send(&a->port, &m->base) != MGS_OK) {
            a->held = m;
            break;
        }
        a->held = NULL;
        a->forwarded++;
        progress = true;
    }
    return progress;
}

static bool agent_busy(const sim_comp *c)
{
    const agent *a = (const agent *)c;
    return a->held || port_occupancy(&a->port);
}

static const sim_comp_ops agent_ops = {
    .kind = "TestAgent", .tick = agent_tick, .busy = agent_busy};

static void *agents_create(const coh_system *sys, sim_engine *eng,
                           mem_pool *pool, stat_registry *st)
{
    (void)sys; (void)eng; (void)pool; (void)st;
    static agents all;
    all.list = NULL;
    return &all;
}

static void agents_destroy(void *pd)
{
    agents *all = pd;
    for (agent *a = all->list, *n; a; a = n) {
        n = a->next;
        port_fini(&a->port);
        comp_fini(&a->base);
        free(a);
    }
    all->list = NULL;
}

static sim_port *agents_site(void *pd, const coh_site *site)
{
    agents *all = pd;
    agent *a = MGS_NEW(agent);
    char name[96];
    snprintf(name, sizeof name, "%s.Agent", site->name);
    comp_init(&a->base, site->eng, &agent_ops, name, 1000);
    port_init(&a->port, &a->base, "port", 16);
    conn_plug(site->net, &a->port);
    a->memory = site->memory;
    a->pool = site->pool;
    a->drop_every = all->drop_every;
    a->next = all->list;
    all->list = a;
    return &a->port;
}

static void nc_sync(const coh_system *sys, coh_point p, uint32_t gpu,
                    coh_sync *out)
{
    coh_nc.sync(sys, p, gpu, out);
}

static const coh_protocol with_agent = {
    .name = "test-nc-agent", .summary = "nc with a pass-through agent",
    .sync = nc_sync, .fence_l1 = COH_INVALIDATE, .create = agents_create,
    .destroy = agents_destroy, .memory_agent = agents_site};

/* ---- runs ---- */

/* Runs workload name (small) on gpus discrete GPUs with the agent
** protocol; returns its code; *fwd receives what the agents forwarded. */
static int run_with_agent(const char *name, int gpus, uint32_t drop_every,
                          uint64_t *fwd)
{
    static agents *all;
    wl_args a;
    const mgs_workload *wl = coh_small_args(name, gpus, false, &a);
    coh_run r;
    coh_run_config(&r, with_agent.name);
    all = agents_create(NULL, NULL, NULL, NULL);
    all->drop_every = drop_every;
    coh_run_start(&r, "discrete", gpus);
    int rc = wl->run(r.rt, &a);
    /* Count before the runtime (and the agents with it) goes away. */
    *fwd = 0;
    for (agent *g = all->list; g; g = g->next)
        *fwd += g->forwarded;
    coh_run_close(&r);
    return rc;
}

static int setup(void **state)
{
    (void)state;
    static bool done;
    if (!done)
        assert_int_equal(coh_register(&with_agent), MGS_OK);
    done = true;
    return 0;
}

static void test_agent_on_the_path(void **state)
{
    (void)state;
    uint64_t fwd1, fwd2;
    assert_int_equal(run_with_agent("vecadd", 1, 0, &fwd1), MGS_OK);
    assert_true(fwd1 > 1000);   /* every DRAM access crosses an agent */
    assert_int_equal(run_with_agent("mm", 2, 0, &fwd2), MGS_OK);
    assert_true(fwd2 > 100);
    printf("# agents forwarded %llu (vecadd, 1 GPU), %llu (mm, 2 GPUs)\n",
           (unsigned long long)fwd1, (unsigned long long)fwd2);
}

static void test_broken_agent_fails(void **state)
{
    (void)state;
    uint64_t fwd;
    assert_int_equal(run_with_agent("vecadd", 1, 50, &fwd), MGS_EVERIFY);
}

static void test_unknown_protocol(void **state)
{
    (void)state;
    static mgs_config cfg;
    mgs_config_defaults(&cfg);
    snprintf(cfg.coherence_protocol, sizeof cfg.coherence_protocol, "zz");
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.mode = MGS_MODE_TIMING;
    o.mem_per_gpu = 1ull << 30;
    o.config = &cfg;
    mgs_rt *rt;
    assert_int_equal(mgs_rt_new(&o, &rt), MGS_OK);
    mgs_dptr p;
    assert_int_equal(mgs_malloc(rt, 0, 4096, &p), MGS_OK);
    uint8_t b[64] = {0};
    assert_int_equal(mgs_memcpy_h2d(rt, p, b, sizeof b), MGS_ECONFIG);
    assert_non_null(strstr(mgs_error_msg(), "coherence.protocol"));
    mgs_rt_free(rt);
    mgs_error_clear();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_agent_on_the_path, setup),
        cmocka_unit_test_setup(test_broken_agent_fails, setup),
        cmocka_unit_test(test_unknown_protocol),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
