/*
** The invalidation engine (inv_engine.h for the model and the flow-control
** argument).
**
** State:
**   homes[home_entries]   bank requests being served: the request and the
**                         network invalidations not yet acknowledged
**   expand FIFO           requests whose invalidations are not all sent;
**                         the head is sent part by part (line, sharer) as
**                         credits allow
**   bank FIFOs            invalidations from the network for each local
**                         bank, sent while the bank has fewer than
**                         inv_buffer unacknowledged
**   send FIFOs            local (to banks) and net (to peers), growable;
**                         a refused send holds its FIFO until the port
**                         frees
** Per cycle: send, take up to MSGS_PER_CYCLE messages from each port,
** expand, dispatch to banks, send again. Sleeps when a cycle did nothing.
*/
#include "coh/dir/inv_engine.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coh/dir/dir_table.h"
#include "mgsim/errors.h"
#include "sim/comp.h"
#include "sim/port.h"
#include "util/xmalloc.h"

#define MSGS_PER_CYCLE 4u   /* assumed: like the RDMA engine's 4 */
#define PORT_BUFFER 16u     /* assumed */

typedef struct home_req {
    mem_msg *req;           /* the bank's (theirs) */
    uint32_t parts_left;    /* network invalidations not yet acknowledged,
                               sent or not */
    bool in_use;
} home_req;

/* A growable FIFO of messages. */
typedef struct msg_fifo {
    mem_msg **m;
    uint32_t cap, head, count;
    bool blocked;
} msg_fifo;

enum { ST_REQUESTS, ST_SENT_WRITE, ST_SENT_EVICT, ST_LINES, ST_RECEIVED,
       ST_ACKS, ST_BYTES_OUT, ST_STALL_CREDITS, ST_COUNT };
static const char *const stat_names[ST_COUNT] = {
    "requests", "inv_sent_write", "inv_sent_evict", "inv_lines_sent",
    "inv_received", "acks_received", "bytes_out", "stall_credits"};

struct inv_engine {
    sim_comp base;              /* FIRST */
    sim_port local, net;
    inv_engine_config cfg;
    mem_pool *pool;
    sim_port **bank_port;       /* [banks], borrowed */
    sim_port *peer[INV_ENGINE_MAX_GPUS];
    uint32_t credits[INV_ENGINE_MAX_GPUS];

    home_req *homes;
    uint32_t *free_homes, nfree_homes;
    uint32_t *expand;           /* ring of home indices, home_entries */
    uint32_t exp_head, exp_count;
    uint32_t exp_line, exp_gpu; /* the head's cursor */

    mem_msg **bank_q;           /* [banks][bank_cap] rings */
    uint32_t bank_cap;
    uint32_t *bank_head, *bank_count, *bank_out;
    uint64_t *bank_left;        /* lines of each bank's head not yet sent */
    uint32_t bank_rr;
    uint32_t bank_pending;      /* invalidations in bank FIFOs */

    msg_fifo q_local, q_net;
    stat_counter *st[ST_COUNT];
    stat_counter own[ST_COUNT];
};

/* ---- FIFOs ------------------------------------------------------------- */

static void fifo_push(msg_fifo *f, mem_msg *m)
{
    if (f->count == f->cap) {
        uint32_t cap = f->cap ? 2 * f->cap : 64;
        mem_msg **n = MGS_NEW_ARRAY(mem_msg *, cap);
        for (uint32_t i = 0; i < f->count; i++)
            n[i] = f->m[(f->head + i) % f->cap];
        free(f->m);
        f->m = n;
        f->cap = cap;
        f->head = 0;
    }
    f->m[(f->head + f->count++) % f->cap] = m;
}

static bool fifo_drain(inv_engine *e, msg_fifo *f, sim_port *port)
{
    bool progress = false;
    while (f->count && !f->blocked) {
        mem_msg *m = f->m[f->head];
        uint32_t bytes = m->base.bytes;
        if (port_send(port, &m->base) != MGS_OK) {
            f->blocked = true;
            break;
        }
        if (f == &e->q_net)
            stat_addn(e->st[ST_BYTES_OUT], bytes);
        f->head = (f->head + 1) % f->cap;
        f->count--;
        progress = true;
    }
    return progress;
}

/* ---- home side --------------------------------------------------------- */

static uint16_t mask_of(const mem_msg *req, uint32_t i)
{
    return (uint16_t)(req->data[2 * i] | (req->data[2 * i + 1] << 8));
}

static void answer_bank(inv_engine *e, uint32_t hi)
{
    home_req *h = &e->homes[hi];
    mem_msg *rsp = mem_msg_response(e->pool, h->req);
    rsp->base.bytes = e->cfg.header_bytes;
    fifo_push(&e->q_local, rsp);
    h->in_use = false;
    h->req = NULL;
    e->free_homes[e->nfree_homes++] = hi;
}

/* Every sharer GPU of req's lines but this one. */
static uint32_t sharers_of(const inv_engine *e, const mem_msg *req)
{
    uint32_t all = 0;
    for (uint32_t i = 0; i < req->size; i++)
        all |= mask_of(req, i);
    return all & ~(1u << e->cfg.gpu);
}

/* The lines of req (bit i = line i) that GPU g must drop. */
static uint64_t lines_of(const mem_msg *req, uint32_t g)
{
    uint64_t lines = 0;
    for (uint32_t i = 0; i < req->size; i++)
        if (mask_of(req, i) >> g & 1)
            lines |= 1ull << i;
    return lines;
}

static void take_bank_request(inv_engine *e, mem_msg *req)
{
    assert(e->nfree_homes > 0 && "inv engine: home_entries sized too small");
    assert(req->size >= 1 && req->size <= INV_ENGINE_MAX_LINES);
    stat_inc(e->st[ST_REQUESTS]);
    uint32_t hi = e->free_homes[--e->nfree_homes];
    home_req *h = &e->homes[hi];
    h->in_use = true;
    h->req = req;
    h->parts_left = 0;
    if (e->cfg.per_entry) {
        h->parts_left = (uint32_t)__builtin_popcount(sharers_of(e, req));
    } else {
        for (uint32_t i = 0; i < req->size; i++) {
            uint16_t m = mask_of(req, i) & (uint16_t)~(1u << e->cfg.gpu);
            h->parts_left += (uint32_t)__builtin_popcount(m);
        }
    }
    if (h->parts_left == 0) {
        answer_bank(e, hi);
        return;
    }
    if (e->exp_count == 0)
        e->exp_line = e->exp_gpu = 0;
    e->expand[(e->exp_head + e->exp_count++) % e->cfg.home_entries] = hi;
}

/* Sends the head request's invalidations while credits allow: one
** message per (line, sharer), or per sharer with the line mask
** (cfg.per_entry; the cursor's line stays 0). */
static bool expand(inv_engine *e)
{
    bool progress = false;
    while (e->exp_count) {
        uint32_t hi = e->expand[e->exp_head];
        const mem_msg *req = e->homes[hi].req;
        uint32_t units = e->cfg.per_entry ? 1 : req->size;
        bool stalled = false;
        for (; e->exp_line < units; e->exp_line++, e->exp_gpu = 0) {
            uint32_t m = e->cfg.per_entry ? sharers_of(e, req)
                                          : mask_of(req, e->exp_line) &
                                                ~(1u << e->cfg.gpu);
            m &= ~((1u << e->exp_gpu) - 1);
            for (; m; m &= m - 1) {
                uint32_t g = (uint32_t)__builtin_ctz(m);
                if (e->credits[g] == 0) {
                    e->exp_gpu = g;
                    stat_inc(e->st[ST_STALL_CREDITS]);
                    stalled = true;
                    break;
                }
                e->credits[g]--;
                mem_msg *inv = mem_msg_alloc(e->pool, MEM_INV_LINE);
                inv->addr = req->addr + (uint64_t)e->exp_line * e->cfg.line;
                inv->flags = MEM_F_PHYS;
                inv->gpu = (int32_t)e->cfg.gpu;
                inv->coh[0] = req->coh[0];
                inv->coh[1] = e->cfg.per_entry ? lines_of(req, g) : 1;
                inv->sharers = 1ull << g;
                inv->origin = &e->homes[hi];
                inv->base.dst = e->peer[g];
                /* per entry: the line mask rides after the header */
                inv->base.bytes = e->cfg.header_bytes +
                                  (e->cfg.per_entry ? 8u : 0u);
                stat_inc(e->st[req->coh[0] == DIR_CAUSE_EVICT
                                   ? ST_SENT_EVICT
                                   : ST_SENT_WRITE]);
                stat_addn(e->st[ST_LINES],
                          (uint64_t)__builtin_popcountll(inv->coh[1]));
                fifo_push(&e->q_net, inv);
                progress = true;
            }
            if (stalled)
                break;
        }
        if (stalled)
            break;
        e->exp_head = (e->exp_head + 1) % e->cfg.home_entries;
        e->exp_count--;
        e->exp_line = e->exp_gpu = 0;
    }
    return progress;
}

/* A sharer engine acknowledged one of our invalidations. */
static void take_net_ack(inv_engine *e, mem_msg *ack)
{
    mem_msg *inv = ack->req;
    home_req *h = inv->origin;
    assert(h >= e->homes && h < e->homes + e->cfg.home_entries &&
           h->in_use && h->parts_left > 0 && "stray invalidation ack");
    stat_inc(e->st[ST_ACKS]);
    e->credits[__builtin_ctzll(inv->sharers)]++;
    mem_msg_release(e->pool, inv);
    mem_msg_release(e->pool, ack);
    if (--h->parts_left == 0)
        answer_bank(e, (uint32_t)(h - e->homes));
}

/* ---- sharer side ------------------------------------------------------- */

static uint32_t bank_of(const inv_engine *e, uint64_t addr)
{
    return (uint32_t)((addr / e->cfg.interleave) % e->cfg.banks);
}

/* A network invalidation: addr = its first line, coh[1] = its lines (bit
** i = line addr + i * line), all in one bank (a directory range never
** spans two: check() keeps it within the L2 interleave). The engine
** clears coh[1]'s bits as the bank acknowledges them. */
static void take_net_inv(inv_engine *e, mem_msg *inv)
{
    stat_inc(e->st[ST_RECEIVED]);
    assert(inv->coh[1] != 0);
    uint32_t b = bank_of(e, inv->addr);
    assert(b == bank_of(e, inv->addr + (uint64_t)(63 - __builtin_clzll(
                                           inv->coh[1])) * e->cfg.line) &&
           "an invalidation's lines span two banks");
    assert(e->bank_count[b] < e->bank_cap && "a peer exceeded its credits");
    e->bank_q[(size_t)b * e->bank_cap +
              (e->bank_head[b] + e->bank_count[b]++) % e->bank_cap] = inv;
    e->bank_pending++;
}

/* Sends queued invalidations, line by line, to banks with room under
** inv_buffer; bank_left[b] = the lines of b's head not yet sent. */
static bool dispatch(inv_engine *e)
{
    bool progress = false;
    for (uint32_t k = 0; k < e->cfg.banks && e->bank_pending; k++) {
        uint32_t b = (e->bank_rr + k) % e->cfg.banks;
        while (e->bank_count[b] && e->bank_out[b] < e->cfg.inv_buffer) {
            mem_msg *net = e->bank_q[(size_t)b * e->bank_cap + e->bank_head[b]];
            if (!e->bank_left[b])
                e->bank_left[b] = net->coh[1];
            uint32_t i = (uint32_t)__builtin_ctzll(e->bank_left[b]);
            e->bank_left[b] &= e->bank_left[b] - 1;
            if (!e->bank_left[b]) {
                e->bank_head[b] = (e->bank_head[b] + 1) % e->bank_cap;
                e->bank_count[b]--;
                e->bank_pending--;
            }
            e->bank_out[b]++;
            mem_msg *inv = mem_msg_alloc(e->pool, MEM_INV_LINE);
            inv->addr = net->addr + (uint64_t)i * e->cfg.line;
            inv->flags = MEM_F_PHYS;
            inv->gpu = net->gpu;
            inv->coh[0] = net->coh[0];
            inv->origin = net;
            inv->base.dst = e->bank_port[b];
            inv->base.bytes = e->cfg.header_bytes;
            fifo_push(&e->q_local, inv);
            progress = true;
        }
    }
    e->bank_rr = (e->bank_rr + 1) % e->cfg.banks;
    return progress;
}

/* A local bank dropped a line: once every line of its network
** invalidation is dropped, acknowledge to the home engine. */
static void take_bank_ack(inv_engine *e, mem_msg *ack)
{
    mem_msg *inv = ack->req;
    mem_msg *net = inv->origin;
    uint32_t b = bank_of(e, inv->addr);
    assert(e->bank_out[b] > 0);
    e->bank_out[b]--;
    net->coh[1] &= ~(1ull << ((inv->addr - net->addr) / e->cfg.line));
    if (!net->coh[1]) {
        mem_msg *up = mem_msg_response(e->pool, net);
        up->base.bytes = e->cfg.header_bytes;
        fifo_push(&e->q_net, up);
    }
    mem_msg_release(e->pool, inv);
    mem_msg_release(e->pool, ack);
}

/* ---- component --------------------------------------------------------- */

static bool take_ports(inv_engine *e)
{
    bool progress = false;
    for (uint32_t n = 0; n < MSGS_PER_CYCLE; n++) {
        mem_msg *m = (mem_msg *)port_retrieve(&e->local);
        if (!m)
            break;
        if (m->base.type == MEM_INV_LINE)
            take_bank_request(e, m);
        else
            take_bank_ack(e, m);
        progress = true;
    }
    for (uint32_t n = 0; n < MSGS_PER_CYCLE; n++) {
        mem_msg *m = (mem_msg *)port_retrieve(&e->net);
        if (!m)
            break;
        if (m->base.type == MEM_INV_LINE)
            take_net_inv(e, m);
        else
            take_net_ack(e, m);
        progress = true;
    }
    return progress;
}

static bool engine_tick(sim_comp *c)
{
    inv_engine *e = (inv_engine *)c;
    bool progress = fifo_drain(e, &e->q_net, &e->net);
    progress |= fifo_drain(e, &e->q_local, &e->local);
    progress |= take_ports(e);
    progress |= expand(e);
    if (e->bank_pending)
        progress |= dispatch(e);
    progress |= fifo_drain(e, &e->q_net, &e->net);
    progress |= fifo_drain(e, &e->q_local, &e->local);
    return progress;
}

static void engine_port_free(sim_comp *c, sim_port *p)
{
    inv_engine *e = (inv_engine *)c;
    if (p == &e->net)
        e->q_net.blocked = false;
    else
        e->q_local.blocked = false;
    comp_wake(c);
}

static bool engine_busy(const sim_comp *c)
{
    const inv_engine *e = (const inv_engine *)c;
    return e->nfree_homes < e->cfg.home_entries || e->bank_pending ||
           e->q_local.count || e->q_net.count ||
           port_occupancy(&e->local) || port_occupancy(&e->net);
}

static void engine_dump(const sim_comp *c, FILE *f)
{
    const inv_engine *e = (const inv_engine *)c;
    uint32_t out = 0;
    for (uint32_t b = 0; b < e->cfg.banks; b++)
        out += e->bank_out[b];
    fprintf(f, "  home requests %u/%u (expanding %u) bank queue %u, at "
            "banks %u, send local %u net %u%s%s\n",
            e->cfg.home_entries - e->nfree_homes, e->cfg.home_entries,
            e->exp_count, e->bank_pending, out, e->q_local.count,
            e->q_net.count, e->q_local.blocked ? " local-blocked" : "",
            e->q_net.blocked ? " net-blocked" : "");
}

static const sim_comp_ops engine_ops = {
    .kind = "InvEngine",
    .tick = engine_tick,
    .notify_port_free = engine_port_free,
    .busy = engine_busy,
    .dump = engine_dump,
};

inv_engine *inv_engine_new(sim_engine *eng, const char *name,
                           const inv_engine_config *cfg, mem_pool *pool,
                           stat_registry *stats)
{
    assert(cfg->ngpus >= 2 && cfg->ngpus <= INV_ENGINE_MAX_GPUS &&
           cfg->banks >= 1 && cfg->interleave >= 1 && cfg->inv_buffer >= 1 &&
           cfg->line >= 4 &&
           cfg->credits >= 1 && cfg->home_entries >= 1);
    inv_engine *e = MGS_NEW(inv_engine);
    e->cfg = *cfg;
    e->pool = pool;
    comp_init(&e->base, eng, &engine_ops, name, cfg->period);
    port_init(&e->local, &e->base, "local", PORT_BUFFER);
    port_init(&e->net, &e->base, "net", PORT_BUFFER);
    e->bank_port = mgs_xcalloc(cfg->banks, sizeof *e->bank_port);
    for (uint32_t g = 0; g < cfg->ngpus; g++)
        e->credits[g] = cfg->credits;
    e->homes = mgs_xcalloc(cfg->home_entries, sizeof *e->homes);
    e->free_homes = MGS_NEW_ARRAY(uint32_t, cfg->home_entries);
    for (uint32_t i = cfg->home_entries; i-- > 0;)
        e->free_homes[e->nfree_homes++] = i;
    e->expand = MGS_NEW_ARRAY(uint32_t, cfg->home_entries);
    e->bank_cap = cfg->credits * (cfg->ngpus - 1);
    e->bank_q = mgs_xcalloc((size_t)cfg->banks * e->bank_cap,
                            sizeof *e->bank_q);
    e->bank_head = mgs_xcalloc(cfg->banks, sizeof *e->bank_head);
    e->bank_count = mgs_xcalloc(cfg->banks, sizeof *e->bank_count);
    e->bank_out = mgs_xcalloc(cfg->banks, sizeof *e->bank_out);
    e->bank_left = mgs_xcalloc(cfg->banks, sizeof *e->bank_left);
    for (int i = 0; i < ST_COUNT; i++)
        e->st[i] = stats ? stat_counter_add(stats, name, stat_names[i],
                                            i == ST_BYTES_OUT ? "bytes"
                                                              : "count")
                         : &e->own[i];
    return e;
}

void inv_engine_free(inv_engine *e)
{
    if (!e)
        return;
    port_fini(&e->local);
    port_fini(&e->net);
    comp_fini(&e->base);
    free(e->q_local.m);
    free(e->q_net.m);
    free(e->bank_port);
    free(e->homes);
    free(e->free_homes);
    free(e->expand);
    free(e->bank_q);
    free(e->bank_head);
    free(e->bank_count);
    free(e->bank_out);
    free(e->bank_left);
    free(e);
}

sim_port *inv_engine_local(inv_engine *e) { return &e->local; }
sim_port *inv_engine_net(inv_engine *e) { return &e->net; }

void inv_engine_set_bank(inv_engine *e, uint32_t b, sim_port *bottom)
{
    assert(b < e->cfg.banks);
    e->bank_port[b] = bottom;
}

void inv_engine_set_peer(inv_engine *e, uint32_t g, sim_port *net)
{
    assert(g < e->cfg.ngpus);
    e->peer[g] = net;
}
