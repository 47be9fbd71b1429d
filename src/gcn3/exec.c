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

static int regs_bad(char kind, unsigned first, unsigned n, unsigned have,
                    const char *what)
{
    if (n == 1)
        return mgs_error_set(MGS_ESIM, "%s %c%u outside the %u %cGPRs "
                             "allocated to the wavefront", what, kind, first,
                             have, kind == 'v' ? 'V' : 'S');
    return mgs_error_set(MGS_ESIM, "%s %c[%u:%u] outside the %u %cGPRs "
                         "allocated to the wavefront", what, kind, first,
                         first + n - 1, have, kind == 'v' ? 'V' : 'S');
}

int gcn_vgprs_bad_(const gcn_wave *w, unsigned code, unsigned n,
                   const char *what)
{
    if (code < GCN_OPR_VGPR0)
        return mgs_error_set(MGS_EUNSUPPORTED, "%s: operand code %u where a "
                             "VGPR is required", what, code);
    return regs_bad('v', code - GCN_OPR_VGPR0, n, w->nvgpr, what);
}

int gcn_sgprs_bad_(const gcn_wave *w, unsigned code, unsigned n,
                   const char *what)
{
    unsigned lim = w->nsgpr && w->nsgpr < 102 ? w->nsgpr : 102;
    return regs_bad('s', code, n, lim, what);
}
