/*
** Internal structures of the interconnect (see noc.h for the model).
**
** The whole network is ONE engine component (noc_net.base): the engine
** lets components talk only through ports and connections, and a
** connection cannot model packets, credits or switch arbitration, so the
** hops inside a network are function calls on plain structs, driven by
** the net's own events. The boundary to the rest of the simulator is
** ports only: each endpoint's interface port ("host") sits on the
** endpoint's attachment connection, next to the attached component ports.
**
** Invariants:
**   - Each virtual channel's ring is the receiver's input buffer for that
**     class; it holds the messages on the wire AND those waiting at the
**     receiver, in send order, with non-decreasing ready times;
**     count <= credits.
**   - chan.out_ev is pending when the sender's output arbitration is due
**     (it defers itself to free_at); vc.in_ev when the ring's head is not
**     yet announced to the receiver's output.
**   - Input slots of a node: s < nports * nclasses is class s % nclasses
**     of in[s / nclasses]; s == nports * nclasses is the endpoint's
**     injection queue (its host port buffer). Output index o < nports is
**     out[o]; o == nports is the endpoint's ejection. rr[o] is the next
**     slot output o tries.
**   - net.in_flight counts messages taken from a host port and not yet
**     accepted by the destination's attachment lane.
*/
#ifndef MGS_NOC_NOC_INT_H
#define MGS_NOC_NOC_INT_H

#include <stdbool.h>

#include "noc/noc.h"
#include "sim/comp.h"
#include "sim/conn.h"

#define NOC_NO_ROUTE UINT32_MAX

enum { NOC_EV_OUT = 1, NOC_EV_IN = 2, NOC_EV_EJECT = 3 };

typedef struct noc_node noc_node;

/* A message inside the network, stored by value in input rings. */
typedef struct noc_pkt {
    sim_msg *msg;      /* the original message, never copied */
    mgs_time ready;    /* ps: eligible to leave the receiving node */
    mgs_time tail;     /* ps: a burst's last part is (== ready otherwise) */
    uint32_t src_ep, dst_ep;
    uint32_t out;      /* output index at the receiving node */
    uint16_t cls;      /* message class (virtual channel) */
    uint16_t parts;    /* a burst's (noc_set_bursts), else 1 */
} noc_pkt;

typedef struct noc_chan noc_chan;

/* One virtual channel (message class) of a channel: its own input buffer
** and credits at the receiver, so a blocked class never blocks another. */
typedef struct noc_vc {
    noc_chan *chan;
    uint32_t cls;
    noc_pkt *ring;        /* cfg.credits entries */
    uint32_t head, count;
    uint32_t used;        /* crossing channel: credits the sender holds
                             (its own count; the ring is the receiver's) */
    sim_event in_ev;      /* the head is ready at the receiver */
} noc_vc;

struct noc_chan {
    struct noc_net *net;
    noc_node *from, *to;
    uint32_t from_port, to_port;
    noc_link_cfg cfg;
    mgs_time hop_delay;   /* cfg.latency + switch latency of `to` */
    noc_vc *vc;           /* net nclasses entries */
    mgs_time free_at;     /* serialiser free from this time */
    sim_event out_ev;
    uint32_t memo_bytes;  /* last message size ... */
    uint32_t memo_packets;
    uint64_t memo_wire;
    mgs_time memo_ser;    /* ... and its packets, wire bytes, ser time */
    bool cross;           /* ends in different partitions (noc_place) */
    char *name;           /* owned; "<net>.Link[i].a_to_b" */
    stat_counter *messages, *packets, *payload, *wire, *busy, *stalls;
    stat_hist *qdelay;
    stat_tavg *util;
    stat_counter own[6];
    stat_hist own_hist;
    stat_tavg own_tavg;
};

struct noc_node {
    uint32_t id;
    bool endpoint;
    sim_engine *eng;      /* the node's partition (noc_place_endpoint) */
    int64_t in_flight;    /* injected here minus ejected here */
    char *name;           /* owned */
    mgs_time sw_latency;  /* 0 for endpoints */
    uint32_t nports;
    noc_chan **out, **in; /* per port */
    uint32_t *rr;         /* per output (nports + 1): next input to try */
    uint32_t *route;      /* per node id: output index or NOC_NO_ROUTE */
    /* endpoints only */
    sim_port host;        /* interface port on the attachment connection */
    sim_conn *attach;
    sim_event eject_ev;
    bool eject_blocked;   /* host lane full; notify_port_free resumes */
};

struct noc_net {
    sim_comp base;        /* first */
    stat_registry *stats;
    uint32_t attach_capacity;
    noc_node **nodes;
    uint32_t nnodes;
    noc_chan **chans;     /* link l: chans[2l] a_to_b, chans[2l+1] b_to_a */
    uint32_t nlinks;
    bool routed;
    int status;           /* MGS_OK, or the first simulation error */
    uint32_t nclasses;    /* virtual channels per channel (>= 1) */
    uint32_t cls_shift;   /* log2(nclasses) when it is a power of two, else
                             UINT32_MAX: input slot s is channel
                             s / nclasses, class s % nclasses, and the
                             arbiters' scans avoid the division */
    noc_class_fn classify;
    void *classify_ud;
    /* noc_set_priority: strict priority at the switches (NULL: round
    ** robin everywhere). */
    struct noc_prio *prio;
    noc_burst_ops bursts; /* noc_set_bursts (parts NULL: no bursts) */
    /* noc_promise_register: the ports whose channel in or out crosses
    ** partitions, the only ones net_promise needs to look at. */
    struct noc_xport { noc_node *node; uint32_t port; } *xports;
    uint32_t nxports;
};

/* Strict-priority arbitration state (noc_set_priority). */
typedef struct noc_prio {
    mgs_time starve_ps;       /* anti-starvation threshold */
    noc_ctrl_fn fn;
    void *ud;
    sim_port ctrl;            /* control port (maps in, acks out) */
    sim_msg *ack;             /* an acknowledgement the port refused */
    bool last_starved;        /* the last grant was an anti-starvation one */
    stat_counter *messages[8], *qdelay[8], *starved[8];
    stat_counter own[3][8];
} noc_prio;

/* route.c */
int noc_route_compute_(noc_net *n);

#endif
