/*
** RDMA engine (see rdma.h for the model and the flow-control argument).
**
** State, all bounded and allocated at construction:
**   parents[outgoing_entries]   requests taken from inside, each with the
**                               answer being assembled (rsp) and the parts
**                               not yet answered (parts_left, counting
**                               parts not yet issued)
**   out_txns[outgoing_entries]  parts in flight to a home; the forwarded
**                               request's origin points at its entry
**   in_txns[incoming_entries]   remote parts being served by the local L2;
**                               the local request's origin points at its
**                               entry; freed when the answer is accepted
**                               by the outside port
**   send FIFOs, each sized for everything that can be waiting on it:
**   inside (answers, one FIFO over all inside lanes) <= outgoing_entries,
**   outside <= outgoing + incoming, one per local lane <= incoming.
**   Pushing never fails.
**
** Invariants (rdma_check):
**   - free + used == capacity for each table; credits[h] + parts in flight
**     to h == credits_per_home;
**   - a parent is on the inside FIFO iff its parts_left == 0;
**   - at most one parent is being split (split_parent), and it is the
**     only parent with unissued parts.
** Per cycle: drain the send FIFOs, take up to requests_per_cycle messages
** from outside (responses and remote requests), from the local lanes (L2
** answers, round robin) and from inside (new parts), drain again. The
** answers FIFO sends its head on the next inside lane that has room
** (round robin); a remote part goes on local lane (addr / line) %
** xbar_ports. The engine sleeps when a cycle did nothing; arrivals and
** freed lanes wake it.
*/
#include "mem/rdma.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#define RDMA_LOCAL_HEADER_BYTES 8u /* memory protocol inside a GPU (cache.c) */
#define RDMA_NONE UINT32_MAX

typedef struct rdma_parent {
    mem_msg *req;          /* from inside; owned by its requester */
    mem_msg *rsp;          /* our answer (ownership passes on delivery) */
    uint32_t parts_left;   /* parts not yet answered, issued or not */
    bool in_use;
    mgs_time taken;        /* ps: when the request was taken */
} rdma_parent;

typedef struct rdma_out_txn {
    mem_msg *fwd;          /* the part sent to the home (ours) */
    uint32_t parent;       /* index into parents */
    uint32_t offset;       /* bytes into the parent's access */
    uint32_t home;
    bool in_use;
} rdma_out_txn;

typedef struct rdma_in_txn {
    mem_msg *remote;       /* the remote engine's request (theirs) */
    mem_msg *local;        /* our request to the L2 (ours), or NULL */
    bool in_use;
} rdma_in_txn;

/* A message waiting for its port, with what to release on acceptance. */
typedef struct rdma_qent {
    mem_msg *m;
    uint32_t slot;         /* inside: parent; outside: in_txn of an answer
                              (RDMA_NONE for a forwarded part) */
} rdma_qent;

typedef struct rdma_fifo {
    rdma_qent *e;
    uint32_t cap, head, count;
    bool blocked;          /* the port refused; wait for notify_port_free */
} rdma_fifo;

enum { ST_OUT_READS, ST_OUT_WRITES, ST_OUT_ATOMICS, ST_IN_READS,
       ST_IN_WRITES, ST_IN_ATOMICS, ST_BYTES_OUT, ST_BYTES_IN,
       ST_STALL_OUT_FULL, ST_STALL_CREDITS, ST_STALL_IN_FULL,
       ST_STALL_SEND_INSIDE, ST_STALL_SEND_OUTSIDE, ST_STALL_SEND_LOCAL,
       ST_FAULTS, ST_CTRL, ST_COUNT };

static const char *const stat_names[ST_COUNT] = {
    "out_reads", "out_writes", "out_atomics", "in_reads", "in_writes",
    "in_atomics", "bytes_out", "bytes_in", "stall_outgoing_full",
    "stall_credits", "stall_incoming_full", "stall_send_inside",
    "stall_send_outside", "stall_send_local", "faults", "ctrl"};

/* Host-frame counters, registered by rdma_set_host (so a platform without
** host frames keeps its statistics unchanged). */
enum { HST_PARTS, HST_BYTES_OUT, HST_BYTES_IN, RDMA_HOST_ST_COUNT };
static const char *const host_stat_names[RDMA_HOST_ST_COUNT] = {
    "host_parts", "host_bytes_out", "host_bytes_in"};
static const char *const host_stat_units[RDMA_HOST_ST_COUNT] = {
    "count", "bytes", "bytes"};

struct rdma_engine {
    sim_comp base;             /* first */
    sim_port inside[RDMA_MAX_XBAR_PORTS]; /* [0] takes requests */
    sim_port outside;
    sim_port local[RDMA_MAX_XBAR_PORTS];
    sim_port host;             /* parts homed in host frames (rdma_set_host) */
    sim_port *host_mem;        /* their home: host memory, or NULL */
    rdma_config cfg;           /* incoming_entries, credits resolved */
    uint32_t credits_per_home;
    mem_pool *pool;            /* borrowed */
    sim_port **peers;          /* owned array [ngpus] of borrowed ports */
    mem_route local_route;
    bool have_local_route;
    rdma_home_fn home_fn;      /* NULL: addr / bytes_per_gpu */
    void *home_ud;

    rdma_parent *parents;      /* [outgoing_entries] */
    uint32_t *free_parents, nfree_parents;
    rdma_out_txn *out_txns;    /* [outgoing_entries] */
    uint32_t *free_out, nfree_out;
    rdma_in_txn *in_txns;      /* [incoming_entries] */
    uint32_t *free_in, nfree_in;
    uint32_t *credits;         /* [ngpus] */

    uint32_t split_parent;     /* parent with unissued parts, or NONE */
    uint32_t split_off;        /* next part's offset in its access */

    rdma_fifo q_inside, q_outside, q_host;
    rdma_fifo q_local[RDMA_MAX_XBAR_PORTS];
    bool inside_blocked[RDMA_MAX_XBAR_PORTS]; /* lane refused; q_inside's
                                                 own flag is unused */
    uint32_t inside_rr, local_rr;  /* next lane to try (round robin) */

    stat_counter *st[ST_COUNT];
    stat_counter own[ST_COUNT];
    stat_counter *host_st[RDMA_HOST_ST_COUNT]; /* with host frames only */
    stat_counter host_own[RDMA_HOST_ST_COUNT];
    stat_hist *latency;
    stat_hist own_latency;
};

/* ---- configuration ---------------------------------------------------- */

void rdma_config_default(rdma_config *c)
{
    memset(c, 0, sizeof *c);
    c->gpu = 0;
    c->ngpus = 2;
    c->bytes_per_gpu = 4ull << 30;  /* MGPUSim 2020: 4 GB per GPU (digest §3.5) */
    c->line = 64;                   /* seed 002 §3.6: one 64 B line per packet */
    c->outgoing_entries = 1024;     /* assumed: = the R9 Nano's L1V MSHRs,
                                       64 CUs x 16 (docs/rdma.md) */
    c->incoming_entries = 0;        /* auto: credits * (ngpus - 1) */
    c->credits_per_home = 0;        /* auto: outgoing_entries */
    c->header_bytes = 8;            /* memory protocol header; link framing
                                       belongs to src/noc */
    c->inside_buffer = 16;          /* assumed */
    c->outside_buffer = 16;         /* assumed */
    c->local_buffer = 16;           /* assumed */
    c->requests_per_cycle = 4;      /* assumed: docs/rdma.md "Sizing" */
    c->xbar_ports = 4;              /* assumed: docs/rdma.md "Sizing" */
    c->period = 1000;               /* 1 GHz GPU clock (seed 002 Table 5.1) */
}

uint32_t rdma_config_credits(const rdma_config *c)
{
    if (c->credits_per_home)
        return c->credits_per_home;
    uint32_t n = c->outgoing_entries;
    if (c->incoming_entries && c->ngpus > 1 &&
        c->incoming_entries / (c->ngpus - 1) < n)
        n = c->incoming_entries / (c->ngpus - 1);
    return n;
}

uint32_t rdma_config_incoming(const rdma_config *c)
{
    if (c->incoming_entries)
        return c->incoming_entries;
    uint64_t n = (uint64_t)rdma_config_credits(c) *
                 (c->ngpus > 1 ? c->ngpus - 1 : 1);
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

int rdma_config_validate(const rdma_config *c)
{
    /* One GPU: no peers, only host frames behind the host link. */
    if (c->ngpus < 1)
        return mgs_error_set(MGS_EINVAL, "rdma ngpus must be >= 1 (got %u)",
                             c->ngpus);
    if (c->gpu >= c->ngpus)
        return mgs_error_set(MGS_EINVAL, "rdma gpu %u out of range (ngpus "
                             "%u)", c->gpu, c->ngpus);
    if (c->line < 4 || c->line > MEM_LINE_MAX || (c->line & (c->line - 1)))
        return mgs_error_set(MGS_EINVAL, "rdma line must be a power of 2 "
                             "in [4, %u] (got %u)", MEM_LINE_MAX, c->line);
    if (c->bytes_per_gpu == 0 || c->bytes_per_gpu % c->line)
        return mgs_error_set(MGS_EINVAL, "rdma bytes_per_gpu must be a "
                             "non-zero multiple of line");
    if (c->outgoing_entries < 1)
        return mgs_error_set(MGS_EINVAL, "rdma.outgoing_entries must be "
                             ">= 1");
    uint32_t credits = rdma_config_credits(c);
    if (credits < 1)
        return mgs_error_set(MGS_EINVAL, "rdma.incoming_entries (%u) must "
                             "be >= platform.gpus - 1 (%u): every peer "
                             "needs a credit", c->incoming_entries,
                             c->ngpus - 1);
    uint64_t need = (uint64_t)credits * (c->ngpus - 1);
    if (need > UINT32_MAX / 2)
        return mgs_error_set(MGS_EINVAL, "rdma.credits_per_home (%u) x "
                             "peers (%u) is too large", credits,
                             c->ngpus - 1);
    if (need > rdma_config_incoming(c))
        return mgs_error_set(MGS_EINVAL, "rdma.credits_per_home (%u) x "
                             "peers (%u) exceeds rdma.incoming_entries "
                             "(%u): requests could block responses "
                             "(deadlock)", credits, c->ngpus - 1,
                             c->incoming_entries);
    if (c->requests_per_cycle < 1)
        return mgs_error_set(MGS_EINVAL, "rdma.requests_per_cycle must be "
                             ">= 1");
    if (c->xbar_ports < 1 || c->xbar_ports > RDMA_MAX_XBAR_PORTS)
        return mgs_error_set(MGS_EINVAL, "rdma.xbar_ports (%u) must be in "
                             "[1, %u]", c->xbar_ports, RDMA_MAX_XBAR_PORTS);
    if (c->inside_buffer < 1 || c->outside_buffer < 1 ||
        c->local_buffer < 1 || c->period < 1)
        return mgs_error_set(MGS_EINVAL, "rdma buffers and period must be "
                             ">= 1");
    return MGS_OK;
}

/* ---- small helpers ---------------------------------------------------- */

static void fifo_init(rdma_fifo *f, uint32_t cap)
{
    f->e = MGS_NEW_ARRAY(rdma_qent, cap);
    f->cap = cap;
    f->head = f->count = 0;
    f->blocked = false;
}

static void fifo_push(rdma_fifo *f, mem_msg *m, uint32_t slot)
{
    assert(f->count < f->cap && "rdma send FIFO sized too small");
    f->e[(f->head + f->count) % f->cap] = (rdma_qent){m, slot};
    f->count++;
}

static uint32_t idx_pop(uint32_t *stack, uint32_t *n)
{
    assert(*n > 0);
    return stack[--*n];
}

static void idx_push(uint32_t *stack, uint32_t *n, uint32_t i)
{
    stack[(*n)++] = i;
}

uint32_t rdma_home_of(const rdma_engine *r, uint64_t paddr)
{
    if (r->home_fn)
        return r->home_fn(r->home_ud, paddr);
    uint64_t h = paddr / r->cfg.bytes_per_gpu;
    return h <= r->cfg.ngpus ? (uint32_t)h : RDMA_NONE; /* ngpus: host */
}

static bool is_response(uint32_t type)
{
    return type == MEM_READ_RSP || type == MEM_WRITE_RSP ||
           type == MEM_ATOMIC_RSP || type == MEM_CTRL_RSP ||
           type == MEM_XLATE_RSP;
}

static bool is_data_request(uint32_t type)
{
    return type == MEM_READ || type == MEM_WRITE || type == MEM_ATOMIC;
}

/* Payload bytes a request (or, rsp = true, its answer) carries. */
static uint32_t payload_bytes(uint32_t req_type, uint32_t size,
                              uint32_t atomic_size, bool rsp)
{
    switch (req_type) {
    case MEM_READ: return rsp ? size : 0;
    case MEM_WRITE: return rsp ? 0 : size;
    case MEM_ATOMIC: return rsp ? atomic_size : 2u * atomic_size;
    default: return 0;
    }
}

/* ---- send FIFOs --------------------------------------------------------- */

static void release_parent(rdma_engine *r, uint32_t pi)
{
    rdma_parent *p = &r->parents[pi];
    p->in_use = false;
    p->req = p->rsp = NULL;
    idx_push(r->free_parents, &r->nfree_parents, pi);
}

static void release_in_txn(rdma_engine *r, uint32_t ti)
{
    rdma_in_txn *t = &r->in_txns[ti];
    t->in_use = false;
    t->remote = t->local = NULL;
    idx_push(r->free_in, &r->nfree_in, ti);
}

static void fifo_pop(rdma_fifo *f)
{
    f->head = (f->head + 1) % f->cap;
    f->count--;
}

/* Sends the head of f on port until the port refuses; accepted entries run
** their release action. Returns whether anything was sent. */
static bool drain(rdma_engine *r, rdma_fifo *f, sim_port *port,
                  stat_counter *stall)
{
    bool progress = false;
    while (f->count && !f->blocked) {
        rdma_qent *q = &f->e[f->head];
        uint32_t bytes = q->m->base.bytes;
        if (port_send(port, &q->m->base) != MGS_OK) {
            f->blocked = true;
            stat_inc(stall);
            break;
        }
        if (f == &r->q_host)
            stat_addn(r->host_st[HST_BYTES_OUT], bytes);
        if (f == &r->q_outside) {
            stat_addn(r->st[ST_BYTES_OUT], bytes);
            if (q->slot != RDMA_NONE)
                release_in_txn(r, q->slot);
        }
        fifo_pop(f);
        progress = true;
    }
    return progress;
}

/* Sends answers, in order, each on the next inside lane with room. */
static bool drain_answers(rdma_engine *r)
{
    rdma_fifo *f = &r->q_inside;
    uint32_t k = r->inside_rr, tried = 0, n = r->cfg.xbar_ports;
    bool progress = false;
    mgs_time now = eng_now(r->base.eng);
    while (f->count && tried < n) {
        if (r->inside_blocked[k]) {
            k = (k + 1) % n;
            tried++;
            continue;
        }
        rdma_qent *q = &f->e[f->head];
        if (port_send(&r->inside[k], &q->m->base) != MGS_OK) {
            r->inside_blocked[k] = true;
            stat_inc(r->st[ST_STALL_SEND_INSIDE]);
            continue;
        }
        stat_hist_sample(r->latency, now - r->parents[q->slot].taken);
        release_parent(r, q->slot);
        fifo_pop(f);
        k = (k + 1) % n;
        tried = 0;
        progress = true;
    }
    r->inside_rr = k;
    return progress;
}

/* Whether drain(f) has anything to try; tested here so that the common
** empty FIFO costs no call (drain saves and restores registers). */
static inline bool can_drain(const rdma_fifo *f)
{
    return f->count && !f->blocked;
}

static bool drain_all(rdma_engine *r)
{
    bool p = false;
    if (can_drain(&r->q_outside))
        p |= drain(r, &r->q_outside, &r->outside,
                   r->st[ST_STALL_SEND_OUTSIDE]);
    if (can_drain(&r->q_host))
        p |= drain(r, &r->q_host, &r->host, r->st[ST_STALL_SEND_OUTSIDE]);
    for (uint32_t k = 0; k < r->cfg.xbar_ports; k++)
        if (can_drain(&r->q_local[k]))
            p |= drain(r, &r->q_local[k], &r->local[k],
                       r->st[ST_STALL_SEND_LOCAL]);
    if (r->q_inside.count)
        p |= drain_answers(r);
    return p;
}

/* ---- requester side: inside -> outside -> inside ---------------------- */

static void parent_part_done(rdma_engine *r, uint32_t pi)
{
    rdma_parent *p = &r->parents[pi];
    assert(p->parts_left > 0);
    if (--p->parts_left == 0)
        fifo_push(&r->q_inside, p->rsp, pi);
}

/* A request taken from inside that is answered without going out. */
static void answer_now(rdma_engine *r, uint32_t pi, bool fault)
{
    rdma_parent *p = &r->parents[pi];
    if (fault) {
        p->rsp->flags |= MEM_F_FAULT;
        stat_inc(r->st[ST_FAULTS]);
    }
    p->parts_left = 1;
    parent_part_done(r, pi);
}

static uint32_t parts_of(const rdma_engine *r, const mem_msg *req)
{
    uint64_t line = r->cfg.line;
    uint64_t first = req->addr / line, last = (req->addr + req->size - 1) / line;
    return (uint32_t)(last - first + 1);
}

/* Takes one request from inside into a parent (caller checked a parent is
** free and a message is waiting). */
static void take_inside_request(rdma_engine *r)
{
    mem_msg *req = (mem_msg *)port_retrieve(&r->inside[0]);
    uint32_t pi = idx_pop(r->free_parents, &r->nfree_parents);
    rdma_parent *p = &r->parents[pi];
    p->in_use = true;
    p->req = req;
    p->rsp = mem_msg_response(r->pool, req);
    p->taken = eng_now(r->base.eng);
    uint32_t type = req->base.type;
    if (type == MEM_FLUSH || type == MEM_INVALIDATE) {
        stat_inc(r->st[ST_CTRL]); /* nothing cached here */
        answer_now(r, pi, false);
        return;
    }
    bool bad = !is_data_request(type) || req->size == 0 ||
               req->size > MEM_LINE_MAX ||
               req->addr + req->size < req->addr;
    if (!bad && type == MEM_ATOMIC)
        bad = (req->atomic_size != 4 && req->atomic_size != 8) ||
              parts_of(r, req) != 1;
    if (bad) {
        answer_now(r, pi, true);
        return;
    }
    p->parts_left = parts_of(r, req);
    r->split_parent = pi;
    r->split_off = 0;
}

/* Issues the next part of the request being split, if a transaction slot
** and a credit for its home are available. Returns whether it did. */
static bool issue_part(rdma_engine *r)
{
    uint32_t pi = r->split_parent;
    rdma_parent *p = &r->parents[pi];
    const mem_msg *req = p->req;
    uint64_t start = req->addr + r->split_off;
    uint64_t line_end = (start / r->cfg.line + 1) * r->cfg.line;
    uint64_t end = req->addr + req->size;
    uint32_t len = (uint32_t)((end < line_end ? end : line_end) - start);
    uint32_t home = rdma_home_of(r, start);

    /* Home ngpus: a host frame, reached over the host link (rdma_set_host)
    ** with its own credits, like one more home. */
    bool host = home == r->cfg.ngpus && r->host_mem;
    bool remote = host || (home < r->cfg.ngpus && home != r->cfg.gpu &&
                           r->peers && r->peers[home]);
    if (!remote) {
        /* Not remote: a routing bug above us; answer with a fault. */
        p->rsp->flags |= MEM_F_FAULT;
        stat_inc(r->st[ST_FAULTS]);
    } else {
        if (r->nfree_out == 0) {
            stat_inc(r->st[ST_STALL_OUT_FULL]);
            return false;
        }
        if (r->credits[home] == 0) {
            stat_inc(r->st[ST_STALL_CREDITS]);
            return false;
        }
        r->credits[home]--;
        uint32_t ti = idx_pop(r->free_out, &r->nfree_out);
        rdma_out_txn *t = &r->out_txns[ti];
        mem_msg *f = mem_msg_alloc(r->pool, (mem_msg_type)req->base.type);
        f->addr = start;
        f->size = len;
        f->flags = req->flags | MEM_F_PHYS;
        f->pid = req->pid;
        f->gpu = (int32_t)r->cfg.gpu;   /* requester identity */
        f->origin = t;
        f->issue_time = eng_now(r->base.eng);
        f->base.dst = host ? r->host_mem : r->peers[home];
        if (req->base.type == MEM_WRITE) {
            memcpy(f->data, req->data + r->split_off, len);
            /* The mask covers accesses of <= 64 bytes (memmsg.h); a
            ** longer write is whole. Each part takes its slice. */
            if (req->mask == ~0ull || req->size > 64) {
                f->mask = ~0ull;
            } else {
                uint64_t m = req->mask >> r->split_off; /* split_off < 64 */
                f->mask = len < 64 ? m & ((1ull << len) - 1) : m;
            }
            stat_inc(r->st[ST_OUT_WRITES]);
        } else if (req->base.type == MEM_ATOMIC) {
            f->atomic_op = req->atomic_op;
            f->atomic_size = req->atomic_size;
            f->atomic_src = req->atomic_src;
            f->atomic_cmp = req->atomic_cmp;
            stat_inc(r->st[ST_OUT_ATOMICS]);
        } else {
            stat_inc(r->st[ST_OUT_READS]);
        }
        f->base.bytes = r->cfg.header_bytes +
                        payload_bytes(req->base.type, len, req->atomic_size,
                                      false);
        t->in_use = true;
        t->fwd = f;
        t->parent = pi;
        t->offset = r->split_off;
        t->home = home;
        if (host)
            stat_inc(r->host_st[HST_PARTS]);
        fifo_push(host ? &r->q_host : &r->q_outside, f, RDMA_NONE);
    }
    r->split_off += len;
    if (r->split_off == req->size)
        r->split_parent = RDMA_NONE;
    if (!remote)
        parent_part_done(r, pi); /* after the split moved on */
    return true;
}

static bool take_inside(rdma_engine *r)
{
    bool progress = false;
    for (uint32_t n = 0; n < r->cfg.requests_per_cycle; n++) {
        if (r->split_parent == RDMA_NONE) {
            if (!port_peek(&r->inside[0]))
                break;
            if (r->nfree_parents == 0) {
                stat_inc(r->st[ST_STALL_OUT_FULL]);
                break;
            }
            take_inside_request(r);
            progress = true;
            if (r->split_parent == RDMA_NONE)
                continue; /* answered at once */
        }
        if (!issue_part(r))
            break;
        progress = true;
    }
    return progress;
}

/* A response from a home for one of our parts. */
static void outside_response(rdma_engine *r, mem_msg *rsp)
{
    rdma_out_txn *t = rsp->origin;
    assert(t >= r->out_txns && t < r->out_txns + r->cfg.outgoing_entries &&
           t->in_use && rsp->req == t->fwd && "RDMA response for no part");
    rdma_parent *p = &r->parents[t->parent];
    mem_msg *f = t->fwd;
    if (rsp->base.type == MEM_READ_RSP)
        memcpy(p->rsp->data + t->offset, rsp->data, f->size);
    else if (rsp->base.type == MEM_ATOMIC_RSP)
        memcpy(p->rsp->data, rsp->data, f->atomic_size);
    p->rsp->flags |= rsp->flags & MEM_F_FAULT;
    r->credits[t->home]++;
    uint32_t pi = t->parent;
    t->in_use = false;
    t->fwd = NULL;
    idx_push(r->free_out, &r->nfree_out, (uint32_t)(t - r->out_txns));
    mem_msg_release(r->pool, f);
    mem_msg_release(r->pool, rsp);
    parent_part_done(r, pi);
}

/* ---- home side: outside -> local -> outside ---------------------------- */

static sim_port *reply_port(const rdma_engine *r, const mem_msg *req)
{
    if (r->peers && req->gpu >= 0 && (uint32_t)req->gpu < r->cfg.ngpus &&
        r->peers[req->gpu])
        return r->peers[req->gpu];
    return req->base.src;
}

/* A request from a remote engine; the caller checked an entry is free. */
static void outside_request(rdma_engine *r, mem_msg *req)
{
    uint32_t ti = idx_pop(r->free_in, &r->nfree_in);
    rdma_in_txn *t = &r->in_txns[ti];
    t->in_use = true;
    t->remote = req;
    t->local = NULL;
    uint32_t type = req->base.type;
    bool ok = is_data_request(type) && r->have_local_route &&
              rdma_home_of(r, req->addr) == r->cfg.gpu && req->size &&
              req->size <= MEM_LINE_MAX;
    if (!ok) {
        mem_msg *rsp = mem_msg_response(r->pool, req);
        rsp->base.dst = reply_port(r, req);
        if (type != MEM_FLUSH && type != MEM_INVALIDATE) {
            rsp->flags |= MEM_F_FAULT;
            stat_inc(r->st[ST_FAULTS]);
        }
        rsp->base.bytes = r->cfg.header_bytes;
        fifo_push(&r->q_outside, rsp, ti);
        return;
    }
    mem_msg *d = mem_msg_alloc(r->pool, (mem_msg_type)type);
    d->addr = req->addr;
    d->size = req->size;
    d->flags = req->flags | MEM_F_PHYS;
    d->pid = req->pid;
    d->gpu = req->gpu;
    d->mask = req->mask;
    d->origin = t;
    d->issue_time = eng_now(r->base.eng);
    d->atomic_op = req->atomic_op;
    d->atomic_size = req->atomic_size;
    d->atomic_src = req->atomic_src;
    d->atomic_cmp = req->atomic_cmp;
    if (type == MEM_WRITE)
        memcpy(d->data, req->data, req->size);
    d->base.bytes = RDMA_LOCAL_HEADER_BYTES +
                    payload_bytes(type, req->size, req->atomic_size, false);
    d->base.dst = mem_route_lookup(&r->local_route, req->addr);
    t->local = d;
    stat_inc(r->st[type == MEM_READ    ? ST_IN_READS
                   : type == MEM_WRITE ? ST_IN_WRITES
                                       : ST_IN_ATOMICS]);
    fifo_push(&r->q_local[(req->addr / r->cfg.line) % r->cfg.xbar_ports], d,
              RDMA_NONE);
}

static bool take_outside(rdma_engine *r)
{
    bool progress = false;
    for (uint32_t n = 0; n < r->cfg.requests_per_cycle; n++) {
        mem_msg *m = (mem_msg *)port_peek(&r->outside);
        if (!m)
            break;
        if (!is_response(m->base.type) && r->nfree_in == 0) {
            /* Only possible when peers exceed their credits (mixed
            ** configurations); responses behind this request wait. */
            stat_inc(r->st[ST_STALL_IN_FULL]);
            break;
        }
        port_retrieve(&r->outside);
        stat_addn(r->st[ST_BYTES_IN], m->base.bytes);
        if (is_response(m->base.type))
            outside_response(r, m);
        else
            outside_request(r, m);
        progress = true;
    }
    return progress;
}

/* Host memory's answers to parts homed in host frames. */
static bool take_host(rdma_engine *r)
{
    bool progress = false;
    for (uint32_t n = 0; n < r->cfg.requests_per_cycle; n++) {
        mem_msg *m = (mem_msg *)port_retrieve(&r->host);
        if (!m)
            break;
        stat_addn(r->host_st[HST_BYTES_IN], m->base.bytes);
        outside_response(r, m);
        progress = true;
    }
    return progress;
}

/* The next L2 answer waiting on a local lane (round robin), or NULL. */
static mem_msg *retrieve_local(rdma_engine *r)
{
    uint32_t n = r->cfg.xbar_ports;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = r->local_rr + i;
        k = k >= n ? k - n : k;
        if (!port_occupancy(&r->local[k]))
            continue;
        mem_msg *m = (mem_msg *)port_retrieve(&r->local[k]);
        if (m) {
            r->local_rr = (k + 1) % n;
            return m;
        }
    }
    return NULL;
}

/* The local L2 answered a remote part: answer the remote engine. */
static bool take_local(rdma_engine *r)
{
    bool progress = false;
    for (uint32_t n = 0; n < r->cfg.requests_per_cycle; n++) {
        mem_msg *lr = retrieve_local(r);
        if (!lr)
            break;
        rdma_in_txn *t = lr->origin;
        assert(t >= r->in_txns && t < r->in_txns + r->cfg.incoming_entries &&
               t->in_use && lr->req == t->local && "stray local response");
        mem_msg *req = t->remote;
        mem_msg *rsp = mem_msg_response(r->pool, req);
        rsp->base.dst = reply_port(r, req);
        if (lr->base.type == MEM_READ_RSP)
            memcpy(rsp->data, lr->data, req->size);
        else if (lr->base.type == MEM_ATOMIC_RSP)
            memcpy(rsp->data, lr->data, req->atomic_size);
        rsp->flags |= lr->flags & MEM_F_FAULT;
        rsp->base.bytes = r->cfg.header_bytes +
                          payload_bytes(req->base.type, req->size,
                                        req->atomic_size, true);
        mem_msg_release(r->pool, t->local);
        mem_msg_release(r->pool, lr);
        t->local = NULL;
        fifo_push(&r->q_outside, rsp, (uint32_t)(t - r->in_txns));
        progress = true;
    }
    return progress;
}

/* ---- component ---------------------------------------------------------- */

static bool rdma_tick(sim_comp *c)
{
    rdma_engine *r = (rdma_engine *)c;
    bool progress = drain_all(r);
    progress |= take_outside(r);
    if (r->host_mem)
        progress |= take_host(r);
    progress |= take_local(r);
    progress |= take_inside(r);
    progress |= drain_all(r);
    return progress;
}

static void rdma_port_free(sim_comp *c, sim_port *p)
{
    rdma_engine *r = (rdma_engine *)c;
    if (p == &r->outside)
        r->q_outside.blocked = false;
    if (p == &r->host)
        r->q_host.blocked = false;
    for (uint32_t k = 0; k < r->cfg.xbar_ports; k++) {
        if (p == &r->inside[k])
            r->inside_blocked[k] = false;
        else if (p == &r->local[k])
            r->q_local[k].blocked = false;
    }
    comp_wake(c);
}

static bool rdma_busy(const sim_comp *c)
{
    const rdma_engine *r = (const rdma_engine *)c;
    if (r->nfree_parents < r->cfg.outgoing_entries ||
        r->nfree_in < r->cfg.incoming_entries ||
        port_occupancy(&r->inside[0]) || port_occupancy(&r->outside) ||
        port_occupancy(&r->host))
        return true;
    for (uint32_t k = 0; k < r->cfg.xbar_ports; k++)
        if (port_occupancy(&r->local[k]))
            return true;
    return false;
}

static void rdma_visit(const sim_comp *c, sim_buf_visit_fn fn, void *ud)
{
    const rdma_engine *r = (const rdma_engine *)c;
    char name[256];
    snprintf(name, sizeof name, "%s.outgoing", c->name);
    fn(name, r->cfg.outgoing_entries - r->nfree_out, r->cfg.outgoing_entries,
       ud);
    snprintf(name, sizeof name, "%s.incoming", c->name);
    fn(name, r->cfg.incoming_entries - r->nfree_in, r->cfg.incoming_entries,
       ud);
}

static void rdma_dump(const sim_comp *c, FILE *f)
{
    const rdma_engine *r = (const rdma_engine *)c;
    uint32_t local = 0;
    for (uint32_t k = 0; k < r->cfg.xbar_ports; k++)
        local += r->q_local[k].count;
    fprintf(f, "  parents %u/%u out %u/%u in %u/%u fifo in/out/local "
            "%u/%u/%u split %d\n",
            r->cfg.outgoing_entries - r->nfree_parents,
            r->cfg.outgoing_entries, r->cfg.outgoing_entries - r->nfree_out,
            r->cfg.outgoing_entries, r->cfg.incoming_entries - r->nfree_in,
            r->cfg.incoming_entries, r->q_inside.count, r->q_outside.count,
            local,
            r->split_parent == RDMA_NONE ? -1 : (int)r->split_parent);
}

static const sim_comp_ops rdma_ops = {
    .kind = "RDMA",
    .tick = rdma_tick,
    .notify_port_free = rdma_port_free,
    .busy = rdma_busy,
    .visit_buffers = rdma_visit,
    .dump = rdma_dump,
};

rdma_engine *rdma_new(sim_engine *eng, const char *name,
                      const rdma_config *cfg, mem_pool *pool,
                      stat_registry *stats)
{
    int rc = rdma_config_validate(cfg);
    assert(rc == MGS_OK);
    (void)rc;
    rdma_engine *r = MGS_NEW(rdma_engine);
    r->cfg = *cfg;
    r->cfg.credits_per_home = r->credits_per_home = rdma_config_credits(cfg);
    r->cfg.incoming_entries = rdma_config_incoming(cfg);
    cfg = &r->cfg;
    r->pool = pool;
    comp_init(&r->base, eng, &rdma_ops, name, cfg->period);
    for (uint32_t k = 0; k < cfg->xbar_ports; k++) {
        char in[24] = "inside", lo[24] = "local";
        if (k) {
            snprintf(in, sizeof in, "inside%u", k);
            snprintf(lo, sizeof lo, "local%u", k);
        }
        /* Only lane 0 receives requests; the others only send answers. */
        port_init(&r->inside[k], &r->base, in, k ? 1 : cfg->inside_buffer);
        port_init(&r->local[k], &r->base, lo, cfg->local_buffer);
    }
    port_init(&r->outside, &r->base, "outside", cfg->outside_buffer);
    port_init(&r->host, &r->base, "host", cfg->outside_buffer);

    uint32_t no = cfg->outgoing_entries, ni = cfg->incoming_entries;
    r->parents = MGS_NEW_ARRAY(rdma_parent, no);
    r->free_parents = MGS_NEW_ARRAY(uint32_t, no);
    r->out_txns = MGS_NEW_ARRAY(rdma_out_txn, no);
    r->free_out = MGS_NEW_ARRAY(uint32_t, no);
    r->in_txns = MGS_NEW_ARRAY(rdma_in_txn, ni);
    r->free_in = MGS_NEW_ARRAY(uint32_t, ni);
    /* Stacks hold indices so that entry 0 is used first (deterministic). */
    for (uint32_t i = 0; i < no; i++)
        r->free_parents[i] = r->free_out[i] = no - 1 - i;
    for (uint32_t i = 0; i < ni; i++)
        r->free_in[i] = ni - 1 - i;
    r->nfree_parents = r->nfree_out = no;
    r->nfree_in = ni;
    r->credits = MGS_NEW_ARRAY(uint32_t, cfg->ngpus + 1); /* + host */
    for (uint32_t g = 0; g <= cfg->ngpus; g++)
        r->credits[g] = r->credits_per_home;
    r->split_parent = RDMA_NONE;
    fifo_init(&r->q_inside, no);
    fifo_init(&r->q_outside, no + ni);
    fifo_init(&r->q_host, no);
    for (uint32_t k = 0; k < cfg->xbar_ports; k++)
        fifo_init(&r->q_local[k], ni);

    for (int i = 0; i < ST_COUNT; i++) {
        const char *unit = strncmp(stat_names[i], "bytes", 5) == 0 ? "bytes"
                                                                    : "count";
        r->st[i] = stats ? stat_counter_add(stats, name, stat_names[i], unit)
                         : &r->own[i];
    }
    r->latency = stats ? stat_hist_add(stats, name, "remote_latency", "ps")
                       : &r->own_latency;
    for (int i = 0; i < RDMA_HOST_ST_COUNT; i++)
        r->host_st[i] = &r->host_own[i];
    return r;
}

void rdma_free(rdma_engine *r)
{
    if (!r)
        return;
    /* Messages we own: answers being assembled or queued, forwarded parts,
    ** local requests, and answers to remote engines still queued. */
    for (uint32_t i = 0; i < r->cfg.outgoing_entries; i++) {
        if (r->parents[i].in_use)
            mem_msg_release(r->pool, r->parents[i].rsp);
        if (r->out_txns[i].in_use)
            mem_msg_release(r->pool, r->out_txns[i].fwd);
    }
    for (uint32_t i = 0; i < r->cfg.incoming_entries; i++)
        if (r->in_txns[i].in_use && r->in_txns[i].local)
            mem_msg_release(r->pool, r->in_txns[i].local);
    for (uint32_t i = 0; i < r->q_outside.count; i++) {
        rdma_qent *q = &r->q_outside.e[(r->q_outside.head + i) %
                                       r->q_outside.cap];
        if (q->slot != RDMA_NONE)
            mem_msg_release(r->pool, q->m);
    }
    for (uint32_t k = 0; k < r->cfg.xbar_ports; k++) {
        port_fini(&r->inside[k]);
        port_fini(&r->local[k]);
        free(r->q_local[k].e);
    }
    port_fini(&r->outside);
    port_fini(&r->host);
    comp_fini(&r->base);
    free(r->parents);
    free(r->free_parents);
    free(r->out_txns);
    free(r->free_out);
    free(r->in_txns);
    free(r->free_in);
    free(r->credits);
    free(r->q_inside.e);
    free(r->q_outside.e);
    free(r->q_host.e);
    free(r->peers);
    free(r);
}

sim_port *rdma_inside(rdma_engine *r) { return &r->inside[0]; }
sim_port *rdma_outside(rdma_engine *r) { return &r->outside; }
sim_port *rdma_local(rdma_engine *r) { return &r->local[0]; }

void rdma_plug_split(rdma_engine *r, sim_conn *inside, sim_conn *local)
{
    for (uint32_t k = 0; k < r->cfg.xbar_ports; k++) {
        conn_plug(inside, &r->inside[k]);
        conn_plug(local, &r->local[k]);
    }
}

void rdma_plug(rdma_engine *r, sim_conn *xbar)
{
    rdma_plug_split(r, xbar, xbar);
}

void rdma_set_peers(rdma_engine *r, sim_port *const *outside_ports,
                    uint32_t n)
{
    assert(n <= r->cfg.ngpus);
    free(r->peers);
    r->peers = MGS_NEW_ARRAY(sim_port *, r->cfg.ngpus);
    for (uint32_t g = 0; g < n; g++)
        r->peers[g] = outside_ports[g];
}

void rdma_set_local_route(rdma_engine *r, const mem_route *route)
{
    r->local_route = *route;
    r->have_local_route = true;
}

sim_port *rdma_host(rdma_engine *r) { return &r->host; }

void rdma_set_host(rdma_engine *r, sim_port *host_memory,
                   stat_registry *stats)
{
    r->host_mem = host_memory;
    for (int i = 0; stats && i < RDMA_HOST_ST_COUNT; i++)
        r->host_st[i] = stat_counter_add(stats, r->base.name,
                                         host_stat_names[i],
                                         host_stat_units[i]);
}

void rdma_set_home_map(rdma_engine *r, rdma_home_fn fn, void *ud)
{
    r->home_fn = fn;
    r->home_ud = ud;
}

/* ---- the split route for L1s ------------------------------------------ */

static sim_port *route_split(const mem_route *r, uint64_t addr)
{
    if (addr < r->base || addr >= r->limit)
        return r->single;
    uint64_t unit = addr >> __builtin_ctz(r->interleave);
    return r->ports[unit % r->nports];
}

void rdma_route_split(mem_route *route, sim_port **local_ports,
                      uint32_t nlocal, uint32_t interleave,
                      uint64_t local_base, uint64_t local_limit,
                      sim_port *rdma_inside_port)
{
    assert(local_ports && nlocal >= 1 && rdma_inside_port);
    assert(interleave && (interleave & (interleave - 1)) == 0);
    route->route = route_split;
    route->ports = local_ports;
    route->nports = nlocal;
    route->interleave = interleave;
    route->base = local_base;
    route->limit = local_limit;
    route->single = rdma_inside_port;
}

void rdma_occupancy(const rdma_engine *r, uint32_t *parents,
                    uint32_t *outgoing, uint32_t *incoming)
{
    *parents = r->cfg.outgoing_entries - r->nfree_parents;
    *outgoing = r->cfg.outgoing_entries - r->nfree_out;
    *incoming = r->cfg.incoming_entries - r->nfree_in;
}

/* ---- invariants --------------------------------------------------------- */

int rdma_check(const rdma_engine *r)
{
    uint32_t no = r->cfg.outgoing_entries, ni = r->cfg.incoming_entries;
    uint32_t used_p = 0, used_o = 0, used_i = 0, ready = 0;
    uint32_t *inflight = MGS_NEW_ARRAY(uint32_t, r->cfg.ngpus + 1);
    for (uint32_t i = 0; i < no; i++) {
        used_p += r->parents[i].in_use;
        if (r->parents[i].in_use && r->parents[i].parts_left == 0)
            ready++;
        if (r->out_txns[i].in_use) {
            used_o++;
            assert(r->parents[r->out_txns[i].parent].in_use);
            inflight[r->out_txns[i].home]++;
        }
    }
    for (uint32_t i = 0; i < ni; i++)
        used_i += r->in_txns[i].in_use;
    assert(used_p + r->nfree_parents == no);
    assert(used_o + r->nfree_out == no);
    assert(used_i + r->nfree_in == ni);
    assert(ready == r->q_inside.count);
    for (uint32_t g = 0; g <= r->cfg.ngpus; g++) /* + host frames */
        assert(inflight[g] + r->credits[g] == r->credits_per_home);
    assert(r->q_outside.count <= r->q_outside.cap);
    for (uint32_t k = 0; k < r->cfg.xbar_ports; k++)
        assert(r->q_local[k].count <= ni);
    free(inflight);
    return 1;
}
