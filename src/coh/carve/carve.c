/*
** CARVE (seed 004): a Remote Data Cache carved out of each GPU's own DRAM
** (rdc.h, rdc_agent.c) in front of every memory channel, on top of the
** NUMA-GPU baseline (nc with coherence.remote_cache = l2: remote lines
** cached in the L2, software coherence at kernel boundaries). Three
** protocols, one per coherence of the RDC (§IV.B):
**
**   carve-swc  epochs: a kernel boundary (any whole-L2 invalidation of
**              the GPU) increments the epoch of every slice; lines of an
**              older epoch miss (instant invalidation); a wrap resets
**              every set (a sweep, counted)
**   carve-hwc  GPU-VI filtered by the IMST (imst.h): a write whose line
**              other GPUs may hold invalidates it in every other RDC
**   carve-nc   no coherence: the RDC keeps lines across kernels whatever
**              their homes do (the paper's upper bound; may read stale
**              data when GPUs share read-write data across kernels)
**
** Synchronisation is nc's, plus: a direct write of the runtime (memset,
** instant copies, frees, new launch buffers) drops the range from every
** RDC (all three: a freed and reused buffer must not hit old bytes).
** The RDC's lines never hold dirty data (write-through), so the host's
** direct reads need nothing more than nc's.
*/
#include "coh/carve/carve_int.h"

#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

extern const coh_protocol coh_nc;

static int carve_check(const coh_system *sys)
{
    if (sys->ngpus < 2)
        return MGS_OK;        /* nothing is remote: nc */
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

static void *carve_create(const coh_system *sys, sim_engine *eng,
                          mem_pool *pool, stat_registry *stats,
                          carve_variant v, bool broken)
{
    carve *cv = MGS_NEW(carve);
    cv->sys = *sys;
    cv->variant = v;
    cv->break_imst = broken;
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
    if (cv->imst)
        for (uint32_t g = 0; g < cv->sys.ngpus; g++)
            imst_fini(&cv->imst[g]);
    free(cv->imst);
    free(cv->agents);
    free(cv);
}

rdc_agent *carve_agent_of(const carve *cv, uint32_t gpu, uint64_t line)
{
    uint32_t bank = (uint32_t)((line / cv->sys.l2_interleave) %
                               cv->sys.l2_banks);
    return cv->agents[gpu * cv->sys.l2_banks + bank];
}

void carve_broadcast(carve *cv, uint64_t line, uint32_t except)
{
    for (uint32_t g = 0; g < cv->sys.ngpus; g++) {
        rdc_agent *a = carve_agent_of(cv, g, line);
        if (g != except && a)
            rdc_agent_invalidate(a, line);
    }
}

static rdc_agent *agent_of_l2(const carve *cv, const cache *c)
{
    for (size_t i = 0; i < (size_t)cv->sys.ngpus * cv->sys.l2_banks; i++)
        if (cv->agents[i] && rdc_agent_l2(cv->agents[i]) == c)
            return cv->agents[i];
    return NULL;
}

/* An L2 bank finished a flush or invalidation. A write-back-and-drop of
** the whole cache is a kernel boundary (nc's release; carve-swc: a new
** epoch). A plain invalidation is the runtime's direct writes (carve_sync):
** every variant drops their ranges, or the whole RDC when they were too
** many for one launch (coh_sync collapses past COH_MAX_RANGES). */
static void l2_on_ctrl(void *pd, cache *c, const mem_msg *req)
{
    carve *cv = pd;
    bool boundary = req->base.type == MEM_FLUSH &&
                    (req->flags & MEM_F_INVALIDATE);
    bool host = req->base.type == MEM_INVALIDATE;
    rdc_agent *a = boundary || host ? agent_of_l2(cv, c) : NULL;
    if (!a)
        return;
    rdc *r = rdc_agent_rdc(a);
    if (req->span)
        rdc_invalidate_range(r, req->addr, req->span);
    else if (host)
        rdc_invalidate_all(r);
    else if (cv->variant == CARVE_SWC)
        rdc_epoch_bump(r);
    rdc_agent_sync_stats(a);
}

static const cache_protocol l2_hooks = {
    .name = "carve",
    .on_ctrl = l2_on_ctrl,
};

static void carve_attach(void *pd, cache *c, coh_level level, uint32_t gpu)
{
    carve *cv = pd;
    (void)gpu;
    if (level == COH_L2 && cv->sys.ngpus > 1)
        cache_set_protocol(c, &l2_hooks, cv);
}

static sim_port *carve_memory_agent(void *pd, const coh_site *site)
{
    carve *cv = pd;
    if (cv->sys.ngpus < 2 || site->top_external)
        return NULL;
    return rdc_agent_new(cv, site);
}

static void carve_remote(void *pd, uint32_t gpu, uint32_t bank,
                         sim_port *remote)
{
    carve *cv = pd;
    rdc_agent *a = cv->agents[gpu * cv->sys.l2_banks + bank];
    if (a)
        rdc_agent_set_remote(a, remote);
}

#define CARVE_PROTOCOL(sym, pname, variant, broken, text)                    \
    static void *sym##_create(const coh_system *sys, sim_engine *eng,        \
                              mem_pool *pool, stat_registry *stats)          \
    {                                                                        \
        return carve_create(sys, eng, pool, stats, variant, broken);         \
    }                                                                        \
    const coh_protocol sym = {                                               \
        .name = pname,                                                       \
        .summary = text,                                                     \
        .check = carve_check,                                                \
        .sync = carve_sync,                                                  \
        .fence_l1 = COH_INVALIDATE,                                          \
        .create = sym##_create,                                              \
        .destroy = carve_destroy,                                            \
        .attach_cache = carve_attach,                                        \
        .memory_agent = carve_memory_agent,                                  \
        .remote_via_agent = carve_remote,                                    \
    }

CARVE_PROTOCOL(coh_carve_swc, "carve-swc", CARVE_SWC, false,
               "CARVE: nc plus a remote data cache in each GPU's DRAM, "
               "invalidated at kernel boundaries by epochs (seed 004)");
CARVE_PROTOCOL(coh_carve_hwc, "carve-hwc", CARVE_HWC, false,
               "CARVE: nc plus a remote data cache in each GPU's DRAM, "
               "kept coherent by IMST-filtered write-invalidate broadcasts "
               "(seed 004)");
CARVE_PROTOCOL(coh_carve_nc, "carve-nc", CARVE_NC, false,
               "CARVE: nc plus a remote data cache in each GPU's DRAM with "
               "no coherence (seed 004's upper bound; may read stale data)");
/* Tests only (registered with coh_register): the IMST forgets remote
** readers, so the home's writes leave stale copies in their RDCs. */
CARVE_PROTOCOL(coh_carve_hwc_broken_imst, "carve-hwc-broken-imst", CARVE_HWC,
               true, "carve-hwc whose IMST misses sharers (tests only)");
