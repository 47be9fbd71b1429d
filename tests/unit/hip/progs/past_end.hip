// The bounds rule (docs/runtime.md "one bounds rule"): a kernel whose last
// lane writes 4 bytes past the end of a 1000-float hipMalloc, inside the
// allocation's last page. ROCm does not fault there: the program runs, the
// in-bounds values are right, and mgsim warns once (kernel, PC, address);
// with sim.strict_bounds = true the launch faults instead. Prints
// "result: <hipError name>", exits 0 if the kernel ran, 1 if it faulted.
#include <hip/hip_runtime.h>

#include <cstdio>

__global__ void fill(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) a[i] = 1.0f + i; // i == n: one element too far
}

int main()
{
    const int n = 1000;
    float *a = nullptr;
    if (hipMalloc(&a, n * sizeof(float)) != hipSuccess) return 2;
    hipError_t e = hipSuccess;
    for (int round = 0; round < 2 && e == hipSuccess; round++) {
        fill<<<4, 256>>>(a, n); // one warning per launch
        e = hipGetLastError();
    }
    if (e == hipSuccess) e = hipDeviceSynchronize();
    std::printf("result: %s\n", hipGetErrorName(e));
    if (e != hipSuccess) return 1;
    static float h[n];
    if (hipMemcpy(h, a, sizeof h, hipMemcpyDeviceToHost) != hipSuccess)
        return 2;
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != 1.0f + i;
    std::printf("%d mismatches\n", bad);
    return bad ? 2 : 0;
}
