/* Tests for the driver's PCIe scheduler (src/runtime/pcie_tos.c): the
** TC-to-VC map of round robin (Eq. 4.2), small-first and large-first
** ranking, responses above every request, re-ranking only on a new
** transfer or a finished one, QoOS promotion on a predicted deadline miss
** (Eq. 4.3), and N_VC = 1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "platform/platform.h"
#include "runtime/pcie_tos.h"

#define BW 16000000000ull             /* 16 GB/s: 16 bytes per ns */

static uint32_t rsp_vc(const pcie_tos *s, uint32_t t)
{
    return s->map.vc[2 * t + 1];
}

static uint32_t req_vc(const pcie_tos *s, uint32_t t)
{
    return s->map.vc[2 * t];
}

static void test_round_robin_keeps_eq_4_2(void **state)
{
    (void)state;
    pcie_tos s;
    pcie_tos_init(&s, PLATFORM_PCIE_RR, 8, 4, BW);
    pcie_tos_add(&s, 0, 4096, 0, 0);
    pcie_tos_add(&s, 1, 1024, 0, 0);
    noc_pcie_vcmap m;
    assert_false(pcie_tos_take_map(&s, &m));
    for (uint32_t tc = 0; tc < NOC_PCIE_MAX_TC; tc++)
        assert_int_equal(s.map.vc[tc], tc % 8);
}

static void test_small_first_and_responses_first(void **state)
{
    (void)state;
    pcie_tos s;
    pcie_tos_init(&s, PLATFORM_PCIE_PRIORITY_S, 8, 4, BW);
    pcie_tos_add(&s, 0, 1 << 20, 0, 0);     /* GPU 0: 1 MB */
    pcie_tos_add(&s, 1, 64 << 10, 0, 0);    /* GPU 1: 64 KB: first */
    noc_pcie_vcmap m;
    assert_true(pcie_tos_take_map(&s, &m));
    assert_int_equal(rsp_vc(&s, 1), 7);
    assert_int_equal(rsp_vc(&s, 0), 6);
    assert_int_equal(req_vc(&s, 1), 3);
    assert_int_equal(req_vc(&s, 0), 2);
    /* every response above every request */
    for (uint32_t a = 0; a < 4; a++)
        for (uint32_t b = 0; b < 4; b++)
            assert_true(rsp_vc(&s, a) > req_vc(&s, b));
    assert_false(pcie_tos_take_map(&s, &m));   /* unchanged */
    /* GPU 0 drains below GPU 1: no re-rank until a new transfer */
    pcie_tos_done(&s, 0, (1 << 20) - 1024, 1000);
    assert_false(pcie_tos_take_map(&s, &m));
    pcie_tos_add(&s, 2, 512 << 10, 0, 2000);
    assert_true(pcie_tos_take_map(&s, &m));
    assert_int_equal(rsp_vc(&s, 0), 7);     /* 1 KB left */
    assert_int_equal(rsp_vc(&s, 1), 6);
    assert_int_equal(rsp_vc(&s, 2), 5);
    /* a finished task leaves the list: the others move up */
    pcie_tos_done(&s, 0, 1024, 3000);
    assert_true(pcie_tos_take_map(&s, &m));
    assert_int_equal(rsp_vc(&s, 1), 7);
    assert_int_equal(rsp_vc(&s, 2), 6);
    assert_int_equal(rsp_vc(&s, 0), 4);     /* inactive: lowest */
    assert_int_equal(req_vc(&s, 0), 0);
    assert_int_equal(s.remaps, 4);     /* each add and the finish */
}

static void test_large_first(void **state)
{
    (void)state;
    pcie_tos s;
    pcie_tos_init(&s, PLATFORM_PCIE_PRIORITY_L, 8, 4, BW);
    pcie_tos_add(&s, 0, 1 << 20, 0, 0);
    pcie_tos_add(&s, 1, 64 << 10, 0, 0);
    assert_int_equal(rsp_vc(&s, 0), 7);
    assert_int_equal(rsp_vc(&s, 1), 6);
    /* N_VC = 1: everything in VC 0 */
    pcie_tos_init(&s, PLATFORM_PCIE_PRIORITY_S, 1, 4, BW);
    pcie_tos_add(&s, 0, 1 << 20, 0, 0);
    pcie_tos_add(&s, 1, 64 << 10, 0, 0);
    for (uint32_t tc = 0; tc < 8; tc++)
        assert_int_equal(s.map.vc[tc], 0);
}

static void test_qos_promotion(void **state)
{
    (void)state;
    pcie_tos s;
    pcie_tos_init(&s, PLATFORM_PCIE_QOS, 8, 4, BW);
    /* GPU 0: 1 MB, deadline 3 x 65.536 us from 0; GPU 1 small: first */
    mgs_time alone = (mgs_time)(1 << 20) * 1000 / 16;     /* 65.536 us */
    pcie_tos_add(&s, 0, 1 << 20, 3 * alone, 0);
    pcie_tos_add(&s, 1, 64 << 10, 0, 0);
    assert_int_equal(rsp_vc(&s, 1), 7);
    assert_int_equal(s.promotions, 0);
    /* half done at 2.5 x alone: 32.8 us left would end at 2.5 + 0.5 = 3.0
    ** x alone: still in time */
    pcie_tos_done(&s, 0, 1 << 19, alone * 5 / 2 - 1);
    assert_int_equal(s.promotions, 0);
    /* a little later T_trans = B_R / BW misses it: top priority */
    pcie_tos_done(&s, 0, 1024, alone * 5 / 2 + 100000);
    assert_int_equal(s.promotions, 1);
    assert_int_equal(rsp_vc(&s, 0), 7);
    assert_int_equal(rsp_vc(&s, 1), 6);
    /* the same under priority_s: no promotion */
    pcie_tos_init(&s, PLATFORM_PCIE_PRIORITY_S, 8, 4, BW);
    pcie_tos_add(&s, 0, 1 << 20, 3 * alone, 0);
    pcie_tos_add(&s, 1, 64 << 10, 0, 0);
    pcie_tos_done(&s, 0, 1 << 19, alone * 3);
    assert_int_equal(s.promotions, 0);
    assert_int_equal(rsp_vc(&s, 1), 7);
    /* a transfer already late when it starts is promoted at once */
    pcie_tos_init(&s, PLATFORM_PCIE_QOS, 8, 4, BW);
    pcie_tos_add(&s, 1, 64 << 10, 0, 0);
    pcie_tos_add(&s, 0, 1 << 20, 1000, 0);
    assert_int_equal(s.promotions, 1);
    assert_int_equal(rsp_vc(&s, 0), 7);
    /* it ends: demoted, list empty for it */
    pcie_tos_done(&s, 0, 1 << 20, 5000);
    assert_false(s.promoted[0]);
    assert_int_equal(rsp_vc(&s, 1), 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_robin_keeps_eq_4_2),
        cmocka_unit_test(test_small_first_and_responses_first),
        cmocka_unit_test(test_large_first),
        cmocka_unit_test(test_qos_promotion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
