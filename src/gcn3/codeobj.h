/*
** GCN3 code-object loader: AMDGPU ELF (code object v2-v5, gfx803) read
** with libelf, kernel metadata read from the NT_AMDGPU_METADATA msgpack note
** with msgpack-c, kernel descriptors (the 64-byte <name>.kd symbols) decoded
** from .rodata; for v2, the YAML NT_AMD_HSA_METADATA note (libyaml) and
** the 256-byte amd_kernel_code_t before each kernel's code (codeobj_v2.h),
** mapped onto the same gcn_kernel. Accepts plain ELF images and clang offload bundles
** ("__CLANG_OFFLOAD_BUNDLE__", as `hipcc --genco` writes and as hipcc embeds
** in host programs); from a bundle it takes the gfx803 entry.
**
** Errors (one line via mgs_error_set, naming the file): missing file
** MGS_ENOENT, truncated or corrupt MGS_EFORMAT, another architecture
** MGS_EARCH (the message names the architecture, version and e_flags
** found).
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
    GCN_ARG_HIDDEN_OTHER,           /* any other hidden_* kind: zeros */
    /* Code object v5 hidden arguments (added by the loader work; the
    ** runtime must fill them for v5 kernels, see docs/codeobj.md). */
    GCN_ARG_HIDDEN_BLOCK_COUNT_X,   /* u32: work-groups in x */
    GCN_ARG_HIDDEN_BLOCK_COUNT_Y,
    GCN_ARG_HIDDEN_BLOCK_COUNT_Z,
    GCN_ARG_HIDDEN_GROUP_SIZE_X,    /* u16: work-group size in x */
    GCN_ARG_HIDDEN_GROUP_SIZE_Y,
    GCN_ARG_HIDDEN_GROUP_SIZE_Z,
    GCN_ARG_HIDDEN_REMAINDER_X,     /* u16: size of the partial last group */
    GCN_ARG_HIDDEN_REMAINDER_Y,
    GCN_ARG_HIDDEN_REMAINDER_Z,
    GCN_ARG_HIDDEN_GRID_DIMS,       /* u16: 1..3 */
    GCN_ARG_HIDDEN_DYNAMIC_LDS_SIZE,/* u32: dynamic LDS bytes */
    GCN_ARG_HIDDEN_PRIVATE_BASE,    /* u32: aperture bases */
    GCN_ARG_HIDDEN_SHARED_BASE,
    GCN_ARG_HIDDEN_QUEUE_PTR        /* u64 */
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

    /* Added by the loader work. */
    const char *full_name;        /* whole kernel name; name[] truncates */
    uint32_t rsrc3;               /* compute_pgm_rsrc3 raw (0 on gfx8) */
    uint32_t meta_sgpr_count;     /* ".sgpr_count": SGPRs the code uses */
    uint32_t meta_vgpr_count;     /* ".vgpr_count" */
    bool uses_dynamic_stack;      /* ".uses_dynamic_stack" */
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
/* Loads the gfx803 code object from a HIP fat binary in this process'
** memory: `wrapper` is the pointer hipcc-generated code passes to
** __hipRegisterFatBinary (struct { u32 magic "HIPF" 0x48495046; u32 version
** 1; const void *bundle; void *unused; }). The bundle's size is not passed,
** so it is computed from the bundle's entry table. (A host executable on
** disk is accepted by gcn_codeobj_load_file directly: its .hip_fatbin
** section holds the bundle.) */
int gcn_codeobj_load_hip_fatbin(const void *wrapper, const char *what,
                                gcn_codeobj **out);

const char *gcn_codeobj_arch(const gcn_codeobj *co);   /* "gfx803" */
/* Code object version: 2 (YAML metadata, amd_kernel_code_t), 3, 4, 5. */
int gcn_codeobj_version(const gcn_codeobj *co);
size_t gcn_codeobj_num_kernels(const gcn_codeobj *co);
const gcn_kernel *gcn_codeobj_kernel(const gcn_codeobj *co, size_t i);
const gcn_kernel *gcn_codeobj_find(const gcn_codeobj *co, const char *name);

/* The .text section: bytes, virtual address and size. */
const uint8_t *gcn_codeobj_text(const gcn_codeobj *co, uint64_t *vaddr,
                                size_t *size);
/* The loadable image (codeobj_image.h, docs/codeobj.md "Data segments"):
** the PT_LOAD segments at their virtual addresses from 0, size bytes (0:
** none). image_place writes it as loaded at device address base, dynamic
** relocations applied; a kernel then sees its code at base + its virtual
** address (gcn_emu_launch.load_base). */
uint64_t gcn_codeobj_image_size(const gcn_codeobj *co);
void gcn_codeobj_image_place(const gcn_codeobj *co, uint64_t base,
                             uint8_t *out);
/* A global variable (__device__, __constant__, a constant table): an object
** symbol defined in the image; its virtual address and size. */
bool gcn_codeobj_global(const gcn_codeobj *co, const char *name,
                        uint64_t *vaddr, uint64_t *size);
/* Function symbols in .text, sorted by address. */
size_t gcn_codeobj_num_symbols(const gcn_codeobj *co);
const gcn_symbol *gcn_codeobj_symbol(const gcn_codeobj *co, size_t i);

#endif
