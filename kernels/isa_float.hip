// isa_float: widens ISA coverage for the decoder/disassembler tests and the
// emulator. fp32/fp64 arithmetic incl. division, sqrt, exp/log/sin/cos, pow,
// fma, min/max/abs, conversions and half precision. Output out[i] depends on
// every operation so none is optimised away.
#include <hip/hip_runtime.h>

extern "C" __global__ void isa_float32(const float *a, const float *b,
                                       float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i];
    float r = x / y + sqrtf(fabsf(x)) + expf(y) + logf(fabsf(x) + 1.0f);
    r += sinf(x) * cosf(y) + powf(fabsf(x), 0.5f) + fmaf(x, y, 0.25f);
    r += fminf(x, y) - fmaxf(x, -4.0f) + floorf(x) + ceilf(y) + truncf(x);
    r += rintf(y) + exp2f(x) + log2f(fabsf(y) + 2.0f) + rsqrtf(fabsf(y) + 1.f);
    r += (float)(int)x + (float)(unsigned)fabsf(y) + copysignf(x, y);
    r += tanf(x) + atan2f(y, x) + fmodf(x, y + 0.5f) + ldexpf(x, i & 7);
    out[i] = r * 0.15915494f;
}

extern "C" __global__ void isa_float64(const double *a, const double *b,
                                       double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = a[i], y = b[i];
    double r = x / y + sqrt(fabs(x)) + exp(y) + log(fabs(x) + 1.0);
    r += sin(x) * cos(y) + fma(x, y, 0.25) + fmin(x, y) - fmax(x, -4.0);
    r += floor(x) + ceil(y) + trunc(x) + rint(y) + (double)(long)x;
    r += (double)(float)y + (double)(unsigned)i + ldexp(x, i & 7);
    out[i] = r;
}

extern "C" __global__ void isa_half(const _Float16 *a, const _Float16 *b,
                                    _Float16 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    _Float16 x = a[i], y = b[i];
    _Float16 r = x * y + x - y;
    r = r > x ? r : x;
    r = r / (y + (_Float16)1.0f);
    out[i] = r + (_Float16)(float)(short)i;
}
