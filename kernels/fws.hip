// fws: one relaxation step k of Floyd-Warshall on a slice of rows:
// dist[i][j] = min(dist[i][j], dist[i][k] + dist[k][j]), recording the next
// hop of the shortest path. Row k and column k do not change in step k, so
// the step is race-free.
#include <hip/hip_runtime.h>

extern "C" __global__ void fws_step(unsigned *dist, unsigned *next, unsigned n,
                                    unsigned k, unsigned row0, unsigned rows)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= n || y >= rows)
        return;
    unsigned i = row0 + y;
    unsigned via = dist[(size_t)i * n + k] + dist[(size_t)k * n + j];
    if (via < dist[(size_t)i * n + j]) {
        dist[(size_t)i * n + j] = via;
        next[(size_t)i * n + j] = next[(size_t)i * n + k];
    }
}
