/*
** The loadable image of a code object: what a GPU driver copies into
** device memory so that kernels can read their constant tables and
** __device__ / __constant__ variables (docs/codeobj.md, "Data segments").
**
** An AMDGPU code object is a shared object. Its PT_LOAD segments are laid
** out at their virtual addresses from 0; a loader places the whole span at
** a base address B in device memory and applies the dynamic relocations
** (.rela.dyn) for B. Kernels reach their data PC-relatively (s_getpc_b64
** plus a link-time offset), so the code's own address as the kernel sees
** it must be B + its virtual address too (gcn_emu_launch.load_base).
**
** Read once at load (codeobj.c calls gcn_image_read) and checked then:
** every segment inside the file, the span at most GCN_IMAGE_MAX_BYTES,
** every relocation of a supported type and inside the span (one against
** an undefined symbol resolves to 0). Errors are MGS_EFORMAT (a property of the file) naming
** the file and what is wrong.
*/
#ifndef MGS_GCN3_CODEOBJ_IMAGE_H
#define MGS_GCN3_CODEOBJ_IMAGE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GCN_IMAGE_MAX_BYTES ((uint64_t)256 << 20)

typedef struct gcn_reloc {
    uint64_t offset;      /* where, as a virtual address of the image */
    uint32_t type;        /* R_AMDGPU_* */
    uint64_t value;       /* the symbol's virtual address (0: none) */
    int64_t addend;
} gcn_reloc;

typedef struct gcn_global {
    char *name;           /* owned */
    uint64_t vaddr, size;
} gcn_global;

typedef struct gcn_image {
    uint8_t *bytes;       /* owned: [0, size), zeros between segments */
    uint64_t size;        /* 0: the object has no PT_LOAD segment */
    gcn_reloc *relocs;    /* owned */
    size_t nrelocs;
    gcn_global *globals;  /* owned: defined object symbols, by name */
    size_t nglobals;
} gcn_image;

/* Reads elf's segments, dynamic relocations and object symbols (file is
** the ELF's bytes, already checked section by section). */
int gcn_image_read(Elf *elf, const uint8_t *file, size_t file_size,
                   const char *what, gcn_image *out);
void gcn_image_free(gcn_image *im);
/* The image as loaded at base: out receives im->size bytes. */
void gcn_image_place(const gcn_image *im, uint64_t base, uint8_t *out);
const gcn_global *gcn_image_global(const gcn_image *im, const char *name);

#endif
