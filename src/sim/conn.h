/*
** Connections: links that carry messages between plugged ports with a
** latency and a bandwidth.
**
** Model. Every plugged port gets its own lane: a bounded FIFO plus a
** serialiser running on the connection's clock (so N senders together get
** N x bytes_per_cycle, like point-to-point full-duplex links; a shared
** medium such as a bus or a switch egress port is a component of its own,
** src/noc). A message of B bytes sent
** at time t starts on the link at
**     start  = max(first edge of the connection clock >= t, lane free time)
** occupies it for ceil(B / bytes_per_cycle) cycles, and reaches the
** destination buffer at
**     arrive = start + ceil(B / bytes_per_cycle) * period + latency
** (latency in ps; conn_config_set_latency_cycles converts). So a lone
** message takes exactly transfer + latency, and back-to-back messages
** arrive exactly ceil(B/bw) cycles apart.
**
** Order. A lane is FIFO, so messages from one source to one destination
** arrive in send order (and so do all messages from one source).
**
** Back-pressure. If the destination buffer is full when the head arrives,
** the head waits in the lane (blocking the lane, like a real link) until
** the receiver retrieves a message; then it is delivered at that same time.
** While a lane holds lane_capacity messages, port_send refuses with
** MGS_EBUSY; the sender is notified when the head leaves.
**
** The connection is a component (no clock ticks; one event per lane, for
** the head's delivery). Its lanes report to the watchdog as
** "<conn>.lane(<src port>)".
*/
#ifndef MGS_SIM_CONN_H
#define MGS_SIM_CONN_H

#include "sim/comp.h"
#include "sim/port.h"
#include "sim/stats.h"

typedef struct sim_conn_config {
    mgs_time period;           /* connection clock, ps (>= 1) */
    mgs_time latency;          /* ps after the last byte left the lane */
    uint32_t bytes_per_cycle;  /* link width (>= 1) */
    uint32_t lane_capacity;    /* messages queued per source (>= 1) */
} sim_conn_config;

void conn_config_default(sim_conn_config *cfg); /* 1 GHz, 1 cy, 64 B, 4 */
static inline void conn_config_set_latency_cycles(sim_conn_config *cfg,
                                                  uint64_t cycles)
{
    cfg->latency = cycles * cfg->period;
}
/* MGS_OK or MGS_EINVAL with a message naming the field. */
int conn_config_validate(const sim_conn_config *cfg);

/* One queued message with its destination and arrival time, copied at
** send so that delivery need not read the (cold) message. */
typedef struct conn_slot {
    sim_msg *msg;
    sim_port *dst;        /* deliver_to or msg->dst */
    mgs_time arrive;      /* msg->arrive_time */
} conn_slot;

struct conn_lane {
    /* Send and delivery read these first (one host cache line). */
    uint32_t head, count;
    conn_slot *slots;     /* ring, capacity = conn lane_capacity; in the
                             lane's own allocation, right after it */
    mgs_time link_free;   /* when the serialiser can start the next msg */
    sim_port *src;
    sim_port *deliver_to; /* NULL: each message goes to its m->dst; else
                             every message goes here, m->dst untouched
                             (network attachment, see conn_plug_via) */
    bool blocked;         /* head waits for room at its destination */
    bool retrying;        /* on a retry chain (conn_port_freed_) */
    conn_lane *next_blocked; /* in the destination port's blocked list,
                                or the next lane of a retry chain */
    sim_conn *conn;
    sim_engine *eng;      /* the sender's partition: runs ev */
    sim_event ev;         /* delivery of the head */
    char *name;           /* owned; "<conn>.lane(<src>)" */
};

struct sim_conn {
    sim_comp base;
    sim_conn_config cfg;
    conn_lane **lanes;    /* one per plugged port, in plug order */
    uint32_t nlanes;
    uint64_t in_flight;   /* messages in all lanes */
    uint32_t last_bytes;  /* memo of the last message size ... */
    mgs_time last_occupancy; /* ... and its link time, ps */
    stat_counter *msgs, *bytes, *refused, *blocked;
    stat_counter own[4];  /* targets of the above when no registry */
    bool mixed;           /* ports in several partitions (conn_cross.c) */
    bool star;            /* conn_set_star */
};

/* cfg must validate. stats may be NULL; otherwise the counters messages,
** bytes, refused (sends answered MGS_EBUSY) and blocked (head found its
** destination full) are registered under name. */
sim_conn *conn_new(sim_engine *e, const char *name,
                   const sim_conn_config *cfg, stat_registry *stats);
void conn_free(sim_conn *c);
/* Plugs p (not yet plugged) into c, creating its lane. */
void conn_plug(sim_conn *c, sim_port *p);
/* Plugs p like conn_plug, but its lane delivers every message to via (a
** port already plugged into c) instead of m->dst, leaving m->dst as the
** sender set it. A network (src/noc) attaches a component's port this way:
** the component addresses the final destination port as with a direct
** connection, and the network's interface port receives the message. */
void conn_plug_via(sim_conn *c, sim_port *p, sim_port *via);

/* Declares that every message on c goes to or comes from a port in c's
** own partition (the driver's command connection to the GPUs' DMA
** engines): the parallel engine then declares crossings only between that
** partition and the others, not between every two partitions with a port
** (sim/partition.h; a message between two others fails an assert). Call
** before the first conn_plug. */
void conn_set_star(sim_conn *c);

/* 1 if every lane's invariants hold (see conn.c); for tests and asserts. */
int conn_check(const sim_conn *c);

/* Used by port_send: accepts m from p into p's lane or returns MGS_EBUSY. */
int conn_accept_(sim_conn *c, sim_port *p, sim_msg *m);
/* Used by port_retrieve: p has room again; restart lanes blocked on it. */
void conn_port_freed_(sim_port *p);

/* ---- crossings (conn_cross.c) --------------------------------------- */
/* A connection whose ports sit in different partitions (sim/partition.h)
** is "mixed": every message then leaves its lane when its serialisation
** ends and reaches its destination by a post at its arrival time; a full
** destination keeps it in a receiver-side FIFO (the port's xwait) until a
** retrieve makes room. The sender's lane, the receiver's buffer and FIFO
** are each touched by their own partition only. */
int conn_cross_accept_(sim_conn *c, sim_port *p, sim_msg *m);
void conn_cross_lane_free_(sim_conn *c, conn_lane *l);
void conn_cross_retry_(sim_port *p);
void conn_cross_plugged_(sim_conn *c, conn_lane *l);
void conn_cross_port_fini_(sim_port *p);
void conn_notify_recv_(sim_engine *e, sim_port *p);
void conn_notify_port_free_(sim_engine *e, sim_port *p);

#endif
