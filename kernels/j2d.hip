// j2d: one Jacobi sweep of the 2-D 5-point stencil, b = 0.2 * (centre + 4
// neighbours) in the interior, boundary copied. `a` and `b` point at the
// first owned row of a slice with one halo row above and below; row0 is the
// slice's first global row.
#include <hip/hip_runtime.h>

extern "C" __global__ void jacobi2d(const float *a, float *b, unsigned n,
                                    unsigned row0, unsigned rows)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= n || y >= rows)
        return;
    unsigned i = row0 + y;
    const float *c = a + (long)y * n;
    float v = c[j];
    if (i > 0 && i < n - 1 && j > 0 && j < n - 1)
        v = 0.2f * (c[j] + c[j - 1] + c[j + 1] + c[(long)j - n] + c[j + n]);
    b[(size_t)y * n + j] = v;
}
