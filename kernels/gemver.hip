// gemver (PolyBench): A += u1 v1^T + u2 v2^T; x = x + beta A^T y; x = x + z;
// w = w + alpha A x. gemver_a and gemver_w work on a slice of rows,
// gemver_x on a slice of columns (reading every row of A).
#include <hip/hip_runtime.h>

extern "C" __global__ void gemver_a(float *a, const float *u1, const float *v1,
                                    const float *u2, const float *v2,
                                    unsigned n, unsigned rows)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= n || i >= rows)
        return;
    size_t o = (size_t)i * n + j;
    a[o] = a[o] + u1[i] * v1[j] + u2[i] * v2[j];
}

extern "C" __global__ void gemver_x(const float *a, const float *y,
                                    const float *z, float *x, unsigned col0,
                                    unsigned cols, unsigned n, float beta)
{
    unsigned jj = blockIdx.x * blockDim.x + threadIdx.x;
    if (jj >= cols)
        return;
    unsigned j = col0 + jj;
    float acc = 0.0f;
    for (unsigned i = 0; i < n; i++)
        acc += a[(size_t)i * n + j] * y[i];
    float v = x[j] + beta * acc;
    x[j] = v + z[j];
}

extern "C" __global__ void gemver_w(const float *a, const float *x, float *w,
                                    unsigned n, unsigned rows, float alpha)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows)
        return;
    float acc = 0.0f;
    for (unsigned j = 0; j < n; j++)
        acc += a[(size_t)i * n + j] * x[j];
    w[i] = w[i] + alpha * acc;
}
