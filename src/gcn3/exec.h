/*
** Instruction semantics of the functional GCN3 model, one family per file:
**   exec_scalar.c  SOP1/SOP2/SOPK/SOPC/SOPP (incl. branches), SMEM
**   exec_valu.c    VOP1/VOP2/VOPC/VOP3A/VOP3B, SDWA, DPP (int, fp32, fp64)
**   exec_ds.c      DS (LDS)
**   exec_mem.c     FLAT and MUBUF (global memory through gcn_mem_ops)
** The same functions serve emu and timing modes: timing decides *when* an
** instruction executes, these decide *what* it does.
**
** Each returns MGS_OK, or MGS_EUNSUPPORTED for an instruction it does not
** implement (the caller reports kernel, PC, raw encoding and disassembly),
** or MGS_EFAULT for a memory access outside any allocation (the memory
** callback has already recorded the address).
** Branch instructions set w->pc themselves and return GCN_EXEC_BRANCHED;
** otherwise the caller advances pc by in->size.
*/
#ifndef MGS_GCN3_EXEC_H
#define MGS_GCN3_EXEC_H

#include "gcn3/inst.h"
#include "gcn3/wave.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GCN_EXEC_BRANCHED 1

/* Global-memory access used by SMEM, FLAT and MUBUF semantics. Addresses
** are device virtual addresses. read/write return MGS_OK or MGS_EFAULT.
** atomic performs op (an atomic gcn_op) at addr of size 4 or 8 bytes with
** operand src (and cmp for compare-swap), returns the old value in *old.
** span (optional, may be NULL) returns the host bytes behind [addr, addr+n)
** when read (write = false) or write would succeed on all of them and they
** are contiguous on the host, else NULL; the caller then uses read/write,
** which report the fault. A wave whose lanes all fall in one span is one
** call instead of one per lane (gathers within a 4 KiB block). */
typedef struct gcn_mem_ops {
    int (*read)(void *mem, uint64_t addr, void *dst, size_t n);
    int (*write)(void *mem, uint64_t addr, const void *src, size_t n);
    int (*atomic)(void *mem, uint64_t addr, unsigned op, unsigned size,
                  uint64_t src, uint64_t cmp, uint64_t *old);
    uint8_t *(*span)(void *mem, uint64_t addr, size_t n, bool write);
    /* Optional: the end of the allocation holding addr (0: none known);
    ** the bounds rule of timing mode (gcn_mem_plan_past_end). */
    uint64_t (*alloc_end)(void *mem, uint64_t addr);
} gcn_mem_ops;

/* s_sendmsg message types (simm16[3:0]) that compute kernels send. */
#define GCN_MSG_INTERRUPT 1

/* What an executing wavefront can reach, pointed to by gcn_wave.ctx. */
typedef struct gcn_exec_ctx {
    const gcn_mem_ops *mem_ops;
    void *mem;                  /* passed to mem_ops */
    uint8_t *lds;               /* this work-group's LDS */
    uint32_t lds_size;          /* bytes */
    const uint8_t *code;        /* kernel's first instruction */
    size_t code_size;
    uint64_t private_base;      /* VA of the dispatch's scratch (FLAT private
                                   aperture: base + FLAT_SCRATCH_HI << 8) */
    uint64_t code_vaddr;        /* address of code[0] as s_getpc sees it */
    int (*interrupt)(void *host, uint32_t data); /* may be NULL (emu.h) */
    void *host;
    struct gcn_past_end *past_end; /* the launch's first access past an
                                      allocation's end, or NULL (emu.h) */
    bool strict_bounds;            /* such an access faults (emu.h) */
} gcn_exec_ctx;

int gcn_exec_scalar(gcn_wave *w, const gcn_inst *in);
int gcn_exec_valu(gcn_wave *w, const gcn_inst *in);
int gcn_exec_ds(gcn_wave *w, const gcn_inst *in);
int gcn_exec_mem(gcn_wave *w, const gcn_inst *in);

/* Dispatches on in->fmt to the family above. */
int gcn_exec(gcn_wave *w, const gcn_inst *in);

/* Register bounds of memory and LDS instructions (the VALU checks its own,
** exec_valu.c): MGS_OK when VGPRs code .. code + n - 1 (operand codes,
** 256 + r) lie inside the wave's allocation (w->nvgpr, from the kernel
** descriptor); else records "<what> v[a:b] outside the N VGPRs allocated
** to the wavefront" and returns MGS_ESIM (the caller's report adds kernel
** and pc). Checked once per instruction, before any register is touched. */
int gcn_vgprs_bad_(const gcn_wave *w, unsigned code, unsigned n,
                   const char *what);
static inline int gcn_vgprs_fit(const gcn_wave *w, unsigned code, unsigned n,
                                const char *what)
{
    if (code >= GCN_OPR_VGPR0 && code - GCN_OPR_VGPR0 + n <= w->nvgpr)
        return 0;
    return gcn_vgprs_bad_(w, code, n, what);
}
/* The same for SGPRs s[code .. code + n - 1] (code < 102) against the
** kernel's allocation (w->nsgpr; 0 = unknown: the 102 addressable). */
int gcn_sgprs_bad_(const gcn_wave *w, unsigned code, unsigned n,
                   const char *what);
static inline int gcn_sgprs_fit(const gcn_wave *w, unsigned code, unsigned n,
                                const char *what)
{
    unsigned lim = w->nsgpr && w->nsgpr < 102 ? w->nsgpr : 102;
    if (code + n <= lim)
        return 0;
    return gcn_sgprs_bad_(w, code, n, what);
}

#endif
