/*
** DMA engine: one per GPU, performs the driver's memory copies
** (host-to-device, device-to-host, device-to-device and peer copies) as
** real memory traffic, so that copy time appears in simulated time.
**
** Ports:
**   ctrl     DMA_COPY commands from the driver; the same message comes
**            back as DMA_COPY_DONE (status, start and end times) to the
**            command's source port when the last byte is written
**   host     toward host memory over the host link (PCIe): the host side
**            is a memory component with a bandwidth, e.g. a simplemem over
**            dma_host_backing(), plugged behind the PCIe connection
**   device   toward device memory through a mem_route: the local L2 banks
**            or DRAM, and, for peer copies, the RDMA engine (rdma.h), which
**            carries the writes/reads to the peer GPU over the network
**
** Model. A copy is split into chunks of at most cfg.chunk bytes that never
** cross a chunk-aligned boundary of a device-side source or destination
** (caches require requests within one line; host memory is not cached
** here, so a misaligned host buffer does not split chunks). Each chunk is
** a read of the source space followed, when its data arrives, by a write
** of those bytes to the destination space; at most max_inflight chunks are in flight and
** chunks_per_cycle new ones start per cycle. Copies are started in the
** order their commands arrive (up to max_copies at once, later commands
** wait in the ctrl port: back-pressure on the driver); a copy completes
** when all its chunks were written.
**
** Bursts (cfg.burst > 1). On a copy with a host side, up to burst whole
** chunks in a row (device sides chunk-aligned) go as one burst: one
** host-side request for all of them (memmsg.h parts: host memory performs
** it on the slot's buffer, the network sends it as its parts back to
** back, so the link time is that of the separate chunks) and one
** device-side request per chunk (or per run of chunks one device port
** serves: device_bursts). An h2d burst reads host memory, then
** writes its chunks to the device, each when its part of the answer
** arrived (burst_first / burst_last, as the network delivered it); a d2h
** burst reads its chunks from the device, then writes host memory once
** all arrived, and counts each chunk acknowledged at its part's time. A
** burst counts its chunks against max_inflight (an h2d burst gives each
** back when its write is answered) and takes the issue slots of its
** chunks (chunks_per_cycle per cycle). Bursts ramp up and down (at most
** the chunks already started and half the whole chunks left: 1, 1, 2, 4,
** ..., burst, ..., 4, 2, 1, 1) so that a copy's stream starts and ends as
** with single chunks, and a command goes in at least min_bursts bursts
** (engines copying at once then end together). After a tick that made
** progress the engine sleeps at once when the next cycle holds nothing
** for it. A partial first or last chunk goes alone. The host
** route must lead over a network that sends a burst as its parts
** (noc_set_bursts); a plain connection carries it as one message.
**
** A fault on any chunk completes the
** copy with status MGS_EFAULT (the remaining chunks still run). A command
** that makes no sense (host to host, unknown space, address overflow,
** a host side on an engine without a host route) completes at once with
** MGS_EINVAL; a zero-byte copy completes at once
** with MGS_OK.
**
** Data is real: an h2d copy writes the host buffer's bytes into device
** memory, a d2h copy reads them back into the host buffer.
**
** Statistics: bytes_h2d, bytes_d2h, bytes_d2d, bytes_peer (d2d commands
** flagged DMA_F_PEER), copies, copy_time_total (ps) and copy_time
** (histogram, ps), faults, stall_inflight_full, stall_send_host,
** stall_send_device.
*/
#ifndef MGS_MEM_DMA_H
#define MGS_MEM_DMA_H

#include "mem/backing.h"
#include "mem/memmsg.h"
#include "sim/comp.h"
#include "sim/stats.h"

typedef enum dma_space {
    DMA_SPACE_HOST = 0,     /* host memory, through the host port */
    DMA_SPACE_DEVICE = 1    /* GPU physical memory, through the device route */
} dma_space;

enum dma_msg_type {
    DMA_COPY = 200,         /* driver -> DMA engine */
    DMA_COPY_DONE           /* DMA engine -> driver (same message) */
};

#define DMA_F_PEER (1u << 0) /* d2d between GPUs (statistics only) */

/* A copy command. The driver owns it (caller storage, not pooled); the
** engine holds it while the copy runs and hands it back as DMA_COPY_DONE. */
typedef struct dma_msg {
    sim_msg base;           /* FIRST; base.type is a dma_msg_type */
    uint8_t src_space;      /* dma_space */
    uint8_t dst_space;
    uint32_t flags;         /* DMA_F_* */
    uint64_t src, dst;      /* host addresses or physical device addresses */
    uint64_t bytes;
    void *origin;           /* driver's cookie, returned intact */
    int status;             /* DONE: MGS_OK, MGS_EFAULT or MGS_EINVAL */
    mgs_time start, end;    /* DONE: ps, copy started / last byte written */
} dma_msg;

/* A copy command from src to dst (dst port left for the caller to set). */
void dma_msg_init(dma_msg *m, dma_space src_space, uint64_t src,
                  dma_space dst_space, uint64_t dst, uint64_t bytes);

#define DMA_MAX_DEVICE_PORTS 8
#define DMA_MAX_BURST_BYTES 65536u

typedef struct dma_config {
    uint32_t chunk;             /* bytes per request (power of 2, <= 128) */
    uint32_t max_inflight;      /* chunks in flight */
    uint32_t max_copies;        /* commands being served at once */
    uint32_t chunks_per_cycle;  /* chunks started (and answers taken per
                                   port) per cycle */
    uint32_t ctrl_buffer;       /* port buffers, messages */
    uint32_t host_buffer;
    uint32_t device_buffer;
    uint32_t device_ports;      /* crossbar lanes of the device side
                                   (1..DMA_MAX_DEVICE_PORTS); chunk c's
                                   requests take lane c % device_ports */
    uint32_t burst;             /* chunks per host-side burst (1: none; burst
                                   * chunk <= DMA_MAX_BURST_BYTES) */
    uint32_t min_bursts;        /* a command goes in at least this many
                                   bursts (>= 1; dma.c burst_parts) */
    uint32_t header_bytes;      /* wire bytes of a request without payload */
    int32_t gpu;                /* mem_msg.gpu of our requests */
    bool device_noalloc;        /* device-side writes carry MEM_F_NOALLOC:
                                   they miss past the L2 into memory */
    bool device_bursts;         /* a burst's device side goes in runs:
                                   one request per run of its lines that
                                   one device port serves (at most 64
                                   parts), an h2d run written once its
                                   last part came, instead of one request
                                   per chunk; needs device_noalloc and,
                                   below, a plain write-back L2 bank (no
                                   protocol) over a DRAM controller
                                   (cache.c, dram.c) */
    mgs_time period;            /* ps */
} dma_config;

void dma_config_default(dma_config *c);  /* 64 B chunks, 128 in flight */
int dma_config_validate(const dma_config *c);

typedef struct dma_engine dma_engine;

/* cfg must validate; stats may be NULL. */
dma_engine *dma_new(sim_engine *eng, const char *name, const dma_config *cfg,
                    mem_pool *pool, stat_registry *stats);
void dma_free(dma_engine *d);

sim_port *dma_ctrl(dma_engine *d);
sim_port *dma_host(dma_engine *d);
sim_port *dma_device(dma_engine *d);     /* device lane 0 */
/* Device lane i (cfg.device_ports of them; NULL past the last): each is
** plugged into the GPU's crossbar. */
sim_port *dma_device_lane(dma_engine *d, uint32_t i);
/* Where host and device requests go (copied). The device route is
** required; without a host route (no host link: the shared-memory
** platform) host-side commands fail with MGS_EINVAL. */
void dma_set_host_route(dma_engine *d, const mem_route *route);
void dma_set_device_route(dma_engine *d, const mem_route *route);

/* The simulated host's memory is the simulator process's memory: a host
** address is a pointer value. The driver validates every host range it
** puts in a command (it allocated or received the buffer). */
void dma_host_backing(mem_backing *out);

/* Chunks in flight now (tests, watchdog). */
uint32_t dma_inflight(const dma_engine *d);

/* Invariants (slots, copies, queues consistent). Returns 1. */
int dma_check(const dma_engine *d);

#endif
