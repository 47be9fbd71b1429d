/*
** GCN3 code-object loader (API and error contract in codeobj.h; what is
** read from where, and the initial register state the fields imply, in
** docs/codeobj.md).
**
** Input is sniffed, not trusted to its file name:
**   "__CLANG_OFFLOAD_BUNDLE__"  -> the gfx803 entry (bundle.c), then ELF
**   ELF, EM_AMDGPU              -> must be 64-bit LE, mach gfx803 (0x2a);
**                                  v2 (OS/ABI 64, ABI version 0): the ISA
**                                  notes decide instead (codeobj_v2.c)
**   ELF, other machine          -> its .hip_fatbin section (a hipcc host
**                                  program) holds a bundle; else MGS_EARCH
** The chosen AMDGPU ELF image is copied (the code object owns it) and read
** with libelf. Before libelf sees a section's bytes, its header is checked
** to lie inside the image, so every later pointer into the image is in
** bounds by construction. Kernels come from the metadata note (metadata.c)
** in metadata order; each one's 64-byte kernel descriptor (<name>.kd) is
** then decoded (layout: LLVM AMDGPUUsage, "Code Object V3 Kernel
** Descriptor"):
**    0 u32 group_segment_fixed_size    4 u32 private_segment_fixed_size
**    8 u32 kernarg_size               16 i64 kernel_code_entry_byte_offset
**   44 u32 compute_pgm_rsrc3          48 u32 compute_pgm_rsrc1
**   52 u32 compute_pgm_rsrc2          56 u16 kernel_code_properties
** The entry point is the descriptor's address plus the entry offset and
** must fall inside an executable section. Without the NT_AMDGPU_METADATA
** note the object is read as v2: "AMD" notes (version, ISA, YAML metadata
** via metadata_v2.c) and each kernel symbol's amd_kernel_code_t
** (codeobj_v2.c); the kernels' code starts after those headers.
*/
#include "gcn3/codeobj.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcn3/bundle.h"
#include "gcn3/codeobj_image.h"
#include "gcn3/codeobj_v2.h"
#include "gcn3/metadata.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif
#define AMDGPU_MACH_MASK 0xffu
#define AMDGPU_MACH_GFX803 0x2au
#define NT_AMDGPU_METADATA 32u
#define STT_AMDGPU_HSA_KERNEL 10   /* v2 kernel symbols (STT_LOOS) */
#define ELFOSABI_AMDGPU_HSA 64
#define KD_SIZE 64u
#define HIP_FATBIN_MAGIC 0x48495046u   /* "FPIH" in memory order */

/* Host programs larger than this are not read for their fat binary. */
#define MAX_INPUT_BYTES ((size_t)1 << 31)

struct gcn_codeobj {
    int version;               /* code object version: 2, 3, 4 or 5 */
    uint8_t *image;            /* owned copy of the AMDGPU ELF image */
    size_t image_size;
    gcn_kernel *kernels;       /* owned, with their args and full names */
    size_t num_kernels;
    gcn_symbol *symbols;       /* owned, names owned; sorted by vaddr */
    size_t num_symbols;
    const uint8_t *text;       /* .text inside image */
    uint64_t text_vaddr;
    size_t text_size;
    gcn_image load;            /* what a loader copies to device memory */
};

/* ---- helpers ----------------------------------------------------------- */

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static const char *amdgpu_mach_name(unsigned mach)
{
    /* EF_AMDGPU_MACH_* values from LLVM's ELF.h (LLVM 15). */
    static const struct { unsigned mach; const char *name; } t[] = {
        {0x20, "gfx600"},  {0x21, "gfx601"},  {0x22, "gfx700"},
        {0x23, "gfx701"},  {0x24, "gfx702"},  {0x25, "gfx703"},
        {0x26, "gfx704"},  {0x28, "gfx801"},  {0x29, "gfx802"},
        {0x2a, "gfx803"},  {0x2b, "gfx810"},  {0x2c, "gfx900"},
        {0x2d, "gfx902"},  {0x2e, "gfx904"},  {0x2f, "gfx906"},
        {0x30, "gfx908"},  {0x31, "gfx909"},  {0x32, "gfx90c"},
        {0x33, "gfx1010"}, {0x34, "gfx1011"}, {0x35, "gfx1012"},
        {0x36, "gfx1030"}, {0x37, "gfx1031"}, {0x38, "gfx1032"},
        {0x39, "gfx1033"}, {0x3a, "gfx602"},  {0x3b, "gfx705"},
        {0x3c, "gfx805"},  {0x3d, "gfx1035"}, {0x3e, "gfx1034"},
        {0x3f, "gfx90a"},  {0x40, "gfx940"},  {0x41, "gfx1100"},
        {0x42, "gfx1013"}, {0x43, "gfx1150"}, {0x44, "gfx1103"},
        {0x45, "gfx1036"}, {0x46, "gfx1101"}, {0x47, "gfx1102"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].mach == mach)
            return t[i].name;
    return NULL;
}

static const char *elf_machine_name(unsigned m, char *buf, size_t n)
{
    switch (m) {
    case EM_X86_64: return "x86-64";
    case EM_386: return "i386";
    case EM_AARCH64: return "aarch64";
    case EM_ARM: return "arm";
    case EM_RISCV: return "riscv";
    case EM_PPC64: return "ppc64";
    case EM_S390: return "s390";
    case 190: return "nvidia-cuda";
    default:
        snprintf(buf, n, "ELF machine %u", m);
        return buf;
    }
}

/* The ELF header's EF_AMDGPU_MACH must say gfx803 (v3+ objects). */
static int mach_check(const uint8_t *data, const char *what)
{
    uint32_t flags = rd32(data + 48);
    unsigned mach = flags & AMDGPU_MACH_MASK;
    if (mach == AMDGPU_MACH_GFX803)
        return MGS_OK;
    unsigned abiv = data[EI_ABIVERSION];
    char version[16] = "v2";
    if (data[EI_OSABI] == ELFOSABI_AMDGPU_HSA && abiv >= 1 && abiv <= 3)
        snprintf(version, sizeof version, "v%u", abiv + 2);
    else if (data[EI_OSABI] != ELFOSABI_AMDGPU_HSA || abiv != 0)
        snprintf(version, sizeof version, "OS/ABI %u.%u", data[EI_OSABI],
                 abiv);
    const char *name = amdgpu_mach_name(mach);
    if (name)
        return mgs_error_set(MGS_EARCH,
                             "%s: code object (%s, e_flags 0x%x) is for %s, "
                             "mgsim runs gfx803 only (recompile with "
                             "--offload-arch=gfx803)", what, version,
                             (unsigned)flags, name);
    return mgs_error_set(MGS_EARCH,
                         "%s: code object (%s, e_flags 0x%x) is for unknown "
                         "AMDGPU mach 0x%x, mgsim runs gfx803 only", what,
                         version, (unsigned)flags, mach);
}

static int read_whole_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        return mgs_error_set(e == ENOENT ? MGS_ENOENT : MGS_EIO,
                             "%s: cannot open code object: %s", path,
                             strerror(e));
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = mgs_xmalloc(cap);
    for (;;) {
        if (len == cap) {
            if (cap >= MAX_INPUT_BYTES) {
                free(buf);
                fclose(f);
                return mgs_error_set(MGS_EFORMAT,
                                     "%s: file is larger than %zu bytes",
                                     path, MAX_INPUT_BYTES);
            }
            cap *= 2;
            buf = mgs_xrealloc(buf, cap);
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {   /* e.g. a directory: fopen succeeds, reading fails */
        free(buf);
        return mgs_error_set(MGS_EIO, "%s: cannot read code object", path);
    }
    *data = buf;
    *size = len;
    return MGS_OK;
}

/* ---- ELF level ----------------------------------------------------------- */

typedef struct elf_view {
    const char *what;
    Elf *elf;
    const uint8_t *image;
    size_t size;
    size_t shstrndx;
} elf_view;

static int elf_fail(const elf_view *v, const char *doing)
{
    return mgs_error_set(MGS_EFORMAT, "%s: corrupt ELF (%s: %s)", v->what,
                         doing, elf_errmsg(-1));
}

/* Locates `len` bytes at virtual address `vaddr` inside an allocated,
** file-backed section; NULL if none holds all of them. */
static const uint8_t *vaddr_bytes(const elf_view *v, uint64_t vaddr,
                                  uint64_t len, bool need_exec)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(v->elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
            !(sh.sh_flags & SHF_ALLOC))
            continue;
        if (need_exec && !(sh.sh_flags & SHF_EXECINSTR))
            continue;
        if (vaddr < sh.sh_addr || vaddr - sh.sh_addr > sh.sh_size ||
            len > sh.sh_size - (vaddr - sh.sh_addr))
            continue;
        return v->image + sh.sh_offset + (vaddr - sh.sh_addr);
    }
    return NULL;
}

/* Checks the ELF header and that every section's bytes lie in the image. */
static int elf_check(elf_view *v)
{
    const uint8_t *id = v->image;
    if (v->size < EI_NIDENT || memcmp(id, ELFMAG, SELFMAG) != 0)
        return mgs_error_set(MGS_EFORMAT, "%s: not an ELF file", v->what);
    if (v->size < sizeof(Elf64_Ehdr))
        return mgs_error_set(MGS_EFORMAT, "%s: truncated ELF header",
                             v->what);
    if (id[EI_CLASS] != ELFCLASS64 || id[EI_DATA] != ELFDATA2LSB)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: AMDGPU code objects are 64-bit "
                             "little-endian ELF", v->what);
    GElf_Ehdr eh;
    if (!gelf_getehdr(v->elf, &eh))
        return elf_fail(v, "header");
    /* libelf quietly shows no sections when the table lies past the end
    ** of the image; a truncated file must say so instead. */
    size_t shnum;
    if (elf_getshdrnum(v->elf, &shnum) != 0)
        return elf_fail(v, "section count");
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || shnum == 0 ||
        eh.e_shoff > v->size ||
        shnum > (v->size - eh.e_shoff) / sizeof(Elf64_Shdr))
        return mgs_error_set(MGS_EFORMAT,
                             "%s: ELF section header table (%zu entries at "
                             "offset %llu) lies outside the file (truncated?)",
                             v->what, shnum ? shnum : (size_t)eh.e_shnum,
                             (unsigned long long)eh.e_shoff);
    if (elf_getshdrstrndx(v->elf, &v->shstrndx) != 0)
        return elf_fail(v, "section names");
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(v->elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            return elf_fail(v, "section header");
        if (sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL)
            continue;
        if (sh.sh_offset > v->size || sh.sh_size > v->size - sh.sh_offset)
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: ELF section %zu lies past the end of "
                                 "the file (truncated?)",
                                 v->what, elf_ndxscn(scn));
        if (sh.sh_flags & SHF_ALLOC && sh.sh_addr + sh.sh_size < sh.sh_addr)
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: section %zu address range wraps",
                                 v->what, elf_ndxscn(scn));
    }
    return MGS_OK;
}

static Elf_Scn *find_section(const elf_view *v, const char *name,
                             GElf_Shdr *out)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(v->elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        const char *n = elf_strptr(v->elf, v->shstrndx, sh.sh_name);
        if (n && strcmp(n, name) == 0) {
            *out = sh;
            return scn;
        }
    }
    return NULL;
}

/* Finds the first note of `owner` (NUL included in its namesz) with type
** `type` in any SHT_NOTE section, parsing note headers by hand (all sizes
** checked). Returns 1 and the descriptor if found, 0 if not, or an error. */
static int note_find(const elf_view *v, const char *owner, uint32_t type,
                     const uint8_t **desc, size_t *desc_size)
{
    size_t owner_size = strlen(owner) + 1;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(v->elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        const uint8_t *p = v->image + sh.sh_offset;
        size_t left = sh.sh_size;
        while (left >= 12) {
            uint32_t namesz = rd32(p), descsz = rd32(p + 4);
            uint32_t t = rd32(p + 8);
            size_t name_pad = ((size_t)namesz + 3) & ~(size_t)3;
            size_t desc_pad = ((size_t)descsz + 3) & ~(size_t)3;
            if (name_pad > left - 12 || desc_pad > left - 12 - name_pad) {
                return mgs_error_set(MGS_EFORMAT,
                                     "%s: corrupt note (sizes %u/%u exceed "
                                     "the note section)",
                                     v->what, namesz, descsz);
            }
            if (t == type && namesz == owner_size &&
                memcmp(p + 12, owner, owner_size) == 0) {
                *desc = p + 12 + name_pad;
                *desc_size = descsz;
                return 1;
            }
            p += 12 + name_pad + desc_pad;
            left -= 12 + name_pad + desc_pad;
        }
    }
    return 0;
}

typedef struct sym_table {
    Elf_Data *data;
    size_t count;
    size_t strndx;
} sym_table;

/* .symtab, or .dynsym when the image is stripped. */
static int symbols_open(const elf_view *v, sym_table *t)
{
    Elf_Scn *best = NULL;
    GElf_Shdr best_sh;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(v->elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_type == SHT_SYMTAB ||
            (sh.sh_type == SHT_DYNSYM && !best)) {
            best = scn;
            best_sh = sh;
        }
    }
    if (!best)
        return mgs_error_set(MGS_EFORMAT, "%s: no symbol table", v->what);
    if (best_sh.sh_entsize != sizeof(Elf64_Sym))
        return mgs_error_set(MGS_EFORMAT, "%s: bad symbol entry size %llu",
                             v->what, (unsigned long long)best_sh.sh_entsize);
    t->data = elf_getdata(best, NULL);
    if (!t->data)
        return elf_fail(v, "symbol table");
    t->count = best_sh.sh_size / sizeof(Elf64_Sym);
    t->strndx = best_sh.sh_link;
    return MGS_OK;
}

static const char *symbol_name(const elf_view *v, const sym_table *t,
                               const GElf_Sym *s)
{
    const char *n = elf_strptr(v->elf, t->strndx, s->st_name);
    return n ? n : "";
}

static bool symbol_find(const elf_view *v, const sym_table *t,
                        const char *name, int type, GElf_Sym *out)
{
    for (size_t i = 1; i < t->count; i++) {
        GElf_Sym s;
        if (!gelf_getsym(t->data, (int)i, &s))
            continue;
        if (GELF_ST_TYPE(s.st_info) == type &&
            strcmp(symbol_name(v, t, &s), name) == 0) {
            *out = s;
            return true;
        }
    }
    return false;
}

/* ---- kernels ------------------------------------------------------------- */

int gcn_kernel_decode_rsrc(gcn_kernel *k, const char *what)
{
    /* rsrc1: GRANULATED_WORKITEM_VGPR_COUNT [5:0] in 4-register granules,
    ** GRANULATED_WAVEFRONT_SGPR_COUNT [9:6] in 8-register granules (gfx8). */
    k->vgpr_count = ((k->rsrc1 & 0x3f) + 1) * 4;
    k->sgpr_count = (((k->rsrc1 >> 6) & 0xf) + 1) * 8;
    /* rsrc2 */
    k->sgpr_private_segment_wave_offset = k->rsrc2 & 1;
    k->user_sgpr_count = (k->rsrc2 >> 1) & 0x1f;
    k->sgpr_workgroup_id_x = (k->rsrc2 >> 7) & 1;
    k->sgpr_workgroup_id_y = (k->rsrc2 >> 8) & 1;
    k->sgpr_workgroup_id_z = (k->rsrc2 >> 9) & 1;
    k->sgpr_workgroup_info = (k->rsrc2 >> 10) & 1;
    k->vgpr_workitem_id = (k->rsrc2 >> 11) & 3;
    /* kernel_code_properties */
    uint16_t p = k->code_properties;
    k->sgpr_private_segment_buffer = p & 1;
    k->sgpr_dispatch_ptr = (p >> 1) & 1;
    k->sgpr_queue_ptr = (p >> 2) & 1;
    k->sgpr_kernarg_segment_ptr = (p >> 3) & 1;
    k->sgpr_dispatch_id = (p >> 4) & 1;
    k->sgpr_flat_scratch_init = (p >> 5) & 1;
    k->sgpr_private_segment_size = (p >> 6) & 1;

    unsigned user = 4 * k->sgpr_private_segment_buffer +
                    2 * (k->sgpr_dispatch_ptr + k->sgpr_queue_ptr +
                         k->sgpr_kernarg_segment_ptr + k->sgpr_dispatch_id +
                         k->sgpr_flat_scratch_init) +
                    k->sgpr_private_segment_size;
    if (user > k->user_sgpr_count)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s: code properties enable %u user "
                             "SGPRs but rsrc2 reserves %u",
                             what, k->full_name, user, k->user_sgpr_count);
    if (k->vgpr_workitem_id == 3)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s: undefined work-item id VGPR "
                             "setting 3", what, k->full_name);

    return MGS_OK;
}

/* Points k at its code: `size` bytes at `code`, which must lie in an
** executable section; size 0 (no sized symbol): up to the end of .text. */
static int kernel_code_range(const elf_view *v, gcn_kernel *k, uint64_t code,
                             uint64_t size)
{
    GElf_Shdr sh;
    if (!size)
        size = find_section(v, ".text", &sh) && code >= sh.sh_addr &&
                       code - sh.sh_addr < sh.sh_size
                   ? sh.sh_addr + sh.sh_size - code
                   : 4;
    k->code_vaddr = code;
    k->code_size = size;
    k->code = vaddr_bytes(v, code, size, true);
    if (!k->code)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s: code entry 0x%llx (size %zu) is "
                             "outside the executable sections",
                             v->what, k->full_name, (unsigned long long)code,
                             k->code_size);
    return MGS_OK;
}

static int decode_descriptor(const elf_view *v, const sym_table *st,
                             gcn_md_kernel *mk)
{
    gcn_kernel *k = &mk->k;
    GElf_Sym kd_sym;
    if (!symbol_find(v, st, mk->kd_symbol, STT_OBJECT, &kd_sym))
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s: descriptor symbol %s not found",
                             v->what, k->full_name, mk->kd_symbol);
    const uint8_t *kd = vaddr_bytes(v, kd_sym.st_value, KD_SIZE, false);
    if (!kd || kd_sym.st_size != KD_SIZE)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s: descriptor %s is not 64 bytes "
                             "of loaded data", v->what, k->full_name,
                             mk->kd_symbol);
    k->group_segment_size = rd32(kd + 0);
    k->private_segment_size = rd32(kd + 4);
    k->kernarg_size = rd32(kd + 8);
    int64_t entry = (int64_t)rd64(kd + 16);
    k->rsrc3 = rd32(kd + 44);
    k->rsrc1 = rd32(kd + 48);
    k->rsrc2 = rd32(kd + 52);
    k->code_properties = (uint16_t)(kd[56] | kd[57] << 8);
    /* A descriptor that leaves kernarg_size 0 (pre-v3 producers) defers to
    ** the metadata, which always states it. */
    if (k->kernarg_size == 0)
        k->kernarg_size = mk->md_kernarg_size;

    int rc = gcn_kernel_decode_rsrc(k, v->what);
    if (rc)
        return rc;

    /* The entry point: descriptor address + signed byte offset. */
    uint64_t code = kd_sym.st_value + (uint64_t)entry;
    GElf_Sym fn;
    bool have_fn = symbol_find(v, st, k->full_name, STT_FUNC, &fn) &&
                   fn.st_value == code;
    return kernel_code_range(v, k, code, have_fn ? fn.st_size : 0);
}

/* Code object v2: the kernel symbol (STT_AMDGPU_HSA_KERNEL) points at a
** 256-byte amd_kernel_code_t; the code starts kernel_code_entry_byte_offset
** bytes after it and runs to the end of the symbol (its size covers both). */
static int decode_kernel_code(const elf_view *v, const sym_table *st,
                              gcn_md_kernel *mk)
{
    gcn_kernel *k = &mk->k;
    GElf_Sym sym;
    if (!symbol_find(v, st, mk->kd_symbol, STT_AMDGPU_HSA_KERNEL, &sym) &&
        !symbol_find(v, st, mk->kd_symbol, STT_FUNC, &sym))
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s: no kernel symbol %s",
                             v->what, k->full_name, mk->kd_symbol);
    const uint8_t *hdr = vaddr_bytes(v, sym.st_value, GCN_KERNEL_CODE_T_SIZE,
                                     true);
    if (!hdr)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: kernel %s: its 256-byte amd_kernel_code_t "
                             "at 0x%llx is not inside the code", v->what,
                             k->full_name, (unsigned long long)sym.st_value);
    uint64_t entry;
    int rc = gcn_v2_decode_kernel_code(hdr, v->what, mk, &entry);
    if (rc)
        return rc;
    return kernel_code_range(v, k, sym.st_value + entry,
                             sym.st_size > entry ? sym.st_size - entry : 0);
}

static int cmp_symbol(const void *a, const void *b)
{
    const gcn_symbol *x = a, *y = b;
    if (x->vaddr != y->vaddr)
        return x->vaddr < y->vaddr ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int load_symbols(gcn_codeobj *co, const elf_view *v,
                        const sym_table *st, const gcn_md_kernel *mks,
                        size_t nmk)
{
    GElf_Shdr text_sh;
    Elf_Scn *text = find_section(v, ".text", &text_sh);
    if (!text || text_sh.sh_type == SHT_NOBITS)
        return mgs_error_set(MGS_EFORMAT, "%s: no .text section", v->what);
    co->text = v->image + text_sh.sh_offset;
    co->text_vaddr = text_sh.sh_addr;
    co->text_size = text_sh.sh_size;
    size_t text_ndx = elf_ndxscn(text);

    co->symbols = MGS_NEW_ARRAY(gcn_symbol, st->count ? st->count : 1);
    for (size_t i = 1; i < st->count; i++) {
        GElf_Sym s;
        if (!gelf_getsym(st->data, (int)i, &s) ||
            GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx != text_ndx)
            continue;
        if (s.st_value < co->text_vaddr ||
            s.st_value - co->text_vaddr >= co->text_size)
            continue;   /* a symbol outside its section is ignored */
        gcn_symbol *g = &co->symbols[co->num_symbols++];
        g->name = mgs_xstrdup(symbol_name(v, st, &s));
        g->vaddr = s.st_value;
        g->size = s.st_size;
    }
    /* v2 kernel symbols point at the amd_kernel_code_t: label the code
    ** itself, as llvm-objdump labels the same code re-wrapped as v4. */
    if (co->version == 2) {
        co->symbols = mgs_xrealloc(co->symbols, (co->num_symbols + nmk + 1) *
                                                    sizeof *co->symbols);
        for (size_t i = 0; i < nmk; i++) {
            const gcn_kernel *k = &mks[i].k;
            if (k->code_vaddr < co->text_vaddr ||
                k->code_vaddr - co->text_vaddr >= co->text_size)
                continue;
            gcn_symbol *g = &co->symbols[co->num_symbols++];
            g->name = mgs_xstrdup(k->full_name);
            g->vaddr = k->code_vaddr;
            g->size = k->code_size;
        }
    }
    qsort(co->symbols, co->num_symbols, sizeof *co->symbols, cmp_symbol);
    return MGS_OK;
}

/* Code object v2: the "AMD" notes say version, ISA and metadata. */
static int load_v2_metadata(const elf_view *v, gcn_md_kernel **mks,
                            size_t *nmk)
{
    gcn_v2_notes n = {.e_flags = rd32(v->image + 48)};
    int rc;
    if ((rc = note_find(v, "AMD", GCN_NT_AMD_VERSION, &n.version,
                        &n.version_size)) < 0 ||
        (rc = note_find(v, "AMD", GCN_NT_AMD_ISA_VERSION, &n.isa_version,
                        &n.isa_version_size)) < 0 ||
        (rc = note_find(v, "AMD", GCN_NT_AMD_ISA_NAME, &n.isa_name,
                        &n.isa_name_size)) < 0 ||
        (rc = note_find(v, "AMD", GCN_NT_AMD_METADATA, &n.metadata,
                        &n.metadata_size)) < 0)
        return rc;
    if ((rc = gcn_v2_check_notes(&n, v->what)))
        return rc;
    return gcn_metadata_v2_parse(n.metadata, n.metadata_size, v->what, mks,
                                 nmk);
}

/* Loads an AMDGPU ELF image (copied) into co. */
static int load_amdgpu_elf(gcn_codeobj *co, const uint8_t *data, size_t size,
                           const char *what)
{
    co->image = mgs_xmalloc(size ? size : 1);
    memcpy(co->image, data, size);
    co->image_size = size;

    elf_version(EV_CURRENT);
    elf_view v = {what, NULL, co->image, size, 0};
    v.elf = elf_memory((char *)co->image, size);
    if (!v.elf)
        return elf_fail(&v, "open");
    gcn_md_kernel *mks = NULL;
    size_t nmk = 0;
    int rc = elf_check(&v);
    if (rc)
        goto out;
    const uint8_t *desc = NULL;
    size_t desc_size = 0;
    sym_table st = {0};
    rc = note_find(&v, "AMDGPU", NT_AMDGPU_METADATA, &desc, &desc_size);
    if (rc < 0)
        goto out;
    if (rc == 1) {   /* v3+: the ELF header's mach was checked (gfx803) */
        unsigned abiv = co->image[EI_ABIVERSION];
        co->version = abiv >= 1 && abiv <= 3 ? (int)abiv + 2 : 4;
        if ((rc = mach_check(co->image, what)) ||
            (rc = gcn_metadata_parse(desc, desc_size, what, &mks, &nmk)))
            goto out;
    } else {
        co->version = 2;
        if ((rc = load_v2_metadata(&v, &mks, &nmk)))
            goto out;
    }
    if ((rc = symbols_open(&v, &st)))
        goto out;
    for (size_t i = 0; i < nmk; i++)
        if ((rc = co->version == 2 ? decode_kernel_code(&v, &st, &mks[i])
                                   : decode_descriptor(&v, &st, &mks[i])))
            goto out;
    if ((rc = load_symbols(co, &v, &st, mks, nmk)) ||
        (rc = gcn_image_read(v.elf, co->image, size, what, &co->load)))
        goto out;
    co->kernels = MGS_NEW_ARRAY(gcn_kernel, nmk ? nmk : 1);
    for (size_t i = 0; i < nmk; i++) {   /* ownership moves to co */
        co->kernels[i] = mks[i].k;
        free(mks[i].kd_symbol);
    }
    co->num_kernels = nmk;
    free(mks);
    mks = NULL;
out:
    gcn_metadata_free_kernels(mks, nmk);
    elf_end(v.elf);
    return rc;
}

/* Checks an ELF's machine; for a host program finds its .hip_fatbin. */
static int classify_elf(const uint8_t *data, size_t size, const char *what,
                        const uint8_t **fatbin, size_t *fatbin_size)
{
    *fatbin = NULL;   /* the caller checked size >= EI_NIDENT + 4 */
    if (data[EI_DATA] != ELFDATA2LSB)
        return mgs_error_set(MGS_EARCH,
                             "%s: big-endian ELF is not an AMDGPU code "
                             "object", what);
    unsigned machine = (unsigned)data[18] | (unsigned)data[19] << 8;
    if (machine == EM_AMDGPU) {
        if (size < sizeof(Elf64_Ehdr) || data[EI_CLASS] != ELFCLASS64)
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: AMDGPU code objects are 64-bit ELF",
                                 what);
        /* v2 (OS/ABI AMDGPU_HSA, ABI version 0) may carry the old e_flags
        ** convention (0x2: no mach); its ISA notes decide (codeobj_v2.c). */
        if (data[EI_OSABI] == ELFOSABI_AMDGPU_HSA && data[EI_ABIVERSION] == 0)
            return MGS_OK;
        return mach_check(data, what);
    }
    /* A host program: its bundle sits in .hip_fatbin. */
    char buf[32];
    const char *mname = elf_machine_name(machine, buf, sizeof buf);
    if (data[EI_CLASS] == ELFCLASS64 && size >= sizeof(Elf64_Ehdr)) {
        elf_version(EV_CURRENT);
        Elf *e = elf_memory((char *)data, size);
        elf_view v = {what, e, data, size, 0};
        if (e && elf_check(&v) == MGS_OK) {
            GElf_Shdr sh;
            if (find_section(&v, ".hip_fatbin", &sh) &&
                sh.sh_type != SHT_NOBITS) {
                *fatbin = data + sh.sh_offset;
                *fatbin_size = sh.sh_size;
            }
        }
        if (e)
            elf_end(e);
        mgs_error_clear();
        if (*fatbin)
            return MGS_OK;
    }
    return mgs_error_set(MGS_EARCH,
                         "%s: %s ELF file is not a GPU code object and has "
                         "no .hip_fatbin section", what, mname);
}

/* ---- public API ---------------------------------------------------------- */

/* Containers nest at most host ELF -> bundle -> AMDGPU ELF; `stage` says
** how far in we are, so corrupt input cannot recurse. */
enum { STAGE_ANY, STAGE_IN_FATBIN, STAGE_IN_BUNDLE };

static int load_any(const uint8_t *data, size_t size, const char *what,
                    int stage, gcn_codeobj **out)
{
    if (size == 0)
        return mgs_error_set(MGS_EFORMAT, "%s: empty file", what);
    if (gcn_bundle_is(data, size)) {
        const uint8_t *elf;
        size_t elf_size;
        int rc = gcn_bundle_find_gfx803(data, size, what, &elf, &elf_size);
        if (rc)
            return rc;
        if (stage == STAGE_IN_BUNDLE || gcn_bundle_is(elf, elf_size))
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: nested offload bundles", what);
        return load_any(elf, elf_size, what, STAGE_IN_BUNDLE, out);
    }
    if (size >= SELFMAG && memcmp(data, ELFMAG, SELFMAG) == 0) {
        if (size < EI_NIDENT + 4)
            return mgs_error_set(MGS_EFORMAT, "%s: truncated ELF header",
                                 what);
        const uint8_t *fatbin;
        size_t fatbin_size;
        int rc = classify_elf(data, size, what, &fatbin, &fatbin_size);
        if (rc)
            return rc;
        if (fatbin) {
            if (stage != STAGE_ANY || !gcn_bundle_is(fatbin, fatbin_size))
                return mgs_error_set(MGS_EFORMAT,
                                     "%s: .hip_fatbin does not hold an "
                                     "offload bundle", what);
            return load_any(fatbin, fatbin_size, what, STAGE_IN_FATBIN,
                            out);
        }
        gcn_codeobj *co = MGS_NEW(gcn_codeobj);
        rc = load_amdgpu_elf(co, data, size, what);
        if (rc) {
            gcn_codeobj_free(co);
            return rc;
        }
        *out = co;
        return MGS_OK;
    }
    return mgs_error_set(MGS_EFORMAT,
                         "%s: not a code object (neither ELF nor offload "
                         "bundle)", what);
}

int gcn_codeobj_load_mem(const void *data, size_t size, const char *what,
                         gcn_codeobj **out)
{
    *out = NULL;
    if (!data && size)
        return mgs_error_set(MGS_EINVAL, "%s: no data", what);
    return load_any(data, size, what, STAGE_ANY, out);
}

int gcn_codeobj_load_file(const char *path, gcn_codeobj **out)
{
    *out = NULL;
    uint8_t *data = NULL;
    size_t size = 0;
    int rc = read_whole_file(path, &data, &size);
    if (rc)
        return rc;
    rc = load_any(data, size, path, STAGE_ANY, out);
    free(data);
    return rc;
}

int gcn_codeobj_load_hip_fatbin(const void *wrapper, const char *what,
                                gcn_codeobj **out)
{
    *out = NULL;
    if (!wrapper)
        return mgs_error_set(MGS_EINVAL, "%s: null fat binary", what);
    const uint8_t *w = wrapper;
    if (rd32(w) != HIP_FATBIN_MAGIC || rd32(w + 4) != 1)
        return mgs_error_set(MGS_EFORMAT,
                             "%s: not a HIP fat binary wrapper (magic "
                             "0x%08x, version %u)", what, rd32(w),
                             rd32(w + 4));
    const uint8_t *bundle;
    memcpy(&bundle, w + 8, sizeof bundle);
    if (!bundle)
        return mgs_error_set(MGS_EFORMAT, "%s: fat binary has no bundle",
                             what);
    size_t size;
    int rc = gcn_bundle_extent(bundle, what, &size);
    if (rc)
        return rc;
    return gcn_codeobj_load_mem(bundle, size, what, out);
}

void gcn_codeobj_free(gcn_codeobj *co)
{
    if (!co)
        return;
    for (size_t i = 0; i < co->num_kernels; i++) {
        free(co->kernels[i].args);
        free((char *)co->kernels[i].full_name);
    }
    free(co->kernels);
    for (size_t i = 0; i < co->num_symbols; i++)
        free((char *)co->symbols[i].name);
    free(co->symbols);
    gcn_image_free(&co->load);
    free(co->image);
    free(co);
}

const char *gcn_codeobj_arch(const gcn_codeobj *co)
{
    (void)co;   /* only gfx803 images load */
    return "gfx803";
}

int gcn_codeobj_version(const gcn_codeobj *co)
{
    return co->version;
}

size_t gcn_codeobj_num_kernels(const gcn_codeobj *co)
{
    return co->num_kernels;
}

const gcn_kernel *gcn_codeobj_kernel(const gcn_codeobj *co, size_t i)
{
    return i < co->num_kernels ? &co->kernels[i] : NULL;
}

const gcn_kernel *gcn_codeobj_find(const gcn_codeobj *co, const char *name)
{
    for (size_t i = 0; i < co->num_kernels; i++)
        if (strcmp(co->kernels[i].full_name, name) == 0)
            return &co->kernels[i];
    return NULL;
}

const uint8_t *gcn_codeobj_text(const gcn_codeobj *co, uint64_t *vaddr,
                                size_t *size)
{
    if (vaddr)
        *vaddr = co->text_vaddr;
    if (size)
        *size = co->text_size;
    return co->text;
}

size_t gcn_codeobj_num_symbols(const gcn_codeobj *co)
{
    return co->num_symbols;
}

const gcn_symbol *gcn_codeobj_symbol(const gcn_codeobj *co, size_t i)
{
    return i < co->num_symbols ? &co->symbols[i] : NULL;
}

uint64_t gcn_codeobj_image_size(const gcn_codeobj *co)
{
    return co->load.size;
}

void gcn_codeobj_image_place(const gcn_codeobj *co, uint64_t base,
                             uint8_t *out)
{
    gcn_image_place(&co->load, base, out);
}

bool gcn_codeobj_global(const gcn_codeobj *co, const char *name,
                        uint64_t *vaddr, uint64_t *size)
{
    const gcn_global *g = gcn_image_global(&co->load, name);
    if (!g)
        return false;
    *vaddr = g->vaddr;
    *size = g->size;
    return true;
}
