// bfs: one level of level-synchronous breadth-first search over a slice of
// vertices in CSR form. Every vertex of the slice on the current frontier
// (level == cur) labels its unvisited neighbours cur + 1 and raises *changed.
// Concurrent writers of a label or of the flag all write the same value, so
// the result does not depend on their order. `off` is the slice's row
// offsets, rebased to its own `adj`; level is indexed by global vertex id.
#include <hip/hip_runtime.h>

#define BFS_UNVISITED 0xffffffffu

extern "C" __global__ void bfs_level(const unsigned *off, const unsigned *adj,
                                     unsigned *level, unsigned *changed,
                                     unsigned first, unsigned count,
                                     unsigned cur)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count || level[first + i] != cur)
        return;
    for (unsigned e = off[i]; e < off[i + 1]; e++) {
        unsigned u = adj[e];
        if (level[u] == BFS_UNVISITED) {
            level[u] = cur + 1;
            *changed = 1;
        }
    }
}
