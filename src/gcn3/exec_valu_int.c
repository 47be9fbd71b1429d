/*
** Vector ALU semantics, part 2: integer, bit-field and cross-lane
** operations (GCN3 ISA manual §6 "Vector ALU Operations", opcode
** descriptions in §12.7 VOP2, §12.8 VOP1, §12.10 VOP3A/VOP3B).
**
** gfx8 (VI) specifics that matter here:
**   - v_add/sub/subrev_u32 write the carry/borrow out to VCC (VOP2) or to
**     the VOP3B sdst; v_addc/subb/subbrev_u32 read carry-in from VCC (VOP2)
**     or from the scalar pair named by src2 (VOP3B).
**   - v_cndmask_b32 selects with VCC (VOP2) or the src2 pair (VOP3).
**   - 16-bit operations read the low 16 bits of each source and write a
**     zero-extended 16-bit result (the high half is cleared; SDWA can
**     preserve it).
**   - v_readlane/v_readfirstlane write an SGPR; v_writelane writes one lane
**     of a VGPR regardless of EXEC; the lane select is S1 & 63.
**   - shift counts use the low 5 (32-bit) / 4 (16-bit) / 6 (64-bit) bits.
** Every loop computes all 64 lanes (valu_int.h), so no operation may have
** undefined behaviour for any bit pattern.
*/
#include "gcn3/valu_int.h"

#include "mgsim/errors.h"

#define LANES VALU_FOR_LANES(l)

/* Two-source 32-bit op: x = src0, y = src1 per lane. */
#define BIN32(expr)                                                       \
    do {                                                                  \
        const uint32_t *a_ = valu_src_b32(c, 0), *b_ = valu_src_b32(c, 1); \
        LANES {                                                           \
            uint32_t x = a_[l], y = b_[l];                                \
            c->d[l] = (expr);                                             \
        }                                                                 \
        return valu_write_b32(c);                                         \
    } while (0)

/* Three-source 32-bit op: x, y, z. */
#define TER32(expr)                                                       \
    do {                                                                  \
        const uint32_t *a_ = valu_src_b32(c, 0), *b_ = valu_src_b32(c, 1); \
        const uint32_t *c_ = valu_src_b32(c, 2);                          \
        LANES {                                                           \
            uint32_t x = a_[l], y = b_[l], z = c_[l];                     \
            c->d[l] = (expr);                                             \
        }                                                                 \
        return valu_write_b32(c);                                         \
    } while (0)

#define UN32(expr)                                                        \
    do {                                                                  \
        const uint32_t *a_ = valu_src_b32(c, 0);                          \
        LANES {                                                           \
            uint32_t x = a_[l];                                           \
            c->d[l] = (expr);                                             \
        }                                                                 \
        return valu_write_b32(c);                                         \
    } while (0)

static inline uint32_t sext24(uint32_t v)
{
    return (uint32_t)((int32_t)(v << 8) >> 8);
}
static inline int32_t s32(uint32_t v) { return (int32_t)v; }
static inline uint32_t u16(uint32_t v) { return v & 0xffffu; }
static inline int32_t s16(uint32_t v) { return (int16_t)(uint16_t)v; }

static inline uint32_t min_i(uint32_t x, uint32_t y)
{
    return s32(x) < s32(y) ? x : y;
}
static inline uint32_t max_i(uint32_t x, uint32_t y)
{
    return s32(x) > s32(y) ? x : y;
}
static inline uint32_t min_u(uint32_t x, uint32_t y) { return x < y ? x : y; }
static inline uint32_t max_u(uint32_t x, uint32_t y) { return x > y ? x : y; }

static inline uint32_t med3_i(uint32_t x, uint32_t y, uint32_t z)
{
    return max_i(min_i(x, y), min_i(max_i(x, y), z));
}
static inline uint32_t med3_u(uint32_t x, uint32_t y, uint32_t z)
{
    return max_u(min_u(x, y), min_u(max_u(x, y), z));
}

/* v_bfe: width and offset use 5 bits each; width 0 yields 0. */
static inline uint32_t bfe_u(uint32_t v, uint32_t off, uint32_t width)
{
    off &= 31;
    width &= 31;
    return (v >> off) & (uint32_t)((1ull << width) - 1);
}
static inline uint32_t bfe_i(uint32_t v, uint32_t off, uint32_t width)
{
    off &= 31;
    width &= 31;
    if (width == 0)
        return 0;
    uint32_t f = (v >> off) & (uint32_t)((1ull << width) - 1);
    uint32_t sign = 1u << (width - 1);
    return (f ^ sign) - sign;
}

static inline uint32_t bfrev(uint32_t v)
{
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
    v = ((v >> 8) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8);
    return (v >> 16) | (v << 16);
}

/* First bit set from the MSB; ~0 when none. */
static inline uint32_t ffbh_u(uint32_t v)
{
    return v ? (uint32_t)__builtin_clz(v) : ~0u;
}
/* First bit opposite to the sign bit, from the MSB; ~0 for 0 and -1. */
static inline uint32_t ffbh_i(uint32_t v)
{
    uint32_t x = (v & 0x80000000u) ? ~v : v;
    return x ? (uint32_t)__builtin_clz(x) : ~0u;
}

static inline uint32_t absdiff(uint32_t x, uint32_t y)
{
    return x > y ? x - y : y - x;
}

static inline uint32_t sad_u8(uint32_t x, uint32_t y)
{
    uint32_t s = 0;
    for (int k = 0; k < 32; k += 8)
        s += absdiff((x >> k) & 0xffu, (y >> k) & 0xffu);
    return s;
}

static inline uint32_t msad_u8(uint32_t x, uint32_t y)
{
    uint32_t s = 0;
    for (int k = 0; k < 32; k += 8)
        if ((y >> k) & 0xffu)
            s += absdiff((x >> k) & 0xffu, (y >> k) & 0xffu);
    return s;
}

static inline uint32_t lerp_u8(uint32_t x, uint32_t y, uint32_t z)
{
    uint32_t r = 0;
    for (int k = 0; k < 32; k += 8) {
        uint32_t s = ((x >> k) & 0xffu) + ((y >> k) & 0xffu) + ((z >> k) & 1u);
        r |= ((s >> 1) & 0xffu) << k;
    }
    return r;
}

/* v_perm_b32: byte selector z picks from the 8 bytes {x, y} (x high). */
static inline uint32_t perm_b32(uint32_t x, uint32_t y, uint32_t z)
{
    uint64_t bytes = (uint64_t)x << 32 | y;
    uint32_t r = 0;
    for (int k = 0; k < 4; k++) {
        uint32_t sel = (z >> (8 * k)) & 0xffu, b;
        if (sel < 8)
            b = (uint32_t)(bytes >> (8 * sel)) & 0xffu;
        else if (sel < 12) {
            /* sign of 16-bit word n replicated (sel 8..11 -> bytes 1,3,5,7) */
            unsigned src = 2 * (sel - 8) + 1;
            b = ((bytes >> (8 * src + 7)) & 1) ? 0xffu : 0;
        } else if (sel == 12)
            b = 0;
        else
            b = 0xffu;
        r |= b << (8 * k);
    }
    return r;
}

static inline uint32_t sat_u16(uint32_t v) { return v > 0xffffu ? 0xffffu : v; }
static inline uint32_t sat_i16(uint32_t v)
{
    int32_t s = s32(v);
    s = s > 32767 ? 32767 : s < -32768 ? -32768 : s;
    return (uint32_t)s & 0xffffu;
}

/* Carry-in mask of v_addc/subb/subbrev: VCC (VOP2) or src2 (VOP3B). */
static uint64_t carry_in(valu_ctx *c)
{
    return c->vop3 ? valu_scalar_mask(c, c->in->src2) : c->w->vcc;
}

/* ADD/SUB with carry, in 32-bit arithmetic so the loop vectorises.
** mode: 0 add, 1 sub (x - y), 2 subrev (y - x); use_cin adds / subtracts
** the carry-in. Carry (borrow) out per lane = unsigned overflow. */
static int add_carry(valu_ctx *c, int mode, bool use_cin)
{
    const uint32_t *a = valu_src_b32(c, mode == 2 ? 1 : 0);
    const uint32_t *b = valu_src_b32(c, mode == 2 ? 0 : 1);
    uint32_t cin[VALU_LANES];
    uint8_t cout[VALU_LANES];
    /* Sources are read into locals before c->d[l] is stored: c->d may be
    ** the destination row, which may also be a source. */
    if (!use_cin) {   /* the common v_add/sub_u32: no carry-in array */
        if (mode == 0) {
            LANES {
                uint32_t x = a[l], r = x + b[l];
                cout[l] = (uint8_t)(r < x);
                c->d[l] = r;
            }
        } else {
            LANES {
                uint32_t x = a[l], y = b[l];
                cout[l] = (uint8_t)(x < y);
                c->d[l] = x - y;
            }
        }
        valu_write_mask(c, valu_pack_flags(cout));
        return valu_write_b32(c);
    }
    valu_expand_mask(carry_in(c), cin);
    if (mode == 0) {
        LANES {
            uint32_t x = a[l], ci = cin[l] & 1u, r1 = x + b[l], r = r1 + ci;
            cout[l] = (uint8_t)((r1 < x) | (r < r1));
            c->d[l] = r;
        }
    } else {
        LANES {
            uint32_t x = a[l], y = b[l], bi = cin[l] & 1u;
            uint32_t r1 = x - y, r = r1 - bi;
            cout[l] = (uint8_t)((x < y) | (r1 < bi));
            c->d[l] = r;
        }
    }
    valu_write_mask(c, valu_pack_flags(cout));
    return valu_write_b32(c);
}

/* v_mad_u64_u32 / v_mad_i64_i32: D.u64 = S0 * S1 + S2.u64 with the carry
** (unsigned) or overflow (signed) of the 64-bit add in sdst. Both flags are
** computed without 64-bit compares so the loops vectorise. */
static int mad_64_32(valu_ctx *c, bool is_signed)
{
    const uint32_t *a = valu_src_b32(c, 0), *b = valu_src_b32(c, 1);
    const uint64_t *z = valu_src_b64(c, 2, false);
    uint8_t cout[VALU_LANES];
    if (is_signed) {
        LANES {
            uint64_t p = (uint64_t)((int64_t)s32(a[l]) * s32(b[l]));
            uint64_t r = p + z[l];
            /* overflow: both addends have the sign the result lacks */
            cout[l] = (uint8_t)(((p ^ r) & (z[l] ^ r)) >> 63);
            c->d64[l] = r;
        }
    } else {
        LANES {
            uint64_t p = (uint64_t)a[l] * b[l], y = z[l];
            /* carry out of bit 63, from halves that cannot overflow */
            cout[l] = (uint8_t)(((p >> 1) + (y >> 1) + (p & y & 1)) >> 63);
            c->d64[l] = p + y;
        }
    }
    valu_write_mask(c, valu_pack_flags(cout));
    return valu_write_b64(c);
}

static int readlane(valu_ctx *c, bool first)
{
    const gcn_inst *in = c->in;
    unsigned lane;
    if (first) {
        uint64_t e = c->w->exec;
        lane = e ? (unsigned)__builtin_ctzll(e) : 0;
    } else {
        lane = valu_scalar_b32(c, 1) & 63u;
    }
    unsigned code = valu_src_code(c, 0);
    uint32_t v;
    if (code >= GCN_OPR_VGPR0) {
        const uint32_t *row = valu_vrow(c, code);
        if (!row)
            return c->err;
        v = row[lane];
    } else {
        v = gcn_read_s32(c->w, code, in->literal);
    }
    /* The destination is an SGPR even though it sits in the vdst field. */
    gcn_write_s32(c->w, in->dst & 0xffu, v);
    return c->err;
}

static int writelane(valu_ctx *c)
{
    uint32_t v = valu_scalar_b32(c, 0);
    unsigned lane = valu_scalar_b32(c, 1) & 63u;
    uint32_t *row = valu_vrow(c, c->in->dst);
    if (!row)
        return c->err;
    row[lane] = v;   /* ignores EXEC by definition */
    return c->err;
}

/* v_movrels/movreld/movrelsd: VGPR index relative to M0 (§4.6). */
static int movrel(valu_ctx *c, bool rel_src, bool rel_dst)
{
    unsigned m0 = c->w->m0;
    unsigned scode = valu_src_code(c, 0);
    unsigned dcode = c->in->dst;
    const uint32_t *src;
    if (scode >= GCN_OPR_VGPR0) {
        if (rel_src && (uint64_t)scode + m0 > 511u)
            return mgs_error_set(MGS_ESIM, "v_movrel source index v%u+m0 "
                                 "(%u) out of range", scode - 256u, m0);
        src = valu_vrow(c, rel_src ? scode + m0 : scode);
        if (!src)
            return c->err;
    } else {
        src = valu_src_b32(c, 0);
    }
    if (rel_dst && (uint64_t)dcode + m0 > 511u)
        return mgs_error_set(MGS_ESIM, "v_movrel destination index v%u+m0 "
                             "(%u) out of range", dcode - 256u, m0);
    /* Staged in dbuf: c->d may be the (non-relative) dst row. */
    memcpy(c->dbuf, src, sizeof c->dbuf);
    uint32_t *row = valu_vrow(c, rel_dst ? dcode + m0 : dcode);
    if (!row)
        return c->err;
    for (int l = 0; l < VALU_LANES; l++)
        if ((c->wmask >> l) & 1)
            row[l] = c->dbuf[l];
    return c->err;
}

static int mbcnt(valu_ctx *c, bool hi)
{
    const uint32_t *a = valu_src_b32(c, 0), *b = valu_src_b32(c, 1);
    LANES {
        uint64_t below = ((uint64_t)1 << l) - 1;   /* l < 64 */
        uint32_t m = hi ? (uint32_t)(below >> 32) : (uint32_t)below;
        c->d[l] = (uint32_t)__builtin_popcount(a[l] & m) + b[l];
    }
    return valu_write_b32(c);
}

/* v_lshlrev/lshrrev/ashrrev_b32/i32: D = S1 shifted by S0 & 31. A scalar
** shift count (the common case) is one count for all lanes, which SSE2 can
** vectorise; per-lane counts take the generic loop. kind: 0 lshl, 1 lshr,
** 2 ashr. */
static int shift32(valu_ctx *c, int kind)
{
    const uint32_t *b = valu_src_b32(c, 1);
    if (valu_src_code(c, 0) < GCN_OPR_VGPR0) {
        unsigned s = valu_scalar_b32(c, 0) & 31u;
        if (kind == 0)
            LANES c->d[l] = b[l] << s;
        else if (kind == 1)
            LANES c->d[l] = b[l] >> s;
        else
            LANES c->d[l] = (uint32_t)((int32_t)b[l] >> s);
        return valu_write_b32(c);
    }
    const uint32_t *a = valu_src_b32(c, 0);
    if (kind == 0)
        LANES c->d[l] = b[l] << (a[l] & 31u);
    else if (kind == 1)
        LANES c->d[l] = b[l] >> (a[l] & 31u);
    else
        LANES c->d[l] = (uint32_t)((int32_t)b[l] >> (a[l] & 31u));
    return valu_write_b32(c);
}

static int shift64(valu_ctx *c, int kind)
{
    const uint64_t *b = valu_src_b64(c, 1, false);
    if (valu_src_code(c, 0) < GCN_OPR_VGPR0) {
        unsigned s = valu_scalar_b32(c, 0) & 63u;
        if (kind == 0)
            LANES c->d64[l] = b[l] << s;
        else if (kind == 1)
            LANES c->d64[l] = b[l] >> s;
        else
            LANES c->d64[l] = (uint64_t)((int64_t)b[l] >> s);
        return valu_write_b64(c);
    }
    const uint32_t *a = valu_src_b32(c, 0);
    LANES {
        unsigned s = a[l] & 63u;
        c->d64[l] = kind == 0   ? b[l] << s
                    : kind == 1 ? b[l] >> s
                                : (uint64_t)((int64_t)b[l] >> s);
    }
    return valu_write_b64(c);
}

static int cndmask(valu_ctx *c)
{
    const uint32_t *a = valu_src_b32(c, 0), *b = valu_src_b32(c, 1);
    uint64_t m = c->vop3 ? valu_scalar_mask(c, c->in->src2) : c->w->vcc;
    uint32_t sel[VALU_LANES];
    valu_expand_mask(m, sel);
    LANES c->d[l] = (b[l] & sel[l]) | (a[l] & ~sel[l]);
    return valu_write_b32(c);
}

int valu_exec_int(valu_ctx *c)
{
    switch ((gcn_op)c->in->op) {
    /* ---- VOP1 ---- */
    case GCN_OP_V_NOP:
    case GCN_OP_V_CLREXCP:
        return MGS_OK;
    case GCN_OP_V_MOV_B32:
        UN32(x);
    case GCN_OP_V_NOT_B32: UN32(~x);
    case GCN_OP_V_BFREV_B32: UN32(bfrev(x));
    case GCN_OP_V_FFBH_U32: UN32(ffbh_u(x));
    case GCN_OP_V_FFBL_B32:
        UN32(x ? (uint32_t)__builtin_ctz(x) : ~0u);
    case GCN_OP_V_FFBH_I32: UN32(ffbh_i(x));
    case GCN_OP_V_READFIRSTLANE_B32: return readlane(c, true);
    case GCN_OP_V_MOVRELD_B32: return movrel(c, false, true);
    case GCN_OP_V_MOVRELS_B32: return movrel(c, true, false);
    case GCN_OP_V_MOVRELSD_B32: return movrel(c, true, true);

    /* ---- VOP2 ---- */
    case GCN_OP_V_CNDMASK_B32: return cndmask(c);
    case GCN_OP_V_MUL_I32_I24:
        BIN32((uint32_t)((int64_t)s32(sext24(x)) * s32(sext24(y))));
    case GCN_OP_V_MUL_HI_I32_I24:
        BIN32((uint32_t)((uint64_t)((int64_t)s32(sext24(x)) *
                                    s32(sext24(y))) >> 32));
    case GCN_OP_V_MUL_U32_U24: BIN32((x & 0xffffffu) * (y & 0xffffffu));
    case GCN_OP_V_MUL_HI_U32_U24:
        BIN32((uint32_t)(((uint64_t)(x & 0xffffffu) * (y & 0xffffffu)) >> 32));
    case GCN_OP_V_MIN_I32: BIN32(min_i(x, y));
    case GCN_OP_V_MAX_I32: BIN32(max_i(x, y));
    case GCN_OP_V_MIN_U32: BIN32(min_u(x, y));
    case GCN_OP_V_MAX_U32: BIN32(max_u(x, y));
    case GCN_OP_V_LSHRREV_B32: return shift32(c, 1);
    case GCN_OP_V_ASHRREV_I32: return shift32(c, 2);
    case GCN_OP_V_LSHLREV_B32: return shift32(c, 0);
    case GCN_OP_V_AND_B32: BIN32(x & y);
    case GCN_OP_V_OR_B32: BIN32(x | y);
    case GCN_OP_V_XOR_B32: BIN32(x ^ y);
    case GCN_OP_V_ADD_U32: return add_carry(c, 0, false);
    case GCN_OP_V_SUB_U32: return add_carry(c, 1, false);
    case GCN_OP_V_SUBREV_U32: return add_carry(c, 2, false);
    case GCN_OP_V_ADDC_U32: return add_carry(c, 0, true);
    case GCN_OP_V_SUBB_U32: return add_carry(c, 1, true);
    case GCN_OP_V_SUBBREV_U32: return add_carry(c, 2, true);
    case GCN_OP_V_ADD_U16: BIN32(u16(x + y));
    case GCN_OP_V_SUB_U16: BIN32(u16(x - y));
    case GCN_OP_V_SUBREV_U16: BIN32(u16(y - x));
    case GCN_OP_V_MUL_LO_U16: BIN32(u16(u16(x) * u16(y)));
    case GCN_OP_V_LSHLREV_B16: BIN32(u16(u16(y) << (x & 15)));
    case GCN_OP_V_LSHRREV_B16: BIN32(u16(y) >> (x & 15));
    case GCN_OP_V_ASHRREV_I16: BIN32(u16((uint32_t)(s16(y) >> (x & 15))));
    case GCN_OP_V_MAX_U16: BIN32(max_u(u16(x), u16(y)));
    case GCN_OP_V_MIN_U16: BIN32(min_u(u16(x), u16(y)));
    case GCN_OP_V_MAX_I16: BIN32(u16((uint32_t)(s16(x) > s16(y) ? s16(x) : s16(y))));
    case GCN_OP_V_MIN_I16: BIN32(u16((uint32_t)(s16(x) < s16(y) ? s16(x) : s16(y))));

    /* ---- VOP3-only ---- */
    case GCN_OP_V_MAD_I32_I24:
        TER32((uint32_t)s32(sext24(x)) * (uint32_t)s32(sext24(y)) + z);
    case GCN_OP_V_MAD_U32_U24: TER32((x & 0xffffffu) * (y & 0xffffffu) + z);
    case GCN_OP_V_BFE_U32: TER32(bfe_u(x, y, z));
    case GCN_OP_V_BFE_I32: TER32(bfe_i(x, y, z));
    case GCN_OP_V_BFI_B32: TER32((x & y) | (~x & z));
    case GCN_OP_V_ALIGNBIT_B32:
        TER32((uint32_t)(((uint64_t)x << 32 | y) >> (z & 31)));
    case GCN_OP_V_ALIGNBYTE_B32:
        TER32((uint32_t)(((uint64_t)x << 32 | y) >> (8 * (z & 3))));
    case GCN_OP_V_MIN3_I32: TER32(min_i(min_i(x, y), z));
    case GCN_OP_V_MIN3_U32: TER32(min_u(min_u(x, y), z));
    case GCN_OP_V_MAX3_I32: TER32(max_i(max_i(x, y), z));
    case GCN_OP_V_MAX3_U32: TER32(max_u(max_u(x, y), z));
    case GCN_OP_V_MED3_I32: TER32(med3_i(x, y, z));
    case GCN_OP_V_MED3_U32: TER32(med3_u(x, y, z));
    case GCN_OP_V_SAD_U8: TER32(sad_u8(x, y) + z);
    case GCN_OP_V_SAD_HI_U8: TER32((sad_u8(x, y) << 16) + z);
    case GCN_OP_V_SAD_U16:
        TER32(absdiff(x & 0xffffu, y & 0xffffu) + absdiff(x >> 16, y >> 16) + z);
    case GCN_OP_V_SAD_U32: TER32(absdiff(x, y) + z);
    case GCN_OP_V_MSAD_U8: TER32(msad_u8(x, y) + z);
    case GCN_OP_V_LERP_U8: TER32(lerp_u8(x, y, z));
    case GCN_OP_V_PERM_B32: TER32(perm_b32(x, y, z));
    case GCN_OP_V_MAD_U16: TER32(u16(u16(x) * u16(y) + z));
    case GCN_OP_V_MAD_I16:
        TER32(u16((uint32_t)(s16(x) * s16(y)) + z));
    case GCN_OP_V_MAD_U64_U32: return mad_64_32(c, false);
    case GCN_OP_V_MAD_I64_I32: return mad_64_32(c, true);
    case GCN_OP_V_MUL_LO_U32: BIN32(x * y);
    case GCN_OP_V_MUL_HI_U32: BIN32((uint32_t)(((uint64_t)x * y) >> 32));
    case GCN_OP_V_MUL_HI_I32:
        BIN32((uint32_t)((uint64_t)((int64_t)s32(x) * s32(y)) >> 32));
    case GCN_OP_V_READLANE_B32: return readlane(c, false);
    case GCN_OP_V_WRITELANE_B32: return writelane(c);
    case GCN_OP_V_BCNT_U32_B32: BIN32((uint32_t)__builtin_popcount(x) + y);
    case GCN_OP_V_MBCNT_LO_U32_B32: return mbcnt(c, false);
    case GCN_OP_V_MBCNT_HI_U32_B32: return mbcnt(c, true);
    case GCN_OP_V_LSHLREV_B64: return shift64(c, 0);
    case GCN_OP_V_LSHRREV_B64: return shift64(c, 1);
    case GCN_OP_V_ASHRREV_I64: return shift64(c, 2);
    case GCN_OP_V_BFM_B32:
        BIN32((uint32_t)((1ull << (x & 31)) - 1) << (y & 31));
    case GCN_OP_V_CVT_PK_U16_U32: BIN32(sat_u16(x) | sat_u16(y) << 16);
    case GCN_OP_V_CVT_PK_I16_I32: BIN32(sat_i16(x) | sat_i16(y) << 16);
    default:
        return VALU_NOT_MINE;
    }
}
