/*
** `mgsim disasm FILE [--kernel NAME]`: disassembles the .text section of a
** gfx803 code object (plain ELF, offload bundle, or hipcc host program) in
** llvm-objdump-15's layout, so the two outputs diff cleanly:
**
**   <blank>
**   FILE:<TAB>file format elf64-amdgpu
**   <blank>
**   Disassembly of section .text:
**   <blank>                              (before every symbol)
**   0000000000001700 <name>:
**   <TAB>text padded to 59 columns// 000000001700: C0020002 00000004
**
** As in llvm-objdump's AMDGPU printer: a word the decoder rejects prints as
** `.long 0x%08x` and advances 4 bytes; a tail shorter than a word prints as
** `.byte`; SOPP branches carry a ` <symbol+0xoff>` target annotation. A
** function's range ends at the next symbol, so padding between kernels is
** listed under the preceding one, as llvm-objdump does.
**
** Code object v2: .text holds each kernel's 256-byte amd_kernel_code_t
** before its code; only the code is listed, each kernel labelled at its
** entry, which is what llvm-objdump prints for the same code re-wrapped as
** a v3+ object (tests/cli/disasm_v2.sh checks exactly that).
*/
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "gcn3/codeobj.h"
#include "gcn3/inst.h"
#include "mgsim/errors.h"

#include "gcn3/decode.h"
#include "gcn3/disasm.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: mgsim disasm FILE [--kernel NAME]\n"
               "  Disassembles a gfx803 code object (.hsaco, offload bundle "
               "or hipcc\n  executable) like llvm-objdump -d.\n");
}

/* The label for a branch target: the last symbol at or before it. */
static void print_target(const gcn_codeobj *co, uint64_t target)
{
    const gcn_symbol *best = NULL;
    for (size_t i = 0; i < gcn_codeobj_num_symbols(co); i++) {
        const gcn_symbol *s = gcn_codeobj_symbol(co, i);
        if (s->vaddr <= target)
            best = s;
    }
    if (!best) {
        uint64_t base;
        gcn_codeobj_text(co, &base, NULL);
        printf(" <.text+0x%" PRIx64 ">", target - base);
    } else if (target == best->vaddr) {
        printf(" <%s>", best->name);
    } else {
        printf(" <%s+0x%" PRIx64 ">", best->name, target - best->vaddr);
    }
}

/* Prints one instruction (or data word) at p; returns bytes consumed. */
static size_t print_one(const gcn_codeobj *co, const uint8_t *p, size_t avail,
                        uint64_t pc)
{
    if (avail < 4) {
        char text[64];
        int len = snprintf(text, sizeof text, ".byte 0x%02x", p[0]);
        for (size_t i = 1; i < avail; i++)
            len += snprintf(text + len, sizeof text - (size_t)len,
                            ", 0x%02x", p[i]);
        printf("\t%-59s// %012" PRIX64 ":", text, pc);
        for (size_t i = 0; i < avail; i++)
            printf(" %02X", p[i]);
        printf("\n");
        return avail;
    }
    size_t size = 4;
    char text[256];
    bool branch = false;
    uint64_t target = 0;
    gcn_inst in;
    int n = gcn_decode(p, avail, &in);
    if (n > 0 && (size_t)n <= avail) {
        size = (size_t)n;
        gcn_disasm(&in, pc, text, sizeof text);
        const gcn_op_info *info = &gcn_op_table[in.op];
        if (in.fmt == GCN_FMT_SOPP && (info->flags & GCN_F_BRANCH) &&
            (strncmp(info->mnemonic, "s_branch", 8) == 0 ||
             strncmp(info->mnemonic, "s_cbranch", 9) == 0)) {
            branch = true;
            target = pc + 4 + (uint64_t)((int64_t)in.simm16 * 4);
        }
    } else {
        uint32_t w = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
                     (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        snprintf(text, sizeof text, ".long 0x%08" PRIx32, w);
    }
    printf("\t%-59s// %012" PRIX64 ":", text, pc);
    for (size_t i = 0; i < size; i += 4)
        printf(" %08" PRIX32, (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 |
                                  (uint32_t)p[i + 2] << 16 |
                                  (uint32_t)p[i + 3] << 24);
    if (branch)
        print_target(co, target);
    printf("\n");
    return size;
}

/* Disassembles [start, end) of .text, labelling symbols as they come. */
static void print_range(const gcn_codeobj *co, uint64_t start, uint64_t end)
{
    uint64_t base;   /* [start, end) lies inside .text (callers' contract) */
    const uint8_t *text = gcn_codeobj_text(co, &base, NULL);
    size_t nsym = gcn_codeobj_num_symbols(co);
    size_t next = 0;   /* first symbol not yet labelled */
    while (next < nsym && gcn_codeobj_symbol(co, next)->vaddr < start)
        next++;
    if (next >= nsym || gcn_codeobj_symbol(co, next)->vaddr > start)
        printf("\n%016" PRIx64 " <.text>:\n", start);
    uint64_t pc = start;
    while (pc < end) {
        /* Several symbols may share an address; label each, like objdump. */
        while (next < nsym && gcn_codeobj_symbol(co, next)->vaddr <= pc) {
            const gcn_symbol *s = gcn_codeobj_symbol(co, next++);
            printf("\n%016" PRIx64 " <%s>:\n", s->vaddr, s->name);
        }
        uint64_t limit = end;
        if (next < nsym && gcn_codeobj_symbol(co, next)->vaddr < limit)
            limit = gcn_codeobj_symbol(co, next)->vaddr;
        size_t avail = (size_t)(limit - pc);
        pc += print_one(co, text + (pc - base), avail, pc);
    }
}

int cmd_disasm(int argc, char **argv)
{
    const char *path = NULL, *kernel = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return MGS_EXIT_OK;
        } else if (strcmp(argv[i], "--kernel") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("disasm: --kernel needs a name");
            kernel = argv[++i];
        } else if (strncmp(argv[i], "--kernel=", 9) == 0) {
            kernel = argv[i] + 9;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error("disasm: unknown option '%s'", argv[i]);
        } else if (path) {
            return cli_usage_error("disasm: more than one file given ('%s' "
                                   "and '%s')", path, argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return cli_usage_error("disasm: no code object given (usage: mgsim "
                               "disasm FILE [--kernel NAME])");

    gcn_codeobj *co;
    int rc = gcn_codeobj_load_file(path, &co);
    if (rc)
        return cli_fail(rc);

    uint64_t base;
    size_t size;
    gcn_codeobj_text(co, &base, &size);
    uint64_t start = base, end = base + size;
    /* v2: .text interleaves 256-byte amd_kernel_code_t headers with the
    ** code; list the kernels' code only, as if re-wrapped as v4. */
    bool v2 = gcn_codeobj_version(co) == 2;
    if (kernel) {
        size_t nsym = gcn_codeobj_num_symbols(co), i;
        for (i = 0; i < nsym; i++)
            if (strcmp(gcn_codeobj_symbol(co, i)->name, kernel) == 0)
                break;
        if (i == nsym) {
            char names[512] = "";
            for (size_t k = 0; k < gcn_codeobj_num_kernels(co); k++) {
                size_t used = strlen(names);
                snprintf(names + used, sizeof names - used, "%s%s",
                         k ? ", " : "", gcn_codeobj_kernel(co, k)->full_name);
            }
            mgs_error_set(MGS_ENOENT, "%s: no kernel named '%s' (kernels: "
                          "%s)", path, kernel, names[0] ? names : "none");
            gcn_codeobj_free(co);
            return cli_fail(MGS_ENOENT);
        }
        start = gcn_codeobj_symbol(co, i)->vaddr;
        /* up to the next symbol at a higher address */
        for (size_t k = i + 1; k < nsym; k++)
            if (gcn_codeobj_symbol(co, k)->vaddr > start) {
                end = gcn_codeobj_symbol(co, k)->vaddr;
                break;
            }
        if (v2)
            end = start + gcn_codeobj_symbol(co, i)->size;
    }
    printf("\n%s:\tfile format elf64-amdgpu\n\nDisassembly of section "
           ".text:\n", path);
    if (v2 && !kernel) {   /* each kernel's code, without its header */
        for (size_t i = 0; i < gcn_codeobj_num_symbols(co); i++) {
            const gcn_symbol *s = gcn_codeobj_symbol(co, i);
            print_range(co, s->vaddr, s->vaddr + s->size);
        }
    } else {
        print_range(co, start, end);
    }
    gcn_codeobj_free(co);
    return fflush(stdout) == 0 ? MGS_EXIT_OK
                               : cli_usage_error("disasm: cannot write "
                                                 "output");
}
