/* Tests for src/sim/conn.c: latency and bandwidth exact in ps, clock
** alignment, ordering, multi-source fairness, deadlock diagnosis, retries
** of lanes blocked on a full port. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mgsim/errors.h"
#include "sim/comp.h"
#include "sim/conn.h"
#include "sim/engine.h"
#include "sim/port.h"

/* Source: sends its messages[] at the times in send_at[] (one event each). */
typedef struct src {
    sim_comp base;
    sim_port out;
    sim_port *dst;
    sim_event ev[16];
    sim_msg msg[16];
    int next;
} src;

static void src_handle(sim_comp *c, sim_event *ev)
{
    (void)ev;
    src *s = (src *)c;
    sim_msg *m = &s->msg[s->next];
    m->dst = s->dst;
    assert_int_equal(port_send(&s->out, m), MGS_OK);
    s->next++;
}

static const sim_comp_ops src_ops = {.kind = "Src", .handle = src_handle};

/* Sink: retrieves everything at once, recording arrival time and id. */
typedef struct sink {
    sim_comp base;
    sim_port in;
    mgs_time at[32];
    uint64_t id[32];
    const sim_port *from[32];
    int n;
} sink;

static void sink_recv(sim_comp *c, sim_port *p)
{
    sink *k = (sink *)c;
    sim_msg *m;
    while ((m = port_retrieve(p))) {
        k->at[k->n] = eng_now(c->eng);
        k->id[k->n] = m->id;
        k->from[k->n] = m->src;
        k->n++;
    }
}

static const sim_comp_ops sink_ops = {.kind = "Sink",
                                      .notify_recv = sink_recv};

typedef struct rig {
    sim_engine *e;
    src s[2];
    sink k;
    sim_conn *c;
} rig;

static void rig_init(rig *r, const sim_conn_config *cc, int nsrc)
{
    memset(r, 0, sizeof *r);
    r->e = eng_new(NULL);
    comp_init(&r->k.base, r->e, &sink_ops, "K", 0);
    port_init(&r->k.in, &r->k.base, "in", 16);
    r->c = conn_new(r->e, "C", cc, NULL);
    for (int i = 0; i < nsrc; i++) {
        comp_init(&r->s[i].base, r->e, &src_ops, i ? "S[1]" : "S[0]", 0);
        port_init(&r->s[i].out, &r->s[i].base, "out", 1);
        conn_plug(r->c, &r->s[i].out);
        r->s[i].dst = &r->k.in;
        for (int j = 0; j < 16; j++)
            eng_event_init(&r->s[i].ev[j], &r->s[i].base, 0, NULL);
    }
    conn_plug(r->c, &r->k.in);
}

static void rig_fini(rig *r, int nsrc)
{
    assert_true(conn_check(r->c));
    conn_free(r->c);
    for (int i = 0; i < nsrc; i++) {
        port_fini(&r->s[i].out);
        comp_fini(&r->s[i].base);
    }
    port_fini(&r->k.in);
    comp_fini(&r->k.base);
    eng_free(r->e);
}

static void test_latency_exact(void **state)
{
    (void)state;
    sim_conn_config cc;
    conn_config_default(&cc);
    cc.period = 625;                 /* 1.6 GHz */
    conn_config_set_latency_cycles(&cc, 7);
    cc.bytes_per_cycle = 16;
    cc.lane_capacity = 8;
    assert_int_equal(cc.latency, 7 * 625);
    rig r;
    rig_init(&r, &cc, 1);
    r.s[0].msg[0].bytes = 64;        /* 4 cycles on the link */
    r.s[0].msg[0].id = 9;
    eng_schedule(r.e, &r.s[0].ev[0], 6250); /* on an edge */
    assert_int_equal(eng_run(r.e), MGS_OK);
    assert_int_equal(r.k.n, 1);
    assert_int_equal(r.k.id[0], 9);
    assert_int_equal(r.k.at[0], 6250 + 4 * 625 + 7 * 625);
    rig_fini(&r, 1);
}

static void test_send_between_edges_starts_at_next_edge(void **state)
{
    (void)state;
    sim_conn_config cc;
    conn_config_default(&cc);
    cc.period = 1000;
    cc.latency = 0;
    cc.bytes_per_cycle = 64;
    rig r;
    rig_init(&r, &cc, 1);
    r.s[0].msg[0].bytes = 1;         /* ceil(1/64) = 1 cycle */
    eng_schedule(r.e, &r.s[0].ev[0], 1500);
    eng_run(r.e);
    assert_int_equal(r.k.at[0], 2000 + 1000);
    rig_fini(&r, 1);
}

static void test_bandwidth_exact_and_in_order(void **state)
{
    (void)state;
    sim_conn_config cc;
    conn_config_default(&cc);
    cc.period = 1000;
    cc.latency = 3000;
    cc.bytes_per_cycle = 32;
    cc.lane_capacity = 16;
    rig r;
    rig_init(&r, &cc, 1);
    /* 10 messages of 100 B sent at once: ceil(100/32) = 4 cycles each. */
    for (int i = 0; i < 10; i++) {
        r.s[0].msg[i].bytes = 100;
        r.s[0].msg[i].id = (uint64_t)i;
        eng_schedule(r.e, &r.s[0].ev[i], 0);
    }
    assert_int_equal(eng_run(r.e), MGS_OK);
    assert_int_equal(r.k.n, 10);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(r.k.id[i], i);
        assert_int_equal(r.k.at[i], (mgs_time)(i + 1) * 4000 + 3000);
    }
    /* 1000 bytes in 40 cycles of 32 B: the link ran at 25 B/cycle, the
    ** configured 32 B/cycle minus the rounding of 100 B up to 128 B. */
    assert_int_equal(r.c->bytes->value, 1000);
    assert_int_equal(r.c->msgs->value, 10);
    rig_fini(&r, 1);
}

static void test_two_sources_keep_own_order(void **state)
{
    (void)state;
    sim_conn_config cc;
    conn_config_default(&cc);
    cc.period = 1000;
    cc.latency = 1000;
    cc.bytes_per_cycle = 8;
    cc.lane_capacity = 16;
    rig r;
    rig_init(&r, &cc, 2);
    /* S[0]: 8-byte messages (1 cycle); S[1]: 24-byte (3 cycles). Each has
    ** its own lane, so both progress at full rate in parallel. */
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 4; i++) {
            r.s[s].msg[i].bytes = s ? 24 : 8;
            r.s[s].msg[i].id = (uint64_t)(s * 100 + i);
            eng_schedule(r.e, &r.s[s].ev[i], 0);
        }
    eng_run(r.e);
    assert_int_equal(r.k.n, 8);
    uint64_t last[2] = {0, 0};
    int seen[2] = {0, 0};
    for (int i = 0; i < 8; i++) {
        int s = r.k.from[i] == &r.s[1].out;
        uint64_t seq = r.k.id[i] - (uint64_t)s * 100;
        if (seen[s])
            assert_true(seq == last[s] + 1);
        else
            assert_int_equal(seq, 0);
        seen[s] = 1;
        last[s] = seq;
        mgs_time want = (seq + 1) * (s ? 3000 : 1000) + 1000;
        assert_int_equal(r.k.at[i], want);
    }
    rig_fini(&r, 2);
}

static void test_config_validation(void **state)
{
    (void)state;
    sim_conn_config cc;
    conn_config_default(&cc);
    assert_int_equal(conn_config_validate(&cc), MGS_OK);
    cc.bytes_per_cycle = 0;
    assert_int_equal(conn_config_validate(&cc), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "bytes_per_cycle"));
    conn_config_default(&cc);
    cc.lane_capacity = 0;
    assert_int_equal(conn_config_validate(&cc), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "lane_capacity"));
    conn_config_default(&cc);
    cc.period = 0;
    assert_int_equal(conn_config_validate(&cc), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "period = 0 ps"));
    conn_config_default(&cc);
    cc.latency = UINT64_MAX / 2;
    assert_int_equal(conn_config_validate(&cc), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "latency"));
}

/* Greedy peers: send as fast as possible, never retrieve. */
typedef struct greedy {
    sim_comp base;
    sim_port port;
    sim_port *peer;
    sim_msg msg[16];
    int sent;
} greedy;

static bool greedy_tick(sim_comp *c)
{
    greedy *g = (greedy *)c;
    if (g->sent == 16)
        return false;
    sim_msg *m = &g->msg[g->sent];
    m->dst = g->peer;
    m->bytes = 8;
    if (port_send(&g->port, m) != MGS_OK)
        return false;
    g->sent++;
    return true;
}

static bool greedy_busy(const sim_comp *c) { (void)c; return true; }

static const sim_comp_ops greedy_ops = {.kind = "Greedy",
                                        .tick = greedy_tick,
                                        .busy = greedy_busy};

static void test_deadlocked_pair_names_buffers(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    greedy g[2];
    memset(g, 0, sizeof g);
    sim_conn_config cc;
    conn_config_default(&cc);
    cc.lane_capacity = 3;
    sim_conn *c = conn_new(e, "Link[0]", &cc, NULL);
    for (int i = 0; i < 2; i++) {
        comp_init(&g[i].base, e, &greedy_ops, i ? "P[1]" : "P[0]", 1000);
        port_init(&g[i].port, &g[i].base, "port", 2);
        conn_plug(c, &g[i].port);
    }
    g[0].peer = &g[1].port;
    g[1].peer = &g[0].port;
    comp_wake(&g[0].base);
    comp_wake(&g[1].base);
    int rc = eng_run(e);
    assert_int_equal(rc, MGS_EDEADLOCK);
    const char *msg = mgs_error_msg();
    assert_non_null(strstr(msg, "deadlock"));
    assert_non_null(strstr(msg, "P[0]"));
    /* Lanes 3/3 come before buffers 2/2 (same fullness, more messages). */
    assert_non_null(strstr(msg, "fullest buffers: Link[0].lane(P[0].port) "
                                "3/3, Link[0].lane(P[1].port) 3/3, "
                                "P[0].port 2/2, P[1].port 2/2"));
    assert_int_equal(g[0].sent, 5);
    assert_true(conn_check(c));
    assert_true(c->lanes[0]->blocked && c->lanes[1]->blocked);
    conn_free(c);
    for (int i = 0; i < 2; i++) {
        port_fini(&g[i].port);
        comp_fini(&g[i].base);
    }
    eng_free(e);
}

/* Slow sink: takes one message per tick (port capacity 1), so the other
** lanes block on it and retry each time it frees its slot. */
typedef struct slow {
    sim_comp base;
    sim_port in;
    mgs_time at[8];
    const sim_port *from[8];
    int n;
} slow;

static bool slow_tick(sim_comp *c)
{
    slow *k = (slow *)c;
    sim_msg *m = port_retrieve(&k->in);
    if (!m)
        return false;
    k->at[k->n] = eng_now(c->eng);
    k->from[k->n++] = m->src;
    return true;
}

static const sim_comp_ops slow_ops = {.kind = "Slow", .tick = slow_tick};

/* Four lanes deliver to one full port at once: they block in lane order
** and, each time the port frees its slot, all retry in that order (one
** wins, the others re-block: blocked counts every attempt). The retries
** of one freeing are one event (conn_port_freed_), not one per lane. */
static void test_blocked_lanes_retry_in_order_as_one_event(void **state)
{
    (void)state;
    enum { N = 4 };
    sim_engine *e = eng_new(NULL);
    sim_conn_config cc;
    conn_config_default(&cc); /* 1 GHz, latency 1 cycle */
    sim_conn *c = conn_new(e, "C", &cc, NULL);
    slow k = {0};
    comp_init(&k.base, e, &slow_ops, "K", 1000);
    port_init(&k.in, &k.base, "in", 1);
    src s[N];
    memset(s, 0, sizeof s);
    static const char *const names[N] = {"S0", "S1", "S2", "S3"};
    for (int i = 0; i < N; i++) {
        comp_init(&s[i].base, e, &src_ops, names[i], 0);
        port_init(&s[i].out, &s[i].base, "out", 1);
        conn_plug(c, &s[i].out);
        s[i].dst = &k.in;
        eng_event_init(&s[i].ev[0], &s[i].base, 0, NULL);
        eng_schedule(e, &s[i].ev[0], 0);
    }
    conn_plug(c, &k.in);
    assert_int_equal(eng_run(e), MGS_OK);
    /* All arrive at 1000 ps; the sink takes one per cycle from 2000. */
    assert_int_equal(k.n, N);
    for (int i = 0; i < N; i++) {
        assert_ptr_equal(k.from[i], &s[i].out);
        assert_int_equal(k.at[i], 2000 + 1000 * (mgs_time)i);
    }
    /* 3 blocked on arrival, then 2, then 1 re-blocked after retries. */
    assert_int_equal(c->blocked->value, 6);
    /* 4 sends, 4 arrivals, 5 sink ticks (2000..6000), and one retry
    ** event at each of the 3 freeings that had lanes waiting (one per
    ** waiting lane would make 19). */
    assert_int_equal(eng_events(e), 16);
    assert_true(conn_check(c));
    conn_free(c);
    for (int i = 0; i < N; i++) {
        port_fini(&s[i].out);
        comp_fini(&s[i].base);
    }
    port_fini(&k.in);
    comp_fini(&k.base);
    eng_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latency_exact),
        cmocka_unit_test(test_send_between_edges_starts_at_next_edge),
        cmocka_unit_test(test_bandwidth_exact_and_in_order),
        cmocka_unit_test(test_two_sources_keep_own_order),
        cmocka_unit_test(test_config_validation),
        cmocka_unit_test(test_deadlocked_pair_names_buffers),
        cmocka_unit_test(test_blocked_lanes_retry_in_order_as_one_event),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
