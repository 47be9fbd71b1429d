/* Tests for src/mem/addrmap.c: single and interleaved routes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mem/memmsg.h"

static void test_single_survives_copy(void **state)
{
    (void)state;
    sim_port a;
    mem_route r, copy;
    mem_route_single(&r, &a);
    copy = r;
    r.single = NULL; /* the copy must not depend on the original */
    assert_ptr_equal(mem_route_lookup(&copy, 0), &a);
    assert_ptr_equal(mem_route_lookup(&copy, 0xffffffffffull), &a);
}

static void test_interleaved(void **state)
{
    (void)state;
    sim_port p[4];
    sim_port *ports[4] = {&p[0], &p[1], &p[2], &p[3]};
    mem_route r;
    mem_route_interleaved(&r, ports, 4, 128);
    assert_ptr_equal(mem_route_lookup(&r, 0), &p[0]);
    assert_ptr_equal(mem_route_lookup(&r, 127), &p[0]);
    assert_ptr_equal(mem_route_lookup(&r, 128), &p[1]);
    assert_ptr_equal(mem_route_lookup(&r, 3 * 128 + 5), &p[3]);
    assert_ptr_equal(mem_route_lookup(&r, 4 * 128), &p[0]);
    assert_ptr_equal(mem_route_lookup(&r, 4096 + 2 * 128), &p[2]);
    /* Non-power-of-two bank counts work too. */
    mem_route_interleaved(&r, ports, 3, 64);
    assert_ptr_equal(mem_route_lookup(&r, 64 * 3), &p[0]);
    assert_ptr_equal(mem_route_lookup(&r, 64 * 5), &p[2]);
}

/* A DMA burst's device runs (dma.c device_run): how many lines from the
** first go to its port, with the unit-by-unit shortcut agreeing with the
** line-by-line answer. */
static void test_run_length(void **state)
{
    (void)state;
    sim_port p[4];
    sim_port *ports[4] = {&p[0], &p[1], &p[2], &p[3]};
    mem_route r;
    mem_route_interleaved(&r, ports, 4, 4096);
    assert_int_equal(mem_route_run_length(&r, 4096, 64, 64), 64);
    assert_int_equal(mem_route_run_length(&r, 4096, 128, 64), 64);
    assert_int_equal(mem_route_run_length(&r, 4096 + 64, 64, 64), 63);
    assert_int_equal(mem_route_run_length(&r, 4096 + 64, 10, 64), 10);
    assert_int_equal(mem_route_run_length(&r, 2048, 64, 64), 32);
    assert_int_equal(mem_route_run_length(&r, 4095, 3, 64), 1);
    assert_int_equal(mem_route_run_length(&r, 0, 1, 64), 1);
    /* The shortcut against the definition, at every line of two units. */
    for (uint64_t a = 0; a < 2 * 4096; a += 64)
        for (uint32_t n = 1; n <= 130; n += 43) {
            uint32_t k = 1;
            while (k < n && mem_route_lookup(&r, a + k * 64) ==
                                mem_route_lookup(&r, a))
                k++;
            assert_int_equal(mem_route_run_length(&r, a, n, 64), k);
        }
    /* One port: the run crosses units of the same port. */
    mem_route_interleaved(&r, ports, 1, 256);
    assert_int_equal(mem_route_run_length(&r, 128, 64, 64), 64);
    /* Three ports, 256-byte units: the next unit of the same port is
    ** three units on. */
    mem_route_interleaved(&r, ports, 3, 256);
    assert_int_equal(mem_route_run_length(&r, 0, 64, 64), 4);
    mem_route_single(&r, &p[2]);
    assert_int_equal(mem_route_run_length(&r, 0, 64, 1 << 20), 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_survives_copy),
        cmocka_unit_test(test_interleaved),
        cmocka_unit_test(test_run_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
