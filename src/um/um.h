/*
** Unified memory: demand paging and page migration between GPUs (seed 002
** §5.3.3.1, docs/memory-management.md). A scheme is this folder; later
** ones (ESI, PASI) add their own files behind the same two components.
**
**   UM.Migrator   the shared IOMMU's fault handler (host side). It keeps
**                 the pages in flight, asks the page-migration controller
**                 of the GPU holding a page to send it, remaps the page
**                 tables when the bytes arrived, and answers the faults.
**   GPU[g].PMC    the page-migration controller of GPU g, on its crossbar
**                 in front of the L2 banks and memory controllers. As a
**                 source it shoots the page's TLB entries down, reads the
**                 page through the L2 (so dirty lines come along), sends it
**                 line by line to the destination PMC, then writes the L2
**                 lines back and drops them (and the L1s'). As a
**                 destination it writes the lines into the new frame
**                 through its L2 and tells the migrator when all arrived.
**
** Messages (mem_msg from the simulation's pool; base.type below):
**   UM_MIGRATE   Migrator -> source PMC (UM.CtlLink): vaddr = page VA,
**                addr = old frame, paddr = new frame, gpu = destination,
**                pid, id = migration, coh[0] = UM_F_* flags. Under esi
**                also to a supplier that keeps its copy (UM_F_KEEP) and to
**                each GPU whose copy is invalidated (UM_F_NO_DATA)
**   UM_DATA      source PMC -> destination PMC (inter-GPU network or host
**                tree, memory.migration_link): addr = destination line,
**                size, data, id,
**                coh[0] = lines of the page
**   UM_FILLED    destination PMC -> Migrator (UM.CtlLink): every line
**                written (id)
**   UM_RELEASED  source PMC -> Migrator (UM.CtlLink): old copy written
**                back and dropped from the caches (id); with UM_F_KEEP:
**                every line sent
** Deadlock freedom: the faulting walks hold IOMMU slots until migrations
** finish, so nothing a migration needs may queue behind translation
** requests. Commands and answers travel on UM.CtlLink, a connection of
** their own (assumed: a virtual channel of the host link, latency of one
** PCIe traversal), and with migration the IOMMU gets a PCIe tree of its own
** (platform.c), so pages never share a buffer with translation traffic.
** Components read no one else's state: the migrator changes the page tables
** through um_pagemap (the runtime's, which the IOMMU's walker reads too).
*/
#ifndef MGS_UM_UM_H
#define MGS_UM_UM_H

#include <stdbool.h>
#include <stdint.h>

#include "mem/memmsg.h"
#include "sim/comp.h"
#include "sim/stats.h"

struct mgs_config;

typedef struct um_config {
    bool migrate;             /* memory.management = migrate or esi: pages
                                 fault and move */
    bool esi;                 /* memory.management = esi or pasi: reads
                                 replicate */
    bool pasi;                /* memory.management = pasi: pieces split */
    uint64_t pasi_initial;    /* largest piece (bytes) */
    uint64_t pasi_min;        /* smallest piece (bytes; below the page size:
                                 the page) */
    mgs_time pasi_merge_hold; /* a split piece merges only this long after
                                 (esi_dir_set_merge_hold) */
    uint32_t piece_pages;     /* pages of the largest piece (1 unless pasi;
                                 set by the platform) */
    mgs_time fault_latency;   /* 0 = modelled; else fixed service time */
    bool via_host;            /* memory.migration_link = host */
    mgs_time min_residency;   /* ping-pong guard */
    uint32_t max_migrations;  /* in flight at the migrator */
    uint32_t pmc_reads;       /* line reads / writes in flight per PMC */
    uint32_t max_faults;      /* faults at the migrator at once: the
                                 IOMMU's walks (each fault holds one) */
    uint32_t page_bytes;      /* gpu.page_size */
    uint32_t line;            /* bytes per UM_DATA (the L2 line) */
    uint32_t ngpus;
    uint64_t mem_per_gpu;     /* GPU g's frames: [g * this, (g+1) * this) */
    mgs_time period;          /* clock of both components */
} um_config;

void um_config_default(um_config *c);
/* "migrate", "esi" or "pasi" (for messages). */
const char *um_scheme_name(const um_config *c);
/* The [memory] keys. */
void um_config_from(um_config *c, const struct mgs_config *k);

#define UM_HOST_TABLE (-2)    /* the host's page table (the driver's view) */

/* The page tables as the IOMMU's handler sees and changes them. Page
** addresses are page-aligned global physical addresses. */
typedef struct um_pagemap {
    /* Whether table `table` (a GPU, or UM_HOST_TABLE) maps va's page, and
    ** to which frame. */
    bool (*lookup)(void *ud, int table, uint64_t va, uint64_t *page_pa);
    /* A free frame of gpu, held (DRAM may write it) until drop. */
    int (*hold)(void *ud, int gpu, uint64_t *page_pa);
    void (*drop)(void *ud, uint64_t page_pa);
    int (*map)(void *ud, int table, uint64_t va, uint64_t page_pa);
    int (*unmap)(void *ud, int table, uint64_t va);
    /* Table's mapping of va read-only (a replica) or writable again. */
    int (*protect)(void *ud, int table, uint64_t va, bool readonly);
    bool (*readonly)(void *ud, int32_t table, uint64_t va);
    /* One more reference to a live frame (given back with drop). */
    void (*keep)(void *ud, uint64_t page_pa);
    /* pasi: tags table's 2^order pages at va as one run (one TLB entry)
    ** if they map consecutive frames with one permission; returns the
    ** order tagged (0: pages). */
    unsigned (*set_run)(void *ud, int table, uint64_t va, unsigned order);
    /* pasi: n consecutive free frames of gpu, each held as hold does;
    ** nonzero if there are none (then hold page by page). */
    int (*hold_run)(void *ud, int gpu, uint32_t n, uint64_t *first_pa);
    void *ud;
} um_pagemap;

/* Broken variants for the tests that show each step matters (never set
** outside tests): the source PMC sends no bytes, skips the TLB
** shoot-down, or never answers at all; under esi a write leaves the other
** GPUs' read-only replicas in place (no invalidation); under pasi a split
** sends the bytes of the other half (the half that stays). */
typedef enum um_break {
    UM_BREAK_NONE = 0,
    UM_BREAK_NO_COPY,
    UM_BREAK_NO_SHOOTDOWN,
    UM_BREAK_MUTE_PMC,
    UM_BREAK_NO_INVALIDATE,
    UM_BREAK_WRONG_HALF
} um_break;
extern um_break um_test_break;

typedef struct um_migrator um_migrator;
typedef struct um_pmc um_pmc;

um_migrator *um_migrator_new(sim_engine *eng, const char *name,
                             const um_config *cfg, mem_pool *pool,
                             stat_registry *stats, const um_pagemap *pages);
void um_migrator_free(um_migrator *m);
/* The fault port (plug into the IOMMU's fault connection) and the port
** that talks to the PMCs (on UM.CtlLink). */
sim_port *um_migrator_fault_port(um_migrator *m);
sim_port *um_migrator_ctl_port(um_migrator *m);
/* The PMCs' ctl ports, GPU order (borrowed). */
void um_migrator_set_pmcs(um_migrator *m, sim_port *const *pmc_ctl,
                          uint32_t n);

/* The host is about to write [va, va + n) directly (a copy, a memset;
** between kernels, nothing posted: the GPUs' L2s are empty and their TLBs
** are dropped at the next launch, docs/coherence.md): every replicated
** page of the range keeps only the copy the host table maps, which becomes
** Exclusive; the other replicas are unmapped and their frames released
** (counted in host_collapses), so no GPU reads a stale replica. */
void um_migrator_host_write(um_migrator *m, uint64_t va, uint64_t n);
/* The runtime moved the pages of [va, va + n) to gpu behind the
** migrator's back (the Locality API's placement; nothing posted): each
** page the directory has seen becomes a piece of its own, Exclusive at
** gpu (the pieces around it split, keeping their state), so the directory
** agrees with the tables. Unseen pages are seeded at their first fault as
** usual. */
void um_migrator_placed(um_migrator *m, uint64_t va, uint64_t n, int gpu);

um_pmc *um_pmc_new(sim_engine *eng, const char *name, uint32_t gpu,
                   const um_config *cfg, mem_pool *pool,
                   stat_registry *stats);
void um_pmc_free(um_pmc *p);
sim_port *um_pmc_ctl_port(um_pmc *p);   /* UM.CtlLink: commands */
sim_port *um_pmc_peer_port(um_pmc *p);  /* inter-GPU network: pages */
sim_port *um_pmc_host_port(um_pmc *p);  /* host PCIe tree: pages */
sim_port *um_pmc_mem_port(um_pmc *p);   /* the GPU's crossbar */
sim_port *um_pmc_maint_port(um_pmc *p); /* the GPU's control network */
/* What the PMC maintains: its GPU's L1 caches (top ports, reached on the
** shader arrays' connections: l1_sa[i] is the array of L1 i, nsas
** arrays), TLBs (translators and L2 TLBs) and L2 banks (ctrl ports on the
** control network), and the route to the L2s. Ports are borrowed. */
void um_pmc_set_targets(um_pmc *p, sim_port *const *l1_top,
                        const uint32_t *l1_sa, uint32_t nl1, uint32_t nsas,
                        sim_port *const *tlb, uint32_t ntlb,
                        sim_port *const *l2, uint32_t nl2,
                        const mem_route *to_l2);
/* Its port on shader array s's connection (after set_targets). */
sim_port *um_pmc_sa_port(um_pmc *p, uint32_t s);
/* Where UM_DATA and the answers go: every PMC's ctl port, its port on the
** inter-GPU network and on the host tree (either array, or an entry, NULL:
** not there), and the migrator's ctl port. */
void um_pmc_set_peers(um_pmc *p, sim_port *const *ctl, sim_port *const *peer,
                      sim_port *const *host, uint32_t n, sim_port *migrator);

#endif
