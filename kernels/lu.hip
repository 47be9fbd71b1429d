// lu: in-place LU decomposition without pivoting (PolyBench), step k.
// lu_scale divides row k right of the diagonal by the pivot; lu_update
// applies the rank-1 update to rows [first, first + count) right of
// column k (rows <= k are left alone).
#include <hip/hip_runtime.h>

extern "C" __global__ void lu_scale(float *a, unsigned n, unsigned k)
{
    unsigned j = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n)
        a[(size_t)k * n + j] = a[(size_t)k * n + j] / a[(size_t)k * n + k];
}

extern "C" __global__ void lu_update(float *a, unsigned n, unsigned k,
                                     unsigned first, unsigned count)
{
    unsigned j = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned i = first + y;
    if (j >= n || y >= count || i <= k)
        return;
    a[(size_t)i * n + j] -= a[(size_t)i * n + k] * a[(size_t)k * n + j];
}
