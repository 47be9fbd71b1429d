/*
** Connections across partitions (model in conn.h, "crossings").
**
** A mixed connection keeps the timing formula of conn.h (start, transfer,
** latency), but no state is shared between the sender's and the
** receiver's partitions while they run:
**   - sender side (its partition): the lane holds a message from the send
**     until its last byte left the serialiser (link_free); then the slot
**     frees and a sender that was refused is notified;
**   - the message travels as a post (sim/partition.h) due at its arrival
**     time, at least `latency` after the send: the crossing's lookahead;
**   - receiver side (its partition): the post puts the message into the
**     destination buffer, or, when the buffer is full, at the tail of the
**     port's xwait FIFO; a retrieve that makes room retries the head of
**     that FIFO at the same simulated time (a post to itself).
** So a full receiver never blocks the sender's lane: the receiver-side
** FIFO plays the part of the link's buffer. Mixed connections carry
** commands and completions (driver, DMA commands), a few messages per
** launch or copy, so the FIFO stays short.
**
** Counters shared by both sides (the connection's statistics, in_flight)
** are updated with atomic adds: their final values do not depend on the
** order of the updates.
*/
#include <stdio.h>
#include <stdlib.h>

#include "mgsim/errors.h"
#include "sim/conn.h"
#include "sim/engine_int.h"
#include "sim/partition.h"
#include "util/xmalloc.h"

/* Messages waiting for room in one port's buffer, oldest first. */
typedef struct port_xwait {
    sim_msg **v;
    uint32_t head, n, cap;
    bool retry_pending;       /* a retry post is scheduled */
} port_xwait;

static inline void atomic_add(uint64_t *x, int64_t d)
{
    __atomic_fetch_add(x, (uint64_t)d, __ATOMIC_RELAXED);
}

/* Puts m into dst's buffer (room checked) and tells the owner. */
static void deliver_into(sim_engine *e, sim_conn *c, sim_port *dst,
                         sim_msg *m)
{
    uint32_t slot = dst->head + dst->count;
    dst->buf[slot >= dst->capacity ? slot - dst->capacity : slot] = m;
    dst->count++;
    dst->received++;
    atomic_add(&c->in_flight, -1);
    e->same_time_events = 0;
    if (eng_hooked_(e, SIM_HOOK_PORT_RECV)) {
        sim_hook_ctx ctx = {.pos = SIM_HOOK_PORT_RECV, .now = e->now,
                            .comp = dst->comp, .port = dst, .msg = m};
        eng_fire_hooks_(e, &ctx);
    }
    conn_notify_recv_(e, dst);
}

static void xwait_push(sim_port *p, sim_msg *m)
{
    port_xwait *w = p->xwait;
    if (!w)
        w = p->xwait = MGS_NEW(port_xwait);
    if (w->n == w->cap) {
        uint32_t cap = w->cap ? 2 * w->cap : 8;
        sim_msg **v = mgs_xmalloc(cap * sizeof *v);
        for (uint32_t i = 0; i < w->n; i++)
            v[i] = w->v[(w->head + i) % w->cap];
        free(w->v);
        w->v = v;
        w->head = 0;
        w->cap = cap;
    }
    w->v[(w->head + w->n) % w->cap] = m;
    w->n++;
}

/* The post of a message at its arrival (receiver's partition). */
static void cross_arrive(sim_engine *e, void *conn, void *msg, uint64_t x)
{
    (void)x;
    sim_conn *c = conn;
    sim_msg *m = msg;
    sim_port *dst = m->dst;
    if (dst->count < dst->capacity && !(dst->xwait && dst->xwait->n)) {
        deliver_into(e, c, dst, m);
        return;
    }
    atomic_add(&c->blocked->value, 1);
    xwait_push(dst, m);
}

/* A retrieve made room: the oldest waiting messages go in. */
static void cross_retry(sim_engine *e, void *port, void *unused, uint64_t x)
{
    (void)unused;
    (void)x;
    sim_port *p = port;
    port_xwait *w = p->xwait;
    w->retry_pending = false;
    while (w->n && p->count < p->capacity) {
        sim_msg *m = w->v[w->head];
        w->head = (w->head + 1) % w->cap;
        w->n--;
        /* The sender's port is plugged into the connection that
        ** carried it. */
        deliver_into(e, m->src->conn, p, m);
    }
}

void conn_cross_retry_(sim_port *p)
{
    port_xwait *w = p->xwait;
    if (!w->n || w->retry_pending)
        return;
    w->retry_pending = true;
    eng_post(p->eng, p->eng, p->eng->now, p->comp, cross_retry, p, NULL, 0);
}

int conn_cross_accept_(sim_conn *c, sim_port *p, sim_msg *m)
{
    conn_lane *l = p->lane;
    sim_engine *e = l->eng;
    const uint32_t cap = c->cfg.lane_capacity;
    if (l->count == cap) {
        p->sender_waiting = true;
        atomic_add(&c->refused->value, 1);
        return MGS_EBUSY;
    }
    assert(!l->deliver_to && "networks attach within one partition");
    const mgs_time period = c->cfg.period;
    mgs_time start = l->link_free >= e->now
        ? l->link_free
        : mgs_edge_at_or_after(e->now, period);
    l->link_free = start + (m->bytes + (uint64_t)c->cfg.bytes_per_cycle -
                            1) / c->cfg.bytes_per_cycle * period;
    m->send_time = e->now;
    m->arrive_time = l->link_free + c->cfg.latency;
    uint32_t tail = l->head + l->count;
    tail = tail >= cap ? tail - cap : tail;
    /* The slot frees when the serialiser is done with the message. */
    l->slots[tail] = (conn_slot){m, m->dst, l->link_free};
    l->count++;
    atomic_add(&c->in_flight, 1);
    atomic_add(&c->msgs->value, 1);
    atomic_add(&c->bytes->value, m->bytes);
    if (l->count == 1)
        eng_schedule_any_(e, &l->ev, l->link_free);
    sim_port *dst = m->dst;
    assert(dst->conn == c && "destination must be on the same connection");
    assert((!c->star || e == c->base.eng || dst->eng == c->base.eng) &&
           "a star connection's message between two other partitions");
    eng_post(e, dst->eng, m->arrive_time, dst->comp, cross_arrive, c, m, 0);
    if (eng_hooked_(e, SIM_HOOK_PORT_SEND)) {
        sim_hook_ctx ctx = {.pos = SIM_HOOK_PORT_SEND, .now = e->now,
                            .comp = p->comp, .port = p, .msg = m};
        eng_fire_hooks_(e, &ctx);
    }
    return MGS_OK;
}

void conn_cross_lane_free_(sim_conn *c, conn_lane *l)
{
    sim_engine *e = l->eng;
    const uint32_t cap = c->cfg.lane_capacity;
    l->head = l->head + 1 == cap ? 0 : l->head + 1;
    l->count--;
    if (l->count) {
        mgs_time t = l->slots[l->head].arrive;
        eng_schedule_any_(e, &l->ev, t > e->now ? t : e->now);
    }
    sim_port *src = l->src;
    if (src->sender_waiting) {
        src->sender_waiting = false;
        conn_notify_port_free_(e, src);
    }
}

void conn_cross_plugged_(sim_conn *c, conn_lane *l)
{
    if (l->eng != c->base.eng)
        c->mixed = true;
    if (!c->mixed)
        return;             /* every lane so far in the connection's */
    if (c->star) {
        sim_engine *hub = c->base.eng;
        eng_crossing_add(hub, l->eng, c->cfg.latency, c->base.name);
        eng_crossing_add(l->eng, hub, c->cfg.latency, c->base.name);
        return;
    }
    for (uint32_t i = 0; i < c->nlanes; i++) {
        sim_engine *o = c->lanes[i]->eng;
        if (o == l->eng)
            continue;
        c->mixed = true;
        eng_crossing_add(o, l->eng, c->cfg.latency, c->base.name);
        eng_crossing_add(l->eng, o, c->cfg.latency, c->base.name);
    }
}

void conn_set_star(sim_conn *c)
{
    assert(!c->nlanes && "conn_set_star before the first plug");
    c->star = true;
}

void conn_cross_port_fini_(sim_port *p)
{
    if (!p->xwait)
        return;
    free(p->xwait->v);
    free(p->xwait);
    p->xwait = NULL;
}
