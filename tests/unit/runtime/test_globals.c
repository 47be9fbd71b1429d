/*
** Code objects' data segments in device memory (src/gcn3/codeobj_image.c,
** mgs_module_global in src/runtime/runtime.c; docs/codeobj.md "Data
** segments") with kernels/loader_globals.hip: a kernel reading a constant
** table local to it, a __constant__ array the host sets, a relocated
** __device__ pointer and a __device__ counter, in emu and timing mode, with
** a copy of the variables per GPU; a relocation of an unsupported type is
** refused when the module loads.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gelf.h>

#include "rt_rig.h"
#include "workloads/workload.h"

#define N 1000

static const unsigned char lut[16] = {3, 1, 4, 1, 5, 9, 2, 6,
                                      5, 3, 5, 8, 9, 7, 9, 3};

static mgs_module *load(mgs_rt *rt)
{
    char path[4096];
    wl_kernel_path("loader_globals.hsaco", path, sizeof path);
    mgs_module *m;
    assert_int_equal(mgs_module_load(rt, path, &m), MGS_OK);
    return m;
}

/* Runs loader_globals on gpu with coefficients c; checks every output and
** the counter. */
static void run_on(mgs_rt *rt, mgs_module *m, int gpu, const int c[4])
{
    mgs_dptr coeff, counter;
    size_t size;
    assert_int_equal(mgs_module_global(m, gpu, "globals_coeff", &coeff,
                                       &size), MGS_OK);
    assert_int_equal(size, 16);
    assert_int_equal(mgs_memcpy_h2d(rt, coeff, c, 16), MGS_OK);
    assert_int_equal(mgs_module_global(m, gpu, "globals_counter", &counter,
                                       &size), MGS_OK);
    assert_int_equal(size, 4);

    unsigned char in[N];
    for (int i = 0; i < N; i++)
        in[i] = (unsigned char)(i * 37 + 11);
    mgs_dptr din, dout;
    assert_int_equal(mgs_malloc(rt, gpu, N, &din), MGS_OK);
    assert_int_equal(mgs_malloc(rt, gpu, 4 * N, &dout), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(rt, din, in, N), MGS_OK);
    mgs_kernel *k;
    assert_int_equal(mgs_module_kernel(m, "loader_globals", &k), MGS_OK);
    struct { uint64_t in, out; int32_t n; } args = {din, dout, N};
    /* A whole number of work-groups, as HIP launches them (blockDim.x of
    ** a partial last group would be its remainder). */
    mgs_launch l = {.grid = {1024, 1, 1}, .block = {256, 1, 1},
                    .args = &args, .args_size = sizeof args, .gpu = gpu};
    int rc = mgs_launch_kernel(rt, k, &l);
    if (rc == MGS_OK)
        rc = mgs_synchronize(rt);
    if (rc)
        fail_msg("launch on GPU %d: %s", gpu, mgs_error_msg());
    int out[N], count = -1;
    assert_int_equal(mgs_memcpy_d2h(rt, out, dout, sizeof out), MGS_OK);
    assert_int_equal(mgs_memcpy_d2h(rt, &count, counter, 4), MGS_OK);
    static const int offs[3] = {7, 11, 13};
    for (int i = 0; i < N; i++)
        if (out[i] != lut[in[i] & 15] * c[i & 3] + offs[i % 3])
            fail_msg("GPU %d out[%d] = %d, expected %d", gpu, i, out[i],
                     lut[in[i] & 15] * c[i & 3] + offs[i % 3]);
    assert_int_equal(count, N);
}

static void globals_on_two_gpus(mgs_mode mode)
{
    rt_rig r;
    rt_rig_init(&r, mode, 2, "discrete", NULL);
    mgs_module *m = load(r.rt);
    /* The relocated pointer holds the address of its GPU's own copy. */
    mgs_dptr offs[2], ptr[2];
    size_t size;
    for (int g = 0; g < 2; g++) {
        assert_int_equal(mgs_module_global(m, g, "globals_offsets", &offs[g],
                                           &size), MGS_OK);
        assert_int_equal(size, 12);
        assert_int_equal(mgs_module_global(m, g, "globals_offsets_ptr",
                                           &ptr[g], &size), MGS_OK);
        uint64_t v = 0;
        assert_int_equal(mgs_memcpy_d2h(r.rt, &v, ptr[g], 8), MGS_OK);
        assert_int_equal(v, offs[g]);
        int init[3];
        assert_int_equal(mgs_memcpy_d2h(r.rt, init, offs[g], 12), MGS_OK);
        assert_int_equal(init[0], 7);
        assert_int_equal(init[2], 13);
    }
    assert_true(offs[0] != offs[1]);
    assert_int_equal(mgs_rt_gpu_of(r.rt, offs[1]), 1);
    static const int c0[4] = {1, 2, 3, 4}, c1[4] = {-5, 6, 70, 8};
    run_on(r.rt, m, 0, c0);
    run_on(r.rt, m, 1, c1);
    mgs_rt_totals t;
    mgs_rt_totals_get(r.rt, &t);
    assert_int_equal(t.kernels, 2);
    rt_rig_fini(&r);
}

static void test_globals_emu(void **s)
{
    (void)s;
    globals_on_two_gpus(MGS_MODE_EMU);
}

static void test_globals_timing(void **s)
{
    (void)s;
    globals_on_two_gpus(MGS_MODE_TIMING);
}

static void test_global_errors(void **s)
{
    (void)s;
    rt_rig r;
    rt_rig_init(&r, MGS_MODE_EMU, 1, "discrete", NULL);
    mgs_module *m = load(r.rt);
    mgs_dptr a;
    size_t size;
    assert_int_equal(mgs_module_global(m, 0, "no_such_var", &a, &size),
                     MGS_ENOENT);
    assert_non_null(strstr(mgs_error_msg(), "no_such_var"));
    assert_int_equal(mgs_module_global(m, 3, "globals_coeff", &a, &size),
                     MGS_EINVAL);
    rt_rig_fini(&r);
}

/* The AMDGPU ELF inside the bundle, read whole. */
static uint8_t *read_elf(size_t *size)
{
    char path[4096];
    wl_kernel_path("loader_globals.hsaco", path, sizeof path);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    for (long i = 0; i + 4 <= n; i++)
        if (memcmp(b + i, ELFMAG, SELFMAG) == 0) {
            memmove(b, b + i, (size_t)(n - i));
            *size = (size_t)(n - i);
            return b;
        }
    fail_msg("no ELF in %s", path);
    return NULL;
}

static void test_unsupported_relocation_refused(void **s)
{
    (void)s;
    size_t size;
    uint8_t *img = read_elf(&size);
    elf_version(EV_CURRENT);
    Elf *e = elf_memory((char *)img, size);
    assert_non_null(e);
    size_t shstr;
    assert_int_equal(elf_getshdrstrndx(e, &shstr), 0);
    Elf_Scn *scn = NULL;
    uint64_t rela_off = 0;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        gelf_getshdr(scn, &sh);
        if (sh.sh_type == SHT_RELA && sh.sh_size >= sizeof(Elf64_Rela))
            rela_off = sh.sh_offset;
    }
    elf_end(e);
    assert_true(rela_off != 0);   /* the relocated pointer needs one */
    img[rela_off + 8] = 99;       /* r_info's type byte */
    rt_rig r;
    rt_rig_init(&r, MGS_MODE_EMU, 1, "discrete", NULL);
    mgs_module *m;
    assert_int_equal(mgs_module_load_mem(r.rt, img, size, "patched", &m),
                     MGS_EFORMAT);
    assert_non_null(strstr(mgs_error_msg(), "relocation type 99"));
    rt_rig_fini(&r);
    free(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_globals_emu),
        cmocka_unit_test(test_globals_timing),
        cmocka_unit_test(test_global_errors),
        cmocka_unit_test(test_unsupported_relocation_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
