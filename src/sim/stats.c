/*
** Statistics registry (interface and row format in stats.h).
**
** Entries live in one array in registration order; each histogram and
** average is a separate allocation so the handle returned to the owner
** stays valid while the array grows. Counters come from slabs instead, in
** registration order: one component's counters sit next to each other
** (a handful of host cache lines rather than one line per counter among
** the name strings), since hot loops bump several of them per cycle. Rows are formatted only in
** stat_registry_foreach; derived metric names (<metric>.mean, ...) are
** built into a scratch buffer valid during the callback only.
*/
#include "sim/stats.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/xmalloc.h"

typedef enum stat_kind {
    STAT_COUNTER,
    STAT_HIST,
    STAT_TAVG,
    STAT_VALUE,
} stat_kind;

typedef struct stat_entry {
    stat_kind kind;
    char *component, *metric, *unit; /* owned copies */
    void *obj;                       /* owned; NULL for STAT_VALUE */
    double value;                    /* STAT_VALUE */
} stat_entry;

#define STAT_SLAB_COUNTERS 512

typedef struct stat_slab {
    struct stat_slab *next;
    stat_counter c[STAT_SLAB_COUNTERS];
} stat_slab;

struct stat_registry {
    stat_entry *entries;
    size_t n, cap;
    stat_slab *slabs;      /* newest first */
    size_t slab_used;      /* counters taken from slabs->c */
};

stat_registry *stat_registry_new(void)
{
    return MGS_NEW(stat_registry);
}

void stat_registry_free(stat_registry *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->entries[i].component);
        free(r->entries[i].metric);
        free(r->entries[i].unit);
        if (r->entries[i].kind != STAT_COUNTER)
            free(r->entries[i].obj);
    }
    while (r->slabs) {
        stat_slab *next = r->slabs->next;
        free(r->slabs);
        r->slabs = next;
    }
    free(r->entries);
    free(r);
}

static stat_entry *add(stat_registry *r, stat_kind kind, const char *comp,
                       const char *metric, const char *unit, void *obj)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->entries = mgs_xrealloc(r->entries, r->cap * sizeof(*r->entries));
    }
    stat_entry *e = &r->entries[r->n++];
    *e = (stat_entry){kind, mgs_xstrdup(comp), mgs_xstrdup(metric),
                      mgs_xstrdup(unit ? unit : ""), obj, 0.0};
    return e;
}

stat_counter *stat_counter_add(stat_registry *r, const char *component,
                               const char *metric, const char *unit)
{
    if (!r->slabs || r->slab_used == STAT_SLAB_COUNTERS) {
        stat_slab *sl = MGS_NEW(stat_slab);
        sl->next = r->slabs;
        r->slabs = sl;
        r->slab_used = 0;
    }
    stat_counter *c = &r->slabs->c[r->slab_used++];
    add(r, STAT_COUNTER, component, metric, unit, c);
    return c;
}

stat_hist *stat_hist_add(stat_registry *r, const char *component,
                         const char *metric, const char *unit)
{
    stat_hist *h = MGS_NEW(stat_hist);
    add(r, STAT_HIST, component, metric, unit, h);
    return h;
}

stat_tavg *stat_tavg_add(stat_registry *r, const char *component,
                         const char *metric, const char *unit, mgs_time now)
{
    stat_tavg *t = MGS_NEW(stat_tavg);
    t->start = t->last = now;
    add(r, STAT_TAVG, component, metric, unit, t);
    return t;
}

void stat_value_add(stat_registry *r, const char *component,
                    const char *metric, double value, const char *unit)
{
    add(r, STAT_VALUE, component, metric, unit, NULL)->value = value;
}

/* Bucket of v: 0 for 0, else the bit width of v (2^(i-1) <= v < 2^i),
** clamped to the last bucket. */
static unsigned hist_bucket(uint64_t v)
{
    unsigned b = v ? 64u - (unsigned)__builtin_clzll(v) : 0u;
    return b < STAT_HIST_BUCKETS ? b : STAT_HIST_BUCKETS - 1;
}

void stat_hist_sample(stat_hist *h, uint64_t v)
{
    h->count++;
    h->sum += v;
    if (v > h->max)
        h->max = v;
    h->bucket[hist_bucket(v)]++;
}

void stat_tavg_set(stat_tavg *t, mgs_time now, uint64_t level)
{
    t->area += (long double)t->level * (long double)(now - t->last);
    t->last = now;
    t->level = level;
    if (level > t->max)
        t->max = level;
}

static void emit(const stat_entry *e, const char *metric, double v,
                 const char *unit, void (*fn)(const stat_row *, void *),
                 void *ud, size_t *rows)
{
    stat_row row = {e->component, metric, v, unit};
    fn(&row, ud);
    (*rows)++;
}

size_t stat_registry_foreach(const stat_registry *r, mgs_time now,
                             void (*fn)(const stat_row *row, void *ud),
                             void *ud)
{
    size_t rows = 0;
    char name[256];
    for (size_t i = 0; i < r->n; i++) {
        const stat_entry *e = &r->entries[i];
        switch (e->kind) {
        case STAT_COUNTER:
            emit(e, e->metric, (double)((stat_counter *)e->obj)->value,
                 e->unit, fn, ud, &rows);
            break;
        case STAT_VALUE:
            emit(e, e->metric, e->value, e->unit, fn, ud, &rows);
            break;
        case STAT_HIST: {
            const stat_hist *h = e->obj;
            snprintf(name, sizeof name, "%s.count", e->metric);
            emit(e, name, (double)h->count, "count", fn, ud, &rows);
            snprintf(name, sizeof name, "%s.mean", e->metric);
            emit(e, name, h->count ? (double)h->sum / (double)h->count : 0.0,
                 e->unit, fn, ud, &rows);
            snprintf(name, sizeof name, "%s.max", e->metric);
            emit(e, name, (double)h->max, e->unit, fn, ud, &rows);
            for (unsigned b = 0; b < STAT_HIST_BUCKETS; b++) {
                if (!h->bucket[b])
                    continue;
                if (b == STAT_HIST_BUCKETS - 1)
                    snprintf(name, sizeof name, "%s.le_inf", e->metric);
                else
                    snprintf(name, sizeof name, "%s.le_%llu", e->metric,
                             (unsigned long long)((1ULL << b) - 1));
                emit(e, name, (double)h->bucket[b], "count", fn, ud, &rows);
            }
            break;
        }
        case STAT_TAVG: {
            const stat_tavg *t = e->obj;
            mgs_time end = now > t->last ? now : t->last;
            long double area = t->area +
                (long double)t->level * (long double)(end - t->last);
            double avg = end > t->start
                ? (double)(area / (long double)(end - t->start))
                : (double)t->level;
            snprintf(name, sizeof name, "%s.avg", e->metric);
            emit(e, name, avg, e->unit, fn, ud, &rows);
            snprintf(name, sizeof name, "%s.max", e->metric);
            emit(e, name, (double)t->max, e->unit, fn, ud, &rows);
            break;
        }
        }
    }
    return rows;
}
