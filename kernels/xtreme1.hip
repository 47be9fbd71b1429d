// xtreme1/2/3 (HALCONE §4.3.2): dst = x + y over slices, one work-group per
// slice (the seed's "each CU works on its slice"), repeated `reps` times
// inside the kernel so that the same locations are written again and again
// without a kernel boundary in between. Shared by xtreme2 and xtreme3.
#include <hip/hip_runtime.h>

extern "C" __global__ void xtreme_add(float *dst, const float *x,
                                      const float *y, unsigned slice,
                                      unsigned n, unsigned reps)
{
    unsigned begin = blockIdx.x * slice;
    unsigned end = begin + slice < n ? begin + slice : n;
    for (unsigned r = 0; r < reps; r++)
        for (unsigned e = begin + threadIdx.x; e < end; e += blockDim.x)
            dst[e] = x[e] + y[e];
}
