/*
** GPS internals shared by the files of this folder (gps.h is the
** interface). The instance holds the GPS page table and one unit per GPU.
*/
#ifndef MGS_COH_GPS_GPS_INT_H
#define MGS_COH_GPS_GPS_INT_H

#include "coh/gps/gps.h"
#include "sim/stats.h"

typedef struct gps_unit gps_unit;

/* 64-bit keys -> nonzero 32-bit values (gps_map.c). */
typedef struct gps_map {
    uint64_t *key;
    uint32_t *val;            /* 0 = empty slot */
    uint32_t cap, count;
} gps_map;
void gps_map_init(gps_map *m, uint32_t cap);
void gps_map_fini(gps_map *m);
uint32_t gps_map_get(const gps_map *m, uint64_t key);  /* 0: absent */
void gps_map_put(gps_map *m, uint64_t key, uint32_t val);
void gps_map_del(gps_map *m, uint64_t key);

/* ---- remote write queue (gps_queue.c) ------------------------------------ */
typedef struct gps_qentry {
    uint64_t block;            /* virtual address of the block */
    uint32_t page;             /* GPS page table index */
    uint64_t mask[2];          /* bytes written (bit i: byte i) */
    uint8_t data[MEM_LINE_MAX];
} gps_qentry;

typedef struct gps_queue {
    gps_qentry *e;
    uint32_t cap, block, count;
    uint32_t *fifo, head;      /* entry indices in allocation order */
    uint32_t *free_e, nfree;
    gps_map tags;              /* block -> entry index + 1 */
} gps_queue;

/* A queue of `entries` blocks of `block` bytes (64 or 128). */
void gps_queue_init(gps_queue *q, uint32_t entries, uint32_t block);
void gps_queue_fini(gps_queue *q);
/* The block address of va. */
uint64_t gps_queue_block_of(const gps_queue *q, uint64_t va);
/* Whether a store to va must wait for an entry to leave: the queue is
** full and holds no entry for va's block. */
bool gps_queue_needs_room(const gps_queue *q, uint64_t va);
/* Merges a store of `size` bytes at va (within one block; a store of at
** most 64 bytes writes only the bytes whose bit is set in mask) into its
** block's entry, allocating one in allocation order on a miss (the caller
** made room: gps_queue_needs_room). Returns true on a hit (coalesced). */
bool gps_queue_store(gps_queue *q, uint64_t va, uint32_t page,
                     const uint8_t *data, uint32_t size, uint64_t mask);
/* The high watermark: the queue holds capacity - 1 entries or more (a
** one-entry queue never reaches it: it drains only when full or released). */
bool gps_queue_at_watermark(const gps_queue *q);
/* Removes the oldest entry (by allocation) into *out; false when empty. */
bool gps_queue_pop(gps_queue *q, gps_qentry *out);

struct gps {
    coh_system sys;
    sim_engine *eng;
    mem_pool *pool;
    stat_registry *stats;
    unsigned page_shift;
    /* GPS page table, in allocation order. */
    gps_page *pages;
    uint32_t npages, pages_cap;
    /* Reverse map: global frame number (pa >> page_shift) -> page
    ** index + 1. */
    gps_map rmap;
    bool tracking;            /* the profiling window is open */
    uint64_t published;       /* publications so far (gps.test_drop) */
    gps_unit *units[GPS_MAX_GPUS];
    stat_hist *subscribers;   /* Fig. 9: subscribers per shared page */
    stat_counter *tracked;    /* pages marked in profiling windows */
};

/* The GPS page that holds physical address pa (a replica frame), or NULL.
** *index gets its index. */
gps_page *gps_table_by_pa(gps *s, uint64_t pa, uint32_t *index);

/* ---- per-GPU unit (gps_unit.c) ----------------------------------------- */
gps_unit *gps_unit_new(gps *s, uint32_t gpu, const mem_route *route);
void gps_unit_free(gps_unit *u);
/* The unit's crossbar port i (gps.ports of them; NULL past the last). */
sim_port *gps_unit_port(gps_unit *u, uint32_t i);
/* The L2 shim: store or atomic m (physical, to page `page` of the table)
** enters the queue (a store) or goes straight to translation (an atomic). */
void gps_unit_capture(gps_unit *u, uint32_t page, const mem_msg *m);
/* A release: whether everything captured so far has been published and
** acknowledged. If not, the queue drains fully and, once it is empty and
** acknowledged, the unit releases the held answer of (c, line). */
bool gps_unit_drained(gps_unit *u, cache *c, uint64_t line);
/* A fence at L1 c: true if the unit is drained; else the queue drains and
** c is woken (cache_wake) once it is. */
bool gps_unit_fence_ready(gps_unit *u, cache *c);

#endif
