/*
** The driver's PCIe scheduler (seed 002 §4.3.3.2 TOS and §4.3.4 QoOS;
** docs/pcie-scheduling.md): keeps the remaining-transfer-size list of the
** tasks (one task per GPU), ranks them and computes the TC-to-VC map the
** switches use (noc_pcie_vcmap); the driver sends the map to the host
** tree's control port whenever it changes. Pure bookkeeping: no ports.
**
** Ranking. A task is active while it has bytes left to transfer. Ranks
** are recomputed when a new transfer starts (pcie_tos_add), when a task's
** last byte arrives (it leaves the list) and when QoOS promotes a task:
**   priority_s / qos  fewest remaining bytes first ("small flow first");
**   priority_l        most remaining bytes first;
**   qos               a promoted task above every other.
** Ties: lower GPU index first. Rank r (0 = highest) gets VC N_VC-1-r for
** its responses and N_VC/2-1-r for its requests (clamped at N_VC/2 and 0):
** every response above every request ("responses always get higher
** priority"). Inactive tasks get the lowest VCs (N_VC/2 and 0). N_VC = 1
** maps everything to VC 0.
**
** QoOS. A QoS task's transfer has a deadline (pcie_tos_add). After each
** completed piece (pcie_tos_done) and at the start, the predicted
** completion now + T_trans, T_trans = B_R / BW (Eq. 4.3, B_R its remaining
** bytes), is compared with it; a task predicted to miss is promoted to the
** top until its transfer ends.
*/
#ifndef MGS_RUNTIME_PCIE_TOS_H
#define MGS_RUNTIME_PCIE_TOS_H

#include <stdbool.h>
#include <stdint.h>

#include "noc/topo.h"
#include "sim/time.h"

#define TOS_MAX_TASKS 16

typedef struct pcie_tos {
    int policy;               /* PLATFORM_PCIE_* (platform.h) */
    uint32_t nvc;
    uint32_t ntasks;
    uint64_t bandwidth;       /* bytes/s, for T_trans */
    uint64_t remaining[TOS_MAX_TASKS];
    mgs_time deadline[TOS_MAX_TASKS]; /* 0: no deadline (not QoS) */
    bool promoted[TOS_MAX_TASKS];
    noc_pcie_vcmap map;
    bool dirty;               /* map changed since pcie_tos_take_map */
    uint64_t remaps, promotions;
} pcie_tos;

void pcie_tos_init(pcie_tos *s, int policy, uint32_t nvc, uint32_t ntasks,
                   uint64_t bandwidth);
/* Whether the policy ranks tasks at all (not round robin). */
bool pcie_tos_active(const pcie_tos *s);
/* A new transfer of `bytes` for task t; deadline (ps, absolute) for a QoS
** task under qos, 0 otherwise. */
void pcie_tos_add(pcie_tos *s, uint32_t t, uint64_t bytes, mgs_time deadline,
                  mgs_time now);
/* `bytes` of task t's transfers arrived. */
void pcie_tos_done(pcie_tos *s, uint32_t t, uint64_t bytes, mgs_time now);
/* Copies the map into *out and clears dirty; false if it did not change. */
bool pcie_tos_take_map(pcie_tos *s, noc_pcie_vcmap *out);

#endif
