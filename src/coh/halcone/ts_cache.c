/*
** HALCONE's cache rules (seed 000 Algorithms 1, 2, 4, 5), installed as
** cache_protocol hooks on every L1V, L1S and L2 (docs/coherence.md,
** HALCONE; the L1Is, which hold code only the runtime writes, keep none).
**
** Each cache has a logical clock cts; each line a read and a write
** timestamp (rts, wts: 16 bits) in its protocol word:
**   bits 0-15 rts, 16-31 wts, 32-47 epoch (low bits), 48-55 write locks
**   held, 63 the line has a lease.
** Rules:
**   hit       tag match and cts <= rts (and the line's epoch is current);
**             otherwise the line is refetched into the same frame: a
**             "coherence miss" (reads; a stale epoch counts as a timestamp
**             overflow instead). The L2 also refetches for GLC reads, so
**             a spin on a flag always reaches memory.
**   fill      Bwts = max(cts, wts), Brts = max(wts + 1, rts) from the
**             answer (the L2's from the TSU, the L1's from the L2).
**   write     write-through (the L1V is write-around: a hit updates the
**             line, every write goes below). A hit locks the line (an
**             MSHR) until the answer with the write's timestamps is back;
**             then cts = max(cts, Bwts). The line keeps its lease only if
**             nobody was granted a lease on it since it was fetched
**             (Bwts <= its rts): otherwise another writer may have
**             changed bytes this copy lacks, and cts >= Bwts > rts
**             expires it anyway.
**   atomics   performed at memory (coh_protocol.atomics_below); the
**             answer updates cts like a write.
**   acquire   an L1V or L1S invalidation (kernel launch, buffer_wbinvl1,
**             s_dcache_inv) sets the L1's and its GPU's L2s' cts to at
**             least the memory time.
**   responses the L2 stamps (rts, wts) on what it sends up (4 wire
**             bytes); the L1 sends none to the CU.
**   eviction  the L2 tells the line's TSU (a header-only notice).
*/
#include <stdlib.h>
#include <string.h>

#include "coh/halcone/halcone_int.h"
#include "sim/comp.h"
#include "util/xmalloc.h"

#define META_HAS_LEASE (1ull << 63)
#define META_LOCKS_SHIFT 48
#define META_LOCK_ONE (1ull << META_LOCKS_SHIFT)
#define META_LOCKS_MAX 0xffu
/* The epoch of an answer that carries no lease (the line it came from
** had lost its own): never current. */
#define HC_NO_EPOCH 0xffffffffu

#define MEMO_SLOTS 64u
#define MSHR_SLOTS 256u  /* > the MSHRs of a bank: few collisions */
#define MSG_HEADER_BYTES 8u  /* as every memory message (cache.c) */

typedef struct memo_slot {
    uint64_t key;             /* line + 1; 0: empty */
    uint64_t hash;
} memo_slot;

struct hc_cache {
    halcone *hc;
    cache *c;
    coh_level level;
    uint32_t gpu;
    uint64_t cts;
    uint32_t epoch;
    uint32_t line_bytes;      /* learnt from the first fill */
    uint64_t refetch_line;    /* rejected by hit_valid: no eviction notice */
    bool refetch_pending;
    /* Lines refetched after their lease expired, with a hash of the data
    ** they held: a refetch that brings the same bytes is a lease renewal. */
    memo_slot memo[MEMO_SLOTS];
    /* Acquires so far, and per line (direct-mapped) the count when its
    ** fill was sent or its lock taken: a read after a later acquire must
    ** not take that copy (hc_may_merge). */
    uint64_t acquires;
    struct {
        uint64_t line, acquires;
    } mshr_seen[MSHR_SLOTS];
    stat_counter *coherence_misses, *lease_renewals, *ts_overflows;
    stat_counter own[3];
    hc_cache *next, *next_l2;
};

static inline uint32_t meta_rts(uint64_t m) { return (uint32_t)(m & 0xffff); }
static inline uint32_t meta_wts(uint64_t m)
{
    return (uint32_t)(m >> 16 & 0xffff);
}
static inline uint32_t meta_epoch(uint64_t m)
{
    return (uint32_t)(m >> 32 & 0xffff);
}
static inline uint32_t meta_locks(uint64_t m)
{
    return (uint32_t)(m >> META_LOCKS_SHIFT & META_LOCKS_MAX);
}

static uint64_t meta_make(uint32_t rts, uint32_t wts, uint32_t epoch,
                          uint32_t locks)
{
    return META_HAS_LEASE | (uint64_t)(rts & 0xffff) |
           (uint64_t)(wts & 0xffff) << 16 | (uint64_t)(epoch & 0xffff) << 32 |
           (uint64_t)locks << META_LOCKS_SHIFT;
}

/* The cache in the current epoch (a re-initialisation restarts cts). */
static void normalise(hc_cache *h)
{
    if (h->epoch != h->hc->epoch) {
        h->epoch = h->hc->epoch;
        h->cts = 0;
    }
}

static bool meta_current(const hc_cache *h, uint64_t m)
{
    return (m & META_HAS_LEASE) && meta_epoch(m) == (h->epoch & 0xffff);
}

static uint64_t hash_bytes(const uint8_t *p, uint32_t n)
{
    uint64_t x = 1469598103934665603ull;     /* FNV-1a */
    for (uint32_t i = 0; i < n; i++)
        x = (x ^ p[i]) * 1099511628211ull;
    return x;
}

static memo_slot *memo_of(hc_cache *h, uint64_t line)
{
    return &h->memo[(line / 64) % MEMO_SLOTS];
}

static void note_refetch(hc_cache *h, uint64_t line)
{
    h->refetch_line = line;
    h->refetch_pending = true;
}

static bool hc_hit_valid(void *pd, cache *c, uint64_t line, uint64_t *meta,
                         const mem_msg *req)
{
    hc_cache *h = pd;
    normalise(h);
    if (h->level == COH_L2 && (req->flags & MEM_F_GLC) &&
        req->base.type == MEM_READ) {
        note_refetch(h, line);
        return false;         /* a GLC read always reaches memory */
    }
    if (!h->hc->lease_check)
        return true;          /* the broken test variant */
    if (!(*meta & META_HAS_LEASE)) {
        note_refetch(h, line);
        return false;
    }
    if (meta_epoch(*meta) != (h->epoch & 0xffff)) {
        stat_inc(h->ts_overflows);
        note_refetch(h, line);
        return false;
    }
    if (h->cts <= meta_rts(*meta))
        return true;
    memo_slot *ms = memo_of(h, line);
    if (req->base.type == MEM_READ && ms->key != line + 1) {
        /* Counted once per refetch: a request that must wait for an MSHR
        ** asks again, and finds its line memoised. */
        stat_inc(h->coherence_misses);
        uint8_t bytes[MEM_LINE_MAX];
        bool have = h->line_bytes && cache_probe(c, line, bytes, NULL);
        *ms = (memo_slot){line + 1,
                          have ? hash_bytes(bytes, h->line_bytes) : 0};
    }
    note_refetch(h, line);
    return false;
}

static void hc_on_fill(void *pd, cache *c, uint64_t line, uint64_t *meta,
                       const mem_msg *rsp)
{
    (void)c;
    hc_cache *h = pd;
    normalise(h);
    if (!h->line_bytes)
        h->line_bytes = rsp->size;
    if (h->refetch_pending && h->refetch_line == line)
        h->refetch_pending = false;
    memo_slot *ms = memo_of(h, line);
    if (ms->key == line + 1) {
        if (ms->hash == hash_bytes(rsp->data, h->line_bytes))
            stat_inc(h->lease_renewals);
        ms->key = 0;
    }
    if (!rsp->coh_bytes) {
        *meta = 0;            /* no lease came with it */
        return;
    }
    hc_stamp s = hc_stamp_unpack(rsp->coh[0]);
    uint32_t bwts = (uint32_t)hc_max(h->cts, s.wts);
    uint32_t brts = (uint32_t)hc_max(s.wts + 1u, s.rts);
    *meta = meta_make(brts, bwts, s.epoch, 0);
}

/* An MSHR for line starts (a fill or a lock): remember the acquires. */
static void note_mshr(hc_cache *h, uint64_t line)
{
    size_t i = (line / 64) % MSHR_SLOTS;
    h->mshr_seen[i].line = line;
    h->mshr_seen[i].acquires = h->acquires;
}

static void hc_on_send_below(void *pd, cache *c, mem_msg *down,
                             const mem_msg *orig)
{
    (void)c;
    (void)orig;
    if (down->base.type == MEM_READ)
        note_mshr(pd, down->addr);
}

/* A copy being fetched (or locked) since before the latest acquire may be
** older than a write that acquire must make visible: the read waits for
** it and then asks hit_valid (unknown lines: wait too). */
static bool hc_may_merge(void *pd, cache *c, uint64_t line,
                         const mem_msg *req)
{
    (void)c;
    (void)req;
    hc_cache *h = pd;
    size_t i = (line / 64) % MSHR_SLOTS;
    return h->mshr_seen[i].line == line &&
           h->mshr_seen[i].acquires == h->acquires;
}

static void hc_on_write(void *pd, cache *c, uint64_t line, uint64_t *meta,
                        const mem_msg *req)
{
    (void)req;
    if (!(*meta & META_HAS_LEASE))
        return;
    /* Locked until the write's timestamps return (Algorithms 4, 5); with
    ** no MSHR for the lock the copy loses its lease instead. */
    if (meta_locks(*meta) < META_LOCKS_MAX && cache_line_lock(c, line)) {
        *meta += META_LOCK_ONE;
        note_mshr(pd, line);
    } else {
        *meta &= ~META_HAS_LEASE;
    }
}

static void stamp(mem_msg *m, hc_stamp s)
{
    m->coh[0] = hc_stamp_pack(s);
    m->coh[1] = 0;
    mem_msg_set_coh_bytes(m, HC_TS_WIRE_BYTES);
}

static void unstamp(mem_msg *m)
{
    m->coh[0] = m->coh[1] = 0;
    mem_msg_set_coh_bytes(m, 0);
}

static void hc_on_ack(void *pd, cache *c, uint64_t line, uint64_t *meta,
                      const mem_msg *ack, mem_msg *up)
{
    hc_cache *h = pd;
    normalise(h);
    mem_msg_type t = (mem_msg_type)ack->req->base.type;
    bool write = t == MEM_WRITE || t == MEM_ATOMIC;
    hc_stamp s = hc_stamp_unpack(ack->coh[0]);
    bool current = ack->coh_bytes && s.epoch == h->epoch;
    uint32_t bwts = (uint32_t)hc_max(h->cts, s.wts);
    uint32_t brts = (uint32_t)hc_max(s.wts + 1u, s.rts);
    if (write && current)
        h->cts = hc_max(h->cts, bwts);
    if (write && meta && meta_locks(*meta)) {
        uint64_t m = *meta - META_LOCK_ONE;
        uint32_t locks = meta_locks(m);
        if (current && meta_current(h, m) && bwts <= meta_rts(m))
            m = meta_make((uint32_t)hc_max(brts, meta_rts(m)), bwts, s.epoch,
                          locks);
        *meta = m;
        cache_line_unlock(c, line);
    }
    if (!up)
        return;
    if (h->level != COH_L2 || !ack->coh_bytes)
        unstamp(up);
    else
        stamp(up, (hc_stamp){brts, bwts, s.epoch});
}

static void hc_on_respond(void *pd, cache *c, uint64_t line, uint64_t *meta,
                          mem_msg *rsp, const mem_msg *req)
{
    (void)c;
    (void)line;
    hc_cache *h = pd;
    if (h->level != COH_L2) {
        unstamp(rsp);         /* the CU keeps no timestamps */
        return;
    }
    if (req->base.type != MEM_READ)
        return;               /* write and atomic answers: hc_on_ack */
    if (meta && (*meta & META_HAS_LEASE))
        stamp(rsp, (hc_stamp){meta_rts(*meta), meta_wts(*meta),
                              meta_current(h, *meta) ? h->epoch
                                                     : HC_NO_EPOCH});
    else
        stamp(rsp, (hc_stamp){0, 0, HC_NO_EPOCH});
}

static void hc_on_evict(void *pd, cache *c, uint64_t line, uint64_t *meta,
                        bool dirty)
{
    (void)meta;
    (void)dirty;
    hc_cache *h = pd;
    if (h->level != COH_L2)
        return;
    if (h->refetch_pending && h->refetch_line == line)
        return;               /* refetched into the same frame */
    mem_msg *m = mem_msg_alloc(h->hc->pool, MEM_WRITE);
    m->addr = line;
    m->size = 0;
    m->mask = 0;
    m->flags = MEM_F_PHYS;
    m->gpu = (int32_t)h->gpu;
    m->coh[1] = HC_EVICT_NOTICE;
    m->base.bytes = MSG_HEADER_BYTES;
    if (!cache_send_below(c, m, false))
        mem_msg_release(h->hc->pool, m);   /* a hint: skipped when busy */
}

static void acquire(hc_cache *h)
{
    normalise(h);
    h->acquires++;
    h->cts = hc_max(h->cts, h->hc->mem_time);
}

static void hc_on_ctrl(void *pd, cache *c, const mem_msg *req)
{
    (void)c;
    hc_cache *h = pd;
    if (h->level != COH_L2 && req->base.type == MEM_INVALIDATE) {
        acquire(h);
        hc_acquire_l2s(h->hc, h->gpu);
    }
}

void hc_acquire_l2s(halcone *hc, uint32_t gpu)
{
    for (hc_cache *h = hc->caches; h; h = h->next)
        if (h->level == COH_L2 && h->gpu == gpu)
            acquire(h);
}

static const cache_protocol hooks = {
    .name = "halcone",
    .hit_valid = hc_hit_valid,
    .may_merge = hc_may_merge,
    .on_send_below = hc_on_send_below,
    .on_fill = hc_on_fill,
    .on_write = hc_on_write,
    .on_evict = hc_on_evict,
    .on_ctrl = hc_on_ctrl,
    .on_respond = hc_on_respond,
    .on_ack = hc_on_ack,
};

void hc_cache_attach(halcone *hc, cache *c, coh_level level, uint32_t gpu)
{
    if (level == COH_L1I)
        return;               /* code: written only by the runtime */
    hc_cache *h = MGS_NEW(hc_cache);
    h->hc = hc;
    h->c = c;
    h->level = level;
    h->gpu = gpu;
    h->epoch = hc->epoch;
    stat_counter **slots[3] = {&h->coherence_misses, &h->lease_renewals,
                               &h->ts_overflows};
    static const char *const names[3] = {"coherence_misses",
                                         "lease_renewals", "ts_overflows"};
    const char *cname = ((const sim_comp *)c)->name;
    for (int i = 0; i < 3; i++)
        *slots[i] = hc->stats ? stat_counter_add(hc->stats, cname, names[i],
                                                 "count")
                              : &h->own[i];
    h->next = hc->caches;
    hc->caches = h;
    cache_set_protocol(c, &hooks, h);
}

void hc_cache_free_all(halcone *hc)
{
    for (hc_cache *h = hc->caches, *n; h; h = n) {
        n = h->next;
        free(h);
    }
    hc->caches = NULL;
}
