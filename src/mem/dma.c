/*
** DMA engine (see dma.h for the model).
**
** State, bounded and allocated at construction:
**   copies[max_copies]    commands being served: bytes issued, bytes
**                         finished, chunks out, status
**   issue FIFO            copies with chunks left to start, in command
**                         order (only its head issues)
**   slots[max_inflight]   chunks (or bursts of chunks) in flight: stage
**                         READ (waiting for the source data) or WRITE
**                         (waiting for the write acknowledgements); every
**                         request's origin points at its slot; a burst's
**                         buffer is allocated on the slot's first burst
**   send FIFOs            host and device (each <= max_inflight: a slot has
**                         at most one request waiting), ctrl (<= max_copies)
**   device runs           (cfg.device_bursts) a burst's device side goes
**                         as one request per run of lines that one device
**                         port serves (at most 64): an h2d burst's run is
**                         written once its last part came, a d2h burst's
**                         runs are read at once
**   wake_ev[]             the engine sleeps until the next paced part,
**                         burst end or acknowledgement it must act on
**                         (next_part_time) instead of ticking every cycle
** Invariants (dma_check): used + free == capacity for slots and copies;
** the chunks_out of all copies sum to the parts of the slots in use
** (inflight <= max_inflight); a copy is done when
** issued == finished == bytes, and then it leaves the table.
*/
#include "mem/dma.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#define DMA_NONE UINT32_MAX
#define DMA_WAKES 4

typedef struct dma_copy {
    dma_msg *cmd;          /* the driver's (held until DONE) */
    uint64_t issued;       /* bytes whose chunk started */
    uint64_t finished;     /* bytes written (or failed) */
    uint32_t chunks_out;
    int status;
    bool in_use;
} dma_copy;

enum { STAGE_READ = 1, STAGE_WRITE, STAGE_ACKS };

/* A chunk, or a burst of parts whole chunks (cfg.burst): one host-side
** request for all of them, one device-side request per chunk. */
typedef struct dma_slot {
    mem_msg *req;          /* our outstanding request (a single chunk's, or
                              a burst's host-side one; NULL while a burst
                              waits for its device-side answers) */
    uint8_t *bulk;         /* a burst's bytes (cfg.burst chunks), allocated
                              on the slot's first burst */
    uint32_t copy;
    uint64_t src, dst;
    uint32_t len;          /* bytes of all parts */
    uint32_t parts;        /* chunks (1: a single chunk) */
    uint32_t pending;      /* burst: device-side answers still due */
    uint32_t failed;       /* burst: chunks that faulted */
    uint32_t held;         /* chunks of max_inflight it holds (an h2d
                              burst gives one back per write answered) */
    uint32_t released;     /* paced parts acted on so far */
    uint32_t run;          /* h2d: parts of the next device write, from
                              part released on (device_run) */
    mgs_time first, step;  /* a burst's host answer: its part i reaches us
                              at first + i * step; an h2d burst's device
                              writes and a d2h burst's acknowledgements are
                              paced to that */
    uint8_t stage;
    bool in_use;
    bool device_burst;     /* its device side goes in runs, a request
                              each (cfg.device_bursts; device_run) */
} dma_slot;

typedef struct dma_fifo {
    void **e;
    uint32_t cap, head, count;
    bool blocked;
} dma_fifo;

enum { ST_H2D, ST_D2H, ST_D2D, ST_PEER, ST_COPIES, ST_TIME_TOTAL, ST_FAULTS,
       ST_STALL_INFLIGHT, ST_STALL_HOST, ST_STALL_DEVICE, ST_DEVICE_BURSTS,
       ST_COUNT };

static const char *const stat_names[ST_COUNT] = {
    "bytes_h2d", "bytes_d2h", "bytes_d2d", "bytes_peer", "copies",
    "copy_time_total", "faults", "stall_inflight_full", "stall_send_host",
    "stall_send_device", "device_bursts"};
static const char *const stat_units[ST_COUNT] = {
    "bytes", "bytes", "bytes", "bytes", "count", "ps", "count", "count",
    "count", "count", "count"};

struct dma_engine {
    sim_comp base;          /* first */
    sim_port ctrl, host, device[DMA_MAX_DEVICE_PORTS];
    dma_config cfg;
    mem_pool *pool;         /* borrowed */
    mem_route host_route, device_route;
    bool have_host_route, have_device_route;

    dma_copy *copies;       /* [max_copies] */
    uint32_t *free_copies, nfree_copies;
    uint32_t *issue_q;      /* ring [max_copies] of copy indices */
    uint32_t issue_head, issue_count;
    dma_slot *slots;        /* [max_inflight] */
    uint32_t *free_slots, nfree_slots;
    uint32_t inflight;      /* chunks in flight (a burst counts its parts) */
    uint32_t *pace_q;       /* ring [max_inflight]: bursts whose host
                               answer's parts are still to come (h2d: their
                               device writes wait; d2h: the acknowledgement
                               of each chunk), in arrival order */
    uint32_t pace_head, pace_count;
    mgs_time issue_free_at; /* a burst takes the cycles its chunks would */
    sim_event wake_ev[DMA_WAKES]; /* a paced part or the end of a burst's
                               issue cycles is due: a wake-up instead of
                               a tick per cycle (several: a wake cannot be
                               moved earlier, another one is taken) */
    mgs_time wake_time[DMA_WAKES];
    uint32_t need;          /* chunks the issue waits to be given back
                               (0: it does not wait for chunks) */

    dma_fifo q_host, q_device[DMA_MAX_DEVICE_PORTS], q_ctrl;

    stat_counter *st[ST_COUNT];
    stat_counter own[ST_COUNT];
    stat_hist *copy_time;
    stat_hist own_copy_time;
};

void dma_msg_init(dma_msg *m, dma_space src_space, uint64_t src,
                  dma_space dst_space, uint64_t dst, uint64_t bytes)
{
    memset(m, 0, sizeof *m);
    m->base.type = DMA_COPY;
    m->base.bytes = 32;      /* a command descriptor on the wire */
    m->src_space = (uint8_t)src_space;
    m->dst_space = (uint8_t)dst_space;
    m->src = src;
    m->dst = dst;
    m->bytes = bytes;
}

void dma_config_default(dma_config *c)
{
    memset(c, 0, sizeof *c);
    c->chunk = 64;           /* one cache line (seed 002 §3.6: 64 B lines) */
    /* assumed: covers the bandwidth-delay product of a PCIe 3.0 x16 link,
    ** 16 B/ns x ~400 ns round trip / 64 B = 100 chunks. */
    c->max_inflight = 128;
    c->max_copies = 4;       /* assumed */
    c->chunks_per_cycle = 1; /* 64 B/cycle at 1 GHz > any host link */
    c->ctrl_buffer = 4;
    c->host_buffer = 16;     /* assumed */
    c->device_buffer = 16;   /* assumed */
    c->device_ports = 1;
    c->burst = 1;            /* no bursts */
    c->min_bursts = 256;     /* burst_parts */
    c->header_bytes = 8;     /* memory protocol header (cache.c) */
    c->gpu = 0;
    c->period = 1000;        /* 1 GHz (seed 002 Table 5.1) */
}

int dma_config_validate(const dma_config *c)
{
    if (c->chunk < 1 || c->chunk > MEM_LINE_MAX || (c->chunk & (c->chunk - 1)))
        return mgs_error_set(MGS_EINVAL, "dma chunk must be a power of 2 "
                             "<= %u (got %u)", MEM_LINE_MAX, c->chunk);
    if (c->max_inflight < 1 || c->max_copies < 1 || c->chunks_per_cycle < 1 ||
        c->ctrl_buffer < 1 || c->host_buffer < 1 || c->device_buffer < 1 ||
        c->device_ports < 1 || c->device_ports > DMA_MAX_DEVICE_PORTS ||
        c->period < 1 || c->burst < 1 || c->burst > UINT16_MAX ||
        c->min_bursts < 1 ||
        (uint64_t)c->burst * c->chunk > DMA_MAX_BURST_BYTES)
        return mgs_error_set(MGS_EINVAL, "dma max_inflight, max_copies, "
                             "chunks_per_cycle, buffers, burst, min_bursts "
                             "and period must be >= 1, device_ports in "
                             "1..%d, burst <= 65535 and burst * chunk <= %u",
                             DMA_MAX_DEVICE_PORTS, DMA_MAX_BURST_BYTES);
    return MGS_OK;
}

/* ---- helpers ------------------------------------------------------------ */

static void fifo_init(dma_fifo *f, uint32_t cap)
{
    f->e = MGS_NEW_ARRAY(void *, cap);
    f->cap = cap;
    f->head = f->count = 0;
    f->blocked = false;
}

static void fifo_push(dma_fifo *f, void *m)
{
    assert(f->count < f->cap && "dma send FIFO sized too small");
    f->e[(f->head + f->count) % f->cap] = m;
    f->count++;
}

static bool drain(dma_engine *d, dma_fifo *f, sim_port *port,
                  stat_counter *stall)
{
    bool progress = false;
    while (f->count && !f->blocked) {
        if (port_send(port, (sim_msg *)f->e[f->head]) != MGS_OK) {
            f->blocked = true;
            if (stall)
                stat_inc(stall);
            break;
        }
        f->head = (f->head + 1) % f->cap;
        f->count--;
        progress = true;
    }
    (void)d;
    return progress;
}

/* Something to send (the engine ticks every cycle of a copy: the test
** keeps the empty queues out of drain). */
static inline bool sendable(const dma_fifo *f)
{
    return f->count && !f->blocked;
}

static bool drain_all(dma_engine *d)
{
    bool p = false;
    if (sendable(&d->q_host))
        p |= drain(d, &d->q_host, &d->host, d->st[ST_STALL_HOST]);
    for (uint32_t i = 0; i < d->cfg.device_ports; i++)
        if (sendable(&d->q_device[i]))
            p |= drain(d, &d->q_device[i], &d->device[i],
                       d->st[ST_STALL_DEVICE]);
    if (sendable(&d->q_ctrl))
        p |= drain(d, &d->q_ctrl, &d->ctrl, NULL);
    return p;
}

/* Queues m toward the given space (its route picks the port). A request
** to the host carries its PCIe traffic class, TC = N_T * ID_D + ID_T with
** N_T = 2, ID_T = 0 (seed 002 Eq. 4.1); assumed: ID_D is this engine's GPU
** in both directions (the GPU the transfer serves), so a task's h2d and
** d2h traffic share its classes. */
static void send_to(dma_engine *d, dma_space space, mem_msg *m)
{
    assert(d->have_device_route && "dma device route not set");
    if (space == DMA_SPACE_HOST) {
        m->flags |= MEM_F_TC;
        m->tc = (uint8_t)(2 * (uint32_t)d->cfg.gpu);
        m->base.dst = mem_route_lookup(&d->host_route, m->addr);
        fifo_push(&d->q_host, m);
    } else {
        m->base.dst = mem_route_lookup(&d->device_route, m->addr);
        /* Chunk c takes lane c % device_ports; a device run (a whole
        ** interleave unit of one L2 bank) the lane of its run number, so
        ** consecutive runs to consecutive banks share the lanes. */
        uint64_t unit = (uint64_t)d->cfg.chunk *
                        (m->parts <= 1 ? 1 : d->cfg.burst < 64 ? d->cfg.burst
                                                               : 64);
        fifo_push(&d->q_device[m->addr / unit % d->cfg.device_ports], m);
    }
}

/* ---- copies ------------------------------------------------------------- */

static void count_bytes(dma_engine *d, const dma_msg *cmd, uint64_t n)
{
    if (cmd->src_space == DMA_SPACE_HOST)
        stat_addn(d->st[ST_H2D], n);
    else if (cmd->dst_space == DMA_SPACE_HOST)
        stat_addn(d->st[ST_D2H], n);
    else if (cmd->flags & DMA_F_PEER)
        stat_addn(d->st[ST_PEER], n);
    else
        stat_addn(d->st[ST_D2D], n);
}

/* Hands the command back to the driver. */
static void complete_cmd(dma_engine *d, dma_msg *cmd, int status)
{
    mgs_time now = eng_now(d->base.eng);
    cmd->status = status;
    cmd->end = now;
    cmd->base.type = DMA_COPY_DONE;
    cmd->base.dst = cmd->base.src;
    stat_inc(d->st[ST_COPIES]);
    stat_addn(d->st[ST_TIME_TOTAL], now - cmd->start);
    stat_hist_sample(d->copy_time, now - cmd->start);
    fifo_push(&d->q_ctrl, cmd);
}

static bool valid_space(uint8_t s)
{
    return s == DMA_SPACE_HOST || s == DMA_SPACE_DEVICE;
}

/* Takes new commands while a copy record is free. */
static bool take_commands(dma_engine *d)
{
    bool progress = false;
    /* Every copy in use and every immediate answer needs a ctrl FIFO
    ** entry later: take a command only while one is guaranteed. */
    while (d->nfree_copies && port_peek(&d->ctrl) &&
           d->q_ctrl.count + (d->cfg.max_copies - d->nfree_copies) <
               d->q_ctrl.cap) {
        dma_msg *cmd = (dma_msg *)port_retrieve(&d->ctrl);
        cmd->start = eng_now(d->base.eng);
        progress = true;
        bool bad = cmd->base.type != DMA_COPY || !valid_space(cmd->src_space) ||
                   !valid_space(cmd->dst_space) ||
                   (cmd->src_space == DMA_SPACE_HOST &&
                    cmd->dst_space == DMA_SPACE_HOST) ||
                   /* no host link (shared memory): no host side */
                   (!d->have_host_route &&
                    (cmd->src_space == DMA_SPACE_HOST ||
                     cmd->dst_space == DMA_SPACE_HOST)) ||
                   cmd->src + cmd->bytes < cmd->src ||
                   cmd->dst + cmd->bytes < cmd->dst;
        if (bad || cmd->bytes == 0) {
            complete_cmd(d, cmd, bad ? MGS_EINVAL : MGS_OK);
            continue;
        }
        uint32_t ci = d->free_copies[--d->nfree_copies];
        d->copies[ci] = (dma_copy){.cmd = cmd, .status = MGS_OK,
                                   .in_use = true};
        d->issue_q[(d->issue_head + d->issue_count) % d->cfg.max_copies] = ci;
        d->issue_count++;
    }
    return progress;
}

/* A request of the slot: a read of the source or a write of the
** destination (data and wire bytes filled by the caller). */
static mem_msg *slot_request(dma_engine *d, dma_slot *s, mem_msg_type type,
                             uint64_t addr, uint32_t size, dma_space space)
{
    mem_msg *m = mem_msg_alloc(d->pool, type);
    m->addr = addr;
    m->size = size;
    m->flags = space != DMA_SPACE_DEVICE ? 0
               : type == MEM_WRITE && d->cfg.device_noalloc
                   ? MEM_F_PHYS | MEM_F_NOALLOC
                   : MEM_F_PHYS;
    if (type == MEM_WRITE)
        m->flags |= MEM_F_COPY;
    m->gpu = d->cfg.gpu;
    m->origin = s;
    m->issue_time = eng_now(d->base.eng);
    m->base.bytes = d->cfg.header_bytes + (type == MEM_WRITE ? size : 0);
    return m;
}

/* Burst s's host side as one request of all its parts (the host link
** carries it as its parts). */
static void burst_request(dma_engine *d, dma_slot *s, mem_msg_type type)
{
    mem_msg *m = slot_request(d, s, type, type == MEM_READ ? s->src : s->dst,
                              d->cfg.chunk, DMA_SPACE_HOST);
    m->parts = (uint16_t)s->parts;
    m->bulk = s->bulk;
    s->req = m;
    send_to(d, DMA_SPACE_HOST, m);
}

/* The parts of burst s from part i on that go to the device in one
** request: 1 without device runs, else the run of lines from part i that
** one device port (one L2 bank) serves, at most 64 (a request's mask). */
static uint32_t device_run(const dma_engine *d, const dma_slot *s, uint32_t i)
{
    if (!s->device_burst)
        return 1;
    uint32_t n = s->parts - i < 64 ? s->parts - i : 64;
    uint64_t dev = s->stage == STAGE_READ ? s->src : s->dst;
    return mem_route_run_length(&d->device_route,
                                dev + (uint64_t)i * d->cfg.chunk, n,
                                d->cfg.chunk);
}

/* Parts i .. i + n - 1 of burst s on the device side, a d2h burst's read
** or an h2d burst's write: one request of a chunk, or of a run of n > 1
** (on the burst's bytes; the crossbar carries it as one message). */
static void device_request(dma_engine *d, dma_slot *s, mem_msg_type type,
                           uint32_t i, uint32_t n)
{
    uint32_t k = d->cfg.chunk;
    uint64_t dev = (type == MEM_READ ? s->src : s->dst) + (uint64_t)i * k;
    mem_msg *m = slot_request(d, s, type, dev, k, DMA_SPACE_DEVICE);
    if (n > 1) {
        m->parts = (uint16_t)n;
        m->bulk = s->bulk + (size_t)i * k;
        m->base.bytes = d->cfg.header_bytes + (type == MEM_WRITE ? n * k : 0);
        stat_inc(d->st[ST_DEVICE_BURSTS]);
    } else if (type == MEM_WRITE) {
        memcpy(m->data, s->bulk + (size_t)i * k, k);
    }
    send_to(d, DMA_SPACE_DEVICE, m);
}

/* The device side of d2h burst s: its reads, all at once. */
static void burst_device_reads(dma_engine *d, dma_slot *s)
{
    s->pending = s->parts;
    for (uint32_t i = 0, n; i < s->parts; i += n) {
        n = device_run(d, s, i);
        device_request(d, s, MEM_READ, i, n);
    }
}

static void slot_done(dma_engine *d, dma_slot *s, uint32_t failed);

/* Acts on the parts of paced host answers that have come by now, each at
** the first tick after its time (as its own chunk's answer would have
** been taken): an h2d burst's device write, a d2h burst's chunk
** acknowledged (its place in max_inflight given back; the burst is done
** with its last). Returns whether it acted on any. */
static bool pace_parts(dma_engine *d)
{
    mgs_time now = eng_now(d->base.eng);
    bool progress = false;
    while (d->pace_count) {
        dma_slot *s = &d->slots[d->pace_q[d->pace_head]];
        if (s->stage == STAGE_WRITE) {
            /* Each device write once its last part has come. */
            while (s->released < s->parts) {
                if (s->first + (s->released + s->run - 1) * s->step >= now)
                    break;
                progress = true;
                device_request(d, s, MEM_WRITE, s->released, s->run);
                s->released += s->run;
                if (s->released < s->parts)
                    s->run = device_run(d, s, s->released);
            }
        } else if (s->first < now) {
            /* Acknowledgements: every part i with first + i * step < now
            ** at once. */
            uint64_t due = s->step ? (now - s->first + s->step - 1) / s->step
                                   : s->parts;
            if (due > s->parts)
                due = s->parts;
            if (due > s->released) {
                uint32_t k = (uint32_t)due - s->released;
                progress = true;
                s->released += k;
                s->held -= k;
                d->inflight -= k;
                d->copies[s->copy].chunks_out -= k;
            }
        }
        if (s->released < s->parts)
            return progress;
        d->pace_head = (d->pace_head + 1) % d->cfg.max_inflight;
        d->pace_count--;
        if (s->stage == STAGE_ACKS)
            slot_done(d, s, 0);
    }
    return progress;
}

/* Time of the next paced part (pace_parts acts on it at the first edge
** after it), MGS_TIME_MAX if none. */
static mgs_time next_part_time(const dma_engine *d)
{
    if (!d->pace_count)
        return MGS_TIME_MAX;
    const dma_slot *s = &d->slots[d->pace_q[d->pace_head]];
    if (s->stage != STAGE_ACKS) /* the last part of the next device write */
        return s->first + (s->released + s->run - 1) * s->step;
    /* Acknowledgements matter only to an issue waiting for d->need
    ** chunks and at a burst's last part (its slot and maybe its copy
    ** done): the part that completes the need, parts given back in
    ** pace_q order; no earlier tick could act on anything else. */
    mgs_time at = s->first + (s->parts - 1) * s->step;
    uint32_t need = d->need;
    for (uint32_t q = 0; need && q < d->pace_count; q++) {
        const dma_slot *t =
            &d->slots[d->pace_q[(d->pace_head + q) % d->cfg.max_inflight]];
        if (t->stage != STAGE_ACKS)
            return s->first + s->released * s->step; /* part by part */
        uint32_t left = t->parts - t->released;
        if (need <= left) {
            mgs_time p = t->first + (t->released + need - 1) * t->step;
            return p < at ? p : at;
        }
        need -= left;
    }
    return at;
}

/* Paces the parts of burst s's host answer rsp (pace_parts). */
static void pace_answer(dma_engine *d, dma_slot *s, const mem_msg *rsp,
                        uint8_t stage)
{
    s->stage = stage;
    s->released = 0;
    s->run = stage == STAGE_WRITE ? device_run(d, s, 0) : 0;
    if (rsp->burst_last) {
        /* Delivered with its first part: the attachment's delay later. */
        s->first = rsp->base.arrive_time;
        s->step = (rsp->burst_last - rsp->burst_first) / (s->parts - 1);
    } else {
        s->first = eng_now(d->base.eng);  /* no burst network: all now */
        s->step = 0;
    }
    d->pace_q[(d->pace_head + d->pace_count) % d->cfg.max_inflight] =
        (uint32_t)(s - d->slots);
    d->pace_count++;
    pace_parts(d);
}

/* Starts burst s (its host side first for h2d, its device reads for d2h).
*/
static void burst_start(dma_engine *d, dma_slot *s, const dma_msg *cmd)
{
    if (!s->bulk)
        s->bulk = mgs_xmalloc((size_t)d->cfg.burst * d->cfg.chunk);
    s->device_burst = d->cfg.device_bursts;
    if (cmd->src_space == DMA_SPACE_HOST)
        burst_request(d, s, MEM_READ);
    else
        burst_device_reads(d, s);
}

/* Whole chunks from the next one that may go as one burst: the copy has a
** host side, the chunk is whole (device sides chunk-aligned from here).
** Bursts ramp up (at most the chunks already started: 1, 1, 2, 4, ...)
** and down (at most half the chunks left: ..., 4, 2, 1, 1), so a copy
** starts and ends with single chunks: a d2h burst's host write waits for
** all its device reads, and before bursts were delivered with their first
** part a copy opening with 64 requests reached host memory 126 ns late on
** PCIe 3.0 (copy times were measured equal with these ramps).
** A command also goes in at least cfg.min_bursts bursts (256: full 4 KiB
** bursts from 1 MiB up): engines copying at once share links burst by
** burst, and the last engine's bursts end its copy alone. Measured
** (12 workloads, --size small, 4 unified GPUs, 4 KiB): copy times +0.5 to
** +6.5 % against no bursts without this bound, within +0.24 % with it. */
static uint32_t burst_parts(const dma_engine *d, const dma_copy *c,
                            uint64_t len)
{
    const dma_msg *cmd = c->cmd;
    if (d->cfg.burst < 2 || len != d->cfg.chunk ||
        (cmd->src_space != DMA_SPACE_HOST && cmd->dst_space != DMA_SPACE_HOST))
        return 1;
    uint64_t whole = (cmd->bytes - c->issued) / d->cfg.chunk;
    uint64_t most = d->cfg.burst < d->cfg.max_inflight ? d->cfg.burst
                                                       : d->cfg.max_inflight;
    uint64_t started = c->issued / d->cfg.chunk;
    if (most > started)
        most = started;
    if (most > whole / 2)
        most = whole / 2;
    uint64_t bound = cmd->bytes / d->cfg.chunk / d->cfg.min_bursts;
    if (most > bound)
        most = bound;
    return most > 1 ? (uint32_t)most : 1;
}

/* Starts up to chunks_per_cycle chunks of the oldest unfinished copy; a
** burst of k chunks starts at once and takes the issue slots of k chunks
** (k / chunks_per_cycle cycles). */
static bool issue_chunks(dma_engine *d)
{
    bool progress = false;
    d->need = 0;
    mgs_time now = eng_now(d->base.eng);
    if (now < d->issue_free_at)
        return false;  /* dma_tick wakes us at the end of the burst */
    for (uint32_t n = 0; n < d->cfg.chunks_per_cycle && d->issue_count; n++) {
        uint32_t ci = d->issue_q[d->issue_head];
        dma_copy *c = &d->copies[ci];
        const dma_msg *cmd = c->cmd;
        uint64_t src = cmd->src + c->issued, dst = cmd->dst + c->issued;
        uint64_t k = d->cfg.chunk;
        uint64_t len = cmd->bytes - c->issued;
        /* Only device sides are cached, so only they bound a chunk: an
        ** h2d from a misaligned host buffer still moves whole lines. */
        if (cmd->src_space == DMA_SPACE_DEVICE && len > k - src % k)
            len = k - src % k;
        if (cmd->dst_space == DMA_SPACE_DEVICE && len > k - dst % k)
            len = k - dst % k;
        if (len > k)
            len = k;
        uint32_t parts = burst_parts(d, c, len);
        if (!d->nfree_slots ||
            d->inflight + parts > d->cfg.max_inflight) {
            stat_inc(d->st[ST_STALL_INFLIGHT]);
            d->need = d->nfree_slots ? d->inflight + parts -
                                           d->cfg.max_inflight
                                     : 0;
            break;
        }
        uint32_t si = d->free_slots[--d->nfree_slots];
        dma_slot *s = &d->slots[si];
        uint8_t *bulk = s->bulk;
        *s = (dma_slot){.bulk = bulk, .copy = ci, .src = src, .dst = dst,
                        .len = (uint32_t)(len * parts), .parts = parts,
                        .held = parts, .stage = STAGE_READ, .in_use = true};
        c->issued += s->len;
        c->chunks_out += parts;
        d->inflight += parts;
        if (parts > 1) {
            burst_start(d, s, cmd);
            uint32_t cpc = d->cfg.chunks_per_cycle;
            d->issue_free_at = now + (mgs_time)((parts - 1 + n) / cpc) *
                                         d->cfg.period + 1;
            n = cpc;   /* this cycle's issue slots are spent */
        } else {
            s->req = slot_request(d, s, MEM_READ, src, (uint32_t)len,
                                  (dma_space)cmd->src_space);
            send_to(d, (dma_space)cmd->src_space, s->req);
        }
        if (c->issued == cmd->bytes) {
            d->issue_head = (d->issue_head + 1) % d->cfg.max_copies;
            d->issue_count--;
        }
        progress = true;
    }
    return progress;
}

/* Slot s is finished; failed of its parts faulted (their bytes are not
** counted as copied). */
static void slot_done(dma_engine *d, dma_slot *s, uint32_t failed)
{
    uint32_t ci = s->copy, len = s->len, parts = s->parts;
    dma_copy *c = &d->copies[ci];
    c->chunks_out -= s->held;
    d->inflight -= s->held;
    if (failed) {
        c->status = MGS_EFAULT;
        stat_addn(d->st[ST_FAULTS], failed);
    }
    s->in_use = false;
    s->req = NULL;
    d->free_slots[d->nfree_slots++] = (uint32_t)(s - d->slots);
    c->finished += len;
    uint64_t good = parts > 1 ? (uint64_t)(parts - failed) * d->cfg.chunk
                              : failed ? 0 : len;
    if (good)
        count_bytes(d, c->cmd, good);
    if (c->finished < c->cmd->bytes)
        return;
    assert(c->issued == c->finished && c->chunks_out == 0);
    complete_cmd(d, c->cmd, c->status);
    c->in_use = false;
    c->cmd = NULL;
    d->free_copies[d->nfree_copies++] = ci;
}

/* An answer to burst s: its host-side request's (all parts at once) or
** one of its device-side requests'. */
static void burst_answer(dma_engine *d, dma_slot *s, mem_msg *rsp)
{
    bool ok = !(rsp->flags & MEM_F_FAULT);
    if (rsp->req == s->req) {
        mem_msg_release(d->pool, s->req);
        s->req = NULL;
        if (!ok)
            s->failed = s->parts;
        if (s->stage == STAGE_READ && ok) {
            s->pending = s->parts;
            pace_answer(d, s, rsp, STAGE_WRITE);
        } else if (ok) {
            pace_answer(d, s, rsp, STAGE_ACKS);
        } else {
            slot_done(d, s, s->failed);
        }
    } else {
        /* A device request's: a chunk's, or a run's of n parts (its bytes
        ** are in bulk already). */
        uint32_t n = rsp->req->parts > 1 ? rsp->req->parts : 1;
        uint32_t i = (uint32_t)((rsp->req->addr - (s->stage == STAGE_READ
                                                       ? s->src : s->dst)) /
                                d->cfg.chunk);
        assert(i + n <= s->parts && n <= s->pending &&
               "stray DMA burst answer");
        if (!ok)
            s->failed += n;
        else if (s->stage == STAGE_READ && n == 1)
            memcpy(s->bulk + (size_t)i * d->cfg.chunk, rsp->data,
                   d->cfg.chunk);
        if (s->stage == STAGE_WRITE) {
            /* Written chunks give their places back, as single ones. */
            s->held -= n;
            d->inflight -= n;
            d->copies[s->copy].chunks_out -= n;
        }
        mem_msg_release(d->pool, rsp->req);
        s->pending -= n;
        if (s->pending == 0) {
            if (s->stage == STAGE_READ && !s->failed) {
                s->stage = STAGE_WRITE;
                burst_request(d, s, MEM_WRITE);
            } else {
                /* A part that faulted fails the burst's host write. */
                slot_done(d, s, s->stage == STAGE_READ ? s->parts
                                                       : s->failed);
            }
        }
    }
    mem_msg_release(d->pool, rsp);
}

/* Answers from host or device memory. */
static bool take_answers(dma_engine *d, sim_port *port)
{
    bool progress = false;
    for (uint32_t n = 0; n < d->cfg.chunks_per_cycle; n++) {
        mem_msg *rsp = (mem_msg *)port_retrieve(port);
        if (!rsp)
            break;
        progress = true;
        dma_slot *s = rsp->origin;
        assert(s >= d->slots && s < d->slots + d->cfg.max_inflight &&
               s->in_use && "stray DMA answer");
        if (s->parts > 1) {
            burst_answer(d, s, rsp);
            continue;
        }
        assert(rsp->req == s->req && "stray DMA answer");
        bool ok = !(rsp->flags & MEM_F_FAULT);
        const dma_msg *cmd = d->copies[s->copy].cmd;
        if (s->stage == STAGE_READ && ok) {
            mem_msg *w = slot_request(d, s, MEM_WRITE, s->dst, s->len,
                                      (dma_space)cmd->dst_space);
            memcpy(w->data, rsp->data, s->len);
            mem_msg_release(d->pool, s->req);
            mem_msg_release(d->pool, rsp);
            s->req = w;
            s->stage = STAGE_WRITE;
            send_to(d, (dma_space)cmd->dst_space, w);
            continue;
        }
        mem_msg_release(d->pool, s->req);
        mem_msg_release(d->pool, rsp);
        slot_done(d, s, !ok);
    }
    return progress;
}

/* ---- component ---------------------------------------------------------- */

/* After a tick that made progress: whether the next edge has nothing to
** do but what a message (its port wakes us) or a paced part (the wake
** below) brings. Then an engine with bursts sleeps at once instead of
** ticking once more to find that out (without bursts it ticks on, as it
** always did). */
static bool quiet_next_edge(const dma_engine *d, mgs_time now)
{
    if (port_peek(&d->host) || port_peek(&d->ctrl) || sendable(&d->q_host) ||
        sendable(&d->q_ctrl))
        return false;
    for (uint32_t i = 0; i < d->cfg.device_ports; i++)
        if (port_peek(&d->device[i]) || sendable(&d->q_device[i]))
            return false;
    return !(d->issue_count && d->nfree_slots && !d->need &&
             d->issue_free_at <= now + d->cfg.period);
}

static bool dma_tick(sim_comp *c)
{
    dma_engine *d = (dma_engine *)c;
    bool progress = drain_all(d);
    if (port_peek(&d->host))
        progress |= take_answers(d, &d->host);
    for (uint32_t i = 0; i < d->cfg.device_ports; i++)
        if (port_peek(&d->device[i]))
            progress |= take_answers(d, &d->device[i]);
    if (d->pace_count)
        progress |= pace_parts(d);
    progress |= take_commands(d);
    progress |= issue_chunks(d);
    progress |= drain_all(d);
    mgs_time now = eng_now(c->eng);
    if (progress && (d->cfg.burst < 2 || !quiet_next_edge(d, now)))
        return true;
    /* Nothing to do this cycle (or, after progress, the next): sleep until
    ** a paced part is due or a burst's issue cycles are over (one wake
    ** event, not a tick per cycle; ports wake us for answers and freed
    ** lanes). comp_wake ticks at the first edge strictly after the wake's
    ** time: after a part's time, and at the first edge >= issue_free_at. */
    mgs_time at = next_part_time(d);
    if (d->issue_count && now < d->issue_free_at && d->issue_free_at - 1 < at)
        at = d->issue_free_at - 1;
    if (at == MGS_TIME_MAX)
        return false;
    if (at < now + d->cfg.period)
        return true;   /* due at the next edge: tick on */
    sim_event *free_ev = NULL;
    for (int i = 0; i < DMA_WAKES; i++) {
        if (!d->wake_ev[i].scheduled)
            free_ev = free_ev ? free_ev : &d->wake_ev[i];
        else if (d->wake_time[i] <= at)
            return false; /* a wake no later is already coming */
    }
    if (!free_ev)
        return true;      /* every wake is later: tick on */
    d->wake_time[free_ev - d->wake_ev] = at;
    eng_schedule(c->eng, free_ev, at);
    return false;
}

static void dma_handle(sim_comp *c, sim_event *ev)
{
    (void)ev;
    comp_wake(c);
}

static void dma_port_free(sim_comp *c, sim_port *p)
{
    dma_engine *d = (dma_engine *)c;
    if (p == &d->host)
        d->q_host.blocked = false;
    else if (p >= d->device && p < d->device + d->cfg.device_ports)
        d->q_device[p - d->device].blocked = false;
    else
        d->q_ctrl.blocked = false;
    comp_wake(c);
}

static bool dma_busy(const sim_comp *c)
{
    const dma_engine *d = (const dma_engine *)c;
    bool lanes = false;
    for (uint32_t i = 0; i < d->cfg.device_ports; i++)
        lanes |= port_occupancy(&d->device[i]) != 0;
    return d->nfree_copies < d->cfg.max_copies || d->q_ctrl.count ||
           port_occupancy(&d->ctrl) || port_occupancy(&d->host) || lanes;
}

static void dma_visit(const sim_comp *c, sim_buf_visit_fn fn, void *ud)
{
    const dma_engine *d = (const dma_engine *)c;
    char name[256];
    snprintf(name, sizeof name, "%s.inflight", c->name);
    fn(name, d->inflight, d->cfg.max_inflight, ud);
}

static void dma_dump(const sim_comp *c, FILE *f)
{
    const dma_engine *d = (const dma_engine *)c;
    uint32_t dev = 0;
    for (uint32_t i = 0; i < d->cfg.device_ports; i++)
        dev += d->q_device[i].count;
    fprintf(f, "  copies %u/%u chunks %u/%u fifo host/dev/ctrl %u/%u/%u\n",
            d->cfg.max_copies - d->nfree_copies, d->cfg.max_copies,
            d->inflight, d->cfg.max_inflight,
            d->q_host.count, dev, d->q_ctrl.count);
}

static const sim_comp_ops dma_ops = {
    .kind = "DMA",
    .tick = dma_tick,
    .handle = dma_handle,
    .notify_port_free = dma_port_free,
    .busy = dma_busy,
    .visit_buffers = dma_visit,
    .dump = dma_dump,
};

dma_engine *dma_new(sim_engine *eng, const char *name, const dma_config *cfg,
                    mem_pool *pool, stat_registry *stats)
{
    int rc = dma_config_validate(cfg);
    assert(rc == MGS_OK);
    (void)rc;
    dma_engine *d = MGS_NEW(dma_engine);
    d->cfg = *cfg;
    d->pool = pool;
    comp_init(&d->base, eng, &dma_ops, name, cfg->period);
    for (int i = 0; i < DMA_WAKES; i++)
        eng_event_init(&d->wake_ev[i], &d->base, 1, NULL);
    port_init(&d->ctrl, &d->base, "ctrl", cfg->ctrl_buffer);
    port_init(&d->host, &d->base, "host", cfg->host_buffer);
    for (uint32_t i = 0; i < cfg->device_ports; i++) {
        char lane[16];
        snprintf(lane, sizeof lane, i ? "device%u" : "device", i);
        port_init(&d->device[i], &d->base, lane, cfg->device_buffer);
    }
    uint32_t nc = cfg->max_copies, ns = cfg->max_inflight;
    d->copies = MGS_NEW_ARRAY(dma_copy, nc);
    d->free_copies = MGS_NEW_ARRAY(uint32_t, nc);
    d->issue_q = MGS_NEW_ARRAY(uint32_t, nc);
    d->slots = MGS_NEW_ARRAY(dma_slot, ns);
    d->free_slots = MGS_NEW_ARRAY(uint32_t, ns);
    d->pace_q = MGS_NEW_ARRAY(uint32_t, ns);
    for (uint32_t i = 0; i < nc; i++)
        d->free_copies[i] = nc - 1 - i;
    for (uint32_t i = 0; i < ns; i++)
        d->free_slots[i] = ns - 1 - i;
    d->nfree_copies = nc;
    d->nfree_slots = ns;
    fifo_init(&d->q_host, ns);
    for (uint32_t i = 0; i < cfg->device_ports; i++)
        fifo_init(&d->q_device[i], ns);
    fifo_init(&d->q_ctrl, nc + cfg->ctrl_buffer);
    for (int i = 0; i < ST_COUNT; i++)
        d->st[i] = stats ? stat_counter_add(stats, name, stat_names[i],
                                            stat_units[i])
                         : &d->own[i];
    d->copy_time = stats ? stat_hist_add(stats, name, "copy_time", "ps")
                         : &d->own_copy_time;
    return d;
}

void dma_free(dma_engine *d)
{
    if (!d)
        return;
    for (uint32_t i = 0; i < d->cfg.max_inflight; i++) {
        if (d->slots[i].in_use) {
            mem_msg_release(d->pool, d->slots[i].req);
        }
        free(d->slots[i].bulk);
    }
    port_fini(&d->ctrl);
    port_fini(&d->host);
    for (uint32_t i = 0; i < d->cfg.device_ports; i++) {
        port_fini(&d->device[i]);
        free(d->q_device[i].e);
    }
    comp_fini(&d->base);
    free(d->copies);
    free(d->free_copies);
    free(d->issue_q);
    free(d->slots);
    free(d->free_slots);
    free(d->pace_q);
    free(d->q_host.e);
    free(d->q_ctrl.e);
    free(d);
}

sim_port *dma_ctrl(dma_engine *d) { return &d->ctrl; }
sim_port *dma_host(dma_engine *d) { return &d->host; }
sim_port *dma_device(dma_engine *d) { return &d->device[0]; }

sim_port *dma_device_lane(dma_engine *d, uint32_t i)
{
    return i < d->cfg.device_ports ? &d->device[i] : NULL;
}

void dma_set_host_route(dma_engine *d, const mem_route *route)
{
    d->host_route = *route;
    d->have_host_route = true;
}

void dma_set_device_route(dma_engine *d, const mem_route *route)
{
    d->device_route = *route;
    d->have_device_route = true;
}

/* ---- host memory = process memory ------------------------------------- */

static int host_read(void *ud, uint64_t paddr, void *dst, size_t n)
{
    (void)ud;
    memcpy(dst, (const void *)(uintptr_t)paddr, n);
    return 0;
}

static int host_write(void *ud, uint64_t paddr, const void *src, size_t n)
{
    (void)ud;
    memcpy((void *)(uintptr_t)paddr, src, n);
    return 0;
}

void dma_host_backing(mem_backing *out)
{
    out->read = host_read;
    out->write = host_write;
    out->ud = NULL;
}

uint32_t dma_inflight(const dma_engine *d)
{
    return d->inflight;
}

/* ---- invariants --------------------------------------------------------- */

int dma_check(const dma_engine *d)
{
    uint32_t used_s = 0, used_c = 0, out = 0, parts = 0;
    for (uint32_t i = 0; i < d->cfg.max_inflight; i++) {
        used_s += d->slots[i].in_use;
        parts += d->slots[i].in_use ? d->slots[i].held : 0;
    }
    for (uint32_t i = 0; i < d->cfg.max_copies; i++)
        if (d->copies[i].in_use) {
            used_c++;
            out += d->copies[i].chunks_out;
            assert(d->copies[i].finished <= d->copies[i].issued &&
                   d->copies[i].issued <= d->copies[i].cmd->bytes);
        }
    assert(used_s + d->nfree_slots == d->cfg.max_inflight);
    assert(used_c + d->nfree_copies == d->cfg.max_copies);
    assert(out == parts && parts == d->inflight &&
           d->inflight <= d->cfg.max_inflight);
    assert(d->issue_count <= used_c);
    return 1;
}
