/*
** HALCONE's shared state (one instance per platform) and the helpers its
** three parts share: the protocol rules (halcone.c), the cache timestamp
** rules (ts_cache.c) and the TSU agent in front of each memory controller
** (tsu_agent.c, on the table of tsu.c). docs/coherence.md, "HALCONE".
**
** Logical time. Every timestamp (a line's rts and wts, a TSU entry's
** memts, a cache's cts) is a value in [0, ts_max] (16 bits by default)
** of the current *epoch*. When a TSU would grant a lease past ts_max the
** timestamps are re-initialised (seed 000 §3.2.6): the epoch advances,
** every TSU restarts from 0 and every line stamped in an older epoch
** counts as expired (a refetch, counted as a timestamp overflow). The
** epoch number stands for that re-initialisation signal (modelled as a
** broadcast, docs/coherence.md); it is not on the wire.
**
** Memory time: the largest memts any TSU has granted in this epoch. An
** acquire (kernel launch, fence) advances a cache's cts to it, so every
** lease granted before the acquire has expired there (broadcast register,
** docs/coherence.md).
*/
#ifndef MGS_COH_HALCONE_INT_H
#define MGS_COH_HALCONE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "coh/coh.h"

/* Wire bytes of the timestamps a response carries: rts and wts, 16 bits
** each (seed 000 §3.2.6). */
#define HC_TS_WIRE_BYTES 4u

/* coh[1] of an eviction notice (an L2 tells the TSU it dropped a line):
** a MEM_WRITE of 0 bytes the TSU consumes. */
#define HC_EVICT_NOTICE 0x48434556ull /* "HCEV" */

typedef struct hc_cache hc_cache;
typedef struct tsu_agent tsu_agent;

typedef struct halcone {
    coh_ts_params p;
    uint32_t ngpus;
    uint32_t line;            /* L2 line bytes */
    uint32_t epoch;           /* re-initialisations so far */
    uint64_t mem_time;        /* largest memts granted in this epoch */
    bool lease_check;         /* false only in a test's broken variant */
    sim_engine *eng;
    mem_pool *pool;
    stat_registry *stats;
    hc_cache *caches;         /* every attached cache (owned) */
    tsu_agent *tsus;          /* every TSU (owned) */
} halcone;

/* Timestamps as carried in mem_msg.coh[0]: rts, wts, epoch. */
typedef struct hc_stamp {
    uint32_t rts, wts, epoch;
} hc_stamp;

static inline uint64_t hc_stamp_pack(hc_stamp s)
{
    return (uint64_t)(s.rts & 0xffff) | (uint64_t)(s.wts & 0xffff) << 16 |
           (uint64_t)s.epoch << 32;
}

static inline hc_stamp hc_stamp_unpack(uint64_t w)
{
    return (hc_stamp){(uint32_t)(w & 0xffff), (uint32_t)(w >> 16 & 0xffff),
                      (uint32_t)(w >> 32)};
}

static inline uint64_t hc_max(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* A TSU would grant past ts_max: start a new epoch (seed 000 §3.2.6). */
void hc_reinitialise(halcone *hc);

/* The cache timestamp rules (ts_cache.c): installs the hooks on c. */
void hc_cache_attach(halcone *hc, cache *c, coh_level level, uint32_t gpu);
void hc_cache_free_all(halcone *hc);
/* Acquire on GPU gpu's L2 banks: cts = max(cts, memory time). */
void hc_acquire_l2s(halcone *hc, uint32_t gpu);

/* The TSU agent (tsu_agent.c) at a site (coh.h). */
sim_port *hc_tsu_agent_new(halcone *hc, const coh_site *site);
void hc_tsu_agent_free_all(halcone *hc);

#endif
