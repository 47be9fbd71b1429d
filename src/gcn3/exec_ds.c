/*
** LDS semantics: the DS encoding (GCN3 ISA manual ch. 9 "Data Share
** Operations" and the opcode table of section 12.13), per active lane.
**
** Addressing: single-address ops use vaddr + offset (16 bits: offset0 |
** offset1 << 8); the 2-address ops (read2/write2/wrxchg2) use
** vaddr + offsetN * size, times 64 for the ST64 forms. Every access is
** bounds-checked against the work-group's LDS allocation: an access past
** its end stops the dispatch with MGS_EFAULT (hardware would return 0 or
** drop the write; for a simulator user a loud error is the useful answer).
** M0 clamping is not modelled (compiled code sets M0 = -1).
**
** Lanes are processed in order 0..63, so for conflicting writes in one
** instruction the highest lane wins (deterministic). GDS is not modelled.
**
** Speed (docs/performance.md): with EXEC full, the plain read/write,
** read2/write2 dword forms take ds_full_wave (one range check per
** instruction, 16-byte moves, a 4x4 transpose for b128); partial-EXEC
** dword forms take ds_fast; everything else the per-lane loop at the end.
** All three give the same results (tests/unit/gcn3/test_exec_ds_fast.c).
*/
#include "gcn3/emu_atomic.h"
#include "gcn3/exec.h"

#include "mgsim/errors.h"

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

static int lds_fault(const gcn_exec_ctx *ctx, uint64_t addr, unsigned n,
                     bool write)
{
    return mgs_error_set(MGS_EFAULT,
                         "LDS fault at address 0x%llx (%s of %u bytes, LDS "
                         "size %u)", (unsigned long long)addr,
                         write ? "write" : "read", n, ctx->lds_size);
}

/* Pointer to n bytes of LDS at addr, or NULL if out of range. */
static inline uint8_t *lds_at(const gcn_exec_ctx *ctx, uint64_t addr,
                              unsigned n)
{
    if (addr + n > ctx->lds_size)
        return NULL;
    return ctx->lds + addr;
}

static inline uint32_t *vrow(gcn_wave *w, unsigned code)
{
    return gcn_vreg(w, code - GCN_OPR_VGPR0);
}

static float as_f32(uint32_t v)
{
    float f;
    memcpy(&f, &v, 4);
    return f;
}

static uint32_t f32_bits(float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    return v;
}

static double as_f64(uint64_t v)
{
    double f;
    memcpy(&f, &v, 8);
    return f;
}

static uint64_t f64_bits(double f)
{
    uint64_t v;
    memcpy(&v, &f, 8);
    return v;
}

/* Value read from lane's consecutive VGPRs (64-bit: two). */
static inline uint64_t vdata(gcn_wave *w, unsigned code, unsigned lane,
                             unsigned size)
{
    uint64_t v = vrow(w, code)[lane];
    if (size == 8)
        v |= (uint64_t)vrow(w, code + 1)[lane] << 32;
    return v;
}

static inline void vset(gcn_wave *w, unsigned code, unsigned lane,
                        unsigned size, uint64_t v)
{
    vrow(w, code)[lane] = (uint32_t)v;
    if (size == 8)
        vrow(w, code + 1)[lane] = (uint32_t)(v >> 32);
}

typedef enum ds_kind {
    DS_K_NONE, DS_K_READ, DS_K_WRITE, DS_K_READ2, DS_K_WRITE2,
    DS_K_ATOMIC, DS_K_WRXCHG2, DS_K_FLOAT, DS_K_MSKOR
} ds_kind;

typedef struct ds_desc {
    ds_kind kind;
    unsigned size;      /* bytes per element */
    unsigned count;     /* dwords per lane for b96/b128 reads and writes */
    bool sign;          /* sign-extending sub-dword read */
    bool ret;           /* atomic returns the old value */
    bool st64;          /* 2-address offsets in units of 64 elements */
    gcn_atomic_kind atomic;
    int fop;            /* DS_K_FLOAT: 0 add, 1 min, 2 max, 3 cmpst */
} ds_desc;

static bool describe(unsigned op, ds_desc *d)
{
    memset(d, 0, sizeof *d);
    d->count = 1;
    switch (op) {
#define R(o, sz, sg) case GCN_OP_##o: d->kind = DS_K_READ; d->size = sz; \
        d->sign = sg; return true;
    R(DS_READ_B32, 4, false) R(DS_READ_B64, 8, false)
    R(DS_READ_U8, 1, false) R(DS_READ_I8, 1, true)
    R(DS_READ_U16, 2, false) R(DS_READ_I16, 2, true)
#undef R
    case GCN_OP_DS_READ_B96: d->kind = DS_K_READ; d->size = 4; d->count = 3; return true;
    case GCN_OP_DS_READ_B128: d->kind = DS_K_READ; d->size = 4; d->count = 4; return true;
    case GCN_OP_DS_WRITE_B32: d->kind = DS_K_WRITE; d->size = 4; return true;
    case GCN_OP_DS_WRITE_B64: d->kind = DS_K_WRITE; d->size = 8; return true;
    case GCN_OP_DS_WRITE_B8: d->kind = DS_K_WRITE; d->size = 1; return true;
    case GCN_OP_DS_WRITE_B16: d->kind = DS_K_WRITE; d->size = 2; return true;
    case GCN_OP_DS_WRITE_B96: d->kind = DS_K_WRITE; d->size = 4; d->count = 3; return true;
    case GCN_OP_DS_WRITE_B128: d->kind = DS_K_WRITE; d->size = 4; d->count = 4; return true;
    case GCN_OP_DS_READ2_B32: d->kind = DS_K_READ2; d->size = 4; return true;
    case GCN_OP_DS_READ2ST64_B32: d->kind = DS_K_READ2; d->size = 4; d->st64 = true; return true;
    case GCN_OP_DS_READ2_B64: d->kind = DS_K_READ2; d->size = 8; return true;
    case GCN_OP_DS_READ2ST64_B64: d->kind = DS_K_READ2; d->size = 8; d->st64 = true; return true;
    case GCN_OP_DS_WRITE2_B32: d->kind = DS_K_WRITE2; d->size = 4; return true;
    case GCN_OP_DS_WRITE2ST64_B32: d->kind = DS_K_WRITE2; d->size = 4; d->st64 = true; return true;
    case GCN_OP_DS_WRITE2_B64: d->kind = DS_K_WRITE2; d->size = 8; return true;
    case GCN_OP_DS_WRITE2ST64_B64: d->kind = DS_K_WRITE2; d->size = 8; d->st64 = true; return true;
    case GCN_OP_DS_WRXCHG2_RTN_B32: d->kind = DS_K_WRXCHG2; d->size = 4; return true;
    case GCN_OP_DS_WRXCHG2ST64_RTN_B32: d->kind = DS_K_WRXCHG2; d->size = 4; d->st64 = true; return true;
    case GCN_OP_DS_WRXCHG2_RTN_B64: d->kind = DS_K_WRXCHG2; d->size = 8; return true;
    case GCN_OP_DS_WRXCHG2ST64_RTN_B64: d->kind = DS_K_WRXCHG2; d->size = 8; d->st64 = true; return true;
#define A(o, sz, k, r) case GCN_OP_##o: d->kind = DS_K_ATOMIC; d->size = sz; \
        d->atomic = GCN_ATOMIC_##k; d->ret = r; return true;
    A(DS_ADD_U32, 4, ADD, false) A(DS_ADD_RTN_U32, 4, ADD, true)
    A(DS_SUB_U32, 4, SUB, false) A(DS_SUB_RTN_U32, 4, SUB, true)
    A(DS_RSUB_U32, 4, RSUB, false) A(DS_RSUB_RTN_U32, 4, RSUB, true)
    A(DS_INC_U32, 4, INC, false) A(DS_INC_RTN_U32, 4, INC, true)
    A(DS_DEC_U32, 4, DEC, false) A(DS_DEC_RTN_U32, 4, DEC, true)
    A(DS_MIN_I32, 4, SMIN, false) A(DS_MIN_RTN_I32, 4, SMIN, true)
    A(DS_MAX_I32, 4, SMAX, false) A(DS_MAX_RTN_I32, 4, SMAX, true)
    A(DS_MIN_U32, 4, UMIN, false) A(DS_MIN_RTN_U32, 4, UMIN, true)
    A(DS_MAX_U32, 4, UMAX, false) A(DS_MAX_RTN_U32, 4, UMAX, true)
    A(DS_AND_B32, 4, AND, false) A(DS_AND_RTN_B32, 4, AND, true)
    A(DS_OR_B32, 4, OR, false) A(DS_OR_RTN_B32, 4, OR, true)
    A(DS_XOR_B32, 4, XOR, false) A(DS_XOR_RTN_B32, 4, XOR, true)
    A(DS_WRXCHG_RTN_B32, 4, SWAP, true)
    A(DS_CMPST_B32, 4, CMPSWAP, false) A(DS_CMPST_RTN_B32, 4, CMPSWAP, true)
    A(DS_ADD_U64, 8, ADD, false) A(DS_ADD_RTN_U64, 8, ADD, true)
    A(DS_SUB_U64, 8, SUB, false) A(DS_SUB_RTN_U64, 8, SUB, true)
    A(DS_RSUB_U64, 8, RSUB, false) A(DS_RSUB_RTN_U64, 8, RSUB, true)
    A(DS_INC_U64, 8, INC, false) A(DS_INC_RTN_U64, 8, INC, true)
    A(DS_DEC_U64, 8, DEC, false) A(DS_DEC_RTN_U64, 8, DEC, true)
    A(DS_MIN_I64, 8, SMIN, false) A(DS_MIN_RTN_I64, 8, SMIN, true)
    A(DS_MAX_I64, 8, SMAX, false) A(DS_MAX_RTN_I64, 8, SMAX, true)
    A(DS_MIN_U64, 8, UMIN, false) A(DS_MIN_RTN_U64, 8, UMIN, true)
    A(DS_MAX_U64, 8, UMAX, false) A(DS_MAX_RTN_U64, 8, UMAX, true)
    A(DS_AND_B64, 8, AND, false) A(DS_AND_RTN_B64, 8, AND, true)
    A(DS_OR_B64, 8, OR, false) A(DS_OR_RTN_B64, 8, OR, true)
    A(DS_XOR_B64, 8, XOR, false) A(DS_XOR_RTN_B64, 8, XOR, true)
    A(DS_WRXCHG_RTN_B64, 8, SWAP, true)
    A(DS_CMPST_B64, 8, CMPSWAP, false) A(DS_CMPST_RTN_B64, 8, CMPSWAP, true)
#undef A
#define F(o, sz, f, r) case GCN_OP_##o: d->kind = DS_K_FLOAT; d->size = sz; \
        d->fop = f; d->ret = r; return true;
    F(DS_ADD_F32, 4, 0, false) F(DS_ADD_RTN_F32, 4, 0, true)
    F(DS_MIN_F32, 4, 1, false) F(DS_MIN_RTN_F32, 4, 1, true)
    F(DS_MAX_F32, 4, 2, false) F(DS_MAX_RTN_F32, 4, 2, true)
    F(DS_CMPST_F32, 4, 3, false) F(DS_CMPST_RTN_F32, 4, 3, true)
    F(DS_MIN_F64, 8, 1, false) F(DS_MIN_RTN_F64, 8, 1, true)
    F(DS_MAX_F64, 8, 2, false) F(DS_MAX_RTN_F64, 8, 2, true)
    F(DS_CMPST_F64, 8, 3, false) F(DS_CMPST_RTN_F64, 8, 3, true)
#undef F
    case GCN_OP_DS_MSKOR_B32: d->kind = DS_K_MSKOR; d->size = 4; return true;
    case GCN_OP_DS_MSKOR_RTN_B32: d->kind = DS_K_MSKOR; d->size = 4; d->ret = true; return true;
    case GCN_OP_DS_MSKOR_B64: d->kind = DS_K_MSKOR; d->size = 8; return true;
    case GCN_OP_DS_MSKOR_RTN_B64: d->kind = DS_K_MSKOR; d->size = 8; d->ret = true; return true;
    default:
        return false;
    }
}

static uint64_t float_op(int fop, unsigned size, uint64_t old, uint64_t a,
                         uint64_t b)
{
    if (size == 4) {
        float o = as_f32((uint32_t)old), x = as_f32((uint32_t)a);
        switch (fop) {
        case 0: return f32_bits(o + x);
        case 1: return x < o ? (uint32_t)a : (uint32_t)old;
        case 2: return x > o ? (uint32_t)a : (uint32_t)old;
        /* cmpst: a = cmp (data0), b = new value (data1), compared as floats */
        default: return o == x ? (uint32_t)b : (uint32_t)old;
        }
    }
    double o = as_f64(old), x = as_f64(a);
    switch (fop) {
    case 0: return f64_bits(o + x);
    case 1: return x < o ? a : old;
    case 2: return x > o ? a : old;
    default: return o == x ? b : old;
    }
}

/* ds_swizzle_b32 (ISA 12.13): offset[15] = 1 selects quad permute
** (lane i of a quad takes lane offset[2i+1:2i]); else bit-mask mode within
** 32-lane halves: src = ((lane & and_mask) | or_mask) ^ xor_mask. */
static void ds_swizzle(gcn_wave *w, const gcn_inst *in, uint32_t off)
{
    const uint32_t *src = vrow(w, in->data0);
    uint32_t tmp[GCN_WAVE_LANES];
    for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++) {
        unsigned from;
        if (off & 0x8000u) {
            from = (lane & ~3u) | ((off >> (2 * (lane & 3))) & 3);
        } else {
            unsigned and_m = off & 0x1f, or_m = (off >> 5) & 0x1f,
                     xor_m = (off >> 10) & 0x1f;
            from = (lane & 0x20) | ((((lane & 0x1f) & and_m) | or_m) ^ xor_m);
        }
        tmp[lane] = (w->exec >> from) & 1 ? src[from] : 0;
    }
    uint32_t *dst = vrow(w, in->dst);
    for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++)
        if ((w->exec >> lane) & 1)
            dst[lane] = tmp[lane];
}

/* ds_permute_b32 / ds_bpermute_b32 (ISA 12.13): the lane index is
** (vaddr + offset) / 4 mod 64. permute pushes data0 to that lane, bpermute
** pulls from it; a disabled source lane contributes 0. */
static void ds_permute(gcn_wave *w, const gcn_inst *in, uint32_t off,
                       bool backward)
{
    const uint32_t *addr = vrow(w, in->addr);
    const uint32_t *src = vrow(w, in->data0);
    uint32_t tmp[GCN_WAVE_LANES] = {0};
    for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++) {
        if (!((w->exec >> lane) & 1))
            continue;
        unsigned other = ((addr[lane] + off) >> 2) & 63;
        if (backward)
            tmp[lane] = (w->exec >> other) & 1 ? src[other] : 0;
        else
            tmp[other] = src[lane];
    }
    uint32_t *dst = vrow(w, in->dst);
    for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++)
        if ((w->exec >> lane) & 1)
            dst[lane] = tmp[lane];
}

/* ---- full-wave fast paths ------------------------------------------------
** Tiled kernels issue their LDS traffic with EXEC full, in a few forms:
** ds_write_b32 of a row, ds_read2_b32 of a column pair, ds_read_b128 of a
** row broadcast (mm: 14 of every 64 wavefront instructions). These paths
** serve exactly those forms with one bounds check per instruction (the
** largest lane address, not a test per lane), VGPR rows resolved once and
** 16-byte moves where the lane addresses allow. An out-of-range lane
** stops the instruction before anything is written (MGS_EFAULT naming the
** first faulting lane's address). Other ops return DS_SLOW and take the
** general paths.
**
** Register aliasing: a destination may be the address VGPR (ds_read_b64
** v[0:1], v0). Every path reads the addresses of lanes l..l+3 before it
** writes any destination lane of that quad and never reads an earlier
** lane's address again, so the original addresses are always the ones
** used. Writes keep lane order (the highest lane wins a conflict). */
#define DS_SLOW 1

/* Bitwise OR of the lane addresses: >= each, a cheap vectorised bound. */
static inline uint32_t lanes_or(const uint32_t *a)
{
    uint32_t all = 0;
    for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++)
        all |= a[lane];
    return all;
}

static inline uint32_t lanes_max(const uint32_t *a)
{
    uint32_t m = 0;
    for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++)
        m = a[lane] > m ? a[lane] : m;
    return m;
}

/* Every lane's [a + extra - ..., a + extra) lies inside the LDS, where
** extra is the largest offset plus the access size. The OR bound decides
** almost always; the exact maximum only when it is too loose. */
static inline bool wave_in_range(const uint32_t *a, uint32_t extra,
                                 uint32_t lds_size)
{
    if ((uint64_t)lanes_or(a) + extra <= lds_size)
        return true;
    return (uint64_t)lanes_max(a) + extra <= lds_size;
}

/* Every quad of lanes 4q..4q+3 addresses four consecutive dwords (a row
** of a 16-wide tile: a[l] = base + 4 * (l % 16) and the like). */
static inline bool quads_consecutive(const uint32_t *a)
{
#ifdef __SSE2__
    const __m128i step = _mm_set_epi32(12, 8, 4, 0);
    __m128i diff = _mm_setzero_si128();
    for (unsigned l = 0; l < GCN_WAVE_LANES; l += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(a + l));
        __m128i want = _mm_add_epi32(_mm_shuffle_epi32(v, 0), step);
        diff = _mm_or_si128(diff, _mm_xor_si128(v, want));
    }
    return _mm_movemask_epi8(_mm_cmpeq_epi32(diff, _mm_setzero_si128())) ==
           0xffff;
#else
    uint32_t diff = 0;
    for (unsigned l = 0; l < GCN_WAVE_LANES; l += 4)
        for (unsigned j = 1; j < 4; j++)
            diff |= a[l + j] ^ (a[l] + 4 * j);
    return diff == 0;
#endif
}

/* Lanes a[0..3] address four consecutive dwords: one 16-byte move. Tested
** quad by quad, inside the copy loop, so a gather pays no separate pass. */
static inline bool quad_consecutive(const uint32_t *a)
{
#ifdef __SSE2__
    __m128i v = _mm_loadu_si128((const __m128i *)a);
    __m128i want = _mm_add_epi32(_mm_shuffle_epi32(v, 0),
                                 _mm_set_epi32(12, 8, 4, 0));
    return _mm_movemask_epi8(_mm_cmpeq_epi32(v, want)) == 0xffff;
#else
    return a[1] == a[0] + 4 && a[2] == a[0] + 8 && a[3] == a[0] + 12;
#endif
}

/* All 64 lanes on consecutive dwords: a[l] = a[0] + 4 * l. */
static inline bool wave_consecutive(const uint32_t *a)
{
#ifdef __SSE2__
    __m128i want = _mm_add_epi32(_mm_set1_epi32((int)a[0]),
                                 _mm_set_epi32(12, 8, 4, 0));
    const __m128i step = _mm_set1_epi32(16);
    __m128i diff = _mm_setzero_si128();
    for (unsigned l = 0; l < GCN_WAVE_LANES; l += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(a + l));
        diff = _mm_or_si128(diff, _mm_xor_si128(v, want));
        want = _mm_add_epi32(want, step);
    }
    return _mm_movemask_epi8(_mm_cmpeq_epi32(diff, _mm_setzero_si128())) ==
           0xffff;
#else
    uint32_t diff = 0;
    for (unsigned lane = 1; lane < GCN_WAVE_LANES; lane++)
        diff |= a[lane] ^ (a[0] + 4 * lane);
    return diff == 0;
#endif
}

/* The fault of the first lane whose access at vaddr + o0 or vaddr + o1
** (bytes bytes each) leaves the LDS; only called when one does. */
static int wave_fault(const gcn_exec_ctx *ctx, const uint32_t *vaddr,
                      uint32_t o0, uint32_t o1, unsigned bytes, bool write)
{
    for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++) {
        uint64_t a0 = (uint64_t)vaddr[lane] + o0;
        uint64_t a1 = (uint64_t)vaddr[lane] + o1;
        if (a0 + bytes > ctx->lds_size)
            return lds_fault(ctx, a0, bytes, write);
        if (a1 + bytes > ctx->lds_size)
            return lds_fault(ctx, a1, bytes, write);
    }
    return mgs_error_set(MGS_EINTERNAL, "LDS range check disagrees");
}

/* ds_read_b32/b64/b96/b128: n dwords per lane at vaddr + offset into
** VGPRs dst..dst+n-1. */
static int ds_read_full(gcn_wave *w, const gcn_inst *in, unsigned n)
{
    const gcn_exec_ctx *ctx = w->ctx;
    const uint32_t *vaddr = vrow(w, in->addr);
    const uint32_t off = in->offset | (uint32_t)in->offset1 << 8;
    if (!wave_in_range(vaddr, off + 4 * n, ctx->lds_size))
        return wave_fault(ctx, vaddr, off, off, 4 * n, false);
    const uint8_t *base = ctx->lds + off;
    uint32_t *r0 = vrow(w, in->dst), *r1 = r0 + GCN_WAVE_LANES;
    uint32_t *r2 = r1 + GCN_WAVE_LANES, *r3 = r2 + GCN_WAVE_LANES;
    switch (n) {
    case 1:
        for (unsigned l = 0; l < GCN_WAVE_LANES; l += 4) {
            uint32_t q[4];
            if (quad_consecutive(vaddr + l)) {
                memcpy(q, base + vaddr[l], 16);
            } else {
                for (unsigned j = 0; j < 4; j++)
                    memcpy(&q[j], base + vaddr[l + j], 4);
            }
            memcpy(r0 + l, q, 16);
        }
        return MGS_OK;
    case 2:
        for (unsigned l = 0; l < GCN_WAVE_LANES; l += 4) {
#ifdef __SSE2__
            /* Four 8-byte loads, then even dwords -> dst, odd -> dst+1. */
            const uint8_t *p0 = base + vaddr[l], *p1 = base + vaddr[l + 1];
            const uint8_t *p2 = base + vaddr[l + 2], *p3 = base + vaddr[l + 3];
            __m128i x = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)p0),
                                           _mm_loadl_epi64((const __m128i *)p1));
            __m128i y = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)p2),
                                           _mm_loadl_epi64((const __m128i *)p3));
            __m128 xs = _mm_castsi128_ps(x), ys = _mm_castsi128_ps(y);
            _mm_storeu_ps((float *)(r0 + l), _mm_shuffle_ps(xs, ys, 0x88));
            _mm_storeu_ps((float *)(r1 + l), _mm_shuffle_ps(xs, ys, 0xdd));
#else
            uint32_t v[4][2];
            for (unsigned j = 0; j < 4; j++)
                memcpy(v[j], base + vaddr[l + j], 8);
            for (unsigned j = 0; j < 4; j++) {
                r0[l + j] = v[j][0];
                r1[l + j] = v[j][1];
            }
#endif
        }
        return MGS_OK;
    case 4:
        for (unsigned l = 0; l < GCN_WAVE_LANES; l += 4) {
#ifdef __SSE2__
            /* Four 16-byte loads and a 4x4 transpose: lane-major to
            ** register-major. */
            __m128 t0 = _mm_loadu_ps((const float *)(base + vaddr[l]));
            __m128 t1 = _mm_loadu_ps((const float *)(base + vaddr[l + 1]));
            __m128 t2 = _mm_loadu_ps((const float *)(base + vaddr[l + 2]));
            __m128 t3 = _mm_loadu_ps((const float *)(base + vaddr[l + 3]));
            _MM_TRANSPOSE4_PS(t0, t1, t2, t3);
            _mm_storeu_ps((float *)(r0 + l), t0);
            _mm_storeu_ps((float *)(r1 + l), t1);
            _mm_storeu_ps((float *)(r2 + l), t2);
            _mm_storeu_ps((float *)(r3 + l), t3);
#else
            uint32_t v[4][4];
            for (unsigned j = 0; j < 4; j++)
                memcpy(v[j], base + vaddr[l + j], 16);
            for (unsigned j = 0; j < 4; j++) {
                r0[l + j] = v[j][0];
                r1[l + j] = v[j][1];
                r2[l + j] = v[j][2];
                r3[l + j] = v[j][3];
            }
#endif
        }
        return MGS_OK;
    default: /* b96 */
        for (unsigned l = 0; l < GCN_WAVE_LANES; l++) {
            uint32_t v[3];
            memcpy(v, base + vaddr[l], 12);
            r0[l] = v[0];
            r1[l] = v[1];
            r2[l] = v[2];
        }
        return MGS_OK;
    }
}

/* ds_write_b32/b64/b96/b128: n dwords per lane from data0..data0+n-1. */
static int ds_write_full(gcn_wave *w, const gcn_inst *in, unsigned n)
{
    const gcn_exec_ctx *ctx = w->ctx;
    const uint32_t *vaddr = vrow(w, in->addr);
    const uint32_t off = in->offset | (uint32_t)in->offset1 << 8;
    if (!wave_in_range(vaddr, off + 4 * n, ctx->lds_size))
        return wave_fault(ctx, vaddr, off, off, 4 * n, true);
    uint8_t *base = ctx->lds + off;
    const uint32_t *d0 = vrow(w, in->data0), *d1 = d0 + GCN_WAVE_LANES;
    const uint32_t *d2 = d1 + GCN_WAVE_LANES, *d3 = d2 + GCN_WAVE_LANES;
    if (n == 1) {
        if (wave_consecutive(vaddr)) {
            memcpy(base + vaddr[0], d0, 4 * GCN_WAVE_LANES);
        } else if (quads_consecutive(vaddr)) {
            for (unsigned l = 0; l < GCN_WAVE_LANES; l += 4)
                memcpy(base + vaddr[l], d0 + l, 16);
        } else {
            for (unsigned l = 0; l < GCN_WAVE_LANES; l++)
                memcpy(base + vaddr[l], &d0[l], 4);
        }
        return MGS_OK;
    }
    for (unsigned l = 0; l < GCN_WAVE_LANES; l++) {
        uint32_t v[4] = {d0[l], d1[l], 0, 0};
        if (n > 2)
            v[2] = d2[l];
        if (n > 3)
            v[3] = d3[l];
        memcpy(base + vaddr[l], v, 4 * n);
    }
    return MGS_OK;
}

/* ds_read2_b32 / ds_read2st64_b32: dwords at vaddr + o0 and vaddr + o1
** (bytes) into dst and dst+1. */
static int ds_read2_full(gcn_wave *w, const gcn_inst *in, uint32_t stride)
{
    const gcn_exec_ctx *ctx = w->ctx;
    const uint32_t *vaddr = vrow(w, in->addr);
    const uint32_t o0 = in->offset * stride, o1 = in->offset1 * stride;
    if (!wave_in_range(vaddr, (o0 > o1 ? o0 : o1) + 4, ctx->lds_size))
        return wave_fault(ctx, vaddr, o0, o1, 4, false);
    const uint8_t *b0 = ctx->lds + o0, *b1 = ctx->lds + o1;
    uint32_t *r0 = vrow(w, in->dst), *r1 = r0 + GCN_WAVE_LANES;
    for (unsigned l = 0; l < GCN_WAVE_LANES; l += 4) {
        uint32_t q0[4], q1[4];
        if (quad_consecutive(vaddr + l)) {
            uint32_t a = vaddr[l];
            memcpy(q0, b0 + a, 16);
            memcpy(q1, b1 + a, 16);
        } else {
            for (unsigned j = 0; j < 4; j++) {
                memcpy(&q0[j], b0 + vaddr[l + j], 4);
                memcpy(&q1[j], b1 + vaddr[l + j], 4);
            }
        }
        memcpy(r0 + l, q0, 16);
        memcpy(r1 + l, q1, 16);
    }
    return MGS_OK;
}

/* ds_write2_b32 / ds_write2st64_b32, lane by lane (data0 first). */
static int ds_write2_full(gcn_wave *w, const gcn_inst *in, uint32_t stride)
{
    const gcn_exec_ctx *ctx = w->ctx;
    const uint32_t *vaddr = vrow(w, in->addr);
    const uint32_t o0 = in->offset * stride, o1 = in->offset1 * stride;
    if (!wave_in_range(vaddr, (o0 > o1 ? o0 : o1) + 4, ctx->lds_size))
        return wave_fault(ctx, vaddr, o0, o1, 4, true);
    uint8_t *b0 = ctx->lds + o0, *b1 = ctx->lds + o1;
    const uint32_t *d0 = vrow(w, in->data0), *d1 = vrow(w, in->data1);
    for (unsigned l = 0; l < GCN_WAVE_LANES; l++) {
        memcpy(b0 + vaddr[l], &d0[l], 4);
        memcpy(b1 + vaddr[l], &d1[l], 4);
    }
    return MGS_OK;
}

/* An upper bound of every lane's address: their bitwise OR (>= each, and
** a reduction the compiler vectorises). Used when EXEC is full; a bound
** that is too loose only sends the access to the exact per-lane path. */
static inline uint32_t max_lane(const uint32_t *a)
{
    uint32_t all = 0;
    for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++)
        all |= a[lane];
    return all;
}

/* All 64 lanes active with addresses a[0], a[0] + 4, ..., a[0] + 252. */
static inline bool contiguous(const uint32_t *a, uint64_t exec)
{
    if (exec != ~0ull)
        return false;
    uint32_t base = a[0];
    uint32_t diff = 0;
    for (unsigned lane = 1; lane < GCN_WAVE_LANES; lane++)
        diff |= a[lane] - (base + 4 * lane);
    return diff == 0;
}

/* Fast paths for the plain dword reads and writes under a partial EXEC
** (and the full-EXEC forms ds_full_wave leaves): fixed-size copies the
** compiler inlines, VGPR rows resolved once. Return 1 when the op is not
** one of them. */
static int ds_fast(gcn_wave *w, const gcn_inst *in, const ds_desc *d)
{
    const gcn_exec_ctx *ctx = w->ctx;
    const uint32_t *vaddr = vrow(w, in->addr);
    uint32_t addr_copy[GCN_WAVE_LANES];
    if (in->addr >= in->dst && in->addr < in->dst + 4) {
        /* The destination overwrites the address VGPR (ds_read_b64 v[0:1],
        ** v0): later rows must still see the original addresses. */
        memcpy(addr_copy, vaddr, sizeof addr_copy);
        vaddr = addr_copy;
    }
    const uint64_t exec = w->exec;
    const uint32_t lds_size = ctx->lds_size;
    uint8_t *lds = ctx->lds;
    if ((d->size != 4 && d->size != 8) || d->sign)
        return 1;
    if (d->kind == DS_K_READ || d->kind == DS_K_WRITE) {
        const bool wr = d->kind == DS_K_WRITE;
        const unsigned n = d->size == 8 ? 2 : d->count, bytes = 4 * n;
        uint32_t *rows[4];
        for (unsigned i = 0; i < n; i++)
            rows[i] = vrow(w, (wr ? in->data0 : in->dst) + i);
        if (exec == ~0ull && !wr &&
            (uint64_t)max_lane(vaddr) + in->offset + bytes <= lds_size) {
            /* Full wave in range: branch-free gathers, one VGPR row at a
            ** time, straight from the address VGPR. */
            const uint8_t *base = lds + in->offset;
            for (unsigned i = 0; i < n; i++) {
                uint32_t *row = rows[i];
                for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++)
                    memcpy(&row[lane], base + vaddr[lane] + 4 * i, 4);
            }
            return MGS_OK;
        }
        /* Check every lane first (a faulting access changes nothing),
        ** then move one VGPR row at a time. */
        uint32_t at[GCN_WAVE_LANES];
        for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++) {
            uint64_t a = (uint64_t)vaddr[lane] + in->offset;
            at[lane] = (uint32_t)a;
            if (((exec >> lane) & 1) && a + bytes > lds_size)
                return lds_fault(ctx, a, bytes, wr);
        }
        if (n == 1 && contiguous(at, exec)) {
            /* Whole wave on consecutive dwords: one block copy. */
            if (wr)
                memcpy(lds + at[0], rows[0], 4 * GCN_WAVE_LANES);
            else
                memcpy(rows[0], lds + at[0], 4 * GCN_WAVE_LANES);
            return MGS_OK;
        }
        for (unsigned i = 0; i < n; i++) {
            uint32_t *row = rows[i];
            const uint8_t *src = lds + 4 * i;
            if (exec == ~0ull && !wr) {
                /* Full wave: a branch-free gather the compiler unrolls. */
                for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++)
                    memcpy(&row[lane], src + at[lane], 4);
                continue;
            }
            for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++) {
                if (!((exec >> lane) & 1))
                    continue;
                if (wr)
                    memcpy(lds + at[lane] + 4 * i, &row[lane], 4);
                else
                    memcpy(&row[lane], lds + at[lane] + 4 * i, 4);
            }
        }
        return MGS_OK;
    }
    if ((d->kind == DS_K_READ2 || d->kind == DS_K_WRITE2) && d->size == 4) {
        const bool wr = d->kind == DS_K_WRITE2;
        const uint32_t stride = d->st64 ? 4 * 64 : 4;
        const uint32_t o0 = in->offset * stride, o1 = in->offset1 * stride;
        uint32_t *r0 = vrow(w, wr ? in->data0 : in->dst);
        uint32_t *r1 = vrow(w, wr ? in->data1 : in->dst + 1);
        const uint32_t span = 4 * GCN_WAVE_LANES;
        uint32_t gap = o0 > o1 ? o0 - o1 : o1 - o0;
        if (contiguous(vaddr, exec) && (!wr || gap >= span)) {
            /* Whole wave on consecutive dwords: two block copies (for
            ** writes only when the halves do not overlap, where lane
            ** order would interleave them). */
            uint64_t a0 = (uint64_t)vaddr[0] + o0, a1 = (uint64_t)vaddr[0] + o1;
            if (a0 + span > lds_size || a1 + span > lds_size)
                return 1; /* the per-lane path names the faulting lane */
            if (wr) {
                memcpy(lds + a0, r0, span);
                memcpy(lds + a1, r1, span);
            } else {
                memcpy(r0, lds + a0, span);
                memcpy(r1, lds + a1, span);
            }
            return MGS_OK;
        }
        if (exec == ~0ull && !wr) {
            /* Full wave: check, then two branch-free gathers. */
            uint32_t omax = o0 > o1 ? o0 : o1;
            if ((uint64_t)max_lane(vaddr) + omax + 4 <= lds_size) {
                const uint8_t *s0 = lds + o0, *s1 = lds + o1;
                for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++)
                    memcpy(&r0[lane], s0 + vaddr[lane], 4);
                for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++)
                    memcpy(&r1[lane], s1 + vaddr[lane], 4);
                return MGS_OK;
            }
            /* Out of range: the lane loop below names the faulting lane. */
        }
        for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++) {
            if (!((exec >> lane) & 1))
                continue;
            uint64_t a0 = (uint64_t)vaddr[lane] + o0;
            uint64_t a1 = (uint64_t)vaddr[lane] + o1;
            if (a0 + 4 > lds_size)
                return lds_fault(ctx, a0, 4, wr);
            if (a1 + 4 > lds_size)
                return lds_fault(ctx, a1, 4, wr);
            if (wr) {
                memcpy(lds + a0, &r0[lane], 4);
                memcpy(lds + a1, &r1[lane], 4);
            } else {
                memcpy(&r0[lane], lds + a0, 4);
                memcpy(&r1[lane], lds + a1, 4);
            }
        }
        return MGS_OK;
    }
    return 1;
}

/* The full-EXEC forms above, or DS_SLOW. */
static int ds_full_wave(gcn_wave *w, const gcn_inst *in)
{
    switch (in->op) {
    case GCN_OP_DS_READ_B32: return ds_read_full(w, in, 1);
    case GCN_OP_DS_READ_B64: return ds_read_full(w, in, 2);
    case GCN_OP_DS_READ_B96: return ds_read_full(w, in, 3);
    case GCN_OP_DS_READ_B128: return ds_read_full(w, in, 4);
    case GCN_OP_DS_WRITE_B32: return ds_write_full(w, in, 1);
    case GCN_OP_DS_WRITE_B64: return ds_write_full(w, in, 2);
    case GCN_OP_DS_WRITE_B96: return ds_write_full(w, in, 3);
    case GCN_OP_DS_WRITE_B128: return ds_write_full(w, in, 4);
    case GCN_OP_DS_READ2_B32: return ds_read2_full(w, in, 4);
    case GCN_OP_DS_READ2ST64_B32: return ds_read2_full(w, in, 4 * 64);
    case GCN_OP_DS_WRITE2_B32: return ds_write2_full(w, in, 4);
    case GCN_OP_DS_WRITE2ST64_B32: return ds_write2_full(w, in, 4 * 64);
    default: return DS_SLOW;
    }
}

/* Every VGPR the operation touches lies inside the wave's allocation
** (exec.h): the address, data0/data1 and the destination, each as wide
** as the operation's elements. */
static int ds_regs_fit(const gcn_wave *w, const gcn_inst *in,
                       const ds_desc *d)
{
    unsigned dw = d->count > 1 ? d->count : d->size == 8 ? 2 : 1;
    bool data1 = false, dst = false, data0 = true;
    unsigned ndst = dw;
    switch (d->kind) {
    case DS_K_READ: data0 = false; dst = true; break;
    case DS_K_WRITE: break;
    case DS_K_READ2: data0 = false; dst = true; ndst = 2 * dw; break;
    case DS_K_WRITE2: data1 = true; break;
    case DS_K_WRXCHG2: data1 = dst = true; ndst = 2 * dw; break;
    case DS_K_FLOAT: data1 = d->fop == 3; dst = d->ret; break;
    case DS_K_MSKOR: data1 = true; dst = d->ret; break;
    case DS_K_ATOMIC:
        data1 = d->atomic == GCN_ATOMIC_CMPSWAP;
        dst = d->ret;
        break;
    default: return MGS_EUNSUPPORTED;
    }
    int rc = gcn_vgprs_fit(w, in->addr, 1, "address");
    if (!rc && data0)
        rc = gcn_vgprs_fit(w, in->data0, dw, "data0");
    if (!rc && data1)
        rc = gcn_vgprs_fit(w, in->data1, dw, "data1");
    if (!rc && dst)
        rc = gcn_vgprs_fit(w, in->dst, ndst, "destination");
    return rc;
}

int gcn_exec_ds(gcn_wave *w, const gcn_inst *in)
{
    const gcn_exec_ctx *ctx = w->ctx;
    if (in->gds)
        return MGS_EUNSUPPORTED;
    uint32_t off16 = in->offset | (uint32_t)in->offset1 << 8;
    int rc;
    switch (in->op) {
    case GCN_OP_DS_NOP: return MGS_OK;
    case GCN_OP_DS_SWIZZLE_B32:
        if ((rc = gcn_vgprs_fit(w, in->data0, 1, "data")) ||
            (rc = gcn_vgprs_fit(w, in->dst, 1, "destination")))
            return rc;
        ds_swizzle(w, in, off16);
        return MGS_OK;
    case GCN_OP_DS_PERMUTE_B32:
    case GCN_OP_DS_BPERMUTE_B32:
        if ((rc = gcn_vgprs_fit(w, in->addr, 1, "address")) ||
            (rc = gcn_vgprs_fit(w, in->data0, 1, "data")) ||
            (rc = gcn_vgprs_fit(w, in->dst, 1, "destination")))
            return rc;
        ds_permute(w, in, off16, in->op == GCN_OP_DS_BPERMUTE_B32);
        return MGS_OK;
    default: break;
    }
    ds_desc d;
    if (!describe(in->op, &d))
        return MGS_EUNSUPPORTED;
    if ((rc = ds_regs_fit(w, in, &d)))
        return rc;
    if (w->exec == ~0ull) {
        rc = ds_full_wave(w, in);
        if (rc != DS_SLOW)
            return rc;
    }
    int fast = ds_fast(w, in, &d);
    if (fast != 1)
        return fast;
    const uint32_t *vaddr = vrow(w, in->addr);
    uint64_t exec = w->exec;
    unsigned size = d.size, bytes = size * d.count;
    uint32_t stride = d.st64 ? size * 64 : size;
    for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++) {
        if (!((exec >> lane) & 1))
            continue;
        uint64_t a = (uint64_t)vaddr[lane] + off16;
        uint8_t *p;
        switch (d.kind) {
        case DS_K_READ: {
            if (!(p = lds_at(ctx, a, bytes)))
                return lds_fault(ctx, a, bytes, false);
            if (d.count > 1) {
                for (unsigned i = 0; i < d.count; i++)
                    memcpy(&vrow(w, in->dst + i)[lane], p + 4 * i, 4);
                break;
            }
            uint64_t v = 0;
            memcpy(&v, p, size);
            if (size == 1 && d.sign)
                v = (uint32_t)(int32_t)(int8_t)v;
            else if (size == 2 && d.sign)
                v = (uint32_t)(int32_t)(int16_t)v;
            vset(w, in->dst, lane, size == 8 ? 8 : 4, v);
            break;
        }
        case DS_K_WRITE: {
            if (!(p = lds_at(ctx, a, bytes)))
                return lds_fault(ctx, a, bytes, true);
            if (d.count > 1) {
                for (unsigned i = 0; i < d.count; i++)
                    memcpy(p + 4 * i, &vrow(w, in->data0 + i)[lane], 4);
                break;
            }
            uint64_t v = vdata(w, in->data0, lane, size);
            memcpy(p, &v, size);
            break;
        }
        case DS_K_READ2:
        case DS_K_WRITE2:
        case DS_K_WRXCHG2: {
            uint64_t a0 = (uint64_t)vaddr[lane] + in->offset * stride;
            uint64_t a1 = (uint64_t)vaddr[lane] + in->offset1 * stride;
            bool wr = d.kind != DS_K_READ2;
            uint8_t *p0 = lds_at(ctx, a0, size), *p1 = lds_at(ctx, a1, size);
            if (!p0)
                return lds_fault(ctx, a0, size, wr);
            if (!p1)
                return lds_fault(ctx, a1, size, wr);
            uint64_t v0 = 0, v1 = 0;
            unsigned dwords = size / 4;
            if (d.kind != DS_K_WRITE2) {
                memcpy(&v0, p0, size);
                memcpy(&v1, p1, size);
            }
            if (wr) {
                uint64_t n0 = vdata(w, in->data0, lane, size);
                uint64_t n1 = vdata(w, in->data1, lane, size);
                memcpy(p0, &n0, size);
                memcpy(p1, &n1, size);
            }
            if (d.kind != DS_K_WRITE2) {
                vset(w, in->dst, lane, size, v0);
                vset(w, in->dst + dwords, lane, size, v1);
            }
            break;
        }
        case DS_K_ATOMIC:
        case DS_K_FLOAT:
        case DS_K_MSKOR: {
            if (!(p = lds_at(ctx, a, size)))
                return lds_fault(ctx, a, size, true);
            uint64_t old = 0, next;
            memcpy(&old, p, size);
            uint64_t x = vdata(w, in->data0, lane, size);
            if (d.kind == DS_K_FLOAT) {
                uint64_t y = d.fop == 3 ? vdata(w, in->data1, lane, size) : 0;
                next = float_op(d.fop, size, old, x, y);
            } else if (d.kind == DS_K_MSKOR) {
                uint64_t y = vdata(w, in->data1, lane, size);
                next = (old & ~x) | y;
            } else if (d.atomic == GCN_ATOMIC_CMPSWAP) {
                /* DS cmpst: data0 is the compare value, data1 the new one */
                next = gcn_atomic_apply(d.atomic, size, old,
                                        vdata(w, in->data1, lane, size), x);
            } else {
                next = gcn_atomic_apply(d.atomic, size, old, x, 0);
            }
            memcpy(p, &next, size);
            if (d.ret)
                vset(w, in->dst, lane, size, old);
            break;
        }
        default:
            return MGS_EUNSUPPORTED;
    int fast = ds_fast(w, in, &d);
    if (fast != 1)
        return fast;
        }
    }
    return MGS_OK;
}
