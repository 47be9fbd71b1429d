/*
** Shared helpers of the VALU tests (test_exec_valu*.c): a wavefront with
** 64 VGPRs, instruction builders that fill gcn_inst the way the decoder
** does (decode.h conventions: e32 carry ops and VOPC have sdst = vcc_lo,
** carry-in / cndmask e32 have src2 = vcc_lo), a deterministic PRNG and
** float bit helpers.
*/
#ifndef MGS_TEST_EXEC_VALU_UTIL_H
#define MGS_TEST_EXEC_VALU_UTIL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gcn3/exec.h"
#include "gcn3/inst.h"
#include "gcn3/wave.h"
#include "mgsim/errors.h"

#define V(n) (GCN_OPR_VGPR0 + (n))
#define TW_NVGPR 64

typedef struct test_wave {
    gcn_wave w;
    uint32_t regs[TW_NVGPR * GCN_WAVE_LANES];
} test_wave;

static inline void tw_init(test_wave *t)
{
    memset(t, 0, sizeof *t);
    t->w.vgpr = t->regs;
    t->w.nvgpr = TW_NVGPR;
    t->w.nsgpr = 102;
    t->w.exec = ~0ull;
}

static inline uint32_t *tw_v(test_wave *t, unsigned r)
{
    return gcn_vreg(&t->w, r);
}

/* 64-bit value of the VGPR pair r, r+1 in lane l. */
static inline uint64_t tw_v64(test_wave *t, unsigned r, int l)
{
    return tw_v(t, r)[l] | (uint64_t)tw_v(t, r + 1)[l] << 32;
}
static inline void tw_set64(test_wave *t, unsigned r, int l, uint64_t v)
{
    tw_v(t, r)[l] = (uint32_t)v;
    tw_v(t, r + 1)[l] = (uint32_t)(v >> 32);
}

/* An instruction of op in encoding fmt; sources/dst are operand codes. */
static inline gcn_inst tw_inst(gcn_op op, gcn_fmt fmt, unsigned dst,
                               unsigned s0, unsigned s1, unsigned s2)
{
    gcn_inst in;
    memset(&in, 0, sizeof in);
    in.op = (uint16_t)op;
    in.fmt = (uint8_t)fmt;
    in.size = fmt == GCN_FMT_VOP3A || fmt == GCN_FMT_VOP3B ? 8 : 4;
    in.dst = (uint16_t)dst;
    in.src0 = (uint16_t)s0;
    in.src1 = (uint16_t)s1;
    in.src2 = (uint16_t)s2;
    if (fmt == GCN_FMT_VOPC || fmt == GCN_FMT_VOP2)
        in.sdst = GCN_OPR_VCC_LO;
    if (fmt == GCN_FMT_VOP2 && (op == GCN_OP_V_CNDMASK_B32 ||
                                op == GCN_OP_V_ADDC_U32 ||
                                op == GCN_OP_V_SUBB_U32 ||
                                op == GCN_OP_V_SUBBREV_U32))
        in.src2 = GCN_OPR_VCC_LO;
    return in;
}

/* Runs one instruction; returns gcn_exec_valu's result. */
static inline int tw_run(test_wave *t, const gcn_inst *in)
{
    return gcn_exec_valu(&t->w, in);
}

/* xorshift64*: deterministic test data. */
static inline uint64_t tw_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

static inline float tw_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t tw_u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline double tw_d(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
static inline uint64_t tw_ud(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }

/* Distance in units in the last place between two finite floats of the
** same sign (or both zero). */
static inline int64_t tw_ulp_f(float a, float b)
{
    int64_t x = (int32_t)tw_u(a), y = (int32_t)tw_u(b);
    if (x < 0)
        x = INT32_MIN - x;
    if (y < 0)
        y = INT32_MIN - y;
    return x > y ? x - y : y - x;
}

#endif
