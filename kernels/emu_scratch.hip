// emu_scratch: a test kernel for the emulator's private (scratch) memory
// and function calls. A private array indexed by loaded data cannot live in
// registers, so the compiler puts it in scratch; passing it to a
// non-inlined function makes a generic (FLAT) pointer into the private
// aperture and a real s_swappc call. Used by tests/unit/runtime/test_runtime.c.
#include <hip/hip_runtime.h>

__device__ __attribute__((noinline)) int sum_via_ptr(volatile int *p, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += p[i];
    return s;
}

extern "C" __global__ void emu_scratch(const int *idx, int *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    volatile int arr[32];
    for (int j = 0; j < 32; j++)
        arr[j] = (int)i * 32 + j;
    int k = idx[i] & 31;
    arr[k] += 1000;
    out[i] = arr[(k + 1) & 31] + arr[k] + sum_via_ptr(arr, k + 1);
}
