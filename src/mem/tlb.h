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
** (histogram, from the start of the walk), queue_delay (histogram: arrival
** in the walker's buffer to the start of its walk), faults.
*/
#ifndef MGS_MEM_TLB_H
#define MGS_MEM_TLB_H

#include "mem/memmsg.h"
#include "sim/comp.h"
#include "sim/stats.h"

/* The page tables the walker consults (the runtime's: one per GPU). */
typedef struct mem_pagetable {
    /* MGS_OK and *paddr through GPU gpu's table, or MGS_EFAULT for an
    ** unmapped page. */
    int (*translate)(void *ud, int32_t gpu, uint32_t pid, uint64_t vaddr,
                     uint64_t *paddr);
    /* Optional (NULL: every mapping is writable): whether GPU gpu's
    ** mapping of vaddr's page is read-only (a replica). The walker answers
    ** such a page with MEM_F_READONLY, and a MEM_F_XWRITE walk faults. */
    bool (*readonly)(void *ud, int32_t gpu, uint64_t vaddr);
    /* Optional (NULL: pages only): the mapping of vaddr's page is one of
    ** 2^order pages mapped to consecutive frames with one permission (a
    ** PASI piece); the walker answers with span = that reach, and the TLBs
    ** keep one entry for it. */
    unsigned (*run_order)(void *ud, int32_t gpu, uint64_t vaddr);
    void *ud;
} mem_pagetable;

/* Page sizes the memory system supports end to end: 4 KiB, 64 KiB, 2 MiB. */
static inline bool mem_page_size_ok(uint64_t bytes)
{
    return bytes == 4096 || bytes == 65536 || bytes == 2097152;
}

typedef struct tlb_config {
    uint32_t sets, ways;      /* entries = sets * ways */
    uint32_t page_bytes;      /* 4096 */
    uint32_t hit_latency;     /* cycles */
    uint32_t mshr_entries;
    uint32_t top_buffer;
    mgs_time period;
    uint32_t width;           /* lookups accepted per cycle */
    /* Pages are interleaved over this many TLBs by page number (the L2
    ** TLB's slices; 0 or 1: one TLB). A slice sees only the pages of its
    ** residue, so it picks the set with the slice-select part removed:
    ** set = (vpn / slices) mod sets, or it would use sets / slices of its
    ** sets (docs/translation.md). */
    uint32_t slices;
} tlb_config;

typedef struct mmu_config {
    uint32_t levels;          /* page-table levels walked (4) */
    uint32_t walk_latency;    /* cycles per level */
    uint32_t max_walks;       /* concurrent walks */
    uint32_t top_buffer;
    uint32_t page_bytes;
    mgs_time period;
} mmu_config;
/* The walker walks the table of the request's GPU (mem_msg.gpu, stamped by
** the CU and kept by every TLB): a per-GPU walker sees only its own GPU's
** requests, a shared IOMMU (platform.h, mmu.shared_iommu) everyone's. */

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
/* Page faults as messages: with a handler set, a walk that finds no
** mapping (or a read-only one for a write) sends MEM_XLATE (MEM_F_FAULT,
** addr, pid, gpu and MEM_F_XWRITE of the request) from the walker's fault
** port to `handler` and waits; the answer
** (MEM_XLATE_RSP) without MEM_F_FAULT means "resolved": the walker reads
** the table again (once) and answers the requester; with MEM_F_FAULT the
** requester gets the fault. The caller plugs mmu_fault_port into a
** connection with the handler. Without a handler faults answer at once. */
sim_port *mmu_fault_port(mmu *m);
void mmu_set_fault_handler(mmu *m, sim_port *handler);

/* The default fault handler (src/mem/fault_handler.c): counts the faults
** (statistic "faults") and resolves none. The hook migration schemes
** replace with a handler that maps the page and answers "resolved". */
typedef struct fault_handler fault_handler;
fault_handler *fault_handler_new(sim_engine *eng, const char *name,
                                 mgs_time period, mem_pool *pool,
                                 stat_registry *stats);
void fault_handler_free(fault_handler *h);
sim_port *fault_handler_port(fault_handler *h);

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
