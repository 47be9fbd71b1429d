/*
** Ports and messages: the only way components talk to each other.
**
** A port belongs to one component and is plugged into one connection
** (sim/conn.h). It has a bounded incoming buffer (a ring of message
** pointers). The connection provides the outgoing side: each plugged port
** owns a bounded lane in its connection.
**
** Send. port_send(p, m) hands m (with m->dst set) to p's connection.
**   0          the connection owns m until it enters m->dst's buffer;
**   MGS_EBUSY  p's lane is full; the sender still owns m, and the owner's
**              notify_port_free(p) runs exactly when a lane slot frees.
** Receive. When a message enters p's buffer the owner's notify_recv(p)
** runs. port_retrieve pops it (the receiver then owns it); if a connection
** was holding a message because the buffer was full, it delivers at once
** (same simulated time).
**
** Messages. Concrete message types embed sim_msg FIRST. Memory for
** messages belongs to whoever allocated them (pools per component); the
** engine only passes pointers.
*/
#ifndef MGS_SIM_PORT_H
#define MGS_SIM_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/engine.h"

struct sim_msg {
    sim_port *src;        /* set by port_send */
    sim_port *dst;        /* set by the sender */
    uint64_t id;          /* sender-defined, e.g. request id */
    uint32_t bytes;       /* size on the wire; sets link occupancy */
    uint32_t type;        /* sender/receiver-defined message kind */
    mgs_time send_time;   /* ps; set by each port_send (last hop) */
    mgs_time arrive_time; /* ps; when it reaches dst's buffer at the
                             earliest (set by the connection) */
};

typedef struct conn_lane conn_lane;

struct port_xwait;

struct sim_port {
    sim_comp *comp;       /* owner */
    sim_engine *eng;      /* partition of the buffer: the owner's, unless
                             the owner spans partitions (a network) */
    char *name;           /* owned; "<owner>.<local>" */
    sim_conn *conn;       /* NULL until plugged */
    conn_lane *lane;      /* this port's outgoing lane in conn */
    sim_msg **buf;        /* incoming ring, capacity entries */
    uint32_t capacity, head, count;
    bool sender_waiting;  /* a send was refused; notify when lane frees */
    conn_lane *blocked;   /* lanes waiting for room here (FIFO list) */
    conn_lane *blocked_tail;
    sim_port *next;       /* next port of the same component */
    uint64_t received;    /* messages that entered the buffer */
    struct port_xwait *xwait; /* crossing deliveries waiting for room
                                 (conn_cross.c); NULL until one waits */
};

/* Initialises p (caller storage, typically embedded in the owner) with an
** incoming buffer of capacity >= 1 messages, named "<owner>.<local>". */
void port_init(sim_port *p, sim_comp *owner, const char *local_name,
               uint32_t capacity);
void port_fini(sim_port *p);

int port_send(sim_port *p, sim_msg *m);
/* Whether a send would be accepted now. */
bool port_can_send(const sim_port *p);
/* For a sender that found port_can_send false and did not try port_send:
** notify_port_free(p) runs when a lane slot frees, as after a refusal. */
static inline void port_notify_when_free(sim_port *p)
{
    p->sender_waiting = true;
}

/* Head of the incoming buffer, or NULL; stays in the buffer. */
static inline sim_msg *port_peek(const sim_port *p)
{
    return p->count ? p->buf[p->head] : NULL;
}
/* Pops the head of the incoming buffer (NULL if empty). */
sim_msg *port_retrieve(sim_port *p);

static inline uint32_t port_occupancy(const sim_port *p) { return p->count; }
static inline bool port_full(const sim_port *p)
{
    return p->count == p->capacity;
}

#endif
