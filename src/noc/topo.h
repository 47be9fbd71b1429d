/*
** Topology builders: the networks the seeds' platforms use, built on a
** noc_net with the public API only (noc.h), so a platform builder can also
** assemble its own.
**
**   PCIe tree      Host - RC (root complex switch) - one PCIe switch per
**                  gpus_per_switch GPUs - GPUs. x16 links, per-direction
**                  bandwidth by version (noc_pcie_bandwidth). Hops:
**                  GPU-GPU under one switch 2, across switches 4,
**                  GPU-Host 3.
**   all-to-all     one link between every pair of GPUs (NVLink-like); 1 hop.
**   switch complex MGPU-SM (seed 000 Sec. 4.1): every GPU's L2 side and
**                  every memory stack on one crossbar switch; a port's
**                  bandwidth is the total L2-to-memory bandwidth divided by
**                  the number of ports on its side (GPUs x gpu_ports, or
**                  stacks x mem_ports). 2 hops.
**
** Every default names its source or says "assumed:" with the reason (see
** docs/noc.md). Builders add nodes and links, then call noc_route_compute;
** a caller that adds more afterwards must call it again.
*/
#ifndef MGS_NOC_TOPO_H
#define MGS_NOC_TOPO_H

#include "noc/noc.h"

#define NOC_TOPO_MAX 64

/* Endpoint ids of a built topology (-1: absent). */
typedef struct noc_topo {
    uint32_t ngpus, nmems, nswitches;
    int host;
    int gpu[NOC_TOPO_MAX];
    int mem[NOC_TOPO_MAX];
} noc_topo;

/* x16 per-direction bandwidth of PCIe version 3..6 in bytes/s (16, 32, 64,
** 128 GB/s), 0 for other versions. */
uint64_t noc_pcie_bandwidth(int version);

typedef struct noc_pcie_cfg {
    int version;              /* 3, 4, 5 or 6 */
    uint64_t bandwidth;       /* bytes/s per direction of an x16 link;
                                 0 (default): by version */
    uint32_t gpus;            /* 1..NOC_TOPO_MAX */
    uint32_t gpus_per_switch; /* >= 1; the seeds use 2 */
    mgs_time link_latency;    /* ps per link */
    mgs_time switch_latency;  /* ps per switch (RC included) */
    uint32_t header_bytes;    /* TLP overhead per packet */
    uint32_t max_payload;     /* max payload size per TLP */
} noc_pcie_cfg;
void noc_pcie_cfg_default(noc_pcie_cfg *cfg, int version, uint32_t gpus);
int noc_build_pcie(noc_net *n, const noc_pcie_cfg *cfg, noc_topo *out);

/* NVLink-like defaults for one link (bandwidth per direction given). */
void noc_nvlink_cfg_default(noc_link_cfg *cfg, uint64_t bandwidth);
int noc_build_all_to_all(noc_net *n, uint32_t gpus, const noc_link_cfg *link,
                         noc_topo *out);

typedef struct noc_xbar_cfg {
    uint32_t gpus, mems;        /* 1..NOC_TOPO_MAX each */
    /* Endpoints (each with its own switch port and link) per GPU and per
    ** stack, e.g. one per L2 bank, so that banks never block each other
    ** at a shared interface. GPU g's endpoints are the consecutive ids
    ** gpu[g] .. gpu[g] + gpu_ports - 1 (likewise mem[]). Default 1. */
    uint32_t gpu_ports, mem_ports;
    uint64_t total_bandwidth;   /* bytes/s, L2-to-memory, per direction */
    mgs_time link_latency, switch_latency; /* ps */
    uint32_t header_bytes, max_payload;
} noc_xbar_cfg;
void noc_xbar_cfg_default(noc_xbar_cfg *cfg, uint32_t gpus, uint32_t mems);
int noc_build_switch_complex(noc_net *n, const noc_xbar_cfg *cfg,
                             noc_topo *out);

/* PCIe virtual channels (seed 002 §4.3.3, docs/pcie-scheduling.md): a
** DMA engine labels its host-side requests with a traffic class
** (mem_msg.tc, MEM_F_TC: TC = 2 * ID_D + ID_T), and the switches put a
** message in VC map.vc[TC]; unlabelled traffic (RDMA, page migration)
** uses VC 0. The default map is Eq. 4.2, VC = TC mod N_VC; the driver
** replaces it with NOC_VCMAP_SET messages to the net's control port
** (noc_set_priority(n, x, noc_pcie_vcmap_apply, &map)). */
#define NOC_PCIE_MAX_TC 32      /* N_T = 2 packet types x 16 GPUs */
typedef struct noc_pcie_vcmap {
    uint32_t nvc;               /* N_VC, 1..8 */
    uint8_t vc[NOC_PCIE_MAX_TC];
} noc_pcie_vcmap;
enum { NOC_VCMAP_SET = 420 };   /* sim_msg type of a noc_vcmap_msg */
typedef struct noc_vcmap_msg {
    sim_msg base;               /* FIRST; type NOC_VCMAP_SET */
    noc_pcie_vcmap map;
} noc_vcmap_msg;
void noc_pcie_vcmap_default(noc_pcie_vcmap *m, uint32_t nvc);
uint32_t noc_class_pcie_tc(const sim_msg *m, void *ud);   /* ud: the map */
void noc_pcie_vcmap_apply(const sim_msg *m, void *ud);    /* ud: the map */

/* Classifier for noc_set_classes(n, 2, noc_class_mem_rsp, NULL): class 1
** for memory-protocol responses (MEM_*_RSP and MEM_INV_ACK,
** src/mem/memmsg.h), class 0 for everything else, so responses never wait
** behind requests. */
uint32_t noc_class_mem_rsp(const sim_msg *m, void *ud);

/* Message classes of a network that carries invalidations from a
** directory (MEM_INV_LINE): noc_set_classes(n, NOC_MEM_CLASSES,
** noc_class_mem_coh, NULL). Requests, responses (with invalidation acks,
** which their receiver always sinks) and invalidations each get their own
** virtual channel, so requests a directory stops accepting never block
** invalidations or acks, and invalidations waiting at a busy cache never
** block the responses that let it finish (docs/memory.md). */
enum {
    NOC_CLASS_REQ = 0,  /* MEM_READ, MEM_WRITE, MEM_ATOMIC, control... */
    NOC_CLASS_RSP = 1,  /* MEM_*_RSP, MEM_INV_ACK */
    NOC_CLASS_INV = 2,  /* MEM_INV_LINE */
    NOC_MEM_CLASSES = 3
};
uint32_t noc_class_mem_coh(const sim_msg *m, void *ud);

/* Bursts (noc_set_bursts) of a network that carries only memory-protocol
** and control messages: a mem_msg's parts, burst_last and burst_first
** (memmsg.h); anything else is one part. */
extern const noc_burst_ops noc_mem_bursts;

#endif
