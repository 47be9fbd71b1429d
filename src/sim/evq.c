/*
** Event queue: bucket wheel plus far store (design in evq.h).
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

/* ---- far store: a heap of events --------------------------------------- */

static inline bool fent_before(const evq_fent *a, const evq_fent *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void far_init(evq_far *q, size_t hint)
{
    uint32_t n = 16;
    while (n < hint && n < (1u << 30))
        n *= 2;
    *q = (evq_far){0};
    q->heap = MGS_NEW_ARRAY(evq_fent, n + 1);
    q->cap = n;
}

static void far_fini(evq_far *q)
{
    free(q->heap);
    *q = (evq_far){0};
}

/* Puts x at heap position i (a hole) or above it. */
static void sift_up(evq_fent *h, uint32_t i, evq_fent x)
{
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!fent_before(&x, &h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = x;
}

static void far_insert(evq_far *q, sim_event *ev, mgs_time t, uint64_t seq)
{
    if (q->count == q->cap) {
        q->cap *= 2;
        q->heap = mgs_xrealloc(q->heap, ((size_t)q->cap + 1) *
                                            sizeof(*q->heap));
    }
    ev->next = NULL;
    sift_up(q->heap, (uint32_t)q->count++, (evq_fent){t, seq, ev});
}

static void far_push(evq_far *q, sim_event *ev, mgs_time t)
{
    far_insert(q, ev, t, q->seq++);
}

/* Ordered push (rare: the parallel engine's posts beyond the wheel): ev
** goes after the leading events of time t (in push order) for which
** before() holds. If it goes ahead of some, it takes the number of the
** first of those and they all move one number up: only events of t
** change, and they keep their order among themselves and against the
** rest, so the heap stays ordered. */
static void far_push_ordered(evq_far *q, sim_event *ev, mgs_time t,
                             evq_before_fn before)
{
    size_t n = 0;
    for (size_t i = 0; i < q->count; i++)
        n += q->heap[i].time == t;
    uint64_t seq = q->seq;
    if (n) {
        /* t's events in push order (insertion sort of their positions). */
        uint32_t *at = mgs_xmalloc(n * sizeof(*at));
        size_t k = 0;
        for (uint32_t i = 0; i < q->count; i++) {
            if (q->heap[i].time != t)
                continue;
            size_t j = k++;
            while (j > 0 && q->heap[at[j - 1]].seq > q->heap[i].seq) {
                at[j] = at[j - 1];
                j--;
            }
            at[j] = i;
        }
        size_t j = 0;
        while (j < n && before(q->heap[at[j]].ev, ev))
            j++;
        if (j < n) {
            seq = q->heap[at[j]].seq;
            for (; j < n; j++)
                q->heap[at[j]].seq++;
        }
        free(at);
    }
    q->seq++;   /* above every number in use, the moved ones too */
    far_insert(q, ev, t, seq);
}

static inline mgs_time far_min_time(const evq_far *q)
{
    return q->heap[0].time;
}

static sim_event *far_pop(evq_far *q, mgs_time *t)
{
    assert(q->count > 0);
    evq_fent *h = q->heap;
    sim_event *ev = h[0].ev;
    *t = h[0].time;
    uint32_t n = (uint32_t)--q->count;
    if (n == 0)
        return ev;
    evq_fent x = h[n];
    h[n] = (evq_fent){MGS_TIME_MAX, UINT64_MAX, NULL}; /* sentinel: a
                                                         missing right
                                                         child loses */
    uint32_t i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1;
        if (l >= n)
            break;
        uint32_t m = l + fent_before(&h[l + 1], &h[l]);
        if (!fent_before(&h[m], &x))
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
    return ev;
}

static int far_check(const evq_far *q)
{
    for (size_t i = 1; i < q->count; i++)
        if (fent_before(&q->heap[i], &q->heap[(i - 1) / 2]) ||
            q->heap[i].seq >= q->seq)
            return 0;
    return q->count == 0 || q->heap[0].seq < q->seq;
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

void evq_init(sim_evq *q, size_t events_hint)
{
    *q = (sim_evq){0};
    q->bucket = MGS_NEW_ARRAY(evq_bucket, EVQ_WHEEL_BUCKETS);
    q->bits0 = MGS_NEW_ARRAY(uint64_t, EVQ_WHEEL_BUCKETS / 64);
    far_init(&q->far, events_hint / 16); /* few events are due that far */
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
