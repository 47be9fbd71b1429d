/*
** libmgsim-hip streams in timing mode (hip_stream.c; docs/runtime.md
** "Streams"): a hipMemcpyAsync on one stream and a kernel on another
** stream of the same device overlap (hipEventElapsedTime across both is
** clearly shorter than for the same work on one stream), stream order
** holds with real data, and both results verify. One small GPU, so the
** platform is configured in main() before the first HIP call.
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hip/hip_internal.h"

enum { N = 64 << 10, COPY = 512 << 10 };

typedef struct vecadd_args {
    float *a, *b, *c;
    unsigned n;
} vecadd_args;

static float ha[N], hb[N], hc[N];
static unsigned char hx[COPY], back[COPY];

static hipFunction_t load_vecadd(hipModule_t *mod)
{
    char path[4096];
    const char *dir = getenv("MGSIM_KERNEL_DIR");
    snprintf(path, sizeof path, "%s/vecadd.hsaco",
             dir && *dir ? dir : MGS_KERNEL_DIR);
    assert_int_equal(hipModuleLoad(mod, path), hipSuccess);
    hipFunction_t f = NULL;
    assert_int_equal(hipModuleGetFunction(&f, *mod, "vecadd"), hipSuccess);
    return f;
}

/* Milliseconds of simulated time for: hipMemcpyAsync of COPY bytes on
** stream cs, then vecadd on stream ks; checks both results. */
static float copy_and_kernel(hipFunction_t f, vecadd_args *args,
                             unsigned char *dx, hipStream_t cs,
                             hipStream_t ks)
{
    hipEvent_t e0, e1;
    assert_int_equal(hipEventCreate(&e0), hipSuccess);
    assert_int_equal(hipEventCreate(&e1), hipSuccess);
    assert_int_equal(hipMemset(args->c, 0, sizeof hc), hipSuccess);
    assert_int_equal(hipMemset(dx, 0, COPY), hipSuccess);
    assert_int_equal(hipEventRecord(e0, NULL), hipSuccess);
    assert_int_equal(hipMemcpyAsync(dx, hx, COPY, hipMemcpyHostToDevice, cs),
                     hipSuccess);
    size_t size = sizeof *args;
    void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, args,
                     HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     HIP_LAUNCH_PARAM_END};
    assert_int_equal(hipModuleLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 0,
                                           ks, NULL, extra),
                     hipSuccess);
    assert_int_equal(hipEventRecord(e1, NULL), hipSuccess);
    assert_int_equal(hipEventSynchronize(e1), hipSuccess);
    float ms = 0;
    assert_int_equal(hipEventElapsedTime(&ms, e0, e1), hipSuccess);
    assert_int_equal(hipMemcpy(hc, args->c, sizeof hc, hipMemcpyDeviceToHost),
                     hipSuccess);
    for (int i = 0; i < N; i++) assert_true(hc[i] == ha[i] + hb[i]);
    assert_int_equal(hipMemcpy(back, dx, COPY, hipMemcpyDeviceToHost),
                     hipSuccess);
    assert_memory_equal(back, hx, COPY);
    hipEventDestroy(e0);
    hipEventDestroy(e1);
    return ms;
}

static void test_copy_overlaps_kernel(void **state)
{
    (void)state;
    hipModule_t mod;
    hipFunction_t f = load_vecadd(&mod);
    for (int i = 0; i < N; i++) {
        ha[i] = (float)i;
        hb[i] = (float)(2 * i + 7);
    }
    for (int i = 0; i < COPY; i++) hx[i] = (unsigned char)(i * 11 + 1);
    vecadd_args args = {.n = N};
    unsigned char *dx;
    assert_int_equal(hipMalloc((void **)&args.a, sizeof ha), hipSuccess);
    assert_int_equal(hipMalloc((void **)&args.b, sizeof hb), hipSuccess);
    assert_int_equal(hipMalloc((void **)&args.c, sizeof hc), hipSuccess);
    assert_int_equal(hipMalloc((void **)&dx, COPY), hipSuccess);
    assert_int_equal(hipMemcpy(args.a, ha, sizeof ha, hipMemcpyHostToDevice),
                     hipSuccess);
    assert_int_equal(hipMemcpy(args.b, hb, sizeof hb, hipMemcpyHostToDevice),
                     hipSuccess);
    hipStream_t s1, s2;
    assert_int_equal(hipStreamCreate(&s1), hipSuccess);
    assert_int_equal(hipStreamCreate(&s2), hipSuccess);
    float one = copy_and_kernel(f, &args, dx, s1, s1);
    float two = copy_and_kernel(f, &args, dx, s1, s2);
    printf("hipMemcpyAsync + kernel: one stream %.4f ms, two streams "
           "%.4f ms\n", one, two);
    assert_true(two > 0);
    assert_true(one > two * 1.3f);
    /* Stream order with data: the kernel on s1 reads what the copy before
    ** it on s1 wrote, and the d2h after it reads the kernel's output. */
    for (int i = 0; i < N; i++) ha[i] = (float)(3 * i + 1);
    memset(hc, 0, sizeof hc);
    assert_int_equal(hipMemcpyAsync(args.a, ha, sizeof ha,
                                    hipMemcpyHostToDevice, s1), hipSuccess);
    size_t size = sizeof args;
    void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args,
                     HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     HIP_LAUNCH_PARAM_END};
    assert_int_equal(hipModuleLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 0,
                                           s1, NULL, extra), hipSuccess);
    assert_int_equal(hipMemcpyAsync(hc, args.c, sizeof hc,
                                    hipMemcpyDeviceToHost, s1), hipSuccess);
    assert_int_equal(hipMemcpyAsync(dx, hx, COPY, hipMemcpyHostToDevice, s2),
                     hipSuccess);
    assert_int_equal(hipStreamSynchronize(s1), hipSuccess);
    for (int i = 0; i < N; i++) assert_true(hc[i] == ha[i] + hb[i]);
    assert_int_equal(hipStreamDestroy(s1), hipSuccess);
    assert_int_equal(hipStreamDestroy(s2), hipSuccess);
    hipFree(args.a);
    hipFree(args.b);
    hipFree(args.c);
    hipFree(dx);
    hipModuleUnload(mod);
}

int main(void)
{
    setenv("MGSIM_GPUS", "1", 1);
    setenv("MGSIM_MODE", "timing", 1);
    setenv("MGSIM_QUIET", "1", 1);
    setenv("MGSIM_DB", "none", 1);
    setenv("MGSIM_SET", "gpu.num_cus=4;gpu.cus_per_sa=2;gpu.l2_banks=2;"
           "tlb.l2_count=2", 1);
    unsetenv("MGSIM_PLATFORM");
    unsetenv("MGSIM_CONFIG");
    unsetenv("MGSIM_PRESET");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_overlaps_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
