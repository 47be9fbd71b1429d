/*
** aes: AES-256 encryption (ECB) of a generated plaintext, after Hetero-Mark
** (seed 000 Table 3: 71 MB; seed 002 Table 5.2: partitioned).
**
** Placement: partitioned. The plaintext and ciphertext are split into
** contiguous runs of blocks, one per GPU, each on its own GPU; the expanded
** key and S-box (496 bytes) are duplicated on every GPU. No inter-GPU
** traffic. Footprint = 32 bytes per 16-byte block.
**
** Verification: bit-exact against a plain-C AES-256 that is itself checked
** against the FIPS-197 Appendix C.3 vector before every run.
*/
#include "workloads/wl_locality.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

enum { P_BLOCKS, P_LOCALITY };
static uint64_t aes_footprint(const wl_args *a);

static uint8_t aes_sbox[256];

/* S-box from the GF(2^8) inverse and the affine map (FIPS-197 §5.1.1),
** computed rather than typed in. */
static void aes_init_sbox(void)
{
    if (aes_sbox[0] == 0x63)
        return;
    uint8_t p = 1, q = 1;
    do {
        /* p walks the powers of 3, q those of 3^-1 */
        p = (uint8_t)(p ^ (p << 1) ^ (p & 0x80 ? 0x1b : 0));
        q ^= (uint8_t)(q << 1);
        q ^= (uint8_t)(q << 2);
        q ^= (uint8_t)(q << 4);
        if (q & 0x80)
            q ^= 0x09;
        uint8_t x = (uint8_t)(q ^ (q << 1 | q >> 7) ^ (q << 2 | q >> 6) ^
                              (q << 3 | q >> 5) ^ (q << 4 | q >> 4));
        aes_sbox[p] = x ^ 0x63;
    } while (p != 1);
    aes_sbox[0] = 0x63;
}

static uint8_t xtime(uint8_t x)
{
    return (uint8_t)((x << 1) ^ ((x >> 7) * 0x1b));
}

/* FIPS-197 §5.2 key expansion, Nk = 8, Nr = 14: 240 bytes. */
static void aes256_expand(const uint8_t key[32], uint8_t rk[240])
{
    memcpy(rk, key, 32);
    uint8_t rcon = 1;
    for (int i = 8; i < 60; i++) {
        uint8_t t[4];
        memcpy(t, rk + (i - 1) * 4, 4);
        if (i % 8 == 0) {
            uint8_t t0 = t[0];
            t[0] = aes_sbox[t[1]] ^ rcon;
            t[1] = aes_sbox[t[2]];
            t[2] = aes_sbox[t[3]];
            t[3] = aes_sbox[t0];
            rcon = xtime(rcon);
        } else if (i % 8 == 4) {
            for (int j = 0; j < 4; j++)
                t[j] = aes_sbox[t[j]];
        }
        for (int j = 0; j < 4; j++)
            rk[i * 4 + j] = rk[(i - 8) * 4 + j] ^ t[j];
    }
}

static void aes256_block(const uint8_t rk[240], const uint8_t in[16],
                         uint8_t out[16])
{
    uint8_t s[16], t[16];
    for (int j = 0; j < 16; j++)
        s[j] = in[j] ^ rk[j];
    for (int r = 1; r <= 14; r++) {
        for (int c = 0; c < 4; c++)
            for (int w = 0; w < 4; w++)
                t[c * 4 + w] = aes_sbox[s[((c + w) & 3) * 4 + w]];
        if (r != 14) {
            for (int c = 0; c < 4; c++) {
                uint8_t a0 = t[c * 4], a1 = t[c * 4 + 1];
                uint8_t a2 = t[c * 4 + 2], a3 = t[c * 4 + 3];
                s[c * 4 + 0] = xtime(a0) ^ xtime(a1) ^ a1 ^ a2 ^ a3;
                s[c * 4 + 1] = a0 ^ xtime(a1) ^ xtime(a2) ^ a2 ^ a3;
                s[c * 4 + 2] = a0 ^ a1 ^ xtime(a2) ^ xtime(a3) ^ a3;
                s[c * 4 + 3] = xtime(a0) ^ a0 ^ a1 ^ a2 ^ xtime(a3);
            }
        } else {
            memcpy(s, t, 16);
        }
        for (int j = 0; j < 16; j++)
            s[j] ^= rk[r * 16 + j];
    }
    memcpy(out, s, 16);
}

/* FIPS-197 Appendix C.3. */
static int aes_selftest(void)
{
    static const uint8_t want[16] = {
        0x8e, 0xa2, 0xb7, 0xca, 0x51, 0x67, 0x45, 0xbf,
        0xea, 0xfc, 0x49, 0x90, 0x4b, 0x49, 0x60, 0x89 };
    uint8_t key[32], pt[16], rk[240], ct[16];
    for (int i = 0; i < 32; i++)
        key[i] = (uint8_t)i;
    for (int i = 0; i < 16; i++)
        pt[i] = (uint8_t)(i * 0x11);
    aes256_expand(key, rk);
    aes256_block(rk, pt, ct);
    if (memcmp(ct, want, 16))
        return mgs_error_set(MGS_EINTERNAL, "aes: CPU reference fails the "
                             "FIPS-197 C.3 test vector");
    return MGS_OK;
}

static int aes_run(mgs_rt *rt, const wl_args *a)
{
    int64_t nblocks = a->param[P_BLOCKS];
    if (nblocks < 1 || nblocks > (int64_t)UINT32_MAX)
        return mgs_error_set(MGS_EINVAL, "aes: blocks must be in "
                             "[1, 2^32), got %lld", (long long)nblocks);
    int fits = wl_host_fits("aes", aes_footprint(a));
    if (fits)
        return fits;
    aes_init_sbox();
    int rc = aes_selftest();
    if (rc)
        return rc;
    size_t bytes = (size_t)nblocks * 16;
    uint8_t key[32], rk[240];
    uint8_t *pt = mgs_xmalloc(bytes), *got = mgs_xmalloc(bytes);
    uint8_t *want = mgs_xmalloc(bytes);
    wl_rng r;
    wl_rng_init(&r, a->seed, 0);
    for (int i = 0; i < 32; i++)
        key[i] = (uint8_t)wl_rng_u64(&r);
    for (size_t i = 0; i < bytes; i++)
        pt[i] = (uint8_t)wl_rng_u64(&r);
    aes256_expand(key, rk);

    wl_ctx c;
    wl_rows in, out;
    mgs_kernel *k;
    rc = wl_ctx_open(&c, rt, a, "aes.hsaco");
    if (!rc) rc = wl_ctx_locality(&c, a->param[P_LOCALITY]);
    if (!rc) rc = wl_kernel(&c, "aes256_encrypt", &k);
    if (!rc) rc = wl_rows_alloc(&c, &in, nblocks, 16, 0, 64);
    if (!rc) rc = wl_rows_alloc(&c, &out, nblocks, 16, 0, 64);
    /* Locality API: each member's blocks (256 per work-group) on it, the
    ** key and S-box on every member (partition pattern). */
    if (!rc) rc = wl_loc_place(&c, in.d[0], 1, nblocks, 16, 256);
    if (!rc) rc = wl_loc_place(&c, out.d[0], 1, nblocks, 16, 256);
    if (!rc) rc = wl_rows_upload(&c, &in, pt);
    mgs_dptr drk[WL_MAX_PARTS], dsbox[WL_MAX_PARTS];
    for (int p = 0; !rc && p < c.parts; p++) {
        rc = wl_upload_copies(&c, wl_part_gpu(&c, p), rk, sizeof rk,
                              &drk[p]);
        if (!rc) rc = wl_upload_copies(&c, wl_part_gpu(&c, p), aes_sbox, 256,
                                       &dsbox[p]);
    }
    /* every copy first, then the launches: the GPUs run together */
    for (int p = 0; !rc && p < c.parts; p++)
        rc = wl_launch1(&c, k, wl_part_gpu(&c, p), (uint64_t)in.count[p],
                        256, "ppppu", wl_rows_own(&in, p),
                        wl_rows_own(&out, p), drk[p], dsbox[p],
                        (uint32_t)in.count[p]);
    if (!rc) rc = wl_rows_download(&c, &out, got);
    if (!rc) {
        for (int64_t b = 0; b < nblocks; b++)
            aes256_block(rk, pt + b * 16, want + b * 16);
        rc = wl_check_u8("aes ciphertext", got, want, bytes);
    }
    wl_ctx_close(&c);
    free(pt);
    free(got);
    free(want);
    return rc;
}

static uint64_t aes_footprint(const wl_args *a)
{
    return (uint64_t)a->param[P_BLOCKS] * 32 + 496;
}

const mgs_workload wl_aes = {
    .name = "aes",
    .suite = "HALCONE",
    .pattern = "partitioned",
    .description = "AES-256 ECB encryption, one 16-byte block per work-item",
    .kernel_file = "aes.hsaco",
    .params = {
        { "blocks", 4096, 2326528, "16-byte plaintext blocks (71 MiB)" },
        { "locality", 0, 0, "1: the Locality API variant (unified "
          "platform, docs/workloads.md)" },
    },
    .run = aes_run,
    .footprint = aes_footprint,
};
