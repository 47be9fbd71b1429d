// Calls published programs make that libmgsim-hip once lacked (they did
// not link): hipDeviceGet, the deprecated hipCtxCreate/hipCtxDestroy,
// hipFuncGetAttribute on a module's function (argv[1]: a gfx803 code
// object with a kernel "vecadd"), and hipLaunchCooperativeKernel, which
// launches a grid whose work-groups can all be resident at once and
// refuses a larger one with hipErrorCooperativeLaunchTooLarge.
// Prints PASSED and exits 0, or names each failed check and exits 1.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>

static int failures = 0;

static void expect(bool ok, const char *what)
{
    if (!ok) {
        std::printf("FAILED: %s\n", what);
        failures++;
    }
}

__global__ void mark(int *out)
{
    if (threadIdx.x == 0) out[blockIdx.x] = (int)blockIdx.x + 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: api_extras vecadd.hsaco\n");
        return 2;
    }
    int count = 0;
    if (hipGetDeviceCount(&count) != hipSuccess) return 2;

    hipDevice_t dev = -1;
    expect(hipDeviceGet(&dev, count - 1) == hipSuccess && dev == count - 1,
           "hipDeviceGet(last)");
    expect(hipDeviceGet(&dev, count) == hipErrorInvalidDevice,
           "hipDeviceGet(count) is hipErrorInvalidDevice");

    /* Deprecated in HIP, still called by published programs: tested on
    ** purpose, without the compiler's deprecation warning. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    hipCtx_t ctx = nullptr;
    expect(hipCtxCreate(&ctx, 0, count - 1) == hipSuccess && ctx,
           "hipCtxCreate");
    int cur = -1;
    hipGetDevice(&cur);
    expect(cur == count - 1, "hipCtxCreate makes its device current");
    expect(hipCtxDestroy(ctx) == hipSuccess, "hipCtxDestroy");
#pragma clang diagnostic pop
    hipSetDevice(0);

    hipModule_t mod;
    hipFunction_t fn;
    int threads = 0, regs = -1, lds = -1;
    expect(hipModuleLoad(&mod, argv[1]) == hipSuccess &&
               hipModuleGetFunction(&fn, mod, "vecadd") == hipSuccess &&
               hipFuncGetAttribute(&threads,
                                   HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                   fn) == hipSuccess &&
               hipFuncGetAttribute(&regs, HIP_FUNC_ATTRIBUTE_NUM_REGS, fn) ==
                   hipSuccess &&
               hipFuncGetAttribute(&lds, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                   fn) == hipSuccess,
           "hipFuncGetAttribute");
    expect(threads > 0 && threads <= 1024 && regs > 0 && lds >= 0,
           "hipFuncGetAttribute values");

    // The largest cooperative grid: work-groups per CU x CUs.
    int per_cu = 0;
    hipDeviceProp_t p;
    hipGetDeviceProperties(&p, 0);
    hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, mark, 256, 0);
    int groups = per_cu * p.multiProcessorCount;
    int *out = nullptr;
    hipMalloc(&out, (groups + 1) * sizeof(int));
    hipMemset(out, 0, (groups + 1) * sizeof(int));
    void *args[] = {&out};
    expect(groups > 0 &&
               hipLaunchCooperativeKernel((const void *)mark, dim3(groups),
                                          dim3(256), args, 0, 0) ==
                   hipSuccess,
           "hipLaunchCooperativeKernel of a resident grid");
    std::vector<int> got(groups + 1);
    hipMemcpy(got.data(), out, (groups + 1) * sizeof(int),
              hipMemcpyDeviceToHost);
    bool right = got[groups] == 0;
    for (int i = 0; i < groups; i++) right = right && got[i] == i + 1;
    expect(right, "the cooperative launch ran every work-group");
    expect(hipLaunchCooperativeKernel((const void *)mark, dim3(groups + 1),
                                      dim3(256), args, 0, 0) ==
               hipErrorCooperativeLaunchTooLarge,
           "one work-group too many is hipErrorCooperativeLaunchTooLarge");
    std::printf("cooperative grid: %d work-groups (%d per CU)\n", groups,
                per_cu);
    hipFree(out);
    std::printf(failures ? "FAILED\n" : "PASSED\n");
    return failures ? 1 : 0;
}
