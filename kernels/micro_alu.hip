// ALU microbenchmark (seed 002 §5.2.7, "a varying number of v_add_f32"):
// a dependent chain of 16 fp32 adds per loop iteration.
#include <hip/hip_runtime.h>

extern "C" __global__ void micro_alu(float *out, unsigned iters, float y)
{
    float x = (float)threadIdx.x;
    for (unsigned i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 16; k++)
            x = x + y;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
