/*
** GPU builder: assembles one R9-Nano-style GCN3 GPU (seed 002 §5.2.3,
** Figure 5.1, Table 5.1) from plain configuration data. docs/timing.md has
** the diagram; in short, for GPU g:
**
**   driver port --DriverLink-- CP --Dispatch-- CU[0..n) ctrl
**                              CP --CtrlNet--- every L1 / TLB / L2 ctrl
**   per shader array s (cus_per_sa CUs), all on connection SA[s].Net:
**     CU.vmem -> XL1V[c] (address translator) -> L1V[c]   (per CU)
**                XL1V[c].tlb -> TLB1V[c]
**     CU.smem -> XL1S -> L1S,  XL1S.tlb -> TLB1S           (per SA)
**     CU.inst -> XL1I -> L1I,  XL1I.tlb -> TLB1I           (per SA)
**   L1V/L1S/L1I bottom --XBar (single-stage crossbar)--> L2[b] top,
**     bank b = (paddr / l2_interleave) % l2_banks
**   L1 TLB bottom --TLBNet--> L2TLB[t] (t = page % l2_tlbs) --> MMU
**     (external_mmu: no MMU; the platform routes the L2 TLBs to a shared
**     IOMMU over its host network)
**   L2[b] bottom --MemNet--> DRAM[b] (one channel per L2 bank), or to the
**     protocol's agent at that site, which forwards to DRAM[b]
**     (coh_protocol.memory_agent: the insertion point of docs/coherence.md)
** Multi-GPU options (platform/platform.h): with_rdma adds GPU[g].RDMA on
** the XBar (inside: remote L1 misses; local: the requests it serves for
** other GPUs, to the L2 banks) and the L1s route by rdma_route_split; with
** coherence.remote_cache = l2 the RDMA inside port sits on MemNet instead,
** the L1s send every address to the L2 banks and each L2 bank's bottom
** splits (local: its DRAM channel or agent; remote: the RDMA engine);
** external_memory leaves out the DRAM channels (the platform wires the
** L2 bottoms to shared memory stacks).
**
** The builder only creates, names and wires components; it never reaches
** into them afterwards. Components are named GPU[g].CP, GPU[g].SA[s].CU[c],
** GPU[g].SA[s].L1V[c], GPU[g].SA[s].L1S, GPU[g].L2[b], GPU[g].DRAM[b], ...
** and register their statistics in the registry given to gpu_build_new.
**
** Ownership: gpu_build owns every component, connection and the message
** pool it creates; the engine, the backing store and the page table are
** borrowed and must outlive it.
*/
#ifndef MGS_PLATFORM_GPU_BUILD_H
#define MGS_PLATFORM_GPU_BUILD_H

#include <stdint.h>

#include "coh/coh.h"
#include "gpu/cp.h"
#include "gpu/cu.h"
#include "mem/backing.h"
#include "mem/cache.h"
#include "mem/dram.h"
#include "mem/rdma.h"
#include "mem/tlb.h"
#include "sim/conn.h"
#include "sim/engine.h"
#include "sim/stats.h"

struct mgs_config;

typedef struct gpu_build_config {
    int gpu;                  /* index (names, request stamps) */
    mgs_time period;          /* GPU clock, ps */
    uint32_t num_cus;         /* 64 (Table 5.1) */
    uint32_t cus_per_sa;      /* 4 (Table 5.1: 16 L1I/L1S for 64 CUs) */
    uint32_t l2_banks;        /* 8 (Table 5.1); also DRAM channels */
    uint32_t l2_tlbs;         /* 8 (Table 5.1) */
    uint64_t l2_interleave;   /* bytes per L2 bank / DRAM channel unit */
    uint64_t mem_bytes;       /* physical memory of this GPU */
    uint64_t phys_base;       /* first physical address of this GPU */
    cp_config cp;
    cu_config cu;
    cache_config l1v, l1s, l1i, l2;
    tlb_config l1_tlb, l2_tlb;
    xlat_config xlat;
    mmu_config mmu;
    dram_config dram;
    sim_conn_config sa_net;   /* CU <-> translators <-> L1s, per SA */
    sim_conn_config xbar;     /* L1s <-> L2 banks */
    uint32_t xbar_messages_per_cycle; /* messages a crossbar port starts
                                      ** per GPU cycle (lane clock) */
    uint32_t xbar_latency_cycles; /* crossbar latency (xbar.latency is
                                     derived from it and the clock) */
    sim_conn_config mem_net;  /* L2 banks <-> DRAM channels */
    sim_conn_config tlb_net;  /* L1 TLBs <-> L2 TLBs <-> MMU */
    sim_conn_config ctrl_net; /* CP <-> CUs, CP <-> cache/TLB ctrl */
    mgs_time driver_latency;  /* host driver <-> CP, at least ctrl_net's
                                 (the parallel engine's lookahead; 0 =
                                 ctrl_net's latency) */
    /* Multi-GPU wiring (platform/platform.h); both off for a lone GPU. */
    bool with_rdma;           /* adds GPU[g].RDMA on the crossbar: L1
                                 misses outside [phys_base, phys_base +
                                 mem_bytes) go to it (rdma_route_split),
                                 remote requests it serves go to the L2s */
    rdma_config rdma;         /* gpu, period and line are set here */
    bool external_memory;     /* no DRAM channels: the platform plugs the
                                 L2 bottoms into its memory network and
                                 sets their routes (MGPU-SM) */
    bool external_mmu;        /* no page walker: the platform plugs the L2
                                 TLB bottoms into its host network and
                                 routes them to the shared IOMMU */
    /* The coherence protocol instance (borrowed; NULL = nc's behaviour
    ** with no hooks): fences, cache hooks, agents between each L2 bank
    ** and its DRAM channel, and where remote data is cached (with_rdma and
    ** sys.remote_cache == COH_REMOTE_L2: L1s send every miss to the local
    ** L2 banks, whose bottoms split between DRAM and the RDMA engine). */
    const coh *coh;
} gpu_build_config;

/* The R9 Nano of Table 5.1 with the assumed values documented in
** configs/r9nano.ini and docs/timing.md. */
void gpu_build_config_default(gpu_build_config *c);
/* Overrides the defaults with the keys of an effective configuration
** ([gpu], [platform] sections). */
void gpu_build_config_from(gpu_build_config *c, const struct mgs_config *cfg);
/* MGS_OK, or MGS_ECONFIG naming the first bad value. */
int gpu_build_config_validate(const gpu_build_config *c);

typedef struct gpu_build gpu_build;

/* Builds the GPU into eng. pool: memory messages (shared by the whole
** simulation). stats may be NULL. backing and pt are borrowed. The config
** must validate. */
gpu_build *gpu_build_new(sim_engine *eng, const gpu_build_config *cfg,
                         mem_pool *pool, stat_registry *stats,
                         const mem_backing *backing, const mem_pagetable *pt);
void gpu_build_free(gpu_build *g);

/* Plugs the driver's port into the link to the CP. */
void gpu_build_plug_driver(gpu_build *g, sim_port *driver_port);
sim_port *gpu_build_cp_port(gpu_build *g);
cp *gpu_build_cp(gpu_build *g);
const gpu_build_config *gpu_build_get_config(const gpu_build *g);
/* The RDMA engine (NULL without with_rdma) and L2 bank b (b < l2_banks). */
rdma_engine *gpu_build_rdma(gpu_build *g);
/* L2 TLB t (t < l2_tlbs), for the platform's shared IOMMU wiring. */
tlb *gpu_build_l2tlb(gpu_build *g, uint32_t t);
cache *gpu_build_l2(gpu_build *g, uint32_t b);
/* For extra agents at the L1 level (memory testers): the crossbar the L1
** bottoms sit on, and a copy of the route they use (local L2 banks, and the
** RDMA engine for remote addresses). */
sim_conn *gpu_build_xbar(gpu_build *g);
void gpu_build_l1_route(const gpu_build *g, mem_route *out);
/* The control ports the CP maintains (cache / TLB ctrl), by kind, for
** agents that maintain them too (the page-migration controllers,
** src/um/), which plug into the GPU's control network. */
typedef enum gpu_ctrl_kind {
    GPU_CTRL_L1,              /* every L1 cache (V, S, I) */
    GPU_CTRL_TLB,             /* every translator (L1 TLB) and L2 TLB */
    GPU_CTRL_L2,              /* every L2 bank */
    GPU_CTRL_L1_TOP,          /* every L1's top port (GPU_CTRL_L1 order),
                                 on its shader array's connection: a
                                 flush sent there queues behind the
                                 requests that arrived before it */
    GPU_CTRL_KINDS
} gpu_ctrl_kind;
typedef struct gpu_ctrl_ports {
    sim_port **v;
    uint32_t n, cap;
} gpu_ctrl_ports;
const gpu_ctrl_ports *gpu_build_ctrl_ports(const gpu_build *g,
                                           gpu_ctrl_kind k);
sim_conn *gpu_build_ctrl_net(gpu_build *g);
/* Shader arrays, their connections, and the shader array of L1 i. */
uint32_t gpu_build_sa_count(const gpu_build *g);
sim_conn *gpu_build_sa_net(gpu_build *g, uint32_t s);
uint32_t gpu_build_l1_sa(const gpu_build *g, uint32_t i);
/* Wavefront instructions issued by all CUs so far. */
uint64_t gpu_build_wf_insts(const gpu_build *g);
/* Wave slots of one CU (SIMDs x slots per SIMD); every CU of GPU model g
** owns scratch slots [(g * num_cus + cu) * this, + this). */
uint32_t gpu_build_wave_slots_per_cu(const gpu_build_config *c);

#endif
