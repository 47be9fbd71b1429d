/*
** Wavefront architectural state for the functional GCN3 model, shared by
** the emulator's instruction-family files (scalar, vector ALU, LDS, memory)
** and, later, the timing model, which drives the same semantics.
**
** Register file layout (one wavefront = 64 lanes):
**   vgpr[r * 64 + lane]  32-bit VGPR r of a lane, r < nvgpr
**   sgpr[0..101]         s0..s101; flat_scratch, xnack_mask and trap
**                        registers live at their operand codes below
**   vcc, exec            64-bit masks (bit i = lane i)
**
** Operand codes (9 bits, as encoded, ISA manual "Scalar/Vector operands"):
**     0..101  s0..s101          102/103 flat_scratch_lo/hi
**   104/105  xnack_mask lo/hi   106/107 vcc_lo/hi
**   108..111 tba/tma            112..123 ttmp0..ttmp11
**       124  m0                 126/127 exec_lo/hi
**       128  integer 0          129..192 integers 1..64
**  193..208  integers -1..-16   240..247 0.5,-0.5,1.0,-1.0,2.0,-2.0,4.0,-4.0
**       248  1/(2*pi)           251 vccz  252 execz  253 scc
**       255  32-bit literal     256..511 v0..v255
** The decoder keeps these codes unchanged in gcn_inst operand fields; the
** helpers below resolve them.
*/
#ifndef MGS_GCN3_WAVE_H
#define MGS_GCN3_WAVE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define GCN_WAVE_LANES 64
#define GCN_NUM_SGPRS 128   /* covers every scalar operand code < 128 */

enum {
    GCN_OPR_FLAT_SCR_LO = 102, GCN_OPR_FLAT_SCR_HI = 103,
    GCN_OPR_VCC_LO = 106, GCN_OPR_VCC_HI = 107,
    GCN_OPR_M0 = 124,
    GCN_OPR_EXEC_LO = 126, GCN_OPR_EXEC_HI = 127,
    GCN_OPR_ZERO = 128,
    GCN_OPR_INT_POS_FIRST = 129, GCN_OPR_INT_POS_LAST = 192,
    GCN_OPR_INT_NEG_FIRST = 193, GCN_OPR_INT_NEG_LAST = 208,
    GCN_OPR_F_HALF = 240, GCN_OPR_F_INV2PI = 248,
    GCN_OPR_VCCZ = 251, GCN_OPR_EXECZ = 252, GCN_OPR_SCC = 253,
    GCN_OPR_LITERAL = 255,
    GCN_OPR_VGPR0 = 256
};

struct gcn_workgroup;

typedef struct gcn_wave {
    /* pc first: the timing model's fetch and issue scans read it for every
    ** wave every cycle, and it then shares a host cache line with the
    ** scheduler's fields (gpu/cu_int.h) instead of sitting behind the SGPRs. */
    uint64_t pc;                 /* byte offset into the decoded code range (.text) */

    /* Architectural state. vcc and exec are kept as 64-bit values here and
    ** mirrored nowhere else: sgpr[106..107] and sgpr[126..127] are unused. */
    uint32_t sgpr[GCN_NUM_SGPRS];
    uint64_t vcc;
    uint64_t exec;
    uint32_t m0;
    uint8_t scc;
    uint32_t *vgpr;              /* nvgpr * 64 words */
    uint32_t nvgpr;              /* VGPRs allocated */
    uint32_t nsgpr;              /* SGPRs allocated */

    /* Identity. */
    uint32_t wave_id;            /* index within the work-group */
    uint32_t wg_id[3];           /* work-group id */
    struct gcn_workgroup *wg;    /* LDS, barrier state (borrowed) */
    void *ctx;                   /* executor context (borrowed) */

    /* Status. */
    bool done;                   /* s_endpgm executed */
    bool at_barrier;             /* waiting in s_barrier */
    uint64_t insts;              /* wavefront instructions executed */
} gcn_wave;

static inline uint32_t *gcn_vreg(gcn_wave *w, unsigned r)
{
    return w->vgpr + (size_t)r * GCN_WAVE_LANES;
}

/* Float inline constants as raw bit patterns. */
static inline uint32_t gcn_inline_f32(unsigned code)
{
    static const uint32_t f[9] = {
        0x3f000000u, 0xbf000000u, 0x3f800000u, 0xbf800000u,
        0x40000000u, 0xc0000000u, 0x40800000u, 0xc0800000u,
        0x3e22f983u /* 1/(2*pi) */
    };
    return f[code - GCN_OPR_F_HALF];
}

static inline uint64_t gcn_inline_f64(unsigned code)
{
    static const uint64_t d[9] = {
        0x3fe0000000000000ull, 0xbfe0000000000000ull,
        0x3ff0000000000000ull, 0xbff0000000000000ull,
        0x4000000000000000ull, 0xc000000000000000ull,
        0x4010000000000000ull, 0xc010000000000000ull,
        0x3fc45f306dc9c882ull /* 1/(2*pi) */
    };
    return d[code - GCN_OPR_F_HALF];
}

/* Reads a 32-bit scalar operand (code < 256). lit is the instruction's
** literal. Not for VGPRs. */
static inline uint32_t gcn_read_s32(const gcn_wave *w, unsigned code,
                                    uint32_t lit)
{
    if (code < 102)
        return w->sgpr[code];
    switch (code) {
    case GCN_OPR_VCC_LO: return (uint32_t)w->vcc;
    case GCN_OPR_VCC_HI: return (uint32_t)(w->vcc >> 32);
    case GCN_OPR_EXEC_LO: return (uint32_t)w->exec;
    case GCN_OPR_EXEC_HI: return (uint32_t)(w->exec >> 32);
    case GCN_OPR_M0: return w->m0;
    case GCN_OPR_LITERAL: return lit;
    case GCN_OPR_VCCZ: return w->vcc == 0;
    case GCN_OPR_EXECZ: return w->exec == 0;
    case GCN_OPR_SCC: return w->scc;
    default: break;
    }
    if (code >= GCN_OPR_ZERO && code <= GCN_OPR_INT_POS_LAST)
        return code - GCN_OPR_ZERO;
    if (code >= GCN_OPR_INT_NEG_FIRST && code <= GCN_OPR_INT_NEG_LAST)
        return (uint32_t)(GCN_OPR_INT_POS_LAST - (int)code);
    if (code >= GCN_OPR_F_HALF && code <= GCN_OPR_F_INV2PI)
        return gcn_inline_f32(code);
    return w->sgpr[code & (GCN_NUM_SGPRS - 1)]; /* ttmp, tba, ... */
}

/* Reads a 64-bit scalar operand. Integer inline constants sign-extend;
** float inline constants are doubles when is_f64; a literal is the low
** 32 bits zero-extended (or the high 32 bits of a double when is_f64). */
static inline uint64_t gcn_read_s64(const gcn_wave *w, unsigned code,
                                    uint32_t lit, bool is_f64)
{
    if (code < 102)
        return w->sgpr[code] | (uint64_t)w->sgpr[code + 1] << 32;
    switch (code) {
    case GCN_OPR_VCC_LO: return w->vcc;
    case GCN_OPR_EXEC_LO: return w->exec;
    case GCN_OPR_LITERAL: return is_f64 ? (uint64_t)lit << 32 : lit;
    default: break;
    }
    if (code >= GCN_OPR_ZERO && code <= GCN_OPR_INT_POS_LAST)
        return code - GCN_OPR_ZERO;
    if (code >= GCN_OPR_INT_NEG_FIRST && code <= GCN_OPR_INT_NEG_LAST)
        return (uint64_t)(int64_t)(GCN_OPR_INT_POS_LAST - (int)code);
    if (code >= GCN_OPR_F_HALF && code <= GCN_OPR_F_INV2PI)
        return is_f64 ? gcn_inline_f64(code) : gcn_inline_f32(code);
    return gcn_read_s32(w, code, lit) |
           (uint64_t)gcn_read_s32(w, code + 1, lit) << 32;
}

static inline void gcn_write_s32(gcn_wave *w, unsigned code, uint32_t v)
{
    if (code < 102) {
        w->sgpr[code] = v;
        return;
    }
    switch (code) {
    case GCN_OPR_VCC_LO: w->vcc = (w->vcc & ~0xffffffffull) | v; return;
    case GCN_OPR_VCC_HI:
        w->vcc = (w->vcc & 0xffffffffull) | (uint64_t)v << 32; return;
    case GCN_OPR_EXEC_LO: w->exec = (w->exec & ~0xffffffffull) | v; return;
    case GCN_OPR_EXEC_HI:
        w->exec = (w->exec & 0xffffffffull) | (uint64_t)v << 32; return;
    case GCN_OPR_M0: w->m0 = v; return;
    default: w->sgpr[code & (GCN_NUM_SGPRS - 1)] = v; return;
    }
}

static inline void gcn_write_s64(gcn_wave *w, unsigned code, uint64_t v)
{
    if (code == GCN_OPR_VCC_LO) { w->vcc = v; return; }
    if (code == GCN_OPR_EXEC_LO) { w->exec = v; return; }
    gcn_write_s32(w, code, (uint32_t)v);
    gcn_write_s32(w, code + 1, (uint32_t)(v >> 32));
}

#endif
