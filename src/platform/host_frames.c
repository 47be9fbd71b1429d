/*
** Host frames: the backing in front of host memory and the configuration
** rules (host_frames.h; docs/memory-management.md "Host frames").
*/
#include "platform/host_frames.h"

#include <string.h>

#include "config/config.h"
#include "mgsim/errors.h"

host_frames_break host_frames_test_break = HOST_FRAMES_BREAK_NONE;

static int hf_read(void *ud, uint64_t paddr, void *dst, size_t n)
{
    const host_frames_backing *hb = ud;
    if (paddr >= hb->base && paddr < hb->limit)
        return hb->frames.read(hb->frames.ud, paddr, dst, n);
    return hb->host.read(hb->host.ud, paddr, dst, n);
}

static int hf_write(void *ud, uint64_t paddr, const void *src, size_t n)
{
    const host_frames_backing *hb = ud;
    if (paddr >= hb->base && paddr < hb->limit)
        return hb->frames.write(hb->frames.ud, paddr, src, n);
    return hb->host.write(hb->host.ud, paddr, src, n);
}

void host_frames_backing_init(host_frames_backing *hb, const mem_backing *host,
                              const mem_backing *frames, uint64_t base,
                              uint64_t limit)
{
    hb->host = *host;
    hb->frames = *frames;
    hb->base = base;
    hb->limit = limit;
}

mem_backing host_frames_backing_of(host_frames_backing *hb)
{
    return (mem_backing){.read = hf_read, .write = hf_write, .ud = hb};
}

bool host_frames_wanted(const mgs_config *k)
{
    return k && k->memory_spill_ppm > 0;
}

int host_frames_check(const mgs_config *k, int num_gpus, bool timing)
{
    if (!host_frames_wanted(k))
        return MGS_OK;
    const char *why = NULL;
    const char *proto = k->coherence_protocol;
    if (!timing)
        why = "sim.mode = timing";
    else if (num_gpus < 2 || (strcmp(k->platform_type, "discrete") &&
                              strcmp(k->platform_type, "unified")))
        why = "platform.type = discrete or unified with 2 or more GPUs "
              "(host frames are reached through the RDMA engines)";
    else if (strcmp(k->platform_copy_timing, "dma"))
        why = "platform.copy_timing = dma (host memory behind the host link)";
    else if (strcmp(proto, "nc") && strncmp(proto, "carve-", 6))
        why = "coherence.protocol = nc or carve-* (the other protocols "
              "track lines at a home GPU)";
    else if (strcmp(k->memory_management, "none"))
        why = "memory.management = none (pages do not migrate out of host "
              "frames)";
    else if (k->sim_threads > 1)
        why = "sim.threads = 1 (host memory's bytes are shared by every GPU)";
    if (!why)
        return MGS_OK;
    return mgs_error_set(MGS_ECONFIG, "memory.spill_ppm = %lld needs %s",
                         (long long)k->memory_spill_ppm, why);
}
