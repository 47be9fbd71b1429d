/*
** The compute unit does not busy-tick while its waves wait for memory
** (src/gpu/cu.c "No busy ticking", docs/cu.md "Not sleeping"), against the
** fixed-latency memory of cu_testbed.h:
**   - a wave whose next load the memory unit refuses (vmcnt at its limit)
**     sleeps until a response retires a load, and the refusals it would
**     have counted on each of its turns are still counted;
**   - a memory unit whose lane is full sends its next request as soon as
**     the lane frees, even when every wave waits at s_waitcnt (nothing
**     else would tick the CU).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cu_testbed.h"

enum { LOADS = 20, LATENCY = 1000 };

#define S_MOV_S0_LOADS (0xbe800080u + LOADS) /* s_mov_b32 s0, LOADS */
#define S_CBRANCH_SCC0_BACK5 0xbf84fffbu     /* s_cbranch_scc0 -5 dwords */

static sim_comp *cu_comp(testbed *tb)
{
    return (sim_comp *)tb->cu; /* sim_comp is cu's first member */
}

/* One wave issues LOADS loads of one line in a loop: the 16th waits
** (vmcnt, lgkmcnt at 15) for the first response, LATENCY cycles. The
** program fits one fetch line (a fetch queued behind the loads in the
** memory's FIFO would stall the wave first). */
static void test_refused_wave_sleeps(void **state)
{
    (void)state;
    static const uint32_t code[] = {
        V_MOV_V0_LIT, (uint32_t)TB_MEM_BASE, V_MOV_V1_0,
        S_MOV_S0_LOADS,
        FLAT_LOAD_V2_V01,      /* loop: */
        S_SUB_U32_S0_S0_1, S_CMP_EQ_U32_S0_0,
        S_CBRANCH_SCC0_BACK5,  /* to loop while s0 != 0 */
        S_WAITCNT_VM0, S_ENDPGM};
    _Static_assert(sizeof code <= 64, "one fetch line");
    const uint32_t n = sizeof code / sizeof code[0];
    cu_config cfg;
    cu_config_default(&cfg);
    testbed tb;
    tb_init(&tb, &cfg, LATENCY);
    tb.mem.inst_latency = 10;
    tb_hand_kernel(&tb, code, n, 8);
    tb_launch(&tb, 64, 64, 0, 0, 0);
    assert_int_equal(tb_run(&tb), MGS_OK);
    assert_int_equal(tb.cp.status[0], MGS_OK);
    assert_int_equal(tb.mem.reads, LOADS);
    uint64_t done = tb.cp.done_cycle[0];
    uint64_t ticks = cu_comp(&tb)->ticks;
    double refused = stat_of(&tb, "stall_vmem_backpressure");
    print_message("%u loads, latency %u: done at cycle %llu, %llu CU ticks, "
                  "%.0f refusals\n", LOADS, LATENCY,
                  (unsigned long long)done, (unsigned long long)ticks,
                  refused);
    /* Two latencies: loads 16..20 wait for the first responses. */
    assert_true(done >= 2 * LATENCY && done <= 2 * LATENCY + 200);
    /* Polling on each turn of the wave's SIMD while it waited took 421
    ** ticks; asleep, the CU ticks only for the issues and the responses
    ** (229). */
    assert_true(ticks < 300);
    /* The wave was refused on each turn of its SIMD from its first refusal
    ** (~cycle 273, the 16th load) until the first response (~cycle 1043):
    ** 192, as counted by the polling CU, though it slept meanwhile. */
    assert_true(refused >= 180 && refused <= 200);
    tb_fini(&tb);
}

/* A 64-lane flat_store_dwordx4 is 16 line requests of 72 B (2 cycles each
** on the 64 B/cycle link); with a lane of one message the memory unit
** finds it full after each send while the wave waits at s_waitcnt. */
static void test_full_lane_wakes_memory_unit(void **state)
{
    (void)state;
    static const uint32_t code[] = {
        V_LSHLREV_V1_4_V0, V_ADD_U32_V1_LIT_V1, (uint32_t)TB_MEM_BASE,
        V_MOV_V2_0, V_MOV_V3_V0, FLAT_STORE_X4_V12_V36, S_WAITCNT_VM0,
        S_ENDPGM};
    enum { LAT = 200, LINES = 16 };
    cu_config cfg;
    cu_config_default(&cfg);
    testbed tb;
    tb_init_lanes(&tb, &cfg, LAT, 1);
    tb.mem.inst_latency = 10;
    tb_hand_kernel(&tb, code, sizeof code / sizeof code[0], 8);
    tb_launch(&tb, 64, 64, 0, 0, 0);
    assert_int_equal(tb_run(&tb), MGS_OK);
    assert_int_equal(tb.cp.status[0], MGS_OK);
    assert_int_equal(tb.mem.writes, LINES);
    for (uint32_t i = 0; i < 64; i++) {
        uint32_t v;
        memcpy(&v, tb_ptr(&tb, TB_MEM_BASE + 16 * i), 4);
        assert_int_equal(v, i);
    }
    /* The requests leave as the lane frees (every 2-3 cycles), so the
    ** stores land within a few cycles of each other, not a latency apart
    ** (each waiting for a response to wake the CU). */
    uint64_t first = tb.mem.first_write[0];
    uint64_t last = tb.mem.first_write[(16 * 63) / 4];
    uint64_t done = tb.cp.done_cycle[0];
    print_message("lane of 1: stores at cycles %llu..%llu, done at %llu\n",
                  (unsigned long long)first, (unsigned long long)last,
                  (unsigned long long)done);
    assert_true(last - first <= 4 * LINES);
    assert_true(done - last <= 20);
    tb_fini(&tb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused_wave_sleeps),
        cmocka_unit_test(test_full_lane_wakes_memory_unit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
