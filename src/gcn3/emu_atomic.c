/*
** gcn_atomic_kind_of: which read-modify-write an atomic opcode performs,
** for FLAT and MUBUF atomics (32-bit and _x2 forms; with or without glc
** return they are the same opcode). DS atomics are described in exec_ds.c.
*/
#include "gcn3/emu_atomic.h"

#include "gcn3/inst.h"

gcn_atomic_kind gcn_atomic_kind_of(unsigned op)
{
    switch (op) {
#define K(name, kind)                                                     \
    case GCN_OP_FLAT_ATOMIC_##name: case GCN_OP_FLAT_ATOMIC_##name##_X2:  \
    case GCN_OP_BUFFER_ATOMIC_##name: case GCN_OP_BUFFER_ATOMIC_##name##_X2: \
        return GCN_ATOMIC_##kind;
    K(SWAP, SWAP) K(CMPSWAP, CMPSWAP) K(ADD, ADD) K(SUB, SUB)
    K(SMIN, SMIN) K(UMIN, UMIN) K(SMAX, SMAX) K(UMAX, UMAX)
    K(AND, AND) K(OR, OR) K(XOR, XOR) K(INC, INC) K(DEC, DEC)
#undef K
    default:
        return GCN_ATOMIC_NONE;
    }
}
