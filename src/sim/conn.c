/*
** Connections: per-source lanes with a serialiser, latency and
** back-pressure. See conn.h for the timing formula.
**
** Lane invariants:
**   - slots[(head + i) % cap], i < count, are in send order; their
**     arrive values are non-decreasing (one serialiser per lane); each
**     slot holds its message's destination (deliver_to or m->dst) and
**     arrive_time, copied at send.
**   - ev is scheduled iff count > 0, !blocked and !retrying; it fires at
**     max(head->arrive_time, time the lane was unblocked). A retrying
**     lane (count > 0) is on a retry chain whose first lane's ev is
**     scheduled at the time of the unblocking (conn_port_freed_).
**   - blocked iff the lane is on its head's destination blocked list.
*/
#include "sim/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "sim/engine_int.h"
#include "util/xmalloc.h"

void conn_config_default(sim_conn_config *cfg)
{
    cfg->period = 1000; /* 1 GHz */
    cfg->latency = 1000;
    cfg->bytes_per_cycle = 64;
    cfg->lane_capacity = 4;
}

int conn_config_validate(const sim_conn_config *cfg)
{
    /* Bounds keep every arrival time far from 64-bit overflow. */
    if (cfg->period < 1 || cfg->period > MGS_PS_PER_S)
        return mgs_error_set(MGS_EINVAL,
                             "connection period = %llu ps: must be in "
                             "[1, 10^12]", (unsigned long long)cfg->period);
    if (cfg->latency > 1000 * MGS_PS_PER_S)
        return mgs_error_set(MGS_EINVAL,
                             "connection latency = %llu ps: must be at most "
                             "10^15 (1000 s)",
                             (unsigned long long)cfg->latency);
    if (cfg->bytes_per_cycle < 1)
        return mgs_error_set(MGS_EINVAL,
                             "connection bytes_per_cycle must be >= 1");
    if (cfg->lane_capacity < 1)
        return mgs_error_set(MGS_EINVAL,
                             "connection lane_capacity must be >= 1");
    return MGS_OK;
}

static void notify_recv(sim_engine *e, sim_port *p)
{
    sim_comp *owner = p->comp;
    if (owner->ops->notify_recv)
        ENG_AS_CURRENT_(e, owner, owner->ops->notify_recv(owner, p));
    else
        comp_wake(owner);
}

static void notify_port_free(sim_engine *e, sim_port *p)
{
    sim_comp *owner = p->comp;
    if (owner->ops->notify_port_free)
        ENG_AS_CURRENT_(e, owner, owner->ops->notify_port_free(owner, p));
    else
        comp_wake(owner);
}

/* The notifications for conn_cross.c (kept static above for the hot
** path). */
void conn_notify_recv_(sim_engine *e, sim_port *p) { notify_recv(e, p); }
void conn_notify_port_free_(sim_engine *e, sim_port *p)
{
    notify_port_free(e, p);
}

int conn_accept_(sim_conn *c, sim_port *p, sim_msg *m)
{
    if (MGS_UNLIKELY(c->mixed))
        return conn_cross_accept_(c, p, m);
    conn_lane *l = p->lane;
    const uint32_t cap = c->cfg.lane_capacity;
    if (l->count == cap) {
        p->sender_waiting = true;
        stat_inc(c->refused);
        return MGS_EBUSY;
    }
    sim_engine *e = c->base.eng;
    const mgs_time period = c->cfg.period;
    /* link_free is always a clock edge, so while the link is busy it is
    ** the start time; only an idle link needs the (dividing) alignment. */
    mgs_time start = l->link_free >= e->now
        ? l->link_free
        : mgs_edge_at_or_after(e->now, period);
    /* Message sizes repeat; remember the last size's occupancy. */
    if (m->bytes != c->last_bytes) {
        c->last_bytes = m->bytes;
        c->last_occupancy =
            (m->bytes + (uint64_t)c->cfg.bytes_per_cycle - 1) /
            c->cfg.bytes_per_cycle * period;
    }
    l->link_free = start + c->last_occupancy;
    m->send_time = e->now;
    m->arrive_time = l->link_free + c->cfg.latency;
    uint32_t tail = l->head + l->count;
    tail = tail >= cap ? tail - cap : tail;
    l->slots[tail] = (conn_slot){m, l->deliver_to ? l->deliver_to : m->dst,
                                 m->arrive_time};
    l->count++;
    c->in_flight++;
    stat_inc(c->msgs);
    stat_addn(c->bytes, m->bytes);
    if (l->count == 1 && !l->blocked)
        eng_schedule_any_(e, &l->ev, m->arrive_time);
    if (eng_hooked_(e, SIM_HOOK_PORT_SEND)) {
        sim_hook_ctx ctx = {.pos = SIM_HOOK_PORT_SEND, .now = e->now,
                            .comp = p->comp, .port = p, .msg = m};
        eng_fire_hooks_(e, &ctx);
    }
    return MGS_OK;
}

/* The lane's head is due: deliver it if its destination has room. */
static void lane_deliver(sim_conn *c, conn_lane *l)
{
    sim_engine *e = c->base.eng;
    const uint32_t cap = c->cfg.lane_capacity;
    /* The message itself is not read here: it is likely out of the host
    ** cache (sent long ago), and the receiver reads it anyway. */
    sim_msg *m = l->slots[l->head].msg;
    sim_port *dst = l->slots[l->head].dst;
    assert((l->deliver_to || dst->conn == c) &&
           "destination must be plugged into the same connection");
    if (dst->count == dst->capacity) {
        l->blocked = true;
        l->next_blocked = NULL;
        if (dst->blocked_tail)
            dst->blocked_tail->next_blocked = l;
        else
            dst->blocked = l;
        dst->blocked_tail = l;
        stat_inc(c->blocked);
        return;
    }
    __builtin_prefetch(m); /* the receiver reads it at its next tick */
    uint32_t slot = dst->head + dst->count;
    dst->buf[slot >= dst->capacity ? slot - dst->capacity : slot] = m;
    dst->count++;
    dst->received++;
    l->head = l->head + 1 == cap ? 0 : l->head + 1;
    l->count--;
    c->in_flight--;
    e->same_time_events = 0; /* eng_note_progress, without the call */
    if (l->count) {
        mgs_time t = l->slots[l->head].arrive;
        eng_schedule_any_(e, &l->ev, t > e->now ? t : e->now);
    }
    if (eng_hooked_(e, SIM_HOOK_PORT_RECV)) {
        sim_hook_ctx ctx = {.pos = SIM_HOOK_PORT_RECV, .now = e->now,
                            .comp = dst->comp, .port = dst, .msg = m};
        eng_fire_hooks_(e, &ctx);
    }
    notify_recv(e, dst);
    sim_port *src = l->src;
    if (src->sender_waiting) {
        src->sender_waiting = false;
        notify_port_free(e, src);
    }
}

void conn_port_freed_(sim_port *p)
{
    if (p->xwait)
        conn_cross_retry_(p);
    /* Every waiting lane retries at this time, in the order they blocked;
    ** those that lose the race re-block at the tail (round robin). The
    ** retries would be consecutive events (scheduled together, nothing
    ** can come between them), so one event, the first lane's, runs them
    ** all in that order (conn_handle follows the chain through
    ** next_blocked): the same deliveries, wake-ups and order, without an
    ** event per lane that mostly finds the port full again. */
    conn_lane *l = p->blocked;
    p->blocked = p->blocked_tail = NULL;
    if (!l)
        return;
    for (conn_lane *x = l; x; x = x->next_blocked) {
        x->blocked = false;
        x->retrying = true;
    }
    sim_engine *e = l->conn->base.eng;
    eng_schedule_any_(e, &l->ev, e->now);
}

static bool lane_on_list(const conn_lane *l, const sim_port *dst)
{
    for (const conn_lane *x = dst->blocked; x; x = x->next_blocked)
        if (x == l)
            return true;
    return false;
}

int conn_check(const sim_conn *c)
{
    const uint32_t cap = c->cfg.lane_capacity;
    uint64_t total = 0;
    for (uint32_t i = 0; i < c->nlanes; i++) {
        const conn_lane *l = c->lanes[i];
        if (l->count > cap || l->head >= cap || l->src->lane != l)
            return 0;
        total += l->count;
        for (uint32_t k = 1; k < l->count; k++)
            if (l->slots[(l->head + k) % cap].msg->arrive_time <
                l->slots[(l->head + k - 1) % cap].msg->arrive_time)
                return 0;
        if (l->blocked !=
            (l->count > 0 &&
             lane_on_list(l, l->deliver_to ? l->deliver_to
                                           : l->slots[l->head].msg->dst)))
            return 0;
        if (l->ev.scheduled && (l->count == 0 || l->blocked))
            return 0;
        if (l->retrying && (l->count == 0 || l->blocked))
            return 0;
    }
    return total == c->in_flight;
}

static void conn_handle(sim_comp *comp, sim_event *ev)
{
    sim_conn *c = (sim_conn *)comp;
    conn_lane *l = ev->data;
    if (MGS_UNLIKELY(c->mixed)) {
        conn_cross_lane_free_(c, l);
        return;
    }
    if (!l->retrying) {
        lane_deliver(c, l);
        return;
    }
    /* A retry chain (conn_port_freed_): each lane in blocking order. */
    while (l) {
        conn_lane *next = l->next_blocked;
        l->next_blocked = NULL;
        l->retrying = false;
        lane_deliver(l->conn, l);
        l = next;
    }
}

static bool conn_busy(const sim_comp *comp)
{
    return ((const sim_conn *)comp)->in_flight > 0;
}

static void conn_visit_buffers(const sim_comp *comp, sim_buf_visit_fn fn,
                               void *ud)
{
    const sim_conn *c = (const sim_conn *)comp;
    for (uint32_t i = 0; i < c->nlanes; i++)
        fn(c->lanes[i]->name, c->lanes[i]->count, c->cfg.lane_capacity, ud);
}

static void conn_dump(const sim_comp *comp, FILE *f)
{
    const sim_conn *c = (const sim_conn *)comp;
    for (uint32_t i = 0; i < c->nlanes; i++) {
        const conn_lane *l = c->lanes[i];
        fprintf(f, "  %s %u/%u%s link_free=%llu\n", l->name, l->count,
                c->cfg.lane_capacity, l->blocked ? " (blocked)" : "",
                (unsigned long long)l->link_free);
    }
}

static const sim_comp_ops conn_ops = {
    .kind = "Conn",
    .handle = conn_handle,
    .busy = conn_busy,
    .visit_buffers = conn_visit_buffers,
    .dump = conn_dump,
};

sim_conn *conn_new(sim_engine *e, const char *name,
                   const sim_conn_config *cfg, stat_registry *stats)
{
    assert(conn_config_validate(cfg) == MGS_OK);
    sim_conn *c = MGS_NEW(sim_conn);
    comp_init(&c->base, e, &conn_ops, name, 0);
    c->cfg = *cfg;
    c->last_bytes = 0;
    c->last_occupancy = 0; /* 0 bytes occupy 0 cycles */
    c->msgs = &c->own[0];
    c->bytes = &c->own[1];
    c->refused = &c->own[2];
    c->blocked = &c->own[3];
    if (stats) {
        c->msgs = stat_counter_add(stats, name, "messages", "count");
        c->bytes = stat_counter_add(stats, name, "bytes", "bytes");
        c->refused = stat_counter_add(stats, name, "refused", "count");
        c->blocked = stat_counter_add(stats, name, "blocked", "count");
    }
    return c;
}

void conn_plug(sim_conn *c, sim_port *p)
{
    assert(!p->conn && "port already plugged");
    /* The lane and its ring in one block: a send or a delivery touches
    ** both, so they share host cache lines. */
    const size_t cap = c->cfg.lane_capacity;
    conn_lane *l = mgs_xcalloc(1, sizeof *l + cap * sizeof(conn_slot));
    l->slots = (conn_slot *)(l + 1);
    l->conn = c;
    l->eng = p->eng;
    l->src = p;
    size_t n = strlen(c->base.name) + strlen(p->name) + 8;
    l->name = mgs_xmalloc(n);
    snprintf(l->name, n, "%s.lane(%s)", c->base.name, p->name);
    eng_event_init(&l->ev, &c->base, 0, l);
    c->lanes = mgs_xrealloc(c->lanes, (c->nlanes + 1) * sizeof(*c->lanes));
    c->lanes[c->nlanes++] = l;
    p->conn = c;
    p->lane = l;
    conn_cross_plugged_(c, l);
}

void conn_plug_via(sim_conn *c, sim_port *p, sim_port *via)
{
    assert(via && via->conn == c && "via must be plugged into c");
    conn_plug(c, p);
    p->lane->deliver_to = via;
}

void conn_free(sim_conn *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; i < c->nlanes; i++) {
        free(c->lanes[i]->name);
        free(c->lanes[i]);
    }
    free(c->lanes);
    comp_fini(&c->base);
    free(c);
}
