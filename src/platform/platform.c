/*
** Multi-GPU platform assembly (platform.h): configuration, the per-type
** wiring, the backing adaptors. Components are only created and plugged
** here; the platform never reaches into them afterwards.
*/
#include "platform/platform.h"
#include "platform/platform_partition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/units.h"
#include "platform/host_frames.h"
#include "mem/simplemem.h"
#include "mgsim/errors.h"
#include "noc/topo.h"
#include "util/xmalloc.h"

/* Adds a GPU's physical base to the offsets its DRAM channels use. */
typedef struct plat_view {
    const mem_backing *global;
    uint64_t base;
} plat_view;

struct platform {
    platform_config cfg;
    uint32_t ngpu_models;
    gpu_build **gpus;
    plat_view *views;
    mem_backing *backings;    /* one per GPU model */
    noc_net *net;
    coh *coh;                 /* the protocol instance (owned) */
    dram **stacks;            /* shared: N * C channels, global order */
    sim_port **stack_tops;    /* what the L2s send to: channel or agent */
    sim_conn **stack_nets;    /* agent <-> channel connections (or NULL) */
    uint32_t nstack_chans;
    /* Host side (with_dma). */
    dma_engine **dmas;        /* one per GPU model */
    simplemem *host_mem;
    const mem_backing *global; /* the physical backing (platform_new's) */
    host_frames_backing host_backing; /* host memory + host frames */
    noc_net *host_net;        /* == net when RDMA shares the PCIe tree */
    sim_conn *dma_cmd;        /* driver <-> every DMA ctrl port */
    /* Shared IOMMU (cfg.shared_iommu). */
    mmu *iommu;
    fault_handler *faults;
    sim_conn *fault_conn;     /* IOMMU fault port <-> handler */
    noc_net *iommu_net;       /* its own PCIe tree when there is no host_net */
    noc_topo host_topo;       /* endpoints of host_net (with_dma) */
    noc_topo rdma_topo;       /* endpoints of net (discrete, unified) */
    /* Demand paging (cfg.um.migrate): the IOMMU's fault handler and one
    ** page-migration controller per GPU model. */
    um_migrator *um;
    um_pmc **pmcs;
    sim_conn *um_ctl;         /* UM.CtlLink: migrator <-> PMCs */
    noc_pcie_vcmap vcmap;     /* TC -> VC of the host tree (priority) */
    platform_parts parts;     /* sim.partition = gpu, else n == 0 */
};

static const char *const type_names[] = {"discrete", "unified", "monolithic",
                                         "shared"};

int platform_type_parse(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, type_names[i]))
            return i;
    return -1;
}

void platform_config_default(platform_config *c)
{
    memset(c, 0, sizeof *c);
    c->type = PLATFORM_DISCRETE;
    c->ngpus = 1;
    gpu_build_config_default(&c->gpu);
    c->net = PLATFORM_NET_PCIE;
    c->pcie_version = 3;                 /* seed 002 Table 5.1 */
    c->pcie_gpus_per_switch = 2;         /* seed 002 Fig. 4.7 */
    c->pcie_link_latency = 20 * MGS_PS_PER_NS; /* assumed: docs/noc.md */
    c->link_bw = 16000000000ull;         /* seed 002 Table 5.1 */
    c->link_latency = 100 * MGS_PS_PER_NS; /* assumed: docs/noc.md */
    c->sm_bandwidth = 1000000000000ull;  /* seed 000 §4.1: 1 TB/s */
    c->with_dma = true;
    c->copy_burst = 8192;                /* keys.def platform.copy_burst */
    /* assumed: a DDR4 host memory access, ~100 ns (docs/platforms.md) */
    c->host_latency = 100 * MGS_PS_PER_NS;
    c->pcie_vcs = 8;                     /* keys.def [pcie] */
    c->pcie_starve_ps = 10000 * MGS_PS_PER_NS;
    c->shared_iommu = false;             /* a walker per GPU */
    c->iommu_walkers = 16;               /* keys.def mmu.iommu_walkers */
    c->iommu_queue = 64;                 /* keys.def mmu.iommu_queue */
    snprintf(c->coherence, sizeof c->coherence, "nc");
    c->remote_cache = COH_REMOTE_L1;
    /* keys.def [halcone] */
    c->coh_ts = (coh_ts_params){.rd_lease = 10, .wr_lease = 5,
                                .tsu_entries = 4096, .tsu_latency = 50,
                                .ts_max = 65535};
    snprintf(c->host_link, sizeof c->host_link, "auto");
    /* keys.def [directory] */
    c->coh_dir = (coh_dir_params){.entries = 8192, .ways = 8};
    /* keys.def [gps] */
    c->coh_gps = (coh_gps_params){.queue_entries = 512, .queue_block = 128,
                                  .tlb_entries = 32, .tlb_ways = 8,
                                  .walk_latency = 100, .ports = 4};
    um_config_default(&c->um);
    c->threads = 1;
}

/* The [rdma] keys (docs/rdma.md); gpu_config_of adds the platform's. */
static void rdma_config_from(rdma_config *r, const mgs_config *k)
{
    r->outgoing_entries = (uint32_t)k->rdma_outgoing_entries;
    r->incoming_entries = (uint32_t)k->rdma_incoming_entries;
    r->credits_per_home = (uint32_t)k->rdma_credits_per_home;
    r->requests_per_cycle = (uint32_t)k->rdma_requests_per_cycle;
    r->xbar_ports = (uint32_t)k->rdma_xbar_ports;
}

void platform_pcie_cfg(const platform_config *c, uint32_t gpus,
                       noc_pcie_cfg *pc)
{
    noc_pcie_cfg_default(pc, c->pcie_version, gpus);
    pc->gpus_per_switch = c->pcie_gpus_per_switch;
    pc->link_latency = c->pcie_link_latency;
}

bool platform_has_host_link(const platform_config *c)
{
    return c->type != PLATFORM_SHARED;
}

int platform_host_link_bw(const platform_config *c, uint64_t *bw)
{
    const char *v = c->host_link;
    *bw = 0;
    if (!strcmp(v, "auto"))
        *bw = noc_pcie_bandwidth(c->pcie_version);
    else if (!strncmp(v, "pcie", 4) && v[4] >= '0' && v[4] <= '9' && !v[5])
        *bw = noc_pcie_bandwidth(v[4] - '0');
    else {
        char why[128];
        if (mgs_unit_parse(MGS_UNIT_BW, v, bw, why, sizeof why) || !*bw)
            *bw = 0;
    }
    if (!*bw)
        return mgs_error_set(MGS_ECONFIG, "platform.host_link = \"%s\": "
                             "expected auto, pcie3..pcie6 or a bandwidth "
                             "(e.g. 32GB/s)", v);
    return MGS_OK;
}

void platform_config_from(platform_config *c, const mgs_config *k)
{
    gpu_build_config_from(&c->gpu, k);
    int t = platform_type_parse(k->platform_type);
    c->type = t < 0 ? PLATFORM_DISCRETE : (platform_type)t;
    c->ngpus = (uint32_t)k->platform_gpus;
    c->net = strcmp(k->platform_interconnect, "links") ? PLATFORM_NET_PCIE
                                                       : PLATFORM_NET_LINKS;
    c->pcie_version = k->platform_pcie_version;
    c->pcie_gpus_per_switch = (uint32_t)k->platform_pcie_gpus_per_switch;
    c->pcie_link_latency = k->platform_pcie_link_latency;
    c->link_bw = k->platform_inter_gpu_bw;
    c->link_latency = k->platform_link_latency;
    c->sm_bandwidth = k->platform_sm_bandwidth;
    c->with_dma = strcmp(k->platform_copy_timing, "instant") != 0;
    c->host_frames = host_frames_wanted(k);
    static const char *const arb[] = {"rr", "priority_l", "priority_s",
                                      "qos"};
    for (uint8_t i = 0; i < 4; i++)
        if (!strcmp(k->pcie_arbitration, arb[i]))
            c->pcie_arbitration = i;
    c->pcie_vcs = (uint32_t)k->pcie_vcs;
    c->pcie_starve_ps = (mgs_time)k->pcie_starvation_cycles * c->gpu.period;
    c->copy_allocates_l2 = k->platform_copy_allocates_l2;
    c->copy_burst = (uint32_t)k->platform_copy_burst;
    c->host_latency = k->platform_host_latency;
    c->shared_iommu = k->mmu_shared_iommu;
    c->iommu_walkers = (uint32_t)k->mmu_iommu_walkers;
    c->iommu_queue = (uint32_t)k->mmu_iommu_queue;
    snprintf(c->coherence, sizeof c->coherence, "%s", k->coherence_protocol);
    int rc = coh_remote_cache_parse(k->coherence_remote_cache);
    c->remote_cache = rc < 0 ? COH_REMOTE_L1 : (coh_remote_cache)rc;
    c->coh_ts = (coh_ts_params){
        .rd_lease = (uint32_t)k->halcone_rd_lease,
        .wr_lease = (uint32_t)k->halcone_wr_lease,
        .tsu_entries = (uint32_t)k->halcone_tsu_entries,
        .tsu_latency = (uint32_t)k->halcone_tsu_latency,
        .ts_max = (uint32_t)k->halcone_ts_max};
    c->coh_gps = (coh_gps_params){
        .queue_entries = (uint32_t)k->gps_queue_entries,
        .queue_block = (uint32_t)k->gps_queue_block,
        .tlb_entries = (uint32_t)k->gps_tlb_entries,
        .tlb_ways = (uint32_t)k->gps_tlb_ways,
        .walk_latency = (uint32_t)k->gps_walk_latency,
        .ports = (uint32_t)k->gps_ports,
        .test_drop = k->gps_test_drop};
    c->coh_dir = (coh_dir_params){
        .entries = (uint32_t)k->directory_entries,
        .ways = (uint32_t)k->directory_ways,
        .range = (uint32_t)k->directory_range,
        .policy = (uint8_t)(!strcmp(k->directory_policy, "fifo")  ? 1
                            : !strcmp(k->directory_policy, "lru") ? 2
                                                                   : 0),
        .inv_credits = (uint32_t)k->directory_inv_credits,
        .inv_message = (uint8_t)(!strcmp(k->directory_inv_message, "line")
                                     ? 1
                                 : !strcmp(k->directory_inv_message, "entry")
                                     ? 2
                                     : 0)};
    c->coh_carve = (coh_carve_params){
        .rdc_bytes = k->carve_rdc_size,
        .epoch_bits = (uint32_t)k->carve_epoch_bits,
        .imst_reset_ppm = (uint32_t)k->carve_imst_reset_ppm,
        .inv_credits = (uint32_t)k->carve_inv_credits,
        .write_back = !strcmp(k->carve_rdc_write, "back")};
    size_t hl = strlen(k->platform_host_link);
    if (hl < sizeof c->host_link)
        memcpy(c->host_link, k->platform_host_link, hl + 1);
    else
        snprintf(c->host_link, sizeof c->host_link, "(too long)");
    rdma_config_from(&c->gpu.rdma, k);
    um_config_from(&c->um, k);
    c->partition = !strcmp(k->sim_partition, "gpu");
    c->threads = (uint32_t)k->sim_threads;
    /* Faults are resolved at the shared IOMMU (seed 002 §5.3.3.1 step 3). */
    if (c->um.migrate)
        c->shared_iommu = true;
}

void platform_coh_system(const platform_config *c, coh_system *out)
{
    memset(out, 0, sizeof *out);
    out->ngpus = c->type == PLATFORM_MONOLITHIC ? 1 : c->ngpus;
    out->rdma = c->ngpus > 1 && (c->type == PLATFORM_DISCRETE ||
                                 c->type == PLATFORM_UNIFIED);
    out->shared_memory = c->ngpus > 1 && c->type == PLATFORM_SHARED;
    out->shared_platform = c->type == PLATFORM_SHARED;
    out->l2_write_back = c->gpu.l2.write_policy == CACHE_WRITE_BACK;
    out->line = c->gpu.l2.line;
    out->remote_cache = c->remote_cache;
    out->ts = c->coh_ts;
    out->dir = c->coh_dir;
    out->gps = c->coh_gps;
    out->gps.page_bytes = c->gpu.mmu.page_bytes;
    out->gps.period = c->gpu.period;
    out->l2_banks = c->gpu.l2_banks;
    out->l2_interleave = (uint32_t)c->gpu.l2_interleave;
    out->mem_per_gpu = c->gpu.mem_bytes;
    out->carve = c->coh_carve;
}

/* The one GPU model of a monolithic platform: N x the resources. */
static void monolithic_gpu(const platform_config *c, gpu_build_config *g)
{
    *g = c->gpu;
    g->external_mmu = c->shared_iommu;
    g->num_cus *= c->ngpus;
    g->l2_banks *= c->ngpus;
    g->l2_tlbs *= c->ngpus;
    g->mem_bytes *= c->ngpus;
}

/* GPU model i's configuration. */
static void gpu_config_of(const platform_config *c, uint32_t i,
                          gpu_build_config *g)
{
    if (c->type == PLATFORM_MONOLITHIC) {
        monolithic_gpu(c, g);
        return;
    }
    *g = c->gpu;
    g->gpu = (int)i;
    g->phys_base = (uint64_t)i * c->gpu.mem_bytes;
    g->external_mmu = c->shared_iommu;
    if (c->ngpus < 2) {
        /* Host frames on one GPU (zero-copy memory, host_frames.h): an
        ** RDMA engine with no peers sends the host window's parts over
        ** the host link; local addresses still go straight to the L2. */
        if (c->host_frames && c->type != PLATFORM_MONOLITHIC &&
            c->type != PLATFORM_SHARED) {
            g->with_rdma = true;
            g->rdma.ngpus = 1;
            g->rdma.bytes_per_gpu = c->gpu.mem_bytes;
        }
        return;
    }
    if (c->type == PLATFORM_SHARED) {
        g->external_memory = true;
        return;
    }
    g->with_rdma = true;
    g->rdma.ngpus = c->ngpus;
    g->rdma.bytes_per_gpu = c->gpu.mem_bytes;
}

int platform_config_validate(const platform_config *c)
{
    if (c->ngpus < 1 || c->ngpus > 16)
        return mgs_error_set(MGS_ECONFIG, "platform.gpus = %u, must be in "
                             "[1, 16]", c->ngpus);
    if ((unsigned)c->type > PLATFORM_SHARED)
        return mgs_error_set(MGS_ECONFIG, "unknown platform type %d",
                             (int)c->type);
    if ((c->net == PLATFORM_NET_PCIE || c->with_dma) &&
        !noc_pcie_bandwidth(c->pcie_version))
        return mgs_error_set(MGS_ECONFIG, "platform.pcie_version = %d, must "
                             "be 3..6", c->pcie_version);
    const coh_protocol *proto = coh_find(c->coherence);
    if (!proto && coh_not_built(c->coherence))
        return mgs_error_set(MGS_ECONFIG, "coherence.protocol = %s is not "
                             "built yet: %s", c->coherence,
                             coh_not_built(c->coherence));
    if (!proto)
        return mgs_error_set(MGS_ECONFIG, "coherence.protocol = '%s': no "
                             "such protocol (mgsim list shows them)",
                             c->coherence);
    coh_system sys;
    platform_coh_system(c, &sys);
    int crc = proto->check ? proto->check(&sys) : MGS_OK;
    if (crc)
        return crc;
    uint64_t host_bw;
    int hrc = platform_host_link_bw(c, &host_bw);
    if (hrc)
        return hrc;
    if (c->type == PLATFORM_SHARED && c->ngpus > 1 &&
        c->gpu.l2_interleave > 4096)
        return mgs_error_set(MGS_ECONFIG, "shared platform: l2.interleave "
                             "(%llu) must be <= the 4 KB page interleave of "
                             "the memory stacks",
                             (unsigned long long)c->gpu.l2_interleave);
    if (c->um.migrate && c->type != PLATFORM_DISCRETE &&
        c->type != PLATFORM_UNIFIED)
        return mgs_error_set(MGS_ECONFIG, "memory.management = %s needs "
                             "platform.type = discrete or unified (got %s)",
                             um_scheme_name(&c->um),
                             type_names[c->type]);
    if (c->um.migrate && (strcmp(c->coherence, "nc") ||
                          c->remote_cache != COH_REMOTE_L1))
        return mgs_error_set(MGS_ECONFIG, "memory.management = %s needs "
                             "coherence.protocol = nc and "
                             "coherence.remote_cache = l1",
                             um_scheme_name(&c->um));
    if (c->um.pasi && (!c->um.pasi_initial || !c->um.pasi_min ||
                       (c->um.pasi_initial & (c->um.pasi_initial - 1)) ||
                       (c->um.pasi_min & (c->um.pasi_min - 1)) ||
                       c->um.pasi_min > c->um.pasi_initial))
        return mgs_error_set(MGS_ECONFIG, "memory.pasi_initial (%llu) and "
                             "memory.pasi_min (%llu) must be powers of two, "
                             "pasi_min <= pasi_initial",
                             (unsigned long long)c->um.pasi_initial,
                             (unsigned long long)c->um.pasi_min);
    if (c->shared_iommu && (c->iommu_walkers < 1 || c->iommu_queue < 1))
        return mgs_error_set(MGS_ECONFIG, "mmu.iommu_walkers and "
                             "mmu.iommu_queue must be >= 1");
    int prc = platform_partition_check(c);
    if (prc)
        return prc;
    for (uint32_t i = 0; i < (c->type == PLATFORM_MONOLITHIC ? 1 : c->ngpus);
         i++) {
        gpu_build_config g;
        gpu_config_of(c, i, &g);
        int rc = gpu_build_config_validate(&g);
        if (rc)
            return rc;
    }
    return MGS_OK;
}

/* ---- backing adaptor ---------------------------------------------- */

static int view_read(void *ud, uint64_t off, void *dst, size_t n)
{
    const plat_view *v = ud;
    return v->global->read(v->global->ud, v->base + off, dst, n);
}

static int view_write(void *ud, uint64_t off, const void *src, size_t n)
{
    const plat_view *v = ud;
    return v->global->write(v->global->ud, v->base + off, src, n);
}

/* ---- networks ------------------------------------------------------ */

/* A host PCIe tree with a priority policy: pcie_vcs classes by TC and
** strict-priority switches (before any link). */
static void pcie_priority_setup(platform *p, noc_net *n)
{
    const platform_config *c = &p->cfg;
    if (c->pcie_arbitration == PLATFORM_PCIE_RR || !c->with_dma)
        return;
    noc_pcie_vcmap_default(&p->vcmap, c->pcie_vcs);
    if (noc_set_classes(n, c->pcie_vcs, noc_class_pcie_tc, &p->vcmap) ||
        noc_set_priority(n, c->pcie_starve_ps, noc_pcie_vcmap_apply,
                         &p->vcmap))
        abort();              /* validated: 1..8 classes, before links */
}

/* Discrete / unified: the RDMA engines' outside ports on the network
** (routes are computed by the caller, after the host side is attached). */
static void wire_rdma(platform *p, sim_engine *eng, stat_registry *st,
                      noc_topo *topo_out)
{
    const platform_config *c = &p->cfg;
    noc_topo topo;
    int rc;
    if (c->net == PLATFORM_NET_PCIE) {
        p->net = noc_net_new(platform_net_engine_(&p->parts, eng), "PCIe",
                             st, 16);
        pcie_priority_setup(p, p->net);
        noc_pcie_cfg pc;
        platform_pcie_cfg(c, c->ngpus, &pc);
        rc = noc_build_pcie(p->net, &pc, &topo);
    } else {
        p->net = noc_net_new(platform_net_engine_(&p->parts, eng), "Links",
                             st, 16);
        noc_link_cfg lc;
        noc_nvlink_cfg_default(&lc, c->link_bw);
        lc.latency = c->link_latency;
        lc.credits = noc_link_credits_for(&lc, 72, c->gpu.period);
        rc = noc_build_all_to_all(p->net, c->ngpus, &lc, &topo);
    }
    /* The configuration validated, so the topology builds. */
    if (rc)
        abort();
    sim_port *outs[16];
    platform_place_endpoints_(&p->parts, p->net, &topo, c->ngpus);
    for (uint32_t i = 0; i < c->ngpus; i++) {
        outs[i] = rdma_outside(gpu_build_rdma(p->gpus[i]));
        noc_attach(p->net, outs[i], topo.gpu[i]);
        /* A protocol's own traffic between GPUs (directory
        ** invalidations) shares the links. */
        sim_port *cp = p->coh && p->coh->proto->network_port
                           ? p->coh->proto->network_port(p->coh->pd, i)
                           : NULL;
        if (cp)
            noc_attach(p->net, cp, topo.gpu[i]);
    }
    for (uint32_t i = 0; i < c->ngpus; i++)
        rdma_set_peers(gpu_build_rdma(p->gpus[i]), outs, c->ngpus);
    *topo_out = topo;
    p->rdma_topo = topo;
}

/* The insertion point in front of memory channel k of the shared stacks
** (coh.h, coh_site.top_external): the agent and the channel get a
** connection of their own; returns the agent's port for the switch
** complex, or NULL (no agent). */
static sim_port *stack_agent(platform *p, sim_engine *eng, mem_pool *pool,
                             stat_registry *st, uint32_t k)
{
    const coh_protocol *proto = p->coh->proto;
    if (!proto->memory_agent)
        return NULL;
    uint32_t n = p->cfg.ngpus;
    char name[64];
    snprintf(name, sizeof name, "Stack[%u].MC[%u]", k % n, k / n);
    p->stack_nets[k] = conn_new(eng, name, &p->cfg.gpu.mem_net, st);
    conn_plug(p->stack_nets[k], p->stack_tops[k]);
    coh_site site = {.eng = eng, .pool = pool, .stats = st,
                     .net = p->stack_nets[k], .memory = p->stack_tops[k],
                     .gpu = k % n, .bank = k / n, .name = name,
                     .period = p->cfg.gpu.period, .top_external = true};
    return proto->memory_agent(p->coh->pd, &site);
}

/* Shared: N memory stacks of C channels behind the switch complex. */
static void wire_shared(platform *p, sim_engine *eng, mem_pool *pool,
                        stat_registry *st, const mem_backing *backing)
{
    const platform_config *c = &p->cfg;
    uint32_t n = c->ngpus, chans = c->gpu.l2_banks;
    p->net = noc_net_new(eng, "SwitchComplex", st, 16);
    noc_xbar_cfg xc;
    noc_xbar_cfg_default(&xc, n, n);
    xc.total_bandwidth = c->sm_bandwidth;
    noc_topo topo;
    if (noc_build_switch_complex(p->net, &xc, &topo))
        abort();
    dram_config dc = c->gpu.dram;
    dc.base = 0;
    dc.interleave = 4096;                /* seed 000 §4.1: 4 KB pages */
    dc.channels = n * chans;
    p->nstack_chans = n * chans;
    p->stacks = mgs_xcalloc(p->nstack_chans, sizeof *p->stacks);
    p->stack_tops = mgs_xcalloc(p->nstack_chans, sizeof *p->stack_tops);
    p->stack_nets = mgs_xcalloc(p->nstack_chans, sizeof *p->stack_nets);
    for (uint32_t k = 0; k < p->nstack_chans; k++) {
        char name[64];
        snprintf(name, sizeof name, "Stack[%u].DRAM[%u]", k % n, k / n);
        p->stacks[k] = dram_new(eng, name, &dc, pool, st, backing);
        p->stack_tops[k] = dram_top(p->stacks[k]);
        sim_port *agent = stack_agent(p, eng, pool, st, k);
        if (agent)
            p->stack_tops[k] = agent;
        noc_attach(p->net, p->stack_tops[k], topo.mem[k % n]);
    }
    mem_route to_mem;
    mem_route_interleaved(&to_mem, p->stack_tops, p->nstack_chans, 4096);
    for (uint32_t g = 0; g < n; g++)
        for (uint32_t b = 0; b < chans; b++) {
            cache *l2 = gpu_build_l2(p->gpus[g], b);
            noc_attach(p->net, cache_bottom(l2), topo.gpu[g]);
            cache_set_route(l2, &to_mem);
        }
    if (noc_route_compute(p->net))
        abort();
}

/* ---- host side: DMA engines, host memory, PCIe ---------------------- */

/* Chunks in flight that keep a DMA engine streaming at bandwidth bw over
** a PCIe tree: twice the bandwidth-delay product of one chunk's round trip
** to host memory (3 links and 2 switches each way plus the memory), so
** the link, not the engine, limits a copy; at least the dma.h default. */
static uint32_t dma_inflight_for(uint64_t bw, mgs_time rtt, uint32_t chunk)
{
    uint64_t bytes = (uint64_t)((double)bw * (double)rtt * 1e-12);
    uint64_t n = 2 * bytes / chunk + 16;
    return n < 128 ? 128 : n > 4096 ? 4096 : (uint32_t)n;
}

/* Host memory behind the host link: on the RDMA tree (shared_topo) or a
** HostPCIe tree of its own of host_bw; fills *to_host and *topo. */
static void wire_host(platform *p, sim_engine *eng, mem_pool *pool,
                      stat_registry *st, const noc_topo *shared_topo,
                      const noc_pcie_cfg *pc, mem_route *to_host,
                      noc_topo *topo)
{
    const platform_config *c = &p->cfg;
    if (shared_topo) {
        p->host_net = p->net;
        *topo = *shared_topo;
    } else {
        p->host_net = noc_net_new(platform_net_engine_(&p->parts, eng),
                                  "HostPCIe", st, 16);
        pcie_priority_setup(p, p->host_net);
        if (noc_build_pcie(p->host_net, pc, topo))
            abort();          /* validated: version 3..6, bandwidth > 0 */
        platform_place_endpoints_(&p->parts, p->host_net, topo,
                                  p->ngpu_models);
    }
    /* The DMA engines' host-side bursts (platform.copy_burst; without
    ** them the network never asks, and the RDMA traffic it may also carry
    ** pays nothing). */
    if (c->copy_burst)
        noc_set_bursts(p->host_net, &noc_mem_bursts);
    simplemem_config hc;
    simplemem_config_default(&hc);
    hc.period = c->gpu.period;
    hc.latency = (uint32_t)((c->host_latency + hc.period - 1) / hc.period);
    /* assumed: host memory is never the bottleneck of a copy (DDR4/5
    ** sustains far more than one x16 link): up to 8 requests per cycle,
    ** enough answers queued to cover its latency. */
    hc.requests_per_cycle = 8;
    hc.queue = 8 * (hc.latency + 1) + 64;
    hc.buffer = 64;
    mem_backing hb;
    dma_host_backing(&hb);
    if (c->host_frames) {
        /* Host frames: the window after the last GPU's memory. */
        uint64_t base = (uint64_t)c->ngpus * c->gpu.mem_bytes;
        host_frames_backing_init(&p->host_backing, &hb, p->global, base,
                                 base + c->gpu.mem_bytes);
        hb = host_frames_backing_of(&p->host_backing);
    }
    hc.quiet_after_progress = c->copy_burst != 0;
    p->host_mem = simplemem_new(platform_net_engine_(&p->parts, eng),
                                "Host.Memory", &hc, pool, &hb, st);
    noc_attach(p->host_net, simplemem_port(p->host_mem), topo->host);
    mem_route_single(to_host, simplemem_port(p->host_mem));
}

/* DMA engines on every GPU model's crossbar, their host ports and host
** memory behind the host link (wire_host; none on shared), their ctrl
** ports on one command connection. */
static void wire_dma(platform *p, sim_engine *eng, mem_pool *pool,
                     stat_registry *st, const noc_topo *shared_topo)
{
    const platform_config *c = &p->cfg;
    uint32_t n = p->ngpu_models;
    uint64_t host_bw;
    if (platform_host_link_bw(c, &host_bw))
        abort();              /* validated */
    noc_pcie_cfg pc;
    platform_pcie_cfg(c, n, &pc);
    pc.bandwidth = host_bw;
    bool host = platform_has_host_link(c);
    noc_topo topo;
    mem_route to_host;
    if (host)
        wire_host(p, eng, pool, st, shared_topo, &pc, &to_host, &topo);

    sim_conn_config cc;
    conn_config_default(&cc);
    cc.period = c->gpu.period;
    conn_config_set_latency_cycles(&cc, 1);
    if (p->parts.n && cc.latency < platform_driver_latency_(c))
        cc.latency = platform_driver_latency_(c); /* docs/engine.md */
    p->dma_cmd = conn_new(eng, "DMACmd", &cc, st);
    conn_set_star(p->dma_cmd); /* driver <-> each DMA engine */
    if (host && noc_ctrl_port(p->host_net))
        conn_plug(p->dma_cmd, noc_ctrl_port(p->host_net));
    mgs_time rtt = 2 * (3 * pc.link_latency + 2 * pc.switch_latency) +
                   c->host_latency;
    p->dmas = mgs_xcalloc(n, sizeof *p->dmas);
    for (uint32_t i = 0; i < n; i++) {
        gpu_build *g = p->gpus[i];
        dma_config dc;
        dma_config_default(&dc);
        /* A request never spans two cache lines. */
        dc.chunk = c->gpu.l2.line < MEM_LINE_MAX ? c->gpu.l2.line
                                                 : MEM_LINE_MAX;
        dc.max_inflight = dma_inflight_for(host_bw, rtt, dc.chunk);
        /* assumed: 2 chunks per cycle (128 B/cycle at 1 GHz) stays ahead
        ** of PCIe 6.0 x16 (128 GB/s) */
        dc.chunks_per_cycle = 2;
        /* assumed: as the RDMA engine's (rdma.xbar_ports), 4 crossbar
        ** lanes; on one lane (one message per cycle) a chunk's read
        ** request and its write took 3 cycles per 128 B, about 43 GB/s,
        ** a third of a PCIe 6.0 link (issue 20) */
        dc.device_ports = 4;
        dc.gpu = (int32_t)i;
        dc.device_noalloc = !c->copy_allocates_l2;
        dc.burst = c->copy_burst > dc.chunk ? c->copy_burst / dc.chunk : 1;
        /* Device-side bursts where every L2 bank is a plain write-back
        ** cache over its own DRAM channel (dma.h): no protocol (nc has no
        ** hooks), the GPU's own memory, no host frames. */
        dc.device_bursts = dc.burst > 1 && dc.device_noalloc &&
                           strcmp(c->coherence, "nc") == 0 &&
                           c->gpu.l2.write_policy == CACHE_WRITE_BACK &&
                           c->gpu.l2.line == dc.chunk && !c->host_frames &&
                           (c->type == PLATFORM_DISCRETE ||
                            c->type == PLATFORM_UNIFIED);
        dc.period = c->gpu.period;
        char name[32];
        snprintf(name, sizeof name, "GPU[%u].DMA", i);
        p->dmas[i] = dma_new(platform_gpu_engine_(&p->parts, eng, i), name,
                             &dc, pool, st);
        conn_plug(p->dma_cmd, dma_ctrl(p->dmas[i]));
        sim_port *lane;
        for (uint32_t k = 0; (lane = dma_device_lane(p->dmas[i], k)); k++)
            conn_plug(gpu_build_xbar(g), lane);
        mem_route dev;
        gpu_build_l1_route(g, &dev);
        dma_set_device_route(p->dmas[i], &dev);
        if (!host)
            continue;
        noc_attach(p->host_net, dma_host(p->dmas[i]), topo.gpu[i]);
        dma_set_host_route(p->dmas[i], &to_host);
        if (c->host_frames &&
            host_frames_test_break != HOST_FRAMES_BREAK_UNWIRED) {
            /* Parts homed in host frames leave by the RDMA engine's host
            ** port, beside the DMA engine's (host_frames.h). */
            rdma_engine *r = gpu_build_rdma(g);
            if (!r)
                continue; /* validated: host_frames.h; never here */
            noc_attach(p->host_net, rdma_host(r), topo.gpu[i]);
            rdma_set_host(r, simplemem_port(p->host_mem), st);
        }
    }
    if (host && !shared_topo && noc_route_compute(p->host_net))
        abort();
    p->host_topo = topo;
}

/* ---- demand paging (src/um/) ------------------------------------- */

/* UM.Migrator beside the IOMMU and GPU[g].PMC on each GPU's crossbar and
** control network. Commands and answers travel on UM.CtlLink (their own
** connection, um.h "Deadlock freedom"); pages on the inter-GPU network
** and on the host tree (DMA), whichever exist. */
static void wire_um(platform *p, sim_engine *eng, mem_pool *pool,
                    stat_registry *st)
{
    const platform_config *c = &p->cfg;
    uint32_t n = p->ngpu_models;
    um_config u = c->um;
    u.ngpus = n;
    u.mem_per_gpu = c->gpu.mem_bytes;
    u.page_bytes = c->gpu.mmu.page_bytes;
    u.line = c->gpu.l2.line;
    u.period = c->gpu.period;
    u.max_faults = c->iommu_walkers;
    u.piece_pages = 1;
    if (u.pasi && u.pasi_initial > u.page_bytes)
        u.piece_pages = (uint32_t)(u.pasi_initial / u.page_bytes);
    p->um = um_migrator_new(eng, "UM.Migrator", &u, pool, st, c->um_pages);
    /* assumed: one PCIe traversal of the tree, GPU - switch - root
    ** complex (2 links, 2 switches: 320 ns with the default links). */
    noc_pcie_cfg pc;
    platform_pcie_cfg(c, n, &pc);
    sim_conn_config cc;
    conn_config_default(&cc);
    cc.period = c->gpu.period;
    conn_config_set_latency_cycles(
        &cc, (uint32_t)((2 * pc.link_latency + 2 * pc.switch_latency) /
                        c->gpu.period) + 1);
    p->um_ctl = conn_new(eng, "UM.CtlLink", &cc, st);
    conn_plug(p->um_ctl, um_migrator_ctl_port(p->um));
    p->pmcs = mgs_xcalloc(n, sizeof *p->pmcs);
    sim_port *ctl[NOC_TOPO_MAX], *peer[NOC_TOPO_MAX], *host[NOC_TOPO_MAX];
    bool own_host = p->host_net && p->host_net != p->net;
    for (uint32_t i = 0; i < n; i++) {
        gpu_build *g = p->gpus[i];
        char name[32];
        snprintf(name, sizeof name, "GPU[%u].PMC", i);
        um_pmc *pmc = p->pmcs[i] = um_pmc_new(eng, name, i, &u, pool, st);
        conn_plug(gpu_build_xbar(g), um_pmc_mem_port(pmc));
        conn_plug(gpu_build_ctrl_net(g), um_pmc_maint_port(pmc));
        const gpu_ctrl_ports *l1 = gpu_build_ctrl_ports(g, GPU_CTRL_L1_TOP),
                             *tl = gpu_build_ctrl_ports(g, GPU_CTRL_TLB),
                             *l2 = gpu_build_ctrl_ports(g, GPU_CTRL_L2);
        uint32_t nsas = gpu_build_sa_count(g);
        uint32_t *l1_sa = mgs_xcalloc(l1->n + 1, sizeof *l1_sa);
        for (uint32_t k = 0; k < l1->n; k++)
            l1_sa[k] = gpu_build_l1_sa(g, k);
        mem_route to_l2;
        gpu_build_l1_route(g, &to_l2);
        um_pmc_set_targets(pmc, l1->v, l1_sa, l1->n, nsas, tl->v, tl->n,
                           l2->v, l2->n, &to_l2);
        free(l1_sa);
        for (uint32_t s = 0; s < nsas; s++)
            conn_plug(gpu_build_sa_net(g, s), um_pmc_sa_port(pmc, s));
        ctl[i] = um_pmc_ctl_port(pmc);
        conn_plug(p->um_ctl, ctl[i]);
        peer[i] = p->net ? um_pmc_peer_port(pmc) : NULL;
        if (peer[i])
            noc_attach(p->net, peer[i], p->rdma_topo.gpu[i]);
        host[i] = own_host ? um_pmc_host_port(pmc) : NULL;
        if (host[i])
            noc_attach(p->host_net, host[i], p->host_topo.gpu[i]);
    }
    for (uint32_t i = 0; i < n; i++)
        um_pmc_set_peers(p->pmcs[i], ctl, peer, host, n,
                         um_migrator_ctl_port(p->um));
    um_migrator_set_pmcs(p->um, ctl, n);
    if (own_host && noc_route_compute(p->host_net))
        abort();
}

/* ---- shared IOMMU ------------------------------------------------ */

/* The IOMMU at the host end of the host PCIe tree (the DMA engines' tree,
** or a tree of its own without DMA); every GPU model's L2 TLBs reach it
** through their GPU's endpoint. Faults go to IOMMU.FaultHandler. */
static void wire_iommu(platform *p, sim_engine *eng, mem_pool *pool,
                       stat_registry *st, const mem_pagetable *pt)
{
    const platform_config *c = &p->cfg;
    noc_topo topo;
    /* With page migration the IOMMU gets a tree of its own (um.h,
    ** "Deadlock freedom"). */
    noc_net *net = c->um.migrate ? NULL : p->host_net;
    if (net) {
        /* wire_dma attached host memory at the tree's host endpoint. */
        topo = p->host_topo;
    } else {
        noc_pcie_cfg pc;
        platform_pcie_cfg(c, p->ngpu_models, &pc);
        net = p->iommu_net = noc_net_new(eng, "IOMMUPCIe", st, 16);
        if (noc_build_pcie(net, &pc, &topo))
            abort();          /* validated: version 3..6 */
    }
    mmu_config mc = c->gpu.mmu;
    mc.period = c->gpu.period;
    mc.max_walks = c->iommu_walkers;
    mc.top_buffer = c->iommu_queue;
    p->iommu = mmu_new(eng, "IOMMU", &mc, pool, st, pt);
    noc_attach(net, mmu_top(p->iommu), topo.host);
    sim_port *handler;
    if (c->um.migrate) {
        wire_um(p, eng, pool, st);
        handler = um_migrator_fault_port(p->um);
    } else {
        p->faults = fault_handler_new(eng, "IOMMU.FaultHandler", mc.period,
                                      pool, st);
        handler = fault_handler_port(p->faults);
    }
    sim_conn_config cc;
    conn_config_default(&cc);
    cc.period = mc.period;
    conn_config_set_latency_cycles(&cc, 1);
    p->fault_conn = conn_new(eng, "IOMMU.FaultLink", &cc, st);
    conn_plug(p->fault_conn, mmu_fault_port(p->iommu));
    conn_plug(p->fault_conn, handler);
    mmu_set_fault_handler(p->iommu, handler);
    mem_route to_iommu;
    mem_route_single(&to_iommu, mmu_top(p->iommu));
    for (uint32_t i = 0; i < p->ngpu_models; i++) {
        gpu_build *g = p->gpus[i];
        for (uint32_t t = 0; t < gpu_build_get_config(g)->l2_tlbs; t++) {
            tlb *l2t = gpu_build_l2tlb(g, t);
            noc_attach(net, tlb_bottom(l2t), topo.gpu[i]);
            tlb_set_route(l2t, &to_iommu);
        }
    }
    if (noc_route_compute(net))
        abort();
}

/* ---- lifecycle ----------------------------------------------------- */

platform *platform_new(sim_engine *eng, const platform_config *cfg,
                       mem_pool *pool, stat_registry *st,
                       const mem_backing *backing, const mem_pagetable *pt)
{
    platform *p = MGS_NEW(platform);
    p->cfg = *cfg;
    p->global = backing;
    const platform_config *c = &p->cfg;
    p->ngpu_models = c->type == PLATFORM_MONOLITHIC ? 1 : c->ngpus;
    p->gpus = mgs_xcalloc(p->ngpu_models, sizeof *p->gpus);
    p->views = mgs_xcalloc(p->ngpu_models, sizeof *p->views);
    p->backings = mgs_xcalloc(p->ngpu_models, sizeof *p->backings);
    platform_partition_build_(&p->parts, eng, c);
    coh_system sys;
    platform_coh_system(c, &sys);
    if (coh_new(coh_find(c->coherence), &sys, eng, pool, st, &p->coh))
        abort();              /* validated: the protocol exists and accepts */
    for (uint32_t i = 0; i < p->ngpu_models; i++) {
        gpu_build_config g;
        gpu_config_of(c, i, &g);
        g.coh = p->coh;
        p->views[i] = (plat_view){.global = backing, .base = g.phys_base};
        p->backings[i] = (mem_backing){.read = view_read,
                                       .write = view_write,
                                       .ud = &p->views[i]};
        if (p->parts.n)
            g.driver_latency = platform_driver_latency_(c);
        p->gpus[i] = gpu_build_new(platform_gpu_engine_(&p->parts, eng, i), &g,
                                   pool, st, &p->backings[i], pt);
    }
    bool rdma = c->ngpus > 1 && c->type != PLATFORM_MONOLITHIC &&
                c->type != PLATFORM_SHARED;
    noc_topo topo;
    if (c->ngpus > 1 && c->type == PLATFORM_SHARED)
        wire_shared(p, eng, pool, st, backing);
    else if (rdma)
        wire_rdma(p, eng, st, &topo);
    uint64_t host_bw = 0;
    platform_host_link_bw(c, &host_bw);
    bool share_tree = rdma && c->net == PLATFORM_NET_PCIE &&
                      host_bw == noc_pcie_bandwidth(c->pcie_version);
    if (c->with_dma)
        wire_dma(p, eng, pool, st, share_tree ? &topo : NULL);
    if (c->shared_iommu)
        wire_iommu(p, eng, pool, st, pt);
    if (rdma && noc_route_compute(p->net))
        abort();
    return p;
}

void platform_free(platform *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->ngpu_models; i++)
        gpu_build_free(p->gpus[i]);
    coh_free(p->coh);
    for (uint32_t k = 0; k < p->nstack_chans; k++) {
        dram_free(p->stacks[k]);
        if (p->stack_nets[k])
            conn_free(p->stack_nets[k]);
    }
    for (uint32_t i = 0; p->dmas && i < p->ngpu_models; i++)
        dma_free(p->dmas[i]);
    free(p->dmas);
    if (p->dma_cmd)
        conn_free(p->dma_cmd);
    mmu_free(p->iommu);
    fault_handler_free(p->faults);
    um_migrator_free(p->um);
    for (uint32_t i = 0; p->pmcs && i < p->ngpu_models; i++)
        um_pmc_free(p->pmcs[i]);
    free(p->pmcs);
    if (p->um_ctl)
        conn_free(p->um_ctl);
    if (p->fault_conn)
        conn_free(p->fault_conn);
    if (p->iommu_net)
        noc_net_free(p->iommu_net);
    if (p->host_mem)
        simplemem_free(p->host_mem);
    if (p->host_net != p->net)
        noc_net_free(p->host_net);
    noc_net_free(p->net);
    free(p->stacks);
    free(p->stack_tops);
    free(p->stack_nets);
    free(p->gpus);
    free(p->views);
    free(p->backings);
    free(p);
}

const platform_config *platform_get_config(const platform *p)
{
    return &p->cfg;
}

uint32_t platform_num_gpus(const platform *p) { return p->ngpu_models; }

uint64_t platform_wave_slots(const platform *p)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < p->ngpu_models; i++) {
        const gpu_build_config *c = gpu_build_get_config(p->gpus[i]);
        uint64_t end = ((uint64_t)c->gpu + 1) * c->num_cus *
                       gpu_build_wave_slots_per_cu(c);
        if (end > n)
            n = end;
    }
    return n;
}

gpu_build *platform_gpu(platform *p, uint32_t i)
{
    return i < p->ngpu_models ? p->gpus[i] : NULL;
}

uint32_t platform_gpu_of(const platform *p, int gpu)
{
    return p->cfg.type == PLATFORM_MONOLITHIC || gpu < 0 ? 0 : (uint32_t)gpu;
}

noc_net *platform_net_of(platform *p) { return p->net; }
coh *platform_coh(platform *p) { return p->coh; }

uint64_t platform_wf_insts(const platform *p)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < p->ngpu_models; i++)
        n += gpu_build_wf_insts(p->gpus[i]);
    return n;
}

dma_engine *platform_dma(platform *p, uint32_t i)
{
    return p->dmas && i < p->ngpu_models ? p->dmas[i] : NULL;
}

void platform_plug_dma_driver(platform *p, sim_port *driver_port)
{
    if (p->dma_cmd)
        conn_plug(p->dma_cmd, driver_port);
}

struct um_migrator *platform_um(platform *p) { return p->um; }

noc_net *platform_host_net(platform *p) { return p->host_net; }

sim_port *platform_pcie_ctrl(platform *p)
{
    return p->host_net ? noc_ctrl_port(p->host_net) : NULL;
}
