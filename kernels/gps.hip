// The GPS workloads (seed 003 Table 2; workloads/g*/, docs/gps.md). Every
// kernel indexes whole arrays with global indices; a launch covers the rows
// [row0, row0 + rows) its GPU owns.
#include <hip/hip_runtime.h>

// Jacobi solver of the 2-D Poisson problem (5-point Laplacian, diagonally
// dominant): y = (x_up + x_down + x_left + x_right + b) / 4 inside, the
// boundary fixed.
extern "C" __global__ void gps_jacobi(const float *x, float *y, const float *b,
                                      unsigned n, unsigned row0,
                                      unsigned rows)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned r = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= n || r >= rows)
        return;
    unsigned i = row0 + r;
    size_t k = (size_t)i * n + j;
    float v = x[k];
    if (i > 0 && i < n - 1 && j > 0 && j < n - 1)
        v = 0.25f * (((x[k - n] + x[k + n]) + (x[k - 1] + x[k + 1])) + b[k]);
    y[k] = v;
}
