/*
** Litmus runner (src/litmus/, docs/litmus.md) on small timing-mode GPUs:
**   - the table and the outcome keys;
**   - nc: fenced MP, SB, CoRR on different CUs of one GPU never show their
**     forbidden outcome; every fenced test across 2 discrete GPUs neither;
**   - the tests can fail: without fences, MP across 2 discrete GPUs shows
**     r0=1 r1=0, and a deliberately broken nc (no L1 invalidation at launch
**     or at a fence) makes the fenced MP show it on one GPU;
**   - same seed -> same histogram; another seed -> another one;
**   - emu mode (sequentially consistent) never shows a forbidden outcome;
**   - placement gpu on one GPU is refused with a message.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coh/coh.h"
#include "litmus/litmus.h"

#include "tests/unit/runtime/rt_rig.h"

extern const coh_protocol coh_nc;

/* nc with a stale L1: neither the launch nor a fence invalidates it. */
static void stale_l1_sync(const coh_system *sys, coh_point p, uint32_t gpu,
                          coh_sync *out)
{
    coh_nc.sync(sys, p, gpu, out);
    if (p == COH_LAUNCH)
        out->l1 = COH_KEEP;
}
static const coh_protocol nc_stale_l1 = {
    .name = "test-litmus-stale-l1", .summary = "nc without any L1 "
    "invalidation", .sync = stale_l1_sync, .fence_l1 = COH_KEEP};

/* A small-GPU timing runtime (4 CUs) with protocol on platform. */
static void rig_open(rt_rig *r, mgs_mode mode, const char *protocol,
                     const char *platform, int gpus)
{
    rt_rig_configure(r, NULL);
    /* Directly: a test protocol is not among the key's choices. */
    snprintf(r->cfg.coherence_protocol, sizeof r->cfg.coherence_protocol,
             "%s", protocol);
    rt_rig_start(r, mode, gpus, 256ull << 20, platform);
}

/* Runs test `name` once on a fresh runtime; returns the result. */
static litmus_result run(mgs_mode mode, const char *protocol,
                         const char *platform, int gpus, const char *name,
                         litmus_placement placement, bool fenced,
                         uint64_t iterations, uint64_t seed)
{
    rt_rig r;
    rig_open(&r, mode, protocol, platform, gpus);
    litmus_opts o;
    litmus_opts_default(&o);
    o.iterations = iterations;
    o.seed = seed;
    o.placement = placement;
    o.fenced = fenced;
    o.groups = 16;
    litmus_result res;
    const litmus_test *t = litmus_find(name);
    assert_non_null(t);
    int rc = litmus_run(r.rt, t, &o, &res);
    if (rc != MGS_OK)
        fail_msg("%s: %s", name, mgs_error_msg());
    assert_int_equal(res.iterations, iterations);
    uint64_t sum = 0;
    for (unsigned k = 0; k < LITMUS_MAX_OUTCOMES; k++)
        sum += res.count[k];
    assert_int_equal(sum, iterations);
    assert_int_equal(res.forbidden, res.count[litmus_forbidden_key(t)]);
    rt_rig_fini(&r);
    return res;
}

static void test_table(void **state)
{
    (void)state;
    assert_int_equal(litmus_count(), 6);
    assert_ptr_equal(litmus_find("corr"), litmus_find("CoRR"));
    assert_null(litmus_find("nope"));
    const litmus_test *t = litmus_find("IRIW");
    uint8_t v[4] = {1, 0, 1, 0};
    assert_int_equal(litmus_outcome_key(t, v), litmus_forbidden_key(t));
    assert_int_equal(litmus_forbidden_key(t), 1 + 9);
    char text[64];
    litmus_outcome_text(t, litmus_forbidden_key(t), text, sizeof text);
    assert_string_equal(text, "r0=1 r1=0 r2=1 r3=0");
    litmus_outcome_text(litmus_find("2+2W"), 1 + 3, text, sizeof text);
    assert_string_equal(text, "x=1 y=1");
}

static void test_nc_fenced_one_gpu(void **state)
{
    (void)state;
    static const char *const names[] = {"MP", "SB", "CoRR"};
    for (size_t i = 0; i < 3; i++) {
        litmus_result r = run(MGS_MODE_TIMING, "nc", "discrete", 1, names[i],
                              LITMUS_CU, true, 2048, 1);
        assert_int_equal(r.forbidden, 0);
    }
}

static void test_nc_fenced_two_gpus(void **state)
{
    (void)state;
    for (size_t i = 0; i < litmus_count(); i++) {
        litmus_result r = run(MGS_MODE_TIMING, "nc", "discrete", 2,
                              litmus_get(i)->name, LITMUS_GPU, true, 1024, 1);
        assert_int_equal(r.forbidden, 0);
    }
}

/* The tests can fail: MP without fences across GPUs. */
static void test_nc_unfenced_mp_shows_reordering(void **state)
{
    (void)state;
    litmus_result r = run(MGS_MODE_TIMING, "nc", "discrete", 2, "MP",
                          LITMUS_GPU, false, 4096, 1);
    print_message("MP without fences, 2 GPUs: r0=1 r1=0 in %llu of 4096\n",
                  (unsigned long long)r.forbidden);
    assert_true(r.forbidden > 0);
}

/* ... and a protocol that keeps stale L1 lines fails the fenced MP. */
static void test_broken_protocol_fails(void **state)
{
    (void)state;
    static bool registered;
    if (!registered) {
        assert_int_equal(coh_register(&nc_stale_l1), MGS_OK);
        registered = true;
    }
    litmus_result good = run(MGS_MODE_TIMING, "nc", "discrete", 1, "MP",
                             LITMUS_CU, true, 4096, 3);
    litmus_result bad = run(MGS_MODE_TIMING, "test-litmus-stale-l1",
                            "discrete", 1, "MP", LITMUS_CU, true, 4096, 3);
    print_message("fenced MP, 4096 instances: nc %llu, stale L1 %llu "
                  "forbidden\n", (unsigned long long)good.forbidden,
                  (unsigned long long)bad.forbidden);
    assert_int_equal(good.forbidden, 0);
    assert_true(bad.forbidden > 0);
}

static void test_deterministic(void **state)
{
    (void)state;
    litmus_result a = run(MGS_MODE_TIMING, "nc", "discrete", 2, "IRIW",
                          LITMUS_GPU, false, 1024, 5);
    litmus_result b = run(MGS_MODE_TIMING, "nc", "discrete", 2, "IRIW",
                          LITMUS_GPU, false, 1024, 5);
    litmus_result c = run(MGS_MODE_TIMING, "nc", "discrete", 2, "IRIW",
                          LITMUS_GPU, false, 1024, 6);
    assert_memory_equal(a.count, b.count, sizeof a.count);
    assert_int_equal(a.sim_time_ps, b.sim_time_ps);
    assert_memory_not_equal(a.count, c.count, sizeof a.count);
}

static void test_emu_sequentially_consistent(void **state)
{
    (void)state;
    for (size_t i = 0; i < litmus_count(); i++)
        for (int f = 0; f < 2; f++) {
            litmus_result r = run(MGS_MODE_EMU, "nc", "discrete", 2,
                                  litmus_get(i)->name, LITMUS_GPU, f, 2048, 1);
            assert_int_equal(r.forbidden, 0);
        }
}

static void test_gpu_placement_needs_two_gpus(void **state)
{
    (void)state;
    rt_rig r;
    rig_open(&r, MGS_MODE_TIMING, "nc", "discrete", 1);
    litmus_opts o;
    litmus_opts_default(&o);
    o.placement = LITMUS_GPU;
    litmus_result res;
    assert_int_equal(litmus_run(r.rt, litmus_find("MP"), &o, &res),
                     MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "2 GPUs"));
    mgs_error_clear();
    rt_rig_fini(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_nc_fenced_one_gpu),
        cmocka_unit_test(test_nc_fenced_two_gpus),
        cmocka_unit_test(test_nc_unfenced_mp_shows_reordering),
        cmocka_unit_test(test_broken_protocol_fails),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_emu_sequentially_consistent),
        cmocka_unit_test(test_gpu_placement_needs_two_gpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
