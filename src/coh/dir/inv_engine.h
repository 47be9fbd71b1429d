/*
** The invalidation engine: one per GPU, the path of a directory's
** invalidations between GPUs (docs/coherence.md, "Directory coherence").
**
**   home side    an L2 bank whose directory decided invalidations sends
**                one request (MEM_INV_LINE, below) to its GPU's engine on
**                the GPU's memory connection; the engine sends one
**                MEM_INV_LINE per (line, sharer GPU) over the inter-GPU
**                network, or with per_entry one per sharer GPU naming
**                every line of the request that GPU holds (a line mask in
**                coh[1], 8 more bytes on the wire), and answers the bank
**                (MEM_INV_ACK) once every sharer acknowledged
**   sharer side  an invalidation from the network goes to the local L2
**                bank that caches the line (by the L2 interleave), at most
**                inv_buffer unacknowledged per bank (the cache's contract,
**                docs/memory.md), line by line; once the bank acknowledged
**                every line of a network invalidation, one MEM_INV_ACK
**                goes back to the home engine
**
** The bank's request: addr = the first line of an aligned group of
** `size` consecutive lines (1..64), data = one little-endian uint16_t per
** line, the GPUs that must drop it (bit g = GPU g; 0 = none), coh[0] =
** the cause (DIR_CAUSE_*, dir_table.h), carried to the sharer L2s so they
** can count what their invalidations hit. Up to 16 GPUs.
**
** Flow control (no deadlock): every bank request is accepted at once (the
** engine has a slot for every request all banks can have out:
** home_entries); an engine keeps at most `credits` invalidations in flight
** to each peer, and each engine can queue credits x (ngpus - 1) of them
** per bank, so invalidations and acknowledgements arriving from the
** network are always taken. Banks answer invalidations without waiting for
** anything but their own fills, which never wait for invalidations.
**
** Statistics (per engine): requests (from banks), inv_sent_write,
** inv_sent_evict (network messages by cause), inv_lines_sent (the lines
** they name), inv_received, acks_received, bytes_out (network),
** stall_credits.
*/
#ifndef MGS_COH_DIR_INV_ENGINE_H
#define MGS_COH_DIR_INV_ENGINE_H

#include "mem/memmsg.h"
#include "sim/engine.h"
#include "sim/stats.h"

#define INV_ENGINE_MAX_GPUS 16u
#define INV_ENGINE_MAX_LINES 64u

typedef struct inv_engine_config {
    uint32_t gpu, ngpus;        /* ngpus <= INV_ENGINE_MAX_GPUS */
    uint32_t banks;             /* L2 banks of the GPU */
    uint32_t line;              /* bytes per line */
    uint32_t interleave;        /* bytes: line a is in bank (a / interleave)
                                   % banks */
    uint32_t inv_buffer;        /* unacknowledged invalidations per bank */
    uint32_t credits;           /* invalidations in flight to one peer */
    uint32_t home_entries;      /* bank requests being served */
    uint32_t header_bytes;      /* wire bytes of an invalidation / ack */
    bool per_entry;             /* one network invalidation per (request,
                                   sharer) instead of per (line, sharer) */
    mgs_time period;            /* ps */
} inv_engine_config;

typedef struct inv_engine inv_engine;

inv_engine *inv_engine_new(sim_engine *eng, const char *name,
                           const inv_engine_config *cfg, mem_pool *pool,
                           stat_registry *stats);
void inv_engine_free(inv_engine *e);
/* The port on the GPU's memory connection (banks send requests to it). */
sim_port *inv_engine_local(inv_engine *e);
/* The port on the inter-GPU network. */
sim_port *inv_engine_net(inv_engine *e);
/* Bank b's bottom port (where invalidations for its lines go). */
void inv_engine_set_bank(inv_engine *e, uint32_t b, sim_port *bottom);
/* Peer engine g's network port. */
void inv_engine_set_peer(inv_engine *e, uint32_t g, sim_port *net);

#endif
