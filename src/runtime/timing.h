/*
** The runtime's timing-mode launch path: a platform model of N GPUs
** (platform/platform.h) built once per runtime, a small driver component
** that hands launches to the command processors, and the two views of device memory the model
** needs (mgs_devmem stays the single store of data):
**   - the page tables the walkers walk (the walker of GPU g, or the shared
**     IOMMU for a request of GPU g, uses g's): virtual page -> physical
**     address gpu * mem_per_gpu + frame * page_size + offset;
**   - the physical backing store the DRAM channels read and write: the
**     devmem's frames themselves (a 4 KiB host block is created on the
**     first write of one of its bytes).
** The TLBs' and walkers' page size is the devmem's (gpu.page_size).
**
** A launch: upload the kernel's code (once per program and GPU) into device
** memory so instruction fetch goes through L1I/L2/DRAM, build the
** gpu_launch (resources per wave from the kernel descriptor), send
** CP_LAUNCH from the driver, run the engine (at the next synchronisation,
** see mgs_timing_post) until its queue empties (the CP answers
** CP_LAUNCH_DONE after the L2 flush, so the backing store then holds every
** result), and report the simulated time of the launch. The watchdog's
** MGS_EDEADLOCK comes back unchanged (exit 3).
**
** Copies (mgs_timing_copy: h2d, d2h, d2d and peer) are performed by the
** GPUs' DMA engines (platform.h, src/mem/dma.h) as real traffic: the copy
** is split at the pages of its device side(s) (translated with the host's
** page table) into physically
** contiguous runs, each run a DMA_COPY command to the engine of the GPU
** that owns the device side (peer d2d: the source GPU's engine, which
** writes the destination through its RDMA engine), host bytes travel over
** the PCIe tree, device bytes through the L2 banks. Then every L2 the
** engines may have filled is flushed and invalidated by an empty launch
** to its CP (invalidate L1s, no work-group, flush + invalidate L2s), which
** restores the invariant the runtime relies on: between runtime
** operations no cache holds dirty or stale data, so memset, the dispatch
** buffers and code uploads may act on the backing store directly (they are
** instant), and the next kernel, whose launch invalidates the L1s, reads
** the copied bytes from DRAM. The copy's time runs from the first command
** to the end of that flush. (The runtime synchronises before every copy.)
**
** Multi-GPU (platform/platform.h): the model is a whole platform. A launch
** on GPU g goes to that GPU model's CP (monolithic: the one CP); a launch
** on MGS_GPU_ALL (unified, shared) goes to every CP at once, CP i running
** the contiguous chunk [i * n / N, (i + 1) * n / N) of the n work-groups
** (seed 002 §5.3.1). Code is uploaded once per program and GPU model, on
** that GPU, so instruction fetch stays local. The engine runs until every
** target CP answered; then (the release phase), because remote writes (RDMA) or another CP's
** late writes may have left dirty lines in an L2 whose own CP already
** flushed, every other L2 that may hold data of this launch is flushed
** and invalidated by an empty launch (no work-groups) to its CP - a
** counted release message, included in the launch's time.
**
** Ownership: mgs_timing owns its engine, message pool, platform and the
** code uploads; the devmem and the statistics registry are borrowed and
** must outlive it (free the timing state before the devmem).
*/
#ifndef MGS_RUNTIME_TIMING_H
#define MGS_RUNTIME_TIMING_H

#include <stdint.h>

#include "gcn3/emu.h"
#include "platform/gpu_build.h"
#include "platform/platform.h"
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
** Builds one GPU (GPU 0). MGS_ECONFIG for a bad configuration. */
int mgs_timing_new(const gpu_build_config *gc, mgs_devmem *mem,
                   stat_registry *stats, mgs_timing **out);
/* A whole platform; pc->ngpus must equal mem->num_gpus, and pc->gpu's
** mem_bytes is replaced by the devmem's memory per GPU. */
int mgs_timing_new_platform(const platform_config *pc, mgs_devmem *mem,
                            stat_registry *stats, mgs_timing **out);
void mgs_timing_free(mgs_timing *t);

/* post + sync: runs one dispatch on GPU gpu (0..ngpus-1, or MGS_GPU_ALL = -1). el is
** the functional launch the runtime prepared (kernarg, packet, queue in
** device memory). */
int mgs_timing_launch(mgs_timing *t, int gpu, const gcn_emu_launch *el,
                      mgs_timing_result *res);

/* Asynchronous launches (the runtime's mgs_launch_kernel in timing mode):
** mgs_timing_post prepares a launch and hands it to its CP(s) without
** running the engine, so launches posted to different GPUs run
** concurrently; mgs_timing_sync runs the engine until every posted launch
** finished, performs the release phase and returns the first failing
** status, with res summing the posted launches (sim_time from the first
** post to the end of the release). A GPU model runs one launch at a time:
** if mgs_timing_would_block(gpu), sync before posting there. */
bool mgs_timing_would_block(const mgs_timing *t, int gpu);
int mgs_timing_post(mgs_timing *t, int gpu, const gcn_emu_launch *el);
int mgs_timing_sync(mgs_timing *t, mgs_timing_result *res);

/* Work-groups GPU model i completed in the last sync. */
uint64_t mgs_timing_last_wgs(const mgs_timing *t, uint32_t i);
platform *mgs_timing_platform(mgs_timing *t);

/* Copies through the DMA engines (see above). h2d: dst is a device
** address, src a host address (a pointer value); d2h the reverse; d2d
** both device addresses (the ranges must not overlap). No launch may be
** posted. MGS_EFAULT (before any traffic) for an unmapped device page. */
typedef enum mgs_timing_copy_kind {
    MGS_TIMING_H2D,
    MGS_TIMING_D2H,
    MGS_TIMING_D2D
} mgs_timing_copy_kind;
typedef struct mgs_timing_copy_result {
    mgs_time time;            /* ps, first command to the end of the flush */
    uint64_t bytes;
    size_t commands;          /* DMA_COPY commands it took */
} mgs_timing_copy_result;
int mgs_timing_copy(mgs_timing *t, mgs_timing_copy_kind kind, uint64_t dst,
                    uint64_t src, uint64_t n, mgs_timing_copy_result *res);
/* Whether the platform has DMA engines (platform.copy_timing = dma). */
bool mgs_timing_has_dma(const mgs_timing *t);

/* Simulated time so far, ps. */
mgs_time mgs_timing_now(const mgs_timing *t);
sim_engine *mgs_timing_engine(mgs_timing *t);

#endif
