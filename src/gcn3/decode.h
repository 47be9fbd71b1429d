/*
** GCN3 (gfx803) instruction decoder: raw little-endian instruction words ->
** gcn_inst (inst.h). Table-driven (one static [format][opcode] -> gcn_op
** table generated from opcodes.def), no allocation, no global state.
**
** Conventions beyond inst.h, so that executors need no per-encoding cases:
**  - VGPR fields are 256 + n everywhere (vdst, DS/FLAT/MUBUF data & addr).
**  - Implicit operands are made explicit: VOPC e32 and the VOP2 carry ops
**    (v_add/sub/subrev/addc/subb/subbrev_u32) in e32 form get
**    sdst = GCN_OPR_VCC_LO; v_addc/subb/subbrev_u32_e32 and
**    v_cndmask_b32_e32 get src2 = GCN_OPR_VCC_LO (carry-in / mask).
**    v_madmk_f32/f16 and v_madak_f32/f16 keep their constant K in literal
**    (madmk: src1 = GCN_OPR_LITERAL, src2 = vsrc1; madak: src2 = literal).
**  - VOPC promoted to VOP3: sdst = its scalar destination, dst = 0.
**    v_readlane_b32 / v_readfirstlane_b32: dst is a scalar code (< 256).
**  - VOP3 forms of VOP2/VOP3B ops with a carry out: fmt = GCN_FMT_VOP3B,
**    sdst from bits [14:8]; no abs field there (abs = 0).
**  - SDWA/DPP: src0 is the real VGPR (256 + n), ext says which; SDWA
**    src0/src1 neg/abs go to neg/abs bits 0/1, SDWA clamp to clamp.
**  - DS: single-address ops get offset = the 16-bit offset (offset1:offset0);
**    two-address ops (read2/write2/wrxchg2, *st64) get offset = offset0 and
**    offset1. dst = vdst.
**  - SMEM: addr = sbase SGPR (even), data0 = sdata, offset = imm offset when
**    imm, otherwise soffset = the SGPR code from the offset field.
**  - MIMG: soffset holds the sampler SGPR (ssamp * 4); MTBUF slc from word1.
**  - VINTRP (and its VOP3 forms): src0 = vsrc (256+n) or for v_interp_mov
**    the parameter (0 p10, 1 p20, 2 p0), offset = attr, offset1 = chan.
**  - EXP: dmask = enable mask, offset = target, src0..2/data0 = vsrc0..3,
**    glc = done, lwe = compr, da = vm.
*/
#ifndef MGS_GCN3_DECODE_H
#define MGS_GCN3_DECODE_H

#include "gcn3/inst.h"

#include <stddef.h>
#include <stdint.h>

/* Decodes one instruction at p (avail bytes readable). Returns the byte size
** (4, 8 or 12) or a negative MGS_E* code: MGS_EFORMAT if avail is too short,
** MGS_EUNSUPPORTED for an encoding or opcode it does not know
** (out->word0/word1 still hold the raw words). Fast: table-driven, no
** allocation; it is called once per instruction when kernels are
** pre-decoded. On error a one-line message is recorded (mgs_error_set). */
int gcn_decode(const uint8_t *p, size_t avail, gcn_inst *out);

/* The encoding family of a first instruction word (GCN_FMT_VOP3A for any
** VOP3), or GCN_FMT_INVALID. */
gcn_fmt gcn_decode_fmt(uint32_t word0);

/* Encoding length in bytes implied by word0 alone (4 or 8; literals add
** 4 more and are only known after decoding operands). */
unsigned gcn_decode_base_size(uint32_t word0);

#endif
