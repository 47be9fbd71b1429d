// Multi-GPU 1-D stencil with halo exchange: the domain is split over every
// device (hipGetDeviceCount; set MGSIM_GPUS), each device smooths its part
// with a 3-point stencil, and after every step neighbouring devices swap
// their edge cells with hipMemcpyPeer. Checked against a CPU run.
// Weights are powers of two, so GPU and CPU results are bit-identical.
// Usage: halo [n] [steps]   (defaults 8192 points, 10 steps)
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

// in/out hold m interior cells at [1, m] plus one halo cell on each side.
// Cells with global index 0 or n-1 are fixed boundary values.
__global__ void smooth(const float *in, float *out, int m, int first, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    if (i > m) return;
    int g = first + i - 1;
    if (g == 0 || g == n - 1)
        out[i] = in[i];
    else
        out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 8192;
    int steps = argc > 2 ? std::atoi(argv[2]) : 10;
    int ndev = 0;
    CHECK(hipGetDeviceCount(&ndev));
    if (n < 2 * ndev || steps < 0) {
        std::fprintf(stderr, "usage: halo [n >= 2*devices] [steps >= 0]\n");
        return 2;
    }
    std::vector<float> init(n);
    for (int i = 0; i < n; i++) init[i] = (float)((i * 37) % 101) / 16.0f;

    // Partition and per-device buffers (two for ping-pong).
    std::vector<int> first(ndev), count(ndev);
    std::vector<float *> buf[2] = {std::vector<float *>(ndev),
                                   std::vector<float *>(ndev)};
    for (int d = 0; d < ndev; d++) {
        first[d] = (int)((long long)n * d / ndev);
        count[d] = (int)((long long)n * (d + 1) / ndev) - first[d];
        CHECK(hipSetDevice(d));
        for (int d2 = 0; d2 < ndev; d2++) {
            int can = 0;
            CHECK(hipDeviceCanAccessPeer(&can, d, d2));
            if (can) CHECK(hipDeviceEnablePeerAccess(d2, 0));
        }
        size_t bytes = sizeof(float) * (count[d] + 2);
        CHECK(hipMalloc(&buf[0][d], bytes));
        CHECK(hipMalloc(&buf[1][d], bytes));
        CHECK(hipMemset(buf[0][d], 0, bytes));
        CHECK(hipMemset(buf[1][d], 0, bytes));
        CHECK(hipMemcpy(buf[0][d] + 1, &init[first[d]],
                        sizeof(float) * count[d], hipMemcpyHostToDevice));
    }
    // Initial halos, then smooth + exchange per step.
    auto exchange = [&](int cur) {
        for (int d = 0; d + 1 < ndev; d++) {
            // my last interior cell -> right neighbour's left halo
            CHECK(hipMemcpyPeer(buf[cur][d + 1], d + 1,
                                buf[cur][d] + count[d], d, sizeof(float)));
            // right neighbour's first interior cell -> my right halo
            CHECK(hipMemcpyPeer(buf[cur][d] + count[d] + 1, d,
                                buf[cur][d + 1] + 1, d + 1, sizeof(float)));
        }
    };
    int cur = 0;
    exchange(cur);
    const int block = 256;
    for (int s = 0; s < steps; s++) {
        for (int d = 0; d < ndev; d++) {
            CHECK(hipSetDevice(d));
            smooth<<<(count[d] + block - 1) / block, block>>>(
                buf[cur][d], buf[1 - cur][d], count[d], first[d], n);
            CHECK(hipGetLastError());
        }
        for (int d = 0; d < ndev; d++) {
            CHECK(hipSetDevice(d));
            CHECK(hipDeviceSynchronize());
        }
        cur = 1 - cur;
        exchange(cur);
    }
    std::vector<float> gpu(n);
    for (int d = 0; d < ndev; d++)
        CHECK(hipMemcpy(&gpu[first[d]], buf[cur][d] + 1,
                        sizeof(float) * count[d], hipMemcpyDeviceToHost));

    // CPU reference.
    std::vector<float> a = init, b(n);
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < n; i++)
            b[i] = (i == 0 || i == n - 1)
                       ? a[i]
                       : 0.25f * a[i - 1] + 0.5f * a[i] + 0.25f * a[i + 1];
        a.swap(b);
    }
    int bad = 0;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        sum += gpu[i];
        if (gpu[i] != a[i]) {
            if (bad < 5) std::printf("mismatch at %d: %g != %g\n", i, gpu[i], a[i]);
            bad++;
        }
    }
    for (int d = 0; d < ndev; d++) {
        CHECK(hipSetDevice(d));
        CHECK(hipFree(buf[0][d]));
        CHECK(hipFree(buf[1][d]));
    }
    std::printf("halo: n=%d steps=%d devices=%d checksum=%.6f\n", n, steps,
                ndev, sum);
    std::printf("%s\n", bad ? "FAILED" : "PASSED");
    return bad ? 1 : 0;
}
