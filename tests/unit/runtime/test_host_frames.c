/*
** Host frames (memory.spill_ppm; platform/host_frames.h,
** docs/memory-management.md "Host frames"):
**   - the devmem's placement: f of the application's pages, spread evenly
**     (page k when floor((k+1) f) > floor(k f)), in frames of the pool
**     after the last GPU; the runtime's own allocations never spill; the
**     physical window reads back what was written;
**   - the bytes round-trip through the timing model: the host uploads a
**     and b, GPU 0 writes c = a + b, GPU 1 reads c and writes d = c + b
**     into half-spilled buffers; the host reads both back; the RDMA
**     engines of both GPUs sent parts over the host link (host_parts,
**     host_bytes_*) and host memory served them;
**   - without the engines' host route (HOST_FRAMES_BREAK_UNWIRED) the same
**     run fails;
**   - memory.spill_ppm = 0 changes no statistic of a carve-hwc run
**     (lulesh on 4 GPUs), a spill does, and the run still verifies;
**   - configurations it does not support are refused with MGS_ECONFIG
**     naming memory.spill_ppm;
**   - memory.spill_choice = coldest: a scripted heat profile puts exactly
**     its coldest pages (ties: the lower page) in host frames, pages past
**     the profile stay; heat recording counts the GPU views' bytes per
**     application page, not the host's, not the runtime's buffers; the
**     runtime refuses coldest without a profile;
**   - platform.pcie_gpus_per_switch: two GPUs streaming spilled pages at
**     once (triad, half its pages in host frames) finish sooner with a
**     host link each (1) than sharing one switch's link (2).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcn3/exec.h"
#include "platform/host_frames.h"
#include "runtime/devmem.h"
#include "tests/unit/um/um_rig.h"
#include "workloads/workload.h"

static void test_devmem_spreads_spilled_pages(void **state)
{
    (void)state;
    mgs_devmem m;
    assert_int_equal(mgs_devmem_init(&m, 4, 64ull << 20), MGS_OK);
    assert_int_equal(mgs_devmem_enable_host_frames(&m, 600000), MGS_ECONFIG);
    assert_int_equal(mgs_devmem_enable_host_frames(&m, 125000), MGS_OK);
    m.placement = MGS_PLACE_CONTIGUOUS;
    uint64_t base = mgs_devmem_host_frames_base(&m);
    assert_true(base == 4 * (64ull << 20));
    /* The runtime's own buffers never spill. */
    uint64_t own;
    assert_int_equal(mgs_devmem_alloc_mapped(&m, -1, 64 * 4096,
                                             MGS_MAP_ALL, &own), MGS_OK);
    for (uint64_t i = 0; i < 64; i++) {
        uint64_t pa;
        assert_int_equal(mgs_devmem_translate(&m, 0, own + i * 4096, &pa),
                         MGS_OK);
        assert_true(pa < base);
    }
    /* Application pages 7, 15, 23, ... spill (1 in 8), counted across
    ** allocations: 40 pages then 24. */
    uint64_t va[2], n[2] = {40, 24};
    uint64_t spilled = 0;
    for (int b = 0; b < 2; b++) {
        assert_int_equal(mgs_devmem_alloc_app(&m, -1, n[b] * 4096,
                                              MGS_MAP_ALL, &va[b]), MGS_OK);
        for (uint64_t i = 0; i < n[b]; i++) {
            uint64_t k = (b ? 40 : 0) + i, pa;
            assert_int_equal(mgs_devmem_translate(&m, 2, va[b] + i * 4096,
                                                  &pa), MGS_OK);
            bool host = pa >= base;
            assert_int_equal(host, k % 8 == 7);
            assert_int_equal(mgs_devmem_gpu_of(&m, va[b] + i * 4096),
                             host ? 4 : (int)(i * 4 / n[b]));
            spilled += host;
        }
    }
    assert_true(spilled == 8);
    /* The window holds real bytes: written by the device view, read
    ** physically (what host memory's backing does) and back. */
    uint32_t v = 0xc0ffee, got = 0;
    assert_int_equal(mgs_devmem_write(&m, va[0] + 7 * 4096 + 12, &v, 4),
                     MGS_OK);
    uint64_t pa;
    assert_int_equal(mgs_devmem_translate(&m, 1, va[0] + 7 * 4096 + 12, &pa),
                     MGS_OK);
    assert_int_equal(mgs_devmem_phys_read(&m, pa, &got, 4), MGS_OK);
    assert_true(got == v);
    v = 0x1234;
    assert_int_equal(mgs_devmem_phys_write(&m, pa, &v, 4), MGS_OK);
    assert_int_equal(mgs_devmem_read(&m, va[0] + 7 * 4096 + 12, &got, 4),
                     MGS_OK);
    assert_true(got == v);
    /* Past the window: refused. */
    assert_int_equal(mgs_devmem_phys_write(&m, base + (64ull << 20), &v, 4),
                     MGS_EFAULT);
    mgs_devmem_destroy(&m);

    /* 0 ppm: nothing spills. */
    assert_int_equal(mgs_devmem_init(&m, 2, 64ull << 20), MGS_OK);
    assert_int_equal(mgs_devmem_alloc_app(&m, -1, 64 * 4096, MGS_MAP_ALL,
                                          &va[0]), MGS_OK);
    for (uint64_t i = 0; i < 64; i++)
        assert_true(mgs_devmem_gpu_of(&m, va[0] + i * 4096) < 2);
    mgs_devmem_destroy(&m);
}

static void test_coldest_pages_spill(void **state)
{
    (void)state;
    mgs_devmem m;
    assert_int_equal(mgs_devmem_init(&m, 4, 64ull << 20), MGS_OK);
    assert_int_equal(mgs_devmem_enable_host_frames(&m, 250000), MGS_OK);
    m.placement = MGS_PLACE_CONTIGUOUS;
    /* 16 profiled pages, floor(16 / 4) = 4 spill: heats 1, 2, 3 and one
    ** of the two 5s (page 6 before page 11). */
    static const uint64_t heat[16] = {9, 9, 3, 9, 9, 9, 5, 9,
                                      1, 9, 9, 5, 9, 2, 9, 9};
    mgs_devmem_spill_coldest(&m, heat, 16);
    uint64_t base = mgs_devmem_host_frames_base(&m), va[2];
    /* 12 pages then 8 (pages 16..19 are past the profile). */
    assert_int_equal(mgs_devmem_alloc_app(&m, -1, 12 * 4096, MGS_MAP_ALL,
                                          &va[0]), MGS_OK);
    assert_int_equal(mgs_devmem_alloc_app(&m, 1, 8 * 4096, MGS_MAP_ALL,
                                          &va[1]), MGS_OK);
    uint32_t spilled = 0;
    for (uint64_t k = 0; k < 20; k++) {
        uint64_t pa, v = k < 12 ? va[0] + k * 4096 : va[1] + (k - 12) * 4096;
        assert_int_equal(mgs_devmem_translate(&m, 0, v, &pa), MGS_OK);
        spilled |= (uint32_t)(pa >= base) << k;
    }
    assert_int_equal(spilled, (1u << 2) | (1u << 6) | (1u << 8) | (1u << 13));
    mgs_devmem_destroy(&m);

    /* Recording: GPU views' bytes per application page. */
    assert_int_equal(mgs_devmem_init(&m, 2, 64ull << 20), MGS_OK);
    mgs_devmem_record_heat(&m);
    uint64_t own, app[2];
    assert_int_equal(mgs_devmem_alloc_mapped(&m, -1, 4 * 4096, MGS_MAP_ALL,
                                             &own), MGS_OK);
    assert_int_equal(mgs_devmem_alloc_app(&m, -1, 3 * 4096, MGS_MAP_ALL,
                                          &app[0]), MGS_OK);
    assert_int_equal(mgs_devmem_alloc_app(&m, 0, 2 * 4096, MGS_MAP_ALL,
                                          &app[1]), MGS_OK);
    mgs_devmem_view g1 = {.mem = &m, .gpu = 1}, host = {.mem = &m,
                                                       .gpu = MGS_DEVMEM_HOST};
    uint32_t w[4] = {1, 2, 3, 4}, r[4];
    assert_int_equal(mgs_devmem_view_ops.write(&g1, app[0] + 4096, w, 16),
                     MGS_OK);
    assert_int_equal(mgs_devmem_view_ops.read(&g1, app[1] + 4096 + 8, r, 8),
                     MGS_OK);
    assert_int_equal(mgs_devmem_view_ops.read(&g1, own, r, 16), MGS_OK);
    assert_int_equal(mgs_devmem_view_ops.read(&host, app[0], r, 16), MGS_OK);
    uint64_t pages;
    const uint64_t *h = mgs_devmem_heat(&m, &pages);
    assert_non_null(h);
    assert_true(pages == 5);
    static const uint64_t want[5] = {0, 16, 0, 0, 8};
    for (int k = 0; k < 5; k++)
        assert_true(h[k] == want[k]);
    mgs_devmem_destroy(&m);
}

enum { N = 16 << 10, WG = 256 };

typedef struct spill_rig {
    rt_rig env;
    float a[N], b[N], c[N], d[N];
} spill_rig;

/* Host uploads a, b; GPU 0: c = a + b; GPU 1: d = c + b; host reads c,
** d. Returns the first failing code (checked values: MGS_EVERIFY). */
static int round_trip(spill_rig *r, int *spilled_pages)
{
    static const char *const sets[] = {"sim.mode=timing",
                                       "platform.type=unified",
                                       "memory.spill_ppm=500000", NULL};
    rt_rig_configure(&r->env, sets);
    rt_rig_start(&r->env, MGS_MODE_TIMING, 2, 256ull << 20, "unified");
    mgs_rt *rt = r->env.rt;
    char path[4096];
    wl_kernel_path("vecadd.hsaco", path, sizeof path);
    mgs_module *mod;
    mgs_kernel *k;
    assert_int_equal(mgs_module_load(rt, path, &mod), MGS_OK);
    assert_int_equal(mgs_module_kernel(mod, "vecadd", &k), MGS_OK);
    for (int i = 0; i < N; i++) {
        r->a[i] = (float)i;
        r->b[i] = (float)(3 * i + 1);
    }
    mgs_dptr da, db, dc, dd;
    assert_int_equal(mgs_malloc(rt, 0, sizeof r->a, &da), MGS_OK);
    assert_int_equal(mgs_malloc(rt, 1, sizeof r->a, &db), MGS_OK);
    assert_int_equal(mgs_malloc(rt, 0, sizeof r->a, &dc), MGS_OK);
    assert_int_equal(mgs_malloc(rt, 1, sizeof r->a, &dd), MGS_OK);
    *spilled_pages = 0;
    mgs_dptr all[] = {da, db, dc, dd};
    for (int b = 0; b < 4; b++)
        for (size_t o = 0; o < sizeof r->a; o += 4096)
            *spilled_pages += mgs_rt_gpu_of(rt, all[b] + o) == 2;
    int rc = mgs_memcpy_h2d(rt, da, r->a, sizeof r->a);
    if (!rc)
        rc = mgs_memcpy_h2d(rt, db, r->b, sizeof r->b);
    rt_vecadd_args first = {da, db, dc, N}, second = {dc, db, dd, N};
    mgs_launch l = {.grid = {N, 1, 1}, .block = {WG, 1, 1},
                    .args = &first, .args_size = 28, .gpu = 0};
    if (!rc)
        rc = mgs_launch_kernel(rt, k, &l);
    if (!rc)
        rc = mgs_synchronize(rt); /* c is complete before GPU 1 reads it */
    l.args = &second;
    l.gpu = 1;
    if (!rc)
        rc = mgs_launch_kernel(rt, k, &l);
    if (!rc)
        rc = mgs_synchronize(rt);
    if (!rc)
        rc = mgs_memcpy_d2h(rt, r->c, dc, sizeof r->c);
    if (!rc)
        rc = mgs_memcpy_d2h(rt, r->d, dd, sizeof r->d);
    for (int i = 0; !rc && i < N; i++)
        if (r->c[i] != r->a[i] + r->b[i] || r->d[i] != r->c[i] + r->b[i])
            rc = MGS_EVERIFY;
    return rc;
}

static void test_bytes_round_trip_over_host_link(void **state)
{
    (void)state;
    spill_rig *r = calloc(1, sizeof *r);
    int spilled;
    assert_int_equal(round_trip(r, &spilled), MGS_OK);
    /* 4 buffers of 16 pages, every other page in host memory. */
    assert_int_equal(spilled, 32);
    const rt_rig *e = &r->env;
    for (int g = 0; g < 2; g++) {
        char name[32];
        snprintf(name, sizeof name, "GPU[%d].RDMA", g);
        assert_true(stat_of(e, name, "host_parts") > 0);
        assert_true(stat_of(e, name, "host_bytes_out") > 0);
        assert_true(stat_of(e, name, "host_bytes_in") > 0);
        assert_true(stat_of(e, name, "faults") == 0);
    }
    /* GPU 1 read c's spilled half (8 pages of 64 lines) and wrote d's. */
    assert_true(stat_of(e, "GPU[1].RDMA", "host_parts") >= 2 * 8 * 64);
    assert_true(stat_of(e, "Host.Memory", "reads") > 0);
    assert_true(stat_of(e, "Host.Memory", "writes") > 0);
    rt_rig_fini(&r->env);
    free(r);
}

static void test_unwired_route_fails(void **state)
{
    (void)state;
    spill_rig *r = calloc(1, sizeof *r);
    int spilled;
    host_frames_test_break = HOST_FRAMES_BREAK_UNWIRED;
    int rc = round_trip(r, &spilled);
    host_frames_test_break = HOST_FRAMES_BREAK_NONE;
    assert_int_not_equal(rc, MGS_OK);
    assert_int_equal(spilled, 32);
    rt_rig_fini(&r->env);
    free(r);
}

static const char *const carve[] = {
    "coherence.protocol=carve-hwc", "coherence.remote_cache=l2",
    "carve.rdc_size=1MB", NULL, NULL};

static void test_zero_changes_nothing(void **state)
{
    (void)state;
    const char *spill0[5], *spill[5];
    memcpy(spill0, carve, sizeof carve);
    memcpy(spill, carve, sizeof carve);
    spill0[3] = "memory.spill_ppm=0";
    spill[3] = "memory.spill_ppm=125000";
    char *want = NULL, *got = NULL, *spilled = NULL;
    const char *const *sets[3] = {carve, spill0, spill};
    char **out[3] = {&want, &got, &spilled};
    for (int i = 0; i < 3; i++) {
        rt_rig r;
        assert_int_equal(um_run(&r, "sim.mode=timing", "lulesh", 4, sets[i]),
                         MGS_OK);
        stat_registry_foreach(r.stats, 0, um_add_row, out[i]);
        if (i == 2)
            assert_true(stat_of(&r, "GPU[*", "host_parts") > 0);
        rt_rig_fini(&r);
    }
    assert_string_equal(want, got);
    assert_true(strcmp(want, spilled) != 0);
    free(want);
    free(got);
    free(spilled);
}

/* triad on 2 unified GPUs, half its pages spilled, with the PCIe trees'
** GPUs per switch: kernel time (ps). */
static uint64_t triad_spilled_time(const char *per_switch)
{
    /* A slow host link, so that the rig's small GPUs (4 CUs) are bound by
    ** it, not by their own issue rate. */
    const char *const sets[] = {"memory.spill_ppm=500000",
                                "platform.host_link=2GB/s", per_switch, NULL};
    rt_rig r;
    assert_int_equal(um_run(&r, "coherence.protocol=nc", "triad", 2, sets),
                     MGS_OK);
    mgs_rt_totals t;
    mgs_rt_totals_get(r.rt, &t);
    assert_true(stat_of(&r, "GPU[0].RDMA", "host_parts") > 0);
    assert_true(stat_of(&r, "GPU[1].RDMA", "host_parts") > 0);
    rt_rig_fini(&r);
    return t.sim_time_ps;
}

static void test_link_per_gpu_doubles_host_bandwidth(void **state)
{
    (void)state;
    uint64_t shared = triad_spilled_time("platform.pcie_gpus_per_switch=2");
    uint64_t own = triad_spilled_time("platform.pcie_gpus_per_switch=1");
    /* The switch's one link carries both GPUs' spilled lines with 2; with
    ** 1 each GPU has its own (and the root complex's host link twice). */
    /* Measured: 711 us against 945 us (GPU 0 spills 1.5 times GPU 1's
    ** lines, so its own link bounds the first case). */
    assert_true(own * 10 < shared * 8);
}

/* mgs_rt_new in timing mode on `gpus` GPUs with the assignments sets:
** its code (the runtime, if any, is freed). */
static int new_rt(const char *const *sets, int gpus)
{
    rt_rig r;
    rt_rig_configure(&r, sets);
    assert_int_equal(mgs_config_set(&r.cfg, "sim.mode=timing", "test"),
                     MGS_OK);
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.mode = MGS_MODE_TIMING;
    o.num_gpus = gpus;
    o.mem_per_gpu = 256ull << 20;
    o.config = &r.cfg;
    mgs_rt *rt = NULL;
    int rc = mgs_rt_new(&o, &rt);
    mgs_rt_free(rt);
    return rc;
}

static void test_refusals(void **state)
{
    (void)state;
    static const char *const bad[][4] = {
        {"memory.spill_ppm=10000", "platform.type=shared", NULL},
        {"memory.spill_ppm=10000", "memory.management=migrate",
         "coherence.remote_cache=l1", NULL},
        {"memory.spill_ppm=10000", "coherence.protocol=dir",
         "coherence.remote_cache=l2", NULL},
        {"memory.spill_ppm=10000", "platform.copy_timing=instant", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(new_rt(bad[i], 2), MGS_ECONFIG);
        assert_non_null(strstr(mgs_error_msg(), "memory.spill_ppm"));
    }
    /* One GPU: nothing to reach the host frames through. */
    static const char *const one[] = {"memory.spill_ppm=10000", NULL};
    assert_int_equal(new_rt(one, 1), MGS_ECONFIG);
    /* coldest without a heat profile (the library's runs): refused. */
    static const char *const cold[] = {"memory.spill_ppm=10000",
                                       "platform.type=unified",
                                       "memory.spill_choice=coldest", NULL};
    assert_int_equal(new_rt(cold, 2), MGS_ECONFIG);
    assert_non_null(strstr(mgs_error_msg(), "memory.spill_choice"));
    /* Unified GPUs with the defaults (nc, timing, DMA copies): accepted. */
    static const char *const fine[] = {"memory.spill_ppm=10000",
                                       "platform.type=unified", NULL};
    assert_int_equal(new_rt(fine, 2), MGS_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devmem_spreads_spilled_pages),
        cmocka_unit_test(test_coldest_pages_spill),
        cmocka_unit_test(test_bytes_round_trip_over_host_link),
        cmocka_unit_test(test_unwired_route_fails),
        cmocka_unit_test(test_zero_changes_nothing),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_link_per_gpu_doubles_host_bandwidth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
