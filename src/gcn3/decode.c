/*
** GCN3 (gfx803) decoder. Bit layouts are drawn in docs/isa.md and next to
** each decoder below (bit 31 on the left, as in the AMD GCN3 ISA manual,
** chapter 12 "Microcode Formats"). The format is found from the top bits
** of the first dword:
**
**   0xxxxxxx  VOP2 (0111110 VOPC, 0111111 VOP1)
**   10xxxxxx  SOP2 (1011xxxx SOPK; 101111101 SOP1, ..110 SOPC, ..111 SOPP)
**   110000 SMEM  110001 EXP  110100 VOP3  110101 VINTRP  110110 DS
**   110111 FLAT  111000 MUBUF  111010 MTBUF  111100 MIMG
**
** Opcode -> gcn_op uses one static table indexed [format][opcode], built
** at compile time from opcodes.def, so decoding is a few shifts and loads.
** Invariant: on success every field of *out is set (unused ones zero).
*/
#include "gcn3/decode.h"

#include "gcn3/wave.h"
#include "mgsim/errors.h"

#include <string.h>

#define GCN_MAX_OPCODE 1024  /* VOP3 opcodes are 10 bits */

static const uint16_t gcn_op_by_code[GCN_FMT_COUNT][GCN_MAX_OPCODE] = {
#define X(name, mnem, fmt, opcode, flags) \
    [GCN_FMT_##fmt][opcode] = GCN_OP_##name,
#include "gcn3/opcodes.def"
#undef X
};

static inline uint32_t bits(uint32_t w, unsigned hi, unsigned lo)
{
    return (w >> lo) & ((1u << (hi - lo + 1)) - 1u);
}

static inline uint32_t load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

gcn_fmt gcn_decode_fmt(uint32_t w)
{
    if (!(w >> 31)) {
        switch (w >> 25) {
        case 0x3e: return GCN_FMT_VOPC;
        case 0x3f: return GCN_FMT_VOP1;
        default: return GCN_FMT_VOP2;
        }
    }
    if ((w >> 30) == 2) {
        if ((w >> 28) != 0xb)
            return GCN_FMT_SOP2;
        switch (w >> 23) {
        case 0x17d: return GCN_FMT_SOP1;
        case 0x17e: return GCN_FMT_SOPC;
        case 0x17f: return GCN_FMT_SOPP;
        default: return GCN_FMT_SOPK;
        }
    }
    switch (w >> 26) {
    case 0x30: return GCN_FMT_SMEM;
    case 0x31: return GCN_FMT_EXP;
    case 0x34: return GCN_FMT_VOP3A;
    case 0x35: return GCN_FMT_VINTRP;
    case 0x36: return GCN_FMT_DS;
    case 0x37: return GCN_FMT_FLAT;
    case 0x38: return GCN_FMT_MUBUF;
    case 0x3a: return GCN_FMT_MTBUF;
    case 0x3c: return GCN_FMT_MIMG;
    default: return GCN_FMT_INVALID;
    }
}

unsigned gcn_decode_base_size(uint32_t w)
{
    switch (gcn_decode_fmt(w)) {
    case GCN_FMT_SOP2: case GCN_FMT_SOPK: case GCN_FMT_SOP1:
    case GCN_FMT_SOPC: case GCN_FMT_SOPP: case GCN_FMT_VOP2:
    case GCN_FMT_VOP1: case GCN_FMT_VOPC: case GCN_FMT_VINTRP:
        return 4;
    default:
        return 8;
    }
}

/* VOP2 ops with an SGPR-pair carry out (VOP3B when promoted). */
static bool is_carry_op(unsigned op)
{
    switch (op) {
    case GCN_OP_V_ADD_U32: case GCN_OP_V_SUB_U32: case GCN_OP_V_SUBREV_U32:
    case GCN_OP_V_ADDC_U32: case GCN_OP_V_SUBB_U32: case GCN_OP_V_SUBBREV_U32:
        return true;
    default:
        return false;
    }
}

/* Ops that also read vcc (carry-in or select mask) in their VOP2 form. */
static bool reads_vcc_as_src2(unsigned op)
{
    return op == GCN_OP_V_ADDC_U32 || op == GCN_OP_V_SUBB_U32 ||
           op == GCN_OP_V_SUBBREV_U32 || op == GCN_OP_V_CNDMASK_B32;
}

static bool is_ds_two_addr(unsigned op)
{
    switch (op) {
    case GCN_OP_DS_WRITE2_B32: case GCN_OP_DS_WRITE2ST64_B32:
    case GCN_OP_DS_WRITE2_B64: case GCN_OP_DS_WRITE2ST64_B64:
    case GCN_OP_DS_READ2_B32: case GCN_OP_DS_READ2ST64_B32:
    case GCN_OP_DS_READ2_B64: case GCN_OP_DS_READ2ST64_B64:
    case GCN_OP_DS_WRXCHG2_RTN_B32: case GCN_OP_DS_WRXCHG2ST64_RTN_B32:
    case GCN_OP_DS_WRXCHG2_RTN_B64: case GCN_OP_DS_WRXCHG2ST64_RTN_B64:
        return true;
    default:
        return false;
    }
}

static int unsupported(const gcn_inst *in, const char *fmt_name,
                       unsigned opcode)
{
    return mgs_error_set(MGS_EUNSUPPORTED,
                         "unknown gfx803 instruction: %s opcode %u "
                         "(encoding 0x%08x 0x%08x)", fmt_name, opcode,
                         in->word0, in->word1);
}

static int short_input(size_t need, size_t avail)
{
    return mgs_error_set(MGS_EFORMAT,
                         "truncated instruction: needs %zu bytes, %zu left",
                         need, avail);
}

/* Reads the literal dword after the base encoding. */
static int take_literal(gcn_inst *in, const uint8_t *p, size_t avail)
{
    if (avail < (size_t)in->size + 4)
        return short_input((size_t)in->size + 4, avail);
    in->literal = load32(p + in->size);
    in->size += 4;
    return 0;
}

/* SDWA / DPP second dword of VOP1/VOP2/VOPC:
**  SDWA: 29 s1abs 28 s1neg 27 s1sext 26:24 src1_sel 21 s0abs 20 s0neg
**        19 s0sext 18:16 src0_sel 13 clamp 12:11 dst_unused 10:8 dst_sel
**        7:0 src0 vgpr
**  DPP:  31:28 row_mask 27:24 bank_mask 23 s1abs 22 s1neg 21 s0abs
**        20 s0neg 19 bound_ctrl 16:8 dpp_ctrl 7:0 src0 vgpr */
static int decode_ext(gcn_inst *in, const uint8_t *p, size_t avail)
{
    if (avail < 8)
        return short_input(8, avail);
    uint32_t w = load32(p + 4);
    in->word1 = w;
    in->size = 8;
    if (in->src0 == 0xf9) {
        in->ext = GCN_EXT_SDWA;
        in->src0 = (uint16_t)(GCN_OPR_VGPR0 + bits(w, 7, 0));
        in->sdwa_dst_sel = (uint8_t)bits(w, 10, 8);
        in->sdwa_dst_unused = (uint8_t)bits(w, 12, 11);
        in->clamp = (uint8_t)bits(w, 13, 13);
        in->sdwa_src0_sel = (uint8_t)bits(w, 18, 16);
        in->sdwa_src0_sext = (uint8_t)bits(w, 19, 19);
        in->neg = (uint8_t)(bits(w, 20, 20) | bits(w, 28, 28) << 1);
        in->abs = (uint8_t)(bits(w, 21, 21) | bits(w, 29, 29) << 1);
        in->sdwa_src1_sel = (uint8_t)bits(w, 26, 24);
        in->sdwa_src1_sext = (uint8_t)bits(w, 27, 27);
    } else {
        in->ext = GCN_EXT_DPP;
        in->src0 = (uint16_t)(GCN_OPR_VGPR0 + bits(w, 7, 0));
        in->dpp_ctrl = (uint16_t)bits(w, 16, 8);
        in->dpp_bound_ctrl = (uint8_t)bits(w, 19, 19);
        in->neg = (uint8_t)(bits(w, 20, 20) | bits(w, 22, 22) << 1);
        in->abs = (uint8_t)(bits(w, 21, 21) | bits(w, 23, 23) << 1);
        in->dpp_bank_mask = (uint8_t)bits(w, 27, 24);
        in->dpp_row_mask = (uint8_t)bits(w, 31, 28);
    }
    return 0;
}

/* VOP2: 31 0 | 30:25 op | 24:17 vdst | 16:9 vsrc1 | 8:0 src0 */
/* VOP1: 31:25 0111111 | 24:17 vdst | 16:9 op | 8:0 src0 */
/* VOPC: 31:25 0111110 | 24:17 op | 16:9 vsrc1 | 8:0 src0 */
static int decode_vop(gcn_inst *in, const uint8_t *p, size_t avail,
                      gcn_fmt fmt)
{
    uint32_t w = in->word0;
    unsigned opcode = fmt == GCN_FMT_VOP2 ? bits(w, 30, 25)
                    : fmt == GCN_FMT_VOP1 ? bits(w, 16, 9) : bits(w, 24, 17);
    in->op = gcn_op_by_code[fmt][opcode];
    if (!in->op)
        return unsupported(in, fmt == GCN_FMT_VOP2 ? "VOP2" :
                           fmt == GCN_FMT_VOP1 ? "VOP1" : "VOPC", opcode);
    in->src0 = (uint16_t)bits(w, 8, 0);
    if (fmt != GCN_FMT_VOP1)
        in->src1 = (uint16_t)(GCN_OPR_VGPR0 + bits(w, 16, 9));
    if (fmt == GCN_FMT_VOPC)
        in->sdst = GCN_OPR_VCC_LO;
    else if (in->op == GCN_OP_V_READFIRSTLANE_B32)
        in->dst = (uint16_t)bits(w, 24, 17);
    else
        in->dst = (uint16_t)(GCN_OPR_VGPR0 + bits(w, 24, 17));
    if (is_carry_op(in->op))
        in->sdst = GCN_OPR_VCC_LO;
    if (reads_vcc_as_src2(in->op))
        in->src2 = GCN_OPR_VCC_LO;

    if (in->src0 == 0xf9 || in->src0 == 0xfa)
        return decode_ext(in, p, avail);
    switch (in->op) {
    case GCN_OP_V_MADMK_F32: case GCN_OP_V_MADMK_F16:
        in->src2 = in->src1;
        in->src1 = GCN_OPR_LITERAL;
        return take_literal(in, p, avail);
    case GCN_OP_V_MADAK_F32: case GCN_OP_V_MADAK_F16:
        in->src2 = GCN_OPR_LITERAL;
        return take_literal(in, p, avail);
    default:
        break;
    }
    if (in->src0 == GCN_OPR_LITERAL)
        return take_literal(in, p, avail);
    return 0;
}

/* VOP3a: 31:26 110100 | 25:16 op | 15 clamp | 10:8 abs | 7:0 vdst
**        63:61 neg | 60:59 omod | 58:50 src2 | 49:41 src1 | 40:32 src0
** VOP3b: as VOP3a but 14:8 sdst instead of abs. */
static int decode_vop3(gcn_inst *in)
{
    uint32_t w = in->word0, w1 = in->word1;
    unsigned opcode = bits(w, 25, 16);
    bool vopc = false;
    if (opcode < 0x100) {
        in->op = gcn_op_by_code[GCN_FMT_VOPC][opcode];
        vopc = true;
    } else if (opcode < 0x140) {
        in->op = gcn_op_by_code[GCN_FMT_VOP2][opcode - 0x100];
    } else if (opcode < 0x1c0) {
        in->op = gcn_op_by_code[GCN_FMT_VOP1][opcode - 0x140];
    } else if (opcode >= 0x270 && opcode <= 0x272) {
        in->op = gcn_op_by_code[GCN_FMT_VINTRP][opcode - 0x270];
    } else {
        in->op = gcn_op_by_code[GCN_FMT_VOP3A][opcode];
        if (!in->op)
            in->op = gcn_op_by_code[GCN_FMT_VOP3B][opcode];
    }
    /* Ops without a VOP3 form in LLVM's gfx8 tables stay unsupported. */
    if (!in->op || in->op == GCN_OP_V_MADMK_F32 || in->op == GCN_OP_V_MADAK_F32
        || in->op == GCN_OP_V_MADMK_F16 || in->op == GCN_OP_V_MADAK_F16)
        return unsupported(in, "VOP3", opcode);

    bool vop3b = is_carry_op(in->op) ||
                 gcn_op_table[in->op].fmt == GCN_FMT_VOP3B;
    in->fmt = vop3b ? GCN_FMT_VOP3B : GCN_FMT_VOP3A;
    in->src0 = (uint16_t)bits(w1, 8, 0);
    in->src1 = (uint16_t)bits(w1, 17, 9);
    in->src2 = (uint16_t)bits(w1, 26, 18);
    in->omod = (uint8_t)bits(w1, 28, 27);
    in->neg = (uint8_t)bits(w1, 31, 29);
    in->clamp = (uint8_t)bits(w, 15, 15);
    if (vop3b) {
        in->sdst = (uint16_t)bits(w, 14, 8);
    } else {
        in->abs = (uint8_t)bits(w, 10, 8);
    }
    if (vopc)
        in->sdst = (uint16_t)bits(w, 7, 0);
    else if (in->op == GCN_OP_V_READLANE_B32 ||
             in->op == GCN_OP_V_READFIRSTLANE_B32)
        in->dst = (uint16_t)bits(w, 7, 0);
    else
        in->dst = (uint16_t)(GCN_OPR_VGPR0 + bits(w, 7, 0));
    return 0;
}

/* SOP2: 31:30 10 | 29:23 op | 22:16 sdst | 15:8 ssrc1 | 7:0 ssrc0
** SOPK: 31:28 1011 | 27:23 op | 22:16 sdst | 15:0 simm16
** SOP1: 31:23 101111101 | 22:16 sdst | 15:8 op | 7:0 ssrc0
** SOPC: 31:23 101111110 | 22:16 op | 15:8 ssrc1 | 7:0 ssrc0
** SOPP: 31:23 101111111 | 22:16 op | 15:0 simm16 */
static int decode_salu(gcn_inst *in, const uint8_t *p, size_t avail,
                       gcn_fmt fmt)
{
    uint32_t w = in->word0;
    unsigned opcode;
    const char *name;
    switch (fmt) {
    case GCN_FMT_SOP2: opcode = bits(w, 29, 23); name = "SOP2"; break;
    case GCN_FMT_SOPK: opcode = bits(w, 27, 23); name = "SOPK"; break;
    case GCN_FMT_SOP1: opcode = bits(w, 15, 8); name = "SOP1"; break;
    case GCN_FMT_SOPC: opcode = bits(w, 22, 16); name = "SOPC"; break;
    default: opcode = bits(w, 22, 16); name = "SOPP"; break;
    }
    in->op = gcn_op_by_code[fmt][opcode];
    if (!in->op)
        return unsupported(in, name, opcode);
    switch (fmt) {
    case GCN_FMT_SOP2:
    case GCN_FMT_SOPC:
        if (fmt == GCN_FMT_SOP2)
            in->dst = (uint16_t)bits(w, 22, 16);
        in->src0 = (uint16_t)bits(w, 7, 0);
        in->src1 = (uint16_t)bits(w, 15, 8);
        if (in->src0 == GCN_OPR_LITERAL || in->src1 == GCN_OPR_LITERAL)
            return take_literal(in, p, avail);
        return 0;
    case GCN_FMT_SOP1:
        in->dst = (uint16_t)bits(w, 22, 16);
        in->src0 = (uint16_t)bits(w, 7, 0);
        if (in->src0 == GCN_OPR_LITERAL)
            return take_literal(in, p, avail);
        return 0;
    case GCN_FMT_SOPK:
        in->dst = (uint16_t)bits(w, 22, 16);
        in->simm16 = (int16_t)bits(w, 15, 0);
        if (in->op == GCN_OP_S_SETREG_IMM32_B32)
            return take_literal(in, p, avail);
        return 0;
    default:
        in->simm16 = (int16_t)bits(w, 15, 0);
        return 0;
    }
}

/* SMEM: 31:26 110000 | 25:18 op | 17 imm | 16 glc | 12:6 sdata | 5:0 sbase/2
**       51:32 offset (imm=1) or soffset SGPR code (imm=0) */
static int decode_smem(gcn_inst *in)
{
    uint32_t w = in->word0;
    unsigned opcode = bits(w, 25, 18);
    in->op = gcn_op_by_code[GCN_FMT_SMEM][opcode];
    if (!in->op)
        return unsupported(in, "SMEM", opcode);
    in->addr = (uint16_t)(bits(w, 5, 0) << 1);
    in->data0 = (uint16_t)bits(w, 12, 6);
    in->glc = (uint8_t)bits(w, 16, 16);
    in->imm = (uint8_t)bits(w, 17, 17);
    if (in->imm)
        in->offset = bits(in->word1, 19, 0);
    else
        in->soffset = (uint16_t)bits(in->word1, 7, 0);
    return 0;
}

/* DS: 31:26 110110 | 24:17 op | 16 gds | 15:8 offset1 | 7:0 offset0
**     63:56 vdst | 55:48 data1 | 47:40 data0 | 39:32 addr */
static int decode_ds(gcn_inst *in)
{
    uint32_t w = in->word0, w1 = in->word1;
    unsigned opcode = bits(w, 24, 17);
    in->op = gcn_op_by_code[GCN_FMT_DS][opcode];
    if (!in->op)
        return unsupported(in, "DS", opcode);
    in->gds = (uint8_t)bits(w, 16, 16);
    if (is_ds_two_addr(in->op)) {
        in->offset = bits(w, 7, 0);
        in->offset1 = (uint8_t)bits(w, 15, 8);
    } else {
        in->offset = bits(w, 15, 0);
    }
    in->addr = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 7, 0));
    in->data0 = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 15, 8));
    in->data1 = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 23, 16));
    in->dst = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 31, 24));
    return 0;
}

/* MUBUF: 31:26 111000 | 24:18 op | 17 slc | 16 lds | 14 glc | 13 idxen
**        12 offen | 11:0 offset
** MTBUF: 31:26 111010 | 25:23 nfmt | 22:19 dfmt | 18:15 op | 14 glc
**        13 idxen | 12 offen | 11:0 offset
** both:  63:56 soffset | 55 tfe | 54 slc (MTBUF) | 52:48 srsrc/4
**        47:40 vdata | 39:32 vaddr */
static int decode_buf(gcn_inst *in, gcn_fmt fmt)
{
    uint32_t w = in->word0, w1 = in->word1;
    unsigned opcode = fmt == GCN_FMT_MUBUF ? bits(w, 24, 18) : bits(w, 18, 15);
    in->op = gcn_op_by_code[fmt][opcode];
    if (!in->op)
        return unsupported(in, fmt == GCN_FMT_MUBUF ? "MUBUF" : "MTBUF",
                           opcode);
    in->offset = bits(w, 11, 0);
    in->offen = (uint8_t)bits(w, 12, 12);
    in->idxen = (uint8_t)bits(w, 13, 13);
    in->glc = (uint8_t)bits(w, 14, 14);
    if (fmt == GCN_FMT_MUBUF) {
        in->lds = (uint8_t)bits(w, 16, 16);
        in->slc = (uint8_t)bits(w, 17, 17);
    } else {
        in->dfmt = (uint8_t)bits(w, 22, 19);
        in->nfmt = (uint8_t)bits(w, 25, 23);
        in->slc = (uint8_t)bits(w1, 22, 22);
    }
    in->addr = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 7, 0));
    in->data0 = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 15, 8));
    in->srsrc = (uint16_t)(bits(w1, 20, 16) << 2);
    in->tfe = (uint8_t)bits(w1, 23, 23);
    in->soffset = (uint16_t)bits(w1, 31, 24);
    return 0;
}

/* MIMG: 31:26 111100 | 25 slc | 24:18 op | 17 lwe | 16 tfe | 15 r128
**       14 da | 13 glc | 12 unorm | 11:8 dmask
**       63 d16 | 57:53 ssamp/4 | 52:48 srsrc/4 | 47:40 vdata | 39:32 vaddr */
static int decode_mimg(gcn_inst *in)
{
    uint32_t w = in->word0, w1 = in->word1;
    unsigned opcode = bits(w, 24, 18);
    in->op = gcn_op_by_code[GCN_FMT_MIMG][opcode];
    if (!in->op)
        return unsupported(in, "MIMG", opcode);
    in->dmask = (uint8_t)bits(w, 11, 8);
    in->unorm = (uint8_t)bits(w, 12, 12);
    in->glc = (uint8_t)bits(w, 13, 13);
    in->da = (uint8_t)bits(w, 14, 14);
    in->r128 = (uint8_t)bits(w, 15, 15);
    in->tfe = (uint8_t)bits(w, 16, 16);
    in->lwe = (uint8_t)bits(w, 17, 17);
    in->slc = (uint8_t)bits(w, 25, 25);
    in->addr = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 7, 0));
    in->data0 = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 15, 8));
    in->srsrc = (uint16_t)(bits(w1, 20, 16) << 2);
    in->soffset = (uint16_t)(bits(w1, 25, 21) << 2);
    return 0;
}

/* FLAT: 31:26 110111 | 24:18 op | 17 slc | 16 glc
**       63:56 vdst | 55 tfe | 47:40 data | 39:32 addr (64-bit VGPR pair) */
static int decode_flat(gcn_inst *in)
{
    uint32_t w = in->word0, w1 = in->word1;
    unsigned opcode = bits(w, 24, 18);
    in->op = gcn_op_by_code[GCN_FMT_FLAT][opcode];
    if (!in->op)
        return unsupported(in, "FLAT", opcode);
    in->glc = (uint8_t)bits(w, 16, 16);
    in->slc = (uint8_t)bits(w, 17, 17);
    in->addr = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 7, 0));
    in->data0 = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 15, 8));
    in->tfe = (uint8_t)bits(w1, 23, 23);
    in->dst = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 31, 24));
    return 0;
}

/* VINTRP: 31:26 110101 | 25:18 vdst | 17:16 op | 15:10 attr | 9:8 chan
**         7:0 vsrc (v_interp_mov: parameter p10/p20/p0) */
static void decode_vintrp_fields(gcn_inst *in, unsigned vdst, unsigned vsrc,
                                 unsigned attr, unsigned chan)
{
    in->dst = (uint16_t)(GCN_OPR_VGPR0 + vdst);
    in->src0 = (uint16_t)(in->op == GCN_OP_V_INTERP_MOV_F32 ? vsrc
                                                  : GCN_OPR_VGPR0 + vsrc);
    in->offset = attr;
    in->offset1 = (uint8_t)chan;
}

/* EXP: 31:26 110001 | 12 vm | 11 done | 10 compr | 9:4 tgt | 3:0 en
**      63:56 vsrc3 | 55:48 vsrc2 | 47:40 vsrc1 | 39:32 vsrc0 */
static void decode_exp(gcn_inst *in)
{
    uint32_t w = in->word0, w1 = in->word1;
    in->op = GCN_OP_EXP;
    in->dmask = (uint8_t)bits(w, 3, 0);
    in->offset = bits(w, 9, 4);
    in->lwe = (uint8_t)bits(w, 10, 10);
    in->glc = (uint8_t)bits(w, 11, 11);
    in->da = (uint8_t)bits(w, 12, 12);
    in->src0 = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 7, 0));
    in->src1 = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 15, 8));
    in->src2 = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 23, 16));
    in->data0 = (uint16_t)(GCN_OPR_VGPR0 + bits(w1, 31, 24));
}

int gcn_decode(const uint8_t *p, size_t avail, gcn_inst *out)
{
    memset(out, 0, sizeof *out);
    if (avail < 4)
        return short_input(4, avail);
    uint32_t w = load32(p);
    out->word0 = w;
    gcn_fmt fmt = gcn_decode_fmt(w);
    out->fmt = (uint8_t)fmt;
    out->size = (uint8_t)gcn_decode_base_size(w);
    if (fmt == GCN_FMT_INVALID)
        return mgs_error_set(MGS_EUNSUPPORTED,
                             "unknown gfx803 encoding 0x%08x", w);
    if (out->size == 8) {
        if (avail < 8)
            return short_input(8, avail);
        out->word1 = load32(p + 4);
    }

    int rc;
    switch (fmt) {
    case GCN_FMT_SOP2: case GCN_FMT_SOPK: case GCN_FMT_SOP1:
    case GCN_FMT_SOPC: case GCN_FMT_SOPP:
        rc = decode_salu(out, p, avail, fmt);
        break;
    case GCN_FMT_VOP2: case GCN_FMT_VOP1: case GCN_FMT_VOPC:
        rc = decode_vop(out, p, avail, fmt);
        break;
    case GCN_FMT_VOP3A:
        rc = decode_vop3(out);
        if (rc == 0 && out->op >= GCN_OP_V_INTERP_P1_F32 &&
            out->op <= GCN_OP_V_INTERP_MOV_F32) {
            /* VOP3 form of VINTRP: src0 = attr | chan << 6, src1 = vsrc
            ** (or the v_interp_mov parameter). */
            unsigned s0 = bits(out->word1, 8, 0);
            decode_vintrp_fields(out, bits(w, 7, 0),
                                 bits(out->word1, 17, 9) & 0xff,
                                 s0 & 0x3f, (s0 >> 6) & 3);
            out->src1 = out->src2 = 0;
        }
        break;
    case GCN_FMT_VINTRP:
        out->op = gcn_op_by_code[GCN_FMT_VINTRP][bits(w, 17, 16)];
        if (!out->op)
            return unsupported(out, "VINTRP", bits(w, 17, 16));
        decode_vintrp_fields(out, bits(w, 25, 18), bits(w, 7, 0),
                             bits(w, 15, 10), bits(w, 9, 8));
        rc = 0;
        break;
    case GCN_FMT_SMEM: rc = decode_smem(out); break;
    case GCN_FMT_DS: rc = decode_ds(out); break;
    case GCN_FMT_MUBUF: case GCN_FMT_MTBUF: rc = decode_buf(out, fmt); break;
    case GCN_FMT_MIMG: rc = decode_mimg(out); break;
    case GCN_FMT_FLAT: rc = decode_flat(out); break;
    case GCN_FMT_EXP: decode_exp(out); rc = 0; break;
    default:
        rc = mgs_error_set(MGS_EUNSUPPORTED, "unknown gfx803 encoding 0x%08x",
                           w);
        break;
    }
    return rc < 0 ? rc : out->size;
}
