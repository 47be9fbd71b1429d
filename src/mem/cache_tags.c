/*
** Tag and data array of the cache: set-associative lookup and true-LRU
** victim choice.
**
** LRU is kept as a per-frame stamp from a per-cache counter that increases
** on every use (lookup hit, fill, write). The victim of a set is an
** INVALID frame if there is one (lowest way first), else the VALID frame
** with the smallest stamp among those without an MSHR attached. Stamps are
** unique, so the choice is total and deterministic; with 64-bit stamps the
** counter never wraps. Cost O(ways) per lookup, which is what hardware
** does in parallel and what 16-way L2s can afford in software.
*/
#include "mem/cache_int.h"

uint64_t cache_line_addr(const cache *c, uint64_t addr)
{
    return addr & ~(uint64_t)(c->cfg.line - 1);
}

uint32_t cache_set_of(const cache *c, uint64_t line_addr)
{
    uint64_t a = line_addr;
    if (c->cfg.banks > 1) {
        /* A bank sees every banks-th interleave unit: drop the bank-select
        ** bits, as the DRAM channel does for its rows (dram_timing.c). */
        uint64_t unit = a >> c->bank_shift;
        uint64_t local = c->bank_bits ? unit >> c->bank_bits
                                      : unit / c->cfg.banks;
        a = (local << c->bank_shift) | (a & (c->cfg.bank_interleave - 1));
    }
    /* sets is a power of two (size, line and ways are validated). */
    return (uint32_t)((a >> c->line_shift) & (c->sets - 1));
}

int64_t cache_tags_find(const cache *c, uint64_t line_addr)
{
    uint32_t first = cache_set_of(c, line_addr) * c->cfg.ways;
    const uint64_t *t = c->tags + first, key = line_addr + 1;
    for (uint32_t w = 0; w < c->cfg.ways; w++)
        if (t[w] == key)
            return first + w;
    return -1;
}

int64_t cache_tags_victim(const cache *c, uint64_t line_addr)
{
    uint32_t first = cache_set_of(c, line_addr) * c->cfg.ways;
    int64_t best = -1;
    uint64_t best_lru = UINT64_MAX;
    for (uint32_t w = 0; w < c->cfg.ways; w++) {
        const cache_frame *f = &c->frames[first + w];
        if (f->state == LINE_INVALID)
            return first + w;
        if (f->mshr || f->state == LINE_PENDING)
            continue;
        if (f->lru < best_lru) {
            best_lru = f->lru;
            best = first + w;
        }
    }
    return best;
}

void cache_tags_touch(cache *c, uint32_t frame)
{
    c->frames[frame].lru = ++c->lru_clock;
}
