/* Tests for recorded programs and the two-tenant harness
** (mgs_rt_record_begin/_end, mgs_rt_tenants, workloads/tenants;
** docs/pcie-scheduling.md): copies of two tasks on GPUs under different
** switches overlap in simulated time (each completes about as many
** iterations together as alone, not half), every replayed iteration's
** output is checked (a corrupted expectation fails with MGS_EVERIFY),
** recording needs timed copies, the TC-to-VC maps reach the switches, and
** Priority_S is ahead of RR (and of Priority_L for the small task) on
** average over a few pairs at --size small. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/record.h"
#include "tests/unit/runtime/rt_rig.h"
#include "workloads/workload.h"

enum { BYTES = 64 << 10 };

/* Records a program on `gpu`: h2d of BYTES, d2h back. */
static mgs_program *record_copy(mgs_rt *rt, int gpu, uint8_t fill)
{
    uint8_t *in = malloc(BYTES), *out = malloc(BYTES);
    memset(in, fill, BYTES);
    mgs_dptr d;
    mgs_program *p = NULL;
    assert_int_equal(mgs_rt_record_begin(rt, gpu), MGS_OK);
    assert_int_equal(mgs_malloc(rt, 0, BYTES, &d), MGS_OK);
    assert_int_equal(mgs_rt_gpu_of(rt, d), gpu);  /* program GPU 0 moved */
    assert_int_equal(mgs_memcpy_h2d(rt, d, in, BYTES), MGS_OK);
    assert_int_equal(mgs_memcpy_d2h(rt, out, d, BYTES), MGS_OK);
    assert_int_equal(mgs_free(rt, d), MGS_OK);
    assert_int_equal(mgs_rt_record_end(rt, &p), MGS_OK);
    assert_memory_equal(in, out, BYTES);
    assert_int_equal(mgs_program_copy_bytes(p), 2 * BYTES);
    free(in);
    free(out);
    return p;
}

static void test_copies_overlap_and_verify(void **state)
{
    (void)state;
    rt_rig r;
    rt_rig_init(&r, MGS_MODE_TIMING, 4, "discrete", NULL);
    /* GPUs 0 and 2 are under different switches: no shared link below
    ** the root, whose host link has both switches' bandwidth. */
    mgs_program *p[2] = {record_copy(r.rt, 0, 0x11),
                         record_copy(r.rt, 2, 0x22)};
    mgs_tenant_result res[2];
    assert_int_equal(mgs_rt_tenants(r.rt, p, 2, -1, 50000000, res), MGS_OK);
    for (int k = 0; k < 2; k++) {
        assert_true(res[k].solo_milli_iterations > 3000);
        /* in sequence each would get half; overlapped nearly all */
        assert_true(res[k].milli_iterations * 10 >
                    res[k].solo_milli_iterations * 8);
        assert_int_equal(res[k].verify_failures, 0);
        assert_true(res[k].copies >= 2 * (res[k].milli_iterations / 1000));
    }
    assert_true(rt_rig_stat(&r, "Tenants.Task[1]", "milli_iterations",
                            NULL) == (double)res[1].milli_iterations);
    /* A replay whose output differs from the recorded run fails. */
    p[0]->expect[1][100] ^= 0xff;
    assert_int_equal(mgs_rt_tenants(r.rt, p, 2, -1, 10000000, res),
                     MGS_EVERIFY);
    mgs_program_free(p[0]);
    mgs_program_free(p[1]);
    rt_rig_fini(&r);
}

static void test_record_needs_timed_copies(void **state)
{
    (void)state;
    rt_rig r;
    rt_rig_init(&r, MGS_MODE_EMU, 2, "discrete", NULL);
    assert_int_equal(mgs_rt_record_begin(r.rt, 0), MGS_ECONFIG);
    mgs_program *p;
    assert_int_equal(mgs_rt_record_end(r.rt, &p), MGS_EINVAL);
    rt_rig_fini(&r);
    static const char *const instant[] = {"platform.copy_timing=instant",
                                          NULL};
    rt_rig_init(&r, MGS_MODE_TIMING, 2, "discrete", instant);
    assert_int_equal(mgs_rt_record_begin(r.rt, 0), MGS_ECONFIG);
    rt_rig_fini(&r);
    rt_rig_init(&r, MGS_MODE_TIMING, 2, "discrete", NULL);
    assert_int_equal(mgs_rt_record_begin(r.rt, 2), MGS_EINVAL);
    rt_rig_fini(&r);
}

/* Runs the tenants harness on APP IDs a, b at --size small under policy;
** fills per-task together/alone ratios. */
static void run_pair(int a, int b, const char *policy, double ratio[2],
                     double *vc26)
{
    char set[64];
    snprintf(set, sizeof set, "pcie.arbitration=%s", policy);
    const char *const sets[] = {set, NULL};
    rt_rig r;
    rt_rig_init(&r, MGS_MODE_TIMING, 4, "discrete", sets);
    const mgs_workload *w = wl_find("tenants");
    assert_non_null(w);
    wl_args args = {.seed = 1, .num_gpus = 4};
    for (int i = 0; i < WL_MAX_PARAMS && w->params[i].name; i++)
        args.param[i] = w->params[i].small;
    args.param[0] = a;
    args.param[1] = b;
    assert_int_equal(w->run(r.rt, &args), MGS_OK);
    for (int k = 0; k < 2; k++) {
        char comp[32];
        snprintf(comp, sizeof comp, "Tenants.Task[%d]", k);
        double got = rt_rig_stat(&r, comp, "milli_iterations", NULL);
        double solo = rt_rig_stat(&r, comp, "solo_milli_iterations", NULL);
        assert_true(solo > 0);
        ratio[k] = got / solo;
    }
    /* the second rank's VCs (2 requests, 6 responses): maps applied */
    *vc26 = rt_rig_stat(&r, "PCIe.VC[2]", "messages", NULL) +
            rt_rig_stat(&r, "PCIe.VC[6]", "messages", NULL);
    rt_rig_fini(&r);
}

static void test_priority_s_ahead_of_rr(void **state)
{
    (void)state;
    static const int pairs[][2] = {{3, 5}, {2, 3}, {1, 7}};
    double rr = 0, ps = 0, pl0 = 0, ps0 = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        double x[2], vc;
        run_pair(pairs[i][0], pairs[i][1], "rr", x, &vc);
        assert_true(vc == 0);                 /* one class under rr */
        rr += x[0] + x[1];
        run_pair(pairs[i][0], pairs[i][1], "priority_s", x, &vc);
        assert_true(vc > 0);
        ps += x[0] + x[1];
        ps0 += x[0];
        run_pair(pairs[i][0], pairs[i][1], "priority_l", x, &vc);
        pl0 += x[0];
    }
    assert_true(ps > rr * 1.01);
    assert_true(ps0 > pl0 * 1.1);   /* small first favours the small task */
}

/* Two asynchronous h2d copies on GPUs under different switches overlap:
** together they take about the time of one, and the bytes arrive. */
static void test_async_copies_overlap(void **state)
{
    (void)state;
    enum { N = 256 << 10 };
    uint8_t *a = malloc(N), *b = malloc(N), *back = malloc(N);
    for (size_t i = 0; i < N; i++) {
        a[i] = (uint8_t)(i * 7);
        b[i] = (uint8_t)(i * 13 + 1);
    }
    rt_rig r;
    rt_rig_init(&r, MGS_MODE_TIMING, 4, "discrete", NULL);
    mgs_dptr d0, d2;
    assert_int_equal(mgs_malloc(r.rt, 0, N, &d0), MGS_OK);
    assert_int_equal(mgs_malloc(r.rt, 2, N, &d2), MGS_OK);
    mgs_rt_totals t0, t1, t2;
    mgs_rt_totals_get(r.rt, &t0);
    assert_int_equal(mgs_memcpy_h2d(r.rt, d0, a, N), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(r.rt, d2, b, N), MGS_OK);
    mgs_rt_totals_get(r.rt, &t1);
    mgs_time seq = t1.copy_time_ps - t0.copy_time_ps;
    assert_int_equal(mgs_memcpy_h2d_async(r.rt, d2, a, N), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d_async(r.rt, d0, b, N), MGS_OK);
    mgs_rt_totals_get(r.rt, &t2);
    assert_true(t2.copy_time_ps == t1.copy_time_ps);   /* queued only */
    assert_int_equal(mgs_synchronize(r.rt), MGS_OK);
    mgs_rt_totals_get(r.rt, &t2);
    mgs_time par = t2.copy_time_ps - t1.copy_time_ps;
    assert_true(par * 10 < seq * 7);          /* overlapped */
    assert_true(par * 10 > seq * 4);          /* but each one still ran */
    assert_int_equal(mgs_memcpy_d2h(r.rt, back, d2, N), MGS_OK);
    assert_memory_equal(back, a, N);
    /* d2h async back in order behind an h2d on the same GPU */
    memset(back, 0, N);
    assert_int_equal(mgs_memcpy_h2d_async(r.rt, d0, a, N), MGS_OK);
    assert_int_equal(mgs_memcpy_d2h_async(r.rt, back, d0, N), MGS_OK);
    assert_int_equal(mgs_synchronize(r.rt), MGS_OK);
    assert_memory_equal(back, a, N);
    rt_rig_fini(&r);
    free(a);
    free(b);
    free(back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copies_overlap_and_verify),
        cmocka_unit_test(test_async_copies_overlap),
        cmocka_unit_test(test_record_needs_timed_copies),
        cmocka_unit_test(test_priority_s_ahead_of_rr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
