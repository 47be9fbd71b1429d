/*
** Scalar semantics: SOP2, SOPK, SOP1, SOPC, SOPP and SMEM, one wavefront at
** a time (GCN3 ISA manual ch. 4 "Program Flow Control", ch. 5 "Scalar ALU
** Operations", ch. 7 "Scalar Memory Operations" and the opcode tables of
** ch. 12.1-12.6).
**
** Conventions:
**   - pc is the byte offset of the instruction inside the kernel; a taken
**     branch sets w->pc and returns GCN_EXEC_BRANCHED, a branch not taken
**     returns MGS_OK (the caller adds in->size).
**   - s_getpc/s_swappc expose code_vaddr + pc (the code object's virtual
**     address), s_setpc/s_swappc take such an address back.
**   - s_waitcnt, s_nop, cache controls and scheduling hints are no-ops: the
**     functional model completes every access before the next instruction.
**   - s_barrier marks the wave waiting (the executor releases it);
**     s_endpgm marks it done.
**   - s_memtime returns the wave's instruction count (deterministic).
** Everything else returns MGS_EUNSUPPORTED and the executor reports it.
*/
#include "gcn3/exec.h"
#include "gcn3/exec_mem_plan.h"

#include "mgsim/errors.h"

#include <string.h>

static inline uint32_t src0_32(const gcn_wave *w, const gcn_inst *in)
{
    return gcn_read_s32(w, in->src0, in->literal);
}

static inline uint32_t src1_32(const gcn_wave *w, const gcn_inst *in)
{
    return gcn_read_s32(w, in->src1, in->literal);
}

static inline uint64_t src0_64(const gcn_wave *w, const gcn_inst *in)
{
    return gcn_read_s64(w, in->src0, in->literal, false);
}

static inline uint64_t src1_64(const gcn_wave *w, const gcn_inst *in)
{
    return gcn_read_s64(w, in->src1, in->literal, false);
}

static inline uint32_t bfe32(uint32_t v, uint32_t ctl, bool sign)
{
    uint32_t off = ctl & 31, width = (ctl >> 16) & 0x7f;
    if (width == 0)
        return 0;
    if (width > 32 - off)
        width = 32 - off;
    uint32_t r = v >> off;
    if (width < 32) {
        r &= (1u << width) - 1;
        if (sign && (r >> (width - 1)) & 1)
            r |= ~0u << width;
    }
    return r;
}

static inline uint64_t bfe64(uint64_t v, uint32_t ctl, bool sign)
{
    uint32_t off = ctl & 63, width = (ctl >> 16) & 0x7f;
    if (width == 0)
        return 0;
    if (width > 64 - off)
        width = 64 - off;
    uint64_t r = v >> off;
    if (width < 64) {
        r &= (1ull << width) - 1;
        if (sign && (r >> (width - 1)) & 1)
            r |= ~0ull << width;
    }
    return r;
}

/* ISA 12.1 SOP2. */
static int exec_sop2(gcn_wave *w, const gcn_inst *in)
{
    uint32_t a = 0, b = 0, d = 0;
    uint64_t a64 = 0, b64 = 0, d64 = 0;
    bool is64 = gcn_op_table[in->op].flags & GCN_F_DST64;
    if (is64 || (gcn_op_table[in->op].flags & GCN_F_SRC64)) {
        a64 = src0_64(w, in);
        b64 = (gcn_op_table[in->op].flags & GCN_F_DST64) ? src1_64(w, in)
                                                         : src1_32(w, in);
    }
    a = src0_32(w, in);
    b = src1_32(w, in);
    switch (in->op) {
    case GCN_OP_S_ADD_U32:
        d = a + b;
        w->scc = d < a;
        break;
    case GCN_OP_S_SUB_U32:
        d = a - b;
        w->scc = b > a;
        break;
    case GCN_OP_S_ADD_I32:
        d = a + b;
        w->scc = ((~(a ^ b) & (a ^ d)) >> 31) & 1; /* signed overflow */
        break;
    case GCN_OP_S_SUB_I32:
        d = a - b;
        w->scc = (((a ^ b) & (a ^ d)) >> 31) & 1;
        break;
    case GCN_OP_S_ADDC_U32: {
        uint64_t t = (uint64_t)a + b + w->scc;
        d = (uint32_t)t;
        w->scc = t >> 32;
        break;
    }
    case GCN_OP_S_SUBB_U32: {
        uint64_t t = (uint64_t)a - b - w->scc;
        d = (uint32_t)t;
        w->scc = (uint64_t)b + w->scc > a;
        break;
    }
    case GCN_OP_S_MIN_I32:
        w->scc = (int32_t)a < (int32_t)b;
        d = w->scc ? a : b;
        break;
    case GCN_OP_S_MIN_U32:
        w->scc = a < b;
        d = w->scc ? a : b;
        break;
    case GCN_OP_S_MAX_I32:
        w->scc = (int32_t)a > (int32_t)b;
        d = w->scc ? a : b;
        break;
    case GCN_OP_S_MAX_U32:
        w->scc = a > b;
        d = w->scc ? a : b;
        break;
    case GCN_OP_S_CSELECT_B32: d = w->scc ? a : b; break;
    case GCN_OP_S_CSELECT_B64: d64 = w->scc ? a64 : b64; break;
    case GCN_OP_S_AND_B32: d = a & b; w->scc = d != 0; break;
    case GCN_OP_S_OR_B32: d = a | b; w->scc = d != 0; break;
    case GCN_OP_S_XOR_B32: d = a ^ b; w->scc = d != 0; break;
    case GCN_OP_S_ANDN2_B32: d = a & ~b; w->scc = d != 0; break;
    case GCN_OP_S_ORN2_B32: d = a | ~b; w->scc = d != 0; break;
    case GCN_OP_S_NAND_B32: d = ~(a & b); w->scc = d != 0; break;
    case GCN_OP_S_NOR_B32: d = ~(a | b); w->scc = d != 0; break;
    case GCN_OP_S_XNOR_B32: d = ~(a ^ b); w->scc = d != 0; break;
    case GCN_OP_S_AND_B64: d64 = a64 & b64; w->scc = d64 != 0; break;
    case GCN_OP_S_OR_B64: d64 = a64 | b64; w->scc = d64 != 0; break;
    case GCN_OP_S_XOR_B64: d64 = a64 ^ b64; w->scc = d64 != 0; break;
    case GCN_OP_S_ANDN2_B64: d64 = a64 & ~b64; w->scc = d64 != 0; break;
    case GCN_OP_S_ORN2_B64: d64 = a64 | ~b64; w->scc = d64 != 0; break;
    case GCN_OP_S_NAND_B64: d64 = ~(a64 & b64); w->scc = d64 != 0; break;
    case GCN_OP_S_NOR_B64: d64 = ~(a64 | b64); w->scc = d64 != 0; break;
    case GCN_OP_S_XNOR_B64: d64 = ~(a64 ^ b64); w->scc = d64 != 0; break;
    case GCN_OP_S_LSHL_B32: d = a << (b & 31); w->scc = d != 0; break;
    case GCN_OP_S_LSHR_B32: d = a >> (b & 31); w->scc = d != 0; break;
    case GCN_OP_S_ASHR_I32:
        d = (uint32_t)((int32_t)a >> (b & 31));
        w->scc = d != 0;
        break;
    case GCN_OP_S_LSHL_B64: d64 = a64 << (b & 63); w->scc = d64 != 0; break;
    case GCN_OP_S_LSHR_B64: d64 = a64 >> (b & 63); w->scc = d64 != 0; break;
    case GCN_OP_S_ASHR_I64:
        d64 = (uint64_t)((int64_t)a64 >> (b & 63));
        w->scc = d64 != 0;
        break;
    case GCN_OP_S_BFM_B32: d = ((1u << (a & 31)) - 1) << (b & 31); break;
    case GCN_OP_S_BFM_B64:
        d64 = ((1ull << (a & 63)) - 1) << (b & 63);
        break;
    case GCN_OP_S_MUL_I32: d = (uint32_t)((int64_t)(int32_t)a * (int32_t)b); break;
    case GCN_OP_S_BFE_U32: d = bfe32(a, b, false); w->scc = d != 0; break;
    case GCN_OP_S_BFE_I32: d = bfe32(a, b, true); w->scc = d != 0; break;
    case GCN_OP_S_BFE_U64: d64 = bfe64(a64, b, false); w->scc = d64 != 0; break;
    case GCN_OP_S_BFE_I64: d64 = bfe64(a64, b, true); w->scc = d64 != 0; break;
    case GCN_OP_S_ABSDIFF_I32: {
        int64_t t = (int64_t)(int32_t)a - (int32_t)b;
        d = (uint32_t)(t < 0 ? -t : t);
        w->scc = d != 0;
        break;
    }
    default:
        return MGS_EUNSUPPORTED;
    }
    if (is64)
        gcn_write_s64(w, in->dst, d64);
    else
        gcn_write_s32(w, in->dst, d);
    return MGS_OK;
}

/* ISA 12.2 SOPK: the 16-bit immediate is simm16 (sign-extended). */
static int exec_sopk(gcn_wave *w, const gcn_inst *in)
{
    uint32_t d = gcn_read_s32(w, in->dst, 0);
    int32_t simm = in->simm16;
    uint32_t uimm = (uint32_t)simm & 0xffffu;
    switch (in->op) {
    case GCN_OP_S_MOVK_I32: gcn_write_s32(w, in->dst, (uint32_t)simm); break;
    case GCN_OP_S_CMOVK_I32:
        if (w->scc)
            gcn_write_s32(w, in->dst, (uint32_t)simm);
        break;
    case GCN_OP_S_CMPK_EQ_I32: w->scc = (int32_t)d == simm; break;
    case GCN_OP_S_CMPK_LG_I32: w->scc = (int32_t)d != simm; break;
    case GCN_OP_S_CMPK_GT_I32: w->scc = (int32_t)d > simm; break;
    case GCN_OP_S_CMPK_GE_I32: w->scc = (int32_t)d >= simm; break;
    case GCN_OP_S_CMPK_LT_I32: w->scc = (int32_t)d < simm; break;
    case GCN_OP_S_CMPK_LE_I32: w->scc = (int32_t)d <= simm; break;
    case GCN_OP_S_CMPK_EQ_U32: w->scc = d == uimm; break;
    case GCN_OP_S_CMPK_LG_U32: w->scc = d != uimm; break;
    case GCN_OP_S_CMPK_GT_U32: w->scc = d > uimm; break;
    case GCN_OP_S_CMPK_GE_U32: w->scc = d >= uimm; break;
    case GCN_OP_S_CMPK_LT_U32: w->scc = d < uimm; break;
    case GCN_OP_S_CMPK_LE_U32: w->scc = d <= uimm; break;
    case GCN_OP_S_ADDK_I32: {
        uint32_t r = d + (uint32_t)simm;
        w->scc = ((~(d ^ (uint32_t)simm) & (d ^ r)) >> 31) & 1;
        gcn_write_s32(w, in->dst, r);
        break;
    }
    case GCN_OP_S_MULK_I32:
        gcn_write_s32(w, in->dst, (uint32_t)((int64_t)(int32_t)d * simm));
        break;
    case GCN_OP_S_GETREG_B32:
        /* Hardware registers (MODE, STATUS, ...) are not modelled: reading
        ** one gives 0, the reset value of the mode fields. */
        gcn_write_s32(w, in->dst, 0);
        break;
    case GCN_OP_S_SETREG_B32:
    case GCN_OP_S_SETREG_IMM32_B32:
        /* Rounding/denormal mode writes: the model computes in the default
        ** mode (round to nearest even, denormals as the VALU implements). */
        break;
    default:
        return MGS_EUNSUPPORTED;
    }
    return MGS_OK;
}

static inline uint32_t ctz32_or(uint32_t v, uint32_t none)
{
    return v ? (uint32_t)__builtin_ctz(v) : none;
}

static inline uint32_t ctz64_or(uint64_t v, uint32_t none)
{
    return v ? (uint32_t)__builtin_ctzll(v) : none;
}

static uint32_t brev32(uint32_t v)
{
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(v);
}

static uint64_t brev64(uint64_t v)
{
    return (uint64_t)brev32((uint32_t)v) << 32 | brev32((uint32_t)(v >> 32));
}

static uint64_t wqm64(uint64_t v)
{
    uint64_t r = 0;
    for (int q = 0; q < 64; q += 4)
        if ((v >> q) & 0xf)
            r |= 0xfull << q;
    return r;
}

static uint32_t quadmask64(uint64_t v)
{
    uint32_t r = 0;
    for (int q = 0; q < 16; q++)
        if ((v >> (q * 4)) & 0xf)
            r |= 1u << q;
    return r;
}

/* ISA 12.3 SOP1. */
static int exec_sop1(gcn_wave *w, const gcn_inst *in)
{
    uint32_t a = src0_32(w, in);
    uint64_t a64;
    const gcn_exec_ctx *ctx = w->ctx;
    switch (in->op) {
    case GCN_OP_S_MOV_B32: gcn_write_s32(w, in->dst, a); return MGS_OK;
    case GCN_OP_S_MOV_B64:
        gcn_write_s64(w, in->dst, src0_64(w, in));
        return MGS_OK;
    case GCN_OP_S_CMOV_B32:
        if (w->scc)
            gcn_write_s32(w, in->dst, a);
        return MGS_OK;
    case GCN_OP_S_CMOV_B64:
        if (w->scc)
            gcn_write_s64(w, in->dst, src0_64(w, in));
        return MGS_OK;
    case GCN_OP_S_NOT_B32:
        a = ~a;
        w->scc = a != 0;
        gcn_write_s32(w, in->dst, a);
        return MGS_OK;
    case GCN_OP_S_NOT_B64:
        a64 = ~src0_64(w, in);
        w->scc = a64 != 0;
        gcn_write_s64(w, in->dst, a64);
        return MGS_OK;
    case GCN_OP_S_WQM_B32:
        a = (uint32_t)wqm64(a);
        w->scc = a != 0;
        gcn_write_s32(w, in->dst, a);
        return MGS_OK;
    case GCN_OP_S_WQM_B64:
        a64 = wqm64(src0_64(w, in));
        w->scc = a64 != 0;
        gcn_write_s64(w, in->dst, a64);
        return MGS_OK;
    case GCN_OP_S_BREV_B32:
        gcn_write_s32(w, in->dst, brev32(a));
        return MGS_OK;
    case GCN_OP_S_BREV_B64:
        gcn_write_s64(w, in->dst, brev64(src0_64(w, in)));
        return MGS_OK;
    case GCN_OP_S_BCNT0_I32_B32:
        a = 32 - (uint32_t)__builtin_popcount(a);
        break;
    case GCN_OP_S_BCNT0_I32_B64:
        a = 64 - (uint32_t)__builtin_popcountll(src0_64(w, in));
        break;
    case GCN_OP_S_BCNT1_I32_B32: a = (uint32_t)__builtin_popcount(a); break;
    case GCN_OP_S_BCNT1_I32_B64:
        a = (uint32_t)__builtin_popcountll(src0_64(w, in));
        break;
    case GCN_OP_S_FF0_I32_B32:
        gcn_write_s32(w, in->dst, ctz32_or(~a, ~0u));
        return MGS_OK;
    case GCN_OP_S_FF0_I32_B64:
        gcn_write_s32(w, in->dst, ctz64_or(~src0_64(w, in), ~0u));
        return MGS_OK;
    case GCN_OP_S_FF1_I32_B32:
        gcn_write_s32(w, in->dst, ctz32_or(a, ~0u));
        return MGS_OK;
    case GCN_OP_S_FF1_I32_B64:
        gcn_write_s32(w, in->dst, ctz64_or(src0_64(w, in), ~0u));
        return MGS_OK;
    case GCN_OP_S_FLBIT_I32_B32:
        gcn_write_s32(w, in->dst, a ? (uint32_t)__builtin_clz(a) : ~0u);
        return MGS_OK;
    case GCN_OP_S_FLBIT_I32_B64:
        a64 = src0_64(w, in);
        gcn_write_s32(w, in->dst, a64 ? (uint32_t)__builtin_clzll(a64) : ~0u);
        return MGS_OK;
    case GCN_OP_S_FLBIT_I32: {
        /* Leading bits equal to the sign bit; -1 for 0 and -1. */
        uint32_t t = (int32_t)a < 0 ? ~a : a;
        gcn_write_s32(w, in->dst, t ? (uint32_t)__builtin_clz(t) : ~0u);
        return MGS_OK;
    }
    case GCN_OP_S_FLBIT_I32_I64: {
        a64 = src0_64(w, in);
        uint64_t t = (int64_t)a64 < 0 ? ~a64 : a64;
        gcn_write_s32(w, in->dst, t ? (uint32_t)__builtin_clzll(t) : ~0u);
        return MGS_OK;
    }
    case GCN_OP_S_SEXT_I32_I8:
        gcn_write_s32(w, in->dst, (uint32_t)(int32_t)(int8_t)a);
        return MGS_OK;
    case GCN_OP_S_SEXT_I32_I16:
        gcn_write_s32(w, in->dst, (uint32_t)(int32_t)(int16_t)a);
        return MGS_OK;
    case GCN_OP_S_BITSET0_B32:
        gcn_write_s32(w, in->dst,
                      gcn_read_s32(w, in->dst, 0) & ~(1u << (a & 31)));
        return MGS_OK;
    case GCN_OP_S_BITSET1_B32:
        gcn_write_s32(w, in->dst,
                      gcn_read_s32(w, in->dst, 0) | (1u << (a & 31)));
        return MGS_OK;
    case GCN_OP_S_BITSET0_B64:
        gcn_write_s64(w, in->dst, gcn_read_s64(w, in->dst, 0, false) &
                                      ~(1ull << (a & 63)));
        return MGS_OK;
    case GCN_OP_S_BITSET1_B64:
        gcn_write_s64(w, in->dst, gcn_read_s64(w, in->dst, 0, false) |
                                      (1ull << (a & 63)));
        return MGS_OK;
    case GCN_OP_S_GETPC_B64:
        gcn_write_s64(w, in->dst, ctx->code_vaddr + w->pc + in->size);
        return MGS_OK;
    case GCN_OP_S_SETPC_B64:
        w->pc = src0_64(w, in) - ctx->code_vaddr;
        return GCN_EXEC_BRANCHED;
    case GCN_OP_S_SWAPPC_B64: {
        uint64_t target = src0_64(w, in);
        gcn_write_s64(w, in->dst, ctx->code_vaddr + w->pc + in->size);
        w->pc = target - ctx->code_vaddr;
        return GCN_EXEC_BRANCHED;
    }
    case GCN_OP_S_AND_SAVEEXEC_B64:
    case GCN_OP_S_OR_SAVEEXEC_B64:
    case GCN_OP_S_XOR_SAVEEXEC_B64:
    case GCN_OP_S_ANDN2_SAVEEXEC_B64:
    case GCN_OP_S_ORN2_SAVEEXEC_B64:
    case GCN_OP_S_NAND_SAVEEXEC_B64:
    case GCN_OP_S_NOR_SAVEEXEC_B64:
    case GCN_OP_S_XNOR_SAVEEXEC_B64: {
        /* Read the source before writing the saved EXEC: they may alias. */
        uint64_t s = src0_64(w, in), e = w->exec, n;
        switch (in->op) {
        case GCN_OP_S_AND_SAVEEXEC_B64: n = s & e; break;
        case GCN_OP_S_OR_SAVEEXEC_B64: n = s | e; break;
        case GCN_OP_S_XOR_SAVEEXEC_B64: n = s ^ e; break;
        case GCN_OP_S_ANDN2_SAVEEXEC_B64: n = s & ~e; break;
        case GCN_OP_S_ORN2_SAVEEXEC_B64: n = s | ~e; break;
        case GCN_OP_S_NAND_SAVEEXEC_B64: n = ~(s & e); break;
        case GCN_OP_S_NOR_SAVEEXEC_B64: n = ~(s | e); break;
        default: n = ~(s ^ e); break;
        }
        gcn_write_s64(w, in->dst, e);
        w->exec = n;
        w->scc = n != 0;
        return MGS_OK;
    }
    case GCN_OP_S_QUADMASK_B32:
        a = quadmask64(a);
        w->scc = a != 0;
        gcn_write_s32(w, in->dst, a);
        return MGS_OK;
    case GCN_OP_S_QUADMASK_B64:
        a = quadmask64(src0_64(w, in));
        w->scc = a != 0;
        gcn_write_s64(w, in->dst, a);
        return MGS_OK;
    case GCN_OP_S_MOVRELS_B32:
        gcn_write_s32(w, in->dst, gcn_read_s32(w, (in->src0 + w->m0) & 127, 0));
        return MGS_OK;
    case GCN_OP_S_MOVRELS_B64:
        gcn_write_s64(w, in->dst,
                      gcn_read_s64(w, (in->src0 + w->m0) & 127, 0, false));
        return MGS_OK;
    case GCN_OP_S_MOVRELD_B32:
        gcn_write_s32(w, (in->dst + w->m0) & 127, a);
        return MGS_OK;
    case GCN_OP_S_MOVRELD_B64:
        gcn_write_s64(w, (in->dst + w->m0) & 127, src0_64(w, in));
        return MGS_OK;
    case GCN_OP_S_ABS_I32:
        a = (int32_t)a < 0 ? 0u - a : a;
        break;
    default:
        return MGS_EUNSUPPORTED;
    }
    /* bcnt and abs: SCC = result != 0. */
    w->scc = a != 0;
    gcn_write_s32(w, in->dst, a);
    return MGS_OK;
}

/* ISA 12.4 SOPC. */
static int exec_sopc(gcn_wave *w, const gcn_inst *in)
{
    uint32_t a = src0_32(w, in), b = src1_32(w, in);
    int32_t sa = (int32_t)a, sb = (int32_t)b;
    switch (in->op) {
    case GCN_OP_S_CMP_EQ_I32:
    case GCN_OP_S_CMP_EQ_U32: w->scc = a == b; break;
    case GCN_OP_S_CMP_LG_I32:
    case GCN_OP_S_CMP_LG_U32: w->scc = a != b; break;
    case GCN_OP_S_CMP_GT_I32: w->scc = sa > sb; break;
    case GCN_OP_S_CMP_GE_I32: w->scc = sa >= sb; break;
    case GCN_OP_S_CMP_LT_I32: w->scc = sa < sb; break;
    case GCN_OP_S_CMP_LE_I32: w->scc = sa <= sb; break;
    case GCN_OP_S_CMP_GT_U32: w->scc = a > b; break;
    case GCN_OP_S_CMP_GE_U32: w->scc = a >= b; break;
    case GCN_OP_S_CMP_LT_U32: w->scc = a < b; break;
    case GCN_OP_S_CMP_LE_U32: w->scc = a <= b; break;
    case GCN_OP_S_BITCMP0_B32: w->scc = !((a >> (b & 31)) & 1); break;
    case GCN_OP_S_BITCMP1_B32: w->scc = (a >> (b & 31)) & 1; break;
    case GCN_OP_S_BITCMP0_B64: w->scc = !((src0_64(w, in) >> (b & 63)) & 1); break;
    case GCN_OP_S_BITCMP1_B64: w->scc = (src0_64(w, in) >> (b & 63)) & 1; break;
    case GCN_OP_S_CMP_EQ_U64: w->scc = src0_64(w, in) == src1_64(w, in); break;
    case GCN_OP_S_CMP_LG_U64: w->scc = src0_64(w, in) != src1_64(w, in); break;
    default:
        return MGS_EUNSUPPORTED;
    }
    return MGS_OK;
}

/* ISA 12.5 SOPP. Branch target = pc + 4 + simm16 * 4. */
static int exec_sopp(gcn_wave *w, const gcn_inst *in)
{
    bool take;
    switch (in->op) {
    case GCN_OP_S_NOP:
    case GCN_OP_S_WAITCNT:
    case GCN_OP_S_SETPRIO:
    case GCN_OP_S_SLEEP:
    case GCN_OP_S_ICACHE_INV:
    case GCN_OP_S_INCPERFLEVEL:
    case GCN_OP_S_DECPERFLEVEL:
    case GCN_OP_S_TTRACEDATA:
    case GCN_OP_S_SETKILL:
    case GCN_OP_S_WAKEUP:
        return MGS_OK;
    case GCN_OP_S_SENDMSG:
    case GCN_OP_S_SENDMSGHALT: {
        /* Only MSG_INTERRUPT (1) means something to a compute kernel; the
        ** graphics messages are ignored. */
        const gcn_exec_ctx *c = w->ctx;
        if (((uint32_t)in->simm16 & 0xf) == GCN_MSG_INTERRUPT && c->interrupt)
            return c->interrupt(c->host, w->m0 & 0xff);
        return MGS_OK;
    }
    case GCN_OP_S_ENDPGM:
        w->done = true;
        return GCN_EXEC_BRANCHED;
    case GCN_OP_S_TRAP:
        /* Trap id 2 is llvm.trap (the AMDGPU trap handler ABI's
        ** LLVMAMDHSATrap): a device assert() that failed, after printing
        ** its message, or abort(). It ends the kernel, as ROCm's queue
        ** error does. Other ids (debugger traps) stay unsupported. */
        if (((uint32_t)in->simm16 & 0xff) == 2)
            return mgs_error_set(MGS_EASSERT, "device-side assertion "
                                 "failed (s_trap 2)");
        return MGS_EUNSUPPORTED;
    case GCN_OP_S_BARRIER:
        w->at_barrier = true;
        return MGS_OK;
    case GCN_OP_S_BRANCH: take = true; break;
    case GCN_OP_S_CBRANCH_SCC0: take = !w->scc; break;
    case GCN_OP_S_CBRANCH_SCC1: take = w->scc; break;
    case GCN_OP_S_CBRANCH_VCCZ: take = w->vcc == 0; break;
    case GCN_OP_S_CBRANCH_VCCNZ: take = w->vcc != 0; break;
    case GCN_OP_S_CBRANCH_EXECZ: take = w->exec == 0; break;
    case GCN_OP_S_CBRANCH_EXECNZ: take = w->exec != 0; break;
    default:
        return MGS_EUNSUPPORTED;
    }
    if (!take)
        return MGS_OK;
    w->pc = w->pc + 4 + (int64_t)in->simm16 * 4;
    return GCN_EXEC_BRANCHED;
}

/* ISA 12.6 SMEM (ch. 7). Loads and stores use the two-phase semantics
** shared with the timing model (exec_mem_plan.c: address = base + offset,
** dword aligned); here the plan is performed at once through mem_ops. */
static int exec_smem(gcn_wave *w, const gcn_inst *in)
{
    switch (in->op) {
    case GCN_OP_S_DCACHE_INV:
    case GCN_OP_S_DCACHE_WB:
    case GCN_OP_S_DCACHE_INV_VOL:
    case GCN_OP_S_DCACHE_WB_VOL:
        return MGS_OK;
    case GCN_OP_S_MEMTIME:
    case GCN_OP_S_MEMREALTIME:
        gcn_write_s64(w, in->data0, w->insts);
        return MGS_OK;
    default:
        break;
    }
    gcn_mem_plan p;
    int rc = gcn_mem_plan_scalar(w, in, &p);
    if (rc || p.kind == GCN_MEM_NONE)
        return rc;
    return gcn_mem_plan_run(w, &p);
}

int gcn_exec_scalar(gcn_wave *w, const gcn_inst *in)
{
    switch ((gcn_fmt)in->fmt) {
    case GCN_FMT_SOP2: return exec_sop2(w, in);
    case GCN_FMT_SOPK: return exec_sopk(w, in);
    case GCN_FMT_SOP1: return exec_sop1(w, in);
    case GCN_FMT_SOPC: return exec_sopc(w, in);
    case GCN_FMT_SOPP: return exec_sopp(w, in);
    case GCN_FMT_SMEM: return exec_smem(w, in);
    default: return MGS_EUNSUPPORTED;
    }
}
