/*
** One GPU's GPS hardware after the L2 shim (seed 003 §5.2, Fig. 7 W4-W6):
**
**   remote write queue   `entries` blocks of `block` bytes, fully
**                        associative, tagged by virtual block address
**                        (gps_map: O(1) tag match), each with its bytes and
**                        a byte mask. A store to a block already queued
**                        merges (a coalescing hit, whatever the order of the
**                        stores); a miss allocates. Entries leave in
**                        allocation order (least recently added first, a
**                        merge does not refresh it): one when the queue
**                        holds entries - 1 (the high watermark), all of
**                        them at a release (gps_unit_drained).
**   translation unit     takes drained entries one at a time: the GPS-TLB
**                        (set associative, LRU, tagged by virtual page)
**                        answers in one cycle or, on a miss, after a walk
**                        of the GPS page table (gps.walk_latency cycles).
**                        Atomics skip the queue (never coalesced) and come
**                        here in order with the drained entries.
**   publisher            sends each translated block to every remote
**                        subscriber as MEM_WRITEs of at most 64 B with byte
**                        masks (pieces without a written byte are not sent),
**                        an atomic as one MEM_ATOMIC per subscriber, through
**                        the GPU's crossbar to its RDMA engine, in FIFO
**                        order; it counts them until acknowledged.
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

typedef struct q_entry {
    uint64_t block;            /* virtual address of the block */
    uint32_t page;             /* GPS page table index */
    uint64_t mask[2];          /* bytes written (bit i: byte i) */
    uint8_t data[MEM_LINE_MAX];
} q_entry;

typedef struct pub {
    mgs_time ready;            /* translated at */
    uint32_t page;
    uint32_t offset;           /* bytes into the page */
    uint32_t subs_left;        /* subscribers still to send to */
    uint8_t piece;             /* next piece for the lowest of subs_left */
    bool atomic;
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
    sim_port port;             /* on the crossbar: publications, answers */
    gps *s;
    uint32_t gpu;
    mem_route route;
    uint32_t block;
    /* Queue. */
    q_entry *e;
    uint32_t cap, count;
    uint32_t *fifo, head;      /* entry indices in allocation order */
    uint32_t *free_e, nfree;
    gps_map tags;              /* block -> entry index + 1 */
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

static void merge(q_entry *q, uint32_t off, const mem_msg *m)
{
    for (uint32_t i = 0; i < m->size; i++) {
        if (m->size <= 64 && !(m->mask >> i & 1))
            continue;
        uint32_t b = off + i;
        q->data[b] = m->data[i];
        q->mask[b / 64] |= 1ull << (b % 64);
    }
}

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
    uint32_t ei = u->fifo[u->head];
    u->head = (u->head + 1) % u->cap;
    u->count--;
    q_entry *q = &u->e[ei];
    gps_map_del(&u->tags, q->block);
    u->free_e[u->nfree++] = ei;
    pub *p = pub_push(u);
    p->page = q->page;
    p->offset = (uint32_t)(q->block - u->s->pages[q->page].va);
    p->subs_left = remote_subs(u, q->page);
    p->mask[0] = q->mask[0];
    p->mask[1] = q->mask[1];
    memcpy(p->data, q->data, u->block);
    p->ready = translate(u, q->page);
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
    uint64_t block = va & ~(uint64_t)(u->block - 1);
    uint32_t boff = (uint32_t)(va - block);
    uint32_t hit = gps_map_get(&u->tags, block);
    q_entry *q;
    if (hit) {
        stat_inc(u->hits);
        q = &u->e[hit - 1];
    } else {
        if (u->count == u->cap)
            drain_oldest(u);   /* a full queue (watermark 1 of 1) */
        stat_inc(u->allocs);
        uint32_t ei = u->free_e[--u->nfree];
        q = &u->e[ei];
        q->block = block;
        q->page = page;
        q->mask[0] = q->mask[1] = 0;
        u->fifo[(u->head + u->count++) % u->cap] = ei;
        gps_map_put(&u->tags, block, ei + 1);
    }
    merge(q, boff, m);
    /* The high watermark: capacity - 1 (seed 003 §5.2). */
    if (u->cap > 1 && u->count >= u->cap - 1) {
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

/* The next message of the head publication for its lowest remaining
** subscriber, or NULL when the head is done (advancing it). */
static mem_msg *next_msg(gps_unit *u, pub *p)
{
    uint32_t pieces = p->atomic ? 1 : u->block / GPS_PIECE;
    while (p->subs_left) {
        uint32_t h = (uint32_t)__builtin_ctz(p->subs_left);
        while (p->piece < pieces && !p->atomic && !piece_written(p, p->piece))
            p->piece++;
        if (p->piece == pieces) {
            p->subs_left &= p->subs_left - 1;
            p->piece = 0;
            continue;
        }
        const gps_page *pg = &u->s->pages[p->page];
        mem_msg *m = mem_msg_alloc(u->s->pool,
                                   p->atomic ? MEM_ATOMIC : MEM_WRITE);
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
    return NULL;
}

/* The head publication's message for one subscriber went (or was dropped). */
static void advance(pub *p)
{
    if (p->atomic)
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
    return !u->count && !u->pcount && !u->outstanding;
}

static bool unit_tick(sim_comp *c)
{
    gps_unit *u = (gps_unit *)c;
    bool progress = false;
    mem_msg *r;
    while ((r = (mem_msg *)port_retrieve(&u->port))) {
        u->outstanding--;
        mem_msg_release(u->s->pool, r->req);
        mem_msg_release(u->s->pool, r);
        progress = true;
    }
    if (u->draining)
        while (u->count) {
            stat_inc(u->release_drains);
            drain_oldest(u);
            progress = true;
        }
    mgs_time now = now_of(u);
    while (u->pcount) {
        pub *p = &u->pubs[u->phead];
        if (p->ready > now)
            return true;       /* translating: look again next cycle */
        if (!port_can_send(&u->port)) {
            port_notify_when_free(&u->port);
            break;
        }
        mem_msg *m = next_msg(u, p);
        if (!m) {
            u->phead = (u->phead + 1) % u->pcap;
            u->pcount--;
            progress = true;
            continue;
        }
        progress = true;
        advance(p);
        if (++u->s->published == u->s->sys.gps.test_drop) {
            stat_inc(u->dropped);
            mem_msg_release(u->s->pool, m);
            continue;
        }
        uint32_t h = (uint32_t)m->base.id;
        uint32_t payload = m->base.bytes - GPS_HEADER_BYTES;
        int rc = port_send(&u->port, &m->base);
        (void)rc;              /* port_can_send said yes */
        u->outstanding++;
        stat_inc(u->msgs);
        stat_addn(u->bytes, payload);
        stat_addn(u->bytes_to[h], payload);
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
             u->count, u->pcount, (unsigned long long)u->outstanding);
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
    u->cap = k->queue_entries;
    u->e = mgs_xcalloc(u->cap, sizeof *u->e);
    u->fifo = mgs_xcalloc(u->cap, sizeof *u->fifo);
    u->free_e = mgs_xcalloc(u->cap, sizeof *u->free_e);
    for (uint32_t i = 0; i < u->cap; i++)
        u->free_e[i] = u->cap - 1 - i;
    u->nfree = u->cap;
    gps_map_init(&u->tags, u->cap);
    u->tlb_ways = k->tlb_ways;
    u->tlb_sets = k->tlb_entries / k->tlb_ways;
    u->tlb_tag = mgs_xcalloc(k->tlb_entries, sizeof *u->tlb_tag);
    u->tlb_use = mgs_xcalloc(k->tlb_entries, sizeof *u->tlb_use);
    char name[48];
    snprintf(name, sizeof name, "GPU[%u].GPS", gpu);
    comp_init(&u->base, s->eng, &unit_ops, name, s->sys.gps.period);
    port_init(&u->port, &u->base, "net", 64);
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
    gps_map_fini(&u->tags);
    free(u->e);
    free(u->fifo);
    free(u->free_e);
    free(u->tlb_tag);
    free(u->tlb_use);
    free(u->pubs);
    free(u->held);
    port_fini(&u->port);
    comp_fini(&u->base);
    free(u);
}

sim_port *gps_unit_port(gps_unit *u) { return &u->port; }
