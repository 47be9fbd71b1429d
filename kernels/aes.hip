// aes: AES-256 encryption in ECB mode, one 16-byte block per work-item.
// The expanded key (240 bytes) and the S-box are device buffers; the state
// stays in registers (all state indices are compile-time constants after
// unrolling). Byte loads/stores exercise sub-dword addressing.
#include <hip/hip_runtime.h>

typedef unsigned char u8;

__device__ static inline u8 aes_xtime(u8 x)
{
    return (u8)((x << 1) ^ ((x >> 7) * 0x1b));
}

extern "C" __global__ void aes256_encrypt(const u8 *in, u8 *out,
                                          const u8 *rk, const u8 *sbox,
                                          unsigned nblocks)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nblocks)
        return;
    u8 s[16], t[16];
#pragma unroll
    for (int j = 0; j < 16; j++)
        s[j] = in[(size_t)i * 16 + j] ^ rk[j];
    for (int r = 1; r <= 14; r++) {
        // SubBytes + ShiftRows: column c, row w takes column (c + w) % 4.
#pragma unroll
        for (int c = 0; c < 4; c++)
#pragma unroll
            for (int w = 0; w < 4; w++)
                t[c * 4 + w] = sbox[s[((c + w) & 3) * 4 + w]];
        if (r != 14) {
#pragma unroll
            for (int c = 0; c < 4; c++) {
                u8 a0 = t[c * 4], a1 = t[c * 4 + 1];
                u8 a2 = t[c * 4 + 2], a3 = t[c * 4 + 3];
                s[c * 4 + 0] = aes_xtime(a0) ^ aes_xtime(a1) ^ a1 ^ a2 ^ a3;
                s[c * 4 + 1] = a0 ^ aes_xtime(a1) ^ aes_xtime(a2) ^ a2 ^ a3;
                s[c * 4 + 2] = a0 ^ a1 ^ aes_xtime(a2) ^ aes_xtime(a3) ^ a3;
                s[c * 4 + 3] = aes_xtime(a0) ^ a0 ^ a1 ^ a2 ^ aes_xtime(a3);
            }
        } else {
#pragma unroll
            for (int j = 0; j < 16; j++)
                s[j] = t[j];
        }
#pragma unroll
        for (int j = 0; j < 16; j++)
            s[j] ^= rk[r * 16 + j];
    }
#pragma unroll
    for (int j = 0; j < 16; j++)
        out[(size_t)i * 16 + j] = s[j];
}
