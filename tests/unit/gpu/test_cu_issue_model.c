/*
** The two issue models of the compute unit (gpu.issue_model, docs/cu.md
** "Issue models"), on microbenchmark kernels against the fixed-latency
** memory of cu_testbed.h. Each kernel is K instructions and s_endpgm; the
** time per instruction is the issue interval of one wave (a dependent
** chain) or of the CU (independent waves):
**   - gcn: a dependent VALU instruction every 4 cycles (a SIMD's turn every
**     4 cycles, the 4-cycle VALU), the four SIMDs side by side, one
**     instruction per unit type and turn;
**   - mgpusim (MGPUSim v4.0.0): a wave is ready again only after decode and
**     the SIMD's 4 cycles, a VALU instruction every 5 cycles; a scalar one
**     every 4 (decode, read, execute, write); one vector decoder for the CU,
**     which waits for a busy SIMD.
** Each test runs both models and asserts each one's cycle count, so the
** option cannot silently do nothing.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cu_testbed.h"

enum { K = 1000 };

#define S_ADD_U32_S0_S0_1 0x80008100u /* s_add_u32 s0, s0, 1 */

/* Cycles until the work-group of `waves` waves running K copies of `inst`
** finishes. */
static uint64_t run_kernel(uint32_t inst, uint32_t waves, bool mgpusim)
{
    static uint32_t code[K + 1];
    for (uint32_t i = 0; i < K; i++)
        code[i] = inst;
    code[K] = S_ENDPGM;
    cu_config cfg;
    cu_config_default(&cfg);
    cfg.issue_mgpusim = mgpusim;
    testbed tb;
    tb_init(&tb, &cfg, 2);
    tb_hand_kernel(&tb, code, K + 1, 8);
    tb_launch(&tb, 64 * waves, 64 * waves, 0, 0, 0);
    assert_int_equal(tb_run(&tb), MGS_OK);
    assert_int_equal(tb.cp.done, 1);
    assert_int_equal(tb.cp.status[0], MGS_OK);
    assert_int_equal(tb.cp.wf_insts, (uint64_t)(K + 1) * waves);
    uint64_t cycles = tb.cp.done_cycle[0];
    tb_fini(&tb);
    return cycles;
}

/* t is per_inst * K cycles, plus at most 2 % and 40 cycles (dispatch, the
** first fetch, the CP round trip). */
static void assert_per_inst(uint64_t t, uint64_t per_inst)
{
    assert_true(t >= per_inst * K);
    assert_true(t <= per_inst * K + per_inst * K / 50 + 40);
}

static void test_dependent_valu(void **state)
{
    (void)state;
    uint64_t gcn = run_kernel(V_ADD_F32_V5_V5_V5, 1, false);
    uint64_t mgp = run_kernel(V_ADD_F32_V5_V5_V5, 1, true);
    print_message("dependent VALU, 1 wave: gcn %llu, mgpusim %llu cycles "
                  "for %u\n", (unsigned long long)gcn,
                  (unsigned long long)mgp, K);
    assert_per_inst(gcn, 4);
    assert_per_inst(mgp, 5);
}

/* One wave on each SIMD: the SIMDs run side by side in both models (the
** one vector decoder takes one instruction per cycle, enough for 4 waves
** issuing every 5 cycles). */
static void test_independent_waves_four_simds(void **state)
{
    (void)state;
    uint64_t gcn = run_kernel(V_ADD_F32_V5_V5_V5, 4, false);
    uint64_t mgp = run_kernel(V_ADD_F32_V5_V5_V5, 4, true);
    print_message("VALU, 4 waves on 4 SIMDs: gcn %llu, mgpusim %llu\n",
                  (unsigned long long)gcn, (unsigned long long)mgp);
    assert_per_inst(gcn, 4);
    assert_per_inst(mgp, 5);
}

/* Two waves per SIMD. GCN: the SIMD (4 cycles per instruction) is the
** limit, 8 cycles per pair. MGPUSim: the vector decoder, holding the
** second wave's instruction until its SIMD is free, serves one SIMD at a
** time: 2 instructions per SIMD every 5 cycles (decode + 4), 20 cycles for
** a round of the 8 waves. */
static void test_independent_waves_two_per_simd(void **state)
{
    (void)state;
    uint64_t gcn = run_kernel(V_ADD_F32_V5_V5_V5, 8, false);
    uint64_t mgp = run_kernel(V_ADD_F32_V5_V5_V5, 8, true);
    print_message("VALU, 8 waves on 4 SIMDs: gcn %llu, mgpusim %llu\n",
                  (unsigned long long)gcn, (unsigned long long)mgp);
    assert_per_inst(gcn, 8);
    assert_per_inst(mgp, 20);
}

/* Scalar ALU. GCN: a SIMD's turn every 4 cycles, one scalar instruction
** per turn (salu_cycles = 2 is hidden by the turn); 5 waves put two on
** SIMD 0: 8 cycles per instruction there. MGPUSim: 4 cycles per dependent
** instruction (decode, read, execute, write), the one scalar decoder
** taking one per cycle: 5 waves need 5 cycles per round. */
static void test_salu(void **state)
{
    (void)state;
    uint64_t gcn1 = run_kernel(S_ADD_U32_S0_S0_1, 1, false);
    uint64_t mgp1 = run_kernel(S_ADD_U32_S0_S0_1, 1, true);
    uint64_t gcn5 = run_kernel(S_ADD_U32_S0_S0_1, 5, false);
    uint64_t mgp5 = run_kernel(S_ADD_U32_S0_S0_1, 5, true);
    print_message("scalar ALU: 1 wave gcn %llu, mgpusim %llu; 5 waves gcn "
                  "%llu, mgpusim %llu\n", (unsigned long long)gcn1,
                  (unsigned long long)mgp1, (unsigned long long)gcn5,
                  (unsigned long long)mgp5);
    assert_per_inst(gcn1, 4);
    assert_per_inst(mgp1, 4);
    assert_per_inst(gcn5, 8);
    assert_per_inst(mgp5, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dependent_valu),
        cmocka_unit_test(test_independent_waves_four_simds),
        cmocka_unit_test(test_independent_waves_two_per_simd),
        cmocka_unit_test(test_salu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
