// randacc: out[i] = sum of `reads` table entries at hashed positions
// (CARVE stand-in for "Random Memory Access", seed 004 Table II).
#include <hip/hip_runtime.h>

__device__ static unsigned mix(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

extern "C" __global__ void randacc(const unsigned *table, unsigned *out,
                                   unsigned n, unsigned reads, unsigned salt,
                                   unsigned first, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    unsigned g = first + i, sum = 0;
    for (unsigned k = 0; k < reads; k++)
        sum += table[mix(g * 64u + k + salt * 0x9e3779b9u) % n];
    out[g] = sum;
}
