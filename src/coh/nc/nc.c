/*
** nc: software coherence, the GPU's own bulk-synchronous model (seed 002
** §5.3; the "none"/BSP protocol of the seeds). The worked example of
** docs/coherence.md.
**
** Rules (per GPU model; L1s are write-through/around, so they never hold
** dirty data):
**   launch (acquire)   invalidate every L1 and TLB: a kernel sees what was
**                      written before it was launched
**   kernel end         one GPU: nothing. Its L2 is the only L2 that holds
**                      its memory, and every later reader (the next kernel,
**                      a DMA copy) goes through it, so L2 contents survive
**                      from kernel to kernel (seed 002 §2.4.3).
**                      Several GPUs: write back and drop the whole L2, so
**                      another GPU (over RDMA, or through the shared HBM)
**                      reads memory that holds this kernel's results, and
**                      nothing stale stays for the next kernel
**   peer release       several GPUs over RDMA: after a synchronisation,
**                      write back and drop the L2s of the GPUs that took
**                      part, or did not run (remote writes may have left
**                      dirty lines in a home L2 whose own CP had already
**                      released)
**   copy end           several GPUs: write back and drop the L2 a DMA copy
**                      went through; one GPU: nothing (copies go through
**                      the L2)
**   host write         drop the runtime's directly written range from the
**                      L2 (writing back dirty bytes first), so no stale or
**                      dirty line survives a direct write
**   host read          write back dirty lines of the range
**   fences             buffer_wbinvl1 / s_dcache_inv invalidate the wave's L1
** With several GPUs every operation of the runtime ends with empty L2s, so
** the host points have nothing to do there.
*/
#include "coh/coh.h"

static void nc_sync(const coh_system *sys, coh_point p, uint32_t gpu,
                    coh_sync *out)
{
    (void)gpu;
    bool multi = sys->ngpus > 1;
    switch (p) {
    case COH_LAUNCH:
        out->l1 = COH_INVALIDATE;
        out->tlb = COH_INVALIDATE;
        break;
    case COH_KERNEL_END:
    case COH_COPY_END:
        if (multi) {
            out->l2 = COH_WRITEBACK_INVALIDATE;
            out->l2_all = true;
        }
        break;
    case COH_PEER_RELEASE:
        if (multi && sys->rdma) {
            out->l2 = COH_WRITEBACK_INVALIDATE;
            out->l2_all = true;
        }
        break;
    case COH_HOST_WRITE:
        if (!multi)
            out->l2 = COH_WRITEBACK_INVALIDATE;
        break;
    case COH_HOST_READ:
        if (!multi)
            out->l2 = COH_WRITEBACK;
        break;
    case COH_POINTS:
        break;
    }
}

const coh_protocol coh_nc = {
    .name = "nc",
    .summary = "software coherence: L1s invalidated at launch; one GPU keeps "
               "its L2 across kernels, several write back and drop it at "
               "kernel end",
    .sync = nc_sync,
    .fence_l1 = COH_INVALIDATE,
};
