// One managed buffer touched by every GPU in turn: device d adds d + 1 to
// every element (and the host adds 100 in between), so with page migration
// (MGSIM_SET=memory.management=migrate, timing mode) each page moves from
// the host to GPU 0, then to GPU 1, ... and back to the host's view.
// Checked against the CPU.
// Usage: managed_turns [n] [rounds]   (default 8192 elements, 2 rounds)
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

__global__ void add(int *v, int k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] += k;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 8192;
    int rounds = argc > 2 ? std::atoi(argv[2]) : 2;
    if (n <= 0 || rounds <= 0) {
        std::fprintf(stderr, "usage: managed_turns [n > 0] [rounds > 0]\n");
        return 2;
    }
    int devices = 0;
    CHECK(hipGetDeviceCount(&devices));
    int *v;
    CHECK(hipMallocManaged(&v, sizeof(int) * n));
    for (int i = 0; i < n; i++)
        v[i] = i;
    const int block = 256, grid = (n + block - 1) / block;
    for (int r = 0; r < rounds; r++) {
        for (int d = 0; d < devices; d++) {
            CHECK(hipSetDevice(d));
            add<<<grid, block>>>(v, d + 1, n);
            CHECK(hipGetLastError());
            CHECK(hipDeviceSynchronize());
        }
        for (int i = 0; i < n; i++)
            v[i] += 100;                      // the host's turn
    }
    int per_round = devices * (devices + 1) / 2 + 100, bad = 0;
    for (int i = 0; i < n; i++) {
        int want = i + rounds * per_round;
        if (v[i] != want) {
            if (bad < 5) std::printf("mismatch at %d: %d != %d\n", i, v[i], want);
            bad++;
        }
    }
    std::printf("managed_turns: n=%d devices=%d rounds=%d v[n-1]=%d\n", n,
                devices, rounds, v[n - 1]);
    CHECK(hipFree(v));
    std::printf("%s\n", bad ? "FAILED" : "PASSED");
    return bad ? 1 : 0;
}
