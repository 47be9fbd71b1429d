/*
** DRAM / HBM channel controller with real data.
**
** One instance models one channel (R9 Nano: 8 channels x 512 MB; HBM
** stacks of the shared-memory platform: one instance per channel). Requests
** arrive on top (MEM_READ / MEM_WRITE / MEM_ATOMIC with MEM_F_PHYS, at most
** one burst-aligned line each), wait in a bounded transaction queue, are
** scheduled FR-FCFS (row hits first, then oldest) per bank, and are answered
** when their data burst completes. Timing follows the usual JEDEC-style
** parameters in DRAM command-clock cycles: a row hit costs tCL (reads) /
** tCWL (writes) + burst; a closed bank tRCD first; a conflict tRP + tRCD,
** never closing a row before tRAS; the data bus is shared by the channel's
** banks (bytes_per_cycle); refresh blocks all banks for tRFC every tREFI.
** A fixed controller pipeline latency (ctrl_latency) is added in each
** direction. Each request is one event at its completion time, not one per
** cycle (no busy ticking).
**
** Data: reads and writes go to the mem_backing at paddr - base (the channel
** sees only its own interleaved addresses; the address mapping for banks
** and rows uses addr bits above the channel interleave, see dram.c).
** Atomics are applied here when they reach memory (read, modify, write the
** backing store) and answered with the old value.
**
** Statistics: reads, writes, atomics, row_hits, row_misses (bank closed),
** row_conflicts, bytes_read, bytes_written, refreshes, read_latency
** (histogram, ps), queue_occupancy (time-weighted).
*/
#ifndef MGS_MEM_DRAM_H
#define MGS_MEM_DRAM_H

#include "mem/backing.h"
#include "mem/memmsg.h"
#include "sim/comp.h"
#include "sim/stats.h"

typedef struct dram_config {
    uint32_t banks;           /* banks per channel */
    uint32_t row_bytes;       /* bytes per row (page) per bank */
    uint32_t burst_bytes;     /* bytes per column burst (= access unit) */
    uint32_t bytes_per_cycle; /* data bus width per command-clock cycle */
    uint32_t tRCD, tCL, tCWL, tRP, tRAS, tWR, tRFC, tREFI; /* cycles */
    uint32_t ctrl_latency;    /* controller pipeline, cycles, each way */
    uint32_t queue_entries;   /* transaction queue capacity */
    uint32_t top_buffer;      /* top port buffer, messages */
    uint64_t interleave;      /* bytes per channel interleave unit */
    uint32_t channels;        /* channels sharing the interleave (to strip
                                 the channel bits from bank/row mapping) */
    uint64_t base;            /* first physical address of the address
                                 space the channel interleaves over: the
                                 mapping and the backing use paddr - base
                                 (0: plain physical addresses) */
    bool open_page;           /* open-page (true) or close-page policy */
    mgs_time period;          /* command clock, ps */
} dram_config;

void dram_config_default(dram_config *c);
int dram_config_validate(const dram_config *c);

typedef struct dram dram;

/* backing is borrowed and must outlive the controller. */
dram *dram_new(sim_engine *eng, const char *name, const dram_config *cfg,
               mem_pool *pool, stat_registry *stats,
               const mem_backing *backing);
void dram_free(dram *d);
sim_port *dram_top(dram *d);

#endif
