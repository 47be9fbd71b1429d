/*
** Code object v2: notes and amd_kernel_code_t (API in codeobj_v2.h).
**
** amd_kernel_code_t (LLVM AMDKernelCodeT.h, AMDGPUUsage "Code Object V2";
** checked against the bytes of clang-15 -mcode-object-version=2 output and
** of MGPUSim's shipped kernels), little-endian:
**     0 u32 amd_kernel_code_version_major (1)   4 u32 ..._minor
**     8 u16 amd_machine_kind (1 = AMDGPU)      10 u16 machine major (8)
**    12 u16 machine minor (0)                  14 u16 machine stepping (3)
**    16 i64 kernel_code_entry_byte_offset (256: the code follows)
**    48 u32 compute_pgm_rsrc1                  52 u32 compute_pgm_rsrc2
**    56 u32 kernel_code_properties             60 u32 workitem_private_segment_byte_size
**    64 u32 workgroup_group_segment_byte_size  72 u64 kernarg_segment_byte_size
**    84 u16 wavefront_sgpr_count               86 u16 workitem_vgpr_count
**   100 u8  kernarg_segment_alignment (log2)  103 u8  wavefront_size (log2)
** kernel_code_properties bits 0-6 enable the same user SGPRs, in the same
** order, as the v3 descriptor's; bits 7-9 (grid work-group counts) have no
** v3 equivalent and LLVM never sets them: rejected. Bit 20
** (is_dynamic_callstack) is the v3 bit 11 (uses dynamic stack).
*/
#include "gcn3/codeobj_v2.h"

#include <stdio.h>
#include <string.h>

#include "mgsim/errors.h"

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* The ISA name note as a printable string (at most 63 characters). */
static void isa_text(const gcn_v2_notes *n, char *buf, size_t size)
{
    size_t len = 0;
    if (n->isa_name)
        for (; len < n->isa_name_size && len < size - 1; len++) {
            uint8_t ch = n->isa_name[len];
            if (ch == '\0')
                break;
            buf[len] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
        }
    buf[len] = '\0';
}

int gcn_v2_check_notes(const gcn_v2_notes *n, const char *what)
{
    char isa[64], desc[160];
    isa_text(n, isa, sizeof isa);
    unsigned major = 0, minor = 0;
    if (n->version && n->version_size >= 8) {
        major = rd32(n->version);
        minor = rd32(n->version + 4);
    }
    snprintf(desc, sizeof desc, "code object v%u.%u, ISA '%s', e_flags 0x%x",
             major, minor, n->isa_name ? isa : "(no ISA name note)",
             (unsigned)n->e_flags);
    if (!n->version || n->version_size < 8)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: neither an NT_AMDGPU_METADATA note (code "
                             "object v3+) nor an NT_AMD_HSA_CODE_OBJECT_VERSION"
                             " note (v2) (%s)", what, desc);
    if (major != 2)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: unsupported %s: mgsim reads code objects "
                             "v2 (YAML metadata) and v3-v5 (msgpack)",
                             what, desc);
    /* The processor: ISA name note, else ISA version note, else e_flags. */
    if (n->isa_name) {
        const char *proc = strrchr(isa, '-');
        proc = proc ? proc + 1 : isa;
        if (strcmp(proc, "gfx803") != 0)
            return mgs_error_set(MGS_EARCH,
                                 "%s: %s is for %s; mgsim runs gfx803 only",
                                 what, desc, proc[0] ? proc : "(empty)");
    } else if (n->isa_version) {
        if (n->isa_version_size < 16)
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: NT_AMD_HSA_ISA_VERSION note of %zu "
                                 "bytes is truncated (%s)", what,
                                 n->isa_version_size, desc);
        uint32_t ma = rd32(n->isa_version + 4), mi = rd32(n->isa_version + 8),
                 st = rd32(n->isa_version + 12);
        if (ma != 8 || mi != 0 || st != 3)
            return mgs_error_set(MGS_EARCH,
                                 "%s: %s: ISA version %u.%u.%u; mgsim runs "
                                 "gfx803 (8.0.3) only", what, desc, ma, mi,
                                 st);
    } else if ((n->e_flags & 0xffu) != 0x2au) {
        return mgs_error_set(MGS_EARCH,
                             "%s: %s: no ISA note and e_flags do not say "
                             "gfx803 (0x2a); mgsim runs gfx803 only", what,
                             desc);
    }
    if (!n->metadata)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: %s has no NT_AMD_HSA_METADATA note (its "
                             "kernels' arguments are unknown)", what, desc);
    return MGS_OK;
}

int gcn_v2_decode_kernel_code(const uint8_t *hdr, const char *what,
                              gcn_md_kernel *mk, uint64_t *entry)
{
    gcn_kernel *k = &mk->k;
    const char *kn = k->full_name;
    uint32_t vmajor = rd32(hdr + 0);
    uint16_t kind = rd16(hdr + 8), ma = rd16(hdr + 10), mi = rd16(hdr + 12),
             st = rd16(hdr + 14);
    if (vmajor != 1)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s: amd_kernel_code_t version %u.%u "
                             "(expected 1.x)", what, kn, vmajor,
                             rd32(hdr + 4));
    if (kind != 1 || ma != 8 || mi != 0 || st != 3)
        return mgs_error_set(MGS_EARCH,
                             "%s: kernel %s: amd_kernel_code_t is for "
                             "machine kind %u version %u.%u.%u; mgsim runs "
                             "gfx803 (1, 8.0.3) only", what, kn, kind, ma,
                             mi, st);
    uint64_t off = rd64(hdr + 16);
    if (off < GCN_KERNEL_CODE_T_SIZE || off > UINT32_MAX || (off & 3))
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s: kernel_code_entry_byte_offset "
                             "%lld is not a dword offset past the 256-byte "
                             "header", what, kn, (long long)off);
    *entry = off;
    uint32_t props = rd32(hdr + 56);
    if (props & (7u << 7))
        return mgs_error_set(MGS_EUNSUPPORTED,
                             "%s: kernel %s: amd_kernel_code_t enables the "
                             "grid work-group count SGPRs (properties 0x%x), "
                             "which mgsim does not set up", what, kn, props);
    uint8_t ka = hdr[100], ws = hdr[103];
    if (ws != 6)
        return mgs_error_set(MGS_EUNSUPPORTED,
                             "%s: kernel %s: wavefront size 2^%u (gfx803 "
                             "runs 64)", what, kn, ws);
    if (ka > 8)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s: kernarg alignment 2^%u", what,
                             kn, ka);
    uint64_t kernarg = rd64(hdr + 72);
    if (kernarg > UINT32_MAX)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s: kernarg segment of %llu bytes",
                             what, kn, (unsigned long long)kernarg);
    k->rsrc1 = rd32(hdr + 48);
    k->rsrc2 = rd32(hdr + 52);
    k->rsrc3 = 0;
    k->private_segment_size = rd32(hdr + 60);
    k->group_segment_size = rd32(hdr + 64);
    /* As for v3: a zero size in the descriptor defers to the metadata. */
    k->kernarg_size = kernarg ? (uint32_t)kernarg : mk->md_kernarg_size;
    if (k->kernarg_size < mk->md_kernarg_size)
        k->kernarg_size = mk->md_kernarg_size;
    if ((1u << ka) > k->kernarg_align)
        k->kernarg_align = 1u << ka;
    k->wavefront_size = 64;
    if (!k->meta_sgpr_count)
        k->meta_sgpr_count = rd16(hdr + 84);
    if (!k->meta_vgpr_count)
        k->meta_vgpr_count = rd16(hdr + 86);
    if (props & (1u << 20))
        k->uses_dynamic_stack = true;
    k->code_properties = (uint16_t)((props & 0x7f) |
                                    (k->uses_dynamic_stack ? 1u << 11 : 0));
    return gcn_kernel_decode_rsrc(k, what);
}
