/*
** GCN3 code-object loader: AMDGPU ELF (code object v3/v4/v5, gfx803) read
** with libelf, kernel metadata read from the NT_AMDGPU_METADATA msgpack note
** with msgpack-c, kernel descriptors (the 64-byte <name>.kd symbols) decoded
** from .rodata. Accepts plain ELF images and clang offload bundles
** ("__CLANG_OFFLOAD_BUNDLE__", as `hipcc --genco` writes and as hipcc embeds
** in host programs); from a bundle it takes the gfx803 entry.
**
** Errors (one line via mgs_error_set, naming the file): missing file
** MGS_ENOENT, truncated or corrupt MGS_EFORMAT, another architecture
** MGS_EARCH (the message names the architecture found).
**
** Ownership: the code object owns its kernels, their argument tables and a
** private copy of the loaded image; pointers stay valid until
** gcn_codeobj_free.
*/
#ifndef MGS_GCN3_CODEOBJ_H
#define MGS_GCN3_CODEOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gcn_arg_kind {
    GCN_ARG_BY_VALUE,
    GCN_ARG_GLOBAL_BUFFER,
    GCN_ARG_DYNAMIC_SHARED_POINTER,
    GCN_ARG_HIDDEN_GLOBAL_OFFSET_X,
    GCN_ARG_HIDDEN_GLOBAL_OFFSET_Y,
    GCN_ARG_HIDDEN_GLOBAL_OFFSET_Z,
    GCN_ARG_HIDDEN_NONE,            /* reserved hidden slot: write zeros */
    GCN_ARG_HIDDEN_PRINTF_BUFFER,
    GCN_ARG_HIDDEN_HOSTCALL_BUFFER,
    GCN_ARG_HIDDEN_DEFAULT_QUEUE,
    GCN_ARG_HIDDEN_COMPLETION_ACTION,
    GCN_ARG_HIDDEN_MULTIGRID_SYNC_ARG,
    GCN_ARG_HIDDEN_HEAP_V1,
    GCN_ARG_HIDDEN_OTHER            /* any other hidden_* kind: zeros */
} gcn_arg_kind;

typedef struct gcn_kernel_arg {
    char name[64];             /* ".name" ("" if absent) */
    char type_name[64];        /* ".type_name" ("" if absent) */
    uint32_t offset;           /* bytes into the kernarg segment */
    uint32_t size;             /* bytes */
    gcn_arg_kind kind;         /* from ".value_kind" */
    bool hidden;               /* value_kind starts with "hidden_" */
} gcn_kernel_arg;

typedef struct gcn_kernel {
    char name[128];            /* kernel symbol, without ".kd" */
    const uint8_t *code;       /* first instruction, inside the image copy */
    uint64_t code_vaddr;       /* virtual address of the first instruction */
    size_t code_size;          /* bytes, from the function symbol's size */

    /* Kernel descriptor (AMDGPU code object v3+ .kd layout). */
    uint32_t group_segment_size;   /* static LDS bytes */
    uint32_t private_segment_size; /* scratch bytes per work-item */
    uint32_t kernarg_size;         /* bytes, explicit + hidden */
    uint32_t rsrc1, rsrc2;         /* compute_pgm_rsrc1/2 raw */
    uint16_t code_properties;      /* kernel_code_properties raw */
    uint32_t vgpr_count;           /* allocated VGPRs (from rsrc1 granules) */
    uint32_t sgpr_count;           /* allocated SGPRs (from rsrc1 granules) */

    /* Initial SGPR layout requested (in this order, per the ABI):
    ** user SGPRs first, then system SGPRs. */
    bool sgpr_private_segment_buffer; /* 4 user SGPRs */
    bool sgpr_dispatch_ptr;           /* 2 */
    bool sgpr_queue_ptr;              /* 2 */
    bool sgpr_kernarg_segment_ptr;    /* 2 */
    bool sgpr_dispatch_id;            /* 2 */
    bool sgpr_flat_scratch_init;      /* 2 */
    bool sgpr_private_segment_size;   /* 1 */
    uint32_t user_sgpr_count;         /* from rsrc2.USER_SGPR */
    bool sgpr_workgroup_id_x, sgpr_workgroup_id_y, sgpr_workgroup_id_z;
    bool sgpr_workgroup_info;
    bool sgpr_private_segment_wave_offset; /* rsrc2.SCRATCH_EN / enable_... */
    uint32_t vgpr_workitem_id;        /* 0: v0=x; 1: +v1=y; 2: +v2=z */

    /* Metadata. */
    uint32_t kernarg_align;
    uint32_t wavefront_size;          /* 64 */
    uint32_t max_flat_workgroup_size;
    uint32_t nargs;
    gcn_kernel_arg *args;             /* nargs entries, explicit then hidden */
} gcn_kernel;

typedef struct gcn_codeobj gcn_codeobj;

/* A named symbol in the text section, for disassembly labels. */
typedef struct gcn_symbol {
    const char *name;
    uint64_t vaddr;
    uint64_t size;
} gcn_symbol;

int gcn_codeobj_load_file(const char *path, gcn_codeobj **out);
/* what names the source in error messages (a path, "<embedded>", ...). */
int gcn_codeobj_load_mem(const void *data, size_t size, const char *what,
                         gcn_codeobj **out);
void gcn_codeobj_free(gcn_codeobj *co);

const char *gcn_codeobj_arch(const gcn_codeobj *co);   /* "gfx803" */
size_t gcn_codeobj_num_kernels(const gcn_codeobj *co);
const gcn_kernel *gcn_codeobj_kernel(const gcn_codeobj *co, size_t i);
const gcn_kernel *gcn_codeobj_find(const gcn_codeobj *co, const char *name);

/* The .text section: bytes, virtual address and size. */
const uint8_t *gcn_codeobj_text(const gcn_codeobj *co, uint64_t *vaddr,
                                size_t *size);
/* Function symbols in .text, sorted by address. */
size_t gcn_codeobj_num_symbols(const gcn_codeobj *co);
const gcn_symbol *gcn_codeobj_symbol(const gcn_codeobj *co, size_t i);

#endif
