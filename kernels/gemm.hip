// gemm: C = alpha * A * B + beta * C for a slice of `rows` rows of C.
// A is rows x k, B is k x n, C is rows x n, all row-major; 16x16 tiles staged
// in LDS, one 16x16 work-group per output tile. rows, n and k must be
// multiples of 16. Also used by mm2 and mm3.
#include <hip/hip_runtime.h>

#define TILE 16

extern "C" __global__ void gemm(const float *a, const float *b, float *c,
                                unsigned n, unsigned k, float alpha,
                                float beta)
{
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned row = blockIdx.y * TILE + ty;
    unsigned col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (unsigned t = 0; t < k; t += TILE) {
        ta[ty][tx] = a[(size_t)row * k + t + tx];
        tb[ty][tx] = b[(size_t)(t + ty) * n + col];
        __syncthreads();
        for (unsigned q = 0; q < TILE; q++)
            acc += ta[ty][q] * tb[q][tx];
        __syncthreads();
    }
    size_t o = (size_t)row * n + col;
    c[o] = alpha * acc + beta * c[o];
}
