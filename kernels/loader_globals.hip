// loader_globals: a kernel that reads the code object's data segments
// (tests/unit/runtime/test_globals.c, which asserts the values below): a
// constant table local to the kernel (.rodata, reached PC-relatively), a
// __constant__ array the host sets, __device__ variables with initial
// values, one a pointer the loader relocates (R_AMDGPU_RELATIVE64), and a
// __device__ counter. Not a workload.
#include <hip/hip_runtime.h>

__constant__ int globals_coeff[4];
__device__ int globals_counter;
__device__ int globals_offsets[3] = {7, 11, 13};
__device__ int *globals_offsets_ptr = globals_offsets;

extern "C" __global__ void loader_globals(const unsigned char *in, int *out,
                                          int n)
{
    static const unsigned char lut[16] = {3, 1, 4, 1, 5, 9, 2, 6,
                                          5, 3, 5, 8, 9, 7, 9, 3};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = lut[in[i] & 15] * globals_coeff[i & 3] +
                 globals_offsets_ptr[i % 3];
        atomicAdd(&globals_counter, 1);
    }
}
