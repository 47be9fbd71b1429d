/* Tests for src/gcn3/codeobj.c, bundle.c and metadata.c: real code objects
** compiled by the build (kernels/loader_props.hip; expected values below
** were read off `llvm-readelf-15 --notes` and `llvm-objdump-15 -s -j .rodata
** -d` for the same files), an OpenCL kernel compiled at test time (hidden
** arguments, dynamic_shared_pointer, type names), the HIP fat-binary entry
** point, and malformed inputs derived from the real files: every truncation
** length, bit flips in the header, notes and bundle table, seeded random
** corruption of the metadata, foreign architectures. A malformed input must
** give a negative MGS_E* code and an error message naming the file; it must
** never crash (this binary runs under ASan/UBSan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include <cmocka.h>

#include "gcn3/bundle.h"
#include "gcn3/codeobj.h"
#include "gcn3/metadata.h"
#include "mgsim/errors.h"

#include "codeobj_test_util.h"

/* ---- fixtures ------------------------------------------------------------ */

typedef struct fixture {
    char path[512];
    uint8_t *bundle;       /* loader_props.hsaco as hipcc wrote it */
    size_t bundle_size;
    const uint8_t *elf;    /* its gfx803 entry (inside bundle) */
    size_t elf_size;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s/loader_props.hsaco", kernel_dir());
    f->bundle = slurp(f->path, &f->bundle_size);
    if (!f->bundle) {
        fprintf(stderr, "cannot read %s (run via make test)\n", f->path);
        free(f);
        return -1;
    }
    if (gcn_bundle_find_gfx803(f->bundle, f->bundle_size, "t", &f->elf,
                               &f->elf_size) != MGS_OK) {
        free(f->bundle);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    free(f->bundle);
    free(f);
    return 0;
}

/* ---- real code objects --------------------------------------------------- */

static void check_lds_kernel(const gcn_codeobj *co)
{
    const gcn_kernel *k = gcn_codeobj_find(co, "loader_lds");
    assert_non_null(k);
    assert_string_equal(k->name, "loader_lds");
    assert_string_equal(k->full_name, "loader_lds");
    /* Descriptor: .rodata 09c0: 00040000 00000000 30000000 ... */
    assert_int_equal(k->group_segment_size, 1024);   /* float tile[256] */
    assert_int_equal(k->private_segment_size, 0);
    assert_int_equal(k->kernarg_size, 48);
    assert_int_equal(k->kernarg_align, 8);
    assert_int_equal(k->rsrc1, 0x00ac0041);
    assert_int_equal(k->rsrc2, 0x00000890);
    assert_int_equal(k->rsrc3, 0);
    assert_int_equal(k->code_properties, 0x000b);
    assert_int_equal(k->vgpr_count, 8);     /* granule 1 -> (1+1)*4 */
    assert_int_equal(k->sgpr_count, 16);    /* granule 1 -> (1+1)*8 */
    assert_int_equal(k->meta_vgpr_count, 7);
    assert_int_equal(k->meta_sgpr_count, 14);
    /* s[0:3] private segment buffer, s[4:5] dispatch ptr, s[6:7] kernarg
    ** ptr, then s8 = work-group id x; v0, v1 = work-item x, y. */
    assert_true(k->sgpr_private_segment_buffer);
    assert_true(k->sgpr_dispatch_ptr);
    assert_false(k->sgpr_queue_ptr);
    assert_true(k->sgpr_kernarg_segment_ptr);
    assert_false(k->sgpr_dispatch_id);
    assert_false(k->sgpr_flat_scratch_init);
    assert_false(k->sgpr_private_segment_size);
    assert_int_equal(k->user_sgpr_count, 8);
    assert_true(k->sgpr_workgroup_id_x);
    assert_false(k->sgpr_workgroup_id_y);
    assert_false(k->sgpr_workgroup_id_z);
    assert_false(k->sgpr_workgroup_info);
    assert_false(k->sgpr_private_segment_wave_offset);
    assert_int_equal(k->vgpr_workitem_id, 1);
    assert_int_equal(k->wavefront_size, 64);
    assert_int_equal(k->max_flat_workgroup_size, 1024);
    assert_false(k->uses_dynamic_stack);

    static const struct { uint32_t off, size; gcn_arg_kind kind; } want[] = {
        {0, 8, GCN_ARG_GLOBAL_BUFFER},  /* const float *in */
        {8, 8, GCN_ARG_GLOBAL_BUFFER},  /* float *out */
        {16, 16, GCN_ARG_BY_VALUE},     /* loader_pair p (by-value struct) */
        {32, 1, GCN_ARG_BY_VALUE},      /* char tag */
        {40, 8, GCN_ARG_BY_VALUE},      /* double bias */
    };
    assert_int_equal(k->nargs, 5);
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(k->args[i].offset, want[i].off);
        assert_int_equal(k->args[i].size, want[i].size);
        assert_int_equal(k->args[i].kind, want[i].kind);
        assert_false(k->args[i].hidden);
    }
    /* Code: entry = .kd address 0x9c0 + 0x1140; first instruction
    ** s_load_dword s9, s[4:5], 0x4 = C0020242 00000004 (llvm-objdump). */
    assert_int_equal(k->code_vaddr, 0x1b00);
    assert_int_equal(k->code_size, 252);
    uint32_t w0, w1;
    memcpy(&w0, k->code, 4);
    memcpy(&w1, k->code + 4, 4);
    assert_int_equal(w0, 0xC0020242);
    assert_int_equal(w1, 0x00000004);
    /* The last instruction of the kernel is s_endpgm. */
    uint32_t last;
    memcpy(&last, k->code + k->code_size - 4, 4);
    assert_int_equal(last, 0xBF810000);
}

static void check_dyn_kernel(const gcn_codeobj *co)
{
    const gcn_kernel *k = gcn_codeobj_find(co, "loader_dyn");
    assert_non_null(k);
    assert_int_equal(k->group_segment_size, 0);   /* dynamic LDS only */
    assert_int_equal(k->kernarg_size, 12);
    assert_int_equal(k->nargs, 2);
    assert_int_equal(k->args[0].kind, GCN_ARG_GLOBAL_BUFFER);
    assert_int_equal(k->args[1].offset, 8);
    assert_int_equal(k->args[1].size, 4);
    assert_int_equal(k->args[1].kind, GCN_ARG_BY_VALUE);
    /* rsrc2 0x1390: 8 user SGPRs, work-group ids x, y, z; v0..v2. */
    assert_int_equal(k->rsrc2, 0x1390);
    assert_int_equal(k->user_sgpr_count, 8);
    assert_true(k->sgpr_workgroup_id_x);
    assert_true(k->sgpr_workgroup_id_y);
    assert_true(k->sgpr_workgroup_id_z);
    assert_int_equal(k->vgpr_workitem_id, 2);
    assert_int_equal(k->vgpr_count, 4);    /* rsrc1 0x00ac0040 */
    assert_int_equal(k->sgpr_count, 16);
    assert_int_equal(k->code_vaddr, 0x1c00);
    assert_int_equal(k->code_size, 216);
    uint32_t w0;
    memcpy(&w0, k->code, 4);
    assert_int_equal(w0, 0xC0020082);   /* s_load_dword s2, s[4:5], 0x4 */
}

static void check_props(const gcn_codeobj *co)
{
    assert_string_equal(gcn_codeobj_arch(co), "gfx803");
    assert_int_equal(gcn_codeobj_num_kernels(co), 2);
    /* Metadata order. */
    assert_string_equal(gcn_codeobj_kernel(co, 0)->name, "loader_lds");
    assert_string_equal(gcn_codeobj_kernel(co, 1)->name, "loader_dyn");
    assert_null(gcn_codeobj_kernel(co, 2));
    assert_null(gcn_codeobj_find(co, "loader_nope"));
    check_lds_kernel(co);
    check_dyn_kernel(co);

    uint64_t vaddr;
    size_t size;
    const uint8_t *text = gcn_codeobj_text(co, &vaddr, &size);
    assert_non_null(text);
    assert_int_equal(vaddr, 0x1b00);
    assert_int_equal(size, 0x1d8);
    assert_int_equal(gcn_codeobj_num_symbols(co), 2);
    const gcn_symbol *s0 = gcn_codeobj_symbol(co, 0);
    const gcn_symbol *s1 = gcn_codeobj_symbol(co, 1);
    assert_string_equal(s0->name, "loader_lds");
    assert_int_equal(s0->vaddr, 0x1b00);
    assert_int_equal(s0->size, 252);
    assert_string_equal(s1->name, "loader_dyn");
    assert_int_equal(s1->vaddr, 0x1c00);
    assert_null(gcn_codeobj_symbol(co, 2));
    /* Kernel code pointers are views into the same image as .text. */
    const gcn_kernel *k = gcn_codeobj_find(co, "loader_dyn");
    assert_ptr_equal(k->code, text + (k->code_vaddr - vaddr));
}

static void test_load_bundle_file(void **state)
{
    fixture *f = *state;
    gcn_codeobj *co = NULL;
    assert_int_equal(gcn_codeobj_load_file(f->path, &co), MGS_OK);
    check_props(co);
    gcn_codeobj_free(co);
}

static void test_load_plain_elf(void **state)
{
    fixture *f = *state;
    gcn_codeobj *co = NULL;
    assert_int_equal(gcn_codeobj_load_mem(f->elf, f->elf_size, "mem", &co),
                     MGS_OK);
    check_props(co);
    gcn_codeobj_free(co);
}

static void test_image_is_private_copy(void **state)
{
    fixture *f = *state;
    uint8_t *copy = malloc(f->bundle_size);
    memcpy(copy, f->bundle, f->bundle_size);
    gcn_codeobj *co = NULL;
    assert_int_equal(gcn_codeobj_load_mem(copy, f->bundle_size, "c", &co),
                     MGS_OK);
    memset(copy, 0, f->bundle_size);
    free(copy);   /* ASan would flag any pointer left into it */
    check_props(co);
    gcn_codeobj_free(co);
}

static void test_hip_fatbin_wrapper(void **state)
{
    fixture *f = *state;
    /* What hipcc emits in .hipFatBinSegment and passes to
    ** __hipRegisterFatBinary: magic, version, bundle pointer, unused. */
    struct {
        uint32_t magic, version;
        const void *bundle;
        void *unused;
    } wrapper = {0x48495046u, 1, f->bundle, NULL};
    gcn_codeobj *co = NULL;
    assert_int_equal(gcn_codeobj_load_hip_fatbin(&wrapper, "<fatbin>", &co),
                     MGS_OK);
    check_props(co);
    gcn_codeobj_free(co);

    wrapper.magic = 0x12345678u;
    assert_int_equal(gcn_codeobj_load_hip_fatbin(&wrapper, "<fatbin>", &co),
                     MGS_EFORMAT);
    assert_null(co);
    assert_non_null(strstr(mgs_error_msg(), "<fatbin>"));
}

/* An OpenCL kernel, compiled now (the build's kernels/ are HIP): OpenCL
** gives hidden arguments, a dynamic_shared_pointer argument, type names
** and every user-SGPR enable bit at once. */
static void test_opencl_hidden_args(void **state)
{
    (void)state;
    char out[] = "/tmp/mgsim_loader_cl_XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "clang-15 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa "
             "-mcpu=gfx803 -nogpulib -Xclang -mlink-builtin-bitcode -Xclang "
             "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/opencl.bc -O3 "
             "%s/tests/unit/gcn3/data/loader_cl.cl -o %s 2>/dev/null",
             MGS_SOURCE_DIR, out);
    if (system(cmd) != 0) {
        unlink(out);
        fprintf(stderr, "# clang-15 with OpenCL device libs unavailable\n");
        skip();
    }
    gcn_codeobj *co = NULL;
    int rc = gcn_codeobj_load_file(out, &co);
    unlink(out);
    assert_int_equal(rc, MGS_OK);
    const gcn_kernel *k = gcn_codeobj_find(co, "loader_local");
    assert_non_null(k);
    assert_int_equal(k->group_segment_size, 256);   /* int fixed[64] */
    assert_int_equal(k->kernarg_size, 88);
    assert_int_equal(k->nargs, 12);
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
        {56, 8, GCN_ARG_HIDDEN_HOSTCALL_BUFFER, true, ""},
        {64, 8, GCN_ARG_HIDDEN_NONE, true, ""},
        {72, 8, GCN_ARG_HIDDEN_NONE, true, ""},
        {80, 8, GCN_ARG_HIDDEN_MULTIGRID_SYNC_ARG, true, ""},
    };
    for (uint32_t i = 0; i < 12; i++) {
        assert_int_equal(k->args[i].offset, want[i].off);
        assert_int_equal(k->args[i].size, want[i].size);
        assert_int_equal(k->args[i].kind, want[i].kind);
        assert_int_equal(k->args[i].hidden, want[i].hidden);
        assert_string_equal(k->args[i].type_name, want[i].type);
    }
    /* kernel_code_properties 0x083f: user-SGPR enables bits 0-5 (4+2*5 =
    ** 14 SGPRs), bit 11 USES_DYNAMIC_STACK; rsrc2 0x139d: scratch wave
    ** offset on, 14 user SGPRs. */
    assert_int_equal(k->code_properties, 0x083f);
    assert_true(k->sgpr_private_segment_buffer && k->sgpr_dispatch_ptr &&
                k->sgpr_queue_ptr && k->sgpr_kernarg_segment_ptr &&
                k->sgpr_dispatch_id && k->sgpr_flat_scratch_init);
    assert_false(k->sgpr_private_segment_size);
    assert_int_equal(k->user_sgpr_count, 14);
    assert_true(k->sgpr_private_segment_wave_offset);
    assert_true(k->uses_dynamic_stack);
    assert_int_equal(k->rsrc1, 0x00ac01ca);
    assert_int_equal(k->vgpr_count, 44);
    assert_int_equal(k->sgpr_count, 64);
    gcn_codeobj_free(co);
}

/* Every kernel the build compiles loads, and its fields are consistent:
** code inside .text, arguments inside
** the kernarg segment, allocated registers >= those the metadata says the
** code uses. */
static void test_all_shipped_kernels(void **state)
{
    (void)state;
    DIR *d = opendir(kernel_dir());
    assert_non_null(d);
    struct dirent *e;
    int files = 0, kernels = 0;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 7 || strcmp(e->d_name + len - 6, ".hsaco") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", kernel_dir(), e->d_name);
        gcn_codeobj *co = NULL;
        int rc = gcn_codeobj_load_file(path, &co);
        if (rc != MGS_OK) {
            fprintf(stderr, "# %s: %s\n", path, mgs_error_msg());
            fail();
        }
        files++;
        uint64_t tv;
        size_t ts;
        const uint8_t *text = gcn_codeobj_text(co, &tv, &ts);
        assert_true(gcn_codeobj_num_kernels(co) >= 1);
        for (size_t i = 0; i < gcn_codeobj_num_kernels(co); i++) {
            const gcn_kernel *k = gcn_codeobj_kernel(co, i);
            kernels++;
            assert_ptr_equal(gcn_codeobj_find(co, k->full_name), k);
            assert_true(k->code_vaddr >= tv);
            assert_true(k->code_vaddr + k->code_size <= tv + ts);
            assert_ptr_equal(k->code, text + (k->code_vaddr - tv));
            assert_true(k->code_size >= 4 && k->code_size % 4 == 0);
            assert_true(k->vgpr_count >= k->meta_vgpr_count);
            assert_true(k->sgpr_count >= k->meta_sgpr_count);
            assert_int_equal(k->wavefront_size, 64);
            assert_true(k->kernarg_align >= 4);
            for (uint32_t a = 0; a < k->nargs; a++)
                assert_true(k->args[a].offset + k->args[a].size <=
                            k->kernarg_size);
            assert_true(k->sgpr_kernarg_segment_ptr || k->kernarg_size == 0);
        }
        gcn_codeobj_free(co);
    }
    closedir(d);
    fprintf(stderr, "# %d code objects, %d kernels loaded\n", files, kernels);
    assert_true(files >= 1);
}

/* ---- errors -------------------------------------------------------------- */

static void test_missing_and_unreadable(void **state)
{
    (void)state;
    gcn_codeobj *co = NULL;
    assert_int_equal(gcn_codeobj_load_file("/nonexistent/x.hsaco", &co),
                     MGS_ENOENT);
    assert_null(co);
    assert_non_null(strstr(mgs_error_msg(), "/nonexistent/x.hsaco"));
    assert_int_equal(gcn_codeobj_load_file("/tmp", &co), MGS_EIO);
    assert_null(co);
}

static void test_empty_and_random(void **state)
{
    (void)state;
    expect_error("", 0, MGS_EFORMAT, "empty");
    uint8_t junk[4096];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof junk; i++) {
        x = x * 1103515245u + 12345u;
        junk[i] = (uint8_t)(x >> 16);
    }
    expect_error(junk, sizeof junk, MGS_EFORMAT, "not a code object");
    /* Right magics, junk after them. */
    memcpy(junk, "\177ELF", 4);
    gcn_codeobj *co = NULL;
    int rc = gcn_codeobj_load_mem(junk, sizeof junk, "j", &co);
    assert_true(is_load_error(rc));
    memcpy(junk, GCN_BUNDLE_MAGIC, GCN_BUNDLE_MAGIC_LEN);
    expect_error(junk, sizeof junk, MGS_EFORMAT, NULL);
}

static void test_foreign_architectures(void **state)
{
    fixture *f = *state;
    /* An AMDGPU ELF for gfx900: e_flags mach 0x2c. */
    uint8_t *elf = malloc(f->elf_size);
    memcpy(elf, f->elf, f->elf_size);
    elf[48] = 0x2c;
    expect_error(elf, f->elf_size, MGS_EARCH, "gfx900");
    elf[48] = 0x7e;   /* no such mach */
    expect_error(elf, f->elf_size, MGS_EARCH, "0x7e");
    free(elf);

    /* A bundle whose only GPU entry is gfx900. */
    uint8_t *b = malloc(f->bundle_size);
    memcpy(b, f->bundle, f->bundle_size);
    uint8_t *id = memmem(b, 0x200, "gfx803", 6);
    assert_non_null(id);
    memcpy(id, "gfx900", 6);
    expect_error(b, f->bundle_size, MGS_EARCH, "found: gfx900");
    free(b);

    /* A host program without a fat binary. */
    size_t n;
    uint8_t *host = slurp("/bin/true", &n);
    assert_non_null(host);
    expect_error(host, n, MGS_EARCH, "x86-64");
    free(host);
}

/* Every truncation of the bundle and of the plain ELF fails cleanly. */
static void test_truncations(void **state)
{
    fixture *f = *state;
    for (int which = 0; which < 2; which++) {
        const uint8_t *src = which ? f->elf : f->bundle;
        size_t size = which ? f->elf_size : f->bundle_size;
        for (size_t len = 0; len < size; len++) {
            /* Exact-size heap copy so ASan catches any overread. */
            uint8_t *p = malloc(len ? len : 1);
            memcpy(p, src, len);
            gcn_codeobj *co = NULL;
            int rc = gcn_codeobj_load_mem(p, len, "cut", &co);
            if (rc == MGS_OK) {
                /* Only trailing bytes no reader needs may go: the section
                ** header table is last, so nothing can be cut here. */
                fprintf(stderr, "# loaded at length %zu of %zu\n", len,
                        size);
                gcn_codeobj_free(co);
                free(p);
                fail();
            }
            assert_true(is_load_error(rc));
            free(p);
        }
    }
}

/* Flips each bit of the regions a loader parses; the result may load (a
** flip in a field nobody reads) but must never crash or mis-report. */
static void flip_region(const uint8_t *src, size_t size, size_t start,
                        size_t end, int *loaded, int *rejected)
{
    uint8_t *p = malloc(size);
    for (size_t i = start; i < end && i < size; i++) {
        for (int bit = 0; bit < 8; bit++) {
            memcpy(p, src, size);
            p[i] ^= (uint8_t)(1u << bit);
            gcn_codeobj *co = NULL;
            int rc = gcn_codeobj_load_mem(p, size, "flip", &co);
            if (rc == MGS_OK) {
                (*loaded)++;
                /* Whatever loaded must be internally consistent. */
                uint64_t tv;
                size_t ts;
                const uint8_t *t = gcn_codeobj_text(co, &tv, &ts);
                for (size_t k = 0; k < gcn_codeobj_num_kernels(co); k++) {
                    const gcn_kernel *kn = gcn_codeobj_kernel(co, k);
                    assert_non_null(kn->code);
                    for (uint32_t a = 0; a < kn->nargs; a++)
                        assert_true((uint64_t)kn->args[a].offset +
                                        kn->args[a].size <=
                                    0xffffffffull);
                    (void)t;
                }
                gcn_codeobj_free(co);
            } else {
                assert_true(is_load_error(rc));
                (*rejected)++;
            }
        }
    }
    free(p);
}

static size_t find_bytes(const uint8_t *p, size_t n, const char *s)
{
    const uint8_t *q = memmem(p, n, s, strlen(s));
    return q ? (size_t)(q - p) : 0;
}

static void test_bit_flips(void **state)
{
    fixture *f = *state;
    int loaded = 0, rejected = 0;
    /* ELF header and program/section header area. */
    flip_region(f->elf, f->elf_size, 0, 64, &loaded, &rejected);
    /* Section header table: at e_shoff. */
    uint64_t shoff;
    memcpy(&shoff, f->elf + 40, 8);
    flip_region(f->elf, f->elf_size, (size_t)shoff, (size_t)shoff + 13 * 64,
                &loaded, &rejected);
    /* The metadata note (starts at its "AMDGPU" name). */
    size_t note = find_bytes(f->elf, f->elf_size, "AMDGPU");
    assert_true(note > 0);
    flip_region(f->elf, f->elf_size, note - 12, note + 0x440, &loaded,
                &rejected);
    /* Bundle table. */
    flip_region(f->bundle, f->bundle_size, 0, 0x90, &loaded, &rejected);
    assert_true(rejected > 100);   /* the flips did hit parsed fields */
    assert_true(loaded > 0);       /* and some hit unread bytes */
}

/* Seeded random multi-byte corruption of the metadata note. */
static void test_random_metadata(void **state)
{
    fixture *f = *state;
    size_t note = find_bytes(f->elf, f->elf_size, "AMDGPU");
    uint8_t *p = malloc(f->elf_size);
    uint32_t x = 99;
    int rejected = 0;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(p, f->elf, f->elf_size);
        for (int k = 0; k < 1 + iter % 4; k++) {
            x = x * 1664525u + 1013904223u;
            size_t at = note + 8 + (x >> 8) % 0x430;
            x = x * 1664525u + 1013904223u;
            p[at] = (uint8_t)(x >> 24);
        }
        gcn_codeobj *co = NULL;
        int rc = gcn_codeobj_load_mem(p, f->elf_size, "rnd", &co);
        if (rc == MGS_OK)
            gcn_codeobj_free(co);
        else {
            assert_true(is_load_error(rc));
            rejected++;
        }
    }
    free(p);
    assert_true(rejected > 100);
}

/* Seeded random corruption anywhere in the ELF (descriptors, symbol and
** string tables, dynamic section ...) and in the bundle. */
static void test_random_anywhere(void **state)
{
    fixture *f = *state;
    uint32_t x = 7;
    int rejected = 0, loaded = 0;
    for (int which = 0; which < 2; which++) {
        const uint8_t *src = which ? f->bundle : f->elf;
        size_t size = which ? f->bundle_size : f->elf_size;
        uint8_t *p = malloc(size);
        for (int iter = 0; iter < 4000; iter++) {
            memcpy(p, src, size);
            for (int k = 0; k < 1 + iter % 8; k++) {
                x = x * 1664525u + 1013904223u;
                size_t at = (x >> 4) % size;
                x = x * 1664525u + 1013904223u;
                p[at] = (uint8_t)(x >> 24);
            }
            gcn_codeobj *co = NULL;
            int rc = gcn_codeobj_load_mem(p, size, "rnd", &co);
            if (rc == MGS_OK) {
                loaded++;
                gcn_codeobj_free(co);
            } else {
                assert_true(is_load_error(rc));
                rejected++;
            }
        }
        free(p);
    }
    assert_true(rejected > 500);
    assert_true(loaded > 500);
}

static void test_msgpack_validator(void **state)
{
    (void)state;
    /* {"a": [1, 2]} */
    const uint8_t ok[] = {0x81, 0xa1, 'a', 0x92, 0x01, 0x02};
    assert_int_equal(gcn_msgpack_validate(ok, sizeof ok), 6);
    assert_int_equal(gcn_msgpack_validate(ok, 5), -1);
    /* array32 claiming 2^32-1 elements in 9 bytes */
    const uint8_t huge[] = {0xdd, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4};
    assert_int_equal(gcn_msgpack_validate(huge, sizeof huge), -1);
    /* str32 longer than the buffer */
    const uint8_t str[] = {0xdb, 0x00, 0x01, 0x00, 0x00, 'x'};
    assert_int_equal(gcn_msgpack_validate(str, sizeof str), -1);
    /* 0xc1 is never used */
    const uint8_t c1[] = {0xc1};
    assert_int_equal(gcn_msgpack_validate(c1, 1), -1);
    /* 40 nested one-element arrays */
    uint8_t deep[41];
    memset(deep, 0x91, 40);
    deep[40] = 0x00;
    assert_int_equal(gcn_msgpack_validate(deep, 41), -1);
    assert_int_equal(gcn_msgpack_validate(deep + 20, 21), 21);
}

static void test_arg_kinds_and_bundle_ids(void **state)
{
    (void)state;
    gcn_arg_kind k;
    assert_true(gcn_metadata_arg_kind("by_value", 8, &k));
    assert_int_equal(k, GCN_ARG_BY_VALUE);
    assert_true(gcn_metadata_arg_kind("hidden_block_count_y", 20, &k));
    assert_int_equal(k, GCN_ARG_HIDDEN_BLOCK_COUNT_Y);
    assert_true(gcn_metadata_arg_kind("hidden_future_thing", 19, &k));
    assert_int_equal(k, GCN_ARG_HIDDEN_OTHER);
    assert_false(gcn_metadata_arg_kind("image", 5, &k));

    char proc[32];
    const char *id = "hipv4-amdgcn-amd-amdhsa--gfx803";
    assert_true(gcn_bundle_id_processor(id, strlen(id), proc, sizeof proc));
    assert_string_equal(proc, "gfx803");
    id = "hipv4-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack-";
    assert_true(gcn_bundle_id_processor(id, strlen(id), proc, sizeof proc));
    assert_string_equal(proc, "gfx906");
    id = "hip-amdgcn-amd-amdhsa-gfx803";
    assert_true(gcn_bundle_id_processor(id, strlen(id), proc, sizeof proc));
    assert_string_equal(proc, "gfx803");
    id = "host-x86_64-unknown-linux";
    assert_false(gcn_bundle_id_processor(id, strlen(id), proc, sizeof proc));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_bundle_file),
        cmocka_unit_test(test_load_plain_elf),
        cmocka_unit_test(test_image_is_private_copy),
        cmocka_unit_test(test_hip_fatbin_wrapper),
        cmocka_unit_test(test_opencl_hidden_args),
        cmocka_unit_test(test_all_shipped_kernels),
        cmocka_unit_test(test_missing_and_unreadable),
        cmocka_unit_test(test_empty_and_random),
        cmocka_unit_test(test_foreign_architectures),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_bit_flips),
        cmocka_unit_test(test_random_metadata),
        cmocka_unit_test(test_random_anywhere),
        cmocka_unit_test(test_msgpack_validator),
        cmocka_unit_test(test_arg_kinds_and_bundle_ids),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
