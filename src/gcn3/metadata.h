/*
** NT_AMDGPU_METADATA note reader (code object v3/v4/v5): the note's
** descriptor is one msgpack map; from "amdhsa.kernels" it takes, per
** kernel, .name, .symbol, .kernarg_segment_size/_align,
** .group_segment_fixed_size, .private_segment_fixed_size, .wavefront_size,
** .sgpr_count, .vgpr_count, .max_flat_workgroup_size, .uses_dynamic_stack
** and .args[] (.name, .type_name, .offset, .size, .value_kind).
**
** The msgpack bytes are walked once by a bounds validator before msgpack-c
** unpacks them, because msgpack-c allocates an array's element storage from
** its declared count before reading the elements: a corrupt count could ask
** for gigabytes. After validation every count is at most the bytes left.
*/
#ifndef MGS_GCN3_METADATA_H
#define MGS_GCN3_METADATA_H

#include <stddef.h>
#include <stdint.h>

#include "gcn3/codeobj.h"

/* Kernels as the metadata describes them, before the kernel descriptor is
** read: metadata fields, name/full_name and args are set (args, full_name
** and kd_symbol are owned by the caller afterwards: free with
** gcn_metadata_free_kernels). */
typedef struct gcn_md_kernel {
    gcn_kernel k;
    char *kd_symbol;       /* ".symbol", e.g. "vecadd.kd" */
    uint32_t md_kernarg_size;
    uint32_t md_group_size;
    uint32_t md_private_size;
} gcn_md_kernel;

/* Validates msgpack bytes: one complete object, nesting at most 32 deep,
** every length and count within the buffer. Returns bytes used or -1. */
long gcn_msgpack_validate(const uint8_t *p, size_t n);

/* Parses the metadata note descriptor. what names the file in errors
** (MGS_EFORMAT for anything malformed, MGS_EUNSUPPORTED for an argument
** kind mgsim cannot pass, e.g. image). */
int gcn_metadata_parse(const uint8_t *desc, size_t n, const char *what,
                       gcn_md_kernel **kernels, size_t *num_kernels);
void gcn_metadata_free_kernels(gcn_md_kernel *kernels, size_t n);

/* Code object v2: parses the YAML of the NT_AMD_HSA_METADATA note
** (metadata_v2.c) into the same structures; argument offsets are computed
** from Size and Align, kd_symbol is the kernel's own symbol (its
** amd_kernel_code_t). Errors as gcn_metadata_parse. */
int gcn_metadata_v2_parse(const uint8_t *text, size_t n, const char *what,
                          gcn_md_kernel **kernels, size_t *num_kernels);

/* Maps a ".value_kind" string; returns false for unknown non-hidden kinds
** (unknown hidden_* kinds map to GCN_ARG_HIDDEN_OTHER). */
bool gcn_metadata_arg_kind(const char *s, size_t len, gcn_arg_kind *kind);

#endif
