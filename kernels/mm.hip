// mm: C = A * B for n x n row-major float matrices, 16x16 tiles staged in
// LDS (one 16x16 work-group per output tile). n must be a multiple of 16.
#include <hip/hip_runtime.h>

#define TILE 16

extern "C" __global__ void mm(const float *a, const float *b, float *c,
                              unsigned n)
{
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned row = blockIdx.y * TILE + ty;
    unsigned col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (unsigned t = 0; t < n; t += TILE) {
        ta[ty][tx] = a[(size_t)row * n + t + tx];
        tb[ty][tx] = b[(size_t)(t + ty) * n + col];
        __syncthreads();
        for (unsigned k = 0; k < TILE; k++)
            acc += ta[ty][k] * tb[k][tx];
        __syncthreads();
    }
    c[(size_t)row * n + col] = acc;
}
