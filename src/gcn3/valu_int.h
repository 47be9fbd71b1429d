/*
** Private interface of the vector-ALU semantics (exec_valu*.c).
**
** Execution model. One VALU instruction is executed for all 64 lanes at
** once, in three steps:
**   1. fetch: every source the operation reads is materialised once as a
**      64-lane array. A VGPR source without modifiers is the register row
**      itself (no copy); a scalar, constant or literal source is broadcast
**      into a scratch array; abs/neg, SDWA selects and DPP lane moves are
**      applied while copying into scratch.
**   2. compute: a plain loop over 64 lanes writes the result array
**      (valu_ctx.d / d64). It runs for *every* lane, active or not, so the
**      loops stay branch-free and vectorisable; therefore every operation
**      must be free of undefined behaviour for any input bits (shift counts
**      are masked, float->int conversions saturate explicitly).
**   3. writeback: the result reaches the destination only in lanes whose
**      bit is set in valu_ctx.wmask (EXEC, narrowed by DPP row/bank masks),
**      after omod/clamp and the SDWA destination select.
** Fast path: with full EXEC and no SDWA/DPP, valu_ctx.d points at the
** 32-bit destination row, so compute writes the register directly and the
** writeback has nothing to copy. A loop may then write the row it also
** reads (v_add_f32 v1, v1, v2): every loop reads all its sources of lane l
** before storing lane l, which keeps that correct.
** Mask-producing operations (carry-out, compares) build a 64-bit value
** where inactive lanes read 0, as the hardware does.
** Before all this, gcn_exec_valu tries a narrower fast path (exec_valu.c
** valu_fast / valu_fast_vop3): the ~20 operations that fill compiled inner
** loops (v_mac_f32, v_add_u32/v_addc_u32, v_mov_b32, shifts, logic,
** v_lshlrev_b64, v_mad_u64_u32), EXEC full, no modifier or extension, run
** as one loop straight over the register rows. Its results must equal
** the family handlers' (tests/unit/gcn3/test_exec_valu_fast.c); an op
** added there needs the same expression here.
**
** Invariants: a source pointer returned by a fetch helper stays valid until
** the instruction finishes (it points into the wave or into the context);
** nothing is allocated; the context lives on the caller's stack.
*/
#ifndef MGS_GCN3_VALU_INT_H
#define MGS_GCN3_VALU_INT_H

#include "gcn3/exec.h"
#include "gcn3/inst.h"
#include "gcn3/wave.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define VALU_LANES GCN_WAVE_LANES
#define VALU_ALL_LANES (~0ull)

/* The per-lane loop of every operation. Lane l's result depends only on
** the sources at lane l, and a result array can overlap a source only
** lane for lane (destination row = source row), so there is no
** loop-carried dependence; ivdep lets GCC vectorise at -O2 without runtime
** alias checks (it ignores `restrict` on local pointers). */
#define VALU_FOR_LANES(l) \
    _Pragma("GCC ivdep") for (int l = 0; l < VALU_LANES; l++)

/* Handler result: the family does not implement the op (try the next). */
#define VALU_NOT_MINE 1

typedef struct valu_ctx {
    gcn_wave *w;
    const gcn_inst *in;
    uint64_t wmask;          /* lanes whose destination is written */
    bool vop3;               /* VOP3A/VOP3B encoding (modifiers, sdst) */
    bool float_mods;         /* omod/clamp to apply on f32/f64 results */
    int err;                 /* first fetch/write error (MGS_E*), or 0 */
    uint32_t s[3][VALU_LANES];   /* scratch for 32-bit sources */
    uint64_t s64[3][VALU_LANES]; /* 64-bit sources (always copied) */
    uint32_t *d;                 /* 32-bit result: the destination row
                                    itself on the fast path, else dbuf */
    uint32_t dbuf[VALU_LANES];   /* 32-bit result when staged */
    uint64_t d64[VALU_LANES];    /* 64-bit result */
} valu_ctx;

/* Bit casts; GCC turns these into register moves and vectorises them. */
static inline float valu_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t valu_u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline double valu_d(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
static inline uint64_t valu_ud(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }

/* Source i (0..2) as a 64-lane array. b32: raw bits (SDWA select with
** sign extension, DPP for src0). f32 / f16: b32 plus abs/neg on bit 31 /
** bit 15. b64/f64: register pair or 64-bit constant (abs/neg on bit 63 for
** f64). valu_src_code returns the operand code of source i. */
const uint32_t *valu_src_b32(valu_ctx *c, int i);
const uint32_t *valu_src_f32(valu_ctx *c, int i);
const uint32_t *valu_src_f16(valu_ctx *c, int i);
const uint64_t *valu_src_b64(valu_ctx *c, int i, bool is_f64);
const uint64_t *valu_src_f64(valu_ctx *c, int i);
/* A scalar-only source (lane select, carry-in mask) read once. */
uint32_t valu_scalar_b32(valu_ctx *c, int i);
uint64_t valu_scalar_mask(valu_ctx *c, unsigned code);

/* Lane-mask conversions without per-lane 64-bit shifts (which SSE2 cannot
** vectorise): expand writes ~0 / 0 per lane; pack reads one 0/1 byte per
** lane. */
void valu_expand_mask(uint64_t m, uint32_t out[VALU_LANES]);
uint64_t valu_pack_flags(const uint8_t flags[VALU_LANES]);

/* Writeback of c->d / c->d64 to the instruction's vector destination.
** The _f variants apply omod and clamp first. Return MGS_OK or an error. */
int valu_write_b32(valu_ctx *c);
int valu_write_f32(valu_ctx *c);
int valu_write_f16(valu_ctx *c);
int valu_write_b64(valu_ctx *c);
int valu_write_f64(valu_ctx *c);
/* Writes a lane mask to a scalar destination: vcc for VOP2/VOPC forms,
** in->sdst for VOP3. Only bits of active lanes are set (mask & exec). */
void valu_write_mask(valu_ctx *c, uint64_t mask);
/* Records the error for a VGPR operand outside the allocation; NULL. */
uint32_t *valu_bad_vgpr(valu_ctx *c, unsigned code);

/* Row of VGPR operand code (256 + n) or NULL (records an error). */
static inline uint32_t *valu_vrow(valu_ctx *c, unsigned code)
{
    unsigned r = code - GCN_OPR_VGPR0;   /* wraps for scalar codes */
    if (r >= c->w->nvgpr)
        return valu_bad_vgpr(c, code);
    return gcn_vreg(c->w, r);
}

/* Operand code of source i. The decoder already replaced the SDWA/DPP
** marker (0xF9/0xFA) by the real VGPR; a hand-built instruction may still
** carry it, so take the VGPR from the extension dword then. */
static inline unsigned valu_src_code(const valu_ctx *c, int i)
{
    const gcn_inst *in = c->in;
    unsigned code = i == 0 ? in->src0 : i == 1 ? in->src1 : in->src2;
    if (i == 0 && (code == 0xF9 || code == 0xFA) && in->ext != GCN_EXT_NONE)
        code = GCN_OPR_VGPR0 + (in->word1 & 0xffu);
    return code;
}

/* Families. Each returns MGS_OK, an error, or VALU_NOT_MINE. */
int valu_exec_int(valu_ctx *c);
int valu_exec_fp(valu_ctx *c);
int valu_exec_cmp(valu_ctx *c);

/* Half precision <-> single (round to nearest even, IEEE denormals). */
uint16_t valu_f32_to_f16(float f);
float valu_f16_to_f32(uint16_t h);

#endif
