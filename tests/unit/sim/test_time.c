/* Tests for src/sim/time.h: period/frequency conversion and clock edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim/time.h"

static void test_period_frequency(void **state)
{
    (void)state;
    assert_int_equal(mgs_period_from_hz(1000000000ULL), 1000);
    assert_int_equal(mgs_period_from_hz(1600000000ULL), 625);
    assert_int_equal(mgs_period_from_hz(1500000000ULL), 667); /* rounded */
    assert_int_equal(mgs_period_from_hz(MGS_PS_PER_S), 1);
    assert_int_equal(mgs_hz_from_period(1000), 1000000000ULL);
    assert_int_equal(mgs_hz_from_period(667), 1499250375ULL);
    assert_int_equal(mgs_cycles(7, 625), 4375);
    assert_int_equal(mgs_cycle_of(4374, 625), 6);
}

static void test_edges(void **state)
{
    (void)state;
    assert_int_equal(mgs_edge_at_or_after(0, 1000), 0);
    assert_int_equal(mgs_edge_at_or_after(1, 1000), 1000);
    assert_int_equal(mgs_edge_at_or_after(2000, 1000), 2000);
    assert_int_equal(mgs_edge_after(0, 1000), 1000);
    assert_int_equal(mgs_edge_after(1999, 1000), 2000);
    assert_int_equal(mgs_edge_after(2000, 1000), 3000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_period_frequency),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
