// bicg: the two matrix-vector products of a BiCG step: q = A p (one
// work-item per row of a row slice) and s = A^T r (one work-item per column
// of a column slice, reading every row).
#include <hip/hip_runtime.h>

extern "C" __global__ void bicg_q(const float *a, const float *p, float *q,
                                  unsigned rows, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows)
        return;
    float acc = 0.0f;
    for (unsigned j = 0; j < n; j++)
        acc += a[(size_t)i * n + j] * p[j];
    q[i] = acc;
}

extern "C" __global__ void bicg_s(const float *a, const float *r, float *s,
                                  unsigned col0, unsigned cols, unsigned m,
                                  unsigned n)
{
    unsigned jj = blockIdx.x * blockDim.x + threadIdx.x;
    if (jj >= cols)
        return;
    unsigned j = col0 + jj;
    float acc = 0.0f;
    for (unsigned i = 0; i < m; i++)
        acc += r[i] * a[(size_t)i * n + j];
    s[jj] = acc;
}
