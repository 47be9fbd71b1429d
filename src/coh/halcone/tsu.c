/*
** The TSU table: Algorithm 3 with eviction by lowest memts and the floor
** that keeps re-added entries above every lease already granted (tsu.h).
*/
#include "coh/halcone/tsu.h"

#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

void tsu_table_init(tsu_table *t, uint32_t entries, uint32_t line)
{
    memset(t, 0, sizeof *t);
    t->sets = entries / TSU_WAYS ? entries / TSU_WAYS : 1;
    t->line_shift = (uint32_t)__builtin_ctz(line);
    t->e = MGS_NEW_ARRAY(tsu_entry, (size_t)t->sets * TSU_WAYS);
    stat_counter **slots[6] = {&t->hits, &t->insertions, &t->evictions,
                               &t->shared_kept, &t->overflows,
                               &t->max_memts_stat};
    for (int i = 0; i < 6; i++)
        *slots[i] = &t->own[i];
}

void tsu_table_fini(tsu_table *t)
{
    free(t->e);
    t->e = NULL;
}

void tsu_table_stats(tsu_table *t, stat_registry *r, const char *name)
{
    static const char *const names[6] = {
        "tsu_hits", "tsu_insertions", "tsu_evictions",
        "tsu_shared_evictions_skipped", "ts_overflows", "max_memts"};
    stat_counter **slots[6] = {&t->hits, &t->insertions, &t->evictions,
                               &t->shared_kept, &t->overflows,
                               &t->max_memts_stat};
    for (int i = 0; i < 6; i++)
        *slots[i] = stat_counter_add(r, name, names[i], "count");
}

void tsu_table_reset(tsu_table *t)
{
    memset(t->e, 0, (size_t)t->sets * TSU_WAYS * sizeof *t->e);
    t->floor = 0;
    t->max_memts = 0;
}

/* A hashed set index: the controller sees only its own pages of the
** interleaved memory, so plain low line bits would use few sets. */
static tsu_entry *set_of(const tsu_table *t, uint64_t line)
{
    uint64_t h = (line >> t->line_shift) * 0x9e3779b97f4a7c15ull;
    return t->e + (size_t)((h >> 32) % t->sets) * TSU_WAYS;
}

static tsu_entry *find(const tsu_table *t, uint64_t line)
{
    tsu_entry *s = set_of(t, line);
    for (uint32_t w = 0; w < TSU_WAYS; w++)
        if (s[w].valid && s[w].line == line)
            return &s[w];
    return NULL;
}

/* Removes e, raising the floor to its memts. */
static void drop(tsu_table *t, tsu_entry *e)
{
    if (e->memts > t->floor)
        t->floor = e->memts;
    e->valid = false;
    stat_inc(t->evictions);
}

/* A new entry for line at the floor (evicting the lowest memts of a full
** set first, which may raise the floor). */
static tsu_entry *insert(tsu_table *t, uint64_t line)
{
    tsu_entry *s = set_of(t, line), *v = NULL;
    for (uint32_t w = 0; w < TSU_WAYS && !v; w++)
        if (!s[w].valid)
            v = &s[w];
    if (!v) {
        v = &s[0];
        for (uint32_t w = 1; w < TSU_WAYS; w++)
            if (s[w].memts < v->memts)
                v = &s[w];
        drop(t, v);
    }
    *v = (tsu_entry){.line = line, .memts = t->floor, .valid = true};
    stat_inc(t->insertions);
    return v;
}

bool tsu_table_grant(tsu_table *t, uint64_t line, bool write,
                     const coh_ts_params *p, uint32_t *rts, uint32_t *wts)
{
    uint32_t lease = write ? p->wr_lease : p->rd_lease;
    tsu_entry *e = find(t, line);
    if (e)
        stat_inc(t->hits);
    else
        e = insert(t, line);
    /* Past ts_max the caller re-initialises (the table with it). */
    if (e->memts + lease > p->ts_max)
        return false;
    e->memts += lease;
    *rts = e->memts;
    *wts = e->memts - lease;
    if (e->memts > t->max_memts) {
        t->max_memts = e->memts;
        if (e->memts > t->max_memts_stat->value)
            t->max_memts_stat->value = e->memts;
    }
    return true;
}

void tsu_table_notice(tsu_table *t, uint64_t line, const coh_ts_params *p)
{
    tsu_entry *e = find(t, line);
    if (!e)
        return;
    uint32_t lease = p->rd_lease > p->wr_lease ? p->rd_lease : p->wr_lease;
    if (e->memts + lease > t->max_memts) {
        stat_inc(t->shared_kept);
        return;
    }
    drop(t, e);
}

int64_t tsu_table_memts(const tsu_table *t, uint64_t line)
{
    const tsu_entry *e = find(t, line);
    return e ? (int64_t)e->memts : -1;
}
