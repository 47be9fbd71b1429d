/*
** gcn_exec: routes a decoded instruction to its family's semantics by
** encoding (inst.h gcn_fmt). VOP1/VOP2/VOPC and their VOP3 promotions all
** go to the vector ALU; MTBUF/MIMG/VINTRP/EXP are not modelled (compute
** kernels compiled for gfx803 do not use them) and report MGS_EUNSUPPORTED.
*/
#include "gcn3/exec.h"

#include "mgsim/errors.h"

int gcn_exec(gcn_wave *w, const gcn_inst *in)
{
    switch ((gcn_fmt)in->fmt) {
    case GCN_FMT_SOP2:
    case GCN_FMT_SOPK:
    case GCN_FMT_SOP1:
    case GCN_FMT_SOPC:
    case GCN_FMT_SOPP:
    case GCN_FMT_SMEM:
        return gcn_exec_scalar(w, in);
    case GCN_FMT_VOP2:
    case GCN_FMT_VOP1:
    case GCN_FMT_VOPC:
    case GCN_FMT_VOP3A:
    case GCN_FMT_VOP3B:
        return gcn_exec_valu(w, in);
    case GCN_FMT_DS:
        return gcn_exec_ds(w, in);
    case GCN_FMT_FLAT:
    case GCN_FMT_MUBUF:
        return gcn_exec_mem(w, in);
    default:
        return MGS_EUNSUPPORTED;
    }
}
