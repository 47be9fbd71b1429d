/*
** The default page-fault handler behind a page walker (tlb.h,
** mmu_set_fault_handler): the place a translation fault is delivered to as
** a message. It resolves nothing: every MEM_XLATE fault it receives is
** counted ("faults") and answered at its next clock edge with MEM_F_FAULT
** set, so the requester reports the fault (with the address and GPU) and
** the run ends with a memory-fault error (exit 3).
**
** A page-migration or first-touch scheme replaces it with a handler that
** maps the page (src/runtime/devmem.h operations) and answers without
** MEM_F_FAULT, after whatever time its work takes; the walker then reads
** the table again.
**
** Answers refused by the port wait in a FIFO (as the walker's do) until
** notify_port_free wakes the handler.
*/
#include "mem/tlb.h"

#include <stdlib.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

struct fault_handler {
    sim_comp base;            /* first */
    sim_port port;
    mem_pool *pool;
    mem_msg **fifo;           /* refused answers, in order */
    uint32_t nfifo, fifo_cap;
    stat_counter *faults;
    stat_counter own;
};

/* Sends the waiting answers in order; true if all went. */
static bool fh_drain(fault_handler *h)
{
    uint32_t sent = 0;
    while (sent < h->nfifo && port_send(&h->port, &h->fifo[sent]->base) ==
                                  MGS_OK)
        sent++;
    for (uint32_t i = sent; i < h->nfifo; i++)
        h->fifo[i - sent] = h->fifo[i];
    h->nfifo -= sent;
    return h->nfifo == 0;
}

static bool fh_tick(sim_comp *c)
{
    fault_handler *h = (fault_handler *)c;
    bool progress = false;
    if (!fh_drain(h))
        return false;
    mem_msg *f;
    while ((f = (mem_msg *)port_retrieve(&h->port))) {
        stat_inc(h->faults);
        mem_msg *a = mem_msg_response(h->pool, f);
        a->flags |= MEM_F_FAULT;    /* not resolved */
        progress = true;
        if (port_send(&h->port, &a->base) == MGS_OK)
            continue;
        if (h->nfifo == h->fifo_cap) {
            h->fifo_cap = h->fifo_cap ? 2 * h->fifo_cap : 8;
            h->fifo = mgs_xrealloc(h->fifo, h->fifo_cap * sizeof *h->fifo);
        }
        h->fifo[h->nfifo++] = a;
        break;
    }
    return progress;
}

static bool fh_busy(const sim_comp *c)
{
    return ((const fault_handler *)c)->nfifo > 0;
}

static const sim_comp_ops fh_ops = {
    .kind = "FaultHandler",
    .tick = fh_tick,
    .busy = fh_busy,
};

fault_handler *fault_handler_new(sim_engine *eng, const char *name,
                                 mgs_time period, mem_pool *pool,
                                 stat_registry *stats)
{
    fault_handler *h = MGS_NEW(fault_handler);
    h->pool = pool;
    comp_init(&h->base, eng, &fh_ops, name, period);
    port_init(&h->port, &h->base, "port", 16);
    h->faults = stats ? stat_counter_add(stats, name, "faults", "count")
                      : &h->own;
    return h;
}

void fault_handler_free(fault_handler *h)
{
    if (!h)
        return;
    for (uint32_t i = 0; i < h->nfifo; i++)
        mem_msg_release(h->pool, h->fifo[i]);
    free(h->fifo);
    port_fini(&h->port);
    comp_fini(&h->base);
    free(h);
}

sim_port *fault_handler_port(fault_handler *h) { return &h->port; }
