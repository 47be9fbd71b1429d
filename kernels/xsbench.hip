// xsbench: macroscopic cross-section lookups (CARVE stand-in for XSBench,
// seed 004 Table II): each lookup hashes to an energy, binary-searches the
// sorted energy grid and interpolates XS_CH channels of the two bracketing
// grid points.
#include <hip/hip_runtime.h>

#define XS_CH 5

__device__ static unsigned mix(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

extern "C" __global__ void xsbench(const float *egrid, const float *xs,
                                   float *out, unsigned grid, unsigned salt,
                                   unsigned first, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    unsigned g = first + i;
    float e = (float)(mix(g ^ (salt * 0x9e3779b9u)) >> 8) * (1.0f / 16777216.0f);
    unsigned lo = 0, hi = grid - 1;
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (egrid[mid] > e)
            hi = mid;
        else
            lo = mid;
    }
    float f = (e - egrid[lo]) / (egrid[hi] - egrid[lo]);
    float sum = 0.0f;
    for (unsigned c = 0; c < XS_CH; c++) {
        float a = xs[lo * XS_CH + c], b = xs[hi * XS_CH + c];
        sum += a + f * (b - a);
    }
    out[g] = sum;
}
