/*
** Unit parsing and formatting (src/config/units.c): every unit kind, the
** binary/decimal decisions, exactness of decimal mantissas, and the error
** text for bad numbers, bad units, missing units and overflow.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "config/units.h"

static uint64_t parse_ok(mgs_unit_kind k, const char *text)
{
    uint64_t v = 0;
    char why[128] = "";
    int rc = mgs_unit_parse(k, text, &v, why, sizeof why);
    if (rc != 0)
        fail_msg("\"%s\" failed: %s", text, why);
    return v;
}

static void expect_error(mgs_unit_kind k, const char *text, const char *needle)
{
    uint64_t v = 12345;
    char why[128] = "";
    assert_int_equal(mgs_unit_parse(k, text, &v, why, sizeof why), -1);
    assert_int_equal(v, 12345); /* untouched on error */
    if (!strstr(why, needle))
        fail_msg("\"%s\": reason \"%s\" lacks \"%s\"", text, why, needle);
}

static void test_sizes_are_binary(void **state)
{
    (void)state;
    assert_int_equal(parse_ok(MGS_UNIT_SIZE, "64"), 64);
    assert_int_equal(parse_ok(MGS_UNIT_SIZE, "64B"), 64);
    assert_int_equal(parse_ok(MGS_UNIT_SIZE, "16KB"), 16384);
    assert_int_equal(parse_ok(MGS_UNIT_SIZE, "16KiB"), 16384);
    assert_int_equal(parse_ok(MGS_UNIT_SIZE, "16 kb"), 16384);
    assert_int_equal(parse_ok(MGS_UNIT_SIZE, "512MB"), 512ull << 20);
    assert_int_equal(parse_ok(MGS_UNIT_SIZE, "4GB"), 4ull << 30);
    assert_int_equal(parse_ok(MGS_UNIT_SIZE, "1.5KB"), 1536);
    assert_int_equal(parse_ok(MGS_UNIT_SIZE, "2TB"), 2ull << 40);
}

static void test_freq_bw_time(void **state)
{
    (void)state;
    assert_int_equal(parse_ok(MGS_UNIT_FREQ, "1GHz"), 1000000000ull);
    assert_int_equal(parse_ok(MGS_UNIT_FREQ, "1.5GHz"), 1500000000ull);
    assert_int_equal(parse_ok(MGS_UNIT_FREQ, "500 MHz"), 500000000ull);
    assert_int_equal(parse_ok(MGS_UNIT_FREQ, "32kHz"), 32000);
    /* Link rates are decimal; the binary spellings are binary. */
    assert_int_equal(parse_ok(MGS_UNIT_BW, "16GB/s"), 16000000000ull);
    assert_int_equal(parse_ok(MGS_UNIT_BW, "16GiB/s"), 16ull << 30);
    assert_int_equal(parse_ok(MGS_UNIT_BW, "100B/s"), 100);
    assert_int_equal(parse_ok(MGS_UNIT_TIME, "1ms"), 1000000000ull);
    assert_int_equal(parse_ok(MGS_UNIT_TIME, "2.5ns"), 2500);
    assert_int_equal(parse_ok(MGS_UNIT_TIME, "1s"), 1000000000000ull);
    assert_int_equal(parse_ok(MGS_UNIT_TIME, "0"), 0);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error(MGS_UNIT_SIZE, "16QB", "unknown size unit \"QB\"");
    expect_error(MGS_UNIT_SIZE, "16QB", "use B, KB, MB, GB");
    expect_error(MGS_UNIT_SIZE, "", "empty size");
    expect_error(MGS_UNIT_SIZE, "KB", "not a number");
    expect_error(MGS_UNIT_SIZE, "-4KB", "negative");
    expect_error(MGS_UNIT_SIZE, "1.3B", "whole number of B");
    expect_error(MGS_UNIT_SIZE, "1.B", "not a number");
    expect_error(MGS_UNIT_SIZE, "99999999999TB", "too large");
    expect_error(MGS_UNIT_FREQ, "1000", "missing unit");
    expect_error(MGS_UNIT_FREQ, "1GB", "unknown frequency unit");
    expect_error(MGS_UNIT_BW, "16GB", "unknown bandwidth unit \"GB\"");
    expect_error(MGS_UNIT_TIME, "5 cycles", "unknown time unit \"cycles\"");
    expect_error(MGS_UNIT_TIME, "0.0001ps", "whole number of ps");
}

static void test_format_round_trips(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(mgs_unit_format(MGS_UNIT_SIZE, 16384, buf, sizeof buf), "16KB");
    assert_string_equal(mgs_unit_format(MGS_UNIT_SIZE, 1536, buf, sizeof buf), "1536B");
    assert_string_equal(mgs_unit_format(MGS_UNIT_SIZE, 4ull << 30, buf, sizeof buf), "4GB");
    assert_string_equal(mgs_unit_format(MGS_UNIT_FREQ, 1000000000, buf, sizeof buf), "1GHz");
    assert_string_equal(mgs_unit_format(MGS_UNIT_FREQ, 1500000000, buf, sizeof buf), "1500MHz");
    assert_string_equal(mgs_unit_format(MGS_UNIT_BW, 16000000000ull, buf, sizeof buf), "16GB/s");
    assert_string_equal(mgs_unit_format(MGS_UNIT_TIME, 0, buf, sizeof buf), "0ps");
    assert_string_equal(mgs_unit_format(MGS_UNIT_TIME, 2500, buf, sizeof buf), "2500ps");
    static const uint64_t vals[] = {1, 1023, 1024, 3ull << 20, 1000, 999999, 123456789012ull};
    for (int k = MGS_UNIT_SIZE; k <= MGS_UNIT_TIME; k++)
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
            mgs_unit_format((mgs_unit_kind)k, vals[i], buf, sizeof buf);
            assert_int_equal(parse_ok((mgs_unit_kind)k, buf), vals[i]);
        }
}

static void test_plain_numbers_and_bools(void **state)
{
    (void)state;
    int64_t i;
    uint64_t u;
    bool b;
    char why[128];
    assert_int_equal(mgs_parse_int64("-42", &i, why, sizeof why), 0);
    assert_int_equal(i, -42);
    assert_int_equal(mgs_parse_int64("4x", &i, why, sizeof why), -1);
    assert_int_equal(mgs_parse_int64("", &i, why, sizeof why), -1);
    assert_int_equal(mgs_parse_int64("99999999999999999999", &i, why, sizeof why), -1);
    assert_int_equal(mgs_parse_uint64("18446744073709551615", &u, why, sizeof why), 0);
    assert_true(u == UINT64_MAX);
    assert_int_equal(mgs_parse_uint64("-1", &u, why, sizeof why), -1);
    assert_non_null(strstr(why, "negative"));
    assert_int_equal(mgs_parse_bool("Yes", &b, why, sizeof why), 0);
    assert_true(b);
    assert_int_equal(mgs_parse_bool("off", &b, why, sizeof why), 0);
    assert_false(b);
    assert_int_equal(mgs_parse_bool("maybe", &b, why, sizeof why), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_are_binary),
        cmocka_unit_test(test_freq_bw_time),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_format_round_trips),
        cmocka_unit_test(test_plain_numbers_and_bools),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
