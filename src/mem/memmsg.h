/*
** The memory protocol: the messages every memory-system component speaks
** (compute unit -> L1 -> L2 -> DRAM and back, TLBs, command processor
** control), and the per-simulation message pool they come from.
**
** A request travels down; the component that completes it answers with a
** response addressed to the request's base.src port and pointing back at the
** request (rsp->req). Whoever allocated a message frees it to the pool when
** done with it: the requester frees both its request and the response it
** received (responses are allocated by the responder and their ownership
** passes with delivery). Components never look inside another component;
** everything they learn arrives in these messages.
**
** Data is real: a write request carries the bytes it writes (data[0..size),
** byte-enable mask for partial writes), a read response carries the bytes
** read. Requests never cross a line boundary of the cache that receives
** them (the coalescer and caches split).
**
**   type           direction  meaning
**   MEM_READ       down       read size bytes at addr
**   MEM_WRITE      down       write data[i] where mask bit i is set
**   MEM_ATOMIC     down       read-modify-write at the level that owns the
**                             line (L2 / home node); rsp carries the old value
**   MEM_READ_RSP   up         data[0..size) valid
**   MEM_WRITE_RSP  up         write done (and visible at the responder)
**   MEM_ATOMIC_RSP up         data[0..atomic_size) = old value
**   MEM_FLUSH      down/ctrl  write back dirty lines (then invalidate if
**                             MEM_F_INVALIDATE); rsp when complete
**   MEM_INVALIDATE down/ctrl  drop clean lines (L1 at kernel launch)
**   MEM_CTRL_RSP   up         flush / invalidate complete
**   MEM_XLATE      down       address translation request (TLB/MMU)
**   MEM_XLATE_RSP  up         paddr valid (or fault)
**   MEM_INV_LINE   up         unsolicited, from below (a directory): drop
**                             the line at addr (writing back its dirty
**                             bytes first); answered with MEM_INV_ACK
**   MEM_INV_ACK    down       the line is gone (sent after its write-back)
**
** Protocol fields. coh[] and sharers belong to the coherence protocol
** (timestamps, leases, sharer sets); no core component reads them.
** Whoever sets them also declares their wire size with mem_msg_set_coh_bytes
** (added to base.bytes, so links charge for them). mem_msg_response does
** not copy them: a response carries what its responder puts there (it
** reads the request's through rsp->req). A component that forwards a
** request or an answer unchanged (a cache's bypass reads, forwarded
** writes and atomics) relays them with mem_msg_copy_coh.
*/
#ifndef MGS_MEM_MEMMSG_H
#define MGS_MEM_MEMMSG_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/port.h"

#define MEM_LINE_MAX 128   /* bytes: largest line any cache may use */

typedef enum mem_msg_type {
    MEM_READ = 1,
    MEM_WRITE,
    MEM_ATOMIC,
    MEM_READ_RSP,
    MEM_WRITE_RSP,
    MEM_ATOMIC_RSP,
    MEM_FLUSH,
    MEM_INVALIDATE,
    MEM_CTRL_RSP,
    MEM_XLATE,
    MEM_XLATE_RSP,
    MEM_INV_LINE,
    MEM_INV_ACK,
    MEM_MSG_TYPE_COUNT
} mem_msg_type;

/* Flags. */
#define MEM_F_GLC        (1u << 0)  /* globally coherent: bypass/force L1 */
#define MEM_F_SLC        (1u << 1)  /* system coherent / streaming */
#define MEM_F_INVALIDATE (1u << 2)  /* FLUSH: also invalidate */
#define MEM_F_FAULT      (1u << 3)  /* response: translation fault */
#define MEM_F_INST       (1u << 4)  /* instruction fetch */
#define MEM_F_SCALAR     (1u << 5)  /* scalar (SMEM) access */
#define MEM_F_PHYS       (1u << 6)  /* addr is physical (translated) */
#define MEM_F_NOALLOC    (1u << 7)  /* write: a write-back cache that misses
                                       sends it below without allocating
                                       (a DMA copy writing memory) */
#define MEM_F_TC         (1u << 8)  /* tc holds a PCIe traffic class */
#define MEM_F_GPS_PUB    (1u << 9)  /* a GPS publication to a replica (not
                                       published again; src/coh/gps/) */
#define MEM_F_COPY       (1u << 10) /* written by a DMA engine (a runtime
                                       copy), not by a kernel */
#define MEM_F_XWRITE     (1u << 14) /* XLATE (and the walker's fault): the
                                       translation is for a write or atomic,
                                       so a read-only mapping does not do */
#define MEM_F_READONLY   (1u << 15) /* XLATE_RSP: the mapping is read-only
                                       (a replica, docs/memory-management.md);
                                       a write through it must ask again */

typedef struct mem_msg {
    sim_msg base;          /* FIRST; base.type is a mem_msg_type */
    uint64_t addr;         /* byte address: virtual above the TLB, physical
                              below it (MEM_F_PHYS) */
    uint64_t paddr;        /* XLATE_RSP: translated address */
    uint32_t size;         /* bytes accessed (<= MEM_LINE_MAX) */
    uint32_t flags;        /* MEM_F_* */
    uint32_t pid;          /* address space */
    int32_t gpu;           /* originating GPU (routing, statistics) */
    struct mem_msg *req;   /* response: the request it answers */
    void *origin;          /* requester's private cookie, returned intact */
    uint64_t mask;         /* WRITE: byte i of data valid (size <= 64);
                              all ones = whole access */
    uint16_t atomic_op;    /* ATOMIC: a gcn_op atomic opcode */
    uint8_t atomic_size;   /* ATOMIC: 4 or 8 */
    uint8_t tc;            /* MEM_F_TC: PCIe traffic class N_T * ID_D +
                              ID_T (seed 002 Eq. 4.1: N_T = 2, ID_D the
                              destination GPU, ID_T 0 request / 1
                              response); a response gets its request's
                              class with ID_T = 1 */
    uint16_t parts;        /* a burst (>= 2; 0 or 1: one access): parts
                              consecutive accesses of size bytes each from
                              addr, whose bytes are in bulk, not data. A
                              DMA engine's host side: on a link it is parts
                              messages of base.bytes each, back to back
                              (docs/platforms.md), served by host memory;
                              its device side (at most 64 whole lines of
                              one L2 bank, mask bit i = part i, base.bytes
                              the whole payload): served by a plain L2 bank
                              and a DRAM controller (docs/memory.md) */
    uint64_t atomic_src;   /* ATOMIC: operand */
    uint64_t atomic_cmp;   /* ATOMIC: compare value (cmpswap) */
    mgs_time issue_time;   /* ps: when the requester issued it (latency) */
    sim_port *reply_to;    /* request: where responses go (NULL: base.src).
                              A translator that forwards a request in place
                              sets it to the requester's port, so the answer
                              skips the translator, as in hardware. */
    uint64_t vaddr;        /* request: the requester's own address; a
                              translator replaces addr, never vaddr */
    uint64_t span;         /* FLUSH / INVALIDATE: the lines of [addr, addr +
                              span) only; 0 = the whole cache. XLATE_RSP:
                              the mapping covers the span-aligned span bytes
                              around addr (a PASI piece); 0 = one page */
    uint64_t coh[2];       /* protocol fields: timestamps, leases... */
    uint64_t sharers;      /* protocol field: sharer set (bit per agent) */
    uint32_t coh_bytes;    /* wire bytes of the protocol fields carried,
                              included in base.bytes */
    /* Everything above is zeroed by mem_msg_alloc; data is not (it is
    ** 128 bytes, and every writer fills the bytes it declares in size). */
    uint8_t data[MEM_LINE_MAX];
    /* Bursts (parts >= 2) only, else undefined (not zeroed, like data). */
    uint8_t *bulk;         /* size * parts bytes, the requester's buffer,
                              written by a read's responder, read by a
                              write's */
    mgs_time burst_first;  /* ps, received: when its first and last parts */
    mgs_time burst_last;   /* reached the receiver (a network carrying
                              bursts delivers a burst at its first part and
                              sets both, noc_mem_bursts; else 0). Sending:
                              burst_last is the earliest its last part may
                              leave (0: with the first) */
} mem_msg;

/* A free list of messages shared by one simulation (one engine). Not a
** component: allocation infrastructure, like malloc. Deterministic (LIFO). */
typedef struct mem_pool mem_pool;

mem_pool *mem_pool_new(void);
/* Fails (assert) if messages are still out: every message must come back. */
void mem_pool_free(mem_pool *p);
/* For a simulation that stopped early (an error, sim.max_events, the
** watchdog, a signal): messages still in flight are expected and go with
** the slabs. */
void mem_pool_free_stopped(mem_pool *p);
/* A message of the given type with every field zeroed except mask = all
** ones (a write covers its whole access unless a mask is set) and data
** (undefined until written). Never fails (grows by slabs). */
mem_msg *mem_msg_alloc(mem_pool *p, mem_msg_type type);
void mem_msg_release(mem_pool *p, mem_msg *m);
uint64_t mem_pool_outstanding(const mem_pool *p);

/* A response to req (type READ_RSP/WRITE_RSP/ATOMIC_RSP/CTRL_RSP/XLATE_RSP/
** INV_ACK chosen from req's type), addressed to req->reply_to or else
** req->base.src, with addr, vaddr, size, flags, pid, gpu, origin,
** issue_time copied and rsp->req = req (protocol fields are not copied). */
mem_msg *mem_msg_response(mem_pool *p, const mem_msg *req);

/* Declares that m carries n wire bytes of protocol fields (replacing what
** it declared before): base.bytes changes by the difference. */
static inline void mem_msg_set_coh_bytes(mem_msg *m, uint32_t n)
{
    m->base.bytes = m->base.bytes - m->coh_bytes + n;
    m->coh_bytes = n;
}

/* Copies the protocol fields of src into dst, with their wire size. */
static inline void mem_msg_copy_coh(mem_msg *dst, const mem_msg *src)
{
    dst->coh[0] = src->coh[0];
    dst->coh[1] = src->coh[1];
    dst->sharers = src->sharers;
    mem_msg_set_coh_bytes(dst, src->coh_bytes);
}

/* Where a component sends a request for an address: the lower-level port
** (an L2 bank chosen by interleaving, a DRAM channel, an RDMA engine...).
** Implementations live in src/mem/addrmap.c. */
typedef struct mem_route {
    sim_port *(*route)(const struct mem_route *r, uint64_t addr);
    sim_port **ports;      /* candidates */
    uint32_t nports;
    uint32_t interleave;   /* bytes per interleaving unit (power of 2) */
    uint64_t base;         /* first address served (for range routing) */
    uint64_t limit;
    sim_port *single;      /* mem_route_single: the target (kept inside the
                              route so that copies stay valid; ports is NULL) */
} mem_route;

/* Single target (stored in r->single; r->ports is NULL). */
void mem_route_single(mem_route *r, sim_port *p);
/* Interleaved: port = (addr / interleave) % nports. ports is borrowed. */
void mem_route_interleaved(mem_route *r, sim_port **ports, uint32_t nports,
                           uint32_t interleave);
static inline sim_port *mem_route_lookup(const mem_route *r, uint64_t addr)
{
    return r->route(r, addr);
}
/* How many of the addresses addr + k * step (k < n), from the first, go
** to addr's port (>= 1 for n >= 1; a DMA burst's run of lines: dma.c). */
uint32_t mem_route_run_length(const mem_route *r, uint64_t addr, uint32_t n,
                              uint64_t step);

#endif
