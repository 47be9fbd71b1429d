/*
** Address translator with its L1 TLB built in (tlb.h).
**
** Why one component: in hardware the L1 TLB (UTCL1) sits in the address
** path of the L1 cache; a hit costs its latency, not two network hops.
** Modelling it as a separate component cost two messages and a TLB tick per
** access, about a third of the shader array's traffic in the simulator,
** for no change in what is modelled. The L2 TLB stays a tlb component.
**
** One tick (asleep when idle):
**   1. fills: MEM_XLATE_RSP from the L2 TLB installs the page (unless the
**      MSHR went stale in a shoot-down or the walk faulted); each waiting
**      request is translated, or answered with MEM_F_FAULT [xlat_fill]
**   2. ctrl: MEM_INVALIDATE / MEM_FLUSH empties the TLB (size 0) or the
**      pages of pid in [addr, addr + size), marks matching MSHRs stale
**      (their answer is asked for again), answers MEM_CTRL_RSP once the
**      out entries queued before it have left (the fence) [xlat_ctrl_step]
**   3. the out queue sends every entry whose time came, in order
**                                                       [xlat_send_due]
**   4. up to tlb.width lookups: hit -> out queue, due now + hit_latency;
**      miss -> merge into the page's MSHR or allocate one (stall, leaving
**      the request in the top port, when none is free or max_inflight
**      requests are held); control messages pass through untranslated
**                                                       [xlat_lookup]
**   5. new MSHRs send their MEM_XLATE to the L2 TLB [tlb_core_send_down]
**
** A translated request is the requester's own message, rewritten in place:
** addr = physical, MEM_F_PHYS, vaddr = the requester's address, reply_to =
** the requester's port. So the cache answers the requester directly and
** the translator keeps no state for it once it left.
**
** Invariants: held = out_count + requests waiting in MSHRs <= max_inflight
** (so the out queue, max_inflight long, never overflows); out entries
** leave in queue order (two requests to one address never reorder: a
** page's requests either all hit or all wait in its one MSHR).
*/
#include "mem/tlb.h"

#include <assert.h>
#include <stdlib.h>

#include "mem/tlb_core.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

typedef struct xlat_out {
    mem_msg *msg;          /* translated request, or a fault answer */
    mgs_time due;
    bool up;               /* fault answer: leaves through top */
} xlat_out;

struct xlat {
    sim_comp base;         /* first */
    /* what every tick tests first */
    uint32_t out_head, out_count;
    uint32_t held;         /* out_count + requests waiting in MSHRs */
    xlat_out *out;         /* ring, max_inflight entries */
    mem_msg *ctrl_rsp;     /* a MEM_CTRL_RSP refused, or held by fence */
    uint32_t fence;        /* out entries that must leave before it */
    mgs_time hit_delay;    /* ps */
    sim_port top, tlbp, bottom, ctrl;
    xlat_config cfg;
    tlb_config tcfg;
    mem_pool *pool;
    mem_route tlb_route, route;
    bool has_tlb_route, has_route;
    tlb_core core;         /* its L1 TLB: tags, MSHRs */
    stat_counter *translations, *hits, *misses, *mshr_merges, *evictions,
        *shootdowns;
    stat_counter own[6];
};

void xlat_config_default(xlat_config *c)
{
    c->max_inflight = 64;     /* assumed: covers the L1's 16-64 MSHRs */
    c->top_buffer = 8;        /* assumed */
    c->period = 1000;         /* seed 002 Table 5.1: 1 GHz */
}

int xlat_config_validate(const xlat_config *c)
{
    if (c->max_inflight < 1 || c->top_buffer < 1)
        return mgs_error_set(MGS_ECONFIG, "xlat: max_inflight and "
                                          "top_buffer must be >= 1");
    if (c->period < 1)
        return mgs_error_set(MGS_ECONFIG, "xlat: period must be >= 1 ps");
    return MGS_OK;
}

static void out_push(xlat *x, mem_msg *m, mgs_time due, bool up)
{
    assert(x->out_count < x->cfg.max_inflight);
    uint32_t i = x->out_head + x->out_count++;
    if (i >= x->cfg.max_inflight)
        i -= x->cfg.max_inflight;
    x->out[i] = (xlat_out){m, due, up};
}

/* The request leaves as a physical one; its answer goes to the requester. */
static void translate(xlat *x, mem_msg *q, uint64_t ppage, mgs_time due)
{
    q->vaddr = q->addr;
    q->addr = ppage | (q->addr & (x->tcfg.page_bytes - 1));
    q->flags |= MEM_F_PHYS;
    if (!q->reply_to)
        q->reply_to = q->base.src;
    stat_inc(x->translations);
    out_push(x, q, due, false);
}

static bool xlat_fill(xlat *x, mgs_time now)
{
    bool progress = false;
    mem_msg *m;
    if (!port_occupancy(&x->tlbp))
        return false;
    while ((m = (mem_msg *)port_retrieve(&x->tlbp))) {
        tlb_mshr *h = m->origin;
        progress = true;
        if (tlb_core_ask_again(h, m)) {
            /* Translated before a shoot-down, or read-only for a
            ** write: ask again. */
            mem_msg_release(x->pool, m);
            tlb_core_mshr_retry(&x->core, x->pool, h, now);
            continue;
        }
        bool fault = m->flags & MEM_F_FAULT;
        bool readonly = m->flags & MEM_F_READONLY;
        uint64_t ppage = m->paddr & ~(uint64_t)(x->tcfg.page_bytes - 1);
        assert(!(readonly && h->write) && "a write got a read-only page");
        if (!fault && tlb_core_install(&x->core, h->pid, h->vpn, ppage,
                                       readonly, m->span))
            stat_inc(x->evictions);
        for (uint32_t i = 0; i < h->nwait; i++) {
            mem_msg *q = h->wait[i];
            if (fault) {
                mem_msg *r = mem_msg_response(x->pool, q);
                r->flags |= MEM_F_FAULT;
                out_push(x, r, now, true);
            } else {
                translate(x, q, ppage, now);
            }
        }
        mem_msg_release(x->pool, h->down);
        mem_msg_release(x->pool, m);
        tlb_core_mshr_done(h);
        progress = true;
    }
    return progress;
}

static bool xlat_send_due(xlat *x, mgs_time now)
{
    bool progress = false;
    while (x->out_count && x->out[x->out_head].due <= now) {
        xlat_out *o = &x->out[x->out_head];
        sim_port *p = &x->top;
        if (!o->up) {
            assert(x->has_route && "xlat: no route below");
            o->msg->base.dst = mem_route_lookup(&x->route, o->msg->addr);
            p = &x->bottom;
        }
        if (port_send(p, &o->msg->base) != MGS_OK)
            break; /* notify_port_free wakes us */
        x->out_head = x->out_head + 1 == x->cfg.max_inflight
                          ? 0 : x->out_head + 1;
        x->out_count--;
        x->held--;
        if (x->fence)
            x->fence--;
        progress = true;
    }
    return progress;
}

/* Shoot-down (ctrl): the TLB drops the pages at once; the answer waits
** until the requests translated before it have left (the fence), so a
** page's owner knows that nothing translated with the old mapping is
** still inside the translator when it hears back (docs/translation.md). */
static bool xlat_ctrl_step(xlat *x)
{
    bool progress = false;
    for (;;) {
        if (x->ctrl_rsp) {
            if (x->fence || port_send(&x->ctrl, &x->ctrl_rsp->base) != MGS_OK)
                return progress;
            x->ctrl_rsp = NULL;
            progress = true;
        }
        mem_msg *m = (mem_msg *)port_retrieve(&x->ctrl);
        if (!m)
            return progress;
        if (m->base.type == MEM_INVALIDATE || m->base.type == MEM_FLUSH) {
            tlb_core_shootdown(&x->core, m);
            stat_inc(x->shootdowns);
        }
        x->ctrl_rsp = mem_msg_response(x->pool, m);
        x->fence = x->out_count;
        progress = true;
    }
}

static bool xlat_lookup(xlat *x, mgs_time now)
{
    bool progress = false;
    if (!port_occupancy(&x->top))
        return false;
    for (uint32_t n = 0; n < x->tcfg.width; n++) {
        mem_msg *q = (mem_msg *)port_peek(&x->top);
        if (!q || x->held == x->cfg.max_inflight)
            break;
        if (q->base.type != MEM_READ && q->base.type != MEM_WRITE &&
            q->base.type != MEM_ATOMIC) {
            /* Control (flush / invalidate) carries no address to
            ** translate: pass it through; its answer skips us too. */
            port_retrieve(&x->top);
            if (!q->reply_to)
                q->reply_to = q->base.src;
            x->held++;
            out_push(x, q, now, false);
            progress = true;
            continue;
        }
        uint64_t vpn = q->addr >> x->core.page_shift;
        tlb_entry *e = tlb_core_lookup_for(&x->core, q, vpn);
        if (e) {
            port_retrieve(&x->top);
            tlb_core_touch(&x->core, e);
            stat_inc(x->hits);
            x->held++;
            translate(x, q, tlb_core_ppage(&x->core, e, vpn),
                      now + x->hit_delay);
            progress = true;
            continue;
        }
        bool merged;
        if (!tlb_core_miss(&x->core, x->pool, q, vpn, now, &merged))
            break; /* back-pressure: the request stays in the port */
        port_retrieve(&x->top);
        if (merged)
            stat_inc(x->mshr_merges);
        stat_inc(x->misses);
        x->held++;
        progress = true;
    }
    return progress;
}

static bool xlat_tick(sim_comp *c)
{
    xlat *x = (xlat *)c;
    mgs_time now = eng_now(c->eng);
    bool progress = xlat_fill(x, now);
    if (port_occupancy(&x->ctrl) || x->ctrl_rsp)
        progress |= xlat_ctrl_step(x);
    progress |= xlat_send_due(x, now);
    if (x->ctrl_rsp && !x->fence)
        progress |= xlat_ctrl_step(x);
    progress |= xlat_lookup(x, now);
    if (x->core.unsent) {
        assert(x->has_tlb_route && "xlat: no route to the next TLB");
        progress |= tlb_core_send_down(&x->core, &x->tlbp, &x->tlb_route);
    }
    /* Requests waiting for their hit latency need future ticks. */
    return progress || (x->out_count && x->out[x->out_head].due > now);
}

static bool xlat_busy(const sim_comp *c)
{
    const xlat *x = (const xlat *)c;
    return x->held > 0 || x->ctrl_rsp;
}

static const sim_comp_ops xlat_ops = {
    .kind = "XLAT", .tick = xlat_tick, .busy = xlat_busy,
};

xlat *xlat_new(sim_engine *eng, const char *name, const xlat_config *cfg,
               const tlb_config *tcfg, mem_pool *pool, stat_registry *stats)
{
    assert(xlat_config_validate(cfg) == MGS_OK);
    assert(tlb_config_validate(tcfg) == MGS_OK);
    xlat *x = MGS_NEW(xlat);
    x->cfg = *cfg;
    x->tcfg = *tcfg;
    x->pool = pool;
    comp_init(&x->base, eng, &xlat_ops, name, cfg->period);
    port_init(&x->top, &x->base, "top", cfg->top_buffer);
    port_init(&x->tlbp, &x->base, "tlb", tcfg->mshr_entries);
    port_init(&x->bottom, &x->base, "bottom", 1); /* receives nothing */
    port_init(&x->ctrl, &x->base, "ctrl", 2);
    tlb_core_init(&x->core, tcfg);
    x->out = MGS_NEW_ARRAY(xlat_out, cfg->max_inflight);
    x->hit_delay = (mgs_time)tcfg->hit_latency * cfg->period;
    stat_counter **slots[] = {&x->translations, &x->hits, &x->misses,
                              &x->mshr_merges, &x->evictions,
                              &x->shootdowns};
    static const char *const names[] = {"translations", "hits", "misses",
                                        "mshr_merges", "evictions",
                                        "shootdowns"};
    for (size_t i = 0; i < 6; i++)
        *slots[i] = stats ? stat_counter_add(stats, name, names[i], "count")
                          : &x->own[i];
    return x;
}

void xlat_free(xlat *x)
{
    if (!x)
        return;
    /* Requests (out or waiting) belong to their requesters; only our own
    ** messages are released here. */
    for (uint32_t i = 0; i < x->out_count; i++) {
        xlat_out *o = &x->out[(x->out_head + i) % x->cfg.max_inflight];
        if (o->up)
            mem_msg_release(x->pool, o->msg);
    }
    tlb_core_fini(&x->core, x->pool);
    mem_msg_release(x->pool, x->ctrl_rsp);
    free(x->out);
    port_fini(&x->ctrl);
    port_fini(&x->bottom);
    port_fini(&x->tlbp);
    port_fini(&x->top);
    comp_fini(&x->base);
    free(x);
}

sim_port *xlat_top(xlat *x) { return &x->top; }
sim_port *xlat_tlb(xlat *x) { return &x->tlbp; }
sim_port *xlat_bottom(xlat *x) { return &x->bottom; }
sim_port *xlat_ctrl(xlat *x) { return &x->ctrl; }

void xlat_set_tlb_route(xlat *x, const mem_route *route)
{
    x->tlb_route = *route;
    x->has_tlb_route = true;
}

void xlat_set_route(xlat *x, const mem_route *route)
{
    x->route = *route;
    x->has_route = true;
}
