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

/* Why the configuration cannot use host frames, or NULL. min_gpus: 2 for
** spilled pages (reached through the RDMA engines of a multi-GPU
** platform), 1 for zero-copy memory (a single GPU gets an RDMA engine for
** the host window, gpu_build.h). */
static const char *unsupported(const mgs_config *k, const char *type,
                               int num_gpus, bool timing, int min_gpus)
{
    const char *proto = k->coherence_protocol;
    if (!timing)
        return "sim.mode = timing";
    if (num_gpus < min_gpus || (strcmp(type, "discrete") &&
                                strcmp(type, "unified")))
        return min_gpus > 1
                   ? "platform.type = discrete or unified with 2 or more "
                     "GPUs (host frames are reached through the RDMA engines)"
                   : "platform.type = discrete or unified";
    if (strcmp(k->platform_copy_timing, "dma"))
        return "platform.copy_timing = dma (host memory behind the host link)";
    if (strcmp(proto, "nc") && strncmp(proto, "carve-", 6))
        return "coherence.protocol = nc or carve-* (the other protocols "
               "track lines at a home GPU)";
    if (strcmp(k->memory_management, "none"))
        return "memory.management = none (pages do not migrate out of host "
               "frames)";
    if (k->sim_threads > 1)
        return "sim.threads = 1 (host memory's bytes are shared by every GPU)";
    if (num_gpus + 1 > 17)
        return "at most 16 GPUs";
    return NULL;
}

int host_frames_check(const mgs_config *k, int num_gpus, bool timing)
{
    if (!host_frames_wanted(k))
        return MGS_OK;
    const char *why = unsupported(k, k->platform_type, num_gpus, timing, 2);
    if (!why)
        return MGS_OK;
    return mgs_error_set(MGS_ECONFIG, "memory.spill_ppm = %lld needs %s",
                         (long long)k->memory_spill_ppm, why);
}

bool host_frames_zero_copy(const mgs_config *k, const char *type,
                           int num_gpus, bool timing)
{
    return k && !strcmp(k->memory_zero_copy, "host_link") &&
           !unsupported(k, type ? type : k->platform_type, num_gpus, timing,
                        1);
}
