/*
** Coherence modules: the interface every protocol implements (one folder
** per protocol under src/coh/, docs/coherence.md).
**
** A protocol owns synchronisation. Nothing else in mgsim decides when a
** cache is invalidated or written back: the command processor performs the
** cache maintenance a launch descriptor carries (gpu_launch.acquire /
** .release, filled by the runtime from the protocol), the runtime asks the
** protocol what to do at host-visible points (after a copy, before it
** writes or reads device memory directly), and the GPU builder asks it
** which cache hooks and extra agents exist.
**
**   point             when                                    typical action
**   COH_LAUNCH        before a kernel's first work-group (acquire)  invalidate L1s, TLBs
**   COH_KERNEL_END    after its last work-group (release)     write back L2 (multi-GPU)
**   COH_PEER_RELEASE  after a synchronisation, on every GPU   write back L2s that remote
**                     the protocol names                      writers may have dirtied
**   COH_COPY_END      a DMA copy went through this GPU        write back / drop L2
**   COH_HOST_WRITE    the runtime wrote [addr, +bytes) of      drop stale lines there
**                     device memory directly (kernel
**                     arguments, dispatch packets, code,
**                     memset, instant copies)
**   COH_HOST_READ     the runtime is about to read [addr,      write back dirty lines there
**                     +bytes) directly (instant copies)
**
** Each answer is a coh_sync: one operation per cache level of that GPU, and
** for the L2 an optional physical range. The CP turns it into MEM_INVALIDATE
** / MEM_FLUSH messages on the caches' ctrl ports (counted in its statistics:
** invalidations, flushes). Host-visible ranges are applied at the next
** launch's acquire on the GPU (or at once when the engine is idle), so a
** runtime write never needs to stop concurrent kernels.
**
** Besides synchronisation a protocol may
**   - install cache hooks (cache_protocol, src/mem/cache.h) on any cache of
**     any GPU (attach_cache);
**   - insert an agent between each L2 bank and its memory controller
**     (memory_agent): a TSU, a directory slice, a page-migration
**     controller, a remote-data cache (docs/coherence.md, "Insertion
**     point");
**   - say what a fence instruction (buffer_wbinvl1[_vol], s_dcache_inv)
**     does in the wave's L1 (fence_l1).
** Where remote data may be cached is a platform key (coherence.remote_cache
** = l1 | l2, coh_system.remote_cache) that the builder applies; a protocol
** that cannot work with one of them refuses it in check().
**
** Ownership: a protocol's instance (create/destroy) belongs to the
** platform that created it; everything it builds (agents) it owns.
*/
#ifndef MGS_COH_COH_H
#define MGS_COH_COH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem/cache.h"
#include "mem/memmsg.h"
#include "sim/conn.h"
#include "sim/engine.h"
#include "sim/stats.h"

/* What one synchronisation does to one level of caches. */
typedef enum coh_op {
    COH_KEEP = 0,             /* nothing */
    COH_INVALIDATE,           /* drop clean lines (MEM_INVALIDATE) */
    COH_WRITEBACK,            /* write back dirty lines, keep them (MEM_FLUSH) */
    COH_WRITEBACK_INVALIDATE  /* write back, then drop every line
                                 (MEM_FLUSH | MEM_F_INVALIDATE) */
} coh_op;

/* At most this many L2 ranges ride on one launch; more collapse into one
** operation on the whole cache. */
#define COH_MAX_RANGES 32

typedef struct coh_range {
    uint64_t addr, bytes;     /* physical, bytes >= 1 */
} coh_range;

/* The cache maintenance of one synchronisation on one GPU. The L1 op
** applies to every L1 (V, S, I), the TLB op to every TLB (COH_INVALIDATE =
** shoot down), the L2 op to every L2 bank: to every line if l2_all, else to
** the lines of the ranges. Order: the L1s and TLBs together, then (once
** they answered) the L2 banks, so a write-back L1 drains into the L2
** before the L2 is written back. */
typedef struct coh_sync {
    uint8_t l1, tlb, l2;      /* coh_op */
    bool tlb_span;            /* the TLB op drops only the pages of the
                                 virtual span [tlb_lo, tlb_hi) (pid 0),
                                 else every entry */
    uint64_t tlb_lo, tlb_hi;
    bool l2_all;              /* the L2 op covers every line */
    uint8_t nranges;          /* else: the lines of these ranges */
    coh_range range[COH_MAX_RANGES];
} coh_sync;

typedef enum coh_point {
    COH_LAUNCH,
    COH_KERNEL_END,
    COH_PEER_RELEASE,
    COH_COPY_END,
    COH_HOST_WRITE,
    COH_HOST_READ,
    COH_POINTS
} coh_point;

typedef enum coh_remote_cache {
    COH_REMOTE_L1 = 0,        /* remote lines only in the requester's L1;
                                 L1 misses to remote addresses go to the
                                 RDMA engine (seed 002 Fig. 5.8a) */
    COH_REMOTE_L2             /* every L1 miss goes to the local L2; the
                                 L2's misses split between local memory and
                                 the RDMA engine (HMG, REC, CARVE) */
} coh_remote_cache;

/* Parameters of the timestamp protocols (the [halcone] keys, keys.def). */
typedef struct coh_ts_params {
    uint32_t rd_lease, wr_lease;  /* logical cycles a read / write leases */
    uint32_t tsu_entries;         /* timestamp entries per memory controller */
    uint32_t tsu_latency;         /* cycles of one TSU access */
    uint32_t ts_max;              /* largest timestamp (16 bits: 65535) */
} coh_ts_params;

/* Parameters of the directory protocols (the [directory] keys, keys.def). */
typedef struct coh_dir_params {
    uint32_t entries;         /* per GPU; 0 = unbounded (ideal) */
    uint32_t ways;
    uint32_t range;           /* bytes one entry covers; 0 = the protocol's */
    uint8_t policy;           /* 0 = the protocol's, 1 FIFO, 2 LRU */
    uint8_t inv_message;      /* 0 = the protocol's, 1 per line, 2 per entry */
    uint32_t inv_credits;     /* invalidations in flight per peer (0 = 16) */
} coh_dir_params;

/* Parameters of GPS (the [gps] keys, keys.def; src/coh/gps/gps.h). */
typedef struct coh_gps_params {
    uint32_t queue_entries;   /* remote write queue entries per GPU */
    uint32_t queue_block;     /* bytes per queue entry (block) */
    uint32_t tlb_entries;     /* GPS-TLB entries */
    uint32_t tlb_ways;
    uint32_t walk_latency;    /* cycles of a GPS page-table walk */
    uint32_t ports;           /* the publisher's crossbar lanes */
    uint64_t page_bytes;      /* gpu.page_size */
    uint64_t test_drop;       /* tests: drop the n-th publication (0 none) */
    mgs_time period;          /* the GPU's clock (ps) */
} coh_gps_params;
/* Parameters of the CARVE protocols (the [carve] keys, keys.def). */
typedef struct coh_carve_params {
    uint64_t rdc_bytes;       /* remote data cache per GPU */
    uint32_t epoch_bits;      /* carve-swc epoch counter width */
    uint32_t imst_reset_ppm;  /* carve-hwc: p of the reset to private */
    uint32_t inv_credits;     /* carve-hwc: invalidations in flight per peer */
    bool write_back;          /* carve.rdc_write = back (dirty map) */
} coh_carve_params;

/* What a protocol may know about the machine it runs on. */
typedef struct coh_system {
    uint32_t ngpus;           /* GPU models (monolithic: 1) */
    bool rdma;                /* remote memory through RDMA engines */
    bool shared_memory;       /* every GPU's L2 reaches every memory stack
                                 (MGPU-SM, seed 000) */
    bool shared_platform;     /* platform.type = shared (any GPU count) */
    bool l2_write_back;       /* l2.write_policy = writeback */
    uint32_t line;            /* L2 line bytes (gpu.cache_line) */
    coh_remote_cache remote_cache;
    coh_ts_params ts;         /* timestamp protocols' keys */
    coh_dir_params dir;       /* directory protocols' keys */
    coh_gps_params gps;       /* GPS's keys */
    uint32_t l2_banks;        /* per GPU */
    uint32_t l2_interleave;   /* bytes: address a is in bank
                                 (a / l2_interleave) % l2_banks */
    uint64_t mem_per_gpu;     /* bytes; GPU g's memory is [g * mem_per_gpu,
                                 +mem_per_gpu) of the physical space */
    coh_carve_params carve;   /* CARVE's keys */
} coh_system;

/* Cache levels for attach_cache. */
typedef enum coh_level { COH_L1V, COH_L1S, COH_L1I, COH_L2 } coh_level;

/* The insertion point between L2 bank `bank` of GPU `gpu` and its memory
** controller (gpu_build.c). `net` is the connection both sit on, `memory`
** the controller's port. An agent plugs its ports into `net` and returns
** the port the L2 bank must send to (the agent then forwards to `memory`);
** NULL means no agent (the L2 talks to memory directly). `name` is a
** prefix such as "GPU[0].L2[3]".
** On the `shared` platform (external memory) the site is a memory stack's
** channel instead: `gpu` is the stack, `bank` the channel in it, `net` a
** connection of its own between the agent and the channel, and
** `top_external` is set: the agent must NOT plug the port it returns (the
** platform attaches it to the switch complex, where every GPU's L2 banks
** reach it); it plugs only its memory-side port into `net`. */
typedef struct coh_site {
    sim_engine *eng;
    mem_pool *pool;
    stat_registry *stats;
    sim_conn *net;
    sim_port *memory;
    uint32_t gpu, bank;
    const char *name;
    mgs_time period;          /* clock of the L2 banks (ps) */
    bool top_external;        /* shared platform: see above */
    cache *l2;                /* the bank (NULL on an external site) */
} coh_site;

typedef struct coh_protocol {
    const char *name;         /* coherence.protocol value */
    const char *summary;      /* one line for `mgsim list` and docs */
    /* Optional: MGS_OK or MGS_ECONFIG (one line) if this system cannot run
    ** the protocol. */
    int (*check)(const coh_system *sys);
    /* The maintenance at point p on GPU model gpu (required). out is zeroed
    ** by the caller. For the host points the answer's l2 op is applied to
    ** the range the runtime touched (it replaces l2_all by that range). */
    void (*sync)(const coh_system *sys, coh_point p, uint32_t gpu,
                 coh_sync *out);
    /* What a fence does in the issuing wave's L1 (COH_KEEP: nothing). */
    coh_op fence_l1;
    /* Atomics are performed below the L2 (at memory or the agent), not in
    ** the L2 banks: needed when several L2s cache one memory (shared). */
    bool atomics_below;
    /* Optional instance state for hooks and agents. */
    void *(*create)(const coh_system *sys, sim_engine *eng, mem_pool *pool,
                    stat_registry *stats);
    void (*destroy)(void *pd);
    /* Optional: called for every cache the builder creates. */
    void (*attach_cache)(void *pd, cache *c, coh_level level, uint32_t gpu);
    /* Optional: the agent at a site (above), or NULL. */
    sim_port *(*memory_agent)(void *pd, const coh_site *site);
    /* Optional, platforms with an inter-GPU network (RDMA): a port of the
    ** protocol's own to attach at GPU gpu's endpoint of that network (a
    ** directory's invalidations travel there), or NULL. Called once per
    ** GPU after every GPU is built. */
    sim_port *(*network_port)(void *pd, uint32_t gpu);
    /* Optional: called once per GPU once it is built, with its crossbar
    ** (where the L1s, the L2 banks and the RDMA engine meet) and the route
    ** every L1 uses (local addresses to the L2 banks, remote ones to the
    ** RDMA engine): a protocol's own requester (GPS's publisher) plugs a
    ** port there and sends physical requests by that route. */
    void (*xbar_port)(void *pd, uint32_t gpu, sim_conn *xbar,
                      const mem_route *route);
    /* Optional, with remote_cache = l2 and an agent at the site: the agent
    ** of (gpu, bank) receives every miss of its bank, remote lines too,
    ** and sends the remote ones to `remote` (the GPU's RDMA engine, on
    ** the same connection) instead of the bank's split route doing so
    ** (a remote data cache in front of the memory controller). Called
    ** once per bank after the RDMA engine exists. */
    void (*remote_via_agent)(void *pd, uint32_t gpu, uint32_t bank,
                             sim_port *remote);
} coh_protocol;

/* An instance: the protocol and its private data, shared by every GPU of
** one platform. */
typedef struct coh {
    const coh_protocol *proto;
    coh_system sys;
    void *pd;
} coh;

/* The protocol called name, or NULL. */
const coh_protocol *coh_find(const char *name);
/* For a protocol the configuration names but no issue has built yet
** (coherence.protocol = hmg): which issue builds it, else NULL. */
const char *coh_not_built(const char *name);
/* Adds a protocol that is not built in (a test's deliberately broken
** variant, an experiment linked into a program). The name must be new and
** fit coherence.protocol (< MGS_CFG_ENUM_MAX bytes); p is borrowed for the
** life of the process. MGS_EINVAL otherwise. */
int coh_register(const coh_protocol *p);
/* The built-in protocols, in registration order (for listings). */
const coh_protocol *const *coh_all(size_t *n);
/* "l1" / "l2" -> coh_remote_cache, or -1. */
int coh_remote_cache_parse(const char *s);

/* Creates an instance (check() first: MGS_ECONFIG on refusal). */
int coh_new(const coh_protocol *p, const coh_system *sys, sim_engine *eng,
            mem_pool *pool, stat_registry *stats, coh **out);
void coh_free(coh *c);
/* The protocol's answer for point p on gpu (zeroed first). */
void coh_sync_at(const coh *c, coh_point p, uint32_t gpu, coh_sync *out);
/* Adds an L2 range to s (collapsing to l2_all past COH_MAX_RANGES). */
void coh_sync_add_range(coh_sync *s, uint64_t addr, uint64_t bytes);
/* Whether s does anything. */
bool coh_sync_any(const coh_sync *s);
/* Merges b into a (the stronger operation per level; ranges united). */
void coh_sync_merge(coh_sync *a, const coh_sync *b);

#endif
