// rl: ReLU, y[i] = max(x[i], 0).
#include <hip/hip_runtime.h>

extern "C" __global__ void relu(const float *x, float *y, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
