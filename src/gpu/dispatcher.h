/*
** Work-group dispatcher of the command processor (the ACE role of seed 002
** §2.4.1): decides which CU receives the next work-group.
**
** The dispatcher keeps its OWN resource table per CU (wavefront slots,
** VGPRs and SGPRs per SIMD, LDS per CU; cu.h documents the rules), as
** MGPUSim's dispatcher does: it never asks a CU. It reserves a work-group's
** resources when it maps it and releases them when CU_WG_DONE comes back,
** so its table is always at least as full as the CU's own (the CU releases
** before answering): a mapped work-group always fits on arrival.
**
** Policy: round robin over CUs. The search for the next work-group starts
** at the CU after the one that took the previous work-group and takes the
** first CU where it fits (greedy), so consecutive work-groups spread over
** the CUs as on hardware. Pure data structure: no component, no events,
** deterministic.
*/
#ifndef MGS_GPU_DISPATCHER_H
#define MGS_GPU_DISPATCHER_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu/cu.h"

typedef struct gpu_dispatcher {
    uint32_t ncus;
    cu_res *res;            /* ncus tables (owned) */
    uint32_t *resident;     /* work-groups resident per CU (owned) */
    uint32_t next_cu;       /* round-robin start */
    cu_config cu_cfg;       /* the CUs' configuration (copied) */
} gpu_dispatcher;

void gpu_dispatcher_init(gpu_dispatcher *d, uint32_t ncus,
                         const cu_config *cu_cfg);
void gpu_dispatcher_destroy(gpu_dispatcher *d);

/* Whether a work-group of l can ever run (fits an empty CU). */
bool gpu_dispatcher_can_run(const gpu_dispatcher *d, const gpu_launch *l);

/* Finds a CU for one work-group of l and reserves its resources there:
** true with *cu_out and simd_of_wave filled, or false (nothing changed)
** when no CU has room now. */
bool gpu_dispatcher_place(gpu_dispatcher *d, const gpu_launch *l,
                          uint32_t *cu_out,
                          uint8_t simd_of_wave[GCN_EMU_MAX_WAVES]);

/* Releases what gpu_dispatcher_place reserved on cu_index. */
void gpu_dispatcher_release(gpu_dispatcher *d, uint32_t cu_index,
                            const gpu_launch *l,
                            const uint8_t simd_of_wave[GCN_EMU_MAX_WAVES]);

/* Work-groups resident on all CUs according to the table. */
uint64_t gpu_dispatcher_resident(const gpu_dispatcher *d);

#endif
