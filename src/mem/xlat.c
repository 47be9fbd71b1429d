/*
** Address translator (tlb.h): virtual requests in on top, one MEM_XLATE
** per request to the TLB, the physical request (MEM_F_PHYS) to bottom, the
** response relayed up with the original virtual address (it is built from
** the original request). A translation fault answers the original request
** at once with MEM_F_FAULT.
**
** Slot life (max_inflight slots; requests stay in the top port when all are
** taken, which is the back-pressure):
**   FREE --xlat_accept--> SEND_X --port_send(tlb)--> WAIT_X
**   WAIT_X --XLATE_RSP ok--> SEND_P --port_send(bottom)--> WAIT_P
**   WAIT_X --XLATE_RSP fault--> SEND_UP (fault response)
**   WAIT_P --response from below--> SEND_UP --port_send(top)--> FREE
** Each SEND_* state is a FIFO of slots, sent in the order they became
** ready, so two requests to one address leave in arrival order (their
** translations return in order: the TLB answers one page in order).
** Ticks only while some slot made progress; a refused send waits for the
** port's notify_port_free. At most XLAT_WIDTH new requests per cycle.
** MEM_FLUSH / MEM_INVALIDATE pass through untranslated (FREE -> SEND_P).
*/
#include "mem/tlb.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#define XLAT_WIDTH 4u /* MGPUSim 2020: address translators take 4 per cycle */

typedef enum xlat_state {
    XS_FREE, XS_SEND_X, XS_WAIT_X, XS_SEND_P, XS_WAIT_P, XS_SEND_UP
} xlat_state;

typedef struct xlat_fifo {
    uint32_t *idx;         /* ring of slot indices, max_inflight */
    uint32_t head, count;
} xlat_fifo;

typedef struct xlat_slot {
    xlat_state state;
    mem_msg *req;          /* original (borrowed) */
    mem_msg *out;          /* owned: XLATE, physical request or response */
} xlat_slot;

struct xlat {
    sim_comp base;         /* first */
    sim_port top, tlbp, bottom;
    xlat_config cfg;
    mem_pool *pool;
    mem_route tlb_route, route;
    bool has_tlb_route, has_route;
    xlat_slot *slots;
    uint32_t inflight;
    xlat_fifo q_x, q_p, q_up; /* slots in SEND_X / SEND_P / SEND_UP */
    uint32_t *free_slots;  /* stack of FREE slot indices */
    uint32_t nfree;
    stat_counter *translations;
    stat_counter own;
};

void xlat_config_default(xlat_config *c)
{
    c->max_inflight = 64;     /* assumed: covers the L1's 16-64 MSHRs */
    c->top_buffer = 8;        /* assumed */
    c->page_bytes = 4096;
    c->period = 1000;         /* seed 002 Table 5.1: 1 GHz */
}

int xlat_config_validate(const xlat_config *c)
{
    if (c->max_inflight < 1 || c->top_buffer < 1)
        return mgs_error_set(MGS_ECONFIG, "xlat: max_inflight and "
                                          "top_buffer must be >= 1");
    if (!c->page_bytes || (c->page_bytes & (c->page_bytes - 1)))
        return mgs_error_set(MGS_ECONFIG,
                             "xlat: page_bytes must be a power of two");
    if (c->period < 1)
        return mgs_error_set(MGS_ECONFIG, "xlat: period must be >= 1 ps");
    return MGS_OK;
}

/* The request forwarded below for slot s: the original's fields, at addr,
** with extra flags; its responses come back with origin = s. */
static mem_msg *forward_copy(xlat *x, xlat_slot *s, uint64_t addr,
                             uint32_t flags)
{
    const mem_msg *q = s->req;
    mem_msg *p = mem_msg_alloc(x->pool, q->base.type);
    p->base.bytes = q->base.bytes;
    p->addr = addr;
    p->size = q->size;
    p->flags = q->flags | flags;
    p->pid = q->pid;
    p->gpu = q->gpu;
    p->origin = s;
    p->mask = q->mask;
    p->atomic_op = q->atomic_op;
    p->atomic_size = q->atomic_size;
    p->atomic_src = q->atomic_src;
    p->atomic_cmp = q->atomic_cmp;
    p->issue_time = q->issue_time;
    if (q->base.type == MEM_WRITE && q->size <= MEM_LINE_MAX)
        memcpy(p->data, q->data, q->size);
    return p;
}

/* Slot indices waiting to send in one direction, in the order they became
** ready: the translator never reorders two requests to one address (their
** translations come back in order from the TLB, which merges by page). */
static void fifo_push(xlat_fifo *f, uint32_t cap, uint32_t slot)
{
    assert(f->count < cap);
    f->idx[(f->head + f->count++) % cap] = slot;
}

static void ready_to(xlat *x, xlat_slot *s, xlat_state st)
{
    s->state = st;
    xlat_fifo *f = st == XS_SEND_X ? &x->q_x : st == XS_SEND_P ? &x->q_p
                                                               : &x->q_up;
    fifo_push(f, x->cfg.max_inflight, (uint32_t)(s - x->slots));
}

static bool from_tlb(xlat *x)
{
    bool progress = false;
    mem_msg *r;
    if (!port_occupancy(&x->tlbp))
        return false; /* the common case: skip the call below */
    while ((r = (mem_msg *)port_retrieve(&x->tlbp))) {
        xlat_slot *s = r->origin;
        assert(s->state == XS_WAIT_X);
        stat_inc(x->translations);
        if (r->flags & MEM_F_FAULT) {
            mem_msg *up = mem_msg_response(x->pool, s->req);
            up->flags |= MEM_F_FAULT;
            s->out = up;
            ready_to(x, s, XS_SEND_UP);
        } else {
            s->out = forward_copy(x, s, r->paddr, MEM_F_PHYS);
            ready_to(x, s, XS_SEND_P);
        }
        mem_msg_release(x->pool, r->req);
        mem_msg_release(x->pool, r);
        progress = true;
    }
    return progress;
}

static bool from_bottom(xlat *x)
{
    bool progress = false;
    mem_msg *r;
    if (!port_occupancy(&x->bottom))
        return false;
    while ((r = (mem_msg *)port_retrieve(&x->bottom))) {
        xlat_slot *s = r->origin;
        assert(s->state == XS_WAIT_P);
        mem_msg *up = mem_msg_response(x->pool, s->req);
        up->flags |= r->flags & MEM_F_FAULT;
        uint32_t n = r->base.type == MEM_ATOMIC_RSP ? s->req->atomic_size
                                                    : s->req->size;
        if ((r->base.type == MEM_READ_RSP ||
             r->base.type == MEM_ATOMIC_RSP) && n <= MEM_LINE_MAX)
            memcpy(up->data, r->data, n);
        mem_msg_release(x->pool, r->req);
        mem_msg_release(x->pool, r);
        s->out = up;
        ready_to(x, s, XS_SEND_UP);
        progress = true;
    }
    return progress;
}

/* Sends the heads of one FIFO through port p until one is refused (then
** notify_port_free wakes the translator). */
static bool send_fifo(xlat *x, xlat_fifo *f, sim_port *p,
                      const mem_route *route)
{
    bool progress = false;
    while (f->count) {
        uint32_t i = f->idx[f->head];
        xlat_slot *s = &x->slots[i];
        if (route)
            s->out->base.dst = mem_route_lookup(route, s->out->addr);
        if (port_send(p, &s->out->base) != MGS_OK)
            break;
        f->head = (f->head + 1) % x->cfg.max_inflight;
        f->count--;
        progress = true;
        s->out = NULL; /* the receiver owns it now */
        if (s->state == XS_SEND_X) {
            s->state = XS_WAIT_X;
        } else if (s->state == XS_SEND_P) {
            s->state = XS_WAIT_P;
        } else {
            *s = (xlat_slot){XS_FREE, NULL, NULL};
            x->free_slots[x->nfree++] = i;
            x->inflight--;
        }
    }
    return progress;
}

static bool sends(xlat *x)
{
    bool progress = x->q_up.count && send_fifo(x, &x->q_up, &x->top, NULL);
    if (x->q_p.count) {
        assert(x->has_route && "xlat: no route below");
        progress |= send_fifo(x, &x->q_p, &x->bottom, &x->route);
    }
    if (x->q_x.count) {
        assert(x->has_tlb_route && "xlat: no route to its TLB");
        progress |= send_fifo(x, &x->q_x, &x->tlbp, &x->tlb_route);
    }
    return progress;
}

static bool xlat_accept(xlat *x)
{
    bool progress = false;
    if (!port_occupancy(&x->top))
        return false;
    mgs_time now = eng_now(x->base.eng);
    for (uint32_t n = 0; n < XLAT_WIDTH && x->inflight < x->cfg.max_inflight;
         n++) {
        mem_msg *q = (mem_msg *)port_retrieve(&x->top);
        if (!q)
            break;
        assert(x->nfree > 0);
        xlat_slot *s = &x->slots[x->free_slots[--x->nfree]];
        x->inflight++;
        progress = true;
        *s = (xlat_slot){XS_FREE, q, NULL};
        if (q->base.type != MEM_READ && q->base.type != MEM_WRITE &&
            q->base.type != MEM_ATOMIC) {
            /* Control (flush / invalidate) carries no address to
            ** translate: pass it through. */
            s->out = forward_copy(x, s, q->addr, 0);
            ready_to(x, s, XS_SEND_P);
            continue;
        }
        mem_msg *t = mem_msg_alloc(x->pool, MEM_XLATE);
        t->addr = q->addr;
        t->pid = q->pid;
        t->gpu = q->gpu;
        t->origin = s;
        t->issue_time = now;
        t->base.bytes = 8;
        s->out = t;
        ready_to(x, s, XS_SEND_X);
    }
    return progress;
}

static bool xlat_tick(sim_comp *c)
{
    xlat *x = (xlat *)c;
    bool progress = from_tlb(x);
    progress |= from_bottom(x);
    progress |= xlat_accept(x);
    progress |= sends(x);
    return progress;
}

static bool xlat_busy(const sim_comp *c)
{
    return ((const xlat *)c)->inflight > 0;
}

static const sim_comp_ops xlat_ops = {
    .kind = "XLAT", .tick = xlat_tick, .busy = xlat_busy,
};

xlat *xlat_new(sim_engine *eng, const char *name, const xlat_config *cfg,
               mem_pool *pool, stat_registry *stats)
{
    assert(xlat_config_validate(cfg) == MGS_OK);
    xlat *x = MGS_NEW(xlat);
    x->cfg = *cfg;
    x->pool = pool;
    comp_init(&x->base, eng, &xlat_ops, name, cfg->period);
    port_init(&x->top, &x->base, "top", cfg->top_buffer);
    port_init(&x->tlbp, &x->base, "tlb", cfg->max_inflight);
    port_init(&x->bottom, &x->base, "bottom", cfg->max_inflight);
    x->slots = MGS_NEW_ARRAY(xlat_slot, cfg->max_inflight);
    x->free_slots = MGS_NEW_ARRAY(uint32_t, cfg->max_inflight);
    x->q_x.idx = MGS_NEW_ARRAY(uint32_t, cfg->max_inflight);
    x->q_p.idx = MGS_NEW_ARRAY(uint32_t, cfg->max_inflight);
    x->q_up.idx = MGS_NEW_ARRAY(uint32_t, cfg->max_inflight);
    /* Lowest index on top, so slots are used in a fixed order. */
    for (uint32_t i = cfg->max_inflight; i-- > 0;)
        x->free_slots[x->nfree++] = i;
    x->translations = stats ? stat_counter_add(stats, name, "translations",
                                               "count")
                            : &x->own;
    return x;
}

void xlat_free(xlat *x)
{
    if (!x)
        return;
    for (uint32_t i = 0; i < x->cfg.max_inflight; i++)
        if (x->slots[i].out)
            mem_msg_release(x->pool, x->slots[i].out);
    free(x->free_slots);
    free(x->q_x.idx);
    free(x->q_p.idx);
    free(x->q_up.idx);
    free(x->slots);
    port_fini(&x->bottom);
    port_fini(&x->tlbp);
    port_fini(&x->top);
    comp_fini(&x->base);
    free(x);
}

sim_port *xlat_top(xlat *x) { return &x->top; }
sim_port *xlat_tlb(xlat *x) { return &x->tlbp; }
sim_port *xlat_bottom(xlat *x) { return &x->bottom; }

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
