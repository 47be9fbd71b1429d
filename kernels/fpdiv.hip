// fpdiv: per element, fp64 arithmetic (division, fma, sqrt) and 32-bit
// integer division and modulo, so the emulator exercises the fp64 and the
// integer-division instruction sequences the compiler emits.
#include <hip/hip_runtime.h>

extern "C" __global__ void fpdiv(const double *x, const double *y,
                                 const int *p, const int *q,
                                 double *out_f, int *out_q, int *out_r,
                                 unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double a = x[i], b = y[i];
    out_f[i] = a / b + fma(a, b, 0.5) - sqrt(fabs(a) + 1.0);
    int pi = p[i], qi = q[i];
    out_q[i] = pi / qi;
    out_r[i] = pi % qi;
}
