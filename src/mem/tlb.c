/*
** Translation lookaside buffer (tlb.h): set-associative, LRU, MSHRs that
** merge misses to one page, hit latency, shoot-down on the ctrl port.
**
** One tick (only while work is pending; asleep otherwise):
**   1. fills: a MEM_XLATE_RSP from below installs the page (unless the
**      MSHR went stale in a shoot-down, or the walk faulted) and queues a
**      response for every waiting request            [tlb_fill]
**   2. ctrl: MEM_INVALIDATE flushes (size 0: all; else pid + range), marks
**      in-flight MSHRs stale, answers MEM_CTRL_RSP   [tlb_core_ctrl_step]
**   3. responses whose time has come go up           [tlb_send_due]
**   4. up to `width` lookups: hit -> response due now + hit_latency;
**      miss -> merge into the page's MSHR or allocate one; stall (leave the
**      request in the port: back-pressure) when no MSHR, waiter slot or
**      response slot is free                         [tlb_lookup]
**   5. new MSHRs send their MEM_XLATE down (route)   [tlb_core_send_down]
** Tags, MSHRs and shoot-down are tlb_core.c's, shared with the address
** translator's built-in L1 TLB (xlat.c).
**
** MSHR life:  FREE --miss (tlb_lookup)--> ALLOCATED (unsent)
**   --port_send ok (tlb_core_send_down)--> WAITING --fill (tlb_fill)--> FREE;
**   a shoot-down while ALLOCATED/WAITING sets `stale`: the fill answers the
**   waiters but installs nothing.
**
** Timing: a request that reaches the top port is seen at the TLB's next
** clock edge; a hit leaves hit_latency cycles later. Responses carry the
** translated address of the request's own address (page base + offset).
*/
#include "mem/tlb.h"
#include "mem/tlb_core.h"

#include <assert.h>
#include <stdlib.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

typedef struct tlb_out {
    mem_msg *rsp;          /* owned until sent */
    mgs_time due;
} tlb_out;

struct tlb {
    sim_comp base;         /* first */
    sim_port top, bottom, ctrl;
    tlb_config cfg;
    mem_pool *pool;
    mem_route route;
    bool has_route;
    tlb_core core;         /* tags, MSHRs */
    tlb_out *out;          /* ring of responses, due times nondecreasing */
    uint32_t out_cap, out_head, out_count;
    mem_msg *ctrl_rsp;     /* a refused MEM_CTRL_RSP */
    stat_counter *hits, *misses, *mshr_merges, *evictions, *shootdowns;
    stat_counter own[5];
};

void tlb_config_default(tlb_config *c)
{
    c->sets = 1;              /* seed 002 Table 5.1: L1 TLB 1 set, 32-way */
    c->ways = 32;
    c->page_bytes = 4096;     /* MGPUSim: 4 KB pages */
    c->hit_latency = 1;       /* MGPUSim TLB: 1 cycle */
    c->mshr_entries = 4;      /* MGPUSim 2020 L1 TLB: 4 MSHRs */
    c->top_buffer = 8;        /* assumed: a few requests per cycle */
    c->period = 1000;         /* seed 002 Table 5.1: 1 GHz */
    c->width = 4;             /* MGPUSim 2020: 4 requests per cycle */
    c->slices = 1;            /* one TLB; the L2 TLB builder sets its count */
}

static bool pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

int tlb_config_validate(const tlb_config *c)
{
    if (c->sets < 1 || c->ways < 1)
        return mgs_error_set(MGS_ECONFIG, "tlb: sets and ways must be >= 1");
    if (!pow2(c->page_bytes) || c->page_bytes < 256)
        return mgs_error_set(MGS_ECONFIG,
                             "tlb: page_bytes must be a power of two >= 256");
    if (c->mshr_entries < 1 || c->top_buffer < 1 || c->width < 1)
        return mgs_error_set(MGS_ECONFIG, "tlb: mshr_entries, top_buffer "
                                          "and width must be >= 1");
    if (c->period < 1)
        return mgs_error_set(MGS_ECONFIG, "tlb: period must be >= 1 ps");
    return MGS_OK;
}

/* ---- tick stages ------------------------------------------------------ */

static bool out_push(tlb *t, mem_msg *rsp, mgs_time due)
{
    if (t->out_count == t->out_cap)
        return false;
    t->out[(t->out_head + t->out_count++) % t->out_cap] =
        (tlb_out){rsp, due};
    return true;
}

/* flags: MEM_F_FAULT, or MEM_F_READONLY for a read-only mapping; span:
** the mapping's reach (0: one page). */
static mem_msg *answer(tlb *t, const mem_msg *req, uint64_t ppage,
                       uint32_t flags, uint64_t span)
{
    mem_msg *r = mem_msg_response(t->pool, req);
    r->flags |= flags;
    if (!(flags & MEM_F_FAULT)) {
        r->paddr = ppage + (req->addr & (t->cfg.page_bytes - 1));
        r->span = span;
    }
    return r;
}

static bool tlb_fill(tlb *t, mgs_time now)
{
    bool progress = false;
    mem_msg *m;
    while ((m = (mem_msg *)port_peek(&t->bottom))) {
        tlb_mshr *h = m->origin;
        if (tlb_core_ask_again(h, m)) {
            /* Translated before a shoot-down, or read-only for a
            ** write: ask again. */
            port_retrieve(&t->bottom);
            mem_msg_release(t->pool, m);
            tlb_core_mshr_retry(&t->core, t->pool, h, now);
            progress = true;
            continue;
        }
        if (t->out_cap - t->out_count < h->nwait)
            break; /* no room for the answers yet: keep it in the port */
        port_retrieve(&t->bottom);
        uint32_t flags = m->flags & (MEM_F_FAULT | MEM_F_READONLY);
        uint64_t ppage = m->paddr & ~(uint64_t)(t->cfg.page_bytes - 1);
        assert(!((flags & MEM_F_READONLY) && h->write) &&
               "a write got a read-only page");
        if (!(flags & MEM_F_FAULT) &&
            tlb_core_install(&t->core, h->pid, h->vpn, ppage,
                             flags & MEM_F_READONLY, m->span))
            stat_inc(t->evictions);
        for (uint32_t i = 0; i < h->nwait; i++)
            out_push(t, answer(t, h->wait[i], ppage, flags, m->span), now);
        mem_msg_release(t->pool, h->down);
        mem_msg_release(t->pool, m);
        tlb_core_mshr_done(h);
        progress = true;
    }
    return progress;
}

static bool tlb_send_due(tlb *t, mgs_time now)
{
    bool progress = false;
    while (t->out_count && t->out[t->out_head].due <= now) {
        if (port_send(&t->top, &t->out[t->out_head].rsp->base) != MGS_OK)
            break;
        t->out_head = (t->out_head + 1) % t->out_cap;
        t->out_count--;
        progress = true;
    }
    return progress;
}

static bool tlb_lookup(tlb *t, mgs_time now)
{
    bool progress = false;
    for (uint32_t n = 0; n < t->cfg.width; n++) {
        mem_msg *m = (mem_msg *)port_peek(&t->top);
        if (!m || t->out_count == t->out_cap)
            break;
        uint64_t vpn = m->addr >> t->core.page_shift;
        tlb_entry *e = tlb_core_lookup_for(&t->core, m, vpn);
        if (e) {
            port_retrieve(&t->top);
            tlb_core_touch(&t->core, e);
            stat_inc(t->hits);
            out_push(t, answer(t, m, tlb_core_ppage(&t->core, e, vpn),
                               e->readonly ? MEM_F_READONLY : 0,
                               (uint64_t)t->cfg.page_bytes << e->order),
                     now + (mgs_time)t->cfg.hit_latency * t->cfg.period);
            progress = true;
            continue;
        }
        bool merged;
        if (!tlb_core_miss(&t->core, t->pool, m, vpn, now, &merged))
            break; /* back-pressure: the request stays in the port */
        port_retrieve(&t->top);
        if (merged)
            stat_inc(t->mshr_merges);
        stat_inc(t->misses);
        progress = true;
    }
    return progress;
}

static bool tlb_tick(sim_comp *c)
{
    tlb *t = (tlb *)c;
    mgs_time now = eng_now(c->eng);
    bool progress = tlb_fill(t, now);
    progress |= tlb_core_ctrl_step(&t->core, &t->ctrl, t->pool, &t->ctrl_rsp,
                                   t->shootdowns);
    progress |= tlb_send_due(t, now);
    progress |= tlb_lookup(t, now);
    if (t->core.unsent) {
        assert(t->has_route && "tlb: no route to the level below");
        progress |= tlb_core_send_down(&t->core, &t->bottom, &t->route);
    }
    /* Responses waiting for their hit latency need future ticks. */
    return progress || (t->out_count && t->out[t->out_head].due > now);
}

static bool tlb_busy(const sim_comp *c)
{
    const tlb *t = (const tlb *)c;
    return t->out_count || t->ctrl_rsp || tlb_core_busy(&t->core);
}

static const sim_comp_ops tlb_ops = {
    .kind = "TLB", .tick = tlb_tick, .busy = tlb_busy,
};

tlb *tlb_new(sim_engine *eng, const char *name, const tlb_config *cfg,
             mem_pool *pool, stat_registry *stats)
{
    assert(tlb_config_validate(cfg) == MGS_OK);
    tlb *t = MGS_NEW(tlb);
    t->cfg = *cfg;
    t->pool = pool;
    comp_init(&t->base, eng, &tlb_ops, name, cfg->period);
    port_init(&t->top, &t->base, "top", cfg->top_buffer);
    port_init(&t->bottom, &t->base, "bottom", cfg->mshr_entries);
    port_init(&t->ctrl, &t->base, "ctrl", 2);
    tlb_core_init(&t->core, cfg);
    t->out_cap = cfg->width * (cfg->hit_latency + 1) + TLB_MSHR_WAITERS;
    t->out = MGS_NEW_ARRAY(tlb_out, t->out_cap);
    stat_counter **slots[] = {&t->hits, &t->misses, &t->mshr_merges,
                              &t->evictions, &t->shootdowns};
    static const char *const names[] = {"hits", "misses", "mshr_merges",
                                        "evictions", "shootdowns"};
    for (size_t i = 0; i < 5; i++)
        *slots[i] = stats ? stat_counter_add(stats, name, names[i], "count")
                          : &t->own[i];
    return t;
}

void tlb_free(tlb *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->out_count; i++)
        mem_msg_release(t->pool, t->out[(t->out_head + i) % t->out_cap].rsp);
    tlb_core_fini(&t->core, t->pool);
    mem_msg_release(t->pool, t->ctrl_rsp);
    free(t->out);
    port_fini(&t->ctrl);
    port_fini(&t->bottom);
    port_fini(&t->top);
    comp_fini(&t->base);
    free(t);
}

sim_port *tlb_top(tlb *t) { return &t->top; }
sim_port *tlb_bottom(tlb *t) { return &t->bottom; }
sim_port *tlb_ctrl(tlb *t) { return &t->ctrl; }

void tlb_set_route(tlb *t, const mem_route *route)
{
    t->route = *route;
    t->has_route = true;
}
