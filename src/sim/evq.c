/*
** Event queue: bucket wheel plus far store (design in evq.h).
**
** Far store's hash table: linear probing, power-of-two capacity kept at
** most half full, deletion by backward shift (no tombstones), so probe
** sequences stay short however long the run. Hash: Fibonacci
** multiplication of the time.
*/
#include "sim/evq.h"

#include <assert.h>
#include <stdlib.h>

#include "util/xmalloc.h"

#define WHEEL_MASK (EVQ_WHEEL_BUCKETS - 1u)
_Static_assert((EVQ_WHEEL_BUCKETS & WHEEL_MASK) == 0 &&
                   EVQ_WHEEL_BUCKETS % 4096 == 0 &&
                   EVQ_WHEEL_BUCKETS <= 64 * 4096,
               "three bitmap levels of 64-bit words");

/* ---- far store: time slots ------------------------------------------- */

static inline uint32_t hash_home(const evq_far *q, mgs_time t)
{
    return (uint32_t)((t * 0x9E3779B97F4A7C15ULL) >> 32) & q->hmask;
}

static void hash_alloc(evq_far *q, uint32_t cap)
{
    q->hash = mgs_xmalloc((size_t)cap * sizeof(*q->hash));
    for (uint32_t i = 0; i < cap; i++)
        q->hash[i].slot = EVQ_NONE;
    q->hmask = cap - 1;
    q->hcount = 0;
}

static void hash_insert(evq_far *q, mgs_time t, uint32_t slot)
{
    uint32_t i = hash_home(q, t);
    while (q->hash[i].slot != EVQ_NONE)
        i = (i + 1) & q->hmask;
    q->hash[i] = (evq_hent){t, slot};
    q->hcount++;
}

static void hash_grow(evq_far *q)
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
static inline uint32_t hash_find(const evq_far *q, mgs_time t, uint32_t *pos)
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

static void hash_erase(evq_far *q, mgs_time t)
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

static void far_init(evq_far *q, size_t slots_hint)
{
    uint32_t n = 16;
    while (n < slots_hint && n < (1u << 30))
        n *= 2;
    *q = (evq_far){0};
    q->slots = MGS_NEW_ARRAY(evq_slot, n);
    q->nslots = n;
    for (uint32_t i = 0; i < n; i++)
        q->slots[i].next_free = i + 1 < n ? i + 1 : EVQ_NONE;
    q->free_head = 0;
    q->heap = MGS_NEW_ARRAY(evq_hkey, n + 1); /* + sentinel */
    hash_alloc(q, 2 * n);
    q->last_slot = EVQ_NONE;
}

static void far_fini(evq_far *q)
{
    free(q->slots);
    free(q->heap);
    free(q->hash);
    *q = (evq_far){0};
}

/* Creates the slot for time t, absent from the hash table; hpos is the
** empty hash entry where the failed lookup for t stopped. */
static uint32_t slot_alloc(evq_far *q, mgs_time t, uint32_t hpos)
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

/* The slot of time t, created if absent; becomes the one-entry cache. */
static uint32_t slot_lookup(evq_far *q, mgs_time t)
{
    if (q->last_slot != EVQ_NONE && q->last_time == t)
        return q->last_slot;
    uint32_t pos;
    uint32_t s = hash_find(q, t, &pos);
    if (s == EVQ_NONE)
        s = slot_alloc(q, t, pos);
    q->last_time = t;
    q->last_slot = s;
    return s;
}

static void far_push(evq_far *q, sim_event *ev, mgs_time t)
{
    uint32_t s = slot_lookup(q, t); /* may move the slots */
    evq_slot *sl = &q->slots[s];
    ev->next = NULL;
    if (sl->tail)
        sl->tail->next = ev;
    else
        sl->head = ev;
    sl->tail = ev;
    q->count++;
}

static void far_push_ordered(evq_far *q, sim_event *ev, mgs_time t,
                             evq_before_fn before)
{
    uint32_t s = slot_lookup(q, t); /* may move the slots */
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
static void heap_pop_min(evq_far *q)
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

/* The slot of the minimum time drained: retire it. */
static void slot_retire(evq_far *q, evq_hkey top)
{
    q->slots[top.slot].tail = NULL;
    heap_pop_min(q);
    hash_erase(q, top.time);
    q->slots[top.slot].next_free = q->free_head;
    q->free_head = top.slot;
    if (q->last_slot == top.slot)
        q->last_slot = EVQ_NONE;
}

static inline mgs_time far_min_time(const evq_far *q)
{
    return q->heap[0].time;
}

static sim_event *far_pop(evq_far *q, mgs_time *t)
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
    return ev;
}

static int far_check(const evq_far *q)
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

/* ---- the wheel ------------------------------------------------------- */

static inline void mark_nonempty(sim_evq *q, uint32_t i)
{
    q->bits0[i >> 6] |= 1ULL << (i & 63);
    q->bits1[i >> 12] |= 1ULL << ((i >> 6) & 63);
    q->bits2 |= 1ULL << (i >> 12);
}

static inline void mark_empty(sim_evq *q, uint32_t i)
{
    if ((q->bits0[i >> 6] &= ~(1ULL << (i & 63))) != 0)
        return;
    if ((q->bits1[i >> 12] &= ~(1ULL << ((i >> 6) & 63))) != 0)
        return;
    q->bits2 &= ~(1ULL << (i >> 12));
}

/* Index of the first non-empty bucket at or cyclically after index i
** (the wheel is not empty). */
static inline uint32_t next_nonempty(const sim_evq *q, uint32_t i)
{
    uint32_t w = i >> 6;
    uint64_t m = q->bits0[w] & (~0ULL << (i & 63));
    if (m)
        return (w << 6) | (uint32_t)__builtin_ctzll(m);
    uint32_t k = w >> 6;
    uint64_t m1 = q->bits1[k] & ((~0ULL << (w & 63)) << 1);
    if (!m1) {
        uint64_t m2 = q->bits2 & ((~0ULL << k) << 1);
        if (!m2)
            m2 = q->bits2; /* wrap: every set bit lies before i */
        k = (uint32_t)__builtin_ctzll(m2);
        m1 = q->bits1[k];
    }
    w = (k << 6) | (uint32_t)__builtin_ctzll(m1);
    return (w << 6) | (uint32_t)__builtin_ctzll(q->bits0[w]);
}

static inline size_t wheel_count(const sim_evq *q)
{
    return q->count - q->far.count;
}

/* Appends ev to the bucket of t, in the window. */
static void wheel_push(sim_evq *q, sim_event *ev, mgs_time t)
{
    uint32_t i = (uint32_t)t & WHEEL_MASK;
    evq_bucket *k = &q->bucket[i];
    ev->next = NULL;
    if (!k->tail) {
        k->head = ev;
        mark_nonempty(q, i);
    } else {
        k->tail->next = ev;
    }
    k->tail = ev;
    if (t <= q->first) { /* first is a lower bound: t's bucket is first */
        q->first = t;
        q->first_known = true;
    }
}

/* Moves the far events that the window [base, base + buckets) now covers
** to the wheel, earliest first (so FIFO order at each time holds). Far
** events are due at or after base: differences do not wrap, sums might. */
static void pull_far(sim_evq *q)
{
    while (q->far.count &&
           far_min_time(&q->far) - q->base < EVQ_WHEEL_BUCKETS) {
        mgs_time t;
        sim_event *ev = far_pop(&q->far, &t);
        wheel_push(q, ev, t);
    }
}

void evq_init(sim_evq *q, size_t slots_hint)
{
    *q = (sim_evq){0};
    q->bucket = MGS_NEW_ARRAY(evq_bucket, EVQ_WHEEL_BUCKETS);
    q->bits0 = MGS_NEW_ARRAY(uint64_t, EVQ_WHEEL_BUCKETS / 64);
    far_init(&q->far, slots_hint / 16); /* few events are due that far */
}

void evq_fini(sim_evq *q)
{
    free(q->bucket);
    free(q->bits0);
    far_fini(&q->far);
    *q = (sim_evq){0};
}

void evq_push_slow_(sim_evq *q, sim_event *ev, mgs_time t)
{
    assert(t >= q->base && "event due before the last one popped");
    q->count++;
    if (t - q->base < EVQ_WHEEL_BUCKETS)
        wheel_push(q, ev, t);
    else
        far_push(&q->far, ev, t);
}

void evq_push_ordered(sim_evq *q, sim_event *ev, mgs_time t,
                      evq_before_fn before)
{
    assert(t >= q->base && "event due before the last one popped");
    q->count++;
    if (t - q->base >= EVQ_WHEEL_BUCKETS) {
        far_push_ordered(&q->far, ev, t, before);
        return;
    }
    uint32_t i = (uint32_t)t & WHEEL_MASK;
    evq_bucket *k = &q->bucket[i];
    if (!k->head)
        mark_nonempty(q, i);
    sim_event **link = &k->head;
    while (*link && before(*link, ev))
        link = &(*link)->next;
    ev->next = *link;
    if (!ev->next)
        k->tail = ev;
    *link = ev;
    if (t <= q->first) {
        q->first = t;
        q->first_known = true;
    }
}

mgs_time evq_find_first_(sim_evq *q, bool jump)
{
    assert(q->count > 0);
    if (!wheel_count(q)) {
        /* An empty wheel keeps its window unless popping: an event may
        ** still come at now. */
        if (!jump)
            return far_min_time(&q->far);
        q->base = q->first = far_min_time(&q->far);
        pull_far(q); /* sets first_known */
        return q->first;
    }
    uint32_t from = (uint32_t)q->first & WHEEL_MASK;
    uint32_t i = next_nonempty(q, from);
    q->first += (i - from) & WHEEL_MASK;
    q->first_known = true;
    return q->first;
}

void evq_popped_(sim_evq *q, evq_bucket *k, mgs_time t)
{
    if (!k->head) {
        k->tail = NULL;
        mark_empty(q, (uint32_t)t & WHEEL_MASK);
        q->first_known = false; /* still a lower bound */
    }
    if (t != q->base) {
        q->base = t;
        if (q->far.count &&
            far_min_time(&q->far) - t < EVQ_WHEEL_BUCKETS)
            pull_far(q);
    }
}

int evq_check(const sim_evq *q)
{
    size_t events = 0;
    for (uint32_t i = 0; i < EVQ_WHEEL_BUCKETS; i++) {
        const evq_bucket *k = &q->bucket[i];
        bool set = (q->bits0[i >> 6] >> (i & 63)) & 1;
        if (set != (k->head != NULL) ||
            (k->head == NULL) != (k->tail == NULL))
            return 0;
        /* The time of bucket i: the one of the window's times that is i
        ** mod the wheel's size. */
        mgs_time t = q->base + ((i - (uint32_t)q->base) & WHEEL_MASK);
        if (k->head && t < q->first)
            return 0;
        const sim_event *prev = NULL;
        for (const sim_event *ev = k->head; ev; prev = ev, ev = ev->next)
            events++;
        if (prev != k->tail)
            return 0;
    }
    for (uint32_t j = 0; j < EVQ_WHEEL_BUCKETS / 64; j++) {
        bool set = (q->bits1[j >> 6] >> (j & 63)) & 1;
        if (set != (q->bits0[j] != 0))
            return 0;
    }
    for (uint32_t k = 0; k < EVQ_WHEEL_BUCKETS / 4096; k++)
        if (((q->bits2 >> k) & 1) != (q->bits1[k] != 0))
            return 0;
    if (events != wheel_count(q) || !far_check(&q->far) ||
        q->first < q->base || q->first - q->base >= EVQ_WHEEL_BUCKETS ||
        (q->first_known && !q->bucket[q->first & WHEEL_MASK].head))
        return 0;
    if (q->far.count &&
        far_min_time(&q->far) - q->base < EVQ_WHEEL_BUCKETS)
        return 0;
    return events + q->far.count == q->count;
}
