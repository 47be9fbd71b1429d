/*
** The runtime (include/mgsim/runtime.h): device memory of N GPUs, code
** objects, kernel launch, totals.
**
** A launch builds, in device memory of the launching GPU (GPU 0 for
** MGS_GPU_ALL), what a real dispatch gives the kernel:
**   - the kernarg segment: the caller's explicit arguments, then zeros for
**     the hidden arguments (global offsets are 0, and nothing else -
**     printf buffer, default queue, completion action - is modelled);
**   - an hsa_kernel_dispatch_packet_t (sizes, kernarg address);
**   - an amd_queue_t whose group/private aperture fields tell compiled
**     code how to form flat LDS/scratch pointers (emu.h apertures);
**   - scratch for one work-group's waves when the kernel needs it.
** Then work-groups run one at a time in linear order (x fastest) on the
** functional executor (src/gcn3/emu.c); launches are synchronous. With
** MGS_GPU_ALL, work-group i of n is accounted to GPU i * gpus / n
** (contiguous chunks, as a unified multi-GPU dispatcher would hand out)
** and its accesses translate with that GPU's page table (a launch on GPU g:
** g's table; copies and memset: the host's).
** Timing mode (MGS_MODE_TIMING) hands the same prepared dispatch to the
** platform model instead (runtime/timing.h, platform/platform.h: N GPUs
** of opt.platform's type): built lazily on the first timing launch, once
** per runtime; the components' statistics go to opt.stats. Timing-mode
** launches can be asynchronous: a launch is posted to its GPU(s) and the
** model runs at the next synchronisation (mgs_synchronize, any copy,
** memset or free, or a launch to a GPU that is still busy), so launches on
** different GPUs overlap; totals.sim_time_ps grows at each
** synchronisation and the dispatch buffers are kept until then. Unless
** platform.concurrent_launches is set, a launch synchronises at once (the
** semantics the workloads are written for).
**
** Copies (h2d, d2h, d2d) in timing mode with platform.copy_timing = dma
** (the default) are simulated: the platform model is built before the
** first copy if no launch built it yet, and mgs_timing_copy (timing.h)
** moves the bytes with the GPUs' DMA engines over PCIe / RDMA; their time
** adds to totals.copy_time_ps, kept apart from the kernels' sim_time_ps.
** Queued work of several streams (async_flush) runs overlapped: the part
** of its span during which a kernel ran counts as kernel time, the rest
** as copy time.
** An overlapping d2d (memmove) bounces through a host buffer, 64 KiB at a
** time, as a d2h then an h2d. memset stays instant in every mode (it acts
** on the backing store between operations, when no cache holds data - a
** documented simplification: a real runtime runs a fill kernel or a DMA
** fill). With copy_timing = instant, or in emu mode, copies act on the
** backing store directly and take no simulated time; so do host copies
** (h2d, d2h) on the shared platform, where the CPU shares the GPUs' memory
** (seed 000 §5, host_copies_timed).
**
** Kernels are pre-decoded once, when mgs_module_kernel first returns them.
** Ownership: the runtime owns modules; a module owns its kernels.
*/
#include "mgsim/runtime.h"

#include "coh/gps/gps.h"
#include "config/config.h"
#include "gcn3/codeobj.h"
#include "gcn3/emu.h"
#include "gcn3/exec_mem_plan.h"
#include "gpu/cu.h"
#include "mgsim/errors.h"
#include "platform/gpu_build.h"
#include "platform/host_frames.h"
#include "runtime/devmem.h"
#include "runtime/hostcall.h"
#include "runtime/record.h"
#include "runtime/timing.h"
#include "util/interrupt.h"
#include "runtime/trace.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mgs_kernel {
    const gcn_kernel *k;        /* owned by the module's code object */
    gcn_emu_program prog;
    mgs_module *module;
    uint32_t explicit_size;     /* end of the last explicit argument */
    int nexplicit;
};

struct mgs_module {
    gcn_codeobj *co;            /* owned */
    mgs_rt *rt;
    mgs_dptr *image;            /* per GPU: the loaded image (0: not yet);
                                   freed with the device memory */
    mgs_kernel **kernels;       /* one slot per code-object kernel, lazy */
    size_t nkernels;
    mgs_module *next;
};

/* Device buffers of one dispatch, freed together. */
typedef struct launch_bufs {
    mgs_dptr kernarg, packet, queue, scratch;
    uint32_t *wgs;              /* a Locality API launch's list (owned) */
    gcn_past_end *past_end;     /* the first access past an allocation's
                                   end, warned about when the launch ends
                                   (owned; NULL: not looked for) */
    char *kernel;               /* its kernel's name (owned) */
    uint64_t code_vaddr;        /* its kernel's code address */
} launch_bufs;

struct mgs_rt {
    mgs_rt_options opt;
    mgs_devmem mem;
    mgs_devmem_view view;       /* emu mode: the running GPU's table */
    mgs_module *modules;
    mgs_rt_totals totals;
    uint64_t *gpu_wgs;          /* per-GPU work-group counts */
    uint64_t next_dispatch_id;
    mgs_launch_hook hook;
    void *hook_user;
    mgs_progress_hook progress;  /* live progress (timing engine) */
    void *progress_user;
    double progress_interval_s;
    sim_trace *trace;            /* --trace, may be NULL */
    mgs_timing *timing;         /* timing mode: built on first launch */
    /* Timing mode: buffers of launches posted and not yet synchronised
    ** (they must outlive the dispatch). */
    struct launch_bufs *pending;
    size_t npending, pending_cap;
    /* mgs_rt_record_begin: the program being recorded (record.h) and the
    ** GPU its GPU 0 is. */
    mgs_program *rec;
    /* Asynchronous copies (mgs_memcpy_*_async, _stream) and the launches
    ** queued behind them: one queue per (GPU, stream) in creation order,
    ** all run concurrently at the next synchronisation (async_flush). */
    struct async_queue *async;
    size_t nasync, async_cap;
    bool any_async;
    /* The hostcall buffer of kernels that may call device printf (made at
    ** the first such launch, hostcall.h; timing mode's listener is
    ** timing.c's). */
    mgs_hostcall *hostcall;
};

/* One queue of asynchronous work: a GPU's stream. */
struct async_queue {
    int gpu;
    uint32_t stream;
    mgs_program *prog;
};

/* Timing mode: waits for every posted launch (no-op otherwise). */
static int timing_sync(mgs_rt *rt);
/* GPS: the host wrote [va, va + n); other replicas follow (no-op without
** GPS pages there). */
static int gps_host_wrote(mgs_rt *rt, mgs_dptr va, size_t n, int rc);
/* Timing mode: builds the platform model if it does not exist yet. */
static int timing_ensure(mgs_rt *rt);

/* Whether copies go through the DMA engines (timing, copy_timing = dma). */
static bool copies_timed(const mgs_rt *rt)
{
    return rt->opt.mode == MGS_MODE_TIMING &&
           (!rt->opt.config ||
            strcmp(rt->opt.config->platform_copy_timing, "instant"));
}

/* The platform type the runtime was made for. */
static const char *platform_name(const mgs_rt *rt)
{
    return rt->opt.platform ? rt->opt.platform
           : rt->opt.config ? rt->opt.config->platform_type
                            : "discrete";
}

/* Whether host copies (h2d, d2h) cross a host link. Not on shared
** (MGPU-SM): the CPU and the GPUs share the same memory (seed 000 §5), so
** a host copy is a hand-off that costs no simulated time
** (docs/platforms.md, "Host copies"). */
static bool host_copies_timed(const mgs_rt *rt)
{
    return copies_timed(rt) && strcmp(platform_name(rt), "shared") != 0;
}

void mgs_rt_options_default(mgs_rt_options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = MGS_MODE_EMU;
    o->num_gpus = 1;
    o->mem_per_gpu = 4ull << 30;
    o->platform = NULL;
}

/* ---- up-front checks -------------------------------------------------- */

/* Whether host frames are wired for zero-copy memory (host_frames.h). */
static bool zero_copy_wired(const mgs_rt_options *o)
{
    return o->zero_copy &&
           host_frames_zero_copy(o->config, o->platform, o->num_gpus,
                                 o->mode == MGS_MODE_TIMING);
}

/* The platform the options describe (timing mode). */
static int platform_of(const mgs_rt_options *o, platform_config *pc)
{
    platform_config_default(pc);
    if (o->config)
        platform_config_from(pc, o->config);
    pc->ngpus = (uint32_t)o->num_gpus;
    if (o->platform) {
        int type = platform_type_parse(o->platform);
        if (type < 0)
            return mgs_error_set(MGS_ECONFIG, "unknown platform '%s'",
                                 o->platform);
        pc->type = (platform_type)type;
    }
    if (zero_copy_wired(o))
        pc->host_frames = true;
    return MGS_OK;
}

/* Host bytes of one cache of `size` bytes: data plus about 16 bytes of tag,
** state and replacement per line. */
static uint64_t cache_host_bytes(uint64_t size, uint32_t line)
{
    return size + (line ? size / line * 16 : 0);
}

/* Host memory the timing model's structures take, estimated from the
** configuration (the largest terms: caches, TLBs, per-wave register files;
** about 48 bytes per TLB entry, 16 KB of register file per wave slot, the
** vector registers of a typical kernel), plus a fixed 64 MB. */
static uint64_t model_host_bytes(const platform_config *pc)
{
    const gpu_build_config *g = &pc->gpu;
    uint64_t cus = g->num_cus, sas = g->cus_per_sa ? cus / g->cus_per_sa : 1;
    uint64_t b = cus * cache_host_bytes(g->l1v.size, g->l1v.line) +
                 sas * (cache_host_bytes(g->l1s.size, g->l1s.line) +
                        cache_host_bytes(g->l1i.size, g->l1i.line)) +
                 (uint64_t)g->l2_banks * cache_host_bytes(g->l2.size,
                                                          g->l2.line);
    uint64_t tlb_entries = (cus + 2 * sas) * (uint64_t)g->l1_tlb.sets *
                               g->l1_tlb.ways +
                           (uint64_t)g->l2_tlbs * g->l2_tlb.sets *
                               g->l2_tlb.ways;
    b += tlb_entries * 48;
    b += cus * g->cu.num_simds * g->cu.wf_slots_per_simd * 16384ull;
    return b * pc->ngpus + (64ull << 20);
}

/* The budget: sim.host_memory_limit, or (0) 80 % of physical memory. */
static uint64_t host_budget(const struct mgs_config *cfg)
{
    if (cfg && cfg->sim_host_memory_limit)
        return cfg->sim_host_memory_limit;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psize <= 0)
        return UINT64_MAX;      /* unknown: let the allocations decide */
    return (uint64_t)pages * (uint64_t)psize / 5 * 4;
}

int mgs_rt_check(const mgs_rt_options *o, uint64_t device_bytes)
{
    uint64_t have = (uint64_t)o->num_gpus * o->mem_per_gpu;
    if (device_bytes > have)
        return mgs_error_set(MGS_ENOMEM, "out of device memory: the "
                             "workload needs %llu MiB, the platform has "
                             "%llu MiB (platform.mem_per_gpu x %d GPU%s)",
                             (unsigned long long)(device_bytes >> 20),
                             (unsigned long long)(have >> 20), o->num_gpus,
                             o->num_gpus == 1 ? "" : "s");
    /* Inputs, result and CPU reference on the host (up to 3x the device
    ** footprint, wl_util.h) plus the device pages' backing. */
    uint64_t need = 4 * device_bytes, model = 0;
    if (o->mode == MGS_MODE_TIMING) {
        platform_config pc;
        int rc = platform_of(o, &pc);
        if (rc)
            return rc;
        pc.gpu.mem_bytes = o->mem_per_gpu;
        if ((rc = platform_config_validate(&pc)))
            return rc;
        model = model_host_bytes(&pc);
        need += model;
    }
    uint64_t budget = host_budget(o->config);
    if (need > budget)
        return mgs_error_set(MGS_ECONFIG, "host memory: this run needs about "
                             "%llu MiB (model structures %llu MiB, workload "
                             "data %llu MiB), over the budget of %llu MiB "
                             "(sim.host_memory_limit; 0 = 80%% of physical "
                             "memory)", (unsigned long long)(need >> 20),
                             (unsigned long long)(model >> 20),
                             (unsigned long long)((need - model) >> 20),
                             (unsigned long long)(budget >> 20));
    return MGS_OK;
}

int mgs_rt_new(const mgs_rt_options *o, mgs_rt **out)
{
    *out = NULL;
    mgs_rt_options def;
    if (!o) {
        mgs_rt_options_default(&def);
        o = &def;
    }
    if (o->mode != MGS_MODE_EMU && o->mode != MGS_MODE_TIMING)
        return mgs_error_set(MGS_EINVAL, "unknown runtime mode %d", o->mode);
    mgs_rt *rt = MGS_NEW(mgs_rt);
    rt->opt = *o;
    uint64_t page = o->config ? o->config->gpu_page_size
                              : MGS_DEVMEM_PAGE_SIZE;
    int rc = mgs_devmem_init_paged(&rt->mem, o->num_gpus, o->mem_per_gpu,
                                   page);
    if (rc) {
        free(rt);
        return rc;
    }
    /* CARVE: the remote data cache is carved out of every GPU's memory. */
    if (!rc && o->config && o->num_gpus > 1 &&
        !strncmp(o->config->coherence_protocol, "carve-", 6))
        rc = mgs_devmem_reserve_top(&rt->mem, o->config->carve_rdc_size);
    /* Host frames: memory.spill_ppm of the application's pages, and
    ** zero-copy memory. */
    if (!rc && host_frames_wanted(o->config) &&
        !(rc = host_frames_check(o->config, o->num_gpus,
                                 o->mode == MGS_MODE_TIMING)))
        rc = mgs_devmem_enable_host_frames(
            &rt->mem, (uint32_t)o->config->memory_spill_ppm);
    if (!rc && host_frames_wanted(o->config) &&
        !strcmp(o->config->memory_spill_choice, "coldest")) {
        if (o->spill_heat)
            mgs_devmem_spill_coldest(&rt->mem, o->spill_heat,
                                     o->spill_heat_pages);
        else
            rc = mgs_error_set(MGS_ECONFIG, "memory.spill_choice = coldest "
                               "needs a heat profile, which only `mgsim "
                               "run`, `sweep` and `study` make (an emu "
                               "pass of the workload first)");
    }
    if (!rc && o->record_heat)
        mgs_devmem_record_heat(&rt->mem);
    if (!rc && !host_frames_wanted(o->config) && zero_copy_wired(o))
        rc = mgs_devmem_enable_host_frames(&rt->mem, 0);
    if (rc) {
        mgs_devmem_destroy(&rt->mem);
        free(rt);
        return rc;
    }
    /* Contiguous chunks per GPU unless the configuration says otherwise
    ** (platform.placement). */
    rt->mem.placement = o->config && !strcmp(o->config->platform_placement,
                                             "interleaved")
                            ? MGS_PLACE_INTERLEAVED
                            : MGS_PLACE_CONTIGUOUS;
    if (o->config && !strcmp(o->config->platform_placement, "first_touch") &&
        !strcmp(o->config->memory_management, "none")) {
        mgs_devmem_destroy(&rt->mem);
        free(rt);
        return mgs_error_set(MGS_ECONFIG, "platform.placement = first_touch "
                             "needs memory.management = migrate, esi or "
                             "pasi");
    }
    rt->gpu_wgs = mgs_xcalloc((size_t)o->num_gpus, sizeof *rt->gpu_wgs);
    rt->next_dispatch_id = 1;
    *out = rt;
    return MGS_OK;
}

static void module_free(mgs_module *m)
{
    for (size_t i = 0; i < m->nkernels; i++)
        if (m->kernels[i]) {
            gcn_emu_program_destroy(&m->kernels[i]->prog);
            free(m->kernels[i]);
        }
    free(m->kernels);
    free(m->image);
    gcn_codeobj_free(m->co);
    free(m);
}

void mgs_rt_free(mgs_rt *rt)
{
    if (!rt)
        return;
    while (rt->modules) {
        mgs_module *m = rt->modules;
        rt->modules = m->next;
        module_free(m);
    }
    sim_trace_close(rt->trace, NULL, NULL);
    for (size_t i = 0; i < rt->nasync; i++)
        mgs_program_free(rt->async[i].prog);
    free(rt->async);
    mgs_timing_free(rt->timing);  /* before the devmem it borrows */
    mgs_hostcall_free(rt->hostcall);
    for (size_t i = 0; i < rt->npending; i++) {
        free(rt->pending[i].wgs);
        free(rt->pending[i].past_end);
        free(rt->pending[i].kernel);
    }
    free(rt->pending);            /* the ranges go with the devmem */
    mgs_devmem_destroy(&rt->mem);
    free(rt->gpu_wgs);
    free(rt);
}

const uint64_t *mgs_rt_heat(const mgs_rt *rt, uint64_t *pages)
{
    return mgs_devmem_heat(&rt->mem, pages);
}

int mgs_rt_num_gpus(const mgs_rt *rt)
{
    return rt->opt.num_gpus;
}

int mgs_rt_num_cus(const mgs_rt *rt)
{
    if (rt->opt.config)
        return (int)rt->opt.config->gpu_num_cus;
    mgs_config *dflt = MGS_NEW(mgs_config);
    mgs_config_defaults(dflt);
    int cus = (int)dflt->gpu_num_cus;
    free(dflt);
    return cus;
}

/* ---- memory ---- */

/* Which page tables map a program's new buffer (docs/memory-management.md):
** every table unless pages migrate (memory.management = migrate or esi,
** timing mode); then only the table of the GPU holding each page, or none for
** managed memory and first-touch placement (the first touch brings the
** page). The runtime's own buffers (code, kernel arguments, scratch) are
** always mapped everywhere. */
static mgs_devmem_mapping buffer_mapping(const mgs_rt *rt, int gpu,
                                         bool managed)
{
    const mgs_config *k = rt->opt.config;
    if (rt->opt.mode != MGS_MODE_TIMING || !k ||
        !strcmp(k->memory_management, "none"))
        return MGS_MAP_ALL;
    if (managed || (gpu == MGS_GPU_ALL &&
                    !strcmp(k->platform_placement, "first_touch")))
        return MGS_MAP_HOST_ONLY;
    return MGS_MAP_RESIDENT;
}

int mgs_malloc(mgs_rt *rt, int gpu, size_t size, mgs_dptr *out)
{
    if (gpu < MGS_GPU_ALL)
        return mgs_error_set(MGS_EINVAL, "malloc on GPU %d: no such GPU", gpu);
    if (rt->rec && gpu >= 0)
        gpu += rt->rec->gpu;
    mgs_devmem_mapping how = buffer_mapping(rt, gpu, false);
    int rc = mgs_devmem_alloc_app(&rt->mem, gpu, size, how, out);
    /* pasi: resident pages start as large pieces, one TLB entry each
    ** (docs/memory-management.md). */
    const mgs_config *k = rt->opt.config;
    if (!rc && how == MGS_MAP_RESIDENT &&
        !strcmp(k->memory_management, "pasi") &&
        k->memory_pasi_initial > rt->mem.page_size)
        mgs_devmem_tag_runs(&rt->mem, *out, size,
                            (unsigned)__builtin_ctzll(k->memory_pasi_initial /
                                                      rt->mem.page_size));
    return rc;
}

int mgs_malloc_host(mgs_rt *rt, int gpu, size_t size, mgs_dptr *out,
                    int *host_link)
{
    *host_link = 0;
    if (!zero_copy_wired(&rt->opt))
        return mgs_malloc(rt, gpu, size, out);
    if (gpu < MGS_GPU_ALL)
        return mgs_error_set(MGS_EINVAL, "malloc on GPU %d: no such GPU", gpu);
    int rc = mgs_devmem_alloc_host(&rt->mem, gpu, size, out);
    *host_link = !rc;
    return rc;
}

int mgs_malloc_managed(mgs_rt *rt, size_t size, mgs_dptr *out)
{
    return mgs_devmem_alloc_mapped(&rt->mem, MGS_GPU_ALL, size,
                                   buffer_mapping(rt, MGS_GPU_ALL, true),
                                   out);
}

/* Memory operations act on device memory (directly, or through the DMA
** engines for timed copies), so in timing mode they first wait for the
** launches in flight (a real runtime's copies on the default stream wait
** the same way). */

/* Timing mode: the caches give up (writing back, then dropping) the lines
** of device memory that is about to be written directly or freed, so no
** dirty line is written back over it later (src/coh/coh.h, host points).
** Nothing may be posted (the callers synchronise first). */
static int host_write_now(mgs_rt *rt, mgs_dptr va, size_t n)
{
    return rt->timing && n ? mgs_timing_host_write(rt->timing, va, n, true)
                           : MGS_OK;
}

/* Timing mode: before a direct read, the caches write back dirty lines of
** [va, va + n). Nothing may be posted. */
static int host_read_now(mgs_rt *rt, mgs_dptr va, size_t n)
{
    return rt->timing && n ? mgs_timing_host_read(rt->timing, va, n)
                           : MGS_OK;
}

/* Timing mode: a fresh allocation was written directly (launch buffers);
** stale lines of its physical pages are dropped at each GPU's next
** acquire. */
static int host_write_later(mgs_rt *rt, mgs_dptr va, size_t n)
{
    return rt->timing && n ? mgs_timing_host_write(rt->timing, va, n, false)
                           : MGS_OK;
}

static int free_range(mgs_rt *rt, mgs_dptr p)
{
    int rc = host_write_now(rt, p, mgs_devmem_alloc_size(&rt->mem, p));
    return rc ? rc : mgs_devmem_free_range(&rt->mem, p);
}

int mgs_free(mgs_rt *rt, mgs_dptr p)
{
    int rc = timing_sync(rt);
    if (rt->rec)
        return rc;            /* recording: the replays use it */
    return rc ? rc : free_range(rt, p);
}

/* One timed copy through the DMA engines (timing.h). */
static int timed_copy(mgs_rt *rt, mgs_timing_copy_kind kind, uint64_t dst,
                      uint64_t src, size_t n)
{
    int rc = timing_ensure(rt);
    if (rc)
        return rc;
    mgs_timing_copy_result r;
    rc = mgs_timing_copy(rt->timing, kind, dst, src, n, &r);
    rt->totals.copy_time_ps += r.time;
    if (rt->rec && !rc)
        mgs_program_add_copy(rt->rec, kind, dst, src, n);
    if (rt->trace && !rc) {
        static const char *names[] = {"copy h2d", "copy d2h", "copy d2d"};
        char args[64];
        snprintf(args, sizeof args, "\"bytes\": %zu", n);
        mgs_time end = mgs_timing_now(rt->timing);
        sim_trace_span(rt->trace, "copies", names[kind], end - r.time, end,
                       args);
    }
    return rc;
}

static void count_copy(mgs_rt *rt, size_t n)
{
    rt->totals.copies++;
    rt->totals.copy_bytes += n;
}

int mgs_memcpy_h2d(mgs_rt *rt, mgs_dptr dst, const void *src, size_t n)
{
    int rc = timing_sync(rt);
    if (rc)
        return rc;
    if (host_copies_timed(rt))
        rc = timed_copy(rt, MGS_TIMING_H2D, dst, (uint64_t)(uintptr_t)src, n);
    else if (!(rc = host_write_now(rt, dst, n)))
        rc = mgs_devmem_write(&rt->mem, dst, src, n);
    if (!rc)
        count_copy(rt, n);
    return gps_host_wrote(rt, dst, n, rc);
}

int mgs_memcpy_d2h(mgs_rt *rt, void *dst, mgs_dptr src, size_t n)
{
    int rc = timing_sync(rt);
    if (rc)
        return rc;
    if (host_copies_timed(rt))
        rc = timed_copy(rt, MGS_TIMING_D2H, (uint64_t)(uintptr_t)dst, src, n);
    else if (!(rc = host_read_now(rt, src, n)))
        rc = mgs_devmem_read(&rt->mem, src, dst, n);
    if (!rc)
        count_copy(rt, n);
    return rc;
}

int mgs_memcpy_h2d_untimed(mgs_rt *rt, mgs_dptr dst, const void *src,
                           size_t n)
{
    int rc = timing_sync(rt);
    if (!rc && !(rc = host_write_now(rt, dst, n)))
        rc = mgs_devmem_write(&rt->mem, dst, src, n);
    return gps_host_wrote(rt, dst, n, rc);
}

int mgs_memcpy_d2h_untimed(mgs_rt *rt, void *dst, mgs_dptr src, size_t n)
{
    int rc = timing_sync(rt);
    if (!rc && !(rc = host_read_now(rt, src, n)))
        rc = mgs_devmem_read(&rt->mem, src, dst, n);
    return rc;
}

/* d2d through a host bounce buffer (memmove order: never overwrites source
** bytes not yet read), each chunk a d2h then an h2d: timed through the DMA
** engines, or directly on the backing store. A copy never costs n bytes of
** host memory. */
static int bounce_copy(mgs_rt *rt, mgs_dptr dst, mgs_dptr src, size_t n,
                       bool timed)
{
    enum { BOUNCE = 64 * 1024 };
    uint8_t *buf = mgs_xmalloc(BOUNCE);
    bool backward = dst > src && dst < src + n;
    int rc = MGS_OK;
    for (size_t done = 0; done < n && !rc; ) {
        size_t chunk = n - done < BOUNCE ? n - done : BOUNCE;
        size_t at = backward ? n - done - chunk : done;
        uint64_t host = (uint64_t)(uintptr_t)buf;
        if (timed) {
            if (!(rc = timed_copy(rt, MGS_TIMING_D2H, host, src + at, chunk)))
                rc = timed_copy(rt, MGS_TIMING_H2D, dst + at, host, chunk);
        } else if (!(rc = host_read_now(rt, src + at, chunk)) &&
                   !(rc = mgs_devmem_read(&rt->mem, src + at, buf, chunk)) &&
                   !(rc = host_write_now(rt, dst + at, chunk))) {
            rc = mgs_devmem_write(&rt->mem, dst + at, buf, chunk);
        }
        done += chunk;
    }
    free(buf);
    return rc;
}

int mgs_memcpy_d2d(mgs_rt *rt, mgs_dptr dst, mgs_dptr src, size_t n)
{
    int rc = timing_sync(rt);
    if (rc)
        return rc;
    /* Validate both ends first so a failing copy writes nothing. */
    uint8_t probe;
    if (n && ((rc = mgs_devmem_read(&rt->mem, src + n - 1, &probe, 1)) ||
              (rc = mgs_devmem_read(&rt->mem, src, &probe, 1)) ||
              (rc = mgs_devmem_read(&rt->mem, dst + n - 1, &probe, 1)) ||
              (rc = mgs_devmem_read(&rt->mem, dst, &probe, 1))))
        return rc;
    bool overlap = dst < src + n && src < dst + n;
    bool timed = copies_timed(rt);
    rc = n && timed && !overlap
             ? timed_copy(rt, MGS_TIMING_D2D, dst, src, n)
             : bounce_copy(rt, dst, src, n, host_copies_timed(rt));
    if (!rc)
        count_copy(rt, n);
    return gps_host_wrote(rt, dst, n, rc);
}

int mgs_memset(mgs_rt *rt, mgs_dptr dst, int value, size_t n)
{
    int rc = timing_sync(rt);
    if (!rc)
        rc = host_write_now(rt, dst, n);
    if (!rc)
        rc = mgs_devmem_fill(&rt->mem, dst, (uint8_t)value, n);
    return gps_host_wrote(rt, dst, n, rc);
}

/* ---- modules and kernels ---- */

static int module_add(mgs_rt *rt, gcn_codeobj *co, mgs_module **out)
{
    mgs_module *m = MGS_NEW(mgs_module);
    m->co = co;
    m->rt = rt;
    m->image = mgs_xcalloc((size_t)rt->opt.num_gpus, sizeof *m->image);
    m->nkernels = gcn_codeobj_num_kernels(co);
    m->kernels = mgs_xcalloc(m->nkernels ? m->nkernels : 1,
                             sizeof *m->kernels);
    m->next = rt->modules;
    rt->modules = m;
    *out = m;
    return MGS_OK;
}

int mgs_module_load(mgs_rt *rt, const char *path, mgs_module **out)
{
    *out = NULL;
    gcn_codeobj *co = NULL;
    int rc = gcn_codeobj_load_file(path, &co);
    if (rc)
        return rc;
    return module_add(rt, co, out);
}

int mgs_module_load_mem(mgs_rt *rt, const void *data, size_t size,
                        const char *what, mgs_module **out)
{
    *out = NULL;
    gcn_codeobj *co = NULL;
    int rc = gcn_codeobj_load_mem(data, size, what, &co);
    if (rc)
        return rc;
    return module_add(rt, co, out);
}

/* The module's image on GPU gpu (MGS_GPU_ALL: GPU 0, where a launch over
** every GPU keeps its buffers), placed on first use: a fresh allocation
** with the relocations applied for its address. 0 when the code object
** has no loadable segment. */
static int module_image(mgs_module *m, int gpu, mgs_dptr *base)
{
    mgs_rt *rt = m->rt;
    int g = gpu >= 0 ? gpu : 0;
    *base = 0;
    uint64_t size = gcn_codeobj_image_size(m->co);
    if (!size || m->image[g]) {
        *base = m->image[g];
        return MGS_OK;
    }
    mgs_dptr d;
    int rc = mgs_devmem_alloc_range(&rt->mem, g, size, &d);
    if (rc)
        return rc;
    uint8_t *bytes = mgs_xmalloc(size);
    gcn_codeobj_image_place(m->co, d, bytes);
    rc = mgs_devmem_write(&rt->mem, d, bytes, size);
    free(bytes);
    if (rc == MGS_OK)
        rc = host_write_later(rt, d, size);
    if (rc) {
        mgs_devmem_free_range(&rt->mem, d);
        return rc;
    }
    m->image[g] = *base = d;
    return MGS_OK;
}

int mgs_module_global(mgs_module *m, int gpu, const char *name,
                      mgs_dptr *addr, size_t *size)
{
    *addr = 0;
    if (size)
        *size = 0;
    if (gpu >= m->rt->opt.num_gpus || (gpu < 0 && gpu != MGS_GPU_ALL))
        return mgs_error_set(MGS_EINVAL, "no GPU %d (the platform has %d)",
                             gpu, m->rt->opt.num_gpus);
    uint64_t vaddr, bytes;
    if (!name || !gcn_codeobj_global(m->co, name, &vaddr, &bytes))
        return mgs_error_set(MGS_ENOENT, "no global variable '%.80s' in the "
                             "code object", name ? name : "(null)");
    mgs_dptr base;
    int rc = module_image(m, gpu, &base);
    if (rc)
        return rc;
    *addr = base + vaddr;
    if (size)
        *size = (size_t)bytes;
    return MGS_OK;
}

int mgs_module_kernel(mgs_module *m, const char *name, mgs_kernel **out)
{
    *out = NULL;
    for (size_t i = 0; i < m->nkernels; i++) {
        const gcn_kernel *gk = gcn_codeobj_kernel(m->co, i);
        if (strcmp(gk->name, name))
            continue;
        if (!m->kernels[i]) {
            mgs_kernel *k = MGS_NEW(mgs_kernel);
            k->k = gk;
            k->module = m;
            /* Decode all of .text: kernels may call functions outside
            ** their own symbol. */
            uint64_t tvaddr = 0;
            size_t tsize = 0;
            const uint8_t *text = gcn_codeobj_text(m->co, &tvaddr, &tsize);
            int rc = text ? gcn_emu_program_init_range(&k->prog, gk, text,
                                                       tvaddr, tsize)
                          : gcn_emu_program_init(&k->prog, gk);
            if (rc) {
                free(k);
                return rc;
            }
            for (uint32_t a = 0; a < gk->nargs; a++) {
                if (gk->args[a].hidden)
                    continue;
                k->nexplicit++;
                uint32_t end = gk->args[a].offset + gk->args[a].size;
                if (end > k->explicit_size)
                    k->explicit_size = end;
            }
            m->kernels[i] = k;
        }
        *out = m->kernels[i];
        return MGS_OK;
    }
    return mgs_error_set(MGS_ENOENT, "no kernel named '%s' in the code object",
                         name);
}

const char *mgs_kernel_name(const mgs_kernel *k)
{
    return k->k->name;
}

int mgs_kernel_occupancy(const mgs_rt *rt, const mgs_kernel *k,
                         uint32_t block_items, uint32_t dynamic_lds,
                         uint32_t *groups_per_cu)
{
    *groups_per_cu = 0;
    const gcn_kernel *gk = k->k;
    uint32_t max_wg = gk->max_flat_workgroup_size ? gk->max_flat_workgroup_size
                                                  : GCN_EMU_MAX_WG_SIZE;
    if (block_items == 0 || block_items > max_wg ||
        block_items > GCN_EMU_MAX_WG_SIZE)
        return mgs_error_set(MGS_EINVAL,
                             "kernel %s: work-groups of %u work-items (1..%u)",
                             gk->name, block_items,
                             max_wg < GCN_EMU_MAX_WG_SIZE ? max_wg
                                                          : GCN_EMU_MAX_WG_SIZE);
    /* The timing model's CU and its placement rule (cu_res_reserve). */
    gpu_build_config g;
    gpu_build_config_default(&g);
    if (rt->opt.config)
        gpu_build_config_from(&g, rt->opt.config);
    gpu_launch l;
    memset(&l, 0, sizeof l);
    l.waves_per_group = (block_items + GCN_WAVE_LANES - 1) / GCN_WAVE_LANES;
    l.vgprs_per_wave = gk->vgpr_count ? gk->vgpr_count : 4;
    l.sgprs_per_wave = gk->sgpr_count ? gk->sgpr_count : 16;
    l.lds_per_group = gk->group_segment_size + dynamic_lds;
    cu_res r;
    uint8_t simd[GCN_EMU_MAX_WAVES];
    cu_res_init(&r, &g.cu);
    uint32_t n = 0;
    while (n < g.cu.num_simds * g.cu.wf_slots_per_simd &&
           cu_res_reserve(&r, &l, simd))
        n++;
    *groups_per_cu = n;
    return MGS_OK;
}

int mgs_kernel_arg_count(const mgs_kernel *k)
{
    return k->nexplicit;
}

int mgs_kernel_arg_offset(const mgs_kernel *k, int i, uint32_t *offset,
                          uint32_t *size)
{
    int seen = 0;
    for (uint32_t a = 0; a < k->k->nargs; a++) {
        if (k->k->args[a].hidden)
            continue;
        if (seen++ == i) {
            *offset = k->k->args[a].offset;
            *size = k->k->args[a].size;
            return MGS_OK;
        }
    }
    return mgs_error_set(MGS_EINVAL, "kernel %s has no argument %d (it has %d)",
                         k->k->name, i, k->nexplicit);
}

/* ---- launch ---- */

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* The bounds rule's warning (docs/runtime.md "one bounds rule"): one
** line for a launch's first access past an allocation's end inside its
** last page, which does not fault unless sim.strict_bounds. */
static void warn_past_end(const launch_bufs *b)
{
    const gcn_past_end *e = b->past_end;
    if (!e || !e->seen)
        return;
    fprintf(stderr, "mgsim: warning: kernel %s wave (%u,%u,%u)/%u pc 0x%llx: "
            "%s of %u bytes past the end of an allocation at address "
            "0x%llx, inside its last page (no fault, as on ROCm; "
            "sim.strict_bounds = true makes it one)\n", b->kernel, e->wg[0],
            e->wg[1], e->wg[2], e->wave,
            (unsigned long long)(b->code_vaddr + e->pc),
            e->write ? "write" : "read", e->bytes,
            (unsigned long long)e->addr);
}

/* After a synchronisation (or before anything was posted). The kernel may
** have written scratch, so after a successful run it goes through
** free_range (its lines leave the caches); the others were only read.
** After a failure nothing more is simulated (the first error stays). */
static void free_bufs_after(mgs_rt *rt, launch_bufs *b, bool ran_ok)
{
    warn_past_end(b);
    free(b->past_end);
    free(b->kernel);
    b->past_end = NULL;
    b->kernel = NULL;
    /* cp.launch_buffers = keep (timing mode): kept until the run ends, as
    ** MGPUSim v4.0.0's driver does (docs/validation.md, cause 11). */
    bool keep = rt->timing && platform_get_config(mgs_timing_platform(
                                  rt->timing))->gpu.cp.launch_keep;
    mgs_dptr *all[] = {&b->kernarg, &b->packet, &b->queue};
    for (size_t i = 0; i < sizeof all / sizeof all[0] && !keep; i++)
        if (*all[i])
            mgs_devmem_free_range(&rt->mem, *all[i]);
    if (b->scratch && (!ran_ok || free_range(rt, b->scratch)))
        mgs_devmem_free_range(&rt->mem, b->scratch);
    free(b->wgs);
    b->wgs = NULL;
}

static void free_bufs(mgs_rt *rt, launch_bufs *b)
{
    free_bufs_after(rt, b, false);
}

/* A kernel that may call device printf gets the hostcall buffer in its
** hidden_hostcall_buffer argument (hostcall.h). The buffer has a packet
** per wave that can call at once: emu mode runs one work-group at a time,
** timing mode every resident wave of the platform. */
static int hostcall_arg(mgs_rt *rt, const gcn_kernel *gk, int home,
                        uint8_t *kargs, uint32_t ksize, bool *calls_host)
{
    *calls_host = false;
    for (uint32_t a = 0; a < gk->nargs; a++) {
        const gcn_kernel_arg *arg = &gk->args[a];
        if (arg->kind != GCN_ARG_HIDDEN_HOSTCALL_BUFFER || arg->size != 8 ||
            arg->offset + 8 > ksize)
            continue;
        int rc;
        uint64_t packets = GCN_EMU_MAX_WAVES;
        if (!rt->hostcall && rt->opt.mode == MGS_MODE_TIMING) {
            if ((rc = timing_ensure(rt)))
                return rc;
            packets = platform_wave_slots(mgs_timing_platform(rt->timing));
        }
        if (!rt->hostcall &&
            (rc = mgs_hostcall_new(&rt->mem, home, (uint32_t)packets, stdout,
                                   stderr, &rt->hostcall)))
            return rc;
        uint64_t va = mgs_hostcall_va(rt->hostcall);
        memcpy(kargs + arg->offset, &va, 8);
        *calls_host = true;
    }
    return MGS_OK;
}

static int setup_dispatch(mgs_rt *rt, mgs_kernel *k, const mgs_launch *l,
                          int home, launch_bufs *b, gcn_emu_launch *el)
{
    const gcn_kernel *gk = k->k;
    int rc;
    /* Kernarg segment: explicit args then zeroed hidden args. */
    uint32_t ksize = gk->kernarg_size > k->explicit_size ? gk->kernarg_size
                                                         : k->explicit_size;
    /* Scalar loads fetch up to 64 bytes at once and the compiler merges
    ** argument loads past the last argument (s_load_dwordx4 over a 4-byte
    ** tail): pad as a real runtime's kernarg pool would. */
    ksize = ((ksize + 63) & ~63u) + 64;
    uint8_t *kargs = mgs_xcalloc(1, ksize);
    if (l->args_size)
        memcpy(kargs, l->args, l->args_size < ksize ? l->args_size : ksize);
    bool calls_host;
    if ((rc = hostcall_arg(rt, gk, home, kargs, ksize, &calls_host))) {
        free(kargs);
        return rc;
    }
    if ((rc = mgs_devmem_alloc_range(&rt->mem, home, ksize, &b->kernarg)) ||
        (rc = mgs_devmem_write(&rt->mem, b->kernarg, kargs, ksize)) ||
        (rc = host_write_later(rt, b->kernarg, ksize))) {
        free(kargs);
        return rc;
    }
    free(kargs);

    uint32_t lds = gk->group_segment_size + l->dynamic_lds;
    uint32_t priv = (gk->private_segment_size + 3) & ~3u;
    uint8_t pkt[GCN_PKT_SIZE] = {0};
    put16(pkt + GCN_PKT_HEADER, 2 /* HSA_PACKET_TYPE_KERNEL_DISPATCH */);
    uint16_t dims = l->grid[2] > 1 ? 3 : l->grid[1] > 1 ? 2 : 1;
    put16(pkt + GCN_PKT_SETUP, dims);
    put16(pkt + GCN_PKT_WG_SIZE_X, (uint16_t)l->block[0]);
    put16(pkt + GCN_PKT_WG_SIZE_Y, (uint16_t)l->block[1]);
    put16(pkt + GCN_PKT_WG_SIZE_Z, (uint16_t)l->block[2]);
    put32(pkt + GCN_PKT_GRID_SIZE_X, l->grid[0]);
    put32(pkt + GCN_PKT_GRID_SIZE_Y, l->grid[1]);
    put32(pkt + GCN_PKT_GRID_SIZE_Z, l->grid[2]);
    put32(pkt + GCN_PKT_PRIVATE_SEGMENT_SIZE, priv);
    put32(pkt + GCN_PKT_GROUP_SEGMENT_SIZE, lds);
    put64(pkt + GCN_PKT_KERNEL_OBJECT, gk->code_vaddr);
    put64(pkt + GCN_PKT_KERNARG_ADDRESS, b->kernarg);
    if ((rc = mgs_devmem_alloc_range(&rt->mem, home, sizeof pkt, &b->packet)) ||
        (rc = mgs_devmem_write(&rt->mem, b->packet, pkt, sizeof pkt)) ||
        (rc = host_write_later(rt, b->packet, sizeof pkt)))
        return rc;

    uint8_t queue[GCN_QUEUE_SIZE] = {0};
    put32(queue + GCN_QUEUE_GROUP_APERTURE_HI, GCN_EMU_APERTURE_GROUP_HI);
    put32(queue + GCN_QUEUE_PRIVATE_APERTURE_HI, GCN_EMU_APERTURE_PRIVATE_HI);
    if ((rc = mgs_devmem_alloc_range(&rt->mem, home, sizeof queue, &b->queue)) ||
        (rc = mgs_devmem_write(&rt->mem, b->queue, queue, sizeof queue)) ||
        (rc = host_write_later(rt, b->queue, sizeof queue)))
        return rc;

    uint64_t wg_items = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    uint64_t waves = (wg_items + GCN_WAVE_LANES - 1) / GCN_WAVE_LANES;
    if (priv && rt->opt.mode == MGS_MODE_TIMING) {
        /* Many work-groups run at once: a slot per resident wave of the
        ** whole platform (pages are backed only when touched). */
        if ((rc = timing_ensure(rt)))
            return rc;
        uint64_t slots = platform_wave_slots(mgs_timing_platform(rt->timing));
        if (slots > waves)
            waves = slots;
        if (waves * GCN_WAVE_LANES * priv > UINT32_MAX)
            return mgs_error_set(MGS_ECONFIG,
                                 "kernel %s: %u bytes of private memory per "
                                 "work-item for %llu resident waves exceed "
                                 "the 4 GiB scratch a dispatch can address",
                                 k->prog.kernel->name, priv,
                                 (unsigned long long)waves);
    }
    if (priv &&
        (rc = mgs_devmem_alloc_range(&rt->mem, home,
                                     waves * GCN_WAVE_LANES * priv,
                                     &b->scratch)))
        return rc;
    mgs_dptr load_base;
    if ((rc = module_image(k->module, home, &load_base)))
        return rc;

    bool strict = rt->opt.config && rt->opt.config->sim_strict_bounds;
    if (!strict && !rt->rec) { /* a recorded launch's replays run later */
        b->past_end = mgs_xcalloc(1, sizeof *b->past_end);
        b->kernel = mgs_xstrdup(k->prog.kernel->name);
        b->code_vaddr = k->prog.code_vaddr;
    }
    *el = (gcn_emu_launch){
        .prog = &k->prog, .lds_bytes = lds, .kernarg_va = b->kernarg,
        .dispatch_va = b->packet, .queue_va = b->queue,
        .dispatch_id = rt->next_dispatch_id++, .scratch_va = b->scratch,
        .private_size = priv, .load_base = load_base,
        .mem_ops = &mgs_devmem_view_ops,
        .mem = &rt->view,
        .interrupt = calls_host && rt->opt.mode != MGS_MODE_TIMING
                         ? mgs_hostcall_interrupt : NULL,
        .host = calls_host ? rt->hostcall : NULL,
        .max_wave_insts = rt->opt.config ? rt->opt.config->sim_max_wave_insts
                                         : 0,
        .strict_bounds = strict, .past_end = b->past_end};
    rt->view = (mgs_devmem_view){
        .mem = &rt->mem, .gpu = home,
        .page_bounds = !strict};
    memcpy(el->grid, l->grid, sizeof el->grid);
    memcpy(el->block, l->block, sizeof el->block);
    return MGS_OK;
}

static int async_flush(mgs_rt *rt);
static bool async_streams(mgs_rt *rt);
static int async_queue(mgs_rt *rt, int gpu, uint32_t stream,
                       mgs_program **out);

static int timing_sync(mgs_rt *rt)
{
    if (!rt->timing)
        return MGS_OK;
    mgs_timing_result res;
    int rc = async_flush(rt);
    if (rc) {
        for (size_t i = 0; i < rt->npending; i++)
            free_bufs_after(rt, &rt->pending[i], false);
        rt->npending = 0;
        return rc;
    }
    rc = mgs_timing_sync(rt->timing, &res);
    if (rt->trace && !rc) {
        mgs_time end = mgs_timing_now(rt->timing);
        sim_trace_launches_done(rt->trace, end - res.sim_time, end);
    }
    rt->totals.workgroups += res.workgroups;
    rt->totals.wavefronts += res.wavefronts;
    rt->totals.wf_insts += res.wf_insts;
    rt->totals.sim_time_ps += res.sim_time;
    if (rt->hostcall)
        mgs_hostcall_flush(rt->hostcall);  /* device printf, in order */
    /* Work-groups per GPU as the GPUs ran them (monolithic: all on one). */
    platform *p = mgs_timing_platform(rt->timing);
    for (uint32_t i = 0; i < platform_num_gpus(p); i++)
        rt->gpu_wgs[i] += mgs_timing_last_wgs(rt->timing, i);
    for (size_t i = 0; i < rt->npending; i++)
        free_bufs_after(rt, &rt->pending[i], rc == MGS_OK);
    rt->npending = 0;
    return rc;
}

sim_engine *mgs_rt_timing_engine(mgs_rt *rt)
{
    return rt->timing ? mgs_timing_engine(rt->timing) : NULL;
}

/* Timing mode: posts the prepared dispatch to the platform model
** (timing.h); gpu is the launch's target (MGS_GPU_ALL spreads it over
** every GPU). Launches on different GPUs run concurrently until the next
** synchronisation; bufs are kept until then. */
static int timing_ensure(mgs_rt *rt)
{
    if (!rt->timing) {
        platform_config pc;
        int rc = platform_of(&rt->opt, &pc);
        if (rc)
            return rc;
        rc = mgs_timing_new_platform(&pc, &rt->mem, rt->opt.stats,
                                     &rt->timing);
        if (rc)
            return rc;
        if (rt->opt.config)
            eng_set_limits(mgs_timing_engine(rt->timing),
                           rt->opt.config->sim_max_events,
                           rt->opt.config->sim_watchdog);
        mgs_rt_set_progress_hook(rt, rt->progress, rt->progress_user,
                                 rt->progress_interval_s);
        if (rt->trace)
            sim_trace_attach(rt->trace, mgs_timing_engine(rt->timing));
    }
    return MGS_OK;
}

/* Takes ownership of bufs whatever happens: they are freed here on an
** error before the post, and by the timing_sync that collects the launch
** once posted (so the caller never frees them: a second free would replace
** the real error with "not the start of a live allocation"). */
static int launch_timing(mgs_rt *rt, int gpu, uint32_t stream,
                         const gcn_emu_launch *el, launch_bufs *bufs,
                         size_t nwgs)
{
    /* bufs are ours on every path: freed here before they are pending,
    ** by timing_sync after (so an error of the sync frees them once). */
    int rc = timing_ensure(rt);
    /* A Locality API launch is not replayed (the replay would run the
    ** whole grid): never recorded, and never queued behind asynchronous
    ** copies (they run first, as behind a launch over every GPU). */
    if (!rc && bufs->wgs && rt->rec)
        rc = mgs_error_set(MGS_EUNSUPPORTED, "%s: a Locality API launch "
                           "cannot be recorded", el->prog->kernel->name);
    if (!rc && (mgs_timing_would_block(rt->timing, gpu) ||
                (rt->any_async && (gpu < 0 || bufs->wgs))))
        rc = timing_sync(rt);
    /* On a stream other than 0 (or behind queued copies): queued on its
    ** stream, to run with the other streams' work at the next sync. */
    bool queue = gpu >= 0 && !bufs->wgs && !rt->rec &&
                 (rt->any_async || (stream && async_streams(rt)));
    mgs_program *q = NULL;
    if (!rc && queue)
        rc = async_queue(rt, gpu, stream, &q);
    if (!rc && q) {
        /* its buffers stay until the sync that runs it */
        if (rt->trace)
            sim_trace_launch(rt->trace, el->dispatch_id,
                             el->prog->kernel->name);
        mgs_program_add_launch(q, el);
        rt->any_async = true;
        rt->totals.kernels++;
        if (rt->npending == rt->pending_cap) {
            rt->pending_cap = rt->pending_cap ? 2 * rt->pending_cap : 16;
            rt->pending = mgs_xrealloc(rt->pending, rt->pending_cap *
                                                        sizeof *rt->pending);
        }
        rt->pending[rt->npending++] = *bufs;
        return MGS_OK;
    }
    if (!rc)
        rc = bufs->wgs ? mgs_timing_post_list(rt->timing, gpu, el, bufs->wgs,
                                              nwgs)
                       : mgs_timing_post(rt->timing, gpu, el);
    if (rc) {
        free_bufs(rt, bufs);
        return rc;
    }
    if (rt->trace)
        sim_trace_launch(rt->trace, el->dispatch_id, el->prog->kernel->name);
    if (rt->rec) {            /* its buffers stay for the replays */
        mgs_program_add_launch(rt->rec, el);
        rt->totals.kernels++;
        return timing_sync(rt);
    }
    if (rt->npending == rt->pending_cap) {
        rt->pending_cap = rt->pending_cap ? 2 * rt->pending_cap : 16;
        rt->pending = mgs_xrealloc(rt->pending,
                                   rt->pending_cap * sizeof *rt->pending);
    }
    rt->pending[rt->npending++] = *bufs;
    rt->totals.kernels++;
    bool concurrent = rt->opt.config &&
                      rt->opt.config->platform_concurrent_launches;
    return concurrent ? MGS_OK : timing_sync(rt);
}

/* Emu mode: runs work-group `index` (linear) of the launch on GPU g. */
static int emu_workgroup(mgs_rt *rt, gcn_emu *emu, const uint32_t ng[3],
                         uint64_t index, int g)
{
    uint32_t id[3] = {(uint32_t)(index % ng[0]),
                      (uint32_t)(index / ng[0] % ng[1]),
                      (uint32_t)(index / ng[0] / ng[1])};
    if (mgs_interrupted())
        return mgs_interrupt_error("between work-groups");
    rt->view.gpu = g;           /* it translates with its GPU's table */
    int rc = gcn_emu_run_workgroup(emu, id);
    if (!rc)
        rt->gpu_wgs[g]++;
    return rc;
}

/* The checks of every launch (MGS_EINVAL with one line). */
static int launch_check(const mgs_rt *rt, const mgs_kernel *k,
                        const mgs_launch *l)
{
    const gcn_kernel *gk = k->k;
    if (l->gpu < MGS_GPU_ALL || l->gpu >= rt->opt.num_gpus)
        return mgs_error_set(MGS_EINVAL, "launch of %s on GPU %d: only %d GPU(s)",
                             gk->name, l->gpu, rt->opt.num_gpus);
    for (int d = 0; d < 3; d++)
        if (!l->grid[d] || !l->block[d])
            return mgs_error_set(MGS_EINVAL,
                                 "launch of %s: grid and block sizes must be "
                                 "> 0 in every dimension", gk->name);
    uint64_t wg_items = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    uint32_t max_wg = gk->max_flat_workgroup_size ? gk->max_flat_workgroup_size
                                                  : GCN_EMU_MAX_WG_SIZE;
    if (wg_items > max_wg || wg_items > GCN_EMU_MAX_WG_SIZE)
        return mgs_error_set(MGS_EINVAL,
                             "launch of %s: work-group of %llu work-items "
                             "exceeds the kernel's maximum of %u", gk->name,
                             (unsigned long long)wg_items, max_wg);
    if (l->args_size < k->explicit_size || (l->args_size && !l->args))
        return mgs_error_set(MGS_EINVAL,
                             "launch of %s: %zu bytes of arguments given, the "
                             "kernel expects %u", gk->name, l->args_size,
                             k->explicit_size);
    return MGS_OK;
}

/* A launch: the whole grid (wgs NULL; MGS_GPU_ALL spreads it), or only the
** work-groups wgs[0 .. nwgs) on GPU l->gpu (a Locality API launch, taking
** ownership of wgs). */
static int launch(mgs_rt *rt, mgs_kernel *k, const mgs_launch *l,
                  uint32_t *wgs, size_t nwgs)
{
    int rc = launch_check(rt, k, l);
    if (rc) {
        free(wgs);
        return rc;
    }
    int home = l->gpu >= 0 ? l->gpu : 0;
    launch_bufs bufs = {.wgs = wgs};
    gcn_emu_launch el;
    gcn_emu emu;
    rc = setup_dispatch(rt, k, l, home, &bufs, &el);
    if (rc) {
        free_bufs(rt, &bufs);
        return rc;
    }
    if (rt->opt.mode == MGS_MODE_TIMING) {
        rc = launch_timing(rt, l->gpu, l->stream, &el, &bufs, nwgs);
        if (!rc && rt->hook)
            rt->hook(rt, k, l, rt->hook_user);
        return rc;
    }
    rc = gcn_emu_init(&emu, &el);
    if (rc) {
        free_bufs(rt, &bufs);
        return rc;
    }
    uint32_t ng[3];
    for (int d = 0; d < 3; d++)
        ng[d] = gcn_emu_num_groups(&el, d);
    uint64_t total = (uint64_t)ng[0] * ng[1] * ng[2], done = 0;
    int ngpus = rt->opt.num_gpus;
    /* The listed work-groups on l->gpu; or the grid in order, work-group
    ** i of n on GPU i * gpus / n with MGS_GPU_ALL. */
    uint64_t count = wgs ? nwgs : total;
    while (done < count) {
        uint64_t index = wgs ? wgs[done] : done;
        int g = l->gpu >= 0 ? l->gpu : (int)(done * (uint64_t)ngpus / total);
        if ((rc = emu_workgroup(rt, &emu, ng, index, g)))
            break;
        done++;
    }
    if (rt->hostcall)
        mgs_hostcall_flush(rt->hostcall);  /* device printf, in order */
    rt->totals.workgroups += done;
    rt->totals.wavefronts += emu.wavefronts;
    rt->totals.wf_insts += emu.wf_insts;
    rt->totals.kernels++;   /* ran, as timing mode counts a posted launch */
    gcn_emu_destroy(&emu);
    free_bufs(rt, &bufs);
    if (!rc && rt->hook)
        rt->hook(rt, k, l, rt->hook_user);
    return rc;
}

int mgs_launch_kernel(mgs_rt *rt, mgs_kernel *k, const mgs_launch *l0)
{
    mgs_launch lr = *l0;      /* recording: the program's GPUs moved */
    if (rt->rec && lr.gpu >= 0)
        lr.gpu += rt->rec->gpu;
    return launch(rt, k, &lr, NULL, 0);
}

/* ---- Locality API ---- */

bool mgs_rt_is_unified(const mgs_rt *rt)
{
    return !strcmp(platform_name(rt), "unified");
}

/* MGS_OK if rt is unified and gpu one of its members; what names the
** call in the message. */
static int member_check(const mgs_rt *rt, const char *what, int gpu)
{
    if (!mgs_rt_is_unified(rt))
        return mgs_error_set(MGS_EINVAL, "%s: the Locality API needs a "
                             "unified GPU (platform unified), this runtime "
                             "is %s", what, platform_name(rt));
    if (gpu < 0 || gpu >= rt->opt.num_gpus)
        return mgs_error_set(MGS_EINVAL, "%s: no member GPU %d (the unified "
                             "GPU has %d: 0..%d)", what, gpu,
                             rt->opt.num_gpus, rt->opt.num_gpus - 1);
    return MGS_OK;
}

int mgs_rt_unified_members(const mgs_rt *rt)
{
    int rc = member_check(rt, "unified members", 0);
    return rc ? rc : rt->opt.num_gpus;
}

int mgs_rt_member_info(const mgs_rt *rt, int gpu, mgs_rt_member *out)
{
    memset(out, 0, sizeof *out);
    int rc = member_check(rt, "member info", gpu);
    if (rc)
        return rc;
    *out = (mgs_rt_member){
        .gpu = gpu, .mem_base = (uint64_t)gpu * rt->mem.mem_per_gpu,
        .mem_bytes = rt->mem.mem_per_gpu,
        .mem_used = mgs_devmem_used_pages(&rt->mem, gpu) * rt->mem.page_size,
        .num_cus = mgs_rt_num_cus(rt)};
    return MGS_OK;
}

/* mgs_rt_place with migrating pages: va's page, just moved to a frame on
** gpu, is mapped (writable) by gpu's table only, if any GPU's table
** mapped it (a page no GPU maps, managed or first-touch, stays so). */
static int place_resident(mgs_rt *rt, uint64_t va, int gpu)
{
    int fg;
    uint32_t frame;
    bool mapped = false;
    int rc = mgs_devmem_page_frame(&rt->mem, MGS_DEVMEM_HOST, va, &fg,
                                   &frame);
    for (int t = 0; !rc && t < rt->opt.num_gpus; t++) {
        int g;
        uint32_t f;
        if (mgs_devmem_page_frame(&rt->mem, t, va, &g, &f) != MGS_OK)
            continue;
        mapped = true;
        if (t != gpu)
            rc = mgs_devmem_unmap(&rt->mem, t, va);
    }
    if (!rc && mapped)
        rc = mgs_devmem_map(&rt->mem, gpu, va, fg, frame);
    if (!rc && mapped)
        rc = mgs_devmem_set_readonly(&rt->mem, gpu, va, false);
    return rc;
}

int mgs_rt_place(mgs_rt *rt, mgs_dptr p, size_t n, int gpu)
{
    int rc = member_check(rt, "place", gpu);
    if (rc)
        return rc;
    uint64_t ps = rt->mem.page_size;
    if (!n || p % ps || n % ps)
        return mgs_error_set(MGS_EINVAL, "place [0x%llx, +%zu) on GPU %d: "
                             "whole pages only (start and size multiples of "
                             "the page size, %llu bytes, gpu.page_size)",
                             (unsigned long long)p, n, gpu,
                             (unsigned long long)ps);
    for (uint64_t va = p; va < p + n; va += ps)
        if (mgs_devmem_gpu_of(&rt->mem, va) < 0)
            return mgs_error_set(MGS_EFAULT, "place [0x%llx, +%zu) on GPU "
                                 "%d: page 0x%llx is not in a live "
                                 "allocation", (unsigned long long)p, n, gpu,
                                 (unsigned long long)va);
    if ((rc = timing_sync(rt)))
        return rc;
    /* Pages that migrate (memory.management != none): only the holder's
    ** table maps a page, so the placed page's mapping moves from the old
    ** holder's table to gpu's (move_page alone would leave the old holder
    ** mapping the new frame and gpu faulting on its own page). */
    bool resident = buffer_mapping(rt, gpu, false) == MGS_MAP_RESIDENT;
    for (uint64_t va = p; va < p + n && !rc; va += ps) {
        if (mgs_devmem_gpu_of(&rt->mem, va) == gpu)
            continue;
        /* The caches give up the old frame's lines (dirty ones written
        ** back, so the copy takes the current bytes); stale lines of the
        ** new frame go at each GPU's next acquire. */
        if (!(rc = host_write_now(rt, va, ps)) &&
            !(rc = mgs_devmem_move_page(&rt->mem, va, gpu, true)))
            rc = host_write_later(rt, va, ps);
        if (!rc && resident)
            rc = place_resident(rt, va, gpu);
    }
    if (!rc && resident && rt->timing)
        mgs_timing_placed(rt->timing, p, n, gpu);
    /* pasi: the placed pages' largest pieces get their TLB reach back */
    const mgs_config *k = rt->opt.config;
    if (!rc && resident && !strcmp(k->memory_management, "pasi") &&
        k->memory_pasi_initial > ps)
        mgs_devmem_tag_runs(&rt->mem, p, n,
                            (unsigned)__builtin_ctzll(k->memory_pasi_initial /
                                                      ps));
    return rc;
}

/* Work-groups of l's grid, MGS_EINVAL past 2^32 (ids are 32-bit). */
static int grid_groups(const mgs_launch *l, uint64_t *total)
{
    *total = 1;
    for (int d = 0; d < 3; d++) {
        if (!l->grid[d] || !l->block[d])
            return mgs_error_set(MGS_EINVAL, "Locality API launch: grid and "
                                 "block sizes must be > 0 in every "
                                 "dimension");
        *total *= (l->grid[d] + (uint64_t)l->block[d] - 1) / l->block[d];
        if (*total > UINT32_MAX + 1ull)
            return mgs_error_set(MGS_EINVAL, "Locality API launch: more "
                                 "than 2^32 work-groups");
    }
    return MGS_OK;
}

int mgs_wg_select(const mgs_launch *l, int gpu, mgs_wg_pred pred, void *user,
                  uint32_t **wgs, size_t *nwgs)
{
    *wgs = NULL;
    *nwgs = 0;
    uint64_t total;
    int rc = grid_groups(l, &total);
    if (rc)
        return rc;
    size_t n = 0, cap = 0;
    uint32_t *v = NULL;
    for (uint64_t id = 0; id < total; id++) {
        if (!pred((uint32_t)id, gpu, user))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            v = mgs_xrealloc(v, cap * sizeof *v);
        }
        v[n++] = (uint32_t)id;
    }
    *wgs = v;
    *nwgs = n;
    return MGS_OK;
}

int mgs_launch_kernel_wgs(mgs_rt *rt, mgs_kernel *k, const mgs_launch *l,
                          const uint32_t *wgs, size_t nwgs)
{
    char what[160];
    snprintf(what, sizeof what, "launch of %s on member GPU %d",
             k->k->name, l->gpu);
    int rc = member_check(rt, what, l->gpu);
    uint64_t total;
    if (rc || (rc = grid_groups(l, &total)))
        return rc;
    if (!nwgs || !wgs)
        return mgs_error_set(MGS_EINVAL, "%s: the work-group list is empty",
                             what);
    for (size_t i = 0; i < nwgs; i++)
        if (wgs[i] >= total)
            return mgs_error_set(MGS_EINVAL, "%s: work-group %u is outside "
                                 "the grid's %llu", what, wgs[i],
                                 (unsigned long long)total);
    uint32_t *copy = mgs_xmalloc(nwgs * sizeof *copy);
    memcpy(copy, wgs, nwgs * sizeof *copy);
    return launch(rt, k, l, copy, nwgs);
}

int mgs_launch_kernel_pred(mgs_rt *rt, mgs_kernel *k, const mgs_launch *l,
                           mgs_wg_pred pred, void *user)
{
    char what[160];
    snprintf(what, sizeof what, "launch of %s on member GPU %d",
             k->k->name, l->gpu);
    int rc = member_check(rt, what, l->gpu);
    uint32_t *wgs;
    size_t n;
    if (rc || (rc = mgs_wg_select(l, l->gpu, pred, user, &wgs, &n)))
        return rc;
    if (!n)
        return MGS_OK;
    return launch(rt, k, l, wgs, n);
}

int mgs_synchronize(mgs_rt *rt)
{
    return timing_sync(rt);
}

void mgs_rt_totals_get(const mgs_rt *rt, mgs_rt_totals *t)
{
    *t = rt->totals;
}

uint64_t mgs_rt_gpu_workgroups(const mgs_rt *rt, int gpu)
{
    return gpu >= 0 && gpu < rt->opt.num_gpus ? rt->gpu_wgs[gpu] : 0;
}

uint64_t mgs_rt_gpu_used_pages(const mgs_rt *rt, int gpu)
{
    return mgs_devmem_used_pages(&rt->mem, gpu);
}

uint64_t mgs_rt_backed_pages(const mgs_rt *rt)
{
    return rt->mem.backed_pages;
}

int mgs_rt_gpu_of(mgs_rt *rt, mgs_dptr p)
{
    return mgs_devmem_gpu_of(&rt->mem, p);
}

uint64_t mgs_rt_page_size(const mgs_rt *rt) { return rt->mem.page_size; }

int mgs_rt_page_move(mgs_rt *rt, mgs_dptr p, int gpu, int copy)
{
    int rc = timing_sync(rt);
    return rc ? rc : mgs_devmem_move_page(&rt->mem, p, gpu, copy != 0);
}

int mgs_rt_page_replicate(mgs_rt *rt, mgs_dptr p, int frame_gpu,
                          uint32_t gpu_mask)
{
    int rc = timing_sync(rt);
    return rc ? rc : mgs_devmem_replicate_page(&rt->mem, p, frame_gpu,
                                               gpu_mask);
}

int mgs_rt_page_unmap(mgs_rt *rt, int gpu, mgs_dptr p)
{
    int rc = timing_sync(rt);
    return rc ? rc : mgs_devmem_unmap(&rt->mem, gpu, p);
}

int mgs_rt_trace_open(mgs_rt *rt, const char *path,
                      const mgs_rt_trace_options *o)
{
    sim_trace_options so = {0};
    if (o)
        so = (sim_trace_options){.mem = o->mem, .addr_lo = o->addr_lo,
                                 .addr_hi = o->addr_hi,
                                 .component = o->component,
                                 .max_events = o->max_events};
    sim_trace_close(rt->trace, NULL, NULL);
    rt->trace = NULL;
    int rc = sim_trace_open(path, &so, &rt->trace);
    if (rc == MGS_OK && rt->timing)
        sim_trace_attach(rt->trace, mgs_timing_engine(rt->timing));
    return rc;
}

int mgs_rt_trace_close(mgs_rt *rt, uint64_t *recorded, uint64_t *dropped)
{
    int rc = sim_trace_close(rt->trace, recorded, dropped);
    rt->trace = NULL;
    return rc;
}

/* The engine's progress callback: the runtime's view of it. The time is
** the engine's report (with partitions, the furthest one's: the root
** engine's own clock stands still while they run). */
static void engine_progress(const eng_progress_info *info, void *ud)
{
    mgs_rt *rt = ud;
    mgs_timing_progress tp;
    mgs_timing_progress_get(rt->timing, &tp);
    mgs_rt_progress p = {
        .sim_time_ps = info->now, .wf_insts = tp.wf_insts,
        .kernels = rt->totals.kernels, .wgs_done = tp.wgs_done,
        .wgs_started = tp.wgs_started, .wgs_total = tp.wgs_total, .copy_cmds_done = tp.copy_cmds_done,
        .copy_cmds_total = tp.copy_cmds_total};
    rt->progress(rt, &p, rt->progress_user);
}

void mgs_rt_set_progress_hook(mgs_rt *rt, mgs_progress_hook fn, void *user,
                              double interval_s)
{
    rt->progress = fn;
    rt->progress_user = user;
    rt->progress_interval_s = interval_s;
    if (rt->timing)
        eng_set_progress(mgs_timing_engine(rt->timing),
                         fn ? engine_progress : NULL, rt, 0, interval_s);
}

void mgs_rt_set_launch_hook(mgs_rt *rt, mgs_launch_hook fn, void *user)
{
    rt->hook = fn;
    rt->hook_user = user;
}

/* ---- recorded programs and tenants (runtime.h, record.h) ---- */

int mgs_rt_record_begin(mgs_rt *rt, int gpu)
{
    if (rt->rec)
        return mgs_error_set(MGS_EINVAL, "record: already recording");
    if (!host_copies_timed(rt))
        return mgs_error_set(MGS_ECONFIG, "record: needs timing mode with "
                             "platform.copy_timing = dma and a host link");
    if (gpu < 0 || gpu >= rt->opt.num_gpus)
        return mgs_error_set(MGS_EINVAL, "record: GPU %d of %d", gpu,
                             rt->opt.num_gpus);
    int rc = timing_ensure(rt);
    if (!rc)
        rc = timing_sync(rt);
    if (!rc)
        rt->rec = mgs_program_new(gpu);
    return rc;
}

int mgs_rt_record_end(mgs_rt *rt, mgs_program **out)
{
    *out = NULL;
    if (!rt->rec)
        return mgs_error_set(MGS_EINVAL, "record: not recording");
    int rc = timing_sync(rt);
    *out = rt->rec;
    rt->rec = NULL;
    return rc;
}

static void tenant_stat(mgs_rt *rt, int task, const char *metric,
                        const char *unit, uint64_t v)
{
    if (!rt->opt.stats)
        return;
    char comp[32] = "Tenants";
    if (task >= 0)
        snprintf(comp, sizeof comp, "Tenants.Task[%d]", task);
    stat_addn(stat_counter_add(rt->opt.stats, comp, metric, unit), v);
}

int mgs_rt_tenants(mgs_rt *rt, mgs_program *const *progs, int n, int qos,
                   uint64_t window_ps, mgs_tenant_result *res)
{
    if (n < 1 || n > 16 || !rt->timing)
        return mgs_error_set(MGS_EINVAL, "tenants: %d programs (1..16), "
                             "recorded in timing mode", n);
    int rc = timing_sync(rt);
    mgs_timing_task tasks[16];
    mgs_timing_task_result r[16];
    mgs_time *alone[16] = {NULL};
    uint32_t factor = rt->opt.config
                          ? (uint32_t)rt->opt.config->pcie_qos_deadline_factor
                          : 3;
    memset(res, 0, (size_t)n * sizeof *res);
    for (int i = 0; i < n; i++) {
        alone[i] = mgs_xcalloc(progs[i]->nops ? progs[i]->nops : 1,
                               sizeof *alone[i]);
        tasks[i] = (mgs_timing_task){
            .gpu = progs[i]->gpu, .ops = progs[i]->ops,
            .nops = progs[i]->nops, .host = mgs_program_host,
            .ud = progs[i], .deadline_factor = factor};
    }
    /* Each alone (its copy times are the QoS task's uncontended ones). */
    for (int i = 0; i < n && !rc; i++) {
        mgs_timing_task solo = tasks[i];
        solo.op_time = alone[i];
        rc = mgs_timing_replay(rt->timing, &solo, 1, window_ps, &r[i]);
        if (!rc) {
            res[i].solo_milli_iterations = r[i].milli_iterations;
            res[i].verify_failures += r[i].verify_failures;
        }
    }
    for (int i = 0; i < n && !rc; i++) {
        tasks[i].qos = i == qos;
        tasks[i].uncontended = alone[i];
    }
    if (!rc)
        rc = mgs_timing_replay(rt->timing, tasks, (uint32_t)n, window_ps, r);
    for (int i = 0; i < n && !rc; i++) {
        res[i].milli_iterations = r[i].milli_iterations;
        res[i].verify_failures += r[i].verify_failures;
        res[i].copies = r[i].copies;
        res[i].qos_copies = r[i].qos_copies;
        res[i].deadline_misses = r[i].deadline_misses;
        tenant_stat(rt, i, "milli_iterations", "count",
                    res[i].milli_iterations);
        tenant_stat(rt, i, "solo_milli_iterations", "count",
                    res[i].solo_milli_iterations);
        tenant_stat(rt, i, "verify_failures", "count",
                    res[i].verify_failures);
        tenant_stat(rt, i, "copies", "count", res[i].copies);
        tenant_stat(rt, i, "deadline_misses", "count",
                    res[i].deadline_misses);
    }
    if (!rc) {
        uint64_t remaps, promotions;
        mgs_timing_pcie_counts(rt->timing, &remaps, &promotions);
        tenant_stat(rt, -1, "remaps", "count", remaps);
        tenant_stat(rt, -1, "promotions", "count", promotions);
    }
    for (int i = 0; i < n; i++)
        free(alone[i]);
    for (int i = 0; i < n && !rc; i++)
        if (res[i].verify_failures)
            rc = mgs_error_set(MGS_EVERIFY, "tenants: task %d: %llu "
                               "iteration(s) produced output that differs "
                               "from the recorded run", i,
                               (unsigned long long)res[i].verify_failures);
    return rc;
}

/* ---- asynchronous copies (runtime.h) ---- */

/* Whether queued asynchronous work can run here: timing mode with DMA
** copies (the replay needs the engines), not while recording. */
static bool async_streams(mgs_rt *rt)
{
    return host_copies_timed(rt) && !rt->rec && timing_ensure(rt) == MGS_OK;
}

/* Runs the queued asynchronous copies and launches: one task per (GPU,
** stream) queue, all at once (mgs_timing_replay, one iteration each). */
static int async_flush(mgs_rt *rt)
{
    if (!rt->any_async)
        return MGS_OK;
    mgs_timing_task *tasks = mgs_xcalloc(rt->nasync ? rt->nasync : 1,
                                         sizeof *tasks);
    mgs_timing_task_result *res = mgs_xcalloc(rt->nasync ? rt->nasync : 1,
                                              sizeof *res);
    uint32_t n = 0;
    bool launches = false, copies = false;
    for (size_t i = 0; i < rt->nasync; i++)
        for (size_t j = 0; j < rt->async[i].prog->nops; j++) {
            bool launch = rt->async[i].prog->ops[j].kind ==
                          MGS_TIMING_OP_LAUNCH;
            launches |= launch;
            copies |= !launch;
        }
    for (size_t i = 0; i < rt->nasync; i++)
        if (rt->async[i].prog->nops)
            tasks[n++] = (mgs_timing_task){.gpu = rt->async[i].gpu,
                                           .ops = rt->async[i].prog->ops,
                                           .nops = rt->async[i].prog->nops};
    /* Streams overlap, so the span is split, not summed: the time during
    ** which a kernel ran (a copy beside it included) and the release after
    ** the kernels are kernel time, the rest copy time (all of it kernel
    ** time when nothing was copied); together they are the span, as the
    ** totals' sum is the run's simulated time. */
    mgs_time t0 = mgs_timing_now(rt->timing);
    int rc = n ? mgs_timing_replay(rt->timing, tasks, n, 0, res) : MGS_OK;
    mgs_time kernels = rc ? 0 : mgs_timing_replay_launch_time(rt->timing);
    if (!rc && launches) {
        mgs_time r0 = mgs_timing_now(rt->timing);
        rc = mgs_timing_peer_release(rt->timing);
        kernels += mgs_timing_now(rt->timing) - r0;
    }
    mgs_time span = mgs_timing_now(rt->timing) - t0;
    if (kernels > span || !copies)
        kernels = span;
    rt->totals.sim_time_ps += kernels;
    rt->totals.copy_time_ps += span - kernels;
    platform *p = mgs_timing_platform(rt->timing);
    for (uint32_t i = 0; !rc && i < n; i++) {
        rt->totals.workgroups += res[i].workgroups;
        rt->totals.wavefronts += res[i].wavefronts;
        rt->totals.wf_insts += res[i].wf_insts;
        rt->gpu_wgs[platform_gpu_of(p, tasks[i].gpu)] += res[i].workgroups;
    }
    for (size_t i = 0; i < rt->nasync; i++)
        mgs_program_free(rt->async[i].prog);
    rt->nasync = 0;
    rt->any_async = false;
    free(tasks);
    free(res);
    return rc;
}

/* The queue of (gpu, stream), new at the end if none. Stream 0 (the
** default stream) does not overlap the GPU's other streams: work on it
** behind queued work of another stream of its GPU, or the reverse, runs
** the queued work first (a synchronisation). */
static int async_queue(mgs_rt *rt, int gpu, uint32_t stream,
                       mgs_program **out)
{
    *out = NULL;
    for (size_t i = 0; i < rt->nasync; i++) {
        struct async_queue *a = &rt->async[i];
        if (a->gpu == gpu && (a->stream == 0) != (stream == 0)) {
            int rc = timing_sync(rt);
            if (rc)
                return rc;
            break;
        }
    }
    for (size_t i = 0; i < rt->nasync; i++)
        if (rt->async[i].gpu == gpu && rt->async[i].stream == stream) {
            *out = rt->async[i].prog;
            return MGS_OK;
        }
    if (rt->nasync == rt->async_cap) {
        rt->async_cap = rt->async_cap ? 2 * rt->async_cap : 8;
        rt->async = mgs_xrealloc(rt->async,
                                 rt->async_cap * sizeof *rt->async);
    }
    mgs_program *p = mgs_program_new(gpu);
    p->direct = true;
    rt->async[rt->nasync++] = (struct async_queue){.gpu = gpu,
                                                   .stream = stream,
                                                   .prog = p};
    *out = p;
    return MGS_OK;
}

static int async_copy(mgs_rt *rt, uint32_t stream, mgs_timing_copy_kind kind,
                      uint64_t dst, uint64_t src, size_t n)
{
    mgs_dptr dev = kind == MGS_TIMING_H2D ? dst : src;
    int gpu = n ? mgs_devmem_gpu_of(&rt->mem, dev) : -1;
    uint64_t page = rt->mem.page_size;
    for (uint64_t a = dev & ~(page - 1); gpu >= 0 && a < dev + n; a += page)
        if (mgs_devmem_gpu_of(&rt->mem, a < dev ? dev : a) != gpu)
            gpu = -1;
    /* monolithic: every GPU index is the one GPU model (one queue) */
    if (!strcmp(platform_name(rt), "monolithic") && rt->opt.num_gpus > 1)
        gpu = -1;
    if (!host_copies_timed(rt) || rt->rec || gpu < 0 || gpu >= 16 ||
        gpu >= rt->opt.num_gpus /* host frames */) {
        /* not timed, or spread over GPUs: a synchronous copy */
        return kind == MGS_TIMING_H2D
                   ? mgs_memcpy_h2d(rt, dst, (const void *)(uintptr_t)src, n)
                   : mgs_memcpy_d2h(rt, (void *)(uintptr_t)dst, src, n);
    }
    int rc = timing_ensure(rt);
    uint8_t probe;
    mgs_program *q = NULL;
    if (!rc && mgs_timing_would_block(rt->timing, MGS_GPU_ALL) &&
        !rt->any_async)
        rc = timing_sync(rt);   /* after the kernels posted before it */
    if (!rc && (rc = mgs_devmem_read(&rt->mem, dev, &probe, 1)) == MGS_OK &&
        (rc = mgs_devmem_read(&rt->mem, dev + n - 1, &probe, 1)) == MGS_OK &&
        (rc = async_queue(rt, gpu, stream, &q)) == MGS_OK) {
        mgs_program_add_copy(q, kind, dst, src, n);
        rt->any_async = true;
        count_copy(rt, n);
    }
    return rc;
}

int mgs_memcpy_h2d_async(mgs_rt *rt, mgs_dptr dst, const void *src, size_t n)
{
    return async_copy(rt, 0, MGS_TIMING_H2D, dst, (uint64_t)(uintptr_t)src,
                      n);
}

int mgs_memcpy_d2h_async(mgs_rt *rt, void *dst, mgs_dptr src, size_t n)
{
    return async_copy(rt, 0, MGS_TIMING_D2H, (uint64_t)(uintptr_t)dst, src,
                      n);
}

int mgs_memcpy_h2d_stream(mgs_rt *rt, uint32_t stream, mgs_dptr dst,
                          const void *src, size_t n)
{
    return async_copy(rt, stream, MGS_TIMING_H2D, dst,
                      (uint64_t)(uintptr_t)src, n);
}

int mgs_memcpy_d2h_stream(mgs_rt *rt, uint32_t stream, void *dst,
                          mgs_dptr src, size_t n)
{
    return async_copy(rt, stream, MGS_TIMING_D2H, (uint64_t)(uintptr_t)dst,
                      src, n);
}

/* ---- GPS (include/mgsim/runtime.h; src/coh/gps/gps.h) ---- */

/* The GPS instance when GPS allocations are replicated, else NULL. */
static gps *rt_gps(mgs_rt *rt)
{
    const mgs_config *k = rt->opt.config;
    if (rt->opt.mode != MGS_MODE_TIMING || rt->opt.num_gpus < 2 || !k ||
        strcmp(k->coherence_protocol, "gps") || timing_ensure(rt))
        return NULL;
    return gps_of(platform_coh(mgs_timing_platform(rt->timing)));
}

bool mgs_gps_active(mgs_rt *rt) { return rt_gps(rt) != NULL; }

static int gps_host_wrote(mgs_rt *rt, mgs_dptr va, size_t n, int rc)
{
    gps *s = rc || !rt->timing ? NULL : rt_gps(rt);
    return s && n ? gps_drv_host_wrote(s, &rt->mem, va, n) : rc;
}

int mgs_malloc_gps(mgs_rt *rt, size_t size, int flags, mgs_dptr *out)
{
    if (flags & ~MGS_GPS_MANUAL)
        return mgs_error_set(MGS_EINVAL, "mgs_malloc_gps: unknown flags 0x%x",
                             flags);
    int rc = mgs_malloc(rt, MGS_GPU_ALL, size, out);
    gps *s = rc ? NULL : rt_gps(rt);
    if (s && (rc = gps_drv_alloc(s, &rt->mem, *out, size,
                                 flags & MGS_GPS_MANUAL)))
        mgs_free(rt, *out);
    return rc;
}

int mgs_gps_adopt(mgs_rt *rt, mgs_dptr p, size_t n, int flags)
{
    if (flags & ~MGS_GPS_MANUAL)
        return mgs_error_set(MGS_EINVAL, "mgs_gps_adopt: unknown flags 0x%x",
                             flags);
    uint8_t probe;
    int rc = n ? mgs_devmem_read(&rt->mem, p + n - 1, &probe, 1)
               : mgs_error_set(MGS_EINVAL, "mgs_gps_adopt: empty range");
    gps *s = rc ? NULL : rt_gps(rt);
    if (s && !(rc = timing_sync(rt))) {
        uint64_t page = rt->mem.page_size, lo = p & ~(page - 1);
        rc = gps_drv_alloc(s, &rt->mem, lo, (p + n + page - 1) / page * page - lo,
                           flags & MGS_GPS_MANUAL);
    }
    return rc;
}

static int gps_subscription(mgs_rt *rt, mgs_dptr p, size_t n, int gpu,
                            bool on)
{
    gps *s = rt_gps(rt);
    int rc = s ? timing_sync(rt) : MGS_OK;
    return s && !rc ? gps_drv_subscription(s, &rt->mem, p, n, gpu, on) : rc;
}

int mgs_gps_subscribe(mgs_rt *rt, mgs_dptr p, size_t n, int gpu)
{
    return gps_subscription(rt, p, n, gpu, true);
}

int mgs_gps_unsubscribe(mgs_rt *rt, mgs_dptr p, size_t n, int gpu)
{
    return gps_subscription(rt, p, n, gpu, false);
}

int mgs_gps_tracking_start(mgs_rt *rt)
{
    gps *s = rt_gps(rt);
    int rc = s ? timing_sync(rt) : MGS_OK;
    if (s && !rc)
        gps_tracking_set(s, true);
    return rc;
}

int mgs_gps_tracking_stop(mgs_rt *rt)
{
    gps *s = rt_gps(rt);
    int rc = s ? timing_sync(rt) : MGS_OK;
    return s && !rc ? gps_drv_tracking_stop(s, &rt->mem) : rc;
}

int mgs_gps_read_replica(mgs_rt *rt, int gpu, void *dst, mgs_dptr src,
                         size_t n)
{
    if (gpu < 0 || gpu >= rt->opt.num_gpus)
        return mgs_error_set(MGS_EINVAL, "read replica: no GPU %d", gpu);
    int rc = timing_sync(rt);
    return rc ? rc : mgs_devmem_read_as(&rt->mem, gpu, src, dst, n);
}
