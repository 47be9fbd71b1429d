/*
** Vector memory semantics in emu mode: FLAT (GCN3 ISA manual ch. 10,
** table 12.16) and MUBUF (ch. 8, table 12.14).
**
** There is one implementation of what these instructions do, the
** two-phase one in exec_mem_plan.c, which the timing model's CU uses too:
**   plan      per-lane addresses, sizes, store data, atomic operands
**             (apertures, swizzled scratch, buffer range checks);
**   access    here: functional, through the executor's gcn_mem_ops, with
**             runs of consecutive lanes as one call (a fully coalesced
**             wave is one call);
**   complete  load results and atomic return values into the VGPRs.
** A faulting access stops the instruction; earlier runs' stores stay done,
** like a fault on hardware. Lanes are processed in order 0..63: for
** conflicting stores the highest lane wins; atomics apply in lane order.
*/
#include "gcn3/exec.h"
#include "gcn3/exec_mem_plan.h"

#include "mgsim/errors.h"

int gcn_exec_mem(gcn_wave *w, const gcn_inst *in)
{
    gcn_mem_plan p; /* ~3 KB on the stack; only the used rows are written */
    int rc = gcn_mem_plan_vector(w, in, &p);
    if (rc || p.kind == GCN_MEM_NONE)
        return rc;
    return gcn_mem_plan_run(w, &p);
}
