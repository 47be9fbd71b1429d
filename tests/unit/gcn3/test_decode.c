/* Tests for src/gcn3/decode.c: field values of hand-checked encodings, one
** or more per encoding family. The bytes come from `llvm-mc-15
** -arch=amdgcn -mcpu=gfx803 -show-encoding` on the assembly in each
** comment; expected fields follow the conventions of decode.h (VGPRs as
** 256 + n, implicit vcc made explicit, VOP3 promotion to the same op).
** Also: every opcode of opcodes.def round-trips through its home encoding,
** and truncated or unknown input gives MGS_EFORMAT / MGS_EUNSUPPORTED. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gcn3/decode.h"
#include "gcn3/wave.h"
#include "mgsim/errors.h"

static gcn_inst decode_ok(const uint8_t *b, size_t n, int want_size)
{
    gcn_inst in;
    int rc = gcn_decode(b, n, &in);
    assert_int_equal(rc, want_size);
    assert_int_equal(in.size, want_size);
    return in;
}

#define DECODE(want_size, ...)                                             \
    decode_ok((const uint8_t[]){ __VA_ARGS__ },                            \
              sizeof((const uint8_t[]){ __VA_ARGS__ }), want_size)

static void test_salu(void **state)
{
    (void)state;
    /* s_and_b32 s0, s0, 0xffff */
    gcn_inst in = DECODE(8, 0x00, 0xff, 0x00, 0x86, 0xff, 0xff, 0x00, 0x00);
    assert_int_equal(in.op, GCN_OP_S_AND_B32);
    assert_int_equal(in.fmt, GCN_FMT_SOP2);
    assert_int_equal(in.dst, 0);
    assert_int_equal(in.src0, 0);
    assert_int_equal(in.src1, GCN_OPR_LITERAL);
    assert_int_equal(in.literal, 0xffff);
    assert_int_equal(in.word0, 0x8600ff00u);
    /* s_cmpk_eq_i32 s0, 0x8000: simm16 sign-extends */
    in = DECODE(4, 0x00, 0x80, 0x00, 0xb1);
    assert_int_equal(in.op, GCN_OP_S_CMPK_EQ_I32);
    assert_int_equal(in.fmt, GCN_FMT_SOPK);
    assert_int_equal(in.simm16, -32768);
    /* s_mov_b64 s[0:1], exec */
    in = DECODE(4, 0x7e, 0x01, 0x80, 0xbe);
    assert_int_equal(in.op, GCN_OP_S_MOV_B64);
    assert_int_equal(in.fmt, GCN_FMT_SOP1);
    assert_int_equal(in.src0, GCN_OPR_EXEC_LO);
    /* s_cmp_lt_u32 s3, 64 */
    in = DECODE(4, 0x03, 0xc0, 0x0a, 0xbf);
    assert_int_equal(in.op, GCN_OP_S_CMP_LT_U32);
    assert_int_equal(in.fmt, GCN_FMT_SOPC);
    assert_int_equal(in.src0, 3);
    assert_int_equal(in.src1, GCN_OPR_ZERO + 64);
    /* s_cbranch_execnz 65508 (= -28 dwords) */
    in = DECODE(4, 0xe4, 0xff, 0x89, 0xbf);
    assert_int_equal(in.op, GCN_OP_S_CBRANCH_EXECNZ);
    assert_int_equal(in.fmt, GCN_FMT_SOPP);
    assert_int_equal(in.simm16, -28);
    /* s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3: always a literal */
    in = DECODE(8, 0x01, 0x09, 0x00, 0xba, 0x03, 0x00, 0x00, 0x00);
    assert_int_equal(in.op, GCN_OP_S_SETREG_IMM32_B32);
    assert_int_equal(in.simm16, 0x901);
    assert_int_equal(in.literal, 3);
}

static void test_smem(void **state)
{
    (void)state;
    /* s_load_dwordx4 s[0:3], s[6:7], 0x0 */
    gcn_inst in = DECODE(8, 0x03, 0x00, 0x0a, 0xc0, 0x00, 0x00, 0x00, 0x00);
    assert_int_equal(in.op, GCN_OP_S_LOAD_DWORDX4);
    assert_int_equal(in.fmt, GCN_FMT_SMEM);
    assert_int_equal(in.addr, 6);
    assert_int_equal(in.data0, 0);
    assert_int_equal(in.imm, 1);
    assert_int_equal(in.offset, 0);
    /* s_load_dword s0, s[2:3], s4 (register offset) */
    in = DECODE(8, 0x01, 0x00, 0x00, 0xc0, 0x04, 0x00, 0x00, 0x00);
    assert_int_equal(in.op, GCN_OP_S_LOAD_DWORD);
    assert_int_equal(in.imm, 0);
    assert_int_equal(in.soffset, 4);
    assert_int_equal(in.addr, 2);
    /* s_load_dword s0, s[2:3], 0x10 glc */
    in = DECODE(8, 0x01, 0x00, 0x03, 0xc0, 0x10, 0x00, 0x00, 0x00);
    assert_int_equal(in.glc, 1);
    assert_int_equal(in.offset, 0x10);
}

static void test_vop(void **state)
{
    (void)state;
    /* v_add_u32_e32 v0, vcc, s0, v0: carry-out made explicit */
    gcn_inst in = DECODE(4, 0x00, 0x00, 0x00, 0x32);
    assert_int_equal(in.op, GCN_OP_V_ADD_U32);
    assert_int_equal(in.fmt, GCN_FMT_VOP2);
    assert_int_equal(in.dst, 256);
    assert_int_equal(in.src0, 0);
    assert_int_equal(in.src1, 256);
    assert_int_equal(in.sdst, GCN_OPR_VCC_LO);
    /* v_addc_u32_e32 v3, vcc, v3, v1, vcc: carry-in as src2 */
    in = DECODE(4, 0x03, 0x03, 0x06, 0x38);
    assert_int_equal(in.op, GCN_OP_V_ADDC_U32);
    assert_int_equal(in.src0, 259);
    assert_int_equal(in.src1, 257);
    assert_int_equal(in.src2, GCN_OPR_VCC_LO);
    /* v_madak_f32 v0, v1, v2, 0x41000000 */
    in = DECODE(8, 0x01, 0x05, 0x00, 0x30, 0x00, 0x00, 0x00, 0x41);
    assert_int_equal(in.op, GCN_OP_V_MADAK_F32);
    assert_int_equal(in.src0, 257);
    assert_int_equal(in.src1, 258);
    assert_int_equal(in.src2, GCN_OPR_LITERAL);
    assert_int_equal(in.literal, 0x41000000u);
    /* v_madmk_f32 v0, v1, 0x41000000, v2 */
    in = DECODE(8, 0x01, 0x05, 0x00, 0x2e, 0x00, 0x00, 0x00, 0x41);
    assert_int_equal(in.op, GCN_OP_V_MADMK_F32);
    assert_int_equal(in.src1, GCN_OPR_LITERAL);
    assert_int_equal(in.src2, 258);
    /* v_mov_b32_e32 v1, 0 */
    in = DECODE(4, 0x80, 0x02, 0x02, 0x7e);
    assert_int_equal(in.op, GCN_OP_V_MOV_B32);
    assert_int_equal(in.fmt, GCN_FMT_VOP1);
    assert_int_equal(in.dst, 257);
    assert_int_equal(in.src0, GCN_OPR_ZERO);
    /* v_readfirstlane_b32 s5, v1: scalar destination */
    in = DECODE(4, 0x01, 0x05, 0x0a, 0x7e);
    assert_int_equal(in.op, GCN_OP_V_READFIRSTLANE_B32);
    assert_int_equal(in.dst, 5);
    /* v_cmp_gt_u32_e32 vcc, s2, v0 */
    in = DECODE(4, 0x02, 0x00, 0x98, 0x7d);
    assert_int_equal(in.op, GCN_OP_V_CMP_GT_U32);
    assert_int_equal(in.fmt, GCN_FMT_VOPC);
    assert_int_equal(in.sdst, GCN_OPR_VCC_LO);
    assert_int_equal(in.src0, 2);
    assert_int_equal(in.src1, 256);
    /* v_cvt_f64_i32_e32 v[0:1], 0x12345 */
    in = DECODE(8, 0xff, 0x08, 0x00, 0x7e, 0x45, 0x23, 0x01, 0x00);
    assert_int_equal(in.op, GCN_OP_V_CVT_F64_I32);
    assert_int_equal(in.src0, GCN_OPR_LITERAL);
    assert_int_equal(in.literal, 0x12345);
}

static void test_vop3(void **state)
{
    (void)state;
    /* v_mul_f64 v[0:1], -4.0, |v[2:3]| clamp mul:2 */
    gcn_inst in = DECODE(8, 0x00, 0x82, 0x81, 0xd2, 0xf7, 0x04, 0x02, 0x08);
    assert_int_equal(in.op, GCN_OP_V_MUL_F64);
    assert_int_equal(in.fmt, GCN_FMT_VOP3A);
    assert_int_equal(in.dst, 256);
    assert_int_equal(in.src0, 247);
    assert_int_equal(in.src1, 258);
    assert_int_equal(in.abs, 2);
    assert_int_equal(in.neg, 0);
    assert_int_equal(in.clamp, 1);
    assert_int_equal(in.omod, 1);
    /* v_fma_f32 v0, -|v1|, s2, 1.0 */
    in = DECODE(8, 0x00, 0x01, 0xcb, 0xd1, 0x01, 0x05, 0xc8, 0x23);
    assert_int_equal(in.op, GCN_OP_V_FMA_F32);
    assert_int_equal(in.neg, 1);
    assert_int_equal(in.abs, 1);
    assert_int_equal(in.src1, 2);
    assert_int_equal(in.src2, 242);
    /* v_cmp_eq_u32_e64 s[0:1], v0, 3: VOPC promoted, same op */
    in = DECODE(8, 0x00, 0x00, 0xca, 0xd0, 0x00, 0x07, 0x01, 0x00);
    assert_int_equal(in.op, GCN_OP_V_CMP_EQ_U32);
    assert_int_equal(in.fmt, GCN_FMT_VOP3A);
    assert_int_equal(in.sdst, 0);
    assert_int_equal(in.dst, 0);
    assert_int_equal(in.src0, 256);
    assert_int_equal(in.src1, GCN_OPR_ZERO + 3);
    /* v_add_u32_e64 v0, s[0:1], 3, v0: VOP2 carry op as VOP3B */
    in = DECODE(8, 0x00, 0x00, 0x19, 0xd1, 0x83, 0x00, 0x02, 0x00);
    assert_int_equal(in.op, GCN_OP_V_ADD_U32);
    assert_int_equal(in.fmt, GCN_FMT_VOP3B);
    assert_int_equal(in.sdst, 0);
    assert_int_equal(in.src0, GCN_OPR_ZERO + 3);
    /* v_addc_u32_e64 v13, s[0:1], 0, v8, s[0:1] */
    in = DECODE(8, 0x0d, 0x00, 0x1c, 0xd1, 0x80, 0x10, 0x02, 0x00);
    assert_int_equal(in.op, GCN_OP_V_ADDC_U32);
    assert_int_equal(in.fmt, GCN_FMT_VOP3B);
    assert_int_equal(in.dst, 256 + 13);
    assert_int_equal(in.src2, 0);
    /* v_div_scale_f32 v0, vcc, v1, v2, v1 */
    in = DECODE(8, 0x00, 0x6a, 0xe0, 0xd1, 0x01, 0x05, 0x06, 0x04);
    assert_int_equal(in.op, GCN_OP_V_DIV_SCALE_F32);
    assert_int_equal(in.fmt, GCN_FMT_VOP3B);
    assert_int_equal(in.sdst, GCN_OPR_VCC_LO);
    assert_int_equal(in.src2, 257);
    /* v_mad_u64_u32 v[0:1], s[2:3], v1, v2, v[2:3] */
    in = DECODE(8, 0x00, 0x02, 0xe8, 0xd1, 0x01, 0x05, 0x0a, 0x04);
    assert_int_equal(in.op, GCN_OP_V_MAD_U64_U32);
    assert_int_equal(in.sdst, 2);
    /* v_readlane_b32 s0, v1, 63: scalar destination */
    in = DECODE(8, 0x00, 0x00, 0x89, 0xd2, 0x01, 0x7f, 0x01, 0x00);
    assert_int_equal(in.op, GCN_OP_V_READLANE_B32);
    assert_int_equal(in.dst, 0);
    assert_int_equal(in.src1, GCN_OPR_ZERO + 63);
}

static void test_sdwa_dpp(void **state)
{
    (void)state;
    /* v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD
    **   src0_sel:BYTE_0 */
    gcn_inst in = DECODE(8, 0xf9, 0x02, 0x02, 0x7e, 0x02, 0x05, 0x00, 0x00);
    assert_int_equal(in.op, GCN_OP_V_MOV_B32);
    assert_int_equal(in.ext, GCN_EXT_SDWA);
    assert_int_equal(in.src0, 258);
    assert_int_equal(in.sdwa_dst_sel, 5);
    assert_int_equal(in.sdwa_dst_unused, 0);
    assert_int_equal(in.sdwa_src0_sel, 0);
    /* v_add_f32_sdwa v1, -v2, |v3| dst_sel:BYTE_0 dst_unused:UNUSED_SEXT
    **   src0_sel:DWORD src1_sel:DWORD */
    in = DECODE(8, 0xf9, 0x06, 0x02, 0x02, 0x02, 0x08, 0x16, 0x26);
    assert_int_equal(in.neg, 1);
    assert_int_equal(in.abs, 2);
    assert_int_equal(in.sdwa_dst_unused, 1);
    assert_int_equal(in.sdwa_src0_sel, 6);
    assert_int_equal(in.sdwa_src1_sel, 6);
    assert_int_equal(in.src1, 259);
    /* v_add_u32_sdwa v0, vcc, sext(v1), v2 ... src0_sel:WORD_1 */
    in = DECODE(8, 0xf9, 0x04, 0x00, 0x32, 0x01, 0x06, 0x0d, 0x02);
    assert_int_equal(in.sdwa_src0_sext, 1);
    assert_int_equal(in.sdwa_src0_sel, 5);
    assert_int_equal(in.sdwa_src1_sel, 2);
    /* v_add_f32_dpp v0, v1, v2 row_shl:1 row_mask:0xa bank_mask:0x1
    **   bound_ctrl:0 */
    in = DECODE(8, 0xfa, 0x04, 0x00, 0x02, 0x01, 0x01, 0x09, 0xa1);
    assert_int_equal(in.op, GCN_OP_V_ADD_F32);
    assert_int_equal(in.ext, GCN_EXT_DPP);
    assert_int_equal(in.src0, 257);
    assert_int_equal(in.src1, 258);
    assert_int_equal(in.dpp_ctrl, 0x101);
    assert_int_equal(in.dpp_row_mask, 0xa);
    assert_int_equal(in.dpp_bank_mask, 0x1);
    assert_int_equal(in.dpp_bound_ctrl, 1);
}

static void test_memory(void **state)
{
    (void)state;
    /* ds_write2_b32 v0, v1, v2 offset0:1 offset1:2 */
    gcn_inst in = DECODE(8, 0x01, 0x02, 0x1c, 0xd8, 0x00, 0x01, 0x02, 0x00);
    assert_int_equal(in.op, GCN_OP_DS_WRITE2_B32);
    assert_int_equal(in.fmt, GCN_FMT_DS);
    assert_int_equal(in.addr, 256);
    assert_int_equal(in.data0, 257);
    assert_int_equal(in.data1, 258);
    assert_int_equal(in.offset, 1);
    assert_int_equal(in.offset1, 2);
    /* ds_read_b32 v0, v1 offset:4660: one 16-bit offset */
    in = DECODE(8, 0x34, 0x12, 0x6c, 0xd8, 0x01, 0x00, 0x00, 0x00);
    assert_int_equal(in.op, GCN_OP_DS_READ_B32);
    assert_int_equal(in.offset, 4660);
    assert_int_equal(in.dst, 256);
    assert_int_equal(in.addr, 257);
    /* ds_add_rtn_u32 v0, v1, v2 gds */
    in = DECODE(8, 0x00, 0x00, 0x41, 0xd8, 0x01, 0x02, 0x00, 0x00);
    assert_int_equal(in.gds, 1);
    /* flat_load_dword v4, v[4:5] glc slc */
    in = DECODE(8, 0x00, 0x00, 0x53, 0xdc, 0x04, 0x00, 0x00, 0x04);
    assert_int_equal(in.op, GCN_OP_FLAT_LOAD_DWORD);
    assert_int_equal(in.fmt, GCN_FMT_FLAT);
    assert_int_equal(in.dst, 260);
    assert_int_equal(in.addr, 260);
    assert_int_equal(in.glc, 1);
    assert_int_equal(in.slc, 1);
    /* flat_atomic_add v0, v[1:2], v3 glc */
    in = DECODE(8, 0x00, 0x00, 0x09, 0xdd, 0x01, 0x03, 0x00, 0x00);
    assert_int_equal(in.op, GCN_OP_FLAT_ATOMIC_ADD);
    assert_int_equal(in.data0, 259);
    assert_int_equal(in.addr, 257);
    assert_true(gcn_op_table[in.op].flags & GCN_F_ATOMIC);
    /* buffer_load_dword v0, v1, s[4:7], s8 offen offset:4 glc */
    in = DECODE(8, 0x04, 0x50, 0x50, 0xe0, 0x01, 0x00, 0x01, 0x08);
    assert_int_equal(in.op, GCN_OP_BUFFER_LOAD_DWORD);
    assert_int_equal(in.fmt, GCN_FMT_MUBUF);
    assert_int_equal(in.offen, 1);
    assert_int_equal(in.idxen, 0);
    assert_int_equal(in.glc, 1);
    assert_int_equal(in.offset, 4);
    assert_int_equal(in.srsrc, 4);
    assert_int_equal(in.soffset, 8);
    assert_int_equal(in.addr, 257);
    assert_int_equal(in.data0, 256);
    /* tbuffer_load_format_x v0, off, s[4:7], 0 format:[BUF_DATA_FORMAT_32,
    **   BUF_NUM_FORMAT_FLOAT] offset:8 */
    in = DECODE(8, 0x08, 0x00, 0xa0, 0xeb, 0x00, 0x00, 0x01, 0x80);
    assert_int_equal(in.op, GCN_OP_TBUFFER_LOAD_FORMAT_X);
    assert_int_equal(in.fmt, GCN_FMT_MTBUF);
    assert_int_equal(in.dfmt, 4);
    assert_int_equal(in.nfmt, 7);
    assert_int_equal(in.offset, 8);
    assert_int_equal(in.soffset, GCN_OPR_ZERO);
    /* image_load v[0:3], v0, s[0:7] dmask:0xf unorm */
    in = DECODE(8, 0x00, 0x1f, 0x00, 0xf0, 0x00, 0x00, 0x00, 0x00);
    assert_int_equal(in.op, GCN_OP_IMAGE_LOAD);
    assert_int_equal(in.dmask, 0xf);
    assert_int_equal(in.unorm, 1);
    /* exp mrt0 v0, v1, v2, v3 done vm */
    in = DECODE(8, 0x0f, 0x18, 0x00, 0xc4, 0x00, 0x01, 0x02, 0x03);
    assert_int_equal(in.op, GCN_OP_EXP);
    assert_int_equal(in.dmask, 0xf);
    assert_int_equal(in.glc, 1);
    assert_int_equal(in.da, 1);
    assert_int_equal(in.data0, 259);
    /* v_interp_p1_f32_e32 v0, v1, attr3.y */
    in = DECODE(4, 0x01, 0x0d, 0x00, 0xd4);
    assert_int_equal(in.op, GCN_OP_V_INTERP_P1_F32);
    assert_int_equal(in.fmt, GCN_FMT_VINTRP);
    assert_int_equal(in.src0, 257);
    assert_int_equal(in.offset, 3);
    assert_int_equal(in.offset1, 1);
}

/* Builds the smallest encoding of op in its home format (operands zero). */
static size_t encode_home(unsigned op, uint8_t *b)
{
    const gcn_op_info *info = &gcn_op_table[op];
    uint32_t w0 = 0, w1 = 0;
    size_t n = 8;
    unsigned c = info->opcode;
    switch (info->fmt) {
    case GCN_FMT_SOP2: w0 = 2u << 30 | c << 23; n = 4; break;
    case GCN_FMT_SOPK: w0 = 0xbu << 28 | c << 23; n = 4; break;
    case GCN_FMT_SOP1: w0 = 0x17du << 23 | c << 8; n = 4; break;
    case GCN_FMT_SOPC: w0 = 0x17eu << 23 | c << 16; n = 4; break;
    case GCN_FMT_SOPP: w0 = 0x17fu << 23 | c << 16; n = 4; break;
    case GCN_FMT_SMEM: w0 = 0x30u << 26 | c << 18; break;
    case GCN_FMT_VOP2: w0 = c << 25; n = 4; break;
    case GCN_FMT_VOP1: w0 = 0x3fu << 25 | c << 9; n = 4; break;
    case GCN_FMT_VOPC: w0 = 0x3eu << 25 | c << 17; n = 4; break;
    case GCN_FMT_VOP3A: case GCN_FMT_VOP3B: w0 = 0x34u << 26 | c << 16; break;
    case GCN_FMT_VINTRP: w0 = 0x35u << 26 | c << 16; n = 4; break;
    case GCN_FMT_DS: w0 = 0x36u << 26 | c << 17; break;
    case GCN_FMT_FLAT: w0 = 0x37u << 26 | c << 18; break;
    case GCN_FMT_MUBUF: w0 = 0x38u << 26 | c << 18; break;
    case GCN_FMT_MTBUF: w0 = 0x3au << 26 | c << 15; break;
    case GCN_FMT_MIMG: w0 = 0x3cu << 26 | c << 18; break;
    case GCN_FMT_EXP: w0 = 0x31u << 26; break;
    default: fail_msg("op %u has no home format", op);
    }
    memset(b, 0, 12);
    memcpy(b, &w0, 4);
    memcpy(b + 4, &w1, 4);
    return n + 4;   /* room for a literal (madmk, setreg_imm32) */
}

static void test_every_opcode_round_trips(void **state)
{
    (void)state;
    for (unsigned op = 1; op < GCN_OP_COUNT; ++op) {
        uint8_t b[12];
        size_t n = encode_home(op, b);
        gcn_inst in;
        int rc = gcn_decode(b, n, &in);
        if (rc < 0 || in.op != op)
            fail_msg("%s: decode rc %d op %u", gcn_op_table[op].mnemonic, rc,
                     in.op);
        if (gcn_op_table[op].fmt == GCN_FMT_VOP1 ||
            gcn_op_table[op].fmt == GCN_FMT_VOP2 ||
            gcn_op_table[op].fmt == GCN_FMT_VOPC) {
            /* and its VOP3 form (LLVM has none for these five) */
            if (op == GCN_OP_V_MADMK_F32 || op == GCN_OP_V_MADAK_F32 ||
                op == GCN_OP_V_MADMK_F16 || op == GCN_OP_V_MADAK_F16)
                continue;
            unsigned base = gcn_op_table[op].fmt == GCN_FMT_VOPC ? 0
                          : gcn_op_table[op].fmt == GCN_FMT_VOP2 ? 0x100
                                                                 : 0x140;
            uint32_t w0 = 0x34u << 26 | (base + gcn_op_table[op].opcode) << 16;
            memset(b, 0, sizeof b);
            memcpy(b, &w0, 4);
            rc = gcn_decode(b, 8, &in);
            assert_int_equal(rc, 8);
            assert_int_equal(in.op, op);
            assert_true(in.fmt == GCN_FMT_VOP3A || in.fmt == GCN_FMT_VOP3B);
        }
    }
}

static void test_errors(void **state)
{
    (void)state;
    gcn_inst in;
    const uint8_t vop3[] = { 0x00, 0x82, 0x81, 0xd2, 0xf7, 0x04, 0x02, 0x08 };
    /* Too short for the base encoding, or for the literal. */
    assert_int_equal(gcn_decode(vop3, 0, &in), MGS_EFORMAT);
    assert_int_equal(gcn_decode(vop3, 3, &in), MGS_EFORMAT);
    assert_int_equal(gcn_decode(vop3, 7, &in), MGS_EFORMAT);
    assert_non_null(strstr(mgs_error_msg(), "truncated"));
    const uint8_t lit[] = { 0x00, 0xff, 0x00, 0x86, 0xff, 0xff };
    assert_int_equal(gcn_decode(lit, sizeof lit, &in), MGS_EFORMAT);
    /* Unknown opcode in a known format: raw words kept. */
    const uint8_t sopp[] = { 0x00, 0x00, 0xff, 0xbf };
    assert_int_equal(gcn_decode(sopp, 4, &in), MGS_EUNSUPPORTED);
    assert_int_equal(in.word0, 0xbfff0000u);
    assert_non_null(strstr(mgs_error_msg(), "SOPP opcode 127"));
    /* Unknown format (top bits 111110). */
    const uint8_t bad[] = { 0x00, 0x00, 0x00, 0xf8, 0x11, 0x22, 0x33, 0x44 };
    assert_int_equal(gcn_decode(bad, sizeof bad, &in), MGS_EUNSUPPORTED);
    assert_int_equal(in.word0, 0xf8000000u);
    /* A VOP3 opcode in the hole between VOP1 and native VOP3 ops. */
    const uint8_t hole[] = { 0x00, 0x00, 0xbf, 0xd1, 0, 0, 0, 0 };
    assert_int_equal(gcn_decode(hole, sizeof hole, &in), MGS_EUNSUPPORTED);
    assert_int_equal(in.word1, 0);
    /* Format helpers. */
    assert_int_equal(gcn_decode_fmt(0x32000000u), GCN_FMT_VOP2);
    assert_int_equal(gcn_decode_fmt(0xbf810000u), GCN_FMT_SOPP);
    assert_int_equal(gcn_decode_fmt(0xd8000000u), GCN_FMT_DS);
    assert_int_equal(gcn_decode_base_size(0xd2810000u), 8);
    assert_int_equal(gcn_decode_base_size(0x7e020280u), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_salu),
        cmocka_unit_test(test_smem),
        cmocka_unit_test(test_vop),
        cmocka_unit_test(test_vop3),
        cmocka_unit_test(test_sdwa_dpp),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_every_opcode_round_trips),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
