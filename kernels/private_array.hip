#include <hip/hip_runtime.h>
/* A private array indexed by a thread-dependent value: the compiler keeps
** it in scratch (private segment), so every wave needs its own slice. */
extern "C" __global__ void private_sum(const int *in, int *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    int a[48];
    for (int i = 0; i < 48; i++)
        a[i] = in[t] * (i + 1) + i;
    int s = 0;
    for (int i = 0; i < 48; i++)
        s += a[(i * 7 + in[t]) % 48];
    out[t] = s;
}
