/*
** The coherence directory table of a home GPU (seed 001: the REC paper,
** digest /work/shared/research/rec-digest.md §2.2-2.6, §3.2-3.8). It records
** which remote GPUs may hold lines homed at this GPU and decides the
** invalidations; the protocol around it (the hooks at the home L2, the
** invalidation messages) lives elsewhere. Pure data structure: no engine,
** no ports, no messages; every invalidation it decides is handed to the
** emit callback, one call per line.
**
** Organisations (one per config):
**   LINE  the baseline (§2.2-2.3): one line per entry; tag, sharer vector
**         (home excluded), valid bit. 8K entries, 8-way, FIFO.
**   HMG   (§2.5): an entry covers range_lines (4) aligned lines with ONE
**         sharer vector and no per-line bits: reads add the reader for the
**         whole group; a write to any line invalidates every line of the
**         group at the sharers concerned (false positives); an eviction
**         invalidates every line of the group at every sharer.
**   REC   (§3.3-3.5, flows A-M): an entry covers an aligned range of
**         range_lines lines (16 = 1 kB): base, per-line position bit and
**         per-line sharer vector. Reads coalesce into the entry; writes
**         act on one line; an eviction sends one invalidation per tracked
**         line to that line's own sharers.
**   entries = 0 ("ideal", §2.6): an unbounded hash table that never evicts
**         (any organisation; LINE is the paper's ideal).
**
** Transitions (g = requesting GPU, line L, entry E covering L):
**   read by g != home   E found: record g for L (HMG: for the group).
**                       Missing: allocate (an invalid way first, else the
**                       policy's victim, whose lines get EVICT
**                       invalidations), then record g.
**   write by home       L tracked: WRITE-invalidate L's sharers (HMG: every
**     (local write)     line of the group at every sharer), forget L (HMG:
**                       the entry); E is freed when it tracks no line.
**   write by g != home  L tracked: WRITE-invalidate L's sharers other than
**     (remote write)    g (HMG: every line of the group at the sharers
**                       other than g); keep_writer: L's sharers = {g};
**                       else L forgets g too (freed when empty). L not
**                       tracked: keep_writer: record g like a read
**                       (allocating on a miss); else nothing.
**
** Invariants (dir_table_check): a way is valid iff its position mask is
** non-zero; for LINE and REC a line's position bit is set iff its sharer
** vector is non-zero; no sharer vector holds the home or a GPU >= ngpus;
** a bounded entry sits in the set of its key; valid_entries counts them.
** Hence LINE and REC are exact (recorded = the GPUs that may hold the line)
** and HMG records a superset.
**
** Decisions the paper leaves open (each "assumed"):
**   - assumed (digest §2.3): a remote write that misses allocates an entry
**     with the writer as sharer (the REC text says so for REC).
**   - assumed: a remote write with keep_writer = false (an atomic performed
**     at the home; the requester dropped its copy) records nothing new and
**     removes the writer from the line; under HMG the writer stays in the
**     group's vector if it was there, since it may hold other lines of the
**     group.
**   - assumed: LRU is true LRU over the ways of a set, touched by every
**     read and write that finds the entry (the paper says "LRU-like");
**     FIFO orders by insertion only. Both take an invalid way first and
**     break no ties (stamps are unique).
**   - assumed: the set index is the entry key (address / (line x
**     range_lines)) modulo the number of sets (its low bits).
**   - assumed: a home read (g == home) is a local read: no directory action
**     (digest §2.3 "the directory ... remains unchanged").
**   - assumed: one invalidation message per (line, sharer GPU); evictions
**     are not batched per destination (digest §3.5 step M).
**   - assumed (HMG entry bits): (addr_bits - log2(range bytes)) + (n - 1)
**     + 1, i.e. 44 bits for 4 lines of 64 B on 4 GPUs.
**   - assumed: evicted_lines counts an HMG eviction as range_lines lines
**     (the lines it invalidates; it has no per-line bits).
** Entry bits: LINE addr_bits + (n-1) + 1 (Table 1 keeps all 48 bits in its
** 64B column, digest §9.1): 52 for 4 GPUs; REC (addr_bits - log2(range
** bytes)) + lines + (n-1) x lines + 1: 50/57/103/293 for 128B/256B/1kB/4kB
** (Table 1), 167 and 295 for 1 kB on 8 and 16 GPUs (§4.3).
**
** Cost: a bounded table is preallocated (keys, position masks, stamps, and
** one 64-bit sharer vector per line of each entry) and allocates nothing
** per operation; a lookup scans the ways of one set. The unbounded table is
** a linear-probing hash (load <= 1/2) that doubles when needed and deletes
** by backward shift: 16 bytes a slot plus 8 per sharer vector, so an
** unbounded LINE table costs 48-96 bytes per tracked line. Unbounded
** LINE and REC decide exactly the same invalidations (both exact, neither
** evicts; a test checks it): an ideal run may take REC with 64-line ranges,
** far smaller when remote reads have spatial locality. Deterministic: no
** pointer or time dependence.
*/
#ifndef MGS_COH_DIR_DIR_TABLE_H
#define MGS_COH_DIR_DIR_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum dir_org { DIR_ORG_LINE, DIR_ORG_HMG, DIR_ORG_REC } dir_org;
typedef enum dir_policy { DIR_POLICY_FIFO, DIR_POLICY_LRU } dir_policy;
typedef enum dir_cause { DIR_CAUSE_WRITE = 1, DIR_CAUSE_EVICT = 2 } dir_cause;

/* Limits checked by dir_table_config_validate. */
#define DIR_TABLE_MAX_ENTRIES (1u << 24)
#define DIR_TABLE_MAX_RANGE_LINES 64u
#define DIR_TABLE_MAX_GPUS 64u

typedef struct dir_table_config {
    dir_org org;
    uint32_t entries;     /* total entries; 0 = unbounded ("ideal") */
    uint32_t ways;        /* associativity; entries/ways sets, a power of
                          ** two (ignored when unbounded) */
    dir_policy policy;    /* ignored when unbounded */
    uint32_t line;        /* bytes per cache line, a power of two (64) */
    uint32_t range_lines; /* lines one entry covers: LINE 1, HMG 2..64 (4),
                          ** REC 2..64 (16 = 1 kB); a power of two */
    uint32_t ngpus;       /* GPUs 2..64; sharer g is bit g of a uint64_t */
    uint32_t home;        /* this directory's GPU: never a sharer */
    uint32_t addr_bits;   /* physical address bits for storage accounting */
} dir_table_config;

typedef struct dir_table dir_table;

/* Called for every invalidation the table decides: the line (byte address
** of its first byte), the GPUs that must drop it (bit g = GPU g, never the
** home, never 0), why. It must not call back into the table. */
typedef void (*dir_emit_fn)(void *ud, uint64_t line_addr, uint64_t sharers,
                            dir_cause cause);

typedef struct dir_table_stats {
    uint64_t lookups;           /* reads + writes */
    uint64_t hits;              /* ... that found their entry */
    uint64_t insertions;        /* entries allocated */
    uint64_t evictions;         /* valid entries replaced */
    uint64_t evicted_lines;     /* tracked lines in evicted entries (Fig. 12:
                                ** evicted_lines / evictions) */
    uint64_t inv_lines[3];      /* [cause]: line invalidations emitted */
    uint64_t inv_messages[3];   /* [cause]: per (line, sharer GPU) */
    uint64_t valid_entries;     /* now */
    uint64_t max_valid_entries; /* high-water mark */
} dir_table_stats;

/* The paper's configuration of org on 4 GPUs, home 0: 8K entries, 8-way,
** 64-B lines, 48 address bits; LINE 1 line FIFO, HMG 4 lines FIFO, REC
** 16 lines (1 kB) LRU. */
void dir_table_config_default(dir_table_config *c, dir_org org);
/* 0 if c is usable; else -1 with one sentence naming the field, its value
** and the allowed range in err (errlen bytes, may be 0). */
int dir_table_config_validate(const dir_table_config *c, char *err,
                              size_t errlen);
/* A table for a validated c (NULL if c does not validate). emit may be NULL
** (invalidations are then only counted). */
dir_table *dir_table_new(const dir_table_config *c, dir_emit_fn emit,
                         void *ud);
void dir_table_free(dir_table *t); /* NULL: nothing */

/* GPU g (!= home, < ngpus) read line addr (any byte of the line): record
** it; may evict an entry. g == home: nothing (a local read). */
void dir_table_read(dir_table *t, uint64_t addr, uint32_t g);
/* GPU g wrote addr (g == home: a local write; else a remote write).
** keep_writer: g keeps a copy and becomes the line's sharer (a remote
** write-through); false for an atomic performed at the home (the requester
** dropped its copy). Ignored for a local write. */
void dir_table_write(dir_table *t, uint64_t addr, uint32_t g,
                     bool keep_writer);
/* The sharers recorded for addr's line now (0 if untracked; HMG: the
** group's vector), for tests and checks. */
uint64_t dir_table_sharers(const dir_table *t, uint64_t addr);

/* Bits of one entry of a validated c (Table 1 / §4.3). */
uint32_t dir_table_entry_bits(const dir_table_config *c);
/* entries x entry bits (0 if unbounded). */
uint64_t dir_table_storage_bits(const dir_table_config *c);

const dir_table_stats *dir_table_stats_get(const dir_table *t);
/* 1 if every invariant of the header note holds (for assert()), else 0. */
int dir_table_check(const dir_table *t);

#endif
