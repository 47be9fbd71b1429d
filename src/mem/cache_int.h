/*
** Cache internals shared by cache.c (component, pipeline), cache_tags.c
** (tag/data array, LRU) and cache_mshr.c (MSHRs and transactions below).
** Private to src/mem/cache*.c and the cache unit tests.
**
** Storage. Frames (one per way of every set) hold tag, state, dirty flag,
** LRU stamp and a protocol word; their bytes live in one flat data array
** (frame i at data + i * line), their dirty-byte masks in another
** (dirty_words 64-bit words per frame: bit b of word w = byte 64w + b;
** a frame's dirty flag is set exactly when some bit is). A frame is INVALID, VALID, or PENDING
** (reserved for a fill that is in flight). A frame with an MSHR attached
** (PENDING, or VALID while the MSHR drains its targets) is never chosen as
** a victim.
**
** Queues (all bounded, sized at cache_new):
**   rsp_q    responses waiting for their ready time, then sent up the port
**            the request came from (FIFO; ready times never decrease because
**            every response leaves hit_latency cycles after it is produced)
**   down_q   transactions waiting to be sent below (FIFO; ready = produced +
**            miss_latency cycles, so also non-decreasing)
**   txns     one slot per request below, queued or in flight; there are
**            max_inflight_below of them, which bounds the traffic below
**   mshrs    one per line being filled or locked; up to mshr_targets
**            merged requests (mshr_entries for misses + lock_entries)
**   inv_q    MEM_INV_LINE from below waiting to be served (in order)
*/
#ifndef MGS_MEM_CACHE_INT_H
#define MGS_MEM_CACHE_INT_H

#include "mem/cache.h"
#include "sim/port.h"

enum { LINE_INVALID = 0, LINE_VALID, LINE_PENDING };

/* Regions a cache remembers having held lines of (regions_seen). */
#define CACHE_REGION_BITS 4096u

typedef struct cache_mshr cache_mshr;

typedef struct cache_frame {
    uint64_t line_addr;     /* address of byte 0 of the line */
    uint64_t lru;           /* stamp of the last use; smallest = victim */
    uint64_t proto;         /* protocol-defined word (lease, timestamp...) */
    cache_mshr *mshr;       /* fill in flight or targets draining */
    uint8_t state;          /* LINE_* */
    bool dirty;
    bool listed;            /* in the cache's live list */
} cache_frame;

enum { MSHR_FREE = 0, MSHR_WAIT_FILL, MSHR_DRAIN };

struct cache_mshr {
    uint64_t line_addr;
    uint32_t frame;         /* index of the reserved frame */
    uint8_t state;          /* MSHR_* */
    uint32_t head, count;   /* targets[head..count) still to serve */
    uint16_t locks;         /* cache_line_lock count: targets wait */
    bool lock_only;         /* taken by a lock, not by a miss */
    bool inv_wait;          /* a MEM_INV_LINE waits: merge no more */
    bool drop_after;        /* a MEM_INV_LINE was acknowledged early:
                               drop the (clean) line once drained */
    mem_msg **targets;      /* mshr_targets requests, in arrival order */
    cache_mshr *next;       /* free list, or drain list (fill order) */
};

enum {
    TXN_FREE = 0,
    TXN_FILL,       /* line fetch for an MSHR */
    TXN_WRITE_FWD,  /* a write from above sent below; answer orig on ack */
    TXN_WRITEBACK,  /* dirty victim / flush / atomic-point write: no one
                       to answer */
    TXN_READ_FWD,   /* GLC bypass read; answer orig with the data */
    TXN_ATOMIC_FWD, /* atomic performed below; answer orig with old value */
    TXN_PROTO,      /* a protocol's request (cache_send_below); on_ack */
    TXN_POST        /* a message with no answer (MEM_INV_ACK, a protocol's
                       notification): the slot frees when it is sent */
};

typedef struct cache_txn {
    uint8_t kind;           /* TXN_* */
    bool sent;              /* left down_q */
    bool fixed_dst;         /* down->base.dst set by its maker: no route */
    bool remote;            /* for a remote line (counted in remote_txns) */
    uint8_t nsent;          /* messages of this transaction sent */
    uint8_t unanswered;     /* messages whose answer has not come back */
    mem_msg *down;          /* request below (ours; freed on its answer) */
    mem_msg *down2;         /* second half of a split write-back, or NULL */
    mem_msg *orig;          /* request from above to answer, or NULL */
    cache_mshr *mshr;       /* TXN_FILL */
    mgs_time ready;         /* earliest send time */
    struct cache_txn *next_free;
} cache_txn;

typedef struct cache_rsp {
    mem_msg *msg;
    sim_port *via;          /* top or ctrl */
    mgs_time ready;
} cache_rsp;

typedef struct cache_held {
    mem_msg *msg;
    sim_port *via;
    uint64_t line;
    mgs_time ready;         /* once released */
    bool released;          /* cache_release_held: send when ready */
} cache_held;

enum { CTRL_IDLE = 0, CTRL_DRAIN, CTRL_WRITEBACK, CTRL_WAIT_WB };

struct cache {
    sim_comp base;          /* first */
    /* --- what every tick tests, together (see cache_tick) --- */
    uint32_t rsp_head, rsp_count, rsp_cap;
    uint32_t down_head, down_count;
    uint32_t mshr_used, txn_used;
    bool bottom_blocked;    /* a send below was refused */
    bool top_blocked, ctrl_blocked, home_blocked;
    uint8_t ctrl_state;     /* CTRL_* */
    uint32_t remote_txns;   /* transactions below for remote lines */
    cache_rsp *rsp_q;       /* ring, rsp_cap */
    cache_held *held;       /* responses a protocol holds (hold hook), in
                               holding order; growable: they take no
                               rsp_q slot, so a held write never stops the
                               cache answering the reads that the release
                               of its hold may depend on */
    uint32_t held_count, held_cap, held_released;
    const mem_msg *admitted_top, *admitted_home; /* admit hook said yes to
                                                    this head request */
    cache_txn **down_q;     /* ring, max_inflight_below */
    cache_mshr *drain_head, *drain_tail;
    sim_event wake_ev;      /* wake-up for timed queues (no busy ticking) */
    mgs_time wake_time;
    sim_port top, bottom, ctrl;
    sim_port home;          /* requests from the RDMA engine for lines homed
                               here (remote_max_inflight, cache.h) */
    /* --- configuration --- */
    cache_config cfg;
    uint32_t sets;
    uint32_t line_shift;
    uint32_t bank_shift;    /* log2 bank_interleave (cfg.banks > 1) */
    uint32_t bank_bits;     /* log2 cfg.banks when a power of 2, else 0 */
    mem_pool *pool;         /* borrowed */
    mem_route route;        /* copied */
    bool have_route;
    bool split_policy;      /* some lines use remote_write_policy */
    bool (*is_local)(void *ud, uint64_t line); /* NULL: the range rule */
    void *locality_ud;
    const cache_protocol *proto;  /* borrowed; NULL = no protocol */
    void *proto_data;
    /* --- tags and data --- */
    cache_frame *frames;    /* owned, sets * ways */
    uint64_t *tags;         /* owned, sets * ways: frame i's line_addr + 1
                               while it is not LINE_INVALID, else 0 (what
                               cache_tags_find scans: 8 bytes a way instead
                               of a frame; lines are aligned, so + 1 never
                               collides, and calloc's zeros are "none") */
    uint32_t *live;         /* owned: every frame used since the last
                               flush/invalidate compacted the list (a
                               superset of the valid frames), so control
                               requests walk what is cached, not the whole
                               array (a 1 GB cache has 16 M frames) */
    uint32_t nlive;
    /* Bit cache_region_bit(r) set when a line of 4 KiB region r was
    ** claimed since the live list last emptied: a clear bit proves that
    ** no line of the region is here, so a DMA burst into memory the cache
    ** never held skips its 64 lookups (cache_tags.c). */
    uint64_t regions_seen[CACHE_REGION_BITS / 64];
    uint8_t *data;          /* owned, sets * ways * line */
    uint64_t *dirty_bits;   /* owned, sets * ways * dirty_words */
    uint32_t dirty_words;   /* 1 (line <= 64 B) or 2 */
    uint64_t lru_clock;
    /* --- MSHRs --- */
    cache_mshr *mshrs;      /* owned, mshr_entries */
    mem_msg **target_store; /* owned, mshr_entries * mshr_targets */
    cache_mshr *mshr_free;
    uint32_t lock_mshrs;    /* MSHRs taken by locks (lock_only) */
    /* --- invalidations from below --- */
    mem_msg **inv_q;        /* ring, inv_cap */
    uint32_t inv_head, inv_count, inv_cap;
    char *buf_names[4];     /* owned: "<name>.mshr", .below, .responses, .inv */
    /* --- transactions below --- */
    cache_txn *txns;        /* owned, max_inflight_below */
    cache_txn *txn_free;
    /* --- control (flush / invalidate) --- */
    mem_msg *ctrl_req;      /* the request being served */
    sim_port *ctrl_via;     /* port it came on and the answer goes back on */
    uint32_t ctrl_cursor;   /* next frame to write back */
    /* --- fault injection (tests): drop every n-th write, 0 = never --- */
    uint32_t fault_drop_write_every;
    uint64_t fault_write_count;
    /* --- statistics --- */
    stat_counter *read_hits, *read_misses, *read_mshr_merges, *write_hits,
        *write_misses, *evictions, *dirty_evictions, *writebacks, *atomics,
        *invalidations, *flushes, *bytes_from_below, *bytes_to_below,
        *stall_mshr_full, *stall_bottom_busy, *line_invalidations;
    stat_counter own[16];
};

/* ---- cache_tags.c ---- */
uint64_t cache_line_addr(const cache *c, uint64_t addr);
uint32_t cache_set_of(const cache *c, uint64_t line_addr);
/* Frame holding line_addr (VALID or PENDING), or -1. */
int64_t cache_tags_find(const cache *c, uint64_t line_addr);
/* cache_tags_find of each of n consecutive lines from line_addr, into
** frames[0..n) (a burst's lines: cache.c handle_burst). */
void cache_tags_find_run(const cache *c, uint64_t line_addr, uint32_t n,
                         int64_t *frames);
/* The bit of addr's 4 KiB region in regions_seen (a hash of its number). */
static inline uint32_t cache_region_bit(uint64_t addr)
{
    return (uint32_t)(((addr >> 12) * 0x9E3779B97F4A7C15ULL) >> 52);
}
static inline void cache_region_note(cache *c, uint64_t addr)
{
    uint32_t b = cache_region_bit(addr);
    c->regions_seen[b >> 6] |= 1ull << (b & 63);
}
/* Whether no line of [addr, addr + bytes) can be here (bytes > 0). */
static inline bool cache_regions_unseen(const cache *c, uint64_t addr,
                                        uint64_t bytes)
{
    for (uint64_t r = addr >> 12; r <= (addr + bytes - 1) >> 12; r++) {
        uint32_t b = cache_region_bit(r << 12);
        if (c->regions_seen[b >> 6] >> (b & 63) & 1)
            return false;
    }
    return true;
}
/* Victim for line_addr's set: an INVALID frame first, else the least
** recently used VALID frame without an MSHR; -1 if every frame of the set
** is busy with a fill. No side effects. */
int64_t cache_tags_victim(const cache *c, uint64_t line_addr);
void cache_tags_touch(cache *c, uint32_t frame);
static inline uint8_t *cache_frame_data(const cache *c, uint32_t frame)
{
    return c->data + (size_t)frame * c->cfg.line;
}
static inline uint64_t *cache_frame_dirty(const cache *c, uint32_t frame)
{
    return c->dirty_bits + (size_t)frame * c->dirty_words;
}

/* ---- cache_mshr.c ---- */
cache_mshr *cache_mshr_alloc(cache *c, uint64_t line_addr, uint32_t frame);
bool cache_mshr_add_target(cache *c, cache_mshr *m, mem_msg *req);
void cache_mshr_release(cache *c, cache_mshr *m);
void cache_mshr_drain_push(cache *c, cache_mshr *m);
cache_txn *cache_txn_alloc(cache *c, uint8_t kind);
void cache_txn_release(cache *c, cache_txn *t);
/* Appends t to down_q, ready at now + miss_latency cycles; its messages
** (except a TXN_POST's, which keep theirs) get origin = t and an issue
** time. */
void cache_down_push(cache *c, cache_txn *t);
static inline uint32_t cache_txn_free_count(const cache *c)
{
    return c->cfg.max_inflight_below - c->txn_used;
}

#endif
