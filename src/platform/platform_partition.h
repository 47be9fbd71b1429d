/*
** The parallel engine's partitions of a platform (sim.partition = gpu;
** sim/partition.h, docs/engine.md "Parallel engine").
**
** Placement: GPU model g with everything gpu_build makes, its DMA engine,
** its protocol agents and its endpoints of the networks -> partition
** "GPU[g]"; the switches of every network and host memory -> "Network";
** the host driver (and anything else made on the root engine) -> the
** root, "Host". The crossings are then the network links between an
** endpoint and a switch (PCIe link latency, 20 ns) or between two
** endpoints (platform.link_latency), and the driver's connections to the
** command processors and DMA engines, whose latency becomes the host
** link's (platform_driver_latency_): a doorbell crosses PCIe.
**
** Supported: discrete and unified platforms with coherence.protocol = nc,
** round-robin PCIe arbitration, a walker per GPU (no shared IOMMU, no
** demand paging). Anything else is refused by platform_partition_check
** with one line naming the reason: their agents share state between GPUs
** outside connections (docs/engine.md lists them).
*/
#ifndef MGS_PLATFORM_PARTITION_H
#define MGS_PLATFORM_PARTITION_H

#include "noc/noc.h"
#include "noc/topo.h"
#include "platform/platform.h"
#include "sim/partition.h"

typedef struct platform_parts {
    uint32_t n;                        /* GPU partitions; 0 = not split */
    sim_engine *net;                   /* the network's partition */
    sim_engine *gpu[NOC_TOPO_MAX];
} platform_parts;

/* MGS_OK, or MGS_ECONFIG naming what sim.partition = gpu cannot split. */
int platform_partition_check(const platform_config *c);
/* Creates the partitions on root when c->partition (else leaves n = 0). */
void platform_partition_build_(platform_parts *pp, sim_engine *root,
                               const platform_config *c);
/* The engine for GPU model i's components / the networks' switches. */
sim_engine *platform_gpu_engine_(const platform_parts *pp, sim_engine *root,
                                 uint32_t i);
sim_engine *platform_net_engine_(const platform_parts *pp, sim_engine *root);
/* Moves every GPU endpoint of topo into its GPU's partition. */
void platform_place_endpoints_(const platform_parts *pp, noc_net *n,
                               const noc_topo *topo, uint32_t ngpus);
/* Latency of the host driver's connections when partitioned. */
mgs_time platform_driver_latency_(const platform_config *c);

#endif
