// mt: out = transpose(in) for a rows x cols row-major uint32 matrix, through
// a 16x17 LDS tile (the padding column avoids bank conflicts). Edge tiles
// are guarded, so any size works. ld_out is the output's row stride in
// elements (>= rows), so a band of input rows can be transposed into a
// band of output columns.
#include <hip/hip_runtime.h>

#define TILE 16

extern "C" __global__ void mt(const unsigned *in, unsigned *out,
                              unsigned rows, unsigned cols, unsigned ld_out)
{
    __shared__ unsigned tile[TILE][TILE + 1];
    unsigned x = blockIdx.x * TILE + threadIdx.x;   // column in input
    unsigned y = blockIdx.y * TILE + threadIdx.y;   // row in input
    if (x < cols && y < rows)
        tile[threadIdx.y][threadIdx.x] = in[(size_t)y * cols + x];
    __syncthreads();
    unsigned ox = blockIdx.y * TILE + threadIdx.x;  // column in output
    unsigned oy = blockIdx.x * TILE + threadIdx.y;  // row in output
    if (ox < rows && oy < cols)
        out[(size_t)oy * ld_out + ox] = tile[threadIdx.x][threadIdx.y];
}
