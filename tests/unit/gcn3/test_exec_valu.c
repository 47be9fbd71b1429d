/*
** Tests for the VALU framework and integer semantics (src/gcn3/exec_valu.c,
** exec_valu_int.c, exec_valu_cmp.c): EXEC masking, carry chains, compares
** and cmpx, scalar/constant sources, SDWA, DPP, cross-lane ops and the
** integer opcode families, checked against host C per lane. Several cases
** run real encodings produced by `llvm-mc -arch=amdgcn -mcpu=gfx803
** -show-encoding` through gcn_decode, so decoder and executor conventions
** are checked together.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gcn3/decode.h"
#include "test_exec_valu_util.h"

static uint64_t seed = 0x9E3779B97F4A7C15ull;

static void fill_random(test_wave *t, unsigned r)
{
    for (int l = 0; l < 64; l++)
        tw_v(t, r)[l] = (uint32_t)tw_rand(&seed);
}

/* Decodes one llvm-mc encoding (8 or 12 bytes given). */
static gcn_inst decode(const uint8_t *bytes, size_t n)
{
    gcn_inst in;
    int rc = gcn_decode(bytes, n, &in);
    assert_true(rc > 0);
    return in;
}

static void test_add_u32_full_exec(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    fill_random(&t, 2);
    fill_random(&t, 3);
    tw_v(&t, 2)[5] = 0xffffffffu;   /* force a carry in lane 5 */
    tw_v(&t, 3)[5] = 1;
    gcn_inst in = tw_inst(GCN_OP_V_ADD_U32, GCN_FMT_VOP2, V(1), V(2), V(3), 0);
    assert_int_equal(tw_run(&t, &in), MGS_OK);
    uint64_t carry = 0;
    for (int l = 0; l < 64; l++) {
        uint64_t s = (uint64_t)tw_v(&t, 2)[l] + tw_v(&t, 3)[l];
        assert_int_equal(tw_v(&t, 1)[l], (uint32_t)s);
        carry |= (s >> 32) << l;
    }
    assert_true((carry >> 5) & 1);
    assert_int_equal(t.w.vcc, carry);
}

/* Full EXEC computes straight into the destination row; a destination
** that is also a source must still see the old values. */
static void test_dst_is_source(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    fill_random(&t, 1);
    fill_random(&t, 2);
    uint32_t a[64], b[64];
    memcpy(a, tw_v(&t, 1), sizeof a);
    memcpy(b, tw_v(&t, 2), sizeof b);
    /* v_add_u32 v1, vcc, v1, v2 ; v_subrev_u32 v2, vcc, v1, v2 */
    gcn_inst add = tw_inst(GCN_OP_V_ADD_U32, GCN_FMT_VOP2, V(1), V(1), V(2), 0);
    assert_int_equal(tw_run(&t, &add), MGS_OK);
    uint64_t carry = 0;
    for (int l = 0; l < 64; l++) {
        assert_int_equal(tw_v(&t, 1)[l], a[l] + b[l]);
        carry |= (uint64_t)(a[l] + b[l] < a[l]) << l;
    }
    assert_int_equal(t.w.vcc, carry);
    gcn_inst sub = tw_inst(GCN_OP_V_SUBREV_U32, GCN_FMT_VOP2, V(2), V(1), V(2), 0);
    assert_int_equal(tw_run(&t, &sub), MGS_OK);
    for (int l = 0; l < 64; l++)
        assert_int_equal(tw_v(&t, 2)[l], b[l] - (a[l] + b[l]));
    /* v_mul_f32_e64 v3, v3, v3 mul:2 (omod applied in place) */
    for (int l = 0; l < 64; l++)
        tw_v(&t, 3)[l] = tw_u((float)l - 10.0f);
    gcn_inst sq = tw_inst(GCN_OP_V_MUL_F32, GCN_FMT_VOP3A, V(3), V(3), V(3), 0);
    sq.omod = 1;
    assert_int_equal(tw_run(&t, &sq), MGS_OK);
    for (int l = 0; l < 64; l++)
        assert_true(tw_f(tw_v(&t, 3)[l]) == 2.0f * ((float)l - 10) * ((float)l - 10));
}

static void test_partial_exec(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    fill_random(&t, 2);
    for (int l = 0; l < 64; l++) {
        tw_v(&t, 1)[l] = 0xdead0000u + (uint32_t)l;
        tw_v(&t, 3)[l] = 0xffffffffu;   /* every lane carries */
    }
    tw_v(&t, 2)[0] = 1;
    t.w.exec = 0x00ff00000000f00full;
    gcn_inst in = tw_inst(GCN_OP_V_ADD_U32, GCN_FMT_VOP2, V(1), V(2), V(3), 0);
    assert_int_equal(tw_run(&t, &in), MGS_OK);
    for (int l = 0; l < 64; l++) {
        if ((t.w.exec >> l) & 1)
            assert_int_equal(tw_v(&t, 1)[l], tw_v(&t, 2)[l] - 1u);
        else
            assert_int_equal(tw_v(&t, 1)[l], 0xdead0000u + (uint32_t)l);
    }
    /* carry bits only for active lanes whose src0 was non-zero */
    uint64_t want = 0;
    for (int l = 0; l < 64; l++)
        if (((t.w.exec >> l) & 1) && tw_v(&t, 2)[l] != 0)
            want |= 1ull << l;
    assert_int_equal(t.w.vcc, want);

    /* EXEC = 0: nothing written. */
    t.w.exec = 0;
    t.w.vcc = 0x1234;
    in = tw_inst(GCN_OP_V_MOV_B32, GCN_FMT_VOP1, V(1), GCN_OPR_ZERO, 0, 0);
    assert_int_equal(tw_run(&t, &in), MGS_OK);
    assert_int_equal(tw_v(&t, 1)[5], 0xdead0005u);
}

/* 64-bit add as the compiler emits it: v_add_u32 (carry to vcc / sdst) +
** v_addc_u32 (carry in from vcc / src2), and the same with subtraction. */
static void test_carry_chains(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    for (int l = 0; l < 64; l++) {
        uint64_t a = tw_rand(&seed), b = tw_rand(&seed);
        if (l == 7)
            a = 0xffffffffull, b = 1;   /* low carry, high 0 */
        if (l == 8)
            a = ~0ull, b = 1;           /* wraps to 0 */
        tw_set64(&t, 2, l, a);
        tw_set64(&t, 4, l, b);
    }
    /* VOP2 chain: v_add_u32 v6, vcc, v2, v4; v_addc_u32 v7, vcc, v3, v5, vcc */
    gcn_inst lo = tw_inst(GCN_OP_V_ADD_U32, GCN_FMT_VOP2, V(6), V(2), V(4), 0);
    gcn_inst hi = tw_inst(GCN_OP_V_ADDC_U32, GCN_FMT_VOP2, V(7), V(3), V(5), 0);
    assert_int_equal(tw_run(&t, &lo), MGS_OK);
    assert_int_equal(tw_run(&t, &hi), MGS_OK);
    for (int l = 0; l < 64; l++)
        assert_true(tw_v64(&t, 6, l) == tw_v64(&t, 2, l) + tw_v64(&t, 4, l));
    assert_true((t.w.vcc >> 8) & 1);   /* carry out of bit 63 */

    /* VOP3B chain through s[10:11] (real encodings):
    ** v_add_u32_e64 v1, s[10:11], v2, v3 / v_addc_u32_e64 v1, s[10:11],
    ** v2, v3, s[12:13] are re-targeted below by editing operands. */
    static const uint8_t add_e64[] = {0x01, 0x0a, 0x19, 0xd1,
                                      0x02, 0x07, 0x02, 0x00};
    static const uint8_t addc_e64[] = {0x01, 0x0a, 0x1c, 0xd1,
                                       0x02, 0x07, 0x32, 0x00};
    gcn_inst a3 = decode(add_e64, sizeof add_e64);
    gcn_inst c3 = decode(addc_e64, sizeof addc_e64);
    assert_int_equal(a3.fmt, GCN_FMT_VOP3B);
    assert_int_equal(a3.sdst, 10);
    assert_int_equal(c3.src2, 12);
    a3.dst = V(8), a3.src0 = V(2), a3.src1 = V(4);
    c3.dst = V(9), c3.src0 = V(3), c3.src1 = V(5), c3.src2 = 10;
    t.w.vcc = 0;
    assert_int_equal(tw_run(&t, &a3), MGS_OK);
    assert_int_equal(tw_run(&t, &c3), MGS_OK);
    assert_int_equal(t.w.vcc, 0);   /* VOP3B leaves vcc alone */
    for (int l = 0; l < 64; l++)
        assert_true(tw_v64(&t, 8, l) == tw_v64(&t, 2, l) + tw_v64(&t, 4, l));
    uint64_t hi_carry = t.w.sgpr[10] | (uint64_t)t.w.sgpr[11] << 32;
    assert_true((hi_carry >> 8) & 1);

    /* 64-bit subtraction: v_sub_u32 + v_subb_u32, and reversed operands. */
    gcn_inst sl = tw_inst(GCN_OP_V_SUB_U32, GCN_FMT_VOP2, V(6), V(2), V(4), 0);
    gcn_inst sh = tw_inst(GCN_OP_V_SUBB_U32, GCN_FMT_VOP2, V(7), V(3), V(5), 0);
    assert_int_equal(tw_run(&t, &sl), MGS_OK);
    assert_int_equal(tw_run(&t, &sh), MGS_OK);
    uint64_t borrow = 0;
    for (int l = 0; l < 64; l++) {
        uint64_t a = tw_v64(&t, 2, l), b = tw_v64(&t, 4, l);
        assert_true(tw_v64(&t, 6, l) == a - b);
        borrow |= (uint64_t)(b > a) << l;
    }
    assert_int_equal(t.w.vcc, borrow);
    gcn_inst rl = tw_inst(GCN_OP_V_SUBREV_U32, GCN_FMT_VOP2, V(6), V(4), V(2), 0);
    gcn_inst rh = tw_inst(GCN_OP_V_SUBBREV_U32, GCN_FMT_VOP2, V(7), V(5), V(3), 0);
    assert_int_equal(tw_run(&t, &rl), MGS_OK);
    assert_int_equal(tw_run(&t, &rh), MGS_OK);
    for (int l = 0; l < 64; l++)
        assert_true(tw_v64(&t, 6, l) == tw_v64(&t, 2, l) - tw_v64(&t, 4, l));
}

static void test_cndmask(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    fill_random(&t, 2);
    fill_random(&t, 3);
    t.w.vcc = 0xf0f0f0f0a5a5a5a5ull;
    gcn_inst in = tw_inst(GCN_OP_V_CNDMASK_B32, GCN_FMT_VOP2, V(1), V(2),
                          V(3), 0);
    assert_int_equal(tw_run(&t, &in), MGS_OK);
    for (int l = 0; l < 64; l++)
        assert_int_equal(tw_v(&t, 1)[l], ((t.w.vcc >> l) & 1) ? tw_v(&t, 3)[l]
                                                              : tw_v(&t, 2)[l]);
    /* v_cndmask_b32_e64 v1, v2, v3, s[4:5] */
    static const uint8_t e64[] = {0x01, 0x00, 0x00, 0xd1,
                                  0x02, 0x07, 0x12, 0x00};
    gcn_inst d = decode(e64, sizeof e64);
    t.w.sgpr[4] = 0x1;
    t.w.sgpr[5] = 0x80000000u;
    assert_int_equal(tw_run(&t, &d), MGS_OK);
    for (int l = 0; l < 64; l++)
        assert_int_equal(tw_v(&t, 1)[l], (l == 0 || l == 63) ? tw_v(&t, 3)[l]
                                                             : tw_v(&t, 2)[l]);
}

static void test_compares(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    fill_random(&t, 1);
    fill_random(&t, 2);
    tw_v(&t, 2)[9] = tw_v(&t, 1)[9];
    t.w.exec = 0xfffffffffffffff7ull;   /* lane 3 inactive */

    /* v_cmp_gt_i32_e64 s[20:21], v1, v2 */
    static const uint8_t gt_e64[] = {0x14, 0x00, 0xc4, 0xd0,
                                     0x01, 0x05, 0x02, 0x00};
    gcn_inst gt = decode(gt_e64, sizeof gt_e64);
    t.w.vcc = 77;
    assert_int_equal(tw_run(&t, &gt), MGS_OK);
    uint64_t want = 0;
    for (int l = 0; l < 64; l++)
        want |= (uint64_t)((int32_t)tw_v(&t, 1)[l] > (int32_t)tw_v(&t, 2)[l]) << l;
    want &= t.w.exec;
    assert_int_equal(t.w.sgpr[20] | (uint64_t)t.w.sgpr[21] << 32, want);
    assert_int_equal(t.w.vcc, 77);

    /* every integer condition of the 32-bit unsigned family, e32 */
    static const gcn_op ops[] = {GCN_OP_V_CMP_F_U32, GCN_OP_V_CMP_LT_U32,
                                 GCN_OP_V_CMP_EQ_U32, GCN_OP_V_CMP_LE_U32,
                                 GCN_OP_V_CMP_GT_U32, GCN_OP_V_CMP_NE_U32,
                                 GCN_OP_V_CMP_GE_U32, GCN_OP_V_CMP_T_U32};
    for (int k = 0; k < 8; k++) {
        gcn_inst in = tw_inst(ops[k], GCN_FMT_VOPC, 0, V(1), V(2), 0);
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        uint64_t m = 0;
        for (int l = 0; l < 64; l++) {
            uint32_t x = tw_v(&t, 1)[l], y = tw_v(&t, 2)[l];
            bool r[8] = {false, x < y, x == y, x <= y, x > y, x != y, x >= y,
                         true};
            m |= (uint64_t)r[k] << l;
        }
        assert_int_equal(t.w.vcc, m & t.w.exec);
    }

    /* 64-bit and 16-bit signed compares */
    for (int l = 0; l < 64; l++) {
        tw_set64(&t, 4, l, tw_rand(&seed));
        tw_set64(&t, 6, l, tw_rand(&seed));
    }
    gcn_inst c64 = tw_inst(GCN_OP_V_CMP_LT_I64, GCN_FMT_VOPC, 0, V(4), V(6), 0);
    assert_int_equal(tw_run(&t, &c64), MGS_OK);
    want = 0;
    for (int l = 0; l < 64; l++)
        want |= (uint64_t)((int64_t)tw_v64(&t, 4, l) < (int64_t)tw_v64(&t, 6, l)) << l;
    assert_int_equal(t.w.vcc, want & t.w.exec);
    gcn_inst c16 = tw_inst(GCN_OP_V_CMP_GE_I16, GCN_FMT_VOPC, 0, V(1), V(2), 0);
    assert_int_equal(tw_run(&t, &c16), MGS_OK);
    want = 0;
    for (int l = 0; l < 64; l++)
        want |= (uint64_t)((int16_t)tw_v(&t, 1)[l] >= (int16_t)tw_v(&t, 2)[l]) << l;
    assert_int_equal(t.w.vcc, want & t.w.exec);

    /* v_cmpx_lt_u32_e32 vcc, v1, v2: writes vcc and exec */
    static const uint8_t cmpx[] = {0x01, 0x05, 0xb2, 0x7d};
    gcn_inst x = decode(cmpx, sizeof cmpx);
    uint64_t old_exec = t.w.exec;
    assert_int_equal(tw_run(&t, &x), MGS_OK);
    want = 0;
    for (int l = 0; l < 64; l++)
        want |= (uint64_t)(tw_v(&t, 1)[l] < tw_v(&t, 2)[l]) << l;
    want &= old_exec;
    assert_int_equal(t.w.exec, want);
    assert_int_equal(t.w.vcc, want);
}

static void test_scalar_sources(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    struct { unsigned code; uint32_t lit, want; } cases[] = {
        {GCN_OPR_ZERO, 0, 0},
        {GCN_OPR_INT_POS_LAST, 0, 64},
        {GCN_OPR_INT_NEG_FIRST, 0, 0xffffffffu},
        {GCN_OPR_INT_NEG_LAST, 0, (uint32_t)-16},
        {GCN_OPR_F_HALF, 0, 0x3f000000u},
        {GCN_OPR_F_INV2PI, 0, 0x3e22f983u},
        {GCN_OPR_LITERAL, 0x12345678u, 0x12345678u},
        {17, 0, 0xabcdef01u},
        {GCN_OPR_EXEC_HI, 0, 0x80000001u},
        {GCN_OPR_M0, 0, 0x77u},
    };
    t.w.sgpr[17] = 0xabcdef01u;
    t.w.exec = 0x8000000100000000ull | 0xffffffffull;
    t.w.m0 = 0x77;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gcn_inst in = tw_inst(GCN_OP_V_MOV_B32, GCN_FMT_VOP1, V(1),
                              cases[k].code, 0, 0);
        in.literal = cases[k].lit;
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        assert_int_equal(tw_v(&t, 1)[0], cases[k].want);
        assert_int_equal(tw_v(&t, 1)[63], cases[k].want);
    }
    /* 64-bit operand: inline -1 sign-extends; v_lshlrev_b64 v[2:3], 3, -1 */
    gcn_inst sh = tw_inst(GCN_OP_V_LSHLREV_B64, GCN_FMT_VOP3A, V(2),
                          GCN_OPR_ZERO + 3, GCN_OPR_INT_NEG_FIRST, 0);
    t.w.exec = ~0ull;
    assert_int_equal(tw_run(&t, &sh), MGS_OK);
    assert_true(tw_v64(&t, 2, 10) == 0xfffffffffffffff8ull);
}

static void test_sdwa(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    fill_random(&t, 1);
    fill_random(&t, 2);
    fill_random(&t, 3);
    uint32_t old1[64];
    memcpy(old1, tw_v(&t, 1), sizeof old1);

    /* v_add_u32_sdwa v1, vcc, v2, v3 dst_sel:WORD_1
    **   dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:WORD_0 */
    static const uint8_t e1[] = {0xf9, 0x06, 0x02, 0x32,
                                 0x02, 0x15, 0x01, 0x04};
    gcn_inst a = decode(e1, sizeof e1);
    assert_int_equal(a.ext, GCN_EXT_SDWA);
    assert_int_equal(tw_run(&t, &a), MGS_OK);
    for (int l = 0; l < 64; l++) {
        uint32_t s = ((tw_v(&t, 2)[l] >> 8) & 0xff) + (tw_v(&t, 3)[l] & 0xffff);
        assert_int_equal(tw_v(&t, 1)[l], (s << 16) | (old1[l] & 0xffff));
    }

    /* v_add_u32_sdwa v4, vcc, sext(v2), v3 src0_sel:BYTE_0: sign-extended */
    static const uint8_t e2[] = {0xf9, 0x06, 0x08, 0x32,
                                 0x02, 0x06, 0x08, 0x06};
    gcn_inst b = decode(e2, sizeof e2);
    tw_v(&t, 2)[0] = 0x000000f0u;   /* -16 as a byte */
    assert_int_equal(tw_run(&t, &b), MGS_OK);
    for (int l = 0; l < 64; l++) {
        int32_t s0 = (int8_t)(uint8_t)tw_v(&t, 2)[l];
        assert_int_equal(tw_v(&t, 4)[l], (uint32_t)s0 + tw_v(&t, 3)[l]);
    }

    /* dst_sel BYTE_1 with UNUSED_SEXT and UNUSED_PAD, hand-built */
    gcn_inst m = tw_inst(GCN_OP_V_MOV_B32, GCN_FMT_VOP1, V(5), V(2), 0, 0);
    m.ext = GCN_EXT_SDWA;
    m.sdwa_src0_sel = 6;
    m.sdwa_dst_sel = 1;
    m.sdwa_dst_unused = 1;
    tw_v(&t, 2)[0] = 0x80;
    tw_v(&t, 2)[1] = 0x7f;
    assert_int_equal(tw_run(&t, &m), MGS_OK);
    assert_int_equal(tw_v(&t, 5)[0], 0xffff8000u);
    assert_int_equal(tw_v(&t, 5)[1], 0x00007f00u);
    m.sdwa_dst_unused = 0;
    assert_int_equal(tw_run(&t, &m), MGS_OK);
    assert_int_equal(tw_v(&t, 5)[0], 0x00008000u);

    /* v_cvt_f32_f16_sdwa v1, v2 src0_sel:WORD_1: converts the high half */
    static const uint8_t e3[] = {0xf9, 0x16, 0x02, 0x7e,
                                 0x02, 0x06, 0x05, 0x00};
    gcn_inst cv = decode(e3, sizeof e3);
    tw_v(&t, 2)[0] = 0x3c00u << 16 | 0x4000u;   /* hi 1.0, lo 2.0 */
    tw_v(&t, 2)[1] = 0xc500u << 16;             /* hi -5.0 */
    assert_int_equal(tw_run(&t, &cv), MGS_OK);
    assert_true(tw_f(tw_v(&t, 1)[0]) == 1.0f);
    assert_true(tw_f(tw_v(&t, 1)[1]) == -5.0f);

    /* v_cmp_eq_u32_sdwa vcc, v1, v2 src0_sel:BYTE_2 src1_sel:BYTE_0 */
    static const uint8_t e4[] = {0xf9, 0x04, 0x94, 0x7d,
                                 0x01, 0x00, 0x02, 0x00};
    gcn_inst ce = decode(e4, sizeof e4);
    for (int l = 0; l < 64; l++) {
        tw_v(&t, 1)[l] = (uint32_t)l << 16 | 0xff0000ffu;
        tw_v(&t, 2)[l] = (l & 1) ? (uint32_t)l | 0xabcd00u : 0xffffffffu;
    }
    assert_int_equal(tw_run(&t, &ce), MGS_OK);
    assert_int_equal(t.w.vcc, 0xaaaaaaaaaaaaaaaaull);
}

static void test_dpp(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    for (int l = 0; l < 64; l++) {
        tw_v(&t, 2)[l] = 100u + (uint32_t)l;
        tw_v(&t, 1)[l] = 0xeeeeeeeeu;
    }
    /* v_mov_b32_dpp v1, v2 row_shr:1 (bound_ctrl off): lane 0 of each row
    ** keeps its old value. */
    static const uint8_t shr[] = {0xfa, 0x02, 0x02, 0x7e,
                                  0x02, 0x11, 0x01, 0xff};
    gcn_inst a = decode(shr, sizeof shr);
    assert_int_equal(a.ext, GCN_EXT_DPP);
    assert_int_equal(tw_run(&t, &a), MGS_OK);
    for (int l = 0; l < 64; l++)
        assert_int_equal(tw_v(&t, 1)[l],
                         (l & 15) ? 100u + (uint32_t)l - 1 : 0xeeeeeeeeu);
    /* bound_ctrl:0 (encoded 1): out-of-row reads give 0 */
    static const uint8_t shr_bc[] = {0xfa, 0x02, 0x02, 0x7e,
                                     0x02, 0x11, 0x09, 0xff};
    gcn_inst b = decode(shr_bc, sizeof shr_bc);
    assert_int_equal(tw_run(&t, &b), MGS_OK);
    assert_int_equal(tw_v(&t, 1)[16], 0);
    assert_int_equal(tw_v(&t, 1)[17], 116u);

    /* v_add_f32_dpp v1, v2, v3 quad_perm:[3,2,1,0] */
    for (int l = 0; l < 64; l++) {
        tw_v(&t, 2)[l] = tw_u((float)l);
        tw_v(&t, 3)[l] = tw_u(0.5f);
    }
    static const uint8_t qp[] = {0xfa, 0x06, 0x02, 0x02,
                                 0x02, 0x1b, 0x00, 0xff};
    gcn_inst q = decode(qp, sizeof qp);
    assert_int_equal(tw_run(&t, &q), MGS_OK);
    for (int l = 0; l < 64; l++)
        assert_true(tw_f(tw_v(&t, 1)[l]) == (float)((l & ~3) + 3 - (l & 3)) + 0.5f);

    /* row_bcast:15 row_mask:0xa — rows 1 and 3 get lane 15 / 47 */
    for (int l = 0; l < 64; l++) {
        tw_v(&t, 2)[l] = (uint32_t)l;
        tw_v(&t, 1)[l] = 1000;
    }
    static const uint8_t b15[] = {0xfa, 0x02, 0x02, 0x7e,
                                  0x02, 0x42, 0x01, 0xaf};
    gcn_inst c = decode(b15, sizeof b15);
    assert_int_equal(tw_run(&t, &c), MGS_OK);
    for (int l = 0; l < 64; l++) {
        int row = l >> 4;
        uint32_t want = row == 1 ? 15u : row == 3 ? 47u : 1000u;
        assert_int_equal(tw_v(&t, 1)[l], want);
    }
    /* row_bcast:31 row_mask:0xc — rows 2, 3 get lane 31 */
    static const uint8_t b31[] = {0xfa, 0x02, 0x02, 0x7e,
                                  0x02, 0x43, 0x01, 0xcf};
    gcn_inst d = decode(b31, sizeof b31);
    assert_int_equal(tw_run(&t, &d), MGS_OK);
    assert_int_equal(tw_v(&t, 1)[40], 31u);
    assert_int_equal(tw_v(&t, 1)[63], 31u);
    assert_int_equal(tw_v(&t, 1)[20], 15u);
    /* wave_shr:1 */
    static const uint8_t wsr[] = {0xfa, 0x02, 0x02, 0x7e,
                                  0x02, 0x38, 0x01, 0xff};
    gcn_inst e = decode(wsr, sizeof wsr);
    assert_int_equal(tw_run(&t, &e), MGS_OK);
    for (int l = 1; l < 64; l++)
        assert_int_equal(tw_v(&t, 1)[l], (uint32_t)l - 1);
    /* row_mirror bank_mask:0x5 — only banks 0 and 2 (lanes 0-3, 8-11 of
    ** each row) are written */
    for (int l = 0; l < 64; l++)
        tw_v(&t, 1)[l] = 1000;
    static const uint8_t mir[] = {0xfa, 0x02, 0x02, 0x7e,
                                  0x02, 0x40, 0x01, 0xf5};
    gcn_inst f = decode(mir, sizeof mir);
    assert_int_equal(tw_run(&t, &f), MGS_OK);
    for (int l = 0; l < 64; l++) {
        int bank = (l >> 2) & 3;
        uint32_t want = (bank == 0 || bank == 2)
                            ? (uint32_t)((l & ~15) + 15 - (l & 15)) : 1000u;
        assert_int_equal(tw_v(&t, 1)[l], want);
    }
    /* inactive source lane: with bound_ctrl reads 0 */
    t.w.exec = ~(1ull << 4);
    assert_int_equal(tw_run(&t, &b), MGS_OK);
    assert_int_equal(tw_v(&t, 1)[5], 0);
    assert_int_equal(tw_v(&t, 1)[6], 5u);
}

static void test_lane_ops(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    fill_random(&t, 2);
    fill_random(&t, 3);
    /* v_readlane_b32 s5, v2, 7 */
    static const uint8_t rl[] = {0x05, 0x00, 0x89, 0xd2,
                                 0x02, 0x0f, 0x01, 0x00};
    gcn_inst a = decode(rl, sizeof rl);
    assert_int_equal(tw_run(&t, &a), MGS_OK);
    assert_int_equal(t.w.sgpr[5], tw_v(&t, 2)[7]);
    /* v_readfirstlane_b32 s6, v3 with lanes 0..9 off */
    static const uint8_t rfl[] = {0x03, 0x05, 0x0c, 0x7e};
    gcn_inst b = decode(rfl, sizeof rfl);
    t.w.exec = ~0x3ffull;
    assert_int_equal(tw_run(&t, &b), MGS_OK);
    assert_int_equal(t.w.sgpr[6], tw_v(&t, 3)[10]);
    /* v_writelane_b32 v4, s7, 33 writes lane 33 even when inactive */
    t.w.exec = 1;
    t.w.sgpr[7] = 0xcafef00du;
    gcn_inst wl = tw_inst(GCN_OP_V_WRITELANE_B32, GCN_FMT_VOP3A, V(4), 7,
                          GCN_OPR_ZERO + 33, 0);
    assert_int_equal(tw_run(&t, &wl), MGS_OK);
    assert_int_equal(tw_v(&t, 4)[33], 0xcafef00du);
    assert_int_equal(tw_v(&t, 4)[32], 0);

    /* lane id: v_mbcnt_lo_u32_b32 v1, -1, 0; v_mbcnt_hi_u32_b32 v1, -1, v1 */
    static const uint8_t lo[] = {0x01, 0x00, 0x8c, 0xd2,
                                 0xc1, 0x00, 0x01, 0x00};
    static const uint8_t hi[] = {0x01, 0x00, 0x8d, 0xd2,
                                 0xc1, 0x02, 0x02, 0x00};
    gcn_inst ml = decode(lo, sizeof lo), mh = decode(hi, sizeof hi);
    t.w.exec = ~0ull;
    assert_int_equal(tw_run(&t, &ml), MGS_OK);
    assert_int_equal(tw_run(&t, &mh), MGS_OK);
    for (int l = 0; l < 64; l++)
        assert_int_equal(tw_v(&t, 1)[l], (uint32_t)l);
    /* mbcnt of a sparse mask: popcount of the bits below each lane */
    t.w.sgpr[8] = 0x80000011u;
    t.w.sgpr[9] = 0x00000003u;
    gcn_inst m1 = tw_inst(GCN_OP_V_MBCNT_LO_U32_B32, GCN_FMT_VOP3A, V(5), 8,
                          GCN_OPR_ZERO, 0);
    gcn_inst m2 = tw_inst(GCN_OP_V_MBCNT_HI_U32_B32, GCN_FMT_VOP3A, V(5), 9,
                          V(5), 0);
    assert_int_equal(tw_run(&t, &m1), MGS_OK);
    assert_int_equal(tw_run(&t, &m2), MGS_OK);
    uint64_t mask = 0x0000000380000011ull;
    for (int l = 0; l < 64; l++)
        assert_int_equal(tw_v(&t, 5)[l],
                         (uint32_t)__builtin_popcountll(mask & ((1ull << l) - 1)));

    /* v_movrels_b32 v1, v2 with m0 = 1 reads v3 */
    t.w.m0 = 1;
    gcn_inst mr = tw_inst(GCN_OP_V_MOVRELS_B32, GCN_FMT_VOP1, V(1), V(2), 0, 0);
    assert_int_equal(tw_run(&t, &mr), MGS_OK);
    assert_int_equal(tw_v(&t, 1)[20], tw_v(&t, 3)[20]);
    t.w.m0 = 1000;   /* out of the register file: error, no crash */
    assert_int_equal(tw_run(&t, &mr), MGS_ESIM);
}

/* Reference for one three-source integer op. */
static uint32_t ref3(gcn_op op, uint32_t x, uint32_t y, uint32_t z)
{
    switch (op) {
    case GCN_OP_V_BFE_U32:
        return (uint32_t)(((uint64_t)x >> (y & 31)) & ((1ull << (z & 31)) - 1));
    case GCN_OP_V_BFE_I32: {
        unsigned o = y & 31, w = z & 31;
        if (!w)
            return 0;
        int64_t v = (int64_t)((uint64_t)x << (64 - o - w)) >> (64 - w);
        return (uint32_t)v;
    }
    case GCN_OP_V_BFI_B32: return (x & y) | (~x & z);
    case GCN_OP_V_ALIGNBIT_B32:
        return (uint32_t)((((uint64_t)x << 32) | y) >> (z & 31));
    case GCN_OP_V_ALIGNBYTE_B32:
        return (uint32_t)((((uint64_t)x << 32) | y) >> ((z & 3) * 8));
    case GCN_OP_V_MED3_I32: {
        int32_t a = (int32_t)x, b = (int32_t)y, c = (int32_t)z, t;
        if (a > b) t = a, a = b, b = t;
        if (b > c) b = c;
        return (uint32_t)(a > b ? a : b);
    }
    case GCN_OP_V_MIN3_U32: {
        uint32_t m = x < y ? x : y;
        return m < z ? m : z;
    }
    case GCN_OP_V_MAX3_I32: {
        int32_t m = (int32_t)x > (int32_t)y ? (int32_t)x : (int32_t)y;
        return (uint32_t)(m > (int32_t)z ? m : (int32_t)z);
    }
    case GCN_OP_V_MAD_U32_U24: return (x & 0xffffff) * (y & 0xffffff) + z;
    case GCN_OP_V_MAD_I32_I24: {
        int64_t a = (int32_t)(x << 8) >> 8, b = (int32_t)(y << 8) >> 8;
        return (uint32_t)(a * b) + z;
    }
    case GCN_OP_V_SAD_U32: return (x > y ? x - y : y - x) + z;
    case GCN_OP_V_SAD_U8: {
        uint32_t s = z;
        for (int k = 0; k < 4; k++) {
            int d = (int)((x >> 8 * k) & 255) - (int)((y >> 8 * k) & 255);
            s += (uint32_t)(d < 0 ? -d : d);
        }
        return s;
    }
    case GCN_OP_V_MUL_HI_U32: return (uint32_t)(((uint64_t)x * y) >> 32);
    case GCN_OP_V_MUL_HI_I32:
        return (uint32_t)((uint64_t)((int64_t)(int32_t)x * (int32_t)y) >> 32);
    case GCN_OP_V_MUL_LO_U32: return x * y;
    case GCN_OP_V_MUL_HI_U32_U24:
        return (uint32_t)(((uint64_t)(x & 0xffffff) * (y & 0xffffff)) >> 32);
    case GCN_OP_V_MUL_I32_I24: {
        int64_t a = (int32_t)(x << 8) >> 8, b = (int32_t)(y << 8) >> 8;
        return (uint32_t)(a * b);
    }
    case GCN_OP_V_ASHRREV_I32: return (uint32_t)((int32_t)y >> (x & 31));
    case GCN_OP_V_LSHLREV_B32: return y << (x & 31);
    case GCN_OP_V_BCNT_U32_B32: return (uint32_t)__builtin_popcount(x) + y;
    case GCN_OP_V_BFM_B32: return ((1u << (x & 31)) - 1) << (y & 31);
    case GCN_OP_V_MIN_I32:
        return (int32_t)x < (int32_t)y ? x : y;
    case GCN_OP_V_ADD_U16: return (x + y) & 0xffff;
    case GCN_OP_V_SUBREV_U16: return (y - x) & 0xffff;
    case GCN_OP_V_MUL_LO_U16: return (x * y) & 0xffff;
    case GCN_OP_V_ASHRREV_I16:
        return (uint32_t)((int16_t)y >> (x & 15)) & 0xffff;
    case GCN_OP_V_MAX_I16:
        return (uint32_t)((int16_t)x > (int16_t)y ? (int16_t)x : (int16_t)y) & 0xffff;
    case GCN_OP_V_MAD_U16: return (x * y + z) & 0xffff;
    default: return 0xdeadbeef;
    }
}

static void test_int_families(void **state)
{
    (void)state;
    static const gcn_op ops[] = {
        GCN_OP_V_BFE_U32, GCN_OP_V_BFE_I32, GCN_OP_V_BFI_B32,
        GCN_OP_V_ALIGNBIT_B32, GCN_OP_V_ALIGNBYTE_B32, GCN_OP_V_MED3_I32,
        GCN_OP_V_MIN3_U32, GCN_OP_V_MAX3_I32, GCN_OP_V_MAD_U32_U24,
        GCN_OP_V_MAD_I32_I24, GCN_OP_V_SAD_U32, GCN_OP_V_SAD_U8,
        GCN_OP_V_MUL_HI_U32, GCN_OP_V_MUL_HI_I32, GCN_OP_V_MUL_LO_U32,
        GCN_OP_V_MUL_HI_U32_U24, GCN_OP_V_MUL_I32_I24, GCN_OP_V_ASHRREV_I32,
        GCN_OP_V_LSHLREV_B32, GCN_OP_V_BCNT_U32_B32, GCN_OP_V_BFM_B32,
        GCN_OP_V_MIN_I32, GCN_OP_V_ADD_U16, GCN_OP_V_SUBREV_U16,
        GCN_OP_V_MUL_LO_U16, GCN_OP_V_ASHRREV_I16, GCN_OP_V_MAX_I16,
        GCN_OP_V_MAD_U16,
    };
    test_wave t;
    tw_init(&t);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        fill_random(&t, 2);
        fill_random(&t, 3);
        fill_random(&t, 4);
        for (int l = 0; l < 8; l++)   /* small field sizes/offsets too */
            tw_v(&t, 3)[l] = (uint32_t)l * 5, tw_v(&t, 4)[l] = (uint32_t)l * 4;
        gcn_fmt fmt = gcn_op_table[ops[k]].fmt == GCN_FMT_VOP2 ? GCN_FMT_VOP2
                                                               : GCN_FMT_VOP3A;
        gcn_inst in = tw_inst(ops[k], fmt, V(1), V(2), V(3), V(4));
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        for (int l = 0; l < 64; l++) {
            uint32_t want = ref3(ops[k], tw_v(&t, 2)[l], tw_v(&t, 3)[l],
                                 tw_v(&t, 4)[l]);
            if (tw_v(&t, 1)[l] != want)
                fail_msg("%s lane %d: got 0x%08x want 0x%08x",
                         gcn_op_table[ops[k]].mnemonic, l, tw_v(&t, 1)[l], want);
        }
    }
}

static void test_bit_scans(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    uint32_t vals[8] = {0, 1, 0x80000000u, 0xffffffffu, 0x00f00000u,
                        0xbfffffffu, 0x40000000u, 0x12345678u};
    for (int l = 0; l < 64; l++)
        tw_v(&t, 2)[l] = vals[l & 7];
    gcn_inst h = tw_inst(GCN_OP_V_FFBH_U32, GCN_FMT_VOP1, V(3), V(2), 0, 0);
    gcn_inst lo = tw_inst(GCN_OP_V_FFBL_B32, GCN_FMT_VOP1, V(4), V(2), 0, 0);
    gcn_inst hi = tw_inst(GCN_OP_V_FFBH_I32, GCN_FMT_VOP1, V(5), V(2), 0, 0);
    gcn_inst rv = tw_inst(GCN_OP_V_BFREV_B32, GCN_FMT_VOP1, V(6), V(2), 0, 0);
    assert_int_equal(tw_run(&t, &h), MGS_OK);
    assert_int_equal(tw_run(&t, &lo), MGS_OK);
    assert_int_equal(tw_run(&t, &hi), MGS_OK);
    assert_int_equal(tw_run(&t, &rv), MGS_OK);
    uint32_t want_h[8] = {~0u, 31, 0, 0, 8, 0, 1, 3};
    uint32_t want_l[8] = {~0u, 0, 31, 0, 20, 0, 30, 3};
    uint32_t want_i[8] = {~0u, 31, 1, ~0u, 8, 1, 1, 3};
    uint32_t want_r[8] = {0, 0x80000000u, 1, 0xffffffffu, 0x00000f00u,
                          0xfffffffdu, 2, 0x1e6a2c48u};
    for (int l = 0; l < 8; l++) {
        assert_int_equal(tw_v(&t, 3)[l], want_h[l]);
        assert_int_equal(tw_v(&t, 4)[l], want_l[l]);
        assert_int_equal(tw_v(&t, 5)[l], want_i[l]);
        assert_int_equal(tw_v(&t, 6)[l], want_r[l]);
    }
}

static void test_64bit_ops(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    for (int l = 0; l < 64; l++) {
        tw_set64(&t, 2, l, tw_rand(&seed));
        tw_v(&t, 4)[l] = (uint32_t)tw_rand(&seed);
        tw_v(&t, 5)[l] = (uint32_t)tw_rand(&seed);
        tw_set64(&t, 6, l, tw_rand(&seed));
    }
    tw_v(&t, 4)[0] = tw_v(&t, 5)[0] = 0xffffffffu;
    tw_set64(&t, 6, 0, ~0ull);   /* forces a carry out in lane 0 */
    /* v_lshlrev_b64 v[8:9], v4, v[2:3] and the right shifts */
    static const gcn_op ops[3] = {GCN_OP_V_LSHLREV_B64, GCN_OP_V_LSHRREV_B64,
                                  GCN_OP_V_ASHRREV_I64};
    for (int k = 0; k < 3; k++) {
        gcn_inst in = tw_inst(ops[k], GCN_FMT_VOP3A, V(8), V(4), V(2), 0);
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        for (int l = 0; l < 64; l++) {
            uint64_t v = tw_v64(&t, 2, l);
            unsigned s = tw_v(&t, 4)[l] & 63;
            uint64_t want = k == 0 ? v << s : k == 1 ? v >> s
                                            : (uint64_t)((int64_t)v >> s);
            assert_true(tw_v64(&t, 8, l) == want);
        }
    }
    /* v_mad_u64_u32 v[10:11], s[6:7], v4, v5, v[6:7] (decoded form) */
    static const uint8_t mad[] = {0x04, 0x06, 0xe8, 0xd1,
                                  0x01, 0x05, 0x12, 0x04};
    gcn_inst m = decode(mad, sizeof mad);
    assert_int_equal(m.fmt, GCN_FMT_VOP3B);
    m.dst = V(10), m.src0 = V(4), m.src1 = V(5), m.src2 = V(6);
    assert_int_equal(tw_run(&t, &m), MGS_OK);
    uint64_t carry = 0;
    for (int l = 0; l < 64; l++) {
        uint64_t p = (uint64_t)tw_v(&t, 4)[l] * tw_v(&t, 5)[l];
        uint64_t s = p + tw_v64(&t, 6, l);
        carry |= (uint64_t)(s < p) << l;
        assert_true(tw_v64(&t, 10, l) == s);
    }
    assert_true(carry & 1);
    assert_int_equal(t.w.sgpr[6] | (uint64_t)t.w.sgpr[7] << 32, carry);
    /* v_mad_i64_i32; lane 1 overflows: 2^62 + INT64_MAX */
    tw_v(&t, 4)[1] = tw_v(&t, 5)[1] = 0x80000000u;
    tw_set64(&t, 6, 1, (uint64_t)INT64_MAX);
    gcn_inst mi = m;
    mi.op = GCN_OP_V_MAD_I64_I32;
    assert_int_equal(tw_run(&t, &mi), MGS_OK);
    uint64_t ovf = 0;
    for (int l = 0; l < 64; l++) {
        int64_t p = (int64_t)(int32_t)tw_v(&t, 4)[l] * (int32_t)tw_v(&t, 5)[l];
        int64_t r;
        ovf |= (uint64_t)__builtin_add_overflow(p, (int64_t)tw_v64(&t, 6, l), &r) << l;
    }
    assert_true((ovf >> 1) & 1);
    assert_int_equal(t.w.sgpr[6] | (uint64_t)t.w.sgpr[7] << 32, ovf);
    for (int l = 0; l < 64; l++) {
        int64_t p = (int64_t)(int32_t)tw_v(&t, 4)[l] * (int32_t)tw_v(&t, 5)[l];
        assert_true(tw_v64(&t, 10, l) == (uint64_t)p + tw_v64(&t, 6, l));
    }
}

/* Shifts by a scalar count take a separate (uniform) path; 64-bit results
** under partial EXEC keep both halves of inactive lanes. */
static void test_uniform_shifts_and_64bit_exec(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    fill_random(&t, 3);
    static const gcn_op ops[3] = {GCN_OP_V_LSHLREV_B32, GCN_OP_V_LSHRREV_B32,
                                  GCN_OP_V_ASHRREV_I32};
    t.w.sgpr[4] = 35;   /* count uses the low 5 bits: 3 */
    for (int k = 0; k < 3; k++) {
        gcn_inst in = tw_inst(ops[k], GCN_FMT_VOP2, V(1), 4, V(3), 0);
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        for (int l = 0; l < 64; l++) {
            uint32_t y = tw_v(&t, 3)[l];
            uint32_t want = k == 0 ? y << 3 : k == 1 ? y >> 3
                                   : (uint32_t)((int32_t)y >> 3);
            assert_int_equal(tw_v(&t, 1)[l], want);
        }
    }
    for (int l = 0; l < 64; l++)
        tw_set64(&t, 6, l, 0x1111111122222222ull);
    t.w.exec = 0xff00ff00ff00ff00ull;
    gcn_inst sh = tw_inst(GCN_OP_V_LSHRREV_B64, GCN_FMT_VOP3A, V(6),
                          GCN_OPR_ZERO + 4, V(6), 0);
    assert_int_equal(tw_run(&t, &sh), MGS_OK);
    for (int l = 0; l < 64; l++)
        assert_true(tw_v64(&t, 6, l) == (((t.w.exec >> l) & 1)
                                             ? 0x0111111112222222ull
                                             : 0x1111111122222222ull));
}

/* Remaining DPP controls and a float SDWA source with neg. */
static void test_dpp_more(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    for (int l = 0; l < 64; l++)
        tw_v(&t, 2)[l] = (uint32_t)l;
    struct { uint16_t ctrl; int (*src)(int); } cases[] = {
        {0x123, NULL}, {0x141, NULL}, {0x104, NULL}, {0x13c, NULL},
        {0x134, NULL}, {0x130, NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gcn_inst in = tw_inst(GCN_OP_V_MOV_B32, GCN_FMT_VOP1, V(1), V(2), 0, 0);
        in.ext = GCN_EXT_DPP;
        in.dpp_ctrl = cases[k].ctrl;
        in.dpp_row_mask = in.dpp_bank_mask = 0xf;
        in.dpp_bound_ctrl = 1;
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        for (int l = 0; l < 64; l++) {
            int row = l & ~15, i = l & 15, want;
            switch (cases[k].ctrl) {
            case 0x123: want = row + ((i - 3) & 15); break;          /* row_ror:3 */
            case 0x141: want = row + (i & 8) + 7 - (i & 7); break;   /* half mirror */
            case 0x104: want = i + 4 < 16 ? l + 4 : -1; break;       /* row_shl:4 */
            case 0x13c: want = (l + 63) & 63; break;                 /* wave_ror:1 */
            case 0x134: want = (l + 1) & 63; break;                  /* wave_rol:1 */
            default: want = l < 63 ? l + 1 : -1; break;              /* wave_shl:1 */
            }
            assert_int_equal(tw_v(&t, 1)[l], want < 0 ? 0u : (uint32_t)want);
        }
    }
    /* v_mul_f32_sdwa v1, -v2, v3 src0_sel:WORD_1 (a float op: no sext) */
    tw_v(&t, 2)[0] = 0x40000000u;       /* WORD_1 = 0x4000 -> 0x00004000 */
    tw_v(&t, 3)[0] = 0x3f800000u;
    gcn_inst m = tw_inst(GCN_OP_V_MUL_F32, GCN_FMT_VOP2, V(1), V(2), V(3), 0);
    m.ext = GCN_EXT_SDWA;
    m.sdwa_src0_sel = 5;
    m.sdwa_src1_sel = 6;
    m.sdwa_dst_sel = 6;
    m.neg = 1;
    assert_int_equal(tw_run(&t, &m), MGS_OK);
    float want = -tw_f(0x00004000u);
    assert_int_equal(tw_v(&t, 1)[0], tw_u(want));
}

static void test_errors(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    gcn_inst in = tw_inst(GCN_OP_V_CUBEID_F32, GCN_FMT_VOP3A, V(1), V(2),
                          V(3), V(4));
    assert_int_equal(tw_run(&t, &in), MGS_EUNSUPPORTED);
    in = tw_inst(GCN_OP_S_ENDPGM, GCN_FMT_VOP1, V(1), V(2), 0, 0);
    assert_int_equal(tw_run(&t, &in), MGS_EUNSUPPORTED);
    /* VGPR beyond the allocation: error, registers untouched */
    in = tw_inst(GCN_OP_V_MOV_B32, GCN_FMT_VOP1, V(TW_NVGPR), V(2), 0, 0);
    assert_int_equal(tw_run(&t, &in), MGS_ESIM);
    in = tw_inst(GCN_OP_V_ADD_F64, GCN_FMT_VOP3A, V(2), V(TW_NVGPR - 1),
                 V(2), 0);
    assert_int_equal(tw_run(&t, &in), MGS_ESIM);
    /* reserved DPP control */
    in = tw_inst(GCN_OP_V_MOV_B32, GCN_FMT_VOP1, V(1), V(2), 0, 0);
    in.ext = GCN_EXT_DPP;
    in.dpp_ctrl = 0x150;
    in.dpp_row_mask = in.dpp_bank_mask = 0xf;
    assert_int_equal(tw_run(&t, &in), MGS_EUNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_u32_full_exec),
        cmocka_unit_test(test_dst_is_source),
        cmocka_unit_test(test_partial_exec),
        cmocka_unit_test(test_carry_chains),
        cmocka_unit_test(test_cndmask),
        cmocka_unit_test(test_compares),
        cmocka_unit_test(test_scalar_sources),
        cmocka_unit_test(test_sdwa),
        cmocka_unit_test(test_dpp),
        cmocka_unit_test(test_lane_ops),
        cmocka_unit_test(test_int_families),
        cmocka_unit_test(test_bit_scans),
        cmocka_unit_test(test_64bit_ops),
        cmocka_unit_test(test_uniform_shifts_and_64bit_exec),
        cmocka_unit_test(test_dpp_more),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
