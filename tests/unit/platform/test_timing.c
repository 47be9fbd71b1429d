/*
** The assembled GPU running real kernels in timing mode: results equal
** the CPU reference, the command processor's counters match the wiring,
** two runs give identical statistics, and tiny buffers still complete.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tm_fixture.h"

typedef struct vecadd_run {
    uint64_t a, b, c;
    uint32_t n;
    mgs_timing_result res;
    int rc;
    char rows[1 << 16];       /* "component.metric=value\n" of every stat */
    size_t rows_len;
    int checked_ok;
} vecadd_run;

static void collect_row(const stat_row *r, void *ud)
{
    vecadd_run *v = ud;
    int n = snprintf(v->rows + v->rows_len, sizeof v->rows - v->rows_len,
                     "%s.%s=%.17g\n", r->component, r->metric, r->value);
    if (n > 0 && v->rows_len + (size_t)n < sizeof v->rows)
        v->rows_len += (size_t)n;
}

static uint64_t stat_get(const vecadd_run *v, const char *key)
{
    const char *p = strstr(v->rows, key);
    if (!p)
        return UINT64_MAX;
    return strtoull(p + strlen(key), NULL, 10);
}

/* vecadd over n floats on the GPU gc; fills v. */
static void run_vecadd(const gpu_build_config *gc, uint32_t n, vecadd_run *v)
{
    memset(v, 0, sizeof *v);
    tm_fix f;
    assert_int_equal(tm_fix_init(&f, "vecadd", "vecadd"), MGS_OK);
    float *ha = malloc(n * 4), *hb = malloc(n * 4), *hc = malloc(n * 4);
    for (uint32_t i = 0; i < n; i++) {
        ha[i] = (float)i * 0.5f;
        hb[i] = (float)(n - i);
    }
    assert_int_equal(mgs_devmem_alloc_range(&f.mem, 0, n * 4, &v->a), 0);
    assert_int_equal(mgs_devmem_alloc_range(&f.mem, 0, n * 4, &v->b), 0);
    assert_int_equal(mgs_devmem_alloc_range(&f.mem, 0, n * 4, &v->c), 0);
    assert_int_equal(mgs_devmem_write(&f.mem, v->a, ha, n * 4), 0);
    assert_int_equal(mgs_devmem_write(&f.mem, v->b, hb, n * 4), 0);
    uint8_t args[28] = {0};
    memcpy(args, &v->a, 8);
    memcpy(args + 8, &v->b, 8);
    memcpy(args + 16, &v->c, 8);
    memcpy(args + 24, &n, 4);
    /* HIP grids are whole work-groups; the kernel checks i < n. */
    assert_int_equal(tm_fix_launch(&f, args, sizeof args, (n + 63) / 64 * 64, 64),
                     MGS_OK);

    stat_registry *st = stat_registry_new();
    mgs_timing *t = NULL;
    int nrc = mgs_timing_new(gc, &f.mem, st, &t);
    if (nrc)
        fprintf(stderr, "%s\n", mgs_error_msg());
    assert_int_equal(nrc, MGS_OK);
    v->rc = mgs_timing_launch(t, 0, &f.el, &v->res);
    if (v->rc == MGS_OK) {
        /* One GPU keeps the results in its L2 (nc): a direct read is a
        ** host point (docs/coherence.md). */
        assert_int_equal(mgs_timing_host_read(t, v->c, n * 4), MGS_OK);
        assert_int_equal(mgs_devmem_read(&f.mem, v->c, hc, n * 4), 0);
        v->checked_ok = 1;
        for (uint32_t i = 0; i < n; i++)
            if (hc[i] != ha[i] + hb[i]) {
                v->checked_ok = 0;
                fprintf(stderr, "c[%u] = %g, expected %g\n", i, hc[i],
                        ha[i] + hb[i]);
                break;
            }
    }
    stat_registry_foreach(st, mgs_timing_now(t), collect_row, v);
    mgs_timing_free(t);
    stat_registry_free(st);
    free(ha);
    free(hb);
    free(hc);
    tm_fix_fini(&f);
}

static void test_vecadd_small_gpu(void **state)
{
    (void)state;
    gpu_build_config gc;
    tm_small_gpu(&gc);
    static vecadd_run v;
    run_vecadd(&gc, 1000, &v);
    assert_int_equal(v.rc, MGS_OK);
    assert_true(v.checked_ok);
    assert_int_equal(v.res.workgroups, 16);
    assert_true(v.res.wf_insts > 16);
    assert_true(v.res.sim_time > 0);
    /* 4 CUs x (L1V) + 2 SAs x (L1S + L1I) = 8 L1s; TLBs: 8 L1 + 2 L2. */
    assert_int_equal(stat_get(&v, "GPU[0].CP.invalidations="), 18);
    /* No write-back at kernel end on one GPU; one ranged write-back and
    ** drop per bank at the acquire (the code upload, a host write) and one
    ** ranged write-back per bank for the host read. */
    assert_int_equal(stat_get(&v, "GPU[0].CP.flushes="), 4);
    assert_int_equal(stat_get(&v, "GPU[0].CP.kernels="), 2);
    assert_int_equal(stat_get(&v, "GPU[0].CP.workgroups="), 16);
}

static void test_deterministic(void **state)
{
    (void)state;
    gpu_build_config gc;
    tm_small_gpu(&gc);
    static vecadd_run v1, v2;
    run_vecadd(&gc, 3000, &v1);
    run_vecadd(&gc, 3000, &v2);
    assert_int_equal(v1.rc, MGS_OK);
    assert_true(v1.rows_len > 1000);
    assert_int_equal(v1.res.sim_time, v2.res.sim_time);
    assert_string_equal(v1.rows, v2.rows);
}

/* Every buffer and lane at its minimum: the run still completes with the
** right values (or the watchdog reports a deadlock, exit code 3). */
static void test_tiny_buffers(void **state)
{
    (void)state;
    gpu_build_config gc;
    tm_small_gpu(&gc);
    sim_conn_config *conns[] = {&gc.sa_net, &gc.xbar, &gc.mem_net,
                                &gc.tlb_net, &gc.ctrl_net};
    for (size_t i = 0; i < 5; i++)
        conns[i]->lane_capacity = 1;
    cache_config *caches[] = {&gc.l1v, &gc.l1s, &gc.l1i, &gc.l2};
    for (size_t i = 0; i < 4; i++) {
        caches[i]->top_buffer = 1;
        caches[i]->mshr_entries = 1;
        caches[i]->mshr_targets = 1;
        caches[i]->max_inflight_below = 2; /* the minimum for write-back */
        caches[i]->ctrl_buffer = 1;
    }
    gc.l1_tlb.mshr_entries = gc.l2_tlb.mshr_entries = 1;
    gc.l1_tlb.top_buffer = gc.l2_tlb.top_buffer = 1;
    gc.xlat.max_inflight = 1;
    gc.xlat.top_buffer = 1;
    gc.mmu.max_walks = 1;
    gc.mmu.top_buffer = 1;
    gc.dram.queue_entries = 1;
    gc.dram.top_buffer = 1;
    gc.cp.port_buffer = 1;
    static vecadd_run v;
    run_vecadd(&gc, 700, &v);
    print_message("tiny buffers: %s, %llu ps\n",
                  v.rc == MGS_OK ? "completed" : "deadlock reported",
                  (unsigned long long)v.res.sim_time);
    if (v.rc == MGS_OK)
        assert_true(v.checked_ok);
    else
        assert_int_equal(mgs_exit_code(v.rc), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vecadd_small_gpu),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_tiny_buffers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
