// c2d: PolyBench 2-D convolution, fixed 3x3 coefficients. Interior points
// only; border points of B are 0. `a` points at the first owned row of this
// slice with one halo row above and below; row0 is its global row index.
#include <hip/hip_runtime.h>

extern "C" __global__ void conv2d(const float *a, float *b, unsigned n,
                                  unsigned row0, unsigned rows)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= n || y >= rows)
        return;
    unsigned i = row0 + y;
    float v = 0.0f;
    if (i > 0 && i < n - 1 && j > 0 && j < n - 1) {
        const float *u = a + ((long)y - 1) * n, *c = a + (long)y * n,
                    *d = a + ((long)y + 1) * n;
        v = 0.2f * u[j - 1] + 0.5f * u[j] + -0.8f * u[j + 1]
          + -0.3f * c[j - 1] + 0.6f * c[j] + -0.9f * c[j + 1]
          + 0.4f * d[j - 1] + 0.7f * d[j] + 0.1f * d[j + 1];
    }
    b[(size_t)y * n + j] = v;
}
