/*
** Unit tests for libmgsim-hip, calling the HIP API from C exactly as a
** program would (the library is linked in place of libamdhip64). The
** platform is configured once per process from the environment, so main()
** sets MGSIM_GPUS=2 before the first call; kernels come from the build's
** gfx803 code objects (kernels/vecadd.hip -> $(KDIR)/vecadd.hsaco).
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hip/hip_internal.h"
#include "mgsim/errors.h"

/* ---- helpers -------------------------------------------------------------- */

static const char *const *fake_env; /* NULL-terminated name, value pairs */

static const char *fake_getenv(const char *name)
{
    for (const char *const *p = fake_env; p && *p; p += 2)
        if (strcmp(p[0], name) == 0) return p[1];
    return NULL;
}

static int parse_with(const char *const *pairs, mhip_env *env)
{
    fake_env = pairs;
    return mhip_env_parse(fake_getenv, env);
}

static const char *kernel_path(const char *name, char *buf, size_t n)
{
    const char *dir = getenv("MGSIM_KERNEL_DIR");
    snprintf(buf, n, "%s/%s.hsaco", dir && *dir ? dir : MGS_KERNEL_DIR, name);
    return buf;
}

static hipFunction_t load_vecadd(hipModule_t *mod)
{
    char path[4096];
    assert_int_equal(hipModuleLoad(mod, kernel_path("vecadd", path,
                                                    sizeof path)),
                     hipSuccess);
    hipFunction_t f = NULL;
    assert_int_equal(hipModuleGetFunction(&f, *mod, "vecadd"), hipSuccess);
    assert_non_null(f);
    return f;
}

/* ---- configuration ------------------------------------------------------ */

static void test_env_defaults(void **state)
{
    (void)state;
    mhip_env env;
    const char *none[] = {NULL};
    assert_int_equal(parse_with(none, &env), MGS_OK);
    assert_string_equal(env.cfg.sim_mode, "emu");
    assert_int_equal(env.cfg.platform_gpus, 1);
    assert_false(env.quiet);
}

static void test_env_overrides(void **state)
{
    (void)state;
    mhip_env env;
    const char *vars[] = {"MGSIM_GPUS", "4", "MGSIM_MODE", "timing",
                          "MGSIM_PLATFORM", "unified", "MGSIM_DB", "x.db",
                          "MGSIM_SET", "gpu.num_cus=32; gpu.freq=2GHz",
                          "MGSIM_QUIET", "1", NULL};
    assert_int_equal(parse_with(vars, &env), MGS_OK);
    assert_int_equal(env.cfg.platform_gpus, 4);
    assert_string_equal(env.cfg.sim_mode, "timing");
    assert_string_equal(env.cfg.platform_type, "unified");
    assert_string_equal(env.cfg.output_db, "x.db");
    assert_int_equal(env.cfg.gpu_num_cus, 32);
    assert_int_equal(env.cfg.gpu_freq, 2000000000ull);
    assert_true(env.quiet);
    const char *q0[] = {"MGSIM_QUIET", "0", NULL};
    assert_int_equal(parse_with(q0, &env), MGS_OK);
    assert_false(env.quiet);
}

static void test_env_errors(void **state)
{
    (void)state;
    mhip_env env;
    const char *gpus0[] = {"MGSIM_GPUS", "0", NULL};
    assert_int_equal(parse_with(gpus0, &env), MGS_ECONFIG);
    assert_non_null(strstr(mgs_error_msg(), "MGSIM_GPUS"));
    const char *gpusx[] = {"MGSIM_GPUS", "two", NULL};
    assert_int_equal(parse_with(gpusx, &env), MGS_ECONFIG);
    const char *mode[] = {"MGSIM_MODE", "fast", NULL};
    assert_int_equal(parse_with(mode, &env), MGS_ECONFIG);
    assert_non_null(strstr(mgs_error_msg(), "fast"));
    const char *cfg[] = {"MGSIM_CONFIG", "/nonexistent/mgsim.ini", NULL};
    assert_int_not_equal(parse_with(cfg, &env), MGS_OK);
    const char *set[] = {"MGSIM_SET", "gpu.no_such_key=1", NULL};
    assert_int_equal(parse_with(set, &env), MGS_ECONFIG);
    const char *preset[] = {"MGSIM_PRESET", "no-such-preset", NULL};
    assert_int_not_equal(parse_with(preset, &env), MGS_OK);
}

/* ---- errors ------------------------------------------------------------------ */

static void test_error_strings(void **state)
{
    (void)state;
    assert_string_equal(hipGetErrorName(hipSuccess), "hipSuccess");
    assert_string_equal(hipGetErrorName(hipErrorInvalidValue),
                        "hipErrorInvalidValue");
    assert_string_equal(hipGetErrorName(hipErrorNotSupported),
                        "hipErrorNotSupported");
    assert_string_equal(hipGetErrorString(hipErrorInvalidMemcpyDirection),
                        "invalid copy direction for memcpy");
    assert_string_equal(hipGetErrorName((hipError_t)12345),
                        "hipErrorUnknown");
}

static void test_last_error(void **state)
{
    (void)state;
    (void)hipGetLastError();
    assert_int_equal(hipSetDevice(7), hipErrorInvalidDevice);
    assert_int_equal(hipPeekAtLastError(), hipErrorInvalidDevice);
    assert_int_equal(hipGetLastError(), hipErrorInvalidDevice);
    assert_int_equal(hipGetLastError(), hipSuccess);
}

/* ---- devices ----------------------------------------------------------------- */

static void test_devices(void **state)
{
    (void)state;
    int n = 0, dev = -1;
    assert_int_equal(hipGetDeviceCount(&n), hipSuccess);
    assert_int_equal(n, 2);
    assert_int_equal(hipSetDevice(1), hipSuccess);
    assert_int_equal(hipGetDevice(&dev), hipSuccess);
    assert_int_equal(dev, 1);
    assert_int_equal(hipSetDevice(0), hipSuccess);

    hipDeviceProp_t p;
    assert_int_equal(hipGetDeviceProperties(&p, 1), hipSuccess);
    assert_string_equal(p.gcnArchName, "gfx803");
    assert_int_equal(p.gcnArch, 803);
    assert_int_equal(p.warpSize, 64);
    assert_int_equal(p.multiProcessorCount, 64);
    assert_int_equal(p.clockRate, 1000000);
    assert_true(p.totalGlobalMem >= 4000000000ull);
    assert_int_equal(p.totalConstMem, 2147483647);  /* as ROCm */
    assert_int_equal(p.l2CacheSize, 2 * 1024 * 1024);
    assert_int_equal(p.isMultiGpuBoard, 1);
    assert_int_equal(hipGetDeviceProperties(&p, 2), hipErrorInvalidDevice);
    assert_int_equal(hipGetDeviceProperties(NULL, 0), hipErrorInvalidValue);

    int v = 0;
    assert_int_equal(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 0),
                     hipSuccess);
    assert_int_equal(v, 64);
    assert_int_equal(hipDeviceGetAttribute(
                         &v, hipDeviceAttributeMultiprocessorCount, 0),
                     hipSuccess);
    assert_int_equal(v, 64);
    assert_int_equal(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxTexture1DWidth,
                                           0),
                     hipErrorNotSupported);
}

static void test_peer_access(void **state)
{
    (void)state;
    int can = -1;
    assert_int_equal(hipDeviceCanAccessPeer(&can, 0, 1), hipSuccess);
    assert_int_equal(can, 1);
    assert_int_equal(hipDeviceCanAccessPeer(&can, 1, 1), hipSuccess);
    assert_int_equal(can, 0);
    assert_int_equal(hipDeviceCanAccessPeer(&can, 0, 5),
                     hipErrorInvalidDevice);
    assert_int_equal(hipSetDevice(0), hipSuccess);
    assert_int_equal(hipDeviceEnablePeerAccess(1, 0), hipSuccess);
    assert_int_equal(hipDeviceEnablePeerAccess(1, 0),
                     hipErrorPeerAccessAlreadyEnabled);
    assert_int_equal(hipDeviceEnablePeerAccess(1, 3), hipErrorInvalidValue);
    assert_int_equal(hipDeviceEnablePeerAccess(0, 0), hipErrorInvalidDevice);
    assert_int_equal(hipDeviceDisablePeerAccess(1), hipSuccess);
    assert_int_equal(hipDeviceDisablePeerAccess(1),
                     hipErrorPeerAccessNotEnabled);

    /* A peer copy moves data from GPU 1's memory to GPU 0's. */
    int *d0, *d1, host[64], back[64];
    for (int i = 0; i < 64; i++) host[i] = i * 3 + 1;
    assert_int_equal(hipMalloc((void **)&d0, sizeof host), hipSuccess);
    assert_int_equal(hipSetDevice(1), hipSuccess);
    assert_int_equal(hipMalloc((void **)&d1, sizeof host), hipSuccess);
    assert_int_equal(hipMemcpy(d1, host, sizeof host, hipMemcpyHostToDevice),
                     hipSuccess);
    assert_int_equal(hipMemcpyPeer(d0, 0, d1, 1, sizeof host), hipSuccess);
    assert_int_equal(hipMemcpyPeer(d0, 0, d1, 9, sizeof host),
                     hipErrorInvalidDevice);
    memset(back, 0, sizeof back);
    assert_int_equal(hipMemcpy(back, d0, sizeof back, hipMemcpyDeviceToHost),
                     hipSuccess);
    assert_memory_equal(back, host, sizeof host);
    hipPointerAttribute_t attr;
    assert_int_equal(hipPointerGetAttributes(&attr, d1), hipSuccess);
    assert_int_equal(attr.device, 1);
    assert_int_equal(attr.memoryType, hipMemoryTypeDevice);
    assert_int_equal(hipFree(d1), hipSuccess);
    assert_int_equal(hipSetDevice(0), hipSuccess);
    assert_int_equal(hipFree(d0), hipSuccess);
}

/* ---- memory ------------------------------------------------------------------- */

static void test_memcpy_directions(void **state)
{
    (void)state;
    enum { N = 1000 };
    unsigned char src[N], out[N];
    for (int i = 0; i < N; i++) src[i] = (unsigned char)(i * 7);
    void *a = NULL, *b = NULL;
    assert_int_equal(hipMalloc(&a, N), hipSuccess);
    assert_int_equal(hipMalloc(&b, N), hipSuccess);
    assert_non_null(a);
    assert_ptr_not_equal(a, b);
    assert_int_equal(hipMemcpy(a, src, N, hipMemcpyHostToDevice), hipSuccess);
    assert_int_equal(hipMemcpy(b, a, N, hipMemcpyDeviceToDevice), hipSuccess);
    memset(out, 0, N);
    assert_int_equal(hipMemcpy(out, b, N, hipMemcpyDeviceToHost), hipSuccess);
    assert_memory_equal(out, src, N);
    /* hipMemcpyDefault infers the direction; a partial copy at an offset. */
    assert_int_equal(hipMemset(b, 0xab, N), hipSuccess);
    assert_int_equal(hipMemcpy((char *)b + 10, src, 20, hipMemcpyDefault),
                     hipSuccess);
    assert_int_equal(hipMemcpy(out, b, N, hipMemcpyDefault), hipSuccess);
    assert_int_equal(out[9], 0xab);
    assert_memory_equal(out + 10, src, 20);
    assert_int_equal(out[30], 0xab);
    /* Host to host. */
    unsigned char h2[N];
    assert_int_equal(hipMemcpy(h2, src, N, hipMemcpyHostToHost), hipSuccess);
    assert_memory_equal(h2, src, N);
    /* Async on a stream, and memset D32. */
    hipStream_t s;
    assert_int_equal(hipStreamCreate(&s), hipSuccess);
    assert_int_equal(hipMemcpyAsync(a, src, N, hipMemcpyHostToDevice, s),
                     hipSuccess);
    assert_int_equal(hipStreamSynchronize(s), hipSuccess);
    assert_int_equal(hipMemsetD32(b, 0x12345678, 4), hipSuccess);
    uint32_t w[4];
    assert_int_equal(hipMemcpy(w, b, sizeof w, hipMemcpyDeviceToHost),
                     hipSuccess);
    assert_int_equal(w[3], 0x12345678u);
    assert_int_equal(hipStreamDestroy(s), hipSuccess);
    size_t free_b = 0, total = 0;
    assert_int_equal(hipMemGetInfo(&free_b, &total), hipSuccess);
    assert_true(total >= 2 * (size_t)N && free_b <= total - 2 * N);
    assert_int_equal(hipFree(a), hipSuccess);
    assert_int_equal(hipFree(b), hipSuccess);
    void *z = (void *)1;
    assert_int_equal(hipMalloc(&z, 0), hipSuccess);
    assert_null(z);
    assert_int_equal(hipFree(NULL), hipSuccess);
}

static void test_memcpy_errors(void **state)
{
    (void)state;
    char host[64] = {0};
    void *d = NULL;
    assert_int_equal(hipMalloc(&d, 64), hipSuccess);
    assert_int_equal(hipMemcpy(d, host, 64, (hipMemcpyKind)7),
                     hipErrorInvalidMemcpyDirection);
    assert_int_equal(hipGetLastError(), hipErrorInvalidMemcpyDirection);
    /* Two host pointers where the kind promises a device pointer. */
    char host2[64];
    assert_int_equal(hipMemcpy(host2, host, 64, hipMemcpyHostToDevice),
                     hipErrorInvalidValue);
    assert_int_equal(hipMemcpy(host2, host, 64, hipMemcpyDeviceToHost),
                     hipErrorInvalidValue);
    /* A device pointer where the kind promises a host pointer: the
    ** pointers decide, as in ROCm 5.2 (docs/hip.md). */
    host[5] = 42;
    assert_int_equal(hipMemcpy(d, host, 64, hipMemcpyDeviceToHost),
                     hipSuccess);
    memset(host2, 0, sizeof host2);
    assert_int_equal(hipMemcpy(host2, d, 64, hipMemcpyHostToHost),
                     hipSuccess);
    assert_int_equal(host2[5], 42);
    host[5] = 0;
    /* Past the end of the allocation. */
    assert_int_equal(hipMemcpy(d, host, 65, hipMemcpyHostToDevice),
                     hipErrorInvalidValue);
    assert_int_equal(hipMemcpy((char *)d + 60, host, 8,
                               hipMemcpyHostToDevice),
                     hipErrorInvalidValue);
    assert_int_equal(hipMemcpy(NULL, host, 8, hipMemcpyDefault),
                     hipErrorInvalidValue);
    assert_int_equal(hipMemset(host, 0, 8), hipErrorInvalidValue);
    /* Frees of things that are not allocations. */
    assert_int_equal(hipFree(host), hipErrorInvalidValue);
    assert_int_equal(hipFree((char *)d + 4), hipErrorInvalidValue);
    assert_int_equal(hipHostFree(d), hipErrorInvalidValue);
    assert_int_equal(hipMallocManaged(&d, 64, 0x80), hipErrorInvalidValue);
    assert_int_equal(hipHostMalloc(&d, 64, 0x8000), hipErrorInvalidValue);
    assert_int_equal(hipFree(d), hipSuccess); /* d untouched by failures */
    assert_int_equal(hipFree(d), hipErrorInvalidValue); /* double free */
}

/* ---- kernels ---------------------------------------------------------------- */

static void test_module_launch_params(void **state)
{
    (void)state;
    enum { N = 1000 };
    hipModule_t mod;
    hipFunction_t f = load_vecadd(&mod);
    hipFunction_t g;
    assert_int_equal(hipModuleGetFunction(&g, mod, "no_such_kernel"),
                     hipErrorNotFound);
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) a[i] = (float)i, b[i] = 2.0f * i;
    float *da, *db, *dc;
    assert_int_equal(hipMalloc((void **)&da, sizeof a), hipSuccess);
    assert_int_equal(hipMalloc((void **)&db, sizeof b), hipSuccess);
    assert_int_equal(hipMalloc((void **)&dc, sizeof c), hipSuccess);
    hipMemcpy(da, a, sizeof a, hipMemcpyHostToDevice);
    hipMemcpy(db, b, sizeof b, hipMemcpyHostToDevice);
    unsigned n = N;
    void *params[] = {&da, &db, &dc, &n};
    assert_int_equal(hipModuleLaunchKernel(f, (N + 63) / 64, 1, 1, 64, 1, 1,
                                           0, NULL, params, NULL),
                     hipSuccess);
    assert_int_equal(hipMemcpy(c, dc, sizeof c, hipMemcpyDeviceToHost),
                     hipSuccess);
    for (int i = 0; i < N; i++) assert_true(c[i] == 3.0f * i);

    /* Bad configurations fail before anything runs. */
    assert_int_equal(hipModuleLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, NULL,
                                           params, NULL),
                     hipErrorInvalidConfiguration);
    assert_int_equal(hipModuleLaunchKernel(f, 0, 1, 1, 64, 1, 1, 0, NULL,
                                           params, NULL),
                     hipErrorInvalidConfiguration);
    assert_int_equal(hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL,
                                           NULL, NULL),
                     hipErrorInvalidValue);
    assert_int_equal(hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0,
                                           (hipStream_t)0x1234, params, NULL),
                     hipErrorInvalidHandle);
    hipFree(da);
    hipFree(db);
    hipFree(dc);
    assert_int_equal(hipModuleUnload(mod), hipSuccess);
    assert_int_equal(hipModuleUnload(mod), hipErrorInvalidHandle);
}

static void test_module_launch_extra(void **state)
{
    (void)state;
    enum { N = 300 };
    hipModule_t mod;
    hipFunction_t f = load_vecadd(&mod);
    float a[N], c[N];
    for (int i = 0; i < N; i++) a[i] = 0.5f * i;
    float *da, *dc;
    hipMalloc((void **)&da, sizeof a);
    hipMalloc((void **)&dc, sizeof c);
    hipMemcpy(da, a, sizeof a, hipMemcpyHostToDevice);
    struct { float *a, *b, *c; unsigned n; } args = {da, da, dc, N};
    size_t size = sizeof args;
    void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args,
                     HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
    assert_int_equal(hipModuleLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1,
                                           1, 0, NULL, NULL, extra),
                     hipSuccess);
    assert_int_equal(hipMemcpy(c, dc, sizeof c, hipMemcpyDeviceToHost),
                     hipSuccess);
    for (int i = 0; i < N; i++) assert_true(c[i] == (float)i);
    size_t small = 8;
    void *extra_small[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args,
                           HIP_LAUNCH_PARAM_BUFFER_SIZE, &small,
                           HIP_LAUNCH_PARAM_END};
    assert_int_equal(hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL,
                                           NULL, extra_small),
                     hipErrorInvalidValue);
    void *extra_bad[] = {(void *)0x77, &args, HIP_LAUNCH_PARAM_END};
    assert_int_equal(hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL,
                                           NULL, extra_bad),
                     hipErrorNotSupported);
    hipFree(da);
    hipFree(dc);
    hipModuleUnload(mod);
}

static void test_managed_memory(void **state)
{
    (void)state;
    enum { N = 512 };
    hipModule_t mod;
    hipFunction_t f = load_vecadd(&mod);
    float *x, *y, *z;
    assert_int_equal(hipMallocManaged((void **)&x, N * sizeof *x,
                                      hipMemAttachGlobal),
                     hipSuccess);
    assert_int_equal(hipMallocManaged((void **)&y, N * sizeof *y,
                                      hipMemAttachGlobal),
                     hipSuccess);
    assert_int_equal(hipHostMalloc((void **)&z, N * sizeof *z, 0),
                     hipSuccess);
    for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = 1.0f, z[i] = -1.0f;
    unsigned n = N;
    /* z = x + y, with pointers into the middle of buffers too. */
    void *params[] = {&x, &y, &z, &n};
    assert_int_equal(hipModuleLaunchKernel(f, N / 64, 1, 1, 64, 1, 1, 0, NULL,
                                           params, NULL),
                     hipSuccess);
    assert_int_equal(hipDeviceSynchronize(), hipSuccess);
    for (int i = 0; i < N; i++) assert_true(z[i] == (float)i + 1.0f);
    /* The host updates y; the next launch sees it. */
    for (int i = 0; i < N; i++) y[i] = 10.0f;
    float *x_half = x + N / 2, *z_half = z + N / 2;
    unsigned half = N / 2;
    void *params2[] = {&x_half, &y, &z_half, &half};
    assert_int_equal(hipModuleLaunchKernel(f, 4, 1, 1, 64, 1, 1, 0, NULL,
                                           params2, NULL),
                     hipSuccess);
    /* A buffer allocated and filled after the launch is host-owned: the
    ** synchronisation must not overwrite it with its (zero) shadow. */
    int *w;
    assert_int_equal(hipMallocManaged((void **)&w, 64, hipMemAttachGlobal),
                     hipSuccess);
    w[0] = 42;
    assert_int_equal(hipDeviceSynchronize(), hipSuccess);
    assert_int_equal(w[0], 42);
    assert_int_equal(hipFree(w), hipSuccess);
    assert_true(z[0] == 1.0f);
    assert_true(z[N / 2] == (float)(N / 2) + 10.0f);
    assert_true(z[N - 1] == (float)(N - 1) + 10.0f);
    /* Copies to and from managed memory. */
    float tmp[4] = {7, 8, 9, 10};
    assert_int_equal(hipMemcpy(x, tmp, sizeof tmp, hipMemcpyHostToDevice),
                     hipSuccess);
    assert_true(x[3] == 10.0f);
    hipPointerAttribute_t attr;
    assert_int_equal(hipPointerGetAttributes(&attr, x + 5), hipSuccess);
    assert_int_equal(attr.isManaged, 1);
    assert_int_equal(hipFree(x), hipSuccess);
    assert_int_equal(hipFree(y), hipSuccess);
    assert_int_equal(hipHostFree(z), hipSuccess);
    hipModuleUnload(mod);
}

static void test_module_load_errors(void **state)
{
    (void)state;
    hipModule_t mod;
    assert_int_equal(hipModuleLoad(&mod, "/nonexistent/k.hsaco"),
                     hipErrorFileNotFound);
    static const char garbage[64] = "this is not a code object";
    assert_int_equal(hipModuleLoadData(&mod, garbage), hipErrorInvalidImage);
    assert_int_equal(mhip_image_size(garbage), 0);
    /* A real image: its computed extent is the file's size. */
    char path[4096];
    FILE *fp = fopen(kernel_path("vecadd", path, sizeof path), "rb");
    assert_non_null(fp);
    static unsigned char img[1 << 20];
    size_t n = fread(img, 1, sizeof img, fp);
    fclose(fp);
    assert_true(n > 0 && n < sizeof img);
    assert_int_equal(mhip_image_size(img), n);
    assert_int_equal(hipModuleLoadData(&mod, img), hipSuccess);
    hipFunction_t f;
    assert_int_equal(hipModuleGetFunction(&f, mod, "vecadd"), hipSuccess);
    assert_int_equal(hipModuleUnload(mod), hipSuccess);
}

static void test_streams_events(void **state)
{
    (void)state;
    hipStream_t s;
    hipEvent_t e0, e1, nt;
    float ms = -1;
    assert_int_equal(hipStreamCreateWithFlags(&s, hipStreamNonBlocking),
                     hipSuccess);
    assert_int_equal(hipEventCreate(&e0), hipSuccess);
    assert_int_equal(hipEventCreate(&e1), hipSuccess);
    assert_int_equal(hipEventCreateWithFlags(&nt, hipEventDisableTiming),
                     hipSuccess);
    assert_int_equal(hipEventElapsedTime(&ms, e0, e1), hipErrorNotReady);
    assert_int_equal(hipEventRecord(e0, s), hipSuccess);
    assert_int_equal(hipEventRecord(e1, s), hipSuccess);
    assert_int_equal(hipEventRecord(nt, NULL), hipSuccess);
    assert_int_equal(hipEventSynchronize(e1), hipSuccess);
    assert_int_equal(hipEventQuery(e1), hipSuccess);
    assert_int_equal(hipStreamQuery(s), hipSuccess);
    assert_int_equal(hipStreamWaitEvent(s, e0, 0), hipSuccess);
    assert_int_equal(hipEventElapsedTime(&ms, e0, e1), hipSuccess);
    assert_true(ms >= 0.0f);
    assert_int_equal(hipEventElapsedTime(&ms, e0, nt), hipErrorInvalidHandle);
    assert_int_equal(hipStreamCreateWithFlags(&s, 0x40), hipErrorInvalidValue);
    assert_int_equal(hipStreamDestroy(s), hipSuccess);
    assert_int_equal(hipStreamDestroy(s), hipErrorInvalidHandle);
    assert_int_equal(hipEventDestroy(e0), hipSuccess);
    assert_int_equal(hipEventDestroy(e0), hipErrorInvalidHandle);
    assert_int_equal(hipEventRecord(e0, NULL), hipErrorInvalidHandle);
    hipEventDestroy(e1);
    hipEventDestroy(nt);
    assert_int_equal(hipDeviceSynchronize(), hipSuccess);
}

static void test_device_reset(void **state)
{
    (void)state;
    void *keep, *gone, *gone_managed;
    hipStream_t s;
    assert_int_equal(hipSetDevice(0), hipSuccess);
    assert_int_equal(hipMalloc(&keep, 128), hipSuccess);
    assert_int_equal(hipSetDevice(1), hipSuccess);
    assert_int_equal(hipMalloc(&gone, 128), hipSuccess);
    assert_int_equal(hipMallocManaged(&gone_managed, 128, hipMemAttachGlobal),
                     hipSuccess);
    assert_int_equal(hipStreamCreate(&s), hipSuccess);
    assert_int_equal(hipDeviceReset(), hipSuccess);
    /* Device 1's memory and stream are gone, device 0's buffer is not. */
    assert_int_equal(hipFree(gone), hipErrorInvalidValue);
    assert_int_equal(hipFree(gone_managed), hipErrorInvalidValue);
    assert_int_equal(hipStreamDestroy(s), hipErrorInvalidHandle);
    assert_int_equal(hipSetDevice(0), hipSuccess);
    assert_int_equal(hipFree(keep), hipSuccess);
}

static void test_call_configuration(void **state)
{
    (void)state;
    dim3 g, b;
    size_t sh;
    hipStream_t st;
    assert_int_equal(__hipPopCallConfiguration(&g, &b, &sh, &st),
                     hipErrorMissingConfiguration);
    assert_int_equal(__hipPushCallConfiguration((dim3){3, 2, 1},
                                                (dim3){64, 1, 1}, 128, NULL),
                     hipSuccess);
    assert_int_equal(__hipPopCallConfiguration(&g, &b, &sh, &st), hipSuccess);
    assert_int_equal(g.x, 3);
    assert_int_equal(g.y, 2);
    assert_int_equal(b.x, 64);
    assert_int_equal(sh, 128);
    assert_null(st);
    int dummy;
    assert_int_equal(hipLaunchKernel(&dummy, g, b, NULL, 0, NULL),
                     hipErrorInvalidDeviceFunction);
}

int main(void)
{
    setenv("MGSIM_GPUS", "2", 1);
    setenv("MGSIM_QUIET", "1", 1);
    setenv("MGSIM_DB", "none", 1);
    unsetenv("MGSIM_MODE");
    unsetenv("MGSIM_PLATFORM");
    unsetenv("MGSIM_CONFIG");
    unsetenv("MGSIM_SET");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_defaults),
        cmocka_unit_test(test_env_overrides),
        cmocka_unit_test(test_env_errors),
        cmocka_unit_test(test_error_strings),
        cmocka_unit_test(test_last_error),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_peer_access),
        cmocka_unit_test(test_memcpy_directions),
        cmocka_unit_test(test_memcpy_errors),
        cmocka_unit_test(test_module_launch_params),
        cmocka_unit_test(test_module_launch_extra),
        cmocka_unit_test(test_managed_memory),
        cmocka_unit_test(test_module_load_errors),
        cmocka_unit_test(test_streams_events),
        cmocka_unit_test(test_device_reset),
        cmocka_unit_test(test_call_configuration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
