/* Tests for src/sim/partition.c and conn_cross.c: mailbox order at window
** boundaries (independent of the windows), identical runs for any thread
** count, crossings through a connection, limits, zero-latency refusal,
** and the debug check that a handler touches only its own partition. */
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

/* Poster A (tag 1) in p1 and B (tag 2) in p2, both posting to s at 200. */
static void posters_init(poster *a, poster *b, sim_engine *p1,
                         sim_engine *p2, sink *s)
{
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    comp_init(&a->base, p1, &poster_ops, "A", 0);
    comp_init(&b->base, p2, &poster_ops, "B", 0);
    eng_event_init(&a->ev, &a->base, 0, NULL);
    eng_event_init(&b->ev, &b->base, 0, NULL);
    a->to = b->to = s;
    a->tag = 1;
    b->tag = 2;
    a->when = b->when = 200;
}

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
    posters_init(&a, &b, p1, p2, s);
    eng_schedule(p2, &b.ev, 10);  /* B posts first in simulated time */
    eng_schedule(p1, &a.ev, 20);
    assert_int_equal(eng_run(root), MGS_OK);
    assert_int_equal(eng_now(root), 200);
    eng_group_stats st;
    eng_group_stats_get(root, &st);
    assert_int_equal(st.posts, 6);
    /* One thread runs windows; more run ahead (steps, few global steps). */
    if (threads == 1)
        assert_true(st.windows >= 2);
    else
        assert_true(st.steps >= 2);
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

/* ---- order independent of the windows ------------------------------- */

typedef struct logger {
    sim_comp base;
    sim_event ev;
    sink *to;
} logger;

static void logger_handle(sim_comp *c, sim_event *ev)
{
    (void)ev;
    logger *l = (logger *)c;
    sink_post(c->eng, l->to, NULL, 99);
}

static const sim_comp_ops logger_ops = {.kind = "Logger",
                                        .handle = logger_handle};

/* P2 posts at 10 and P1 at 150, both due at 200, where partition 0 also
** has a local event scheduled before either post. Whatever the windows
** (capped at 1 ps: the two posts are merged at different boundaries),
** the posts fire first, by source partition, then the local event. */
static uint64_t run_windows(uint32_t threads, mgs_time cap, sink *s)
{
    sim_engine *root = eng_new(NULL);
    sim_engine *p1 = eng_partition_new(root, "P1");
    sim_engine *p2 = eng_partition_new(root, "P2");
    eng_crossing_add(p1, root, 50, "test");
    eng_crossing_add(p2, root, 50, "test");
    assert_int_equal(eng_set_threads(root, threads), MGS_OK);
    eng_set_window_cap(root, cap);
    memset(s, 0, sizeof *s);
    comp_init(&s->base, root, &sink_ops, "Sink", 0);
    logger l = {.to = s};
    comp_init(&l.base, root, &logger_ops, "L", 0);
    eng_event_init(&l.ev, &l.base, 0, NULL);
    eng_schedule(root, &l.ev, 200);
    poster a, b;
    posters_init(&a, &b, p1, p2, s);
    eng_schedule(p2, &b.ev, 10);
    eng_schedule(p1, &a.ev, 150);
    assert_int_equal(eng_run(root), MGS_OK);
    eng_group_stats st;
    eng_group_stats_get(root, &st);
    comp_fini(&a.base);
    comp_fini(&b.base);
    comp_fini(&l.base);
    comp_fini(&s->base);
    eng_free(root);
    return st.windows;
}

static void test_post_order_independent_of_windows(void **state)
{
    (void)state;
    static const uint64_t want[7] = {10, 11, 12, 20, 21, 22, 99};
    static const mgs_time caps[3] = {0, 1, 7};
    for (uint32_t threads = 1; threads <= 2; threads++)
        for (int c = 0; c < 3; c++) {
            sink s;
            uint64_t w = run_windows(threads, caps[c], &s);
            /* uncapped: both posts merge at the first boundary; two
            ** threads without a cap run ahead instead of in windows */
            if (threads == 1 || caps[c])
                assert_int_equal(w, caps[c] == 0 ? 2 : 3);
            assert_int_equal(s.n, 7);
            for (int i = 0; i < 7; i++) {
                assert_int_equal(s.log[i], want[i]);
                assert_int_equal(s.at[i], 200);
            }
        }
}

/* ---- promises ------------------------------------------------------- */

typedef struct ticker {
    logger l;                 /* logs 99 every 10 ps until 300 */
} ticker;

static void ticker_handle(sim_comp *c, sim_event *ev)
{
    logger_handle(c, ev);
    if (eng_now(c->eng) < 300)
        eng_schedule(c->eng, ev, eng_now(c->eng) + 10);
}

static const sim_comp_ops ticker_ops = {.kind = "Ticker",
                                        .handle = ticker_handle};

static mgs_time not_before(void *ud, const sim_engine *p, mgs_time e,
                           const sim_engine *q)
{
    (void)p;
    (void)q;
    mgs_time t = *(const mgs_time *)ud;
    return t > e ? t : e;
}

/* Partitions 0 and P1 (crossings both ways, 50 ps) tick every 10 ps up to
** 300; P1 posts once, at 250, due at 320. promise: 0 none, else P1
** promises to post nothing before it. Returns the windows; s gets the
** log of partition 0. */
static uint64_t run_promise(mgs_time promise, sink *s)
{
    sim_engine *root = eng_new(NULL);
    sim_engine *p1 = eng_partition_new(root, "P1");
    eng_crossing_add(p1, root, 50, "test");
    eng_crossing_add(root, p1, 50, "test");
    if (promise)
        eng_promise_add(p1, not_before, &promise);
    memset(s, 0, sizeof *s);
    comp_init(&s->base, root, &sink_ops, "Sink", 0);
    ticker t = {.l.to = s};
    comp_init(&t.l.base, root, &ticker_ops, "T", 0);
    eng_event_init(&t.l.ev, &t.l.base, 0, NULL);
    eng_schedule(root, &t.l.ev, 10);
    sink busy = {.n = 0};
    comp_init(&busy.base, p1, &sink_ops, "Busy", 0);
    ticker u = {.l.to = &busy};
    comp_init(&u.l.base, p1, &ticker_ops, "U", 0);
    eng_event_init(&u.l.ev, &u.l.base, 0, NULL);
    eng_schedule(p1, &u.l.ev, 10);
    poster a = {.to = s, .tag = 1, .when = 320};
    comp_init(&a.base, p1, &poster_ops, "A", 0);
    eng_event_init(&a.ev, &a.base, 0, NULL);
    eng_schedule(p1, &a.ev, 250);
    assert_int_equal(eng_run(root), MGS_OK);
    eng_group_stats st;
    eng_group_stats_get(root, &st);
    comp_fini(&a.base);
    comp_fini(&u.l.base);
    comp_fini(&busy.base);
    comp_fini(&t.l.base);
    comp_fini(&s->base);
    eng_free(root);
    return st.windows;
}

static void test_promise_widens_windows_same_results(void **state)
{
    (void)state;
    sink none, kept;
    uint64_t w0 = run_promise(0, &none);
    uint64_t w1 = run_promise(250, &kept);
    assert_int_equal(w0, 7);
    assert_int_equal(w1, 3);     /* P1 holds partition 0 only from 250 */
    assert_int_equal(none.n, 33);   /* 30 ticks and 3 posts */
    assert_int_equal(kept.n, none.n);
    for (int i = 0; i < none.n; i++) {
        assert_int_equal(kept.log[i], none.log[i]);
        assert_int_equal(kept.at[i], none.at[i]);
    }
#ifndef NDEBUG
    /* A promise the partition breaks (it posts at 250) aborts. */
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        sink s;
        run_promise(260, &s);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
#endif
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
static void run_pingpong_by(uint32_t threads, uint64_t max_events,
                            mgs_time step, pp_result *r, int *rc)
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
    if (step) {
        /* eng_run_until in steps shorter than the lookahead */
        *rc = MGS_OK;
        for (mgs_time t = step; *rc == MGS_OK && eng_pending(root);
             t += step) {
            *rc = eng_run_until(root, t);
            for (uint32_t i = 0; i < eng_partition_count(root); i++)
                assert_true(eng_now(eng_partition_get(root, i)) == t ||
                            *rc);
        }
    } else {
        *rc = eng_run(root);
    }
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

static void run_pingpong(uint32_t threads, uint64_t max_events,
                         pp_result *r, int *rc)
{
    run_pingpong_by(threads, max_events, 0, r, rc);
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
    /* Run in steps of 3 ns (the lookahead is 20 ns): no partition may pass
    ** a step's end, whether in windows or running ahead. */
    pp_result s1;
    run_pingpong_by(1, 0, 3000, &s1, &rc);
    assert_int_equal(rc, MGS_OK);
    assert_int_equal(s1.sum[0], r1.sum[0]);
    assert_int_equal(s1.sum[1], r1.sum[1]);
    assert_int_equal(s1.first[0], r1.first[0]);
    for (uint32_t threads = 2; threads <= 4; threads++) {
        run_pingpong_by(threads, 0, 3000, &r, &rc);
        assert_int_equal(rc, MGS_OK);
        assert_memory_equal(&r, &s1, sizeof r);
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

/* ---- failures ------------------------------------------------------- */

/* A component that ticks every ns and fails (an error and eng_stop) at
** its fail_at. */
typedef struct failer {
    sim_comp base;
    mgs_time fail_at;
} failer;

static bool failer_tick(sim_comp *c)
{
    failer *f = (failer *)c;
    if (eng_now(c->eng) >= f->fail_at) {
        mgs_error_set(MGS_ESIM, "%s failed at %llu", c->name,
                      (unsigned long long)eng_now(c->eng));
        eng_stop(c->eng);
        return false;
    }
    return true;
}

static const sim_comp_ops failer_ops = {.kind = "Failer",
                                        .tick = failer_tick};

/* Partitions P1..P3 (crossings to and from the root, 20 ns) tick until
** their fail times; the run reports the earliest failure (by time, then
** partition), whatever the threads. */
static void run_failers(uint32_t threads, mgs_time lat,
                        const mgs_time fail_at[3], char *msg, size_t size)
{
    sim_engine *root = eng_new(NULL);
    failer f[3];
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "P%d", i + 1);
        sim_engine *p = eng_partition_new(root, name);
        eng_crossing_add(p, root, lat, "test");
        eng_crossing_add(root, p, lat, "test");
        f[i].fail_at = fail_at[i];
        comp_init(&f[i].base, p, &failer_ops, name, 1000);
        comp_wake(&f[i].base);
    }
    assert_int_equal(eng_set_threads(root, threads), MGS_OK);
    eng_run(root);
    snprintf(msg, size, "%s", mgs_error_msg());
    for (int i = 0; i < 3; i++)
        comp_fini(&f[i].base);
    eng_free(root);
}

static void test_earliest_failure_reported_for_any_threads(void **state)
{
    (void)state;
    /* The last case's lookahead (1 ms) lets P1 fail at 400 ns before P3
    ** has run at all: P3 must still be run to its earlier failure. */
    static const mgs_time cases[4][4] = {
        /* lookahead, fail times of P1, P2, P3 */
        {20000, 900000, 300000, 700000},      /* P2 first */
        {20000, 500000, 800000, 500000},      /* P1 and P3 at once: P1 */
        {20000, 800000, 800000, 100000},      /* P3 long before */
        {1000000000, 400000, 900000, 100000}, /* P3, far behind P1 */
    };
    static const char *want[4] = {"P2 failed at 300000",
                                  "P1 failed at 500000",
                                  "P3 failed at 100000",
                                  "P3 failed at 100000"};
    for (int c = 0; c < 4; c++)
        for (int rep = 0; rep < 5; rep++)
            for (uint32_t threads = 1; threads <= 4; threads++) {
                char msg[256];
                run_failers(threads, cases[c][0], &cases[c][1], msg,
                            sizeof msg);
                if (!strstr(msg, want[c]))
                    fail_msg("case %d, %u threads: '%s', want '%s'", c,
                             threads, msg, want[c]);
            }
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

/* The check is compiled into the sanitizer builds only. */
#if !defined(NDEBUG) &&                                                    \
    (defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) ||     \
     defined(MGS_CHECK_PARTITIONS))
#define PARTITION_CHECK 1
#else
#define PARTITION_CHECK 0
#endif

#if PARTITION_CHECK
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
#endif

static void test_touching_another_partition_aborts(void **state)
{
    (void)state;
#if !PARTITION_CHECK
    skip();
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
        cmocka_unit_test(test_post_order_independent_of_windows),
        cmocka_unit_test(test_promise_widens_windows_same_results),
        cmocka_unit_test(test_crossing_connection_same_for_any_threads),
        cmocka_unit_test(test_max_events_at_a_boundary_same_for_any_threads),
        cmocka_unit_test(test_earliest_failure_reported_for_any_threads),
        cmocka_unit_test(test_zero_latency_crossing_refused),
        cmocka_unit_test(test_touching_another_partition_aborts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
