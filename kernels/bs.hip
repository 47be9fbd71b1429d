// bs: one compare-exchange step (j, k) of a bitonic sorting network over
// unsigned keys, ascending. Work-item i (of the slice starting at first)
// pairs with i ^ j; only the lower index of a pair acts.
#include <hip/hip_runtime.h>

extern "C" __global__ void bitonic_step(unsigned *keys, unsigned j, unsigned k,
                                        unsigned first, unsigned count)
{
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= count)
        return;
    unsigned i = first + g;
    unsigned l = i ^ j;
    if (l <= i)
        return;
    unsigned a = keys[i], b = keys[l];
    bool ascending = (i & k) == 0;
    if ((a > b) == ascending) {
        keys[i] = b;
        keys[l] = a;
    }
}
