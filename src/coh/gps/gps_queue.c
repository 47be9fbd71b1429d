/*
** The remote write queue of one GPU (seed 003 §5.2, Fig. 7 W4): `cap`
** blocks of `block` bytes, fully associative, tagged by virtual block
** address (gps_map: an O(1) tag match), each with its bytes and a byte
** mask. A store to a block already queued merges into its entry (a
** coalescing hit, whatever the order of the stores); a miss allocates.
** Entries leave in allocation order (least recently added first; a merge
** does not refresh an entry's age). The owner (gps_unit.c) drains the
** oldest entry when the queue reaches its high watermark, capacity - 1
** (the seed's choice, "to maximize coalescing opportunity"), and every
** entry at a release.
*/
#include <stdlib.h>
#include <string.h>

#include "coh/gps/gps_int.h"
#include "util/xmalloc.h"

void gps_queue_init(gps_queue *q, uint32_t entries, uint32_t block)
{
    *q = (gps_queue){.cap = entries, .block = block};
    q->e = mgs_xcalloc(entries, sizeof *q->e);
    q->fifo = mgs_xcalloc(entries, sizeof *q->fifo);
    q->free_e = mgs_xcalloc(entries, sizeof *q->free_e);
    for (uint32_t i = 0; i < entries; i++)
        q->free_e[i] = entries - 1 - i;
    q->nfree = entries;
    gps_map_init(&q->tags, entries);
}

void gps_queue_fini(gps_queue *q)
{
    gps_map_fini(&q->tags);
    free(q->e);
    free(q->fifo);
    free(q->free_e);
}

uint64_t gps_queue_block_of(const gps_queue *q, uint64_t va)
{
    return va & ~(uint64_t)(q->block - 1);
}

bool gps_queue_needs_room(const gps_queue *q, uint64_t va)
{
    return q->count == q->cap &&
           !gps_map_get(&q->tags, gps_queue_block_of(q, va));
}

bool gps_queue_store(gps_queue *q, uint64_t va, uint32_t page,
                     const uint8_t *data, uint32_t size, uint64_t mask)
{
    uint64_t block = gps_queue_block_of(q, va);
    uint32_t off = (uint32_t)(va - block);
    uint32_t hit = gps_map_get(&q->tags, block);
    gps_qentry *e;
    if (hit) {
        e = &q->e[hit - 1];
    } else {
        uint32_t ei = q->free_e[--q->nfree];
        e = &q->e[ei];
        e->block = block;
        e->page = page;
        e->mask[0] = e->mask[1] = 0;
        q->fifo[(q->head + q->count++) % q->cap] = ei;
        gps_map_put(&q->tags, block, ei + 1);
    }
    for (uint32_t i = 0; i < size && off + i < q->block; i++) {
        if (size <= 64 && !(mask >> i & 1))
            continue;
        uint32_t b = off + i;
        e->data[b] = data[i];
        e->mask[b / 64] |= 1ull << (b % 64);
    }
    return hit != 0;
}

bool gps_queue_at_watermark(const gps_queue *q)
{
    return q->cap > 1 && q->count >= q->cap - 1;
}

bool gps_queue_pop(gps_queue *q, gps_qentry *out)
{
    if (!q->count)
        return false;
    uint32_t ei = q->fifo[q->head];
    q->head = (q->head + 1) % q->cap;
    q->count--;
    const gps_qentry *e = &q->e[ei];
    gps_map_del(&q->tags, e->block);
    q->free_e[q->nfree++] = ei;
    out->block = e->block;
    out->page = e->page;
    out->mask[0] = e->mask[0];
    out->mask[1] = e->mask[1];
    memcpy(out->data, e->data, q->block);
    return true;
}
