/*
** One GPU's GPS hardware after the L2 shim (seed 003 §5.2, Fig. 7 W4-W6):
**
**   remote write queue   (gps_queue.c) `entries` blocks of `block` bytes,
**                        fully associative, coalescing with byte masks.
**                        Entries leave in allocation order: one when the
**                        queue holds entries - 1 (the high watermark), while
**                        the kernel runs, so the publications overlap its
**                        compute, and all of
**                        them at a release (gps_unit_drained).
**   translation unit     takes drained entries one at a time: the GPS-TLB
**                        (set associative, LRU, tagged by virtual page)
**                        answers in one cycle or, on a miss, after a walk
**                        of the GPS page table (gps.walk_latency cycles).
**                        Atomics skip the queue (never coalesced) and come
**                        here in order with the drained entries.
**   publisher            sends each translated block to every remote
**                        subscriber: a block whose every byte was written as
**                        one MEM_WRITE of the whole block (seed 003 §5.2:
**                        one copy of the block per subscriber), a partly
**                        written one as MEM_WRITEs of 64 B with byte masks
**                        (the memory protocol's masks cover 64 B; pieces
**                        without a written byte are not sent), an atomic as
**                        one MEM_ATOMIC per subscriber, through the GPU's
**                        crossbar to its RDMA engine. It has gps.ports
**                        crossbar ports (lanes, each one message at a time
**                        at xbar.bytes_per_cycle); the message of block b
**                        to subscriber h takes lane (h + b) % ports, so the
**                        copies of one block to several subscribers and
**                        consecutive blocks to one subscriber leave in
**                        parallel while the messages of one block to one
**                        subscriber keep their order. It counts the
**                        messages until acknowledged.
** A release (kernel end, a fence) is complete when the queue is empty, the
** translation FIFO is empty and every publication is acknowledged; the
** answers the protocol held for it are then released.
** The translation FIFO is unbounded (assumed: the seed sizes only the
** queue and the GPS-TLB; stores never stall on GPS, the link's back
** pressure shows as the drain at the next release).
*/
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coh/gps/gps_int.h"
#include "mgsim/errors.h"
#include "sim/comp.h"
#include "util/xmalloc.h"

#define GPS_PIECE 64u          /* bytes per publication message (mask) */
#define GPS_HEADER_BYTES 8u    /* as the memory protocol's messages */

typedef struct pub {
    mgs_time ready;            /* translated at */
    uint32_t page;
    uint32_t offset;           /* bytes into the page */
    uint32_t subs_left;        /* subscribers still to send to */
    uint8_t piece;             /* next piece for the lowest of subs_left */
    bool atomic;
    bool whole;                /* every byte written: one message */
    uint16_t op;
    uint8_t asize;
    uint64_t src, cmp;
    uint64_t mask[2];
    uint8_t data[MEM_LINE_MAX];
} pub;

typedef struct held_ans {
    cache *c;
    uint64_t line;
    bool fence;                /* an L1 waiting to start a fence: wake it */
} held_ans;

struct gps_unit {
    sim_comp base;             /* first */
    sim_port *port;            /* on the crossbar: publications, answers */
    uint32_t nports;
    gps *s;
    uint32_t gpu;
    mem_route route;
    uint32_t block;
    gps_queue q;
    /* GPS-TLB: sets x ways of (page VA + 1, 0 = invalid) and LRU stamps. */
    uint64_t *tlb_tag, *tlb_use, tlb_clock;
    uint32_t tlb_sets, tlb_ways;
    mgs_time xlate_free;       /* the translation unit is busy until */
    /* Translated publications, FIFO. */
    pub *pubs;
    uint32_t phead, pcount, pcap;
    uint64_t outstanding;      /* messages not yet acknowledged */
    bool draining;             /* a release asked for a full drain */
    held_ans *held;
    uint32_t nheld, held_cap;
    /* Statistics. */
    stat_counter *stores, *hits, *allocs, *atomics, *watermark_drains,
        *release_drains, *releases_waited, *fences_waited, *tlb_hits, *tlb_misses, *msgs,
        *bytes, *dropped;
    stat_counter *bytes_to[GPS_MAX_GPUS];
};

static mgs_time now_of(const gps_unit *u) { return eng_now(u->base.eng); }

/* ---- queue ---------------------------------------------------------------- */

static pub *pub_push(gps_unit *u)
{
    if (u->pcount == u->pcap) {
        uint32_t ncap = u->pcap ? 2 * u->pcap : 64;
        pub *n = mgs_xmalloc(ncap * sizeof *n);
        for (uint32_t i = 0; i < u->pcount; i++)
            n[i] = u->pubs[(u->phead + i) % u->pcap];
        free(u->pubs);
        u->pubs = n;
        u->phead = 0;
        u->pcap = ncap;
    }
    pub *p = &u->pubs[(u->phead + u->pcount++) % u->pcap];
    memset(p, 0, offsetof(pub, data));
    return p;
}

/* The translation of page's VA: GPS-TLB hit (1 cycle) or walk. Returns
** when the translation is done. */
static mgs_time translate(gps_unit *u, uint32_t page)
{
    uint64_t tag = u->s->pages[page].va + 1;
    uint32_t set = (uint32_t)((tag >> u->s->page_shift) % u->tlb_sets);
    uint64_t *t = &u->tlb_tag[set * u->tlb_ways],
             *use = &u->tlb_use[set * u->tlb_ways];
    mgs_time start = u->xlate_free > now_of(u) ? u->xlate_free : now_of(u);
    uint32_t victim = 0;
    u->tlb_clock++;
    for (uint32_t w = 0; w < u->tlb_ways; w++) {
        if (t[w] == tag) {
            use[w] = u->tlb_clock;
            stat_inc(u->tlb_hits);
            return u->xlate_free = start + u->base.period;
        }
        if (use[w] < use[victim])
            victim = w;
    }
    stat_inc(u->tlb_misses);
    t[victim] = tag;
    use[victim] = u->tlb_clock;
    return u->xlate_free =
               start + (mgs_time)(u->s->sys.gps.walk_latency + 1) *
                           u->base.period;
}

static uint32_t remote_subs(const gps_unit *u, uint32_t page)
{
    return u->s->pages[page].subs & ~(1u << u->gpu);
}

/* Moves the oldest queue entry to the translation unit. */
static void drain_oldest(gps_unit *u)
{
    gps_qentry q;
    if (!gps_queue_pop(&u->q, &q))
        return;
    pub *p = pub_push(u);
    p->page = q.page;
    p->offset = (uint32_t)(q.block - u->s->pages[q.page].va);
    p->subs_left = remote_subs(u, q.page);
    p->mask[0] = q.mask[0];
    p->mask[1] = q.mask[1];
    p->whole = q.mask[0] == ~0ull && (u->block <= 64 || q.mask[1] == ~0ull);
    memcpy(p->data, q.data, u->block);
    p->ready = translate(u, q.page);
}

void gps_unit_capture(gps_unit *u, uint32_t page, const mem_msg *m)
{
    const gps_page *pg = &u->s->pages[page];
    uint64_t off = m->addr & (gps_page_bytes(u->s) - 1);
    uint64_t va = pg->va + off;
    if (m->base.type == MEM_ATOMIC) {
        stat_inc(u->atomics);
        pub *p = pub_push(u);
        p->page = page;
        p->offset = (uint32_t)off;
        p->subs_left = remote_subs(u, page);
        p->atomic = true;
        p->op = m->atomic_op;
        p->asize = m->atomic_size;
        p->src = m->atomic_src;
        p->cmp = m->atomic_cmp;
        p->ready = translate(u, page);
        comp_wake(&u->base);
        return;
    }
    stat_inc(u->stores);
    if (gps_queue_needs_room(&u->q, va))
        drain_oldest(u);       /* a full queue (watermark 1 of 1) */
    if (gps_queue_store(&u->q, va, page, m->data, m->size, m->mask))
        stat_inc(u->hits);
    else
        stat_inc(u->allocs);
    if (gps_queue_at_watermark(&u->q)) {
        stat_inc(u->watermark_drains);
        drain_oldest(u);
        comp_wake(&u->base);
    }
}

/* ---- publisher ------------------------------------------------------------ */

static bool piece_written(const pub *p, uint32_t k)
{
    return p->mask[k * GPS_PIECE / 64] != 0;
}

/* The lane of the head publication's messages to subscriber h. */
static uint32_t lane_of(const gps_unit *u, const pub *p, uint32_t h)
{
    uint64_t b = (u->s->pages[p->page].pa[h] + p->offset) / u->block;
    return (uint32_t)((h + b) % u->nports);
}

static uint32_t pieces_of(const gps_unit *u, const pub *p)
{
    return p->atomic || p->whole ? 1 : u->block / GPS_PIECE;
}

/* The subscriber the head publication's next message goes to, skipping
** pieces without a written byte, or -1 when the head is done. */
static int next_target(const gps_unit *u, pub *p)
{
    uint32_t pieces = pieces_of(u, p);
    while (p->subs_left) {
        while (p->piece < pieces && !p->atomic && !p->whole &&
               !piece_written(p, p->piece))
            p->piece++;
        if (p->piece < pieces)
            return __builtin_ctz(p->subs_left);
        p->subs_left &= p->subs_left - 1;
        p->piece = 0;
    }
    return -1;
}

/* The head publication's next message, for subscriber h (next_target). */
static mem_msg *next_msg(gps_unit *u, const pub *p, uint32_t h)
{
    const gps_page *pg = &u->s->pages[p->page];
    mem_msg *m = mem_msg_alloc(u->s->pool, p->atomic ? MEM_ATOMIC : MEM_WRITE);
    m->flags = MEM_F_PHYS | MEM_F_GPS_PUB;
    m->gpu = (int32_t)u->gpu;
    m->issue_time = now_of(u);
    if (p->atomic) {
        m->addr = pg->pa[h] + p->offset;
        m->size = p->asize;
        m->atomic_op = p->op;
        m->atomic_size = p->asize;
        m->atomic_src = p->src;
        m->atomic_cmp = p->cmp;
        m->base.bytes = GPS_HEADER_BYTES + 2u * p->asize;
    } else if (p->whole) {
        m->addr = pg->pa[h] + p->offset;
        m->size = u->block;    /* mask: all ones (mem_msg_alloc) */
        memcpy(m->data, p->data, u->block);
        m->base.bytes = GPS_HEADER_BYTES + u->block;
    } else {
        uint32_t k = p->piece;
        m->addr = pg->pa[h] + p->offset + k * GPS_PIECE;
        m->size = GPS_PIECE;
        m->mask = p->mask[k * GPS_PIECE / 64];
        memcpy(m->data, p->data + k * GPS_PIECE, GPS_PIECE);
        m->base.bytes = GPS_HEADER_BYTES + GPS_PIECE;
    }
    m->base.dst = mem_route_lookup(&u->route, m->addr);
    m->base.id = h;
    return m;
}

/* The head publication's message for one subscriber went (or was dropped). */
static void advance(pub *p)
{
    if (p->atomic || p->whole)
        p->subs_left &= p->subs_left - 1;
    else
        p->piece++;
}

static void release_held(gps_unit *u)
{
    for (uint32_t i = 0; i < u->nheld; i++) {
        if (u->held[i].fence)
            cache_wake(u->held[i].c);
        else
            cache_release_held(u->held[i].c, u->held[i].line);
    }
    u->nheld = 0;
}

static bool idle(const gps_unit *u)
{
    return !u->q.count && !u->pcount && !u->outstanding;
}

static bool unit_tick(sim_comp *c)
{
    gps_unit *u = (gps_unit *)c;
    bool progress = false;
    mem_msg *r;
    for (uint32_t k = 0; k < u->nports; k++)
        while ((r = (mem_msg *)port_retrieve(&u->port[k]))) {
            u->outstanding--;
            mem_msg_release(u->s->pool, r->req);
            mem_msg_release(u->s->pool, r);
            progress = true;
        }
    if (u->draining)
        while (u->q.count) {
            stat_inc(u->release_drains);
            drain_oldest(u);
            progress = true;
        }
    mgs_time now = now_of(u);
    while (u->pcount) {
        pub *p = &u->pubs[u->phead];
        if (p->ready > now)
            return true;       /* translating: look again next cycle */
        int t = next_target(u, p);
        if (t < 0) {
            u->phead = (u->phead + 1) % u->pcap;
            u->pcount--;
            progress = true;
            continue;
        }
        sim_port *out = &u->port[lane_of(u, p, (uint32_t)t)];
        if (!port_can_send(out)) {
            port_notify_when_free(out);
            break;
        }
        mem_msg *m = next_msg(u, p, (uint32_t)t);
        progress = true;
        advance(p);
        if (++u->s->published == u->s->sys.gps.test_drop) {
            stat_inc(u->dropped);
            mem_msg_release(u->s->pool, m);
            continue;
        }
        uint32_t payload = m->base.bytes - GPS_HEADER_BYTES;
        int rc = port_send(out, &m->base);
        (void)rc;              /* port_can_send said yes */
        u->outstanding++;
        stat_inc(u->msgs);
        stat_addn(u->bytes, payload);
        stat_addn(u->bytes_to[t], payload);
    }
    if (u->draining && idle(u)) {
        u->draining = false;
        release_held(u);
        progress = true;
    }
    return progress;
}

static void wait_drain(gps_unit *u, cache *c, uint64_t line, bool fence)
{
    if (u->nheld == u->held_cap) {
        u->held_cap = u->held_cap ? 2 * u->held_cap : 16;
        u->held = mgs_xrealloc(u->held, u->held_cap * sizeof *u->held);
    }
    u->held[u->nheld++] = (held_ans){c, line, fence};
    u->draining = true;
    comp_wake(&u->base);
}

bool gps_unit_drained(gps_unit *u, cache *c, uint64_t line)
{
    if (idle(u))
        return true;
    stat_inc(u->releases_waited);
    wait_drain(u, c, line, false);
    return false;
}

bool gps_unit_fence_ready(gps_unit *u, cache *c)
{
    if (idle(u))
        return true;
    for (uint32_t i = 0; i < u->nheld; i++)
        if (u->held[i].c == c && u->held[i].fence)
            return false;     /* already waiting */
    stat_inc(u->fences_waited);
    wait_drain(u, c, 0, true);
    return false;
}

/* Entries waiting in the queue are not work in progress (like dirty lines
** in a write-back cache): the next release drains them. */
static bool unit_busy(const sim_comp *c)
{
    const gps_unit *u = (const gps_unit *)c;
    return u->draining || u->pcount || u->outstanding;
}

static bool unit_stall(const sim_comp *c, char *buf, size_t n)
{
    const gps_unit *u = (const gps_unit *)c;
    if (idle(u))
        return false;
    snprintf(buf, n, "%u queued, %u to publish, %llu unacknowledged",
             u->q.count, u->pcount, (unsigned long long)u->outstanding);
    return true;
}

static const sim_comp_ops unit_ops = {
    .kind = "GPSUnit",
    .tick = unit_tick,
    .busy = unit_busy,
    .stall = unit_stall,
};

gps_unit *gps_unit_new(gps *s, uint32_t gpu, const mem_route *route)
{
    gps_unit *u = MGS_NEW(gps_unit);
    const coh_gps_params *k = &s->sys.gps;
    u->s = s;
    u->gpu = gpu;
    u->route = *route;
    u->block = k->queue_block;
    gps_queue_init(&u->q, k->queue_entries, k->queue_block);
    u->tlb_ways = k->tlb_ways;
    u->tlb_sets = k->tlb_entries / k->tlb_ways;
    u->tlb_tag = mgs_xcalloc(k->tlb_entries, sizeof *u->tlb_tag);
    u->tlb_use = mgs_xcalloc(k->tlb_entries, sizeof *u->tlb_use);
    char name[48];
    snprintf(name, sizeof name, "GPU[%u].GPS", gpu);
    comp_init(&u->base, s->eng, &unit_ops, name, s->sys.gps.period);
    u->nports = k->ports;
    u->port = mgs_xcalloc(u->nports, sizeof *u->port);
    for (uint32_t i = 0; i < u->nports; i++) {
        char pname[16];
        snprintf(pname, sizeof pname, i ? "net%u" : "net", i);
        port_init(&u->port[i], &u->base, pname, 64);
    }
    stat_registry *st = s->stats;
    u->stores = stat_counter_add(st, name, "wq_stores", "count");
    u->hits = stat_counter_add(st, name, "wq_hits", "count");
    u->allocs = stat_counter_add(st, name, "wq_allocations", "count");
    u->atomics = stat_counter_add(st, name, "atomics_forwarded", "count");
    u->watermark_drains =
        stat_counter_add(st, name, "wq_watermark_drains", "count");
    u->release_drains =
        stat_counter_add(st, name, "wq_release_drains", "count");
    u->releases_waited =
        stat_counter_add(st, name, "releases_waited", "count");
    u->fences_waited = stat_counter_add(st, name, "fences_waited", "count");
    u->tlb_hits = stat_counter_add(st, name, "gps_tlb_hits", "count");
    u->tlb_misses = stat_counter_add(st, name, "gps_tlb_misses", "count");
    u->msgs = stat_counter_add(st, name, "publications", "count");
    u->bytes = stat_counter_add(st, name, "published_bytes", "bytes");
    u->dropped = stat_counter_add(st, name, "dropped_publications", "count");
    for (uint32_t h = 0; h < s->sys.ngpus; h++) {
        char metric[48];
        snprintf(metric, sizeof metric, "published_bytes_to_gpu%u", h);
        u->bytes_to[h] = stat_counter_add(st, name, metric, "bytes");
    }
    return u;
}

void gps_unit_free(gps_unit *u)
{
    if (!u)
        return;
    gps_queue_fini(&u->q);
    free(u->tlb_tag);
    free(u->tlb_use);
    free(u->pubs);
    free(u->held);
    for (uint32_t i = 0; i < u->nports; i++)
        port_fini(&u->port[i]);
    free(u->port);
    comp_fini(&u->base);
    free(u);
}

sim_port *gps_unit_port(gps_unit *u, uint32_t i)
{
    return i < u->nports ? &u->port[i] : NULL;
}
