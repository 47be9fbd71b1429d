/*
** Vector ALU semantics, part 1: the operand framework and the entry point.
**
** gcn_exec_valu() runs one VOP1/VOP2/VOPC/VOP3A/VOP3B instruction for a
** whole wavefront (see valu_int.h for the fetch / compute / writeback
** model). This file owns everything that is the same for every opcode:
**   - source fetch: VGPR rows are used in place when no modifier applies;
**     scalars, inline constants and literals are broadcast once;
**   - SDWA (GCN3 ISA manual §6.2 "VOP_SDWA"): byte/word source selects
**     with optional sign extension, destination select with pad / sign
**     extension / preserve of the unused bits;
**   - DPP (§6.2 "VOP_DPP"): lane moves of src0 (quad_perm, row_shl/shr/
**     ror, wave_shl/rol/shr/ror, row_mirror, row_half_mirror,
**     row_bcast15/31), row/bank write masks and bound_ctrl;
**   - VOP3 input modifiers abs/neg (sign bit of the operand's type) and
**     output modifiers omod (x2, x4, /2) and clamp ([0, 1]) for floats;
**   - writeback under EXEC of 32- and 64-bit results and of lane masks.
** The per-opcode semantics live in exec_valu_int.c (integer, bit and lane
** operations), exec_valu_fp.c (f16/f32/f64 arithmetic, conversions,
** transcendentals, division helpers) and exec_valu_cmp.c (VOPC).
**
** Fast path: with full EXEC, no modifiers and no extension, a VGPR source
** costs nothing to fetch and a 32-bit result is computed straight into the
** destination row (nothing left to write back). Narrower and cheaper
** still, valu_fast / valu_fast_vop3 below run the operations of compiled
** inner loops without the generic fetch / dispatch / writeback at all
** (docs/performance.md has the measurements).
**
** Errors: a VGPR outside the wave's allocation -> MGS_ESIM with a message;
** an opcode no family implements -> MGS_EUNSUPPORTED (the caller reports
** PC and disassembly). No input makes this code crash or loop.
*/
#include "gcn3/valu_int.h"

#include "mgsim/errors.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* SDWA select values (GCN3 ISA §6.2). */
enum { SDWA_BYTE0 = 0, SDWA_WORD0 = 4, SDWA_WORD1 = 5, SDWA_DWORD = 6 };
enum { SDWA_UNUSED_PAD = 0, SDWA_UNUSED_SEXT = 1, SDWA_UNUSED_PRESERVE = 2 };

uint32_t *valu_bad_vgpr(valu_ctx *c, unsigned code)
{
    if (c->err)
        return NULL;
    if (code < GCN_OPR_VGPR0)
        c->err = mgs_error_set(MGS_EUNSUPPORTED,
                               "VALU operand code %u where a VGPR is "
                               "required", code);
    else
        c->err = mgs_error_set(MGS_ESIM,
                               "VALU operand v%u outside the %u VGPRs "
                               "allocated to the wavefront",
                               code - GCN_OPR_VGPR0, c->w->nvgpr);
    return NULL;
}

static void broadcast32(uint32_t *dst, uint32_t v)
{
    for (int l = 0; l < VALU_LANES; l++)
        dst[l] = v;
}

/* DPP source lane for lane l, or -1 when out of range (§6.2 DPP_CTRL). */
static int dpp_source_lane(unsigned ctrl, int l)
{
    int row = l & ~15, i = l & 15;
    if (ctrl <= 0xFF)                               /* quad_perm */
        return (l & ~3) + (int)((ctrl >> ((l & 3) * 2)) & 3);
    if (ctrl >= 0x101 && ctrl <= 0x10F) {           /* row_shl:n */
        int s = i + (int)(ctrl & 15);
        return s < 16 ? row + s : -1;
    }
    if (ctrl >= 0x111 && ctrl <= 0x11F) {           /* row_shr:n */
        int s = i - (int)(ctrl & 15);
        return s >= 0 ? row + s : -1;
    }
    if (ctrl >= 0x121 && ctrl <= 0x12F)             /* row_ror:n */
        return row + ((i - (int)(ctrl & 15)) & 15);
    switch (ctrl) {
    case 0x130: return l + 1 < VALU_LANES ? l + 1 : -1;   /* wave_shl:1 */
    case 0x134: return (l + 1) & 63;                      /* wave_rol:1 */
    case 0x138: return l - 1;                             /* wave_shr:1 */
    case 0x13C: return (l - 1) & 63;                      /* wave_ror:1 */
    case 0x140: return row + 15 - i;                      /* row_mirror */
    case 0x141: return row + (i & 8) + 7 - (i & 7);       /* row_half_mirror */
    case 0x142: return row >= 16 ? row - 1 : -1;          /* row_bcast:15 */
    case 0x143: return row >= 32 ? 31 : -1;               /* row_bcast:31 */
    default: return -2;                                   /* reserved */
    }
}

/* Applies DPP to src0: permutes rows into c->s[0] and narrows the write
** mask. A source lane is invalid when out of range or inactive in EXEC:
** bound_ctrl reads 0 for it, otherwise the destination lane is disabled. */
static const uint32_t *dpp_fetch(valu_ctx *c, const uint32_t *row)
{
    const gcn_inst *in = c->in;
    uint32_t *out = c->s[0];
    uint64_t exec = c->w->exec, keep = 0;
    for (int l = 0; l < VALU_LANES; l++) {
        int s = dpp_source_lane(in->dpp_ctrl, l);
        if (s == -2) {
            if (!c->err)
                c->err = mgs_error_set(MGS_EUNSUPPORTED,
                                       "reserved DPP control 0x%x",
                                       in->dpp_ctrl);
            return out;
        }
        bool valid = s >= 0 && ((exec >> s) & 1);
        out[l] = valid ? row[s] : 0;
        bool lane_on = (in->dpp_row_mask >> (l >> 4)) & 1 &&
                       (in->dpp_bank_mask >> ((l >> 2) & 3)) & 1 &&
                       (valid || in->dpp_bound_ctrl);
        keep |= (uint64_t)lane_on << l;
    }
    c->wmask &= keep;
    return out;
}

static uint32_t sdwa_select(uint32_t v, unsigned sel, bool sext)
{
    if (sel >= SDWA_DWORD)
        return v;
    if (sel < SDWA_WORD0) {
        uint32_t b = (v >> (8 * sel)) & 0xffu;
        return sext ? (uint32_t)(int32_t)(int8_t)b : b;
    }
    uint32_t h = (v >> (16 * (sel - SDWA_WORD0))) & 0xffffu;
    return sext ? (uint32_t)(int32_t)(int16_t)h : h;
}

/* Raw 32-bit source with extensions; modifiers applied by the caller
** (sign_bit = 0 for none). */
static const uint32_t *fetch32(valu_ctx *c, int i, uint32_t sign_bit)
{
    const gcn_inst *in = c->in;
    unsigned code = valu_src_code(c, i);
    /* Fast path: a plain VGPR is used in place. */
    if (code >= GCN_OPR_VGPR0 && in->ext == GCN_EXT_NONE &&
        !(sign_bit && ((in->abs | in->neg) >> i) & 1)) {
        const uint32_t *row = valu_vrow(c, code);
        if (row)
            return row;
    }
    uint32_t *buf = c->s[i];
    const uint32_t *src;
    bool absm = sign_bit && ((in->abs >> i) & 1);
    bool negm = sign_bit && ((in->neg >> i) & 1);

    if (code >= GCN_OPR_VGPR0) {
        src = valu_vrow(c, code);
        if (!src) {
            broadcast32(buf, 0);
            return buf;
        }
    } else {
        uint32_t v = gcn_read_s32(c->w, code, in->literal);
        if (sign_bit == 0x8000u && code >= GCN_OPR_F_HALF &&
            code <= GCN_OPR_F_INV2PI)
            v = valu_f32_to_f16(valu_f(v)); /* f16 inline constants */
        if (absm)
            v &= ~sign_bit;
        if (negm)
            v ^= sign_bit;
        broadcast32(buf, v);
        return buf;
    }
    if (in->ext == GCN_EXT_DPP && i == 0)
        src = dpp_fetch(c, src);
    if (in->ext == GCN_EXT_SDWA && i < 2) {
        unsigned sel = i == 0 ? in->sdwa_src0_sel : in->sdwa_src1_sel;
        bool sext = !sign_bit &&
                    (i == 0 ? in->sdwa_src0_sext : in->sdwa_src1_sext);
        if (sel < SDWA_DWORD || sext) {
            for (int l = 0; l < VALU_LANES; l++)
                buf[l] = sdwa_select(src[l], sel, sext);
            src = buf;
        }
    }
    if (absm || negm) {
        uint32_t and_m = absm ? ~sign_bit : ~0u, xor_m = negm ? sign_bit : 0;
        for (int l = 0; l < VALU_LANES; l++)
            buf[l] = (src[l] & and_m) ^ xor_m;
        src = buf;
    }
    return src;
}

const uint32_t *valu_src_b32(valu_ctx *c, int i) { return fetch32(c, i, 0); }
const uint32_t *valu_src_f32(valu_ctx *c, int i)
{
    return fetch32(c, i, 0x80000000u);
}
const uint32_t *valu_src_f16(valu_ctx *c, int i)
{
    return fetch32(c, i, 0x8000u);
}

/* Register pair rows -> 64-bit lanes, and back. On x86 an unpack/shuffle
** does in one instruction what the zero-extend/shift/or form takes four
** for (the 64-bit operand path is common: v_add_f64, v_mad_u64_u32). */
static void interleave64(const uint32_t *lo, const uint32_t *hi,
                         uint64_t *out)
{
#ifdef __SSE2__
    for (int l = 0; l < VALU_LANES; l += 4) {
        __m128i a = _mm_loadu_si128((const __m128i *)(lo + l));
        __m128i b = _mm_loadu_si128((const __m128i *)(hi + l));
        _mm_storeu_si128((__m128i *)(out + l), _mm_unpacklo_epi32(a, b));
        _mm_storeu_si128((__m128i *)(out + l + 2), _mm_unpackhi_epi32(a, b));
    }
#else
    for (int l = 0; l < VALU_LANES; l++)
        out[l] = lo[l] | (uint64_t)hi[l] << 32;
#endif
}

static void deinterleave64(const uint64_t *in, uint32_t *lo, uint32_t *hi)
{
#ifdef __SSE2__
    for (int l = 0; l < VALU_LANES; l += 4) {
        __m128 a = _mm_castsi128_ps(_mm_loadu_si128((const __m128i *)(in + l)));
        __m128 b = _mm_castsi128_ps(
            _mm_loadu_si128((const __m128i *)(in + l + 2)));
        _mm_storeu_si128((__m128i *)(lo + l),
                         _mm_castps_si128(_mm_shuffle_ps(a, b, 0x88)));
        _mm_storeu_si128((__m128i *)(hi + l),
                         _mm_castps_si128(_mm_shuffle_ps(a, b, 0xdd)));
    }
#else
    for (int l = 0; l < VALU_LANES; l++) {
        lo[l] = (uint32_t)in[l];
        hi[l] = (uint32_t)(in[l] >> 32);
    }
#endif
}

const uint64_t *valu_src_b64(valu_ctx *c, int i, bool is_f64)
{
    const gcn_inst *in = c->in;
    unsigned code = valu_src_code(c, i);
    uint64_t *buf = c->s64[i];
    uint64_t sign = (uint64_t)1 << 63;
    bool absm = is_f64 && ((in->abs >> i) & 1);
    bool negm = is_f64 && ((in->neg >> i) & 1);
    uint64_t and_m = absm ? ~sign : ~0ull, xor_m = negm ? sign : 0;

    if (code >= GCN_OPR_VGPR0) {
        const uint32_t *lo = valu_vrow(c, code);
        const uint32_t *hi = lo ? valu_vrow(c, code + 1) : NULL;
        if (!hi) {
            memset(buf, 0, sizeof c->s64[i]);
            return buf;
        }
        if (!absm && !negm)
            interleave64(lo, hi, buf);
        else
            for (int l = 0; l < VALU_LANES; l++)
                buf[l] = ((lo[l] | (uint64_t)hi[l] << 32) & and_m) ^ xor_m;
        return buf;
    }
    uint64_t v = gcn_read_s64(c->w, code, in->literal, is_f64);
    v = (v & and_m) ^ xor_m;
    for (int l = 0; l < VALU_LANES; l++)
        buf[l] = v;
    return buf;
}

const uint64_t *valu_src_f64(valu_ctx *c, int i)
{
    return valu_src_b64(c, i, true);
}

uint32_t valu_scalar_b32(valu_ctx *c, int i)
{
    unsigned code = valu_src_code(c, i);
    if (code >= GCN_OPR_VGPR0) {
        /* A VGPR where the ISA wants a scalar: use the first active lane,
        ** as v_readfirstlane would. */
        const uint32_t *row = valu_vrow(c, code);
        uint64_t e = c->w->exec;
        return row ? row[e ? __builtin_ctzll(e) : 0] : 0;
    }
    return gcn_read_s32(c->w, code, c->in->literal);
}

uint64_t valu_scalar_mask(valu_ctx *c, unsigned code)
{
    if (code >= GCN_OPR_VGPR0) {
        if (!c->err)
            c->err = mgs_error_set(MGS_EUNSUPPORTED,
                                   "VALU lane-mask operand is a VGPR (v%u)",
                                   code - GCN_OPR_VGPR0);
        return 0;
    }
    return gcn_read_s64(c->w, code, c->in->literal, false);
}

/* ---- lane masks ---------------------------------------------------------- */

/* Bit l & 31 of lane l: expanding a mask is then an AND and a compare with
** a broadcast half-mask, which vectorises. */
static const uint32_t lane_bit[32] = {
    1u << 0, 1u << 1, 1u << 2, 1u << 3, 1u << 4, 1u << 5, 1u << 6, 1u << 7,
    1u << 8, 1u << 9, 1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14,
    1u << 15, 1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21,
    1u << 22, 1u << 23, 1u << 24, 1u << 25, 1u << 26, 1u << 27, 1u << 28,
    1u << 29, 1u << 30, 1u << 31
};

void valu_expand_mask(uint64_t m, uint32_t out[VALU_LANES])
{
    uint32_t lo = (uint32_t)m, hi = (uint32_t)(m >> 32);
    for (int l = 0; l < 32; l++)
        out[l] = 0u - (uint32_t)((lo & lane_bit[l]) != 0);
    for (int l = 0; l < 32; l++)
        out[32 + l] = 0u - (uint32_t)((hi & lane_bit[l]) != 0);
}

uint64_t valu_pack_flags(const uint8_t flags[VALU_LANES])
{
#ifdef __SSE2__
    /* flags are 0/1: compare with 0 makes 0x00/0xff, movemask gathers. */
    const __m128i zero = _mm_setzero_si128();
    uint64_t m = 0;
    for (int g = 0; g < 4; g++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(flags + 16 * g));
        v = _mm_cmpgt_epi8(v, zero);
        m |= (uint64_t)(uint32_t)_mm_movemask_epi8(v) << (16 * g);
    }
    return m;
#else
    uint64_t m = 0;
    for (int g = 0; g < 8; g++) {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v |= (uint64_t)(flags[8 * g + i] & 1u) << (8 * i);
        /* Multiplying gathers bit 0 of byte i into bit 56 + i. */
        m |= ((v * 0x0102040810204080ull) >> 56) << (8 * g);
    }
    return m;
#endif
}

/* ---- writeback ---------------------------------------------------------- */

static void apply_fmods_f32(valu_ctx *c)
{
    const gcn_inst *in = c->in;
    static const float omod_scale[4] = {1.0f, 2.0f, 4.0f, 0.5f};
    float k = omod_scale[in->omod & 3];
    if (in->omod & 3)
        for (int l = 0; l < VALU_LANES; l++)
            c->d[l] = valu_u(valu_f(c->d[l]) * k);
    if (in->clamp)
        for (int l = 0; l < VALU_LANES; l++) {
            float x = valu_f(c->d[l]);
            /* NaN compares false both ways and clamps to 0. */
            c->d[l] = valu_u(x > 1.0f ? 1.0f : x >= 0.0f ? x : 0.0f);
        }
}

static void apply_fmods_f64(valu_ctx *c)
{
    const gcn_inst *in = c->in;
    static const double omod_scale[4] = {1.0, 2.0, 4.0, 0.5};
    double k = omod_scale[in->omod & 3];
    if (in->omod & 3)
        for (int l = 0; l < VALU_LANES; l++)
            c->d64[l] = valu_ud(valu_d(c->d64[l]) * k);
    if (in->clamp)
        for (int l = 0; l < VALU_LANES; l++) {
            double x = valu_d(c->d64[l]);
            c->d64[l] = valu_ud(x > 1.0 ? 1.0 : x >= 0.0 ? x : 0.0);
        }
}

static void apply_fmods_f16(valu_ctx *c)
{
    const gcn_inst *in = c->in;
    static const float omod_scale[4] = {1.0f, 2.0f, 4.0f, 0.5f};
    if (!(in->omod & 3) && !in->clamp)
        return;
    for (int l = 0; l < VALU_LANES; l++) {
        float x = valu_f16_to_f32((uint16_t)c->d[l]) * omod_scale[in->omod & 3];
        if (in->clamp)
            x = x > 1.0f ? 1.0f : x >= 0.0f ? x : 0.0f;
        c->d[l] = valu_f32_to_f16(x);
    }
}

/* Places the low bits of result r into dst_sel of old (SDWA dst). */
static uint32_t sdwa_place(uint32_t r, uint32_t old, unsigned sel,
                           unsigned unused)
{
    if (sel >= SDWA_DWORD)
        return r;
    unsigned shift, width;
    if (sel < SDWA_WORD0) {
        shift = 8 * sel;
        width = 8;
    } else {
        shift = 16 * (sel - SDWA_WORD0);
        width = 16;
    }
    uint32_t field = (uint32_t)((1ull << width) - 1) << shift;
    uint32_t v = (r << shift) & field;
    if (unused == SDWA_UNUSED_PRESERVE)
        return v | (old & ~field);
    if (unused == SDWA_UNUSED_SEXT && ((v >> (shift + width - 1)) & 1))
        v |= ~(uint32_t)((1ull << (shift + width)) - 1);
    return v;
}

int valu_write_b32(valu_ctx *c)
{
    uint32_t *row = valu_vrow(c, c->in->dst);
    if (!row)
        return c->err;
    uint64_t m = c->wmask;
    if (c->in->ext == GCN_EXT_SDWA) {
        const gcn_inst *in = c->in;
        for (int l = 0; l < VALU_LANES; l++)
            if ((m >> l) & 1)
                row[l] = sdwa_place(c->d[l], row[l], in->sdwa_dst_sel,
                                    in->sdwa_dst_unused);
        return c->err;
    }
    if (c->d == row)   /* fast path: computed in place */
        return c->err;
    if (m == VALU_ALL_LANES) {
        memcpy(row, c->d, sizeof c->dbuf);
    } else {
        uint32_t sel[VALU_LANES];
        valu_expand_mask(m, sel);
        VALU_FOR_LANES(l)
            row[l] = (c->d[l] & sel[l]) | (row[l] & ~sel[l]);
    }
    return c->err;
}

int valu_write_f32(valu_ctx *c)
{
    if (c->float_mods)
        apply_fmods_f32(c);
    return valu_write_b32(c);
}

int valu_write_f16(valu_ctx *c)
{
    if (c->float_mods)
        apply_fmods_f16(c);
    return valu_write_b32(c);
}

int valu_write_b64(valu_ctx *c)
{
    uint32_t *lo = valu_vrow(c, c->in->dst);
    uint32_t *hi = lo ? valu_vrow(c, c->in->dst + 1u) : NULL;
    if (!hi)
        return c->err;
    if (c->wmask == VALU_ALL_LANES) {
        deinterleave64(c->d64, lo, hi);
        return c->err;
    }
    uint32_t sel[VALU_LANES];
    valu_expand_mask(c->wmask, sel);
    VALU_FOR_LANES(l) {
        lo[l] = ((uint32_t)c->d64[l] & sel[l]) | (lo[l] & ~sel[l]);
        hi[l] = ((uint32_t)(c->d64[l] >> 32) & sel[l]) | (hi[l] & ~sel[l]);
    }
    return c->err;
}

int valu_write_f64(valu_ctx *c)
{
    if (c->float_mods)
        apply_fmods_f64(c);
    return valu_write_b64(c);
}

void valu_write_mask(valu_ctx *c, uint64_t mask)
{
    mask &= c->w->exec;
    if (c->vop3)
        gcn_write_s64(c->w, c->in->sdst, mask);
    else
        c->w->vcc = mask;
}

/* ---- full-wave fast path -------------------------------------------------
** The VOP1/VOP2 operations that fill compiled kernels' inner loops (mm:
** v_mac_f32, v_add_u32 / v_addc_u32, v_mov_b32, shifts and logic), when
** EXEC is full and there is no SDWA/DPP and no modifier: one loop over the
** register rows with every operand resolved once, skipping the generic
** fetch / family dispatch / writeback steps. A scalar, constant or literal
** src0 is broadcast into a stack array; VOP2 src1 is always a VGPR.
** Results are bit-identical to the family handlers (the same expressions;
** tests/unit/gcn3/test_exec_valu_fast.c cross-checks them); anything else,
** including any VGPR outside the allocation, returns VALU_NOT_MINE so the
** generic path handles (and reports) it. */
#define FAST_LANES(l) VALU_FOR_LANES(l)

/* 32-bit add (with the carry-in bits of cin_mask when use_cin) and its
** per-lane carry-out as a lane mask. SSE2: unsigned compares through the
** sign-flip trick, and movemask gathers four carry bits at a time, so no
** byte array is packed afterwards. d may be a or b (lane for lane). */
static inline uint64_t fast_add_carry(const uint32_t *a, const uint32_t *b,
                                      uint32_t *d, uint64_t cin_mask,
                                      bool use_cin)
{
    uint64_t m = 0;
#ifdef __SSE2__
    static const uint32_t cin_bits[16][4] = {
        {0,0,0,0},{1,0,0,0},{0,1,0,0},{1,1,0,0},{0,0,1,0},{1,0,1,0},
        {0,1,1,0},{1,1,1,0},{0,0,0,1},{1,0,0,1},{0,1,0,1},{1,1,0,1},
        {0,0,1,1},{1,0,1,1},{0,1,1,1},{1,1,1,1}
    };
    const __m128i sign = _mm_set1_epi32(INT32_MIN);
    for (int l = 0; l < VALU_LANES; l += 4) {
        __m128i x = _mm_loadu_si128((const __m128i *)(a + l));
        __m128i y = _mm_loadu_si128((const __m128i *)(b + l));
        __m128i r = _mm_add_epi32(x, y);
        /* r <u x: a carry out of the first add */
        __m128i c = _mm_cmplt_epi32(_mm_xor_si128(r, sign),
                                    _mm_xor_si128(x, sign));
        if (use_cin) {
            __m128i ci = _mm_loadu_si128(
                (const __m128i *)cin_bits[(cin_mask >> l) & 15]);
            __m128i r2 = _mm_add_epi32(r, ci);
            c = _mm_or_si128(c, _mm_cmplt_epi32(_mm_xor_si128(r2, sign),
                                                _mm_xor_si128(r, sign)));
            r = r2;
        }
        _mm_storeu_si128((__m128i *)(d + l), r);
        m |= (uint64_t)(unsigned)_mm_movemask_ps(_mm_castsi128_ps(c)) << l;
    }
#else
    for (int l = 0; l < VALU_LANES; l++) {
        uint32_t x = a[l], ci = use_cin ? (uint32_t)(cin_mask >> l) & 1u : 0;
        uint32_t r1 = x + b[l], r = r1 + ci;
        m |= (uint64_t)((r1 < x) | (r < r1)) << l;
        d[l] = r;
    }
#endif
    return m;
}

/* d = x - y per lane; returns the borrow-out lane mask (x <u y). */
static inline uint64_t fast_sub_borrow(const uint32_t *x, const uint32_t *y,
                                       uint32_t *d)
{
    uint64_t m = 0;
#ifdef __SSE2__
    const __m128i sign = _mm_set1_epi32(INT32_MIN);
    for (int l = 0; l < VALU_LANES; l += 4) {
        __m128i u = _mm_loadu_si128((const __m128i *)(x + l));
        __m128i v = _mm_loadu_si128((const __m128i *)(y + l));
        __m128i c = _mm_cmplt_epi32(_mm_xor_si128(u, sign),
                                    _mm_xor_si128(v, sign));
        _mm_storeu_si128((__m128i *)(d + l), _mm_sub_epi32(u, v));
        m |= (uint64_t)(unsigned)_mm_movemask_ps(_mm_castsi128_ps(c)) << l;
    }
#else
    for (int l = 0; l < VALU_LANES; l++) {
        uint32_t u = x[l], v = y[l];
        m |= (uint64_t)(u < v) << l;
        d[l] = u - v;
    }
#endif
    return m;
}

/* d = b shifted by one count n < 32 for all lanes (op: v_lshlrev_b32,
** v_lshrrev_b32 or v_ashrrev_i32). SSE2 shifts by a scalar count only,
** and GCC does not always see that the loop is one. */
static inline void fast_shift_uniform(uint32_t *d, const uint32_t *b,
                                      unsigned n, unsigned op)
{
#ifdef __SSE2__
    const __m128i cnt = _mm_cvtsi32_si128((int)n);
    for (int l = 0; l < VALU_LANES; l += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(b + l));
        v = op == GCN_OP_V_LSHLREV_B32   ? _mm_sll_epi32(v, cnt)
            : op == GCN_OP_V_LSHRREV_B32 ? _mm_srl_epi32(v, cnt)
                                         : _mm_sra_epi32(v, cnt);
        _mm_storeu_si128((__m128i *)(d + l), v);
    }
#else
    for (int l = 0; l < VALU_LANES; l++)
        d[l] = op == GCN_OP_V_LSHLREV_B32   ? b[l] << n
               : op == GCN_OP_V_LSHRREV_B32 ? b[l] >> n
                                            : (uint32_t)((int32_t)b[l] >> n);
#endif
}

/* buf[0..63] = v (the compiler leaves this loop scalar otherwise). */
static inline void fast_fill(uint32_t *buf, uint32_t v)
{
#ifdef __SSE2__
    __m128i x = _mm_set1_epi32((int)v);
    for (int l = 0; l < VALU_LANES; l += 4)
        _mm_storeu_si128((__m128i *)(buf + l), x);
#else
    for (int l = 0; l < VALU_LANES; l++)
        buf[l] = v;
#endif
}

/* The encoding in which each op takes valu_fast (0: never), so that other
** instructions pay one table load for trying. */
static const uint8_t fast_fmt[GCN_OP_COUNT] = {
    [GCN_OP_V_MOV_B32] = GCN_FMT_VOP1,
    [GCN_OP_V_MAC_F32] = GCN_FMT_VOP2, [GCN_OP_V_ADD_F32] = GCN_FMT_VOP2,
    [GCN_OP_V_SUB_F32] = GCN_FMT_VOP2, [GCN_OP_V_SUBREV_F32] = GCN_FMT_VOP2,
    [GCN_OP_V_MUL_F32] = GCN_FMT_VOP2, [GCN_OP_V_AND_B32] = GCN_FMT_VOP2,
    [GCN_OP_V_OR_B32] = GCN_FMT_VOP2, [GCN_OP_V_XOR_B32] = GCN_FMT_VOP2,
    [GCN_OP_V_LSHLREV_B32] = GCN_FMT_VOP2,
    [GCN_OP_V_LSHRREV_B32] = GCN_FMT_VOP2,
    [GCN_OP_V_ASHRREV_I32] = GCN_FMT_VOP2, [GCN_OP_V_ADD_U32] = GCN_FMT_VOP2,
    [GCN_OP_V_SUB_U32] = GCN_FMT_VOP2, [GCN_OP_V_SUBREV_U32] = GCN_FMT_VOP2,
    [GCN_OP_V_ADDC_U32] = GCN_FMT_VOP2, [GCN_OP_V_CNDMASK_B32] = GCN_FMT_VOP2,
    [GCN_OP_V_LSHLREV_B64] = GCN_FMT_VOP3A,
    [GCN_OP_V_MAD_U64_U32] = GCN_FMT_VOP3B,
};

static int valu_fast(gcn_wave *w, const gcn_inst *in)
{
    const unsigned nv = w->nvgpr;
    const unsigned rd = in->dst - GCN_OPR_VGPR0;     /* wraps for scalars */
    const unsigned r0 = in->src0 - GCN_OPR_VGPR0;
    const unsigned r1 = in->src1 - GCN_OPR_VGPR0;
    if (rd >= nv)
        return VALU_NOT_MINE;
    uint32_t *d = gcn_vreg(w, rd);
    if (in->op == GCN_OP_V_MOV_B32 && in->src0 < GCN_OPR_VGPR0) {
        fast_fill(d, gcn_read_s32(w, in->src0, in->literal));
        return MGS_OK;
    }
    uint32_t bcast[VALU_LANES];
    const uint32_t *a;
    if (in->src0 >= GCN_OPR_VGPR0) {
        if (r0 >= nv)
            return VALU_NOT_MINE;
        a = gcn_vreg(w, r0);
    } else {
        fast_fill(bcast, gcn_read_s32(w, in->src0, in->literal));
        a = bcast;
    }
    if (in->op == GCN_OP_V_MOV_B32) {
        /* a plain loop: a 256-byte memcpy call costs more here (libc
        ** picks a string-move path with a long startup) */
        FAST_LANES(l) d[l] = a[l];
        return MGS_OK;
    }
    if (r1 >= nv)
        return VALU_NOT_MINE;
    const uint32_t *b = gcn_vreg(w, r1);
    switch (in->op) {
    case GCN_OP_V_MAC_F32:   /* unfused: D = S0 * S1 + D, two roundings */
        FAST_LANES(l) d[l] = valu_u(valu_f(a[l]) * valu_f(b[l]) +
                                    valu_f(d[l]));
        return MGS_OK;
    case GCN_OP_V_ADD_F32:
        FAST_LANES(l) d[l] = valu_u(valu_f(a[l]) + valu_f(b[l]));
        return MGS_OK;
    case GCN_OP_V_SUB_F32:
        FAST_LANES(l) d[l] = valu_u(valu_f(a[l]) - valu_f(b[l]));
        return MGS_OK;
    case GCN_OP_V_SUBREV_F32:
        FAST_LANES(l) d[l] = valu_u(valu_f(b[l]) - valu_f(a[l]));
        return MGS_OK;
    case GCN_OP_V_MUL_F32:
        FAST_LANES(l) d[l] = valu_u(valu_f(a[l]) * valu_f(b[l]));
        return MGS_OK;
    case GCN_OP_V_AND_B32:
        FAST_LANES(l) d[l] = a[l] & b[l];
        return MGS_OK;
    case GCN_OP_V_OR_B32:
        FAST_LANES(l) d[l] = a[l] | b[l];
        return MGS_OK;
    case GCN_OP_V_XOR_B32:
        FAST_LANES(l) d[l] = a[l] ^ b[l];
        return MGS_OK;
    case GCN_OP_V_LSHLREV_B32:
    case GCN_OP_V_LSHRREV_B32:
    case GCN_OP_V_ASHRREV_I32:
        if (a == bcast) {
            fast_shift_uniform(d, b, a[0] & 31u, in->op);
        } else if (in->op == GCN_OP_V_LSHLREV_B32) {
            FAST_LANES(l) d[l] = b[l] << (a[l] & 31u);
        } else if (in->op == GCN_OP_V_LSHRREV_B32) {
            FAST_LANES(l) d[l] = b[l] >> (a[l] & 31u);
        } else {
            FAST_LANES(l) d[l] = (uint32_t)((int32_t)b[l] >> (a[l] & 31u));
        }
        return MGS_OK;
    case GCN_OP_V_ADD_U32:   /* carry-out to vcc (EXEC is full) */
        w->vcc = fast_add_carry(a, b, d, 0, false);
        return MGS_OK;
    case GCN_OP_V_ADDC_U32:  /* carry-in and carry-out in vcc */
        w->vcc = fast_add_carry(a, b, d, w->vcc, true);
        return MGS_OK;
    case GCN_OP_V_SUB_U32:   /* borrow-out to vcc */
        w->vcc = fast_sub_borrow(a, b, d);
        return MGS_OK;
    case GCN_OP_V_SUBREV_U32:
        w->vcc = fast_sub_borrow(b, a, d);
        return MGS_OK;
    case GCN_OP_V_CNDMASK_B32: {   /* D = vcc ? S1 : S0 */
        uint32_t sel[VALU_LANES];
        valu_expand_mask(w->vcc, sel);
        FAST_LANES(l) d[l] = (b[l] & sel[l]) | (a[l] & ~sel[l]);
        return MGS_OK;
    }
    default:
        return VALU_NOT_MINE;
    }
}

/* A 32-bit source for the fast paths: the VGPR row itself, or a scalar /
** constant / literal broadcast into buf; NULL for a VGPR outside the
** allocation (the generic path reports it). */
static const uint32_t *fast_src32(gcn_wave *w, const gcn_inst *in,
                                  unsigned code, uint32_t *buf)
{
    if (code >= GCN_OPR_VGPR0) {
        unsigned r = code - GCN_OPR_VGPR0;
        return r < w->nvgpr ? gcn_vreg(w, r) : NULL;
    }
    fast_fill(buf, gcn_read_s32(w, code, in->literal));
    return buf;
}

/* The 64-bit address arithmetic of compiled kernels in VOP3 encoding,
** without modifiers and with EXEC full: v_lshlrev_b64 by a scalar count
** and v_mad_u64_u32. Computed on the register rows directly (no
** interleave into 64-bit lanes and back); VALU_NOT_MINE otherwise. */
static int valu_fast_vop3(gcn_wave *w, const gcn_inst *in)
{
    const unsigned nv = w->nvgpr;
    const unsigned rd = in->dst - GCN_OPR_VGPR0;
    if (rd + 1 >= nv || rd >= nv)
        return VALU_NOT_MINE;
    uint32_t *dlo = gcn_vreg(w, rd), *dhi = gcn_vreg(w, rd + 1);
    if (in->op == GCN_OP_V_LSHLREV_B64) {
        const unsigned r1 = in->src1 - GCN_OPR_VGPR0;
        if (in->src0 >= GCN_OPR_VGPR0 || r1 + 1 >= nv || r1 >= nv)
            return VALU_NOT_MINE;
        const uint32_t *lo = gcn_vreg(w, r1), *hi = gcn_vreg(w, r1 + 1);
        unsigned n = gcn_read_s32(w, in->src0, in->literal) & 63u;
        if (n == 0) {
            FAST_LANES(l) {
                uint32_t x = lo[l], y = hi[l];
                dlo[l] = x;
                dhi[l] = y;
            }
        } else if (n < 32) {
            FAST_LANES(l) {
                uint32_t x = lo[l], y = hi[l];
                dlo[l] = x << n;
                dhi[l] = (y << n) | (x >> (32 - n));
            }
        } else {
            FAST_LANES(l) {
                uint32_t x = lo[l];
                dlo[l] = 0;
                dhi[l] = x << (n - 32);
            }
        }
        return MGS_OK;
    }
    uint32_t abuf[VALU_LANES], bbuf[VALU_LANES], zlbuf[VALU_LANES],
             zhbuf[VALU_LANES];
    const uint32_t *a = fast_src32(w, in, in->src0, abuf);
    const uint32_t *b = fast_src32(w, in, in->src1, bbuf);
    const uint32_t *zlo, *zhi;
    if (in->src2 >= GCN_OPR_VGPR0) {
        const unsigned r2 = in->src2 - GCN_OPR_VGPR0;
        if (r2 + 1 >= nv || r2 >= nv)
            return VALU_NOT_MINE;
        zlo = gcn_vreg(w, r2);
        zhi = gcn_vreg(w, r2 + 1);
    } else {
        uint64_t z = gcn_read_s64(w, in->src2, in->literal, false);
        fast_fill(zlbuf, (uint32_t)z);
        fast_fill(zhbuf, (uint32_t)(z >> 32));
        zlo = zlbuf;
        zhi = zhbuf;
    }
    if (!a || !b)
        return VALU_NOT_MINE;
    uint8_t cout[VALU_LANES];
    FAST_LANES(l) {
        uint64_t p = (uint64_t)a[l] * b[l];
        uint64_t y = zlo[l] | (uint64_t)zhi[l] << 32;
        /* carry out of bit 63, from halves that cannot overflow */
        cout[l] = (uint8_t)(((p >> 1) + (y >> 1) + (p & y & 1)) >> 63);
        uint64_t r = p + y;
        dlo[l] = (uint32_t)r;
        dhi[l] = (uint32_t)(r >> 32);
    }
    gcn_write_s64(w, in->sdst, valu_pack_flags(cout));
    return MGS_OK;
}

/* ---- entry point -------------------------------------------------------- */

int gcn_exec_valu(gcn_wave *w, const gcn_inst *in)
{
    if (in->op < GCN_OP_COUNT && fast_fmt[in->op] == in->fmt &&
        w->exec == VALU_ALL_LANES && in->ext == GCN_EXT_NONE &&
        (in->abs | in->neg | in->clamp | in->omod) == 0) {
        int rc = in->fmt == GCN_FMT_VOP1 || in->fmt == GCN_FMT_VOP2
                     ? valu_fast(w, in) : valu_fast_vop3(w, in);
        if (rc != VALU_NOT_MINE)
            return rc;
    }
    valu_ctx c;
    c.w = w;
    c.in = in;
    c.wmask = w->exec;
    c.vop3 = in->fmt == GCN_FMT_VOP3A || in->fmt == GCN_FMT_VOP3B;
    c.float_mods = in->clamp || (c.vop3 && (in->omod & 3));
    c.err = 0;
    c.d = c.dbuf;
    unsigned r = in->dst - GCN_OPR_VGPR0;   /* wraps for scalar codes */
    if (c.wmask == VALU_ALL_LANES && in->ext == GCN_EXT_NONE &&
        r < w->nvgpr)
        c.d = gcn_vreg(w, r);

    /* Route by the opcode table so the common case hits its family first;
    ** the flags are only a hint (every family is tried before giving up). */
    if (in->op >= GCN_OP_COUNT)
        return MGS_EUNSUPPORTED;
    const gcn_op_info *info = &gcn_op_table[in->op];
    int rc;
    if (info->fmt == GCN_FMT_VOPC)
        rc = valu_exec_cmp(&c);
    else if (info->flags & GCN_F_FLOAT)
        rc = valu_exec_fp(&c);
    else
        rc = valu_exec_int(&c);
    if (rc == VALU_NOT_MINE)
        rc = valu_exec_int(&c);
    if (rc == VALU_NOT_MINE)
        rc = valu_exec_fp(&c);
    if (rc == VALU_NOT_MINE)
        rc = valu_exec_cmp(&c);
    if (rc == VALU_NOT_MINE)
        return MGS_EUNSUPPORTED;
    return rc;
}
