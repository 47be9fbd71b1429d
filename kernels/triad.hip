// triad: STREAM triad x[i] = y[i] + s * z[i] over [first, first + count)
// (CARVE stand-in for stream-triad, seed 004 Table II).
#include <hip/hip_runtime.h>

extern "C" __global__ void triad(float *x, const float *y, const float *z,
                                 float s, unsigned first, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        x[first + i] = y[first + i] + s * z[first + i];
}
