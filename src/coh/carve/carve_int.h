/*
** CARVE internals shared by the files of src/coh/carve/: the protocol
** instance (one per platform) and the RDC agent (one per L2 bank).
*/
#ifndef MGS_COH_CARVE_INT_H
#define MGS_COH_CARVE_INT_H

#include "coh/carve/imst.h"
#include "coh/carve/rdc.h"
#include "coh/coh.h"
#include "coh/dir/dir_int.h"

typedef enum carve_variant {
    CARVE_SWC,                /* epochs: every line dropped at a boundary */
    CARVE_HWC,                /* GPU-VI broadcasts filtered by the IMST */
    CARVE_NC                  /* no coherence (the upper bound) */
} carve_variant;

typedef struct rdc_agent rdc_agent;
typedef struct carve_l2 carve_l2;
typedef struct carve_fence carve_fence;

/* coh[0] of the L2 invalidations a carve-swc acquire fence sends
** (swc_fence.c); coh[1] is the range's index (the first bumps the epoch). */
#define CARVE_FENCE_MARK 0xca5ef0ceull

typedef struct carve {
    coh_system sys;
    carve_variant variant;
    bool broken;              /* tests: hwc's IMST misses remote readers;
                                 swc's acquire fences stop at the L1 */
    bool skip_flush;          /* tests: a write-back RDC's flushes drop
                                 the dirty lines instead (carve-swc) */
    sim_engine *eng;
    mem_pool *pool;
    stat_registry *stats;
    rdc_agent **agents;       /* [ngpus * l2_banks], NULL until built */
    imst *imst;               /* [ngpus] (carve-hwc) */
    dir_tracker tracker;      /* carve-hwc: the IMST, for the home banks */
    void *dir;                /* carve-hwc: the directory protocols' home
                                 banks and invalidation engines, with the
                                 IMST as their tracker (src/coh/dir/) */
    carve_l2 *l2s;            /* every L2 bank's hook data (list) */
    carve_fence *fences;      /* carve-swc: every L1V's (list) */
} carve;

/* The agent of a site (memory_agent). */
sim_port *rdc_agent_new(carve *cv, const coh_site *site);
void rdc_agent_free(rdc_agent *a);
/* Where the agent sends remote misses (remote_via_agent). */
void rdc_agent_set_remote(rdc_agent *a, sim_port *remote);
rdc *rdc_agent_rdc(rdc_agent *a);
/* Copies the tag store's and the home IMST's counts into the statistics. */
void rdc_agent_sync_stats(rdc_agent *a);
/* carve-hwc: a write invalidation from the line's home reached this
** slice's L2 bank (counted; the bank acknowledges it once done). */
void rdc_agent_invalidate(rdc_agent *a, uint64_t line);
/* carve-swc: an acquire fence of the GPU dropped the remote lines of the
** bank (counted; the slice's epoch is bumped). */
void rdc_agent_fence(rdc_agent *a);

/* Write-back RDC: an L2 flush of the bank (req) or a carve-swc acquire
** fence (fence) at addr reached the slice: it writes back every dirty
** line, then bumps the epoch (bump) and drops [addr, addr + span) if span.
** True: the bank holds its answer until then (cache_release_held(l2,
** addr)); false: nothing was dirty, all done now. */
bool rdc_agent_flush(rdc_agent *a, cache *l2, uint64_t addr, uint64_t span,
                     bool bump, bool fence);
/* Whether the slice's RDC is write-back. */
bool rdc_agent_write_back(const rdc_agent *a);

/* carve-swc: the hooks of an L1V whose acquire fences also drop the GPU's
** remote lines from its L2 banks and RDC slices (swc_fence.c). */
void carve_fence_attach(carve *cv, cache *l1, uint32_t gpu);
void carve_fence_free_all(carve *cv);

#endif
