/*
** The cache component: pipeline, policies and control (see cache.h for the
** interface, cache_int.h for the storage, docs/memory.md for the design).
**
** One tick (on the cache clock, only while there is work) runs, in order:
**   1. send_ready     responses whose time has come go up; transactions
**                     whose time has come go below (route per address)
**   2. take_bottom    answers from below: fills (MSHR -> DRAIN), acks of
**                     forwarded writes/reads/atomics (answer the requester)
**   3. drain          MSHRs in DRAIN serve their targets in arrival order
**                     (skipping locked ones)
**   4. inv_step       MEM_INV_LINE from below, in order, once no fill or
**                     lock holds the line: drop it, write back its dirty
**                     bytes, then MEM_INV_ACK down (same FIFO, after them)
**   5. ctrl_step      the flush / invalidate state machine
**   6. take_top       up to requests_per_cycle new requests, in order; the
**                     first one that cannot get its resources stops intake
**   7. send_ready     again, so zero-latency work leaves in the same cycle
**
** Dirty bytes. A write-back frame keeps a mask of the bytes written since
** it was filled; a write-back carries only those (a masked write of the
** line; a 128-byte line whose two halves are both partly dirty leaves as
** two masked 64-byte writes of one transaction, since masks cover <= 64
** bytes, memmsg.h). A fully dirty line leaves as one unmasked write, as
** before. So two caches that write different bytes of one line never
** overwrite each other's bytes below.
**
** Timing. A request that reaches the top buffer at t is taken at the first
** cache edge e after t; a hit's response leaves at e + hit_latency cycles;
** a miss's fetch leaves at e + miss_latency cycles; a fill taken at edge f
** answers its first target at f + hit_latency cycles. Forwarded writes are
** answered hit_latency cycles after the edge their ack is taken.
**
** Admission. A request is accepted only when everything it may need is
** free (response slot, MSHR, victim frame, transactions below for the
** fetch and a dirty victim); otherwise it stays in the top buffer, which
** stops intake (back-pressure towards the sender) and counts a stall.
** Nothing is ever dropped, so every accepted request completes.
**
** Ordering rule. Requests to one line are served in arrival order: while a
** line has an MSHR, every later request for it merges behind the fill (or
** waits in the top buffer); requests that leave for below (misses,
** write-through/around writes, write-backs, forwarded atomics) leave in
** FIFO order through one queue and an address always routes to the same
** port, so the level below sees them in order too. Hence a read always
** sees the earlier writes of the same source.
*/
#include "mem/cache.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "gcn3/emu_atomic.h"
#include "mem/cache_int.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

#define MSG_HEADER_BYTES 8u   /* wire size of a message without payload */

enum { CACHE_EV_WAKE = 1 };

static inline mgs_time now_of(const cache *c) { return eng_now(c->base.eng); }

static bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

void cache_config_default(cache_config *c)
{
    /* R9 Nano L1V-like defaults (mgpusim-anchor-study.md 1.7): 16 KB,
    ** 4-way, 64 B lines, write-around; latencies are assumed round
    ** numbers, presets set the real ones. */
    memset(c, 0, sizeof *c);
    c->size = 16 * 1024;
    c->ways = 4;
    c->line = 64;
    c->hit_latency = 20;
    c->miss_latency = 1;
    c->mshr_entries = 16;
    c->mshr_targets = 8;
    c->top_buffer = 8;
    c->ctrl_buffer = 2;
    c->max_inflight_below = 16;
    c->requests_per_cycle = 4;
    c->write_policy = CACHE_WRITE_AROUND;
    c->glc_bypass = true;
    c->atomics_here = false;
    c->write_allocate = false;
    c->period = 1000;
    c->remote_write_policy = CACHE_WRITE_AROUND; /* unused: all local */
    c->local_base = c->local_limit = 0;
    c->lock_entries = 0;
    c->inv_buffer = 4;
    c->remote_max_inflight = 0;
    c->banks = 1;
    c->bank_interleave = 0;
}

int cache_config_validate(const cache_config *c)
{
    if (!is_pow2(c->line) || c->line > MEM_LINE_MAX)
        return mgs_error_set(MGS_EINVAL, "cache line = %u: must be a power "
                             "of 2 <= %u", c->line, MEM_LINE_MAX);
    if (!is_pow2(c->size) || c->size < c->line)
        return mgs_error_set(MGS_EINVAL, "cache size = %llu: must be a "
                             "power of 2 >= line",
                             (unsigned long long)c->size);
    if (c->ways < 1 || (c->size / c->line) % c->ways ||
        !is_pow2(c->size / c->line / c->ways))
        return mgs_error_set(MGS_EINVAL, "cache ways = %u: size/line/ways "
                             "must be a whole power of 2 (sets)", c->ways);
    if (c->mshr_entries < 1 || c->mshr_targets < 1)
        return mgs_error_set(MGS_EINVAL, "cache mshr_entries and "
                             "mshr_targets must be >= 1");
    if (c->top_buffer < 1 || c->ctrl_buffer < 1)
        return mgs_error_set(MGS_EINVAL, "cache top_buffer and ctrl_buffer "
                             "must be >= 1");
    if (c->remote_max_inflight && c->remote_max_inflight >=
                                      c->max_inflight_below)
        return mgs_error_set(MGS_EINVAL, "cache remote_max_inflight = %u: "
                             "must leave transactions for local lines (< "
                             "max_inflight_below = %u)",
                             c->remote_max_inflight, c->max_inflight_below);
    if (c->remote_write_policy > CACHE_WRITE_BACK)
        return mgs_error_set(MGS_EINVAL, "cache remote_write_policy = %d: "
                             "unknown", (int)c->remote_write_policy);
    /* A miss with a dirty victim needs two transactions at once. */
    bool wb = c->write_policy == CACHE_WRITE_BACK ||
              c->remote_write_policy == CACHE_WRITE_BACK;
    uint32_t min_below = wb ? 2 : 1;
    if (c->max_inflight_below < min_below)
        return mgs_error_set(MGS_EINVAL, "cache max_inflight_below = %u: "
                             "must be >= %u for this write policy",
                             c->max_inflight_below, min_below);
    if (c->requests_per_cycle < 1)
        return mgs_error_set(MGS_EINVAL, "cache requests_per_cycle must be "
                             ">= 1");
    if (c->write_policy > CACHE_WRITE_BACK)
        return mgs_error_set(MGS_EINVAL, "cache write_policy = %d: unknown",
                             (int)c->write_policy);
    if (c->period < 1)
        return mgs_error_set(MGS_EINVAL, "cache period must be >= 1 ps");
    if (c->banks < 1 || (c->banks > 1 && (!is_pow2(c->bank_interleave) ||
                                          c->bank_interleave < c->line)))
        return mgs_error_set(MGS_EINVAL, "cache banks = %u, bank_interleave "
                             "= %llu: banks must be >= 1 and, when > 1, the "
                             "interleave a power of 2 >= line", c->banks,
                             (unsigned long long)c->bank_interleave);
    return MGS_OK;
}

/* ---- small helpers ---------------------------------------------------- */

static inline bool byte_enabled(const mem_msg *m, uint32_t i)
{
    return m->mask == ~0ull || (i < 64 && ((m->mask >> i) & 1));
}

static bool is_full_line_write(const cache *c, const mem_msg *m)
{
    return m->size == c->cfg.line && m->mask == ~0ull;
}

static bool line_is_local(const cache *c, uint64_t addr)
{
    if (c->is_local)
        return c->is_local(c->locality_ud, cache_line_addr(c, addr));
    return addr >= c->cfg.local_base && addr < c->cfg.local_limit;
}

/* The write policy of addr's line (one branch when nothing is remote). */
static inline cache_write_policy policy_of(const cache *c, uint64_t addr)
{
    if (!c->split_policy)
        return c->cfg.write_policy;
    return line_is_local(c, addr) ? c->cfg.write_policy
                                  : c->cfg.remote_write_policy;
}

/* Bits of the bytes [lo, hi) of a line that fall in dirty word w. */
static uint64_t range_bits(uint32_t lo, uint32_t hi, uint32_t w)
{
    uint32_t a = w * 64, b = a + 64;
    lo = lo < a ? a : lo;
    hi = hi > b ? b : hi;
    if (lo >= hi)
        return 0;
    uint32_t n = hi - lo;
    return (n == 64 ? ~0ull : (1ull << n) - 1) << (lo - a);
}

/* Marks the bytes a write (size bytes at line offset off, byte-enable
** mask as in mem_msg) dirtied. Partial masks cover <= 64 bytes. */
static void mark_dirty(cache *c, uint32_t fi, uint32_t off, uint32_t size,
                       uint64_t mask)
{
    uint64_t *d = cache_frame_dirty(c, fi);
    if (mask == ~0ull) {
        d[0] |= range_bits(off, off + size, 0);
        if (c->dirty_words > 1)
            d[1] |= range_bits(off, off + size, 1);
    } else {
        if (size < 64)
            mask &= (1ull << size) - 1;
        uint32_t w = off >> 6, sh = off & 63;
        d[w] |= mask << sh;
        if (sh && w + 1 < c->dirty_words)
            d[w + 1] |= mask >> (64 - sh);
    }
    /* A write with an empty mask dirties nothing. */
    c->frames[fi].dirty = (d[0] | (c->dirty_words > 1 ? d[1] : 0)) != 0;
}

static void clear_dirty(cache *c, uint32_t fi)
{
    uint64_t *d = cache_frame_dirty(c, fi);
    d[0] = 0;
    if (c->dirty_words > 1)
        d[1] = 0;
    c->frames[fi].dirty = false;
}

static void apply_write(uint8_t *line_bytes, uint32_t off, const mem_msg *m)
{
    for (uint32_t i = 0; i < m->size; i++)
        if (byte_enabled(m, i))
            line_bytes[off + i] = m->data[i];
}

static uint64_t load_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = (v << 8) | p[i];
    return v;
}

static void store_le(uint8_t *p, unsigned n, uint64_t v)
{
    for (unsigned i = 0; i < n; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

/* The RMW of an atomic on bytes p; returns the old value. */
static uint64_t apply_atomic(uint8_t *p, const mem_msg *m)
{
    unsigned n = m->atomic_size;
    uint64_t old = load_le(p, n);
    uint64_t nv = gcn_atomic_apply(gcn_atomic_kind_of(m->atomic_op), n, old,
                                   m->atomic_src, m->atomic_cmp);
    store_le(p, n, nv);
    return old;
}

static uint32_t offset_in_line(const cache *c, uint64_t addr)
{
    return (uint32_t)(addr & (c->cfg.line - 1));
}

static inline uint32_t rsp_room(const cache *c)
{
    return c->rsp_cap - c->rsp_count;
}

/* Queues rsp to leave through via hit_latency cycles from now. */
static void push_rsp(cache *c, mem_msg *rsp, sim_port *via)
{
    assert(c->rsp_count < c->rsp_cap);
    cache_rsp *r = &c->rsp_q[(c->rsp_head + c->rsp_count) % c->rsp_cap];
    r->msg = rsp;
    r->via = via;
    r->ready = now_of(c) + mgs_cycles(c->cfg.hit_latency, c->cfg.period);
    c->rsp_count++;
}

#define FRAME_LOOKUP (-2) /* answer_up: find the line's frame */

/* The protocol word of addr's line if the cache holds it (VALID), else
** NULL; fi is its frame, or FRAME_LOOKUP. */
static uint64_t *line_meta(cache *c, uint64_t addr, int64_t fi)
{
    if (fi == FRAME_LOOKUP)
        fi = cache_tags_find(c, cache_line_addr(c, addr));
    return fi >= 0 && c->frames[fi].state == LINE_VALID ? &c->frames[fi].proto
                                                        : NULL;
}

/* Keeps rsp (for via) until cache_release_held names line. */
static void hold_rsp(cache *c, mem_msg *rsp, sim_port *via, uint64_t line)
{
    if (c->held_count == c->held_cap) {
        c->held_cap = c->held_cap ? 2 * c->held_cap : 16;
        c->held = mgs_xrealloc(c->held, c->held_cap * sizeof *c->held);
    }
    c->held[c->held_count++] = (cache_held){rsp, via, line, 0, false};
}

/* Queues the response rsp to req from above (fi: the frame it came from,
** -1 none, FRAME_LOOKUP unknown), letting the protocol stamp it. */
static void answer_up(cache *c, mem_msg *rsp, const mem_msg *req, int64_t fi)
{
    if (c->proto) {
        uint64_t line = cache_line_addr(c, req->addr);
        if (c->proto->on_respond)
            c->proto->on_respond(c->proto_data, c, line,
                                 line_meta(c, req->addr, fi), rsp, req);
        if (c->proto->hold && c->proto->hold(c->proto_data, c, line, rsp,
                                             req)) {
            hold_rsp(c, rsp, &c->top, line);
            return;
        }
    }
    push_rsp(c, rsp, &c->top);
}

/* A message of ours for below, copying identity fields from orig. */
static mem_msg *new_down(cache *c, mem_msg_type type, uint64_t addr,
                         uint32_t size, const mem_msg *orig)
{
    mem_msg *d = mem_msg_alloc(c->pool, type);
    d->addr = addr;
    d->size = size;
    if (orig) {
        d->flags = orig->flags & (MEM_F_GLC | MEM_F_SLC | MEM_F_INST |
                                  MEM_F_SCALAR | MEM_F_PHYS);
        d->pid = orig->pid;
        d->gpu = orig->gpu;
    }
    d->base.bytes = MSG_HEADER_BYTES;
    return d;
}

/* Queues d to go below as a transaction of the given kind. The caller has
** checked that a transaction slot is free (admission, see the file note). */
static cache_txn *enqueue_down2(cache *c, uint8_t kind, mem_msg *d,
                                mem_msg *d2, mem_msg *orig)
{
    cache_txn *t = cache_txn_alloc(c, kind);
    t->down = d;
    t->down2 = d2;
    t->orig = orig;
    if (c->split_policy && !line_is_local(c, d->addr)) {
        t->remote = true;
        c->remote_txns++;
    }
    if (c->proto && c->proto->on_send_below) {
        c->proto->on_send_below(c->proto_data, c, d, orig);
        if (d2)
            c->proto->on_send_below(c->proto_data, c, d2, orig);
    }
    cache_down_push(c, t);
    return t;
}

static cache_txn *enqueue_down(cache *c, uint8_t kind, mem_msg *d,
                               mem_msg *orig)
{
    return enqueue_down2(c, kind, d, NULL, orig);
}

/* A masked write of n line bytes at addr (mask all ones: every byte). */
static mem_msg *writeback_msg(cache *c, uint64_t addr, const uint8_t *bytes,
                              uint32_t n, uint64_t mask)
{
    mem_msg *d = new_down(c, MEM_WRITE, addr, n, NULL);
    d->flags = MEM_F_PHYS;
    memcpy(d->data, bytes, n);
    d->mask = mask;
    d->base.bytes += n;
    return d;
}

/* Writes back the dirty bytes of frame fi (one transaction; the caller
** reserved it) and marks the frame clean. */
static void enqueue_writeback(cache *c, uint32_t fi)
{
    cache_frame *f = &c->frames[fi];
    const uint64_t *dm = cache_frame_dirty(c, fi);
    const uint8_t *bytes = cache_frame_data(c, fi);
    uint32_t part = c->cfg.line > 64 ? 64 : c->cfg.line;
    uint64_t full = part == 64 ? ~0ull : (1ull << part) - 1;
    mem_msg *d[2] = {NULL, NULL};
    if (dm[0] == full && (c->dirty_words == 1 || dm[1] == full)) {
        d[0] = writeback_msg(c, f->line_addr, bytes, c->cfg.line, ~0ull);
    } else {
        uint32_t n = 0;
        for (uint32_t w = 0; w < c->dirty_words; w++)
            if (dm[w])
                d[n++] = writeback_msg(c, f->line_addr + 64u * w,
                                       bytes + 64u * w, part,
                                       dm[w] == full ? ~0ull : dm[w]);
    }
    assert(d[0] && "write-back of a clean line");
    clear_dirty(c, fi);
    enqueue_down2(c, TXN_WRITEBACK, d[0], d[1], NULL);
    stat_inc(c->writebacks);
}

/* Forwards a write from above (the bytes it writes, with its mask). */
static void forward_write(cache *c, mem_msg *req, uint8_t kind)
{
    mem_msg *d = new_down(c, MEM_WRITE, req->addr, req->size, req);
    memcpy(d->data, req->data, req->size);
    d->mask = req->mask;
    d->base.bytes += req->size;
    mem_msg_copy_coh(d, req);
    enqueue_down(c, kind, d, req);
}

/* Removes a valid frame's line (writing it back if dirty: the caller
** reserved the transaction). */
static void evict_frame(cache *c, uint32_t fi, bool count)
{
    cache_frame *f = &c->frames[fi];
    if (f->state != LINE_VALID)
        return;
    if (c->proto && c->proto->on_evict)
        c->proto->on_evict(c->proto_data, c, f->line_addr, &f->proto,
                           f->dirty);
    if (count)
        stat_inc(c->evictions);
    if (f->dirty) {
        if (count)
            stat_inc(c->dirty_evictions);
        enqueue_writeback(c, fi);
    }
    f->state = LINE_INVALID;
    c->tags[fi] = 0;
}

static bool frame_dirty(const cache *c, int64_t fi)
{
    return fi >= 0 && c->frames[fi].state == LINE_VALID &&
           c->frames[fi].dirty;
}

static bool hit_usable(cache *c, int64_t fi, const mem_msg *req)
{
    cache_frame *f = &c->frames[fi];
    if (f->state != LINE_VALID)
        return false;
    if (c->proto && c->proto->hit_valid)
        return c->proto->hit_valid(c->proto_data, c, f->line_addr, &f->proto,
                                   req);
    return true;
}

static void note_write(cache *c, uint32_t fi, const mem_msg *req)
{
    cache_frame *f = &c->frames[fi];
    if (c->proto && c->proto->on_write)
        c->proto->on_write(c->proto_data, c, f->line_addr, &f->proto, req);
}

/* Claims frame fi for line (evicting what was there). */
static void claim_frame(cache *c, uint32_t fi, uint64_t line, uint8_t state)
{
    evict_frame(c, fi, c->frames[fi].line_addr != line);
    cache_frame *f = &c->frames[fi];
    if (!f->listed) {
        f->listed = true;
        c->live[c->nlive++] = fi;
    }
    f->line_addr = line;
    f->state = state;
    c->tags[fi] = state == LINE_INVALID ? 0 : line + 1;
    if (state != LINE_INVALID)
        cache_region_note(c, line);
    clear_dirty(c, fi);
    f->proto = 0;
    cache_tags_touch(c, fi);
}

/* Whether half the ways of line's set already wait for remote fills: a
** remote miss must then wait, so that a request of another GPU for a line
** homed here (whose answer those fills may be waiting for, at that GPU's
** home port) always finds a victim (the frame twin of remote_max_inflight;
** with a 4 KB bank, 16 ways and 32 remote fills out, gemm on 4 GPUs once
** filled whole sets on every GPU and stopped). */
static bool remote_set_full(const cache *c, uint64_t line)
{
    uint32_t first = cache_set_of(c, line) * c->cfg.ways, busy = 0;
    for (uint32_t w = 0; w < c->cfg.ways; w++) {
        const cache_frame *f = &c->frames[first + w];
        busy += (f->state == LINE_PENDING || f->mshr) &&
                !line_is_local(c, f->line_addr);
    }
    return 2 * busy >= c->cfg.ways;
}

/* Miss: reserve a frame (refetch_fi, or a victim), an MSHR and the fetch.
** Returns false (and counts the stall) when a resource is missing. */
static bool miss_alloc(cache *c, mem_msg *req, int64_t refetch_fi)
{
    uint64_t line = cache_line_addr(c, req->addr);
    if (!c->mshr_free ||
        c->mshr_used - c->lock_mshrs >= c->cfg.mshr_entries) {
        stat_inc(c->stall_mshr_full);
        return false;
    }
    if (c->cfg.remote_max_inflight && c->split_policy &&
        !line_is_local(c, line) && remote_set_full(c, line)) {
        stat_inc(c->stall_mshr_full);
        return false;
    }
    int64_t fi = refetch_fi >= 0 ? refetch_fi : cache_tags_victim(c, line);
    if (fi < 0) { /* every way of the set waits for a fill */
        stat_inc(c->stall_mshr_full);
        return false;
    }
    uint32_t need = 1 + (frame_dirty(c, fi) ? 1 : 0);
    if (cache_txn_free_count(c) < need) {
        stat_inc(c->stall_bottom_busy);
        return false;
    }
    claim_frame(c, (uint32_t)fi, line, LINE_PENDING);
    cache_mshr *m = cache_mshr_alloc(c, line, (uint32_t)fi);
    cache_mshr_add_target(c, m, req);
    mem_msg *d = new_down(c, MEM_READ, line, c->cfg.line, req);
    d->flags &= ~MEM_F_GLC;
    cache_txn *t = enqueue_down(c, TXN_FILL, d, NULL);
    t->mshr = m;
    return true;
}

/* Full-line write miss: a frame without fetching. -1 when none free. */
static int64_t alloc_no_fetch(cache *c, uint64_t line, uint32_t extra_txn)
{
    int64_t fi = cache_tags_victim(c, line);
    if (fi < 0) {
        stat_inc(c->stall_mshr_full);
        return -1;
    }
    if (cache_txn_free_count(c) < extra_txn + (frame_dirty(c, fi) ? 1 : 0)) {
        stat_inc(c->stall_bottom_busy);
        return -1;
    }
    claim_frame(c, (uint32_t)fi, line, LINE_VALID);
    return fi;
}

static bool merge_target(cache *c, cache_mshr *m, mem_msg *req)
{
    /* An invalidation waits for this MSHR: let it finish first. */
    if (m->inv_wait || !cache_mshr_add_target(c, m, req)) {
        stat_inc(c->stall_mshr_full);
        return false;
    }
    return true;
}

static bool glc_bypasses(const cache *c, const mem_msg *m)
{
    /* A write-back cache may hold the only up-to-date copy: it never
    ** bypasses (documented in docs/memory.md). */
    return (m->flags & MEM_F_GLC) && c->cfg.glc_bypass &&
           policy_of(c, m->addr) != CACHE_WRITE_BACK;
}

/* ---- request handlers (return whether the request was accepted) ------- */

static void respond_read_from_frame(cache *c, uint32_t fi, mem_msg *req,
                                    sim_port *via)
{
    (void)via;
    mem_msg *r = mem_msg_response(c->pool, req);
    memcpy(r->data, cache_frame_data(c, fi) + offset_in_line(c, req->addr),
           req->size);
    answer_up(c, r, req, fi);
}

/* Whether the protocol lets a read merge into line's MSHR. */
static bool merge_allowed(cache *c, uint64_t line, const mem_msg *req)
{
    return !c->proto || !c->proto->may_merge ||
           c->proto->may_merge(c->proto_data, c, line, req);
}

static bool handle_burst(cache *c, mem_msg *req);

static bool handle_read(cache *c, mem_msg *req, sim_port *via)
{
    if (req->parts > 1)
        return handle_burst(c, req);
    uint64_t line = cache_line_addr(c, req->addr);
    int64_t fi = cache_tags_find(c, line);
    bool glc = glc_bypasses(c, req);
    if (fi >= 0 && c->frames[fi].mshr) {
        if (glc || !merge_allowed(c, line, req) ||
            !merge_target(c, c->frames[fi].mshr, req))
            return false;
        stat_inc(c->read_mshr_merges);
        return true;
    }
    if (glc) {
        if (cache_txn_free_count(c) < 1) {
            stat_inc(c->stall_bottom_busy);
            return false;
        }
        mem_msg *d = new_down(c, MEM_READ, req->addr, req->size, req);
        mem_msg_copy_coh(d, req);
        enqueue_down(c, TXN_READ_FWD, d, req);
        stat_inc(c->read_misses);
        return true;
    }
    if (fi >= 0 && hit_usable(c, fi, req)) {
        if (rsp_room(c) < 1)
            return false;
        cache_tags_touch(c, (uint32_t)fi);
        respond_read_from_frame(c, (uint32_t)fi, req, via);
        stat_inc(c->read_hits);
        return true;
    }
    if (!miss_alloc(c, req, fi))
        return false;
    stat_inc(c->read_misses);
    return true;
}

/* A DMA engine's burst of whole lines (memmsg.h `parts`, dma.h
** device_bursts; the cache is a plain write-back cache without a protocol
** and the lines are local). A write updates the lines held here in place,
** as write hits; a read copies them into the burst's bytes, as read hits.
** The other lines go below as one burst (mask bit i: part i goes) without
** allocating here (a copy moves memory, not the cache: the default
** platform.copy_allocates_l2 = false), answered when below answers it.
** Waits while any of its lines is being filled. */
static bool handle_burst(cache *c, mem_msg *req)
{
    uint32_t line = c->cfg.line, n = req->parts;
    bool write = req->base.type == MEM_WRITE;
    assert(!c->proto && req->size == line && req->addr % line == 0 &&
           n <= 64 && policy_of(c, req->addr) == CACHE_WRITE_BACK &&
           (req->base.type == MEM_READ || write) &&
           "a device burst needs a plain write-back cache (dma.h)");
    int64_t fi[64];
    uint64_t below = 0;
    if (cache_regions_unseen(c, req->addr, (uint64_t)n * line)) {
        below = n == 64 ? ~0ull : (1ull << n) - 1; /* none of them here */
    } else {
        cache_tags_find_run(c, req->addr, n, fi);
        for (uint32_t i = 0; i < n; i++) {
            if (fi[i] >= 0 && c->frames[fi[i]].mshr)
                return false;
            if (fi[i] < 0 || !hit_usable(c, fi[i], req))
                below |= 1ull << i;
        }
    }
    if (below ? cache_txn_free_count(c) < 1 : rsp_room(c) < 1) {
        if (below)
            stat_inc(c->stall_bottom_busy);
        return false;
    }
    stat_addn(write ? c->write_misses : c->read_misses,
              (uint64_t)__builtin_popcountll(below));
    for (uint32_t i = 0; i < n; i++) {
        if (below >> i & 1)
            continue;
        uint32_t f = (uint32_t)fi[i];
        uint8_t *part = req->bulk + (size_t)i * line;
        if (write) {
            memcpy(cache_frame_data(c, f), part, line);
            mark_dirty(c, f, 0, line, ~0ull);
        } else {
            memcpy(part, cache_frame_data(c, f), line);
        }
        cache_tags_touch(c, f);
        stat_inc(write ? c->write_hits : c->read_hits);
    }
    if (!below) {
        mem_msg *up = mem_msg_response(c->pool, req);
        if (!write)
            up->base.bytes += (n - 1) * line;
        answer_up(c, up, req, -1);
        return true;
    }
    mem_msg *d = new_down(c, req->base.type, req->addr, line, req);
    d->parts = req->parts;
    d->bulk = req->bulk;
    d->mask = below;
    if (write)
        d->base.bytes += (uint32_t)__builtin_popcountll(below) * line;
    enqueue_down(c, write ? TXN_WRITE_FWD : TXN_READ_FWD, d, req);
    return true;
}

static bool handle_write(cache *c, mem_msg *req, sim_port *via)
{
    if (req->parts > 1)
        return handle_burst(c, req);
    if (c->fault_drop_write_every) {
        /* Test-only fault: acknowledge the n-th write without doing it. */
        if (rsp_room(c) < 1)
            return false;
        if (++c->fault_write_count % c->fault_drop_write_every == 0) {
            push_rsp(c, mem_msg_response(c->pool, req), via);
            return true;
        }
    }
    uint64_t line = cache_line_addr(c, req->addr);
    uint32_t off = offset_in_line(c, req->addr);
    int64_t fi = cache_tags_find(c, line);
    bool glc = glc_bypasses(c, req);
    if (fi >= 0 && c->frames[fi].mshr) {
        if (glc || !merge_target(c, c->frames[fi].mshr, req))
            return false;
        stat_inc(c->write_misses);
        return true;
    }
    bool hit = fi >= 0 && hit_usable(c, fi, req);
    cache_write_policy pol = policy_of(c, line);
    if (pol == CACHE_WRITE_BACK && !hit && (req->flags & MEM_F_NOALLOC))
        pol = CACHE_WRITE_AROUND; /* a copy writes memory, not the cache */
    if (pol == CACHE_WRITE_BACK) {
        if (!hit) {
            if (!is_full_line_write(c, req)) {
                if (!miss_alloc(c, req, fi))
                    return false;
                stat_inc(c->write_misses);
                return true;
            }
            if (rsp_room(c) < 1)
                return false;
            /* A whole-line write needs no fetch; a frame that holds a copy
            ** the protocol rejected is simply overwritten. */
            if (fi < 0 && (fi = alloc_no_fetch(c, line, 0)) < 0)
                return false;
            stat_inc(c->write_misses);
        } else {
            if (rsp_room(c) < 1)
                return false;
            stat_inc(c->write_hits);
        }
        apply_write(cache_frame_data(c, (uint32_t)fi), off, req);
        mark_dirty(c, (uint32_t)fi, off, req->size, req->mask);
        cache_tags_touch(c, (uint32_t)fi);
        note_write(c, (uint32_t)fi, req);
        answer_up(c, mem_msg_response(c->pool, req), req, fi);
        return true;
    }
    /* Write-through and write-around: the write always goes below and is
    ** answered when below acknowledges it. */
    if (!hit && pol == CACHE_WRITE_THROUGH && c->cfg.write_allocate && !glc) {
        if (!is_full_line_write(c, req)) {
            if (!miss_alloc(c, req, fi))
                return false;
            stat_inc(c->write_misses);
            return true;
        }
        if (cache_txn_free_count(c) < 1) {
            stat_inc(c->stall_bottom_busy);
            return false;
        }
        if (fi < 0 && (fi = alloc_no_fetch(c, line, 1)) < 0)
            return false;
        hit = true; /* the frame now holds the line: update it below */
        stat_inc(c->write_misses);
    } else {
        if (cache_txn_free_count(c) < 1) {
            stat_inc(c->stall_bottom_busy);
            return false;
        }
        stat_inc(hit ? c->write_hits : c->write_misses);
    }
    if (hit) {
        apply_write(cache_frame_data(c, (uint32_t)fi), off, req);
        cache_tags_touch(c, (uint32_t)fi);
        note_write(c, (uint32_t)fi, req);
    }
    forward_write(c, req, TXN_WRITE_FWD);
    return true;
}

/* The atomic point: RMW on the cached line, answered after hit latency; a
** non-write-back cache also writes the new value through. */
static void atomic_on_line(cache *c, uint32_t fi, mem_msg *req, sim_port *via)
{
    (void)via;
    uint32_t off = offset_in_line(c, req->addr);
    uint8_t *p = cache_frame_data(c, fi) + off;
    mem_msg *r = mem_msg_response(c->pool, req);
    uint64_t old = apply_atomic(p, req);
    store_le(r->data, req->atomic_size, old);
    cache_tags_touch(c, fi);
    note_write(c, fi, req);
    if (policy_of(c, req->addr) == CACHE_WRITE_BACK) {
        mark_dirty(c, fi, off, req->atomic_size, ~0ull);
    } else {
        mem_msg *d = new_down(c, MEM_WRITE, req->addr, req->atomic_size, req);
        memcpy(d->data, p, req->atomic_size);
        d->base.bytes += req->atomic_size;
        enqueue_down(c, TXN_WRITEBACK, d, NULL);
    }
    answer_up(c, r, req, fi);
}

static bool handle_atomic(cache *c, mem_msg *req, sim_port *via)
{
    uint64_t line = cache_line_addr(c, req->addr);
    int64_t fi = cache_tags_find(c, line);
    /* A remote line's atomic is performed at its home, the one point
    ** every GPU's atomics on it reach. */
    if (c->cfg.atomics_here && (!c->split_policy || line_is_local(c, line))) {
        if (fi >= 0 && c->frames[fi].mshr) {
            if (!merge_target(c, c->frames[fi].mshr, req))
                return false;
            stat_inc(c->atomics);
            return true;
        }
        if (fi >= 0 && hit_usable(c, fi, req)) {
            uint32_t need =
                policy_of(c, line) == CACHE_WRITE_BACK ? 0 : 1;
            if (rsp_room(c) < 1)
                return false;
            if (cache_txn_free_count(c) < need) {
                stat_inc(c->stall_bottom_busy);
                return false;
            }
            atomic_on_line(c, (uint32_t)fi, req, via);
        } else if (!miss_alloc(c, req, fi)) {
            return false;
        }
        stat_inc(c->atomics);
        return true;
    }
    /* Performed below: our copy (if any) leaves first, written back if
    ** dirty, so the atomic and later fills see the latest data. */
    if (fi >= 0 && c->frames[fi].mshr)
        return false;
    if (cache_txn_free_count(c) < 1 + (frame_dirty(c, fi) ? 1 : 0)) {
        stat_inc(c->stall_bottom_busy);
        return false;
    }
    if (fi >= 0)
        evict_frame(c, (uint32_t)fi, false);
    mem_msg *d = new_down(c, MEM_ATOMIC, req->addr, req->size, req);
    d->atomic_op = req->atomic_op;
    d->atomic_size = req->atomic_size;
    d->atomic_src = req->atomic_src;
    d->atomic_cmp = req->atomic_cmp;
    d->base.bytes += 2u * req->atomic_size;
    mem_msg_copy_coh(d, req);
    enqueue_down(c, TXN_ATOMIC_FWD, d, req);
    stat_inc(c->atomics);
    return true;
}

/* ---- MSHR drain --------------------------------------------------------- */

/* Serves one target of a filled line; false if it must wait. */
static bool serve_target(cache *c, cache_mshr *m, mem_msg *req)
{
    uint32_t fi = m->frame;
    sim_port *via = &c->top;
    cache_write_policy pol = policy_of(c, m->line_addr);
    switch (req->base.type) {
    case MEM_READ:
        if (rsp_room(c) < 1)
            return false;
        cache_tags_touch(c, fi);
        respond_read_from_frame(c, fi, req, via);
        return true;
    case MEM_WRITE:
        if (pol == CACHE_WRITE_BACK) {
            if (rsp_room(c) < 1)
                return false;
            mark_dirty(c, fi, offset_in_line(c, req->addr), req->size,
                       req->mask);
            answer_up(c, mem_msg_response(c->pool, req), req, fi);
        } else {
            if (cache_txn_free_count(c) < 1)
                return false;
            forward_write(c, req, TXN_WRITE_FWD);
        }
        apply_write(cache_frame_data(c, fi), offset_in_line(c, req->addr),
                    req);
        cache_tags_touch(c, fi);
        note_write(c, fi, req);
        return true;
    case MEM_ATOMIC:
        if (rsp_room(c) < 1 ||
            (pol != CACHE_WRITE_BACK && cache_txn_free_count(c) < 1))
            return false;
        atomic_on_line(c, fi, req, via);
        return true;
    default:
        assert(!"unexpected MSHR target");
        return true;
    }
}

/* Serves MSHRs in fill order, skipping locked ones (a hook may lock the
** line of the target being served: the rest then wait). */
static bool drain(cache *c)
{
    bool progress = false;
    uint32_t budget = c->cfg.requests_per_cycle;
    cache_mshr *prev = NULL, *m = c->drain_head;
    while (m && budget) {
        while (m->head < m->count && budget && !m->locks) {
            if (!serve_target(c, m, m->targets[m->head]))
                return progress;
            m->head++;
            budget--;
            progress = true;
        }
        cache_mshr *next = m->next;
        if (m->locks) {
            prev = m;
            m = next;
            continue;
        }
        if (m->head < m->count)
            break;
        if (prev)
            prev->next = next;
        else
            c->drain_head = next;
        if (c->drain_tail == m)
            c->drain_tail = prev;
        bool drop = m->drop_after;
        uint32_t fi = m->frame;
        cache_mshr_release(c, m);
        if (drop) {
            /* Invalidated while it was being filled (inv_step). */
            assert(!c->frames[fi].dirty);
            evict_frame(c, fi, false);
        }
        progress = true;
        m = next;
    }
    return progress;
}

/* ---- answers from below ------------------------------------------------- */

/* An answer other than a fill: tell the protocol, relay the answer's
** protocol fields into up (if any), and queue up. */
static void relay_answer(cache *c, const mem_msg *r, const mem_msg *req,
                         mem_msg *up)
{
    if (up)
        mem_msg_copy_coh(up, r);
    if (c->proto && c->proto->on_ack)
        c->proto->on_ack(c->proto_data, c, cache_line_addr(c, r->req->addr),
                         line_meta(c, r->req->addr, FRAME_LOOKUP), r, up);
    if (up)
        answer_up(c, up, req, FRAME_LOOKUP);
}

static bool take_bottom(cache *c)
{
    bool progress = false;
    for (uint32_t n = 0; n < c->cfg.requests_per_cycle; n++) {
        mem_msg *r = (mem_msg *)port_peek(&c->bottom);
        if (!r)
            break;
        if (r->base.type == MEM_INV_LINE) {
            /* Unsolicited, from below: served in order by inv_step. */
            if (c->inv_count == c->inv_cap)
                break;
            port_retrieve(&c->bottom);
            c->inv_q[(c->inv_head + c->inv_count++) % c->inv_cap] = r;
            progress = true;
            continue;
        }
        cache_txn *t = r->req->origin;
        assert(t && t->kind != TXN_FREE &&
               (t->down == r->req || t->down2 == r->req));
        if (t->kind != TXN_FILL && t->kind != TXN_WRITEBACK &&
            t->kind != TXN_PROTO && rsp_room(c) < 1)
            break;
        port_retrieve(&c->bottom);
        switch (t->kind) {
        case TXN_FILL: {
            cache_mshr *m = t->mshr;
            cache_frame *f = &c->frames[m->frame];
            memcpy(cache_frame_data(c, m->frame), r->data, c->cfg.line);
            f->state = LINE_VALID;
            if (c->proto && c->proto->on_fill)
                c->proto->on_fill(c->proto_data, c, f->line_addr, &f->proto,
                                  r);
            stat_addn(c->bytes_from_below, c->cfg.line);
            /* The drain reads every waiting request (long cold). */
            for (uint32_t i = m->head; i < m->count; i++)
                __builtin_prefetch(m->targets[i]);
            cache_mshr_drain_push(c, m);
            break;
        }
        case TXN_WRITE_FWD:
            relay_answer(c, r, t->orig, mem_msg_response(c->pool, t->orig));
            break;
        case TXN_READ_FWD: {
            mem_msg *up = mem_msg_response(c->pool, t->orig);
            if (t->orig->parts > 1) {
                /* A burst: its bytes are in bulk (handle_burst). */
                uint32_t n = (uint32_t)__builtin_popcountll(t->down->mask);
                up->base.bytes += (t->orig->parts - 1) * t->orig->size;
                stat_addn(c->bytes_from_below, (uint64_t)n * t->orig->size);
            } else {
                memcpy(up->data, r->data, t->orig->size);
                stat_addn(c->bytes_from_below, t->orig->size);
            }
            relay_answer(c, r, t->orig, up);
            break;
        }
        case TXN_ATOMIC_FWD: {
            mem_msg *up = mem_msg_response(c->pool, t->orig);
            memcpy(up->data, r->data, t->orig->atomic_size);
            relay_answer(c, r, t->orig, up);
            break;
        }
        default: /* TXN_WRITEBACK, TXN_PROTO */
            if (c->proto && c->proto->on_ack)
                relay_answer(c, r, NULL, NULL);
            break;
        }
        mem_msg_release(c->pool, r->req);
        mem_msg_release(c->pool, r);
        if (--t->unanswered == 0)
            cache_txn_release(c, t);
        progress = true;
    }
    return progress;
}

/* ---- sending ------------------------------------------------------------ */

static bool *blocked_flag(cache *c, sim_port *via)
{
    return via == &c->ctrl   ? &c->ctrl_blocked
           : via == &c->home ? &c->home_blocked
                             : &c->top_blocked;
}

/* Sends the released held responses that are due, in holding order,
** keeping the others in order. */
static bool send_released(cache *c, mgs_time now)
{
    bool progress = false;
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->held_count; i++) {
        cache_held *h = &c->held[i];
        if (h->released && h->ready <= now && !*blocked_flag(c, h->via)) {
            if (port_send(h->via, &h->msg->base) == MGS_OK) {
                c->held_released--;
                progress = true;
                continue;
            }
            *blocked_flag(c, h->via) = true;
        }
        c->held[k++] = *h;
    }
    c->held_count = k;
    return progress;
}

static bool send_ready_work(cache *c)
{
    bool progress = false;
    mgs_time now = now_of(c);
    while (c->rsp_count) {
        cache_rsp *r = &c->rsp_q[c->rsp_head];
        bool *blocked = blocked_flag(c, r->via);
        if (r->ready > now || *blocked)
            break;
        if (port_send(r->via, &r->msg->base) != MGS_OK) {
            *blocked = true;
            break;
        }
        c->rsp_head = (c->rsp_head + 1) % c->rsp_cap;
        c->rsp_count--;
        progress = true;
    }
    if (c->held_released)
        progress |= send_released(c, now);
    uint32_t cap = c->cfg.max_inflight_below;
    while (c->down_count && !c->bottom_blocked) {
        cache_txn *t = c->down_q[c->down_head];
        if (t->ready > now)
            break;
        mem_msg *d = t->nsent ? t->down2 : t->down;
        if (!t->fixed_dst) {
            assert(c->have_route && "cache_set_route was not called");
            d->base.dst = mem_route_lookup(&c->route, d->addr);
        }
        if (port_send(&c->bottom, &d->base) != MGS_OK) {
            c->bottom_blocked = true;
            stat_inc(c->stall_bottom_busy);
            break;
        }
        if (d->base.type == MEM_WRITE)
            stat_addn(c->bytes_to_below, d->size);
        progress = true;
        if (++t->nsent == 1 && t->down2)
            continue; /* the second half of a split write-back */
        t->sent = true;
        c->down_head = (c->down_head + 1) % cap;
        c->down_count--;
        if (t->kind == TXN_POST)
            cache_txn_release(c, t); /* the message is its receiver's now */
    }
    return progress;
}

/* Sends what is due; inline so that a tick with nothing queued (most of
** the second calls in a tick) costs three tests, not a call. */
static inline bool send_ready(cache *c)
{
    if (!c->rsp_count && !c->held_released && !c->down_count)
        return false;
    return send_ready_work(c);
}

/* ---- invalidations from below ------------------------------------------ */

/* Serves MEM_INV_LINE in arrival order. A line whose MSHR is busy (a
** fill in flight, targets draining) and that cannot be dirty (not
** write-back) is acknowledged at once and dropped when its MSHR is done
** (drop_after): the acknowledgement then never waits for a fill, which may
** itself wait at a home for this very acknowledgement (a directory holding
** a write's answer). Otherwise (a write-back line, a lock) it waits while
** the MSHR is busy; that MSHR then takes no new targets, so it finishes.
** Then the line's dirty bytes are written back and the ack queued after
** them in the down FIFO. Deadlock freedom rests on the bottom port never
** stalling behind an invalidation: the sender keeps at most inv_buffer of
** them unacknowledged per cache (docs/memory.md). */
static bool inv_step(cache *c)
{
    bool progress = false;
    while (c->inv_count) {
        mem_msg *inv = c->inv_q[c->inv_head];
        uint64_t line = cache_line_addr(c, inv->addr);
        int64_t fi = cache_tags_find(c, line);
        bool later = false;
        if (fi >= 0 && c->frames[fi].mshr) {
            cache_mshr *m = c->frames[fi].mshr;
            m->inv_wait = true;
            if (policy_of(c, line) == CACHE_WRITE_BACK || m->locks ||
                m->lock_only)
                break;
            later = true;
        }
        if (cache_txn_free_count(c) <
            1u + (!later && frame_dirty(c, fi) ? 1 : 0)) {
            stat_inc(c->stall_bottom_busy);
            break;
        }
        if (later)
            c->frames[fi].mshr->drop_after = true;
        /* The ack's slot first (hooks may send too), queued after the
        ** write-back. */
        cache_txn *t = cache_txn_alloc(c, TXN_POST);
        mem_msg *ack = mem_msg_response(c->pool, inv);
        t->down = ack;
        t->fixed_dst = true;
        if (c->proto && c->proto->on_inv)
            c->proto->on_inv(c->proto_data, c, line,
                             later ? NULL : line_meta(c, line, fi), inv,
                             ack);
        if (fi >= 0 && !later)
            evict_frame(c, (uint32_t)fi, false);
        cache_down_push(c, t);
        stat_inc(c->line_invalidations);
        c->inv_head = (c->inv_head + 1) % c->inv_cap;
        c->inv_count--;
        progress = true;
    }
    return progress;
}

/* ---- flush / invalidate ------------------------------------------------- */

static void ctrl_start(cache *c, mem_msg *req, sim_port *via)
{
    c->ctrl_req = req;
    c->ctrl_via = via;
    c->ctrl_state = CTRL_DRAIN;
    c->ctrl_cursor = 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Whether the control request in progress covers frame f's line (a ranged
** request, span != 0, covers the lines that overlap [addr, addr + span)). */
static bool ctrl_covers(const cache *c, const cache_frame *f)
{
    const mem_msg *r = c->ctrl_req;
    return !r->span || (f->line_addr + c->cfg.line > r->addr &&
                        f->line_addr < r->addr + r->span);
}

static bool ctrl_finish(cache *c)
{
    if (rsp_room(c) < 1)
        return false;
    mem_msg *req = c->ctrl_req;
    bool flush = req->base.type == MEM_FLUSH;
    bool drop_all = flush && (req->flags & MEM_F_INVALIDATE);
    if (drop_all || !flush) {
        for (uint32_t i = 0; i < c->nlive; i++) {
            cache_frame *f = &c->frames[c->live[i]];
            if (f->state == LINE_VALID && !f->dirty && ctrl_covers(c, f)) {
                if (c->proto && c->proto->on_evict)
                    c->proto->on_evict(c->proto_data, c, f->line_addr,
                                       &f->proto, false);
                f->state = LINE_INVALID;
                c->tags[c->live[i]] = 0;
            }
        }
    }
    /* Forget the frames that hold nothing now. */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < c->nlive; i++) {
        cache_frame *f = &c->frames[c->live[i]];
        if (f->state == LINE_INVALID)
            f->listed = false;
        else
            c->live[kept++] = c->live[i];
    }
    c->nlive = kept;
    if (!kept) /* nothing here: every region is unseen again */
        memset(c->regions_seen, 0, sizeof c->regions_seen);
    stat_inc(flush ? c->flushes : c->invalidations);
    if (c->proto && c->proto->on_ctrl)
        c->proto->on_ctrl(c->proto_data, c, req);
    mem_msg *rsp = mem_msg_response(c->pool, req);
    if (c->proto && c->proto->hold_ctrl &&
        c->proto->hold_ctrl(c->proto_data, c, req, c->ctrl_via == &c->top))
        hold_rsp(c, rsp, c->ctrl_via, cache_line_addr(c, req->addr));
    else
        push_rsp(c, rsp, c->ctrl_via);
    c->ctrl_req = NULL;
    c->ctrl_via = NULL;
    c->ctrl_state = CTRL_IDLE;
    return true;
}

static bool ctrl_step(cache *c)
{
    bool progress = false;
    if (c->ctrl_state == CTRL_IDLE) {
        if (!port_occupancy(&c->ctrl))
            return false; /* the common case: no flush or invalidate */
        mem_msg *m = (mem_msg *)port_retrieve(&c->ctrl);
        if (!m)
            return false;
        assert(m->base.type == MEM_FLUSH || m->base.type == MEM_INVALIDATE);
        ctrl_start(c, m, &c->ctrl);
        progress = true;
    }
    if (c->ctrl_state == CTRL_DRAIN) {
        /* Wait for every miss and every request below to complete. */
        if (c->mshr_used || c->txn_used)
            return progress;
        c->ctrl_state = c->ctrl_req->base.type == MEM_FLUSH ? CTRL_WRITEBACK
                                                            : CTRL_WAIT_WB;
        progress = true;
    }
    if (c->ctrl_state == CTRL_WRITEBACK) {
        /* Write-backs leave in frame order, as a walk of every frame
        ** would send them. */
        if (c->ctrl_cursor == 0)
            qsort(c->live, c->nlive, sizeof *c->live, cmp_u32);
        while (c->ctrl_cursor < c->nlive) {
            uint32_t fi = c->live[c->ctrl_cursor];
            cache_frame *f = &c->frames[fi];
            if (f->state == LINE_VALID && f->dirty && ctrl_covers(c, f)) {
                if (cache_txn_free_count(c) < 1)
                    return progress;
                enqueue_writeback(c, fi);
                progress = true;
            }
            c->ctrl_cursor++;
        }
        c->ctrl_state = CTRL_WAIT_WB;
        progress = true;
    }
    if (c->ctrl_state == CTRL_WAIT_WB && c->txn_used == 0)
        progress |= ctrl_finish(c);
    return progress;
}

/* ---- intake ------------------------------------------------------------- */

/* Whether the remote-line limit keeps req waiting (cache.h). */
static bool remote_limited(const cache *c, const mem_msg *m)
{
    return c->cfg.remote_max_inflight && c->split_policy &&
           c->remote_txns >= c->cfg.remote_max_inflight &&
           (m->base.type == MEM_READ || m->base.type == MEM_WRITE ||
            m->base.type == MEM_ATOMIC) &&
           !line_is_local(c, m->addr);
}

/* Whether m, at the head of the home port, may be served while a control
** operation is in progress: a ranged invalidation (no write-back walk)
** that does not cover m's line. Its drain may wait for this GPU's remote
** misses, whose homes may be draining too (a carve-swc fence drops every
** GPU's remote lines mid-kernel): home requests keep being answered. */
static bool home_passes_ctrl(const cache *c, const mem_msg *m)
{
    const mem_msg *r = c->ctrl_req;
    return r->base.type == MEM_INVALIDATE && r->span &&
           (m->base.type == MEM_READ || m->base.type == MEM_WRITE ||
            m->base.type == MEM_ATOMIC) &&
           (m->addr + m->size <= r->addr || m->addr >= r->addr + r->span);
}

/* Takes up to *budget requests from port in order. */
static bool take_from(cache *c, sim_port *port, uint32_t *budget)
{
    bool progress = false;
    for (; *budget; (*budget)--) {
        mem_msg *m = (mem_msg *)port_peek(port);
        if (!m)
            break;
        if (c->ctrl_state != CTRL_IDLE &&
            !(port == &c->home && home_passes_ctrl(c, m)))
            break;
        if (remote_limited(c, m)) {
            stat_inc(c->stall_bottom_busy);
            break;
        }
        /* The protocol admits each request once (the head may wait here
        ** for the cache's own resources after it was admitted). */
        const mem_msg **admitted = port == &c->home ? &c->admitted_home
                                                    : &c->admitted_top;
        if (c->proto && c->proto->admit && *admitted != m &&
            (m->base.type == MEM_READ || m->base.type == MEM_WRITE ||
             m->base.type == MEM_ATOMIC)) {
            if (!c->proto->admit(c->proto_data, c, m, port == &c->home))
                break;
            *admitted = m;
        }
        /* A wave's fence (a flush or invalidation on the top port): the
        ** protocol may keep it waiting (cache.h, admit_fence). */
        if (c->proto && c->proto->admit_fence && port == &c->top &&
            (m->base.type == MEM_FLUSH || m->base.type == MEM_INVALIDATE) &&
            !c->proto->admit_fence(c->proto_data, c, m))
            break;
        bool ok;
        switch (m->base.type) {
        case MEM_READ:
        case MEM_WRITE:
        case MEM_ATOMIC:
            /* Requests never cross a line of the receiving cache
            ** (memmsg.h); the sender splits. */
            assert(offset_in_line(c, m->addr) + m->size <= c->cfg.line);
            assert(m->base.type != MEM_ATOMIC ||
                   m->atomic_size == 4 || m->atomic_size == 8);
            ok = m->base.type == MEM_READ    ? handle_read(c, m, port)
                 : m->base.type == MEM_WRITE ? handle_write(c, m, port)
                                             : handle_atomic(c, m, port);
            break;
        case MEM_FLUSH:
        case MEM_INVALIDATE:
            ctrl_start(c, m, port);
            ok = true;
            break;
        default:
            assert(!"unexpected message at cache top");
            ok = false;
        }
        if (!ok)
            break;
        port_retrieve(port);
        *admitted = NULL;
        progress = true;
    }
    return progress;
}

/* Requests of other GPUs (home) first, then this GPU's (top). */
static bool take_top(cache *c)
{
    uint32_t budget = c->cfg.requests_per_cycle;
    bool progress = port_occupancy(&c->home) &&
                    take_from(c, &c->home, &budget);
    return (port_occupancy(&c->top) && take_from(c, &c->top, &budget)) ||
           progress;
}

/* ---- component ops ------------------------------------------------------ */

/* Earliest time a queued item can leave, MGS_TIME_MAX if none can. */
static mgs_time next_ready(const cache *c)
{
    mgs_time t = MGS_TIME_MAX;
    if (c->rsp_count) {
        const cache_rsp *r = &c->rsp_q[c->rsp_head];
        bool blocked = *blocked_flag((cache *)c, r->via);
        if (!blocked)
            t = r->ready;
    }
    if (c->down_count && !c->bottom_blocked) {
        mgs_time d = c->down_q[c->down_head]->ready;
        if (d < t)
            t = d;
    }
    for (uint32_t i = 0; c->held_released && i < c->held_count; i++) {
        const cache_held *h = &c->held[i];
        if (h->released && h->ready < t &&
            !*blocked_flag((cache *)c, h->via))
            t = h->ready;
    }
    return t;
}

static bool cache_tick(sim_comp *sc)
{
    cache *c = (cache *)sc;
    bool progress = send_ready(c);
    progress |= take_bottom(c);
    progress |= drain(c);
    if (c->inv_count)
        progress |= inv_step(c);
    progress |= ctrl_step(c);
    progress |= take_top(c);
    progress |= send_ready(c);
    if (progress)
        return true;
    /* Nothing to do this cycle. Sleep until the head of a timed queue is
    ** due (one wake event, not a tick per cycle); ports wake us for
    ** arrivals and freed lanes. */
    mgs_time t = next_ready(c);
    if (t == MGS_TIME_MAX)
        return false;
    mgs_time p = c->cfg.period, now = now_of(c);
    if (t <= now + p)
        return true;
    mgs_time at = t - p; /* comp_wake ticks at the first edge after this */
    if (c->wake_ev.scheduled)
        return c->wake_time > at; /* an earlier wake is already coming */
    c->wake_time = at;
    eng_schedule(sc->eng, &c->wake_ev, at);
    return false;
}

static void cache_handle(sim_comp *sc, sim_event *ev)
{
    (void)ev;
    comp_wake(sc);
}

static void cache_port_free(sim_comp *sc, sim_port *p)
{
    cache *c = (cache *)sc;
    if (p == &c->bottom)
        c->bottom_blocked = false;
    else if (p == &c->top)
        c->top_blocked = false;
    else if (p == &c->home)
        c->home_blocked = false;
    else
        c->ctrl_blocked = false;
    comp_wake(sc);
}

static bool cache_busy(const sim_comp *sc)
{
    const cache *c = (const cache *)sc;
    return port_occupancy(&c->top) || port_occupancy(&c->ctrl) ||
           port_occupancy(&c->home) ||
           port_occupancy(&c->bottom) || c->rsp_count || c->held_count ||
           c->txn_used ||
           c->mshr_used || c->inv_count || c->ctrl_state != CTRL_IDLE;
}

/* Names outlive the call: the watchdog keeps them for its report. */
static void cache_visit(const sim_comp *sc, sim_buf_visit_fn fn, void *ud)
{
    const cache *c = (const cache *)sc;
    fn(c->buf_names[0], c->mshr_used, c->cfg.mshr_entries, ud);
    fn(c->buf_names[1], c->txn_used, c->cfg.max_inflight_below, ud);
    fn(c->buf_names[2], c->rsp_count, c->rsp_cap, ud);
    fn(c->buf_names[3], c->inv_count, c->inv_cap, ud);
}

static void cache_dump(const sim_comp *sc, FILE *f)
{
    const cache *c = (const cache *)sc;
    fprintf(f, "  mshr %u/%u below %u/%u (queued %u) responses %u/%u "
            "inv %u ctrl %d held %u%s%s%s\n", c->mshr_used,
            c->cfg.mshr_entries, c->txn_used, c->cfg.max_inflight_below,
            c->down_count, c->rsp_count, c->rsp_cap, c->inv_count,
            c->ctrl_state, c->held_count,
            c->top_blocked ? " top-blocked" : "",
            c->bottom_blocked ? " bottom-blocked" : "",
            c->ctrl_blocked ? " ctrl-blocked" : "");
}

static const sim_comp_ops cache_ops = {
    .kind = "Cache",
    .tick = cache_tick,
    .handle = cache_handle,
    .notify_port_free = cache_port_free,
    .busy = cache_busy,
    .visit_buffers = cache_visit,
    .dump = cache_dump,
};

/* ---- construction ------------------------------------------------------- */

static void register_stats(cache *c, stat_registry *r)
{
    static const char *const names[16] = {
        "read_hits", "read_misses", "read_mshr_merges", "write_hits",
        "write_misses", "evictions", "dirty_evictions", "writebacks",
        "atomics", "invalidations", "flushes", "bytes_from_below",
        "bytes_to_below", "stall_mshr_full", "stall_bottom_busy",
        "line_invalidations"};
    stat_counter **slots[16] = {
        &c->read_hits, &c->read_misses, &c->read_mshr_merges,
        &c->write_hits, &c->write_misses, &c->evictions,
        &c->dirty_evictions, &c->writebacks, &c->atomics,
        &c->invalidations, &c->flushes, &c->bytes_from_below,
        &c->bytes_to_below, &c->stall_mshr_full, &c->stall_bottom_busy,
        &c->line_invalidations};
    for (int i = 0; i < 16; i++) {
        const char *unit = strncmp(names[i], "bytes", 5) == 0 ? "bytes"
                           : strncmp(names[i], "stall", 5) == 0 ? "cycles"
                                                                : "count";
        *slots[i] = r ? stat_counter_add(r, c->base.name, names[i], unit)
                      : &c->own[i];
    }
}

cache *cache_new(sim_engine *eng, const char *name, const cache_config *cfg,
                 mem_pool *pool, stat_registry *stats)
{
    int rc = cache_config_validate(cfg);
    assert(rc == MGS_OK && "cache_new: invalid config (validate first)");
    (void)rc;
    cache *c = MGS_NEW(cache);
    c->cfg = *cfg;
    c->pool = pool;
    comp_init(&c->base, eng, &cache_ops, name, cfg->period);
    port_init(&c->top, &c->base, "top", cfg->top_buffer);
    /* At most max_inflight_below answers can come back. */
    port_init(&c->bottom, &c->base, "bottom", cfg->max_inflight_below);
    port_init(&c->ctrl, &c->base, "ctrl", cfg->ctrl_buffer);
    port_init(&c->home, &c->base, "home", cfg->top_buffer);
    eng_event_init(&c->wake_ev, &c->base, CACHE_EV_WAKE, NULL);

    c->line_shift = (uint32_t)__builtin_ctz(cfg->line);
    if (cfg->banks > 1) {
        c->bank_shift = (uint32_t)__builtin_ctzll(cfg->bank_interleave);
        c->bank_bits = is_pow2(cfg->banks) ?
                           (uint32_t)__builtin_ctz(cfg->banks) : 0;
    }
    c->sets = (uint32_t)(cfg->size / cfg->line / cfg->ways);
    size_t nframes = (size_t)c->sets * cfg->ways;
    c->frames = MGS_NEW_ARRAY(cache_frame, nframes);
    c->tags = MGS_NEW_ARRAY(uint64_t, nframes);
    c->live = MGS_NEW_ARRAY(uint32_t, nframes);
    c->data = mgs_xcalloc(nframes, cfg->line);
    c->dirty_words = cfg->line > 64 ? 2 : 1;
    c->dirty_bits = MGS_NEW_ARRAY(uint64_t, nframes * c->dirty_words);
    c->split_policy = cfg->local_limit > cfg->local_base;

    uint32_t nmshrs = cfg->mshr_entries + cfg->lock_entries;
    c->mshrs = MGS_NEW_ARRAY(cache_mshr, nmshrs);
    c->target_store = MGS_NEW_ARRAY(mem_msg *, (size_t)nmshrs *
                                                   cfg->mshr_targets);
    for (uint32_t i = nmshrs; i-- > 0;) {
        c->mshrs[i].targets = c->target_store + (size_t)i * cfg->mshr_targets;
        c->mshrs[i].next = c->mshr_free;
        c->mshr_free = &c->mshrs[i];
    }
    c->txns = MGS_NEW_ARRAY(cache_txn, cfg->max_inflight_below);
    for (uint32_t i = cfg->max_inflight_below; i-- > 0;) {
        c->txns[i].next_free = c->txn_free;
        c->txn_free = &c->txns[i];
    }
    c->down_q = MGS_NEW_ARRAY(cache_txn *, cfg->max_inflight_below);
    /* Enough response slots to keep requests_per_cycle hits in flight
    ** through the hit pipeline, plus a few for fills and acks. */
    c->rsp_cap = cfg->requests_per_cycle * (cfg->hit_latency + 1) + 4;
    c->rsp_q = MGS_NEW_ARRAY(cache_rsp, c->rsp_cap);
    c->inv_cap = cfg->inv_buffer ? cfg->inv_buffer : 1;
    c->inv_q = MGS_NEW_ARRAY(mem_msg *, c->inv_cap);
    static const char *const bufs[4] = {"mshr", "below", "responses", "inv"};
    for (int i = 0; i < 4; i++) {
        size_t n = strlen(name) + strlen(bufs[i]) + 2;
        c->buf_names[i] = mgs_xmalloc(n);
        snprintf(c->buf_names[i], n, "%s.%s", name, bufs[i]);
    }
    register_stats(c, stats);
    return c;
}

void cache_free(cache *c)
{
    if (!c)
        return;
    /* Messages still queued belong to us (responses, requests below). */
    for (uint32_t i = 0; i < c->rsp_count; i++)
        mem_msg_release(c->pool, c->rsp_q[(c->rsp_head + i) % c->rsp_cap].msg);
    for (uint32_t i = 0; i < c->cfg.max_inflight_below; i++) {
        const cache_txn *t = &c->txns[i];
        if (t->kind == TXN_FREE || t->sent)
            continue;
        if (t->nsent == 0)
            mem_msg_release(c->pool, t->down);
        mem_msg_release(c->pool, t->down2);
    }
    port_fini(&c->top);
    port_fini(&c->bottom);
    port_fini(&c->ctrl);
    port_fini(&c->home);
    comp_fini(&c->base);
    free(c->frames);
    free(c->tags);
    free(c->live);
    free(c->data);
    free(c->dirty_bits);
    free(c->inv_q);
    for (int i = 0; i < 4; i++)
        free(c->buf_names[i]);
    free(c->mshrs);
    free(c->target_store);
    free(c->txns);
    free(c->down_q);
    free(c->rsp_q);
    free(c->held);
    free(c);
}

sim_port *cache_top(cache *c) { return &c->top; }
sim_port *cache_bottom(cache *c) { return &c->bottom; }
sim_port *cache_ctrl(cache *c) { return &c->ctrl; }
sim_port *cache_home(cache *c) { return &c->home; }

void cache_set_route(cache *c, const mem_route *route)
{
    c->route = *route;
    c->have_route = true;
}

void cache_set_protocol(cache *c, const cache_protocol *p, void *pd)
{
    c->proto = p;
    c->proto_data = pd;
}

void cache_set_locality(cache *c, bool (*is_local)(void *ud, uint64_t line),
                        void *ud)
{
    c->is_local = is_local;
    c->locality_ud = ud;
    c->split_policy = is_local || c->cfg.local_limit > c->cfg.local_base;
}

bool cache_line_is_remote(const cache *c, uint64_t addr)
{
    return c->split_policy && !line_is_local(c, addr);
}

/* ---- what protocols call from hooks --------------------------------------- */

bool cache_line_lock(cache *c, uint64_t addr)
{
    uint64_t line = cache_line_addr(c, addr);
    int64_t fi = cache_tags_find(c, line);
    if (fi < 0)
        return false;
    cache_mshr *m = c->frames[fi].mshr;
    if (!m) {
        if (!c->mshr_free)
            return false;
        m = cache_mshr_alloc(c, line, (uint32_t)fi);
        m->lock_only = true;
        c->lock_mshrs++;
        cache_mshr_drain_push(c, m); /* no fill: only the lock holds it */
    }
    m->locks++;
    return true;
}

void cache_line_unlock(cache *c, uint64_t addr)
{
    int64_t fi = cache_tags_find(c, cache_line_addr(c, addr));
    assert(fi >= 0 && c->frames[fi].mshr && c->frames[fi].mshr->locks &&
           "cache_line_unlock: line not locked");
    if (--c->frames[fi].mshr->locks == 0)
        comp_wake(&c->base); /* drain serves the waiting requests */
}

bool cache_line_locked(const cache *c, uint64_t addr)
{
    int64_t fi = cache_tags_find(c, cache_line_addr(c, addr));
    return fi >= 0 && c->frames[fi].mshr && c->frames[fi].mshr->locks;
}

/* Hooks run after the core reserved what its current action needs (at
** most CORE_TXNS transactions: a write-back and one more; one response),
** so a protocol's messages never take those. */
enum { CORE_TXNS = 2, CORE_RSPS = 1 };

const cache_config *cache_config_of(const cache *c) { return &c->cfg; }

uint32_t cache_room_below(const cache *c)
{
    uint32_t f = cache_txn_free_count(c);
    return f > CORE_TXNS ? f - CORE_TXNS : 0;
}

uint32_t cache_room_up(const cache *c)
{
    uint32_t f = rsp_room(c);
    return f > CORE_RSPS ? f - CORE_RSPS : 0;
}

bool cache_send_below(cache *c, mem_msg *m, bool expects_answer)
{
    if (cache_room_below(c) < 1)
        return false;
    cache_txn *t = cache_txn_alloc(c, expects_answer ? TXN_PROTO : TXN_POST);
    t->down = m;
    t->fixed_dst = m->base.dst != NULL;
    cache_down_push(c, t);
    comp_wake(&c->base);
    return true;
}

uint32_t cache_release_held(cache *c, uint64_t addr)
{
    uint64_t line = cache_line_addr(c, addr);
    mgs_time ready = now_of(c) + mgs_cycles(c->cfg.hit_latency,
                                            c->cfg.period);
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->held_count; i++) {
        cache_held *h = &c->held[i];
        if (h->line == line && !h->released) {
            h->released = true;
            h->ready = ready;
            n++;
        }
    }
    c->held_released += n;
    if (n)
        comp_wake(&c->base);
    return n;
}

void cache_wake(cache *c) { comp_wake(&c->base); }

bool cache_send_up(cache *c, mem_msg *m)
{
    if (cache_room_up(c) < 1)
        return false;
    push_rsp(c, m, &c->top);
    comp_wake(&c->base);
    return true;
}

bool cache_probe(const cache *c, uint64_t addr, uint8_t *out, bool *dirty)
{
    int64_t fi = cache_tags_find(c, cache_line_addr(c, addr));
    if (fi < 0 || c->frames[fi].state != LINE_VALID)
        return false;
    if (out)
        memcpy(out, cache_frame_data(c, (uint32_t)fi), c->cfg.line);
    if (dirty)
        *dirty = c->frames[fi].dirty;
    return true;
}

bool cache_probe_dirty(const cache *c, uint64_t addr, uint64_t mask[2])
{
    int64_t fi = cache_tags_find(c, cache_line_addr(c, addr));
    if (fi < 0 || c->frames[fi].state != LINE_VALID)
        return false;
    const uint64_t *d = cache_frame_dirty(c, (uint32_t)fi);
    mask[0] = d[0];
    mask[1] = c->dirty_words > 1 ? d[1] : 0;
    return true;
}

int cache_check(const cache *c)
{
    uint32_t nframes = c->sets * c->cfg.ways;
    uint32_t with_mshr = 0;
    for (uint32_t i = 0; i < nframes; i++) {
        const cache_frame *f = &c->frames[i];
        if (f->state == LINE_INVALID) {
            assert(!f->mshr && c->tags[i] == 0);
            continue;
        }
        assert(c->tags[i] == f->line_addr + 1);
        assert(cache_set_of(c, f->line_addr) == i / c->cfg.ways);
        assert(cache_tags_find(c, f->line_addr) == (int64_t)i);
        assert(f->listed); /* control requests walk the live list */
        assert(f->state != LINE_PENDING || f->mshr);
        const uint64_t *d = cache_frame_dirty(c, i);
        assert(f->dirty == ((d[0] | (c->dirty_words > 1 ? d[1] : 0)) != 0));
        (void)d;
        if (f->mshr) {
            assert(f->mshr->frame == i && f->mshr->line_addr == f->line_addr);
            assert(f->mshr->head <= f->mshr->count &&
                   f->mshr->count <= c->cfg.mshr_targets);
            with_mshr++;
        }
    }
    assert(with_mshr == c->mshr_used);
    assert(c->down_count <= c->txn_used);
    assert(c->rsp_count <= c->rsp_cap);
    (void)with_mshr;
    return 1;
}
