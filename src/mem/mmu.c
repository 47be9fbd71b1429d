/*
** Page walker (IOMMU / GMMU, tlb.h): resolves MEM_XLATE requests against
** the runtime's page table of the request's GPU (mem_pagetable),
** levels * walk_latency cycles per walk, at most max_walks walks at once.
** Unmapped pages, and read-only pages asked for by a write (MEM_F_XWRITE),
** are answered with MEM_F_FAULT (counted); the requester
** turns that into a fault report. With a fault handler (mmu_set_fault_
** handler) the fault first goes to it as a message.
**
** Walk slot life (a fixed array of max_walks slots, one event each):
**   FREE --mmu_accept: request retrieved--> WALKING (event at the clock
**        edge at/after arrival + levels * walk_latency cycles)
**   WALKING --mmu_walk_done: page table read, response sent--> FREE
**   WALKING --mmu_walk_done: port refused--> SENDING (FIFO)
**           --notify_port_free--> FREE
**   WALKING --mmu_walk_done: unmapped, handler set--> FAULTING (the fault
**           message sent, or queued in the fault FIFO until the port frees)
**   FAULTING --handler's answer (mmu_fault_answer): table read again-->
**           response sent (FREE) or SENDING
** With every slot taken, requests stay in the top port: back-pressure.
** Event-driven: nothing is scheduled while no walk is in flight.
**
** The page table is read when the walk completes (the walk's last level),
** so a mapping changed during a walk is seen, as the hardware would.
*/
#include "mem/tlb.h"

#include <assert.h>
#include <stdlib.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

typedef struct mmu_walk {
    sim_event ev;
    mem_msg *req;          /* borrowed */
    mem_msg *rsp;          /* owned while SENDING; the fault message while
                              FAULTING and unsent */
    mgs_time start;
    bool used;
    struct mmu_walk *next; /* send FIFO or fault FIFO */
} mmu_walk;

struct mmu {
    sim_comp base;         /* first */
    sim_port top;
    mmu_config cfg;
    mem_pool *pool;
    mem_pagetable pt;
    mmu_walk *walks;
    uint32_t active;
    mmu_walk *send_head, *send_tail;
    sim_port fault;        /* to the fault handler (optional) */
    sim_port *handler;     /* NULL: faults answer at once */
    mmu_walk *fault_head, *fault_tail; /* fault messages not yet sent */
    stat_counter *walks_n, *faults;
    stat_hist *walk_latency, *queue_delay;
    stat_counter own[2];
    stat_hist own_hist[2];
};

void mmu_config_default(mmu_config *c)
{
    c->levels = 4;            /* x86-64-style 4-level table, 4 KB pages */
    c->walk_latency = 25;     /* MGPUSim: a page walk costs 100 cycles */
    c->max_walks = 16;        /* MGPUSim IOMMU: 16 walks in flight */
    c->top_buffer = 16;       /* assumed: one per concurrent walk */
    c->page_bytes = 4096;
    c->period = 1000;         /* MGPUSim IOMMU: 1 GHz */
}

int mmu_config_validate(const mmu_config *c)
{
    if (c->levels < 1 || c->max_walks < 1 || c->top_buffer < 1)
        return mgs_error_set(MGS_ECONFIG, "mmu: levels, max_walks and "
                                          "top_buffer must be >= 1");
    if (!c->page_bytes || (c->page_bytes & (c->page_bytes - 1)))
        return mgs_error_set(MGS_ECONFIG,
                             "mmu: page_bytes must be a power of two");
    if (c->period < 1)
        return mgs_error_set(MGS_ECONFIG, "mmu: period must be >= 1 ps");
    return MGS_OK;
}

static void mmu_accept(mmu *m)
{
    mgs_time now = eng_now(m->base.eng);
    mgs_time cost = (mgs_time)m->cfg.levels * m->cfg.walk_latency *
                    m->cfg.period;
    for (uint32_t i = 0; i < m->cfg.max_walks && port_peek(&m->top); i++) {
        mmu_walk *w = &m->walks[i];
        if (w->used)
            continue;
        w->used = true;
        w->req = (mem_msg *)port_retrieve(&m->top);
        w->rsp = NULL;
        w->start = now;
        /* Time spent queued in the walker's buffer (contention). */
        stat_hist_sample(m->queue_delay, now > w->req->base.arrive_time
                                             ? now - w->req->base.arrive_time
                                             : 0);
        m->active++;
        eng_schedule(m->base.eng, &w->ev,
                     mgs_edge_at_or_after(now, m->cfg.period) + cost);
    }
}

static void walk_free(mmu *m, mmu_walk *w)
{
    w->used = false;
    w->req = w->rsp = NULL;
    m->active--;
}

static bool drain(mmu *m)
{
    while (m->send_head) {
        mmu_walk *w = m->send_head;
        if (port_send(&m->top, &w->rsp->base) != MGS_OK)
            return false;
        m->send_head = w->next;
        if (!m->send_head)
            m->send_tail = NULL;
        walk_free(m, w);
    }
    return true;
}

/* Answers w's request: rsp to the requester now, or queued (SENDING). */
static void walk_answer(mmu *m, mmu_walk *w, mem_msg *rsp)
{
    w->rsp = rsp;
    w->next = NULL;
    if (!m->send_head && port_send(&m->top, &rsp->base) == MGS_OK) {
        walk_free(m, w);
        mmu_accept(m);
        return;
    }
    if (m->send_tail)
        m->send_tail->next = w;
    else
        m->send_head = w;
    m->send_tail = w;
}

/* Reads the page table for w's request: the response, or NULL if the page
** is unmapped. */
static mem_msg *walk_read(mmu *m, mmu_walk *w)
{
    mem_msg *req = w->req;
    uint64_t off = req->addr & (m->cfg.page_bytes - 1);
    uint64_t page_pa;
    if (m->pt.translate(m->pt.ud, req->gpu, req->pid, req->addr - off,
                        &page_pa) != MGS_OK)
        return NULL;
    bool readonly = m->pt.readonly &&
                    m->pt.readonly(m->pt.ud, req->gpu, req->addr - off);
    if (readonly && (req->flags & MEM_F_XWRITE))
        return NULL;           /* a write through a read-only mapping */
    mem_msg *rsp = mem_msg_response(m->pool, req);
    rsp->paddr = page_pa + off;
    if (readonly)
        rsp->flags |= MEM_F_READONLY;
    if (m->pt.run_order)
        rsp->span = (uint64_t)m->cfg.page_bytes
                    << m->pt.run_order(m->pt.ud, req->gpu, req->addr - off);
    return rsp;
}

static mem_msg *fault_rsp(mmu *m, mmu_walk *w)
{
    mem_msg *rsp = mem_msg_response(m->pool, w->req);
    rsp->flags |= MEM_F_FAULT;
    stat_inc(m->faults);
    return rsp;
}

/* Sends the queued fault messages while the fault port takes them. */
static void fault_drain(mmu *m)
{
    while (m->fault_head) {
        mmu_walk *w = m->fault_head;
        if (port_send(&m->fault, &w->rsp->base) != MGS_OK)
            return;
        w->rsp = NULL;          /* the handler answers it */
        m->fault_head = w->next;
        if (!m->fault_head)
            m->fault_tail = NULL;
    }
}

static void mmu_walk_done(mmu *m, mmu_walk *w)
{
    stat_inc(m->walks_n);
    stat_hist_sample(m->walk_latency, eng_now(m->base.eng) - w->start);
    mem_msg *rsp = walk_read(m, w);
    if (rsp || !m->handler) {
        walk_answer(m, w, rsp ? rsp : fault_rsp(m, w));
        return;
    }
    /* FAULTING: the fault goes to the handler as a message. */
    mem_msg *f = mem_msg_alloc(m->pool, MEM_XLATE);
    f->addr = w->req->addr;
    f->pid = w->req->pid;
    f->gpu = w->req->gpu;
    f->flags = MEM_F_FAULT | (w->req->flags & MEM_F_XWRITE);
    f->origin = w;
    f->base.dst = m->handler;
    f->base.bytes = 16;        /* assumed: address + ids, as an XLATE */
    f->issue_time = eng_now(m->base.eng);
    w->rsp = f;
    w->next = NULL;
    if (m->fault_tail)
        m->fault_tail->next = w;
    else
        m->fault_head = w;
    m->fault_tail = w;
    fault_drain(m);
}

/* The handler's answers: resolved -> read the table again; not -> fault. */
static void mmu_fault_answers(mmu *m)
{
    mem_msg *a;
    while ((a = (mem_msg *)port_retrieve(&m->fault))) {
        mmu_walk *w = a->req->origin;
        bool resolved = !(a->flags & MEM_F_FAULT);
        mem_msg_release(m->pool, a->req);
        mem_msg_release(m->pool, a);
        mem_msg *rsp = resolved ? walk_read(m, w) : NULL;
        walk_answer(m, w, rsp ? rsp : fault_rsp(m, w));
    }
}

static void mmu_handle(sim_comp *c, sim_event *ev)
{
    mmu_walk_done((mmu *)c, ev->data);
    eng_note_progress(c->eng);
}

static void mmu_notify_recv(sim_comp *c, sim_port *p)
{
    mmu *m = (mmu *)c;
    if (p == &m->fault)
        mmu_fault_answers(m);
    else
        mmu_accept(m);
}

static void mmu_notify_port_free(sim_comp *c, sim_port *p)
{
    mmu *m = (mmu *)c;
    if (p == &m->fault) {
        fault_drain(m);
        return;
    }
    if (drain(m))
        mmu_accept(m);
}

static bool mmu_busy(const sim_comp *c)
{
    return ((const mmu *)c)->active > 0;
}

static const sim_comp_ops mmu_ops = {
    .kind = "MMU",
    .handle = mmu_handle,
    .notify_recv = mmu_notify_recv,
    .notify_port_free = mmu_notify_port_free,
    .busy = mmu_busy,
};

mmu *mmu_new(sim_engine *eng, const char *name, const mmu_config *cfg,
             mem_pool *pool, stat_registry *stats, const mem_pagetable *pt)
{
    assert(mmu_config_validate(cfg) == MGS_OK && pt && pt->translate);
    mmu *m = MGS_NEW(mmu);
    m->cfg = *cfg;
    m->pool = pool;
    m->pt = *pt;
    comp_init(&m->base, eng, &mmu_ops, name, cfg->period);
    port_init(&m->top, &m->base, "top", cfg->top_buffer);
    port_init(&m->fault, &m->base, "fault", cfg->max_walks);
    m->walks = MGS_NEW_ARRAY(mmu_walk, cfg->max_walks);
    for (uint32_t i = 0; i < cfg->max_walks; i++)
        eng_event_init(&m->walks[i].ev, &m->base, 0, &m->walks[i]);
    m->walks_n = stats ? stat_counter_add(stats, name, "walks", "count")
                       : &m->own[0];
    m->walk_latency = stats ? stat_hist_add(stats, name, "walk_latency", "ps")
                            : &m->own_hist[0];
    m->queue_delay = stats ? stat_hist_add(stats, name, "queue_delay", "ps")
                           : &m->own_hist[1];
    m->faults = stats ? stat_counter_add(stats, name, "faults", "count")
                      : &m->own[1];
    return m;
}

void mmu_free(mmu *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->cfg.max_walks; i++)
        mem_msg_release(m->pool, m->walks[i].rsp);
    free(m->walks);
    port_fini(&m->fault);
    port_fini(&m->top);
    comp_fini(&m->base);
    free(m);
}

sim_port *mmu_top(mmu *m)
{
    return &m->top;
}

sim_port *mmu_fault_port(mmu *m) { return &m->fault; }

void mmu_set_fault_handler(mmu *m, sim_port *handler)
{
    m->handler = handler;
}
