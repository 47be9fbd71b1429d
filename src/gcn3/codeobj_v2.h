/*
** Code object v2 pieces of the loader (codeobj_v2.c), used by codeobj.c:
** the ISA and version notes, and the 256-byte amd_kernel_code_t that
** precedes each kernel's machine code. Both work on bytes the caller has
** already bounds-checked; every field is range-checked before use.
**
** A v2 object (EI_OSABI 64 "AMDGPU_HSA", EI_ABIVERSION 0) carries "AMD"
** notes instead of the v3+ "AMDGPU" msgpack note:
**   type 1  NT_AMD_HSA_CODE_OBJECT_VERSION  u32 major, u32 minor (2, 1)
**   type 3  NT_AMD_HSA_ISA_VERSION          u16 vendor_size, u16 arch_size,
**                                           u32 major, minor, stepping,
**                                           "AMD\0" "AMDGPU\0"
**   type 10 NT_AMD_HSA_METADATA             YAML text (metadata_v2.c)
**   type 11 NT_AMD_HSA_ISA_NAME             "amdgcn-amd-amdhsa--gfx803"
** Its e_flags may hold the old convention (0x2: no mach), so the processor
** is taken from the ISA name note, else the ISA version note, else e_flags.
*/
#ifndef MGS_GCN3_CODEOBJ_V2_H
#define MGS_GCN3_CODEOBJ_V2_H

#include <stddef.h>
#include <stdint.h>

#include "gcn3/metadata.h"

#define GCN_NT_AMD_VERSION 1u
#define GCN_NT_AMD_ISA_VERSION 3u
#define GCN_NT_AMD_METADATA 10u
#define GCN_NT_AMD_ISA_NAME 11u
#define GCN_KERNEL_CODE_T_SIZE 256u

/* The notes found (NULL when absent) and the ELF header's e_flags. */
typedef struct gcn_v2_notes {
    const uint8_t *version;  size_t version_size;
    const uint8_t *isa_version; size_t isa_version_size;
    const uint8_t *isa_name; size_t isa_name_size;
    const uint8_t *metadata; size_t metadata_size;
    uint32_t e_flags;
} gcn_v2_notes;

/* Checks that the notes describe a v2 code object for gfx803; the errors
** name the version, the ISA string and the flags found (MGS_EFORMAT for a
** missing or malformed note or another version, MGS_EARCH for another
** processor). */
int gcn_v2_check_notes(const gcn_v2_notes *n, const char *what);

/* Decodes an amd_kernel_code_t (hdr: GCN_KERNEL_CODE_T_SIZE bytes) into
** mk->k: segment sizes, rsrc1/rsrc2, the enable bits of the initial SGPR
** state (mapped onto the v3 kernel_code_properties layout), register
** counts; *entry = kernel_code_entry_byte_offset (the code starts that
** many bytes after hdr). MGS_EFORMAT / MGS_EARCH / MGS_EUNSUPPORTED name
** the field at fault. */
int gcn_v2_decode_kernel_code(const uint8_t *hdr, const char *what,
                              gcn_md_kernel *mk, uint64_t *entry);

/* Decodes rsrc1/rsrc2/code_properties already stored in k into the
** register counts and initial-state flags (codeobj.c; shared by the v3+
** kernel descriptor and the v2 amd_kernel_code_t). */
int gcn_kernel_decode_rsrc(gcn_kernel *k, const char *what);

#endif
