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
**   WRITE_BACK     writes allocate and dirty bytes; dirty victims and
**                  FLUSH write back only the dirty bytes (masked writes)
**                  (GCN L2)
** Lines outside [local_base, local_limit) (when that range is not empty)
** or those a locality predicate calls remote (cache_set_locality) use
** remote_write_policy instead, e.g. write-back local and write-through
** remote data in one L2.
** Reads: hit after hit_latency cycles; misses allocate an MSHR entry (one per
** line; later misses to the same line merge into it, up to mshr_targets),
** fetch the whole line from below, fill, then answer all merged targets in
** order. Atomics are forwarded below (performed at L2 or memory) unless
** this cache is configured as the atomic point (atomics_here, L2): then the
** line is fetched/owned here and the RMW applied to the cached data.
** GLC reads bypass a cache configured with glc_bypass (L1).
** From below, the bottom port also accepts MEM_INV_LINE (a directory's
** invalidation): the line is dropped once no fill or lock holds it, its
** dirty bytes written back, and MEM_INV_ACK goes back down after them.
** Bounded everywhere: top buffer, MSHR entries, write buffer, bottom
** in-flight; when full, the cache stops taking from top (back-pressure).
**
** Statistics (per instance): read_hits, read_misses, read_mshr_merges,
** write_hits, write_misses, evictions, dirty_evictions, writebacks,
** atomics, invalidations, flushes, bytes_from_below, bytes_to_below,
** stall_mshr_full, stall_bottom_busy, line_invalidations.
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
    /* Remote lines: those outside [local_base, local_limit) when
    ** local_limit > local_base (default 0, 0: every line is local), or
    ** those a predicate set with cache_set_locality calls remote. */
    cache_write_policy remote_write_policy;
    uint64_t local_base, local_limit;
    uint32_t lock_entries;    /* MSHRs kept for line locks only (0) */
    /* At most this many transactions below for remote lines at once (0 =
    ** no limit). With remote data cached in an L2 (coherence.remote_cache
    ** = l2), requests from the level above for remote lines wait in the
    ** top buffer past it, so misses of local lines - among them the
    ** requests other GPUs' RDMA engines bring to the home port - always
    ** find MSHRs and transactions: the home L2s keep answering and remote
    ** misses cannot deadlock each other across GPUs. */
    uint32_t remote_max_inflight;
    uint32_t inv_buffer;      /* MEM_INV_LINE held while they wait (4) */
    /* One bank of `banks` over which memory is interleaved every
    ** bank_interleave bytes (an L2 bank): the bank-select bits are left
    ** out of the set index, so the bank's lines spread over all its sets
    ** (MGPUSim's L2 WithInterleaving does the same). banks = 1 (default):
    ** the set index is the plain line address bits. */
    uint32_t banks;
    uint64_t bank_interleave; /* bytes, power of 2 >= line (banks > 1) */
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
/* A second request port, served before top each cycle and answered
** through itself: where an RDMA engine brings requests of other GPUs for
** lines homed here, so they never wait behind this GPU's own requests in
** the top buffer (top_buffer messages). */
sim_port *cache_home(cache *c);
/* Where misses, write-throughs and write-backs go. route is copied. */
void cache_set_route(cache *c, const mem_route *route);
/* Replaces the [local_base, local_limit) rule: is_local(ud, line_addr)
** tells whether a line is local (write_policy) or remote
** (remote_write_policy). NULL restores the range rule. */
void cache_set_locality(cache *c, bool (*is_local)(void *ud, uint64_t line),
                        void *ud);

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
    /* A read is about to merge into the MSHR of line (a fill in flight or
    ** a line lock): false = it waits in the top buffer until the MSHR is
    ** gone, then hit_valid decides (a copy fetched before an acquire). */
    bool (*may_merge)(void *pd, cache *c, uint64_t line_addr,
                      const mem_msg *req);
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
    /* A response to a request from above is about to be queued (hits,
    ** drained MSHR targets, write acks, answers relayed from below): the
    ** protocol may stamp rsp's fields. meta is the line's word when the
    ** cache holds the line, else NULL. */
    void (*on_respond)(void *pd, cache *c, uint64_t line_addr,
                       uint64_t *meta, mem_msg *rsp, const mem_msg *req);
    /* An answer other than a fill arrived from below: a write or
    ** write-back acknowledgement, an atomic's or a bypass read's answer,
    ** or the answer to a request the protocol sent (cache_send_below;
    ** ack->req is that request). up is the response about to go up for
    ** it (NULL if none), which the protocol may stamp. meta as above. */
    void (*on_ack)(void *pd, cache *c, uint64_t line_addr, uint64_t *meta,
                   const mem_msg *ack, mem_msg *up);
    /* MEM_INV_LINE is being served: the line (meta NULL if absent) is
    ** about to be dropped (on_evict follows if present); ack goes down
    ** after its write-back and may be stamped. */
    void (*on_inv)(void *pd, cache *c, uint64_t line_addr, uint64_t *meta,
                   const mem_msg *inv, mem_msg *ack);
    /* A read, write or atomic is at the head of its port (home: it came on
    ** the home port) and about to be served: false leaves it there, to be
    ** offered again on a later tick (after some progress of the cache; a
    ** directory waiting for room below). Called once per request that it
    ** admits: a request admitted and then held back by the cache's own
    ** resources is not offered again. */
    bool (*admit)(void *pd, cache *c, const mem_msg *req, bool home);
    /* A response to req is about to be queued (after on_respond): true
    ** holds it (it keeps its response slot) until the protocol calls
    ** cache_release_held for its line (a directory acknowledging a write
    ** only once its invalidations are acknowledged). */
    bool (*hold)(void *pd, cache *c, uint64_t line_addr, const mem_msg *rsp,
                 const mem_msg *req);
    /* A flush or invalidation (req; from_top: a wave's fence on the top
    ** port, else the ctrl port) is done and its MEM_CTRL_RSP about to be
    ** queued: true holds the answer (the cache goes on serving requests)
    ** until the protocol calls cache_release_held(c, req->addr) (GPS: a
    ** release waits until the remote write queue drained). */
    bool (*hold_ctrl)(void *pd, cache *c, const mem_msg *req, bool from_top);
    /* A wave's fence (MEM_FLUSH / MEM_INVALIDATE on the top port) is at
    ** the head of the port: false leaves it (and everything behind it)
    ** there until the protocol calls cache_wake (GPS: a system-scope
    ** fence starts only once the remote write queue drained, so its
    ** invalidation comes after the publications it waited for). */
    bool (*admit_fence)(void *pd, cache *c, const mem_msg *req);
} cache_protocol;

/* Installs a protocol (borrowed; NULL = none). Call before simulating. */
void cache_set_protocol(cache *c, const cache_protocol *p, void *pd);

/* What a protocol may call from its hooks (docs/memory.md):
**
** Line locks. While a line is locked, every request for it waits in
** arrival order, as during a fill (merged behind an MSHR, or held in the
** top buffer); unlocking serves them. Locks nest (a count). A lock takes
** an MSHR (lock_entries first, then the shared ones) unless the line
** already has one. Returns false if the line is not in the cache (VALID or
** being filled) or no MSHR is free. Flushes and MEM_INV_LINE wait for
** unlock. */
bool cache_line_lock(cache *c, uint64_t addr);
/* Drops one lock of addr's line (must be locked). */
void cache_line_unlock(cache *c, uint64_t addr);
bool cache_line_locked(const cache *c, uint64_t addr);
/* Sends m below through the cache's FIFO down queue (after everything
** queued before it, ready miss_latency cycles from now). m->base.dst NULL:
** routed by m->addr. expects_answer: the answer comes back through the
** bottom port, on_ack sees it, and the cache frees both; otherwise m
** passes to its receiver when sent. Returns false (m still the caller's)
** if cache_room_below() == 0: the cache keeps 2 transaction slots for its
** own action in progress, so a protocol that sends needs
** max_inflight_below >= 3, and 1 response slot likewise. */
bool cache_send_below(cache *c, mem_msg *m, bool expects_answer);
uint32_t cache_room_below(const cache *c);
/* The cache's configuration (read-only). */
const cache_config *cache_config_of(const cache *c);
/* Sends m up (m->base.dst set) through the response queue, after the
** responses queued before it, hit_latency cycles from now; it passes to
** its receiver. false if the queue is full (cache_room_up() == 0). */
bool cache_send_up(cache *c, mem_msg *m);
uint32_t cache_room_up(const cache *c);
/* Queues every response held (hold hook) for addr's line, in the order
** they were held, hit_latency cycles from now. Returns how many. */
uint32_t cache_release_held(cache *c, uint64_t addr);
/* Makes the cache look at its ports again (after admit_fence said no). */
void cache_wake(cache *c);
/* Whether addr's line is remote for this cache (its policy). */
bool cache_line_is_remote(const cache *c, uint64_t addr);

/* Debugging/tests: looks up a line without timing; copies it to out if
** present. Returns whether present (and dirty through *dirty). */
bool cache_probe(const cache *c, uint64_t addr, uint8_t *out, bool *dirty);
/* Dirty bytes of addr's line: bit i of mask[i / 64] for byte i (mask[1]
** is 0 for lines of <= 64 bytes). false if the line is not present. */
bool cache_probe_dirty(const cache *c, uint64_t addr, uint64_t mask[2]);
/* Invariants (tags unique per set, MSHR targets consistent). Returns 1. */
int cache_check(const cache *c);

#endif
