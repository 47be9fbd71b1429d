/*
** The benchmark suite's checkers and helpers can fail: a flipped output
** element (wl_inject_corruption) makes every workload return MGS_EVERIFY
** with a message naming element 0; out-of-range parameters give MGS_EINVAL
** naming the workload; the wl_util pieces (split, halo exchange, float
** tolerance, argument packing errors) behave as documented.
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/unit/workloads/suite_run.h"
#include "workloads/wl_util.h"

#include <stdio.h>
#include <string.h>

static void corrupted_output_fails(void **state)
{
    (void)state;
    for (size_t i = 0; i < SUITE_COUNT; i++) {
        wl_inject_corruption(1);
        int rc = suite_run(suite_names[i], 1, 0);
        wl_inject_corruption(0);
        if (rc != MGS_EVERIFY)
            fprintf(stderr, "%s: rc %d (%s)\n", suite_names[i], rc,
                    mgs_error_msg());
        assert_int_equal(rc, MGS_EVERIFY);
        assert_non_null(strstr(mgs_error_msg(), "[0]"));
        assert_int_equal(mgs_exit_code(rc), 1);
    }
}

static void bad_params_rejected(void **state)
{
    (void)state;
    for (size_t i = 0; i < SUITE_COUNT; i++) {
        const mgs_workload *wl = wl_find(suite_names[i]);
        assert_non_null(wl);
        wl_args a;
        suite_args(wl, &a, 1, 0);
        a.param[0] = 0;
        int rc = suite_run_args(wl, &a);
        assert_int_equal(rc, MGS_EINVAL);
        assert_int_equal(strncmp(mgs_error_msg(), wl->name,
                                 strlen(wl->name)), 0);
    }
}

static void host_memory_guard(void **state)
{
    (void)state;
    assert_int_equal(wl_host_fits("gemm", 1ull << 20), MGS_OK);
    assert_int_equal(wl_host_fits("gemm", 1ull << 62), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "gemm: these parameters need"));
}

static void registry_metadata(void **state)
{
    (void)state;
    for (size_t i = 0; i < SUITE_COUNT; i++) {
        const mgs_workload *wl = wl_find(suite_names[i]);
        assert_non_null(wl);
        assert_non_null(wl->pattern);
        assert_non_null(wl->kernel_file);
        wl_args a;
        suite_args(wl, &a, 1, 0);
        uint64_t small = wl->footprint(&a);
        for (int p = 0; p < WL_MAX_PARAMS && wl->params[p].name; p++)
            a.param[p] = wl->params[p].dflt;
        uint64_t dflt = wl->footprint(&a);
        assert_true(small > 0 && small < dflt);
        /* Default sizes reach the seeds' footprints: 32 MiB (fws) to
        ** 576 MiB (bfs); xtreme default is 3 x 96 MiB. */
        assert_true(dflt >= 30ull << 20 && dflt <= 580ull << 20);
    }
    const mgs_workload *c2d = wl_find("c2d");
    wl_args a;
    suite_args(c2d, &a, 1, 0);
    a.param[0] = c2d->params[0].dflt;
    assert_int_equal(c2d->footprint(&a), 512ull << 20);
}

static void split_covers_everything(void **state)
{
    (void)state;
    wl_ctx c;
    memset(&c, 0, sizeof c);
    for (int parts = 1; parts <= 5; parts++) {
        c.parts = parts;
        for (int64_t n = 0; n < 100; n += 7) {
            int64_t next = 0;
            for (int p = 0; p < parts; p++) {
                int64_t b, cnt;
                wl_split(&c, n, 16, p, &b, &cnt);
                assert_true(cnt >= 0);
                if (cnt) {
                    assert_int_equal(b, next);
                    assert_true(b % 16 == 0);
                }
                next = b + cnt;
            }
            assert_int_equal(next, n);
        }
    }
}

/* Three GPUs, 10 rows of 2 words, halo 2: after wl_rows_exchange every
** halo row holds the neighbour's row, and rows beyond the edges stay 0. */
static void rows_halo_exchange(void **state)
{
    (void)state;
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.num_gpus = 3;
    mgs_rt *rt;
    assert_int_equal(mgs_rt_new(&o, &rt), MGS_OK);
    wl_args args;
    memset(&args, 0, sizeof args);
    args.num_gpus = 3;
    wl_ctx c;
    assert_int_equal(wl_ctx_open(&c, rt, &args, "rl.hsaco"), MGS_OK);
    wl_rows r;
    uint32_t host[20], zero[28] = { 0 }, back[28];
    for (int i = 0; i < 20; i++)
        host[i] = 100 + (uint32_t)i;
    assert_int_equal(wl_rows_alloc(&c, &r, 10, 8, 2, 1), MGS_OK);
    assert_int_equal(r.parts, 3);
    assert_int_equal(r.count[0], 4);
    assert_int_equal(r.count[2], 2);
    assert_int_equal(wl_rows_upload(&c, &r, host), MGS_OK);
    for (int p = 0; p < 3; p++) { /* wipe the halos, keep owned rows */
        mgs_dptr below = r.d[p] + (mgs_dptr)(r.count[p] + 2) * 8;
        assert_int_equal(mgs_memcpy_h2d(rt, r.d[p], zero, 16), MGS_OK);
        assert_int_equal(mgs_memcpy_h2d(rt, below, zero, 16), MGS_OK);
    }
    assert_int_equal(wl_rows_exchange(&c, &r), MGS_OK);
    for (int p = 0; p < 3; p++) {
        size_t rows = (size_t)r.count[p] + 4;
        assert_int_equal(mgs_memcpy_d2h(rt, back, r.d[p], rows * 8), MGS_OK);
        for (size_t l = 0; l < rows; l++) {
            int64_t g = r.begin[p] - 2 + (int64_t)l;
            uint32_t want = g >= 0 && g < 10 ? host[g * 2] : 0;
            assert_int_equal(back[l * 2], want);
        }
    }
    uint32_t all[20];
    assert_int_equal(wl_rows_download(&c, &r, all), MGS_OK);
    assert_memory_equal(all, host, sizeof host);

    /* Asymmetric halo: 3 rows before, 1 after; zeroed device buffers so
    ** that only the exchange can fill the halos. */
    wl_rows h;
    assert_int_equal(wl_rows_alloc_halo(&c, &h, 10, 8, 3, 1, 1), MGS_OK);
    for (int p = 0; p < 3; p++) {
        size_t rows = (size_t)h.count[p] + 4;
        assert_int_equal(mgs_memcpy_h2d(rt, h.d[p], zero, rows * 8), MGS_OK);
        assert_int_equal(mgs_memcpy_h2d(rt, wl_rows_own(&h, p),
                                        host + h.begin[p] * 2,
                                        (size_t)h.count[p] * 8), MGS_OK);
    }
    assert_int_equal(wl_rows_exchange(&c, &h), MGS_OK);
    for (int p = 0; p < 3; p++) {
        size_t rows = (size_t)h.count[p] + 4;
        assert_int_equal(mgs_memcpy_d2h(rt, back, h.d[p], rows * 8), MGS_OK);
        for (size_t l = 0; l < rows; l++) {
            int64_t g = h.begin[p] - 3 + (int64_t)l;
            uint32_t want = g >= 0 && g < 10 ? host[g * 2] : 0;
            assert_int_equal(back[l * 2], want);
            assert_int_equal(back[l * 2 + 1], g >= 0 && g < 10 ?
                             host[g * 2 + 1] : 0);
        }
    }
    wl_ctx_close(&c);
    mgs_rt_free(rt);
}

/* R-MAT graphs are well-formed CSR, deterministic in the seed, and skewed:
** the busiest vertex has many times the average degree. */
static void rmat_graph(void **state)
{
    (void)state;
    wl_graph g, h;
    wl_rmat(&g, 12, 8, 5, 0);
    wl_rmat(&h, 12, 8, 5, 0);
    assert_int_equal(g.nv, 4096);
    assert_int_equal(g.ne, 32768);
    assert_int_equal(g.off[0], 0);
    assert_int_equal(g.off[g.nv], g.ne);
    uint32_t maxdeg = 0;
    for (int64_t v = 0; v < g.nv; v++) {
        assert_true(g.off[v] <= g.off[v + 1]);
        if (g.off[v + 1] - g.off[v] > maxdeg)
            maxdeg = g.off[v + 1] - g.off[v];
    }
    for (int64_t e = 0; e < g.ne; e++)
        assert_true(g.adj[e] < g.nv);
    assert_true(maxdeg > 20 * 8);
    assert_memory_equal(g.off, h.off, (size_t)(g.nv + 1) * 4);
    assert_memory_equal(g.adj, h.adj, (size_t)g.ne * 4);
    wl_graph_free(&h);
    wl_rmat(&h, 12, 8, 6, 0);  /* another seed, another graph */
    assert_true(memcmp(g.adj, h.adj, (size_t)g.ne * 4) != 0);
    wl_graph_free(&h);
    wl_rmat(&h, 12, 8, 5, 1);  /* the same edges, by destination */
    assert_int_equal(h.off[h.nv], g.ne);
    wl_graph_free(&h);
    wl_graph_free(&g);
}

static void float_tolerance(void **state)
{
    (void)state;
    float want[3] = { 1.0f, -2.0f, 0.0f };
    float ok[3] = { 1.00001f, -2.00002f, 1e-6f };
    float bad[3] = { 1.0f, -2.001f, 0.0f };
    assert_int_equal(wl_check_f32("v", ok, want, 3, 1e-4f, 1e-5f), MGS_OK);
    assert_int_equal(wl_check_f32("v", bad, want, 3, 1e-4f, 1e-5f),
                     MGS_EVERIFY);
    assert_non_null(strstr(mgs_error_msg(), "v[1]"));
    float nan[1] = { __builtin_nanf("") };
    assert_int_equal(wl_check_f32("v", nan, want, 1, 1.0f, 1.0f), MGS_EVERIFY);
}

static void launch_argument_mismatch(void **state)
{
    (void)state;
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    mgs_rt *rt;
    assert_int_equal(mgs_rt_new(&o, &rt), MGS_OK);
    wl_args args;
    memset(&args, 0, sizeof args);
    args.num_gpus = 1;
    wl_ctx c;
    mgs_kernel *k;
    assert_int_equal(wl_ctx_open(&c, rt, &args, "rl.hsaco"), MGS_OK);
    assert_int_equal(wl_kernel(&c, "relu", &k), MGS_OK);
    /* relu(const float *, float *, unsigned): 'u' where a pointer goes.
    ** A code object that does not match its host program is bad input
    ** (a wrong or corrupt file: exit 2), not an internal error. */
    assert_int_equal(wl_launch1(&c, k, 0, 64, 64, "upu", 0u, (mgs_dptr)0,
                                64u), MGS_EFORMAT);
    assert_int_equal(wl_launch1(&c, k, 0, 64, 64, "ppuu", (mgs_dptr)0,
                                (mgs_dptr)0, 64u, 1u), MGS_EFORMAT);
    wl_ctx_close(&c);
    mgs_rt_free(rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corrupted_output_fails),
        cmocka_unit_test(bad_params_rejected),
        cmocka_unit_test(host_memory_guard),
        cmocka_unit_test(registry_metadata),
        cmocka_unit_test(split_covers_everything),
        cmocka_unit_test(rows_halo_exchange),
        cmocka_unit_test(rmat_graph),
        cmocka_unit_test(float_tolerance),
        cmocka_unit_test(launch_argument_mismatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
