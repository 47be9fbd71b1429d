/*
** Multi-GPU platforms (seed 002 §5.3, seed 000 §3.1/§4.1): N GPU models
** from platform/gpu_build.h plus the network between them, on one engine.
** docs/platforms.md has the diagrams; in short, for N GPUs:
**
**   discrete    N GPUs, each owning physical range [g*M, (g+1)*M) (M =
**               gpu.mem_bytes) served by its own DRAM channels. Each GPU
**               has an RDMA engine; its L1s send misses outside the local
**               range to it (rdma_route_split), and it forwards them over
**               the interconnect to the home GPU's RDMA engine and L2
**               (seed 002 Fig. 5.8a). Interconnect: a PCIe tree (one switch
**               per 2 GPUs, src/noc/topo.h) or all-to-all links.
**   unified     the same hardware; the runtime hands one launch to all CPs,
**               each a contiguous chunk of work-groups (timing.c).
**   monolithic  one GPU with N x the CUs, L2 banks, L2 TLBs and DRAM
**               channels of one GPU and N x M memory; no RDMA.
**   shared      MGPU-SM: N GPUs, no RDMA; every GPU's L2 banks reach all N
**               memory stacks through one switch complex; 4 KB pages are
**               interleaved over the stacks (global DRAM channel k =
**               (paddr / 4 KB) % (N * C), stack k % N, channel k / N of it).
**
** With N = 1 every type is the lone GPU of gpu_build (no RDMA, no network).
**
** Coherence (src/coh/coh.h): the platform creates one instance of the
** protocol named by coherence.protocol for the system it builds and hands
** it to every GPU model's builder (hooks, agents, fences, and with
** coherence.remote_cache = l2 the L2-side RDMA split); the runtime asks it
** for the maintenance of every launch and host-visible point.
**
** Host side (with_dma, the default): every GPU model has a DMA engine
** (src/mem/dma.h, "GPU[i].DMA") for the driver's copies. Its device port
** sits on the GPU's crossbar with the L1s' route (local L2 banks, and the
** RDMA engine for remote addresses), its host port on a PCIe tree
** (host_link: pcie_version's by default) whose Host endpoint holds host
** memory: a simplemem over dma_host_backing() ("Host.Memory",
** host_latency). Discrete and unified platforms on a PCIe tree share that
** tree with RDMA when the host link is the tree's own speed; every other
** case (1 GPU, all-to-all links, monolithic, a different host_link) gets
** its own "HostPCIe" tree. On shared (MGPU-SM) the CPU shares the GPUs'
** memory (seed 000 §5): there is no host link and no host memory model;
** the runtime hands host copies over at no cost and the DMA engines carry
** device-to-device copies only (a host-side command fails MGS_EINVAL).
** The driver's command port joins every engine's ctrl port on one
** connection (platform_plug_dma_driver).
** The backing given to platform_new takes global physical addresses; each
** discrete GPU's DRAM channels see offsets from their GPU's base, so the
** platform hands them a small adaptor (owned) that adds the base back.
**
** Ownership: the platform owns its GPUs, RDMA engines, memory stacks,
** network and adaptors; engine, pool, statistics, backing and page table
** are borrowed and must outlive it.
*/
#ifndef MGS_PLATFORM_PLATFORM_H
#define MGS_PLATFORM_PLATFORM_H

#include <stdint.h>

#include "coh/coh.h"
#include "mem/dma.h"
#include "noc/noc.h"
#include "noc/topo.h"
#include "um/um.h"
#include "platform/gpu_build.h"

struct mgs_config;

typedef enum platform_type {
    PLATFORM_DISCRETE,
    PLATFORM_UNIFIED,
    PLATFORM_MONOLITHIC,
    PLATFORM_SHARED
} platform_type;

typedef enum platform_net {
    PLATFORM_NET_PCIE,        /* PCIe tree, bandwidth by version */
    PLATFORM_NET_LINKS        /* all-to-all point-to-point links */
} platform_net;

typedef struct platform_config {
    platform_type type;
    uint32_t ngpus;           /* 1..16 */
    gpu_build_config gpu;     /* one GPU; mem_bytes is per GPU */
    platform_net net;
    int pcie_version;         /* 3..6 (PCIe tree) */
    uint32_t pcie_gpus_per_switch; /* GPUs below each switch of every PCIe
                                 tree (RDMA and host trees): 2 = seed 002's
                                 tree, 1 = a link of its own per GPU */
    mgs_time pcie_link_latency; /* ps, every link of every PCIe tree */
    uint64_t link_bw;         /* bytes/s per direction (links) */
    mgs_time link_latency;    /* ps (links) */
    uint64_t sm_bandwidth;    /* shared: total L2-to-memory bytes/s */
    bool with_dma;            /* DMA engines, host memory, host PCIe */
    bool copy_allocates_l2;   /* copies' device writes fill the L2 */
    uint32_t copy_burst;      /* bytes per DMA host-side burst (0: none) */
    bool host_frames;         /* RDMA engines reach host frames over the host
                                 link (memory.spill_ppm > 0, host_frames.h) */
    mgs_time host_latency;    /* host memory access, ps */
    /* PCIe scheduling of the host tree ([pcie] keys,
    ** docs/pcie-scheduling.md): pcie_arbitration PLATFORM_PCIE_RR (round
    ** robin, one class) or one of the priority policies (pcie_vcs virtual
    ** channels, strict priority with anti-starvation after pcie_starve_ps
    ** at the switches; the driver ranks the tasks). */
    uint8_t pcie_arbitration;
    uint32_t pcie_vcs;
    mgs_time pcie_starve_ps;
    /* One IOMMU for all GPU models at the host end of the host PCIe tree
    ** (seed 002 Table 5.1) instead of a walker per GPU: every L2 TLB
    ** reaches it over PCIe; it walks with gpu.mmu's levels and latency,
    ** iommu_walkers walks at once, iommu_queue requests buffered; faults go
    ** to IOMMU.FaultHandler (tlb.h) as messages. */
    bool shared_iommu;
    uint32_t iommu_walkers, iommu_queue;
    char coherence[32];       /* coherence.protocol (src/coh/) */
    coh_remote_cache remote_cache; /* coherence.remote_cache */
    coh_ts_params coh_ts;     /* [halcone] keys */
    coh_dir_params coh_dir;   /* [directory] keys */
    coh_gps_params coh_gps;   /* [gps] keys */
    coh_carve_params coh_carve; /* [carve] keys */
    char host_link[32];       /* "auto" (PCIe of pcie_version), "pcie3"
                                 .. "pcie6", or a bandwidth ("32GB/s") */
    /* Demand paging ([memory] keys, src/um/): with um.migrate the shared
    ** IOMMU's fault handler is UM.Migrator and every GPU gets a PMC; the
    ** page tables it changes (borrowed, required then). */
    um_config um;
    const um_pagemap *um_pages;
    /* Parallel engine (sim.partition, sim.threads; platform_partition.c):
    ** a partition per GPU model plus the network, run by `threads`
    ** threads. */
    bool partition;
    uint32_t threads;
} platform_config;

/* One R9 Nano, discrete, PCIe 3.0 (seed 002 Table 5.1). */
void platform_config_default(platform_config *c);
/* Reads [platform] and the GPU keys of an effective configuration. */
void platform_config_from(platform_config *c, const struct mgs_config *cfg);
/* MGS_OK or MGS_ECONFIG naming the bad value. */
int platform_config_validate(const platform_config *c);
/* The host link's per-direction bandwidth (bytes/s) in *bw: MGS_OK, or
** MGS_ECONFIG naming platform.host_link. */
int platform_host_link_bw(const platform_config *c, uint64_t *bw);
/* The PCIe tree of `gpus` GPUs the platform builds (RDMA tree with
** interconnect = pcie, host tree, IOMMU tree): pcie_version's links of
** pcie_link_latency, pcie_gpus_per_switch GPUs per switch. */
void platform_pcie_cfg(const platform_config *c, uint32_t gpus,
                       noc_pcie_cfg *pc);
/* Whether host copies cross a host link (false on shared: the CPU and
** the GPUs share one memory, seed 000 §5). */
bool platform_has_host_link(const platform_config *c);
/* "discrete" ... ; -1 for an unknown name. */
int platform_type_parse(const char *name);

typedef struct platform platform;

/* Builds the platform into eng (the config must validate). backing takes
** global physical addresses g * gpu.mem_bytes + offset. */
platform *platform_new(sim_engine *eng, const platform_config *cfg,
                       mem_pool *pool, stat_registry *stats,
                       const mem_backing *backing, const mem_pagetable *pt);
void platform_free(platform *p);

const platform_config *platform_get_config(const platform *p);
/* GPU models with a command processor: 1 for monolithic, else ngpus. */
uint32_t platform_num_gpus(const platform *p);
gpu_build *platform_gpu(platform *p, uint32_t i);
/* The GPU model that runs launches addressed to runtime GPU gpu. */
uint32_t platform_gpu_of(const platform *p, int gpu);
/* The coherence protocol instance shared by every GPU model. */
coh *platform_coh(platform *p);
/* The system a protocol sees on platform c (coh.h). */
void platform_coh_system(const platform_config *c, coh_system *out);
/* The inter-GPU / memory network, NULL when there is none. */
noc_net *platform_net_of(platform *p);
uint64_t platform_wf_insts(const platform *p);
/* Scratch slots a launch needs: one past the highest CU wave slot of any
** GPU model (gpu_build_wave_slots_per_cu numbering). */
uint64_t platform_wave_slots(const platform *p);

/* GPU model i's DMA engine (NULL without with_dma or for a bad index). */
dma_engine *platform_dma(platform *p, uint32_t i);
/* Plugs the driver's command port into the connection of every DMA
** engine's ctrl port (with_dma only). */
void platform_plug_dma_driver(platform *p, sim_port *driver_port);
/* pcie.arbitration values. */
enum { PLATFORM_PCIE_RR = 0, PLATFORM_PCIE_PRIORITY_L,
       PLATFORM_PCIE_PRIORITY_S, PLATFORM_PCIE_QOS };
/* The host tree's control port for TC-to-VC maps (noc_vcmap_msg), on the
** DMA command connection; NULL under round robin or without a host link. */
sim_port *platform_pcie_ctrl(platform *p);
/* The network carrying host traffic (the PCIe tree; NULL without
** with_dma): platform_net_of(p) itself when RDMA shares it. */
noc_net *platform_host_net(platform *p);
/* The IOMMU's fault handler under memory.management != none, else NULL. */
struct um_migrator *platform_um(platform *p);

#endif
