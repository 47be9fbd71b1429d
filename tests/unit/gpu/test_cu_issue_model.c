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

#include "config/config.h"
#include "cu_testbed.h"
#include "platform/gpu_build.h"

enum { K = 1000 };

#define S_ADD_U32_S0_S0_1 0x80008100u /* s_add_u32 s0, s0, 1 */

/* Runs the kernel of K copies of inst on `waves` waves in both models and
** checks each one's cycles per instruction: per_inst * K cycles, plus at
** most 2 % and 40 cycles (dispatch, the first fetch, the CP round trip). */
static void check_models(const char *what, uint32_t inst, uint32_t waves,
                         uint64_t gcn_per_inst, uint64_t mgpusim_per_inst)
{
    cu_config cfg;
    cu_config_default(&cfg);
    uint64_t gcn = tb_run_repeated(&cfg, inst, K, waves, 0);
    cfg.issue_mgpusim = true;
    uint64_t mgp = tb_run_repeated(&cfg, inst, K, waves, 0);
    print_message("%s, %u wave(s), %u instructions: gcn %llu cycles, "
                  "mgpusim %llu\n", what, waves, K, (unsigned long long)gcn,
                  (unsigned long long)mgp);
    const uint64_t per[2] = {gcn_per_inst, mgpusim_per_inst};
    const uint64_t t[2] = {gcn, mgp};
    for (int i = 0; i < 2; i++) {
        assert_true(t[i] >= per[i] * K);
        assert_true(t[i] <= per[i] * K + per[i] * K / 50 + 40);
    }
}

/* One wave: GCN 4 cycles per dependent VALU instruction, MGPUSim 5. */
static void test_dependent_valu(void **state)
{
    (void)state;
    check_models("dependent VALU", V_ADD_F32_V5_V5_V5, 1, 4, 5);
}

/* One wave on each SIMD: the SIMDs run side by side in both models (the
** one vector decoder takes one instruction per cycle, enough for 4 waves
** issuing every 5 cycles). */
static void test_independent_waves_four_simds(void **state)
{
    (void)state;
    check_models("VALU", V_ADD_F32_V5_V5_V5, 4, 4, 5);
}

/* Two waves per SIMD. GCN: the SIMD (4 cycles per instruction) is the
** limit, 8 cycles per pair. MGPUSim: the vector decoder, holding the
** second wave's instruction until its SIMD is free, serves one SIMD at a
** time: 2 instructions per SIMD every 5 cycles (decode + 4), 20 cycles for
** a round of the 8 waves. */
static void test_independent_waves_two_per_simd(void **state)
{
    (void)state;
    check_models("VALU", V_ADD_F32_V5_V5_V5, 8, 8, 20);
}

/* Scalar ALU. GCN: a SIMD's turn every 4 cycles, one scalar instruction
** per turn (salu_cycles = 2 is hidden by the turn); 5 waves put two on
** SIMD 0: 8 cycles per instruction there. MGPUSim: 4 cycles per dependent
** instruction (decode, read, execute, write), the one scalar decoder
** taking one per cycle: 5 waves need 5 cycles per round. */
static void test_salu(void **state)
{
    (void)state;
    check_models("scalar ALU", S_ADD_U32_S0_S0_1, 1, 4, 4);
    check_models("scalar ALU", S_ADD_U32_S0_S0_1, 5, 8, 5);
}

/* The key reaches the CU configuration the GPU builder makes. */
static void test_key(void **state)
{
    (void)state;
    mgs_config cfg;
    mgs_config_defaults(&cfg);
    gpu_build_config g;
    gpu_build_config_from(&g, &cfg);
    assert_false(g.cu.issue_mgpusim);
    snprintf(cfg.gpu_issue_model, sizeof cfg.gpu_issue_model, "mgpusim");
    gpu_build_config_from(&g, &cfg);
    assert_true(g.cu.issue_mgpusim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dependent_valu),
        cmocka_unit_test(test_independent_waves_four_simds),
        cmocka_unit_test(test_independent_waves_two_per_simd),
        cmocka_unit_test(test_salu),
        cmocka_unit_test(test_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
