/*
** The loadable image of a code object (codeobj_image.h): PT_LOAD segments,
** dynamic relocations and object symbols.
**
** Relocation types (LLVM AMDGPUUsage, "Relocation Records"; S = the
** symbol's loaded address B + value, or 0 for an undefined symbol,
** A = addend):
**   R_AMDGPU_NONE        0   nothing
**   R_AMDGPU_ABS32_LO    1   u32  (S + A) & 0xffffffff
**   R_AMDGPU_ABS32_HI    2   u32  (S + A) >> 32
**   R_AMDGPU_ABS64       3   u64  S + A
**   R_AMDGPU_ABS32       6   u32  S + A
**   R_AMDGPU_RELATIVE64 13   u64  B + A
** The PC-relative types are resolved by the linker and never appear in a
** linked object's dynamic relocations; any other type is refused.
*/
#include "gcn3/codeobj_image.h"

#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

enum {
    R_AMDGPU_NONE = 0,
    R_AMDGPU_ABS32_LO = 1,
    R_AMDGPU_ABS32_HI = 2,
    R_AMDGPU_ABS64 = 3,
    R_AMDGPU_ABS32 = 6,
    R_AMDGPU_RELATIVE64 = 13
};

#define UNDEFINED UINT64_MAX        /* gcn_reloc.value: S = 0 */

static uint32_t reloc_width(uint32_t type)
{
    switch (type) {
    case R_AMDGPU_NONE: return 0;
    case R_AMDGPU_ABS32_LO:
    case R_AMDGPU_ABS32_HI:
    case R_AMDGPU_ABS32: return 4;
    case R_AMDGPU_ABS64:
    case R_AMDGPU_RELATIVE64: return 8;
    default: return UINT32_MAX;
    }
}

static int read_segments(Elf *elf, const uint8_t *file, size_t file_size,
                         const char *what, gcn_image *im)
{
    size_t n;
    if (elf_getphdrnum(elf, &n) != 0)
        return mgs_error_set(MGS_EFORMAT, "%s: corrupt ELF program headers",
                             what);
    uint64_t end = 0;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph))
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: corrupt ELF program header %zu", what,
                                 i);
        if (ph.p_type != PT_LOAD)
            continue;
        if (ph.p_filesz > ph.p_memsz || ph.p_offset > file_size ||
            ph.p_filesz > file_size - ph.p_offset)
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: loadable segment %zu lies outside the "
                                 "file (truncated?)", what, i);
        if (ph.p_vaddr > GCN_IMAGE_MAX_BYTES ||
            ph.p_memsz > GCN_IMAGE_MAX_BYTES - ph.p_vaddr)
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: loadable segments span more than %llu "
                                 "MiB", what,
                                 (unsigned long long)(GCN_IMAGE_MAX_BYTES >>
                                                      20));
        if (ph.p_vaddr + ph.p_memsz > end)
            end = ph.p_vaddr + ph.p_memsz;
    }
    if (end == 0)
        return MGS_OK;
    im->size = end;
    im->bytes = mgs_xcalloc(1, end);
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
            memcpy(im->bytes + ph.p_vaddr, file + ph.p_offset, ph.p_filesz);
    }
    return MGS_OK;
}

static int read_relocs(Elf *elf, const char *what, gcn_image *im)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
            !(sh.sh_flags & SHF_ALLOC))
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
        Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
        if (!data || sh.sh_entsize != sizeof(Elf64_Rela))
            return mgs_error_set(MGS_EFORMAT,
                                 "%s: corrupt relocation section %zu", what,
                                 elf_ndxscn(scn));
        size_t count = sh.sh_size / sizeof(Elf64_Rela);
        im->relocs = mgs_xrealloc(im->relocs, (im->nrelocs + count + 1) *
                                                  sizeof *im->relocs);
        for (size_t i = 0; i < count; i++) {
            GElf_Rela r;
            if (!gelf_getrela(data, (int)i, &r))
                return mgs_error_set(MGS_EFORMAT,
                                     "%s: corrupt relocation %zu", what, i);
            uint32_t type = (uint32_t)GELF_R_TYPE(r.r_info);
            uint32_t width = reloc_width(type);
            if (width == UINT32_MAX)
                return mgs_error_set(MGS_EFORMAT,
                                     "%s: relocation type %u at 0x%llx is "
                                     "not supported (mgsim places "
                                     "R_AMDGPU_ABS32/64, _LO/_HI and "
                                     "RELATIVE64)", what, type,
                                     (unsigned long long)r.r_offset);
            if (width == 0)
                continue;
            if (r.r_offset > im->size || width > im->size - r.r_offset)
                return mgs_error_set(MGS_EFORMAT,
                                     "%s: relocation at 0x%llx lies outside "
                                     "the loadable segments", what,
                                     (unsigned long long)r.r_offset);
            uint64_t value = 0;
            size_t symi = (size_t)GELF_R_SYM(r.r_info);
            if (type != R_AMDGPU_RELATIVE64 && symi != 0) {
                GElf_Sym s;
                if (!syms || !gelf_getsym(syms, (int)symi, &s))
                    return mgs_error_set(MGS_EFORMAT,
                                         "%s: relocation at 0x%llx names "
                                         "a missing symbol %zu", what,
                                         (unsigned long long)r.r_offset,
                                         symi);
                /* Undefined: 0. OpenCL objects built without the device
                ** libraries carry GOT entries for functions they never
                ** call (tests/unit/gcn3/data/loader_cl.cl); a use reads
                ** address 0 and faults there. */
                value = s.st_shndx == SHN_UNDEF ? UNDEFINED : s.st_value;
            }
            im->relocs[im->nrelocs++] = (gcn_reloc){
                .offset = r.r_offset, .type = type, .value = value,
                .addend = r.r_addend};
        }
    }
    return MGS_OK;
}

static bool global_known(const gcn_image *im, const char *name)
{
    for (size_t i = 0; i < im->nglobals; i++)
        if (strcmp(im->globals[i].name, name) == 0)
            return true;
    return false;
}

/* Defined object symbols of every symbol table (.symtab and .dynsym hold
** the same globals; the first seen wins). */
static void read_globals(Elf *elf, gcn_image *im)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) ||
            (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
            sh.sh_entsize != sizeof(Elf64_Sym))
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        if (!data)
            continue;
        size_t count = sh.sh_size / sizeof(Elf64_Sym);
        for (size_t i = 1; i < count; i++) {
            GElf_Sym s;
            if (!gelf_getsym(data, (int)i, &s) ||
                GELF_ST_TYPE(s.st_info) != STT_OBJECT ||
                s.st_shndx == SHN_UNDEF || s.st_value > im->size ||
                s.st_size > im->size - s.st_value)
                continue;
            const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
            if (!name || !*name || global_known(im, name))
                continue;
            im->globals = mgs_xrealloc(im->globals, (im->nglobals + 1) *
                                                        sizeof *im->globals);
            im->globals[im->nglobals++] = (gcn_global){
                .name = mgs_xstrdup(name), .vaddr = s.st_value,
                .size = s.st_size};
        }
    }
}

int gcn_image_read(Elf *elf, const uint8_t *file, size_t file_size,
                   const char *what, gcn_image *out)
{
    memset(out, 0, sizeof *out);
    int rc = read_segments(elf, file, file_size, what, out);
    if (rc == MGS_OK)
        rc = read_relocs(elf, what, out);
    if (rc == MGS_OK)
        read_globals(elf, out);
    if (rc)
        gcn_image_free(out);
    return rc;
}

void gcn_image_free(gcn_image *im)
{
    free(im->bytes);
    free(im->relocs);
    for (size_t i = 0; i < im->nglobals; i++)
        free(im->globals[i].name);
    free(im->globals);
    memset(im, 0, sizeof *im);
}

static void put(uint8_t *p, uint64_t v, uint32_t width)
{
    for (uint32_t i = 0; i < width; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void gcn_image_place(const gcn_image *im, uint64_t base, uint8_t *out)
{
    memcpy(out, im->bytes, im->size);
    for (size_t i = 0; i < im->nrelocs; i++) {
        const gcn_reloc *r = &im->relocs[i];
        uint64_t s = r->value == UNDEFINED ? 0 : base + r->value;
        uint64_t v = s + (uint64_t)r->addend;
        uint8_t *p = out + r->offset;
        switch (r->type) {
        case R_AMDGPU_ABS32_LO:
        case R_AMDGPU_ABS32: put(p, v & 0xffffffffu, 4); break;
        case R_AMDGPU_ABS32_HI: put(p, v >> 32, 4); break;
        case R_AMDGPU_ABS64: put(p, v, 8); break;
        case R_AMDGPU_RELATIVE64: put(p, base + (uint64_t)r->addend, 8); break;
        default: break;   /* refused by gcn_image_read */
        }
    }
}

const gcn_global *gcn_image_global(const gcn_image *im, const char *name)
{
    for (size_t i = 0; i < im->nglobals; i++)
        if (strcmp(im->globals[i].name, name) == 0)
            return &im->globals[i];
    return NULL;
}
