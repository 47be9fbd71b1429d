// st: one iteration of the SHOC Stencil2D 9-point stencil (weights: centre
// 0.25, edge neighbours 0.15, diagonal neighbours 0.05), boundary copied.
// Same slice layout as j2d: one halo row above and below, row0 global.
#include <hip/hip_runtime.h>

extern "C" __global__ void stencil2d(const float *a, float *b, unsigned n,
                                     unsigned row0, unsigned rows)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= n || y >= rows)
        return;
    unsigned i = row0 + y;
    const float *c = a + (long)y * n, *u = c - n, *d = c + n;
    float v = c[j];
    if (i > 0 && i < n - 1 && j > 0 && j < n - 1)
        v = 0.25f * c[j]
          + 0.15f * (u[j] + d[j] + c[j - 1] + c[j + 1])
          + 0.05f * (u[j - 1] + u[j + 1] + d[j - 1] + d[j + 1]);
    b[(size_t)y * n + j] = v;
}
