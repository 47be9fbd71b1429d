/*
** Topology builders (see topo.h). Sources of the defaults:
**   - PCIe x16 per-direction bandwidth: 3.0 16 GB/s (seed 002 Table 5.1
**     "PCIe-v3 16GB/s"), 4.0 32 GB/s (seed 000 Sec. 4.1 "32 GB/s ... the
**     peak unidirectional bandwidth for PCIe 4.0"), 5.0 64 GB/s and 6.0
**     128 GB/s (each generation doubles the transfer rate; assumed:
**     nominal rates, encoding and FLIT overheads folded into the header).
**   - PCIe switch latency 140 ns: MGPUSim's WithSwitchLatency(140) at
**     1 GHz (seed 002 digest Sec. 5); the root complex uses the same
**     (assumed: no better number in the seeds).
**   - PCIe link latency 20 ns: assumed: PHY + retimer-free board trace.
**   - TLP overhead 24 B per packet (4 B framing/sequence, 16 B 4-DW header
**     with 64-bit address, 4 B LCRC) and 256-B max payload: assumed: PCIe
**     spec framing and the most common Max_Payload_Size.
**   - NVLink-like: 16-B header flit per up to 256 B of data (16 data
**     flits), 100 ns latency (assumed: order of NVLink 2 hop latency).
**   - Switch complex: 1 TB/s total L2-to-memory bandwidth (seed 000
**     Sec. 4.1); per-port = total / ports on that side; 2 ns link and
**     10 ns switch latency (assumed: on-package crossbar; the seed models
**     queueing but states no fixed network latency); no packet header
**     (assumed: the seed's bandwidth is data bandwidth).
** Credits: enough to stream 64-B lines at full rate (noc_link_credits_for),
** at least 16.
*/
#include "noc/topo.h"

#include "mem/memmsg.h"
#include "mgsim/errors.h"

static void topo_reset(noc_topo *t)
{
    t->ngpus = t->nmems = t->nswitches = 0;
    t->host = -1;
    for (int i = 0; i < NOC_TOPO_MAX; i++)
        t->gpu[i] = t->mem[i] = -1;
}

static void set_credits(noc_link_cfg *c, mgs_time forward_delay)
{
    uint32_t k = noc_link_credits_for(c, 64, forward_delay);
    c->credits = k < 16 ? 16 : k;
}

uint64_t noc_pcie_bandwidth(int version)
{
    switch (version) {
    case 3: return 16000000000ULL;
    case 4: return 32000000000ULL;
    case 5: return 64000000000ULL;
    case 6: return 128000000000ULL;
    default: return 0;
    }
}

void noc_pcie_cfg_default(noc_pcie_cfg *cfg, int version, uint32_t gpus)
{
    cfg->version = version;
    cfg->bandwidth = 0;
    cfg->gpus = gpus;
    cfg->gpus_per_switch = 2;
    cfg->link_latency = 20 * MGS_PS_PER_NS;
    cfg->switch_latency = 140 * MGS_PS_PER_NS;
    cfg->header_bytes = 24;
    cfg->max_payload = 256;
}

int noc_build_pcie(noc_net *n, const noc_pcie_cfg *cfg, noc_topo *out)
{
    uint64_t bw = cfg->bandwidth ? cfg->bandwidth
                                 : noc_pcie_bandwidth(cfg->version);
    if (!bw)
        return mgs_error_set(MGS_EINVAL, "PCIe version %d: must be 3, 4, 5 "
                             "or 6", cfg->version);
    if (cfg->gpus < 1 || cfg->gpus > NOC_TOPO_MAX)
        return mgs_error_set(MGS_EINVAL, "PCIe tree: gpus = %u, must be in "
                             "[1, %d]", cfg->gpus, NOC_TOPO_MAX);
    if (cfg->gpus_per_switch < 1)
        return mgs_error_set(MGS_EINVAL,
                             "PCIe tree: gpus_per_switch must be >= 1");
    topo_reset(out);
    noc_switch_cfg sw = {.latency = cfg->switch_latency};
    noc_link_cfg link = {.bandwidth = bw, .latency = cfg->link_latency,
                         .header_bytes = cfg->header_bytes,
                         .max_payload = cfg->max_payload};
    set_credits(&link, cfg->switch_latency);
    uint32_t nsw = (cfg->gpus + cfg->gpus_per_switch - 1) /
                   cfg->gpus_per_switch;
    int rc;
    int host = noc_endpoint_add(n, "Host", -1);
    int root = noc_switch_add(n, "RC", -1, &sw);
    if (host < 0 || root < 0)
        return host < 0 ? host : root;
    /* assumed: the root complex reaches host memory at the sum of its
    ** downstream ports, so the host side is not the bottleneck. */
    noc_link_cfg up = link;
    up.bandwidth = bw * nsw;
    set_credits(&up, cfg->switch_latency);
    if ((rc = noc_link(n, host, root, &up)) < 0)
        return rc;
    out->host = host;
    for (uint32_t s = 0; s < nsw; s++) {
        int swid = noc_switch_add(n, "PCIeSwitch", (long)s, &sw);
        if (swid < 0)
            return swid;
        if ((rc = noc_link(n, root, swid, &link)) < 0)
            return rc;
        for (uint32_t k = 0; k < cfg->gpus_per_switch; k++) {
            uint32_t g = s * cfg->gpus_per_switch + k;
            if (g >= cfg->gpus)
                break;
            int gid = noc_endpoint_add(n, "GPU", (long)g);
            if (gid < 0)
                return gid;
            if ((rc = noc_link(n, swid, gid, &link)) < 0)
                return rc;
            out->gpu[g] = gid;
        }
    }
    out->ngpus = cfg->gpus;
    out->nswitches = nsw + 1;
    return noc_route_compute(n);
}

void noc_nvlink_cfg_default(noc_link_cfg *cfg, uint64_t bandwidth)
{
    cfg->bandwidth = bandwidth;
    cfg->latency = 100 * MGS_PS_PER_NS;
    cfg->header_bytes = 16;
    cfg->max_payload = 256;
    set_credits(cfg, 0);
}

int noc_build_all_to_all(noc_net *n, uint32_t gpus, const noc_link_cfg *link,
                         noc_topo *out)
{
    if (gpus < 1 || gpus > NOC_TOPO_MAX)
        return mgs_error_set(MGS_EINVAL, "all-to-all: gpus = %u, must be in "
                             "[1, %d]", gpus, NOC_TOPO_MAX);
    int rc = noc_link_cfg_validate(link);
    if (rc != MGS_OK)
        return rc;
    topo_reset(out);
    for (uint32_t g = 0; g < gpus; g++)
        if ((out->gpu[g] = noc_endpoint_add(n, "GPU", (long)g)) < 0)
            return out->gpu[g];
    for (uint32_t a = 0; a < gpus; a++)
        for (uint32_t b = a + 1; b < gpus; b++)
            if ((rc = noc_link(n, out->gpu[a], out->gpu[b], link)) < 0)
                return rc;
    out->ngpus = gpus;
    return noc_route_compute(n);
}

void noc_xbar_cfg_default(noc_xbar_cfg *cfg, uint32_t gpus, uint32_t mems)
{
    cfg->gpus = gpus;
    cfg->mems = mems;
    cfg->gpu_ports = 1;
    cfg->mem_ports = 1;
    cfg->total_bandwidth = 1000000000000ULL; /* seed 000: 1 TB/s */
    cfg->link_latency = 2 * MGS_PS_PER_NS;
    cfg->switch_latency = 10 * MGS_PS_PER_NS;
    cfg->header_bytes = 0;
    cfg->max_payload = 64;
}

int noc_build_switch_complex(noc_net *n, const noc_xbar_cfg *cfg,
                             noc_topo *out)
{
    if (cfg->gpus < 1 || cfg->gpus > NOC_TOPO_MAX || cfg->mems < 1 ||
        cfg->mems > NOC_TOPO_MAX)
        return mgs_error_set(MGS_EINVAL, "switch complex: gpus = %u, mems = "
                             "%u; each must be in [1, %d]", cfg->gpus,
                             cfg->mems, NOC_TOPO_MAX);
    if (cfg->gpu_ports < 1 || cfg->gpu_ports > 256 || cfg->mem_ports < 1 ||
        cfg->mem_ports > 256)
        return mgs_error_set(MGS_EINVAL, "switch complex: gpu_ports = %u, "
                             "mem_ports = %u; each must be in [1, 256]",
                             cfg->gpu_ports, cfg->mem_ports);
    const uint64_t gside = (uint64_t)cfg->gpus * cfg->gpu_ports;
    const uint64_t mside = (uint64_t)cfg->mems * cfg->mem_ports;
    if (cfg->total_bandwidth < gside || cfg->total_bandwidth < mside)
        return mgs_error_set(MGS_EINVAL, "switch complex: total bandwidth "
                             "too small for its ports");
    topo_reset(out);
    noc_switch_cfg sw = {.latency = cfg->switch_latency};
    int x = noc_switch_add(n, "SwitchComplex", -1, &sw);
    if (x < 0)
        return x;
    noc_link_cfg gl = {.latency = cfg->link_latency,
                       .header_bytes = cfg->header_bytes,
                       .max_payload = cfg->max_payload};
    noc_link_cfg ml = gl;
    gl.bandwidth = cfg->total_bandwidth / gside;
    ml.bandwidth = cfg->total_bandwidth / mside;
    set_credits(&gl, cfg->switch_latency);
    set_credits(&ml, cfg->switch_latency);
    /* Endpoint names use flat indices: GPU[g * gpu_ports + k]. */
    int rc;
    for (uint32_t g = 0; g < cfg->gpus; g++)
        for (uint32_t k = 0; k < cfg->gpu_ports; k++) {
            int id = noc_endpoint_add(n, "GPU",
                                      (long)(g * cfg->gpu_ports + k));
            if (id < 0)
                return id;
            if (k == 0)
                out->gpu[g] = id;
            if ((rc = noc_link(n, id, x, &gl)) < 0)
                return rc;
        }
    for (uint32_t m = 0; m < cfg->mems; m++)
        for (uint32_t k = 0; k < cfg->mem_ports; k++) {
            int id = noc_endpoint_add(n, "Mem",
                                      (long)(m * cfg->mem_ports + k));
            if (id < 0)
                return id;
            if (k == 0)
                out->mem[m] = id;
            if ((rc = noc_link(n, id, x, &ml)) < 0)
                return rc;
        }
    out->ngpus = cfg->gpus;
    out->nmems = cfg->mems;
    out->nswitches = 1;
    return noc_route_compute(n);
}

uint32_t noc_class_mem_rsp(const sim_msg *m, void *ud)
{
    (void)ud;
    switch (m->type) {
    case MEM_READ_RSP:
    case MEM_WRITE_RSP:
    case MEM_ATOMIC_RSP:
    case MEM_CTRL_RSP:
    case MEM_XLATE_RSP:
    case MEM_INV_ACK:
        return 1;
    default:
        return 0;
    }
}

uint32_t noc_class_mem_coh(const sim_msg *m, void *ud)
{
    if (m->type == MEM_INV_LINE)
        return NOC_CLASS_INV;
    return noc_class_mem_rsp(m, ud) ? NOC_CLASS_RSP : NOC_CLASS_REQ;
}

void noc_pcie_vcmap_default(noc_pcie_vcmap *m, uint32_t nvc)
{
    m->nvc = nvc < 1 ? 1 : nvc > 8 ? 8 : nvc;
    for (uint32_t tc = 0; tc < NOC_PCIE_MAX_TC; tc++)
        m->vc[tc] = (uint8_t)(tc % m->nvc);          /* seed 002 Eq. 4.2 */
}

static const mem_msg *as_mem(const sim_msg *m)
{
    return m->type >= MEM_READ && m->type < MEM_MSG_TYPE_COUNT
               ? (const mem_msg *)m : NULL;
}

static uint32_t mem_parts(const sim_msg *m)
{
    const mem_msg *mm = as_mem(m);
    return mm && mm->parts > 1 ? mm->parts : 1;
}

static mgs_time mem_last_ready(const sim_msg *m)
{
    const mem_msg *mm = as_mem(m);
    return mm ? mm->burst_last : 0;
}

static void mem_arrived(sim_msg *m, mgs_time first, mgs_time last)
{
    if (as_mem(m)) {
        ((mem_msg *)m)->burst_first = first;
        ((mem_msg *)m)->burst_last = last;
    }
}

const noc_burst_ops noc_mem_bursts = {mem_parts, mem_last_ready, mem_arrived};

uint32_t noc_class_pcie_tc(const sim_msg *m, void *ud)
{
    const noc_pcie_vcmap *map = ud;
    if (m->type < MEM_READ || m->type >= MEM_MSG_TYPE_COUNT)
        return 0;
    const mem_msg *mm = (const mem_msg *)m;
    if (!(mm->flags & MEM_F_TC) || mm->tc >= NOC_PCIE_MAX_TC)
        return 0;
    return map->vc[mm->tc];
}

void noc_pcie_vcmap_apply(const sim_msg *m, void *ud)
{
    noc_pcie_vcmap *map = ud;
    if (m->type != NOC_VCMAP_SET)
        return;
    const noc_vcmap_msg *v = (const noc_vcmap_msg *)m;
    for (uint32_t tc = 0; tc < NOC_PCIE_MAX_TC; tc++)
        map->vc[tc] = v->map.vc[tc] < map->nvc ? v->map.vc[tc]
                                                : (uint8_t)(map->nvc - 1);
}
