/*
** Time-slot event queue (design in evq.h).
**
** Hash table: linear probing, power-of-two capacity kept at most half
** full, deletion by backward shift (no tombstones), so probe sequences stay
** short however long the run. Hash: Fibonacci multiplication of the time.
*/
#include "sim/evq.h"

#include <assert.h>
#include <stdlib.h>

#include "util/xmalloc.h"

static inline uint32_t hash_home(const sim_evq *q, mgs_time t)
{
    return (uint32_t)((t * 0x9E3779B97F4A7C15ULL) >> 32) & q->hmask;
}

static void hash_alloc(sim_evq *q, uint32_t cap)
{
    q->hash = mgs_xmalloc((size_t)cap * sizeof(*q->hash));
    for (uint32_t i = 0; i < cap; i++)
        q->hash[i].slot = EVQ_NONE;
    q->hmask = cap - 1;
    q->hcount = 0;
}

static void hash_insert(sim_evq *q, mgs_time t, uint32_t slot)
{
    uint32_t i = hash_home(q, t);
    while (q->hash[i].slot != EVQ_NONE)
        i = (i + 1) & q->hmask;
    q->hash[i] = (evq_hent){t, slot};
    q->hcount++;
}

static void hash_grow(sim_evq *q)
{
    evq_hent *old = q->hash;
    uint32_t oldcap = q->hmask + 1;
    hash_alloc(q, oldcap * 2);
    for (uint32_t i = 0; i < oldcap; i++)
        if (old[i].slot != EVQ_NONE)
            hash_insert(q, old[i].time, old[i].slot);
    free(old);
}

/* Slot of time t or EVQ_NONE; *pos receives the entry where the probe
** stopped (t's entry, or the empty entry where t would go). */
static inline uint32_t hash_find(const sim_evq *q, mgs_time t, uint32_t *pos)
{
    uint32_t i = hash_home(q, t);
    for (;;) {
        const evq_hent *h = &q->hash[i];
        if (h->slot == EVQ_NONE || h->time == t) {
            *pos = i;
            return h->slot;
        }
        i = (i + 1) & q->hmask;
    }
}

static void hash_erase(sim_evq *q, mgs_time t)
{
    uint32_t i = hash_home(q, t);
    while (q->hash[i].time != t || q->hash[i].slot == EVQ_NONE)
        i = (i + 1) & q->hmask;
    /* Backward shift: pull later entries of the probe run into the hole
    ** unless their home lies cyclically in (hole, j]. */
    uint32_t hole = i, j = i;
    for (;;) {
        j = (j + 1) & q->hmask;
        if (q->hash[j].slot == EVQ_NONE)
            break;
        uint32_t home = hash_home(q, q->hash[j].time);
        bool stays = hole <= j ? (hole < home && home <= j)
                               : (hole < home || home <= j);
        if (!stays) {
            q->hash[hole] = q->hash[j];
            hole = j;
        }
    }
    q->hash[hole].slot = EVQ_NONE;
    q->hcount--;
}

void evq_init(sim_evq *q, size_t slots_hint)
{
    uint32_t n = 16;
    while (n < slots_hint && n < (1u << 30))
        n *= 2;
    *q = (sim_evq){0};
    q->slots = MGS_NEW_ARRAY(evq_slot, n);
    q->nslots = n;
    for (uint32_t i = 0; i < n; i++)
        q->slots[i].next_free = i + 1 < n ? i + 1 : EVQ_NONE;
    q->free_head = 0;
    q->heap = MGS_NEW_ARRAY(evq_hkey, n + 1); /* + sentinel */
    hash_alloc(q, 2 * n);
    q->last_slot = EVQ_NONE;
}

void evq_fini(sim_evq *q)
{
    free(q->slots);
    free(q->heap);
    free(q->hash);
    *q = (sim_evq){0};
}

/* Creates the slot for time t, absent from the hash table; hpos is the
** empty hash entry where the failed lookup for t stopped. */
static uint32_t slot_alloc(sim_evq *q, mgs_time t, uint32_t hpos)
{
    if (q->free_head == EVQ_NONE) {
        uint32_t old = q->nslots, n = old * 2;
        q->slots = mgs_xrealloc(q->slots, (size_t)n * sizeof(*q->slots));
        q->heap = mgs_xrealloc(q->heap,
                               ((size_t)n + 1) * sizeof(*q->heap));
        for (uint32_t i = old; i < n; i++)
            q->slots[i] = (evq_slot){0, NULL, NULL,
                                     i + 1 < n ? i + 1 : EVQ_NONE};
        q->free_head = old;
        q->nslots = n;
    }
    uint32_t s = q->free_head;
    q->free_head = q->slots[s].next_free;
    q->slots[s].time = t;
    q->slots[s].head = q->slots[s].tail = NULL;
    if (2 * (q->hcount + 1) > q->hmask + 1) {
        hash_grow(q);
        hash_insert(q, t, s);
    } else {
        q->hash[hpos] = (evq_hent){t, s};
        q->hcount++;
    }
    /* Sift up in the heap of distinct times. */
    evq_hkey x = {t, s};
    uint32_t i = q->heap_n++;
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (q->heap[parent].time <= t)
            break;
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = x;
    return s;
}

/* The slot of time t, created if absent; becomes the one-entry cache.
** Kept out of line so that the common push (a cache hit) stays small. */
static __attribute__((noinline)) uint32_t slot_lookup(sim_evq *q, mgs_time t)
{
    uint32_t pos;
    uint32_t s = hash_find(q, t, &pos);
    if (s == EVQ_NONE)
        s = slot_alloc(q, t, pos);
    q->last_time = t;
    q->last_slot = s;
    return s;
}

void evq_push(sim_evq *q, sim_event *ev, mgs_time t)
{
    uint32_t s = q->last_slot != EVQ_NONE && q->last_time == t
                     ? q->last_slot
                     : slot_lookup(q, t);
    evq_slot *sl = &q->slots[s];
    ev->next = NULL;
    if (sl->tail)
        sl->tail->next = ev;
    else
        sl->head = ev;
    sl->tail = ev;
    q->count++;
}

void evq_push_ordered(sim_evq *q, sim_event *ev, mgs_time t,
                      evq_before_fn before)
{
    uint32_t s = q->last_slot != EVQ_NONE && q->last_time == t
                     ? q->last_slot
                     : slot_lookup(q, t);
    evq_slot *sl = &q->slots[s];
    sim_event **link = &sl->head;
    while (*link && before(*link, ev))
        link = &(*link)->next;
    ev->next = *link;
    if (!ev->next)
        sl->tail = ev;
    *link = ev;
    q->count++;
}

/* Removes the heap minimum (heap_n > 0). */
static void heap_pop_min(sim_evq *q)
{
    evq_hkey *h = q->heap;
    uint32_t n = --q->heap_n;
    if (n == 0)
        return;
    evq_hkey x = h[n];
    uint32_t i = 0;
    h[n].time = MGS_TIME_MAX; /* sentinel: a missing right child loses */
    for (;;) {
        uint32_t l = 2 * i + 1;
        if (l >= n)
            break;
        /* Branch-free choice of the smaller child (cmov), since the
        ** comparison is unpredictable. */
        uint32_t m = l + (h[l + 1].time < h[l].time);
        if (h[m].time >= x.time)
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
}

/* The slot of the minimum time drained: retire it (it may be re-created
** for this time by an event scheduled at now; FIFO order is unaffected).
** Out of line: most pops leave the slot non-empty. */
static __attribute__((noinline)) void slot_retire(sim_evq *q, evq_hkey top)
{
    q->slots[top.slot].tail = NULL;
    heap_pop_min(q);
    hash_erase(q, top.time);
    q->slots[top.slot].next_free = q->free_head;
    q->free_head = top.slot;
    if (q->last_slot == top.slot)
        q->last_slot = EVQ_NONE;
}

sim_event *evq_pop(sim_evq *q, mgs_time *t)
{
    assert(q->count > 0);
    const evq_hkey top = q->heap[0];
    evq_slot *sl = &q->slots[top.slot];
    sim_event *ev = sl->head;
    sl->head = ev->next;
    ev->next = NULL;
    q->count--;
    *t = top.time;
    if (!sl->head)
        slot_retire(q, top);
    else /* the next pop reads it; it lives in some component, likely cold */
        __builtin_prefetch(sl->head);
    return ev;
}

int evq_check(const sim_evq *q)
{
    size_t events = 0;
    for (uint32_t i = 0; i < q->heap_n; i++) {
        const evq_hkey *k = &q->heap[i];
        if (i > 0 && q->heap[(i - 1) / 2].time > k->time)
            return 0;
        const evq_slot *sl = &q->slots[k->slot];
        if (sl->time != k->time || !sl->head)
            return 0;
        uint32_t pos;
        if (hash_find(q, k->time, &pos) != k->slot)
            return 0;
        for (const sim_event *ev = sl->head; ev; ev = ev->next)
            events++;
    }
    return events == q->count && q->hcount == q->heap_n;
}
