/*
** The interconnect: links, switches and network interfaces between
** components that live on different chips (GPUs, memory stacks, the host).
**
** Model. A network (noc_net) is a graph of nodes joined by full-duplex
** point-to-point links. A node is an ENDPOINT (a network interface that
** component ports attach to) or a SWITCH (N ports, a routing table, input
** buffers, round-robin arbitration per output, a switching latency).
** Each direction of a link is a channel: a serialiser at the sender's
** output and a bounded input buffer at the receiver. Flow control is
** credit based: a message may start on the wire only while the receiver's
** input buffer (credits messages, counting those still on the wire) has a
** free slot; the credit comes back when the receiver forwards the message.
**
** Timing of one hop, for a message of B payload bytes sent at time t on a
** channel with bandwidth bw (bytes/s), latency L (ps), header H, payload P:
**     packets = max(1, ceil(B / P));   wire = B + packets * H
**     ser     = ceil(wire * 10^12 / bw)  ps
**     the sender's output is busy [t, t + ser);
**     the message reaches the receiver at t + ser + L, and is eligible to
**     leave a switch switch_latency later (store and forward).
** A lone message therefore takes  sum over hops (ser + L) + sum over
** switches switch_latency, plus 1 ps at each attachment (the engine
** connection that joins a component's port to its endpoint serialises a
** non-empty message in one 1-ps cycle; see noc.md).
**
** Message classes (noc_set_classes) give every link direction one input
** buffer per class (virtual channels), so a blocked class cannot block
** another inside the network.
**
** Arbitration is per message: all packets of a message leave back to back.
** Routing is by destination endpoint, fixed by noc_route_compute: shortest
** path in hops, only switches forward, ties broken by the lowest port
** index at each node (ports are numbered in noc_link call order). Every
** buffer is FIFO and a (source, destination) pair always takes the same
** path, so messages between one source port and one destination port
** arrive in send order.
**
** Transparency. noc_attach(n, port, ep) plugs a component's port into the
** endpoint's attachment connection. The component sends exactly as over a
** direct connection: m->dst = the final destination port (attached to some
** endpoint of the same network), port_send(port, m). The endpoint wraps the
** message in a packet (source and destination endpoint), the network
** carries it, and the destination endpoint delivers the ORIGINAL message
** pointer to m->dst with m->src restored to the original sender port, so
** replies addressed to m->src travel back through the network too.
**
** Ownership: the net owns its nodes, links, attachment connections and
** names; it never owns messages (they stay the sender's). Build order:
** noc_net_new, noc_set_classes (optional, before any link), then
** noc_endpoint_add / noc_switch_add, noc_link, noc_attach (any order
** among those), then noc_route_compute before the first send.
*/
#ifndef MGS_NOC_NOC_H
#define MGS_NOC_NOC_H

#include <stdint.h>

#include "sim/engine.h"
#include "sim/port.h"
#include "sim/stats.h"

typedef struct noc_net noc_net;

typedef struct noc_link_cfg {
    uint64_t bandwidth;    /* bytes/s per direction (>= 1) */
    mgs_time latency;      /* ps from the last byte leaving to arrival */
    uint32_t header_bytes; /* per packet on the wire */
    uint32_t max_payload;  /* bytes of payload per packet (>= 1) */
    uint32_t credits;      /* receiver input buffer, messages (>= 1) */
} noc_link_cfg;

typedef struct noc_switch_cfg {
    mgs_time latency;      /* ps from arrival to eligible for output */
} noc_switch_cfg;

/* 16 GB/s, 100 ns, 16-B header per 256-B payload, 64 credits. */
void noc_link_cfg_default(noc_link_cfg *cfg);
/* MGS_OK or MGS_EINVAL naming the bad field. */
int noc_link_cfg_validate(const noc_link_cfg *cfg);
/* Credits that keep a channel streaming msg_bytes messages at full
** bandwidth: the messages that fit in one latency plus serialisation time,
** plus slack for the forwarding delay at the receiver. */
/* The most credits noc_link_credits_for gives (see there). */
#define NOC_MAX_CREDITS 65536u
uint32_t noc_link_credits_for(const noc_link_cfg *cfg, uint32_t msg_bytes,
                              mgs_time forward_delay);

/* Wire bytes, packets and serialisation time (ps) of a B-byte message. */
uint32_t noc_packets(const noc_link_cfg *cfg, uint32_t bytes);
uint64_t noc_wire_bytes(const noc_link_cfg *cfg, uint32_t bytes);
mgs_time noc_serialisation(const noc_link_cfg *cfg, uint32_t bytes);

/* A network named name (e.g. "PCIe"); stats may be NULL. Per-direction
** link statistics are registered under "<name>.Link[i]". attach_capacity
** (>= 1) is the message buffer of each endpoint's interface port and of
** each attachment lane. */
noc_net *noc_net_new(sim_engine *e, const char *name, stat_registry *stats,
                     uint32_t attach_capacity);
void noc_net_free(noc_net *n);

/* Message classes (virtual channels). Each link direction then keeps
** one input buffer with `credits` slots per class, and arbitration skips
** a class that has no credit, so one blocked class (e.g. requests) never
** blocks another (responses) inside the network: the usual cure for
** request/response protocol deadlock. fn maps a message to its class;
** results >= nclasses use the last class. Call before the first noc_link;
** nclasses in [1, 8] (1, the default, needs no fn). */
typedef uint32_t (*noc_class_fn)(const sim_msg *m, void *ud);
int noc_set_classes(noc_net *n, uint32_t nclasses, noc_class_fn fn,
                    void *ud);

/* Strict-priority virtual-channel arbitration at the switches (the PCIe
** scheduling of seed 002 §4.3.3.2; docs/pcie-scheduling.md). With it, each
** switch output serves, among the input heads that are ready and have a
** credit, the one of the highest class (class = VC; VC nclasses-1 is the
** highest), ties in round-robin order; but a head that has waited at least
** starve_ps since it became ready is served first (the oldest such head):
** the anti-starvation threshold. Endpoints keep round robin. Without this
** call every output is round robin (the default, and the fast path).
** The net then has a control port (noc_ctrl_port, plug it to a
** connection): every message arriving there is given to fn(m, ud) (e.g. a
** new TC-to-VC map for the classifier) and sent back to its sender as the
** acknowledgement; the sender owns it. Per-VC statistics go to
** "<net>.VC[v]": messages, queue_delay_ps (ready to start on the wire),
** starvation_grants. Call after noc_set_classes, before the first link. */
typedef void (*noc_ctrl_fn)(const sim_msg *m, void *ud);
int noc_set_priority(noc_net *n, mgs_time starve_ps, noc_ctrl_fn fn,
                     void *ud);
sim_port *noc_ctrl_port(noc_net *n);
/* Per-VC totals of a net with priority arbitration (zero otherwise). */
typedef struct noc_vc_stats {
    uint64_t messages, queue_delay_ps, starvation_grants;
} noc_vc_stats;
void noc_vc_get_stats(const noc_net *n, uint32_t vc, noc_vc_stats *out);

/* Bursts (noc.md "Bursts"): a message of parts(m) = k > 1 parts is k
** messages of m->bytes each sent back to back, carried in one event per
** hop (noc_mem_bursts, topo.h: a DMA engine's host-side bursts).
** last_ready(m) (may be NULL) is the earliest time its last part may
** leave its sender (0: with its first; a responder that answers part by
** part). A burst is delivered when its first part arrived, and arrived(m,
** first, last) (may be NULL) tells the receiver when its first and last
** parts reached the destination endpoint (those between evenly spaced),
** so it can act on each part at its time. Without this call every
** message is one part. Before the first send; ops is copied. */
typedef struct noc_burst_ops {
    uint32_t (*parts)(const sim_msg *m);
    mgs_time (*last_ready)(const sim_msg *m);
    void (*arrived)(sim_msg *m, mgs_time first, mgs_time last);
} noc_burst_ops;
void noc_set_bursts(noc_net *n, const noc_burst_ops *ops);

/* Node ids are dense from 0 in creation order; endpoints and switches
** share the id space. Names are "<net>.<kind>[index]" (index < 0: none).
** Return the node id, or MGS_EINVAL (bad name). */
int noc_endpoint_add(noc_net *n, const char *kind, long index);
int noc_switch_add(noc_net *n, const char *kind, long index,
                   const noc_switch_cfg *cfg);
/* Joins nodes a and b with a full-duplex link ("a_to_b" and "b_to_a"
** directions). Returns the link index (>= 0) or MGS_EINVAL. */
int noc_link(noc_net *n, int a, int b, const noc_link_cfg *cfg);
/* Attaches a component's unplugged port to endpoint ep. Several ports may
** share an endpoint (they share its interface, in arrival order). */
int noc_attach(noc_net *n, sim_port *port, int ep);
/* Parallel engine (sim/partition.h): endpoint ep and its attachment act in
** partition eng (the switches stay in the net's). Links whose ends are in
** different partitions become crossings: a packet reaches the receiver by
** a post a link latency after it started, and each credit returns to the
** sender one link latency after the receiver forwarded the packet (in a
** single partition the credit returns at once). Call after the links and
** before any noc_attach to ep. */
int noc_place_endpoint(noc_net *n, int ep, sim_engine *eng);
/* Parallel engine: registers the network's promise for its own partition
** (eng_promise_add): a switch forwards nothing before the head of an
** input is ready, and a packet that reaches it later waits its switch
** latency, so the partition posts nothing before the earliest of those.
** Only valid when the network makes every post of its partition. */
void noc_promise_register(noc_net *n);
/* Fills every node's routing table. MGS_EINVAL if some endpoint cannot
** reach another one. */
int noc_route_compute(noc_net *n);

/* ---- queries (for builders, tests and reports) ---------------------- */
uint32_t noc_node_count(const noc_net *n);
uint32_t noc_link_count(const noc_net *n);
const char *noc_node_name(const noc_net *n, int node);
/* Links on the route from endpoint src to endpoint dst (0 if equal), or -1
** if there is none. Valid after noc_route_compute. */
int noc_route_hops(const noc_net *n, int src, int dst);
/* The endpoint a port is attached to, or -1. */
int noc_endpoint_of(const noc_net *n, const sim_port *port);

/* Per-direction totals of link l (dir 0: a_to_b, 1: b_to_a). */
typedef struct noc_link_stats {
    uint64_t messages, packets, payload_bytes, wire_bytes;
    uint64_t busy_ps;        /* time the serialiser was sending */
    uint64_t credit_stalls;  /* arbitrations that found no credit */
    uint64_t queue_delay_ps; /* sum of (start on wire - ready to send) */
    uint64_t queue_delay_max;
} noc_link_stats;
void noc_link_get_stats(const noc_net *n, int link, int dir,
                        noc_link_stats *out);
/* Messages inside the network (taken from an interface, not yet
** delivered to their destination port). */
uint64_t noc_in_flight(const noc_net *n);
/* MGS_OK, or MGS_ESIM once a message could not be routed (its
** destination port is not attached to this network, or routes are
** missing); the net then stopped the engine (eng_stop) and recorded one
** line with mgs_error_set. A platform checks this after eng_run. */
int noc_status(const noc_net *n);
/* 1 if every invariant of noc_int.h holds (for tests and asserts). */
int noc_net_check(const noc_net *n);

#endif
