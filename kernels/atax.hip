// atax: y = A^T (A x). atax_ax computes tmp = A x for a slice of rows (one
// work-item per row); atax_aty computes a slice of y = A^T tmp (one work-item
// per column, reading every row of A).
#include <hip/hip_runtime.h>

extern "C" __global__ void atax_ax(const float *a, const float *x, float *tmp,
                                   unsigned rows, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows)
        return;
    float acc = 0.0f;
    for (unsigned j = 0; j < n; j++)
        acc += a[(size_t)i * n + j] * x[j];
    tmp[i] = acc;
}

extern "C" __global__ void atax_aty(const float *a, const float *tmp, float *y,
                                    unsigned col0, unsigned cols, unsigned m,
                                    unsigned n)
{
    unsigned jj = blockIdx.x * blockDim.x + threadIdx.x;
    if (jj >= cols)
        return;
    unsigned j = col0 + jj;
    float acc = 0.0f;
    for (unsigned i = 0; i < m; i++)
        acc += a[(size_t)i * n + j] * tmp[i];
    y[jj] = acc;
}
