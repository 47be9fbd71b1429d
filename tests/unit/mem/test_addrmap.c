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

/* A burst's lines (dma.c device_burst_fits): one port when every address
** goes to it, NULL otherwise, with the one-unit shortcut agreeing with the
** address-by-address answer. */
static void test_lookup_run(void **state)
{
    (void)state;
    sim_port p[4];
    sim_port *ports[4] = {&p[0], &p[1], &p[2], &p[3]};
    mem_route r;
    mem_route_interleaved(&r, ports, 4, 4096);
    assert_ptr_equal(mem_route_lookup_run(&r, 4096, 64, 64), &p[1]);
    assert_null(mem_route_lookup_run(&r, 4096 + 64, 64, 64)); /* crosses */
    assert_ptr_equal(mem_route_lookup_run(&r, 4096 + 64, 63, 64), &p[1]);
    /* One port: the run may cross units of the same port. */
    mem_route_interleaved(&r, ports, 1, 256);
    assert_ptr_equal(mem_route_lookup_run(&r, 128, 64, 64), &p[0]);
    mem_route_single(&r, &p[2]);
    assert_ptr_equal(mem_route_lookup_run(&r, 0, 64, 1 << 20), &p[2]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_survives_copy),
        cmocka_unit_test(test_interleaved),
        cmocka_unit_test(test_lookup_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
