// Device printf for tests/unit/runtime/test_hostcall.c: every work-item
// prints one line (printf's return value goes to out[i]); work-items with
// quiet set skip the call, so a launch can take the hostcall buffer and
// never use it.
#include <hip/hip_runtime.h>

extern "C" __global__ void hostcall_printf(int *out, int n, int quiet)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = quiet ? -1 : printf("item %d of %d: %.2f %s\n", i, n, i * 0.5,
                                 i & 1 ? "odd" : "even");
}
