/* Tests for src/sim/evq.c: order against a reference sort, slot reuse,
** hash growth and deletion, invariants after every step. */
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
    evq_init(&q, 1); /* force slot, heap and hash growth */
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

    /* Drain the slot at `last`, then push two events at the same time. */
    while (evq_count(&q))
        evq_pop(&q, &last);
    evq_push(&q, &ev[5], last);
    evq_push(&q, &ev[2], last);
    mgs_time t;
    assert_ptr_equal(evq_pop(&q, &t), &ev[5]);
    assert_ptr_equal(evq_pop(&q, &t), &ev[2]);
    evq_fini(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_matches_time_then_insertion),
        cmocka_unit_test(test_interleaved_push_pop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
