/*
** Partitions of a platform for the parallel engine (see
** platform_partition.h for the placement and what is supported).
*/
#include "platform/platform_partition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

int platform_partition_check(const platform_config *c)
{
    if (!c->partition) {
        /* One event queue has nothing to run in parallel: say so rather
        ** than run serially while the user expects threads. */
        if (c->threads > 1)
            return mgs_error_set(MGS_ECONFIG, "sim.threads = %u needs "
                                 "sim.partition = gpu (the partitioned "
                                 "model, docs/engine.md)", c->threads);
        return MGS_OK;
    }
    const char *why = NULL;
    if (c->type != PLATFORM_DISCRETE && c->type != PLATFORM_UNIFIED)
        why = "only discrete and unified platforms are split";
    else if (strcmp(c->coherence, "nc"))
        why = "the protocol's agents share state between GPUs outside "
              "connections; only coherence.protocol = nc is split";
    else if (c->shared_iommu || c->um.migrate)
        why = "the shared IOMMU and demand paging are not split";
    else if (c->with_dma && c->pcie_arbitration != PLATFORM_PCIE_RR)
        why = "priority PCIe arbitration has a control port on the "
              "switches; only pcie.arbitration = rr is split";
    if (why)
        return mgs_error_set(MGS_ECONFIG, "sim.partition = gpu: %s", why);
    return MGS_OK;
}

void platform_partition_build_(platform_parts *pp, sim_engine *root,
                               const platform_config *c)
{
    memset(pp, 0, sizeof *pp);
    if (!c->partition)
        return;
    pp->net = eng_partition_new(root, "Network");
    pp->n = c->ngpus;
    for (uint32_t i = 0; i < pp->n; i++) {
        char name[32];
        snprintf(name, sizeof name, "GPU[%u]", i);
        pp->gpu[i] = eng_partition_new(root, name);
    }
    if (eng_set_threads(root, c->threads))
        mgs_error_clear();      /* validated by keys.def: 1..64 */
}

sim_engine *platform_gpu_engine_(const platform_parts *pp, sim_engine *root,
                                 uint32_t i)
{
    return i < pp->n ? pp->gpu[i] : root;
}

sim_engine *platform_net_engine_(const platform_parts *pp, sim_engine *root)
{
    return pp->n ? pp->net : root;
}

void platform_place_endpoints_(const platform_parts *pp, noc_net *n,
                               const noc_topo *topo, uint32_t ngpus)
{
    for (uint32_t i = 0; i < ngpus && i < pp->n; i++)
        if (noc_place_endpoint(n, topo->gpu[i], pp->gpu[i]))
            abort();            /* before any attach, rr arbitration */
    /* The networks make every post of the network partition (host memory
    ** reaches the GPUs through them). */
    if (pp->n)
        noc_promise_register(n);
}

mgs_time platform_driver_latency_(const platform_config *c)
{
    noc_pcie_cfg pc;
    platform_pcie_cfg(c, c->ngpus, &pc);
    return pc.link_latency;
}
