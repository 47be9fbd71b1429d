/*
** The timestamp unit's table (seed 000 §3.2.5, Algorithm 3): one per
** memory controller, 8-way set-associative, one 16-bit memts per line the
** L2s hold. No timing here (tsu_agent.c adds the component and its
** 50-cycle access); this is the data structure the unit tests drive.
**
** Grant (Algorithm 3). A read or write of a line finds its entry or adds
** one; then memts += lease (RdLease for reads, WrLease for writes and
** atomics) and the answer is Mrts = memts, Mwts = Mrts - lease.
**
** Eviction. A set that is full gives up its entry of lowest memts. An
** entry that leaves takes leases with it that caches may still hold, so
** the table keeps a floor = the largest memts that ever left, and a new
** entry starts there: a write after an eviction gets Mwts >= every lease
** granted before it, never below a reader's rts.
**
** Eviction notices. When an L2 drops a line it tells the TSU; the entry
** leaves unless it is "shared": its memts lies within one lease (the
** larger of the two) of the newest grant of this table, so another GPU
** may hold a live lease (§3.2.5). Shared entries stay (counted).
*/
#ifndef MGS_COH_HALCONE_TSU_H
#define MGS_COH_HALCONE_TSU_H

#include <stdbool.h>
#include <stdint.h>

#include "coh/coh.h"
#include "sim/stats.h"

#define TSU_WAYS 8u

typedef struct tsu_entry {
    uint64_t line;            /* line address */
    uint32_t memts;
    bool valid;
} tsu_entry;

typedef struct tsu_table {
    uint32_t sets;
    uint32_t line_shift;      /* log2 of the line size */
    tsu_entry *e;             /* sets x TSU_WAYS */
    uint32_t floor;           /* largest memts that left the table */
    uint32_t max_memts;       /* newest grant (largest memts) */
    /* Statistics (own counters unless tsu_table_stats points them at a
    ** registry). */
    stat_counter *hits, *insertions, *evictions, *shared_kept, *overflows,
        *max_memts_stat;
    stat_counter own[6];
} tsu_table;

/* entries: a multiple of TSU_WAYS; line: the L2 line size (power of 2). */
void tsu_table_init(tsu_table *t, uint32_t entries, uint32_t line);
void tsu_table_fini(tsu_table *t);
/* Registers the statistics under component `name`. */
void tsu_table_stats(tsu_table *t, stat_registry *r, const char *name);
/* Forgets every entry (a new epoch: timestamps re-initialised to 0). */
void tsu_table_reset(tsu_table *t);
/* Algorithm 3 for a read (write = false) or a write/atomic of line: sets
** *s's rts and wts (not its epoch). false if the lease would pass ts_max
** (nothing granted: the caller re-initialises and asks again). */
bool tsu_table_grant(tsu_table *t, uint64_t line, bool write,
                     const coh_ts_params *p, uint32_t *rts, uint32_t *wts);
/* An L2 dropped line: the entry leaves unless shared (above). */
void tsu_table_notice(tsu_table *t, uint64_t line, const coh_ts_params *p);
/* The memts of line's entry, or -1 (tests). */
int64_t tsu_table_memts(const tsu_table *t, uint64_t line);

#endif
