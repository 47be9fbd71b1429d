/*
** Host frames: GPU-usable pages that live in host memory (seed 004 Table
** V(b)'s "system memory", docs/memory-management.md "Host frames").
**
** The frames are the devmem's pool after the last GPU (physical window
** [ngpus * M, (ngpus + 1) * M), M = platform.mem_per_gpu); the bytes are
** in the runtime's physical backing like any frame's. A GPU reaches them
** through its RDMA engine, whose home map answers "ngpus" for the window:
** the engine sends such parts on its `host` port over the host link to
** the platform's host memory ("Host.Memory", rdma_set_host). That memory
** is a simplemem over the DMA engines' host backing (host addresses are
** the simulator's pointers); host_frames_backing puts the window in
** front of it, so the same component (and the same link) serves the
** driver's copies and the spilled pages.
**
** memory.spill_ppm > 0 turns it on (the runtime enables the pool and the
** platform wires the ports); host_frames_check refuses configurations it
** does not support, with one line. libmgsim-hip's zero-copy memory
** (memory.zero_copy = host_link, docs/hip.md) turns it on too, where the
** configuration supports it (host_frames_zero_copy), on one GPU as well.
*/
#ifndef MGS_PLATFORM_HOST_FRAMES_H
#define MGS_PLATFORM_HOST_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "mem/backing.h"

struct mgs_config;

/* Tests only: HOST_FRAMES_BREAK_UNWIRED leaves the RDMA engines without
** host memory (the pages are still placed in host frames): every part
** homed there is answered with a fault, as before host frames existed. */
typedef enum host_frames_break {
    HOST_FRAMES_BREAK_NONE = 0,
    HOST_FRAMES_BREAK_UNWIRED
} host_frames_break;
extern host_frames_break host_frames_test_break;

/* A backing that sends [base, limit) to `frames` and everything else to
** `host`. Both are copied. */
typedef struct host_frames_backing {
    mem_backing host, frames;
    uint64_t base, limit;
} host_frames_backing;

void host_frames_backing_init(host_frames_backing *hb, const mem_backing *host,
                              const mem_backing *frames, uint64_t base,
                              uint64_t limit);
/* The mem_backing over hb (borrowed: hb must outlive it). */
mem_backing host_frames_backing_of(host_frames_backing *hb);

/* Whether the configuration spills pages to host frames. */
bool host_frames_wanted(const struct mgs_config *k);
/* MGS_OK, or MGS_ECONFIG with one line naming memory.spill_ppm and what
** it needs: timing mode, discrete or unified GPUs (num_gpus >= 2) with a
** host link (platform.copy_timing = dma), coherence nc or carve-*,
** memory.management = none, one simulation thread. */
int host_frames_check(const struct mgs_config *k, int num_gpus, bool timing);
/* Whether a program that may use zero-copy memory (mgs_rt_options.
** zero_copy) gets host frames: memory.zero_copy = host_link and the rules
** above, with 1 GPU allowed. type: the platform type (NULL: the
** configuration's). False otherwise (zero-copy memory then lives in GPU
** memory, as with memory.zero_copy = device). */
bool host_frames_zero_copy(const struct mgs_config *k, const char *type,
                           int num_gpus, bool timing);

#endif
