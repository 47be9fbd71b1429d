/*
** Tests for the floating-point VALU semantics (src/gcn3/exec_valu_fp.c and
** the float compares of exec_valu_cmp.c) against host C.
**
** Tolerances: add/sub/mul/fma/mad/sqrt/conversions/rounding and the whole
** division sequence are bit-exact (NaN compared as "is NaN"). v_exp, v_log,
** v_rcp, v_rsq: within 1 ulp of the double-precision result rounded to
** float. v_sin/v_cos (angle in revolutions): absolute error <= 2^-22.
*/
#include <float.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gcn3/decode.h"
#include "test_exec_valu_util.h"

static uint64_t seed = 0xD1B54A32D192ED03ull;

static gcn_inst decode(const uint8_t *bytes, size_t n)
{
    gcn_inst in;
    int rc = gcn_decode(bytes, n, &in);
    assert_true(rc > 0);
    return in;
}

/* Random float with a wide exponent range, plus specials at fixed lanes. */
static float rand_f(void)
{
    uint32_t u = (uint32_t)tw_rand(&seed);
    uint32_t e = 97 + (uint32_t)(tw_rand(&seed) % 60);   /* 2^-30..2^29 */
    return tw_f((u & 0x807fffffu) | e << 23);
}

static const float specials_f[] = {
    0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 0x1p-149f,
    -0x1p-140f, FLT_MAX, -FLT_MAX, FLT_MIN, 0.5f, 3.0f, 1e-30f, 1e30f,
};

static void fill_f(test_wave *t, unsigned r)
{
    for (int l = 0; l < 64; l++)
        tw_v(t, r)[l] = tw_u(rand_f());
    for (int l = 0; l < 16; l++)
        tw_v(t, r)[l * 4 + (r & 3)] = tw_u(specials_f[(l + r) & 15]);
}

static void assert_same_f(float got, float want, const char *what, int lane)
{
    if (isnan(want) && isnan(got))
        return;
    if (tw_u(got) != tw_u(want))
        fail_msg("%s lane %d: got %a (0x%08x) want %a (0x%08x)", what, lane,
                 (double)got, tw_u(got), (double)want, tw_u(want));
}

static void assert_same_d(double got, double want, const char *what, int lane)
{
    if (isnan(want) && isnan(got))
        return;
    if (tw_ud(got) != tw_ud(want))
        fail_msg("%s lane %d: got %a want %a", what, lane, got, want);
}

static float host_min(float x, float y)
{
    if (isnan(x)) return y;
    if (isnan(y)) return x;
    if (x == y) return signbit(x) ? x : y;
    return x < y ? x : y;
}

static void test_f32_arith(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    fill_f(&t, 2);
    fill_f(&t, 3);
    fill_f(&t, 4);
    struct { gcn_op op; gcn_fmt fmt; } ops[] = {
        {GCN_OP_V_ADD_F32, GCN_FMT_VOP2}, {GCN_OP_V_SUB_F32, GCN_FMT_VOP2},
        {GCN_OP_V_SUBREV_F32, GCN_FMT_VOP2}, {GCN_OP_V_MUL_F32, GCN_FMT_VOP2},
        {GCN_OP_V_MIN_F32, GCN_FMT_VOP2}, {GCN_OP_V_MAD_F32, GCN_FMT_VOP3A},
        {GCN_OP_V_FMA_F32, GCN_FMT_VOP3A}, {GCN_OP_V_MUL_LEGACY_F32, GCN_FMT_VOP2},
    };
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        gcn_inst in = tw_inst(ops[k].op, ops[k].fmt, V(1), V(2), V(3), V(4));
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        for (int l = 0; l < 64; l++) {
            float x = tw_f(tw_v(&t, 2)[l]), y = tw_f(tw_v(&t, 3)[l]);
            float z = tw_f(tw_v(&t, 4)[l]), want;
            switch (ops[k].op) {
            case GCN_OP_V_ADD_F32: want = x + y; break;
            case GCN_OP_V_SUB_F32: want = x - y; break;
            case GCN_OP_V_SUBREV_F32: want = y - x; break;
            case GCN_OP_V_MUL_F32: want = x * y; break;
            case GCN_OP_V_MIN_F32: want = host_min(x, y); break;
            case GCN_OP_V_MAD_F32: { volatile float p = x * y; want = p + z; break; }
            case GCN_OP_V_FMA_F32: want = fmaf(x, y, z); break;
            default: want = (x == 0.0f || y == 0.0f) ? 0.0f : x * y; break;
            }
            assert_same_f(tw_f(tw_v(&t, 1)[l]), want,
                          gcn_op_table[ops[k].op].mnemonic, l);
        }
    }
    /* min/max: NaN operand yields the other; -0 orders below +0 */
    tw_v(&t, 2)[0] = tw_u(NAN), tw_v(&t, 3)[0] = tw_u(2.0f);
    tw_v(&t, 2)[1] = tw_u(-0.0f), tw_v(&t, 3)[1] = tw_u(0.0f);
    gcn_inst mx = tw_inst(GCN_OP_V_MAX_F32, GCN_FMT_VOP2, V(1), V(2), V(3), 0);
    assert_int_equal(tw_run(&t, &mx), MGS_OK);
    assert_int_equal(tw_v(&t, 1)[0], tw_u(2.0f));
    assert_int_equal(tw_v(&t, 1)[1], tw_u(0.0f));
    gcn_inst mn = tw_inst(GCN_OP_V_MIN_F32, GCN_FMT_VOP2, V(1), V(2), V(3), 0);
    assert_int_equal(tw_run(&t, &mn), MGS_OK);
    assert_int_equal(tw_v(&t, 1)[1], tw_u(-0.0f));
}

static void test_f64_arith(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    for (int l = 0; l < 64; l++) {
        tw_set64(&t, 2, l, tw_ud((double)rand_f() * (1.0 + 0x1p-40 * l)));
        tw_set64(&t, 4, l, tw_ud((double)rand_f() / 3.0));
        tw_set64(&t, 6, l, tw_ud((double)rand_f()));
    }
    gcn_op ops[] = {GCN_OP_V_ADD_F64, GCN_OP_V_MUL_F64, GCN_OP_V_FMA_F64,
                    GCN_OP_V_MAX_F64};
    for (int k = 0; k < 4; k++) {
        gcn_inst in = tw_inst(ops[k], GCN_FMT_VOP3A, V(8), V(2), V(4), V(6));
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        for (int l = 0; l < 64; l++) {
            double x = tw_d(tw_v64(&t, 2, l)), y = tw_d(tw_v64(&t, 4, l));
            double z = tw_d(tw_v64(&t, 6, l));
            double want = k == 0 ? x + y : k == 1 ? x * y
                          : k == 2 ? fma(x, y, z) : (x > y ? x : y);
            assert_same_d(tw_d(tw_v64(&t, 8, l)), want,
                          gcn_op_table[ops[k]].mnemonic, l);
        }
    }
    /* neg modifier on a 64-bit source flips bit 63: v_add_f64 v[8:9], -v[2:3], v[2:3] = 0 */
    gcn_inst in = tw_inst(GCN_OP_V_ADD_F64, GCN_FMT_VOP3A, V(8), V(2), V(2), 0);
    in.neg = 1;
    assert_int_equal(tw_run(&t, &in), MGS_OK);
    assert_true(tw_d(tw_v64(&t, 8, 5)) == 0.0);
    /* f64 inline constant: v_mul_f64 v[8:9], 0.5, v[2:3] */
    in = tw_inst(GCN_OP_V_MUL_F64, GCN_FMT_VOP3A, V(8), GCN_OPR_F_HALF, V(2), 0);
    assert_int_equal(tw_run(&t, &in), MGS_OK);
    assert_same_d(tw_d(tw_v64(&t, 8, 9)), 0.5 * tw_d(tw_v64(&t, 2, 9)), "mul 0.5", 9);
}

/* VOP3 input and output modifiers, from real encodings. */
static void test_vop3_modifiers(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    fill_f(&t, 2);
    fill_f(&t, 3);
    /* v_add_f32_e64 v1, -|v2|, v3 clamp mul:2 */
    static const uint8_t add[] = {0x01, 0x81, 0x01, 0xd1,
                                  0x02, 0x07, 0x02, 0x28};
    gcn_inst a = decode(add, sizeof add);
    assert_int_equal(tw_run(&t, &a), MGS_OK);
    for (int l = 0; l < 64; l++) {
        float x = tw_f(tw_v(&t, 2)[l]), y = tw_f(tw_v(&t, 3)[l]);
        float r = (-fabsf(x) + y) * 2.0f;
        r = r > 1.0f ? 1.0f : r >= 0.0f ? r : 0.0f;   /* NaN -> 0 */
        assert_same_f(tw_f(tw_v(&t, 1)[l]), r, "add clamp mul:2", l);
    }
    /* v_mul_f32_e64 v1, |v2|, -v3 div:2 */
    static const uint8_t mul[] = {0x01, 0x01, 0x05, 0xd1,
                                  0x02, 0x07, 0x02, 0x58};
    gcn_inst m = decode(mul, sizeof mul);
    assert_int_equal(tw_run(&t, &m), MGS_OK);
    for (int l = 0; l < 64; l++) {
        float x = tw_f(tw_v(&t, 2)[l]), y = tw_f(tw_v(&t, 3)[l]);
        assert_same_f(tw_f(tw_v(&t, 1)[l]), (fabsf(x) * -y) * 0.5f,
                      "mul div:2", l);
    }
    /* omod x4 on an f64 result */
    tw_set64(&t, 4, 0, tw_ud(1.25));
    gcn_inst d = tw_inst(GCN_OP_V_ADD_F64, GCN_FMT_VOP3A, V(6), V(4), V(4), 0);
    d.omod = 2;
    assert_int_equal(tw_run(&t, &d), MGS_OK);
    assert_true(tw_d(tw_v64(&t, 6, 0)) == 10.0);
}

/* v_mac_f32 reads its destination; madmk/madak carry a literal K. */
static void test_mac_madk(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    fill_f(&t, 1);
    fill_f(&t, 2);
    fill_f(&t, 3);
    float acc[64];
    for (int l = 0; l < 64; l++)
        acc[l] = tw_f(tw_v(&t, 1)[l]);
    static const uint8_t mac[] = {0x02, 0x07, 0x02, 0x2c};   /* v_mac_f32 v1, v2, v3 */
    gcn_inst a = decode(mac, sizeof mac);
    assert_int_equal(tw_run(&t, &a), MGS_OK);
    for (int l = 0; l < 64; l++) {
        volatile float p = tw_f(tw_v(&t, 2)[l]) * tw_f(tw_v(&t, 3)[l]);
        assert_same_f(tw_f(tw_v(&t, 1)[l]), p + acc[l], "mac", l);
    }
    /* v_madak_f32 v1, v2, v3, 2.0 and v_madmk_f32 v1, v2, 2.0, v3 */
    static const uint8_t madak[] = {0x02, 0x07, 0x02, 0x30, 0, 0, 0, 0x40};
    static const uint8_t madmk[] = {0x02, 0x07, 0x02, 0x2e, 0, 0, 0, 0x40};
    gcn_inst k1 = decode(madak, sizeof madak), k2 = decode(madmk, sizeof madmk);
    assert_int_equal(tw_run(&t, &k1), MGS_OK);
    for (int l = 0; l < 64; l++) {
        volatile float p = tw_f(tw_v(&t, 2)[l]) * tw_f(tw_v(&t, 3)[l]);
        assert_same_f(tw_f(tw_v(&t, 1)[l]), p + 2.0f, "madak", l);
    }
    assert_int_equal(tw_run(&t, &k2), MGS_OK);
    for (int l = 0; l < 64; l++) {
        volatile float p = tw_f(tw_v(&t, 2)[l]) * 2.0f;
        assert_same_f(tw_f(tw_v(&t, 1)[l]), p + tw_f(tw_v(&t, 3)[l]), "madmk", l);
    }
}

static void test_conversions(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    static const float in[16] = {0.0f, -0.0f, 1.5f, -1.5f, 2.5f, -2.5f,
                                 3e9f, -3e9f, 5e9f, NAN, INFINITY, -INFINITY,
                                 2147483520.0f, -2147483648.0f, 0.49999997f,
                                 -0.5f};
    for (int l = 0; l < 64; l++)
        tw_v(&t, 2)[l] = tw_u(in[l & 15]);
    struct { gcn_op op; uint32_t want[16]; } cases[] = {
        {GCN_OP_V_CVT_I32_F32, {0, 0, 1, (uint32_t)-1, 2, (uint32_t)-2,
                                INT32_MAX, (uint32_t)INT32_MIN, INT32_MAX, 0,
                                INT32_MAX, (uint32_t)INT32_MIN, 2147483520u,
                                (uint32_t)INT32_MIN, 0, 0}},
        {GCN_OP_V_CVT_U32_F32, {0, 0, 1, 0, 2, 0, 3000000000u, 0, UINT32_MAX,
                                0, UINT32_MAX, 0, 2147483520u, 0, 0, 0}},
        {GCN_OP_V_CVT_FLR_I32_F32, {0, 0, 1, (uint32_t)-2, 2, (uint32_t)-3,
                                    INT32_MAX, (uint32_t)INT32_MIN, INT32_MAX,
                                    0, INT32_MAX, (uint32_t)INT32_MIN,
                                    2147483520u, (uint32_t)INT32_MIN, 0,
                                    (uint32_t)-1}},
        {GCN_OP_V_CVT_RPI_I32_F32, {0, 0, 2, (uint32_t)-1, 3, (uint32_t)-2,
                                    INT32_MAX, (uint32_t)INT32_MIN, INT32_MAX,
                                    0, INT32_MAX, (uint32_t)INT32_MIN,
                                    2147483520u, (uint32_t)INT32_MIN,
                                    1 /* 0.49999997 + 0.5 rounds to 1.0 */,
                                    0}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gcn_inst i = tw_inst(cases[k].op, GCN_FMT_VOP1, V(1), V(2), 0, 0);
        assert_int_equal(tw_run(&t, &i), MGS_OK);
        for (int l = 0; l < 64; l++)
            if (tw_v(&t, 1)[l] != cases[k].want[l & 15])
                fail_msg("%s(%a) lane %d = 0x%x, want 0x%x",
                         gcn_op_table[cases[k].op].mnemonic, (double)in[l & 15],
                         l, tw_v(&t, 1)[l], cases[k].want[l & 15]);
    }
    /* int -> float rounding, both signednesses */
    for (int l = 0; l < 64; l++)
        tw_v(&t, 2)[l] = (uint32_t)tw_rand(&seed);
    gcn_inst fi = tw_inst(GCN_OP_V_CVT_F32_I32, GCN_FMT_VOP1, V(1), V(2), 0, 0);
    gcn_inst fu = tw_inst(GCN_OP_V_CVT_F32_U32, GCN_FMT_VOP1, V(3), V(2), 0, 0);
    gcn_inst di = tw_inst(GCN_OP_V_CVT_F64_I32, GCN_FMT_VOP1, V(4), V(2), 0, 0);
    gcn_inst ub = tw_inst(GCN_OP_V_CVT_F32_UBYTE2, GCN_FMT_VOP1, V(6), V(2), 0, 0);
    assert_int_equal(tw_run(&t, &fi), MGS_OK);
    assert_int_equal(tw_run(&t, &fu), MGS_OK);
    assert_int_equal(tw_run(&t, &di), MGS_OK);
    assert_int_equal(tw_run(&t, &ub), MGS_OK);
    for (int l = 0; l < 64; l++) {
        uint32_t u = tw_v(&t, 2)[l];
        assert_int_equal(tw_v(&t, 1)[l], tw_u((float)(int32_t)u));
        assert_int_equal(tw_v(&t, 3)[l], tw_u((float)u));
        assert_true(tw_d(tw_v64(&t, 4, l)) == (double)(int32_t)u);
        assert_int_equal(tw_v(&t, 6)[l], tw_u((float)((u >> 16) & 255)));
    }
    /* f64 <-> f32 and f64 -> i32/u32 */
    for (int l = 0; l < 64; l++)
        tw_set64(&t, 8, l, tw_ud(((double)tw_rand(&seed) / 0x1p64 - 0.5) * 1e10));
    tw_set64(&t, 8, 0, tw_ud(1e300));
    tw_set64(&t, 8, 1, tw_ud(-1e300));
    gcn_inst f32 = tw_inst(GCN_OP_V_CVT_F32_F64, GCN_FMT_VOP1, V(1), V(8), 0, 0);
    gcn_inst i32 = tw_inst(GCN_OP_V_CVT_I32_F64, GCN_FMT_VOP1, V(3), V(8), 0, 0);
    gcn_inst u32 = tw_inst(GCN_OP_V_CVT_U32_F64, GCN_FMT_VOP1, V(5), V(8), 0, 0);
    assert_int_equal(tw_run(&t, &f32), MGS_OK);
    assert_int_equal(tw_run(&t, &i32), MGS_OK);
    assert_int_equal(tw_run(&t, &u32), MGS_OK);
    for (int l = 0; l < 64; l++) {
        double d = tw_d(tw_v64(&t, 8, l));
        assert_int_equal(tw_v(&t, 1)[l], tw_u((float)d));
        int32_t wi = d >= 2147483647.0 ? INT32_MAX
                     : d <= -2147483648.0 ? INT32_MIN : (int32_t)d;
        uint32_t wu = d <= 0 ? 0 : d >= 4294967295.0 ? UINT32_MAX : (uint32_t)d;
        assert_int_equal(tw_v(&t, 3)[l], (uint32_t)wi);
        assert_int_equal(tw_v(&t, 5)[l], wu);
    }
    gcn_inst back = tw_inst(GCN_OP_V_CVT_F64_F32, GCN_FMT_VOP1, V(10), V(1), 0, 0);
    assert_int_equal(tw_run(&t, &back), MGS_OK);
    assert_true(tw_d(tw_v64(&t, 10, 7)) == (double)tw_f(tw_v(&t, 1)[7]));
    assert_true(isinf(tw_d(tw_v64(&t, 10, 0))));
}

/* Exhaustive f16 <-> f32: every f16 round-trips; midpoints round to even. */
static void test_f16(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    gcn_inst up = tw_inst(GCN_OP_V_CVT_F32_F16, GCN_FMT_VOP1, V(1), V(2), 0, 0);
    gcn_inst dn = tw_inst(GCN_OP_V_CVT_F16_F32, GCN_FMT_VOP1, V(3), V(1), 0, 0);
    for (uint32_t base = 0; base < 65536; base += 64) {
        for (int l = 0; l < 64; l++)
            tw_v(&t, 2)[l] = base + (uint32_t)l;
        assert_int_equal(tw_run(&t, &up), MGS_OK);
        assert_int_equal(tw_run(&t, &dn), MGS_OK);
        for (int l = 0; l < 64; l++) {
            uint32_t h = base + (uint32_t)l;
            bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
            if (nan)
                assert_true(isnan(tw_f(tw_v(&t, 1)[l])));
            else
                assert_int_equal(tw_v(&t, 3)[l], h);
        }
    }
    /* known values */
    float vals[] = {1.0f, 65504.0f, 65520.0f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f,
                    1.0f + 0x1p-11f, 1.0f + 0x3p-11f, -2.0f, 1e-10f};
    uint32_t want[] = {0x3c00, 0x7bff, 0x7c00, 0x0001, 0x0000, 0x0001,
                       0x3c00, 0x3c02, 0xc000, 0x0000};
    for (int l = 0; l < 10; l++)
        tw_v(&t, 1)[l] = tw_u(vals[l]);
    assert_int_equal(tw_run(&t, &dn), MGS_OK);
    for (int l = 0; l < 10; l++)
        assert_int_equal(tw_v(&t, 3)[l], want[l]);
    /* f16 arithmetic: v_add_f16 and v_mad_f16 agree with f32 rounded */
    for (int l = 0; l < 64; l++) {
        tw_v(&t, 4)[l] = 0x3c00u + (uint32_t)l * 37;   /* 1.0 .. */
        tw_v(&t, 5)[l] = 0xb800u + (uint32_t)l * 11;   /* -0.5 .. */
    }
    gcn_inst add = tw_inst(GCN_OP_V_ADD_F16, GCN_FMT_VOP2, V(6), V(4), V(5), 0);
    assert_int_equal(tw_run(&t, &add), MGS_OK);
    gcn_inst f2 = tw_inst(GCN_OP_V_CVT_F32_F16, GCN_FMT_VOP1, V(7), V(4), 0, 0);
    gcn_inst f3 = tw_inst(GCN_OP_V_CVT_F32_F16, GCN_FMT_VOP1, V(8), V(5), 0, 0);
    gcn_inst f4 = tw_inst(GCN_OP_V_CVT_F32_F16, GCN_FMT_VOP1, V(9), V(6), 0, 0);
    assert_int_equal(tw_run(&t, &f2), MGS_OK);
    assert_int_equal(tw_run(&t, &f3), MGS_OK);
    assert_int_equal(tw_run(&t, &f4), MGS_OK);
    for (int l = 0; l < 64; l++) {
        float s = tw_f(tw_v(&t, 7)[l]) + tw_f(tw_v(&t, 8)[l]);
        /* result is s rounded to f16: within half an f16 ulp */
        float got = tw_f(tw_v(&t, 9)[l]);
        assert_true(fabsf(got - s) <= fabsf(s) * 0x1p-11f);
        assert_int_equal(tw_v(&t, 6)[l] >> 16, 0);   /* high half cleared */
    }
    /* f16 inline constant: v_add_f16 v6, 0.5, v4 (0.5 is 0x3800 for f16) */
    gcn_inst ai = tw_inst(GCN_OP_V_ADD_F16, GCN_FMT_VOP2, V(6), GCN_OPR_F_HALF,
                          V(4), 0);
    tw_v(&t, 4)[0] = 0x3c00;
    assert_int_equal(tw_run(&t, &ai), MGS_OK);
    assert_int_equal(tw_v(&t, 6)[0], 0x3e00);   /* 1.5 */
    /* v_cvt_pkrtz_f16_f32: round toward zero, two halves */
    tw_v(&t, 1)[0] = tw_u(1.0f + 0x1.fp-11f);   /* RNE would round up */
    tw_v(&t, 2)[0] = tw_u(-70000.0f);
    gcn_inst pk = tw_inst(GCN_OP_V_CVT_PKRTZ_F16_F32, GCN_FMT_VOP3A, V(3), V(1),
                          V(2), 0);
    assert_int_equal(tw_run(&t, &pk), MGS_OK);
    assert_int_equal(tw_v(&t, 3)[0], 0xfbffu << 16 | 0x3c00u);
}

static void test_rounding(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    static const float sp[] = {0.5f, -0.5f, 1.5f, 2.5f, -2.5f, -0.0f,
                               0x1p23f + 1, -0x1p24f, 8388607.5f, -1e-30f,
                               INFINITY, NAN, 0.99999994f, -3.75f, 1e20f, 0.0f};
    for (int l = 0; l < 64; l++)
        tw_v(&t, 2)[l] = l < 16 ? tw_u(sp[l]) : tw_u(rand_f());
    struct { gcn_op op; float (*ref)(float); } cases[] = {
        {GCN_OP_V_FLOOR_F32, floorf}, {GCN_OP_V_CEIL_F32, ceilf},
        {GCN_OP_V_TRUNC_F32, truncf}, {GCN_OP_V_RNDNE_F32, rintf},
    };
    for (size_t k = 0; k < 4; k++) {
        gcn_inst in = tw_inst(cases[k].op, GCN_FMT_VOP1, V(1), V(2), 0, 0);
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        for (int l = 0; l < 64; l++)
            assert_same_f(tw_f(tw_v(&t, 1)[l]), cases[k].ref(tw_f(tw_v(&t, 2)[l])),
                          gcn_op_table[cases[k].op].mnemonic, l);
    }
    gcn_inst fr = tw_inst(GCN_OP_V_FRACT_F32, GCN_FMT_VOP1, V(1), V(2), 0, 0);
    assert_int_equal(tw_run(&t, &fr), MGS_OK);
    for (int l = 0; l < 64; l++) {
        float x = tw_f(tw_v(&t, 2)[l]);
        if (!isfinite(x))
            continue;
        float want = fminf(x - floorf(x), 0x1.fffffep-1f);
        assert_same_f(tw_f(tw_v(&t, 1)[l]), want, "fract", l);
    }
    assert_same_f(tw_f(tw_v(&t, 1)[9]), 0x1.fffffep-1f, "fract(-1e-30)", 9);

    /* f64 floor/ceil/trunc/rndne/fract */
    for (int l = 0; l < 64; l++)
        tw_set64(&t, 4, l, tw_ud(l < 16 ? (double)sp[l] * 1.000000001
                                        : ((double)tw_rand(&seed) / 0x1p63 - 1) * 1e6));
    struct { gcn_op op; double (*ref)(double); } dcases[] = {
        {GCN_OP_V_FLOOR_F64, floor}, {GCN_OP_V_CEIL_F64, ceil},
        {GCN_OP_V_TRUNC_F64, trunc}, {GCN_OP_V_RNDNE_F64, rint},
    };
    for (size_t k = 0; k < 4; k++) {
        gcn_inst in = tw_inst(dcases[k].op, GCN_FMT_VOP1, V(6), V(4), 0, 0);
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        for (int l = 0; l < 64; l++)
            assert_same_d(tw_d(tw_v64(&t, 6, l)), dcases[k].ref(tw_d(tw_v64(&t, 4, l))),
                          gcn_op_table[dcases[k].op].mnemonic, l);
    }

    /* frexp / ldexp round trip */
    gcn_inst fm = tw_inst(GCN_OP_V_FREXP_MANT_F32, GCN_FMT_VOP1, V(1), V(2), 0, 0);
    gcn_inst fe = tw_inst(GCN_OP_V_FREXP_EXP_I32_F32, GCN_FMT_VOP1, V(3), V(2), 0, 0);
    gcn_inst ld = tw_inst(GCN_OP_V_LDEXP_F32, GCN_FMT_VOP3A, V(5), V(1), V(3), 0);
    assert_int_equal(tw_run(&t, &fm), MGS_OK);
    assert_int_equal(tw_run(&t, &fe), MGS_OK);
    assert_int_equal(tw_run(&t, &ld), MGS_OK);
    for (int l = 0; l < 64; l++) {
        float x = tw_f(tw_v(&t, 2)[l]);
        assert_same_f(tw_f(tw_v(&t, 5)[l]), x, "ldexp(frexp)", l);
        if (isfinite(x) && x != 0.0f)
            assert_true(fabsf(tw_f(tw_v(&t, 1)[l])) >= 0.5f &&
                        fabsf(tw_f(tw_v(&t, 1)[l])) < 1.0f);
    }
}

static void test_transcendentals(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    for (int l = 0; l < 64; l++)
        tw_v(&t, 2)[l] = tw_u(ldexpf((float)(tw_rand(&seed) >> 40) / 0x1p24f,
                                     (int)(l % 40) - 20));
    tw_v(&t, 2)[0] = tw_u(0.0f);
    tw_v(&t, 2)[1] = tw_u(-1.0f);
    tw_v(&t, 2)[2] = tw_u(INFINITY);
    tw_v(&t, 2)[3] = tw_u(1.0f);
    struct { gcn_op op; double (*ref)(double); } cases[] = {
        {GCN_OP_V_EXP_F32, exp2}, {GCN_OP_V_LOG_F32, log2},
        {GCN_OP_V_SQRT_F32, sqrt},
    };
    for (size_t k = 0; k < 3; k++) {
        gcn_inst in = tw_inst(cases[k].op, GCN_FMT_VOP1, V(1), V(2), 0, 0);
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        for (int l = 0; l < 64; l++) {
            float x = tw_f(tw_v(&t, 2)[l]);
            float want = (float)cases[k].ref(x), got = tw_f(tw_v(&t, 1)[l]);
            if (isnan(want) || isinf(want)) {
                assert_same_f(got, want, gcn_op_table[cases[k].op].mnemonic, l);
                continue;
            }
            if (tw_ulp_f(got, want) > 1)
                fail_msg("%s(%a) = %a, want %a", gcn_op_table[cases[k].op].mnemonic,
                         (double)x, (double)got, (double)want);
        }
    }
    gcn_inst rcp = tw_inst(GCN_OP_V_RCP_F32, GCN_FMT_VOP1, V(1), V(2), 0, 0);
    gcn_inst rsq = tw_inst(GCN_OP_V_RSQ_F32, GCN_FMT_VOP1, V(3), V(2), 0, 0);
    assert_int_equal(tw_run(&t, &rcp), MGS_OK);
    assert_int_equal(tw_run(&t, &rsq), MGS_OK);
    for (int l = 4; l < 64; l++) {
        float x = tw_f(tw_v(&t, 2)[l]);
        assert_true(tw_ulp_f(tw_f(tw_v(&t, 1)[l]), (float)(1.0 / x)) <= 1);
        assert_true(tw_ulp_f(tw_f(tw_v(&t, 3)[l]), (float)(1.0 / sqrt(x))) <= 1);
    }
    assert_true(isinf(tw_f(tw_v(&t, 1)[0])));   /* rcp(0) = +inf */
    assert_true(isnan(tw_f(tw_v(&t, 3)[1])));   /* rsq(-1) = NaN */
    /* sin/cos take revolutions: sin(0.25 rev) = 1 */
    for (int l = 0; l < 64; l++)
        tw_v(&t, 2)[l] = tw_u((float)l / 16.0f - 2.0f + 0x1p-10f * (float)l);
    gcn_inst sn = tw_inst(GCN_OP_V_SIN_F32, GCN_FMT_VOP1, V(1), V(2), 0, 0);
    gcn_inst cs = tw_inst(GCN_OP_V_COS_F32, GCN_FMT_VOP1, V(3), V(2), 0, 0);
    assert_int_equal(tw_run(&t, &sn), MGS_OK);
    assert_int_equal(tw_run(&t, &cs), MGS_OK);
    for (int l = 0; l < 64; l++) {
        double x = tw_f(tw_v(&t, 2)[l]) * 2 * 3.14159265358979323846;
        assert_true(fabs(tw_f(tw_v(&t, 1)[l]) - sin(x)) <= 0x1p-22);
        assert_true(fabs(tw_f(tw_v(&t, 3)[l]) - cos(x)) <= 0x1p-22);
    }
}

/* v_exp_f32 over its whole range: within 1 ulp of the double result
** rounded to float, including denormal results, overflow and specials. */
static void test_exp2_range(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    gcn_inst in = tw_inst(GCN_OP_V_EXP_F32, GCN_FMT_VOP1, V(1), V(2), 0, 0);
    for (int round = 0; round < 40; round++) {
        for (int l = 0; l < 64; l++) {
            double u = (double)(tw_rand(&seed) >> 11) / 0x1p53;
            tw_v(&t, 2)[l] = tw_u((float)(-170.0 + 310.0 * u));
        }
        if (round == 0) {
            float sp[8] = {NAN, -INFINITY, INFINITY, 0.0f, -0.0f, 128.0f,
                           -149.0f, -149.5f};
            for (int l = 0; l < 8; l++)
                tw_v(&t, 2)[l] = tw_u(sp[l]);
        }
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        for (int l = 0; l < 64; l++) {
            float x = tw_f(tw_v(&t, 2)[l]), got = tw_f(tw_v(&t, 1)[l]);
            float want = (float)exp2((double)x);
            if (isnan(x)) {
                assert_true(isnan(got));
                continue;
            }
            if (isinf(want) || want == 0.0f) {
                assert_int_equal(tw_u(got), tw_u(want));
                continue;
            }
            if (tw_ulp_f(got, want) > 1)
                fail_msg("exp2(%a) = %a, want %a", (double)x, (double)got,
                         (double)want);
        }
    }
    /* in place (destination = source) */
    for (int l = 0; l < 64; l++)
        tw_v(&t, 1)[l] = tw_u((float)l / 8.0f - 4.0f);
    tw_v(&t, 1)[5] = tw_u(NAN);
    gcn_inst ip = tw_inst(GCN_OP_V_EXP_F32, GCN_FMT_VOP1, V(1), V(1), 0, 0);
    assert_int_equal(tw_run(&t, &ip), MGS_OK);
    assert_true(isnan(tw_f(tw_v(&t, 1)[5])));
    assert_true(tw_f(tw_v(&t, 1)[32]) == 1.0f);
    assert_true(tw_f(tw_v(&t, 1)[40]) == 2.0f);
}

/* v_log_f32 over all positive floats (denormals included) and specials. */
static void test_log2_range(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    gcn_inst in = tw_inst(GCN_OP_V_LOG_F32, GCN_FMT_VOP1, V(1), V(2), 0, 0);
    for (int round = 0; round < 40; round++) {
        for (int l = 0; l < 64; l++)
            tw_v(&t, 2)[l] = (uint32_t)tw_rand(&seed) % 0x7f800000u;
        if (round == 0) {
            float sp[12] = {0.0f, -0.0f, -1.0f, NAN, INFINITY, -INFINITY,
                            1.0f, 2.0f, 0x1p-149f, 0x1p127f, 0.5f,
                            1.0f + 0x1p-23f};
            for (int l = 0; l < 12; l++)
                tw_v(&t, 2)[l] = tw_u(sp[l]);
        }
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        for (int l = 0; l < 64; l++) {
            float x = tw_f(tw_v(&t, 2)[l]), got = tw_f(tw_v(&t, 1)[l]);
            float want = (float)log2((double)x);
            if (isnan(want) || isinf(want)) {
                if (isnan(want))
                    assert_true(isnan(got));
                else
                    assert_int_equal(tw_u(got), tw_u(want));
                continue;
            }
            if (tw_ulp_f(got, want) > 1)
                fail_msg("log2(%a) = %a, want %a", (double)x, (double)got,
                         (double)want);
        }
        if (round == 0) {
            assert_true(tw_f(tw_v(&t, 1)[6]) == 0.0f);      /* log2(1) */
            assert_true(tw_f(tw_v(&t, 1)[8]) == -149.0f);   /* exact */
        }
    }
}

/* The f64 division sequence hipcc emits for gfx803 (see docs/valu.md):
**   v_div_scale_f64 v[4:5], s[2:3], v[2:3], v[2:3], v[0:1]
**   v_div_scale_f64 v[10:11], vcc, v[0:1], v[2:3], v[0:1]
**   v_rcp_f64 v[6:7], v[4:5]
**   v_fma_f64 v[8:9], -v[4:5], v[6:7], 1.0
**   v_fma_f64 v[6:7], v[6:7], v[8:9], v[6:7]
**   v_fma_f64 v[8:9], -v[4:5], v[6:7], 1.0
**   v_fma_f64 v[6:7], v[6:7], v[8:9], v[6:7]
**   v_mul_f64 v[8:9], v[10:11], v[6:7]
**   v_fma_f64 v[4:5], -v[4:5], v[8:9], v[10:11]
**   v_div_fmas_f64 v[4:5], v[4:5], v[6:7], v[8:9]
**   v_div_fixup_f64 v[0:1], v[4:5], v[2:3], v[0:1]      (v0 = a / v2) */
static void run_div_f64(test_wave *t)
{
    const unsigned ONE = GCN_OPR_F_HALF + 2;   /* 1.0 */
    gcn_inst p[11] = {
        tw_inst(GCN_OP_V_DIV_SCALE_F64, GCN_FMT_VOP3B, V(4), V(2), V(2), V(0)),
        tw_inst(GCN_OP_V_DIV_SCALE_F64, GCN_FMT_VOP3B, V(10), V(0), V(2), V(0)),
        tw_inst(GCN_OP_V_RCP_F64, GCN_FMT_VOP1, V(6), V(4), 0, 0),
        tw_inst(GCN_OP_V_FMA_F64, GCN_FMT_VOP3A, V(8), V(4), V(6), ONE),
        tw_inst(GCN_OP_V_FMA_F64, GCN_FMT_VOP3A, V(6), V(6), V(8), V(6)),
        tw_inst(GCN_OP_V_FMA_F64, GCN_FMT_VOP3A, V(8), V(4), V(6), ONE),
        tw_inst(GCN_OP_V_FMA_F64, GCN_FMT_VOP3A, V(6), V(6), V(8), V(6)),
        tw_inst(GCN_OP_V_MUL_F64, GCN_FMT_VOP3A, V(8), V(10), V(6), 0),
        tw_inst(GCN_OP_V_FMA_F64, GCN_FMT_VOP3A, V(4), V(4), V(8), V(10)),
        tw_inst(GCN_OP_V_DIV_FMAS_F64, GCN_FMT_VOP3A, V(4), V(4), V(6), V(8)),
        tw_inst(GCN_OP_V_DIV_FIXUP_F64, GCN_FMT_VOP3A, V(0), V(4), V(2), V(0)),
    };
    p[0].sdst = 2;
    p[1].sdst = GCN_OPR_VCC_LO;
    p[3].neg = p[5].neg = p[8].neg = 1;
    for (int i = 0; i < 11; i++)
        assert_int_equal(tw_run(t, &p[i]), MGS_OK);
}

/* f32 sequence (hipcc gfx803):
**   v_div_scale_f32 v1, s[2:3], v0, v0, v3 ; v_div_scale_f32 v4, vcc, v3, v0, v3
**   v_rcp_f32 v5, v1 ; v_fma_f32 v6, -v1, v5, 1.0 ; v_fma_f32 v5, v6, v5, v5
**   v_mul_f32 v6, v4, v5 ; v_fma_f32 v7, -v1, v6, v4 ; v_fma_f32 v6, v7, v5, v6
**   v_fma_f32 v1, -v1, v6, v4 ; v_div_fmas_f32 v1, v1, v5, v6
**   v_div_fixup_f32 v3, v1, v0, v3                        (v3 = v3 / v0) */
static void run_div_f32(test_wave *t)
{
    const unsigned ONE = GCN_OPR_F_HALF + 2;
    gcn_inst p[11] = {
        tw_inst(GCN_OP_V_DIV_SCALE_F32, GCN_FMT_VOP3B, V(1), V(0), V(0), V(3)),
        tw_inst(GCN_OP_V_DIV_SCALE_F32, GCN_FMT_VOP3B, V(4), V(3), V(0), V(3)),
        tw_inst(GCN_OP_V_RCP_F32, GCN_FMT_VOP1, V(5), V(1), 0, 0),
        tw_inst(GCN_OP_V_FMA_F32, GCN_FMT_VOP3A, V(6), V(1), V(5), ONE),
        tw_inst(GCN_OP_V_FMA_F32, GCN_FMT_VOP3A, V(5), V(6), V(5), V(5)),
        tw_inst(GCN_OP_V_MUL_F32, GCN_FMT_VOP2, V(6), V(4), V(5), 0),
        tw_inst(GCN_OP_V_FMA_F32, GCN_FMT_VOP3A, V(7), V(1), V(6), V(4)),
        tw_inst(GCN_OP_V_FMA_F32, GCN_FMT_VOP3A, V(6), V(7), V(5), V(6)),
        tw_inst(GCN_OP_V_FMA_F32, GCN_FMT_VOP3A, V(1), V(1), V(6), V(4)),
        tw_inst(GCN_OP_V_DIV_FMAS_F32, GCN_FMT_VOP3A, V(1), V(1), V(5), V(6)),
        tw_inst(GCN_OP_V_DIV_FIXUP_F32, GCN_FMT_VOP3A, V(3), V(1), V(0), V(3)),
    };
    p[0].sdst = 2;
    p[1].sdst = GCN_OPR_VCC_LO;
    p[3].neg = p[6].neg = p[8].neg = 1;
    for (int i = 0; i < 11; i++)
        assert_int_equal(tw_run(t, &p[i]), MGS_OK);
}

static void test_div_f64(void **state)
{
    (void)state;
    static const double pairs[][2] = {
        {1, 3}, {-7, 2}, {1e308, 1e-308}, {1e-308, 1e308}, {5e-324, 3},
        {3, 5e-324}, {DBL_MAX, 0.5}, {DBL_MAX, 2}, {DBL_MIN, 3},
        {DBL_MIN / 2, DBL_MAX}, {0, 5}, {5, 0}, {0, 0}, {INFINITY, INFINITY},
        {INFINITY, 2}, {2, INFINITY}, {NAN, 1}, {1, NAN}, {-0.0, 3},
        {1, -0.0}, {0.1, 0.1}, {1e200, 1e-200}, {1e-200, 1e200},
        {DBL_MAX, DBL_MIN}, {DBL_MIN, DBL_MAX}, {1.5, DBL_MAX},
        {4.9e-324, 0.75}, {2.2250738585072009e-308, 1.0000000000000002},
        {DBL_MAX, DBL_MAX}, {1e-300, 1e10}, {123456789.0, 1e-300},
        {-1e-310, 1e-5},
    };
    const int np = (int)(sizeof pairs / sizeof pairs[0]);
    test_wave t;
    tw_init(&t);
    for (int round = 0; round < 4; round++) {
        for (int l = 0; l < 64; l++) {
            double a, b;
            if (round == 0 && l < np) {
                a = pairs[l][0];
                b = pairs[l][1];
            } else {
                /* random significands and exponents over the full range */
                a = ldexp(1.0 + (double)(tw_rand(&seed) >> 12) / 0x1p52,
                          (int)(tw_rand(&seed) % 2100) - 1080);
                b = ldexp(1.0 + (double)(tw_rand(&seed) >> 12) / 0x1p52,
                          (int)(tw_rand(&seed) % 2100) - 1080);
                if (l & 1)
                    a = -a;
            }
            tw_set64(&t, 0, l, tw_ud(a));
            tw_set64(&t, 2, l, tw_ud(b));
            tw_set64(&t, 12, l, tw_ud(a));
        }
        run_div_f64(&t);
        for (int l = 0; l < 64; l++) {
            double a = tw_d(tw_v64(&t, 12, l)), b = tw_d(tw_v64(&t, 2, l));
            double got = tw_d(tw_v64(&t, 0, l)), want = a / b;
            if (!(isnan(want) && isnan(got)) && tw_ud(got) != tw_ud(want))
                fail_msg("round %d lane %d: %a / %a = %a, want %a", round, l,
                         a, b, got, want);
        }
    }
}

static void test_div_f32(void **state)
{
    (void)state;
    static const float pairs[][2] = {
        {1, 3}, {-7, 2}, {1e38f, 1e-38f}, {1e-38f, 1e38f}, {0x1p-149f, 3},
        {3, 0x1p-149f}, {FLT_MAX, 0.5f}, {FLT_MAX, 2}, {FLT_MIN, 3},
        {FLT_MIN / 2, FLT_MAX}, {0, 5}, {5, 0}, {0, 0}, {INFINITY, INFINITY},
        {INFINITY, 2}, {2, INFINITY}, {NAN, 1}, {1, NAN}, {-0.0f, 3},
        {1, -0.0f}, {0.1f, 0.1f}, {1e20f, 1e-20f}, {1e-20f, 1e20f},
        {FLT_MAX, FLT_MIN}, {FLT_MIN, FLT_MAX}, {1.5f, FLT_MAX},
        {0x1.8p-149f, 0.75f}, {-1e-40f, 1e-5f},
    };
    const int np = (int)(sizeof pairs / sizeof pairs[0]);
    test_wave t;
    tw_init(&t);
    for (int round = 0; round < 8; round++) {
        for (int l = 0; l < 64; l++) {
            float a, b;
            if (round == 0 && l < np) {
                a = pairs[l][0];
                b = pairs[l][1];
            } else {
                a = ldexpf(1.0f + (float)(tw_rand(&seed) >> 41) / 0x1p23f,
                           (int)(tw_rand(&seed) % 300) - 150);
                b = ldexpf(1.0f + (float)(tw_rand(&seed) >> 41) / 0x1p23f,
                           (int)(tw_rand(&seed) % 300) - 150);
                if (l & 2)
                    b = -b;
            }
            tw_v(&t, 3)[l] = tw_u(a);
            tw_v(&t, 0)[l] = tw_u(b);
            tw_v(&t, 12)[l] = tw_u(a);
        }
        run_div_f32(&t);
        for (int l = 0; l < 64; l++) {
            float a = tw_f(tw_v(&t, 12)[l]), b = tw_f(tw_v(&t, 0)[l]);
            float got = tw_f(tw_v(&t, 3)[l]), want = a / b;
            if (!(isnan(want) && isnan(got)) && tw_u(got) != tw_u(want))
                fail_msg("round %d lane %d: %a / %a = %a, want %a", round, l,
                         (double)a, (double)b, (double)got, (double)want);
        }
    }
}

static void test_float_compares(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    static const float xs[8] = {1, 2, NAN, 1, -0.0f, INFINITY, NAN, 3};
    static const float ys[8] = {2, 1, 1, 1, 0.0f, INFINITY, NAN, NAN};
    for (int l = 0; l < 64; l++) {
        tw_v(&t, 1)[l] = tw_u(xs[l & 7]);
        tw_v(&t, 2)[l] = tw_u(ys[l & 7]);
    }
    /* per condition: 8-bit pattern over the 8 lanes above */
    struct { gcn_op op; uint8_t m; } cases[] = {
        {GCN_OP_V_CMP_F_F32, 0x00}, {GCN_OP_V_CMP_LT_F32, 0x01},
        {GCN_OP_V_CMP_EQ_F32, 0x38}, {GCN_OP_V_CMP_LE_F32, 0x39},
        {GCN_OP_V_CMP_GT_F32, 0x02}, {GCN_OP_V_CMP_LG_F32, 0x03},
        {GCN_OP_V_CMP_GE_F32, 0x3a}, {GCN_OP_V_CMP_O_F32, 0x3b},
        {GCN_OP_V_CMP_U_F32, 0xc4}, {GCN_OP_V_CMP_NGE_F32, 0xc5},
        {GCN_OP_V_CMP_NLG_F32, 0xfc}, {GCN_OP_V_CMP_NGT_F32, 0xfd},
        {GCN_OP_V_CMP_NLE_F32, 0xc6}, {GCN_OP_V_CMP_NEQ_F32, 0xc7},
        {GCN_OP_V_CMP_NLT_F32, 0xfe}, {GCN_OP_V_CMP_TRU_F32, 0xff},
    };
    for (size_t k = 0; k < 16; k++) {
        gcn_inst in = tw_inst(cases[k].op, GCN_FMT_VOPC, 0, V(1), V(2), 0);
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        uint64_t want = 0;
        for (int l = 0; l < 64; l++)
            want |= (uint64_t)((cases[k].m >> (l & 7)) & 1) << l;
        if (t.w.vcc != want)
            fail_msg("%s: 0x%016llx want 0x%016llx", gcn_op_table[cases[k].op].mnemonic,
                     (unsigned long long)t.w.vcc, (unsigned long long)want);
    }
    /* f64 and f16 variants of one condition; cmpx writes exec */
    for (int l = 0; l < 64; l++) {
        tw_set64(&t, 4, l, tw_ud((double)xs[l & 7]));
        tw_set64(&t, 6, l, tw_ud((double)ys[l & 7]));
        tw_v(&t, 8)[l] = l & 1 ? 0x7e00u : 0x3c00u;   /* NaN / 1.0 */
        tw_v(&t, 9)[l] = 0x3c00u;
    }
    gcn_inst d = tw_inst(GCN_OP_V_CMPX_NEQ_F64, GCN_FMT_VOPC, 0, V(4), V(6), 0);
    assert_int_equal(tw_run(&t, &d), MGS_OK);
    assert_int_equal(t.w.exec, 0xc7c7c7c7c7c7c7c7ull);
    t.w.exec = ~0ull;
    gcn_inst h = tw_inst(GCN_OP_V_CMP_EQ_F16, GCN_FMT_VOPC, 0, V(8), V(9), 0);
    assert_int_equal(tw_run(&t, &h), MGS_OK);
    assert_int_equal(t.w.vcc, 0x5555555555555555ull);

    /* v_cmp_class_f32 / f64 */
    static const float cl[10] = {0, -0.0f, 1, -1, INFINITY, -INFINITY,
                                 0x1p-140f, -0x1p-140f, NAN, 0};
    for (int l = 0; l < 64; l++) {
        tw_v(&t, 1)[l] = tw_u(cl[l % 10]);
        tw_v(&t, 2)[l] = 1u << (l % 10);
        tw_set64(&t, 4, l, tw_ud((double)cl[l % 10]));
    }
    tw_v(&t, 1)[9] = 0x7f800001u;   /* signalling NaN */
    static const unsigned cls[10] = {6, 5, 8, 3, 9, 2, 7, 4, 1, 0};
    for (int l = 0; l < 64; l++)
        tw_v(&t, 3)[l] = 1u << cls[l % 10];
    tw_v(&t, 3)[9] = 1u;
    gcn_inst c = tw_inst(GCN_OP_V_CMP_CLASS_F32, GCN_FMT_VOPC, 0, V(1), V(3), 0);
    assert_int_equal(tw_run(&t, &c), MGS_OK);
    uint64_t want = ~0ull;
    for (int l = 19; l < 64; l += 10)
        want &= ~(1ull << l);   /* lanes 19, 29.. hold 0.0 tested as sNaN */
    assert_int_equal(t.w.vcc, want);
    gcn_inst c64 = tw_inst(GCN_OP_V_CMP_CLASS_F64, GCN_FMT_VOPC, 0, V(4), V(3), 0);
    assert_int_equal(tw_run(&t, &c64), MGS_OK);
    /* lanes 6/7 hold f32 denormals, which are normal doubles */
    assert_int_equal(t.w.vcc & 0x3ff, 0x13f);
}

/* Half-precision operations against GCC's _Float16 (its conversions are
** an independent reference for the executor's f16 rounding). */
static uint32_t h_bits(_Float16 h)
{
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}
static _Float16 h_val(uint32_t u)
{
    uint16_t v = (uint16_t)u;
    _Float16 h;
    memcpy(&h, &v, 2);
    return h;
}

static void test_f16_ops(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    for (int l = 0; l < 64; l++) {
        /* finite f16 values with varied exponents (no inf/NaN) */
        tw_v(&t, 2)[l] = (uint32_t)tw_rand(&seed) & 0xbbffu;
        tw_v(&t, 3)[l] = (uint32_t)tw_rand(&seed) & 0xbbffu;
        tw_v(&t, 4)[l] = (uint32_t)tw_rand(&seed) & 0xbbffu;
    }
    static const gcn_op ops[] = {
        GCN_OP_V_ADD_F16, GCN_OP_V_SUB_F16, GCN_OP_V_SUBREV_F16,
        GCN_OP_V_MUL_F16, GCN_OP_V_MAX_F16, GCN_OP_V_MIN_F16,
        GCN_OP_V_MAD_F16, GCN_OP_V_FMA_F16, GCN_OP_V_FLOOR_F16,
        GCN_OP_V_CEIL_F16, GCN_OP_V_TRUNC_F16, GCN_OP_V_RNDNE_F16,
        GCN_OP_V_SQRT_F16, GCN_OP_V_CVT_I16_F16, GCN_OP_V_CVT_F16_I16,
    };
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        gcn_fmt fmt = gcn_op_table[ops[k]].fmt;
        gcn_inst in = tw_inst(ops[k], fmt, V(1), V(2), V(3), V(4));
        assert_int_equal(tw_run(&t, &in), MGS_OK);
        for (int l = 0; l < 64; l++) {
            _Float16 x = h_val(tw_v(&t, 2)[l]), y = h_val(tw_v(&t, 3)[l]);
            _Float16 z = h_val(tw_v(&t, 4)[l]);
            float fx = (float)x, fy = (float)y, fz = (float)z;
            uint32_t want;
            switch (ops[k]) {
            case GCN_OP_V_ADD_F16: want = h_bits((_Float16)(fx + fy)); break;
            case GCN_OP_V_SUB_F16: want = h_bits((_Float16)(fx - fy)); break;
            case GCN_OP_V_SUBREV_F16: want = h_bits((_Float16)(fy - fx)); break;
            case GCN_OP_V_MUL_F16: want = h_bits((_Float16)(fx * fy)); break;
            case GCN_OP_V_MAX_F16: want = h_bits(fx > fy ? x : y); break;
            case GCN_OP_V_MIN_F16: want = h_bits(fx < fy ? x : y); break;
            case GCN_OP_V_MAD_F16:
                want = h_bits((_Float16)((float)(_Float16)(fx * fy) + fz));
                break;
            case GCN_OP_V_FMA_F16:
                want = h_bits((_Float16)fma(fx, fy, fz));
                break;
            case GCN_OP_V_FLOOR_F16: want = h_bits((_Float16)floorf(fx)); break;
            case GCN_OP_V_CEIL_F16: want = h_bits((_Float16)ceilf(fx)); break;
            case GCN_OP_V_TRUNC_F16: want = h_bits((_Float16)truncf(fx)); break;
            case GCN_OP_V_RNDNE_F16: want = h_bits((_Float16)rintf(fx)); break;
            case GCN_OP_V_SQRT_F16: want = h_bits((_Float16)sqrtf(fx)); break;
            case GCN_OP_V_CVT_I16_F16:
                want = (uint32_t)(int32_t)truncf(fx) & 0xffffu;
                break;
            default:   /* v_cvt_f16_i16 of the raw bits of x */
                want = h_bits((_Float16)(int16_t)(uint16_t)tw_v(&t, 2)[l]);
                break;
            }
            if (ops[k] == GCN_OP_V_SQRT_F16 && fx < 0) {
                assert_true((tw_v(&t, 1)[l] & 0x7c00u) == 0x7c00u &&
                            (tw_v(&t, 1)[l] & 0x3ffu));   /* NaN */
                continue;
            }
            if ((ops[k] == GCN_OP_V_MAX_F16 || ops[k] == GCN_OP_V_MIN_F16) &&
                fx == fy)
                continue;   /* +-0 ordering checked for f32 */
            if (tw_v(&t, 1)[l] != want)
                fail_msg("%s lane %d (%a, %a, %a): 0x%04x want 0x%04x",
                         gcn_op_table[ops[k]].mnemonic, l, (double)fx,
                         (double)fy, (double)fz, tw_v(&t, 1)[l], want);
        }
    }
}

/* v_trig_preop_f64: segments of 2/pi; expected values from the ISA
** pseudocode evaluated with exact integer arithmetic (Python, Machin pi). */
static void test_trig_preop(void **state)
{
    (void)state;
    test_wave t;
    tw_init(&t);
    struct { double x; uint32_t seg; double want; } cases[] = {
        {1.0, 0, 0x1.45f306dc9c882p-1},     /* 2/pi truncated to 53 bits */
        {1.0, 1, 0x1.4a7f09d5f47d4p-54},
        {-1.5, 2, 0x1.a6ee06db14accp-107},
        {0x1p77, 1, 0x1.d5f47d4d37702p-78}, /* exponent field 1100 */
        {0x1p977, 0, 0x1.a797fa8b5d49cp-798}, /* 2000: scaled by 2^128 */
        {0x1.8p1023, 2, 0x1.2ea6bfb5fb11fp-948},
    };
    for (int l = 0; l < 6; l++) {
        tw_set64(&t, 2, l, tw_ud(cases[l].x));
        tw_v(&t, 4)[l] = cases[l].seg;
    }
    gcn_inst in = tw_inst(GCN_OP_V_TRIG_PREOP_F64, GCN_FMT_VOP3A, V(6), V(2),
                          V(4), 0);
    assert_int_equal(tw_run(&t, &in), MGS_OK);
    for (int l = 0; l < 6; l++)
        assert_same_d(tw_d(tw_v64(&t, 6, l)), cases[l].want, "trig_preop", l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f32_arith),
        cmocka_unit_test(test_f64_arith),
        cmocka_unit_test(test_vop3_modifiers),
        cmocka_unit_test(test_mac_madk),
        cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_f16),
        cmocka_unit_test(test_rounding),
        cmocka_unit_test(test_transcendentals),
        cmocka_unit_test(test_div_f64),
        cmocka_unit_test(test_div_f32),
        cmocka_unit_test(test_float_compares),
        cmocka_unit_test(test_trig_preop),
        cmocka_unit_test(test_f16_ops),
        cmocka_unit_test(test_exp2_range),
        cmocka_unit_test(test_log2_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
