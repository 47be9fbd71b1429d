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

#include <stdbool.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* The frame in set whose tag is key (line + 1), else -1. */
static inline int64_t find_in_set(const cache *c, uint32_t set, uint64_t key)
{
    uint32_t first = set * c->cfg.ways;
    const uint64_t *t = c->tags + first;
    for (uint32_t w = 0; w < c->cfg.ways; w++)
        if (t[w] == key)
            return first + w;
    return -1;
}

/* Whether the low 32 bits of key are those of one of the ways tags from t
** (an even number): false proves a miss. Inline with a constant ways, the
** loop unrolls into a few vector compares. */
static inline bool low_half_present(const uint64_t *t, uint32_t ways,
                                    uint64_t key)
{
#ifdef __SSE2__
    __m128i k = _mm_set1_epi64x((long long)key), any = _mm_setzero_si128();
#pragma GCC unroll 8
    for (uint32_t w = 0; w < ways; w += 2)
        any = _mm_or_si128(any, _mm_cmpeq_epi32(
            _mm_loadu_si128((const __m128i *)(const void *)(t + w)), k));
    /* 32-bit lanes 0 and 2 hold the low halves of the two tags. */
    return _mm_movemask_ps(_mm_castsi128_ps(any)) & 5;
#else
    (void)t, (void)ways, (void)key;
    return true;
#endif
}

int64_t cache_tags_find(const cache *c, uint64_t line_addr)
{
    return find_in_set(c, cache_set_of(c, line_addr), line_addr + 1);
}

void cache_tags_find_run(const cache *c, uint64_t line_addr, uint32_t n,
                         int64_t *frames)
{
    /* Inside one bank-interleave unit (or with one bank) the next line is
    ** in the next set: cache_set_of only where a unit starts. */
    uint64_t unit = c->cfg.banks > 1 ? c->cfg.bank_interleave : 0;
    uint32_t set = 0;
    for (uint32_t i = 0; i < n; i++, line_addr += c->cfg.line) {
        if (i == 0 || (unit && !(line_addr & (unit - 1))))
            set = cache_set_of(c, line_addr);
        else
            set = (set + 1) & (c->sets - 1);
        /* Most lines of a copy are not here: a vector pre-check of the
        ** set proves the miss (16 ways, the L2s of every preset). */
        const uint64_t *t = c->tags + (size_t)set * c->cfg.ways;
        if (c->cfg.ways == 16 && !low_half_present(t, 16, line_addr + 1))
            frames[i] = -1;
        else
            frames[i] = find_in_set(c, set, line_addr + 1);
    }
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
