/*
** CARVE internals shared by the files of src/coh/carve/: the protocol
** instance (one per platform) and the RDC agent (one per L2 bank).
*/
#ifndef MGS_COH_CARVE_INT_H
#define MGS_COH_CARVE_INT_H

#include "coh/carve/imst.h"
#include "coh/carve/rdc.h"
#include "coh/coh.h"

typedef enum carve_variant {
    CARVE_SWC,                /* epochs: every line dropped at a boundary */
    CARVE_HWC,                /* GPU-VI broadcasts filtered by the IMST */
    CARVE_NC                  /* no coherence (the upper bound) */
} carve_variant;

typedef struct rdc_agent rdc_agent;

typedef struct carve {
    coh_system sys;
    carve_variant variant;
    bool break_imst;          /* tests: the IMST misses remote readers */
    sim_engine *eng;
    mem_pool *pool;
    stat_registry *stats;
    rdc_agent **agents;       /* [ngpus * l2_banks], NULL until built */
    imst *imst;               /* [ngpus] (carve-hwc) */
} carve;

/* The agent of a site (memory_agent). */
sim_port *rdc_agent_new(carve *cv, const coh_site *site);
void rdc_agent_free(rdc_agent *a);
/* Where the agent sends remote misses (remote_via_agent). */
void rdc_agent_set_remote(rdc_agent *a, sim_port *remote);
/* The bank this agent sits under. */
const cache *rdc_agent_l2(const rdc_agent *a);
rdc *rdc_agent_rdc(rdc_agent *a);
/* Copies the tag store's and the home IMST's counts into the statistics. */
void rdc_agent_sync_stats(rdc_agent *a);
/* A broadcast invalidation reached this slice (counted). */
void rdc_agent_invalidate(rdc_agent *a, uint64_t line);

/* The agent of GPU gpu's bank holding line, or NULL. */
rdc_agent *carve_agent_of(const carve *cv, uint32_t gpu, uint64_t line);
/* GPU-VI: drops line from every GPU's RDC but `except` (UINT32_MAX:
** none). */
void carve_broadcast(carve *cv, uint64_t line, uint32_t except);

#endif
