/*
** Address translation: TLBs and the page walker (IOMMU / GMMU).
**
** Translation requests are MEM_XLATE messages (addr = virtual address, pid)
** answered with MEM_XLATE_RSP (paddr, or MEM_F_FAULT). A TLB hit answers
** after hit_latency cycles; a miss allocates an MSHR (merging misses to the
** same page), asks the level below (L2 TLB, then the walker) and fills.
** The walker (mmu) resolves pages against the runtime's real page table
** (mem_pagetable below), costing levels * walk_latency cycles per walk, with
** at most max_walks walks in flight. Shoot-down: MEM_INVALIDATE on ctrl
** flushes a TLB (counted), answered with MEM_CTRL_RSP.
**
** The address translator (xlat) sits between a requester and a cache that
** works on physical addresses, with its own L1 TLB built in (as a CU's
** UTCL1 sits in the address path): it takes MEM_READ/WRITE/ATOMIC with
** virtual addresses on top, looks the page up in its TLB (hit: hit_latency
** cycles; miss: an MSHR asks the L2 TLB through its tlb port), rewrites the
** request in place (addr = physical, MEM_F_PHYS, vaddr keeps the
** requester's address, reply_to = the requester's port) and forwards it to
** bottom. The cache answers the requester directly; a translation fault is
** answered by the translator. Shoot-down on its ctrl port as for a TLB.
**
** Statistics: tlb and xlat: hits, misses, mshr_merges, evictions,
** shootdowns; xlat also translations; mmu: walks, walk_latency
** (histogram), faults.
*/
#ifndef MGS_MEM_TLB_H
#define MGS_MEM_TLB_H

#include "mem/memmsg.h"
#include "sim/comp.h"
#include "sim/stats.h"

/* The page table the walker consults (the runtime's device page table). */
typedef struct mem_pagetable {
    /* MGS_OK and *paddr, or MGS_EFAULT for an unmapped page. */
    int (*translate)(void *ud, uint32_t pid, uint64_t vaddr, uint64_t *paddr);
    void *ud;
} mem_pagetable;

typedef struct tlb_config {
    uint32_t sets, ways;      /* entries = sets * ways */
    uint32_t page_bytes;      /* 4096 */
    uint32_t hit_latency;     /* cycles */
    uint32_t mshr_entries;
    uint32_t top_buffer;
    mgs_time period;
    uint32_t width;           /* lookups accepted per cycle */
} tlb_config;

typedef struct mmu_config {
    uint32_t levels;          /* page-table levels walked (4) */
    uint32_t walk_latency;    /* cycles per level */
    uint32_t max_walks;       /* concurrent walks */
    uint32_t top_buffer;
    uint32_t page_bytes;
    mgs_time period;
} mmu_config;

typedef struct xlat_config {
    uint32_t max_inflight;    /* requests held: waiting for a translation
                                 or for their turn to leave */
    uint32_t top_buffer;
    mgs_time period;
} xlat_config;

void tlb_config_default(tlb_config *c);
void mmu_config_default(mmu_config *c);
void xlat_config_default(xlat_config *c);
int tlb_config_validate(const tlb_config *c);
int mmu_config_validate(const mmu_config *c);
int xlat_config_validate(const xlat_config *c);

typedef struct tlb tlb;
typedef struct mmu mmu;
typedef struct xlat xlat;

tlb *tlb_new(sim_engine *eng, const char *name, const tlb_config *cfg,
             mem_pool *pool, stat_registry *stats);
void tlb_free(tlb *t);
sim_port *tlb_top(tlb *t);
sim_port *tlb_bottom(tlb *t);
sim_port *tlb_ctrl(tlb *t);
void tlb_set_route(tlb *t, const mem_route *route);

mmu *mmu_new(sim_engine *eng, const char *name, const mmu_config *cfg,
             mem_pool *pool, stat_registry *stats, const mem_pagetable *pt);
void mmu_free(mmu *m);
sim_port *mmu_top(mmu *m);

/* tcfg: its L1 TLB (geometry, page size, hit latency, MSHRs, lookups per
** cycle; top_buffer unused). */
xlat *xlat_new(sim_engine *eng, const char *name, const xlat_config *cfg,
               const tlb_config *tcfg, mem_pool *pool, stat_registry *stats);
void xlat_free(xlat *x);
sim_port *xlat_top(xlat *x);      /* virtual requests in, fault answers out */
sim_port *xlat_tlb(xlat *x);      /* MEM_XLATE to the next TLB level */
sim_port *xlat_bottom(xlat *x);   /* physical requests to the cache */
sim_port *xlat_ctrl(xlat *x);     /* shoot-down (MEM_INVALIDATE) */
void xlat_set_tlb_route(xlat *x, const mem_route *route);
void xlat_set_route(xlat *x, const mem_route *route);

#endif
