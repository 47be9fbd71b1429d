/*
** Command processor (CP) of one GPU: takes kernel launches from the
** driver, prepares the caches, hands work-groups to the CUs through its
** dispatcher (gpu/dispatcher.h) and reports completion.
**
** One launch at a time (launches are synchronous in the runtime):
**
**   IDLE --CP_LAUNCH on driver--> ACQUIRE: the cache maintenance of the
**        launch's acquire (gpu_launch.acquire, decided by the coherence
**        protocol, src/coh/coh.h): first the L1s (V, S, I, registered with
**        cp_add_l1) and TLBs (cp_add_tlb) together, then the L2 banks
**        (cp_add_l2), whole or over ranges; one message per target on the
**        ctrl port (counted), each answered with MEM_CTRL_RSP
**   --> DISPATCH: one CU_MAP_WG, then cfg.dispatch_latency (or, for
**        larger groups, one per wavefront) cycles of wait; with a latency
**        of 0 up to cfg.wgs_per_cycle per cycle; linear
**        work-group order (x fastest), to the CU the dispatcher picks;
**        CU_WG_DONE releases the resources in the dispatcher's table.
**        After a work-group fails (status != MGS_OK) nothing new is mapped;
**        the ones in flight drain.
**   --> RELEASE: the maintenance of gpu_launch.release, in the same two
**        steps (e.g. nc on several GPUs: write back and drop every L2 so
**        that memory holds the kernel's results)
**   --> CP_LAUNCH_DONE back to the driver (the driver's own message, with
**        status, wg_index = work-groups completed, wf_insts), then IDLE.
** The CP decides nothing about coherence itself: a launch without work-
** groups (wg_begin == wg_end) is how the runtime asks for maintenance
** alone.
**
** Ports: driver (CP_LAUNCH in / CP_LAUNCH_DONE out), cu (CU_MAP_WG out,
** CU_WG_DONE in), ctrl (cache/TLB control out, MEM_CTRL_RSP in). The CP
** owns the CU_MAP_WG messages (a fixed table, one record per work-group
** that can be resident: no allocation while running) and the control
** requests (from the mem_pool); the driver owns its CP_LAUNCH message.
**
** Statistics (component name): kernels, workgroups, wf_insts,
** invalidations, flushes, kernel_time (ps, summed over kernels),
** dispatch_stalls (cycles with a work-group waiting and no CU with room).
*/
#ifndef MGS_GPU_CP_H
#define MGS_GPU_CP_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu/cpmsg.h"
#include "gpu/cu.h"
#include "mem/memmsg.h"
#include "sim/comp.h"
#include "sim/stats.h"

typedef struct cp_config {
    mgs_time period;          /* clock, ps (1 GHz: seed 002 Table 5.1) */
    uint32_t wgs_per_cycle;   /* work-groups mapped per cycle (assumed 1:
                                 MGPUSim's dispatcher maps one per cycle) */
    uint32_t port_buffer;     /* incoming buffer of each port (assumed 64) */
    /* Cycles the dispatcher waits after mapping a work-group of w
    ** wavefronts before it maps the next: max(dispatch_latency, w), then
    ** one cycle to map (MGPUSim v4.0.0's latency table: 4 cycles for 1-4
    ** wavefronts, one per wavefront above). 0 = no wait: wgs_per_cycle
    ** work-groups every cycle. */
    uint32_t dispatch_latency;
    /* A launch's acquire drops only the TLB entries of pages whose mapping
    ** changed since the GPU's previous launch (cp.launch_tlb_shootdown =
    ** changed); the runtime's timing layer computes the span. false: every
    ** entry, as the coherence protocol asks. */
    bool launch_tlb_changed;
    /* Driver side, read by the runtime's timing layer: each launch uploads
    ** its code to fresh pages (cp.launch_code = every), and a launch's own
    ** buffers are never freed (cp.launch_buffers = keep). */
    bool launch_code_every;
    bool launch_keep;
} cp_config;

void cp_config_default(cp_config *c);
int cp_config_validate(const cp_config *c);

typedef struct cp cp;

/* A CP for ncus CUs configured as cu_cfg (its resource table follows
** them). pool supplies control requests; stats may be NULL. */
cp *cp_new(sim_engine *eng, const char *name, const cp_config *cfg,
           uint32_t ncus, const cu_config *cu_cfg, mem_pool *pool,
           stat_registry *stats);
void cp_free(cp *c);

sim_port *cp_driver(cp *c);
sim_port *cp_cu(cp *c);
sim_port *cp_ctrl(cp *c);

/* Wiring (before simulating). cu_ctrl ports are indexed 0..ncus-1. */
void cp_set_cu_port(cp *c, uint32_t cu_index, sim_port *cu_ctrl);
void cp_add_l1(cp *c, sim_port *ctrl);   /* the launch's l1 operation */
void cp_add_tlb(cp *c, sim_port *ctrl);  /* its tlb operation */
void cp_add_l2(cp *c, sim_port *ctrl);   /* its l2 operation */

/* Progress of the launch in flight (observers only: the live progress
** line): work-groups completed, dispatched to CUs, and in this CP's range;
** 0/0/0 when idle. */
void cp_progress(const cp *c, uint64_t *wgs_done, uint64_t *wgs_started,
                 uint64_t *wgs_total);

/* Launches completed, and whether a launch is in progress. */
uint64_t cp_kernels_done(const cp *c);
bool cp_busy(const cp *c);

#endif
