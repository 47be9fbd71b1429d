/*
** The full-EXEC VOP1/VOP2 fast path of src/gcn3/exec_valu.c, cross-checked
** against the generic fetch / compute / writeback path: every fast-path
** operation runs once as VOP1/VOP2 (fast path) and once as the same
** operation in VOP3 encoding without modifiers (generic path) on identical
** random state, with src0 a VGPR, the destination itself, an SGPR, an
** inline constant and a literal; all VGPRs and vcc must agree bit for bit
** (NaN payloads aside). Likewise the VOP3 64-bit fast path.
** Also: operations outside the fast path, partial EXEC and a VGPR outside
** the allocation still take (and are reported by) the generic path.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "test_exec_valu_util.h"

static test_wave fast_w, ref_w;
static uint64_t rng;

static uint32_t rnd32(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)(z ^ (z >> 31));
}

/* Random registers: a mix of raw bits, small integers (carries, shift
** counts) and ordinary floats, identical in both waves. */
static void random_state(uint64_t seed)
{
    rng = seed;
    tw_init(&fast_w);
    for (size_t i = 0; i < TW_NVGPR * GCN_WAVE_LANES; i++) {
        uint32_t r = rnd32();
        switch (r & 3) {
        case 0: fast_w.regs[i] = rnd32(); break;
        case 1: fast_w.regs[i] = rnd32() % 70; break;
        case 2: fast_w.regs[i] = 0xffffffffu - rnd32() % 4; break;
        default: {
            float f = (float)(int32_t)(rnd32() % 20001 - 10000) / 64.0f;
            memcpy(&fast_w.regs[i], &f, 4);
        }
        }
    }
    for (int i = 0; i < 102; i++)
        fast_w.w.sgpr[i] = rnd32();
    fast_w.w.vcc = (uint64_t)rnd32() << 32 | rnd32();
    ref_w = fast_w;
    ref_w.w.vgpr = ref_w.regs;
}

static bool is_nan_bits(uint32_t u)
{
    return (u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu);
}

/* floats: which NaN an operation with two NaN inputs returns is up to the
** compiler's operand order (C leaves NaN payloads unspecified, and so does
** the model), so any NaN matches any NaN. */
static void assert_same_state(const char *what, bool floats)
{
    for (size_t i = 0; i < TW_NVGPR * GCN_WAVE_LANES; i++)
        if (fast_w.regs[i] != ref_w.regs[i] &&
            !(floats && is_nan_bits(fast_w.regs[i]) &&
              is_nan_bits(ref_w.regs[i])))
            fail_msg("%s: v%zu lane %zu: fast 0x%08x, generic 0x%08x", what,
                     i / GCN_WAVE_LANES, i % GCN_WAVE_LANES, fast_w.regs[i],
                     ref_w.regs[i]);
    if (fast_w.w.vcc != ref_w.w.vcc)
        fail_msg("%s: vcc fast 0x%016llx, generic 0x%016llx", what,
                 (unsigned long long)fast_w.w.vcc,
                 (unsigned long long)ref_w.w.vcc);
}

static const gcn_op vop2_ops[] = {
    GCN_OP_V_MAC_F32, GCN_OP_V_ADD_F32, GCN_OP_V_SUB_F32,
    GCN_OP_V_SUBREV_F32, GCN_OP_V_MUL_F32, GCN_OP_V_AND_B32,
    GCN_OP_V_OR_B32, GCN_OP_V_XOR_B32, GCN_OP_V_LSHLREV_B32,
    GCN_OP_V_LSHRREV_B32, GCN_OP_V_ASHRREV_I32, GCN_OP_V_ADD_U32,
    GCN_OP_V_SUB_U32, GCN_OP_V_SUBREV_U32, GCN_OP_V_ADDC_U32,
    GCN_OP_V_CNDMASK_B32,
};

static bool is_float_op(gcn_op op)
{
    return op == GCN_OP_V_MAC_F32 || op == GCN_OP_V_ADD_F32 ||
           op == GCN_OP_V_SUB_F32 || op == GCN_OP_V_SUBREV_F32 ||
           op == GCN_OP_V_MUL_F32;
}

static bool writes_carry(gcn_op op)
{
    return op == GCN_OP_V_ADD_U32 || op == GCN_OP_V_SUB_U32 ||
           op == GCN_OP_V_SUBREV_U32 || op == GCN_OP_V_ADDC_U32;
}

/* src0 kinds: VGPR, the destination VGPR, SGPR, inline integer, inline
** float, literal. */
static unsigned src0_code(int kind)
{
    switch (kind) {
    case 0: return V(3);
    case 1: return V(5);
    case 2: return 17;                      /* s17 */
    case 3: return GCN_OPR_ZERO + 7;        /* 7 */
    case 4: return GCN_OPR_F_HALF + 4;      /* 2.0 */
    default: return GCN_OPR_LITERAL;
    }
}

static void test_vop2_matches_generic(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof vop2_ops / sizeof vop2_ops[0]; k++)
        for (int kind = 0; kind < 6; kind++) {
            gcn_op op = vop2_ops[k];
            random_state(17 * k + (uint64_t)kind);
            gcn_inst f = tw_inst(op, GCN_FMT_VOP2, V(5), src0_code(kind),
                                 V(4), 0);
            f.literal = 0x40490fdbu;   /* pi */
            gcn_fmt fmt3 = writes_carry(op) ? GCN_FMT_VOP3B : GCN_FMT_VOP3A;
            gcn_inst g = tw_inst(op, fmt3, V(5), src0_code(kind), V(4),
                                 op == GCN_OP_V_ADDC_U32 ||
                                         op == GCN_OP_V_CNDMASK_B32
                                     ? GCN_OPR_VCC_LO : 0);
            g.literal = f.literal;
            g.sdst = GCN_OPR_VCC_LO;
            assert_int_equal(tw_run(&fast_w, &f), MGS_OK);
            assert_int_equal(tw_run(&ref_w, &g), MGS_OK);
            char what[64];
            snprintf(what, sizeof what, "%s src0 kind %d",
                     gcn_op_table[op].mnemonic, kind);
            assert_same_state(what, is_float_op(op));
        }
}

static void test_vop1_mov_matches_generic(void **state)
{
    (void)state;
    for (int kind = 0; kind < 6; kind++) {
        random_state(900 + (uint64_t)kind);
        gcn_inst f = tw_inst(GCN_OP_V_MOV_B32, GCN_FMT_VOP1, V(5),
                             src0_code(kind), 0, 0);
        f.literal = 0xdeadbeefu;
        gcn_inst g = f;
        g.fmt = GCN_FMT_VOP3A;
        assert_int_equal(tw_run(&fast_w, &f), MGS_OK);
        assert_int_equal(tw_run(&ref_w, &g), MGS_OK);
        assert_same_state("v_mov_b32", false);
    }
    /* concrete values, so a shared bug in both paths cannot hide */
    random_state(1);
    gcn_inst lit = tw_inst(GCN_OP_V_MOV_B32, GCN_FMT_VOP1, V(9),
                           GCN_OPR_LITERAL, 0, 0);
    lit.literal = 0x12345678u;
    assert_int_equal(tw_run(&fast_w, &lit), MGS_OK);
    assert_int_equal(tw_v(&fast_w, 9)[63], 0x12345678u);
}

/* VOP3 v_lshlrev_b64 (scalar count) and v_mad_u64_u32 take a fast path
** too. Setting an abs bit sends the same instruction down the generic
** path without changing its meaning: integer sources ignore abs. */
static void test_vop3_64bit_matches_generic(void **state)
{
    (void)state;
    static const unsigned counts[] = {GCN_OPR_ZERO, GCN_OPR_ZERO + 2,
                                      GCN_OPR_ZERO + 31, GCN_OPR_ZERO + 32,
                                      GCN_OPR_ZERO + 45, 17};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        for (int same = 0; same < 2; same++) {
            random_state(300 + 2 * k + (uint64_t)same);
            /* same: v[12:13] <<= n in place, as compiled code does */
            unsigned src = same ? V(12) : V(6);
            gcn_inst f = tw_inst(GCN_OP_V_LSHLREV_B64, GCN_FMT_VOP3A, V(12),
                                 counts[k], src, 0);
            gcn_inst g = f;
            g.abs = 1;
            assert_int_equal(tw_run(&fast_w, &f), MGS_OK);
            assert_int_equal(tw_run(&ref_w, &g), MGS_OK);
            assert_same_state("v_lshlrev_b64", false);
        }
    static const unsigned s0[] = {V(3), 17, GCN_OPR_ZERO + 9, V(14)};
    static const unsigned s2[] = {V(2), GCN_OPR_ZERO, 20, V(14)};
    for (size_t k = 0; k < 4; k++) {
        random_state(400 + k);
        gcn_inst f = tw_inst(GCN_OP_V_MAD_U64_U32, GCN_FMT_VOP3B, V(14),
                             s0[k], V(14), s2[k]);
        f.sdst = k & 1 ? GCN_OPR_VCC_LO : 10;
        gcn_inst g = f;
        g.abs = 4;
        assert_int_equal(tw_run(&fast_w, &f), MGS_OK);
        assert_int_equal(tw_run(&ref_w, &g), MGS_OK);
        assert_same_state("v_mad_u64_u32", false);
        assert_int_equal(fast_w.w.sgpr[10], ref_w.w.sgpr[10]);
        assert_int_equal(fast_w.w.sgpr[11], ref_w.w.sgpr[11]);
    }
    /* known answer: (2^32 - 1) * 2 + (2^64 - 1) carries out */
    tw_init(&fast_w);
    for (int l = 0; l < 64; l++) {
        tw_v(&fast_w, 1)[l] = 0xffffffffu;
        tw_set64(&fast_w, 2, l, l < 32 ? ~0ull : 5);
    }
    gcn_inst m = tw_inst(GCN_OP_V_MAD_U64_U32, GCN_FMT_VOP3B, V(4), V(1),
                         GCN_OPR_ZERO + 2, V(2));
    m.sdst = GCN_OPR_VCC_LO;
    assert_int_equal(tw_run(&fast_w, &m), MGS_OK);
    assert_int_equal(fast_w.w.vcc, 0xffffffffull);
    assert_true(tw_v64(&fast_w, 4, 0) == 0x1fffffffdull);
    assert_true(tw_v64(&fast_w, 4, 40) == 0x200000003ull);
}

/* Known answers through the fast path. */
static void test_fast_known_values(void **state)
{
    (void)state;
    tw_init(&fast_w);
    for (int l = 0; l < 64; l++) {
        tw_v(&fast_w, 1)[l] = l == 2 ? 0xffffffffu : (uint32_t)l;
        tw_v(&fast_w, 2)[l] = 1;
        float x = 1.5f, acc = (float)l;
        memcpy(&tw_v(&fast_w, 3)[l], &x, 4);
        memcpy(&tw_v(&fast_w, 4)[l], &acc, 4);
    }
    gcn_inst add = tw_inst(GCN_OP_V_ADD_U32, GCN_FMT_VOP2, V(6), V(1), V(2),
                           0);
    assert_int_equal(tw_run(&fast_w, &add), MGS_OK);
    assert_int_equal(tw_v(&fast_w, 6)[2], 0);
    assert_int_equal(tw_v(&fast_w, 6)[10], 11);
    assert_int_equal(fast_w.w.vcc, 1ull << 2);
    gcn_inst addc = tw_inst(GCN_OP_V_ADDC_U32, GCN_FMT_VOP2, V(7),
                            GCN_OPR_ZERO, V(2), 0);
    assert_int_equal(tw_run(&fast_w, &addc), MGS_OK);
    assert_int_equal(tw_v(&fast_w, 7)[2], 2);
    assert_int_equal(tw_v(&fast_w, 7)[3], 1);
    assert_int_equal(fast_w.w.vcc, 0);
    /* v_mac_f32 v4, 2.0, v3: acc + 3.0 */
    gcn_inst mac = tw_inst(GCN_OP_V_MAC_F32, GCN_FMT_VOP2, V(4),
                           GCN_OPR_F_HALF + 4, V(3), 0);
    assert_int_equal(tw_run(&fast_w, &mac), MGS_OK);
    float got;
    memcpy(&got, &tw_v(&fast_w, 4)[5], 4);
    assert_true(got == 8.0f);
}

/* Cases the fast path must leave to the generic one. */
static void test_fast_path_boundaries(void **state)
{
    (void)state;
    /* partial EXEC: inactive lanes keep their value */
    random_state(5);
    fast_w.w.exec = 0xffffffff0000ffffull;
    uint32_t keep = tw_v(&fast_w, 5)[20];
    gcn_inst f = tw_inst(GCN_OP_V_AND_B32, GCN_FMT_VOP2, V(5), V(3), V(4),
                         0);
    assert_int_equal(tw_run(&fast_w, &f), MGS_OK);
    assert_int_equal(tw_v(&fast_w, 5)[20], keep);
    assert_int_equal(tw_v(&fast_w, 5)[40],
                     tw_v(&fast_w, 3)[40] & tw_v(&fast_w, 4)[40]);
    /* a VGPR outside the allocation: the generic path's error */
    random_state(6);
    fast_w.w.nvgpr = 8;
    gcn_inst bad = tw_inst(GCN_OP_V_ADD_F32, GCN_FMT_VOP2, V(9), V(1), V(2),
                           0);
    assert_int_equal(tw_run(&fast_w, &bad), MGS_ESIM);
    assert_non_null(strstr(mgs_error_msg(), "v9"));
    gcn_inst bad0 = tw_inst(GCN_OP_V_MOV_B32, GCN_FMT_VOP1, V(1), V(8), 0, 0);
    assert_int_equal(tw_run(&fast_w, &bad0), MGS_ESIM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vop2_matches_generic),
        cmocka_unit_test(test_vop1_mov_matches_generic),
        cmocka_unit_test(test_vop3_64bit_matches_generic),
        cmocka_unit_test(test_fast_known_values),
        cmocka_unit_test(test_fast_path_boundaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
