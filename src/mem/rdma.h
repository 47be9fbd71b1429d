/*
** RDMA engine: one per GPU, the path of a memory access whose physical
** address is homed on another GPU (seed 002 §5.3, Fig. 5.8a, "direct cache
** access"): L1 miss -> local RDMA engine -> network -> home GPU's RDMA
** engine -> home L2 -> and the response back the same way.
**
** Ports:
**   inside   requests from this GPU's L1s (or L2s) for REMOTE addresses;
**            each is answered here once every part came back
**   outside  to and from the other GPUs' RDMA engines (network side):
**            forwarded requests go out, their responses come in; remote
**            requests come in, their responses go out
**   local    toward this GPU's L2 banks: remote requests are issued here
**            through a mem_route and their responses come back here
** The crossbar side is xbar_ports ports wide (a crossbar lane carries one
** message at a time): requests arrive on `inside` only, answers leave on
** any of the xbar_ports inside lanes ("inside", "inside1", ...), and
** remote parts go to the L2 banks on local lane (addr / line) %
** xbar_ports ("local", "local1", ...), so parts of one line keep their
** order. rdma_plug plugs every lane into the crossbar.
**
** Model. Addresses are physical. The home GPU of an address is
** addr / bytes_per_gpu, or whatever a home map installed with
** rdma_set_home_map says (page-interleaved unified platforms). A request
** from inside is split at line boundaries (cfg.line: remote packets carry
** at most one cache line, seed 002 §3.6); each part is one outgoing
** transaction. A forwarded request carries the requester's GPU in
** mem_msg.gpu and the transaction in mem_msg.origin, so the home engine
** answers the right engine (the peer table, rdma_set_peers) and the
** requester finds its transaction in O(1). Atomics are one part and are
** performed at the home (its L2). Flush / invalidate on inside are
** answered at once: the engine holds no data.
**
** Flow control (deadlock freedom). Outgoing transactions (parts in flight
** to homes) are bounded by outgoing_entries, requests being served for
** remote engines by incoming_entries. Requests and responses share the
** outside port, so a request stuck at the head of a full incoming table
** could block the responses behind it on both sides at once. The engine
** therefore keeps per-home credits (like PCIe non-posted credits): at
** most credits_per_home parts in flight to each home. With
** credits_per_home * (ngpus - 1) <= incoming_entries on every engine
** (validated; the automatic sizes satisfy it), a request arriving from
** outside always finds an incoming entry, and responses are always
** consumed.
**
** Back-pressure is real: a full outgoing table or no credit stops taking
** from inside (the L1's sends are then refused); a refused send on any
** port holds that port's FIFO until the connection frees a slot.
**
** Statistics (per engine): out_reads, out_writes, out_atomics (parts sent
** to homes), in_reads, in_writes, in_atomics (remote parts served),
** bytes_out, bytes_in (wire bytes on outside), remote_latency (ps from
** taking a request from inside to handing its answer back, histogram),
** stall_outgoing_full, stall_credits, stall_incoming_full,
** stall_send_inside, stall_send_outside, stall_send_local, faults
** (address homed here or on no GPU), ctrl (flush/invalidate answered).
*/
#ifndef MGS_MEM_RDMA_H
#define MGS_MEM_RDMA_H

#include "mem/memmsg.h"
#include "sim/comp.h"
#include "sim/conn.h"
#include "sim/stats.h"

typedef struct rdma_config {
    uint32_t gpu;               /* this engine's GPU index */
    uint32_t ngpus;             /* GPUs in the platform (1: host frames only) */
    uint64_t bytes_per_gpu;     /* default home map: addr / bytes_per_gpu */
    uint32_t line;              /* bytes per remote packet (power of 2) */
    uint32_t outgoing_entries;  /* parts in flight to homes (and requests
                                   from inside being answered) */
    uint32_t incoming_entries;  /* remote parts being served locally;
                                   0 = auto: credits * (ngpus - 1) */
    uint32_t credits_per_home;  /* parts in flight to one home; 0 = auto:
                                   outgoing_entries, or incoming_entries /
                                   (ngpus - 1) if incoming is given and
                                   smaller */
    uint32_t header_bytes;      /* wire bytes of a message without payload */
    uint32_t inside_buffer;     /* port buffers, messages */
    uint32_t outside_buffer;
    uint32_t local_buffer;
    uint32_t requests_per_cycle; /* messages taken per cycle from each side
                                    (inside, outside, the local lanes) */
    uint32_t xbar_ports;        /* crossbar lanes: inside and local each
                                   (1..RDMA_MAX_XBAR_PORTS) */
    mgs_time period;            /* ps */
} rdma_config;

#define RDMA_MAX_XBAR_PORTS 16u

/* 64 B lines, 1024 outgoing entries, automatic credits and incoming
** entries, 4 messages per cycle, 4 crossbar lanes, 1 GHz, 4 GB per GPU
** (sources in docs/rdma.md, "Parameters"). */
void rdma_config_default(rdma_config *c);
/* MGS_OK or MGS_EINVAL naming the key (rdma.*) and its rule. */
int rdma_config_validate(const rdma_config *c);
/* The per-home credits and incoming entries the engine will use (resolve
** auto). */
uint32_t rdma_config_credits(const rdma_config *c);
uint32_t rdma_config_incoming(const rdma_config *c);

typedef struct rdma_engine rdma_engine;

/* cfg must validate; pool supplies messages; stats may be NULL. */
rdma_engine *rdma_new(sim_engine *eng, const char *name,
                      const rdma_config *cfg, mem_pool *pool,
                      stat_registry *stats);
void rdma_free(rdma_engine *r);

sim_port *rdma_inside(rdma_engine *r);
sim_port *rdma_outside(rdma_engine *r);
sim_port *rdma_local(rdma_engine *r);
/* Plugs every crossbar lane (inside and local, xbar_ports each) into
** xbar: call it instead of plugging rdma_inside and rdma_local. */
void rdma_plug(rdma_engine *r, sim_conn *xbar);
/* The same with the inside lanes on one connection and the local lanes on
** another (remote data cached in L2: the L2 banks' bottoms send remote
** misses on their memory connection; coherence.remote_cache = l2). */
void rdma_plug_split(rdma_engine *r, sim_conn *inside, sim_conn *local);

/* The outside ports of every GPU's engine, indexed by GPU (entry cfg.gpu
** may be this engine's own). Copied. Required before simulating. */
void rdma_set_peers(rdma_engine *r, sim_port *const *outside_ports,
                    uint32_t n);
/* Where remote requests go on this GPU (its L2 banks). Copied. Required. */
void rdma_set_local_route(rdma_engine *r, const mem_route *route);

/* Host frames (docs/rdma.md, "Host frames"): parts whose home is ngpus
** (addr / bytes_per_gpu == ngpus, the window after the last GPU's memory)
** go on the `host` port to host_memory (a memory component behind the
** host link; its answers come back on `host`), with credits_per_home
** credits of their own. Without it (the default) they fault. stats may
** be NULL; with it the engine registers host_parts, host_bytes_out and
** host_bytes_in. */
sim_port *rdma_host(rdma_engine *r);
void rdma_set_host(rdma_engine *r, sim_port *host_memory,
                   stat_registry *stats);

/* Replaces the default home map (addr / bytes_per_gpu). The function
** returns the home GPU of a physical address, or a value >= ngpus for an
** address no GPU owns (answered with MEM_F_FAULT). ud is borrowed. */
typedef uint32_t (*rdma_home_fn)(void *ud, uint64_t paddr);
void rdma_set_home_map(rdma_engine *r, rdma_home_fn fn, void *ud);
/* The home GPU of paddr under the engine's map. */
uint32_t rdma_home_of(const rdma_engine *r, uint64_t paddr);

/* A route for the level above (L1 bottoms): addresses in [local_base,
** local_limit) go interleaved over the local ports (like
** mem_route_interleaved), every other address to the RDMA engine's inside
** port. local_ports is borrowed. */
void rdma_route_split(mem_route *route, sim_port **local_ports,
                      uint32_t nlocal, uint32_t interleave,
                      uint64_t local_base, uint64_t local_limit,
                      sim_port *rdma_inside_port);

/* Entries in use now: requests from inside being answered, parts in
** flight to homes, remote parts being served (tests, watchdog). */
void rdma_occupancy(const rdma_engine *r, uint32_t *parents,
                    uint32_t *outgoing, uint32_t *incoming);

/* Invariants (tables, credits, queues consistent). Returns 1. */
int rdma_check(const rdma_engine *r);

#endif
