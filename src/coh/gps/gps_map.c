/*
** A small map from 64-bit keys to nonzero 32-bit values (open addressing,
** linear probing, backward-shift deletion): the GPS page table's reverse
** map (frame -> page) and the remote write queue's tags (block -> entry),
** which must answer in O(1) for a fully associative 512-entry queue.
*/
#include <stdlib.h>

#include "coh/gps/gps_int.h"
#include "util/xmalloc.h"

static uint32_t slot_of(const gps_map *m, uint64_t key)
{
    key *= 0x9e3779b97f4a7c15ull;
    return (uint32_t)(key >> 32) & (m->cap - 1);
}

void gps_map_init(gps_map *m, uint32_t cap)
{
    uint32_t c = 16;
    while (c < 2 * cap)
        c *= 2;
    m->cap = c;
    m->count = 0;
    m->key = mgs_xcalloc(c, sizeof *m->key);
    m->val = mgs_xcalloc(c, sizeof *m->val);
}

void gps_map_fini(gps_map *m)
{
    free(m->key);
    free(m->val);
    *m = (gps_map){0};
}

uint32_t gps_map_get(const gps_map *m, uint64_t key)
{
    if (!m->count)
        return 0;
    for (uint32_t i = slot_of(m, key); m->val[i]; i = (i + 1) & (m->cap - 1))
        if (m->key[i] == key)
            return m->val[i];
    return 0;
}

static void grow(gps_map *m)
{
    gps_map old = *m;
    gps_map_init(m, old.cap);
    for (uint32_t i = 0; i < old.cap; i++)
        if (old.val[i])
            gps_map_put(m, old.key[i], old.val[i]);
    gps_map_fini(&old);
}

void gps_map_put(gps_map *m, uint64_t key, uint32_t val)
{
    if (!val) {
        gps_map_del(m, key);
        return;
    }
    if (2 * (m->count + 1) > m->cap)
        grow(m);
    uint32_t i = slot_of(m, key);
    while (m->val[i] && m->key[i] != key)
        i = (i + 1) & (m->cap - 1);
    m->count += !m->val[i];
    m->key[i] = key;
    m->val[i] = val;
}

void gps_map_del(gps_map *m, uint64_t key)
{
    if (!m->count)
        return;
    uint32_t i = slot_of(m, key);
    while (m->val[i] && m->key[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (!m->val[i])
        return;
    m->val[i] = 0;
    m->count--;
    for (uint32_t j = (i + 1) & (m->cap - 1); m->val[j];
         j = (j + 1) & (m->cap - 1)) {
        uint32_t home = slot_of(m, m->key[j]);
        bool moves = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (moves) {
            m->key[i] = m->key[j];
            m->val[i] = m->val[j];
            m->val[j] = 0;
            i = j;
        }
    }
}
