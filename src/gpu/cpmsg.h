/*
** Messages between the command processor (CP) and the compute units, and
** between the runtime's driver component and the CP.
**
**   DRIVER --CP_LAUNCH--> CP          a kernel dispatch (launch descriptor)
**   CP --CP_LAUNCH_DONE--> DRIVER     the dispatch completed (caches handled
**                                     as the protocol requires)
**   CP --CU_MAP_WG--> CU              run one work-group on this CU
**   CU --CU_WG_DONE--> CP             that work-group finished; its
**                                     resources are free again
** Cache maintenance (what the launch's acquire and release say: e.g. L1
** invalidate at launch, L2 write-back at completion) is MEM_INVALIDATE /
** MEM_FLUSH from src/mem/memmsg.h on the caches' ctrl ports, answered with
** MEM_CTRL_RSP; the CP counts them.
**
** A launch descriptor is immutable while the dispatch runs and is shared
** read-only by the CP and CUs (it is the content of the dispatch packet in
** device memory plus the pre-decoded program); no component writes it.
*/
#ifndef MGS_GPU_CPMSG_H
#define MGS_GPU_CPMSG_H

#include <stdint.h>

#include "coh/coh.h"
#include "gcn3/emu.h"
#include "sim/port.h"

enum cp_msg_type {
    CP_LAUNCH = 100,
    CP_LAUNCH_DONE,
    CU_MAP_WG,
    CU_WG_DONE
};

typedef struct gpu_launch {
    gcn_emu_launch emu;       /* program, grid, block, LDS, kernarg, ... */
    uint32_t num_groups[3];   /* work-groups per dimension */
    uint64_t total_groups;
    uint32_t waves_per_group;
    uint32_t vgprs_per_wave;  /* allocation granule applied */
    uint32_t sgprs_per_wave;
    uint32_t lds_per_group;   /* bytes */
    uint64_t code_va;         /* device address of the first instruction */
    uint64_t id;              /* dispatch id */
    /* Work-groups [wg_begin, wg_end) of the grid run on this GPU's CP
    ** (unified multi-GPU launches hand each GPU a contiguous chunk);
    ** wg_end == 0 means the whole grid. With wg_list (a Locality API
    ** launch, seed 002 §5.3.2) they index the list instead: this CP runs
    ** work-groups wg_list[wg_begin .. wg_end) (linear ids, x fastest). */
    uint64_t wg_begin, wg_end;
    const uint32_t *wg_list;  /* borrowed, NULL: the grid in order */
    /* Cache maintenance before the first and after the last work-group
    ** (the dispatch packet's acquire and release fences), decided by the
    ** coherence protocol (src/coh/coh.h) and performed by the CP. */
    coh_sync acquire, release;
} gpu_launch;

typedef struct cp_msg {
    sim_msg base;             /* FIRST; base.type is a cp_msg_type */
    const gpu_launch *launch; /* borrowed, valid for the whole dispatch */
    uint32_t wg_id[3];        /* CU_MAP_WG / CU_WG_DONE */
    uint64_t wg_index;        /* linear work-group index */
    uint64_t wf_insts;        /* CU_WG_DONE: instructions the WG executed */
    int status;               /* CU_WG_DONE / CP_LAUNCH_DONE: MGS_OK or the
                                 error (fault, unsupported instruction) */
    /* With an error status: its message. It travels with the answer (the
    ** thread-local error of mgs_error_set belongs to whichever thread ran
    ** the partition, so it cannot carry it). */
    char err[512];
} cp_msg;

#endif
