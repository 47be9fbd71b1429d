/*
** Streams of one GPU (include/mgsim/runtime.h, mgs_memcpy_*_stream and
** mgs_launch.stream; docs/runtime.md "Streams"), timing mode, one small
** discrete GPU:
**   - a copy on stream 1 and a kernel on stream 2 overlap: together they
**     take clearly less simulated time than the same work on one stream,
**     and both results are right;
**   - an h2d copy on one stream and a d2h copy on another run together on
**     the GPU's one DMA engine: both right, no slower than in order (the
**     engine's chunks in flight, not a link direction, bound a copy, so
**     sharing it gains little: docs/runtime.md "Streams");
**   - stream order holds with real data: a kernel reads what an earlier
**     copy on its stream wrote, a d2h reads what the kernel wrote;
**   - work on stream 0 behind another stream's queued work runs that
**     work first;
**   - a kernel on a stream counts as kernel time (totals.sim_time_ps),
**     not copy time, alone and beside a copy on another stream.
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

enum { N = 64 << 10, WG = 256, COPY = 512 << 10 };

typedef struct rig {
    rt_rig env;
    mgs_rt *rt;
    mgs_kernel *k;
    rt_vecadd_args args;
    mgs_dptr x, y;                     /* COPY bytes each */
    float a[N], b[N], c[N];
    uint8_t hx[COPY], hy[COPY], back[COPY];
} rig;

static rig *rig_new(void)
{
    rig *r = calloc(1, sizeof *r);
    rt_rig_init(&r->env, MGS_MODE_TIMING, 1, "discrete", NULL);
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
    for (int i = 0; i < COPY; i++) {
        r->hx[i] = (uint8_t)(i * 7 + 3);
        r->hy[i] = (uint8_t)(i * 13 + 5);
    }
    r->args.n = N;
    mgs_dptr *bufs[] = {&r->args.a, &r->args.b, &r->args.c};
    for (int i = 0; i < 3; i++)
        assert_int_equal(mgs_malloc(r->rt, 0, sizeof r->a, bufs[i]), MGS_OK);
    assert_int_equal(mgs_malloc(r->rt, 0, COPY, &r->x), MGS_OK);
    assert_int_equal(mgs_malloc(r->rt, 0, COPY, &r->y), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(r->rt, r->args.a, r->a, sizeof r->a),
                     MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(r->rt, r->args.b, r->b, sizeof r->b),
                     MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(r->rt, r->y, r->hy, COPY), MGS_OK);
    return r;
}

static void rig_free(rig *r)
{
    rt_rig_fini(&r->env);
    free(r);
}

static void launch(rig *r, uint32_t stream)
{
    mgs_launch l = {.grid = {N, 1, 1}, .block = {WG, 1, 1},
                    .args = &r->args, .args_size = 28, .gpu = 0,
                    .stream = stream};
    assert_int_equal(mgs_launch_kernel(r->rt, r->k, &l), MGS_OK);
}

/* Simulated time of everything since *t0 (kernels and copies). */
static mgs_time elapsed(rig *r, mgs_rt_totals *t0)
{
    mgs_rt_totals t;
    mgs_rt_totals_get(r->rt, &t);
    mgs_time d = t.sim_time_ps + t.copy_time_ps - t0->sim_time_ps -
                 t0->copy_time_ps;
    *t0 = t;
    return d;
}

static void check_sum(rig *r)
{
    assert_int_equal(mgs_memcpy_d2h(r->rt, r->c, r->args.c, sizeof r->c),
                     MGS_OK);
    for (int i = 0; i < N; i++)
        assert_true(r->c[i] == r->a[i] + r->b[i]);
}

static void check_copy(rig *r, mgs_dptr d, const uint8_t *want)
{
    memset(r->back, 0, COPY);
    assert_int_equal(mgs_memcpy_d2h(r->rt, r->back, d, COPY), MGS_OK);
    assert_memory_equal(r->back, want, COPY);
}

/* A copy of hx into x on stream 1 and vecadd on stream ks, from zeroed
** outputs; returns the simulated time, checks both results. */
static mgs_time copy_and_kernel(rig *r, uint32_t ks)
{
    assert_int_equal(mgs_memset(r->rt, r->args.c, 0, sizeof r->c), MGS_OK);
    assert_int_equal(mgs_memset(r->rt, r->x, 0, COPY), MGS_OK);
    mgs_rt_totals t0;
    mgs_rt_totals_get(r->rt, &t0);
    assert_int_equal(mgs_memcpy_h2d_stream(r->rt, 1, r->x, r->hx, COPY),
                     MGS_OK);
    launch(r, ks);
    assert_int_equal(mgs_synchronize(r->rt), MGS_OK);
    mgs_time t = elapsed(r, &t0);
    check_sum(r);
    check_copy(r, r->x, r->hx);
    return t;
}

static void test_copy_overlaps_kernel(void **state)
{
    (void)state;
    rig *r = rig_new();
    mgs_time seq = copy_and_kernel(r, 1), par = copy_and_kernel(r, 2);
    double ratio = (double)seq / (double)par;
    printf("copy+kernel: one stream %.2f us, two streams %.2f us (%.2fx)\n",
           seq / 1e6, par / 1e6, ratio);
    assert_true(ratio > 1.3);
    rig_free(r);
}

/* An h2d of hx into x on stream 1 and a d2h of y on stream ds, from
** zeroed outputs; returns the simulated time, checks both results. */
static mgs_time h2d_and_d2h(rig *r, uint32_t ds)
{
    uint8_t *got = calloc(1, COPY);
    assert_int_equal(mgs_memset(r->rt, r->x, 0, COPY), MGS_OK);
    mgs_rt_totals t0;
    mgs_rt_totals_get(r->rt, &t0);
    assert_int_equal(mgs_memcpy_h2d_stream(r->rt, 1, r->x, r->hx, COPY),
                     MGS_OK);
    assert_int_equal(mgs_memcpy_d2h_stream(r->rt, ds, got, r->y, COPY),
                     MGS_OK);
    assert_int_equal(mgs_synchronize(r->rt), MGS_OK);
    mgs_time t = elapsed(r, &t0);
    assert_memory_equal(got, r->hy, COPY);
    check_copy(r, r->x, r->hx);
    free(got);
    return t;
}

static void test_h2d_overlaps_d2h(void **state)
{
    (void)state;
    rig *r = rig_new();
    mgs_time seq = h2d_and_d2h(r, 1), par = h2d_and_d2h(r, 2);
    printf("h2d+d2h: one stream %.2f us, two streams %.2f us\n", seq / 1e6,
           par / 1e6);
    assert_true(par <= seq + seq / 50);
    rig_free(r);
}

/* A kernel reads what the copy before it on its stream wrote; the d2h
** after it on the stream reads its output; another stream's copy runs
** meanwhile. */
static void test_stream_order_with_data(void **state)
{
    (void)state;
    rig *r = rig_new();
    for (int i = 0; i < N; i++)
        r->a[i] = (float)(5 * i + 2);
    float *out = calloc(N, sizeof *out);
    assert_int_equal(mgs_memcpy_h2d_stream(r->rt, 3, r->args.a, r->a,
                                           sizeof r->a), MGS_OK);
    launch(r, 3);
    assert_int_equal(mgs_memcpy_d2h_stream(r->rt, 3, out, r->args.c,
                                           N * sizeof *out), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d_stream(r->rt, 4, r->x, r->hx, COPY),
                     MGS_OK);
    assert_int_equal(mgs_synchronize(r->rt), MGS_OK);
    for (int i = 0; i < N; i++)
        assert_true(out[i] == r->a[i] + r->b[i]);
    check_copy(r, r->x, r->hx);
    free(out);
    rig_free(r);
}

/* Stream 0 does not overlap the GPU's other streams: queuing on it behind
** stream 1's queued copy runs that copy first. */
static void test_default_stream_waits(void **state)
{
    (void)state;
    rig *r = rig_new();
    mgs_rt_totals t0, t1;
    mgs_rt_totals_get(r->rt, &t0);
    assert_int_equal(mgs_memcpy_h2d_stream(r->rt, 1, r->x, r->hx, COPY),
                     MGS_OK);
    mgs_rt_totals_get(r->rt, &t1);
    assert_true(t1.copy_time_ps == t0.copy_time_ps);     /* queued */
    assert_int_equal(mgs_memcpy_h2d_async(r->rt, r->y, r->hx, COPY), MGS_OK);
    mgs_rt_totals_get(r->rt, &t1);
    assert_true(t1.copy_time_ps > t0.copy_time_ps);      /* stream 1 ran */
    assert_int_equal(mgs_synchronize(r->rt), MGS_OK);
    check_copy(r, r->x, r->hx);
    check_copy(r, r->y, r->hx);
    rig_free(r);
}

/* A stream's kernel is kernel time: alone, all its time; beside a copy
** on another stream, at least the kernel's time alone, the split still
** summing to the span. */
static void test_stream_kernel_is_kernel_time(void **state)
{
    (void)state;
    rig *r = rig_new();
    mgs_rt_totals t0, t1;
    mgs_rt_totals_get(r->rt, &t0);
    launch(r, 1);
    assert_int_equal(mgs_synchronize(r->rt), MGS_OK);
    mgs_rt_totals_get(r->rt, &t1);
    mgs_time alone = t1.sim_time_ps - t0.sim_time_ps;
    assert_true(alone > 0);
    assert_true(t1.copy_time_ps == t0.copy_time_ps);
    check_sum(r);

    mgs_rt_totals_get(r->rt, &t0);
    assert_int_equal(mgs_memcpy_h2d_stream(r->rt, 2, r->x, r->hx, COPY),
                     MGS_OK);
    launch(r, 1);
    assert_int_equal(mgs_synchronize(r->rt), MGS_OK);
    mgs_rt_totals_get(r->rt, &t1);
    assert_true(t1.sim_time_ps - t0.sim_time_ps >= alone);
    printf("stream kernel: alone %.2f us; beside a copy %.2f us kernels + "
           "%.2f us copies\n", alone / 1e6,
           (t1.sim_time_ps - t0.sim_time_ps) / 1e6,
           (t1.copy_time_ps - t0.copy_time_ps) / 1e6);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_overlaps_kernel),
        cmocka_unit_test(test_h2d_overlaps_d2h),
        cmocka_unit_test(test_stream_order_with_data),
        cmocka_unit_test(test_default_stream_waits),
        cmocka_unit_test(test_stream_kernel_is_kernel_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
