// The occupancy API, unmodified HIP: how many work-groups of a kernel one
// CU holds (wave slots, registers and LDS of the simulated R9 Nano CU:
// 4 SIMDs x 10 wave slots, 64 KiB of LDS), and the block size that
// maximises it; then a launch with the suggested sizes, checked against
// the CPU. Usage: occupancy
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

// 1 KiB of static LDS, plus whatever dynamic LDS the launch asks for.
__global__ void reverse_tiles(const float *in, float *out, int n)
{
    __shared__ float tile[256];
    extern __shared__ float extra[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x & 255;
    tile[t] = i < n ? in[i] : 0.0f;
    extra[0] = 0.0f;
    __syncthreads();
    int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
    if (j < n && (blockDim.x - 1 - threadIdx.x) < 256)
        out[j] = tile[t] * 2.0f;
}

int main()
{
    int ok = 1;
    int groups[3];
    const size_t shmem[3] = {16, 16 * 1024, 40 * 1024};
    for (int s = 0; s < 3; s++) {
        CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(
            &groups[s], reverse_tiles, 256, shmem[s]));
        // LDS bound: 64 KiB / (1 KiB static + dynamic), at most 10 by the
        // wave slots (4 waves per 256-item group, 40 slots per CU).
        int lds_bound = (int)(65536 / (1024 + shmem[s]));
        int want = lds_bound < 10 ? lds_bound : 10;
        std::printf("block 256, %zu B dynamic LDS: %d work-groups per CU "
                    "(LDS allows %d)\n", shmem[s], groups[s], lds_bound);
        ok &= groups[s] <= want && groups[s] >= 1;
    }
    ok &= groups[1] == 3 && groups[2] == 1;
    int grid = 0, block = 0;
    CHECK(hipOccupancyMaxPotentialBlockSize(&grid, &block, reverse_tiles, 0,
                                            256));
    std::printf("suggested: grid %d, block %d\n", grid, block);
    ok &= block >= 64 && block <= 256 && block % 64 == 0 && grid > 0;

    int n = grid * block;
    std::vector<float> in(n), out(n);
    for (int i = 0; i < n; i++) in[i] = (float)(i % 1000);
    float *din, *dout;
    CHECK(hipMalloc(&din, n * sizeof(float)));
    CHECK(hipMalloc(&dout, n * sizeof(float)));
    CHECK(hipMemcpy(din, in.data(), n * sizeof(float), hipMemcpyHostToDevice));
    reverse_tiles<<<grid, block, 16>>>(din, dout, n);
    CHECK(hipGetLastError());
    CHECK(hipMemcpy(out.data(), dout, n * sizeof(float),
                    hipMemcpyDeviceToHost));
    int bad = 0;
    for (int b = 0; b < grid; b++)
        for (int t = 0; t < block; t++) {
            int j = b * block + (block - 1 - t);
            if (out[j] != 2.0f * in[b * block + t]) bad++;
        }
    std::printf("%d mismatches\n", bad);
    ok &= bad == 0;
    CHECK(hipFree(din));
    CHECK(hipFree(dout));
    std::printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
