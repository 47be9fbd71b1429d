/*
** Line history (line_history.h): linear probing over a power-of-two table,
** hashed by a multiplicative hash of the line number. Entries are never
** removed (a line's fate only changes).
*/
#include "coh/dir/line_history.h"

#include <stdlib.h>

#include "util/xmalloc.h"

#define FATE_MASK 3ull

static uint64_t hash(uint64_t line)
{
    return (line >> 6) * 0x9E3779B97F4A7C15ull;
}

void line_history_init(line_history *h)
{
    h->cap = 1024;
    h->used = 0;
    h->slot = mgs_xcalloc(h->cap, sizeof *h->slot);
}

void line_history_fini(line_history *h)
{
    free(h->slot);
    h->slot = NULL;
    h->cap = h->used = 0;
}

static uint64_t *find(const line_history *h, uint64_t line)
{
    uint64_t mask = h->cap - 1;
    for (uint64_t i = hash(line) >> 20 & mask;; i = (i + 1) & mask) {
        uint64_t *s = &h->slot[i];
        if (*s == 0 || (*s & ~FATE_MASK) == line)
            return s;
    }
}

line_fate line_history_get(const line_history *h, uint64_t line)
{
    return (line_fate)(*find(h, line) & FATE_MASK);
}

static void grow(line_history *h)
{
    line_history n = {mgs_xcalloc(2 * h->cap, sizeof *h->slot), 2 * h->cap,
                      h->used};
    for (uint64_t i = 0; i < h->cap; i++)
        if (h->slot[i])
            *find(&n, h->slot[i] & ~FATE_MASK) = h->slot[i];
    free(h->slot);
    *h = n;
}

void line_history_set(line_history *h, uint64_t line, line_fate fate)
{
    uint64_t *s = find(h, line);
    if (*s == 0) {
        if (2 * (h->used + 1) > h->cap) {
            grow(h);
            s = find(h, line);
        }
        h->used++;
    }
    *s = (line & ~FATE_MASK) | (uint64_t)fate;
}
