/*
** Internals of the directory protocols (dir, hmg, rec), shared by dir.c
** (the protocol: rules, configuration, wiring) and dir_l2.c (what each L2
** bank does: the home directory slice, holding write answers, and the
** sharer-side statistics).
*/
#ifndef MGS_COH_DIR_DIR_INT_H
#define MGS_COH_DIR_DIR_INT_H

#include "coh/coh.h"
#include "coh/dir/dir_table.h"
#include "coh/dir/inv_engine.h"
#include "coh/dir/line_history.h"

/* An invalidation request a bank sent to its engine and that is not
** answered yet: the lines of one aligned group. */
typedef struct dir_pending {
    const mem_msg *req;       /* ours, in flight */
    uint64_t base;            /* first line of the group */
    uint64_t lines;           /* bit i: line base + i * line */
} dir_pending;

/* A line with writes admitted but not yet answered. */
typedef struct dir_admitted {
    uint64_t line;
    uint32_t count;
} dir_admitted;

enum {
    DS_INV_HIT_WRITE, DS_INV_HIT_EVICT, DS_INV_MISS_WRITE, DS_INV_MISS_EVICT,
    DS_MISS_COLD, DS_MISS_CAPACITY, DS_MISS_COHERENCE, DS_HELD_WRITES,
    DS_STALL_ROOM, DS_STALL_WRITE_PENDING, DS_INV_REQUESTS,
    DS_LOOKUPS, DS_HITS, DS_INSERTIONS, DS_EVICTIONS, DS_EVICTED_LINES,
    DS_INV_LINES_WRITE, DS_INV_LINES_EVICT, DS_INV_MSGS_WRITE,
    DS_INV_MSGS_EVICT, DS_COUNT
};

typedef struct dir_proto dir_proto;
typedef struct dir_bank dir_bank;

/* What decides a home bank's invalidations when it is not the directory
** table: CARVE-HWC's In-Memory Sharing Tracker (src/coh/carve/). The bank
** calls `read` for a remote read of a line it homes and `write` for a
** write or atomic to it (local or remote: gpu is the writer's,
** remote_write for a plain write of another GPU); the tracker names the
** GPUs that must drop the line with dir_bank_invalidate. Everything else
** (admission, held write answers, the invalidation engine) is the
** directory protocols'. */
typedef struct dir_tracker {
    void (*read)(void *ud, dir_bank *b, uint64_t line, uint32_t gpu);
    void (*write)(void *ud, dir_bank *b, uint64_t line, uint32_t gpu,
                  bool remote_write);
    void *ud;
} dir_tracker;

/* One L2 bank of one GPU: the directory slice for the lines it homes (a
** GPU's directory is sliced over its banks like the lines: the L2
** interleave is at least the entry range, so an entry's lines are all in
** one bank) and what it keeps as a sharer of other GPUs' lines. */
struct dir_bank {
    dir_proto *dp;
    cache *l2;
    uint32_t gpu, bank;
    dir_table *table;         /* NULL until the bank's site is known */
    sim_port *engine;         /* the GPU's invalidation engine (local) */
    uint32_t line;
    uint64_t group;           /* bytes one entry covers (range_lines lines) */
    /* The request being built from the table's invalidations. */
    mem_msg *building;
    uint32_t built;           /* requests sent by the current operation */
    /* Requests in flight (small: bounded by the bank's transactions). */
    dir_pending *pend;
    uint32_t npend, cap_pend;
    uint32_t max_pend;        /* requests in flight at most */
    dir_admitted *adm;
    uint32_t nadm, cap_adm;
    /* Sharer side. */
    line_history hist;
    uint64_t inv_line;        /* the line on_inv saw last (+1), 0 none */
    stat_counter *st[DS_COUNT];
    stat_hist *latency;       /* L2 answer latency (ps) */
    struct dir_bank *next;
};

struct dir_proto {
    coh_system sys;
    dir_table_config tcfg;    /* per bank (home filled per bank) */
    sim_engine *eng;
    mem_pool *pool;
    stat_registry *stats;
    inv_engine *engines[INV_ENGINE_MAX_GPUS];
    bool peers_set;
    bool no_write_inv;        /* the broken variant (tests): plain writes
                                 invalidate nobody */
    const dir_tracker *tracker; /* NULL: the directory table decides */
    dir_bank *banks;          /* every L2 bank (list) */
};

extern const cache_protocol dir_l2_hooks;
dir_bank *dir_bank_new(dir_proto *dp, cache *l2, uint32_t gpu);
/* The bank's site is known: its index, its table and engine. */
void dir_bank_place(dir_bank *b, uint32_t bank, sim_port *engine,
                    const char *name);
void dir_bank_free(dir_bank *b);
/* For a tracker: GPUs `sharers` (bit g = GPU g) must drop line (a write
** invalidation, part of the operation being admitted). */
void dir_bank_invalidate(dir_bank *b, uint64_t line, uint64_t sharers);
/* Whether an invalidation of line (homed here) is in flight: a write
** admitted now is held until it lands, and remote reads of the line wait
** meanwhile, so no other GPU can have fetched a copy since it was sent. */
bool dir_bank_inv_pending(const dir_bank *b, uint64_t line);
/* The bank of cache l2, or NULL. */
dir_bank *dir_bank_of(const dir_proto *dp, const cache *l2);

#endif
