/*
** Page placement of buffers allocated on all GPUs (MGS_GPU_ALL), chosen by
** platform.placement: interleaved puts page i on GPU i % N, contiguous on
** GPU floor(i * N / npages) (N equal consecutive chunks). Explicit GPUs
** are unaffected; data written across the chunk boundaries round-trips.
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
#include "runtime/devmem.h"

#define PAGE MGS_DEVMEM_PAGE_SIZE

/* A runtime of gpus GPUs with platform.placement = placement. */
static mgs_rt *new_rt(int gpus, const char *placement, mgs_config *cfg)
{
    mgs_config_defaults(cfg);
    char set[64];
    snprintf(set, sizeof set, "platform.placement=%s", placement);
    assert_int_equal(mgs_config_set(cfg, set, "test"), MGS_OK);
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.num_gpus = gpus;
    o.mem_per_gpu = 16ull << 20;
    o.config = cfg;
    mgs_rt *rt = NULL;
    assert_int_equal(mgs_rt_new(&o, &rt), MGS_OK);
    return rt;
}

static void check_layout(int gpus, const char *placement, uint64_t npages)
{
    mgs_config *cfg = malloc(sizeof *cfg);
    mgs_rt *rt = new_rt(gpus, placement, cfg);
    mgs_dptr p;
    assert_int_equal(mgs_malloc(rt, MGS_GPU_ALL, npages * PAGE, &p), MGS_OK);
    bool contiguous = !strcmp(placement, "contiguous");
    for (uint64_t i = 0; i < npages; i++) {
        int want = contiguous ? (int)(i * (uint64_t)gpus / npages)
                              : (int)(i % (uint64_t)gpus);
        /* Probe the last byte of the page too: the whole page is on one GPU. */
        assert_int_equal(mgs_rt_gpu_of(rt, p + i * PAGE), want);
        assert_int_equal(mgs_rt_gpu_of(rt, p + i * PAGE + PAGE - 1), want);
    }
    mgs_free(rt, p);
    mgs_rt_free(rt);
    free(cfg);
}

static void test_contiguous_default(void **state)
{
    (void)state;
    mgs_config *cfg = malloc(sizeof *cfg);
    mgs_config_defaults(cfg);
    assert_string_equal(cfg->platform_placement, "contiguous");
    free(cfg);
    check_layout(4, "contiguous", 10);
    check_layout(4, "interleaved", 10);
}

static void test_contiguous_even(void **state)
{
    (void)state;
    check_layout(2, "contiguous", 8);   /* 0-3 on GPU 0, 4-7 on GPU 1 */
    check_layout(4, "contiguous", 16);
}

static void test_contiguous_uneven(void **state)
{
    (void)state;
    check_layout(4, "contiguous", 10);  /* chunks of 3,2,3,2 pages */
    check_layout(3, "contiguous", 7);
    check_layout(4, "contiguous", 2);   /* fewer pages than GPUs */
    check_layout(16, "contiguous", 1);
}

static void test_contiguous_chunks_exact(void **state)
{
    (void)state;
    /* 10 pages on 4 GPUs: page i on floor(i*4/10) = 0,0,0,1,1,2,2,2,3,3. */
    mgs_config *cfg = malloc(sizeof *cfg);
    mgs_rt *rt = new_rt(4, "contiguous", cfg);
    mgs_dptr p;
    assert_int_equal(mgs_malloc(rt, MGS_GPU_ALL, 10 * PAGE, &p), MGS_OK);
    static const int want[10] = {0, 0, 0, 1, 1, 2, 2, 2, 3, 3};
    for (int i = 0; i < 10; i++)
        assert_int_equal(mgs_rt_gpu_of(rt, p + (uint64_t)i * PAGE), want[i]);
    /* An explicit GPU ignores the policy. */
    mgs_dptr q;
    assert_int_equal(mgs_malloc(rt, 2, 5 * PAGE, &q), MGS_OK);
    for (int i = 0; i < 5; i++)
        assert_int_equal(mgs_rt_gpu_of(rt, q + (uint64_t)i * PAGE), 2);
    /* Data round-trips across the chunk boundaries. */
    size_t n = 10 * PAGE;
    uint8_t *in = malloc(n), *out = malloc(n);
    for (size_t i = 0; i < n; i++)
        in[i] = (uint8_t)(i * 7 + 3);
    assert_int_equal(mgs_memcpy_h2d(rt, p, in, n), MGS_OK);
    memset(out, 0, n);
    assert_int_equal(mgs_memcpy_d2h(rt, out, p, n), MGS_OK);
    assert_memory_equal(in, out, n);
    free(in);
    free(out);
    mgs_rt_free(rt);
    free(cfg);
}

static void test_contiguous_capacity(void **state)
{
    (void)state;
    /* 16 MB per GPU = 4096 pages: 2 GPUs hold 8192 contiguous pages, and
    ** one page more does not fit (and leaves memory unchanged). */
    mgs_config *cfg = malloc(sizeof *cfg);
    mgs_rt *rt = new_rt(2, "contiguous", cfg);
    mgs_dptr p;
    assert_int_equal(mgs_malloc(rt, MGS_GPU_ALL, 8193ull * PAGE, &p),
                     MGS_ENOMEM);
    assert_int_equal(mgs_malloc(rt, MGS_GPU_ALL, 8192ull * PAGE, &p), MGS_OK);
    assert_int_equal(mgs_rt_gpu_of(rt, p + 4095ull * PAGE), 0);
    assert_int_equal(mgs_rt_gpu_of(rt, p + 4096ull * PAGE), 1);
    mgs_rt_free(rt);
    free(cfg);
}

static void test_config_rejects_unknown(void **state)
{
    (void)state;
    mgs_config *cfg = malloc(sizeof *cfg);
    mgs_config_defaults(cfg);
    assert_int_equal(mgs_config_set(cfg, "platform.placement=random", "test"),
                     MGS_ECONFIG);
    free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contiguous_default),
        cmocka_unit_test(test_contiguous_even),
        cmocka_unit_test(test_contiguous_uneven),
        cmocka_unit_test(test_contiguous_chunks_exact),
        cmocka_unit_test(test_contiguous_capacity),
        cmocka_unit_test(test_config_rejects_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
