// loader_props: kernels with known properties for the code-object loader
// tests (tests/unit/gcn3/test_codeobj.c). Not a workload: the values below
// (LDS sizes, argument layout, work-item dimensions) are what the tests
// assert, so change both together.
#include <hip/hip_runtime.h>

struct loader_pair {
    int key;
    float weight;
    double scale;
};  // 16 bytes, 8-aligned: passed by value

// 256 floats of static LDS (1024 bytes); a by-value struct, a by-value char
// and a by-value double after it; uses a 2-D work-item id.
extern "C" __global__ void loader_lds(const float *in, float *out,
                                      loader_pair p, char tag, double bias)
{
    __shared__ float tile[256];
    unsigned lid = threadIdx.y * blockDim.x + threadIdx.x;
    tile[lid & 255] = in[blockIdx.x * 256 + (lid & 255)] * p.weight;
    __syncthreads();
    out[blockIdx.x * 256 + (lid & 255)] =
        tile[255 - (lid & 255)] * (float)p.scale + (float)(p.key + tag) +
        (float)bias;
}

// Dynamic shared memory only (size given at launch); 3-D ids.
extern "C" __global__ void loader_dyn(unsigned *out, unsigned n)
{
    extern __shared__ unsigned dyn[];
    unsigned lid = threadIdx.x + threadIdx.y * blockDim.x +
                   threadIdx.z * blockDim.x * blockDim.y;
    dyn[lid] = lid * 3u + blockIdx.z;
    __syncthreads();
    if (lid < n)
        out[lid] = dyn[n - 1 - lid];
}
