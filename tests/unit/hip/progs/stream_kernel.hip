// A kernel on a stream of hipStreamCreate, checked against the CPU after a
// copy back (tests/cli/hip_compat.sh reads the exit summary in timing mode:
// the kernel's time is kernel time, not copy time). Prints PASSED and exits
// 0, or FAILED and exits 1.
#include <hip/hip_runtime.h>

#include <cstdio>

__global__ void scale(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = 2.0f * (float)i + 1.0f;
}

int main()
{
    const int n = 1 << 14;
    float *d = nullptr;
    static float h[n];
    hipStream_t s;
    if (hipMalloc(&d, n * sizeof(float)) || hipStreamCreate(&s)) return 2;
    hipLaunchKernelGGL(scale, dim3(n / 256), dim3(256), 0, s, d, n);
    if (hipStreamSynchronize(s) != hipSuccess) return 2;
    hipStreamDestroy(s);
    bool ok = hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost) == hipSuccess;
    for (int i = 0; ok && i < n; i++) ok = h[i] == 2.0f * (float)i + 1.0f;
    hipFree(d);
    std::printf(ok ? "PASSED\n" : "FAILED\n");
    return ok ? 0 : 1;
}
