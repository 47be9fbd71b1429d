/*
** Vector ALU semantics, part 4: VOPC compares (GCN3 ISA manual §6.4
** "Vector Compare Operations", §12.9 VOPC opcodes).
**
** Result: a 64-bit lane mask written to VCC (VOPC encoding, also with
** SDWA) or to the scalar pair in sdst (VOPC promoted to VOP3A); bits of
** inactive lanes are 0. v_cmpx_* additionally write the mask to EXEC
** (gfx8 writes both the destination and EXEC).
**
** The condition, operand type and cmpx bit come from the VOPC opcode
** number (gcn_op_table), whose layout the ISA fixes:
**   0x10-0x15  class f32, cmpx f32, f64, cmpx f64, f16, cmpx f16
**   0x20-0x7F  floating point: bits 6:5 type (1 f16, 2 f32, 3 f64),
**              bit 4 cmpx, bits 3:0 condition F LT EQ LE GT LG GE O U
**              NGE NLG NGT NLE NEQ NLT TRU
**   0xA0-0xFF  integer: (op - 0xA0) >> 5 width (16, 32, 64), bit 4 cmpx,
**              bit 3 unsigned, bits 2:0 condition F LT EQ LE GT NE GE T
** v_cmp_class_*: S1 bit i tests class i of S0: 0 signalling NaN, 1 quiet
** NaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal,
** 8 +normal, 9 +inf.
*/
#include "gcn3/valu_int.h"

#include "mgsim/errors.h"

#define LANES VALU_FOR_LANES(l)

/* One loop per condition (the switch stays outside the loop so each loop
** vectorises): f[l] = (X cond Y), where X and Y read lane l. */
#define FCMP_LOOPS(X, Y)                                                   \
    switch (cond) {                                                        \
    case 0: LANES f[l] = 0; break;                                         \
    case 1: LANES f[l] = (X) < (Y); break;                                 \
    case 2: LANES f[l] = (X) == (Y); break;                                \
    case 3: LANES f[l] = (X) <= (Y); break;                                \
    case 4: LANES f[l] = (X) > (Y); break;                                 \
    case 5: LANES f[l] = (X) < (Y) || (X) > (Y); break;                    \
    case 6: LANES f[l] = (X) >= (Y); break;                                \
    case 7: LANES f[l] = (X) == (X) && (Y) == (Y); break;                  \
    case 8: LANES f[l] = (X) != (X) || (Y) != (Y); break;                  \
    case 9: LANES f[l] = !((X) >= (Y)); break;                             \
    case 10: LANES f[l] = !((X) < (Y) || (X) > (Y)); break;                \
    case 11: LANES f[l] = !((X) > (Y)); break;                             \
    case 12: LANES f[l] = !((X) <= (Y)); break;                            \
    case 13: LANES f[l] = !((X) == (Y)); break;                            \
    case 14: LANES f[l] = !((X) < (Y)); break;                             \
    default: LANES f[l] = 1; break;                                        \
    }

/* Integer conditions F LT EQ LE GT NE GE T. */
#define ICMP_LOOPS(X, Y)                                                   \
    switch (cond) {                                                        \
    case 0: LANES f[l] = 0; break;                                         \
    case 1: LANES f[l] = (X) < (Y); break;                                 \
    case 2: LANES f[l] = (X) == (Y); break;                                \
    case 3: LANES f[l] = (X) <= (Y); break;                                \
    case 4: LANES f[l] = (X) > (Y); break;                                 \
    case 5: LANES f[l] = (X) != (Y); break;                                \
    case 6: LANES f[l] = (X) >= (Y); break;                                \
    default: LANES f[l] = 1; break;                                        \
    }

static unsigned class_bit_d(double x)
{
    bool neg = signbit(x);
    switch (fpclassify(x)) {
    case FP_NAN: {
        uint64_t u = valu_ud(x);
        return (u >> 51) & 1 ? 1 : 0;
    }
    case FP_INFINITE: return neg ? 2 : 9;
    case FP_NORMAL: return neg ? 3 : 8;
    case FP_SUBNORMAL: return neg ? 4 : 7;
    default: return neg ? 5 : 6;
    }
}

static unsigned class_bit_f(float x)
{
    if (x != x)
        return (valu_u(x) >> 22) & 1 ? 1 : 0;
    bool neg = signbit(x);
    switch (fpclassify(x)) {
    case FP_INFINITE: return neg ? 2 : 9;
    case FP_NORMAL: return neg ? 3 : 8;
    case FP_SUBNORMAL: return neg ? 4 : 7;
    default: return neg ? 5 : 6;
    }
}

static unsigned class_bit_h(uint16_t h)
{
    bool neg = h >> 15;
    unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0x1f) {
        if (m == 0)
            return neg ? 2 : 9;
        return (m >> 9) & 1 ? 1 : 0;
    }
    if (e)
        return neg ? 3 : 8;
    if (m)
        return neg ? 4 : 7;
    return neg ? 5 : 6;
}

static uint64_t cmp_class(valu_ctx *c, unsigned type)
{
    uint8_t f[VALU_LANES];
    const uint32_t *b = valu_src_b32(c, 1);
    if (type == 0) {
        const uint32_t *a = valu_src_f32(c, 0);
        LANES f[l] = (uint8_t)((b[l] >> class_bit_f(valu_f(a[l]))) & 1);
    } else if (type == 1) {
        const uint64_t *a = valu_src_f64(c, 0);
        LANES f[l] = (uint8_t)((b[l] >> class_bit_d(valu_d(a[l]))) & 1);
    } else {
        const uint32_t *a = valu_src_f16(c, 0);
        LANES f[l] = (uint8_t)((b[l] >> class_bit_h((uint16_t)a[l])) & 1);
    }
    return valu_pack_flags(f);
}

static uint64_t cmp_float(valu_ctx *c, unsigned type, unsigned cond)
{
    uint8_t f[VALU_LANES];
    if (type == 3) {
        const uint64_t *a = valu_src_f64(c, 0), *b = valu_src_f64(c, 1);
        FCMP_LOOPS(valu_d(a[l]), valu_d(b[l]));
    } else if (type == 2) {
        const uint32_t *a = valu_src_f32(c, 0), *b = valu_src_f32(c, 1);
        FCMP_LOOPS(valu_f(a[l]), valu_f(b[l]));
    } else {
        const uint32_t *a = valu_src_f16(c, 0), *b = valu_src_f16(c, 1);
        FCMP_LOOPS(valu_f16_to_f32((uint16_t)a[l]),
                   valu_f16_to_f32((uint16_t)b[l]));
    }
    return valu_pack_flags(f);
}

static uint64_t cmp_int(valu_ctx *c, unsigned width, bool is_unsigned,
                        unsigned cond)
{
    uint8_t f[VALU_LANES];
    if (width == 64) {
        const uint64_t *a = valu_src_b64(c, 0, false);
        const uint64_t *b = valu_src_b64(c, 1, false);
        if (is_unsigned)
            ICMP_LOOPS(a[l], b[l])
        else
            ICMP_LOOPS((int64_t)a[l], (int64_t)b[l])
        return valu_pack_flags(f);
    }
    const uint32_t *a = valu_src_b32(c, 0), *b = valu_src_b32(c, 1);
    if (width == 32) {
        if (is_unsigned)
            ICMP_LOOPS(a[l], b[l])
        else
            ICMP_LOOPS((int32_t)a[l], (int32_t)b[l])
    } else {
        if (is_unsigned)
            ICMP_LOOPS((uint16_t)a[l], (uint16_t)b[l])
        else
            ICMP_LOOPS((int16_t)(uint16_t)a[l], (int16_t)(uint16_t)b[l])
    }
    return valu_pack_flags(f);
}

int valu_exec_cmp(valu_ctx *c)
{
    unsigned op = c->in->op;
    if (op >= GCN_OP_COUNT || gcn_op_table[op].fmt != GCN_FMT_VOPC)
        return VALU_NOT_MINE;
    unsigned n = gcn_op_table[op].opcode;
    uint64_t m;
    bool cmpx;
    if (n >= 0x10 && n <= 0x15) {
        cmpx = n & 1;
        m = cmp_class(c, (n - 0x10) >> 1);
    } else if (n >= 0x20 && n <= 0x7F) {
        cmpx = (n >> 4) & 1;
        m = cmp_float(c, n >> 5, n & 15);
    } else if (n >= 0xA0 && n <= 0xFF) {
        cmpx = (n >> 4) & 1;
        m = cmp_int(c, 16u << ((n - 0xA0) >> 5), (n >> 3) & 1, n & 7);
    } else {
        return VALU_NOT_MINE;
    }
    if (c->err)
        return c->err;
    m &= c->w->exec;
    valu_write_mask(c, m);
    if (cmpx)
        c->w->exec = m;
    return MGS_OK;
}
