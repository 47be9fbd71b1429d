/*
** The In-Memory Sharing Tracker (imst.h): one byte per line in lazily
** allocated chunks (the hardware's 2 bits in ECC).
*/
#include "coh/carve/imst.h"

#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

void imst_init(imst *t, uint64_t base, uint64_t bytes, uint32_t line,
               uint32_t reset_per_million, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    t->base = base;
    t->line = line;
    t->lines = bytes / line;
    t->reset_per_million = reset_per_million;
    t->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
    t->nchunks = (t->lines + IMST_CHUNK - 1) / IMST_CHUNK;
    t->chunk = mgs_xcalloc(t->nchunks, sizeof *t->chunk);
}

void imst_fini(imst *t)
{
    for (uint64_t i = 0; t->chunk && i < t->nchunks; i++)
        free(t->chunk[i]);
    free(t->chunk);
    t->chunk = NULL;
}

static uint8_t *slot(imst *t, uint64_t addr)
{
    uint64_t i = (addr - t->base) / t->line;
    uint8_t **c = &t->chunk[i / IMST_CHUNK];
    if (!*c)
        *c = mgs_xcalloc(IMST_CHUNK, 1);
    return &(*c)[i % IMST_CHUNK];
}

imst_state imst_get(const imst *t, uint64_t addr)
{
    uint64_t i = (addr - t->base) / t->line;
    const uint8_t *c = t->chunk[i / IMST_CHUNK];
    return c ? (imst_state)c[i % IMST_CHUNK] : IMST_UNCACHED;
}

static void set(imst *t, uint8_t *s, imst_state to)
{
    t->transitions[*s][to]++;
    *s = (uint8_t)to;
}

void imst_remote_read(imst *t, uint64_t addr)
{
    uint8_t *s = slot(t, addr);
    if (t->break_remote_read) {
        if (*s == IMST_UNCACHED)
            set(t, s, IMST_PRIVATE);
        return;
    }
    if (*s == IMST_UNCACHED || *s == IMST_PRIVATE)
        set(t, s, IMST_RS);
}

void imst_local_read(imst *t, uint64_t addr)
{
    uint8_t *s = slot(t, addr);
    if (*s == IMST_UNCACHED)
        set(t, s, IMST_PRIVATE);
}

bool imst_remote_write(imst *t, uint64_t addr)
{
    uint8_t *s = slot(t, addr);
    bool shared = *s == IMST_RS || *s == IMST_RW;
    set(t, s, IMST_RW);
    if (shared)
        t->broadcasts++;
    return shared;
}

static bool draw(imst *t)
{
    t->rng ^= t->rng << 13;
    t->rng ^= t->rng >> 7;
    t->rng ^= t->rng << 17;
    return t->rng % 1000000u < t->reset_per_million;
}

bool imst_local_write(imst *t, uint64_t addr)
{
    uint8_t *s = slot(t, addr);
    if (*s == IMST_UNCACHED || *s == IMST_PRIVATE) {
        set(t, s, IMST_PRIVATE);
        return false;
    }
    t->broadcasts++;
    if (draw(t)) {
        t->resets++;
        set(t, s, IMST_PRIVATE);
    } else {
        set(t, s, IMST_RW);
    }
    return true;
}
