/* Tests for src/sim/port.c: bounded buffers, back-pressure, wake-ups of
** sender and receiver at exact times, port hooks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mgsim/errors.h"
#include "sim/comp.h"
#include "sim/conn.h"
#include "sim/engine.h"
#include "sim/port.h"

typedef struct sender {
    sim_comp base;
    sim_port out;
    sim_port *dst;
    sim_event ev[8];
    sim_msg msg[8];
    int next;             /* next message index to send */
    int results[8], nres;
    mgs_time freed_at[8];
    int nfreed;
} sender;

static void sender_handle(sim_comp *c, sim_event *ev)
{
    (void)ev;
    sender *s = (sender *)c;
    sim_msg *m = &s->msg[s->next];
    m->dst = s->dst;
    m->id = (uint64_t)s->next;
    m->bytes = 64;
    int rc = port_send(&s->out, m);
    s->results[s->nres++] = rc;
    if (rc == MGS_OK)
        s->next++;
}

static void sender_port_free(sim_comp *c, sim_port *p)
{
    sender *s = (sender *)c;
    assert_ptr_equal(p, &s->out);
    s->freed_at[s->nfreed++] = eng_now(c->eng);
}

static const sim_comp_ops sender_ops = {.kind = "Sender",
                                        .handle = sender_handle,
                                        .notify_port_free = sender_port_free};

typedef struct receiver {
    sim_comp base;
    sim_port in;
    sim_event ev;
    mgs_time recv_at[8];
    int nrecv;
    uint64_t got[8];
    int ngot;
} receiver;

static void receiver_handle(sim_comp *c, sim_event *ev)
{
    (void)ev;
    receiver *r = (receiver *)c;
    sim_msg *m = port_retrieve(&r->in);
    assert_non_null(m);
    r->got[r->ngot++] = m->id;
}

static void receiver_recv(sim_comp *c, sim_port *p)
{
    receiver *r = (receiver *)c;
    assert_ptr_equal(p, &r->in);
    r->recv_at[r->nrecv++] = eng_now(c->eng);
}

static const sim_comp_ops receiver_ops = {.kind = "Receiver",
                                          .handle = receiver_handle,
                                          .notify_recv = receiver_recv};

static int hook_sends, hook_recvs;
static void count_hook(const sim_hook_ctx *ctx, void *ud)
{
    (void)ud;
    if (ctx->pos == SIM_HOOK_PORT_SEND)
        hook_sends++;
    else if (ctx->pos == SIM_HOOK_PORT_RECV)
        hook_recvs++;
}

static void test_backpressure_and_wakeups(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    sender s = {0};
    receiver r = {0};
    comp_init(&s.base, e, &sender_ops, "S", 0);
    comp_init(&r.base, e, &receiver_ops, "R", 0);
    port_init(&s.out, &s.base, "out", 1);
    port_init(&r.in, &r.base, "in", 1);
    sim_conn_config cc;
    conn_config_default(&cc);
    cc.period = 1000;
    cc.latency = 2000;
    cc.bytes_per_cycle = 64;
    cc.lane_capacity = 1;
    sim_conn *conn = conn_new(e, "C", &cc, NULL);
    conn_plug(conn, &s.out);
    conn_plug(conn, &r.in);
    s.dst = &r.in;
    hook_sends = hook_recvs = 0;
    eng_hook_add(e, SIM_HOOK_PORT_SEND, count_hook, NULL);
    eng_hook_add(e, SIM_HOOK_PORT_RECV, count_hook, NULL);

    const mgs_time send_times[4] = {0, 0, 4000, 5000};
    for (int i = 0; i < 4; i++) {
        eng_event_init(&s.ev[i], &s.base, 0, NULL);
        eng_schedule(e, &s.ev[i], send_times[i]);
    }
    eng_event_init(&r.ev, &r.base, 0, NULL);
    eng_schedule(e, &r.ev, 10000);

    /* Mid-run, the lane and the receiver buffer are both full. */
    assert_int_equal(eng_run_until(e, 8000), MGS_OK);
    assert_true(conn_check(conn));
    assert_true(conn->lanes[0]->blocked);
    assert_false(port_can_send(&s.out));
    assert_true(port_full(&r.in));
    char diag[200];
    eng_diagnose(e, diag, sizeof diag, 4);
    assert_string_equal(diag,
                        "fullest buffers: R.in 1/1, C.lane(S.out) 1/1");
    char *dump = NULL;
    size_t dump_len = 0;
    FILE *f = open_memstream(&dump, &dump_len);
    eng_dump(e, f);
    fclose(f);
    assert_non_null(strstr(dump, "engine: now=8000 ps"));
    assert_non_null(strstr(dump, "port R.in 1/1"));
    assert_non_null(strstr(dump, "C.lane(S.out) 1/1 (blocked)"));
    free(dump);

    assert_int_equal(eng_run(e), MGS_OK);
    assert_true(conn_check(conn));
    /* m0 accepted, m1 refused (lane full), m1 accepted, m2 refused. */
    assert_int_equal(s.nres, 4);
    assert_int_equal(s.results[0], MGS_OK);
    assert_int_equal(s.results[1], MGS_EBUSY);
    assert_int_equal(s.results[2], MGS_OK);
    assert_int_equal(s.results[3], MGS_EBUSY);
    /* m0 lands at 0 + 1 cycle + 2000 = 3000 and frees the lane then;
    ** m1 lands at 7000 but R is full until it retrieves m0 at 10000. */
    assert_int_equal(r.nrecv, 2);
    assert_int_equal(r.recv_at[0], 3000);
    assert_int_equal(r.recv_at[1], 10000);
    assert_int_equal(s.nfreed, 2);
    assert_int_equal(s.freed_at[0], 3000);
    assert_int_equal(s.freed_at[1], 10000);
    assert_int_equal(r.ngot, 1);
    assert_int_equal(r.got[0], 0);
    sim_msg *m1 = port_peek(&r.in);
    assert_non_null(m1);
    assert_int_equal(m1->id, 1);
    assert_ptr_equal(m1->src, &s.out);
    assert_int_equal(m1->send_time, 4000);
    assert_int_equal(m1->arrive_time, 7000);
    assert_int_equal(conn->refused->value, 2);
    assert_int_equal(conn->blocked->value, 1);
    assert_int_equal(hook_sends, 2);
    assert_int_equal(hook_recvs, 2);
    assert_int_equal(r.in.received, 2);
    assert_ptr_equal(port_retrieve(&r.in), m1);
    assert_null(port_retrieve(&r.in));

    conn_free(conn);
    port_fini(&s.out);
    port_fini(&r.in);
    comp_fini(&s.base);
    comp_fini(&r.base);
    eng_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backpressure_and_wakeups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
