// isa_sync: LDS and synchronisation coverage: static and dynamic shared
// memory, __syncthreads, atomics (add, cas, min/max, exch, and/or/xor, inc)
// on global and shared memory, 64-bit atomics, warp shuffles (__shfl,
// __shfl_xor, __shfl_up/down -> ds_bpermute / DPP), warp vote and ballot.
#include <hip/hip_runtime.h>

extern "C" __global__ void isa_atomics(int *g, unsigned *gu,
                                       unsigned long long *g64, int n)
{
    __shared__ int lds[256];
    __shared__ unsigned ldsu[4];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    lds[t & 255] = t;
    if (t < 4)
        ldsu[t] = 0;
    __syncthreads();
    atomicAdd(&lds[(t + 1) & 255], 1);
    atomicMin(&lds[0], -t);
    atomicMax(&lds[1], t);
    atomicExch(&lds[2], t);
    atomicCAS(&lds[3], 3, t);
    atomicOr(&ldsu[0], 1u << (t & 31));
    atomicAnd(&ldsu[1], ~(1u << (t & 31)));
    atomicXor(&ldsu[2], (unsigned)t);
    atomicInc(&ldsu[3], 100u);
    __syncthreads();
    if (i < n) {
        atomicAdd(&g[0], lds[t & 255]);
        atomicMin(&g[1], lds[0]);
        atomicMax(&g[2], t);
        atomicExch(&g[3], t);
        atomicCAS(&g[4], 0, i);
        atomicSub(&g[5], 1);
        atomicOr(&gu[0], ldsu[0]);
        atomicAnd(&gu[1], ldsu[1]);
        atomicXor(&gu[2], ldsu[2]);
        atomicInc(&gu[3], 1000u);
        atomicDec(&gu[4], 1000u);
        atomicMax(&gu[5], (unsigned)i);
        atomicAdd(&g64[0], 1ull);
        atomicCAS(&g64[1], 0ull, (unsigned long long)i);
        atomicExch(&g64[2], (unsigned long long)i);
    }
}

extern "C" __global__ void isa_shuffle(const int *a, const float *f,
                                       int *out, float *outf, int n)
{
    extern __shared__ float dyn[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int x = i < n ? a[i] : 0;
    float y = i < n ? f[i] : 0.0f;
    dyn[t] = y;
    __syncthreads();
    y += dyn[(t + 1) % blockDim.x];
    int s = __shfl(x, 0) + __shfl_xor(x, 1) + __shfl_up(x, 1) +
            __shfl_down(x, 2) + __shfl(x, (t + 3) & 63);
    float fs = __shfl_xor(y, 16) + __shfl_down(y, 1);
    unsigned long long b = __ballot(x > 0);
    s += __popcll(b) + __any(x < 0) + __all(x != 7);
    for (int off = 32; off > 0; off >>= 1)
        fs += __shfl_xor(fs, off);
    if (i < n) {
        out[i] = s;
        outf[i] = fs;
    }
}

extern "C" __global__ void isa_reduce(const float *a, float *out, int n)
{
    __shared__ float part[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    part[t] = i < n ? a[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            part[t] += part[t + s];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, part[0]);
}
