/* Tests for src/sim/partition.c and conn_cross.c: mailbox order at window
** boundaries, identical runs for any thread count, crossings through a
** connection, limits, zero-latency refusal, and the debug check that a
** handler touches only its own partition. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mgsim/errors.h"
#include "sim/comp.h"
#include "sim/conn.h"
#include "sim/engine.h"
#include "sim/partition.h"
#include "sim/port.h"

#define MAXLOG 256

/* ---- mailbox order ---------------------------------------------------- */

typedef struct sink {
    sim_comp base;
    uint64_t log[MAXLOG];     /* x of each post, in the order they ran */
    mgs_time at[MAXLOG];
    int n;
} sink;

typedef struct poster {
    sim_comp base;
    sim_event ev;
    sink *to;
    uint64_t tag;             /* tag * 10 + k for its k-th post */
    mgs_time when;            /* posts are due at this time */
} poster;

static void sink_post(sim_engine *e, void *a, void *b, uint64_t x)
{
    (void)b;
    sink *s = a;
    if (s->n < MAXLOG) {
        s->log[s->n] = x;
        s->at[s->n] = eng_now(e);
    }
    s->n++;
}

static void poster_handle(sim_comp *c, sim_event *ev)
{
    (void)ev;
    poster *p = (poster *)c;
    for (uint64_t k = 0; k < 3; k++)
        eng_post(c->eng, p->to->base.eng, p->when, &p->to->base, sink_post,
                 p->to, NULL, p->tag * 10 + k);
}

static const sim_comp_ops sink_ops = {.kind = "Sink"};
static const sim_comp_ops poster_ops = {.kind = "Poster",
                                        .handle = poster_handle};

/* Posts from partitions 2 and 1 (made in that order of time) due at the
** same time reach partition 0 ordered by source partition, then by send
** order: never by which thread ran first. */
static void run_order(uint32_t threads, sink *s)
{
    sim_engine *root = eng_new(NULL);
    sim_engine *p1 = eng_partition_new(root, "P1");
    sim_engine *p2 = eng_partition_new(root, "P2");
    assert_int_equal(eng_partition_count(root), 3);
    eng_crossing_add(p1, root, 50, "test");
    eng_crossing_add(p2, root, 50, "test");
    assert_int_equal(eng_lookahead(root), 50);
    assert_int_equal(eng_set_threads(root, threads), MGS_OK);
    memset(s, 0, sizeof *s);
    comp_init(&s->base, root, &sink_ops, "Sink", 0);
    poster a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    comp_init(&a.base, p1, &poster_ops, "A", 0);
    comp_init(&b.base, p2, &poster_ops, "B", 0);
    eng_event_init(&a.ev, &a.base, 0, NULL);
    eng_event_init(&b.ev, &b.base, 0, NULL);
    a.to = b.to = s;
    a.tag = 1;
    b.tag = 2;
    a.when = b.when = 200;
    eng_schedule(p2, &b.ev, 10);  /* B posts first in simulated time */
    eng_schedule(p1, &a.ev, 20);
    assert_int_equal(eng_run(root), MGS_OK);
    assert_int_equal(eng_now(root), 200);
    eng_group_stats st;
    eng_group_stats_get(root, &st);
    assert_int_equal(st.posts, 6);
    assert_true(st.windows >= 2);
    comp_fini(&a.base);
    comp_fini(&b.base);
    comp_fini(&s->base);
    eng_free(root);
}

static void test_mailbox_order_by_source_then_send(void **state)
{
    (void)state;
    static const uint64_t want[6] = {10, 11, 12, 20, 21, 22};
    for (uint32_t threads = 1; threads <= 3; threads++) {
        sink s;
        run_order(threads, &s);
        assert_int_equal(s.n, 6);
        for (int i = 0; i < 6; i++) {
            assert_int_equal(s.log[i], want[i]);
            assert_int_equal(s.at[i], 200);
        }
    }
}

/* ---- ping-pong across partitions through a connection ------------------ */

typedef struct pinger {
    sim_comp base;
    sim_port port;
    sim_msg msgs[128];        /* one per message: a crossing lane frees
                                 at serialisation, so many are in flight */
    sim_port *peer;
    uint32_t to_send, sent, received;
    mgs_time got[MAXLOG];
    uint64_t sum;             /* order-sensitive digest of what arrived */
} pinger;

static bool pinger_tick(sim_comp *c)
{
    pinger *p = (pinger *)c;
    bool progress = false;
    sim_msg *m;
    while ((m = port_retrieve(&p->port))) {
        if (p->received < MAXLOG)
            p->got[p->received] = eng_now(c->eng);
        p->received++;
        p->sum = p->sum * 31 + m->id + eng_now(c->eng);
        progress = true;
    }
    if (p->sent < p->to_send) {
        sim_msg *s = &p->msgs[p->sent];
        s->dst = p->peer;
        s->id = p->sent;
        s->bytes = 64;
        if (port_send(&p->port, s) == MGS_OK) {
            p->sent++;
            progress = true;
        }
    }
    return progress;
}

static const sim_comp_ops pinger_ops = {.kind = "Pinger",
                                        .tick = pinger_tick};

typedef struct pp_result {
    uint64_t sum[2];
    uint32_t received[2];
    mgs_time first[2], end;
    uint64_t events;
} pp_result;

/* Two pingers in partitions 1 and 2 stream 100 messages each way over a
** 20-cycle connection whose receive buffers hold 2 (so receivers fill up
** and the receiver-side FIFO is used); a third partition ticks alone. */
static void run_pingpong(uint32_t threads, uint64_t max_events,
                         pp_result *r, int *rc)
{
    sim_engine *root = eng_new(NULL);
    sim_engine *p1 = eng_partition_new(root, "P1");
    sim_engine *p2 = eng_partition_new(root, "P2");
    assert_int_equal(eng_set_threads(root, threads), MGS_OK);
    eng_set_limits(root, max_events, 0);
    sim_conn_config cc;
    conn_config_default(&cc);
    conn_config_set_latency_cycles(&cc, 20);
    cc.lane_capacity = 2;
    sim_conn *conn = conn_new(root, "Link", &cc, NULL);
    pinger a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    comp_init(&a.base, p1, &pinger_ops, "A", 1000);
    comp_init(&b.base, p2, &pinger_ops, "B", 1000);
    port_init(&a.port, &a.base, "port", 2);
    port_init(&b.port, &b.base, "port", 2);
    conn_plug(conn, &a.port);
    conn_plug(conn, &b.port);
    assert_int_equal(eng_lookahead(root), 20000);
    a.peer = &b.port;
    b.peer = &a.port;
    a.to_send = b.to_send = 100;
    comp_wake(&a.base);
    comp_wake(&b.base);
    *rc = eng_run(root);
    *r = (pp_result){.sum = {a.sum, b.sum},
                     .received = {a.received, b.received},
                     .first = {a.got[0], b.got[0]},
                     .end = eng_now(root),
                     .events = eng_events(root)};
    port_fini(&a.port);
    port_fini(&b.port);
    comp_fini(&a.base);
    comp_fini(&b.base);
    conn_free(conn);
    eng_free(root);
}

static void test_crossing_connection_same_for_any_threads(void **state)
{
    (void)state;
    pp_result r1, r;
    int rc;
    run_pingpong(1, 0, &r1, &rc);
    assert_int_equal(rc, MGS_OK);
    assert_int_equal(r1.received[0], 100);
    assert_int_equal(r1.received[1], 100);
    /* Sent at the first edge (1 ns), 1 transfer cycle + 20 cycles of
    ** latency: it arrives at 22 ns, where the receiver, still ticking
    ** (it sends every cycle), takes it. */
    assert_int_equal(r1.first[0], 22000);
    for (uint32_t threads = 2; threads <= 4; threads++) {
        run_pingpong(threads, 0, &r, &rc);
        assert_int_equal(rc, MGS_OK);
        assert_memory_equal(&r, &r1, sizeof r);
    }
}

static void test_max_events_at_a_boundary_same_for_any_threads(void **state)
{
    (void)state;
    pp_result r1, r2;
    int rc1, rc2;
    run_pingpong(1, 150, &r1, &rc1);
    assert_int_equal(rc1, MGS_ELIMIT);
    assert_non_null(strstr(mgs_error_msg(), "sim.max_events"));
    run_pingpong(2, 150, &r2, &rc2);
    assert_int_equal(rc2, MGS_ELIMIT);
    assert_true(r1.events >= 150);
    assert_memory_equal(&r1, &r2, sizeof r1);
}

static void test_zero_latency_crossing_refused(void **state)
{
    (void)state;
    sim_engine *root = eng_new(NULL);
    sim_engine *p1 = eng_partition_new(root, "P1");
    eng_crossing_add(root, p1, 0, "Wire");
    assert_int_equal(eng_run(root), MGS_ECONFIG);
    assert_non_null(strstr(mgs_error_msg(), "Wire (Host -> P1)"));
    eng_free(root);
}

/* ---- the debug check ---------------------------------------------------- */

typedef struct meddler {
    sim_comp base;
    sim_event ev;
    sim_comp *victim;
} meddler;

/* Wakes a component of another partition directly, not by a post. */
static void meddler_handle(sim_comp *c, sim_event *ev)
{
    (void)ev;
    comp_wake(((meddler *)c)->victim);
}

static const sim_comp_ops meddler_ops = {.kind = "Meddler",
                                         .handle = meddler_handle};

static void test_touching_another_partition_aborts(void **state)
{
    (void)state;
#if defined(NDEBUG) ||                                                     \
    !(defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) ||    \
      defined(MGS_CHECK_PARTITIONS))
    skip(); /* the check is compiled into the sanitizer builds only */
#else
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr))
            _exit(3);
        sim_engine *root = eng_new(NULL);
        sim_engine *p1 = eng_partition_new(root, "P1");
        sim_engine *p2 = eng_partition_new(root, "P2");
        eng_crossing_add(p1, p2, 10, "test");
        static meddler m;
        static pinger v;
        comp_init(&m.base, p1, &meddler_ops, "M", 0);
        comp_init(&v.base, p2, &pinger_ops, "V", 1000);
        eng_event_init(&m.ev, &m.base, 0, NULL);
        m.victim = &v.base;
        eng_schedule(p1, &m.ev, 5);
        eng_run(root);
        _exit(0); /* not reached if the check fires */
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mailbox_order_by_source_then_send),
        cmocka_unit_test(test_crossing_connection_same_for_any_threads),
        cmocka_unit_test(test_max_events_at_a_boundary_same_for_any_threads),
        cmocka_unit_test(test_zero_latency_crossing_refused),
        cmocka_unit_test(test_touching_another_partition_aborts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
