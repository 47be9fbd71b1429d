// Global data in device code, unmodified HIP: a constant lookup table
// local to the kernel (the code object's read-only data), a __constant__
// array set with hipMemcpyToSymbol, __device__ variables with initial
// values (one a pointer to another, which the loader relocates) and a
// __device__ counter read back with hipMemcpyFromSymbol. Every device has
// its own copy of the variables, as with ROCm. Checked against the CPU.
// Usage: globals [n]   (default 4096 elements); each visible device runs.
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

__constant__ int coeff[4];
__device__ int counter;
__device__ int offsets[3] = {7, 11, 13};
__device__ int *offsets_ptr = offsets;

static const unsigned char host_lut[16] = {3, 1, 4, 1, 5, 9, 2, 6,
                                           5, 3, 5, 8, 9, 7, 9, 3};

__global__ void apply(const unsigned char *in, int *out, int n)
{
    static const unsigned char lut[16] = {3, 1, 4, 1, 5, 9, 2, 6,
                                          5, 3, 5, 8, 9, 7, 9, 3};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = lut[in[i] & 15] * coeff[i & 3] + offsets_ptr[i % 3];
        if (in[i] == 0) atomicAdd(&counter, 1);
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 4096;
    if (n <= 0) {
        std::fprintf(stderr, "usage: globals [n > 0]\n");
        return 2;
    }
    int ndev = 0;
    CHECK(hipGetDeviceCount(&ndev));
    std::vector<unsigned char> in(n);
    int zeros = 0;
    for (int i = 0; i < n; i++) {
        in[i] = (unsigned char)((i * 37 + 11) % 251);
        zeros += in[i] == 0;
    }
    bool ok = true;
    for (int d = 0; d < ndev; d++) {
        CHECK(hipSetDevice(d));
        // A different coefficient set per device: each has its own copy.
        int c[4] = {1 + d, 2 + d, 3 + d, 4 + d};
        CHECK(hipMemcpyToSymbol(HIP_SYMBOL(coeff), c, sizeof c));
        size_t size = 0;
        CHECK(hipGetSymbolSize(&size, HIP_SYMBOL(offsets)));
        int *counter_ptr = nullptr;
        CHECK(hipGetSymbolAddress((void **)&counter_ptr, HIP_SYMBOL(counter)));
        CHECK(hipMemset(counter_ptr, 0, sizeof(int)));

        unsigned char *din;
        int *dout;
        CHECK(hipMalloc(&din, n));
        CHECK(hipMalloc(&dout, sizeof(int) * n));
        CHECK(hipMemcpy(din, in.data(), n, hipMemcpyHostToDevice));
        apply<<<(n + 255) / 256, 256>>>(din, dout, n);
        CHECK(hipGetLastError());
        std::vector<int> out(n);
        CHECK(hipMemcpy(out.data(), dout, sizeof(int) * n,
                        hipMemcpyDeviceToHost));
        int count = -1;
        CHECK(hipMemcpyFromSymbol(&count, HIP_SYMBOL(counter), sizeof count));
        int bad = 0;
        const int offs[3] = {7, 11, 13};
        for (int i = 0; i < n; i++)
            if (out[i] != host_lut[in[i] & 15] * c[i & 3] + offs[i % 3]) bad++;
        std::printf("device %d: offsets %zu bytes, out[1]=%d out[n-1]=%d, "
                    "counter=%d (expected %d), %d mismatches\n",
                    d, size, n > 1 ? out[1] : out[0], out[n - 1], count,
                    zeros, bad);
        ok = ok && bad == 0 && count == zeros && size == sizeof offs;
        CHECK(hipFree(din));
        CHECK(hipFree(dout));
    }
    // A device reset frees the device's memory; here code objects are
    // process-wide and stay loaded, so the variables keep their values
    // (ROCm may reload them: docs/hip.md, hipDeviceReset).
    for (int d = 0; d < ndev; d++) {
        CHECK(hipSetDevice(d));
        CHECK(hipDeviceReset());
        int after = -1;
        CHECK(hipMemcpyFromSymbol(&after, HIP_SYMBOL(counter), sizeof after));
        ok = ok && after == zeros;
    }
    std::printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
