// DRAM bandwidth microbenchmark: every work-item reads 16-byte chunks with
// a grid stride (consecutive work-items read consecutive chunks, so each
// wavefront instruction covers whole lines) and writes one checksum.
#include <hip/hip_runtime.h>

extern "C" __global__ void micro_stream(const uint4 *in, unsigned n,
                                        unsigned *out)
{
    unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned stride = gridDim.x * blockDim.x;
    unsigned s = 0;
    for (unsigned i = id; i < n; i += stride) {
        uint4 v = in[i];
        s += v.x ^ v.y ^ v.z ^ v.w;
    }
    out[id] = s;
}
