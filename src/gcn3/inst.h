/*
** A decoded GCN3 (gfx803) instruction.
**
** Every operation has one gcn_op value, whatever encoding carries it: a
** VOP2 operation promoted to VOP3 (v_add_f32_e64) decodes to the same op as
** its VOP2 form, with fmt = GCN_FMT_VOP3A/B telling which encoding was used.
** Opcodes come from opcodes.def: X(NAME, "mnemonic", FMT, opcode, flags)
** where NAME is the upper-cased mnemonic (GCN_OP_S_ADD_U32), FMT the home
** encoding and opcode the number within it (for VOP1/VOP2/VOPC also the
** VOP3 number is derived: VOPC op, 0x100 + VOP2 op, 0x140 + VOP1 op).
**
** Operand fields hold the 9-bit operand codes of wave.h (256 + n = vN), so
** one resolver serves every format. VGPR-only fields of memory and VOP
** encodings (8 bits in the encoding) are widened to 256 + n as well.
*/
#ifndef MGS_GCN3_INST_H
#define MGS_GCN3_INST_H

#include <stdint.h>

typedef enum gcn_fmt {
    GCN_FMT_INVALID = 0,
    GCN_FMT_SOP2, GCN_FMT_SOPK, GCN_FMT_SOP1, GCN_FMT_SOPC, GCN_FMT_SOPP,
    GCN_FMT_SMEM,
    GCN_FMT_VOP2, GCN_FMT_VOP1, GCN_FMT_VOPC,
    GCN_FMT_VOP3A, GCN_FMT_VOP3B,   /* VOP3B: has sdst (carry-out, div_scale) */
    GCN_FMT_VINTRP,
    GCN_FMT_DS, GCN_FMT_MUBUF, GCN_FMT_MTBUF, GCN_FMT_MIMG, GCN_FMT_FLAT,
    GCN_FMT_EXP,
    GCN_FMT_COUNT
} gcn_fmt;

typedef enum gcn_op {
    GCN_OP_INVALID = 0,
#define X(name, mnem, fmt, opcode, flags) GCN_OP_##name,
#include "gcn3/opcodes.def"
#undef X
    GCN_OP_COUNT
} gcn_op;

/* Sub-dword addressing (SDWA) select and DPP control, when present. */
enum { GCN_EXT_NONE = 0, GCN_EXT_SDWA = 1, GCN_EXT_DPP = 2 };

typedef struct gcn_inst {
    uint16_t op;          /* gcn_op */
    uint8_t fmt;          /* gcn_fmt of the encoding used */
    uint8_t size;         /* bytes: 4, 8, or +4 for a literal */
    uint32_t word0, word1;/* raw encoding (word1 = 0 for 4-byte forms) */
    uint32_t literal;     /* valid when a source is GCN_OPR_LITERAL */

    /* ALU operands (SOP*, VOP*): 9-bit codes; unused = 0. */
    uint16_t dst;         /* sdst (SOP*), vdst as 256+n (VOP*) */
    uint16_t sdst;        /* VOP3B sdst / VOPC-as-VOP3 dst (scalar code) */
    uint16_t src0, src1, src2;
    int32_t simm16;       /* SOPK/SOPP immediate, sign-extended */

    /* VOP3 modifiers. abs/neg: bit i applies to src i. */
    uint8_t abs, neg, clamp, omod;

    /* Extensions of VOP1/VOP2/VOPC (src0 code 0xF9 SDWA, 0xFA DPP). */
    uint8_t ext;          /* GCN_EXT_* */
    uint8_t sdwa_dst_sel, sdwa_dst_unused, sdwa_src0_sel, sdwa_src1_sel;
    uint8_t sdwa_src0_sext, sdwa_src1_sext; /* and abs/neg go to abs/neg */
    uint16_t dpp_ctrl;
    uint8_t dpp_row_mask, dpp_bank_mask, dpp_bound_ctrl;

    /* Memory operands. */
    uint16_t addr;        /* DS/FLAT/MUBUF vaddr: 256+n; SMEM sbase (SGPR n, even) */
    uint16_t data0;       /* DS data0 / FLAT data / MUBUF vdata (256+n);
                             SMEM sdata (scalar code) */
    uint16_t data1;       /* DS data1 (256+n) */
    uint16_t srsrc;       /* MUBUF/MTBUF/MIMG resource SGPR n (multiple of 4) */
    uint16_t soffset;     /* MUBUF soffset (scalar code); SMEM soffset */
    uint32_t offset;      /* SMEM offset (imm=1) / DS offset0 / MUBUF offset */
    uint8_t offset1;      /* DS offset1 */
    uint8_t imm;          /* SMEM: offset is an immediate */
    uint8_t glc, slc, tfe, gds, lds;
    uint8_t offen, idxen, addr64;
    uint8_t dfmt, nfmt;   /* MTBUF */
    uint8_t dmask, unorm, da, r128, lwe; /* MIMG */
} gcn_inst;

/* Static properties of an opcode. */
typedef struct gcn_op_info {
    const char *mnemonic; /* "s_add_u32" */
    uint8_t fmt;          /* home encoding */
    uint16_t opcode;      /* number within the home encoding */
    uint32_t flags;       /* GCN_F_* */
} gcn_op_info;

/* Flags (opcodes.def column 5, or-ed). */
#define GCN_F_NONE     0u
#define GCN_F_DST64    (1u << 0)  /* destination is 64-bit */
#define GCN_F_SRC64    (1u << 1)  /* sources are 64-bit (src0 at least) */
#define GCN_F_F64      (1u << 2)  /* float64 operands (inline consts as f64) */
#define GCN_F_BRANCH   (1u << 3)  /* changes the PC */
#define GCN_F_MEM      (1u << 4)  /* memory access (vector or scalar) */
#define GCN_F_STORE    (1u << 5)
#define GCN_F_ATOMIC   (1u << 6)
#define GCN_F_FLOAT    (1u << 7)  /* floating-point ALU (omod/clamp apply) */

extern const gcn_op_info gcn_op_table[GCN_OP_COUNT];

#endif
