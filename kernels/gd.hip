// gd: batch gradient descent for least-squares linear regression, data
// parallel. Per GPU: gd_residual (r = X w - y over its samples) and
// gd_partial (its partial gradient g = X^T r, one work-item per feature);
// gd_update then averages every GPU's partial gradient (a gather) into that
// GPU's copy of the weights.
#include <hip/hip_runtime.h>

extern "C" __global__ void gd_residual(const float *x, const float *y,
                                       const float *w, float *r,
                                       unsigned rows, unsigned d)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows)
        return;
    float acc = 0.0f;
    for (unsigned j = 0; j < d; j++)
        acc += x[(size_t)i * d + j] * w[j];
    r[i] = acc - y[i];
}

extern "C" __global__ void gd_partial(const float *x, const float *r, float *g,
                                      unsigned rows, unsigned d)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= d)
        return;
    float acc = 0.0f;
    for (unsigned i = 0; i < rows; i++)
        acc += r[i] * x[(size_t)i * d + j];
    g[j] = acc;
}

extern "C" __global__ void gd_update(float *w, const float *g, unsigned parts,
                                     unsigned d, float step)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= d)
        return;
    float sum = 0.0f;
    for (unsigned p = 0; p < parts; p++)
        sum += g[(size_t)p * d + j];
    w[j] = w[j] - step * sum;
}
