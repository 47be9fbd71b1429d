/*
** Random memory tester: agents that issue random reads, writes and atomics
** through a memory hierarchy and check every value they can predict
** against a reference model. Reused for every cache configuration and,
** later, every coherence protocol.
**
** Each agent is a component with one port (plug it into a connection and
** give it a route to the ports it talks to, e.g. an L1's top). It issues at
** most one request per cycle, keeps at most max_outstanding in flight, and
** stops after ops_per_agent. Accesses are 1, 2, 4, ... max_size bytes,
** aligned to their size (so they never cross a line); writes carry random
** bytes and, partial_percent of the time, a random byte mask; atomics are
** 4 or 8 bytes (add, swap, cmpswap, umax, xor, inc), glc_percent of reads
** and writes carry MEM_F_GLC. Every agent has its own seeded PRNG
** (splitmix64 of seed and agent index): runs are deterministic.
**
** Reference model and the checking rule. One shadow copy of the tested
** range starts as mem_tester_init_byte(addr) (fill the memory with
** mem_tester_fill_initial first). Expected values are taken from the
** shadow when a request is ISSUED, so the rule checked is per-source
** program order: a read returns the value of the last write the same agent
** issued before it. Without coherence that is only predictable for bytes
** no other agent writes, hence the modes:
**   MEM_TESTER_PRIVATE      agent i owns a disjoint slice of the range
**                           (size / agents, in whole units); every read and
**                           atomic is checked.
**   MEM_TESTER_OWNED_UNITS  the whole range is shared: unit u (unit bytes,
**                           >= the largest cache line in the hierarchy) is
**                           written only by agent u % agents, but any agent
**                           reads any unit, so lines are shared between
**                           caches. Reads of owned units are checked; reads
**                           of others' units are issued but not checked
**                           (a coherence protocol's tester will check them
**                           against its own rule).
** A mismatch records agent, access, the first differing byte's address,
** and up to 8 expected/got bytes from there.
*/
#ifndef MGS_MEM_TESTER_H
#define MGS_MEM_TESTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mem/memmsg.h"
#include "sim/comp.h"
#include "sim/stats.h"

typedef enum mem_tester_mode {
    MEM_TESTER_PRIVATE,
    MEM_TESTER_OWNED_UNITS
} mem_tester_mode;

typedef struct mem_tester_config {
    uint32_t agents;
    uint64_t base, size;        /* tested range (size a multiple of unit) */
    uint32_t unit;              /* ownership unit, power of 2 >= max_size */
    uint32_t max_size;          /* largest access, power of 2 <= 128 */
    uint64_t ops_per_agent;
    uint32_t max_outstanding;
    uint32_t read_percent;      /* of all ops */
    uint32_t atomic_percent;    /* of all ops (rest are writes) */
    uint32_t partial_percent;   /* of writes: random byte mask */
    uint32_t glc_percent;       /* of reads and writes */
    mem_tester_mode mode;
    uint64_t seed;
    uint32_t buffer;            /* port buffer, messages */
    mgs_time period;            /* ps */
    uint64_t hole_period;       /* 0, or: bytes at offsets >= hole_period -
                                   hole_bytes of every hole_period of the
                                   range are never accessed (memory the
                                   hardware owns, e.g. a carved-out cache) */
    uint64_t hole_bytes;
} mem_tester_config;

void mem_tester_config_default(mem_tester_config *c);
int mem_tester_config_validate(const mem_tester_config *c);

typedef struct mem_tester_mismatch {
    uint32_t agent;
    uint32_t type;              /* MEM_READ or MEM_ATOMIC */
    uint64_t access_addr;
    uint32_t access_size;
    uint64_t addr;              /* first differing byte */
    uint64_t expected, got;     /* up to 8 bytes from addr, little-endian */
    uint32_t nbytes;
} mem_tester_mismatch;

#define MEM_TESTER_MAX_RECORDED 16

typedef struct mem_tester mem_tester;

/* Agents are named "<name>.Agent[i]". stats may be NULL. */
mem_tester *mem_tester_new(sim_engine *eng, const char *name,
                           const mem_tester_config *cfg, mem_pool *pool,
                           stat_registry *stats);
void mem_tester_free(mem_tester *t);
sim_port *mem_tester_port(mem_tester *t, uint32_t agent);
/* Where agent sends requests (copied). */
void mem_tester_set_route(mem_tester *t, uint32_t agent, const mem_route *r);

/* Which GPU an agent belongs to (mem_msg.gpu of its requests; default 0),
** for multi-GPU hierarchies. */
void mem_tester_set_gpu(mem_tester *t, uint32_t agent, int32_t gpu);

/* Sees every completed request (after the built-in check; checked says
** whether the built-in rule applied). A coherence protocol's tester uses
** it to check the reads the built-in rule cannot predict (other agents'
** units) against the protocol's own guarantee, and returns false on a
** violation, which counts as a mismatch. */
typedef bool (*mem_tester_observer)(void *ud, uint32_t agent,
                                    const mem_msg *req, const mem_msg *rsp,
                                    bool checked);
void mem_tester_set_observer(mem_tester *t, mem_tester_observer fn, void *ud);

/* Initial memory contents the reference model assumes. */
uint8_t mem_tester_init_byte(uint64_t addr);
void mem_tester_fill_initial(uint8_t *bytes, uint64_t base, uint64_t size);

bool mem_tester_done(const mem_tester *t);
uint64_t mem_tester_checked(const mem_tester *t);   /* bytes compared */
uint64_t mem_tester_mismatches(const mem_tester *t);
/* i < min(mismatches, MEM_TESTER_MAX_RECORDED). */
const mem_tester_mismatch *mem_tester_mismatch_get(const mem_tester *t,
                                                   uint32_t i);
/* The reference copy of [base, base + size): after the caches are
** flushed, memory must equal it byte for byte. */
const uint8_t *mem_tester_shadow(const mem_tester *t);
/* One line per recorded mismatch, then a summary line. */
void mem_tester_report(const mem_tester *t, FILE *f);

#endif
