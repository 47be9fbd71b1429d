/*
** Compute unit (CU) timing model of a GCN3 GPU (R9 Nano), as in seed 002
** §2.4.2 and Figure 5.2: wavefront pools, fetch and issue arbiters, an
** instruction buffer per wave fed from the L1 instruction cache, 4 SIMD
** units, a scalar unit, a branch unit, an LDS unit, a vector memory unit
** with a coalescer, and a scalar memory path to the L1 scalar cache.
** docs/cu.md describes the pipeline, the wave state machine and the
** sources of every parameter.
**
** Timing decides WHEN an instruction executes; the functional semantics of
** src/gcn3 (gcn_exec_scalar / gcn_exec_valu / gcn_exec_ds, and the two-phase
** gcn3/exec_mem_plan.h for vector and scalar memory) decide WHAT it does,
** the same code that emu mode runs. Memory carries real bytes: loads get
** their values from the L1 responses, stores send theirs.
**
** Ports (each plugged into a connection by the GPU builder):
**   ctrl  CP messages (gpu/cpmsg.h). CU_MAP_WG in; the CU answers with the
**         SAME cp_msg, base.type changed to CU_WG_DONE, base.dst set to the
**         MAP's source port, status and wf_insts filled. The sender (the CP)
**         owns the message throughout and frees it after CU_WG_DONE.
**         A MAP that does not fit the CU's free resources stays in the ctrl
**         buffer until it fits (back-pressure), so a dispatcher whose
**         resource table is conservative can never break the CU.
**   vmem  MEM_READ / MEM_WRITE / MEM_ATOMIC with virtual addresses, one
**         64-byte-line piece each, to the L1V (or its address translator).
**   smem  MEM_READ (flags MEM_F_SCALAR) to the L1S.
**   inst  MEM_READ (flags MEM_F_INST), one aligned 64-byte line per fetch,
**         to the L1I; the bytes returned are the ones executed (checked
**         against the pre-decoded program in debug builds).
** Instruction addresses: the wave's pc is a byte offset into the launch's
** program (gcn_emu_program: pc 0 = prog->code[0]); the CU fetches
** code VA = launch->code_va + pc, so code_va must be the device address of
** prog->code[0], aligned to cu.fetch_line (the runtime's page-aligned code
** allocations are).
** Scratch: a wave's private segment is its CU wave slot's
** (scratch_slot_base + slot), so resident work-groups never share scratch;
** the runtime sizes the scratch for every wave slot of the platform.
** Requests come from the mem_pool given to cu_new; the CU frees its
** requests and the responses it receives. Destinations are set with
** cu_set_*_route (a mem_route, copied; mem_route_single for one port).
**
** Resources the dispatcher must track for each CU (it keeps its own table,
** as MGPUSim's dispatcher does; the CU is never asked). A work-group of a
** launch l (gpu/cpmsg.h) needs, for each of its l->waves_per_group waves,
** one wavefront slot on some SIMD plus l->vgprs_per_wave VGPRs and
** l->sgprs_per_wave SGPRs of THAT SIMD's register files, and
** l->lds_per_group bytes of the CU's LDS:
**     per SIMD: cfg.wf_slots_per_simd slots, cfg.vgprs_per_simd VGPRs,
**               cfg.sgprs_per_simd SGPRs;        per CU: cfg.lds_bytes.
** cu_res_* below is a pure helper on a table the caller owns (no component
** is touched): the dispatcher may run it on its copy to decide whether a
** work-group fits; the CU runs the same code on its own table. Resources
** are released just before CU_WG_DONE is sent.
*/
#ifndef MGS_GPU_CU_H
#define MGS_GPU_CU_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu/cpmsg.h"
#include "mem/memmsg.h"
#include "sim/comp.h"
#include "sim/stats.h"

#define CU_MAX_SIMDS 8

typedef struct cu_config {
    mgs_time period;            /* clock, ps (1 GHz: Table 5.1) */
    uint32_t num_simds;         /* 4 (seed 002 §2.4.2) */
    uint32_t simd_lanes;        /* 16 lanes per SIMD (§2.4.2) */
    uint32_t wf_slots_per_simd; /* 10 wavefronts per SIMD (§2.4.2) */
    uint32_t vgprs_per_simd;    /* 256 VGPRs x 64 lanes x 4 B = 64 KB per SIMD
                                   (GCN3 ISA §1; MGPUSim: 16384 per SIMD in
                                   4-byte lane registers = the same 64 KB) */
    uint32_t sgprs_per_simd;    /* 800 (assumed: GCN3 has 800 SGPRs per SIMD;
                                   MGPUSim uses 3200 per CU = the same) */
    uint32_t lds_bytes;         /* 65536 (GCN3: 64 KB per CU) */
    uint32_t inst_buf_bytes;    /* 256 per wave (MGPUSim InstBufByteSize) */
    uint32_t fetch_line;        /* 64 B per fetch request (one L1I line) */
    uint32_t vmem_line;         /* 64 B coalescing granularity (§5.2.7) */
    uint32_t valu_cycles;       /* 4: a wavefront instruction on 16 lanes
                                   (64/16, §2.4.2) */
    uint32_t valu_f64_cycles;   /* 32: 2 DP units per SIMD (§2.4.2) */
    uint32_t salu_cycles;       /* 2 (assumed: 1 decode + 1 execute,
                                   "decoders require 1 cycle", §5.2.3) */
    uint32_t branch_cycles;     /* 4 (assumed: decode + execute + redirect) */
    uint32_t lds_cycles;        /* 64 (assumed: GCN LDS latency of ~64 cycles
                                   measured by microbenchmarks) */
    uint32_t lds_issue_cycles;  /* 4: the LDS unit takes a new instruction
                                   every 4 cycles (assumed: 64 lanes at 16
                                   per cycle) */
    uint32_t vmem_issue_cycles; /* 4: the vector memory unit takes a new
                                   instruction every 4 cycles (assumed: like a
                                   SIMD, 64 addresses at 16 per cycle) */
    uint32_t vmem_reqs_per_cycle; /* 1 line request sent per cycle (assumed:
                                     one L1V port, MGPUSim sends one
                                     transaction per cycle) */
    uint32_t vmem_queue;        /* 4 vmem instructions waiting for the
                                   coalescer before issue stalls (assumed) */
    uint32_t vmem_max_inflight; /* 512 line requests in flight (MGPUSim
                                   InFlightVectorMemAccessLimit) */
    uint32_t smem_max_inflight; /* 64 scalar requests in flight (assumed) */
    uint32_t fetch_max_inflight;/* 4 instruction fetches in flight (assumed) */
    uint32_t mem_inst_max;      /* 80 vector/scalar memory instructions in
                                   flight per CU (assumed: 2 per wave slot;
                                   each holds a plan of ~3 KB) */
    uint32_t ctrl_buffer;       /* CP messages buffered at ctrl (4) */
    bool fence_invalidates_l1;  /* buffer_wbinvl1[_vol] / s_dcache_inv[_vol]
                                   invalidate the wave's L1 (the coherence
                                   protocol's fence_l1; true for nc) */
    uint32_t mem_buffer;        /* responses buffered per memory port (16) */
    bool issue_mgpusim;         /* gpu.issue_model = mgpusim: MGPUSim
                                   v4.0.0's issue pipeline (docs/cu.md,
                                   "Issue models"); false = GCN's */
    int32_t gpu;                /* GPU index stamped on requests (0) */
    uint32_t scratch_slot_base; /* wave slot i of this CU uses scratch slot
                                   scratch_slot_base + i of the launch's
                                   scratch (platform-wide numbering, set by
                                   the builder; 0 for a lone CU) */
} cu_config;

void cu_config_default(cu_config *c);
/* MGS_OK, or MGS_EINVAL naming the field and its rule. */
int cu_config_validate(const cu_config *c);

/* ---- resource table (pure helper, see the header note) ---- */

typedef struct cu_res {
    uint32_t num_simds;
    uint32_t slots_free[CU_MAX_SIMDS];
    uint32_t vgprs_free[CU_MAX_SIMDS];
    uint32_t sgprs_free[CU_MAX_SIMDS];
    uint32_t lds_free;
    uint32_t next_simd;         /* round-robin start of the next placement */
} cu_res;

void cu_res_init(cu_res *r, const cu_config *cfg);
/* Places the waves of one work-group of l: wave i goes to simd_of_wave[i].
** Each wave takes the next SIMD (round robin from r->next_simd) that has a
** free slot and enough registers. Returns false, and changes nothing, if
** the work-group does not fit; true after reserving the resources. */
bool cu_res_reserve(cu_res *r, const gpu_launch *l,
                    uint8_t simd_of_wave[GCN_EMU_MAX_WAVES]);
void cu_res_release(cu_res *r, const gpu_launch *l,
                    const uint8_t simd_of_wave[GCN_EMU_MAX_WAVES]);
/* Whether a work-group of l could ever fit an empty CU of this config. */
bool cu_res_fits_empty(const cu_config *cfg, const gpu_launch *l);

/* ---- the component ---- */

typedef struct cu cu;

/* A CU registered with eng under name (e.g. "GPU[0].SA[3].CU[1]"); pool
** supplies memory messages; stats may be NULL. cfg must validate. */
cu *cu_new(sim_engine *eng, const char *name, const cu_config *cfg,
           mem_pool *pool, stat_registry *stats);
void cu_free(cu *c);

sim_port *cu_ctrl(cu *c);
sim_port *cu_vmem(cu *c);
sim_port *cu_smem(cu *c);
sim_port *cu_inst(cu *c);
void cu_set_vmem_route(cu *c, const mem_route *r);
void cu_set_smem_route(cu *c, const mem_route *r);
void cu_set_inst_route(cu *c, const mem_route *r);

/* Work-groups resident now, and wavefront instructions issued so far. */
uint32_t cu_resident_wgs(const cu *c);
uint64_t cu_wf_insts(const cu *c);

#endif
