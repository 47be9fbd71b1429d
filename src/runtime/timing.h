/*
** The runtime's timing-mode launch path: a GPU model (platform/gpu_build.h)
** built once per runtime, a small driver component that hands launches to
** the command processor, and the two views of device memory the model
** needs (mgs_devmem stays the single store of data):
**   - the page table the MMU walks: virtual page -> physical address
**     gpu * mem_per_gpu + phys_page * 4 KiB + offset;
**   - the physical backing store the DRAM channels read and write (a
**     reverse map phys page -> page-table entry, refreshed at each launch;
**     a page's host block is created on the first DRAM write).
**
** A launch: upload the kernel's code (once per program) into device memory
** so instruction fetch goes through L1I/L2/DRAM, build the gpu_launch
** (resources per wave from the kernel descriptor), send CP_LAUNCH from the
** driver, run the engine until its queue empties (the CP answers
** CP_LAUNCH_DONE after the L2 flush, so the backing store then holds every
** result), and report the simulated time of the launch. The watchdog's
** MGS_EDEADLOCK comes back unchanged (exit 3).
**
** Host copies (h2d/d2h/memset) act on the backing store directly between
** launches: at that point L2 was flushed and invalidated and the L1s are
** invalidated at the next launch, so no cache holds stale or dirty data.
** DMA timing for copies comes with the multi-GPU issue.
**
** Ownership: mgs_timing owns its engine, message pool, GPU model and the
** code uploads; the devmem and the statistics registry are borrowed and
** must outlive it (free the timing state before the devmem).
*/
#ifndef MGS_RUNTIME_TIMING_H
#define MGS_RUNTIME_TIMING_H

#include <stdint.h>

#include "gcn3/emu.h"
#include "platform/gpu_build.h"
#include "runtime/devmem.h"
#include "sim/stats.h"

typedef struct mgs_timing mgs_timing;

typedef struct mgs_timing_result {
    uint64_t workgroups;      /* completed */
    uint64_t wavefronts;
    uint64_t wf_insts;
    mgs_time sim_time;        /* ps from CP_LAUNCH to CP_LAUNCH_DONE */
} mgs_timing_result;

/* gc: the GPU to build (NULL: the R9 Nano defaults). stats may be NULL.
** Builds GPU 0 now (one-GPU timing; more GPUs come with the multi-GPU
** platforms). MGS_ECONFIG for a bad configuration. */
int mgs_timing_new(const gpu_build_config *gc, mgs_devmem *mem,
                   stat_registry *stats, mgs_timing **out);
void mgs_timing_free(mgs_timing *t);

/* Runs one dispatch on GPU gpu (only 0 for now). el is the functional
** launch the runtime prepared (kernarg, packet, queue in device memory). */
int mgs_timing_launch(mgs_timing *t, int gpu, const gcn_emu_launch *el,
                      mgs_timing_result *res);

/* Simulated time so far, ps. */
mgs_time mgs_timing_now(const mgs_timing *t);
sim_engine *mgs_timing_engine(mgs_timing *t);

#endif
