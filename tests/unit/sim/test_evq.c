/* Tests for src/sim/evq.c: order against a reference sort and against a
** reference heap while pushing and popping (the wheel, the far store and
** the moves between them), ordered pushes, heap growth and
** deletion, invariants after every step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/evq.h"

enum { N = 5000 };

typedef struct ref {
    mgs_time t;
    uint32_t seq;
} ref;

static int ref_cmp(const void *pa, const void *pb)
{
    const ref *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->seq < b->seq ? -1 : (a->seq > b->seq);
}

static void test_order_matches_time_then_insertion(void **state)
{
    (void)state;
    static sim_event ev[N];
    static ref want[N];
    sim_evq q;
    evq_init(&q, 1); /* force the far heap to grow */
    uint64_t rng = 7;
    for (uint32_t i = 0; i < N; i++) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        /* Wide and narrow spreads: many distinct times and many ties. */
        mgs_time t = i % 2 ? (rng >> 33) % 50 : (rng >> 20) % 1000000;
        ev[i].kind = i;
        evq_push(&q, &ev[i], t);
        want[i] = (ref){t, i};
        if (i % 997 == 0)
            assert_true(evq_check(&q));
    }
    assert_int_equal(evq_count(&q), N);
    assert_true(evq_check(&q));
    qsort(want, N, sizeof *want, ref_cmp);
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(evq_min_time(&q), want[i].t);
        mgs_time t;
        sim_event *e = evq_pop(&q, &t);
        assert_int_equal(t, want[i].t);
        assert_int_equal(e->kind, want[i].seq);
        if (i % 613 == 0)
            assert_true(evq_check(&q));
    }
    assert_int_equal(evq_count(&q), 0);
    assert_true(evq_check(&q));
    evq_fini(&q);
}

static void test_interleaved_push_pop(void **state)
{
    (void)state;
    /* Simulation-like use: pop one, push a few at now or later; the times
    ** popped never decrease and same-time pushes after a drain still come
    ** out in push order. */
    static sim_event ev[64];
    sim_evq q;
    evq_init(&q, 4);
    for (uint32_t i = 0; i < 64; i++) {
        ev[i].kind = i;
        evq_push(&q, &ev[i], (mgs_time)(i % 8) * 10);
    }
    mgs_time last = 0;
    uint64_t rng = 3;
    for (int step = 0; step < 100000; step++) {
        mgs_time t;
        sim_event *e = evq_pop(&q, &t);
        assert_true(t >= last);
        last = t;
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        evq_push(&q, e, t + ((rng >> 33) % 3) * 10);
    }
    assert_true(evq_check(&q));
    assert_int_equal(evq_count(&q), 64);

    /* Drain the queue up to `last`, then push two events at that time. */
    while (evq_count(&q))
        evq_pop(&q, &last);
    evq_push(&q, &ev[5], last);
    evq_push(&q, &ev[2], last);
    mgs_time t;
    assert_ptr_equal(evq_pop(&q, &t), &ev[5]);
    assert_ptr_equal(evq_pop(&q, &t), &ev[2]);
    evq_fini(&q);
}

/* A reference priority queue on (time, push sequence number). */
typedef struct ref_heap {
    ref *h;
    size_t n;
} ref_heap;

static void ref_push(ref_heap *r, mgs_time t, uint32_t seq)
{
    size_t i = r->n++;
    while (i > 0 && ref_cmp(&r->h[(i - 1) / 2], &(ref){t, seq}) > 0) {
        r->h[i] = r->h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    r->h[i] = (ref){t, seq};
}

static ref ref_pop(ref_heap *r)
{
    ref top = r->h[0], x = r->h[--r->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= r->n)
            break;
        if (c + 1 < r->n && ref_cmp(&r->h[c + 1], &r->h[c]) < 0)
            c++;
        if (ref_cmp(&r->h[c], &x) >= 0)
            break;
        r->h[i] = r->h[c];
        i = c;
    }
    r->h[i] = x;
    return top;
}

static void test_wheel_and_far_against_reference(void **state)
{
    (void)state;
    /* Pop one, push a few due now or later, with delays inside the wheel's
    ** window, at its edges and far beyond (so events move from the far
    ** store into the wheel, the window jumps over empty stretches, and
    ** same-time events come from both): the order must be exactly (time,
    ** push order). Events are recycled: an event's kind is the sequence
    ** number of its latest push. */
    enum { EV = 3000, STEPS = 200000 };
    static const mgs_time delay[] = {
        0, 0, 1, 2, 500, 1000, 1000, 4095, 4096, 65535,
        EVQ_WHEEL_BUCKETS - 1, EVQ_WHEEL_BUCKETS, EVQ_WHEEL_BUCKETS + 1,
        100000, 1000000, 123456789};
    static sim_event ev[EV];
    static ref heap[EV];
    ref_heap r = {heap, 0};
    sim_evq q;
    evq_init(&q, 1);
    uint64_t rng = 11;
    uint32_t seq = 0, free_n = 0;
    static uint32_t free_ev[EV];
    for (uint32_t i = 0; i < EV; i++)
        free_ev[free_n++] = i;
    mgs_time now = 0;
    for (int step = 0; step < STEPS; step++) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        /* Push 0-3 events (fewer when the queue is large). */
        uint32_t pushes = (uint32_t)(rng >> 60) % (r.n > EV / 2 ? 2 : 4);
        for (uint32_t k = 0; k < pushes && free_n; k++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            mgs_time t = now + delay[(rng >> 40) % (sizeof delay /
                                                    sizeof delay[0])];
            uint32_t e = free_ev[--free_n];
            ev[e].kind = seq;
            ev[e].data = &ev[e];
            evq_push(&q, &ev[e], t);
            ref_push(&r, t, seq++);
        }
        if (step % 9973 == 0)
            assert_true(evq_check(&q));
        if (!r.n)
            continue;
        ref want = ref_pop(&r);
        assert_int_equal(evq_min_time(&q), want.t);
        mgs_time t;
        sim_event *e = evq_pop(&q, &t);
        assert_int_equal(t, want.t);
        assert_int_equal(e->kind, want.seq);
        now = t;
        free_ev[free_n++] = (uint32_t)(e - ev);
    }
    assert_int_equal(evq_count(&q), r.n);
    assert_true(evq_check(&q));
    while (r.n) {
        ref want = ref_pop(&r);
        mgs_time t;
        assert_int_equal(evq_pop(&q, &t)->kind, want.seq);
        assert_int_equal(t, want.t);
    }
    assert_true(evq_check(&q));
    evq_fini(&q);
}

static void test_idle_gap_then_earlier_push(void **state)
{
    (void)state;
    /* A run that stops before the far store's first event (run until a
    ** limit) asks for the minimum time without popping; an event pushed
    ** afterwards at an earlier time still comes first, and one pushed at
    ** the far event's time comes after it. */
    static sim_event a, b, c, d;
    sim_evq q;
    evq_init(&q, 16);
    mgs_time far = 10 * (mgs_time)EVQ_WHEEL_BUCKETS + 7, t;
    evq_push(&q, &a, far);
    assert_int_equal(evq_min_time(&q), far);
    evq_push(&q, &b, 5);
    evq_push(&q, &c, far);
    assert_int_equal(evq_min_time(&q), 5);
    assert_true(evq_check(&q));
    assert_ptr_equal(evq_pop(&q, &t), &b);
    assert_int_equal(t, 5);
    assert_ptr_equal(evq_pop(&q, &t), &a);
    assert_int_equal(t, far);
    evq_push(&q, &d, far); /* at now, after c */
    assert_ptr_equal(evq_pop(&q, &t), &c);
    assert_ptr_equal(evq_pop(&q, &t), &d);
    assert_int_equal(evq_count(&q), 0);
    assert_true(evq_check(&q));
    evq_fini(&q);
}

static void test_times_near_the_end(void **state)
{
    (void)state;
    /* Events due at the very end of time (a "never" deadline) stay in
    ** order: window arithmetic must not wrap around. */
    static sim_event a, b, c;
    sim_evq q;
    evq_init(&q, 16);
    mgs_time t;
    evq_push(&q, &a, MGS_TIME_MAX);
    evq_push(&q, &b, MGS_TIME_MAX - 1);
    evq_push(&q, &c, 100);
    assert_ptr_equal(evq_pop(&q, &t), &c);
    assert_int_equal(t, 100);
    assert_ptr_equal(evq_pop(&q, &t), &b);
    assert_int_equal(t, MGS_TIME_MAX - 1);
    evq_push(&q, &c, MGS_TIME_MAX);
    assert_true(evq_check(&q));
    assert_ptr_equal(evq_pop(&q, &t), &a);
    assert_ptr_equal(evq_pop(&q, &t), &c);
    assert_int_equal(t, MGS_TIME_MAX);
    assert_int_equal(evq_count(&q), 0);
    evq_fini(&q);
}

/* Ordered pushes: kind >= 100 are "posts", ordered among themselves by
** kind and placed ahead of the other events due at the same time. */
static bool post_before(const sim_event *queued, const sim_event *ev)
{
    return queued->kind >= 100 && queued->kind < ev->kind;
}

static void test_ordered_push(void **state)
{
    (void)state;
    static sim_event ev[8];
    for (uint32_t near = 0; near < 2; near++) {
        sim_evq q;
        evq_init(&q, 16);
        /* In the wheel (near) or in the far store. */
        mgs_time t = near ? 300 : 3 * (mgs_time)EVQ_WHEEL_BUCKETS;
        ev[0].kind = 1;
        ev[1].kind = 2;
        ev[2].kind = 102;
        ev[3].kind = 101;
        ev[4].kind = 103;
        ev[5].kind = 3;
        evq_push(&q, &ev[0], t);
        evq_push(&q, &ev[1], t);
        evq_push_ordered(&q, &ev[2], t, post_before);
        evq_push_ordered(&q, &ev[3], t, post_before);
        evq_push_ordered(&q, &ev[4], t, post_before);
        evq_push(&q, &ev[5], t);
        ev[6].kind = 200;
        evq_push_ordered(&q, &ev[6], t + 1, post_before); /* empty time */
        assert_true(evq_check(&q));
        const uint32_t want[] = {101, 102, 103, 1, 2, 3, 200};
        for (uint32_t i = 0; i < 7; i++) {
            mgs_time at;
            assert_int_equal(evq_pop(&q, &at)->kind, want[i]);
            assert_int_equal(at, t + (i == 6));
        }
        assert_true(evq_check(&q));
        evq_fini(&q);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_matches_time_then_insertion),
        cmocka_unit_test(test_interleaved_push_pop),
        cmocka_unit_test(test_wheel_and_far_against_reference),
        cmocka_unit_test(test_idle_gap_then_earlier_push),
        cmocka_unit_test(test_ordered_push),
        cmocka_unit_test(test_times_near_the_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
