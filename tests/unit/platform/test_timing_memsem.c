/*
** Memory semantics the timing model must keep although many work-groups
** run at once:
**   - scratch (private segment): every resident wave needs its own slot
**     (cu.h: scratch_slot_base; the runtime sizes the scratch for all wave
**     slots of the platform). kernels/private_array.hip keeps a 48-int
**     array in scratch (indexed by a thread-dependent value); 128
**     work-groups of one wave run concurrently on 4-CU GPUs, every output
**     checked against the CPU in emu mode, in timing mode on 1 GPU and
**     spread over 2 unified GPUs (their CUs use disjoint slots). With a
**     slot per work-group index (the old layout) 8128 of 8192 were wrong.
**   - __threadfence: buffer_wbinvl1_vol invalidates the wave's L1V
**     (cu_issue.c). kernels/fence_pass.hip: work-group 1 reads the (zero)
**     data, lets work-group 0 write i + 1 to data[i], waits for its flag,
**     fences and reads again. Without the invalidation the second read hits
**     the stale lines in the L1V and sums zeros.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/config.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"

#define N 8192
#define BLOCK 64

static void check_ok(int rc, const char *what)
{
    if (rc != MGS_OK)
        fail_msg("%s: %s", what, mgs_error_msg());
}

/* A runtime of `gpus` 4-CU GPUs with kernel `name` of kernels/<file>. cfg
** must outlive the runtime. */
static mgs_rt *open_rt(mgs_config *cfg, mgs_mode mode, int gpus,
                       const char *platform, const char *file,
                       const char *name, mgs_kernel **k)
{
    mgs_config_defaults(cfg);
    check_ok(mgs_config_set(cfg, "gpu.num_cus=4", "test"), "config");
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.mode = mode;
    o.num_gpus = gpus;
    o.mem_per_gpu = 256ull << 20;
    o.platform = platform;
    o.config = cfg;
    mgs_rt *rt;
    check_ok(mgs_rt_new(&o, &rt), "runtime");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", MGS_KERNEL_DIR, file);
    mgs_module *m;
    check_ok(mgs_module_load(rt, path, &m), "module");
    check_ok(mgs_module_kernel(m, name, k), "kernel");
    return rt;
}

/* ---- scratch ---- */

static int expected(int x)
{
    int a[48], s = 0;
    for (int i = 0; i < 48; i++)
        a[i] = x * (i + 1) + i;
    for (int i = 0; i < 48; i++)
        s += a[(i * 7 + x) % 48];
    return s;
}

/* Runs private_sum over N inputs and returns the number of wrong outputs. */
static int run_private(mgs_mode mode, int gpus, const char *platform,
                       int launch_gpu)
{
    mgs_config cfg;
    mgs_kernel *k;
    mgs_rt *rt = open_rt(&cfg, mode, gpus, platform, "private_array.hsaco",
                         "private_sum", &k);
    int *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
    for (int i = 0; i < N; i++)
        in[i] = (i * 37 + 11) % 1000;
    mgs_dptr din, dout;
    check_ok(mgs_malloc(rt, launch_gpu, N * sizeof *in, &din), "malloc in");
    check_ok(mgs_malloc(rt, launch_gpu, N * sizeof *out, &dout), "malloc out");
    check_ok(mgs_memcpy_h2d(rt, din, in, N * sizeof *in), "h2d");
    check_ok(mgs_memset(rt, dout, 0, N * sizeof *out), "memset");
    struct { uint64_t in, out; uint32_t n; } args = {din, dout, N};
    mgs_launch l = {.grid = {N, 1, 1}, .block = {BLOCK, 1, 1},
                    .args = &args, .args_size = 20, .gpu = launch_gpu};
    check_ok(mgs_launch_kernel(rt, k, &l), "launch");
    check_ok(mgs_synchronize(rt), "sync");
    check_ok(mgs_memcpy_d2h(rt, out, dout, N * sizeof *out), "d2h");
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != expected(in[i]);
    free(in);
    free(out);
    mgs_rt_free(rt);
    return bad;
}

static void test_scratch_emu(void **state)
{
    (void)state;
    assert_int_equal(run_private(MGS_MODE_EMU, 1, "discrete", 0), 0);
}

static void test_scratch_timing_one_gpu(void **state)
{
    (void)state;
    assert_int_equal(run_private(MGS_MODE_TIMING, 1, "discrete", 0), 0);
}

static void test_scratch_timing_unified(void **state)
{
    (void)state;
    assert_int_equal(run_private(MGS_MODE_TIMING, 2, "unified", MGS_GPU_ALL),
                     0);
}

/* ---- __threadfence ---- */

#define FENCE_N 256

static void test_fence_sees_other_workgroup(void **state)
{
    (void)state;
    mgs_config cfg;
    mgs_kernel *k;
    mgs_rt *rt = open_rt(&cfg, MGS_MODE_TIMING, 1, "discrete",
                         "fence_pass.hsaco", "fence_pass", &k);
    mgs_dptr data, flags, out;
    check_ok(mgs_malloc(rt, 0, FENCE_N * 4, &data), "malloc");
    check_ok(mgs_malloc(rt, 0, 2 * 4, &flags), "malloc");
    check_ok(mgs_malloc(rt, 0, 2 * BLOCK * 4, &out), "malloc");
    check_ok(mgs_memset(rt, data, 0, FENCE_N * 4), "memset");
    check_ok(mgs_memset(rt, flags, 0, 2 * 4), "memset");
    struct { uint64_t data, flags, out; uint32_t n; } args = {data, flags,
                                                              out, FENCE_N};
    mgs_launch l = {.grid = {2 * BLOCK, 1, 1}, .block = {BLOCK, 1, 1},
                    .args = &args, .args_size = 28, .gpu = 0};
    check_ok(mgs_launch_kernel(rt, k, &l), "launch");
    check_ok(mgs_synchronize(rt), "sync");
    int32_t res[2 * BLOCK];
    check_ok(mgs_memcpy_d2h(rt, res, out, sizeof res), "d2h");
    for (int t = 0; t < BLOCK; t++) {
        int want = 0;
        for (int i = t; i < FENCE_N; i += BLOCK)
            want += i + 1;
        assert_int_equal(res[BLOCK + t], 0); /* the first read: old data */
        assert_int_equal(res[t], want);      /* after the fence: new data */
    }
    mgs_rt_free(rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scratch_emu),
        cmocka_unit_test(test_scratch_timing_one_gpu),
        cmocka_unit_test(test_scratch_timing_unified),
        cmocka_unit_test(test_fence_sees_other_workgroup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
