/*
** Functional GCN3 executor: runs one kernel dispatch work-group by
** work-group, with the wavefronts of a work-group round-robin.
**
** Program: a kernel's code range (or the whole .text that holds it and the
** functions it calls) decoded once (gcn_emu_program) into an array indexed
** by pc / 4, so the run loop never decodes. pc is the byte offset into that
** range; messages show code-object addresses (code_vaddr + pc), as
** llvm-objdump and `mgsim disasm` print them. Slots that hold
** the second dword or literal of an instruction, and slots the decoder
** rejected, carry fmt GCN_FMT_INVALID: reaching one stops the dispatch with
** MGS_EUNSUPPORTED naming the PC, the raw words and the disassembly.
**
** Work-group execution (gcn_emu_run_workgroup): create the waves with the
** initial state the kernel descriptor asks for (LLVM AMDGPUUsage, "Initial
** Kernel Execution State"; see docs/runtime.md), then run each wave until it
** reaches s_barrier or s_endpgm, in wave order. When every wave that has not
** ended waits at the barrier, all are released. A wave that ended no longer
** takes part in barriers (as on hardware), so this cannot deadlock.
**
** Scratch (private segment): every wave of the work-group gets
** 64 * private_size bytes at launch->scratch_va + wave * that. The private
** segment buffer descriptor (user SGPRs) is a swizzled buffer resource
** (element size 4, index stride 64, ADD_TID_ENABLE) based at scratch_va, and
** the private-segment wave offset SGPR is the wave's byte offset, so MUBUF
** scratch accesses land in the wave's block. FLAT accesses in the private
** aperture use the same swizzled layout (exec_mem.c), based at
** launch->scratch_va + (FLAT_SCRATCH_HI << 8).
**
** Ownership: the program borrows the kernel (owned by the code object);
** gcn_emu owns wave storage and LDS, reused across work-groups so the run
** loop does not allocate.
*/
#ifndef MGS_GCN3_EMU_H
#define MGS_GCN3_EMU_H

#include "gcn3/codeobj.h"
#include "gcn3/exec.h"
#include "gcn3/inst.h"
#include "gcn3/wave.h"

#include <stddef.h>
#include <stdint.h>

/* Flat apertures (the high 32 bits of a flat address). The runtime writes
** them into the queue (amd_queue_t group/private_segment_aperture_base_hi)
** where compiled code reads them. Device memory never reaches them. */
#define GCN_EMU_APERTURE_GROUP_HI 0x1000u
#define GCN_EMU_APERTURE_PRIVATE_HI 0x2000u

/* Offsets inside amd_queue_t (ROCm amd_hsa_queue.h). */
#define GCN_QUEUE_GROUP_APERTURE_HI 0x40
#define GCN_QUEUE_PRIVATE_APERTURE_HI 0x44
#define GCN_QUEUE_SIZE 256

/* Offsets inside hsa_kernel_dispatch_packet_t. */
enum {
    GCN_PKT_HEADER = 0, GCN_PKT_SETUP = 2, GCN_PKT_WG_SIZE_X = 4,
    GCN_PKT_WG_SIZE_Y = 6, GCN_PKT_WG_SIZE_Z = 8, GCN_PKT_GRID_SIZE_X = 12,
    GCN_PKT_GRID_SIZE_Y = 16, GCN_PKT_GRID_SIZE_Z = 20,
    GCN_PKT_PRIVATE_SEGMENT_SIZE = 24, GCN_PKT_GROUP_SEGMENT_SIZE = 28,
    GCN_PKT_KERNEL_OBJECT = 32, GCN_PKT_KERNARG_ADDRESS = 40,
    GCN_PKT_COMPLETION_SIGNAL = 56, GCN_PKT_SIZE = 64
};

#define GCN_EMU_MAX_WG_SIZE 1024
#define GCN_EMU_MAX_WAVES (GCN_EMU_MAX_WG_SIZE / GCN_WAVE_LANES)

/* An instruction family's entry point (exec.h), chosen per slot at decode
** time so the run loop calls it directly instead of going through gcn_exec. */
typedef int (*gcn_exec_fn)(gcn_wave *w, const gcn_inst *in);

typedef struct gcn_emu_program {
    const gcn_kernel *kernel;   /* borrowed */
    const uint8_t *code;        /* first byte of the decoded range (borrowed) */
    uint64_t code_vaddr;        /* its code-object address */
    size_t code_size;
    uint64_t entry;             /* kernel entry: offset into the range */
    gcn_inst *insts;            /* one per 4-byte slot (owned) */
    gcn_exec_fn *fns;           /* the family entry of each slot (owned) */
    size_t nslots;
} gcn_emu_program;

/* Decodes the kernel's own code. Never fails on bad instructions (they
** fail when reached); MGS_EINVAL for an empty kernel. */
int gcn_emu_program_init(gcn_emu_program *p, const gcn_kernel *k);
/* Decodes a larger range that contains the kernel (the code object's whole
** .text), so that calls to non-inlined functions (s_swappc/s_setpc) land
** on decoded code. MGS_EINVAL if the kernel is not inside the range. */
int gcn_emu_program_init_range(gcn_emu_program *p, const gcn_kernel *k,
                               const uint8_t *code, uint64_t code_vaddr,
                               size_t code_size);
void gcn_emu_program_destroy(gcn_emu_program *p);

/* Per-work-group state shared by its waves (wave.h forward-declares it). */
typedef struct gcn_workgroup {
    uint32_t id[3];
    uint32_t size[3];           /* work-items per dimension (partial at edges) */
    uint32_t nwaves;
} gcn_workgroup;

/* One dispatch, as the runtime sets it up. */
typedef struct gcn_emu_launch {
    const gcn_emu_program *prog;
    uint32_t grid[3];           /* work-items */
    uint32_t block[3];          /* work-group size */
    uint32_t lds_bytes;         /* static + dynamic LDS */
    uint64_t kernarg_va, dispatch_va, queue_va, dispatch_id;
    uint64_t scratch_va;        /* 0 when the kernel uses no scratch */
    uint32_t private_size;      /* scratch bytes per work-item (mult. of 4) */
    /* Where the code object's image is in device memory (0: not placed):
    ** s_getpc sees the code at load_base + its virtual address, so
    ** PC-relative loads reach the image's data (codeobj.h). */
    uint64_t load_base;
    const gcn_mem_ops *mem_ops;
    void *mem;
    /* The host's interrupt handler (NULL: none): called when a wave sends
    ** an interrupt (s_sendmsg MSG_INTERRUPT, data = M0[7:0]), as a device
    ** library's doorbell signal does after a hostcall (runtime/hostcall.h).
    ** Emu mode runs it at once. A non-zero return (an error code, message
    ** set) stops the wave. */
    int (*interrupt)(void *host, uint32_t data);
    void *host;
    /* Instructions one wave may execute before the dispatch is stopped
    ** with MGS_EDEADLOCK (0: GCN_EMU_DEFAULT_WAVE_INST_LIMIT). Work-groups
    ** run one at a time here, so a wave spinning on a flag that another
    ** work-group would set never finishes; this turns the hang into an
    ** error. */
    uint64_t max_wave_insts;
    /* An access past the end of an allocation faults even inside its last
    ** page (sim.strict_bounds), reported per lane the same way in both
    ** modes (gcn_mem_plan_bounds_fault). */
    bool strict_bounds;
    /* Otherwise, where the launch's first such access is recorded for a
    ** warning (gcn_mem_plan_note_past_end; NULL: not looked for). Owned
    ** by the caller, valid until the launch ends. */
    struct gcn_past_end *past_end;
} gcn_emu_launch;

/* 2^30 instructions: far beyond any real wave (a 4096^2 matrix multiply
** wave runs ~16 K), about a minute of emulation. */
#define GCN_EMU_DEFAULT_WAVE_INST_LIMIT (1ull << 30)

typedef struct gcn_emu {
    gcn_emu_launch cfg;         /* configuration (copied) */
    gcn_exec_ctx ctx;           /* what waves see (LDS, memory) */
    gcn_workgroup wg;           /* the work-group in flight */
    gcn_wave waves[GCN_EMU_MAX_WAVES];
    uint32_t *vgpr_store;       /* GCN_EMU_MAX_WAVES * nvgpr * 64 (owned) */
    uint8_t *lds;               /* cfg.lds_bytes (owned) */
    uint64_t inst_limit;        /* per wave (cfg.max_wave_insts resolved) */
    uint64_t wf_insts;          /* wavefront instructions so far */
    uint64_t wavefronts;        /* waves created so far */
} gcn_emu;

int gcn_emu_init(gcn_emu *e, const gcn_emu_launch *cfg);
void gcn_emu_destroy(gcn_emu *e);
/* The id, size (partial at the grid's edges) and wave count of work-group
** wg_id of launch l. */
void gcn_emu_init_workgroup(const gcn_emu_launch *l, const uint32_t wg_id[3],
                            gcn_workgroup *wg);
/* Initial state of wave wi of work-group wg (LLVM AMDGPUUsage "Initial
** Kernel Execution State"): user and system SGPRs, FLAT_SCRATCH, EXEC and
** the work-item id VGPRs. w->vgpr and w->nvgpr (the caller's storage) are
** kept; everything else is reset. w->wg = wg, w->ctx = ctx. The emulator
** and the timing model's CU both use it. */
void gcn_emu_init_wave(const gcn_emu_launch *l, gcn_workgroup *wg,
                       gcn_exec_ctx *ctx, uint32_t wi, gcn_wave *w);
/* The same, with the wave's private (scratch) segment at slot
** scratch_slot of the launch's scratch (slot * private_size * 64 bytes
** from scratch_va) instead of slot wi: the timing model runs many
** work-groups at once and gives every resident wave its own slot. */
void gcn_emu_init_wave_slot(const gcn_emu_launch *l, gcn_workgroup *wg,
                            gcn_exec_ctx *ctx, uint32_t wi,
                            uint32_t scratch_slot, gcn_wave *w);
/* Sets up work-group wg_id (waves and initial state) without running it. */
void gcn_emu_start_workgroup(gcn_emu *e, const uint32_t wg_id[3]);
/* Runs the started work-group to completion: MGS_OK, or MGS_EUNSUPPORTED /
** MGS_EFAULT with a message naming kernel, wave and PC. */
int gcn_emu_finish_workgroup(gcn_emu *e);
/* Start + finish. */
int gcn_emu_run_workgroup(gcn_emu *e, const uint32_t wg_id[3]);

/* Number of work-groups per dimension of a launch. */
static inline uint32_t gcn_emu_num_groups(const gcn_emu_launch *l, int d)
{
    return (l->grid[d] + l->block[d] - 1) / l->block[d];
}

#endif
