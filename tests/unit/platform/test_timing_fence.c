/*
** __threadfence in timing mode: buffer_wbinvl1_vol invalidates the wave's
** L1V (cu_issue.c), so data another work-group wrote after this one cached
** it is seen after the fence. kernels/fence_pass.hip: work-group 1 reads
** the (zero) data, lets work-group 0 write i + 1 to data[i], waits for its
** flag, fences and reads again. Without the invalidation the second read
** hits the stale lines in the L1V and sums zeros.
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

#define N 256
#define BLOCK 64

static void check_ok(int rc, const char *what)
{
    if (rc != MGS_OK)
        fail_msg("%s: %s", what, mgs_error_msg());
}

static void test_fence_sees_other_workgroup(void **state)
{
    (void)state;
    mgs_config cfg;
    mgs_config_defaults(&cfg);
    check_ok(mgs_config_set(&cfg, "gpu.num_cus=4", "test"), "config");
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.mode = MGS_MODE_TIMING;
    o.mem_per_gpu = 64ull << 20;
    o.config = &cfg;
    mgs_rt *rt;
    check_ok(mgs_rt_new(&o, &rt), "runtime");
    char path[4096];
    snprintf(path, sizeof path, "%s/fence_pass.hsaco", MGS_KERNEL_DIR);
    mgs_module *m;
    mgs_kernel *k;
    check_ok(mgs_module_load(rt, path, &m), "module");
    check_ok(mgs_module_kernel(m, "fence_pass", &k), "kernel");
    mgs_dptr data, flags, out;
    check_ok(mgs_malloc(rt, 0, N * 4, &data), "malloc");
    check_ok(mgs_malloc(rt, 0, 2 * 4, &flags), "malloc");
    check_ok(mgs_malloc(rt, 0, 2 * BLOCK * 4, &out), "malloc");
    check_ok(mgs_memset(rt, data, 0, N * 4), "memset");
    check_ok(mgs_memset(rt, flags, 0, 2 * 4), "memset");
    struct { uint64_t data, flags, out; uint32_t n; } args = {data, flags,
                                                              out, N};
    mgs_launch l = {.grid = {2 * BLOCK, 1, 1}, .block = {BLOCK, 1, 1},
                    .args = &args, .args_size = 28, .gpu = 0};
    check_ok(mgs_launch_kernel(rt, k, &l), "launch");
    check_ok(mgs_synchronize(rt), "sync");
    int32_t res[2 * BLOCK];
    check_ok(mgs_memcpy_d2h(rt, res, out, sizeof res), "d2h");
    for (int t = 0; t < BLOCK; t++) {
        int want = 0;
        for (int i = t; i < N; i += BLOCK)
            want += i + 1;
        assert_int_equal(res[BLOCK + t], 0); /* the first read: old data */
        assert_int_equal(res[t], want);      /* after the fence: new data */
    }
    mgs_rt_free(rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fence_sees_other_workgroup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
