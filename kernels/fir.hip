// fir: out[i] = sum_t coef[t] * in[i - t]. `in` points at the first sample
// of this slice; the taps - 1 samples before it (the halo, copied from the
// neighbouring slice or zero at the start of the signal) are readable.
#include <hip/hip_runtime.h>

extern "C" __global__ void fir(const float *in, const float *coef, float *out,
                               unsigned count, unsigned taps)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    float acc = 0.0f;
    for (unsigned t = 0; t < taps; t++)
        acc += coef[t] * in[(int)i - (int)t];
    out[i] = acc;
}
