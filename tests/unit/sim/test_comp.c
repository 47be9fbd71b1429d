/* Tests for src/sim/comp.c: progress-driven ticking, sleeping, wake-ups. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mgsim/errors.h"
#include "sim/comp.h"
#include "sim/conn.h"
#include "sim/engine.h"
#include "sim/name.h"
#include "sim/port.h"

typedef struct ticker {
    sim_comp base;
    int work;           /* units left; one per tick */
    int ticks;
    mgs_time tick_at[32];
} ticker;

static bool ticker_tick(sim_comp *c)
{
    ticker *t = (ticker *)c;
    if (t->ticks < 32)
        t->tick_at[t->ticks] = eng_now(c->eng);
    t->ticks++;
    if (t->work == 0)
        return false;
    t->work--;
    return true;
}

static bool ticker_busy(const sim_comp *c)
{
    return ((const ticker *)c)->work > 0;
}

static const sim_comp_ops ticker_ops = {.kind = "Ticker",
                                        .tick = ticker_tick,
                                        .busy = ticker_busy};

/* A component that wakes a ticker at a given time (as a port would). */
typedef struct waker {
    sim_comp base;
    sim_event ev;
    ticker *target;
    int work;
} waker;

static void waker_handle(sim_comp *c, sim_event *ev)
{
    (void)ev;
    waker *w = (waker *)c;
    w->target->work += w->work;
    comp_wake(&w->target->base);
}

static const sim_comp_ops waker_ops = {.kind = "Waker",
                                       .handle = waker_handle};

static void test_ticks_only_while_progress(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    ticker t = {0};
    comp_init(&t.base, e, &ticker_ops, "T", 1000);
    t.work = 3;
    comp_wake(&t.base); /* at the first edge after 0 */
    assert_true(comp_tick_pending(&t.base));
    comp_wake(&t.base); /* idempotent */
    assert_int_equal(eng_pending(e), 1);
    assert_int_equal(eng_run(e), MGS_OK);
    /* 3 productive ticks + 1 idle tick, then asleep. */
    assert_int_equal(t.ticks, 4);
    assert_int_equal(eng_events(e), 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(t.tick_at[i], 1000 * (mgs_time)(i + 1));
    assert_false(comp_tick_pending(&t.base));
    assert_int_equal(eng_pending(e), 0);
    comp_fini(&t.base);
    eng_free(e);
}

static void test_sleeping_ticker_costs_no_events(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    ticker t = {0};
    waker w = {0};
    comp_init(&t.base, e, &ticker_ops, "T", 1000);
    comp_init(&w.base, e, &waker_ops, "W", 0);
    eng_event_init(&w.ev, &w.base, 0, NULL);
    w.target = &t;
    w.work = 2;
    /* Asleep from 0 to 1,000,000 ps: a busy ticker would fire 1000 ticks. */
    eng_schedule(e, &w.ev, 1000000 + 300);
    assert_int_equal(eng_run(e), MGS_OK);
    /* 1 wake event + 2 productive ticks + 1 idle tick. */
    assert_int_equal(eng_events(e), 4);
    assert_int_equal(t.ticks, 3);
    /* Woken at 1,000,300: the next edge strictly after is 1,001,000. */
    assert_int_equal(t.tick_at[0], 1001000);
    assert_int_equal(t.tick_at[2], 1003000);
    comp_fini(&t.base);
    comp_fini(&w.base);
    eng_free(e);
}

static void test_wake_on_edge_goes_to_next_edge(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    ticker t = {0};
    waker w = {0};
    comp_init(&t.base, e, &ticker_ops, "T", 500);
    comp_init(&w.base, e, &waker_ops, "W", 0);
    eng_event_init(&w.ev, &w.base, 0, NULL);
    w.target = &t;
    w.work = 1;
    eng_schedule(e, &w.ev, 2000); /* exactly on an edge */
    eng_run(e);
    assert_int_equal(t.tick_at[0], 2500);
    comp_fini(&t.base);
    comp_fini(&w.base);
    eng_free(e);
}

static void test_busy_component_with_empty_queue_is_deadlock(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    ticker t = {0};
    comp_init(&t.base, e, &ticker_ops, "GPU[0].CU[3]", 1000);
    t.work = 5; /* pending work, but nobody ever wakes it */
    int rc = eng_run(e);
    assert_int_equal(rc, MGS_EDEADLOCK);
    assert_non_null(strstr(mgs_error_msg(), "deadlock"));
    assert_non_null(strstr(mgs_error_msg(), "GPU[0].CU[3]"));
    comp_fini(&t.base);
    eng_free(e);
}

/* The component example of docs/engine.md, verbatim in behaviour. */
typedef struct echo {
    sim_comp base;
    sim_port port;
    sim_msg *reply_pending;
} echo;

static bool echo_tick(sim_comp *c)
{
    echo *x = (echo *)c;
    if (!x->reply_pending) {
        sim_msg *m = port_retrieve(&x->port);
        if (!m)
            return false;
        m->dst = m->src;
        x->reply_pending = m;
    }
    if (port_send(&x->port, x->reply_pending) == MGS_EBUSY)
        return false;
    x->reply_pending = NULL;
    return true;
}

static bool echo_busy(const sim_comp *c)
{
    return ((const echo *)c)->reply_pending != NULL;
}

static const sim_comp_ops echo_ops = {
    .kind = "Echo", .tick = echo_tick, .busy = echo_busy,
};

/* Sends n requests as fast as it may and records each round trip. */
typedef struct requester {
    sim_comp base;
    sim_port port;
    sim_port *target;
    sim_msg msg[8];
    int n, sent, got;
    mgs_time sent_at[8], rtt[8];
} requester;

static bool requester_tick(sim_comp *c)
{
    requester *r = (requester *)c;
    bool progress = false;
    sim_msg *m = port_retrieve(&r->port);
    if (m) {
        /* m->send_time is the echo's send (the last hop), so the round
        ** trip uses the requester's own record. */
        assert_int_equal(eng_now(c->eng) - m->send_time, 7000);
        r->rtt[m->id] = eng_now(c->eng) - r->sent_at[m->id];
        r->got++;
        progress = true;
    }
    if (r->sent < r->n) {
        sim_msg *q = &r->msg[r->sent];
        q->dst = r->target;
        q->id = (uint64_t)r->sent;
        q->bytes = 64;
        if (port_send(&r->port, q) == MGS_OK) {
            r->sent_at[r->sent] = eng_now(c->eng);
            r->sent++;
            progress = true;
        }
    }
    return progress;
}

static bool requester_busy(const sim_comp *c)
{
    const requester *r = (const requester *)c;
    return r->got < r->n;
}

static const sim_comp_ops requester_ops = {
    .kind = "Req", .tick = requester_tick, .busy = requester_busy,
};

static void test_echo_round_trip(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    echo x = {0};
    requester r = {0};
    char *ename = name_new("GPU[0]", "Echo", 3);
    comp_init(&x.base, e, &echo_ops, ename, mgs_period_from_hz(1000000000));
    free(ename);
    assert_string_equal(x.base.name, "GPU[0].Echo[3]");
    port_init(&x.port, &x.base, "port", 4);
    comp_init(&r.base, e, &requester_ops, "GPU[0].Req[0]", 1000);
    port_init(&r.port, &r.base, "port", 4);
    sim_conn_config cc;
    conn_config_default(&cc);
    conn_config_set_latency_cycles(&cc, 5);
    sim_conn *c = conn_new(e, "GPU[0].Conn", &cc, NULL);
    conn_plug(c, &x.port);
    conn_plug(c, &r.port);
    r.target = &x.port;
    r.n = 3;
    comp_wake(&r.base);
    assert_int_equal(eng_run(e), MGS_OK);
    assert_int_equal(r.got, 3);
    /* Request: 1 link cycle + 5 latency cycles, seen by the echo one edge
    ** later (7 cycles); the reply takes the same: 14 cycles in all. */
    for (int i = 0; i < 3; i++)
        assert_int_equal(r.rtt[i], 14000);
    assert_false(comp_tick_pending(&x.base));
    conn_free(c);
    port_fini(&x.port);
    port_fini(&r.port);
    comp_fini(&x.base);
    comp_fini(&r.base);
    eng_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ticks_only_while_progress),
        cmocka_unit_test(test_sleeping_ticker_costs_no_events),
        cmocka_unit_test(test_wake_on_edge_goes_to_next_edge),
        cmocka_unit_test(test_busy_component_with_empty_queue_is_deadlock),
        cmocka_unit_test(test_echo_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
