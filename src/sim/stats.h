/*
** Statistics registry: explicit registration, never discovery by name.
**
** A component registers each metric once at build time and keeps the
** returned handle; the hot path updates plain integer fields. Rows are
** produced only at dump time, as (component, metric, value, unit), in
** registration order, so two identical runs give identical output.
**
** Kinds:
**   counter       uint64 incremented by the owner            -> 1 row
**   histogram     fixed power-of-two buckets of uint64 samples -> rows
**                 <metric>.count, .mean, .max and one per non-empty bucket
**                 (<metric>.le_<bound>)
**   time-weighted average of a level (queue occupancy, ...): the owner
**                 calls stat_tavg_set(t, now, level) on each change ->
**                 <metric>.avg and <metric>.max
**
** Ownership: the registry owns the stat objects; names are copied.
*/
#ifndef MGS_SIM_STATS_H
#define MGS_SIM_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/time.h" /* mgs_time: picoseconds */

typedef struct stat_registry stat_registry;

typedef struct stat_counter {
    uint64_t value;
} stat_counter;

#define STAT_HIST_BUCKETS 48
typedef struct stat_hist {
    uint64_t count, sum, max;
    uint64_t bucket[STAT_HIST_BUCKETS]; /* bucket i holds samples < 2^i */
} stat_hist;

typedef struct stat_tavg {
    mgs_time start, last;  /* ps: registration time, last change */
    uint64_t level, max;   /* current level and its maximum */
    long double area;      /* sum of level * dt, in level*ps */
} stat_tavg;

typedef struct stat_row {
    const char *component; /* hierarchical name, e.g. "GPU[1].SA[3].L1V[2]" */
    const char *metric;    /* e.g. "read_hits" */
    double value;
    const char *unit;      /* e.g. "count", "bytes", "ps", "cycles" */
} stat_row;

stat_registry *stat_registry_new(void);
void stat_registry_free(stat_registry *r);

stat_counter *stat_counter_add(stat_registry *r, const char *component,
                               const char *metric, const char *unit);
stat_hist *stat_hist_add(stat_registry *r, const char *component,
                         const char *metric, const char *unit);
stat_tavg *stat_tavg_add(stat_registry *r, const char *component,
                         const char *metric, const char *unit, mgs_time now);
/* A derived or final value recorded once (e.g. "kernel_time"). */
void stat_value_add(stat_registry *r, const char *component,
                    const char *metric, double value, const char *unit);

static inline void stat_inc(stat_counter *c) { c->value++; }
static inline void stat_addn(stat_counter *c, uint64_t n) { c->value += n; }
void stat_hist_sample(stat_hist *h, uint64_t v);
void stat_tavg_set(stat_tavg *t, mgs_time now, uint64_t level);

/* Calls fn once per row, in registration order; now closes time-weighted
** averages. Returns the number of rows. */
size_t stat_registry_foreach(const stat_registry *r, mgs_time now,
                             void (*fn)(const stat_row *row, void *ud),
                             void *ud);

#endif
