/*
** HALCONE: timestamp coherence for GPUs sharing memory (seed 000 §3;
** docs/coherence.md, "HALCONE"). The protocol's rules and instance; the
** cache rules are in ts_cache.c, the TSU in tsu.c / tsu_agent.c.
**
** Where it runs: the `shared` platform (MGPU-SM: every L2 bank reaches
** every memory stack), one or more GPUs, write-through L2s. Elsewhere
** check() refuses with one line (exit 2): HALCONE is defined for MGPU-SM,
** and a write-back L2 would hold data the TSU never sees.
**
** Synchronisation points (the rest is in the caches and the TSUs):
**   launch      invalidate the L1s and TLBs as every GPU does; the L1V
**               invalidation is also the acquire that advances the L1's
**               and the GPU's L2s' cts to the memory time
**   kernel end, peer release, copy end, host read
**               nothing: L1s and L2s are write-through, memory holds
**               every write, and the L2 keeps its lines across kernels
**   host write  drop the written range's lines from the L2s (the runtime
**               wrote memory behind the TSUs' back: no timestamp orders it)
**   fences      invalidate the wave's L1 (= an acquire, as at launch)
** Atomics are performed at memory (atomics_below), the one point every
** GPU's atomics on a line reach.
*/
#include "coh/halcone/halcone_int.h"

#include <stdlib.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

static int hc_check(const coh_system *sys)
{
    if (!sys->shared_platform)
        return mgs_error_set(MGS_ECONFIG, "coherence.protocol = halcone "
                             "needs platform.type = shared (HALCONE is "
                             "defined for MGPU-SM, seed 000 §3.1)");
    if (sys->l2_write_back)
        return mgs_error_set(MGS_ECONFIG, "coherence.protocol = halcone "
                             "needs l2.write_policy = writethrough (seed 000 "
                             "§3.2.2)");
    const coh_ts_params *p = &sys->ts;
    if (p->tsu_entries % 8)
        return mgs_error_set(MGS_ECONFIG, "halcone.tsu_entries = %u: must "
                             "be a multiple of 8 (an 8-way TSU)",
                             p->tsu_entries);
    if (p->rd_lease + p->wr_lease >= p->ts_max)
        return mgs_error_set(MGS_ECONFIG, "halcone.ts_max = %u: must exceed "
                             "rd_lease + wr_lease (%u)", p->ts_max,
                             p->rd_lease + p->wr_lease);
    return MGS_OK;
}

static void hc_sync(const coh_system *sys, coh_point p, uint32_t gpu,
                    coh_sync *out)
{
    (void)sys;
    (void)gpu;
    switch (p) {
    case COH_LAUNCH:
        out->l1 = COH_INVALIDATE;
        out->tlb = COH_INVALIDATE;
        break;
    case COH_HOST_WRITE:
        out->l2 = COH_INVALIDATE;
        break;
    case COH_KERNEL_END:
    case COH_PEER_RELEASE:
    case COH_COPY_END:
    case COH_HOST_READ:
    case COH_POINTS:
        break;
    }
}

void hc_reinitialise(halcone *hc)
{
    hc->epoch++;
    hc->mem_time = 0;
}

static halcone *hc_new(const coh_system *sys, sim_engine *eng, mem_pool *pool,
                       stat_registry *stats, bool lease_check)
{
    halcone *hc = MGS_NEW(halcone);
    hc->p = sys->ts;
    hc->ngpus = sys->ngpus;
    hc->line = sys->line ? sys->line : 64;
    hc->lease_check = lease_check;
    hc->eng = eng;
    hc->pool = pool;
    hc->stats = stats;
    return hc;
}

static void *hc_create(const coh_system *sys, sim_engine *eng, mem_pool *pool,
                       stat_registry *stats)
{
    return hc_new(sys, eng, pool, stats, true);
}

static void *hc_create_no_lease(const coh_system *sys, sim_engine *eng,
                                mem_pool *pool, stat_registry *stats)
{
    return hc_new(sys, eng, pool, stats, false);
}

static void hc_destroy(void *pd)
{
    halcone *hc = pd;
    hc_tsu_agent_free_all(hc);
    hc_cache_free_all(hc);
    free(hc);
}

static void hc_attach(void *pd, cache *c, coh_level level, uint32_t gpu)
{
    hc_cache_attach(pd, c, level, gpu);
}

static sim_port *hc_agent(void *pd, const coh_site *site)
{
    return hc_tsu_agent_new(pd, site);
}

const coh_protocol coh_halcone = {
    .name = "halcone",
    .summary = "timestamp coherence over shared memory (seed 000): leases "
               "from a TSU per memory controller, write-through L1s and "
               "L2s kept across kernels; platform shared only",
    .check = hc_check,
    .sync = hc_sync,
    .fence_l1 = COH_INVALIDATE,
    .atomics_below = true,
    .create = hc_create,
    .destroy = hc_destroy,
    .attach_cache = hc_attach,
    .memory_agent = hc_agent,
};

/* Broken on purpose, for tests only (not built in; register it with
** coh_register): every tag match is a hit, whatever the lease. */
const coh_protocol coh_halcone_no_lease = {
    .name = "halcone-no-lease",
    .summary = "HALCONE without the lease check (tests: must fail)",
    .check = hc_check,
    .sync = hc_sync,
    .fence_l1 = COH_INVALIDATE,
    .atomics_below = true,
    .create = hc_create_no_lease,
    .destroy = hc_destroy,
    .attach_cache = hc_attach,
    .memory_agent = hc_agent,
};
