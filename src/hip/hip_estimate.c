/*
** libmgsim-hip time in emu mode: an estimate, so that programs that time
** their kernels with events and compute rates run unchanged.
**
** Timing mode simulates time (kernels + copies, mgs_rt_totals). Emu mode
** has no time model; events there are stamped with an estimate from the
** work done so far at the configured peak rates:
**   kernels  wf_insts x 4 cycles / (CUs x SIMDs per CU) at gpu.freq (each
**            wavefront instruction occupies a SIMD 4 cycles: 64 lanes on
**            16), plus 1 us per launch;
**   copies   copy_bytes at the host link's peak (16 GB/s for PCIe 3,
**            doubling per generation: platform.pcie_version), plus 1 us
**            per copy.
** Assumed: 1 us of fixed cost per launch and per copy (the order of a real
** runtime's launch and DMA set-up latency); one GPU's SIMDs, also for
** multi-GPU runs (emu runs the GPUs' work one after another). An estimate
** is never 0 once anything ran, and only grows; it is no simulation: use
** timing mode for numbers. The exit summary says which it is.
*/
#include <string.h>

#include "hip/hip_internal.h"

#define EST_FIXED_PS 1000000ull   /* 1 us per launch and per copy */

uint64_t mhip_time_now_ps(const mgs_rt_totals *t, bool *estimated)
{
    const mgs_config *cfg = &mhip_g.env.cfg;
    bool timing = strcmp(cfg->sim_mode, "timing") == 0;
    if (estimated) *estimated = !timing;
    if (timing) return t->sim_time_ps + t->copy_time_ps;
    double simds = (double)cfg->gpu_num_cus * (double)cfg->gpu_simds_per_cu;
    double hz = (double)cfg->gpu_freq;
    double kernel_s = simds > 0 && hz > 0
                          ? (double)t->wf_insts * 4.0 / simds / hz : 0.0;
    double link_bytes_per_s = 16e9;
    for (int v = 3; v < cfg->platform_pcie_version; v++)
        link_bytes_per_s *= 2.0;
    double copy_s = (double)t->copy_bytes / link_bytes_per_s;
    return (uint64_t)((kernel_s + copy_s) * 1e12) +
           EST_FIXED_PS * (t->kernels + t->copies);
}
