/*
** The IOMMU's ESI page directory (esi_dir.h). An open-addressing table of
** pages (key = page number + 1, 0 = empty; grows at half full); each entry
** holds the set of GPUs holding a copy and whether that copy is Exclusive.
** Invariant: exclusive implies exactly one holder; no holder means every
** GPU is Invalid (the page is in its staging frame). Every page of a piece
** has an entry with the piece's order; the state of the piece is the one
** in the entry of its first page (the others' is not read).
*/
#include "um/esi_dir.h"

#include <assert.h>
#include <stdlib.h>

#include "util/xmalloc.h"

typedef struct esi_entry {
    uint64_t key;             /* page + 1; 0 = empty */
    uint64_t holders;         /* bit per GPU (first page of a piece) */
    bool exclusive;
    uint8_t order;            /* the piece: 2^order pages */
    uint64_t split_at;        /* 1 + time the piece (or a part of it) was
                                 last split; 0: never (first page) */
} esi_entry;

struct esi_dir {
    esi_entry *v;
    uint64_t cap, n;
    uint32_t ngpus;
    bool exclusive_only;
    unsigned max_order;
    uint64_t merge_hold;      /* esi_dir_set_merge_hold */
    uint64_t rng;             /* xorshift64 state, never 0 */
};

esi_dir *esi_dir_new(uint32_t ngpus, bool exclusive_only, uint64_t seed,
                     unsigned max_order)
{
    assert(ngpus >= 1 && ngpus <= 64 && max_order < 32);
    esi_dir *d = MGS_NEW(esi_dir);
    d->ngpus = ngpus;
    d->exclusive_only = exclusive_only;
    d->max_order = max_order;
    d->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
    return d;
}

void esi_dir_free(esi_dir *d)
{
    if (!d)
        return;
    free(d->v);
    free(d);
}

static uint64_t slot_of(uint64_t key, uint64_t cap)
{
    return (key * 0x9e3779b97f4a7c15ull) & (cap - 1);
}

static esi_entry *find(const esi_dir *d, uint64_t page)
{
    if (!d->cap)
        return NULL;
    uint64_t key = page + 1;
    for (uint64_t h = slot_of(key, d->cap);; h = (h + 1) & (d->cap - 1)) {
        if (d->v[h].key == key)
            return &d->v[h];
        if (!d->v[h].key)
            return NULL;
    }
}

static esi_entry *add(esi_dir *d, uint64_t page)
{
    if (2 * (d->n + 1) > d->cap) {
        uint64_t cap = d->cap ? 2 * d->cap : 1024;
        esi_entry *v = mgs_xcalloc(cap, sizeof *v);
        for (uint64_t i = 0; i < d->cap; i++) {
            if (!d->v[i].key)
                continue;
            uint64_t h = slot_of(d->v[i].key, cap);
            while (v[h].key)
                h = (h + 1) & (cap - 1);
            v[h] = d->v[i];
        }
        free(d->v);
        d->v = v;
        d->cap = cap;
    }
    uint64_t key = page + 1;
    uint64_t h = slot_of(key, d->cap);
    while (d->v[h].key && d->v[h].key != key)
        h = (h + 1) & (d->cap - 1);
    if (!d->v[h].key) {
        d->v[h] = (esi_entry){.key = key};
        d->n++;
    }
    return &d->v[h];
}

bool esi_dir_known(const esi_dir *d, uint64_t page)
{
    return find(d, page) != NULL;
}

/* The entry of the first page of the piece holding page, or NULL. */
static esi_entry *head(const esi_dir *d, uint64_t page)
{
    const esi_entry *e = find(d, page);
    if (!e)
        return NULL;
    return find(d, page & ~((1ull << e->order) - 1));
}

/* Sets the order of pages [first, first + 2^order). */
static void set_order(esi_dir *d, uint64_t first, unsigned order)
{
    for (uint64_t i = 0; i < 1ull << order; i++)
        add(d, first + i)->order = (uint8_t)order;
}

void esi_dir_seed(esi_dir *d, uint64_t first, unsigned order, int gpu)
{
    assert(!(first & ((1ull << order) - 1)));
    set_order(d, first, order);
    esi_entry *e = add(d, first);
    e->holders = gpu >= 0 ? 1ull << gpu : 0;
    e->exclusive = gpu >= 0;
}

void esi_dir_piece(const esi_dir *d, uint64_t page, uint64_t *first,
                   unsigned *order)
{
    const esi_entry *e = find(d, page);
    assert(e);
    *order = e->order;
    *first = page & ~((1ull << e->order) - 1);
}

void esi_dir_set_merge_hold(esi_dir *d, uint64_t hold)
{
    d->merge_hold = hold;
}

bool esi_dir_split(esi_dir *d, uint64_t page, uint64_t now)
{
    uint64_t first;
    unsigned order;
    esi_dir_piece(d, page, &first, &order);
    if (!order)
        return false;
    esi_entry st = *find(d, first);
    uint64_t half = 1ull << (order - 1);
    set_order(d, first, order - 1);
    set_order(d, first + half, order - 1);
    esi_entry *b = add(d, first + half);
    b->holders = st.holders;
    b->exclusive = st.exclusive;
    b->split_at = find(d, first)->split_at = now + 1;
    return true;
}

unsigned esi_dir_merge(esi_dir *d, uint64_t page, uint64_t now,
                       bool (*busy)(void *ud, uint64_t first, uint64_t n),
                       void *ud)
{
    unsigned joins = 0;
    for (;;) {
        uint64_t first;
        unsigned order;
        esi_dir_piece(d, page, &first, &order);
        if (order >= d->max_order)
            return joins;
        uint64_t size = 1ull << order, buddy = first ^ size;
        const esi_entry *a = find(d, first), *b = find(d, buddy);
        if (!b || b->order != order || a->holders != b->holders ||
            a->exclusive != b->exclusive ||
            (busy && busy(ud, first & ~size, 2 * size)))
            return joins;
        uint64_t split = a->split_at > b->split_at ? a->split_at
                                                   : b->split_at;
        if (split && d->merge_hold && now < split - 1 + d->merge_hold)
            return joins;     /* split too recently: not yet */
        esi_entry st = *a;
        set_order(d, first & ~size, order + 1);
        esi_entry *h = add(d, first & ~size);
        h->holders = st.holders;
        h->exclusive = st.exclusive;
        h->split_at = split;  /* the joined piece keeps the later split */
        joins++;
    }
}

esi_state esi_dir_state(const esi_dir *d, uint64_t page, uint32_t gpu)
{
    const esi_entry *e = head(d, page);
    if (!e || !(e->holders >> gpu & 1))
        return ESI_I;
    return e->exclusive ? ESI_E : ESI_S;
}

uint64_t esi_dir_holders(const esi_dir *d, uint64_t page)
{
    const esi_entry *e = head(d, page);
    return e ? e->holders : 0;
}

/* The sharer that supplies: the k-th of set, k from the random stream. */
static int pick(const esi_dir *d, uint64_t set)
{
    uint32_t n = (uint32_t)__builtin_popcountll(set);
    uint32_t k = (uint32_t)((d->rng >> 11) % n);
    for (int g = 0;; g++)
        if (set >> g & 1 && k-- == 0)
            return g;
}

esi_plan esi_dir_plan(const esi_dir *d, uint64_t page, uint32_t gpu,
                      bool write)
{
    const esi_entry *e = head(d, page);
    assert(e && gpu < d->ngpus);
    write |= d->exclusive_only;
    uint64_t me = 1ull << gpu, others = e->holders & ~me;
    esi_plan p = {.kind = ESI_NOTHING, .supplier = -1,
                  .result = write ? ESI_E : ESI_S};
    if (e->holders & me) {
        if (!write || (e->exclusive && !others)) {
            p.result = e->exclusive ? ESI_E : ESI_S;
            return p;             /* it has what it needs */
        }
        p.kind = ESI_UPGRADE;
        p.invalidate = others;
        return p;
    }
    p.kind = ESI_FETCH;
    if (!e->holders) {
        p.result = ESI_E;         /* the only copy: the staging frame's */
        return p;
    }
    p.supplier = e->exclusive ? __builtin_ctzll(e->holders)
                              : pick(d, e->holders);
    if (write)
        p.invalidate = e->holders;
    else if (e->exclusive)
        p.downgrade = e->holders;
    return p;
}

void esi_dir_commit(esi_dir *d, uint64_t page, uint32_t gpu,
                    const esi_plan *plan)
{
    esi_entry *e = head(d, page);
    assert(e);
    if (plan->kind == ESI_FETCH && plan->supplier >= 0 && !e->exclusive) {
        d->rng ^= d->rng << 13;   /* a pick was used: the next one */
        d->rng ^= d->rng >> 7;
        d->rng ^= d->rng << 17;
    }
    if (plan->kind == ESI_NOTHING)
        return;
    e->holders &= ~plan->invalidate;
    if (plan->result == ESI_E) {
        e->holders = 1ull << gpu;
        e->exclusive = true;
    } else {
        e->holders |= 1ull << gpu;
        e->exclusive = false;
    }
}
