/*
** The full-EXEC LDS fast paths of src/gcn3/exec_ds.c, checked against a
** per-lane reference model written here from the ISA definition: every
** plain read/write width, read2/write2 (with ST64), under the address
** patterns the paths specialise (whole wave consecutive, quads
** consecutive, quad broadcast, random gathers with conflicting lanes) and
** with the destination overwriting the address VGPR. Also the bounds check:
** a loose OR bound must not reject an in-range wave, and an out-of-range
** lane must fault without changing registers or LDS.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gcn3/exec.h"
#include "mgsim/errors.h"

#define V(n) (GCN_OPR_VGPR0 + (n))
#define NV 16
#define LANES GCN_WAVE_LANES
#define LDS_BYTES 4096

typedef struct fixture {
    gcn_wave w;
    uint32_t vgpr[NV * LANES];
    gcn_exec_ctx ctx;
    uint8_t lds[LDS_BYTES];
} fixture;

static fixture fx;
/* Reference state: registers and LDS as the per-lane model leaves them. */
static uint32_t ref_vgpr[NV * LANES];
static uint8_t ref_lds[LDS_BYTES];

static uint64_t rng_state;

static uint32_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) >> 16);
}

static void reset(uint64_t seed)
{
    memset(&fx, 0, sizeof fx);
    fx.w.vgpr = fx.vgpr;
    fx.w.nvgpr = NV;
    fx.w.exec = ~0ull;
    fx.ctx.lds = fx.lds;
    fx.ctx.lds_size = LDS_BYTES;
    fx.w.ctx = &fx.ctx;
    rng_state = seed;
    for (size_t i = 0; i < sizeof fx.lds; i++)
        fx.lds[i] = (uint8_t)rnd();
    for (size_t i = 0; i < NV * LANES; i++)
        fx.vgpr[i] = rnd();
    memcpy(ref_vgpr, fx.vgpr, sizeof ref_vgpr);
    memcpy(ref_lds, fx.lds, sizeof ref_lds);
}

static uint32_t *vr(unsigned r)
{
    return gcn_vreg(&fx.w, r);
}

static gcn_inst ds(gcn_op op, unsigned vdst, unsigned addr, unsigned d0,
                   unsigned d1, uint32_t off0, uint8_t off1)
{
    gcn_inst in;
    memset(&in, 0, sizeof in);
    in.op = (uint16_t)op;
    in.fmt = GCN_FMT_DS;
    in.size = 8;
    in.dst = (uint16_t)V(vdst);
    in.addr = (uint16_t)V(addr);
    in.data0 = (uint16_t)V(d0);
    in.data1 = (uint16_t)V(d1);
    in.offset = off0;
    in.offset1 = off1;
    return in;
}

static int run(gcn_inst in)
{
    return gcn_exec(&fx.w, &in);
}

/* Address patterns (byte addresses, dword aligned, each < limit). */
enum { PAT_WAVE, PAT_QUADS, PAT_BCAST16, PAT_RANDOM, PAT_COUNT };

static void fill_addrs(unsigned reg, int pattern, uint32_t limit)
{
    uint32_t *a = vr(reg);
    for (unsigned l = 0; l < LANES; l++) {
        switch (pattern) {
        case PAT_WAVE: a[l] = 4 * l; break;
        case PAT_QUADS: a[l] = 1024 + 4 * (l % 16); break;   /* tile row */
        case PAT_BCAST16: a[l] = 64 * (l / 16); break;        /* row bcast */
        default: a[l] = (rnd() % (limit / 4)) * 4; break;     /* conflicts */
        }
    }
    memcpy(ref_vgpr + reg * LANES, a, 4 * LANES);
}

static uint32_t ref_lds32(uint32_t addr)
{
    uint32_t v;
    memcpy(&v, ref_lds + addr, 4);
    return v;
}

static void assert_state_matches(void)
{
    for (unsigned r = 0; r < NV; r++)
        for (unsigned l = 0; l < LANES; l++)
            if (ref_vgpr[r * LANES + l] != fx.vgpr[r * LANES + l])
                fail_msg("v%u lane %u: got 0x%x, want 0x%x", r, l,
                         fx.vgpr[r * LANES + l], ref_vgpr[r * LANES + l]);
    for (unsigned i = 0; i < LDS_BYTES; i++)
        if (ref_lds[i] != fx.lds[i])
            fail_msg("LDS byte 0x%x: got 0x%x, want 0x%x", i, fx.lds[i],
                     ref_lds[i]);
}

/* Reference: ds_read_b{32,64,96,128}, n dwords, lane by lane. Addresses
** are taken before any destination is written (hardware reads the address
** operand first). */
static void ref_read(unsigned dst, unsigned addr, uint32_t off, unsigned n)
{
    uint32_t a[LANES];
    memcpy(a, ref_vgpr + addr * LANES, sizeof a);
    for (unsigned l = 0; l < LANES; l++)
        for (unsigned i = 0; i < n; i++)
            ref_vgpr[(dst + i) * LANES + l] = ref_lds32(a[l] + off + 4 * i);
}

static void ref_write(unsigned addr, unsigned data, uint32_t off, unsigned n)
{
    for (unsigned l = 0; l < LANES; l++)
        for (unsigned i = 0; i < n; i++)
            memcpy(ref_lds + ref_vgpr[addr * LANES + l] + off + 4 * i,
                   &ref_vgpr[(data + i) * LANES + l], 4);
}

static void ref_read2(unsigned dst, unsigned addr, uint32_t o0, uint32_t o1)
{
    uint32_t a[LANES];
    memcpy(a, ref_vgpr + addr * LANES, sizeof a);
    for (unsigned l = 0; l < LANES; l++) {
        ref_vgpr[dst * LANES + l] = ref_lds32(a[l] + o0);
        ref_vgpr[(dst + 1) * LANES + l] = ref_lds32(a[l] + o1);
    }
}

static void ref_write2(unsigned addr, unsigned d0, unsigned d1, uint32_t o0,
                       uint32_t o1)
{
    for (unsigned l = 0; l < LANES; l++) {
        uint32_t a = ref_vgpr[addr * LANES + l];
        memcpy(ref_lds + a + o0, &ref_vgpr[d0 * LANES + l], 4);
        memcpy(ref_lds + a + o1, &ref_vgpr[d1 * LANES + l], 4);
    }
}

static const gcn_op read_ops[4] = {GCN_OP_DS_READ_B32, GCN_OP_DS_READ_B64,
                                   GCN_OP_DS_READ_B96, GCN_OP_DS_READ_B128};
static const gcn_op write_ops[4] = {GCN_OP_DS_WRITE_B32, GCN_OP_DS_WRITE_B64,
                                    GCN_OP_DS_WRITE_B96,
                                    GCN_OP_DS_WRITE_B128};

static void test_reads_match_reference(void **state)
{
    (void)state;
    for (int pat = 0; pat < PAT_COUNT; pat++)
        for (unsigned n = 1; n <= 4; n++)
            for (int alias = 0; alias < 2; alias++) {
                reset(100u * (unsigned)pat + 10u * n + (unsigned)alias);
                /* alias: the address is the first destination VGPR */
                unsigned addr = alias ? 4 : 2, dst = 4;
                uint32_t off = 8 * n;
                fill_addrs(addr, pat, LDS_BYTES - 64);
                assert_int_equal(
                    run(ds(read_ops[n - 1], dst, addr, 0, 0, off, 0)),
                                 MGS_OK);
                ref_read(dst, addr, off, n);
                assert_state_matches();
            }
}

static void test_writes_match_reference(void **state)
{
    (void)state;
    for (int pat = 0; pat < PAT_COUNT; pat++)
        for (unsigned n = 1; n <= 4; n++) {
            reset(1000u + 100u * (unsigned)pat + n);
            fill_addrs(2, pat, LDS_BYTES - 64);
            assert_int_equal(run(ds(write_ops[n - 1], 0, 2, 8, 0, 4, 0)),
                             MGS_OK);
            ref_write(2, 8, 4, n);
            assert_state_matches();
        }
}

static void test_read2_write2_match_reference(void **state)
{
    (void)state;
    /* dword offsets (read2/write2) and 64-dword ones (ST64): overlapping
    ** halves, equal offsets, reversed order; all within 4 KB of LDS */
    static const struct { uint8_t o0, o1; } offs[2][6] = {
        {{0, 16}, {32, 48}, {1, 0}, {5, 5}, {0, 1}, {2, 3}},
        {{0, 1}, {1, 0}, {2, 2}, {0, 3}, {3, 1}, {1, 2}},
    };
    for (int pat = 0; pat < PAT_COUNT; pat++)
        for (size_t k = 0; k < 6; k++)
            for (int st64 = 0; st64 < 2; st64++) {
                uint32_t stride = st64 ? 256 : 4;
                const uint8_t k0 = offs[st64][k].o0, k1 = offs[st64][k].o1;
                uint32_t o0 = k0 * stride, o1 = k1 * stride;
                reset(5000u + 100u * (unsigned)pat + 2u * (unsigned)k +
                      (unsigned)st64);
                fill_addrs(6, pat, 2048);
                gcn_op rd = st64 ? GCN_OP_DS_READ2ST64_B32
                                 : GCN_OP_DS_READ2_B32;
                gcn_op wr = st64 ? GCN_OP_DS_WRITE2ST64_B32
                                 : GCN_OP_DS_WRITE2_B32;
                assert_int_equal(run(ds(wr, 0, 6, 8, 9, k0, k1)),
                                 MGS_OK);
                ref_write2(6, 8, 9, o0, o1);
                assert_state_matches();
                /* read back into v6:v7, overwriting the address VGPR */
                assert_int_equal(run(ds(rd, 6, 6, 0, 0, k0, k1)),
                                 MGS_OK);
                ref_read2(6, 6, o0, o1);
                assert_state_matches();
            }
}

/* LDS of 1536 bytes: addresses 1024 and 508 are both in range but their
** OR (1532 | ...) may exceed it; the exact check must accept the wave. */
static void test_loose_bound_accepted(void **state)
{
    (void)state;
    reset(7);
    fx.ctx.lds_size = 1536;
    for (unsigned l = 0; l < LANES; l++)
        vr(2)[l] = l & 1 ? 1024 : 508;
    memcpy(ref_vgpr + 2 * LANES, vr(2), 4 * LANES);
    assert_int_equal(run(ds(GCN_OP_DS_READ_B128, 4, 2, 0, 0, 0, 0)),
                     MGS_OK);
    ref_read(4, 2, 0, 4);
    assert_state_matches();
    assert_int_equal(run(ds(GCN_OP_DS_WRITE_B32, 0, 2, 9, 0, 0, 0)),
                     MGS_OK);
    ref_write(2, 9, 0, 1);
    assert_state_matches();
}

/* One lane past the end: MGS_EFAULT naming its address, nothing changed. */
static void test_out_of_range_faults_cleanly(void **state)
{
    (void)state;
    for (unsigned n = 1; n <= 4; n++) {
        reset(40u + n);
        fx.ctx.lds_size = 2048;
        for (unsigned l = 0; l < LANES; l++)
            vr(2)[l] = 4 * l;
        vr(2)[37] = 2048 - 4 * n + 4;   /* last dword 4 bytes past */
        memcpy(ref_vgpr + 2 * LANES, vr(2), 4 * LANES);
        assert_int_equal(run(ds(read_ops[n - 1], 4, 2, 0, 0, 0, 0)),
                         MGS_EFAULT);
        assert_non_null(strstr(mgs_error_msg(), "LDS fault"));
        assert_int_equal(run(ds(write_ops[n - 1], 0, 2, 8, 0, 0, 0)),
                         MGS_EFAULT);
        assert_state_matches();
    }
    reset(50);
    fx.ctx.lds_size = 2048;
    for (unsigned l = 0; l < LANES; l++)
        vr(2)[l] = 1024 + 4 * (l % 16);
    memcpy(ref_vgpr + 2 * LANES, vr(2), 4 * LANES);
    /* offset1 = 255 dwords: 1024 + 60 + 1020 + 4 > 2048 */
    assert_int_equal(run(ds(GCN_OP_DS_READ2_B32, 4, 2, 0, 0, 0, 255)),
                     MGS_EFAULT);
    assert_int_equal(run(ds(GCN_OP_DS_WRITE2_B32, 0, 2, 8, 9, 0, 255)),
                     MGS_EFAULT);
    assert_state_matches();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_match_reference),
        cmocka_unit_test(test_writes_match_reference),
        cmocka_unit_test(test_read2_write2_match_reference),
        cmocka_unit_test(test_loose_bound_accepted),
        cmocka_unit_test(test_out_of_range_faults_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
