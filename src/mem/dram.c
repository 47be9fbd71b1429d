/*
** DRAM channel controller (dram.h): bounded transaction queue, FR-FCFS per
** bank, shared data bus, real data through mem_backing, atomics at memory.
**
** Life of a transaction (one dram_txn, a fixed array of queue_entries):
**
**   FREE --dram_accept (port retrieve)--> QUEUED (bank FIFO, ready after
**        the edge of arrival + ctrl_latency)
**   QUEUED --dram_schedule_bank (FR-FCFS pick)--> ISSUED: commands and data
**        burst planned (dram_bank_plan), data moved to/from the backing
**        store, response built; one DONE event at data end + ctrl_latency
**   ISSUED --txn_done: port_send ok--> FREE
**   ISSUED --txn_done: port refused--> SENDING (FIFO) --notify_port_free--> FREE
**
** Scheduling happens only at events: a transaction becoming ready (its READY
** event) and a bank finishing its last column command (the bank's event at
** busy_until). FR-FCFS: among the bank's ready transactions pick the oldest
** row hit, else the oldest. Same-address order is preserved because equal
** addresses share a row and rows are served oldest first, and because data
** moves at the decision, in decision order.
**
** Back-pressure: when all queue_entries transactions are taken the
** controller stops retrieving from its top port; the port buffer and then
** the sender's connection lane fill, and the sender's port_send is refused.
** A freed transaction retrieves the next request at once.
**
** Events per transaction: DONE, a READY unless its bank's pending event
** already covers its ready time, and at most one bank event; nothing is
** scheduled while the controller is idle (refresh is computed from the
** time, see dram_bank.c).
**
** Bursts (a DMA engine's device-side burst of whole lines, memmsg.h
** `parts`; mask bit i = part i is read or written): one transaction in a
** FIFO of their own, not in a bank queue. A burst is decided once it is
** ready and every transaction that arrived before it has been issued (so
** a line's older write-back never lands after, or is missed by, the
** burst); each run of its parts in one row of one bank is then planned as
** one access, as consecutive row hits would go (no earlier than the
** bank's last column command), its bytes moved at once, and one answer
** goes at the last part's data end + ctrl_latency. Later transactions may
** pass a waiting burst (only a racing access could tell).
*/
#include "mem/dram.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcn3/emu_atomic.h"
#include "mem/dram_int.h"
#include "mgsim/errors.h"
#include "sim/port.h"
#include "util/xmalloc.h"

typedef enum dram_txn_state {
    TXN_FREE,
    TXN_QUEUED,
    TXN_ISSUED,
    TXN_SENDING
} dram_txn_state;

enum { EV_TXN_READY = 1, EV_TXN_DONE, EV_BANK_FREE };

typedef struct dram_txn {
    sim_event ready_ev;    /* schedulable: try its bank (may fire after
                              the transaction was already picked) */
    sim_event done_ev;     /* response due */
    mem_msg *req;          /* borrowed: the requester frees it */
    mem_msg *rsp;          /* owned until sent */
    mgs_time arrive;       /* ps: retrieved from the top port */
    mgs_time ready;        /* ps: schedulable (after ctrl_latency) */
    dram_loc loc;
    dram_access acc;
    uint32_t bursts;
    bool ctrl_op;          /* FLUSH/INVALIDATE: no data, answered after the
                              controller pipeline both ways */
    bool burst;            /* a burst (file note): in the burst FIFO */
    uint64_t seq;          /* arrival order */
    dram_txn_state state;
    struct dram_txn *next; /* free list, bank FIFO or send FIFO */
} dram_txn;

typedef struct dram_bankq {
    dram_bank bank;
    dram_txn *head, *tail; /* QUEUED transactions, arrival order */
    sim_event ev;          /* decision at bank.busy_until */
} dram_bankq;

struct dram {
    sim_comp base;         /* first */
    sim_port top;
    dram_config cfg;
    dram_timing t;
    mem_pool *pool;        /* borrowed */
    const mem_backing *backing; /* borrowed */
    dram_bankq *banks;     /* owned, cfg.banks */
    dram_txn *txns;        /* owned, cfg.queue_entries */
    dram_txn *free_txns;
    dram_txn *send_head, *send_tail; /* responses the port refused */
    dram_txn *burst_head, *burst_tail; /* QUEUED bursts, arrival order */
    uint64_t next_seq;
    uint32_t queued;       /* QUEUED transactions in bank queues */
    uint32_t occupancy;    /* transactions not FREE */
    mgs_time bus_free;     /* data bus free from */
    stat_counter *reads, *writes, *atomics, *row_hits, *row_misses,
        *row_conflicts, *bytes_read, *bytes_written, *refreshes;
    stat_hist *read_latency;
    stat_tavg *queue_occupancy;
    stat_counter own[9];   /* targets when there is no registry */
    stat_hist own_hist;
    stat_tavg own_tavg;
};

static mgs_time now_of(const dram *d)
{
    return eng_now(d->base.eng);
}

static void set_occupancy(dram *d, uint32_t occ)
{
    d->occupancy = occ;
    stat_tavg_set(d->queue_occupancy, now_of(d), occ);
}

/* ---- data ------------------------------------------------------------- */

static void data_read(dram *d, dram_txn *x)
{
    if (d->backing->read(d->backing->ud, x->loc.offset, x->rsp->data,
                         x->req->size))
        x->rsp->flags |= MEM_F_FAULT;
}

static void data_write(dram *d, dram_txn *x)
{
    const mem_msg *r = x->req;
    uint64_t mask = r->mask;
    if (mask == ~0ull) {
        if (d->backing->write(d->backing->ud, x->loc.offset, r->data, r->size))
            x->rsp->flags |= MEM_F_FAULT;
        return;
    }
    /* Byte-enable mask: write each run of enabled bytes. */
    uint32_t n = r->size < 64 ? r->size : 64;
    uint32_t i = 0;
    while (i < n) {
        if (!(mask >> i & 1)) {
            i++;
            continue;
        }
        uint32_t j = i;
        while (j < n && (mask >> j & 1))
            j++;
        if (d->backing->write(d->backing->ud, x->loc.offset + i, r->data + i,
                              j - i))
            x->rsp->flags |= MEM_F_FAULT;
        i = j;
    }
}

static void data_atomic(dram *d, dram_txn *x)
{
    const mem_msg *r = x->req;
    unsigned size = r->atomic_size == 8 ? 8 : 4;
    gcn_atomic_kind kind = gcn_atomic_kind_of(r->atomic_op);
    uint64_t old = 0;
    if (kind == GCN_ATOMIC_NONE ||
        d->backing->read(d->backing->ud, x->loc.offset, &old, size)) {
        x->rsp->flags |= MEM_F_FAULT;
        return;
    }
    uint64_t val = gcn_atomic_apply(kind, size, old, r->atomic_src,
                                    r->atomic_cmp);
    if (d->backing->write(d->backing->ud, x->loc.offset, &val, size))
        x->rsp->flags |= MEM_F_FAULT;
    memcpy(x->rsp->data, &old, size); /* little-endian host, as GCN */
}

/* ---- response path ---------------------------------------------------- */

static void txn_release(dram *d, dram_txn *x)
{
    comp_task_end(&d->base, x->req->base.id, "dram");
    x->state = TXN_FREE;
    x->req = x->rsp = NULL;
    x->next = d->free_txns;
    d->free_txns = x;
    set_occupancy(d, d->occupancy - 1);
}

static void dram_accept(dram *d);

/* Sends refused responses in order; true if the FIFO emptied. */
static bool drain_sends(dram *d)
{
    while (d->send_head) {
        dram_txn *x = d->send_head;
        if (port_send(&d->top, &x->rsp->base) != MGS_OK)
            return false;
        d->send_head = x->next;
        if (!d->send_head)
            d->send_tail = NULL;
        txn_release(d, x);
    }
    return true;
}

static void txn_done(dram *d, dram_txn *x)
{
    if (!x->ctrl_op && x->acc == DRAM_ACC_READ)
        stat_hist_sample(d->read_latency, now_of(d) - x->arrive);
    if (!d->send_head && port_send(&d->top, &x->rsp->base) == MGS_OK) {
        txn_release(d, x);
        dram_accept(d);
        return;
    }
    x->state = TXN_SENDING;
    x->next = NULL;
    if (d->send_tail)
        d->send_tail->next = x;
    else
        d->send_head = x;
    d->send_tail = x;
}

/* ---- scheduling ------------------------------------------------------- */

/* Plans an access of `bursts` bursts to row of bank b, no command before
** at, and commits it: the bank's state, the data bus, the row and
** refresh statistics. */
static void plan_access(dram *d, dram_bank *b, uint64_t row, dram_access acc,
                        uint32_t bursts, mgs_time at, dram_plan *p)
{
    dram_bank_plan(&d->t, d->cfg.open_page, b, row, acc, bursts, at,
                   d->bus_free, p);
    dram_bank_commit(&d->t, d->cfg.open_page, b, row, acc, p);
    d->bus_free = p->data_end;
    if (p->refreshes > d->refreshes->value)
        d->refreshes->value = p->refreshes;
    switch (p->result) {
    case DRAM_ROW_HIT: stat_inc(d->row_hits); break;
    case DRAM_ROW_MISS: stat_inc(d->row_misses); break;
    case DRAM_ROW_CONFLICT: stat_inc(d->row_conflicts); break;
    }
}

static void issue(dram *d, dram_bankq *q, dram_txn *x)
{
    dram_plan p;
    plan_access(d, &q->bank, x->loc.row, x->acc, x->bursts, now_of(d), &p);
    x->rsp = mem_msg_response(d->pool, x->req);
    switch (x->acc) {
    case DRAM_ACC_READ:
        data_read(d, x);
        stat_inc(d->reads);
        stat_addn(d->bytes_read, x->req->size);
        break;
    case DRAM_ACC_WRITE:
        data_write(d, x);
        stat_inc(d->writes);
        stat_addn(d->bytes_written, x->req->size);
        break;
    case DRAM_ACC_ATOMIC:
        data_atomic(d, x);
        stat_inc(d->atomics);
        stat_addn(d->bytes_read, x->req->atomic_size);
        stat_addn(d->bytes_written, x->req->atomic_size);
        break;
    }
    x->state = TXN_ISSUED;
    eng_schedule(d->base.eng, &x->done_ev, p.data_end + d->t.ctrl);
}

/* FR-FCFS: the oldest ready row hit, else the oldest ready transaction.
** Ready transactions are a prefix of the FIFO (ready times grow with
** arrival). Returns the pick and its predecessor in *prev. */
static dram_txn *pick(const dram *d, const dram_bankq *q, mgs_time now,
                      dram_txn **prev)
{
    dram_txn *p = NULL;
    for (dram_txn *x = q->head; x && x->ready <= now; p = x, x = x->next) {
        if (dram_bank_row_hit(&d->t, &q->bank, x->loc.row, now)) {
            *prev = p;
            return x;
        }
    }
    *prev = NULL;
    return q->head && q->head->ready <= now ? q->head : NULL;
}

static uint32_t bursts_of(const dram_config *c, uint64_t addr, uint32_t size)
{
    uint64_t first = addr / c->burst_bytes;
    uint64_t last = (addr + (size ? size : 1) - 1) / c->burst_bytes;
    return (uint32_t)(last - first + 1);
}

static void dram_try_bursts(dram *d);

static void dram_schedule_bank(dram *d, dram_bankq *q)
{
    mgs_time now = now_of(d);
    while (q->head) {
        if (q->bank.busy_until > now) {
            if (!q->ev.scheduled)
                eng_schedule(d->base.eng, &q->ev, q->bank.busy_until);
            return;
        }
        dram_txn *prev;
        dram_txn *x = pick(d, q, now, &prev);
        if (!x)
            return; /* its READY event will call again */
        if (prev)
            prev->next = x->next;
        else
            q->head = x->next;
        if (q->tail == x)
            q->tail = prev;
        x->next = NULL;
        d->queued--;
        issue(d, q, x);
        if (d->burst_head)
            dram_try_bursts(d);
    }
}

/* Decides burst x (file note): every part planned back to back. */
static void issue_burst(dram *d, dram_txn *x)
{
    const mem_msg *m = x->req;
    mgs_time now = now_of(d), end = now;
    uint32_t n = 0;
    x->rsp = mem_msg_response(d->pool, m);
    dram_access acc = x->acc;
    /* Runs of parts in one row of one bank: one access of their bursts
    ** (the column commands of consecutive parts back to back, as
    ** consecutive row hits would go) and one move of their bytes. */
    for (uint32_t i = 0; i < m->parts;) {
        if (!(m->mask >> i & 1)) {
            i++;
            continue;
        }
        uint64_t a = m->addr + (uint64_t)i * m->size;
        dram_loc loc;
        dram_map(&d->cfg, a, &loc);
        /* The run: the parts that follow in the mask and in the row. */
        uint64_t left = dram_row_left(&d->cfg, a);
        uint64_t ones = ~(m->mask >> i);  /* the set bits from i, counted */
        uint32_t run = ones ? (uint32_t)__builtin_ctzll(ones) : 64 - i;
        uint64_t in_row = (left + m->size - 1) / m->size;  /* left >= 1 */
        if (run > m->parts - i)
            run = m->parts - i;
        if (run > in_row)
            run = (uint32_t)in_row;
        dram_bank *b = &d->banks[loc.bank].bank;
        mgs_time at = b->busy_until > now ? b->busy_until : now;
        dram_plan p;
        plan_access(d, b, loc.row, acc, run * bursts_of(&d->cfg, a, m->size),
                    at, &p);
        end = p.data_end;
        stat_addn(d->row_hits, run - 1);
        uint8_t *bytes = m->bulk + (size_t)i * m->size;
        size_t len = (size_t)run * m->size;
        if (acc == DRAM_ACC_WRITE
                ? d->backing->write(d->backing->ud, loc.offset, bytes, len)
                : d->backing->read(d->backing->ud, loc.offset, bytes, len))
            x->rsp->flags |= MEM_F_FAULT;
        n += run;
        i += run;
    }
    if (acc == DRAM_ACC_WRITE) {
        stat_addn(d->writes, n);
        stat_addn(d->bytes_written, (uint64_t)n * m->size);
    } else {
        stat_addn(d->reads, n);
        stat_addn(d->bytes_read, (uint64_t)n * m->size);
        x->rsp->base.bytes += (n - 1) * m->size;
    }
    /* A bank whose queue waited behind the parts decides again when its
    ** last part's column command is over. */
    for (uint32_t i = 0; i < d->cfg.banks; i++) {
        dram_bankq *q = &d->banks[i];
        if (q->head && q->bank.busy_until > now && !q->ev.scheduled)
            eng_schedule(d->base.eng, &q->ev, q->bank.busy_until);
    }
    x->state = TXN_ISSUED;
    eng_schedule(d->base.eng, &x->done_ev, end + d->t.ctrl);
}

/* Decides the bursts at the head of the burst FIFO that are ready and
** have no older transaction still queued. */
static void dram_try_bursts(dram *d)
{
    mgs_time now = now_of(d);
    while (d->burst_head) {
        dram_txn *x = d->burst_head;
        if (x->ready > now) {
            if (!x->ready_ev.scheduled)
                eng_schedule(d->base.eng, &x->ready_ev, x->ready);
            return;
        }
        for (uint32_t i = 0; d->queued && i < d->cfg.queue_entries; i++) {
            const dram_txn *o = &d->txns[i];
            if (o->state == TXN_QUEUED && !o->burst && o->seq < x->seq)
                return; /* its issue calls again */
        }
        d->burst_head = x->next;
        if (!d->burst_head)
            d->burst_tail = NULL;
        x->next = NULL;
        issue_burst(d, x);
    }
}

/* ---- intake ----------------------------------------------------------- */

static void dram_accept(dram *d)
{
    mgs_time now = now_of(d);
    while (d->free_txns && port_peek(&d->top)) {
        mem_msg *m = (mem_msg *)port_retrieve(&d->top);
        dram_txn *x = d->free_txns;
        d->free_txns = x->next;
        x->next = NULL;
        x->req = m;
        x->rsp = NULL;
        x->arrive = now;
        x->ready = mgs_edge_at_or_after(now, d->t.period) + d->t.ctrl;
        set_occupancy(d, d->occupancy + 1);
        comp_task_start(&d->base, m->base.id, "dram");
        x->ctrl_op = false;
        x->burst = false;
        switch (m->base.type) {
        case MEM_READ: x->acc = DRAM_ACC_READ; break;
        case MEM_WRITE: x->acc = DRAM_ACC_WRITE; break;
        case MEM_ATOMIC: x->acc = DRAM_ACC_ATOMIC; break;
        default:
            /* Flush / invalidate: DRAM holds no cached copies. */
            x->ctrl_op = true;
            break;
        }
        if (x->ctrl_op) {
            x->rsp = mem_msg_response(d->pool, m);
            x->state = TXN_ISSUED;
            eng_schedule(d->base.eng, &x->done_ev, x->ready + d->t.ctrl);
            continue;
        }
        x->seq = d->next_seq++;
        x->burst = m->parts > 1;
        if (x->burst) {
            assert(x->acc != DRAM_ACC_ATOMIC && m->parts <= 64 &&
                   "a DRAM burst reads or writes at most 64 parts");
            x->state = TXN_QUEUED;
            if (d->burst_tail)
                d->burst_tail->next = x;
            else
                d->burst_head = x;
            d->burst_tail = x;
            dram_try_bursts(d);
            continue;
        }
        uint32_t size = x->acc == DRAM_ACC_ATOMIC ? m->atomic_size : m->size;
        dram_map(&d->cfg, m->addr, &x->loc);
        x->bursts = bursts_of(&d->cfg, m->addr, size);
        x->state = TXN_QUEUED;
        d->queued++;
        dram_bankq *q = &d->banks[x->loc.bank];
        if (q->tail)
            q->tail->next = x;
        else
            q->head = x;
        q->tail = x;
        /* A bank event due at or after our ready time looks at us anyway
        ** (it keeps rescheduling while the bank has queued work): save
        ** the READY event on a busy bank. */
        if (!(q->ev.scheduled && q->bank.busy_until >= x->ready))
            eng_schedule(d->base.eng, &x->ready_ev, x->ready);
    }
}

/* ---- component ops ---------------------------------------------------- */

static void dram_handle(sim_comp *c, sim_event *ev)
{
    dram *d = (dram *)c;
    switch (ev->kind) {
    case EV_TXN_READY: {
        dram_txn *x = ev->data;
        if (x->burst)
            dram_try_bursts(d);
        else
            dram_schedule_bank(d, &d->banks[x->loc.bank]);
        break;
    }
    case EV_TXN_DONE:
        txn_done(d, ev->data);
        break;
    case EV_BANK_FREE:
        dram_schedule_bank(d, ev->data);
        break;
    default:
        assert(!"unknown DRAM event");
    }
    eng_note_progress(c->eng);
}

static void dram_notify_recv(sim_comp *c, sim_port *p)
{
    (void)p;
    dram_accept((dram *)c);
}

static void dram_notify_port_free(sim_comp *c, sim_port *p)
{
    (void)p;
    dram *d = (dram *)c;
    if (drain_sends(d))
        dram_accept(d);
}

static bool dram_busy(const sim_comp *c)
{
    return ((const dram *)c)->occupancy > 0;
}

static void dram_visit_buffers(const sim_comp *c, sim_buf_visit_fn fn,
                               void *ud)
{
    const dram *d = (const dram *)c;
    char name[256];
    snprintf(name, sizeof name, "%s.queue", c->name);
    fn(name, d->occupancy, d->cfg.queue_entries, ud);
}

static void dram_dump(const sim_comp *c, FILE *f)
{
    const dram *d = (const dram *)c;
    fprintf(f, "  queue %u/%u bus_free=%llu\n", d->occupancy,
            d->cfg.queue_entries, (unsigned long long)d->bus_free);
    for (uint32_t i = 0; i < d->cfg.banks; i++) {
        const dram_bankq *q = &d->banks[i];
        if (q->bank.row_open || q->head)
            fprintf(f, "  bank %u row=%lld busy_until=%llu%s\n", i,
                    q->bank.row_open ? (long long)q->bank.open_row : -1LL,
                    (unsigned long long)q->bank.busy_until,
                    q->head ? " (queued)" : "");
    }
}

static const sim_comp_ops dram_ops = {
    .kind = "DRAM",
    .handle = dram_handle,
    .notify_recv = dram_notify_recv,
    .notify_port_free = dram_notify_port_free,
    .busy = dram_busy,
    .visit_buffers = dram_visit_buffers,
    .dump = dram_dump,
};

static void register_stats(dram *d, stat_registry *r, const char *name)
{
    stat_counter **slots[] = {&d->reads, &d->writes, &d->atomics,
                              &d->row_hits, &d->row_misses,
                              &d->row_conflicts, &d->bytes_read,
                              &d->bytes_written, &d->refreshes};
    static const char *const names[] = {
        "reads", "writes", "atomics", "row_hits", "row_misses",
        "row_conflicts", "bytes_read", "bytes_written", "refreshes"};
    static const char *const units[] = {
        "count", "count", "count", "count", "count",
        "count", "bytes", "bytes", "count"};
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        *slots[i] = r ? stat_counter_add(r, name, names[i], units[i])
                      : &d->own[i];
    d->read_latency = r ? stat_hist_add(r, name, "read_latency", "ps")
                        : &d->own_hist;
    d->queue_occupancy =
        r ? stat_tavg_add(r, name, "queue_occupancy", "count",
                          eng_now(d->base.eng))
          : &d->own_tavg;
}

dram *dram_new(sim_engine *eng, const char *name, const dram_config *cfg,
               mem_pool *pool, stat_registry *stats,
               const mem_backing *backing)
{
    assert(dram_config_validate(cfg) == MGS_OK);
    assert(pool && backing);
    dram *d = MGS_NEW(dram);
    d->cfg = *cfg;
    dram_timing_derive(&d->t, cfg);
    d->pool = pool;
    d->backing = backing;
    comp_init(&d->base, eng, &dram_ops, name, cfg->period);
    port_init(&d->top, &d->base, "top", cfg->top_buffer);
    d->banks = MGS_NEW_ARRAY(dram_bankq, cfg->banks);
    for (uint32_t i = 0; i < cfg->banks; i++)
        eng_event_init(&d->banks[i].ev, &d->base, EV_BANK_FREE,
                       &d->banks[i]);
    d->txns = MGS_NEW_ARRAY(dram_txn, cfg->queue_entries);
    for (uint32_t i = cfg->queue_entries; i-- > 0;) {
        dram_txn *x = &d->txns[i];
        eng_event_init(&x->ready_ev, &d->base, EV_TXN_READY, x);
        eng_event_init(&x->done_ev, &d->base, EV_TXN_DONE, x);
        x->next = d->free_txns;
        d->free_txns = x;
    }
    register_stats(d, stats, name);
    return d;
}

void dram_free(dram *d)
{
    if (!d)
        return;
    /* Responses still owned here (a run stopped early) go back to the pool;
    ** requests belong to their senders. */
    for (uint32_t i = 0; i < d->cfg.queue_entries; i++)
        if (d->txns[i].rsp)
            mem_msg_release(d->pool, d->txns[i].rsp);
    free(d->txns);
    free(d->banks);
    port_fini(&d->top);
    comp_fini(&d->base);
    free(d);
}

sim_port *dram_top(dram *d)
{
    return &d->top;
}
