/*
** A set-associative cache component carrying real data, shared by every
** level (L1V, L1S, L1I, L2) and, later, every coherence protocol.
**
** Ports:
**   top     requests from above (CU, coalescer, TLB-translated L1, xbar);
**           responses go back to each request's source port
**   bottom  requests to the level below, chosen per address by a mem_route
**           (interleaved L2 banks, a DRAM channel, an RDMA engine)
**   ctrl    MEM_FLUSH / MEM_INVALIDATE from the command processor, answered
**           with MEM_CTRL_RSP once complete (counted in statistics)
**
** Write policies (config.write_policy):
**   WRITE_AROUND   writes go below; a write hit updates the line (GCN L1V)
**   WRITE_THROUGH  writes update the line (allocate on write miss optional)
**                  and always go below
**   WRITE_BACK     writes allocate and dirty lines; dirty victims and
**                  FLUSH write back (GCN L2)
** Reads: hit after hit_latency cycles; misses allocate an MSHR entry (one per
** line; later misses to the same line merge into it, up to mshr_targets),
** fetch the whole line from below, fill, then answer all merged targets in
** order. Atomics are forwarded below (performed at L2 or memory) unless
** this cache is configured as the atomic point (atomics_here, L2): then the
** line is fetched/owned here and the RMW applied to the cached data.
** GLC reads bypass a cache configured with glc_bypass (L1).
** Bounded everywhere: top buffer, MSHR entries, write buffer, bottom
** in-flight; when full, the cache stops taking from top (back-pressure).
**
** Statistics (per instance): read_hits, read_misses, read_mshr_merges,
** write_hits, write_misses, evictions, dirty_evictions, writebacks,
** atomics, invalidations, flushes, bytes_from_below, bytes_to_below,
** stall_mshr_full, stall_bottom_busy.
*/
#ifndef MGS_MEM_CACHE_H
#define MGS_MEM_CACHE_H

#include "mem/memmsg.h"
#include "sim/comp.h"
#include "sim/stats.h"

typedef enum cache_write_policy {
    CACHE_WRITE_AROUND,
    CACHE_WRITE_THROUGH,
    CACHE_WRITE_BACK
} cache_write_policy;

typedef struct cache_config {
    uint64_t size;            /* bytes (power of 2) */
    uint32_t ways;            /* associativity (divides size/line) */
    uint32_t line;            /* bytes, power of 2, <= MEM_LINE_MAX */
    uint32_t hit_latency;     /* cycles from accept to response, hit */
    uint32_t miss_latency;    /* extra cycles of tag/fill pipeline on miss */
    uint32_t mshr_entries;    /* lines in flight below */
    uint32_t mshr_targets;    /* requests merged per entry */
    uint32_t top_buffer;      /* messages the top port buffers */
    uint32_t ctrl_buffer;
    uint32_t max_inflight_below; /* requests outstanding below */
    uint32_t requests_per_cycle; /* top requests accepted per cycle */
    cache_write_policy write_policy;
    bool glc_bypass;          /* GLC reads/writes go below without caching */
    bool atomics_here;        /* perform atomics in this cache (L2) */
    bool write_allocate;      /* WRITE_THROUGH: allocate on write miss */
    mgs_time period;          /* clock, ps */
} cache_config;

void cache_config_default(cache_config *c);   /* 16 KB, 4-way, 64 B ... */
/* MGS_OK or MGS_EINVAL naming the field and its rule. */
int cache_config_validate(const cache_config *c);

typedef struct cache cache;

/* Builds a cache registered with eng; pool supplies messages; stats may be
** NULL. The cache is a component named name. Free with cache_free. cfg
** must pass cache_config_validate (builders validate user input first). */
cache *cache_new(sim_engine *eng, const char *name, const cache_config *cfg,
                 mem_pool *pool, stat_registry *stats);
void cache_free(cache *c);

sim_port *cache_top(cache *c);
sim_port *cache_bottom(cache *c);
sim_port *cache_ctrl(cache *c);
/* Where misses, write-throughs and write-backs go. route is copied. */
void cache_set_route(cache *c, const mem_route *route);

/* Coherence protocol hooks (docs/memory.md). A protocol module supplies
** these; the cache core calls them at fixed points and otherwise behaves
** as a plain non-coherent cache. Every hook may be NULL. meta is the
** frame's protocol word (a lease end, a timestamp, a sharer hint...),
** zero when a line is allocated. pd is the protocol's private data. */
typedef struct cache_protocol {
    const char *name;
    /* A tag matched: may req use the copy? false = treat as a miss and
    ** refetch the line into the same frame (a lease that expired). */
    bool (*hit_valid)(void *pd, cache *c, uint64_t line_addr,
                      uint64_t *meta, const mem_msg *req);
    /* A line arrived from below (rsp is the fill response). */
    void (*on_fill)(void *pd, cache *c, uint64_t line_addr, uint64_t *meta,
                    const mem_msg *rsp);
    /* A write or atomic changed the cached copy. */
    void (*on_write)(void *pd, cache *c, uint64_t line_addr, uint64_t *meta,
                     const mem_msg *req);
    /* A line leaves (eviction, invalidation, atomic forwarded below). */
    void (*on_evict)(void *pd, cache *c, uint64_t line_addr, uint64_t *meta,
                     bool dirty);
    /* A request is about to go below (down is ours; orig may be NULL for
    ** write-backs): the protocol may stamp fields. */
    void (*on_send_below)(void *pd, cache *c, mem_msg *down,
                          const mem_msg *orig);
    /* A flush/invalidate completed (before MEM_CTRL_RSP is sent). */
    void (*on_ctrl)(void *pd, cache *c, const mem_msg *req);
} cache_protocol;

/* Installs a protocol (borrowed; NULL = none). Call before simulating. */
void cache_set_protocol(cache *c, const cache_protocol *p, void *pd);

/* Debugging/tests: looks up a line without timing; copies it to out if
** present. Returns whether present (and dirty through *dirty). */
bool cache_probe(const cache *c, uint64_t addr, uint8_t *out, bool *dirty);
/* Invariants (tags unique per set, MSHR targets consistent). Returns 1. */
int cache_check(const cache *c);

#endif
