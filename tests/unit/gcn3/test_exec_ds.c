/*
** LDS semantics (src/gcn3/exec_ds.c) on hand-built DS instructions:
** reads/writes of every width, read2/write2 with and without ST64, b128,
** atomics with and without return, cmpst operand order, swizzle and
** (b)permute, EXEC masking and the bounds check.
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
#define LDS_BYTES 65536

typedef struct fixture {
    gcn_wave w;
    uint32_t vgpr[NV * GCN_WAVE_LANES];
    gcn_exec_ctx ctx;
    uint8_t lds[LDS_BYTES];
} fixture;

static fixture fx;

static void reset(void)
{
    memset(&fx, 0, sizeof fx);
    fx.w.vgpr = fx.vgpr;
    fx.w.nvgpr = NV;
    fx.w.exec = ~0ull;
    fx.ctx.lds = fx.lds;
    fx.ctx.lds_size = LDS_BYTES;
    fx.w.ctx = &fx.ctx;
}

static uint32_t *vr(unsigned r)
{
    return gcn_vreg(&fx.w, r);
}

static uint32_t lds32(uint32_t a)
{
    uint32_t v;
    memcpy(&v, fx.lds + a, 4);
    return v;
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

static void test_write_read_widths(void **state)
{
    (void)state;
    reset();
    for (int l = 0; l < 64; l++) {
        vr(0)[l] = (uint32_t)l * 8;          /* address */
        vr(1)[l] = 0x80000000u | (uint32_t)l;
        vr(2)[l] = 0xa0000000u + (uint32_t)l;
    }
    /* ds_write_b64 v0, v[1:2] offset:16 */
    assert_int_equal(run(ds(GCN_OP_DS_WRITE_B64, 0, 0, 1, 0, 16, 0)), MGS_OK);
    assert_int_equal(lds32(16 + 8 * 5), 0x80000005u);
    assert_int_equal(lds32(20 + 8 * 5), 0xa0000005u);
    /* ds_read_b32 v3, v0 offset:20 reads the high halves. */
    assert_int_equal(run(ds(GCN_OP_DS_READ_B32, 3, 0, 0, 0, 20, 0)), MGS_OK);
    assert_int_equal(vr(3)[63], 0xa000003fu);
    /* ds_read_b64 */
    assert_int_equal(run(ds(GCN_OP_DS_READ_B64, 4, 0, 0, 0, 16, 0)), MGS_OK);
    assert_int_equal(vr(4)[7], 0x80000007u);
    assert_int_equal(vr(5)[7], 0xa0000007u);
    /* Sub-dword: i8 / u8 / i16 of 0x80000005 at byte 3 and 2. */
    assert_int_equal(run(ds(GCN_OP_DS_READ_I8, 6, 0, 0, 0, 19, 0)), MGS_OK);
    assert_int_equal(vr(6)[5], 0xffffff80u);
    assert_int_equal(run(ds(GCN_OP_DS_READ_U8, 6, 0, 0, 0, 19, 0)), MGS_OK);
    assert_int_equal(vr(6)[5], 0x80u);
    assert_int_equal(run(ds(GCN_OP_DS_READ_I16, 6, 0, 0, 0, 18, 0)), MGS_OK);
    assert_int_equal(vr(6)[5], 0xffff8000u);
    assert_int_equal(run(ds(GCN_OP_DS_READ_U16, 6, 0, 0, 0, 16, 0)), MGS_OK);
    assert_int_equal(vr(6)[5], 5u);
    /* ds_write_b8 only touches one byte. */
    vr(7)[0] = 0x1234;
    fx.w.exec = 1;
    assert_int_equal(run(ds(GCN_OP_DS_WRITE_B8, 0, 0, 7, 0, 16, 0)), MGS_OK);
    assert_int_equal(lds32(16), 0x80000034u);
    /* ds_write_b128 / ds_read_b128 round trip at a 16-byte stride. */
    fx.w.exec = ~0ull;
    for (int l = 0; l < 64; l++) {
        vr(0)[l] = 1024 + (uint32_t)l * 16;
        for (int i = 0; i < 4; i++)
            vr(8 + i)[l] = (uint32_t)(l * 10 + i);
    }
    assert_int_equal(run(ds(GCN_OP_DS_WRITE_B128, 0, 0, 8, 0, 0, 0)), MGS_OK);
    assert_int_equal(run(ds(GCN_OP_DS_READ_B128, 12, 0, 0, 0, 0, 0)), MGS_OK);
    assert_int_equal(vr(12)[9], 90);
    assert_int_equal(vr(15)[9], 93);
    assert_int_equal(lds32(1024 + 16 * 2 + 4), 21);
}

/* A destination that overwrites its own address VGPR. */
static void test_dst_aliases_addr(void **state)
{
    (void)state;
    reset();
    for (uint32_t i = 0; i < 128; i++)
        memcpy(fx.lds + 4 * i, &(uint32_t){1000 + i}, 4);
    for (int l = 0; l < 64; l++)
        vr(0)[l] = (uint32_t)l * 8;
    assert_int_equal(run(ds(GCN_OP_DS_READ_B64, 0, 0, 0, 0, 0, 0)), MGS_OK);
    assert_int_equal(vr(0)[5], 1010);
    assert_int_equal(vr(1)[5], 1011);
    for (int l = 0; l < 64; l++)
        vr(2)[l] = (uint32_t)l * 4;
    assert_int_equal(run(ds(GCN_OP_DS_READ2_B32, 2, 2, 0, 0, 0, 64)), MGS_OK);
    assert_int_equal(vr(2)[7], 1007);
    assert_int_equal(vr(3)[7], 1071);
    /* Same with a partial EXEC (the per-lane paths). */
    fx.w.exec = 0xfffffffffffffffeull;
    for (int l = 0; l < 64; l++)
        vr(4)[l] = (uint32_t)l * 8;
    assert_int_equal(run(ds(GCN_OP_DS_READ_B64, 4, 4, 0, 0, 0, 0)), MGS_OK);
    assert_int_equal(vr(4)[3], 1006);
    assert_int_equal(vr(5)[3], 1007);
}

static void test_read2_write2(void **state)
{
    (void)state;
    reset();
    for (int l = 0; l < 64; l++) {
        vr(0)[l] = (uint32_t)l * 4;
        vr(1)[l] = 100 + (uint32_t)l;
        vr(2)[l] = 200 + (uint32_t)l;
    }
    /* write2_b32 offset0:0 offset1:64 -> addr + 0 and addr + 256 */
    assert_int_equal(run(ds(GCN_OP_DS_WRITE2_B32, 0, 0, 1, 2, 0, 64)), MGS_OK);
    assert_int_equal(lds32(4 * 3), 103);
    assert_int_equal(lds32(256 + 4 * 3), 203);
    /* read2st64_b32 offset0:0 offset1:1 reads the same pair (1*64*4). */
    assert_int_equal(run(ds(GCN_OP_DS_READ2ST64_B32, 4, 0, 0, 0, 0, 1)),
                     MGS_OK);
    assert_int_equal(vr(4)[10], 110);
    assert_int_equal(vr(5)[10], 210);
    /* write2st64_b64 with offsets 1 and 2 (in units of 512 B). */
    for (int l = 0; l < 64; l++)
        vr(0)[l] = (uint32_t)l * 8;
    assert_int_equal(run(ds(GCN_OP_DS_WRITE2ST64_B64, 0, 0, 1, 1, 1, 2)),
                     MGS_OK);
    assert_int_equal(lds32(512 + 8 * 4), 104);
    assert_int_equal(lds32(512 + 8 * 4 + 4), 204);
    assert_int_equal(lds32(1024 + 8 * 4), 104);
    assert_int_equal(run(ds(GCN_OP_DS_READ2_B64, 6, 0, 0, 0, 64, 128)),
                     MGS_OK);
    assert_int_equal(vr(6)[4], 104);
    assert_int_equal(vr(7)[4], 204);
    assert_int_equal(vr(8)[4], 104);
    assert_int_equal(vr(9)[4], 204);
}

static void test_atomics(void **state)
{
    (void)state;
    reset();
    /* Every lane adds its id to one word: sum 0..63 = 2016. */
    for (int l = 0; l < 64; l++) {
        vr(0)[l] = 64;
        vr(1)[l] = (uint32_t)l;
    }
    assert_int_equal(run(ds(GCN_OP_DS_ADD_U32, 0, 0, 1, 0, 0, 0)), MGS_OK);
    assert_int_equal(lds32(64), 2016);
    /* With return: lanes see the running value in lane order. */
    assert_int_equal(run(ds(GCN_OP_DS_ADD_RTN_U32, 2, 0, 1, 0, 0, 0)), MGS_OK);
    assert_int_equal(vr(2)[0], 2016);
    assert_int_equal(vr(2)[3], 2016 + 0 + 1 + 2);
    assert_int_equal(lds32(64), 4032);
    /* max_i32 treats values as signed. */
    fx.w.exec = 3;
    vr(1)[0] = 0xffffffffu;   /* -1 */
    vr(1)[1] = 5000;
    assert_int_equal(run(ds(GCN_OP_DS_MAX_RTN_I32, 2, 0, 1, 0, 0, 0)), MGS_OK);
    assert_int_equal(lds32(64), 5000);
    /* cmpst: data0 = compare, data1 = new value. */
    fx.w.exec = 1;
    vr(3)[0] = 5000;
    vr(4)[0] = 77;
    assert_int_equal(run(ds(GCN_OP_DS_CMPST_RTN_B32, 5, 0, 3, 4, 0, 0)),
                     MGS_OK);
    assert_int_equal(vr(5)[0], 5000);
    assert_int_equal(lds32(64), 77);
    assert_int_equal(run(ds(GCN_OP_DS_CMPST_B32, 5, 0, 3, 4, 0, 0)), MGS_OK);
    assert_int_equal(lds32(64), 77); /* compare failed: unchanged */
    /* inc wraps at the operand. */
    vr(6)[0] = 77;
    assert_int_equal(run(ds(GCN_OP_DS_INC_U32, 0, 0, 6, 0, 0, 0)), MGS_OK);
    assert_int_equal(lds32(64), 0);
    /* 64-bit add carries into the high word. */
    vr(0)[0] = 128;
    memset(fx.lds + 128, 0xff, 4);
    vr(6)[0] = 1;
    vr(7)[0] = 0;
    assert_int_equal(run(ds(GCN_OP_DS_ADD_U64, 0, 0, 6, 0, 0, 0)), MGS_OK);
    assert_int_equal(lds32(128), 0);
    assert_int_equal(lds32(132), 1);
    /* wrxchg returns the old value. */
    vr(6)[0] = 9;
    assert_int_equal(run(ds(GCN_OP_DS_WRXCHG_RTN_B32, 8, 0, 6, 0, 0, 0)),
                     MGS_OK);
    assert_int_equal(vr(8)[0], 0);
    assert_int_equal(lds32(128), 9);
}

static void test_cross_lane(void **state)
{
    (void)state;
    reset();
    for (int l = 0; l < 64; l++) {
        vr(1)[l] = 1000 + (uint32_t)l;
        vr(0)[l] = (uint32_t)((63 - l) * 4); /* reverse */
    }
    assert_int_equal(run(ds(GCN_OP_DS_BPERMUTE_B32, 2, 0, 1, 0, 0, 0)),
                     MGS_OK);
    assert_int_equal(vr(2)[0], 1063);
    assert_int_equal(vr(2)[63], 1000);
    assert_int_equal(run(ds(GCN_OP_DS_PERMUTE_B32, 3, 0, 1, 0, 0, 0)), MGS_OK);
    assert_int_equal(vr(3)[63], 1000);
    /* swizzle quad mode: every lane takes lane 3 of its quad. */
    assert_int_equal(run(ds(GCN_OP_DS_SWIZZLE_B32, 4, 0, 1, 0,
                            0x8000u | 0xff, 0)), MGS_OK);
    assert_int_equal(vr(4)[4], 1007);
    assert_int_equal(vr(4)[6], 1007);
    /* bit-mask mode: xor 1 swaps neighbours. */
    assert_int_equal(run(ds(GCN_OP_DS_SWIZZLE_B32, 4, 0, 1, 0,
                            (1u << 10) | 0x1f, 0)), MGS_OK);
    assert_int_equal(vr(4)[10], 1011);
    assert_int_equal(vr(4)[33], 1032);
}

static void test_exec_mask_and_bounds(void **state)
{
    (void)state;
    reset();
    for (int l = 0; l < 64; l++) {
        vr(0)[l] = (uint32_t)l * 4;
        vr(1)[l] = 7;
    }
    fx.w.exec = 0x5;
    assert_int_equal(run(ds(GCN_OP_DS_WRITE_B32, 0, 0, 1, 0, 0, 0)), MGS_OK);
    assert_int_equal(lds32(0), 7);
    assert_int_equal(lds32(4), 0);
    assert_int_equal(lds32(8), 7);
    /* Lane 1 out of range but inactive: fine; active: a fault. */
    fx.ctx.lds_size = 8;
    fx.w.exec = 0x1;
    assert_int_equal(run(ds(GCN_OP_DS_READ_B32, 2, 0, 0, 0, 4, 0)), MGS_OK);
    fx.w.exec = 0x3;
    assert_int_equal(run(ds(GCN_OP_DS_READ_B32, 2, 0, 0, 0, 4, 0)),
                     MGS_EFAULT);
    assert_non_null(strstr(mgs_error_msg(), "LDS fault at address 0x8"));
    assert_int_equal(run(ds(GCN_OP_DS_READ2_B32, 2, 0, 0, 0, 0, 2)),
                     MGS_EFAULT);
    /* Full EXEC (the gather fast paths): the last lane is 4 bytes past. */
    fx.ctx.lds_size = 256;
    fx.w.exec = ~0ull;
    assert_int_equal(run(ds(GCN_OP_DS_READ_B32, 2, 0, 0, 0, 0, 0)), MGS_OK);
    assert_int_equal(run(ds(GCN_OP_DS_READ_B32, 2, 0, 0, 0, 4, 0)),
                     MGS_EFAULT);
    assert_non_null(strstr(mgs_error_msg(), "LDS fault at address 0x100"));
    assert_int_equal(run(ds(GCN_OP_DS_READ2_B32, 2, 0, 0, 0, 0, 1)),
                     MGS_EFAULT);
    assert_non_null(strstr(mgs_error_msg(), "LDS fault at address 0x100"));
    /* GDS is not modelled. */
    gcn_inst in = ds(GCN_OP_DS_READ_B32, 2, 0, 0, 0, 0, 0);
    in.gds = 1;
    assert_int_equal(run(in), MGS_EUNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_read_widths),
        cmocka_unit_test(test_read2_write2),
        cmocka_unit_test(test_dst_aliases_addr),
        cmocka_unit_test(test_atomics),
        cmocka_unit_test(test_cross_lane),
        cmocka_unit_test(test_exec_mask_and_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
