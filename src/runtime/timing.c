/*
** Timing-mode launch path (timing.h): driver component, device-memory
** views, launch loop.
**
** Invariants: revmap[p] is a page-table index whose entry may be stale
** (the page was freed or remapped since); a lookup is valid only if that
** entry is live, on this GPU and maps phys page p. Uploaded code stays
** mapped until mgs_timing_free.
*/
#include "runtime/timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#define NO_PTE UINT32_MAX

/* The driver: one port to the CP; sends the pending launch and records
** the answer. */
typedef struct tm_driver {
    sim_comp base;            /* FIRST */
    sim_port port;
    cp_msg msg;               /* the launch message (owned) */
    bool to_send, done;
} tm_driver;

typedef struct tm_code {
    const gcn_emu_program *prog;
    uint64_t va;
} tm_code;

struct mgs_timing {
    mgs_devmem *mem;
    stat_registry *stats;
    sim_engine *eng;
    mem_pool *pool;
    gpu_build *gpu;
    tm_driver drv;
    mem_backing backing;
    mem_pagetable pt;
    uint32_t *revmap;         /* phys page -> pte index (GPU 0) */
    uint64_t npages;
    tm_code *codes;
    size_t ncodes, code_cap;
    uint64_t mem_per_gpu;
    gpu_launch launch;        /* the launch in flight */
};

/* ---- driver ---- */

static bool drv_tick(sim_comp *c)
{
    tm_driver *d = (tm_driver *)c;
    bool progress = false;
    if (d->to_send && port_send(&d->port, &d->msg.base) == MGS_OK) {
        d->to_send = false;
        progress = true;
    }
    sim_msg *m = port_retrieve(&d->port);
    if (m) {
        d->done = true;
        progress = true;
    }
    return progress;
}

static bool drv_busy(const sim_comp *c)
{
    const tm_driver *d = (const tm_driver *)c;
    return d->to_send;
}

static const sim_comp_ops drv_ops = {
    .kind = "Driver", .tick = drv_tick, .busy = drv_busy};

/* ---- memory views ---- */

static int pt_translate(void *ud, uint32_t pid, uint64_t va, uint64_t *pa)
{
    (void)pid;
    mgs_timing *t = ud;
    mgs_devmem *m = t->mem;
    if (va < MGS_DEVMEM_VA_BASE)
        return MGS_EFAULT;
    uint64_t idx = (va - MGS_DEVMEM_VA_BASE) >> MGS_DEVMEM_PAGE_SHIFT;
    if (idx >= m->npte || m->ptes[idx].gpu < 0)
        return MGS_EFAULT;
    const mgs_devmem_pte *p = &m->ptes[idx];
    *pa = (uint64_t)p->gpu * t->mem_per_gpu +
          ((uint64_t)p->phys_page << MGS_DEVMEM_PAGE_SHIFT) +
          (va & (MGS_DEVMEM_PAGE_SIZE - 1));
    return MGS_OK;
}

/* The entry mapping GPU-0 physical page, or NULL. */
static mgs_devmem_pte *phys_pte(mgs_timing *t, uint64_t page)
{
    if (page >= t->npages || t->revmap[page] == NO_PTE)
        return NULL;
    uint32_t idx = t->revmap[page];
    mgs_devmem *m = t->mem;
    if (idx >= m->npte)
        return NULL;
    mgs_devmem_pte *p = &m->ptes[idx];
    return p->gpu == 0 && p->phys_page == page ? p : NULL;
}

static int phys_read(void *ud, uint64_t pa, void *dst, size_t n)
{
    mgs_timing *t = ud;
    uint8_t *out = dst;
    while (n) {
        uint64_t off = pa & (MGS_DEVMEM_PAGE_SIZE - 1);
        size_t chunk = MGS_DEVMEM_PAGE_SIZE - off < n
                           ? MGS_DEVMEM_PAGE_SIZE - off : n;
        mgs_devmem_pte *p = phys_pte(t, pa >> MGS_DEVMEM_PAGE_SHIFT);
        if (p && p->backing)
            memcpy(out, p->backing + off, chunk);
        else
            memset(out, 0, chunk);   /* never written: zeros, as devmem */
        out += chunk;
        pa += chunk;
        n -= chunk;
    }
    return MGS_OK;
}

static int phys_write(void *ud, uint64_t pa, const void *src, size_t n)
{
    mgs_timing *t = ud;
    const uint8_t *in = src;
    while (n) {
        uint64_t off = pa & (MGS_DEVMEM_PAGE_SIZE - 1);
        size_t chunk = MGS_DEVMEM_PAGE_SIZE - off < n
                           ? MGS_DEVMEM_PAGE_SIZE - off : n;
        mgs_devmem_pte *p = phys_pte(t, pa >> MGS_DEVMEM_PAGE_SHIFT);
        if (!p)
            return mgs_error_set(MGS_EFAULT, "DRAM write to unmapped physical "
                                 "address 0x%llx", (unsigned long long)pa);
        if (!p->backing) {
            /* Same lazy backing devmem creates on a host write (devmem.c
            ** backing_of); whole-line write-backs may pass the end of the
            ** allocation, so the page is written here, not by VA. */
            p->backing = mgs_xcalloc(1, MGS_DEVMEM_PAGE_SIZE);
            t->mem->backed_pages++;
        }
        memcpy(p->backing + off, in, chunk);
        in += chunk;
        pa += chunk;
        n -= chunk;
    }
    return MGS_OK;
}

static void revmap_refresh(mgs_timing *t)
{
    mgs_devmem *m = t->mem;
    for (uint64_t i = 0; i < m->npte; i++) {
        const mgs_devmem_pte *p = &m->ptes[i];
        if (p->gpu == 0 && p->phys_page < t->npages)
            t->revmap[p->phys_page] = (uint32_t)i;
    }
}

/* ---- lifecycle ---- */

int mgs_timing_new(const gpu_build_config *gc0, mgs_devmem *mem,
                   stat_registry *stats, mgs_timing **out)
{
    *out = NULL;
    gpu_build_config gc;
    if (gc0)
        gc = *gc0;
    else
        gpu_build_config_default(&gc);
    gc.gpu = 0;
    gc.phys_base = 0;
    uint64_t mem_per_gpu = mem->gpus[0].total_pages << MGS_DEVMEM_PAGE_SHIFT;
    gc.mem_bytes = mem_per_gpu;
    int rc = gpu_build_config_validate(&gc);
    if (rc)
        return rc;
    mgs_timing *t = MGS_NEW(mgs_timing);
    t->mem = mem;
    t->stats = stats;
    t->mem_per_gpu = mem_per_gpu;
    t->npages = mem->gpus[0].total_pages;
    t->revmap = mgs_xmalloc(t->npages * sizeof *t->revmap);
    memset(t->revmap, 0xff, t->npages * sizeof *t->revmap);
    t->backing = (mem_backing){.read = phys_read, .write = phys_write,
                               .ud = t};
    t->pt = (mem_pagetable){.translate = pt_translate, .ud = t};
    t->eng = eng_new(NULL);
    t->pool = mem_pool_new();
    t->gpu = gpu_build_new(t->eng, &gc, t->pool, stats, &t->backing, &t->pt);
    comp_init(&t->drv.base, t->eng, &drv_ops, "Driver", gc.period);
    port_init(&t->drv.port, &t->drv.base, "port", 4);
    gpu_build_plug_driver(t->gpu, &t->drv.port);
    *out = t;
    return MGS_OK;
}

void mgs_timing_free(mgs_timing *t)
{
    if (!t)
        return;
    gpu_build_free(t->gpu);
    port_fini(&t->drv.port);
    comp_fini(&t->drv.base);
    mem_pool_free(t->pool);
    eng_free(t->eng);
    for (size_t i = 0; i < t->ncodes; i++)
        mgs_devmem_free_range(t->mem, t->codes[i].va);
    free(t->codes);
    free(t->revmap);
    free(t);
}

mgs_time mgs_timing_now(const mgs_timing *t) { return eng_now(t->eng); }
sim_engine *mgs_timing_engine(mgs_timing *t) { return t->eng; }

/* Device address of prog's code, uploading it on first use. */
static int code_va(mgs_timing *t, const gcn_emu_program *prog, uint64_t *va)
{
    for (size_t i = 0; i < t->ncodes; i++)
        if (t->codes[i].prog == prog) {
            *va = t->codes[i].va;
            return MGS_OK;
        }
    uint64_t d;
    /* One line of slack: fetches read whole 64-byte lines. */
    int rc = mgs_devmem_alloc_range(t->mem, 0, prog->code_size + 64, &d);
    if (rc)
        return rc;
    if ((rc = mgs_devmem_write(t->mem, d, prog->code, prog->code_size))) {
        mgs_devmem_free_range(t->mem, d);
        return rc;
    }
    if (t->ncodes == t->code_cap) {
        t->code_cap = t->code_cap ? 2 * t->code_cap : 8;
        t->codes = mgs_xrealloc(t->codes, t->code_cap * sizeof *t->codes);
    }
    t->codes[t->ncodes++] = (tm_code){.prog = prog, .va = d};
    *va = d;
    return MGS_OK;
}

int mgs_timing_launch(mgs_timing *t, int gpu, const gcn_emu_launch *el,
                      mgs_timing_result *res)
{
    memset(res, 0, sizeof *res);
    if (gpu != 0)
        return mgs_error_set(MGS_EUNSUPPORTED, "timing mode models one GPU; "
                             "launch on GPU %d is not supported yet", gpu);
    gpu_launch *l = &t->launch;
    memset(l, 0, sizeof *l);
    int rc = code_va(t, el->prog, &l->code_va);
    if (rc)
        return rc;
    revmap_refresh(t);
    const gcn_kernel *k = el->prog->kernel;
    l->emu = *el;
    l->emu.mem_ops = NULL;    /* memory goes through the ports */
    l->emu.mem = NULL;
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

    tm_driver *d = &t->drv;
    memset(&d->msg, 0, sizeof d->msg);
    d->msg.base.type = CP_LAUNCH;
    d->msg.base.dst = gpu_build_cp_port(t->gpu);
    d->msg.base.bytes = 64;
    d->msg.launch = l;
    d->to_send = true;
    d->done = false;
    mgs_time start = eng_now(t->eng);
    comp_wake(&d->base);
    rc = eng_run(t->eng);
    if (rc)
        return rc;
    if (!d->done)
        return mgs_error_set(MGS_EINTERNAL, "timing: the engine stopped "
                             "before the command processor finished");
    res->workgroups = d->msg.wg_index;
    res->wavefronts = d->msg.wg_index * l->waves_per_group;
    res->wf_insts = d->msg.wf_insts;
    res->sim_time = eng_now(t->eng) - start;
    return d->msg.status;
}
