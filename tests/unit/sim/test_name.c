/* Tests for src/sim/name.c: building, validating and splitting names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/name.h"

static void test_build_hierarchy(void **state)
{
    (void)state;
    char *gpu = name_new(NULL, "GPU", 1);
    char *sa = name_new(gpu, "SA", 3);
    char *l1 = name_new(sa, "L1V", 2);
    char *cp = name_new(gpu, "CP", -1);
    assert_string_equal(gpu, "GPU[1]");
    assert_string_equal(l1, "GPU[1].SA[3].L1V[2]");
    assert_string_equal(cp, "GPU[1].CP");
    assert_true(name_valid(l1));
    assert_string_equal(name_leaf(l1), "L1V[2]");
    assert_string_equal(name_leaf(gpu), "GPU[1]");
    assert_int_equal(name_depth(l1), 3);
    assert_int_equal(name_depth(""), 0);
    free(gpu); free(sa); free(l1); free(cp);
}

static void test_build_truncates_safely(void **state)
{
    (void)state;
    char buf[8];
    size_t need = name_build(buf, sizeof buf, "GPU[1]", "L2", 12);
    assert_int_equal(need, strlen("GPU[1].L2[12]"));
    assert_string_equal(buf, "GPU[1].");
    assert_int_equal(name_build(buf, sizeof buf, "", "X", -1), 1);
    assert_string_equal(buf, "X");
}

static void test_valid_and_invalid(void **state)
{
    (void)state;
    assert_true(name_valid("A"));
    assert_true(name_valid("_x9.Y[0]"));
    assert_false(name_valid(""));
    assert_false(name_valid(NULL));
    assert_false(name_valid("GPU[1]."));
    assert_false(name_valid(".GPU"));
    assert_false(name_valid("GPU[]"));
    assert_false(name_valid("GPU[1"));
    assert_false(name_valid("GPU[a]"));
    assert_false(name_valid("9GPU"));
    assert_false(name_valid("GPU[1]x"));
    assert_false(name_valid("a b"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_hierarchy),
        cmocka_unit_test(test_build_truncates_safely),
        cmocka_unit_test(test_valid_and_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
