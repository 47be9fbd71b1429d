/*
** The GPS page table (seed 003 §5.2): one entry per GPS page with the
** physical replica of every GPU that has one, the subscriber set and the
** GPS bit, plus the profiling window's per-page access bitmap (one bit per
** GPU). The driver (gps_driver.c) writes it between kernels; the hardware
** reads it: the GPS translation unit (a GPS-TLB miss walks it) and the L2
** shim, which finds the page of a physical address through the reverse map
** frame -> page (the paper's W3 path carries the VA with the store; here
** the shim recovers it from the replica's frame, the same information).
**
** The entry holds every GPU's replica (the paper's GPS-PTE holds only the
** remote subscribers' of the GPU whose table it is: the same bits seen
** from one GPU; §5.2's 126-bit minimum is the sizing, not the layout).
*/
#include <stdlib.h>
#include <string.h>

#include "coh/gps/gps_int.h"
#include "util/xmalloc.h"

static void rmap_put(gps *s, uint64_t frame, uint32_t val)
{
    gps_map_put(&s->rmap, frame, val);
}

gps_page *gps_table_by_pa(gps *s, uint64_t pa, uint32_t *index)
{
    uint32_t v = gps_map_get(&s->rmap, pa >> s->page_shift);
    if (!v)
        return NULL;
    *index = v - 1;
    return &s->pages[*index];
}

static void count_gps_bit(gps_page *p)
{
    p->gps = __builtin_popcount(p->subs) >= 2;
}

uint32_t gps_table_add(gps *s, const gps_page *p)
{
    if (s->npages == s->pages_cap) {
        s->pages_cap = s->pages_cap ? 2 * s->pages_cap : 64;
        s->pages = mgs_xrealloc(s->pages, s->pages_cap * sizeof *s->pages);
    }
    /* Kept in VA order (gps_table_find bisects): an allocation made GPS
    ** later (mgs_gps_adopt) may lie below pages already there. */
    uint32_t i = s->npages;
    while (i > 0 && s->pages[i - 1].va > p->va)
        i--;
    memmove(&s->pages[i + 1], &s->pages[i],
            (s->npages - i) * sizeof *s->pages);
    s->npages++;
    s->pages[i] = *p;
    count_gps_bit(&s->pages[i]);
    /* The reverse map holds indices: renumber the pages that moved. */
    for (uint32_t k = i; k < s->npages; k++)
        for (uint32_t g = 0; g < s->sys.ngpus; g++)
            if (s->pages[k].pa[g] != GPS_NO_PA)
                rmap_put(s, s->pages[k].pa[g] >> s->page_shift, k + 1);
    return i;
}

gps_page *gps_table_find(gps *s, uint64_t va)
{
    uint64_t page = va & ~((1ull << s->page_shift) - 1);
    /* Pages are added in increasing VA order (allocations only grow). */
    uint32_t lo = 0, hi = s->npages;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->pages[mid].va < page)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->npages && s->pages[lo].va == page ? &s->pages[lo] : NULL;
}

gps_page *gps_table_at(gps *s, uint32_t i)
{
    return i < s->npages ? &s->pages[i] : NULL;
}

uint32_t gps_table_count(const gps *s) { return s->npages; }

void gps_table_update(gps *s, uint32_t i)
{
    gps_page *p = &s->pages[i];
    /* Drop every stale frame of this page, then enter the live ones. */
    for (uint32_t g = 0; g < s->sys.ngpus; g++) {
        uint32_t idx;
        if (p->pa[g] == GPS_NO_PA)
            continue;
        gps_page *q = gps_table_by_pa(s, p->pa[g], &idx);
        if (!q)
            rmap_put(s, p->pa[g] >> s->page_shift, i + 1);
    }
    count_gps_bit(p);
}

void gps_table_forget(gps *s, uint32_t i, uint32_t g)
{
    gps_page *p = &s->pages[i];
    if (p->pa[g] != GPS_NO_PA)
        rmap_put(s, p->pa[g] >> s->page_shift, 0);
    p->pa[g] = GPS_NO_PA;
    p->subs &= ~(1u << g);
    count_gps_bit(p);
}

void gps_tracking_set(gps *s, bool on)
{
    s->tracking = on;
    if (on)
        for (uint32_t i = 0; i < s->npages; i++)
            s->pages[i].touched = 0;
}

uint64_t gps_page_bytes(const gps *s) { return 1ull << s->page_shift; }

void gps_count_subscribers(gps *s)
{
    for (uint32_t i = 0; i < s->npages; i++)
        stat_hist_sample(s->subscribers,
                         (uint64_t)__builtin_popcount(s->pages[i].subs));
}
