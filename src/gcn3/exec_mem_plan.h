/*
** Two-phase semantics of the memory instructions (FLAT, MUBUF, SMEM), the
** one implementation that both execution modes use:
**
**   1. plan      at issue: per-lane (or, for SMEM, per-dword) addresses,
**                access sizes, store data and atomic operands, and the lane
**                masks, read from the registers as they are at issue.
**   2. access    the memory system performs the plan: emu mode calls
**                gcn_mem_plan_access (functional, through gcn_mem_ops;
**                exec_mem.c gcn_exec_mem and exec_scalar.c SMEM);
**                timing mode coalesces the plan into line requests
**                (gpu/coalescer.h) and fills plan->data from the responses.
**   3. complete  when all data is back: load results and atomic return
**                values are written into the destination registers.
**
** Registers may change between 1 and 3 (the wave keeps issuing until an
** s_waitcnt), which is why the plan copies everything it needs.
**
** Layout. An access is (element e, lane l): addr[e][l] and data[e][l]
** (element-major, so element e of all lanes is one VGPR row). Elements are
** the dwords of a multi-dword access (elem_bytes = 4), or one sub-dword
** access (elem_bytes 1 or 2; data holds the bytes zero-extended). SMEM
** plans use lanes as dwords: dword i of an s_load is (0, i). An atomic has
** one element of atomic_size bytes per lane at addr[0][l]; its operand is
** data[0..1][l] (lo, hi), the compare value of cmpswap data[2..3][l], and
** the old value comes back in data[0..1][l].
**
** Apertures (FLAT, emu.h): lanes whose address falls in the group (LDS)
** aperture are performed at plan time against the work-group's LDS (LDS is
** inside the CU; no memory request) and are not in mem_lanes; private
** (scratch) aperture lanes are translated to their swizzled global VAs.
** MUBUF lanes out of the buffer's range are not in mem_lanes; they load 0.
*/
#ifndef MGS_GCN3_EXEC_MEM_PLAN_H
#define MGS_GCN3_EXEC_MEM_PLAN_H

#include "gcn3/exec.h"

#include <stdbool.h>
#include <stdint.h>

#define GCN_MEM_PLAN_ELEMS 4  /* dwords per lane at most (dwordx4) */
#define GCN_MEM_PLAN_SDWORDS 16 /* SMEM dwords at most (dwordx16) */

typedef enum gcn_mem_kind {
    GCN_MEM_NONE = 0, /* no memory access (cache control, s_memtime ...) */
    GCN_MEM_LOAD,
    GCN_MEM_STORE,
    GCN_MEM_ATOMIC
} gcn_mem_kind;

typedef struct gcn_mem_plan {
    uint8_t kind;          /* gcn_mem_kind */
    uint8_t scalar;        /* SMEM: lanes are dwords, dst is an SGPR code */
    uint8_t elem_bytes;    /* bytes per access: 1, 2, 4 (atomics: 4 or 8) */
    uint8_t nelem;         /* elements per lane */
    uint8_t sign;          /* sign-extending sub-dword load */
    uint8_t glc, slc;      /* cache-policy bits of the instruction */
    uint8_t returns;       /* writes registers at completion */
    uint16_t atomic_op;    /* gcn_op of an atomic */
    uint16_t dst;          /* first destination register (operand code) */
    uint64_t mem_lanes;    /* lanes with accesses for the memory system */
    uint64_t ret_lanes;    /* lanes whose destination is written */
    uint64_t addr[GCN_MEM_PLAN_ELEMS][64];
    uint32_t data[GCN_MEM_PLAN_ELEMS][64];
} gcn_mem_plan;

/* Plans a FLAT or MUBUF instruction. MGS_OK; MGS_EUNSUPPORTED for an
** unmodelled form; MGS_EFAULT (message recorded) for an LDS-aperture
** access out of range. */
int gcn_mem_plan_vector(gcn_wave *w, const gcn_inst *in, gcn_mem_plan *p);
/* Plans an SMEM instruction. Ops without a memory access (s_dcache_*,
** s_memtime) give kind GCN_MEM_NONE: run them with gcn_exec_scalar. */
int gcn_mem_plan_scalar(gcn_wave *w, const gcn_inst *in, gcn_mem_plan *p);
/* Either of the above by in->fmt. */
int gcn_mem_plan_inst(gcn_wave *w, const gcn_inst *in, gcn_mem_plan *p);

/* Emu mode: performs the plan's memory accesses in lane order through
** ops (consecutive addresses in one call). MGS_OK or the callback's
** error (MGS_EFAULT). */
int gcn_mem_plan_access(gcn_mem_plan *p, const gcn_mem_ops *ops, void *mem);

/* The bounds rule (docs/runtime.md "one bounds rule"): an access that
** reaches past the end of the allocation its first byte lies in, inside
** that allocation's last (mapped) page. Unmapped addresses are left to the
** memory system; ops without alloc_end never find one. */
typedef struct gcn_past_end {
    uint32_t seen;         /* set (atomically) by the first one found */
    uint32_t bytes;        /* bytes of the lane's access */
    bool write;
    uint64_t addr;         /* the allocation's end: the first byte outside */
    uint64_t pc;           /* the instruction's offset in the kernel code */
    uint32_t wg[3], wave;
} gcn_past_end;

/* Whether a lane of p reaches past its allocation's end; the first such
** lane's access in *out (addr, bytes, write). */
bool gcn_mem_plan_past_end(const gcn_mem_plan *p, const gcn_mem_ops *ops,
                           void *mem, gcn_past_end *out);
/* sim.strict_bounds: MGS_EFAULT with the message of emu mode's memory
** view ("memory fault at address A (read of N bytes)", A the allocation's
** end) if a lane of p reaches past its allocation's end, else MGS_OK. */
int gcn_mem_plan_bounds_fault(const gcn_mem_plan *p, const gcn_mem_ops *ops,
                              void *mem);
/* The warning's record (sim.strict_bounds off): unless note already holds
** one, the first lane of w's plan p past its allocation's end, with w's
** work-group, wave and PC. Safe from several threads (one wins). */
void gcn_mem_plan_note_past_end(const gcn_mem_plan *p, const gcn_wave *w,
                                const gcn_mem_ops *ops, void *mem,
                                gcn_past_end *note);

/* The bounds rule for one instruction, the same in emu and timing mode:
** with strict (sim.strict_bounds), gcn_mem_plan_bounds_fault; otherwise
** the launch's first such access noted in note (NULL: not looked for). */
static inline int gcn_mem_plan_bounds(const gcn_mem_plan *p,
                                      const gcn_wave *w,
                                      const gcn_mem_ops *ops, void *mem,
                                      bool strict, gcn_past_end *note)
{
    if (strict)
        return gcn_mem_plan_bounds_fault(p, ops, mem);
    if (note && !__atomic_load_n(&note->seen, __ATOMIC_RELAXED))
        gcn_mem_plan_note_past_end(p, w, ops, mem, note);
    return 0;
}

/* Writes load results / atomic return values into the registers. */
void gcn_mem_plan_complete(gcn_wave *w, const gcn_mem_plan *p);

/* Emu mode, both phases at once: the plan's accesses through the wave's
** context (w->ctx) then the register writes. MGS_OK or MGS_EFAULT. */
int gcn_mem_plan_run(gcn_wave *w, gcn_mem_plan *p);

#endif
