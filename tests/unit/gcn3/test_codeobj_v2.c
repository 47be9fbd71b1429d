/* Tests for code object v2 loading (src/gcn3/codeobj_v2.c, metadata_v2.c
** and the v2 path of codeobj.c): an OpenCL kernel the build compiles with
** clang-15 -mcode-object-version=2 (build/kernels/v2/loader_cl.hsaco, from
** tests/unit/gcn3/data/loader_cl.cl; expected values read off
** `llvm-readelf-15 --notes -s` and `xxd` of its amd_kernel_code_t), the v2
** and v3 HIP kernels of the build, the old e_flags convention, foreign
** ISAs and versions named in the errors, the YAML reader on crafted text,
** and malformed inputs derived from the real file: every truncation, bit
** flips in the ELF header, notes, amd_kernel_code_t and section table,
** seeded random corruption of the YAML note and of the whole image. A
** malformed input gives a negative MGS_E* code and a one-line message
** naming the file, never a crash (this binary runs under ASan/UBSan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include <cmocka.h>

#include "gcn3/codeobj.h"
#include "gcn3/codeobj_v2.h"
#include "gcn3/emu.h"
#include "gcn3/metadata.h"
#include "mgsim/errors.h"

#include "codeobj_test_util.h"

typedef struct fixture {
    uint8_t *elf;          /* v2/loader_cl.hsaco: a plain v2 ELF */
    size_t size;
    size_t note;           /* offset of the .note section */
    size_t note_size;
    size_t yaml;           /* offset of the YAML text (after "AMD\0") */
    size_t yaml_size;
    size_t hdr;            /* offset of loader_local's amd_kernel_code_t */
} fixture;

static size_t find_bytes(const uint8_t *p, size_t n, const void *s,
                         size_t len)
{
    const uint8_t *q = memmem(p, n, s, len);
    return q ? (size_t)(q - p) : 0;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    char path[1024];
    snprintf(path, sizeof path, "%s/v2/loader_cl.hsaco", kernel_dir());
    f->elf = slurp(path, &f->size);
    if (!f->elf) {
        fprintf(stderr, "cannot read %s (run via make test)\n", path);
        free(f);
        return -1;
    }
    /* .note at file offset 0x200, 0x8f0 bytes; .text (the kernel's
    ** header, then its code) at 0xc00 (llvm-readelf-15 -S). */
    f->note = 0x200;
    f->note_size = 0x8f0;
    f->yaml = find_bytes(f->elf, f->size, "---\n", 4);
    f->yaml_size = 0x86f;
    f->hdr = 0xc00;
    *state = f;
    return f->yaml ? 0 : -1;
}

static int teardown(void **state)
{
    fixture *f = *state;
    free(f->elf);
    free(f);
    return 0;
}

static uint8_t *copy(const fixture *f)
{
    uint8_t *p = malloc(f->size);
    memcpy(p, f->elf, f->size);
    return p;
}

/* ---- the real file ------------------------------------------------------- */

static void check_loader_local(const gcn_codeobj *co)
{
    assert_int_equal(gcn_codeobj_version(co), 2);
    assert_int_equal(gcn_codeobj_num_kernels(co), 1);
    const gcn_kernel *k = gcn_codeobj_find(co, "loader_local");
    assert_non_null(k);
    /* amd_kernel_code_t at 0x1c00: rsrc1 0x00ac0081, rsrc2 0x90,
    ** properties 0x000a000b, group 0x100, kernarg 0x58, sgprs 0x11, vgprs
    ** 8, kernarg alignment 2^4, wavefront 2^6, entry offset 256. */
    assert_int_equal(k->rsrc1, 0x00ac0081);
    assert_int_equal(k->rsrc2, 0x90);
    assert_int_equal(k->rsrc3, 0);
    assert_int_equal(k->code_properties, 0x000b);
    assert_int_equal(k->group_segment_size, 256);   /* int fixed[64] */
    assert_int_equal(k->private_segment_size, 0);
    assert_int_equal(k->kernarg_size, 88);
    assert_int_equal(k->kernarg_align, 16);
    assert_int_equal(k->wavefront_size, 64);
    assert_int_equal(k->max_flat_workgroup_size, 256);
    assert_int_equal(k->vgpr_count, 8);
    assert_int_equal(k->sgpr_count, 24);
    assert_int_equal(k->meta_sgpr_count, 17);
    assert_int_equal(k->meta_vgpr_count, 8);
    /* s[0:3] PSB, s[4:5] dispatch ptr, s[6:7] kernarg ptr, s8 group id x */
    assert_true(k->sgpr_private_segment_buffer);
    assert_true(k->sgpr_dispatch_ptr);
    assert_false(k->sgpr_queue_ptr);
    assert_true(k->sgpr_kernarg_segment_ptr);
    assert_false(k->sgpr_dispatch_id);
    assert_false(k->sgpr_flat_scratch_init);
    assert_int_equal(k->user_sgpr_count, 8);
    assert_true(k->sgpr_workgroup_id_x);
    assert_false(k->sgpr_workgroup_id_y);
    assert_false(k->sgpr_private_segment_wave_offset);
    assert_int_equal(k->vgpr_workitem_id, 0);
    assert_false(k->uses_dynamic_stack);
    /* Offsets computed from Size and Align (v2 has no Offset field). */
    static const struct {
        uint32_t off, size;
        gcn_arg_kind kind;
        bool hidden;
        const char *type;
    } want[] = {
        {0, 8, GCN_ARG_GLOBAL_BUFFER, false, "int*"},
        {8, 8, GCN_ARG_GLOBAL_BUFFER, false, "int*"},
        {16, 4, GCN_ARG_DYNAMIC_SHARED_POINTER, false, "int*"},
        {20, 8, GCN_ARG_BY_VALUE, false, "loader_range"},
        {28, 1, GCN_ARG_BY_VALUE, false, "uchar"},
        {32, 8, GCN_ARG_HIDDEN_GLOBAL_OFFSET_X, true, ""},
        {40, 8, GCN_ARG_HIDDEN_GLOBAL_OFFSET_Y, true, ""},
        {48, 8, GCN_ARG_HIDDEN_GLOBAL_OFFSET_Z, true, ""},
        {56, 8, GCN_ARG_HIDDEN_NONE, true, ""},
        {64, 8, GCN_ARG_HIDDEN_NONE, true, ""},
        {72, 8, GCN_ARG_HIDDEN_NONE, true, ""},
        {80, 8, GCN_ARG_HIDDEN_NONE, true, ""},
    };
    assert_int_equal(k->nargs, 12);
    for (uint32_t i = 0; i < 12; i++) {
        assert_int_equal(k->args[i].offset, want[i].off);
        assert_int_equal(k->args[i].size, want[i].size);
        assert_int_equal(k->args[i].kind, want[i].kind);
        assert_int_equal(k->args[i].hidden, want[i].hidden);
        assert_string_equal(k->args[i].type_name, want[i].type);
    }
    /* Code: the kernel symbol 0x1c00 (532 bytes) + 256; the first
    ** instruction s_load_dword s9, s[4:5], 0x4; the last s_endpgm. */
    assert_int_equal(k->code_vaddr, 0x1d00);
    assert_int_equal(k->code_size, 276);
    uint32_t w[2], last;
    memcpy(w, k->code, 8);
    memcpy(&last, k->code + k->code_size - 4, 4);
    assert_int_equal(w[0], 0xC0020242);
    assert_int_equal(w[1], 0x00000004);
    assert_int_equal(last, 0xBF810000);
    /* .text still starts at the header; the kernel's label is its code. */
    uint64_t tv;
    size_t ts;
    const uint8_t *text = gcn_codeobj_text(co, &tv, &ts);
    assert_int_equal(tv, 0x1c00);
    assert_int_equal(ts, 0x214);
    assert_ptr_equal(k->code, text + 0x100);
    assert_int_equal(gcn_codeobj_num_symbols(co), 1);
    const gcn_symbol *s = gcn_codeobj_symbol(co, 0);
    assert_string_equal(s->name, "loader_local");
    assert_int_equal(s->vaddr, 0x1d00);
    assert_int_equal(s->size, 276);
}

static void test_load_v2_opencl(void **state)
{
    fixture *f = *state;
    gcn_codeobj *co = NULL;
    assert_int_equal(gcn_codeobj_load_mem(f->elf, f->size, "cl", &co),
                     MGS_OK);
    check_loader_local(co);
    gcn_codeobj_free(co);
}

/* The old e_flags convention (0x2, no mach) with a gfx803 ISA note loads
** (without ISA notes it does not: test_foreign_isa_and_versions). */
static void test_old_eflags(void **state)
{
    fixture *f = *state;
    uint8_t *p = copy(f);
    p[48] = 0x02;
    gcn_codeobj *co = NULL;
    assert_int_equal(gcn_codeobj_load_mem(p, f->size, "old", &co), MGS_OK);
    check_loader_local(co);
    gcn_codeobj_free(co);
    free(p);
}

/* Each note's type word sits 8 bytes into its header; type 99 hides it. */
static void hide_note(uint8_t *p, size_t note, uint32_t type)
{
    size_t off = note;
    for (int i = 0; i < 8; i++) {
        uint32_t namesz, descsz, t;
        memcpy(&namesz, p + off, 4);
        memcpy(&descsz, p + off + 4, 4);
        memcpy(&t, p + off + 8, 4);
        if (t == type) {
            uint32_t hidden = 99;
            memcpy(p + off + 8, &hidden, 4);
            return;
        }
        off += 12 + ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u);
    }
    fail_msg("no note of type %u", type);
}

static void test_foreign_isa_and_versions(void **state)
{
    fixture *f = *state;
    uint8_t *p = copy(f);
    /* ISA name note for gfx900, old e_flags: the message names all three. */
    size_t isa = find_bytes(p, f->size, "amdgcn-amd-amdhsa--gfx803", 25);
    assert_true(isa > 0);
    memcpy(p + isa + 19, "gfx900", 6);
    p[48] = 0x02;
    expect_error(p, f->size, MGS_EARCH, "gfx900");
    expect_error(p, f->size, MGS_EARCH, "v2.1");
    expect_error(p, f->size, MGS_EARCH, "e_flags 0x2");
    expect_error(p, f->size, MGS_EARCH,
                 "ISA 'amdgcn-amd-amdhsa--gfx900'");
    /* Without the name note, the ISA version note decides: 9.0.0. */
    hide_note(p, f->note, GCN_NT_AMD_ISA_NAME);
    uint32_t nine = 9, zero = 0;
    size_t ver = find_bytes(p, f->size, "\x04\x00\x07\x00\x08\x00\x00\x00",
                            8);
    assert_true(ver > 0);
    memcpy(p + ver + 4, &nine, 4);
    memcpy(p + ver + 12, &zero, 4);
    expect_error(p, f->size, MGS_EARCH, "ISA version 9.0.0");
    /* Without either, e_flags 0x2 says nothing: refused. */
    hide_note(p, f->note, GCN_NT_AMD_ISA_VERSION);
    expect_error(p, f->size, MGS_EARCH, "no ISA note");
    free(p);

    /* Code object version 3.1 in a v2-style note: unsupported, named. */
    p = copy(f);
    size_t v = find_bytes(p, f->size, "\x02\x00\x00\x00\x01\x00\x00\x00", 8);
    assert_true(v > 0);
    p[v] = 3;
    expect_error(p, f->size, MGS_EFORMAT, "code object v3.1");
    free(p);

    /* No version note and no v3 note: neither kind of code object. */
    p = copy(f);
    hide_note(p, f->note, GCN_NT_AMD_VERSION);
    expect_error(p, f->size, MGS_EFORMAT, "NT_AMD_HSA_CODE_OBJECT_VERSION");
    free(p);

    /* No metadata note: the arguments are unknown. */
    p = copy(f);
    hide_note(p, f->note, GCN_NT_AMD_METADATA);
    expect_error(p, f->size, MGS_EFORMAT, "no NT_AMD_HSA_METADATA");
    free(p);

    /* amd_kernel_code_t for another machine. */
    p = copy(f);
    p[f->hdr + 10] = 9;
    expect_error(p, f->size, MGS_EARCH, "version 9.0.3");
    free(p);
}

static void test_yaml_fields_in_file(void **state)
{
    fixture *f = *state;
    uint8_t *p = copy(f);
    /* An argument kind mgsim cannot pass. */
    size_t vk = find_bytes(p + f->yaml, f->yaml_size, "GlobalBuffer", 12);
    assert_true(vk > 0);
    memcpy(p + f->yaml + vk, "Pipe        ", 12);
    expect_error(p, f->size, MGS_EFORMAT, "ValueKind 'Pipe'");
    free(p);
    /* Align 3 is not a power of two. */
    p = copy(f);
    size_t al = find_bytes(p + f->yaml, f->yaml_size, "Align:           8",
                           18);
    assert_true(al > 0);
    p[f->yaml + al + 17] = '3';
    expect_error(p, f->size, MGS_EFORMAT, "power of two");
    free(p);
    /* Not YAML at all. */
    p = copy(f);
    memcpy(p + f->yaml + 4, "[[{", 3);
    expect_error(p, f->size, MGS_EFORMAT, "not valid YAML");
    free(p);
}

/* v2 amd_kernel_code_t decoding on its own. */
static void test_decode_kernel_code(void **state)
{
    fixture *f = *state;
    gcn_md_kernel mk;
    uint64_t entry;
    uint8_t h[GCN_KERNEL_CODE_T_SIZE];
    memcpy(h, f->elf + f->hdr, sizeof h);
    memset(&mk, 0, sizeof mk);
    mk.k.full_name = "k";
    mk.k.kernarg_align = 8;
    assert_int_equal(gcn_v2_decode_kernel_code(h, "t", &mk, &entry), MGS_OK);
    assert_int_equal(entry, 256);
    /* grid work-group count SGPRs (properties bit 7): not set up. */
    h[56] |= 0x80;
    assert_int_equal(gcn_v2_decode_kernel_code(h, "t", &mk, &entry),
                     MGS_EUNSUPPORTED);
    assert_non_null(strstr(mgs_error_msg(), "grid work-group count"));
    memcpy(h, f->elf + f->hdr, sizeof h);
    h[103] = 5;   /* wave32 */
    assert_int_equal(gcn_v2_decode_kernel_code(h, "t", &mk, &entry),
                     MGS_EUNSUPPORTED);
    memcpy(h, f->elf + f->hdr, sizeof h);
    h[16] = 100;   /* entry inside the header */
    h[17] = 0;
    assert_int_equal(gcn_v2_decode_kernel_code(h, "t", &mk, &entry),
                     MGS_EFORMAT);
    memcpy(h, f->elf + f->hdr, sizeof h);
    h[0] = 2;   /* amd_kernel_code_t version 2.x */
    assert_int_equal(gcn_v2_decode_kernel_code(h, "t", &mk, &entry),
                     MGS_EFORMAT);
    memcpy(h, f->elf + f->hdr, sizeof h);
    h[58] |= 0x10;   /* is_dynamic_callstack (bit 20) -> v3 bit 11 */
    assert_int_equal(gcn_v2_decode_kernel_code(h, "t", &mk, &entry), MGS_OK);
    assert_true(mk.k.uses_dynamic_stack);
    assert_int_equal(mk.k.code_properties, 0x080b);
}

/* The runtime decodes the whole .text, header included: a header whose
** last word starts a two-word instruction must not swallow the kernel's
** first word (emu.c restarts decoding at the entry). */
static void test_decode_stops_at_entry(void **state)
{
    fixture *f = *state;
    uint8_t *p = copy(f);
    const uint8_t smem[4] = {0x02, 0x00, 0x02, 0xc0};   /* s_load_dword */
    memcpy(p + f->hdr + GCN_KERNEL_CODE_T_SIZE - 4, smem, 4);
    gcn_codeobj *co = NULL;
    assert_int_equal(gcn_codeobj_load_mem(p, f->size, "d", &co), MGS_OK);
    const gcn_kernel *k = gcn_codeobj_kernel(co, 0);
    uint64_t tv;
    size_t ts;
    const uint8_t *text = gcn_codeobj_text(co, &tv, &ts);
    gcn_emu_program prog;
    assert_int_equal(gcn_emu_program_init_range(&prog, k, text, tv, ts),
                     MGS_OK);
    assert_int_equal(prog.entry, 0x100);
    assert_int_equal(prog.insts[0x100 / 4].word0, 0xC0020242);
    assert_int_equal(prog.insts[0x100 / 4].size, 8);
    gcn_emu_program_destroy(&prog);
    gcn_codeobj_free(co);
    free(p);
}

/* ---- the YAML reader on crafted text -------------------------------------- */

static int parse(const char *yaml, gcn_md_kernel **ks, size_t *n)
{
    return gcn_metadata_v2_parse((const uint8_t *)yaml, strlen(yaml), "y",
                                 ks, n);
}

static void test_yaml_offsets_and_defaults(void **state)
{
    (void)state;
    gcn_md_kernel *ks;
    size_t n;
    /* No CodeProps: the kernarg size is the end of the arguments. Offsets
    ** round up to each Align; unknown keys are ignored. */
    const char *y = "---\nVersion: [ 1, 0 ]\nKernels:\n"
                    "  - Name: a\n    Unknown: { x: 1 }\n    Args:\n"
                    "      - { Size: 1, Align: 1, ValueKind: ByValue }\n"
                    "      - { Size: 8, Align: 8, ValueKind: GlobalBuffer }\n"
                    "      - { Size: 2, Align: 2, ValueKind: ByValue }\n"
                    "      - { Size: 8, Align: 8, ValueKind: "
                    "HiddenPrintfBuffer }\n"
                    "  - Name: b\n    CodeProps: { KernargSegmentSize: 0 }\n"
                    "...\n";
    assert_int_equal(parse(y, &ks, &n), MGS_OK);
    assert_int_equal(n, 2);
    assert_string_equal(ks[0].k.full_name, "a");
    assert_string_equal(ks[0].kd_symbol, "a");
    assert_int_equal(ks[0].k.nargs, 4);
    assert_int_equal(ks[0].k.args[1].offset, 8);
    assert_int_equal(ks[0].k.args[2].offset, 16);
    assert_int_equal(ks[0].k.args[3].offset, 24);
    assert_int_equal(ks[0].k.args[3].kind, GCN_ARG_HIDDEN_PRINTF_BUFFER);
    assert_true(ks[0].k.args[3].hidden);
    assert_int_equal(ks[0].md_kernarg_size, 32);
    assert_int_equal(ks[0].k.wavefront_size, 64);
    assert_int_equal(ks[1].k.nargs, 0);
    gcn_metadata_free_kernels(ks, n);

    /* Arguments past the stated kernarg size. */
    y = "Kernels:\n  - Name: a\n    Args: [ { Size: 8, Align: 8, "
        "ValueKind: ByValue } ]\n    CodeProps: { KernargSegmentSize: 4 }\n";
    assert_int_equal(parse(y, &ks, &n), MGS_EFORMAT);
    assert_non_null(strstr(mgs_error_msg(), "past the 4-byte kernarg"));
}

static void test_yaml_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "Kernels: 5\n",
        "Kernels: [ 5 ]\n",
        "Kernels: [ { Name: [ x ] } ]\n",
        "Kernels: [ { Name: '' } ]\n",
        "Kernels: [ { Name: a, Args: 3 } ]\n",
        "Kernels: [ { Name: a, Args: [ 3 ] } ]\n",
        "Kernels: [ { Name: a, Args: [ { Size: 4 } ] } ]\n",
        "Kernels: [ { Name: a, Args: [ { Size: -4, Align: 4, "
        "ValueKind: ByValue } ] } ]\n",
        "Kernels: [ { Name: a, Args: [ { Size: 99999999999, Align: 4, "
        "ValueKind: ByValue } ] } ]\n",
        "Kernels: [ { Name: a, Args: [ { Size: 4, Align: 512, "
        "ValueKind: ByValue } ] } ]\n",
        "Kernels: [ { Name: a, Args: [ { Size: 4, Align: 4, "
        "ValueKind: [ x ] } ] } ]\n",
        "Kernels: [ { Name: a, CodeProps: 7 } ]\n",
        "Kernels: [ { Name: a, CodeProps: { NumSGPRs: x } } ]\n",
        "Kernels: [ { Name: a, CodeProps: { WavefrontSize: 0x1ffffffff } } "
        "]\n",
        "Kernels: [ { Name: a, Args: [ { Size: 4294967295, Align: 8, "
        "ValueKind: ByValue }, { Size: 4294967295, Align: 8, "
        "ValueKind: ByValue } ] } ]\n",
        "Kernels: *undefined_alias\n",
        "Kernels: [ { Name: a\n",
        "\t\x01 binary",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gcn_md_kernel *ks = (gcn_md_kernel *)1;
        size_t n = 7;
        int rc = parse(bad[i], &ks, &n);
        if (rc != MGS_EFORMAT)
            fprintf(stderr, "# case %zu: rc %d\n", i, rc);
        assert_int_equal(rc, MGS_EFORMAT);
        assert_null(ks);
        assert_int_equal(n, 0);
        assert_non_null(strstr(mgs_error_msg(), "y:"));
    }
    /* Aliases resolve to the same node (no expansion); deep nesting and a
    ** NUL-terminated note are fine. */
    gcn_md_kernel *ks;
    size_t n;
    const char *alias = "A: &arg { Size: 4, Align: 4, ValueKind: ByValue }\n"
                        "Kernels: [ { Name: a, Args: [ *arg, *arg, *arg ] "
                        "} ]\n";
    assert_int_equal(parse(alias, &ks, &n), MGS_OK);
    assert_int_equal(ks[0].k.nargs, 3);
    assert_int_equal(ks[0].k.args[2].offset, 8);
    gcn_metadata_free_kernels(ks, n);
    char deep[6000];
    size_t len = 0;
    len += (size_t)snprintf(deep, sizeof deep, "X: ");
    for (int i = 0; i < 2000; i++)
        deep[len++] = '[';
    for (int i = 0; i < 2000; i++)
        deep[len++] = ']';
    len += (size_t)snprintf(deep + len, sizeof deep - len,
                            "\nKernels: [ { Name: d } ]\n");
    deep[len++] = '\0';
    assert_int_equal(gcn_metadata_v2_parse((const uint8_t *)deep, len, "y",
                                           &ks, &n), MGS_OK);
    assert_int_equal(n, 1);
    gcn_metadata_free_kernels(ks, n);
}

/* Every v2 and v3 kernel the build compiles loads with its version and
** consistent fields. */
static void test_build_v2_v3_kernels(void **state)
{
    (void)state;
    int files = 0;
    for (int v = 2; v <= 3; v++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/v%d", kernel_dir(), v);
        DIR *d = opendir(dir);
        assert_non_null(d);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            size_t len = strlen(e->d_name);
            if (len < 7 || strcmp(e->d_name + len - 6, ".hsaco") != 0)
                continue;
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            gcn_codeobj *co = NULL;
            if (gcn_codeobj_load_file(path, &co) != MGS_OK) {
                fprintf(stderr, "# %s: %s\n", path, mgs_error_msg());
                fail();
            }
            files++;
            assert_int_equal(gcn_codeobj_version(co), v);
            uint64_t tv;
            size_t ts;
            gcn_codeobj_text(co, &tv, &ts);
            for (size_t i = 0; i < gcn_codeobj_num_kernels(co); i++) {
                const gcn_kernel *k = gcn_codeobj_kernel(co, i);
                assert_true(k->code_vaddr >= tv &&
                            k->code_vaddr + k->code_size <= tv + ts);
                assert_true(k->code_size >= 4 && k->code_size % 4 == 0);
                assert_true(k->vgpr_count >= k->meta_vgpr_count);
                assert_true(k->sgpr_count >= k->meta_sgpr_count);
                assert_true(k->sgpr_kernarg_segment_ptr);
                for (uint32_t a = 0; a < k->nargs; a++)
                    assert_true(k->args[a].offset + k->args[a].size <=
                                k->kernarg_size);
                if (v == 2)   /* the code follows its 256-byte header */
                    assert_int_equal(k->code_vaddr % 256, 0);
            }
            gcn_codeobj_free(co);
        }
        closedir(d);
    }
    assert_true(files >= 10);
}

/* ---- fuzzing -------------------------------------------------------------- */

static int load_any(const uint8_t *p, size_t n)
{
    gcn_codeobj *co = NULL;
    int rc = gcn_codeobj_load_mem(p, n, "fuzz", &co);
    if (rc == MGS_OK) {
        /* Whatever loaded must be internally consistent. */
        uint64_t tv;
        size_t ts;
        gcn_codeobj_text(co, &tv, &ts);
        for (size_t k = 0; k < gcn_codeobj_num_kernels(co); k++) {
            const gcn_kernel *kn = gcn_codeobj_kernel(co, k);
            assert_non_null(kn->code);
            assert_true(kn->code_size >= 4);
            for (uint32_t a = 0; a < kn->nargs; a++)
                assert_true((uint64_t)kn->args[a].offset + kn->args[a].size <=
                            0xffffffffull);
        }
        gcn_codeobj_free(co);
        return 1;
    }
    assert_true(is_load_error(rc));
    assert_null(co);
    return 0;
}

static void test_truncations(void **state)
{
    fixture *f = *state;
    for (size_t len = 0; len < f->size; len++) {
        uint8_t *p = malloc(len ? len : 1);   /* exact size: ASan */
        memcpy(p, f->elf, len);
        if (load_any(p, len)) {
            fprintf(stderr, "# loaded at length %zu of %zu\n", len, f->size);
            fail();
        }
        free(p);
    }
}

static void flip_region(const fixture *f, size_t start, size_t end,
                        int *loaded, int *rejected)
{
    uint8_t *p = malloc(f->size);
    for (size_t i = start; i < end && i < f->size; i++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(p, f->elf, f->size);
            p[i] ^= (uint8_t)(1u << bit);
            if (load_any(p, f->size))
                (*loaded)++;
            else
                (*rejected)++;
        }
    free(p);
}

static void test_bit_flips(void **state)
{
    fixture *f = *state;
    int loaded = 0, rejected = 0;
    flip_region(f, 0, 64, &loaded, &rejected);              /* ELF header */
    uint64_t shoff;
    memcpy(&shoff, f->elf + 40, 8);
    flip_region(f, shoff, shoff + 12 * 64, &loaded, &rejected);
    /* The notes before the YAML text, the YAML's first 512 bytes. */
    flip_region(f, f->note, f->yaml + 512, &loaded, &rejected);
    /* The amd_kernel_code_t. */
    flip_region(f, f->hdr, f->hdr + GCN_KERNEL_CODE_T_SIZE, &loaded,
                &rejected);
    /* The symbol table (the kernel symbol's value, size, type). */
    flip_region(f, 0xee0, 0xee0 + 0x48, &loaded, &rejected);
    fprintf(stderr, "# bit flips: %d loaded, %d rejected\n", loaded,
            rejected);
    assert_true(rejected > 300);
    assert_true(loaded > 300);
}

static void test_random_yaml(void **state)
{
    fixture *f = *state;
    uint8_t *p = malloc(f->size);
    static const char alphabet[] = " \n\t:-[]{},'\"&*!|>#%@`?0123456789"
                                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJK\0\xff";
    uint32_t x = 2024;
    int rejected = 0, loaded = 0;
    for (int iter = 0; iter < 4000; iter++) {
        memcpy(p, f->elf, f->size);
        for (int k = 0; k < 1 + iter % 6; k++) {
            x = x * 1664525u + 1013904223u;
            size_t at = f->yaml + (x >> 8) % f->yaml_size;
            x = x * 1664525u + 1013904223u;
            /* Half YAML syntax characters, half any byte. */
            p[at] = (x >> 31) ? (uint8_t)alphabet[(x >> 8) %
                                                  (sizeof alphabet - 1)]
                              : (uint8_t)(x >> 16);
        }
        if (load_any(p, f->size))
            loaded++;
        else
            rejected++;
    }
    free(p);
    fprintf(stderr, "# random YAML: %d loaded, %d rejected\n", loaded,
            rejected);
    assert_true(rejected > 500);
    assert_true(loaded > 100);
}

static void test_random_anywhere(void **state)
{
    fixture *f = *state;
    uint8_t *p = malloc(f->size);
    uint32_t x = 77;
    int rejected = 0, loaded = 0;
    for (int iter = 0; iter < 4000; iter++) {
        memcpy(p, f->elf, f->size);
        for (int k = 0; k < 1 + iter % 8; k++) {
            x = x * 1664525u + 1013904223u;
            size_t at = (x >> 4) % f->size;
            x = x * 1664525u + 1013904223u;
            p[at] = (uint8_t)(x >> 24);
        }
        if (load_any(p, f->size))
            loaded++;
        else
            rejected++;
    }
    free(p);
    assert_true(rejected > 300);
    assert_true(loaded > 300);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_v2_opencl),
        cmocka_unit_test(test_old_eflags),
        cmocka_unit_test(test_foreign_isa_and_versions),
        cmocka_unit_test(test_yaml_fields_in_file),
        cmocka_unit_test(test_decode_kernel_code),
        cmocka_unit_test(test_decode_stops_at_entry),
        cmocka_unit_test(test_yaml_offsets_and_defaults),
        cmocka_unit_test(test_yaml_malformed),
        cmocka_unit_test(test_build_v2_v3_kernels),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_bit_flips),
        cmocka_unit_test(test_random_yaml),
        cmocka_unit_test(test_random_anywhere),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
