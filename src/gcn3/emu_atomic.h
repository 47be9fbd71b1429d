/*
** Atomic read-modify-write arithmetic shared by LDS (DS) atomics and
** global-memory (FLAT/MUBUF) atomics, so both compute the same new value.
**
** gcn_atomic_kind_of maps any atomic gcn_op (DS, FLAT or MUBUF, with or
** without return, 32 or 64 bit) to one kind; gcn_atomic_apply computes the
** value stored. Compare-swap convention here: store src when old == cmp
** (callers reorder the encodings' data operands to fit: FLAT cmpswap has
** {src, cmp} = {data[0], data[1]}, DS cmpst has cmp = data0, src = data1).
** Semantics: GCN3 ISA manual, sections 12.13 (DS) and 12.15/12.16 (FLAT).
*/
#ifndef MGS_GCN3_EMU_ATOMIC_H
#define MGS_GCN3_EMU_ATOMIC_H

#include <stdint.h>

typedef enum gcn_atomic_kind {
    GCN_ATOMIC_NONE = 0,
    GCN_ATOMIC_SWAP, GCN_ATOMIC_CMPSWAP, GCN_ATOMIC_ADD, GCN_ATOMIC_SUB,
    GCN_ATOMIC_RSUB, GCN_ATOMIC_SMIN, GCN_ATOMIC_UMIN, GCN_ATOMIC_SMAX,
    GCN_ATOMIC_UMAX, GCN_ATOMIC_AND, GCN_ATOMIC_OR, GCN_ATOMIC_XOR,
    GCN_ATOMIC_INC, GCN_ATOMIC_DEC
} gcn_atomic_kind;

/* The kind of an atomic gcn_op, GCN_ATOMIC_NONE for any other op. */
gcn_atomic_kind gcn_atomic_kind_of(unsigned op);

static inline uint64_t gcn_atomic_apply(gcn_atomic_kind k, unsigned size,
                                        uint64_t old, uint64_t src,
                                        uint64_t cmp)
{
    uint64_t mask = size == 8 ? ~0ull : 0xffffffffull;
    int shift = size == 8 ? 0 : 32; /* sign-extend 32-bit values */
    int64_t so = (int64_t)(old << shift) >> shift;
    int64_t ss = (int64_t)(src << shift) >> shift;
    uint64_t r;
    old &= mask;
    src &= mask;
    switch (k) {
    case GCN_ATOMIC_SWAP: r = src; break;
    case GCN_ATOMIC_CMPSWAP: r = old == (cmp & mask) ? src : old; break;
    case GCN_ATOMIC_ADD: r = old + src; break;
    case GCN_ATOMIC_SUB: r = old - src; break;
    case GCN_ATOMIC_RSUB: r = src - old; break;
    case GCN_ATOMIC_SMIN: r = (uint64_t)(so < ss ? so : ss); break;
    case GCN_ATOMIC_UMIN: r = old < src ? old : src; break;
    case GCN_ATOMIC_SMAX: r = (uint64_t)(so > ss ? so : ss); break;
    case GCN_ATOMIC_UMAX: r = old > src ? old : src; break;
    case GCN_ATOMIC_AND: r = old & src; break;
    case GCN_ATOMIC_OR: r = old | src; break;
    case GCN_ATOMIC_XOR: r = old ^ src; break;
    /* inc/dec wrap at src (ISA: tmp >= src ? 0 : tmp + 1, and
    ** tmp == 0 || tmp > src ? src : tmp - 1). */
    case GCN_ATOMIC_INC: r = old >= src ? 0 : old + 1; break;
    case GCN_ATOMIC_DEC: r = old == 0 || old > src ? src : old - 1; break;
    default: r = old; break;
    }
    return r & mask;
}

#endif
