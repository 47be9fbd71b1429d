// mp: 2x2 max pooling with stride 2 over planes of h x w floats (h and w
// even). One work-item per output element.
#include <hip/hip_runtime.h>

extern "C" __global__ void maxpool(const float *in, float *out,
                                   unsigned planes, unsigned h, unsigned w)
{
    unsigned o = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned oh = h / 2, ow = w / 2;
    if (o >= planes * oh * ow)
        return;
    unsigned p = o / (oh * ow), r = o % (oh * ow);
    unsigned y = r / ow * 2, x = r % ow * 2;
    const float *src = in + (size_t)p * h * w + (size_t)y * w + x;
    out[o] = fmaxf(fmaxf(src[0], src[1]), fmaxf(src[w], src[w + 1]));
}
