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
** CP_LAUNCH_DONE after the release the protocol asked for), and report the simulated time of the launch. The watchdog's
** MGS_EDEADLOCK comes back unchanged (exit 3).
**
** Copies (mgs_timing_copy: h2d, d2h, d2d and peer) are performed by the
** GPUs' DMA engines (platform.h, src/mem/dma.h) as real traffic: the copy
** is split at the pages of its device side(s) (translated with the host's
** page table) into physically contiguous runs, each run a DMA_COPY command to the engine of the GPU that owns the
** device side (peer d2d: the source GPU's engine, which writes the
** destination through its RDMA engine), host bytes travel over the PCIe
** tree, device bytes through the L2 banks. The copy's time runs from the
** first command to the end of the maintenance the protocol asks for at
** COH_COPY_END. (The runtime synchronises before every copy.)
**
** Coherence (src/coh/coh.h): nothing here decides what a cache keeps. Each
** launch carries the protocol's COH_LAUNCH maintenance as its acquire
** (merged with pending host writes) and COH_KERNEL_END as its release; a
** maintenance-only step is an empty launch (no work-groups) whose release
** is the maintenance, sent to the GPU's CP and counted in its statistics.
** Under nc on one GPU the L2 keeps its lines from kernel to kernel; direct
** writes and reads of the runtime are made safe by the host points below
** (ranged write-back / drop of the lines they touch).
**
** Multi-GPU (platform/platform.h): the model is a whole platform. A launch
** on GPU g goes to that GPU model's CP (monolithic: the one CP); a launch
** on MGS_GPU_ALL (unified, shared) goes to every CP at once, CP i running
** the contiguous chunk [i * n / N, (i + 1) * n / N) of the n work-groups
** (seed 002 §5.3.1). Code is uploaded once per program and GPU model, on
** that GPU, so instruction fetch stays local. The engine runs until every
** target CP answered; then (the peer release) every GPU that took part in
** a multi-GPU launch, or did not run, gets the protocol's
** COH_PEER_RELEASE maintenance (nc over RDMA: write back and drop its L2,
** because remote writes may have left dirty lines in an L2 whose own CP
** had already released), included in the launch's time.
**
** Ownership: mgs_timing owns its engine, message pool, platform and the
** code uploads; the devmem and the statistics registry are borrowed and
** must outlive it (free the timing state before the devmem).
*/
#ifndef MGS_RUNTIME_TIMING_H
#define MGS_RUNTIME_TIMING_H

#include <stdbool.h>
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
/* The same for a Locality API launch on member gpu (>= 0): its CP runs
** only the work-groups wgs[0 .. nwgs) (linear ids of el's grid, nwgs >=
** 1), in that order; wgs must stay valid until the sync. */
int mgs_timing_post_list(mgs_timing *t, int gpu, const gcn_emu_launch *el,
                         const uint32_t *wgs, uint64_t nwgs);

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

/* Host-visible points (src/coh/coh.h): the runtime read or wrote device
** memory [va, va + n) directly, bypassing the caches.
** mgs_timing_host_write(now = false): a fresh allocation was written (kernel
** arguments, dispatch packet, code); the protocol's COH_HOST_WRITE
** maintenance of its physical range is applied at each GPU's next launch
** (acquire), or before the next copy or host point. now = true: memory the
** GPUs may have cached dirty (memset, instant copies, a free) is about to
** be written or given up: the maintenance runs at once, before the write
** (nothing may be posted). mgs_timing_host_read: before a direct read,
** COH_HOST_READ at once (nothing may be posted). MGS_EFAULT for an
** unmapped page. */
int mgs_timing_host_write(mgs_timing *t, uint64_t va, uint64_t n, bool now);
int mgs_timing_host_read(mgs_timing *t, uint64_t va, uint64_t n);
/* The runtime placed [va, va + n) on gpu (mgs_rt_place, whole pages, its
** tables already changed): the migrator's directory follows (um.h). */
void mgs_timing_placed(mgs_timing *t, uint64_t va, uint64_t n, int gpu);

/* Progress while the engine runs (read by the live progress line; no
** effect on the simulation): work-groups done and total of the launches
** in flight, wavefront instructions executed so far, and the copy
** commands of the copy in flight. */
typedef struct mgs_timing_progress {
    uint64_t wgs_done, wgs_started, wgs_total;
    uint64_t wf_insts;
    uint64_t copy_cmds_done, copy_cmds_total;
} mgs_timing_progress;
void mgs_timing_progress_get(mgs_timing *t, mgs_timing_progress *out);

/* Replayed programs (the two-tenant harness, docs/pcie-scheduling.md):
** each task is a list of operations (copies and launches, recorded from a
** host program by the runtime) run in order on one GPU model, again and
** again, all tasks at once in one engine run: copies and kernels of
** different tasks overlap in simulated time, and every copy is a new
** transfer for the driver's PCIe scheduler (pcie_tos.h). An iteration
** starts only before `window` has passed; the one in progress then
** finishes. host(ud, 0) runs before an iteration's first operation and
** host(ud, 1) after its last (zero simulated time; a non-MGS_OK answer
** counts a verification failure). Its copies must touch only its GPU's
** memory. Several tasks may share one GPU model (the runtime's streams):
** their copies share its DMA engine concurrently, while its command
** processor runs one task's launch at a time (the others' wait). */
enum { MGS_TIMING_OP_COPY = 0, MGS_TIMING_OP_LAUNCH = 1 };
typedef struct mgs_timing_op {
    int kind;                      /* MGS_TIMING_OP_* */
    mgs_timing_copy_kind copy;     /* COPY: as mgs_timing_copy */
    uint64_t dst, src, n;
    gcn_emu_launch launch;         /* LAUNCH: as mgs_timing_post */
} mgs_timing_op;
typedef struct mgs_timing_task {
    int gpu;
    const mgs_timing_op *ops;
    size_t nops;
    int (*host)(void *ud, int phase);
    void *ud;
    bool qos;                      /* a QoS task (pcie.arbitration = qos) */
    uint32_t deadline_factor;      /* its copy deadline: this many times */
    const mgs_time *uncontended;   /* ... op's time alone ([nops] or NULL) */
    mgs_time *op_time;             /* out: mean time of each op ([nops] or
                                      NULL), copies with their maintenance */
} mgs_timing_task;
typedef struct mgs_timing_task_result {
    uint64_t iterations;           /* completed within the window */
    uint64_t milli_iterations;     /* x1000, plus the part of the iteration
                                      in progress at the window's end that
                                      lay inside it */
    uint64_t verify_failures;
    uint64_t copies, qos_copies, deadline_misses;
    mgs_time copy_time;            /* summed over the copies */
    uint64_t workgroups, wavefronts, wf_insts;  /* of its launches */
} mgs_timing_task_result;
int mgs_timing_replay(mgs_timing *t, const mgs_timing_task *tasks, uint32_t n,
                      mgs_time window, mgs_timing_task_result *res);
/* Of the last successful mgs_timing_replay's span, the simulated time
** during which at least one of its launches ran (ps; copies overlapping
** them included, copies alone not). */
mgs_time mgs_timing_replay_launch_time(const mgs_timing *t);
/* After replayed launches: the protocol's peer release on every GPU model
** (as mgs_timing_sync after launches on several GPUs). */
int mgs_timing_peer_release(mgs_timing *t);
/* The PCIe scheduler's counters: TC-to-VC remaps and QoS promotions. */
void mgs_timing_pcie_counts(const mgs_timing *t, uint64_t *remaps,
                            uint64_t *promotions);

/* Simulated time so far, ps. */
mgs_time mgs_timing_now(const mgs_timing *t);
sim_engine *mgs_timing_engine(mgs_timing *t);
/* The timing engine of a runtime (NULL before its first timing launch);
** for benchmarks that read the parallel engine's counters. */
struct mgs_rt;
sim_engine *mgs_rt_timing_engine(struct mgs_rt *rt);

#endif
