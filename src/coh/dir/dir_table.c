/*
** The coherence directory table (dir_table.h): LINE, HMG and REC entries
** in one layout, bounded (set-associative, FIFO or LRU) or unbounded (a
** hash table).
**
** Layout: structure of arrays over `cap` ways. key[w] is the entry key
** (address >> log2(line x range_lines)) or KEY_NONE for a free way; pos[w]
** the tracked lines (bit i = line i of the range; LINE and HMG use bit 0
** as the valid bit); stamp[w] the replacement order; sh[w x slots + i] the
** sharer vector of line i (slots = range_lines) or of the whole group
** (HMG: slots = 1). A lookup compares keys only, one array.
**
** Bounded: set s holds ways [s x ways, (s + 1) x ways). Unbounded: linear
** probing from hash(key); deletion shifts the following run back so that
** no tombstones are needed; the table doubles when more than half full.
*/
#include "coh/dir/dir_table.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

/* Keys are addresses shifted right by at least 2 bits: never all ones. */
#define KEY_NONE UINT64_MAX
#define NO_WAY UINT64_MAX
#define UNBOUNDED_INITIAL_CAP 1024u

struct dir_table {
    dir_table_config c;
    dir_emit_fn emit;
    void *ud;
    uint32_t line_shift;   /* log2(line) */
    uint32_t range_shift;  /* log2(range_lines) */
    uint32_t key_shift;    /* line_shift + range_shift */
    uint32_t slots;        /* sharer vectors per entry */
    uint64_t line_mask;    /* range_lines - 1 */
    uint64_t home_bit;
    bool bounded;
    bool lru;
    uint32_t ways;         /* bounded */
    uint64_t set_mask;     /* bounded: sets - 1 */
    uint32_t hash_shift;   /* unbounded: 64 - log2(cap) */
    uint64_t cap;          /* ways in the arrays */
    uint64_t *key;         /* [cap] */
    uint64_t *pos;         /* [cap] */
    uint64_t *stamp;       /* [cap], bounded only */
    uint64_t *sh;          /* [cap x slots] */
    uint64_t clock;        /* next stamp */
    dir_table_stats st;
};

static uint32_t log2u(uint64_t v)
{
    uint32_t n = 0;
    while (v > 1) {
        v >>= 1;
        n++;
    }
    return n;
}

static bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* ---- configuration ---- */

void dir_table_config_default(dir_table_config *c, dir_org org)
{
    memset(c, 0, sizeof *c);
    c->org = org;
    c->entries = 8192;
    c->ways = 8;
    c->policy = org == DIR_ORG_REC ? DIR_POLICY_LRU : DIR_POLICY_FIFO;
    c->line = 64;
    c->range_lines = org == DIR_ORG_LINE ? 1 : org == DIR_ORG_HMG ? 4 : 16;
    c->ngpus = 4;
    c->home = 0;
    c->addr_bits = 48;
}

static int fail(char *err, size_t errlen, const char *fmt, unsigned long v,
                const char *range)
{
    if (errlen) {
        char what[96];
        snprintf(what, sizeof what, fmt, v);
        snprintf(err, errlen, "directory %s; allowed: %s", what, range);
    }
    return -1;
}

int dir_table_config_validate(const dir_table_config *c, char *err,
                              size_t errlen)
{
    if (errlen)
        err[0] = '\0';
    if ((unsigned)c->org > DIR_ORG_REC)
        return fail(err, errlen, "organisation %lu", (unsigned long)c->org,
                    "line, hmg, rec");
    if (!pow2(c->line) || c->line < 4 || c->line > 65536)
        return fail(err, errlen, "line size %lu", c->line,
                    "a power of two, 4..65536 bytes");
    if (c->org == DIR_ORG_LINE && c->range_lines != 1)
        return fail(err, errlen, "range %lu lines for the line organisation",
                    c->range_lines, "1");
    if (c->org != DIR_ORG_LINE &&
        (!pow2(c->range_lines) || c->range_lines < 2 ||
         c->range_lines > DIR_TABLE_MAX_RANGE_LINES))
        return fail(err, errlen, "range %lu lines", c->range_lines,
                    "a power of two, 2..64");
    if (c->ngpus < 2 || c->ngpus > DIR_TABLE_MAX_GPUS)
        return fail(err, errlen, "GPU count %lu", c->ngpus, "2..64");
    if (c->home >= c->ngpus)
        return fail(err, errlen, "home GPU %lu", c->home,
                    "0..GPU count - 1");
    uint32_t range_log = log2u((uint64_t)c->line * c->range_lines);
    if (c->addr_bits <= range_log || c->addr_bits > 64)
        return fail(err, errlen, "address bits %lu", c->addr_bits,
                    "more than log2(line x range_lines), at most 64");
    if (c->entries == 0)
        return 0;
    if (c->entries > DIR_TABLE_MAX_ENTRIES)
        return fail(err, errlen, "entries %lu", c->entries,
                    "0 (unbounded) or 1..16777216");
    if ((unsigned)c->policy > DIR_POLICY_LRU)
        return fail(err, errlen, "replacement policy %lu",
                    (unsigned long)c->policy, "fifo, lru");
    if (c->ways == 0 || c->ways > c->entries || c->entries % c->ways ||
        !pow2(c->entries / c->ways))
        return fail(err, errlen, "associativity %lu", c->ways,
                    "1..entries, with entries / ways a power of two");
    return 0;
}

uint32_t dir_table_entry_bits(const dir_table_config *c)
{
    uint32_t others = c->ngpus - 1;
    if (c->org == DIR_ORG_LINE)
        return c->addr_bits + others + 1;
    uint32_t base = c->addr_bits - log2u((uint64_t)c->line * c->range_lines);
    if (c->org == DIR_ORG_HMG)
        return base + others + 1;
    return base + c->range_lines + others * c->range_lines + 1;
}

uint64_t dir_table_storage_bits(const dir_table_config *c)
{
    return (uint64_t)c->entries * dir_table_entry_bits(c);
}

/* ---- storage ---- */

static void arrays_alloc(dir_table *t, uint64_t cap)
{
    t->cap = cap;
    t->key = mgs_xmalloc(cap * sizeof *t->key);
    memset(t->key, 0xff, cap * sizeof *t->key); /* KEY_NONE */
    t->pos = MGS_NEW_ARRAY(uint64_t, cap);
    /* Stamps order replacement: the unbounded table never replaces. */
    t->stamp = t->bounded ? MGS_NEW_ARRAY(uint64_t, cap) : NULL;
    t->sh = MGS_NEW_ARRAY(uint64_t, cap * t->slots);
}

static void arrays_free(dir_table *t)
{
    free(t->key);
    free(t->pos);
    free(t->stamp);
    free(t->sh);
}

dir_table *dir_table_new(const dir_table_config *c, dir_emit_fn emit,
                         void *ud)
{
    if (dir_table_config_validate(c, NULL, 0))
        return NULL;
    dir_table *t = MGS_NEW(dir_table);
    t->c = *c;
    t->emit = emit;
    t->ud = ud;
    t->line_shift = log2u(c->line);
    t->range_shift = log2u(c->range_lines);
    t->key_shift = t->line_shift + t->range_shift;
    t->line_mask = c->range_lines - 1;
    t->slots = c->org == DIR_ORG_HMG ? 1 : c->range_lines;
    t->home_bit = 1ull << c->home;
    t->bounded = c->entries != 0;
    t->lru = t->bounded && c->policy == DIR_POLICY_LRU;
    if (t->bounded) {
        t->ways = c->ways;
        t->set_mask = c->entries / c->ways - 1;
        arrays_alloc(t, c->entries);
    } else {
        t->hash_shift = 64 - log2u(UNBOUNDED_INITIAL_CAP);
        arrays_alloc(t, UNBOUNDED_INITIAL_CAP);
    }
    return t;
}

void dir_table_free(dir_table *t)
{
    if (!t)
        return;
    arrays_free(t);
    free(t);
}

static inline uint64_t hash_of(const dir_table *t, uint64_t k)
{
    return (k * 0x9e3779b97f4a7c15ull) >> t->hash_shift;
}

/* The way holding key k, or NO_WAY. */
static inline uint64_t find(const dir_table *t, uint64_t k)
{
    if (t->bounded) {
        uint64_t w = (k & t->set_mask) * t->ways;
        for (uint64_t end = w + t->ways; w < end; w++)
            if (t->key[w] == k)
                return w;
        return NO_WAY;
    }
    uint64_t mask = t->cap - 1;
    for (uint64_t w = hash_of(t, k);; w = (w + 1) & mask) {
        if (t->key[w] == k)
            return w;
        if (t->key[w] == KEY_NONE)
            return NO_WAY;
    }
}

static inline uint64_t line_addr(const dir_table *t, uint64_t k, uint64_t i)
{
    return ((k << t->range_shift) | i) << t->line_shift;
}

static inline void emit(dir_table *t, uint64_t addr, uint64_t sharers,
                        dir_cause cause)
{
    t->st.inv_lines[cause]++;
    t->st.inv_messages[cause] += (uint64_t)__builtin_popcountll(sharers);
    if (t->emit)
        t->emit(t->ud, addr, sharers, cause);
}

/* Invalidates every line way w tracks at its sharers (an eviction). */
static void evict(dir_table *t, uint64_t w)
{
    uint64_t k = t->key[w];
    const uint64_t *sh = &t->sh[w * t->slots];
    t->st.evictions++;
    if (t->c.org == DIR_ORG_HMG) {
        t->st.evicted_lines += t->c.range_lines;
        for (uint64_t i = 0; i <= t->line_mask; i++)
            emit(t, line_addr(t, k, i), sh[0], DIR_CAUSE_EVICT);
    } else {
        uint64_t p = t->pos[w];
        t->st.evicted_lines += (uint64_t)__builtin_popcountll(p);
        for (; p; p &= p - 1) {
            uint64_t i = (uint64_t)__builtin_ctzll(p);
            emit(t, line_addr(t, k, i), sh[i], DIR_CAUSE_EVICT);
        }
    }
    t->st.valid_entries--;
}

static void unbounded_grow(dir_table *t)
{
    dir_table old = *t;
    t->hash_shift--;
    arrays_alloc(t, old.cap * 2);
    uint64_t mask = t->cap - 1;
    for (uint64_t o = 0; o < old.cap; o++) {
        if (old.key[o] == KEY_NONE)
            continue;
        uint64_t w = hash_of(t, old.key[o]);
        while (t->key[w] != KEY_NONE)
            w = (w + 1) & mask;
        t->key[w] = old.key[o];
        t->pos[w] = old.pos[o];
        memcpy(&t->sh[w * t->slots], &old.sh[o * t->slots],
               t->slots * sizeof *t->sh);
    }
    arrays_free(&old);
}

/* A free way for key k (known absent), evicting a victim if the set is
** full; the way gets k, an empty position mask and sharers, a new stamp. */
static uint64_t allocate(dir_table *t, uint64_t k)
{
    uint64_t w;
    if (t->bounded) {
        uint64_t first = (k & t->set_mask) * t->ways, end = first + t->ways;
        w = NO_WAY;
        uint64_t oldest = UINT64_MAX;
        for (uint64_t v = first; v < end; v++) {
            if (t->key[v] == KEY_NONE) {
                w = v;
                break;
            }
            if (t->stamp[v] < oldest) {
                oldest = t->stamp[v];
                w = v;
            }
        }
        if (t->key[w] != KEY_NONE) {
            evict(t, w);
            memset(&t->sh[w * t->slots], 0, t->slots * sizeof *t->sh);
        }
    } else {
        if ((t->st.valid_entries + 1) * 2 > t->cap)
            unbounded_grow(t);
        uint64_t mask = t->cap - 1;
        for (w = hash_of(t, k); t->key[w] != KEY_NONE; w = (w + 1) & mask)
            ;
    }
    t->key[w] = k;
    t->pos[w] = 0;
    if (t->bounded)
        t->stamp[w] = t->clock++;
    t->st.insertions++;
    if (++t->st.valid_entries > t->st.max_valid_entries)
        t->st.max_valid_entries = t->st.valid_entries;
    return w;
}

/* Way w no longer tracks anything: free it. Its sharer vectors are zero
** (LINE, REC) or are cleared here (HMG). */
static void release(dir_table *t, uint64_t w)
{
    t->st.valid_entries--;
    t->sh[w * t->slots] = 0; /* HMG's group vector; already 0 otherwise */
    t->pos[w] = 0;
    if (t->bounded) {
        t->key[w] = KEY_NONE;
        return;
    }
    /* Backward-shift deletion: pull each later member of the probe run
    ** that may live at the hole (its home is not cyclically in (hole, j]). */
    uint64_t mask = t->cap - 1, hole = w;
    for (uint64_t j = (hole + 1) & mask; t->key[j] != KEY_NONE;
         j = (j + 1) & mask) {
        uint64_t home = hash_of(t, t->key[j]);
        if (((j - home) & mask) < ((j - hole) & mask))
            continue;
        t->key[hole] = t->key[j];
        t->pos[hole] = t->pos[j];
        memcpy(&t->sh[hole * t->slots], &t->sh[j * t->slots],
               t->slots * sizeof *t->sh);
        memset(&t->sh[j * t->slots], 0, t->slots * sizeof *t->sh);
        t->pos[j] = 0;
        hole = j;
    }
    t->key[hole] = KEY_NONE;
}

static inline void touch(dir_table *t, uint64_t w)
{
    if (t->lru)
        t->stamp[w] = t->clock++;
}

/* ---- operations ---- */

void dir_table_read(dir_table *t, uint64_t addr, uint32_t g)
{
    assert(g < t->c.ngpus);
    if (g == t->c.home)
        return;
    uint64_t k = addr >> t->key_shift;
    uint64_t w = find(t, k);
    t->st.lookups++;
    if (w != NO_WAY) {
        t->st.hits++;
        touch(t, w);
    } else {
        w = allocate(t, k);
    }
    if (t->c.org == DIR_ORG_HMG) {
        t->pos[w] = 1;
        t->sh[w] |= 1ull << g;
    } else {
        uint64_t i = (addr >> t->line_shift) & t->line_mask;
        t->pos[w] |= 1ull << i;
        t->sh[w * t->slots + i] |= 1ull << g;
    }
}

/* HMG: a write to any line of group k acts on the whole group. */
static void hmg_write(dir_table *t, uint64_t k, uint64_t w, uint64_t gbit,
                      bool local, bool keep)
{
    uint64_t *sh = &t->sh[w];
    uint64_t others = *sh & ~gbit;
    if (others)
        for (uint64_t i = 0; i <= t->line_mask; i++)
            emit(t, line_addr(t, k, i), others, DIR_CAUSE_WRITE);
    *sh = local ? 0 : keep ? gbit : *sh & gbit;
    if (*sh)
        touch(t, w);
    else
        release(t, w);
}

void dir_table_write(dir_table *t, uint64_t addr, uint32_t g,
                     bool keep_writer)
{
    assert(g < t->c.ngpus);
    bool local = g == t->c.home;
    bool keep = keep_writer && !local;
    uint64_t gbit = 1ull << g;
    uint64_t k = addr >> t->key_shift;
    uint64_t w = find(t, k);
    t->st.lookups++;
    if (w == NO_WAY) {
        if (!keep)
            return;
        w = allocate(t, k);
    } else {
        t->st.hits++;
        if (t->c.org == DIR_ORG_HMG) {
            hmg_write(t, k, w, gbit, local, keep);
            return;
        }
    }
    if (t->c.org == DIR_ORG_HMG) { /* a fresh entry */
        t->pos[w] = 1;
        t->sh[w] = gbit;
        return;
    }
    uint64_t i = (addr >> t->line_shift) & t->line_mask;
    uint64_t *sh = &t->sh[w * t->slots + i];
    uint64_t others = *sh & ~gbit;
    if (others)
        emit(t, line_addr(t, k, i), others, DIR_CAUSE_WRITE);
    if (keep) {
        *sh = gbit;
        t->pos[w] |= 1ull << i;
    } else {
        *sh = 0;
        t->pos[w] &= ~(1ull << i);
        if (!t->pos[w]) {
            release(t, w);
            return;
        }
    }
    touch(t, w);
}

uint64_t dir_table_sharers(const dir_table *t, uint64_t addr)
{
    uint64_t w = find(t, addr >> t->key_shift);
    if (w == NO_WAY)
        return 0;
    if (t->c.org == DIR_ORG_HMG)
        return t->sh[w];
    return t->sh[w * t->slots + ((addr >> t->line_shift) & t->line_mask)];
}

const dir_table_stats *dir_table_stats_get(const dir_table *t)
{
    return &t->st;
}

int dir_table_check(const dir_table *t)
{
    uint64_t gpus = t->c.ngpus == 64 ? UINT64_MAX
                                     : (1ull << t->c.ngpus) - 1;
    uint64_t allowed = gpus & ~t->home_bit, valid = 0;
    for (uint64_t w = 0; w < t->cap; w++) {
        const uint64_t *sh = &t->sh[w * t->slots];
        if (t->key[w] == KEY_NONE) {
            if (t->pos[w])
                return 0;
            for (uint32_t i = 0; i < t->slots; i++)
                if (sh[i])
                    return 0;
            continue;
        }
        valid++;
        if (!t->pos[w] || find(t, t->key[w]) != w)
            return 0;
        if (t->bounded && (t->key[w] & t->set_mask) != w / t->ways)
            return 0;
        if (t->c.org == DIR_ORG_HMG) {
            if (t->pos[w] != 1 || !sh[0] || (sh[0] & ~allowed))
                return 0;
            continue;
        }
        if (t->slots < 64 && (t->pos[w] >> t->slots))
            return 0;
        for (uint32_t i = 0; i < t->slots; i++) {
            bool tracked = (t->pos[w] >> i) & 1;
            if (tracked != (sh[i] != 0) || (sh[i] & ~allowed))
                return 0;
        }
    }
    return valid == t->st.valid_entries &&
           t->st.valid_entries <= t->st.max_valid_entries;
}
