// pr: PageRank, pull formulation. pr_contrib computes each vertex's share
// rank / out_degree (0 for vertices without out-edges); pr_pull sums the
// shares of a vertex's in-neighbours in CSR order:
// next = (1 - d) / n + d * sum. Both work on a slice of vertices; `off` and
// `src` are the slice's in-edge rows, rebased to its own `src`.
#include <hip/hip_runtime.h>

extern "C" __global__ void pr_contrib(const float *rank, const unsigned *outdeg,
                                      float *contrib, unsigned first,
                                      unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    unsigned v = first + i, d = outdeg[v];
    contrib[v] = d ? rank[v] / (float)d : 0.0f;
}

extern "C" __global__ void pr_pull(const unsigned *off, const unsigned *src,
                                   const float *contrib, float *next,
                                   unsigned first, unsigned count,
                                   float base, float damping)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    float sum = 0.0f;
    for (unsigned e = off[i]; e < off[i + 1]; e++)
        sum += contrib[src[e]];
    next[first + i] = base + damping * sum;
}
