// Managed memory: the host and the kernels use the same pointers from
// hipMallocManaged, with hipDeviceSynchronize before the host reads.
// y = a*x + y, then y *= 2 in place, then the host adds 1 and a third
// kernel reads the host's update. Checked against the CPU.
// Usage: managed [n]   (default 32768 elements)
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

__global__ void saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void scale(float *y, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] *= s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 32768;
    if (n <= 0) {
        std::fprintf(stderr, "usage: managed [n > 0]\n");
        return 2;
    }
    float *x, *y;
    CHECK(hipMallocManaged(&x, sizeof(float) * n));
    CHECK(hipMallocManaged(&y, sizeof(float) * n));
    std::vector<float> ref(n);
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 100);
        y[i] = 1.0f;
    }
    const int block = 128, grid = (n + block - 1) / block;
    // Hints: x is only read by the kernels; both go to the device now.
    CHECK(hipMemAdvise(x, n * sizeof(float), hipMemAdviseSetReadMostly, 0));
    CHECK(hipMemPrefetchAsync(x, n * sizeof(float), 0, 0));
    CHECK(hipMemPrefetchAsync(y, n * sizeof(float), 0, 0));
    saxpy<<<grid, block>>>(2.0f, x, y, n);
    scale<<<grid, block>>>(y, 2.0f, n);
    CHECK(hipGetLastError());
    CHECK(hipDeviceSynchronize());
    for (int i = 0; i < n; i++) y[i] += 1.0f;      // host writes managed memory
    scale<<<grid, block>>>(y, 0.5f, n);              // device sees the update
    CHECK(hipDeviceSynchronize());

    int bad = 0;
    for (int i = 0; i < n; i++) {
        ref[i] = ((2.0f * x[i] + 1.0f) * 2.0f + 1.0f) * 0.5f;
        if (y[i] != ref[i]) {
            if (bad < 5) std::printf("mismatch at %d: %g != %g\n", i, y[i], ref[i]);
            bad++;
        }
    }
    std::printf("managed: n=%d, y[1]=%g y[n-1]=%g\n", n, y[1], y[n - 1]);
    CHECK(hipFree(x));
    CHECK(hipFree(y));
    std::printf("%s\n", bad ? "FAILED" : "PASSED");
    return bad ? 1 : 0;
}
