/*
** The Locality API (include/mgsim/runtime.h, seed 002 §5.3.2), in emu and
** timing mode on small unified GPUs:
**   - discovery: a unified runtime, its members, their memory and CUs;
**   - memory placement: pages move with their bytes (also bytes a kernel
**     left in the caches), every page table follows; whole pages only;
**   - compute placement: a launch with a work-group list runs exactly
**     those work-groups on that member (per-GPU counts, and the elements a
**     vecadd writes show the ids are the grid's real ones); predicate
**     launches on every member together cover the grid once;
**   - errors: not unified, no such member, empty list, id off the grid.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/runtime/rt_rig.h"
#include "workloads/workload.h"

enum { N = 8192, WG = 256, NWG = N / WG };   /* 32 work-groups */

typedef struct vecadd_args {
    mgs_dptr a, b, c;
    uint32_t n;
} vecadd_args;

typedef struct rig {
    rt_rig env;
    mgs_rt *rt;
    mgs_kernel *k;
    vecadd_args args;
    float a[N], b[N], c[N];
} rig;

/* gpus small GPUs of `platform`, vecadd loaded, a and b uploaded, c
** zeroed (all three spread over the GPUs). */
static rig *rig_new(mgs_mode mode, int gpus, const char *platform)
{
    rig *r = calloc(1, sizeof *r);
    rt_rig_init(&r->env, mode, gpus, platform, NULL);
    r->rt = r->env.rt;
    char path[4096];
    wl_kernel_path("vecadd.hsaco", path, sizeof path);
    mgs_module *mod;
    assert_int_equal(mgs_module_load(r->rt, path, &mod), MGS_OK);
    assert_int_equal(mgs_module_kernel(mod, "vecadd", &r->k), MGS_OK);
    for (int i = 0; i < N; i++) {
        r->a[i] = (float)i;
        r->b[i] = (float)(3 * i + 1);
    }
    r->args.n = N;
    mgs_dptr *bufs[] = {&r->args.a, &r->args.b, &r->args.c};
    for (int i = 0; i < 3; i++)
        assert_int_equal(mgs_malloc(r->rt, MGS_GPU_ALL, sizeof r->a, bufs[i]),
                         MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(r->rt, r->args.a, r->a, sizeof r->a),
                     MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(r->rt, r->args.b, r->b, sizeof r->b),
                     MGS_OK);
    assert_int_equal(mgs_memset(r->rt, r->args.c, 0, sizeof r->c), MGS_OK);
    return r;
}

static void rig_free(rig *r)
{
    rt_rig_fini(&r->env);
    free(r);
}

static mgs_launch vecadd_launch(rig *r, int gpu)
{
    return (mgs_launch){.grid = {N, 1, 1}, .block = {WG, 1, 1},
                        .args = &r->args, .args_size = 28, .gpu = gpu};
}

/* c back from the device; the number of elements i with c[i] = a + b
** (the others must be 0); in_wg[w] says whether work-group w's are. */
static int read_c(rig *r, bool in_wg[NWG])
{
    assert_int_equal(mgs_memcpy_d2h(r->rt, r->c, r->args.c, sizeof r->c),
                     MGS_OK);
    int done = 0;
    memset(in_wg, 0, NWG * sizeof *in_wg);
    for (int i = 0; i < N; i++) {
        if (r->c[i] == r->a[i] + r->b[i]) {
            done++;
            in_wg[i / WG] = true;
        } else {
            assert_true(r->c[i] == 0.0f);
        }
    }
    return done;
}

static uint64_t wgs_of(rig *r, int g)
{
    return mgs_rt_gpu_workgroups(r->rt, g);
}

/* ---- discovery ---- */

static void test_discovery(void **state)
{
    (void)state;
    rig *r = rig_new(MGS_MODE_EMU, 4, "unified");
    assert_true(mgs_rt_is_unified(r->rt));
    assert_int_equal(mgs_rt_unified_members(r->rt), 4);
    for (int g = 0; g < 4; g++) {
        mgs_rt_member m;
        assert_int_equal(mgs_rt_member_info(r->rt, g, &m), MGS_OK);
        assert_int_equal(m.gpu, g);
        assert_true(m.mem_bytes == 256ull << 20);
        assert_true(m.mem_base == (uint64_t)g * (256ull << 20));
        assert_int_equal(m.num_cus, 4);
        /* a, b and c: 8 pages each, 2 per member (contiguous). */
        assert_true(m.mem_used == 6 * mgs_rt_page_size(r->rt));
    }
    mgs_rt_member m;
    assert_int_equal(mgs_rt_member_info(r->rt, 4, &m), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "no member GPU 4"));
    assert_int_equal(mgs_rt_member_info(r->rt, -1, &m), MGS_EINVAL);
    rig_free(r);

    static const char *const others[] = {"discrete", "monolithic", "shared"};
    for (int i = 0; i < 3; i++) {
        r = rig_new(MGS_MODE_EMU, 2, others[i]);
        assert_false(mgs_rt_is_unified(r->rt));
        assert_int_equal(mgs_rt_unified_members(r->rt), MGS_EINVAL);
        assert_non_null(strstr(mgs_error_msg(), "needs a unified GPU"));
        assert_non_null(strstr(mgs_error_msg(), others[i]));
        assert_int_equal(mgs_rt_member_info(r->rt, 0, &m), MGS_EINVAL);
        assert_int_equal(mgs_rt_place(r->rt, r->args.a, 4096, 1),
                         MGS_EINVAL);
        mgs_launch l = vecadd_launch(r, 0);
        uint32_t one = 0;
        assert_int_equal(mgs_launch_kernel_wgs(r->rt, r->k, &l, &one, 1),
                         MGS_EINVAL);
        rig_free(r);
    }
}

/* ---- memory placement ---- */

static void placement(mgs_mode mode)
{
    rig *r = rig_new(mode, 4, "unified");
    uint64_t ps = mgs_rt_page_size(r->rt);
    /* A kernel writes c first, so in timing mode its lines may sit in the
    ** caches when the pages move. */
    mgs_launch l = vecadd_launch(r, MGS_GPU_ALL);
    assert_int_equal(mgs_launch_kernel(r->rt, r->k, &l), MGS_OK);
    assert_int_equal(mgs_synchronize(r->rt), MGS_OK);
    /* Pages 1..6 of every buffer to member 3: data and mappings follow. */
    mgs_dptr bufs[] = {r->args.a, r->args.b, r->args.c};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(mgs_rt_place(r->rt, bufs[i] + ps, 6 * ps, 3),
                         MGS_OK);
        assert_int_equal(mgs_rt_gpu_of(r->rt, bufs[i]), 0);
        for (int p = 1; p < 7; p++)
            assert_int_equal(mgs_rt_gpu_of(r->rt, bufs[i] + p * ps), 3);
        assert_int_equal(mgs_rt_gpu_of(r->rt, bufs[i] + 7 * ps), 3);
    }
    bool in_wg[NWG];
    assert_int_equal(read_c(r, in_wg), N);
    mgs_rt_member m;
    assert_int_equal(mgs_rt_member_info(r->rt, 3, &m), MGS_OK);
    assert_true(m.mem_used >= 3 * 7 * ps);   /* timing: code pages too */
    /* Every member's page table follows: the kernel run by member 1 reads
    ** the moved a and b through its own table and writes the moved c. */
    assert_int_equal(mgs_memset(r->rt, r->args.c, 0, sizeof r->c), MGS_OK);
    uint32_t all[NWG];
    for (int w = 0; w < NWG; w++)
        all[w] = (uint32_t)w;
    l.gpu = 1;
    assert_int_equal(mgs_launch_kernel_wgs(r->rt, r->k, &l, all, NWG),
                     MGS_OK);
    assert_int_equal(read_c(r, in_wg), N);
    /* Whole pages only, inside allocations. */
    assert_int_equal(mgs_rt_place(r->rt, r->args.a + 64, ps, 1), MGS_EINVAL);
    char want[64];
    snprintf(want, sizeof want, "page size, %llu bytes",
             (unsigned long long)ps);
    assert_non_null(strstr(mgs_error_msg(), want));
    assert_int_equal(mgs_rt_place(r->rt, r->args.a, ps + 4, 1), MGS_EINVAL);
    assert_int_equal(mgs_rt_place(r->rt, r->args.a, 0, 1), MGS_EINVAL);
    assert_int_equal(mgs_rt_place(r->rt, r->args.a, 9 * ps, 1), MGS_EFAULT);
    assert_int_equal(mgs_rt_place(r->rt, r->args.a, ps, 4), MGS_EINVAL);
    assert_int_equal(mgs_rt_gpu_of(r->rt, r->args.a), 0);
    rig_free(r);
}

static void test_placement_emu(void **state)
{
    (void)state;
    placement(MGS_MODE_EMU);
}

static void test_placement_timing(void **state)
{
    (void)state;
    placement(MGS_MODE_TIMING);
}

/* ---- compute placement ---- */

static void list_launch(mgs_mode mode)
{
    rig *r = rig_new(mode, 4, "unified");
    mgs_launch l = vecadd_launch(r, 2);
    const uint32_t wgs[] = {31, 0, 5};
    assert_int_equal(mgs_launch_kernel_wgs(r->rt, r->k, &l, wgs, 3), MGS_OK);
    assert_int_equal(mgs_synchronize(r->rt), MGS_OK);
    assert_true(wgs_of(r, 2) == 3);
    assert_true(wgs_of(r, 0) + wgs_of(r, 1) + wgs_of(r, 3) == 0);
    bool in_wg[NWG];
    assert_int_equal(read_c(r, in_wg), 3 * WG);
    assert_true(in_wg[0] && in_wg[5] && in_wg[31]);
    mgs_rt_totals t;
    mgs_rt_totals_get(r->rt, &t);
    assert_true(t.workgroups == 3 && t.kernels == 1);
    rig_free(r);
}

static void test_list_emu(void **state)
{
    (void)state;
    list_launch(MGS_MODE_EMU);
}

static void test_list_timing(void **state)
{
    (void)state;
    list_launch(MGS_MODE_TIMING);
}

static bool by_residue(uint32_t wg, int gpu, void *user)
{
    int members = *(const int *)user;
    return (int)(wg % (uint32_t)members) == gpu;
}

static bool select_none(uint32_t wg, int gpu, void *user)
{
    (void)wg, (void)gpu, (void)user;
    return false;
}

/* Member g runs the work-groups w with w % 4 == g, all four launches in
** flight together (timing: platform.concurrent_launches). */
static void pred_launch(mgs_mode mode)
{
    rig *r = rig_new(mode, 4, "unified");
    int members = mgs_rt_unified_members(r->rt);
    assert_int_equal(members, 4);
    for (int g = 0; g < members; g++) {
        mgs_launch l = vecadd_launch(r, g);
        assert_int_equal(mgs_launch_kernel_pred(r->rt, r->k, &l, by_residue,
                                                &members), MGS_OK);
    }
    assert_int_equal(mgs_synchronize(r->rt), MGS_OK);
    for (int g = 0; g < members; g++)
        assert_true(wgs_of(r, g) == NWG / 4);
    bool in_wg[NWG];
    assert_int_equal(read_c(r, in_wg), N);
    /* The splitting helper gives the same sets. */
    mgs_launch l = vecadd_launch(r, 0);
    uint32_t *v;
    size_t n;
    assert_int_equal(mgs_wg_select(&l, 3, by_residue, &members, &v, &n),
                     MGS_OK);
    assert_int_equal(n, NWG / 4);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(v[i], 4 * i + 3);
    free(v);
    /* A predicate that selects nothing launches nothing. */
    mgs_rt_totals before, after;
    mgs_rt_totals_get(r->rt, &before);
    l.gpu = 1;
    assert_int_equal(mgs_launch_kernel_pred(r->rt, r->k, &l, select_none,
                                            NULL), MGS_OK);
    /* A list launch left in flight is freed with the runtime. */
    const uint32_t one = 7;
    assert_int_equal(mgs_launch_kernel_wgs(r->rt, r->k, &l, &one, 1),
                     MGS_OK);
    mgs_rt_totals_get(r->rt, &after);
    assert_true(after.kernels == before.kernels + 1);
    rig_free(r);
}

/* A list launch after asynchronous copies (timing): the queued copies run
** first, then the listed work-groups, which read what the copies wrote
** (the launch is never queued behind them, whose replay would run the
** whole grid). */
static void test_list_after_async_copy(void **state)
{
    (void)state;
    rig *r = rig_new(MGS_MODE_TIMING, 2, "unified");
    for (int i = 0; i < N; i++)
        r->a[i] = (float)(7 * i);
    assert_int_equal(mgs_memcpy_h2d_async(r->rt, r->args.a, r->a,
                                          sizeof r->a), MGS_OK);
    mgs_launch l = vecadd_launch(r, 1);
    const uint32_t wgs[2] = {0, NWG - 1};
    assert_int_equal(mgs_launch_kernel_wgs(r->rt, r->k, &l, wgs, 2), MGS_OK);
    assert_int_equal(mgs_synchronize(r->rt), MGS_OK);
    bool in_wg[NWG];
    assert_int_equal(read_c(r, in_wg), 2 * WG);
    assert_true(in_wg[0] && in_wg[NWG - 1]);
    assert_true(wgs_of(r, 1) == 2);
    rig_free(r);
}

static void test_pred_emu(void **state)
{
    (void)state;
    pred_launch(MGS_MODE_EMU);
}

static void test_pred_timing(void **state)
{
    (void)state;
    pred_launch(MGS_MODE_TIMING);
}

static void test_errors(void **state)
{
    (void)state;
    rig *r = rig_new(MGS_MODE_TIMING, 2, "unified");
    mgs_launch l = vecadd_launch(r, 1);
    uint32_t wgs[] = {0, 32};
    assert_int_equal(mgs_launch_kernel_wgs(r->rt, r->k, &l, wgs, 0),
                     MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "work-group list is empty"));
    assert_int_equal(mgs_launch_kernel_wgs(r->rt, r->k, &l, NULL, 2),
                     MGS_EINVAL);
    assert_int_equal(mgs_launch_kernel_wgs(r->rt, r->k, &l, wgs, 2),
                     MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "work-group 32 is outside"));
    l.gpu = 2;
    assert_int_equal(mgs_launch_kernel_wgs(r->rt, r->k, &l, wgs, 1),
                     MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "no member GPU 2"));
    l.gpu = MGS_GPU_ALL;
    assert_int_equal(mgs_launch_kernel_wgs(r->rt, r->k, &l, wgs, 1),
                     MGS_EINVAL);
    int members = 2;
    assert_int_equal(mgs_launch_kernel_pred(r->rt, r->k, &l, by_residue,
                                            &members), MGS_EINVAL);
    l.gpu = 0;
    l.grid[1] = 0;
    assert_int_equal(mgs_launch_kernel_wgs(r->rt, r->k, &l, wgs, 1),
                     MGS_EINVAL);
    /* Nothing ran. */
    mgs_rt_totals t;
    mgs_rt_totals_get(r->rt, &t);
    assert_true(t.kernels == 0 && t.workgroups == 0);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_discovery),
        cmocka_unit_test(test_placement_emu),
        cmocka_unit_test(test_placement_timing),
        cmocka_unit_test(test_list_emu),
        cmocka_unit_test(test_list_timing),
        cmocka_unit_test(test_pred_emu),
        cmocka_unit_test(test_pred_timing),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_list_after_async_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
