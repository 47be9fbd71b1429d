// conv: simple 2-D convolution of an unsigned-integer image with a
// (2r+1) x (2r+1) unsigned mask, zero padding at the borders. `in` points at
// the first owned row; r halo rows above and below are readable (zero beyond
// the image). Integer arithmetic, so results are bit-exact.
#include <hip/hip_runtime.h>

extern "C" __global__ void simple_conv(const unsigned *in, const unsigned *mask,
                                       unsigned *out, unsigned w,
                                       unsigned rows, unsigned r)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= rows)
        return;
    unsigned m = 2 * r + 1, acc = 0;
    for (unsigned dy = 0; dy < m; dy++) {
        const unsigned *row = in + ((long)y + (long)dy - (long)r) * (long)w;
        for (unsigned dx = 0; dx < m; dx++) {
            int xx = (int)x + (int)dx - (int)r;
            if (xx >= 0 && xx < (int)w)
                acc += row[xx] * mask[dy * m + dx];
        }
    }
    out[(size_t)y * w + x] = acc;
}
