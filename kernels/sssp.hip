// sssp: one pull-based Bellman-Ford sweep over a road-like grid graph
// (CARVE stand-in for SSSP and, with unit weights, bfs-road-usa, seed 004
// Table II): next[v] = min(cur[v], min over the up to 4 neighbours u of
// cur[u] + w(u, v)).
#include <hip/hip_runtime.h>

#define SSSP_INF 0x3fffffffu

extern "C" __global__ void sssp(const int *nbr, const unsigned *w,
                                const unsigned *cur, unsigned *next,
                                unsigned first, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    unsigned v = first + i, d = cur[v];
    for (unsigned k = 0; k < 4; k++) {
        int u = nbr[v * 4 + k];
        if (u >= 0) {
            unsigned du = cur[u];
            if (du < SSSP_INF && du + w[v * 4 + k] < d)
                d = du + w[v * 4 + k];
        }
    }
    next[v] = d;
}
