/*
** Vector ALU semantics, part 3: floating point (GCN3 ISA manual §6.3
** "Floating-point operations" for the IEEE rules; opcode descriptions in
** §12.7 VOP2, §12.8 VOP1, §12.10 VOP3A/VOP3B).
**
** Precision model (see docs/valu.md for the full list of deviations):
**   - add/sub/mul/fma/sqrt/conversions are IEEE round-to-nearest-even and
**     bit-exact; denormals are kept (the kernel's MODE denormal flags are
**     not modelled); v_mad/v_mac are unfused (two roundings), v_fma fused.
**   - v_rsq/v_sin/v_cos use the host libm, v_rcp an IEEE division,
**     v_exp_f32/v_log_f32 their own double-precision polynomials
**     (exp2_lanes, log2_lanes; host-libm independent): all are
**     correctly rounded or within 1 ulp, i.e. more precise than the
**     hardware's approximations (~1 ulp); v_sin/v_cos take the angle in
**     revolutions (x / 2pi) and reduce it exactly with fract().
**   - NaN results are the host's quiet NaNs (payload not modelled).
** The division helpers (v_div_scale, v_div_fmas, v_div_fixup) follow the
** ISA pseudocode with two clarifications: v_div_fmas undoes the scaling
** v_div_scale applied (2^+-64 for f32, 2^+-128 for f64), choosing the sign
** from the magnitude of its third operand (the scaled quotient) and
** rounding once when the result is denormal; v_div_fixup turns a NaN
** quotient of finite non-zero operands (an intermediate overflow) into a
** signed infinity. With these, the compiler's Newton-Raphson sequence yields
** the correctly rounded quotient for normal, denormal and special operands
** (tests/unit/gcn3/test_exec_valu_fp.c checks it against host division).
**
** Loops must vectorise (valu_int.h): float selects are written as bit-mask
** selects (sel_f/sel_d) because GCC keeps `c ? a : b` on floats as a branch
** under the default -ftrapping-math.
*/
#include "gcn3/valu_int.h"

#include "mgsim/errors.h"

#include <float.h>
#include <limits.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define LANES VALU_FOR_LANES(l)

/* f32 -> f32 with modifiers and omod/clamp: x, y, z are floats. */
#define F32_1(expr)                                                       \
    do {                                                                  \
        const uint32_t *a_ = valu_src_f32(c, 0);                          \
        LANES {                                                           \
            float x = valu_f(a_[l]);                                      \
            c->d[l] = valu_u(expr);                                       \
        }                                                                 \
        return valu_write_f32(c);                                         \
    } while (0)
#define F32_2(expr)                                                       \
    do {                                                                  \
        const uint32_t *a_ = valu_src_f32(c, 0), *b_ = valu_src_f32(c, 1); \
        LANES {                                                           \
            float x = valu_f(a_[l]), y = valu_f(b_[l]);                   \
            c->d[l] = valu_u(expr);                                       \
        }                                                                 \
        return valu_write_f32(c);                                         \
    } while (0)
#define F32_3(expr)                                                       \
    do {                                                                  \
        const uint32_t *a_ = valu_src_f32(c, 0), *b_ = valu_src_f32(c, 1); \
        const uint32_t *c_ = valu_src_f32(c, 2);                          \
        LANES {                                                           \
            float x = valu_f(a_[l]), y = valu_f(b_[l]), z = valu_f(c_[l]); \
            c->d[l] = valu_u(expr);                                       \
        }                                                                 \
        return valu_write_f32(c);                                         \
    } while (0)
/* f32 source, raw 32-bit result (integer conversions: no omod/clamp). */
#define F32_TO_B32(expr)                                                  \
    do {                                                                  \
        const uint32_t *a_ = valu_src_f32(c, 0);                          \
        LANES {                                                           \
            float x = valu_f(a_[l]);                                      \
            c->d[l] = (expr);                                             \
        }                                                                 \
        return valu_write_b32(c);                                         \
    } while (0)
/* raw 32-bit source, f32 result. */
#define B32_TO_F32(expr)                                                  \
    do {                                                                  \
        const uint32_t *a_ = valu_src_b32(c, 0);                          \
        LANES {                                                           \
            uint32_t u = a_[l];                                           \
            c->d[l] = valu_u(expr);                                       \
        }                                                                 \
        return valu_write_f32(c);                                         \
    } while (0)
/* raw 32-bit source, f16 result. */
#define B32_TO_F16(expr)                                                  \
    do {                                                                  \
        const uint32_t *a_ = valu_src_b32(c, 0);                          \
        LANES {                                                           \
            uint32_t u = a_[l];                                           \
            c->d[l] = valu_f32_to_f16(expr);                              \
        }                                                                 \
        return valu_write_f16(c);                                         \
    } while (0)
#define F64_1(expr)                                                       \
    do {                                                                  \
        const uint64_t *a_ = valu_src_f64(c, 0);                          \
        LANES {                                                           \
            double x = valu_d(a_[l]);                                     \
            c->d64[l] = valu_ud(expr);                                    \
        }                                                                 \
        return valu_write_f64(c);                                         \
    } while (0)
#define F64_2(expr)                                                       \
    do {                                                                  \
        const uint64_t *a_ = valu_src_f64(c, 0), *b_ = valu_src_f64(c, 1); \
        LANES {                                                           \
            double x = valu_d(a_[l]), y = valu_d(b_[l]);                  \
            c->d64[l] = valu_ud(expr);                                    \
        }                                                                 \
        return valu_write_f64(c);                                         \
    } while (0)
#define F64_3(expr)                                                       \
    do {                                                                  \
        const uint64_t *a_ = valu_src_f64(c, 0), *b_ = valu_src_f64(c, 1); \
        const uint64_t *c_ = valu_src_f64(c, 2);                          \
        LANES {                                                           \
            double x = valu_d(a_[l]), y = valu_d(b_[l]), z = valu_d(c_[l]); \
            c->d64[l] = valu_ud(expr);                                    \
        }                                                                 \
        return valu_write_f64(c);                                         \
    } while (0)
/* f16 operands (low 16 bits), computed in f32 and rounded back. */
#define F16_1(expr)                                                       \
    do {                                                                  \
        const uint32_t *a_ = valu_src_f16(c, 0);                          \
        LANES {                                                           \
            float x = valu_f16_to_f32((uint16_t)a_[l]);                   \
            c->d[l] = valu_f32_to_f16(expr);                              \
        }                                                                 \
        return valu_write_f16(c);                                         \
    } while (0)
#define F16_2(expr)                                                       \
    do {                                                                  \
        const uint32_t *a_ = valu_src_f16(c, 0), *b_ = valu_src_f16(c, 1); \
        LANES {                                                           \
            float x = valu_f16_to_f32((uint16_t)a_[l]);                   \
            float y = valu_f16_to_f32((uint16_t)b_[l]);                   \
            c->d[l] = valu_f32_to_f16(expr);                              \
        }                                                                 \
        return valu_write_f16(c);                                         \
    } while (0)
#define F16_3(expr)                                                       \
    do {                                                                  \
        const uint32_t *a_ = valu_src_f16(c, 0), *b_ = valu_src_f16(c, 1); \
        const uint32_t *c_ = valu_src_f16(c, 2);                          \
        LANES {                                                           \
            float x = valu_f16_to_f32((uint16_t)a_[l]);                   \
            float y = valu_f16_to_f32((uint16_t)b_[l]);                   \
            float z = valu_f16_to_f32((uint16_t)c_[l]);                   \
            c->d[l] = valu_f32_to_f16(expr);                              \
        }                                                                 \
        return valu_write_f16(c);                                         \
    } while (0)

/* ---- half precision ------------------------------------------------------ */

/* f32 -> f16 bits, round to nearest even (rtz: toward zero). */
static uint16_t f32_to_f16_mode(float f, bool rtz)
{
    uint32_t x = valu_u(f);
    uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) {
        if (ax > 0x7f800000u)
            return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
        return (uint16_t)(sign | 0x7c00u);
    }
    if (ax >= 0x477ff000u) {   /* >= 65520: overflows (RNE) */
        if (rtz)
            return (uint16_t)(sign | 0x7bffu);
        return (uint16_t)(sign | 0x7c00u);
    }
    uint32_t h, rem, half;
    if (ax < 0x38800000u) {   /* below 2^-14: f16 denormal or zero */
        if (ax < 0x33000000u)
            return (uint16_t)sign;
        uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
        unsigned shift = 126u - e;   /* 14..24 */
        h = m >> shift;
        rem = m & ((1u << shift) - 1);
        half = 1u << (shift - 1);
    } else {
        uint32_t r = ax - 0x38000000u;
        h = r >> 13;
        rem = r & 0x1fffu;
        half = 0x1000u;
    }
    if (!rtz && (rem > half || (rem == half && (h & 1))))
        h++;
    if (rtz && h >= 0x7c00u)
        h = 0x7bffu;
    return (uint16_t)(sign | h);
}

uint16_t valu_f32_to_f16(float f) { return f32_to_f16_mode(f, false); }

float valu_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f)
        return valu_f(sign | 0x7f800000u | (m << 13));
    if (e)
        return valu_f(sign | ((e + 112u) << 23) | (m << 13));
    float v = (float)m * 0x1p-24f;   /* denormal or zero: exact */
    return sign ? -v : v;
}

/* ---- scalar helpers -------------------------------------------------------- */

static inline bool isnan_f(float x) { return x != x; }
static inline bool isnan_d(double x) { return x != x; }

/* IEEE-mode min/max: a NaN operand yields the other; -0 < +0. Written as
** selects (no branches) so the lane loops vectorise: for equal operands
** OR-ing (min) / AND-ing (max) the bits picks -0 over +0 and is the
** identity otherwise. */
static inline float fmin_hw(float x, float y)
{
    float m = x < y ? x : y;
    m = x == y ? valu_f(valu_u(x) | valu_u(y)) : m;
    return y != y ? x : m;
}
static inline float fmax_hw(float x, float y)
{
    float m = x > y ? x : y;
    m = x == y ? valu_f(valu_u(x) & valu_u(y)) : m;
    return y != y ? x : m;
}
static inline double dmin_hw(double x, double y)
{
    double m = x < y ? x : y;
    m = x == y ? valu_d(valu_ud(x) | valu_ud(y)) : m;
    return y != y ? x : m;
}
static inline double dmax_hw(double x, double y)
{
    double m = x > y ? x : y;
    m = x == y ? valu_d(valu_ud(x) & valu_ud(y)) : m;
    return y != y ? x : m;
}

/* v_med3_f32: NaN anywhere gives min3 (ISA pseudocode). */
static inline float fmed3_hw(float x, float y, float z)
{
    if (isnan_f(x) || isnan_f(y) || isnan_f(z))
        return fmin_hw(fmin_hw(x, y), z);
    float mx = fmax_hw(fmax_hw(x, y), z);
    if (mx == x)
        return fmax_hw(y, z);
    if (mx == y)
        return fmax_hw(x, z);
    return fmax_hw(x, y);
}

/* Rounding without libm calls (floorf etc. are calls without SSE4.1) and
** without branches, so the loops vectorise. |x| >= 2^23 (2^52), inf and NaN
** are already integral and pass through; the integer conversion only ever
** sees in-range values. Every candidate value is computed first and the
** choice is a bit-mask select (sel_f/sel_d): with the default
** -ftrapping-math GCC keeps a float `c ? a : b` as a branch, which blocks
** vectorisation. */
static inline float sel_f(bool c, float a, float b)
{
    uint32_t m = 0u - (uint32_t)c;
    return valu_f((valu_u(a) & m) | (valu_u(b) & ~m));
}
static inline double sel_d(bool c, double a, double b)
{
    uint64_t m = 0ull - (uint64_t)c;
    return valu_d((valu_ud(a) & m) | (valu_ud(b) & ~m));
}
static inline float trunc_hw(float x)
{
    bool small = fabsf(x) < 0x1p23f;
    float t = copysignf((float)(int32_t)sel_f(small, x, 0.0f), x);
    return sel_f(small, t, x);
}
static inline float floor_hw(float x)
{
    float t = trunc_hw(x), t1 = t - 1.0f;
    return sel_f(t > x, t1, t);
}
static inline float ceil_hw(float x)
{
    float t = trunc_hw(x), t1 = t + 1.0f;
    return sel_f(t < x, t1, t);
}
static inline float rndne_hw(float x)
{
    /* Adding and removing 2^23 rounds to an integer in the current
    ** (nearest-even) mode. */
    float r = copysignf((fabsf(x) + 0x1p23f) - 0x1p23f, x);
    return sel_f(fabsf(x) < 0x1p23f, r, x);
}
static inline float fract_hw(float x)
{
    float r = x - floor_hw(x);
    r = sel_f(r < 0x1.fffffep-1f || r != r, r, 0x1.fffffep-1f);
    return sel_f(isinf(x), NAN, r);
}
static inline double dtrunc_hw(double x)
{
    bool small = fabs(x) < 0x1p52;
    double t = copysign((double)(int64_t)sel_d(small, x, 0.0), x);
    return sel_d(small, t, x);
}
static inline double dfloor_hw(double x)
{
    double t = dtrunc_hw(x), t1 = t - 1.0;
    return sel_d(t > x, t1, t);
}
static inline double dceil_hw(double x)
{
    double t = dtrunc_hw(x), t1 = t + 1.0;
    return sel_d(t < x, t1, t);
}
static inline double drndne_hw(double x)
{
    double r = copysign((fabs(x) + 0x1p52) - 0x1p52, x);
    return sel_d(fabs(x) < 0x1p52, r, x);
}
static inline double dfract_hw(double x)
{
    double r = x - dfloor_hw(x);
    r = sel_d(r < 0x1.fffffffffffffp-1 || r != r, r, 0x1.fffffffffffffp-1);
    return sel_d(isinf(x), NAN, r);
}

/* Saturating conversions (NaN -> 0), truncating toward zero. */
static inline uint32_t cvt_i32(double x)
{
    bool lo = x <= (double)INT32_MIN, hi = x >= (double)INT32_MAX;
    bool out = lo || hi || x != x;
    int32_t r = (int32_t)sel_d(out, 0.0, x);   /* only in-range values */
    r = lo ? INT32_MIN : r;
    r = hi ? INT32_MAX : r;
    return (uint32_t)r;
}
static inline uint32_t cvt_u32(double x)
{
    bool lo = !(x > 0.0), hi = x >= 4294967295.0;
    uint32_t r = (uint32_t)(int64_t)sel_d(lo || hi, 0.0, x);
    return hi ? UINT32_MAX : r;
}
static inline uint32_t cvt_i16(float x)
{
    if (isnan_f(x))
        return 0;
    if (x <= -32768.0f)
        return 0x8000u;
    if (x >= 32767.0f)
        return 0x7fffu;
    return (uint32_t)(int32_t)x & 0xffffu;
}
static inline uint32_t cvt_u16(float x)
{
    if (!(x > 0.0f))
        return 0;
    if (x >= 65535.0f)
        return 0xffffu;
    return (uint32_t)x;
}

/* v_frexp_*: mantissa in [0.5, 1) and exponent; inf/NaN: mant = input,
** exp = 0. */
static inline float frexp_mant_f(float x)
{
    if (isinf(x) || isnan_f(x))
        return x;
    int e;
    return frexpf(x, &e);
}
static inline uint32_t frexp_exp_f(float x)
{
    if (isinf(x) || isnan_f(x))
        return 0;
    int e;
    frexpf(x, &e);
    return (uint32_t)e;
}
static inline double frexp_mant_d(double x)
{
    if (isinf(x) || isnan_d(x))
        return x;
    int e;
    return frexp(x, &e);
}
static inline uint32_t frexp_exp_d(double x)
{
    if (isinf(x) || isnan_d(x))
        return 0;
    int e;
    frexp(x, &e);
    return (uint32_t)e;
}

/* ldexp with an exponent that may be any int32. */
static inline int clamp_exp(uint32_t e)
{
    int32_t s = (int32_t)e;
    return s > 4096 ? 4096 : s < -4096 ? -4096 : s;
}

/* sin/cos of an angle given in revolutions. */
static inline float sin_rev(float x)
{
    if (!isfinite(x))
        return NAN;
    double r = (double)x - floor((double)x);   /* exact */
    return (float)sin(r * 6.283185307179586476925286766559);
}
static inline float cos_rev(float x)
{
    if (!isfinite(x))
        return NAN;
    double r = (double)x - floor((double)x);
    return (float)cos(r * 6.283185307179586476925286766559);
}

static inline float mul_legacy(float x, float y)
{
    return (x == 0.0f || y == 0.0f) ? 0.0f : x * y;
}

static inline uint32_t cvt_u8_rne(float x)
{
    if (!(x > 0.0f))
        return 0;
    if (x >= 255.0f)
        return 255;
    return (uint32_t)rndne_hw(x);
}

static inline uint32_t pknorm_i16(float x)
{
    if (isnan_f(x))
        return 0;
    float v = x > 1.0f ? 1.0f : x < -1.0f ? -1.0f : x;
    return (uint32_t)(int32_t)rndne_hw(v * 32767.0f) & 0xffffu;
}
static inline uint32_t pknorm_u16(float x)
{
    if (!(x > 0.0f))
        return 0;
    float v = x > 1.0f ? 1.0f : x;
    return (uint32_t)rndne_hw(v * 65535.0f);
}

/* ---- division helpers ---------------------------------------------------- */

/* Biased exponent field. */
static inline int exp_f(float x) { return (int)((valu_u(x) >> 23) & 0xff); }
static inline int exp_d(double x) { return (int)((valu_ud(x) >> 52) & 0x7ff); }

/* v_div_scale_f32 (ISA §12.10): pre-scales numerator or denominator by
** 2^+-64 so that the Newton-Raphson sequence cannot overflow/underflow;
** *vcc set when v_div_fmas must undo a scaling of the quotient. */
static float div_scale_f32(float s0, float s1, float s2, bool *vcc)
{
    *vcc = false;
    if (s2 == 0.0f || s1 == 0.0f)
        return NAN;
    if (!isfinite(s1) || !isfinite(s2) || isnan_f(s0))
        return s0;
    float q = s2 / s1;
    if (exp_f(s2) - exp_f(s1) >= 96) {          /* quotient near overflow */
        *vcc = true;
        return s0 == s1 ? ldexpf(s0, 64) : s0;
    }
    if (fpclassify(s1) == FP_SUBNORMAL)
        return ldexpf(s0, 64);
    bool rcp_tiny = exp_f(s1) >= 253;           /* 1/s1 is denormal */
    bool q_tiny = fpclassify(q) == FP_SUBNORMAL || (q == 0.0f);
    if (rcp_tiny && q_tiny) {
        *vcc = true;
        return s0 == s1 ? ldexpf(s0, -64) : s0;
    }
    if (rcp_tiny)
        return ldexpf(s0, -64);
    if (q_tiny) {
        *vcc = true;
        return s0 == s2 ? ldexpf(s0, 64) : s0;
    }
    if (exp_f(s2) <= 23)                        /* numerator tiny */
        return ldexpf(s0, 64);
    return s0;
}

static double div_scale_f64(double s0, double s1, double s2, bool *vcc)
{
    *vcc = false;
    if (s2 == 0.0 || s1 == 0.0)
        return NAN;
    if (!isfinite(s1) || !isfinite(s2) || isnan_d(s0))
        return s0;
    double q = s2 / s1;
    if (exp_d(s2) - exp_d(s1) >= 768) {
        *vcc = true;
        return s0 == s1 ? ldexp(s0, 128) : s0;
    }
    if (fpclassify(s1) == FP_SUBNORMAL)
        return ldexp(s0, 128);
    bool rcp_tiny = exp_d(s1) >= 2045;
    bool q_tiny = fpclassify(q) == FP_SUBNORMAL || (q == 0.0);
    if (rcp_tiny && q_tiny) {
        *vcc = true;
        return s0 == s1 ? ldexp(s0, -128) : s0;
    }
    if (rcp_tiny)
        return ldexp(s0, -128);
    if (q_tiny) {
        *vcc = true;
        return s0 == s2 ? ldexp(s0, 128) : s0;
    }
    if (exp_d(s2) <= 53)
        return ldexp(s0, 128);
    return s0;
}

/* v_div_fixup (ISA §12.10): s0 quotient, s1 denominator, s2 numerator.
** Produces the IEEE special cases and restores the sign. */
static float div_fixup_f32(float s0, float s1, float s2)
{
    bool neg = signbit(s1) != signbit(s2);
    if (isnan_f(s2))
        return s2;
    if (isnan_f(s1))
        return s1;
    if ((s1 == 0.0f && s2 == 0.0f) || (isinf(s1) && isinf(s2)))
        return NAN;
    if (s1 == 0.0f || isinf(s2))
        return neg ? -INFINITY : INFINITY;
    if (isinf(s1) || s2 == 0.0f)
        return neg ? -0.0f : 0.0f;
    /* A NaN quotient with finite non-zero operands comes from an
    ** intermediate overflow (inf - inf in v_div_fmas): the true quotient is
    ** beyond the format, so the result is a signed infinity. */
    if (isnan_f(s0))
        return neg ? -INFINITY : INFINITY;
    return neg ? -fabsf(s0) : fabsf(s0);
}

static double div_fixup_f64(double s0, double s1, double s2)
{
    bool neg = signbit(s1) != signbit(s2);
    if (isnan_d(s2))
        return s2;
    if (isnan_d(s1))
        return s1;
    if ((s1 == 0.0 && s2 == 0.0) || (isinf(s1) && isinf(s2)))
        return NAN;
    if (s1 == 0.0 || isinf(s2))
        return neg ? -INFINITY : INFINITY;
    if (isinf(s1) || s2 == 0.0)
        return neg ? -0.0 : 0.0;
    /* A NaN quotient with finite non-zero operands comes from an
    ** intermediate overflow (inf - inf in v_div_fmas): the true quotient is
    ** beyond the format, so the result is a signed infinity. */
    if (isnan_d(s0))
        return neg ? -INFINITY : INFINITY;
    return neg ? -fabs(s0) : fabs(s0);
}

static int div_scale(valu_ctx *c, bool f64)
{
    uint64_t vcc = 0;
    if (f64) {
        const uint64_t *a = valu_src_f64(c, 0), *b = valu_src_f64(c, 1);
        const uint64_t *z = valu_src_f64(c, 2);
        LANES {
            bool v;
            c->d64[l] = valu_ud(div_scale_f64(valu_d(a[l]), valu_d(b[l]),
                                              valu_d(z[l]), &v));
            vcc |= (uint64_t)v << l;
        }
    } else {
        const uint32_t *a = valu_src_f32(c, 0), *b = valu_src_f32(c, 1);
        const uint32_t *z = valu_src_f32(c, 2);
        LANES {
            bool v;
            c->d[l] = valu_u(div_scale_f32(valu_f(a[l]), valu_f(b[l]),
                                           valu_f(z[l]), &v));
            vcc |= (uint64_t)v << l;
        }
    }
    valu_write_mask(c, vcc);
    return f64 ? valu_write_f64(c) : valu_write_f32(c);
}

static int div_fmas(valu_ctx *c, bool f64)
{
    uint64_t vcc = c->w->vcc;
    if (f64) {
        const uint64_t *a = valu_src_f64(c, 0), *b = valu_src_f64(c, 1);
        const uint64_t *z = valu_src_f64(c, 2);
        LANES {
            double x = valu_d(a[l]), y = valu_d(b[l]), w = valu_d(z[l]);
            double r = fma(x, y, w);
            if ((vcc >> l) & 1) {
                int k = exp_d(w) >= 1023 ? 128 : -128;
                double s = ldexp(r, k);
                /* A denormal result would be rounded twice: redo it from the
                ** 64-bit-mantissa fma so the final rounding dominates. */
                if (fpclassify(s) == FP_SUBNORMAL)
                    s = (double)ldexpl(fmal(x, y, w), k);
                r = s;
            }
            c->d64[l] = valu_ud(r);
        }
        return valu_write_f64(c);
    }
    const uint32_t *a = valu_src_f32(c, 0), *b = valu_src_f32(c, 1);
    const uint32_t *z = valu_src_f32(c, 2);
    LANES {
        float x = valu_f(a[l]), y = valu_f(b[l]), w = valu_f(z[l]);
        float r = fmaf(x, y, w);
        if ((vcc >> l) & 1) {
            int k = exp_f(w) >= 127 ? 64 : -64;
            float s = ldexpf(r, k);
            /* A denormal result would be rounded twice: redo it from the
            ** double fma (product exact, 53-bit sum), scaled exactly. */
            if (fpclassify(s) == FP_SUBNORMAL)
                s = (float)ldexp(fma((double)x, (double)y, (double)w), k);
            r = s;
        }
        c->d[l] = valu_u(r);
    }
    return valu_write_f32(c);
}

/* v_fma_f32 / v_fma_f64. libm's fmaf is one call per lane; on x86 CPUs
** with FMA a clone of the loop compiled for that extension does the same
** IEEE fused operation (bit-identical results) eight lanes at a time. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) static void fma32_hw(
    const uint32_t *a, const uint32_t *b, const uint32_t *z, uint32_t *d)
{
    VALU_FOR_LANES(l)
        d[l] = valu_u(__builtin_fmaf(valu_f(a[l]), valu_f(b[l]), valu_f(z[l])));
}
__attribute__((target("avx2,fma"))) static void fma64_hw(
    const uint64_t *a, const uint64_t *b, const uint64_t *z, uint64_t *d)
{
    VALU_FOR_LANES(l)
        d[l] = valu_ud(__builtin_fma(valu_d(a[l]), valu_d(b[l]), valu_d(z[l])));
}
static bool cpu_has_fma(void)
{
    return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
}
#else
static void fma32_hw(const uint32_t *a, const uint32_t *b, const uint32_t *z,
                     uint32_t *d)
{
    VALU_FOR_LANES(l) d[l] = valu_u(fmaf(valu_f(a[l]), valu_f(b[l]), valu_f(z[l])));
}
static void fma64_hw(const uint64_t *a, const uint64_t *b, const uint64_t *z,
                     uint64_t *d)
{
    VALU_FOR_LANES(l) d[l] = valu_ud(fma(valu_d(a[l]), valu_d(b[l]), valu_d(z[l])));
}
static bool cpu_has_fma(void) { return true; }
#endif

static int fma_op(valu_ctx *c, bool f64)
{
    if (f64) {
        const uint64_t *a = valu_src_f64(c, 0), *b = valu_src_f64(c, 1);
        const uint64_t *z = valu_src_f64(c, 2);
        if (cpu_has_fma())
            fma64_hw(a, b, z, c->d64);
        else
            LANES c->d64[l] = valu_ud(fma(valu_d(a[l]), valu_d(b[l]), valu_d(z[l])));
        return valu_write_f64(c);
    }
    const uint32_t *a = valu_src_f32(c, 0), *b = valu_src_f32(c, 1);
    const uint32_t *z = valu_src_f32(c, 2);
    if (cpu_has_fma())
        fma32_hw(a, b, z, c->d);
    else
        LANES c->d[l] = valu_u(fmaf(valu_f(a[l]), valu_f(b[l]), valu_f(z[l])));
    return valu_write_f32(c);
}

/* v_exp_f32: 2^x for all lanes. libm's exp2f is a call per lane (~250 ns a
** wave); this evaluates in double, two lanes per SSE2 vector: n = rint(x),
** 2^(x - n) by its Taylor series in f = (x - n) ln 2, |f| <= 0.347, to
** degree 9 (relative error < 1e-11, Estrin evaluation), times 2^n built in
** the exponent
** field, then one rounding to float (so within 1 ulp, denormal and
** overflowing results rounded correctly). Inputs are clamped to +-192,
** where 2^x is already beyond float range; NaN inputs are passed through
** afterwards. */
#ifdef __SSE2__
/* One exp2 step for two lanes; see exp2_lanes. */
static inline __m128d exp2_pd(__m128d x)
{
    const __m128d magic = _mm_set1_pd(0x1.8p52);
    /* maxpd returns its second operand for a NaN first: NaN -> -192 */
    x = _mm_min_pd(_mm_max_pd(x, _mm_set1_pd(-192.0)), _mm_set1_pd(192.0));
    __m128d t = _mm_add_pd(x, magic);            /* low bits: 2^51 + n */
    __m128d f = _mm_mul_pd(_mm_sub_pd(x, _mm_sub_pd(t, magic)),
                           _mm_set1_pd(0.6931471805599453094));
    /* Estrin-style split keeps the dependency chain short. */
    __m128d f2 = _mm_mul_pd(f, f), f4 = _mm_mul_pd(f2, f2);
#define EXP2_PAIR(c0, c1) \
    _mm_add_pd(_mm_set1_pd(c0), _mm_mul_pd(_mm_set1_pd(c1), f))
    __m128d p01 = EXP2_PAIR(1.0, 1.0), p23 = EXP2_PAIR(1.0 / 2, 1.0 / 6);
    __m128d p45 = EXP2_PAIR(1.0 / 24, 1.0 / 120);
    __m128d p67 = EXP2_PAIR(1.0 / 720, 1.0 / 5040);
    __m128d p89 = EXP2_PAIR(1.0 / 40320, 1.0 / 362880);
#undef EXP2_PAIR
    __m128d lo = _mm_add_pd(p01, _mm_mul_pd(p23, f2));
    __m128d mid = _mm_add_pd(p45, _mm_mul_pd(p67, f2));
    __m128d p = _mm_add_pd(lo, _mm_mul_pd(f4, _mm_add_pd(
                                                  mid, _mm_mul_pd(p89, f4))));
    __m128i e = _mm_slli_epi64(
        _mm_add_epi64(_mm_castpd_si128(t), _mm_set1_epi64x(1023)), 52);
    return _mm_mul_pd(p, _mm_castsi128_pd(e));
}
#endif

static void exp2_lanes(const uint32_t *a, uint32_t *d)
{
#ifdef __SSE2__
    for (int l = 0; l < VALU_LANES; l += 4) {
        __m128 xf = _mm_castsi128_ps(_mm_loadu_si128((const __m128i *)(a + l)));
        __m128d r0 = exp2_pd(_mm_cvtps_pd(xf));
        __m128d r1 = exp2_pd(_mm_cvtps_pd(_mm_movehl_ps(xf, xf)));
        __m128 r = _mm_movelh_ps(_mm_cvtpd_ps(r0), _mm_cvtpd_ps(r1));
        _mm_storeu_si128((__m128i *)(d + l), _mm_castps_si128(r));
    }
    VALU_FOR_LANES(l) {
        float x = valu_f(a[l]);
        d[l] = x != x ? a[l] : d[l];
    }
#else
    VALU_FOR_LANES(l) d[l] = valu_u(exp2f(valu_f(a[l])));
#endif
}

static int exp2_op(valu_ctx *c)
{
    const uint32_t *a = valu_src_f32(c, 0);
    if (a == c->d) {   /* in place: the NaN pass needs the inputs */
        memcpy(c->s[0], a, sizeof c->s[0]);
        a = c->s[0];
    }
    exp2_lanes(a, c->d);
    return valu_write_f32(c);
}

/* v_log_f32: log2(x) for all lanes, in double with SSE2 like exp2_lanes:
** x = 2^k * m with m in [sqrt(1/2), sqrt(2)), log2(m) = 2 atanh(s) / ln 2
** with s = (m - 1) / (m + 1), |s| <= 0.172, by its odd series to s^13
** (relative error < 1e-12), plus k; one rounding to float. Zero, negative,
** infinite and NaN inputs are patched afterwards (-inf, NaN, +inf, NaN). */
#ifdef __SSE2__
static inline __m128d log2_pd(__m128d x)
{
    const __m128i expmask = _mm_set1_epi64x(0x7ff0000000000000ll);
    __m128i bits = _mm_castpd_si128(x);
    /* exponent field as a double: OR it into the mantissa of 2^52 */
    __m128i k = _mm_srli_epi64(bits, 52);
    __m128d kd = _mm_sub_pd(
        _mm_castsi128_pd(_mm_or_si128(k, _mm_set1_epi64x(0x4330000000000000ll))),
        _mm_set1_pd(0x1p52));
    /* mantissa in [1, 2), halved (and k + 1) when above sqrt(2) */
    __m128d m = _mm_castsi128_pd(_mm_or_si128(
        _mm_andnot_si128(expmask, bits), _mm_set1_epi64x(0x3ff0000000000000ll)));
    __m128d big = _mm_cmpgt_pd(m, _mm_set1_pd(1.4142135623730951));
    m = _mm_sub_pd(m, _mm_and_pd(big, _mm_mul_pd(m, _mm_set1_pd(0.5))));
    kd = _mm_add_pd(kd, _mm_and_pd(big, _mm_set1_pd(1.0)));
    __m128d e = _mm_sub_pd(kd, _mm_set1_pd(1023.0));
    __m128d sv = _mm_div_pd(_mm_sub_pd(m, _mm_set1_pd(1.0)),
                            _mm_add_pd(m, _mm_set1_pd(1.0)));
    __m128d s2 = _mm_mul_pd(sv, sv), s4 = _mm_mul_pd(s2, s2);
#define LOG2_PAIR(c0, c1) \
    _mm_add_pd(_mm_set1_pd(c0), _mm_mul_pd(_mm_set1_pd(c1), s2))
    __m128d q01 = LOG2_PAIR(1.0, 1.0 / 3), q23 = LOG2_PAIR(1.0 / 5, 1.0 / 7);
    __m128d q45 = LOG2_PAIR(1.0 / 9, 1.0 / 11);
#undef LOG2_PAIR
    __m128d q = _mm_add_pd(q01, _mm_mul_pd(s4, _mm_add_pd(q23, _mm_mul_pd(
        s4, _mm_add_pd(q45, _mm_mul_pd(s4, _mm_set1_pd(1.0 / 13)))))));
    /* 2 / ln 2 */
    __m128d t = _mm_mul_pd(_mm_mul_pd(sv, q), _mm_set1_pd(2.8853900817779268));
    return _mm_add_pd(e, t);
}
#endif

static void log2_lanes(const uint32_t *a, uint32_t *d)
{
#ifdef __SSE2__
    for (int l = 0; l < VALU_LANES; l += 4) {
        __m128 xf = _mm_castsi128_ps(_mm_loadu_si128((const __m128i *)(a + l)));
        __m128d r0 = log2_pd(_mm_cvtps_pd(xf));
        __m128d r1 = log2_pd(_mm_cvtps_pd(_mm_movehl_ps(xf, xf)));
        __m128 r = _mm_movelh_ps(_mm_cvtpd_ps(r0), _mm_cvtpd_ps(r1));
        _mm_storeu_si128((__m128i *)(d + l), _mm_castps_si128(r));
    }
    VALU_FOR_LANES(l) {
        uint32_t u = a[l];
        uint32_t r = d[l];
        r = u > 0x7f800000u ? 0x7fc00000u : r;     /* NaN, negative: NaN */
        r = u == 0x7f800000u ? u : r;                          /* +inf */
        r = (u & 0x7fffffffu) == 0 ? 0xff800000u : r;        /* +-0: -inf */
        d[l] = r;
    }
#else
    VALU_FOR_LANES(l) d[l] = valu_u(log2f(valu_f(a[l])));
#endif
}

static int log2_op(valu_ctx *c)
{
    const uint32_t *a = valu_src_f32(c, 0);
    if (a == c->d) {   /* in place: the special-value pass needs the inputs */
        memcpy(c->s[0], a, sizeof c->s[0]);
        a = c->s[0];
    }
    log2_lanes(a, c->d);
    return valu_write_f32(c);
}

/* v_trig_preop_f64 (ISA §12.10): a 53-bit segment of 2/pi for range
** reduction of S0. The segment starts S1[4:0] * 53 bits into the fraction of
** 2/pi, further right by exponent(S0) - 1077 for large S0, truncated (round
** toward zero) and scaled to its place value: 2^(-53 - shift), plus 2^128
** when exponent(S0) >= 1968 (avoids denormals for huge inputs).
** two_over_pi holds the first 1201 fraction bits of 2/pi, MSB first
** (computed with exact integer arithmetic; matches fdlibm's table). */
static const uint32_t two_over_pi[38] = {
    0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u,
    0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u,
    0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u,
    0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u,
    0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu, 0xef2f118bu,
    0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du,
    0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u,
    0x1f8d5d08u, 0x56033046u, 0xfc7b0000u,
};

static double trig_preop(double x, uint32_t sel)
{
    int e = exp_d(x);
    unsigned shift = (sel & 31u) * 53u + (e > 1077 ? (unsigned)(e - 1077) : 0u);
    uint64_t seg = 0;
    for (unsigned i = 0; i < 53; i++) {
        unsigned p = shift + i;   /* bit index from the MSB of the fraction */
        unsigned bit = p < 1201 ? (two_over_pi[p >> 5] >> (31 - (p & 31))) & 1u
                                : 0u;
        seg = seg << 1 | bit;
    }
    int scale = -53 - (int)shift + (e >= 1968 ? 128 : 0);
    return ldexp((double)seg, scale);
}

static int trig_preop_op(valu_ctx *c)
{
    const uint64_t *a = valu_src_f64(c, 0);
    const uint32_t *b = valu_src_b32(c, 1);
    for (int l = 0; l < VALU_LANES; l++)   /* rare: skip inactive lanes */
        c->d64[l] = (c->wmask >> l) & 1
                        ? valu_ud(trig_preop(valu_d(a[l]), b[l])) : 0;
    return valu_write_f64(c);
}

/* v_mac_f32 / v_mac_f16: D = S0 * S1 + D (the destination is an input). */
static int mac(valu_ctx *c, bool f16)
{
    const uint32_t *acc = valu_vrow(c, c->in->dst);
    if (!acc)
        return c->err;
    if (f16) {
        const uint32_t *a = valu_src_f16(c, 0), *b = valu_src_f16(c, 1);
        LANES {
            float p = valu_f16_to_f32(valu_f32_to_f16(
                valu_f16_to_f32((uint16_t)a[l]) *
                valu_f16_to_f32((uint16_t)b[l])));
            c->d[l] = valu_f32_to_f16(p + valu_f16_to_f32((uint16_t)acc[l]));
        }
        return valu_write_f16(c);
    }
    const uint32_t *a = valu_src_f32(c, 0), *b = valu_src_f32(c, 1);
    LANES c->d[l] = valu_u(valu_f(a[l]) * valu_f(b[l]) + valu_f(acc[l]));
    return valu_write_f32(c);
}

/* Unfused f16 multiply-add: the product is rounded to f16 first. */
static inline float mad_f16(float x, float y, float z)
{
    return valu_f16_to_f32(valu_f32_to_f16(x * y)) + z;
}

static int cvt_f64_to_b32(valu_ctx *c, bool is_signed)
{
    const uint64_t *a = valu_src_f64(c, 0);
    LANES {
        double x = valu_d(a[l]);
        c->d[l] = is_signed ? cvt_i32(x) : cvt_u32(x);
    }
    return valu_write_b32(c);
}

static int cvt_f64_to_f32(valu_ctx *c)
{
    const uint64_t *a = valu_src_f64(c, 0);
    LANES c->d[l] = valu_u((float)valu_d(a[l]));
    return valu_write_f32(c);
}

static int cvt_to_f64(valu_ctx *c, int kind)
{
    /* kind 0: i32, 1: u32, 2: f32 */
    const uint32_t *a = kind == 2 ? valu_src_f32(c, 0) : valu_src_b32(c, 0);
    LANES {
        double r = kind == 0   ? (double)(int32_t)a[l]
                   : kind == 1 ? (double)a[l]
                               : (double)valu_f(a[l]);
        c->d64[l] = valu_ud(r);
    }
    return valu_write_f64(c);
}

/* Frexp/fract/ldexp of f64 with a 32-bit operand on one side. */
static int f64_to_b32(valu_ctx *c)
{
    const uint64_t *a = valu_src_f64(c, 0);
    LANES c->d[l] = frexp_exp_d(valu_d(a[l]));
    return valu_write_b32(c);
}

static int ldexp_f64(valu_ctx *c)
{
    const uint64_t *a = valu_src_f64(c, 0);
    const uint32_t *b = valu_src_b32(c, 1);
    LANES c->d64[l] = valu_ud(ldexp(valu_d(a[l]), clamp_exp(b[l])));
    return valu_write_f64(c);
}

static int ldexp_f32(valu_ctx *c)
{
    const uint32_t *a = valu_src_f32(c, 0), *b = valu_src_b32(c, 1);
    LANES c->d[l] = valu_u(ldexpf(valu_f(a[l]), clamp_exp(b[l])));
    return valu_write_f32(c);
}

static int ldexp_f16(valu_ctx *c)
{
    const uint32_t *a = valu_src_f16(c, 0), *b = valu_src_b32(c, 1);
    LANES {
        int e = (int16_t)(uint16_t)b[l];
        c->d[l] = valu_f32_to_f16(
            ldexpf(valu_f16_to_f32((uint16_t)a[l]), e < -64 ? -64 : e > 64 ? 64 : e));
    }
    return valu_write_f16(c);
}

static int pk_f32(valu_ctx *c, int kind)
{
    const uint32_t *a = valu_src_f32(c, 0), *b = valu_src_f32(c, 1);
    LANES {
        float x = valu_f(a[l]), y = valu_f(b[l]);
        uint32_t lo, hi;
        if (kind == 0) {
            lo = f32_to_f16_mode(x, true);
            hi = f32_to_f16_mode(y, true);
        } else if (kind == 1) {
            lo = pknorm_i16(x);
            hi = pknorm_i16(y);
        } else {
            lo = pknorm_u16(x);
            hi = pknorm_u16(y);
        }
        c->d[l] = lo | hi << 16;
    }
    return valu_write_b32(c);
}

static int cvt_pk_u8(valu_ctx *c)
{
    const uint32_t *a = valu_src_f32(c, 0), *b = valu_src_b32(c, 1);
    const uint32_t *z = valu_src_b32(c, 2);
    LANES {
        unsigned sh = 8 * (b[l] & 3);
        c->d[l] = (z[l] & ~(0xffu << sh)) | cvt_u8_rne(valu_f(a[l])) << sh;
    }
    return valu_write_b32(c);
}

static int f16_to_b32(valu_ctx *c, int kind)
{
    /* kind 0: u16, 1: i16, 2: frexp_exp_i16 */
    const uint32_t *a = valu_src_f16(c, 0);
    LANES {
        float x = valu_f16_to_f32((uint16_t)a[l]);
        c->d[l] = kind == 0 ? cvt_u16(x)
                  : kind == 1 ? cvt_i16(x)
                              : frexp_exp_f(x) & 0xffffu;
    }
    return valu_write_b32(c);
}

int valu_exec_fp(valu_ctx *c)
{
    switch ((gcn_op)c->in->op) {
    /* ---- f32 arithmetic (VOP2 / VOP3) ---- */
    case GCN_OP_V_ADD_F32: F32_2(x + y);
    case GCN_OP_V_SUB_F32: F32_2(x - y);
    case GCN_OP_V_SUBREV_F32: F32_2(y - x);
    case GCN_OP_V_MUL_F32: F32_2(x * y);
    case GCN_OP_V_MUL_LEGACY_F32: F32_2(mul_legacy(x, y));
    case GCN_OP_V_MIN_F32: F32_2(fmin_hw(x, y));
    case GCN_OP_V_MAX_F32: F32_2(fmax_hw(x, y));
    case GCN_OP_V_MAC_F32: return mac(c, false);
    /* madmk/madak: the decoder puts K in src1 (madmk) or src2 (madak),
    ** so all three are S0 * S1 + S2, unfused. */
    case GCN_OP_V_MADMK_F32:
    case GCN_OP_V_MADAK_F32:
    case GCN_OP_V_MAD_F32:
        F32_3(x * y + z);
    case GCN_OP_V_MAD_LEGACY_F32: F32_3(mul_legacy(x, y) + z);
    case GCN_OP_V_FMA_F32: return fma_op(c, false);
    case GCN_OP_V_MIN3_F32: F32_3(fmin_hw(fmin_hw(x, y), z));
    case GCN_OP_V_MAX3_F32: F32_3(fmax_hw(fmax_hw(x, y), z));
    case GCN_OP_V_MED3_F32: F32_3(fmed3_hw(x, y, z));
    case GCN_OP_V_LDEXP_F32: return ldexp_f32(c);

    /* ---- f32 unary (VOP1) ---- */
    case GCN_OP_V_FRACT_F32: F32_1(fract_hw(x));
    case GCN_OP_V_TRUNC_F32: F32_1(trunc_hw(x));
    case GCN_OP_V_CEIL_F32: F32_1(ceil_hw(x));
    case GCN_OP_V_RNDNE_F32: F32_1(rndne_hw(x));
    case GCN_OP_V_FLOOR_F32: F32_1(floor_hw(x));
    case GCN_OP_V_EXP_F32:
    case GCN_OP_V_EXP_LEGACY_F32:
        return exp2_op(c);
    case GCN_OP_V_LOG_F32:
    case GCN_OP_V_LOG_LEGACY_F32:
        return log2_op(c);
    case GCN_OP_V_RCP_F32:
    case GCN_OP_V_RCP_IFLAG_F32:
        F32_1(1.0f / x);
    case GCN_OP_V_RSQ_F32: F32_1(1.0f / sqrtf(x));
    case GCN_OP_V_SQRT_F32: F32_1(sqrtf(x));
    case GCN_OP_V_SIN_F32: F32_1(sin_rev(x));
    case GCN_OP_V_COS_F32: F32_1(cos_rev(x));
    case GCN_OP_V_FREXP_MANT_F32: F32_1(frexp_mant_f(x));
    case GCN_OP_V_FREXP_EXP_I32_F32: F32_TO_B32(frexp_exp_f(x));

    /* ---- conversions ---- */
    case GCN_OP_V_CVT_F32_I32: B32_TO_F32((float)(int32_t)u);
    case GCN_OP_V_CVT_F32_U32: B32_TO_F32((float)u);
    case GCN_OP_V_CVT_U32_F32: F32_TO_B32(cvt_u32(x));
    case GCN_OP_V_CVT_I32_F32: F32_TO_B32(cvt_i32(x));
    case GCN_OP_V_CVT_RPI_I32_F32: F32_TO_B32(cvt_i32(floor_hw(x + 0.5f)));
    case GCN_OP_V_CVT_FLR_I32_F32: F32_TO_B32(cvt_i32(floor_hw(x)));
    case GCN_OP_V_CVT_OFF_F32_I4:
        B32_TO_F32((float)((int32_t)(u << 28) >> 28) * 0.0625f);
    case GCN_OP_V_CVT_F32_UBYTE0: B32_TO_F32((float)(u & 0xffu));
    case GCN_OP_V_CVT_F32_UBYTE1: B32_TO_F32((float)((u >> 8) & 0xffu));
    case GCN_OP_V_CVT_F32_UBYTE2: B32_TO_F32((float)((u >> 16) & 0xffu));
    case GCN_OP_V_CVT_F32_UBYTE3: B32_TO_F32((float)(u >> 24));
    case GCN_OP_V_CVT_F16_F32: F32_TO_B32(valu_f32_to_f16(x));
    case GCN_OP_V_CVT_F32_F16: {
        const uint32_t *a = valu_src_f16(c, 0);
        LANES c->d[l] = valu_u(valu_f16_to_f32((uint16_t)a[l]));
        return valu_write_f32(c);
    }
    case GCN_OP_V_CVT_I32_F64: return cvt_f64_to_b32(c, true);
    case GCN_OP_V_CVT_U32_F64: return cvt_f64_to_b32(c, false);
    case GCN_OP_V_CVT_F32_F64: return cvt_f64_to_f32(c);
    case GCN_OP_V_CVT_F64_I32: return cvt_to_f64(c, 0);
    case GCN_OP_V_CVT_F64_U32: return cvt_to_f64(c, 1);
    case GCN_OP_V_CVT_F64_F32: return cvt_to_f64(c, 2);
    case GCN_OP_V_CVT_PKRTZ_F16_F32: return pk_f32(c, 0);
    case GCN_OP_V_CVT_PKNORM_I16_F32: return pk_f32(c, 1);
    case GCN_OP_V_CVT_PKNORM_U16_F32: return pk_f32(c, 2);
    case GCN_OP_V_CVT_PK_U8_F32: return cvt_pk_u8(c);

    /* ---- f64 ---- */
    case GCN_OP_V_ADD_F64: F64_2(x + y);
    case GCN_OP_V_MUL_F64: F64_2(x * y);
    case GCN_OP_V_MIN_F64: F64_2(dmin_hw(x, y));
    case GCN_OP_V_MAX_F64: F64_2(dmax_hw(x, y));
    case GCN_OP_V_FMA_F64: return fma_op(c, true);
    case GCN_OP_V_LDEXP_F64: return ldexp_f64(c);
    case GCN_OP_V_TRUNC_F64: F64_1(dtrunc_hw(x));
    case GCN_OP_V_CEIL_F64: F64_1(dceil_hw(x));
    case GCN_OP_V_RNDNE_F64: F64_1(drndne_hw(x));
    case GCN_OP_V_FLOOR_F64: F64_1(dfloor_hw(x));
    case GCN_OP_V_FRACT_F64: F64_1(dfract_hw(x));
    case GCN_OP_V_RCP_F64: F64_1(1.0 / x);
    case GCN_OP_V_RSQ_F64: F64_1(1.0 / sqrt(x));
    case GCN_OP_V_SQRT_F64: F64_1(sqrt(x));
    case GCN_OP_V_FREXP_MANT_F64: F64_1(frexp_mant_d(x));
    case GCN_OP_V_FREXP_EXP_I32_F64: return f64_to_b32(c);
    case GCN_OP_V_TRIG_PREOP_F64: return trig_preop_op(c);

    /* ---- division helpers ---- */
    case GCN_OP_V_DIV_SCALE_F32: return div_scale(c, false);
    case GCN_OP_V_DIV_SCALE_F64: return div_scale(c, true);
    case GCN_OP_V_DIV_FMAS_F32: return div_fmas(c, false);
    case GCN_OP_V_DIV_FMAS_F64: return div_fmas(c, true);
    case GCN_OP_V_DIV_FIXUP_F32: F32_3(div_fixup_f32(x, y, z));
    case GCN_OP_V_DIV_FIXUP_F64: F64_3(div_fixup_f64(x, y, z));

    /* ---- f16 ---- */
    case GCN_OP_V_ADD_F16: F16_2(x + y);
    case GCN_OP_V_SUB_F16: F16_2(x - y);
    case GCN_OP_V_SUBREV_F16: F16_2(y - x);
    case GCN_OP_V_MUL_F16: F16_2(x * y);
    case GCN_OP_V_MAX_F16: F16_2(fmax_hw(x, y));
    case GCN_OP_V_MIN_F16: F16_2(fmin_hw(x, y));
    case GCN_OP_V_MAC_F16: return mac(c, true);
    case GCN_OP_V_MADMK_F16:
    case GCN_OP_V_MADAK_F16:
    case GCN_OP_V_MAD_F16:
        F16_3(mad_f16(x, y, z));
    case GCN_OP_V_FMA_F16: F16_3((float)fma((double)x, (double)y, (double)z));
    case GCN_OP_V_DIV_FIXUP_F16: F16_3(div_fixup_f32(x, y, z));
    case GCN_OP_V_LDEXP_F16: return ldexp_f16(c);
    case GCN_OP_V_CVT_F16_U16: B32_TO_F16((float)(u & 0xffffu));
    case GCN_OP_V_CVT_F16_I16: B32_TO_F16((float)(int16_t)(uint16_t)u);
    case GCN_OP_V_CVT_U16_F16: return f16_to_b32(c, 0);
    case GCN_OP_V_CVT_I16_F16: return f16_to_b32(c, 1);
    case GCN_OP_V_FREXP_EXP_I16_F16: return f16_to_b32(c, 2);
    case GCN_OP_V_RCP_F16: F16_1(1.0f / x);
    case GCN_OP_V_SQRT_F16: F16_1(sqrtf(x));
    case GCN_OP_V_RSQ_F16: F16_1(1.0f / sqrtf(x));
    case GCN_OP_V_LOG_F16: F16_1(log2f(x));
    case GCN_OP_V_EXP_F16: F16_1(exp2f(x));
    case GCN_OP_V_FREXP_MANT_F16: F16_1(frexp_mant_f(x));
    case GCN_OP_V_FLOOR_F16: F16_1(floor_hw(x));
    case GCN_OP_V_CEIL_F16: F16_1(ceil_hw(x));
    case GCN_OP_V_TRUNC_F16: F16_1(trunc_hw(x));
    case GCN_OP_V_RNDNE_F16: F16_1(rndne_hw(x));
    case GCN_OP_V_FRACT_F16: F16_1(fminf(fract_hw(x), 0x1.ffcp-1f));
    case GCN_OP_V_SIN_F16: F16_1(sin_rev(x));
    case GCN_OP_V_COS_F16: F16_1(cos_rev(x));
    default:
        return VALU_NOT_MINE;
    }
}
