/* Tests for src/sim/partition_profile.c: the replay of a 1-thread
** profile as running ahead on more threads, on hand-made records whose
** best schedule is known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/partition_int.h"

/* A group of n partitions with no crossing (the replay reads n, lat and,
** when a window is noted, horizon). */
static eng_group *group_new(uint32_t n)
{
    eng_group *g = aligned_alloc(64, sizeof *g);
    assert_non_null(g);
    memset(g, 0, sizeof *g);
    g->n = n;
    for (uint32_t i = 0; i < ENG_MAX_PARTITIONS; i++)
        for (uint32_t j = 0; j < ENG_MAX_PARTITIONS; j++)
            g->lat[i][j] = MGS_TIME_MAX;
    return g;
}

static void group_free(eng_group *g)
{
    eng_profile_free_(g);
    free(g);
}

/* Notes windows w = 0.. with every horizon (w + 1) * 10 and the costs
** cost[w][p]. */
static void note_windows(eng_group *g, uint32_t windows, const double *cost)
{
    for (uint32_t w = 0; w < windows; w++) {
        for (uint32_t p = 0; p < g->n; p++)
            g->horizon[p] = (w + 1) * 10;
        eng_profile_note_(g, cost + (size_t)w * g->n);
    }
}

static void test_independent_partitions_overlap(void **state)
{
    (void)state;
    eng_group *g = group_new(2);
    const double cost[] = {1, 2, 1, 2, 1, 2}; /* per window: A, B */
    note_windows(g, 3, cost);
    assert_true(eng_profile_ahead_(g, 1) == 9);
    assert_true(eng_profile_ahead_(g, 2) == 6); /* B alone */
    assert_true(eng_profile_ahead_(g, 8) == 6);
    group_free(g);
}

static void test_mutual_crossings_go_window_by_window(void **state)
{
    (void)state;
    eng_group *g = group_new(2);
    g->lat[0][1] = g->lat[1][0] = 10; /* one window of lookahead */
    const double cost[] = {3, 1, 1, 3, 3, 1};
    note_windows(g, 3, cost);
    /* Each window waits for both partitions' previous one: 3 + 3 + 3. */
    assert_true(eng_profile_ahead_(g, 2) == 9);
    assert_true(eng_profile_ahead_(g, 1) == 12);
    group_free(g);
}

static void test_source_delays_its_receiver(void **state)
{
    (void)state;
    eng_group *g = group_new(2);
    g->lat[0][1] = 10; /* A -> B only */
    const double cost[] = {5, 1, 1, 1, 1, 1};
    note_windows(g, 3, cost);
    /* A0 [0,5], B0 [0,1]; B1 waits for A0: [5,6]; A1 [5,6], A2 [6,7];
    ** B2 waits for A1: [6,7]. */
    assert_true(eng_profile_ahead_(g, 2) == 7);
    group_free(g);
}

static void test_longer_lookahead_lets_the_receiver_run_ahead(void **state)
{
    (void)state;
    eng_group *g = group_new(2);
    g->lat[0][1] = 30; /* A -> B, three windows of lookahead */
    const double cost[] = {2, 1, 2, 1, 2, 1, 2, 1};
    note_windows(g, 4, cost);
    /* B's window w needs A's first window j with 10 (j + 1) + 30 >=
    ** 10 (w + 1): j = 0 for w <= 3, so B only waits for A0 (done at 2):
    ** B0 [0,1], B1 [2,3], B2 [3,4], B3 [4,5]; A ends at 8. */
    assert_true(eng_profile_ahead_(g, 2) == 8);
    /* Reset: no record, no estimate. */
    eng_profile_reset_(g);
    assert_true(eng_profile_ahead_(g, 2) == 0);
    group_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_independent_partitions_overlap),
        cmocka_unit_test(test_mutual_crossings_go_window_by_window),
        cmocka_unit_test(test_source_delays_its_receiver),
        cmocka_unit_test(test_longer_lookahead_lets_the_receiver_run_ahead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
