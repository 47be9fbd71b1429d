/*
** CARVE (seed 004): a Remote Data Cache carved out of each GPU's own DRAM
** (rdc.h, rdc_agent.c) in front of every memory channel, on top of the
** NUMA-GPU baseline (nc with coherence.remote_cache = l2: remote lines
** cached in the L2, software coherence at kernel boundaries). Three
** protocols, one per coherence of the RDC (§IV.B):
**
**   carve-swc  epochs: a kernel boundary (any whole-L2 write-back and
**              drop of the GPU) increments the epoch of every slice;
**              lines of an older epoch miss (instant invalidation); a wrap
**              resets every set (a sweep, counted). An acquire fence
**              (buffer_wbinvl1[_vol]) also drops the GPU's remote lines
**              from its L2 banks and bumps the epochs (swc_fence.c), so
**              system-scope fences order remote data within a kernel
**   carve-hwc  GPU-VI filtered by the IMST (imst.h), with messages: the
**              home L2 bank sees every write to the lines it homes (local
**              and remote) and every remote read that reaches it; a write
**              whose IMST state is shared sends invalidations to every
**              other GPU, whose L2 bank drops the line from the L2 and
**              from its RDC slice and acknowledges; the write is answered
**              only once all acknowledged. The home banks, held answers and
**              invalidation engines are the directory protocols'
**              (src/coh/dir/), with the IMST in place of the directory
**   carve-nc   no coherence: the RDC keeps lines across kernels whatever
**              their homes do (the paper's upper bound; may read stale
**              data when GPUs share read-write data across kernels)
**
** Synchronisation is nc's, plus: a direct write of the runtime (memset,
** instant copies, frees, new launch buffers) drops the range from every
** RDC (all three: a freed and reused buffer must not hit old bytes).
** A write-through RDC never holds dirty data, so the host's direct reads
** need nothing more than nc's. A write-back RDC (carve.rdc_write = back,
** carve-swc and carve-nc; rdc_agent.c) writes its dirty lines back at
** every L2 flush of its bank (kernel end, copy end, peer release: the
** bank's answer waits for it) and at carve-swc's acquire fences, before
** the epoch bump, so a kernel's results are home when it ends.
*/
#include "coh/carve/carve_int.h"

#include <stdlib.h>
#include <string.h>

#include "coh/dir/dir_int.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

extern const coh_protocol coh_nc;
extern const coh_protocol coh_dir;

#define CARVE_INV_CREDITS 256u  /* carve.inv_credits when 0 (tests) */

/* What CARVE keeps for each L2 bank (the hooks' data). */
struct carve_l2 {
    carve *cv;
    cache *l2;
    uint32_t gpu;
    rdc_agent *agent;         /* the bank's RDC slice, NULL until built */
    dir_bank *home;           /* carve-hwc: the home bank and sharer */
    carve_l2 *next;
};

static int carve_check(const coh_system *sys, carve_variant v)
{
    if (sys->carve.write_back && v == CARVE_HWC)
        return mgs_error_set(MGS_ECONFIG, "carve.rdc_write = back is not "
                             "defined for coherence.protocol = carve-hwc "
                             "(GPU-VI is write-through); use carve-swc or "
                             "carve-nc");
    if (sys->ngpus < 2)
        return MGS_OK;        /* nothing is remote: nc */
    if (sys->carve.write_back && sys->line > 64)
        return mgs_error_set(MGS_ECONFIG, "carve.rdc_write = back needs "
                             "lines of at most 64 bytes (a 64-bit dirty "
                             "mask per line; got %u)", sys->line);
    if (!sys->rdma || sys->remote_cache != COH_REMOTE_L2)
        return mgs_error_set(MGS_ECONFIG, "coherence.protocol = carve-* "
                             "needs discrete or unified GPUs with "
                             "coherence.remote_cache = l2");
    uint64_t unit = (uint64_t)sys->l2_banks * sys->l2_interleave;
    uint64_t r = sys->carve.rdc_bytes;
    if (r % unit || r >= sys->mem_per_gpu || (r && sys->mem_per_gpu % unit))
        return mgs_error_set(MGS_ECONFIG, "carve.rdc_size (%llu) must be a "
                             "multiple of gpu.l2_banks x l2.interleave "
                             "(%llu) and smaller than platform.mem_per_gpu "
                             "(%llu)", (unsigned long long)r,
                             (unsigned long long)unit,
                             (unsigned long long)sys->mem_per_gpu);
    if (r / sys->l2_banks / sys->line > UINT32_MAX * (uint64_t)RDC_CHUNK)
        return mgs_error_set(MGS_ECONFIG, "carve.rdc_size too large");
    if (sys->ngpus > INV_ENGINE_MAX_GPUS)
        return mgs_error_set(MGS_ECONFIG, "coherence.protocol = carve-* "
                             "supports at most %u GPUs (got platform.gpus "
                             "= %u)", INV_ENGINE_MAX_GPUS, sys->ngpus);
    return MGS_OK;
}

static void carve_sync(const coh_system *sys, coh_point p, uint32_t gpu,
                       coh_sync *out)
{
    coh_nc.sync(sys, p, gpu, out);
    /* The RDCs see the range through the L2 banks' control hook. */
    if (p == COH_HOST_WRITE && sys->ngpus > 1)
        out->l2 = COH_INVALIDATE; /* the L2s hold nothing dirty here (nc) */
}

/* ---- carve-hwc: the IMST as the home banks' tracker ------------------ */

static imst *imst_of(carve *cv, uint64_t line)
{
    return &cv->imst[line / cv->sys.mem_per_gpu];
}

static void imst_track_read(void *ud, dir_bank *b, uint64_t line,
                            uint32_t gpu)
{
    (void)b, (void)gpu;
    imst_remote_read(imst_of(ud, line), line);
}

/* GPU-VI: a write to a shared line invalidates it in every other GPU (the
** engine leaves out the home itself); the writer keeps its own copy. A
** write to a line whose invalidation is still in flight sends none: no
** other GPU can have fetched it since (dir_bank_inv_pending), and the
** write's answer waits for that invalidation. */
static void imst_track_write(void *ud, dir_bank *b, uint64_t line,
                             uint32_t gpu, bool remote_write)
{
    (void)remote_write;
    carve *cv = ud;
    imst *t = imst_of(cv, line);
    bool home = line / cv->sys.mem_per_gpu == gpu;
    bool shared = home ? imst_local_write(t, line)
                       : imst_remote_write(t, line);
    if (shared && dir_bank_inv_pending(b, line)) {
        t->coalesced++;
    } else if (shared) {
        uint64_t all = (1ull << cv->sys.ngpus) - 1;
        dir_bank_invalidate(b, line, all & ~(1ull << gpu));
    }
}

static void *carve_create(const coh_system *sys, sim_engine *eng,
                          mem_pool *pool, stat_registry *stats,
                          carve_variant v, bool broken, bool skip_flush)
{
    carve *cv = MGS_NEW(carve);
    cv->sys = *sys;
    cv->variant = v;
    cv->broken = broken;
    cv->skip_flush = skip_flush;
    cv->eng = eng;
    cv->pool = pool;
    cv->stats = stats;
    cv->agents = mgs_xcalloc((size_t)sys->ngpus * sys->l2_banks,
                             sizeof *cv->agents);
    if (v == CARVE_HWC && sys->ngpus > 1) {
        cv->imst = mgs_xcalloc(sys->ngpus, sizeof *cv->imst);
        for (uint32_t g = 0; g < sys->ngpus; g++) {
            imst_init(&cv->imst[g], (uint64_t)g * sys->mem_per_gpu,
                      sys->mem_per_gpu, sys->line, sys->carve.imst_reset_ppm,
                      0x5eed0000ull + g);
            cv->imst[g].break_remote_read = broken;
        }
        dir_proto *dp = coh_dir.create(sys, eng, pool, stats);
        dp->tcfg.range_lines = 1; /* one line per invalidation */
        dp->sys.dir.inv_credits = sys->carve.inv_credits
                                      ? sys->carve.inv_credits
                                      : CARVE_INV_CREDITS;
        cv->tracker = (dir_tracker){imst_track_read, imst_track_write, cv};
        dp->tracker = &cv->tracker;
        cv->dir = dp;
    }
    return cv;
}

static void carve_destroy(void *pd)
{
    carve *cv = pd;
    if (!cv)
        return;
    for (size_t i = 0; i < (size_t)cv->sys.ngpus * cv->sys.l2_banks; i++)
        rdc_agent_free(cv->agents[i]);
    if (cv->dir)
        coh_dir.destroy(cv->dir);
    for (carve_l2 *l = cv->l2s, *n; l; l = n) {
        n = l->next;
        free(l);
    }
    carve_fence_free_all(cv);
    if (cv->imst)
        for (uint32_t g = 0; g < cv->sys.ngpus; g++)
            imst_fini(&cv->imst[g]);
    free(cv->imst);
    free(cv->agents);
    free(cv);
}

static carve_l2 *l2_of(const carve *cv, const cache *c)
{
    carve_l2 *l = cv->l2s;
    while (l && l->l2 != c)
        l = l->next;
    return l;
}

/* An L2 bank finished a flush or invalidation. A write-back-and-drop of
** the whole cache is a kernel boundary (nc's release; carve-swc: a new
** epoch). A plain invalidation is the runtime's direct writes (carve_sync):
** every variant drops their ranges, or the whole RDC when they were too
** many for one launch (coh_sync collapses past COH_MAX_RANGES). The
** remote ranges a carve-swc acquire fence drops (swc_fence.c) bump the
** epoch instead, once per fence. */
static void l2_on_ctrl(void *pd, cache *c, const mem_msg *req)
{
    (void)c;
    carve_l2 *l = pd;
    carve *cv = l->cv;
    rdc_agent *a = l->agent;
    bool boundary = req->base.type == MEM_FLUSH &&
                    (req->flags & MEM_F_INVALIDATE);
    bool host = req->base.type == MEM_INVALIDATE;
    if (!a || !(boundary || host))
        return;
    if (host && req->coh[0] == CARVE_FENCE_MARK) {
        if (req->coh[1] == 0 && !rdc_agent_write_back(a))
            rdc_agent_fence(a);
        return;
    }
    if (boundary && rdc_agent_write_back(a))
        return;               /* after the write-backs (l2_hold_ctrl) */
    rdc *r = rdc_agent_rdc(a);
    if (req->span)
        rdc_invalidate_range(r, req->addr, req->span);
    else if (host)
        rdc_invalidate_all(r);
    else if (cv->variant == CARVE_SWC)
        rdc_epoch_bump(r);
    rdc_agent_sync_stats(a);
}

/* Write-back RDC: every flush of the bank (with or without the drop) and
** the first range of a carve-swc acquire fence wait for the slice's
** write-backs; a flush-and-drop of the whole L2 (a kernel boundary) and a
** fence then bump the epoch (carve-swc), a ranged one drops its range. */
static bool l2_hold_ctrl(void *pd, cache *c, const mem_msg *req,
                         bool from_top)
{
    (void)from_top;
    carve_l2 *l = pd;
    rdc_agent *a = l->agent;
    if (!a || !rdc_agent_write_back(a))
        return false;
    bool swc = l->cv->variant == CARVE_SWC;
    if (req->base.type == MEM_INVALIDATE) {
        if (req->coh[0] != CARVE_FENCE_MARK || req->coh[1] != 0)
            return false;
        return rdc_agent_flush(a, c, req->addr, 0, swc, true);
    }
    bool drop = req->flags & MEM_F_INVALIDATE;
    return rdc_agent_flush(a, c, req->addr, drop ? req->span : 0,
                           swc && drop && !req->span, false);
}

static const cache_protocol l2_hooks = {
    .name = "carve",
    .on_ctrl = l2_on_ctrl,
    .hold_ctrl = l2_hold_ctrl,
};

/* carve-hwc: the directory protocols' bank hooks (dir_l2.c: the home's
** admission and held write answers, the sharer's statistics), and a write
** invalidation that reaches a sharer bank also drops the line from the
** bank's RDC slice before the bank acknowledges. */
static bool hwc_admit(void *pd, cache *c, const mem_msg *req, bool home)
{
    return dir_l2_hooks.admit(((carve_l2 *)pd)->home, c, req, home);
}

static bool hwc_hold(void *pd, cache *c, uint64_t line, const mem_msg *rsp,
                     const mem_msg *req)
{
    return dir_l2_hooks.hold(((carve_l2 *)pd)->home, c, line, rsp, req);
}

static void hwc_on_ack(void *pd, cache *c, uint64_t line, uint64_t *meta,
                       const mem_msg *ack, mem_msg *up)
{
    dir_l2_hooks.on_ack(((carve_l2 *)pd)->home, c, line, meta, ack, up);
}

static void hwc_on_inv(void *pd, cache *c, uint64_t line, uint64_t *meta,
                       const mem_msg *inv, mem_msg *ack)
{
    carve_l2 *l = pd;
    dir_l2_hooks.on_inv(l->home, c, line, meta, inv, ack);
    if (l->agent)
        rdc_agent_invalidate(l->agent, line);
}

static void hwc_on_evict(void *pd, cache *c, uint64_t line, uint64_t *meta,
                         bool dirty)
{
    dir_l2_hooks.on_evict(((carve_l2 *)pd)->home, c, line, meta, dirty);
}

static void hwc_on_fill(void *pd, cache *c, uint64_t line, uint64_t *meta,
                        const mem_msg *rsp)
{
    dir_l2_hooks.on_fill(((carve_l2 *)pd)->home, c, line, meta, rsp);
}

static void hwc_on_respond(void *pd, cache *c, uint64_t line,
                           uint64_t *meta, mem_msg *rsp, const mem_msg *req)
{
    dir_l2_hooks.on_respond(((carve_l2 *)pd)->home, c, line, meta, rsp,
                            req);
}

static const cache_protocol hwc_l2_hooks = {
    .name = "carve-hwc",
    .on_ctrl = l2_on_ctrl,
    .admit = hwc_admit,
    .hold = hwc_hold,
    .on_ack = hwc_on_ack,
    .on_inv = hwc_on_inv,
    .on_evict = hwc_on_evict,
    .on_fill = hwc_on_fill,
    .on_respond = hwc_on_respond,
};

static void carve_attach(void *pd, cache *c, coh_level level, uint32_t gpu)
{
    carve *cv = pd;
    if (cv->sys.ngpus < 2)
        return;
    if (level == COH_L1V && cv->variant == CARVE_SWC && !cv->broken)
        carve_fence_attach(cv, c, gpu);
    if (level != COH_L2)
        return;
    carve_l2 *l = MGS_NEW(carve_l2);
    l->cv = cv;
    l->l2 = c;
    l->gpu = gpu;
    l->next = cv->l2s;
    cv->l2s = l;
    if (cv->dir) {
        coh_dir.attach_cache(cv->dir, c, level, gpu);
        l->home = dir_bank_of(cv->dir, c);
    }
    cache_set_protocol(c, l->home ? &hwc_l2_hooks : &l2_hooks, l);
}

static sim_port *carve_memory_agent(void *pd, const coh_site *site)
{
    carve *cv = pd;
    if (cv->sys.ngpus < 2 || site->top_external)
        return NULL;
    if (cv->dir)
        coh_dir.memory_agent(cv->dir, site); /* the home bank, the engine */
    sim_port *top = rdc_agent_new(cv, site);
    carve_l2 *l = l2_of(cv, site->l2);
    if (l)
        l->agent = cv->agents[site->gpu * cv->sys.l2_banks + site->bank];
    return top;
}

static sim_port *carve_network_port(void *pd, uint32_t gpu)
{
    carve *cv = pd;
    return cv->dir ? coh_dir.network_port(cv->dir, gpu) : NULL;
}

static void carve_remote(void *pd, uint32_t gpu, uint32_t bank,
                         sim_port *remote)
{
    carve *cv = pd;
    rdc_agent *a = cv->agents[gpu * cv->sys.l2_banks + bank];
    if (a)
        rdc_agent_set_remote(a, remote);
}

#define CARVE_PROTOCOL(sym, pname, variant, broken, skip_flush, text)        \
    static int sym##_check(const coh_system *sys)                            \
    {                                                                        \
        return carve_check(sys, variant);                                    \
    }                                                                        \
    static void *sym##_create(const coh_system *sys, sim_engine *eng,        \
                              mem_pool *pool, stat_registry *stats)          \
    {                                                                        \
        return carve_create(sys, eng, pool, stats, variant, broken,          \
                            skip_flush);                                     \
    }                                                                        \
    const coh_protocol sym = {                                               \
        .name = pname,                                                       \
        .summary = text,                                                     \
        .check = sym##_check,                                                \
        .sync = carve_sync,                                                  \
        .fence_l1 = COH_INVALIDATE,                                          \
        .create = sym##_create,                                              \
        .destroy = carve_destroy,                                            \
        .attach_cache = carve_attach,                                        \
        .memory_agent = carve_memory_agent,                                  \
        .remote_via_agent = carve_remote,                                    \
        .network_port = carve_network_port,                                  \
    }

CARVE_PROTOCOL(coh_carve_swc, "carve-swc", CARVE_SWC, false, false,
               "CARVE: nc plus a remote data cache in each GPU's DRAM, "
               "invalidated at kernel boundaries by epochs (seed 004)");
CARVE_PROTOCOL(coh_carve_hwc, "carve-hwc", CARVE_HWC, false, false,
               "CARVE: nc plus a remote data cache in each GPU's DRAM, "
               "kept coherent by IMST-filtered write-invalidate broadcasts "
               "(seed 004)");
CARVE_PROTOCOL(coh_carve_nc, "carve-nc", CARVE_NC, false, false,
               "CARVE: nc plus a remote data cache in each GPU's DRAM with "
               "no coherence (seed 004's upper bound; may read stale data)");
/* Tests only (registered with coh_register): the IMST forgets remote
** readers, so the home's writes leave stale copies in their L2s and RDCs;
** carve-swc's acquire fences drop nothing below the L1; a write-back
** carve-swc whose flushes drop the dirty lines instead of writing them
** back (always write-back). */
CARVE_PROTOCOL(coh_carve_hwc_broken_imst, "carve-hwc-broken-imst", CARVE_HWC,
               true, false, "carve-hwc whose IMST misses sharers (tests "
               "only)");
CARVE_PROTOCOL(coh_carve_swc_broken_fence, "carve-swc-broken-fence",
               CARVE_SWC, true, false, "carve-swc whose acquire fences keep "
               "remote lines in the L2 and the RDC (tests only)");
CARVE_PROTOCOL(coh_carve_swc_broken_flush, "carve-swc-broken-flush",
               CARVE_SWC, false, true, "carve-swc with a write-back RDC "
               "whose flushes drop the dirty lines unwritten (tests only)");
