/*
** The RDC agent: CARVE's remote data cache controller in front of one
** memory channel (seed 004 §IV.A, Fig. 6), at the insertion point between
** an L2 bank and its DRAM channel (coh.h), receiving every miss of the
** bank (remote_via_agent).
**
**   local line     to the channel
**   remote read    probe: one DRAM read of the line's set in the carved
**                  region (tag, valid and epoch ride in ECC: no access of
**                  their own). Hit: the answer is the probed bytes. Miss:
**                  the request goes to the home over RDMA; a whole-line
**                  answer is also written into the set (one DRAM write)
**   remote write   drops the local copy (write-through, no allocation)
**   or atomic      and goes to the home
**
** Write-back (carve.rdc_write = back, carve-swc and carve-nc): a remote
** write to a line the slice holds is written into the set (one DRAM
** write) and its bytes marked dirty (rdc.h, the dirty map); the write is
** answered when the DRAM write is. A write miss goes to the home (no
** write-allocate). A dirty line is written back (one DRAM read of the
** set, then a byte-masked write to the home that does not allocate in the
** home's L2 on a miss) when a fill replaces it, before a remote atomic or
** a write during a flush goes to the home, and at every flush: an L2
** flush of the bank (kernel end, copy end, peer release) or a carve-swc
** acquire fence holds its answer (carve.c) until the slice wrote back every
** dirty line and every write-back was acknowledged; then the epoch is
** bumped (carve-swc) and the held answers released. During a flush remote
** writes go to the home (no new dirty lines). A request for a line whose
** write-back is in flight waits (parked) until it is acknowledged, so the
** home sees the write-back first.
**
** Coherence reaches the slice through its L2 bank (carve.c): carve-hwc's
** write invalidations arrive at the bank as messages from the line's home
** (the home L2 bank's IMST decides them, src/coh/dir/ carries them) and
** the bank's invalidation hook drops the line here before the bank
** acknowledges; carve-swc's epoch is bumped by the bank's kernel-boundary
** write-back and by the GPU's acquire fences (swc_fence.c). The slice and
** its bank are one memory pipeline of one GPU: the tag store (ECC bits)
** changes when the bank serves the message, with no DRAM access.
**
** Data is real: a hit answers with what the carved DRAM holds, so a line
** left valid after its home changed gives the old bytes.
**
** Ordering. The DRAM channel keeps same-address order, so a probe sent
** after a fill reads the filled bytes. A probe or fetch that was in flight
** while its set changed (rdc.h sequence numbers) is a miss / does not
** fill.
**
** Bookkeeping as in the TSU agent: a request below carries the agent's
** bottom port as reply_to and a record as origin; the requester's fields
** are restored before the answer goes up. At most RDC_RECORDS requests are
** in the agent at once.
*/
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coh/carve/carve_int.h"
#include "mgsim/errors.h"
#include "sim/comp.h"
#include "sim/conn.h"
#include "sim/port.h"
#include "util/xmalloc.h"

#define RDC_RECORDS 512u
#define RDC_TOP_BUFFER 64u
#define RDC_OUT (2 * RDC_RECORDS)

typedef enum rec_kind {
    REC_FORWARD,              /* to memory or the home, answer relayed */
    REC_PROBE,                /* the probe read is below; req waits */
    REC_FETCH,                /* a miss at the home; fills if it may */
    REC_FILL,                 /* the fill write is below */
    REC_WRITE,                /* write-back: a write hit's DRAM write */
    REC_WB_READ,              /* write-back: reading a dirty line's set */
    REC_WB_WRITE              /* write-back: the line's write to its home */
} rec_kind;

typedef struct rdc_rec {
    uint8_t kind;
    mem_msg *req;             /* the bank's request */
    void *origin;             /* the bank's fields of req */
    sim_port *src, *reply_to;
    uint64_t line;            /* line address of req */
    uint16_t seq;             /* the set's sequence number it relies on */
    uint32_t epoch;           /* the epoch of its fetch */
    uint64_t mask;            /* REC_WB_*: the dirty bytes of line */
    struct rdc_rec *next_free;/* free list; the parked list */
} rdc_rec;

enum {
    ST_LOCAL_READS, ST_OWN_LOCAL_READS, ST_LOCAL_WRITES, ST_PROBES, ST_HITS, ST_MISSES,
    ST_REMOTE_READS, ST_REMOTE_WRITES, ST_FILLS, ST_FILLS_DROPPED,
    ST_EVICTIONS, ST_INVALIDATIONS, ST_INV_RECEIVED, ST_EPOCH_BUMPS,
    ST_EPOCH_SWEEPS, ST_NAIVE_INV_BYTES, ST_RANGE_INVALIDATIONS,
    ST_FULL_INVALIDATIONS, ST_FENCE_BUMPS,
    ST_WRITE_HITS, ST_WRITEBACKS, ST_WRITEBACK_BYTES, ST_VICTIM_WRITEBACKS,
    ST_HOME_WRITEBACKS, ST_FLUSHES, ST_FLUSH_LINES, ST_FLUSH_PS,
    ST_DIRTY_DROPPED, ST_PARKED, ST_REPROBES,
    ST_IMST_BROADCASTS, ST_IMST_COALESCED, ST_IMST_RESETS, ST_IMST_TO_PRIVATE, ST_IMST_TO_RS,
    ST_IMST_TO_RW, ST_COUNT
};

static const char *const stat_names[ST_COUNT] = {
    "local_reads", "own_local_reads", "local_writes", "rdc_probes", "rdc_hits", "rdc_misses",
    "remote_reads", "remote_writes", "rdc_fills", "rdc_fills_dropped",
    "rdc_evictions", "rdc_invalidations", "rdc_inv_received",
    "epoch_bumps", "epoch_sweeps", "naive_inv_bytes",
    "rdc_range_invalidations", "rdc_full_invalidations",
    "fence_epoch_bumps",
    "rdc_write_hits", "rdc_writebacks", "rdc_writeback_bytes",
    "rdc_victim_writebacks", "rdc_home_writebacks", "rdc_flushes",
    "rdc_flush_lines", "rdc_flush_ps", "rdc_dirty_dropped", "rdc_parked",
    "rdc_reprobes", "imst_broadcasts", "imst_coalesced", "imst_resets",
    "imst_to_private", "imst_to_rs", "imst_to_rw"};

/* A flush waiting for the slice's write-backs (write-back RDC): the L2
** bank's held answer and what follows the write-backs. */
typedef struct rdc_held_ctrl {
    cache *l2;
    uint64_t addr, span;      /* span: drop [addr, addr + span) after */
    bool bump, fence;
} rdc_held_ctrl;

struct rdc_agent {
    sim_comp base;            /* FIRST */
    sim_port top, bottom;
    sim_port *memory, *remote;
    carve *cv;
    uint32_t gpu, bank;
    uint64_t local_base, local_limit;
    uint64_t region;          /* first byte of the carved region */
    rdc tags;
    imst *home;               /* this GPU's IMST (carve-hwc), or NULL */
    rdc_rec recs[RDC_RECORDS];
    rdc_rec *free_recs;
    uint32_t inflight;
    mem_msg *down[RDC_RECORDS];  /* FIFO of messages waiting to go below */
    uint32_t down_head, down_count;
    mem_msg *out[RDC_OUT];    /* FIFO of answers waiting to go up */
    uint32_t out_head, out_count;
    bool top_blocked, bottom_blocked;
    /* write-back */
    bool write_back;
    bool skip_flush;          /* tests: a flush drops the dirty lines */
    uint32_t reserved;        /* probes that may still need a victim's
                                 write-back record */
    uint64_t wb_line[RDC_RECORDS];  /* lines whose write-back is in flight */
    uint32_t nwb;
    rdc_rec *parked, *parked_tail;  /* waiting for a write-back (FIFO) */
    rdc_held_ctrl *held;      /* flushes in progress (their answers) */
    uint32_t nheld, held_cap;
    mgs_time flush_start;
    stat_counter own[ST_COUNT];  /* used when there is no registry */
    stat_counter *st[ST_COUNT];
};

static void inc(rdc_agent *a, int i) { stat_inc(a->st[i]); }

void rdc_agent_sync_stats(rdc_agent *a)
{
    a->st[ST_FILLS]->value = a->tags.n.fills;
    a->st[ST_EVICTIONS]->value = a->tags.n.evictions;
    a->st[ST_INVALIDATIONS]->value = a->tags.n.invalidations;
    a->st[ST_EPOCH_BUMPS]->value = a->tags.n.bumps;
    a->st[ST_EPOCH_SWEEPS]->value = a->tags.n.sweeps;
    a->st[ST_RANGE_INVALIDATIONS]->value = a->tags.n.range_invalidations;
    a->st[ST_FULL_INVALIDATIONS]->value = a->tags.n.full_invalidations;
    a->st[ST_WRITE_HITS]->value = a->tags.n.write_hits;
    a->st[ST_WRITEBACKS]->value = a->tags.n.cleaned;
    a->st[ST_WRITEBACK_BYTES]->value = a->tags.n.cleaned_bytes;
    a->st[ST_DIRTY_DROPPED]->value = a->tags.n.dirty_dropped;
    a->st[ST_NAIVE_INV_BYTES]->value =
        a->tags.n.bumps * a->tags.sets * a->tags.line;
    if (a->home && a->bank == 0) {
        /* The GPU's IMST is counted once, on its bank 0. */
        imst *t = a->home;
        uint64_t to[4] = {0};
        for (int f = 0; f < 4; f++)
            for (int s = 0; s < 4; s++)
                to[s] += t->transitions[f][s];
        a->st[ST_IMST_BROADCASTS]->value = t->broadcasts;
        a->st[ST_IMST_COALESCED]->value = t->coalesced;
        a->st[ST_IMST_RESETS]->value = t->resets;
        a->st[ST_IMST_TO_PRIVATE]->value = to[IMST_PRIVATE];
        a->st[ST_IMST_TO_RS]->value = to[IMST_RS];
        a->st[ST_IMST_TO_RW]->value = to[IMST_RW];
    }
}

void rdc_agent_invalidate(rdc_agent *a, uint64_t line)
{
    inc(a, ST_INV_RECEIVED);
    rdc_invalidate(&a->tags, line);
    rdc_agent_sync_stats(a);
}

void rdc_agent_fence(rdc_agent *a)
{
    inc(a, ST_FENCE_BUMPS);
    rdc_epoch_bump(&a->tags);
    rdc_agent_sync_stats(a);
}

rdc *rdc_agent_rdc(rdc_agent *a) { return &a->tags; }

bool rdc_agent_write_back(const rdc_agent *a) { return a->write_back; }

void rdc_agent_set_remote(rdc_agent *a, sim_port *remote)
{
    a->remote = remote;
}

static bool is_local(const rdc_agent *a, uint64_t addr)
{
    return addr >= a->local_base && addr < a->local_limit;
}

/* A record of the agent's own (m NULL) or for the bank's request m. */
static rdc_rec *rec_new(rdc_agent *a, mem_msg *m, rec_kind kind,
                        uint64_t line)
{
    rdc_rec *r = a->free_recs;
    a->free_recs = r->next_free;
    a->inflight++;
    r->kind = (uint8_t)kind;
    r->req = m;
    r->origin = m ? m->origin : NULL;
    r->src = m ? m->base.src : NULL;
    r->reply_to = m ? m->reply_to : NULL;
    r->line = line;
    r->seq = 0;
    r->epoch = 0;
    r->mask = 0;
    r->next_free = NULL;
    return r;
}

static rdc_rec *rec_get(rdc_agent *a, mem_msg *m, rec_kind kind)
{
    return rec_new(a, m, kind, m->addr & ~(uint64_t)(a->tags.line - 1));
}

static void rec_put(rdc_agent *a, rdc_rec *r)
{
    r->req = NULL;
    r->next_free = a->free_recs;
    a->free_recs = r;
    a->inflight--;
}

static void queue_down(rdc_agent *a, mem_msg *m, sim_port *dst)
{
    m->base.dst = dst;
    assert(a->down_count < RDC_RECORDS);
    a->down[(a->down_head + a->down_count++) % RDC_RECORDS] = m;
}

static void queue_up(rdc_agent *a, mem_msg *m)
{
    assert(a->out_count < RDC_OUT);
    a->out[(a->out_head + a->out_count++) % RDC_OUT] = m;
}

/* Sends the bank's request below on the record's behalf. */
static void forward(rdc_agent *a, rdc_rec *r, sim_port *dst)
{
    mem_msg *m = r->req;
    m->origin = r;
    m->reply_to = &a->bottom;
    queue_down(a, m, dst);
}

/* A request of the agent's own (probe, fill) for the set of r->line. */
static mem_msg *own_request(rdc_agent *a, rdc_rec *r, mem_msg_type type)
{
    mem_msg *m = mem_msg_alloc(a->cv->pool, type);
    m->addr = a->region + rdc_offset(&a->tags, r->line);
    m->size = a->tags.line;
    m->flags = MEM_F_PHYS;
    m->pid = r->req ? r->req->pid : 0;
    m->gpu = (int32_t)a->gpu;
    m->origin = r;
    m->reply_to = &a->bottom;
    m->issue_time = eng_now(a->base.eng);
    m->base.bytes = type == MEM_WRITE ? 8 + m->size : 8;
    return m;
}

/* ---- write-back ---- */

static uint32_t free_records(const rdc_agent *a)
{
    return RDC_RECORDS - a->inflight;
}

/* Whether a write-back of line is in flight. */
static bool wb_pending(const rdc_agent *a, uint64_t line)
{
    for (uint32_t i = 0; i < a->nwb; i++)
        if (a->wb_line[i] == line)
            return true;
    return false;
}

/* Writes back the dirty bytes `mask` of line (cleared in the tag store
** by the caller; the bytes are still in the line's set): a DRAM read of
** the set now, a write to the home when it answers. Takes a record (the
** caller made sure one is free). */
static void start_writeback(rdc_agent *a, uint64_t line, uint64_t mask,
                            int why)
{
    rdc_rec *r = rec_new(a, NULL, REC_WB_READ, line);
    r->mask = mask;
    assert(a->nwb < RDC_RECORDS);
    a->wb_line[a->nwb++] = line;
    queue_down(a, own_request(a, r, MEM_READ), a->memory);
    inc(a, why);
}

/* The set's bytes of r's line arrived (p): the write to the home. */
static void writeback_home(rdc_agent *a, rdc_rec *r, const mem_msg *p)
{
    mem_msg *w = own_request(a, r, MEM_WRITE);
    w->addr = r->line;
    w->mask = r->mask;
    w->flags |= MEM_F_NOALLOC;  /* the home's L2 may be flushed already */
    memcpy(w->data, p->data, a->tags.line);
    r->kind = REC_WB_WRITE;
    queue_down(a, w, a->remote);
}

/* Sends the bank's request r to the home, or parks it behind a
** write-back of its line in flight. */
static void to_home(rdc_agent *a, rdc_rec *r)
{
    if (!a->nwb || !wb_pending(a, r->line)) {
        forward(a, r, a->remote);
        return;
    }
    inc(a, ST_PARKED);
    r->next_free = NULL;
    if (a->parked_tail)
        a->parked_tail->next_free = r;
    else
        a->parked = r;
    a->parked_tail = r;
}

/* A write-back of line was acknowledged: the requests parked behind it go
** (in order; those behind another write-back stay). */
static void writeback_done(rdc_agent *a, uint64_t line)
{
    for (uint32_t i = 0; i < a->nwb; i++)
        if (a->wb_line[i] == line) {
            a->wb_line[i] = a->wb_line[--a->nwb];
            break;
        }
    rdc_rec *r = a->parked, *keep = NULL, *tail = NULL;
    a->parked = a->parked_tail = NULL;
    while (r) {
        rdc_rec *next = r->next_free;
        if (wb_pending(a, r->line)) {
            r->next_free = NULL;
            if (tail)
                tail->next_free = r;
            else
                keep = r;
            tail = r;
        } else {
            forward(a, r, a->remote);
        }
        r = next;
    }
    a->parked = keep;
    a->parked_tail = tail;
}

/* A remote write to a line the slice holds (not during a flush): written
** into the set, its bytes marked dirty. False: the write goes home. */
static bool write_hit(rdc_agent *a, mem_msg *m)
{
    uint64_t line = m->addr & ~(uint64_t)(a->tags.line - 1);
    uint32_t off = (uint32_t)(m->addr - line);
    if (a->nheld || off + m->size > a->tags.line)
        return false;
    uint64_t access = m->size >= 64 ? ~0ull : (1ull << m->size) - 1;
    if (!rdc_write_hit(&a->tags, line, (m->mask & access) << off))
        return false;
    rdc_rec *r = rec_get(a, m, REC_WRITE);
    mem_msg *w = own_request(a, r, MEM_WRITE);
    w->addr += off;
    w->size = m->size;
    w->mask = m->mask;
    w->base.bytes = 8 + m->size;
    memcpy(w->data, m->data, m->size);
    queue_down(a, w, a->memory);
    return true;
}

/* A remote write or atomic that goes to the home: the line's dirty bytes
** go first (the request parks behind them), the local copy is dropped. */
static void write_home(rdc_agent *a, mem_msg *m)
{
    rdc_rec *r = rec_get(a, m, REC_FORWARD);
    inc(a, ST_REMOTE_WRITES);
    uint64_t dirty = a->write_back ? rdc_clean(&a->tags, r->line) : 0;
    if (dirty)
        start_writeback(a, r->line, dirty, ST_HOME_WRITEBACKS);
    rdc_invalidate(&a->tags, r->line);
    to_home(a, r);
}

/* Every held flush is done: the epoch bump (carve-swc), the ranges
** dropped, the bank's answers released. */
static void flush_finish(rdc_agent *a)
{
    bool bump = false;
    for (uint32_t i = 0; i < a->nheld; i++) {
        const rdc_held_ctrl *h = &a->held[i];
        bump |= h->bump;
        if (h->fence)
            inc(a, ST_FENCE_BUMPS);
        if (h->span)
            rdc_invalidate_range(&a->tags, h->addr, h->span);
    }
    if (bump) {
        assert(a->skip_flush || !a->tags.ndirty);
        rdc_epoch_bump(&a->tags);
    }
    uint32_t n = a->nheld;
    a->nheld = 0;
    for (uint32_t i = 0; i < n; i++)
        cache_release_held(a->held[i].l2, a->held[i].addr);
    a->st[ST_FLUSH_PS]->value += eng_now(a->base.eng) - a->flush_start;
    rdc_agent_sync_stats(a);
}

/* Writes back the dirty lines of the map while records are free (keeping
** the probes' reserve); finishes the flush when none is left in flight. */
static bool flush_step(rdc_agent *a)
{
    if (!a->nheld)
        return false;
    bool progress = false;
    uint64_t line, mask;
    while (free_records(a) > a->reserved + 1 &&
           rdc_dirty_next(&a->tags, &line, &mask)) {
        start_writeback(a, line, mask, ST_FLUSH_LINES);
        progress = true;
    }
    if (!a->tags.ndirty && !a->nwb) {
        flush_finish(a);
        progress = true;
    }
    return progress;
}

bool rdc_agent_flush(rdc_agent *a, cache *l2, uint64_t addr, uint64_t span,
                     bool bump, bool fence)
{
    if (a->nheld == a->held_cap) {
        a->held_cap = a->held_cap ? 2 * a->held_cap : 4;
        a->held = mgs_xrealloc(a->held, a->held_cap * sizeof *a->held);
    }
    a->held[a->nheld++] = (rdc_held_ctrl){l2, addr, span, bump, fence};
    if (a->skip_flush)            /* tests: the dirty lines are lost */
        rdc_dirty_drop_all(&a->tags);
    if (a->nheld == 1) {
        a->flush_start = eng_now(a->base.eng);
        if (a->tags.ndirty || a->nwb)
            inc(a, ST_FLUSHES);
    }
    flush_step(a);
    if (!a->nheld)
        return false;             /* nothing to write back: done now */
    comp_wake(&a->base);
    return true;
}

static void take_request(rdc_agent *a, mem_msg *m)
{
    bool read = m->base.type == MEM_READ;
    bool write = m->base.type == MEM_WRITE || m->base.type == MEM_ATOMIC;
    if (is_local(a, m->addr)) {
        rdc_rec *r = rec_get(a, m, REC_FORWARD);
        inc(a, read ? ST_LOCAL_READS : ST_LOCAL_WRITES);
        if (read && m->gpu == (int32_t)a->gpu)
            inc(a, ST_OWN_LOCAL_READS);
        forward(a, r, a->memory);
        return;
    }
    /* No RDC, or a host frame (memory.spill_ppm: never RDC-cached, as
    ** the paper's system memory, footnote 2): straight to the home. */
    if (read && (!a->tags.sets || m->addr >= (uint64_t)a->cv->sys.ngpus *
                                                 a->cv->sys.mem_per_gpu)) {
        rdc_rec *r = rec_get(a, m, REC_FORWARD);
        inc(a, ST_REMOTE_READS);
        forward(a, r, a->remote);
        return;
    }
    if (read) {
        rdc_rec *r = rec_get(a, m, REC_PROBE);
        inc(a, ST_PROBES);
        a->reserved += a->write_back;
        r->seq = rdc_peek(&a->tags, rdc_set(&a->tags, r->line)).seq;
        queue_down(a, own_request(a, r, MEM_READ), a->memory);
        return;
    }
    if (a->write_back && m->base.type == MEM_WRITE && write_hit(a, m))
        return;
    if (write) {
        write_home(a, m);
        return;
    }
    forward(a, rec_get(a, m, REC_FORWARD), a->remote);
}

/* The probe of r came back (p its answer). */
static void probe_done(rdc_agent *a, rdc_rec *r, mem_msg *p)
{
    const carve *cv = a->cv;
    mem_msg *m = r->req;
    uint64_t set = rdc_set(&a->tags, r->line);
    bool present = rdc_hit(&a->tags, r->line) && !(p->flags & MEM_F_FAULT);
    bool hit = rdc_peek(&a->tags, set).seq == r->seq && present;
    if (!hit && present && a->write_back) {
        /* The set changed under the probe but holds the line (maybe
        ** dirty: the home is not up to date): read it again. */
        inc(a, ST_REPROBES);
        mem_msg_release(cv->pool, p->req);
        mem_msg_release(cv->pool, p);
        r->seq = rdc_peek(&a->tags, set).seq;
        queue_down(a, own_request(a, r, MEM_READ), a->memory);
        return;
    }
    a->reserved -= a->write_back;
    if (hit) {
        inc(a, ST_HITS);
        mem_msg *up = mem_msg_response(cv->pool, m);
        memcpy(up->data, p->data + (m->addr - r->line), m->size);
        mem_msg_release(cv->pool, p->req);
        mem_msg_release(cv->pool, p);
        rec_put(a, r);
        queue_up(a, up);
        return;
    }
    inc(a, ST_MISSES);
    inc(a, ST_REMOTE_READS);
    mem_msg_release(cv->pool, p->req);
    mem_msg_release(cv->pool, p);
    if (m->addr == r->line && m->size == a->tags.line &&
        !(a->nwb && wb_pending(a, r->line))) {
        uint64_t victim = 0;
        uint64_t dirty = rdc_take_victim(&a->tags, r->line, &victim);
        if (dirty)                /* read before the fill overwrites it */
            start_writeback(a, victim, dirty, ST_VICTIM_WRITEBACKS);
        r->kind = REC_FETCH;
        r->seq = rdc_fetch(&a->tags, r->line);
        r->epoch = a->tags.epoch;
    } else {
        r->kind = REC_FORWARD;
    }
    to_home(a, r);
}

/* An answer to the bank's own request: restore and relay. */
static void relay(rdc_agent *a, rdc_rec *r, mem_msg *rsp)
{
    mem_msg *m = r->req;
    m->origin = r->origin;
    m->reply_to = r->reply_to;
    rsp->origin = r->origin;
    rsp->base.dst = r->reply_to ? r->reply_to : r->src;
    queue_up(a, rsp);
}

static bool take_bottom(rdc_agent *a)
{
    bool progress = false;
    mem_msg *rsp;
    while ((rsp = (mem_msg *)port_retrieve(&a->bottom))) {
        rdc_rec *r = rsp->req->origin;
        progress = true;
        switch ((rec_kind)r->kind) {
        case REC_PROBE:
            probe_done(a, r, rsp);
            break;
        case REC_FILL:
            if (rsp->flags & MEM_F_FAULT)    /* not carved: never valid */
                rdc_invalidate(&a->tags, r->line);
            mem_msg_release(a->cv->pool, rsp->req);
            mem_msg_release(a->cv->pool, rsp);
            rec_put(a, r);
            break;
        case REC_FETCH: {
            bool fault = rsp->flags & MEM_F_FAULT;
            uint8_t data[MEM_LINE_MAX];
            memcpy(data, rsp->data, a->tags.line);
            relay(a, r, rsp);
            if (!fault && rdc_fill(&a->tags, r->line, r->seq, r->epoch)) {
                r->kind = REC_FILL;
                r->req = NULL;
                mem_msg *w = own_request(a, r, MEM_WRITE);
                memcpy(w->data, data, a->tags.line);
                queue_down(a, w, a->memory);
            } else {
                inc(a, ST_FILLS_DROPPED);
                rec_put(a, r);
            }
            break;
        }
        case REC_FORWARD:
            relay(a, r, rsp);
            rec_put(a, r);
            break;
        case REC_WRITE:           /* the write hit is in the set */
            queue_up(a, mem_msg_response(a->cv->pool, r->req));
            mem_msg_release(a->cv->pool, rsp->req);
            mem_msg_release(a->cv->pool, rsp);
            rec_put(a, r);
            break;
        case REC_WB_READ:
            writeback_home(a, r, rsp);
            mem_msg_release(a->cv->pool, rsp->req);
            mem_msg_release(a->cv->pool, rsp);
            break;
        case REC_WB_WRITE: {
            uint64_t line = r->line;
            mem_msg_release(a->cv->pool, rsp->req);
            mem_msg_release(a->cv->pool, rsp);
            rec_put(a, r);
            writeback_done(a, line);
            break;
        }
        }
    }
    return progress;
}

static bool send_up(rdc_agent *a)
{
    bool progress = false;
    while (a->out_count && !a->top_blocked) {
        mem_msg *m = a->out[a->out_head];
        if (port_send(&a->top, &m->base) != MGS_OK) {
            a->top_blocked = true;
            break;
        }
        a->out_head = (a->out_head + 1) % RDC_OUT;
        a->out_count--;
        progress = true;
    }
    return progress;
}

static bool send_down(rdc_agent *a)
{
    bool progress = false;
    while (a->down_count && !a->bottom_blocked) {
        mem_msg *m = a->down[a->down_head];
        if (port_send(&a->bottom, &m->base) != MGS_OK) {
            a->bottom_blocked = true;
            break;
        }
        a->down_head = (a->down_head + 1) % RDC_RECORDS;
        a->down_count--;
        progress = true;
    }
    return progress;
}

static bool take_top(rdc_agent *a)
{
    bool progress = false;
    mem_msg *m;
    while ((m = (mem_msg *)port_peek(&a->top))) {
        if (!a->free_recs || a->inflight + a->out_count >= RDC_RECORDS)
            break;
        /* Write-back: room for the request and one write-back it may
        ** start, beside the probes' reserve. */
        if (a->write_back && free_records(a) < a->reserved + 2)
            break;
        port_retrieve(&a->top);
        take_request(a, m);
        progress = true;
    }
    return progress;
}

static bool agent_tick(sim_comp *sc)
{
    rdc_agent *a = (rdc_agent *)sc;
    bool progress = send_up(a);
    progress |= take_bottom(a);
    progress |= take_top(a);
    progress |= flush_step(a);
    progress |= send_down(a);
    progress |= send_up(a);
    if (progress)
        rdc_agent_sync_stats(a);
    return progress;
}

static void agent_handle(sim_comp *sc, sim_event *ev)
{
    (void)ev;
    comp_wake(sc);
}

static void agent_port_free(sim_comp *sc, sim_port *p)
{
    rdc_agent *a = (rdc_agent *)sc;
    if (p == &a->top)
        a->top_blocked = false;
    else
        a->bottom_blocked = false;
    comp_wake(sc);
}

static bool agent_busy(const sim_comp *sc)
{
    const rdc_agent *a = (const rdc_agent *)sc;
    return a->down_count || a->out_count || a->inflight || a->nheld ||
           port_occupancy(&a->top) || port_occupancy(&a->bottom);
}

static void agent_dump(const sim_comp *sc, FILE *f)
{
    const rdc_agent *a = (const rdc_agent *)sc;
    fprintf(f, "  records %u/%u down %u up %u%s%s\n", a->inflight,
            RDC_RECORDS, a->down_count, a->out_count,
            a->top_blocked ? " top-blocked" : "",
            a->bottom_blocked ? " bottom-blocked" : "");
    if (a->write_back)
        fprintf(f, "  write-back: %llu dirty, %u write-backs in flight, %u "
                "flushes held, %u reserved%s\n",
                (unsigned long long)a->tags.ndirty, a->nwb, a->nheld,
                a->reserved, a->parked ? ", requests parked" : "");
}

static const sim_comp_ops agent_ops = {
    .kind = "RDC",
    .tick = agent_tick,
    .handle = agent_handle,
    .notify_port_free = agent_port_free,
    .busy = agent_busy,
    .dump = agent_dump,
};

sim_port *rdc_agent_new(carve *cv, const coh_site *site)
{
    rdc_agent *a = MGS_NEW(rdc_agent);
    const coh_system *s = &cv->sys;
    char name[96];
    snprintf(name, sizeof name, "%s.RDC", site->name);
    mgs_time period = site->period ? site->period : 1000;
    comp_init(&a->base, site->eng, &agent_ops, name, period);
    port_init(&a->top, &a->base, "top", RDC_TOP_BUFFER);
    /* Every request below can answer at once. */
    port_init(&a->bottom, &a->base, "bottom", RDC_RECORDS);
    a->cv = cv;
    a->gpu = site->gpu;
    a->bank = site->bank;
    a->memory = site->memory;
    a->local_base = (uint64_t)site->gpu * s->mem_per_gpu;
    a->local_limit = a->local_base + s->mem_per_gpu;
    a->region = a->local_limit - s->carve.rdc_bytes;
    rdc_init(&a->tags, s->carve.rdc_bytes, s->line, s->l2_banks, site->bank,
             s->l2_interleave, cv->variant == CARVE_SWC,
             s->carve.epoch_bits);
    a->home = cv->imst ? &cv->imst[site->gpu] : NULL;
    a->write_back = (s->carve.write_back || cv->skip_flush) &&
                    a->tags.sets && cv->variant != CARVE_HWC;
    a->skip_flush = cv->skip_flush;
    for (int i = 0; i < ST_COUNT; i++)
        a->st[i] = site->stats ? stat_counter_add(site->stats, name,
                                                  stat_names[i],
                                                  i == ST_FLUSH_PS ? "ps"
                                                                   : "count")
                               : &a->own[i];
    for (uint32_t i = RDC_RECORDS; i-- > 0;) {
        a->recs[i].next_free = a->free_recs;
        a->free_recs = &a->recs[i];
    }
    conn_plug(site->net, &a->bottom);
    conn_plug(site->net, &a->top);
    cv->agents[site->gpu * s->l2_banks + site->bank] = a;
    return &a->top;
}

void rdc_agent_free(rdc_agent *a)
{
    if (!a)
        return;
    /* Messages still queued are ours (a run that stopped early). */
    for (uint32_t i = 0; i < a->out_count; i++)
        mem_msg_release(a->cv->pool, a->out[(a->out_head + i) % RDC_OUT]);
    rdc_fini(&a->tags);
    free(a->held);
    port_fini(&a->top);
    port_fini(&a->bottom);
    comp_fini(&a->base);
    free(a);
}
