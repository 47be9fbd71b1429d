/*
** Timing-mode launch and copy paths (timing.h): driver component,
** device-memory views, launch loop, DMA copies.
**
** Invariants: the DRAM channels and page walkers see the devmem's
** physical frames and per-GPU page tables directly (no copy). Uploaded
** code stays mapped until mgs_timing_free; with cp.launch_code = every,
** launch_code[i] is the copy model i's last launch uploaded for itself,
** freed (or, cp.launch_buffers = keep, moved to codes) when model i's
** next launch is prepared (a model runs one launch at a time). posted[i] is set from
** mgs_timing_post until the mgs_timing_sync that collects model i's
** answer; the driver holds at most one launch per GPU model. Copy
** commands (drv.cmds) exist only inside mgs_timing_copy, which runs with
** nothing posted: launches and copies never share the engine run, so
** drv.msg / launch[] may be reused for the post-copy flush. next_cmd[e]
** only moves forward; cmds_done counts DONE answers of this copy.
*/
#include "runtime/timing.h"
#include "sim/partition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "runtime/hostcall_agent.h"
#include "runtime/pcie_tos.h"
#include "util/xmalloc.h"

#define TM_MAX_GPUS 16

/* The driver: one port per GPU model's CP; sends the pending launches and
** records the answers. One port per DMA engine too: the copy commands of
** the copy in progress (cmds, owned, stable while the engine runs) are sent
** to their engine in order, each engine's stream on its own port so that a
** busy engine never holds back another's commands. */
typedef struct tm_driver {
    sim_comp base;            /* FIRST */
    uint32_t n;
    sim_port port[TM_MAX_GPUS];
    cp_msg msg[TM_MAX_GPUS];  /* the launch messages (owned) */
    bool to_send[TM_MAX_GPUS], done[TM_MAX_GPUS];
    bool with_dma;
    sim_port dma_port[TM_MAX_GPUS];
    dma_msg *cmds;            /* [ncmds] */
    uint8_t *cmd_model;       /* engine (GPU model) of each command */
    size_t ncmds, cmd_cap;
    size_t next_cmd[TM_MAX_GPUS]; /* next command index to look at */
    size_t cmds_done;
    /* PCIe scheduling (pcie_tos.h): the remaining-size list of the GPUs'
    ** transfers; a changed TC-to-VC map goes to the host tree's control
    ** port (vc_port), one message at a time (vc_busy until it returns). */
    pcie_tos tos;
    sim_port vc_port;
    sim_port *vc_ctrl;        /* the host tree's control port */
    bool has_vc, vc_busy;
    noc_vcmap_msg vc_msg;
    struct tm_replay *replay; /* mgs_timing_replay running, else NULL */
} tm_driver;

typedef struct tm_code {
    const gcn_emu_program *prog;
    uint32_t model;           /* GPU model the copy is for */
    uint64_t va;
} tm_code;

struct mgs_timing {
    mgs_devmem *mem;
    stat_registry *stats;
    sim_engine *eng;
    mem_pool *pool;
    platform *plat;
    uint32_t nmodels;
    tm_driver drv;
    mem_backing backing;      /* global physical addresses */
    mem_pagetable pt;
    um_pagemap um_pages;      /* the devmem's tables, for UM.Migrator */
    tm_code *codes;
    size_t ncodes, code_cap;
    uint64_t launch_code[TM_MAX_GPUS]; /* cp.launch_code = every, or 0 */
    uint64_t mem_per_gpu;
    gpu_launch launch[TM_MAX_GPUS]; /* the launch in flight, per model */
    uint64_t last_wgs[TM_MAX_GPUS];
    mgs_time replay_launch_time; /* of the last mgs_timing_replay */
    /* Posted and not yet synchronised (mgs_timing_post / _sync). */
    bool posted[TM_MAX_GPUS];
    uint32_t nposted;
    bool posted_all;          /* an MGS_GPU_ALL launch is among them */
    mgs_time post_start;      /* engine time when the first was posted */
    bool running[TM_MAX_GPUS]; /* launches run_posted is running */
    coh *coh;                 /* the platform's protocol (borrowed) */
    /* Host writes not yet made visible to model i's caches: applied at its
    ** next launch's acquire, or at once before the engine runs anything
    ** else that could touch them (apply_pending). */
    coh_sync pending[TM_MAX_GPUS];
    /* Each model's mark in the device memory's mapping changes (its last
    ** launch's acquire; cp.launch_tlb_shootdown = changed). */
    uint64_t change_mark[TM_MAX_GPUS];
    /* Device printf's listener (hostcall_agent.h), made at the first
    ** launch that passes a hostcall buffer. */
    struct hostcall_agent *hostcall;
    bool stopped;             /* a run ended early: messages may be out */
    int failed;               /* the first error of a launch, a copy or a
                                 run (MGS_OK while none): after it nothing
                                 more is simulated, since components may
                                 still hold work of the failed operation */
};

/* ---- driver ---- */

/* Sends engine e's next commands; takes its answers. */
static bool drv_dma(tm_driver *d, uint32_t e)
{
    bool progress = false;
    while (d->next_cmd[e] < d->ncmds) {
        size_t k = d->next_cmd[e];
        if (d->cmd_model[k] != e) {
            d->next_cmd[e]++;
            continue;
        }
        if (port_send(&d->dma_port[e], &d->cmds[k].base) != MGS_OK)
            break;
        d->next_cmd[e]++;
        progress = true;
    }
    const sim_msg *m;
    while ((m = port_retrieve(&d->dma_port[e]))) {
        d->cmds_done++;
        pcie_tos_done(&d->tos, e, ((const dma_msg *)m)->bytes,
                      eng_now(d->base.eng));
        progress = true;
    }
    return progress;
}

/* Sends the scheduler's new TC-to-VC map to the switches (one message in
** flight: it comes back as the acknowledgement). */
static bool drv_vcmap(tm_driver *d)
{
    bool progress = false;
    if (port_retrieve(&d->vc_port)) {
        d->vc_busy = false;
        progress = true;
    }
    if (!d->vc_busy && pcie_tos_take_map(&d->tos, &d->vc_msg.map)) {
        d->vc_msg.base.dst = d->vc_ctrl;  /* the ack came back to us */
        if (port_send(&d->vc_port, &d->vc_msg.base) == MGS_OK) {
            d->vc_busy = true;
            progress = true;
        } else {
            d->tos.dirty = true;    /* retry at the next tick */
        }
    }
    return progress;
}

static bool replay_tick(tm_driver *d);

static bool drv_tick(sim_comp *c)
{
    tm_driver *d = (tm_driver *)c;
    bool progress = d->has_vc && drv_vcmap(d);
    if (d->replay)
        return replay_tick(d) | progress;
    for (uint32_t e = 0; d->with_dma && e < d->n; e++)
        progress |= drv_dma(d, e);
    for (uint32_t i = 0; i < d->n; i++) {
        if (d->to_send[i] && port_send(&d->port[i], &d->msg[i].base) ==
                                 MGS_OK) {
            d->to_send[i] = false;
            progress = true;
        }
        if (port_retrieve(&d->port[i])) {
            d->done[i] = true;
            progress = true;
        }
    }
    return progress;
}

static bool replay_busy(const tm_driver *d);

static bool drv_busy(const sim_comp *c)
{
    const tm_driver *d = (const tm_driver *)c;
    if (d->vc_busy || d->tos.dirty || (d->replay && replay_busy(d)))
        return true;
    for (uint32_t i = 0; i < d->n; i++)
        if (d->to_send[i] || (d->with_dma && d->next_cmd[i] < d->ncmds))
            return true;
    /* Sent copy commands not yet answered: an engine lost track of them. */
    return d->with_dma && d->cmds_done < d->ncmds;
}

static const sim_comp_ops drv_ops = {
    .kind = "Driver", .tick = drv_tick, .busy = drv_busy};

/* ---- memory views ---- */

/* The walker of GPU model `gpu` walks that GPU's page table (a monolithic
** platform's one model walks GPU 0's: every table maps alike unless a
** scheme changed one). */
static int pt_translate(void *ud, int32_t gpu, uint32_t pid, uint64_t va,
                        uint64_t *pa)
{
    (void)pid;
    mgs_timing *t = ud;
    return mgs_devmem_translate(t->mem, gpu, va, pa);
}

static bool pt_readonly(void *ud, int32_t gpu, uint64_t va)
{
    mgs_timing *t = ud;
    return mgs_devmem_readonly(t->mem, gpu, va);
}

static unsigned pt_run_order(void *ud, int32_t gpu, uint64_t va)
{
    mgs_timing *t = ud;
    return mgs_devmem_run_order(t->mem, gpu, va);
}

/* DRAM reads and writes the physical frames themselves. */
static int phys_read(void *ud, uint64_t pa, void *dst, size_t n)
{
    mgs_timing *t = ud;
    return mgs_devmem_phys_read(t->mem, pa, dst, n);
}

static int phys_write(void *ud, uint64_t pa, const void *src, size_t n)
{
    mgs_timing *t = ud;
    return mgs_devmem_phys_write(t->mem, pa, src, n);
}

/* ---- the page tables as the IOMMU's fault handler changes them ---- */

_Static_assert(UM_HOST_TABLE == MGS_DEVMEM_HOST, "one id for the host table");

static uint64_t frame_addr(const mgs_timing *t, int gpu, uint32_t frame)
{
    return (uint64_t)gpu * t->mem->mem_per_gpu +
           ((uint64_t)frame << t->mem->page_shift);
}

static void frame_of(const mgs_timing *t, uint64_t pa, int *gpu,
                     uint32_t *frame)
{
    *gpu = (int)(pa / t->mem->mem_per_gpu);
    *frame = (uint32_t)((pa % t->mem->mem_per_gpu) >> t->mem->page_shift);
}

static bool um_lookup(void *ud, int table, uint64_t va, uint64_t *pa)
{
    mgs_timing *t = ud;
    return mgs_devmem_translate(t->mem, table, va, pa) == MGS_OK;
}

static int um_hold(void *ud, int gpu, uint64_t *pa)
{
    mgs_timing *t = ud;
    uint32_t f;
    int rc = mgs_devmem_frame_hold(t->mem, gpu, &f);
    *pa = rc ? 0 : frame_addr(t, gpu, f);
    return rc;
}

static void um_drop(void *ud, uint64_t pa)
{
    mgs_timing *t = ud;
    int g;
    uint32_t f;
    frame_of(t, pa, &g, &f);
    mgs_devmem_frame_drop(t->mem, g, f);
}

static int um_map(void *ud, int table, uint64_t va, uint64_t pa)
{
    mgs_timing *t = ud;
    int g;
    uint32_t f;
    frame_of(t, pa, &g, &f);
    return mgs_devmem_map(t->mem, table, va, g, f);
}

static int um_unmap(void *ud, int table, uint64_t va)
{
    mgs_timing *t = ud;
    return mgs_devmem_unmap(t->mem, table, va);
}

static int um_protect(void *ud, int table, uint64_t va, bool readonly)
{
    mgs_timing *t = ud;
    return mgs_devmem_set_readonly(t->mem, table, va, readonly);
}

static unsigned um_set_run(void *ud, int table, uint64_t va, unsigned order)
{
    mgs_timing *t = ud;
    return mgs_devmem_set_run(t->mem, table, va, order);
}

static int um_hold_run(void *ud, int gpu, uint32_t n, uint64_t *pa)
{
    mgs_timing *t = ud;
    uint32_t f;
    int rc = mgs_devmem_frame_hold_run(t->mem, gpu, n, &f);
    *pa = rc ? 0 : frame_addr(t, gpu, f);
    return rc;
}

static void um_keep(void *ud, uint64_t pa)
{
    mgs_timing *t = ud;
    int g;
    uint32_t f;
    frame_of(t, pa, &g, &f);
    mgs_devmem_frame_keep(t->mem, g, f);
}

/* ---- lifecycle ---- */

int mgs_timing_new(const gpu_build_config *gc, mgs_devmem *mem,
                   stat_registry *stats, mgs_timing **out)
{
    platform_config pc;
    platform_config_default(&pc);
    if (gc)
        pc.gpu = *gc;
    pc.gpu.gpu = 0;
    pc.gpu.phys_base = 0;
    pc.ngpus = (uint32_t)mem->num_gpus;
    return mgs_timing_new_platform(&pc, mem, stats, out);
}

int mgs_timing_new_platform(const platform_config *pc0, mgs_devmem *mem,
                            stat_registry *stats, mgs_timing **out)
{
    *out = NULL;
    platform_config pc = *pc0;
    if (pc.ngpus != (uint32_t)mem->num_gpus)
        return mgs_error_set(MGS_ECONFIG, "timing: platform of %u GPU(s) "
                             "for device memory of %d", pc.ngpus,
                             mem->num_gpus);
    uint64_t mem_per_gpu = mem->mem_per_gpu;
    pc.gpu.mem_bytes = mem_per_gpu;
    /* The devmem's pages are the ones the TLBs and walkers cache. */
    pc.gpu.l1_tlb.page_bytes = pc.gpu.l2_tlb.page_bytes =
        pc.gpu.mmu.page_bytes = (uint32_t)mem->page_size;
    int rc = platform_config_validate(&pc);
    if (rc)
        return rc;
    mgs_timing *t = MGS_NEW(mgs_timing);
    t->mem = mem;
    t->stats = stats;
    t->mem_per_gpu = mem_per_gpu;
    t->backing = (mem_backing){.read = phys_read, .write = phys_write,
                               .ud = t};
    t->pt = (mem_pagetable){.translate = pt_translate,
                            .readonly = pt_readonly,
                            .run_order = pt_run_order, .ud = t};
    t->um_pages = (um_pagemap){.lookup = um_lookup, .hold = um_hold,
                               .drop = um_drop, .map = um_map,
                               .unmap = um_unmap, .protect = um_protect,
                               .readonly = pt_readonly, .keep = um_keep,
                               .set_run = um_set_run,
                               .hold_run = um_hold_run,
                               .ud = t};
    pc.um_pages = &t->um_pages;
    t->eng = eng_new(NULL);
    t->pool = mem_pool_new();
    t->plat = platform_new(t->eng, &pc, t->pool, stats, &t->backing,
                           &t->pt);
    t->nmodels = platform_num_gpus(t->plat);
    t->coh = platform_coh(t->plat);
    tm_driver *d = &t->drv;
    comp_init(&d->base, t->eng, &drv_ops, "Driver", pc.gpu.period);
    d->n = t->nmodels;
    for (uint32_t i = 0; i < d->n; i++) {
        char name[32];
        snprintf(name, sizeof name, "port[%u]", i);
        port_init(&d->port[i], &d->base, name, 4);
        gpu_build_plug_driver(platform_gpu(t->plat, i), &d->port[i]);
    }
    d->with_dma = platform_dma(t->plat, 0) != NULL;
    for (uint32_t i = 0; d->with_dma && i < d->n; i++) {
        char name[32];
        snprintf(name, sizeof name, "dma[%u]", i);
        port_init(&d->dma_port[i], &d->base, name, 4);
        platform_plug_dma_driver(t->plat, &d->dma_port[i]);
    }
    uint64_t host_bw = 0;
    if (d->with_dma)
        (void)platform_host_link_bw(&pc, &host_bw);
    pcie_tos_init(&d->tos, pc.pcie_arbitration, pc.pcie_vcs, d->n, host_bw);
    if (platform_pcie_ctrl(t->plat)) {
        port_init(&d->vc_port, &d->base, "vcmap", 2);
        platform_plug_dma_driver(t->plat, &d->vc_port);
        d->vc_msg.base.type = NOC_VCMAP_SET;
        d->vc_msg.base.bytes = 32;  /* assumed: a small config write */
        d->vc_ctrl = platform_pcie_ctrl(t->plat);
        d->has_vc = true;
    }
    *out = t;
    return MGS_OK;
}

void mgs_timing_free(mgs_timing *t)
{
    if (!t)
        return;
    platform_free(t->plat);
    hostcall_agent_free(t->hostcall);
    for (uint32_t i = 0; i < t->drv.n; i++) {
        port_fini(&t->drv.port[i]);
        if (t->drv.with_dma)
            port_fini(&t->drv.dma_port[i]);
    }
    if (t->drv.has_vc)
        port_fini(&t->drv.vc_port);
    free(t->drv.cmds);
    free(t->drv.cmd_model);
    comp_fini(&t->drv.base);
    if (t->stopped)
        mem_pool_free_stopped(t->pool);
    else
        mem_pool_free(t->pool);
    eng_free(t->eng);
    for (size_t i = 0; i < t->ncodes; i++)
        mgs_devmem_free_range(t->mem, t->codes[i].va);
    for (uint32_t i = 0; i < TM_MAX_GPUS; i++)
        if (t->launch_code[i])
            mgs_devmem_free_range(t->mem, t->launch_code[i]);
    free(t->codes);
    free(t);
}

uint64_t mgs_timing_last_wgs(const mgs_timing *t, uint32_t i)
{
    return i < t->nmodels ? t->last_wgs[i] : 0;
}

platform *mgs_timing_platform(mgs_timing *t) { return t->plat; }

mgs_time mgs_timing_replay_launch_time(const mgs_timing *t)
{
    return t->replay_launch_time;
}

mgs_time mgs_timing_now(const mgs_timing *t) { return eng_now(t->eng); }
sim_engine *mgs_timing_engine(mgs_timing *t) { return t->eng; }

/* Uploads prog's code to fresh pages of GPU model `model`'s memory. */
static int upload_code(mgs_timing *t, const gcn_emu_program *prog,
                       uint32_t model, uint64_t *va)
{
    uint64_t d;
    /* One line of slack: fetches read whole 64-byte lines. */
    int rc = mgs_devmem_alloc_range(t->mem, (int)model, prog->code_size + 64,
                                    &d);
    if (rc)
        return rc;
    if ((rc = mgs_devmem_write(t->mem, d, prog->code, prog->code_size)) ||
        (rc = mgs_timing_host_write(t, d, prog->code_size + 64, false))) {
        mgs_devmem_free_range(t->mem, d);
        return rc;
    }
    *va = d;
    return MGS_OK;
}

static void keep_code(mgs_timing *t, const gcn_emu_program *prog,
                      uint32_t model, uint64_t va)
{
    if (t->ncodes == t->code_cap) {
        t->code_cap = t->code_cap ? 2 * t->code_cap : 8;
        t->codes = mgs_xrealloc(t->codes, t->code_cap * sizeof *t->codes);
    }
    t->codes[t->ncodes++] = (tm_code){.prog = prog, .model = model, .va = va};
}

/* The code model i's previous (completed) launch uploaded for itself:
** freed, or kept until mgs_timing_free (cp.launch_buffers = keep). */
static void release_launch_code(mgs_timing *t, uint32_t i)
{
    if (!t->launch_code[i])
        return;
    if (platform_get_config(t->plat)->gpu.cp.launch_keep)
        keep_code(t, NULL, i, t->launch_code[i]);
    else
        mgs_devmem_free_range(t->mem, t->launch_code[i]);
    t->launch_code[i] = 0;
}

/* Device address of prog's code for GPU model `model`: uploaded on first
** use and kept (cp.launch_code = once), or uploaded for this launch
** (every; MGPUSim v4.0.0's driver, docs/validation.md cause 11). */
static int code_va(mgs_timing *t, const gcn_emu_program *prog,
                   uint32_t model, uint64_t *va)
{
    if (platform_get_config(t->plat)->gpu.cp.launch_code_every) {
        release_launch_code(t, model);
        int rc = upload_code(t, prog, model, va);
        if (!rc)
            t->launch_code[model] = *va;
        return rc;
    }
    for (size_t i = 0; i < t->ncodes; i++)
        if (t->codes[i].prog == prog && t->codes[i].model == model) {
            *va = t->codes[i].va;
            return MGS_OK;
        }
    int rc = upload_code(t, prog, model, va);
    if (!rc)
        keep_code(t, prog, model, *va);
    return rc;
}


/* cp.launch_tlb_shootdown = changed: the acquire a of model i drops the
** TLB entries of the pages whose mapping changed since its previous launch
** only, or none (docs/validation.md, cause 8). */
static void launch_tlb_changes(mgs_timing *t, uint32_t i, coh_sync *a)
{
    if (!a->tlb || !platform_get_config(t->plat)->gpu.cp.launch_tlb_changed)
        return;
    uint64_t lo = 0, hi = 0;
    switch (mgs_devmem_changes_since(t->mem, &t->change_mark[i], &lo, &hi)) {
    case MGS_DEVMEM_CHANGES_NONE:
        a->tlb = COH_KEEP;
        a->tlb_span = false;
        break;
    case MGS_DEVMEM_CHANGES_SPAN:
        a->tlb_span = true;
        a->tlb_lo = lo;
        a->tlb_hi = hi;
        break;
    case MGS_DEVMEM_CHANGES_MANY:
        a->tlb_span = false;
        break;
    }
}

/* Fills model i's launch descriptor for work-groups [begin, end). */
static int prepare_launch(mgs_timing *t, uint32_t i, const gcn_emu_launch *el,
                          uint64_t begin, uint64_t end)
{
    gpu_launch *l = &t->launch[i];
    memset(l, 0, sizeof *l);
    int rc = code_va(t, el->prog, i, &l->code_va);
    if (rc)
        return rc;
    const gcn_kernel *k = el->prog->kernel;
    l->emu = *el;
    /* Data goes through the ports; the CUs only ask where allocations
    ** end (the bounds rule, gcn_mem_plan_past_end). */
    l->emu.mem_ops = &mgs_devmem_bounds_ops;
    l->emu.mem = t->mem;
    l->total_groups = 1;
    for (int d = 0; d < 3; d++) {
        l->num_groups[d] = gcn_emu_num_groups(el, d);
        l->total_groups *= l->num_groups[d];
    }
    uint64_t items = (uint64_t)el->block[0] * el->block[1] * el->block[2];
    l->waves_per_group = (uint32_t)((items + GCN_WAVE_LANES - 1) /
                                    GCN_WAVE_LANES);
    /* Kernel descriptor counts are already in allocation granules. */
    l->vgprs_per_wave = k->vgpr_count ? k->vgpr_count : 4;
    l->sgprs_per_wave = k->sgpr_count ? k->sgpr_count : 16;
    l->lds_per_group = el->lds_bytes;
    l->id = el->dispatch_id;
    /* An empty range must not read as "whole grid" (wg_end == 0). */
    l->wg_begin = begin < l->total_groups ? begin : l->total_groups;
    l->wg_end = end < l->total_groups ? end : l->total_groups;
    /* The protocol's fences, with the host writes (this launch's arguments
    ** and code among them) this GPU's caches have not seen yet. */
    coh_sync_at(t->coh, COH_LAUNCH, i, &l->acquire);
    coh_sync_merge(&l->acquire, &t->pending[i]);
    memset(&t->pending[i], 0, sizeof t->pending[i]);
    launch_tlb_changes(t, i, &l->acquire);
    coh_sync_at(t->coh, COH_KERNEL_END, i, &l->release);
    return MGS_OK;
}

/* Sends model i's prepared launch at the next driver tick. */
static void post_launch(mgs_timing *t, uint32_t i)
{
    tm_driver *d = &t->drv;
    memset(&d->msg[i], 0, sizeof d->msg[i]);
    d->msg[i].base.type = CP_LAUNCH;
    d->msg[i].base.dst = gpu_build_cp_port(platform_gpu(t->plat, i));
    d->msg[i].base.bytes = 64;
    d->msg[i].launch = &t->launch[i];
    d->to_send[i] = true;
    d->done[i] = false;
}

/* An empty launch: cache maintenance s only (the CP's release step). */
static void prepare_sync(mgs_timing *t, uint32_t i, const coh_sync *s)
{
    gpu_launch *l = &t->launch[i];
    memset(l, 0, sizeof *l);
    for (int k = 0; k < 3; k++)
        l->num_groups[k] = 1;
    l->total_groups = 1;
    l->waves_per_group = 1;
    l->vgprs_per_wave = 4;
    l->sgprs_per_wave = 16;
    l->wg_begin = l->wg_end = 1;   /* no work-group */
    l->release = *s;
}

/* eng_run, remembering a run that ended early (an error, a limit, a
** stop request) so that teardown expects messages still in flight. */
static int tm_run(mgs_timing *t)
{
    mgs_error_clear();
    int rc = eng_run(t->eng);
    /* A component that stops the engine (a network routing failure)
    ** records its error first: that error, not the unanswered work it
    ** leaves behind, is the run's. */
    if (rc == MGS_OK && eng_stop_requested(t->eng) && mgs_error_code())
        rc = mgs_error_code();
    if (rc || eng_stop_requested(t->eng))
        t->stopped = true;
    return rc;
}

/* Runs the engine until every posted launch answered. */
static int run_posted(mgs_timing *t, const bool *posted)
{
    comp_wake(&t->drv.base);
    memcpy(t->running, posted, sizeof t->running);
    int rc = tm_run(t);
    memset(t->running, 0, sizeof t->running);
    if (rc) {
        /* MGSIM_DUMP=1: print every component's state for debugging. */
        const char *dump = getenv("MGSIM_DUMP");
        if (dump && *dump && strcmp(dump, "0"))
            eng_dump(t->eng, stderr);
        return rc;
    }
    for (uint32_t i = 0; i < t->nmodels; i++)
        if (posted[i] && !t->drv.done[i] && (t->stopped = true))
            return mgs_error_set(MGS_EINTERNAL, "timing: the engine stopped "
                                 "before command processor %u finished", i);
    return MGS_OK;
}

void mgs_timing_progress_get(mgs_timing *t, mgs_timing_progress *out)
{
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < t->nmodels; i++) {
        uint64_t done, started, total;
        cp_progress(gpu_build_cp(platform_gpu(t->plat, i)), &done, &started,
                    &total);
        /* A GPU that finished its share of the running launch reports no
        ** launch: its share counts as done, so the totals do not shrink
        ** as GPUs finish. */
        if (!total && t->running[i] && t->drv.done[i]) {
            const gpu_launch *l = &t->launch[i];
            uint64_t end = l->wg_end ? l->wg_end : l->total_groups;
            if (end > l->wg_begin)
                done = started = total = end - l->wg_begin;
        }
        out->wgs_done += done;
        out->wgs_started += started;
        out->wgs_total += total;
    }
    out->wf_insts = platform_wf_insts(t->plat);
    out->copy_cmds_done = t->drv.cmds_done;
    out->copy_cmds_total = t->drv.ncmds;
}

bool mgs_timing_would_block(const mgs_timing *t, int gpu)
{
    if (!t->nposted)
        return false;
    if (gpu < 0 || t->posted_all)
        return true;
    return t->posted[platform_gpu_of(t->plat, gpu)];
}

int mgs_timing_post(mgs_timing *t, int gpu, const gcn_emu_launch *el)
{
    return mgs_timing_post_list(t, gpu, el, NULL, 0);
}

static int dev_phys(mgs_timing *t, uint64_t va, uint64_t *pa, int *gpu);

/* A launch with a hostcall buffer (el->host, runtime/hostcall.h): the
** listener is made on the buffer's GPU at the first one, and polls until
** the run is quiet. */
static int hostcall_listen(mgs_timing *t, mgs_hostcall *hc)
{
    if (!t->hostcall && eng_partition_count(t->eng) > 1)
        return mgs_error_set(MGS_ECONFIG, "sim.partition = gpu: device "
                             "printf's listener watches every partition's "
                             "queue; set sim.partition = none");
    if (!t->hostcall) {
        mgs_hostcall_layout lay;
        mgs_hostcall_layout_get(hc, &lay);
        uint64_t pa;
        int g = 0;
        int rc = dev_phys(t, lay.ready_stack, &pa, &g);
        if (rc)
            return rc;
        gpu_build *gb = platform_gpu(t->plat, platform_gpu_of(t->plat, g));
        t->hostcall = hostcall_agent_new(t->eng, hc, t->mem, t->pool,
                                         t->stats,
                                         platform_get_config(t->plat)->gpu.period);
        conn_plug(gpu_build_xbar(gb), hostcall_agent_port(t->hostcall));
        mem_route route;
        gpu_build_l1_route(gb, &route);
        hostcall_agent_set_route(t->hostcall, &route);
    }
    hostcall_agent_arm(t->hostcall);
    return MGS_OK;
}

int mgs_timing_post_list(mgs_timing *t, int gpu, const gcn_emu_launch *el,
                         const uint32_t *wgs, uint64_t nwgs)
{
    if (t->failed)
        return t->failed;     /* its message is already recorded */
    const platform_config *pc = platform_get_config(t->plat);
    if (gpu < -1 || gpu >= (int)pc->ngpus)
        return mgs_error_set(MGS_EINVAL, "timing: launch on GPU %d of %u",
                             gpu, pc->ngpus);
    if (mgs_timing_would_block(t, gpu))
        return mgs_error_set(MGS_EINTERNAL, "timing: launch on GPU %d "
                             "posted before the previous one was "
                             "synchronised", gpu);
    if (wgs && (gpu < 0 || !nwgs || t->nmodels != pc->ngpus))
        return mgs_error_set(MGS_EINTERNAL, "timing: a work-group list "
                             "needs one member GPU of a unified platform "
                             "and at least one work-group");
    bool target[TM_MAX_GPUS] = {false};
    uint32_t ntargets = 0;
    if (gpu < 0 && t->nmodels > 1) {
        for (uint32_t i = 0; i < t->nmodels; i++)
            target[i] = true;
        ntargets = t->nmodels;
    } else {
        target[platform_gpu_of(t->plat, gpu)] = true;
        ntargets = 1;
    }
    for (uint32_t i = 0, k = 0; i < t->nmodels; i++) {
        if (!target[i])
            continue;
        int rc = prepare_launch(t, i, el, 0, 0);
        if (rc)
            return rc;
        if (wgs) {
            /* A Locality API launch: only the listed work-groups. */
            t->launch[i].wg_list = wgs;
            t->launch[i].wg_begin = 0;
            t->launch[i].wg_end = nwgs;
        } else if (ntargets > 1) {
            /* Contiguous chunk k of ntargets (seed 002 §5.3.1). */
            uint64_t total = t->launch[i].total_groups;
            t->launch[i].wg_begin = total * k / ntargets;
            t->launch[i].wg_end = total * (k + 1) / ntargets;
            if (t->launch[i].wg_end == 0)      /* 0 means the whole grid */
                t->launch[i].wg_begin = t->launch[i].wg_end = total;
        }
        k++;
    }
    if (el->host) {
        int rc = hostcall_listen(t, el->host);
        if (rc)
            return rc;
    }
    if (!t->nposted)
        t->post_start = eng_now(t->eng);
    for (uint32_t i = 0; i < t->nmodels; i++)
        if (target[i]) {
            post_launch(t, i);
            t->posted[i] = true;
            t->nposted++;
        }
    t->posted_all |= ntargets > 1;
    return MGS_OK;
}

/* Peer release: GPUs whose L2 may hold data of the launches on target
** after their own release (remote writes to a GPU that did not run, or
** whose CP released before another GPU's last remote write), as the
** protocol says (timing.h). */
static int peer_release(mgs_timing *t, const bool *target, uint32_t ntargets)
{
    bool any = false, flush[TM_MAX_GPUS] = {false};
    for (uint32_t i = 0; i < t->nmodels && t->nmodels > 1; i++) {
        if (target[i] && ntargets == 1)
            continue;
        coh_sync s;
        coh_sync_at(t->coh, COH_PEER_RELEASE, i, &s);
        if (!coh_sync_any(&s))
            continue;
        flush[i] = any = true;
        prepare_sync(t, i, &s);
        post_launch(t, i);
    }
    return any ? run_posted(t, flush) : MGS_OK;
}

int mgs_timing_peer_release(mgs_timing *t)
{
    if (t->failed)
        return t->failed;
    bool target[TM_MAX_GPUS] = {false};
    int rc = peer_release(t, target, 0);
    if (rc)
        t->failed = rc;
    return rc;
}

int mgs_timing_sync(mgs_timing *t, mgs_timing_result *res)
{
    memset(res, 0, sizeof *res);
    memset(t->last_wgs, 0, sizeof t->last_wgs);
    if (!t->nposted)
        return MGS_OK;
    bool target[TM_MAX_GPUS];
    memcpy(target, t->posted, sizeof target);
    uint32_t ntargets = t->nposted;
    memset(t->posted, 0, sizeof t->posted);
    t->nposted = 0;
    t->posted_all = false;
    int rc = run_posted(t, target);
    if (rc)
        return t->failed = rc;
    int status = MGS_OK;
    for (uint32_t i = 0; i < t->nmodels; i++) {
        if (!target[i])
            continue;
        const cp_msg *m = &t->drv.msg[i];
        t->last_wgs[i] = m->wg_index;
        res->workgroups += m->wg_index;
        res->wavefronts += m->wg_index * t->launch[i].waves_per_group;
        res->wf_insts += m->wf_insts;
        /* The first GPU's (by index) whose launch failed: the same
        ** whatever thread ran it. */
        if (status == MGS_OK && m->status != MGS_OK)
            status = mgs_error_set(m->status, "%s", m->err);
    }
    /* After a failed launch nothing more is simulated: its error stays
    ** the run's (the first error wins). */
    if (!status && (rc = peer_release(t, target, ntargets)))
        return t->failed = rc;
    res->sim_time = eng_now(t->eng) - t->post_start;
    t->failed = status;
    return status;
}

int mgs_timing_launch(mgs_timing *t, int gpu, const gcn_emu_launch *el,
                      mgs_timing_result *res)
{
    memset(res, 0, sizeof *res);
    int rc = mgs_timing_would_block(t, gpu) ? mgs_timing_sync(t, res)
                                            : MGS_OK;
    if (rc || (rc = mgs_timing_post(t, gpu, el)))
        return rc;
    return mgs_timing_sync(t, res);
}

/* ---- copies through the DMA engines ---- */

bool mgs_timing_has_dma(const mgs_timing *t) { return t->drv.with_dma; }

/* Physical address of device VA va in the host's page table (the
** driver's view, as for every host copy); MGS_EFAULT (the devmem's
** message) if it is not mapped there. */
static int dev_phys(mgs_timing *t, uint64_t va, uint64_t *pa, int *gpu)
{
    if (mgs_devmem_translate(t->mem, MGS_DEVMEM_HOST, va, pa) != MGS_OK) {
        uint8_t probe;
        int rc = mgs_devmem_read(t->mem, va, &probe, 1);
        return rc ? rc : mgs_error_set(MGS_EFAULT, "copy: device address "
                                       "0x%llx is not mapped",
                                       (unsigned long long)va);
    }
    *gpu = (int)(*pa / t->mem_per_gpu);
    /* A host frame (memory.spill_ppm, platform/host_frames.h): GPU 0's
    ** DMA engine carries it, through its RDMA engine and the host link. */
    if (*gpu >= t->mem->num_gpus)
        *gpu = 0;
    return MGS_OK;
}

/* A run at device address va: *len shrinks to the end of va's page;
** *pa and *gpu receive its physical address and GPU. */
static int dev_run(mgs_timing *t, uint64_t va, uint64_t *len, uint64_t *pa,
                   int *gpu)
{
    uint64_t page = t->mem->page_size;
    uint64_t room = page - (va & (page - 1));
    if (*len > room)
        *len = room;
    return dev_phys(t, va, pa, gpu);
}

/* ---- host-visible points ---- */

/* Runs the maintenance in s[i] on every model i that has any, at once (the
** engine is idle: nothing posted). */
static int run_maintenance(mgs_timing *t, coh_sync *s)
{
    bool which[TM_MAX_GPUS] = {false}, any = false;
    for (uint32_t i = 0; i < t->nmodels; i++) {
        if (!coh_sync_any(&s[i]))
            continue;
        which[i] = any = true;
        prepare_sync(t, i, &s[i]);
        post_launch(t, i);
    }
    if (!any)
        return MGS_OK;
    /* Maintenance also runs in cleanup after a failure (frees): an error
    ** already recorded stays the run's error (the first error wins). */
    int prev = mgs_error_code();
    char saved[1024] = "";
    if (prev)
        snprintf(saved, sizeof saved, "%s", mgs_error_msg());
    int rc = run_posted(t, which);
    if (rc == MGS_OK && prev)
        mgs_error_set(prev, "%s", saved);
    return rc;
}

static int apply_pending(mgs_timing *t)
{
    if (t->nposted || t->failed)
        return MGS_OK;        /* applied at each posted launch's acquire,
                                 or nothing is simulated any more */
    coh_sync s[TM_MAX_GPUS];
    memcpy(s, t->pending, sizeof s);
    memset(t->pending, 0, sizeof t->pending);
    return run_maintenance(t, s);
}

/* The protocol's answer at host point p for every model, over the
** physical runs of [va, va + n) (translated once), merged into out. */
static int host_point(mgs_timing *t, coh_point p, uint64_t va, uint64_t n,
                      coh_sync *out)
{
    coh_sync runs;
    bool have_runs = false;
    for (uint32_t i = 0; i < t->nmodels; i++) {
        coh_sync s;
        coh_sync_at(t->coh, p, i, &s);
        if (!s.l2)
            continue;
        if (!have_runs) {
            memset(&runs, 0, sizeof runs);
            runs.l2 = s.l2;
            for (uint64_t off = 0; off < n;) {
                uint64_t len = n - off, pa;
                int gpu, rc = dev_run(t, va + off, &len, &pa, &gpu);
                if (rc)
                    return rc;
                coh_sync_add_range(&runs, pa, len);
                off += len;
            }
            have_runs = true;
        }
        s.l2_all = runs.l2_all;
        s.nranges = runs.nranges;
        memcpy(s.range, runs.range, sizeof s.range);
        coh_sync_merge(&out[i], &s);
    }
    return MGS_OK;
}

/* The host writes [va, va + n) of device memory: under esi the range's
** replicas collapse to the host table's copy first (um.h). */
static void host_writes(mgs_timing *t, uint64_t va, uint64_t n)
{
    struct um_migrator *u = platform_um(t->plat);
    if (u)
        um_migrator_host_write(u, va, n);
}

void mgs_timing_placed(mgs_timing *t, uint64_t va, uint64_t n, int gpu)
{
    struct um_migrator *u = platform_um(t->plat);
    if (u)
        um_migrator_placed(u, va, n, gpu);
}

int mgs_timing_host_write(mgs_timing *t, uint64_t va, uint64_t n, bool now)
{
    host_writes(t, va, n);
    if (!now)
        return host_point(t, COH_HOST_WRITE, va, n, t->pending);
    if (t->nposted)
        return mgs_error_set(MGS_EINTERNAL, "timing: host write while "
                             "launches are posted (synchronise first)");
    int rc = host_point(t, COH_HOST_WRITE, va, n, t->pending);
    return rc ? rc : apply_pending(t);
}

int mgs_timing_host_read(mgs_timing *t, uint64_t va, uint64_t n)
{
    if (t->nposted)
        return mgs_error_set(MGS_EINTERNAL, "timing: host read while "
                             "launches are posted (synchronise first)");
    int rc = host_point(t, COH_HOST_READ, va, n, t->pending);
    return rc ? rc : apply_pending(t);
}

/* Appends (or extends the last command of model e with) one run. */
static void add_cmd(tm_driver *d, uint32_t e, dma_space ss, uint64_t src,
                    dma_space ds, uint64_t dst, uint64_t len, uint32_t flags,
                    sim_port *ctrl)
{
    for (size_t k = d->ncmds; k-- > 0;) {
        if (d->cmd_model[k] != e)
            continue;
        dma_msg *m = &d->cmds[k];
        if (m->flags == flags && m->src + m->bytes == src &&
            m->dst + m->bytes == dst) {
            m->bytes += len;
            return;
        }
        break;
    }
    if (d->ncmds == d->cmd_cap) {
        d->cmd_cap = d->cmd_cap ? 2 * d->cmd_cap : 64;
        d->cmds = mgs_xrealloc(d->cmds, d->cmd_cap * sizeof *d->cmds);
        d->cmd_model = mgs_xrealloc(d->cmd_model, d->cmd_cap);
    }
    dma_msg *m = &d->cmds[d->ncmds];
    dma_msg_init(m, ss, src, ds, dst, len);
    m->flags = flags;
    m->base.dst = ctrl;
    d->cmd_model[d->ncmds++] = (uint8_t)e;
}

static int copy_run(mgs_timing *t, mgs_timing_copy_kind kind, uint64_t dst,
                    uint64_t src, uint64_t n, mgs_timing_copy_result *res)
{
    memset(res, 0, sizeof *res);
    tm_driver *d = &t->drv;
    if (!d->with_dma)
        return mgs_error_set(MGS_EINTERNAL, "timing: copy without DMA "
                             "engines (platform.copy_timing = instant)");
    if (t->nposted)
        return mgs_error_set(MGS_EINTERNAL, "timing: copy while launches "
                             "are posted (synchronise first)");
    if (n == 0)
        return MGS_OK;
    bool src_dev = kind != MGS_TIMING_H2D, dst_dev = kind != MGS_TIMING_D2H;
    bool touched[TM_MAX_GPUS] = {false};
    int rc0 = apply_pending(t);
    if (rc0)
        return rc0;
    if (dst_dev)
        host_writes(t, dst, n);
    d->ncmds = d->cmds_done = 0;
    memset(d->next_cmd, 0, sizeof d->next_cmd);
    /* Split into runs within one page of each device side (pages of a
    ** buffer may be scattered, and MGS_GPU_ALL spreads them over GPUs);
    ** physically contiguous runs of one engine merge into one command. */
    for (uint64_t off = 0; off < n;) {
        uint64_t len = n - off;
        uint64_t s = src + off, dd = dst + off, spa = s, dpa = dd;
        int sg = -1, dg = -1, rc;
        if (src_dev && (rc = dev_run(t, s, &len, &spa, &sg)))
            return rc;
        if (dst_dev && (rc = dev_run(t, dd, &len, &dpa, &dg)))
            return rc;
        /* The engine of the GPU that owns the device side (peer: the
        ** source's); the L2s it may leave lines in get flushed after. */
        uint32_t e = platform_gpu_of(t->plat, src_dev ? sg : dg);
        uint32_t flags = 0;
        touched[e] = true;
        if (src_dev && dst_dev && sg != dg) {
            uint32_t de = platform_gpu_of(t->plat, dg);
            if (de != e)
                flags = DMA_F_PEER;
            touched[de] = true;
        }
        add_cmd(d, e, src_dev ? DMA_SPACE_DEVICE : DMA_SPACE_HOST, spa,
                dst_dev ? DMA_SPACE_DEVICE : DMA_SPACE_HOST, dpa, len, flags,
                dma_ctrl(platform_dma(t->plat, e)));
        off += len;
    }
    mgs_time start = eng_now(t->eng);
    /* One new transfer per engine for the PCIe scheduler. */
    uint64_t per_engine[TM_MAX_GPUS] = {0};
    for (size_t k = 0; k < d->ncmds; k++)
        per_engine[d->cmd_model[k]] += d->cmds[k].bytes;
    for (uint32_t e = 0; e < t->nmodels; e++)
        if (per_engine[e])
            pcie_tos_add(&d->tos, e, per_engine[e], 0, start);
    comp_wake(&d->base);
    int rc = tm_run(t);
    if (rc)
        return rc;
    if (d->cmds_done != d->ncmds) {
        t->stopped = true;
        return mgs_error_set(MGS_EINTERNAL, "timing: the engine stopped with "
                             "%zu of %zu copy commands unanswered",
                             d->ncmds - d->cmds_done, d->ncmds);
    }
    for (size_t k = 0; k < d->ncmds; k++)
        if (d->cmds[k].status != MGS_OK)
            return mgs_error_set(MGS_ESIM, "timing: DMA copy of %llu bytes "
                                 "from 0x%llx to 0x%llx failed (%d)",
                                 (unsigned long long)d->cmds[k].bytes,
                                 (unsigned long long)d->cmds[k].src,
                                 (unsigned long long)d->cmds[k].dst,
                                 d->cmds[k].status);
    res->commands = d->ncmds;
    d->ncmds = 0;
    /* Coherence: the engines went through these GPUs' L2s; the protocol
    ** says what that needs (nc on several GPUs: write back and drop them,
    ** so no cache holds dirty or stale data between runtime operations). */
    bool any = false;
    for (uint32_t i = 0; i < t->nmodels; i++) {
        coh_sync s;
        coh_sync_at(t->coh, COH_COPY_END, i, &s);
        touched[i] = touched[i] && coh_sync_any(&s);
        if (touched[i]) {
            any = true;
            prepare_sync(t, i, &s);
            post_launch(t, i);
        }
    }
    if (any && (rc = run_posted(t, touched)))
        return rc;
    res->time = eng_now(t->eng) - start;
    res->bytes = n;
    return MGS_OK;
}

int mgs_timing_copy(mgs_timing *t, mgs_timing_copy_kind kind, uint64_t dst,
                    uint64_t src, uint64_t n, mgs_timing_copy_result *res)
{
    if (t->failed) {
        memset(res, 0, sizeof *res);
        return t->failed;     /* its message is already recorded */
    }
    int rc = copy_run(t, kind, dst, src, n, res);
    /* A copy that ran and failed leaves work in the components; one
    ** refused before any traffic (an unmapped page) does not. */
    if (rc && rc != MGS_EFAULT)
        t->failed = rc;
    return rc;
}

/* ---- replayed programs (mgs_timing_replay) ---- */

/* RP_WAIT_LAUNCH / RP_WAIT_SYNC: the op's launch (or a copy's
** maintenance) waits for its GPU model's command processor, which another
** task on the same model holds (cp_owner). */
enum { RP_IDLE, RP_COPY, RP_SYNC, RP_LAUNCH, RP_WAIT_LAUNCH, RP_WAIT_SYNC,
       RP_DONE };

typedef struct tm_rtask {
    const mgs_timing_task *task;
    uint32_t e;               /* GPU model */
    dma_msg **cmds;           /* per op: its commands (copies), else NULL */
    size_t *ncmds;
    uint64_t *bytes;          /* per op: bytes of a copy */
    mgs_time *sum;            /* per op: time summed over the iterations */
    uint64_t *count;
    size_t op;                /* current op */
    int phase;
    size_t sent, done;
    coh_sync wait_sync;       /* RP_WAIT_SYNC: the maintenance to post */
    mgs_time op_start, iter_start;
    mgs_timing_task_result r;
} tm_rtask;

typedef struct tm_replay {
    mgs_timing *t;
    tm_rtask *tasks;
    uint32_t n;
    /* Per GPU model: the task (index + 1) whose launch or maintenance the
    ** command processor runs, 0 while free. Tasks of one model share its
    ** DMA engine: an answer belongs to the task whose commands hold it. */
    uint32_t cp_owner[TM_MAX_GPUS];
    mgs_time end;             /* no iteration starts at or after it */
    mgs_time window_start;
    int status;               /* first simulation error */
    /* Launches holding a command processor now, since when, and the time
    ** so far during which at least one did (mgs_timing_replay_launch_time:
    ** the runtime counts that part of a replay as kernel time). */
    uint32_t launches_running;
    mgs_time launches_since, launch_time;
} tm_replay;

/* The op's commands, all on engine e: physically contiguous page runs
** merged up to TM_REPLAY_CMD bytes, so the remaining-size list moves in
** steps of that size. Assumed 64 KB: an engine serves max_copies (4)
** commands at once and frees one only when its last chunk is written, so
** 4 x 64 KB in flight keep a PCIe 6.0 link busy over a ~1 us round trip,
** while page-sized commands (16 KB in flight) would slow a copy. */
#define TM_REPLAY_CMD (64u << 10)
static int replay_resolve(mgs_timing *t, const mgs_timing_op *op, uint32_t e,
                          dma_msg **out, size_t *nout)
{
    bool src_dev = op->copy != MGS_TIMING_H2D;
    bool dst_dev = op->copy != MGS_TIMING_D2H;
    size_t n = 0, cap = 0;
    dma_msg *v = NULL;
    for (uint64_t off = 0; off < op->n;) {
        uint64_t len = op->n - off, spa = op->src + off, dpa = op->dst + off;
        int sg = -1, dg = -1, rc = MGS_OK;
        if (src_dev)
            rc = dev_run(t, op->src + off, &len, &spa, &sg);
        if (!rc && dst_dev)
            rc = dev_run(t, op->dst + off, &len, &dpa, &dg);
        if (!rc && ((src_dev && platform_gpu_of(t->plat, sg) != e) ||
                    (dst_dev && platform_gpu_of(t->plat, dg) != e)))
            rc = mgs_error_set(MGS_EINVAL, "replay: a copy of the task on "
                               "GPU model %u touches another GPU's memory",
                               e);
        if (rc) {
            free(v);
            return rc;
        }
        if (n && v[n - 1].src + v[n - 1].bytes == spa &&
            v[n - 1].dst + v[n - 1].bytes == dpa &&
            v[n - 1].bytes + len <= TM_REPLAY_CMD) {
            v[n - 1].bytes += len;
            off += len;
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            v = mgs_xrealloc(v, cap * sizeof *v);
        }
        dma_msg_init(&v[n], src_dev ? DMA_SPACE_DEVICE : DMA_SPACE_HOST, spa,
                     dst_dev ? DMA_SPACE_DEVICE : DMA_SPACE_HOST, dpa, len);
        v[n].base.dst = dma_ctrl(platform_dma(t->plat, e));
        n++;
        off += len;
    }
    *out = v;
    *nout = n;
    return MGS_OK;
}

static void replay_fail(tm_replay *rp, int rc)
{
    if (!rp->status)
        rp->status = rc;
    eng_stop(rp->t->eng);
}

/* Task k waits in RP_WAIT_LAUNCH or RP_WAIT_SYNC: posts its launch (or
** its copy's maintenance) if its model's command processor is free. */
static bool replay_take_cp(tm_replay *rp, tm_rtask *k)
{
    mgs_timing *t = rp->t;
    uint32_t self = (uint32_t)(k - rp->tasks) + 1;
    if (rp->cp_owner[k->e] && rp->cp_owner[k->e] != self)
        return false;
    if (k->phase == RP_WAIT_SYNC) {
        prepare_sync(t, k->e, &k->wait_sync);
        k->phase = RP_SYNC;
    } else {
        int rc = prepare_launch(t, k->e, &k->task->ops[k->op].launch, 0, 0);
        if (rc) {
            replay_fail(rp, rc);
            k->phase = RP_DONE;
            return true;
        }
        k->phase = RP_LAUNCH;
        if (!rp->launches_running++)
            rp->launches_since = eng_now(t->eng);
    }
    rp->cp_owner[k->e] = self;
    post_launch(t, k->e);
    return true;
}

/* Starts op k->op of task k (or a new iteration at op 0). */
static void replay_start_op(tm_replay *rp, tm_rtask *k, mgs_time now)
{
    mgs_timing *t = rp->t;
    const mgs_timing_op *op = &k->task->ops[k->op];
    k->op_start = now;
    if (op->kind == MGS_TIMING_OP_COPY) {
        for (size_t i = 0; i < k->ncmds[k->op]; i++) {
            dma_msg *m = &k->cmds[k->op][i];
            m->base.type = DMA_COPY;
            m->base.dst = dma_ctrl(platform_dma(t->plat, k->e));
            m->status = MGS_OK;
        }
        k->sent = k->done = 0;
        mgs_time dl = 0;
        if (k->task->qos && k->task->uncontended) {
            dl = now + (mgs_time)k->task->deadline_factor *
                           k->task->uncontended[k->op];
            k->r.qos_copies++;
        }
        pcie_tos_add(&t->drv.tos, k->e, k->bytes[k->op], dl, now);
        k->phase = RP_COPY;
        return;
    }
    k->phase = RP_WAIT_LAUNCH;
    replay_take_cp(rp, k);
}

/* The current op of task k finished at `now`: the next one, or the end of
** an iteration (host check; a new one unless the window is over). */
static void replay_next(tm_replay *rp, tm_rtask *k, mgs_time now)
{
    const mgs_timing_task *task = k->task;
    k->sum[k->op] += now - k->op_start;
    k->count[k->op]++;
    if (++k->op < task->nops) {
        replay_start_op(rp, k, now);
        return;
    }
    k->op = 0;
    if (task->host && task->host(task->ud, 1) != MGS_OK)
        k->r.verify_failures++;
    if (now <= rp->end) {
        k->r.iterations++;
        k->r.milli_iterations += 1000;
    } else if (k->iter_start < rp->end) {
        k->r.milli_iterations += 1000 * (rp->end - k->iter_start) /
                                 (now - k->iter_start);
    }
    if (now >= rp->end) {
        k->phase = RP_DONE;
        return;
    }
    k->iter_start = now;
    if (task->host)
        task->host(task->ud, 0);
    replay_start_op(rp, k, now);
}

static bool replay_task_tick(tm_replay *rp, tm_rtask *k)
{
    tm_driver *d = &rp->t->drv;
    mgs_time now = eng_now(d->base.eng);
    bool progress = false;
    if (k->phase == RP_COPY) {
        dma_msg *v = k->cmds[k->op];
        size_t n = k->ncmds[k->op];
        /* Copies of several streams on one engine: one command each per
        ** tick, so the engine's queue interleaves them (an h2d and a d2h
        ** then share the engine's slots and use both link directions). */
        bool shared = false;
        for (uint32_t i = 0; i < rp->n && !shared; i++)
            shared = &rp->tasks[i] != k && rp->tasks[i].e == k->e &&
                     rp->tasks[i].phase == RP_COPY &&
                     rp->tasks[i].sent < rp->tasks[i].ncmds[rp->tasks[i].op];
        while (k->sent < n &&
               port_send(&d->dma_port[k->e], &v[k->sent].base) == MGS_OK) {
            k->sent++;
            progress = true;
            if (shared)
                break;
        }
        if (k->done < n)
            return progress;
        k->r.copies++;
        k->r.copy_time += now - k->op_start;
        if (k->task->qos && k->task->uncontended &&
            now - k->op_start > (mgs_time)k->task->deadline_factor *
                                    k->task->uncontended[k->op])
            k->r.deadline_misses++;
        /* The protocol's maintenance after a copy (as mgs_timing_copy). */
        coh_sync cs;
        coh_sync_at(rp->t->coh, COH_COPY_END, k->e, &cs);
        if (coh_sync_any(&cs)) {
            k->wait_sync = cs;
            k->phase = RP_WAIT_SYNC;
            replay_take_cp(rp, k);
            return true;
        } else {
            replay_next(rp, k, now);
            return true;
        }
    }
    if (k->phase == RP_WAIT_LAUNCH || k->phase == RP_WAIT_SYNC)
        return replay_take_cp(rp, k);
    if (k->phase == RP_SYNC || k->phase == RP_LAUNCH) {
        uint32_t e = k->e;
        if (d->to_send[e] && port_send(&d->port[e], &d->msg[e].base) ==
                                 MGS_OK) {
            d->to_send[e] = false;
            progress = true;
        }
        if (port_retrieve(&d->port[e])) {
            progress = true;
            rp->cp_owner[e] = 0;
            if (d->msg[e].status != MGS_OK) {
                replay_fail(rp, mgs_error_set(d->msg[e].status, "%s",
                                              d->msg[e].err));
                k->phase = RP_DONE;
                return true;
            }
            if (k->phase == RP_LAUNCH) {
                const cp_msg *m = &d->msg[e];
                if (!--rp->launches_running)
                    rp->launch_time += now - rp->launches_since;
                k->r.workgroups += m->wg_index;
                k->r.wavefronts += m->wg_index *
                                   rp->t->launch[e].waves_per_group;
                k->r.wf_insts += m->wf_insts;
            }
            /* A copy's time includes its maintenance (RP_SYNC). */
            replay_next(rp, k, now);
        }
    }
    return progress;
}

/* Takes engine e's answers and counts each for the task (on model e, in
** RP_COPY) whose current copy's commands hold it. */
static bool replay_dma_answers(tm_replay *rp, uint32_t e)
{
    tm_driver *d = &rp->t->drv;
    mgs_time now = eng_now(d->base.eng);
    bool progress = false;
    const dma_msg *m;
    while ((m = (const dma_msg *)port_retrieve(&d->dma_port[e]))) {
        progress = true;
        tm_rtask *k = NULL;
        for (uint32_t i = 0; i < rp->n && !k; i++) {
            tm_rtask *c = &rp->tasks[i];
            if (c->e == e && c->phase == RP_COPY &&
                m >= c->cmds[c->op] && m < c->cmds[c->op] + c->ncmds[c->op])
                k = c;
        }
        if (!k) {
            replay_fail(rp, mgs_error_set(MGS_EINTERNAL, "replay: a DMA "
                                          "answer of engine %u belongs to "
                                          "no copy in progress", e));
            return true;
        }
        k->done++;
        pcie_tos_done(&d->tos, e, m->bytes, now);
        if (m->status != MGS_OK) {
            replay_fail(rp, mgs_error_set(MGS_ESIM, "replay: DMA copy of "
                                          "%llu bytes failed (%d)",
                                          (unsigned long long)m->bytes,
                                          m->status));
            k->phase = RP_DONE;
        }
    }
    return progress;
}

static bool replay_tick(tm_driver *d)
{
    bool progress = false;
    for (uint32_t e = 0; e < d->n; e++)
        progress |= replay_dma_answers(d->replay, e);
    for (uint32_t i = 0; i < d->replay->n; i++)
        if (d->replay->tasks[i].phase != RP_DONE)
            progress |= replay_task_tick(d->replay, &d->replay->tasks[i]);
    return progress;
}

static bool replay_busy_any(const tm_replay *rp)
{
    for (uint32_t i = 0; i < rp->n; i++)
        if (rp->tasks[i].phase != RP_DONE)
            return true;
    return false;
}

static bool replay_busy(const tm_driver *d)
{
    return replay_busy_any(d->replay);
}

static void replay_free(tm_replay *rp)
{
    for (uint32_t i = 0; i < rp->n; i++) {
        tm_rtask *k = &rp->tasks[i];
        for (size_t j = 0; k->cmds && j < k->task->nops; j++)
            free(k->cmds[j]);
        free(k->cmds);
        free(k->ncmds);
        free(k->bytes);
        free(k->sum);
        free(k->count);
    }
    free(rp->tasks);
}

int mgs_timing_replay(mgs_timing *t, const mgs_timing_task *tasks, uint32_t n,
                      mgs_time window, mgs_timing_task_result *res)
{
    if (t->failed)
        return t->failed;
    tm_driver *d = &t->drv;
    if (!d->with_dma)
        return mgs_error_set(MGS_EINTERNAL, "replay: needs DMA engines "
                             "(platform.copy_timing = dma)");
    if (t->nposted)
        return mgs_error_set(MGS_EINTERNAL, "replay: launches are posted "
                             "(synchronise first)");
    int rc = apply_pending(t);
    if (rc)
        return rc;
    tm_replay rp = {.t = t, .n = n};
    rp.tasks = mgs_xcalloc(n ? n : 1, sizeof *rp.tasks);
    for (uint32_t i = 0; i < n && !rc; i++) {
        tm_rtask *k = &rp.tasks[i];
        const mgs_timing_task *tk = &tasks[i];
        k->task = tk;
        if (tk->gpu < 0 || tk->gpu >= (int)platform_get_config(t->plat)->ngpus ||
            !tk->nops) {
            rc = mgs_error_set(MGS_EINVAL, "replay: task %u: GPU %d, %zu "
                               "operations", i, tk->gpu, tk->nops);
            break;
        }
        k->e = platform_gpu_of(t->plat, tk->gpu);
        k->cmds = mgs_xcalloc(tk->nops, sizeof *k->cmds);
        k->ncmds = mgs_xcalloc(tk->nops, sizeof *k->ncmds);
        k->bytes = mgs_xcalloc(tk->nops, sizeof *k->bytes);
        k->sum = mgs_xcalloc(tk->nops, sizeof *k->sum);
        k->count = mgs_xcalloc(tk->nops, sizeof *k->count);
        for (size_t j = 0; j < tk->nops && !rc; j++) {
            const mgs_timing_op *op = &tk->ops[j];
            if (op->kind != MGS_TIMING_OP_COPY) {
                /* A replayed launch that may call printf: its listener
                ** is armed before the run (the replay posts it inside). */
                if (op->launch.host)
                    rc = hostcall_listen(t, op->launch.host);
                continue;
            }
            k->bytes[j] = op->n;
            rc = replay_resolve(t, op, k->e, &k->cmds[j], &k->ncmds[j]);
            if (!rc && !k->ncmds[j])
                rc = mgs_error_set(MGS_EINVAL, "replay: empty copy");
        }
    }
    if (!rc) {
        mgs_time now = eng_now(t->eng);
        rp.window_start = now;
        rp.end = now + window;
        for (uint32_t i = 0; i < n; i++) {
            tm_rtask *k = &rp.tasks[i];
            k->iter_start = now;
            if (k->task->host)
                k->task->host(k->task->ud, 0);
            replay_start_op(&rp, k, now);
        }
        d->replay = &rp;
        comp_wake(&d->base);
        rc = tm_run(t);
        d->replay = NULL;
        if (!rc && rp.status)
            rc = rp.status;
        if (!rc && replay_busy_any(&rp))
            rc = mgs_error_set(MGS_EINTERNAL, "replay: the engine stopped "
                               "before every task finished");
        if (rc) {
            t->stopped = true;
            t->failed = rc;
        }
    }
    t->replay_launch_time = rc ? 0 : rp.launch_time;
    for (uint32_t i = 0; i < n && !rc; i++) {
        tm_rtask *k = &rp.tasks[i];
        res[i] = k->r;
        for (size_t j = 0; tasks[i].op_time && j < tasks[i].nops; j++)
            tasks[i].op_time[j] = k->count[j] ? k->sum[j] / k->count[j] : 0;
    }
    replay_free(&rp);
    return rc;
}

void mgs_timing_pcie_counts(const mgs_timing *t, uint64_t *remaps,
                            uint64_t *promotions)
{
    *remaps = t->drv.tos.remaps;
    *promotions = t->drv.tos.promotions;
}
