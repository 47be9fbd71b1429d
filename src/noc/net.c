/*
** The network component: building the graph, and moving messages through
** it (injection at an endpoint, per-output round-robin arbitration with
** credit checks, serialisation, store-and-forward through switches,
** ejection to the destination port). Structures and invariants are in
** noc_int.h, the timing model in noc.h.
**
** Events (all owned by the net component, so no cross-component
** scheduling happens inside the network):
**   NOC_EV_OUT   (per channel) the sender's output may start a message:
**                it became free, got a credit back, or an input head
**                routed to it became ready;
**   NOC_EV_IN    (per virtual channel) the head of the receiver's input
**                buffer is ready: announce it to the output it is routed
**                to;
**   NOC_EV_EJECT (per endpoint) deliver ready messages to their ports.
** The hot path never allocates: packets live by value in the input rings.
*/
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "noc/noc_int.h"
#include "sim/name.h"
#include "sim/partition.h"
#include "util/xmalloc.h"

/* ---- link configuration and cost ------------------------------------ */

void noc_link_cfg_default(noc_link_cfg *cfg)
{
    cfg->bandwidth = 16000000000ULL; /* PCIe 3.0 x16 per direction */
    cfg->latency = 100 * MGS_PS_PER_NS;
    cfg->header_bytes = 16;
    cfg->max_payload = 256;
    cfg->credits = 64;
}

int noc_link_cfg_validate(const noc_link_cfg *cfg)
{
    if (cfg->bandwidth < 1)
        return mgs_error_set(MGS_EINVAL, "link bandwidth must be >= 1 B/s");
    if (cfg->latency > 1000 * MGS_PS_PER_S)
        return mgs_error_set(MGS_EINVAL,
                             "link latency = %llu ps: must be at most 10^15",
                             (unsigned long long)cfg->latency);
    if (cfg->max_payload < 1)
        return mgs_error_set(MGS_EINVAL, "link max_payload must be >= 1");
    if (cfg->credits < 1)
        return mgs_error_set(MGS_EINVAL, "link credits must be >= 1");
    return MGS_OK;
}

uint32_t noc_packets(const noc_link_cfg *cfg, uint32_t bytes)
{
    /* A message always costs a packet, even an empty request. */
    uint64_t p = ((uint64_t)bytes + cfg->max_payload - 1) / cfg->max_payload;
    return p ? (uint32_t)p : 1;
}

uint64_t noc_wire_bytes(const noc_link_cfg *cfg, uint32_t bytes)
{
    return bytes + (uint64_t)noc_packets(cfg, bytes) * cfg->header_bytes;
}

mgs_time noc_serialisation(const noc_link_cfg *cfg, uint32_t bytes)
{
    /* wire * 10^12 overflows 64 bits above ~18 MB; 128-bit keeps it exact. */
    unsigned __int128 num =
        (unsigned __int128)noc_wire_bytes(cfg, bytes) * MGS_PS_PER_S;
    return (mgs_time)((num + cfg->bandwidth - 1) / cfg->bandwidth);
}

uint32_t noc_link_credits_for(const noc_link_cfg *cfg, uint32_t msg_bytes,
                              mgs_time forward_delay)
{
    /* A credit is held from the start of serialisation until the receiver
    ** forwards the message: ser + latency + forward_delay. Streaming at
    ** full rate needs that span divided by ser credits, plus one. */
    mgs_time ser = noc_serialisation(cfg, msg_bytes);
    if (ser == 0)
        ser = 1;
    uint64_t span = ser + cfg->latency + forward_delay;
    uint64_t need = (span + ser - 1) / ser + 1;
    /* Each credit is a packet slot allocated up front. assumed: 65,536 is
    ** more packets than any component can have in flight on one link (the
    ** RDMA engines' and DMA engines' tables are smaller), so the cap never
    ** limits bandwidth, while an extreme bandwidth-delay product (a 1 s
    ** link of unbounded bandwidth) no longer allocates gigabytes. */
    return need > NOC_MAX_CREDITS ? NOC_MAX_CREDITS : (uint32_t)need;
}

/* Packets, wire bytes and serialisation of a message on channel c; sizes
** repeat (cache lines), so the last one is memoised. */
static void chan_cost(noc_chan *c, uint32_t bytes)
{
    if (bytes == c->memo_bytes && c->memo_packets)
        return;
    c->memo_bytes = bytes;
    c->memo_packets = noc_packets(&c->cfg, bytes);
    c->memo_wire = noc_wire_bytes(&c->cfg, bytes);
    c->memo_ser = noc_serialisation(&c->cfg, bytes);
}

/* ---- helpers -------------------------------------------------------- */

/* The time of node x's partition (a network may span partitions: each
** node acts in its own, see noc_place_endpoint). */
static inline mgs_time now_at(const noc_node *x) { return eng_now(x->eng); }

/* Messages taken from an interface and not yet ejected. */
static uint64_t net_in_flight(const noc_net *n)
{
    int64_t k = 0;
    for (uint32_t i = 0; i < n->nnodes; i++)
        k += n->nodes[i]->in_flight;
    return (uint64_t)k;
}

/* Parts of m (noc_set_bursts; 1 without bursts). */
static inline uint32_t msg_parts(const noc_net *n, const sim_msg *m)
{
    return n->bursts.parts ? n->bursts.parts(m) : 1;
}

/* Credits of class cls that channel c's sender sees in use. */
static inline uint32_t credits_used(const noc_chan *c, uint32_t cls)
{
    return c->cross ? c->vc[cls].used : c->vc[cls].count;
}

static noc_node *node_of_host(const sim_port *host)
{
    return (noc_node *)((char *)host - offsetof(noc_node, host));
}

/* Endpoint id that port d is attached to, or -1. */
static int endpoint_of_port(const noc_net *n, const sim_port *d)
{
    if (!d || !d->conn || !d->lane || !d->lane->deliver_to ||
        d->lane->deliver_to->comp != &n->base)
        return -1;
    return (int)node_of_host(d->lane->deliver_to)->id;
}

int noc_endpoint_of(const noc_net *n, const sim_port *port)
{
    return endpoint_of_port(n, port);
}

/* A routing failure inside the simulation: record it once, stop. */
static void net_fail(noc_net *n, noc_node *x, const sim_msg *m,
                     const char *why)
{
    n->status = MGS_ESIM;
    mgs_error_set(MGS_ESIM, "%s: message id %llu from %s: %s", n->base.name,
                  (unsigned long long)m->id,
                  m->src && m->src->name ? m->src->name : "?", why);
    eng_stop(x->eng);
}

/* Output index at endpoint x for the message waiting to be injected. */
static uint32_t injection_out(noc_net *n, noc_node *x, const sim_msg *m,
                              uint32_t *dst_ep)
{
    int d = endpoint_of_port(n, m->dst);
    if (d < 0) {
        net_fail(n, x, m, "destination port is not attached to this network");
        return NOC_NO_ROUTE;
    }
    if (!n->routed || x->route[d] == NOC_NO_ROUTE) {
        net_fail(n, x, m, n->routed ? "no route to the destination endpoint"
                                 : "noc_route_compute was not called");
        return NOC_NO_ROUTE;
    }
    if (dst_ep)
        *dst_ep = (uint32_t)d;
    return x->route[d];
}

static void wake_out(noc_net *n, noc_chan *c)
{
    (void)n;
    if (!c->out_ev.scheduled) {
        mgs_time t = now_at(c->from);
        eng_schedule(c->from->eng, &c->out_ev,
                     c->free_at > t ? c->free_at : t);
    }
}

static void wake_eject(noc_net *n, noc_node *x)
{
    (void)n;
    if (!x->eject_blocked && !x->eject_ev.scheduled)
        eng_schedule(x->eng, &x->eject_ev, now_at(x));
}

static void wake_output(noc_net *n, noc_node *x, uint32_t o)
{
    if (o == x->nports)
        wake_eject(n, x);
    else if (o < x->nports)
        wake_out(n, x->out[o]);
}

static void announce_head(noc_net *n, noc_vc *v)
{
    (void)n;
    if (v->count && !v->in_ev.scheduled) {
        noc_node *y = v->chan->to;
        mgs_time r = v->ring[v->head].ready, t = now_at(y);
        eng_schedule(y->eng, &v->in_ev, r > t ? r : t);
    }
}

static uint32_t msg_class(const noc_net *n, const sim_msg *m)
{
    if (n->nclasses == 1)
        return 0;
    uint32_t c = n->classify(m, n->classify_ud);
    return c < n->nclasses ? c : n->nclasses - 1;
}

/* The virtual channel of input slot s (s < nports * nclasses). */
static inline noc_vc *slot_vc(const noc_net *n, const noc_node *x,
                              uint32_t s)
{
    if (n->cls_shift != UINT32_MAX)
        return &x->in[s >> n->cls_shift]->vc[s & (n->nclasses - 1)];
    return &x->in[s / n->nclasses]->vc[s % n->nclasses];
}

static inline uint32_t slot_count(const noc_net *n, const noc_node *x)
{
    return x->nports * n->nclasses + (x->endpoint ? 1 : 0);
}

/* The message at the head of input slot s of x (must exist). */
static sim_msg *slot_head(const noc_net *n, noc_node *x, uint32_t s)
{
    if (s < x->nports * n->nclasses) {
        const noc_vc *v = slot_vc(n, x, s);
        return v->ring[v->head].msg;
    }
    return port_peek(&x->host);
}

/* The input slot (round robin from rr[o]) whose head is ready, routed to
** output o of node x, and has a credit in its class on o; -1 if none.
** *credit_blocked tells whether some ready head lacked only the credit. */
static int arbitrate_prio(noc_net *n, noc_node *x, uint32_t o,
                          bool *credit_blocked);

static int arbitrate(noc_net *n, noc_node *x, uint32_t o,
                     bool *credit_blocked)
{
    if (n->prio && !x->endpoint)
        return arbitrate_prio(n, x, o, credit_blocked);
    const mgs_time t = now_at(x);
    const uint32_t ncls = n->nclasses;
    const uint32_t nlink = x->nports * ncls;
    const uint32_t nslots = slot_count(n, x);
    const noc_chan *oc = o < x->nports ? x->out[o] : NULL;
    uint32_t s = x->rr[o];
    for (uint32_t k = 0; k < nslots; k++, s = s + 1 == nslots ? 0 : s + 1) {
        uint32_t cls;
        if (s < nlink) {
            const noc_vc *v = slot_vc(n, x, s);
            if (!v->count || v->ring[v->head].out != o ||
                v->ring[v->head].ready > t)
                continue;
            cls = v->cls;
        } else {
            const sim_msg *m = port_peek(&x->host);
            if (!m || injection_out(n, x, m, NULL) != o)
                continue;
            cls = msg_class(n, m);
        }
        if (oc && credits_used(oc, cls) == oc->cfg.credits) {
            *credit_blocked = true;
            continue;
        }
        return (int)s;
    }
    return -1;
}

/* Strict priority at a switch (noc_set_priority): among the ready heads
** routed to o that have a credit, the oldest one waiting starve_ps or
** more, else the highest class, ties in round-robin order from rr[o]. */
static int arbitrate_prio(noc_net *n, noc_node *x, uint32_t o,
                          bool *credit_blocked)
{
    const mgs_time t = now_at(x);
    const uint32_t ncls = n->nclasses;
    const uint32_t nslots = x->nports * ncls;
    const noc_chan *oc = o < x->nports ? x->out[o] : NULL;
    const mgs_time starve = n->prio->starve_ps;
    int best = -1, old = -1;
    uint32_t best_cls = 0;
    mgs_time old_ready = 0;
    uint32_t s = x->rr[o] < nslots ? x->rr[o] : 0;
    for (uint32_t k = 0; k < nslots; k++, s = s + 1 == nslots ? 0 : s + 1) {
        const noc_vc *v = slot_vc(n, x, s);
        if (!v->count)
            continue;
        const noc_pkt *h = &v->ring[v->head];
        if (h->out != o || h->ready > t)
            continue;
        if (oc && credits_used(oc, v->cls) == oc->cfg.credits) {
            *credit_blocked = true;
            continue;
        }
        if (t - h->ready >= starve && (old < 0 || h->ready < old_ready)) {
            old = (int)s;
            old_ready = h->ready;
        }
        if (best < 0 || v->cls > best_cls) {
            best = (int)s;
            best_cls = v->cls;
        }
    }
    n->prio->last_starved = old >= 0 && old != best;
    return old >= 0 ? old : best;
}

static void credit_return(noc_net *n, noc_vc *v);
static inline void ring_push(noc_net *n, noc_vc *v, const noc_pkt *p);
static void cross_arrive(sim_engine *e, void *vc, void *msg, uint64_t eps);

/* Removes the head of input slot s of x (returning its credit upstream). */
static noc_pkt pop_input(noc_net *n, noc_node *x, uint32_t s)
{
    noc_pkt p;
    if (s < x->nports * n->nclasses) {
        noc_vc *v = slot_vc(n, x, s);
        const uint32_t cap = v->chan->cfg.credits;
        p = v->ring[v->head];
        bool was_full = v->count == cap;
        v->head = v->head + 1 == cap ? 0 : v->head + 1;
        v->count--;
        if (v->chan->cross)
            credit_return(n, v);
        else if (was_full)
            wake_out(n, v->chan); /* the sender may have stalled on it */
        announce_head(n, v);
        return p;
    }
    sim_msg *m = port_retrieve(&x->host);
    p.msg = m;
    p.ready = m->arrive_time; /* when the interface received it */
    p.tail = p.ready;
    p.parts = (uint16_t)msg_parts(n, m);
    if (p.parts > 1 && n->bursts.last_ready) {
        /* At the sender: here the attachment's delay later. */
        mgs_time last = n->bursts.last_ready(m);
        if (last && last + (m->arrive_time - m->send_time) > p.tail)
            p.tail = last + (m->arrive_time - m->send_time);
    }
    p.src_ep = x->id;
    p.out = injection_out(n, x, m, &p.dst_ep);
    p.cls = (uint16_t)msg_class(n, m);
    x->in_flight++;
    /* The next queued message (if any) is a new head: announce it. A
    ** message delivered later announces itself via notify_recv. */
    const sim_msg *next = port_peek(&x->host);
    if (next)
        wake_output(n, x, injection_out(n, x, next, NULL));
    return p;
}

/* Appends p to v's ring (the receiver's input buffer). */
static inline void ring_push(noc_net *n, noc_vc *v, const noc_pkt *p)
{
    const uint32_t cap = v->chan->cfg.credits;
    uint32_t tail = v->head + v->count;
    v->ring[tail >= cap ? tail - cap : tail] = *p;
    v->count++;
    if (v->count == 1)
        announce_head(n, v);
}

/* A packet crossing partitions reaches the receiver (its partition). */
static void cross_arrive(sim_engine *e, void *vc, void *msg, uint64_t eps)
{
    noc_vc *v = vc;
    noc_chan *c = v->chan;
    noc_node *y = c->to;
    noc_pkt p = {.msg = msg, .ready = eng_now(e) + y->sw_latency,
                 .src_ep = (uint32_t)(eps >> 32), .dst_ep = (uint32_t)eps,
                 .cls = (uint16_t)v->cls,
                 .parts = (uint16_t)msg_parts(c->net, msg)};
    p.tail = p.ready;     /* a burst crosses whole (store and forward) */
    p.out = y->route[p.dst_ep];
    ring_push(c->net, v, &p);
}

/* The credit reaches the sender one link latency after the receiver
** forwarded the packet. */
static void credit_back(sim_engine *e, void *vc, void *unused, uint64_t x)
{
    (void)e;
    (void)unused;
    (void)x;
    noc_vc *v = vc;
    noc_chan *c = v->chan;
    bool was_full = v->used == c->cfg.credits;
    v->used--;
    if (was_full)
        wake_out(c->net, c);
}

static void credit_return(noc_net *n, noc_vc *v)
{
    noc_chan *c = v->chan;
    eng_post(c->to->eng, c->from->eng, now_at(c->to) + c->cfg.latency,
             &n->base, credit_back, v, NULL, 0);
}

/* The packet at the head of input slot s of x, NULL for the injection
** queue (which holds messages, whole). */
static const noc_pkt *slot_pkt(const noc_net *n, const noc_node *x,
                               uint32_t s)
{
    if (s < x->nports * n->nclasses) {
        const noc_vc *v = slot_vc(n, x, s);
        return &v->ring[v->head];
    }
    return NULL;
}

/* Starts the message at input slot s of x on output link o (now). A burst
** of k parts (noc_set_bursts) is cut through part by part: it holds the
** wire for k part times, but not past its last part's arrival plus one
** part time, and the receiver may forward (or deliver) its head one part
** time after the start. So a burst keeps the timing of its parts sent
** back to back, in one event per hop. */
static void transmit(noc_net *n, noc_node *x, uint32_t o, uint32_t s)
{
    const mgs_time t = now_at(x);
    noc_chan *c = x->out[o];
    const noc_pkt *in = slot_pkt(n, x, s);
    const sim_msg *head = in ? in->msg : port_peek(&x->host);
    const uint32_t k = in ? in->parts : msg_parts(n, head);
    chan_cost(c, head->bytes);
    const mgs_time ser = c->memo_ser;
    /* The wire is busy for the parts' own serialisation; a burst whose
    ** parts come in slower (from a slower link) leaves its last part no
    ** earlier than it came, but does not keep the wire from the others
    ** meanwhile: interleaved with theirs, as its parts would have been. */
    mgs_time end = t + ser, last = end;
    if (k > 1) {
        end = last = t + k * ser;
        if (in && in->tail + ser > last)
            last = in->tail + ser;
    }
    /* Busy before the pop, so wake-ups it causes (a new injection head)
    ** schedule this output at free_at directly. */
    c->free_at = end;
    noc_pkt p = pop_input(n, x, s);
    stat_addn(c->messages, k);
    stat_addn(c->packets, (uint64_t)k * c->memo_packets);
    stat_addn(c->payload, (uint64_t)k * p.msg->bytes);
    stat_addn(c->wire, k * c->memo_wire);
    stat_addn(c->busy, k * ser);
    stat_hist_sample(c->qdelay, t - p.ready);
    stat_tavg_set(c->util, t, 1);
    stat_tavg_set(c->util, end, 0);
    if (n->prio && !x->endpoint) {
        noc_prio *pr = n->prio;
        stat_addn(pr->messages[p.cls], k);
        stat_addn(pr->qdelay[p.cls], t - p.ready);
        if (pr->last_starved)
            stat_inc(pr->starved[p.cls]);
    }

    noc_node *y = c->to;
    noc_vc *v = &c->vc[p.cls];
    p.ready = t + ser + c->hop_delay;
    p.tail = last + c->hop_delay;
    p.out = y->route[p.dst_ep];

    if (c->cross) {
        /* The receiver's partition: the packet lands when its last byte
        ** arrived, a link latency after the send at the earliest. */
        v->used++;
        eng_post(x->eng, y->eng, last + c->cfg.latency, &n->base,
                 cross_arrive, v, p.msg,
                 (uint64_t)p.src_ep << 32 | p.dst_ep);
    } else {
        ring_push(n, v, &p);
    }
    const uint32_t nslots = slot_count(n, x);
    x->rr[o] = s + 1 == nslots ? 0 : s + 1;
    /* Arbitrate again when the wire frees, if another input is already
    ** waiting for this output (heads that become ready later announce
    ** themselves through their in_ev or the injection notification). */
    bool blocked = false;
    if (!c->out_ev.scheduled && arbitrate(n, x, o, &blocked) >= 0)
        eng_schedule(x->eng, &c->out_ev, c->free_at);
}

static void handle_out(noc_net *n, noc_chan *c)
{
    if (c->free_at > now_at(c->from)) {
        eng_schedule(c->from->eng, &c->out_ev, c->free_at);
        return;
    }
    bool blocked = false;
    int s = arbitrate(n, c->from, c->from_port, &blocked);
    if (s < 0) {
        /* A credit coming back (pop_input), an input's in_ev or the
        ** injection notification wakes us. */
        if (blocked)
            stat_inc(c->stalls);
        return;
    }
    transmit(n, c->from, c->from_port, (uint32_t)s);
}

static void handle_eject(noc_net *n, noc_node *y);

static void handle_in(noc_net *n, noc_vc *v)
{
    if (!v->count)
        return;
    const noc_pkt *h = &v->ring[v->head];
    noc_node *y = v->chan->to;
    if (h->ready > now_at(y)) { /* the head changed */
        eng_schedule(y->eng, &v->in_ev, h->ready);
        return;
    }
    /* A burst's head arbitrates for its idle output in this event rather
    ** than in one of its own at the same time (one event per hop for a
    ** DMA burst; single-part packets keep the output event). */
    if (h->parts > 1) {
        if (h->out < y->nports) {
            noc_chan *c = y->out[h->out];
            if (!c->out_ev.scheduled && c->free_at <= now_at(y)) {
                handle_out(n, c);
                return;
            }
        } else if (h->out == y->nports && !y->eject_blocked &&
                   !y->eject_ev.scheduled) {
            handle_eject(n, y);
            return;
        }
    }
    wake_output(n, y, h->out);
}

/* Delivers every ready message (round robin over the inputs) until none
** is left or the attachment lane refuses. */
static void handle_eject(noc_net *n, noc_node *y)
{
    const uint32_t nslots = slot_count(n, y);
    bool unused = false;
    int s;
    while (!y->eject_blocked &&
           (s = arbitrate(n, y, y->nports, &unused)) >= 0) {
        sim_msg *m = slot_head(n, y, (uint32_t)s);
        const noc_pkt *in = slot_pkt(n, y, (uint32_t)s);
        if (in && in->parts > 1 && n->bursts.arrived)
            n->bursts.arrived(m, in->ready, in->tail);
        sim_port *orig_src = m->src;
        int rc = port_send(&y->host, m);
        /* port_send stamps m->src even when it refuses: restore it in both
        ** cases, or a refused message would be retried (and answered) as
        ** if the endpoint itself had sent it. */
        m->src = orig_src; /* the receiver sees the real sender */
        if (rc == MGS_EBUSY) {
            y->eject_blocked = true; /* notify_port_free resumes */
            return;
        }
        (void)pop_input(n, y, (uint32_t)s);
        y->in_flight--;
        y->rr[y->nports] = (uint32_t)s + 1 == nslots ? 0 : (uint32_t)s + 1;
    }
}

/* ---- component ops -------------------------------------------------- */

static void net_handle(sim_comp *comp, sim_event *ev)
{
    noc_net *n = (noc_net *)comp;
    switch (ev->kind) {
    case NOC_EV_OUT: handle_out(n, ev->data); break;
    case NOC_EV_IN: handle_in(n, ev->data); break; /* a noc_vc */
    case NOC_EV_EJECT: handle_eject(n, ev->data); break;
    default: break;
    }
}

/* Control messages: applied, then returned to their sender. */
static void ctrl_drain(noc_net *n)
{
    noc_prio *pr = n->prio;
    if (pr->ack) {
        if (port_send(&pr->ctrl, pr->ack) != MGS_OK)
            return;
        pr->ack = NULL;
    }
    sim_msg *m;
    while ((m = port_retrieve(&pr->ctrl))) {
        if (pr->fn)
            pr->fn(m, pr->ud);
        m->dst = m->src;
        if (port_send(&pr->ctrl, m) != MGS_OK) {
            pr->ack = m;     /* notify_port_free resumes */
            return;
        }
    }
}

static void net_notify_recv(sim_comp *comp, sim_port *p)
{
    noc_net *n = (noc_net *)comp;
    if (n->prio && p == &n->prio->ctrl) {
        ctrl_drain(n);
        return;
    }
    noc_node *x = node_of_host(p);
    const sim_msg *m = port_peek(p);
    if (m)
        wake_output(n, x, injection_out(n, x, m, NULL));
}

static void net_notify_port_free(sim_comp *comp, sim_port *p)
{
    noc_net *n = (noc_net *)comp;
    if (n->prio && p == &n->prio->ctrl) {
        ctrl_drain(n);
        return;
    }
    noc_node *x = node_of_host(p);
    x->eject_blocked = false;
    wake_eject(n, x);
}

static bool net_busy(const sim_comp *comp)
{
    const noc_net *n = (const noc_net *)comp;
    if (net_in_flight(n) || (n->prio && (n->prio->ack ||
                                     port_occupancy(&n->prio->ctrl))))
        return true;
    for (uint32_t i = 0; i < n->nnodes; i++)
        if (n->nodes[i]->endpoint && port_occupancy(&n->nodes[i]->host))
            return true;
    return false;
}

static void net_visit_buffers(const sim_comp *comp, sim_buf_visit_fn fn,
                              void *ud)
{
    const noc_net *n = (const noc_net *)comp;
    for (uint32_t i = 0; i < 2 * n->nlinks; i++) {
        const noc_chan *c = n->chans[i];
        uint32_t held = 0;
        for (uint32_t v = 0; v < n->nclasses; v++)
            held += c->vc[v].count;
        fn(c->name, held, c->cfg.credits * n->nclasses, ud);
    }
}

static void net_dump(const sim_comp *comp, FILE *f)
{
    const noc_net *n = (const noc_net *)comp;
    fprintf(f, "  in_flight=%llu\n", (unsigned long long)net_in_flight(n));
    for (uint32_t i = 0; i < 2 * n->nlinks; i++) {
        const noc_chan *c = n->chans[i];
        fprintf(f, "  %s free_at=%llu", c->name,
                (unsigned long long)c->free_at);
        for (uint32_t v = 0; v < n->nclasses; v++)
            fprintf(f, " vc%u %u/%u", v, c->vc[v].count, c->cfg.credits);
        fputc('\n', f);
    }
}

static const sim_comp_ops net_ops = {
    .kind = "Net",
    .handle = net_handle,
    .notify_recv = net_notify_recv,
    .notify_port_free = net_notify_port_free,
    .busy = net_busy,
    .visit_buffers = net_visit_buffers,
    .dump = net_dump,
};

/* ---- building ------------------------------------------------------- */

noc_net *noc_net_new(sim_engine *e, const char *name, stat_registry *stats,
                     uint32_t attach_capacity)
{
    if (!name || !name_valid(name)) {
        mgs_error_set(MGS_EINVAL, "network name '%s' is not a valid name",
                      name ? name : "(null)");
        return NULL;
    }
    if (attach_capacity < 1) {
        mgs_error_set(MGS_EINVAL, "%s: attach_capacity must be >= 1", name);
        return NULL;
    }
    noc_net *n = MGS_NEW(noc_net);
    comp_init(&n->base, e, &net_ops, name, 0);
    n->stats = stats;
    n->attach_capacity = attach_capacity;
    n->nclasses = 1;
    n->cls_shift = 0;
    return n;
}

int noc_set_classes(noc_net *n, uint32_t nclasses, noc_class_fn fn,
                    void *ud)
{
    if (n->nlinks)
        return mgs_error_set(MGS_EINVAL, "%s: message classes must be set "
                             "before the first link", n->base.name);
    if (nclasses < 1 || nclasses > 8 || (nclasses > 1 && !fn))
        return mgs_error_set(MGS_EINVAL, "%s: %u message classes: need 1..8 "
                             "and a classifier for more than one",
                             n->base.name, nclasses);
    n->nclasses = nclasses;
    n->cls_shift = nclasses & (nclasses - 1)
                       ? UINT32_MAX
                       : (uint32_t)__builtin_ctz(nclasses);
    n->classify = fn;
    n->classify_ud = ud;
    return MGS_OK;
}

void noc_set_bursts(noc_net *n, const noc_burst_ops *ops)
{
    n->bursts = *ops;
}

int noc_set_priority(noc_net *n, mgs_time starve_ps, noc_ctrl_fn fn,
                     void *ud)
{
    if (n->nlinks || n->prio)
        return mgs_error_set(MGS_EINVAL, "%s: priority arbitration must be "
                             "set once, before the first link",
                             n->base.name);
    noc_prio *pr = MGS_NEW(noc_prio);
    pr->starve_ps = starve_ps;
    pr->fn = fn;
    pr->ud = ud;
    port_init(&pr->ctrl, &n->base, "ctrl", 4);
    static const char *const metric[3] = {"messages", "queue_delay_ps",
                                          "starvation_grants"};
    static const char *const unit[3] = {"count", "ps", "count"};
    stat_counter **dst[3] = {pr->messages, pr->qdelay, pr->starved};
    for (uint32_t v = 0; v < 8; v++) {
        char comp[96];
        snprintf(comp, sizeof comp, "%s.VC[%u]", n->base.name, v);
        for (int k = 0; k < 3; k++)
            dst[k][v] = n->stats && v < n->nclasses
                            ? stat_counter_add(n->stats, comp, metric[k],
                                               unit[k])
                            : &pr->own[k][v];
    }
    n->prio = pr;
    return MGS_OK;
}

sim_port *noc_ctrl_port(noc_net *n)
{
    return n->prio ? &n->prio->ctrl : NULL;
}

void noc_vc_get_stats(const noc_net *n, uint32_t vc, noc_vc_stats *out)
{
    *out = (noc_vc_stats){0};
    if (!n->prio || vc >= 8)
        return;
    out->messages = n->prio->messages[vc]->value;
    out->queue_delay_ps = n->prio->qdelay[vc]->value;
    out->starvation_grants = n->prio->starved[vc]->value;
}

static noc_node *node_new(noc_net *n, const char *kind, long index,
                          bool endpoint)
{
    char *name = name_new(n->base.name, kind, index);
    if (!name_valid(name)) {
        mgs_error_set(MGS_EINVAL, "node name '%s' is not a valid name", name);
        free(name);
        return NULL;
    }
    noc_node *x = MGS_NEW(noc_node);
    x->id = n->nnodes;
    x->eng = n->base.eng;
    x->endpoint = endpoint;
    x->name = name;
    n->nodes = mgs_xrealloc(n->nodes, (n->nnodes + 1) * sizeof(*n->nodes));
    n->nodes[n->nnodes++] = x;
    n->routed = false;
    return x;
}

int noc_endpoint_add(noc_net *n, const char *kind, long index)
{
    noc_node *x = node_new(n, kind, index, true);
    if (!x)
        return MGS_EINVAL;
    /* The interface port's local name is the node's leaf plus ".host",
    ** so it prints as "<net>.EP[3].host". */
    size_t len = strlen(name_leaf(x->name)) + sizeof ".host";
    char *local = mgs_xmalloc(len);
    snprintf(local, len, "%s.host", name_leaf(x->name));
    port_init(&x->host, &n->base, local, n->attach_capacity);
    free(local);
    /* The attachment is wiring, not a link: 1-ps cycles, any width, no
    ** latency. Its lanes still give per-sender FIFO order and
    ** back-pressure toward the attached components. */
    sim_conn_config cc = {.period = 1, .latency = 0,
                          .bytes_per_cycle = UINT32_MAX,
                          .lane_capacity = n->attach_capacity};
    char *cname = name_new(x->name, "Attach", -1);
    x->attach = conn_new(n->base.eng, cname, &cc, NULL);
    free(cname);
    conn_plug(x->attach, &x->host);
    eng_event_init(&x->eject_ev, &n->base, NOC_EV_EJECT, x);
    return (int)x->id;
}

int noc_switch_add(noc_net *n, const char *kind, long index,
                   const noc_switch_cfg *cfg)
{
    if (!cfg || cfg->latency > 1000 * MGS_PS_PER_S)
        return mgs_error_set(MGS_EINVAL, "switch latency missing or above "
                             "10^15 ps");
    noc_node *x = node_new(n, kind, index, false);
    if (!x)
        return MGS_EINVAL;
    x->sw_latency = cfg->latency;
    return (int)x->id;
}

static void node_add_port(noc_node *x, noc_chan *out, noc_chan *in)
{
    x->out = mgs_xrealloc(x->out, (x->nports + 1) * sizeof(*x->out));
    x->in = mgs_xrealloc(x->in, (x->nports + 1) * sizeof(*x->in));
    x->out[x->nports] = out;
    x->in[x->nports] = in;
    x->nports++;
}

static noc_chan *chan_new(noc_net *n, noc_node *from, noc_node *to,
                          const noc_link_cfg *cfg, const char *link_name,
                          const char *dir)
{
    noc_chan *c = MGS_NEW(noc_chan);
    c->net = n;
    c->from = from;
    c->to = to;
    c->from_port = from->nports;
    c->to_port = to->nports;
    c->cfg = *cfg;
    c->hop_delay = cfg->latency + to->sw_latency;
    c->vc = MGS_NEW_ARRAY(noc_vc, n->nclasses);
    for (uint32_t v = 0; v < n->nclasses; v++) {
        c->vc[v].chan = c;
        c->vc[v].cls = v;
        c->vc[v].ring = MGS_NEW_ARRAY(noc_pkt, cfg->credits);
        eng_event_init(&c->vc[v].in_ev, &n->base, NOC_EV_IN, &c->vc[v]);
    }
    eng_event_init(&c->out_ev, &n->base, NOC_EV_OUT, c);
    size_t len = strlen(link_name) + strlen(dir) + 2;
    c->name = mgs_xmalloc(len);
    snprintf(c->name, len, "%s.%s", link_name, dir);
    stat_counter **ctr[6] = {&c->messages, &c->packets, &c->payload,
                             &c->wire, &c->busy, &c->stalls};
    static const char *const metric[6] = {"messages", "packets",
                                          "payload_bytes", "wire_bytes",
                                          "busy_ps", "credit_stalls"};
    static const char *const unit[6] = {"count", "count", "bytes", "bytes",
                                        "ps", "count"};
    char m[64];
    for (int k = 0; k < 6; k++) {
        *ctr[k] = &c->own[k];
        if (n->stats) {
            snprintf(m, sizeof m, "%s.%s", dir, metric[k]);
            *ctr[k] = stat_counter_add(n->stats, link_name, m, unit[k]);
        }
    }
    c->qdelay = &c->own_hist;
    c->util = &c->own_tavg;
    c->own_tavg.start = c->own_tavg.last = eng_now(n->base.eng);
    if (n->stats) {
        snprintf(m, sizeof m, "%s.queue_delay", dir);
        c->qdelay = stat_hist_add(n->stats, link_name, m, "ps");
        snprintf(m, sizeof m, "%s.utilisation", dir);
        c->util = stat_tavg_add(n->stats, link_name, m, "fraction",
                                eng_now(n->base.eng));
    }
    return c;
}

int noc_link(noc_net *n, int a, int b, const noc_link_cfg *cfg)
{
    if (a < 0 || b < 0 || (uint32_t)a >= n->nnodes ||
        (uint32_t)b >= n->nnodes || a == b)
        return mgs_error_set(MGS_EINVAL, "%s: cannot link nodes %d and %d",
                             n->base.name, a, b);
    int rc = noc_link_cfg_validate(cfg);
    if (rc != MGS_OK)
        return rc;
    if (net_in_flight(n))
        return mgs_error_set(MGS_EINVAL, "%s: cannot add a link while "
                             "messages are in flight", n->base.name);
    noc_node *x = n->nodes[a], *y = n->nodes[b];
    char *lname = name_new(n->base.name, "Link", (long)n->nlinks);
    noc_chan *ab = chan_new(n, x, y, cfg, lname, "a_to_b");
    noc_chan *ba = chan_new(n, y, x, cfg, lname, "b_to_a");
    free(lname);
    node_add_port(x, ab, ba);
    node_add_port(y, ba, ab);
    n->chans = mgs_xrealloc(n->chans, 2 * (n->nlinks + 1) * sizeof(*n->chans));
    n->chans[2 * n->nlinks] = ab;
    n->chans[2 * n->nlinks + 1] = ba;
    n->routed = false;
    return (int)n->nlinks++;
}

int noc_place_endpoint(noc_net *n, int ep, sim_engine *eng)
{
    if (ep < 0 || (uint32_t)ep >= n->nnodes || !n->nodes[ep]->endpoint)
        return mgs_error_set(MGS_EINVAL, "%s: node %d is not an endpoint",
                             n->base.name, ep);
    noc_node *x = n->nodes[ep];
    if (n->prio || x->attach->nlanes > 1)
        return mgs_error_set(MGS_EINVAL, "%s: place %s before attaching "
                             "ports, without priority arbitration",
                             n->base.name, x->name);
    x->eng = eng;
    x->host.eng = eng;
    x->host.lane->eng = eng;
    comp_move_(&x->attach->base, eng);
    for (uint32_t i = 0; i < 2 * n->nlinks; i++) {
        noc_chan *c = n->chans[i];
        if (c->from->eng == c->to->eng)
            continue;
        if (!c->cross) {
            /* A credit now comes back a link latency after the receiver
            ** forwarded its packet: add the credits that cover that
            ** delay for 64-B messages (as noc_link_credits_for sizes
            ** them), so the link streams as fast as before. */
            mgs_time ser = noc_serialisation(&c->cfg, 64);
            uint64_t extra = (c->cfg.latency + (ser ? ser : 1) - 1) /
                             (ser ? ser : 1);
            if (c->cfg.credits + extra > NOC_MAX_CREDITS)
                extra = NOC_MAX_CREDITS > c->cfg.credits
                            ? NOC_MAX_CREDITS - c->cfg.credits : 0;
            c->cfg.credits += (uint32_t)extra;
            for (uint32_t v = 0; v < n->nclasses; v++)
                c->vc[v].ring = mgs_xrealloc(c->vc[v].ring,
                                             c->cfg.credits *
                                                 sizeof(noc_pkt));
        }
        c->cross = true;
        eng_crossing_add(c->from->eng, c->to->eng, c->cfg.latency, c->name);
    }
    return MGS_OK;
}

/* The earliest time switch x can start forwarding a packet on output o
** (o == nports: any output) if its partition fires nothing before e: no
** earlier than the first packet of an input ring routed there is ready
** (a ring leaves in order and its ready times grow), and a packet that
** reaches x at e or later is ready sw_latency later. */
static mgs_time switch_bound(const noc_net *n, const noc_node *x, uint32_t o,
                             mgs_time e)
{
    mgs_time t = e > MGS_TIME_MAX - x->sw_latency ? MGS_TIME_MAX
                                                  : e + x->sw_latency;
    for (uint32_t k = 0; k < x->nports; k++)
        for (uint32_t c = 0; c < n->nclasses; c++) {
            const noc_vc *v = &x->in[k]->vc[c];
            const uint32_t cap = v->chan->cfg.credits;
            for (uint32_t i = 0, j = v->head; i < v->count; i++) {
                const noc_pkt *pk = &v->ring[j];
                if (pk->ready >= t)
                    break;
                if (o == x->nports || pk->out == o) {
                    t = pk->ready;
                    break;
                }
                j = j + 1 == cap ? 0 : j + 1;
            }
        }
    if (o < x->nports && x->out[o]->free_at > t)
        t = x->out[o]->free_at;
    return t > e ? t : e;
}

/* eng_promise_fn: the earliest time a node of n in partition p can post
** to partition q if p fires nothing before e. Posts are transmissions on
** a crossing link to q (switch_bound of that output) and the credits of
** a crossing link from q (returned when the switch forwards a packet of
** that link, at a head's ready time at the earliest). */
static mgs_time net_promise(void *ud, const sim_engine *p, mgs_time e,
                            const sim_engine *q)
{
    const noc_net *n = ud;
    mgs_time b = MGS_TIME_MAX;
    for (uint32_t i = 0; i < n->nxports; i++) {
        const noc_node *x = n->xports[i].node;
        const uint32_t k = n->xports[i].port;
        if (x->eng != p)
            continue;
        const noc_chan *out = x->out[k], *in = x->in[k];
        mgs_time t = MGS_TIME_MAX;
        if (out->cross && out->to->eng == q)
            t = x->endpoint ? e : switch_bound(n, x, k, e);
        if (in->cross && in->from->eng == q && t > e) {
            mgs_time u = x->endpoint ? e
                         : e > MGS_TIME_MAX - x->sw_latency
                             ? MGS_TIME_MAX : e + x->sw_latency;
            for (uint32_t c = 0; c < n->nclasses; c++) {
                const noc_vc *v = &in->vc[c];
                if (v->count && v->ring[v->head].ready < u)
                    u = v->ring[v->head].ready > e
                            ? v->ring[v->head].ready : e;
            }
            if (u < t)
                t = u;
        }
        if (t < b)
            b = t;
    }
    return b;
}

/* After every endpoint is placed (noc_place_endpoint): the crossing
** ports, which are all the promise depends on. */
void noc_promise_register(noc_net *n)
{
    free(n->xports);
    /* Every port is one end of a link: 2 * nlinks bound the list. */
    n->xports = MGS_NEW_ARRAY(struct noc_xport, 2 * (size_t)n->nlinks + 1);
    n->nxports = 0;
    for (uint32_t i = 0; i < n->nnodes; i++) {
        noc_node *x = n->nodes[i];
        for (uint32_t k = 0; k < x->nports; k++)
            if (x->out[k]->cross || x->in[k]->cross)
                n->xports[n->nxports++] = (struct noc_xport){x, k};
    }
    eng_promise_add(n->base.eng, net_promise, n);
}

int noc_attach(noc_net *n, sim_port *port, int ep)
{
    if (ep < 0 || (uint32_t)ep >= n->nnodes || !n->nodes[ep]->endpoint)
        return mgs_error_set(MGS_EINVAL, "%s: node %d is not an endpoint",
                             n->base.name, ep);
    if (port->conn)
        return mgs_error_set(MGS_EINVAL, "%s: port %s is already plugged",
                             n->base.name, port->name);
    conn_plug_via(n->nodes[ep]->attach, port, &n->nodes[ep]->host);
    return MGS_OK;
}

int noc_route_compute(noc_net *n)
{
    return noc_route_compute_(n);
}

/* ---- queries -------------------------------------------------------- */

uint32_t noc_node_count(const noc_net *n) { return n->nnodes; }
uint32_t noc_link_count(const noc_net *n) { return n->nlinks; }
uint64_t noc_in_flight(const noc_net *n) { return net_in_flight(n); }
int noc_status(const noc_net *n) { return n->status; }

const char *noc_node_name(const noc_net *n, int node)
{
    return node >= 0 && (uint32_t)node < n->nnodes ? n->nodes[node]->name
                                                   : NULL;
}

void noc_link_get_stats(const noc_net *n, int link, int dir,
                        noc_link_stats *out)
{
    *out = (noc_link_stats){0};
    if (link < 0 || (uint32_t)link >= n->nlinks || dir < 0 || dir > 1)
        return;
    const noc_chan *c = n->chans[2 * link + dir];
    out->messages = c->messages->value;
    out->packets = c->packets->value;
    out->payload_bytes = c->payload->value;
    out->wire_bytes = c->wire->value;
    out->busy_ps = c->busy->value;
    out->credit_stalls = c->stalls->value;
    out->queue_delay_ps = c->qdelay->sum;
    out->queue_delay_max = c->qdelay->max;
}

int noc_net_check(const noc_net *n)
{
    uint64_t held = 0;
    for (uint32_t k = 0; k < 2 * n->nlinks; k++) {
        const noc_chan *c = n->chans[k];
        const uint32_t cap = c->cfg.credits;
        if (c->from->out[c->from_port] != c || c->to->in[c->to_port] != c)
            return 0;
        for (uint32_t v = 0; v < n->nclasses; v++) {
            const noc_vc *q = &c->vc[v];
            if (q->count > cap || q->head >= cap || q->chan != c)
                return 0;
            for (uint32_t i = 0; i < q->count; i++) {
                const noc_pkt *p = &q->ring[(q->head + i) % cap];
                if (p->cls != v)
                    return 0;
                if (i && p->ready < q->ring[(q->head + i - 1) % cap].ready)
                    return 0;
            }
            held += q->count;
        }
    }
    /* Between events every message taken from an interface sits in
    ** exactly one input ring. */
    return held == net_in_flight(n);
}

void noc_net_free(noc_net *n)
{
    if (!n)
        return;
    for (uint32_t i = 0; i < 2 * n->nlinks; i++) {
        for (uint32_t v = 0; v < n->nclasses; v++)
            free(n->chans[i]->vc[v].ring);
        free(n->chans[i]->vc);
        free(n->chans[i]->name);
        free(n->chans[i]);
    }
    free(n->chans);
    for (uint32_t i = 0; i < n->nnodes; i++) {
        noc_node *x = n->nodes[i];
        if (x->endpoint) {
            conn_free(x->attach);
            port_fini(&x->host);
        }
        free(x->out);
        free(x->in);
        free(x->rr);
        free(x->route);
        free(x->name);
        free(x);
    }
    free(n->nodes);
    free(n->xports);
    if (n->prio) {
        port_fini(&n->prio->ctrl);
        free(n->prio);
    }
    comp_fini(&n->base);
    free(n);
}
