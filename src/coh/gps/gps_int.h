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
sim_port *gps_unit_port(gps_unit *u);
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
