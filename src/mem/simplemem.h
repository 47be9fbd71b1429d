/*
** A fixed-latency memory with real data: the bottom of a test hierarchy
** until the DRAM controller (src/mem/dram.c) is used instead.
**
** Model. One port. Requests are performed on the mem_backing in arrival
** order at the edge they are taken (so the data effect is exactly the
** arrival order, like a single in-order channel), and answered latency
** cycles later. At most requests_per_cycle are taken per cycle and at most
** queue answers wait; when the queue is full, requests wait in the port
** buffer (back-pressure). MEM_FLUSH / MEM_INVALIDATE are answered with
** MEM_CTRL_RSP (nothing to do). A backing error (address out of range)
** answers with MEM_F_FAULT and counts in `faults`. A burst (memmsg.h,
** parts >= 2: a DMA engine's host side) is one request: taken with its
** first part, its parts are performed on the bulk buffer at once, answered
** by one response whose last part leaves no earlier than the request's
** last part, taken, would have been answered (burst_last), and counted as
** parts reads or writes.
**
** Statistics: reads, writes, atomics, faults, bytes_read, bytes_written.
*/
#ifndef MGS_MEM_SIMPLEMEM_H
#define MGS_MEM_SIMPLEMEM_H

#include "mem/backing.h"
#include "mem/memmsg.h"
#include "sim/comp.h"
#include "sim/stats.h"

typedef struct simplemem_config {
    uint32_t latency;            /* cycles from taking to answering */
    uint32_t buffer;             /* port buffer, messages */
    uint32_t queue;              /* answers waiting for their time */
    uint32_t requests_per_cycle;
    bool quiet_after_progress;   /* after a tick that made progress, sleep
                                    at once unless requests still wait
                                    (no tick to find the next cycle idle;
                                    the platform's copy bursts) */
    mgs_time period;             /* ps */
} simplemem_config;

void simplemem_config_default(simplemem_config *c); /* 100 cy, 1 GHz */
int simplemem_config_validate(const simplemem_config *c);

typedef struct simplemem simplemem;

/* backing is copied (its ud is borrowed); stats may be NULL. */
simplemem *simplemem_new(sim_engine *eng, const char *name,
                         const simplemem_config *cfg, mem_pool *pool,
                         const mem_backing *backing, stat_registry *stats);
void simplemem_free(simplemem *m);
sim_port *simplemem_port(simplemem *m);

/* A plain byte array as a backing store: addresses [base, base + size). */
typedef struct mem_array {
    uint8_t *bytes;   /* borrowed */
    uint64_t base;
    uint64_t size;
} mem_array;
void mem_array_backing(mem_backing *out, mem_array *a);

#endif
