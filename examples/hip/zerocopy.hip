// Page-locked host memory used directly by kernels ("zero-copy"), the way
// HIP-Examples programs do it: hipHostMalloc with hipHostMallocMapped and
// hipHostGetDevicePointer, and the program's own malloc'd buffer made
// visible with hipHostRegister. No hipMemcpy anywhere: the host reads the
// kernel's results after hipDeviceSynchronize. Checked against the CPU.
// Usage: zerocopy [n]   (default 65536 elements)
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                        \
    do {                                                                   \
        hipError_t err_ = (call);                                          \
        if (err_ != hipSuccess) {                                          \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__,       \
                         __LINE__, #call, hipGetErrorString(err_));        \
            std::exit(2);                                                  \
        }                                                                  \
    } while (0)

__global__ void saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 65536;
    if (n <= 0) {
        std::fprintf(stderr, "usage: zerocopy [n > 0]\n");
        return 2;
    }
    size_t bytes = sizeof(float) * n;
    // x: pinned, mapped memory from HIP.
    float *x = nullptr, *dx = nullptr;
    CHECK(hipHostMalloc(&x, bytes, hipHostMallocMapped));
    CHECK(hipHostGetDevicePointer((void **)&dx, x, 0));
    unsigned flags = 0;
    CHECK(hipHostGetFlags(&flags, x));
    // y: the program's own memory, registered.
    float *y = (float *)std::malloc(bytes), *dy = nullptr;
    CHECK(hipHostRegister(y, bytes, hipHostRegisterMapped));
    CHECK(hipHostGetDevicePointer((void **)&dy, y, 0));
    for (int i = 0; i < n; i++) {
        x[i] = 0.25f * (i % 1024);
        y[i] = 100.0f - (i % 77);
    }
    for (int round = 1; round <= 2; round++) {
        saxpy<<<(n + 255) / 256, 256>>>(2.0f, dx, dy, n);
        CHECK(hipGetLastError());
        CHECK(hipDeviceSynchronize());
    }
    int bad = 0;
    for (int i = 0; i < n; i++) {
        float want = 100.0f - (i % 77) + 4.0f * (0.25f * (i % 1024));
        if (y[i] != want) bad++;
    }
    std::printf("n=%d flags=0x%x y[1]=%g y[n-1]=%g, %d mismatches\n", n,
                flags, y[n > 1 ? 1 : 0], y[n - 1], bad);
    CHECK(hipHostUnregister(y));
    CHECK(hipHostFree(x));
    // Registered again, then released by a device reset.
    CHECK(hipHostRegister(y, bytes, hipHostRegisterDefault));
    CHECK(hipDeviceReset());
    std::free(y);
    std::printf("%s\n", bad == 0 ? "PASSED" : "FAILED");
    return bad == 0 ? 0 : 1;
}
