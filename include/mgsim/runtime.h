/*
** mgsim runtime API: what a host program (a workload, or the HIP runtime
** library) uses to drive a simulated multi-GPU platform.
**
** Addresses returned by mgs_malloc are simulated device virtual addresses
** (uint64_t), never host pointers. All functions return MGS_OK or a negative
** MGS_E* code with a one-line message (include/mgsim/errors.h).
**
** Ownership: mgs_rt_new allocates the runtime; mgs_rt_free releases it and
** everything loaded or allocated through it.
*/
#ifndef MGSIM_RUNTIME_H
#define MGSIM_RUNTIME_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct mgs_rt mgs_rt;
typedef struct mgs_module mgs_module;   /* a loaded code object */
typedef struct mgs_kernel mgs_kernel;   /* a kernel inside a module */
typedef uint64_t mgs_dptr;              /* simulated device address */

typedef enum mgs_mode { MGS_MODE_EMU = 0, MGS_MODE_TIMING = 1 } mgs_mode;

typedef struct mgs_rt_options {
    mgs_mode mode;
    int num_gpus;                /* >= 1 */
    uint64_t mem_per_gpu;        /* bytes of device memory per GPU */
    const char *platform;        /* "discrete", "unified", ... (NULL: discrete) */
    const struct mgs_config *config; /* effective configuration (may be NULL) */
    struct stat_registry *stats; /* where statistics go (may be NULL) */
    /* memory.spill_choice = coldest: bytes accessed per application page
    ** by a profile pass of the same workload (mgs_rt_heat), spill_heat_pages
    ** of them (borrowed for mgs_rt_new); record_heat: count them in this
    ** run (docs/memory-management.md "Host frames"). */
    const uint64_t *spill_heat;
    uint64_t spill_heat_pages;
    bool record_heat;
    int zero_copy;               /* the program may use zero-copy memory
                                    (libmgsim-hip): host frames are wired
                                    where memory.zero_copy allows */
} mgs_rt_options;

/* Fills defaults: emu, 1 GPU, 4 GiB per GPU, discrete. */
void mgs_rt_options_default(mgs_rt_options *o);
int mgs_rt_new(const mgs_rt_options *o, mgs_rt **out);
/* Checks before building anything (the CLI calls it before the results
** database is opened): the device footprint fits the platform's memory
** (MGS_ENOMEM), a timing platform's configuration validates (MGS_ECONFIG
** naming the keys), and the estimated host memory (model structures plus
** about 4x device_bytes) fits sim.host_memory_limit (MGS_ECONFIG). */
int mgs_rt_check(const mgs_rt_options *o, uint64_t device_bytes);
void mgs_rt_free(mgs_rt *rt);
int mgs_rt_num_gpus(const mgs_rt *rt);
/* With record_heat: bytes the GPUs accessed per application page so far
** (*pages of them, valid until the runtime changes); NULL otherwise. */
const uint64_t *mgs_rt_heat(const mgs_rt *rt, uint64_t *pages);
/* Compute units per GPU of the configuration (gpu.num_cus; the keys.def
** default without a configuration). */
int mgs_rt_num_cus(const mgs_rt *rt);

/* Memory. gpu >= 0 places the whole buffer on that GPU; MGS_GPU_ALL
** distributes it across GPUs by platform.placement (default: contiguous
** chunks, chunk i on GPU i; interleaved: page i on GPU i mod N). */
#define MGS_GPU_ALL (-1)
int mgs_malloc(mgs_rt *rt, int gpu, size_t size, mgs_dptr *out);
/* Managed memory, for every GPU (docs/memory-management.md). With
** memory.management = migrate (timing mode) its pages start on the host,
** mapped in no GPU's page table, and each moves to the first GPU that
** touches it, then to whichever GPU faults on it next; otherwise it is
** mgs_malloc(rt, MGS_GPU_ALL, ...). */
int mgs_malloc_managed(mgs_rt *rt, size_t size, mgs_dptr *out);
/* Zero-copy memory (libmgsim-hip's hipHostMalloc): with host frames wired
** for it (mgs_rt_options.zero_copy, memory.zero_copy = host_link, a timing
** platform that supports it) every page lives in host memory and kernels
** reach it over the host link (*host_link = 1); otherwise as mgs_malloc
** (*host_link = 0). */
int mgs_malloc_host(mgs_rt *rt, int gpu, size_t size, mgs_dptr *out,
                    int *host_link);
int mgs_free(mgs_rt *rt, mgs_dptr p);
int mgs_memcpy_h2d(mgs_rt *rt, mgs_dptr dst, const void *src, size_t n);
int mgs_memcpy_d2h(mgs_rt *rt, void *dst, mgs_dptr src, size_t n);
int mgs_memcpy_d2d(mgs_rt *rt, mgs_dptr dst, mgs_dptr src, size_t n);
/* The same copies with no simulated time, whatever platform.copy_timing
** says (as instant copies): a study's input preparation and result
** readback outside what it measures (the GPS workloads, docs/gps.md). */
int mgs_memcpy_h2d_untimed(mgs_rt *rt, mgs_dptr dst, const void *src,
                           size_t n);
int mgs_memcpy_d2h_untimed(mgs_rt *rt, void *dst, mgs_dptr src, size_t n);
int mgs_memset(mgs_rt *rt, mgs_dptr dst, int value, size_t n);

/* Code objects: a .hsaco file (ELF or clang offload bundle). */
int mgs_module_load(mgs_rt *rt, const char *path, mgs_module **out);
int mgs_module_load_mem(mgs_rt *rt, const void *data, size_t size,
                        const char *what, mgs_module **out);
int mgs_module_kernel(mgs_module *m, const char *name, mgs_kernel **out);
/* A global variable of the module (__device__, __constant__, any object
** symbol of the code object) as placed on GPU gpu (MGS_GPU_ALL: the copy
** a launch over every GPU uses): its device address and size. Each GPU
** gets its own copy of the code object's data segments, placed on the
** first launch there or the first call here (docs/codeobj.md). MGS_ENOENT
** if there is no such symbol. */
int mgs_module_global(mgs_module *m, int gpu, const char *name,
                      mgs_dptr *addr, size_t *size);

/* Kernel launch. args is the packed explicit-argument block laid out as the
** kernel's metadata says (mgs_kernel_arg_offset helps); the runtime appends
** the hidden arguments. grid = number of work-items per dimension.
** gpu >= 0 launches on one GPU; MGS_GPU_ALL spreads work-groups over all
** GPUs (unified platform). Launches are synchronous in emu mode. */
typedef struct mgs_launch {
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t dynamic_lds;        /* bytes of dynamic LDS */
    const void *args;
    size_t args_size;
    int gpu;
    /* Timing mode with DMA copies: a stream other than 0 queues the launch
    ** on (gpu, stream) like an asynchronous copy (see mgs_memcpy_h2d_stream
    ** below); 0 is the default stream. */
    uint32_t stream;
} mgs_launch;
int mgs_launch_kernel(mgs_rt *rt, mgs_kernel *k, const mgs_launch *l);
int mgs_kernel_arg_count(const mgs_kernel *k);
/* Work-groups of block_items work-items (plus dynamic_lds bytes of dynamic
** LDS each) that one CU of the configured GPU holds at once, as the timing
** model places them (wave slots, VGPRs and SGPRs per SIMD, LDS per CU);
** 0 if none fits. MGS_EINVAL for a work-group size the kernel cannot run. */
int mgs_kernel_occupancy(const mgs_rt *rt, const mgs_kernel *k,
                         uint32_t block_items, uint32_t dynamic_lds,
                         uint32_t *groups_per_cu);
/* Offset and size of explicit argument i; MGS_EINVAL if out of range. */
int mgs_kernel_arg_offset(const mgs_kernel *k, int i, uint32_t *offset,
                          uint32_t *size);
/* Waits for all outstanding work (a no-op in emu mode). */
int mgs_synchronize(mgs_rt *rt);

/* Totals since mgs_rt_new. */
typedef struct mgs_rt_totals {
    uint64_t kernels;
    uint64_t workgroups;
    uint64_t wavefronts;
    uint64_t wf_insts;           /* wavefront instructions executed */
    uint64_t sim_time_ps;        /* simulated time of the kernels (timing
                                    mode): launch to completion, release
                                    included, on any stream; copies NOT
                                    included, except a stream's copy while
                                    another stream's kernel runs */
    uint64_t copy_time_ps;       /* simulated time of the copies (timing
                                    mode, platform.copy_timing = dma; 0
                                    otherwise). The run's total simulated
                                    time is sim_time_ps + copy_time_ps */
    uint64_t copies;             /* h2d, d2h and d2d copies (every mode) */
    uint64_t copy_bytes;         /* bytes they moved */
} mgs_rt_totals;
void mgs_rt_totals_get(const mgs_rt *rt, mgs_rt_totals *t);

/* Work-groups executed on one GPU since mgs_rt_new (0 for a bad index). */
uint64_t mgs_rt_gpu_workgroups(const mgs_rt *rt, int gpu);
/* Device-memory pages (frames of gpu.page_size bytes) in use on one GPU,
** and 4 KiB host blocks backing touched bytes across all GPUs. */
uint64_t mgs_rt_gpu_used_pages(const mgs_rt *rt, int gpu);
uint64_t mgs_rt_backed_pages(const mgs_rt *rt);
/* GPU holding the page of device address p (the host's page table), or -1
** if unmapped. */
int mgs_rt_gpu_of(mgs_rt *rt, mgs_dptr p);
/* Page size of device memory (gpu.page_size; 4 KiB without a config). */
uint64_t mgs_rt_page_size(const mgs_rt *rt);

/* Physical-memory operations for migration and replication studies
** (docs/runtime.md; src/runtime/devmem.h). Each first waits for the work
** in flight, then changes mappings only: the caller must make sure no cache
** holds lines of the page (a runtime copy leaves none) - the next launch
** invalidates the TLBs.
**   move:      the page of p gets a new frame on gpu, with a copy of its
**              bytes when copy is non-zero (without, it reads zeros); every
**              page table that mapped the old frame maps the new one.
**   replicate: a new frame on frame_gpu with a copy of the page, mapped in
**              the page tables of the GPUs in gpu_mask (bit g = GPU g);
**              host copies keep using the original frame.
**   unmap:     GPU gpu's page table no longer maps the page (its accesses
**              fault). */
int mgs_rt_page_move(mgs_rt *rt, mgs_dptr p, int gpu, int copy);
int mgs_rt_page_replicate(mgs_rt *rt, mgs_dptr p, int frame_gpu,
                          uint32_t gpu_mask);
int mgs_rt_page_unmap(mgs_rt *rt, int gpu, mgs_dptr p);

/* ---- Locality API (seed 002 §5.3.1-5.3.2; docs/runtime.md) -----------
** On a unified runtime (platform type "unified") the program sees one GPU
** (the UGPU) made of num_gpus member GPUs (the IGPUs); a plain launch with
** MGS_GPU_ALL spreads the grid over them. The Locality API lets the
** program put data and work-groups on a chosen member, so that each
** member works on local memory. Every call returns MGS_EINVAL with one
** line for a runtime that is not unified (discrete, monolithic, shared)
** or a member that does not exist. Works in emu and timing mode.
**
** Discovery: mgs_rt_is_unified, and the number of members (>= 1) from
** mgs_rt_unified_members (or a negative MGS_E* code). Member g owns the
** physical addresses [mem_base, mem_base + mem_bytes) (g * mem_per_gpu,
** docs/platforms.md): its accesses there stay on the GPU, any other
** address crosses the inter-GPU network. */
typedef struct mgs_rt_member {
    int gpu;                     /* member index, 0 .. members - 1 */
    uint64_t mem_base;           /* first physical byte of its memory */
    uint64_t mem_bytes;          /* capacity of its memory */
    uint64_t mem_used;           /* bytes of frames in use there */
    int num_cus;                 /* compute units */
} mgs_rt_member;
bool mgs_rt_is_unified(const mgs_rt *rt);
int mgs_rt_unified_members(const mgs_rt *rt);
int mgs_rt_member_info(const mgs_rt *rt, int gpu, mgs_rt_member *out);

/* Memory placement: the pages of [p, p + n) get frames on member gpu,
** with their bytes copied; every page table follows (the driver's page
** table update of §5.3.2), and the cached lines of the old frames are
** written back first. Whole pages only: p and n multiples of
** mgs_rt_page_size (MGS_EINVAL naming the page size otherwise), every page
** inside live allocations (MGS_EFAULT). Pages already there stay. Waits
** for the launches in flight; the next launch invalidates the TLBs. */
int mgs_rt_place(mgs_rt *rt, mgs_dptr p, size_t n, int gpu);

/* Compute placement: launch k on member l->gpu (>= 0) running only the
** listed work-groups of l's grid: linear ids, x fastest (id = x + nx * (y +
** ny * z) with nx, ny the work-groups per dimension), in list order. The
** kernel sees the real ids and sizes of the whole grid. Launches on
** different members overlap like discrete launches
** (platform.concurrent_launches); each work-group of the grid must run
** exactly once over a set of such launches, or the result is wrong: the
** runtime does not check it. MGS_EINVAL: an empty list, an id outside the
** grid, a grid of more than 2^32 work-groups. The list is copied. */
int mgs_launch_kernel_wgs(mgs_rt *rt, mgs_kernel *k, const mgs_launch *l,
                          const uint32_t *wgs, size_t nwgs);
/* The same with a predicate the runtime evaluates for every work-group of
** the grid: those for which pred(id, l->gpu, user) is true run on l->gpu.
** A predicate that selects nothing launches nothing (MGS_OK). */
typedef bool (*mgs_wg_pred)(uint32_t wg_id, int gpu, void *user);
int mgs_launch_kernel_pred(mgs_rt *rt, mgs_kernel *k, const mgs_launch *l,
                           mgs_wg_pred pred, void *user);
/* Splitting helper: the ids of l's grid for which pred(id, gpu, user) is
** true, in increasing order, in a new array (*wgs, free() it; NULL when
** *nwgs is 0). MGS_EINVAL for a grid of more than 2^32 work-groups. */
int mgs_wg_select(const mgs_launch *l, int gpu, mgs_wg_pred pred, void *user,
                  uint32_t **wgs, size_t *nwgs);

/* The kernel's symbol name. */
const char *mgs_kernel_name(const mgs_kernel *k);

/* Called after every successful launch, before mgs_launch_kernel returns:
** tracing, and fault injection in tests (e.g. corrupting an output buffer
** to check that verification catches it). NULL removes the hook. */
typedef void (*mgs_launch_hook)(mgs_rt *rt, const mgs_kernel *k,
                                const mgs_launch *l, void *user);
void mgs_rt_set_launch_hook(mgs_rt *rt, mgs_launch_hook fn, void *user);

/* Live progress while the timing model runs (kernels and timed copies):
** fn is called about every interval_s seconds of wall time from inside
** the simulation. It only observes; the statistics do not depend on it.
** (Emu mode has no engine and never calls it.) NULL removes the hook. */
typedef struct mgs_rt_progress {
    uint64_t sim_time_ps;        /* simulated time so far (kernels + copies) */
    uint64_t wf_insts;           /* wavefront instructions so far (timed) */
    uint64_t kernels;            /* launches completed */
    uint64_t wgs_done, wgs_started, wgs_total; /* of the launch(es) in
                                    flight (started: sent to CUs); 0: none */
    uint64_t copy_cmds_done, copy_cmds_total; /* of the copy in flight */
} mgs_rt_progress;
typedef void (*mgs_progress_hook)(mgs_rt *rt, const mgs_rt_progress *p,
                                  void *user);
void mgs_rt_set_progress_hook(mgs_rt *rt, mgs_progress_hook fn, void *user,
                              double interval_s);

/* Chrome trace-event file of the timing run (kernels, work-groups per CU,
** copies; memory transactions with mem): see src/runtime/trace.h. Open it
** before the first launch; mgs_rt_trace_close writes the end of the file
** (mgs_rt_free closes it too) and reports the events recorded and those
** dropped past max_events. MGS_EIO if the file cannot be written. */
typedef struct mgs_rt_trace_options {
    bool mem;                  /* memory transactions too */
    uint64_t addr_lo, addr_hi; /* mem: only [lo, hi); hi == 0: all */
    const char *component;     /* mem: only components whose name has this */
    uint64_t max_events;       /* 0: 1000000 */
} mgs_rt_trace_options;
int mgs_rt_trace_open(mgs_rt *rt, const char *path,
                      const mgs_rt_trace_options *o);
int mgs_rt_trace_close(mgs_rt *rt, uint64_t *recorded, uint64_t *dropped);

/* ---- Recorded programs and the two-tenant harness ------------------
** (seed 002 §4.3.5; docs/pcie-scheduling.md). Timing mode with
** platform.copy_timing = dma only.
** mgs_rt_record_begin(rt, gpu): from now on the host program's GPU k is
** GPU gpu + k (mgs_malloc and launches), frees keep their memory, and
** every timed copy and launch is also recorded, until mgs_rt_record_end
** hands the program over (the caller frees it with mgs_program_free).
** mgs_rt_tenants runs the n programs (each on its own GPU) as tenants:
** each one alone for window_ps of simulated time, then all at once for
** window_ps, every program relaunched (copies, kernels, copies) until the
** window is over; every iteration's output is compared with the recorded
** run's. Task qos (or -1: none) is the QoS task under pcie.arbitration =
** qos: its copies' deadline is pcie.qos_deadline_factor times their time
** alone. Statistics "Tenants.Task[i]": milli_iterations (alone: solo_),
** verify_failures, copies, deadline_misses; "Tenants": remaps,
** promotions. MGS_EVERIFY if an iteration's output differed. */
typedef struct mgs_program mgs_program;
int mgs_rt_record_begin(mgs_rt *rt, int gpu);
int mgs_rt_record_end(mgs_rt *rt, mgs_program **out);
void mgs_program_free(mgs_program *p);
uint64_t mgs_program_copy_bytes(const mgs_program *p);
typedef struct mgs_tenant_result {
    uint64_t solo_milli_iterations;  /* x1000, alone in the window */
    uint64_t milli_iterations;       /* x1000, together */
    uint64_t verify_failures;
    uint64_t copies, qos_copies, deadline_misses;
} mgs_tenant_result;
int mgs_rt_tenants(mgs_rt *rt, mgs_program *const *progs, int n, int qos,
                   uint64_t window_ps, mgs_tenant_result *res);

/* Asynchronous copies (timing mode, platform.copy_timing = dma): the copy
** is queued on stream 0 of its GPU and runs at the next synchronisation
** (mgs_synchronize, a synchronous copy, a free, ...) together with the
** other queues and with the launches made after it (queued behind it on
** stream 0 of their GPU), so copies and kernels of different GPUs overlap
** in simulated time and each stream keeps its order. src (h2d) must stay valid and dst (d2h)
** is written only by then. A copy whose device range is not on one GPU,
** and every copy in emu mode or with instant copies, is synchronous. */
/* ---- GPS: publish-subscribe replication (seed 003; docs/gps.md) -------
** mgs_malloc_gps allocates in the GPS address space. In timing mode with
** coherence.protocol = gps and several GPUs every GPU gets its own replica
** of every page (separate frames) and subscribes: its loads read its
** replica, its stores are published to the other subscribers' (the remote
** write queue, drained by kernel end and fences). Elsewhere (emu mode,
** another protocol, one GPU) it is an ordinary allocation spread over the
** GPUs: the same results, one copy. flags: MGS_GPS_MANUAL keeps the
** allocation out of the profiling window (subscriptions by hand).
** mgs_gps_subscribe / _unsubscribe: GPU gpu (un)subscribes the pages
** overlapping [p, p + n) (MGS_EINVAL for the last subscriber of a page, or
** a range outside GPS allocations). mgs_gps_tracking_start / _stop open and
** close the profiling window (seed 003 §4): at stop, each automatic page
** keeps the GPUs that accessed it during the window (a page none accessed:
** the GPU its allocation placed it on). All of them wait for the launches
** in flight and are no-ops where GPS is an ordinary allocation. */
#define MGS_GPS_AUTO 0
#define MGS_GPS_MANUAL 1
int mgs_malloc_gps(mgs_rt *rt, size_t size, int flags, mgs_dptr *out);
int mgs_gps_subscribe(mgs_rt *rt, mgs_dptr p, size_t n, int gpu);
int mgs_gps_unsubscribe(mgs_rt *rt, mgs_dptr p, size_t n, int gpu);
int mgs_gps_tracking_start(mgs_rt *rt);
int mgs_gps_tracking_stop(mgs_rt *rt);
/* Makes the pages of [p, p + n) (inside live allocations) GPS pages as
** mgs_malloc_gps would have made them (the HIP hint, include/mgsim/
** hip_gps.h); pages already GPS stay as they are. */
int mgs_gps_adopt(mgs_rt *rt, mgs_dptr p, size_t n, int flags);
/* Whether GPS allocations are replicated in this runtime (above). */
bool mgs_gps_active(mgs_rt *rt);
/* Verification: reads [src, src + n) as GPU gpu's page table maps it (for
** a GPS page its own replica, or the subscriber it reads remotely), after
** waiting for the launches in flight; no simulated time. */
int mgs_gps_read_replica(mgs_rt *rt, int gpu, void *dst, mgs_dptr src,
                         size_t n);

int mgs_memcpy_h2d_async(mgs_rt *rt, mgs_dptr dst, const void *src, size_t n);
int mgs_memcpy_d2h_async(mgs_rt *rt, void *dst, mgs_dptr src, size_t n);
/* Streams (docs/runtime.md, "Streams and asynchronous copies"): the
** _async copies and launches above go to stream 0 of their GPU; these
** copies, and launches with
** mgs_launch.stream != 0, to that stream of the GPU. Each (GPU, stream)
** is one queue run in order; at the next synchronisation all queues run
** at once, so a copy on one stream overlaps a kernel (the GPU's command
** processor runs one kernel at a time) or a copy (the GPU's DMA engine
** serves both) on another stream of the same GPU. Work on stream 0 and on
** another stream of the same GPU never overlaps: queuing one behind the
** other's queued work synchronises first. Order across streams is the
** program's business, as in HIP. */
int mgs_memcpy_h2d_stream(mgs_rt *rt, uint32_t stream, mgs_dptr dst,
                          const void *src, size_t n);
int mgs_memcpy_d2h_stream(mgs_rt *rt, uint32_t stream, void *dst,
                          mgs_dptr src, size_t n);

#endif
