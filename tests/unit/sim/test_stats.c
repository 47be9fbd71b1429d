/* Tests for src/sim/stats.c: counters, histograms, time-weighted averages,
** values, row order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim/stats.h"

typedef struct rows {
    char text[64][96];
    int n;
} rows;

static void collect(const stat_row *row, void *ud)
{
    rows *r = ud;
    assert_true(r->n < 64);
    snprintf(r->text[r->n++], 96, "%s|%s|%g|%s", row->component, row->metric,
             row->value, row->unit);
}

static void test_rows_in_registration_order(void **state)
{
    (void)state;
    stat_registry *r = stat_registry_new();
    stat_counter *b = stat_counter_add(r, "GPU[0].L2[1]", "misses", "count");
    stat_counter *a = stat_counter_add(r, "GPU[0].L2[0]", "hits", "count");
    stat_value_add(r, "GPU[0]", "kernel_time", 1234.5, "ps");
    stat_inc(a);
    stat_inc(a);
    stat_addn(b, 40);
    rows out = {0};
    assert_int_equal(stat_registry_foreach(r, 0, collect, &out), 3);
    assert_string_equal(out.text[0], "GPU[0].L2[1]|misses|40|count");
    assert_string_equal(out.text[1], "GPU[0].L2[0]|hits|2|count");
    assert_string_equal(out.text[2], "GPU[0]|kernel_time|1234.5|ps");
    stat_registry_free(r);
}

static void test_histogram_rows(void **state)
{
    (void)state;
    stat_registry *r = stat_registry_new();
    stat_hist *h = stat_hist_add(r, "C", "lat", "cycles");
    const uint64_t samples[] = {0, 1, 2, 3, 4, 100};
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++)
        stat_hist_sample(h, samples[i]);
    stat_hist_sample(h, UINT64_MAX / 2); /* lands in the last bucket */
    rows out = {0};
    size_t n = stat_registry_foreach(r, 0, collect, &out);
    assert_int_equal(n, 3 + 6);
    assert_string_equal(out.text[0], "C|lat.count|7|count");
    assert_string_equal(out.text[2], "C|lat.max|9.22337e+18|cycles");
    assert_string_equal(out.text[3], "C|lat.le_0|1|count");
    assert_string_equal(out.text[4], "C|lat.le_1|1|count");
    assert_string_equal(out.text[5], "C|lat.le_3|2|count");
    assert_string_equal(out.text[6], "C|lat.le_7|1|count");
    assert_string_equal(out.text[7], "C|lat.le_127|1|count");
    assert_string_equal(out.text[8], "C|lat.le_inf|1|count");
    assert_int_equal(h->sum, 110 + UINT64_MAX / 2);
    stat_registry_free(r);

    r = stat_registry_new();
    h = stat_hist_add(r, "C", "lat", "ps");
    stat_hist_sample(h, 10);
    stat_hist_sample(h, 20);
    rows out2 = {0};
    stat_registry_foreach(r, 0, collect, &out2);
    assert_string_equal(out2.text[1], "C|lat.mean|15|ps");
    stat_registry_free(r);
}

static void test_time_weighted_average(void **state)
{
    (void)state;
    stat_registry *r = stat_registry_new();
    stat_tavg *t = stat_tavg_add(r, "Q", "occupancy", "entries", 1000);
    stat_tavg_set(t, 1000, 4);  /* 4 for 1000 ps */
    stat_tavg_set(t, 2000, 0);  /* 0 for 2000 ps */
    stat_tavg_set(t, 4000, 2);  /* 2 until now = 5000 */
    rows out = {0};
    assert_int_equal(stat_registry_foreach(r, 5000, collect, &out), 2);
    /* (4*1000 + 0*2000 + 2*1000) / 4000 = 1.5 */
    assert_string_equal(out.text[0], "Q|occupancy.avg|1.5|entries");
    assert_string_equal(out.text[1], "Q|occupancy.max|4|entries");
    stat_registry_free(r);
}

static void test_names_are_copied(void **state)
{
    (void)state;
    stat_registry *r = stat_registry_new();
    char comp[16] = "A[0]";
    stat_counter_add(r, comp, "x", "count");
    strcpy(comp, "garbage");
    rows out = {0};
    stat_registry_foreach(r, 0, collect, &out);
    assert_string_equal(out.text[0], "A[0]|x|0|count");
    stat_registry_free(r);
    stat_registry_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_in_registration_order),
        cmocka_unit_test(test_histogram_rows),
        cmocka_unit_test(test_time_weighted_average),
        cmocka_unit_test(test_names_are_copied),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
