/*
** The runtime end to end (src/runtime/runtime.c + src/gcn3/emu.c + real
** gfx803 code objects): every workload of this module at its small size,
** single GPU and unified multi-GPU; a corrupted output caught as
** MGS_EVERIFY; an out-of-bounds kernel read reported as MGS_EFAULT with
** the address; launch/argument/module errors; the live progress of a
** multi-GPU launch in timing mode.
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
#include "workloads/workload.h"

#include "rt_rig.h"

static mgs_rt *new_rt(int gpus)
{
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.num_gpus = gpus;
    o.mem_per_gpu = 256ull << 20;
    mgs_rt *rt = NULL;
    assert_int_equal(mgs_rt_new(&o, &rt), MGS_OK);
    return rt;
}

static wl_args small_args(const mgs_workload *wl, int gpus, int gpu_all)
{
    wl_args a;
    memset(&a, 0, sizeof a);
    a.seed = 42;
    a.num_gpus = gpus;
    a.gpu_all = gpu_all;
    for (int i = 0; i < WL_MAX_PARAMS && wl->params[i].name; i++)
        a.param[i] = wl->params[i].small;
    return a;
}

static void run_small(const char *name, int gpus, int gpu_all)
{
    const mgs_workload *wl = wl_find(name);
    assert_non_null(wl);
    mgs_rt *rt = new_rt(gpus);
    wl_args a = small_args(wl, gpus, gpu_all);
    int rc = wl->run(rt, &a);
    if (rc)
        fail_msg("%s on %d GPU(s): %s", name, gpus, mgs_error_msg());
    mgs_rt_totals t;
    mgs_rt_totals_get(rt, &t);
    assert_true(t.kernels >= 1);
    assert_true(t.wf_insts > 100);
    uint64_t sum = 0;
    for (int g = 0; g < gpus; g++) {
        sum += mgs_rt_gpu_workgroups(rt, g);
        if (gpus > 1)
            assert_true(mgs_rt_gpu_workgroups(rt, g) > 0);
    }
    assert_true(sum == t.workgroups);
    mgs_rt_free(rt);
}

static void test_vecadd(void **s) { (void)s; run_small("vecadd", 1, 0); }
static void test_mm(void **s) { (void)s; run_small("mm", 1, 0); }
static void test_mt(void **s) { (void)s; run_small("mt", 1, 0); }
static void test_fpdiv(void **s) { (void)s; run_small("fpdiv", 1, 0); }

static void test_multi_gpu(void **s)
{
    (void)s;
    run_small("mm", 2, 1);     /* unified: one launch over both GPUs */
    run_small("mt", 3, 0);     /* discrete: one launch per GPU */
    run_small("vecadd", 4, 1);
}

/* Launch hook that overwrites c[0] of vecadd after the kernel ran. */
static void corrupt_c(mgs_rt *rt, const mgs_kernel *k, const mgs_launch *l,
                      void *user)
{
    uint32_t off, size;
    assert_int_equal(mgs_kernel_arg_offset(k, 2, &off, &size), MGS_OK);
    assert_int_equal(size, 8);
    mgs_dptr c;
    memcpy(&c, (const uint8_t *)l->args + off, 8);
    float bad = 12345.0f;
    assert_int_equal(mgs_memcpy_h2d(rt, c, &bad, 4), MGS_OK);
    (*(int *)user)++;
}

static void test_verify_catches_corruption(void **s)
{
    (void)s;
    const mgs_workload *wl = wl_find("vecadd");
    mgs_rt *rt = new_rt(1);
    int calls = 0;
    mgs_rt_set_launch_hook(rt, corrupt_c, &calls);
    wl_args a = small_args(wl, 1, 0);
    assert_int_equal(wl->run(rt, &a), MGS_EVERIFY);
    assert_int_equal(calls, 1);
    assert_non_null(strstr(mgs_error_msg(), "c[0] = 12345"));
    mgs_rt_free(rt);
}

typedef struct vecadd_args {
    mgs_dptr a, b, c;
    uint32_t n;
} vecadd_args;

static void load_vecadd(mgs_rt *rt, mgs_kernel **k)
{
    char path[4096];
    wl_kernel_path("vecadd.hsaco", path, sizeof path);
    mgs_module *m;
    assert_int_equal(mgs_module_load(rt, path, &m), MGS_OK);
    assert_int_equal(mgs_module_kernel(m, "vecadd", k), MGS_OK);
}

/* The bounds rule (docs/runtime.md "Bounds"): vecadd over buffers of 1000
** floats told n = 2048. Pages are 4 KiB and every allocation is followed by
** an unmapped guard page: lanes 1000-1023 read the rest of a's page
** (mapped: no fault, as on a GPU), lane 1024 reads a's guard page, which
** faults, with kernel, wave, PC and address, in both modes;
** sim.strict_bounds faults at the end of a instead, in both modes, with
** the same PC, address and size (the message from "pc" on is returned,
** to be freed). */
static char *bounds_run(mgs_mode mode, bool strict)
{
    mgs_config cfg;
    mgs_config_defaults(&cfg);
    if (strict)
        assert_int_equal(mgs_config_set(&cfg, "sim.strict_bounds=true", "test"),
                         MGS_OK);
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.num_gpus = 1;
    o.mem_per_gpu = 256ull << 20;
    o.mode = mode;
    o.config = &cfg;
    mgs_rt *rt = NULL;
    assert_int_equal(mgs_rt_new(&o, &rt), MGS_OK);
    mgs_kernel *k;
    load_vecadd(rt, &k);
    vecadd_args args;
    assert_int_equal(mgs_malloc(rt, 0, 4000, &args.a), MGS_OK);
    assert_int_equal(mgs_malloc(rt, 0, 4000, &args.b), MGS_OK);
    assert_int_equal(mgs_malloc(rt, 0, 4000, &args.c), MGS_OK);
    args.n = 2048;
    mgs_launch l = {.grid = {2048, 1, 1}, .block = {256, 1, 1},
                    .args = &args, .args_size = 28, .gpu = 0};
    int rc = mgs_launch_kernel(rt, k, &l);
    if (!rc)
        rc = mgs_synchronize(rt);
    assert_int_equal(rc, MGS_EFAULT);
    /* Emu runs the lanes in order; timing reports the first fault to
    ** arrive, some lane's in the guard page. */
    const char *msg = mgs_error_msg(), *at = strstr(msg, "fault at address 0x");
    if (!at)
        fail_msg("no fault address in '%s'", msg);
    uint64_t addr = strtoull(at + strlen("fault at address "), NULL, 16);
    uint64_t lo = strict ? args.a + 4000 : args.a + 4096;
    uint64_t hi = strict || mode == MGS_MODE_EMU ? lo : args.a + 8191;
    if (addr < lo || addr > hi)
        fail_msg("%s: fault at 0x%llx, expected 0x%llx..0x%llx ('%s')",
                 mode ? "timing" : "emu", (unsigned long long)addr,
                 (unsigned long long)lo, (unsigned long long)hi, msg);
    assert_non_null(strstr(msg, "kernel vecadd wave ("));
    const char *pc = strstr(msg, "pc 0x");
    assert_non_null(pc);
    if (strict)
        assert_non_null(strstr(msg, "(read of 4 bytes)"));
    char *tail = strdup(pc);
    mgs_rt_free(rt);
    return tail;
}

static void test_fault_reports_address(void **s)
{
    (void)s;
    mgs_rt *rt = new_rt(1);
    mgs_kernel *k;
    load_vecadd(rt, &k);
    assert_string_equal(mgs_kernel_name(k), "vecadd");
    assert_int_equal(mgs_kernel_arg_count(k), 4);
    uint32_t off, size;
    assert_int_equal(mgs_kernel_arg_offset(k, 3, &off, &size), MGS_OK);
    assert_int_equal(off, 24);
    assert_int_equal(size, 4);
    assert_int_equal(mgs_kernel_arg_offset(k, 4, &off, &size), MGS_EINVAL);
    mgs_rt_free(rt);
    free(bounds_run(MGS_MODE_EMU, false));
    free(bounds_run(MGS_MODE_TIMING, false));
    char *emu = bounds_run(MGS_MODE_EMU, true);
    char *timing = bounds_run(MGS_MODE_TIMING, true);
    assert_string_equal(emu, timing);
    free(emu);
    free(timing);
}

/* Scratch through FLAT private pointers and a real function call
** (kernels/emu_scratch.hip). */
static void test_scratch_and_calls(void **s)
{
    (void)s;
    mgs_rt *rt = new_rt(1);
    char path[4096];
    wl_kernel_path("emu_scratch.hsaco", path, sizeof path);
    mgs_module *m;
    mgs_kernel *k;
    assert_int_equal(mgs_module_load(rt, path, &m), MGS_OK);
    assert_int_equal(mgs_module_kernel(m, "emu_scratch", &k), MGS_OK);
    enum { N = 200 };
    int idx[N], out[N];
    for (int i = 0; i < N; i++)
        idx[i] = (i * 7 + 3) % 41;
    struct { mgs_dptr idx, out; uint32_t n; } args;
    assert_int_equal(mgs_malloc(rt, 0, sizeof idx, &args.idx), MGS_OK);
    assert_int_equal(mgs_malloc(rt, 0, sizeof out, &args.out), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(rt, args.idx, idx, sizeof idx), MGS_OK);
    args.n = N;
    mgs_launch l = {.grid = {256, 1, 1}, .block = {128, 1, 1},
                    .args = &args, .args_size = 20, .gpu = 0};
    int rc = mgs_launch_kernel(rt, k, &l);
    if (rc)
        fail_msg("%s", mgs_error_msg());
    assert_int_equal(mgs_memcpy_d2h(rt, out, args.out, sizeof out), MGS_OK);
    for (int i = 0; i < N; i++) {
        int arr[32];
        for (int j = 0; j < 32; j++)
            arr[j] = i * 32 + j;
        int kk = idx[i] & 31;
        arr[kk] += 1000;
        int sum = 0;
        for (int j = 0; j <= kk; j++)
            sum += arr[j];
        assert_int_equal(out[i], arr[(kk + 1) & 31] + arr[kk] + sum);
    }
    mgs_rt_free(rt);
}

/* The live progress of a launch over 4 unified GPUs (timing mode, small
** GPUs), seen at every check of the engine: its work-group total stays the
** launch's while the GPUs finish their shares one by one (it once dropped
** each finished GPU's share), and done reaches it. */
typedef struct progress_seen {
    uint64_t calls, total_min, total_max, done_max;
} progress_seen;

static void note_progress(mgs_rt *rt, const mgs_rt_progress *p, void *user)
{
    (void)rt;
    progress_seen *v = user;
    if (!p->wgs_total)
        return;                 /* a copy */
    v->calls++;
    if (!v->total_min || p->wgs_total < v->total_min)
        v->total_min = p->wgs_total;
    if (p->wgs_total > v->total_max)
        v->total_max = p->wgs_total;
    if (p->wgs_done > v->done_max)
        v->done_max = p->wgs_done;
    assert_true(p->wgs_done <= p->wgs_total);
}

static void test_progress_totals_hold(void **s)
{
    (void)s;
    rt_rig r;
    rt_rig_init(&r, MGS_MODE_TIMING, 4, "unified", NULL);
    mgs_rt *rt = r.rt;
    progress_seen v = {0};
    mgs_rt_set_progress_hook(rt, note_progress, &v, 1e-9);
    const mgs_workload *wl = wl_find("mm");
    wl_args a = small_args(wl, 4, 1);
    if (wl->run(rt, &a))
        fail_msg("%s", mgs_error_msg());
    mgs_rt_totals t;
    mgs_rt_totals_get(rt, &t);
    assert_int_equal(t.kernels, 1);
    assert_true(v.calls > 10);
    assert_int_equal(v.total_min, t.workgroups);
    assert_int_equal(v.total_max, t.workgroups);
    assert_int_equal(v.done_max, t.workgroups);
    rt_rig_fini(&r);
}

static void test_launch_errors(void **s)
{
    (void)s;
    mgs_rt *rt = new_rt(2);
    mgs_kernel *k;
    load_vecadd(rt, &k);
    vecadd_args args = {0, 0, 0, 0};
    mgs_launch l = {.grid = {64, 1, 1}, .block = {64, 1, 1}, .args = &args,
                    .args_size = 16, .gpu = 0};
    assert_int_equal(mgs_launch_kernel(rt, k, &l), MGS_EINVAL); /* args */
    l.args_size = 28;
    l.block[0] = 2048;
    assert_int_equal(mgs_launch_kernel(rt, k, &l), MGS_EINVAL); /* block */
    l.block[0] = 0;
    assert_int_equal(mgs_launch_kernel(rt, k, &l), MGS_EINVAL);
    l.block[0] = 64;
    l.gpu = 2;
    assert_int_equal(mgs_launch_kernel(rt, k, &l), MGS_EINVAL); /* gpu */
    /* n = 0: every lane is masked off; the launch succeeds. */
    l.gpu = MGS_GPU_ALL;
    assert_int_equal(mgs_launch_kernel(rt, k, &l), MGS_OK);
    mgs_rt_totals t;
    mgs_rt_totals_get(rt, &t);
    assert_true(t.kernels == 1 && t.workgroups == 1 && t.wavefronts == 1);
    mgs_module *m;
    assert_int_equal(mgs_module_load(rt, "/nonexistent/x.hsaco", &m),
                     MGS_ENOENT);
    char path[4096];
    wl_kernel_path("vecadd.hsaco", path, sizeof path);
    assert_int_equal(mgs_module_load(rt, path, &m), MGS_OK);
    assert_int_equal(mgs_module_kernel(m, "nope", &k), MGS_ENOENT);
    mgs_rt_free(rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vecadd),
        cmocka_unit_test(test_mm),
        cmocka_unit_test(test_mt),
        cmocka_unit_test(test_fpdiv),
        cmocka_unit_test(test_multi_gpu),
        cmocka_unit_test(test_verify_catches_corruption),
        cmocka_unit_test(test_fault_reports_address),
        cmocka_unit_test(test_scratch_and_calls),
        cmocka_unit_test(test_launch_errors),
        cmocka_unit_test(test_progress_totals_hold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
