// Single-GPU vector add: the smallest complete HIP program, unmodified.
// c[i] = a[i] + b[i] on the simulated GPU, checked against the CPU.
// Usage: vecadd [n]   (default 65536 elements)
// Build and run: see docs/hip.md.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                        \
    do {                                                                   \
        hipError_t err_ = (call);                                          \
        if (err_ != hipSuccess) {                                          \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__,       \
                         __LINE__, #call, hipGetErrorString(err_));        \
            std::exit(2);                                                  \
        }                                                                  \
    } while (0)

__global__ void vecadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 65536;
    if (n <= 0) {
        std::fprintf(stderr, "usage: vecadd [n > 0]\n");
        return 2;
    }
    hipDeviceProp_t prop;
    CHECK(hipGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s (%s), %d CUs, %d MHz\n", prop.name,
                prop.gcnArchName, prop.multiProcessorCount,
                prop.clockRate / 1000);

    std::vector<float> a(n), b(n), c(n);
    for (int i = 0; i < n; i++) {
        a[i] = 0.5f * i;
        b[i] = 1000.0f - i;
    }
    size_t bytes = sizeof(float) * n;
    float *da, *db, *dc;
    CHECK(hipMalloc(&da, bytes));
    CHECK(hipMalloc(&db, bytes));
    CHECK(hipMalloc(&dc, bytes));
    CHECK(hipMemcpy(da, a.data(), bytes, hipMemcpyHostToDevice));
    CHECK(hipMemcpy(db, b.data(), bytes, hipMemcpyHostToDevice));
    CHECK(hipMemset(dc, 0, bytes));

    hipEvent_t start, stop;
    CHECK(hipEventCreate(&start));
    CHECK(hipEventCreate(&stop));
    const int block = 256;
    CHECK(hipEventRecord(start, 0));
    hipLaunchKernelGGL(vecadd, dim3((n + block - 1) / block), dim3(block), 0,
                       0, da, db, dc, n);
    CHECK(hipGetLastError());
    CHECK(hipEventRecord(stop, 0));
    CHECK(hipEventSynchronize(stop));
    float ms = 0, copy_ms = 0;
    CHECK(hipEventElapsedTime(&ms, start, stop));
    CHECK(hipEventRecord(start, 0));
    CHECK(hipMemcpy(c.data(), dc, bytes, hipMemcpyDeviceToHost));
    CHECK(hipEventRecord(stop, 0));
    CHECK(hipEventSynchronize(stop));
    CHECK(hipEventElapsedTime(&copy_ms, start, stop));

    int bad = 0;
    for (int i = 0; i < n; i++)
        if (c[i] != a[i] + b[i]) {
            if (bad < 5)
                std::printf("mismatch at %d: %g != %g\n", i, c[i], a[i] + b[i]);
            bad++;
        }
    std::printf("vecadd: n=%d, c[0]=%g c[n-1]=%g, kernel %.6f ms, copy back "
                "%.6f ms (simulated)\n", n, c[0], c[n - 1], ms, copy_ms);
    CHECK(hipFree(da));
    CHECK(hipFree(db));
    CHECK(hipFree(dc));
    CHECK(hipEventDestroy(start));
    CHECK(hipEventDestroy(stop));
    std::printf("%s\n", bad ? "FAILED" : "PASSED");
    return bad ? 1 : 0;
}
