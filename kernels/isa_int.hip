// isa_int: integer coverage: 32/64-bit division and modulo, multiply-high,
// min/max/abs, bit manipulation (popcount, clz/ctz, bit reverse, rotates),
// 8/16-bit loads and stores, a large switch (jump tables / branch chains)
// and loops with data-dependent trip counts.
#include <hip/hip_runtime.h>

extern "C" __global__ void isa_int32(const int *a, const unsigned *b,
                                     int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i];
    unsigned y = b[i] | 1u;
    int r = x / (int)y + x % 7 + (int)(y / 13u) + (int)((unsigned)x % y);
    r += __popc(y) + __clz(x) + __ffs(x) + (int)__brev(y);
    r += max(x, r) - min(x, -5) + abs(x) + (int)(y > 3u ? y : 3u);
    r += __mulhi(x, r) + (int)__umulhi(y, (unsigned)r) + __mul24(x, r);
    r ^= (int)((y << (x & 31)) | (y >> (32 - (x & 31))));
    out[i] = r;
}

extern "C" __global__ void isa_int64(const long long *a,
                                     const unsigned long long *b,
                                     long long *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    long long x = a[i];
    unsigned long long y = b[i] | 1ull;
    long long r = x / (long long)y + x % 11 + (long long)(y / 3ull);
    r += (long long)((unsigned long long)x % y) + __popcll(y) + __clzll(x);
    r += (x << (i & 63)) ^ (long long)(y >> (i & 15)) ^ (x >> 3);
    r += x * (long long)y;
    out[i] = r;
}

extern "C" __global__ void isa_bytes(const unsigned char *a,
                                     const short *b, unsigned char *oa,
                                     short *ob, signed char *oc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned char c = a[i];
    short s = b[i];
    oa[i] = (unsigned char)(c + s);
    ob[i] = (short)(s * 3 - c);
    oc[i] = (signed char)(c ^ 0x5a);
}

extern "C" __global__ void isa_switch(const int *a, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i], r = 0;
    for (int k = 0; k < (x & 15); ++k) {
        switch ((x + k) % 12) {
        case 0: r += 3; break;
        case 1: r ^= x; break;
        case 2: r *= 5; break;
        case 3: r -= k; break;
        case 4: r |= 0x100; break;
        case 5: r = r >> 1; break;
        case 6: r += x * k; break;
        case 7: r &= 0xffff; break;
        case 8: r = ~r; break;
        case 9: r += 1000000; break;
        case 10: r = r << 2; break;
        default: r -= 77; break;
        }
    }
    out[i] = r;
}
