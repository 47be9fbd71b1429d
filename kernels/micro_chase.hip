// Pointer chase for the latency microbenchmarks (seed 002 §5.2.7): one
// work-item follows next[] `iters` times; every load depends on the one
// before, so the time per iteration is the latency of the level the ring
// lives in (plus a constant loop overhead that cancels between two runs).
#include <hip/hip_runtime.h>

extern "C" __global__ void micro_chase(const unsigned *next, unsigned iters,
                                       unsigned *out)
{
    unsigned p = threadIdx.x; // per-lane: vector loads through the L1V
    for (unsigned i = 0; i < iters; i++)
        p = next[p];
    out[threadIdx.x] = p;
}
