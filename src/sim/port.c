/*
** Ports: bounded incoming rings plus the send/retrieve entry points.
**
** Invariants: 0 <= count <= capacity; buf[(head + i) % capacity] for
** i < count are the buffered messages in arrival order. A lane is on
** blocked list iff its head is waiting for room here.
*/
#include "sim/port.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "sim/conn.h"
#include "sim/engine_int.h"
#include "util/xmalloc.h"

void port_init(sim_port *p, sim_comp *owner, const char *local_name,
               uint32_t capacity)
{
    assert(capacity >= 1);
    *p = (sim_port){0};
    p->comp = owner;
    p->eng = owner->eng;
    size_t n = strlen(owner->name) + 1 + strlen(local_name) + 1;
    p->name = mgs_xmalloc(n);
    snprintf(p->name, n, "%s.%s", owner->name, local_name);
    p->buf = MGS_NEW_ARRAY(sim_msg *, capacity);
    p->capacity = capacity;
    if (owner->ports_tail)
        owner->ports_tail->next = p;
    else
        owner->ports = p;
    owner->ports_tail = p;
}

void port_fini(sim_port *p)
{
    conn_cross_port_fini_(p);
    free(p->buf);
    free(p->name);
    p->buf = NULL;
    p->name = NULL;
}

int port_send(sim_port *p, sim_msg *m)
{
    assert(p->conn && "port not plugged into a connection");
    /* That m->dst is on the same connection is checked at delivery
    ** (conn.c), where the destination port is read anyway: here it would
    ** cost a host cache miss per send. */
    assert(m->dst && "message without a destination");
    m->src = p;
    return conn_accept_(p->conn, p, m);
}

bool port_can_send(const sim_port *p)
{
    return p->lane->count < p->conn->cfg.lane_capacity;
}

sim_msg *port_retrieve(sim_port *p)
{
    if (p->count == 0)
        return NULL;
    sim_msg *m = p->buf[p->head];
    p->head = p->head + 1 == p->capacity ? 0 : p->head + 1;
    p->count--;
    sim_engine *e = p->eng;
    e->same_time_events = 0; /* eng_note_progress */
    eng_note_forward_(e->now, &e->forward_time, e->events,
                      &e->forward_events);
    if (p->blocked || p->xwait)
        conn_port_freed_(p);
    return m;
}
