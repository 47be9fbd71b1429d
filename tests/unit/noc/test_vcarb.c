/* Tests for the strict-priority VC arbitration of src/noc/net.c
** (noc_set_priority; docs/pcie-scheduling.md): the highest class goes
** first at a switch, round robin stays the default, the anti-starvation
** threshold serves a head that waited x, per-VC statistics, the control
** port (map applied, message acknowledged), and the PCIe TC classifier. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mem/memmsg.h"
#include "noc/noc.h"
#include "noc/topo.h"
#include "sim/conn.h"
#include "tests/unit/noc/noc_testbed.h"

/* class = id / 1000 */
static uint32_t class_of_id(const sim_msg *m, void *ud)
{
    (void)ud;
    return (uint32_t)(m->id / 1000);
}

/* A and B each on an endpoint under one switch, C on a third: A sends 30
** messages of class 0, B 30 of class 3, all to C, at once; the switch's
** output to C is the bottleneck. */
typedef struct prio_world {
    sim_engine *e;
    noc_net *n;
    tb_agent *a, *b, *c;
    stat_registry *stats;
} prio_world;

enum { NMSG = 30 };

static void prio_run(prio_world *w, bool prio, mgs_time starve)
{
    w->e = eng_new(NULL);
    w->stats = stat_registry_new();
    w->n = noc_net_new(w->e, "Net", w->stats, 4);
    assert_int_equal(noc_set_classes(w->n, 4, class_of_id, NULL), MGS_OK);
    if (prio)
        assert_int_equal(noc_set_priority(w->n, starve, NULL, NULL), MGS_OK);
    w->a = tb_agent_new(w->e, 0, 4);
    w->b = tb_agent_new(w->e, 1, 4);
    w->c = tb_agent_new(w->e, 2, 4);
    int ea = noc_endpoint_add(w->n, "EP", 0);
    int eb = noc_endpoint_add(w->n, "EP", 1);
    int ec = noc_endpoint_add(w->n, "EP", 2);
    noc_switch_cfg sc = {.latency = 10000};
    int s = noc_switch_add(w->n, "SW", -1, &sc);
    noc_link_cfg l;
    noc_link_cfg_default(&l);
    l.bandwidth = 16000000000ULL;
    l.latency = 20000;
    l.credits = 8;
    assert_true(noc_link(w->n, ea, s, &l) >= 0);
    assert_true(noc_link(w->n, eb, s, &l) >= 0);
    assert_true(noc_link(w->n, ec, s, &l) >= 0);
    assert_int_equal(noc_attach(w->n, &w->a->port, ea), MGS_OK);
    assert_int_equal(noc_attach(w->n, &w->b->port, eb), MGS_OK);
    assert_int_equal(noc_attach(w->n, &w->c->port, ec), MGS_OK);
    assert_int_equal(noc_route_compute(w->n), MGS_OK);
    tb_plan(w->a, &w->c->port, NMSG, 256, 0, 0);
    tb_plan(w->b, &w->c->port, NMSG, 256, 3000, 0);
    assert_int_equal(eng_run(w->e), MGS_OK);
    assert_int_equal(w->c->nrecv, 2 * NMSG);
    assert_true(noc_net_check(w->n));
}

static void prio_free(prio_world *w)
{
    tb_agent_free(w->a);
    tb_agent_free(w->b);
    tb_agent_free(w->c);
    noc_net_free(w->n);
    stat_registry_free(w->stats);
    eng_free(w->e);
}

/* Class-0 messages C received before the last class-3 one. */
static uint32_t low_before_last_high(const tb_agent *c)
{
    uint32_t last = 0, low = 0;
    for (uint32_t i = 0; i < c->nrecv; i++)
        if (c->recv_id[i] >= 3000)
            last = i;
    for (uint32_t i = 0; i < last; i++)
        low += c->recv_id[i] < 1000;
    return low;
}

static void test_round_robin_interleaves(void **state)
{
    (void)state;
    prio_world w;
    prio_run(&w, false, 0);
    /* equal shares: about every other message is class 0 */
    assert_true(low_before_last_high(w.c) >= NMSG - 3);
    noc_vc_stats v;
    noc_vc_get_stats(w.n, 3, &v);
    assert_int_equal(v.messages, 0);          /* no priority: no VC stats */
    assert_null(noc_ctrl_port(w.n));
    prio_free(&w);
}

static void test_strict_priority_highest_first(void **state)
{
    (void)state;
    prio_world w;
    prio_run(&w, true, (mgs_time)1 << 50);    /* never starves */
    /* Only class-0 messages that won the switch before B's arrived (or
    ** while B's input was empty) pass; then class 3 runs through. */
    uint32_t low = low_before_last_high(w.c);
    assert_true(low <= 2);
    /* and every class-3 message left the switch before class 0's rest */
    noc_vc_stats v0, v3;
    noc_vc_get_stats(w.n, 0, &v0);
    noc_vc_get_stats(w.n, 3, &v3);
    /* switch outputs only: each message crosses one switch */
    assert_int_equal(v0.messages, NMSG);
    assert_int_equal(v3.messages, NMSG);
    assert_int_equal(v0.starvation_grants + v3.starvation_grants, 0);
    assert_true(v0.queue_delay_ps > v3.queue_delay_ps);
    prio_free(&w);
}

typedef struct find_row {
    const char *component, *metric;
    double value;
    bool found;
} find_row;

static void find_fn(const stat_row *row, void *ud)
{
    find_row *f = ud;
    if (!strcmp(row->component, f->component) &&
        !strcmp(row->metric, f->metric)) {
        f->value = row->value;
        f->found = true;
    }
}

static void test_anti_starvation(void **state)
{
    (void)state;
    prio_world w;
    /* a head that waited 100 ns goes first: class 0 keeps moving */
    prio_run(&w, true, 100000);
    noc_vc_stats v0;
    noc_vc_get_stats(w.n, 0, &v0);
    assert_true(v0.starvation_grants > 0);
    uint32_t low = low_before_last_high(w.c);
    assert_true(low > 2);
    prio_free(&w);
    /* statistics registered per VC under "<net>.VC[v]" */
    prio_run(&w, true, 100000);
    find_row f = {.component = "Net.VC[0]", .metric = "starvation_grants"};
    stat_registry_foreach(w.stats, eng_now(w.e), find_fn, &f);
    assert_true(f.found);
    assert_true(f.value == (double)v0.starvation_grants);
    prio_free(&w);
}

static void apply_first_byte(const sim_msg *m, void *ud)
{
    *(uint32_t *)ud = (uint32_t)m->id;
}

static void test_ctrl_port_applies_and_acks(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    noc_net *n = noc_net_new(e, "Net", NULL, 4);
    uint32_t seen = 0;
    assert_int_equal(noc_set_priority(n, 1000, apply_first_byte, &seen),
                     MGS_OK);
    assert_int_equal(noc_set_priority(n, 1000, NULL, NULL), MGS_EINVAL);
    tb_agent *d = tb_agent_new(e, 0, 4);
    sim_conn_config cc;
    conn_config_default(&cc);
    sim_conn *conn = conn_new(e, "Ctl", &cc, NULL);
    conn_plug(conn, &d->port);
    conn_plug(conn, noc_ctrl_port(n));
    tb_plan(d, noc_ctrl_port(n), 2, 32, 41, 0);
    assert_int_equal(eng_run(e), MGS_OK);
    assert_int_equal(seen, 42);             /* both applied, in order */
    assert_int_equal(d->nrecv, 2);          /* both acknowledged */
    tb_agent_free(d);
    conn_free(conn);
    noc_net_free(n);
    eng_free(e);
}

static void test_pcie_tc_classifier(void **state)
{
    (void)state;
    noc_pcie_vcmap map;
    noc_pcie_vcmap_default(&map, 8);
    mem_msg m;
    memset(&m, 0, sizeof m);
    m.base.type = MEM_READ;
    assert_int_equal(noc_class_pcie_tc(&m.base, &map), 0); /* unlabelled */
    m.flags = MEM_F_TC;
    m.tc = 2 * 3;                                /* GPU 3, request */
    assert_int_equal(noc_class_pcie_tc(&m.base, &map), 6); /* TC mod 8 */
    m.tc = 2 * 5 + 1;                            /* GPU 5, response */
    assert_int_equal(noc_class_pcie_tc(&m.base, &map), 11 % 8);
    noc_vcmap_msg v = {.base.type = NOC_VCMAP_SET};
    v.map.vc[11] = 7;
    v.map.vc[6] = 9;                             /* clamped to N_VC - 1 */
    noc_pcie_vcmap_apply(&v.base, &map);
    assert_int_equal(noc_class_pcie_tc(&m.base, &map), 7);
    m.tc = 6;
    assert_int_equal(noc_class_pcie_tc(&m.base, &map), 7);
    /* a response inherits its request's class with ID_T = 1 */
    mem_pool *pool = mem_pool_new();
    mem_msg *rq = mem_msg_alloc(pool, MEM_READ);
    rq->flags = MEM_F_TC;
    rq->tc = 4;
    mem_msg *rs = mem_msg_response(pool, rq);
    assert_int_equal(rs->tc, 5);
    assert_true(rs->flags & MEM_F_TC);
    mem_msg_release(pool, rs);
    mem_msg_release(pool, rq);
    mem_pool_free(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_robin_interleaves),
        cmocka_unit_test(test_strict_priority_highest_first),
        cmocka_unit_test(test_anti_starvation),
        cmocka_unit_test(test_ctrl_port_applies_and_acks),
        cmocka_unit_test(test_pcie_tc_classifier),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
