// km: k-means. km_transpose turns a slice of points (np x f, point-major)
// into feature-major layout (f x np) so that km_assign's loads coalesce;
// km_assign gives each point the index of its nearest centroid (squared
// Euclidean distance, lowest index on ties). The host updates centroids.
#include <hip/hip_runtime.h>

extern "C" __global__ void km_transpose(const float *pts, float *ft,
                                        unsigned np, unsigned f)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= np)
        return;
    for (unsigned j = 0; j < f; j++)
        ft[(size_t)j * np + i] = pts[(size_t)i * f + j];
}

extern "C" __global__ void km_assign(const float *ft, const float *cent,
                                     unsigned *member, unsigned np,
                                     unsigned f, unsigned k)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= np)
        return;
    unsigned best = 0;
    float best_d = 0.0f;
    for (unsigned c = 0; c < k; c++) {
        float d = 0.0f;
        for (unsigned j = 0; j < f; j++) {
            float e = ft[(size_t)j * np + i] - cent[c * f + j];
            d += e * e;
        }
        if (c == 0 || d < best_d) {
            best_d = d;
            best = c;
        }
    }
    member[i] = best;
}
