/*
** Vector memory semantics (src/gcn3/exec_mem.c) against the runtime's
** device memory (src/runtime/devmem.c): FLAT loads/stores of every width,
** coalesced and scattered lanes, EXEC masking, atomics with and without
** glc, faults, the LDS and private apertures, and MUBUF addressing
** (swizzled scratch agreeing with FLAT private, raw-buffer range checks).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gcn3/emu.h"
#include "gcn3/exec.h"
#include "mgsim/errors.h"
#include "runtime/devmem.h"

#define V(n) (GCN_OPR_VGPR0 + (n))
#define NV 16

typedef struct fixture {
    gcn_wave w;
    uint32_t vgpr[NV * GCN_WAVE_LANES];
    gcn_exec_ctx ctx;
    uint8_t lds[1024];
    mgs_devmem mem;
    uint64_t buf;           /* 4 KiB device buffer */
} fixture;

static fixture fx;

static int setup(void **state)
{
    (void)state;
    memset(&fx, 0, sizeof fx);
    fx.w.vgpr = fx.vgpr;
    fx.w.nvgpr = NV;
    fx.w.exec = ~0ull;
    fx.ctx.lds = fx.lds;
    fx.ctx.lds_size = sizeof fx.lds;
    fx.ctx.mem_ops = &mgs_devmem_ops;
    fx.ctx.mem = &fx.mem;
    fx.w.ctx = &fx.ctx;
    assert_int_equal(mgs_devmem_init(&fx.mem, 1, 1 << 20), MGS_OK);
    assert_int_equal(mgs_devmem_alloc_range(&fx.mem, 0, 4096, &fx.buf),
                     MGS_OK);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    mgs_devmem_destroy(&fx.mem);
    return 0;
}

static uint32_t *vr(unsigned r)
{
    return gcn_vreg(&fx.w, r);
}

static void set_addr(unsigned r, int lane, uint64_t a)
{
    vr(r)[lane] = (uint32_t)a;
    vr(r + 1)[lane] = (uint32_t)(a >> 32);
}

static uint32_t dev32(uint64_t a)
{
    uint32_t v = 0;
    assert_int_equal(mgs_devmem_read(&fx.mem, a, &v, 4), MGS_OK);
    return v;
}

static gcn_inst flat(gcn_op op, unsigned vdst, unsigned addr, unsigned data)
{
    gcn_inst in;
    memset(&in, 0, sizeof in);
    in.op = (uint16_t)op;
    in.fmt = GCN_FMT_FLAT;
    in.size = 8;
    in.dst = (uint16_t)V(vdst);
    in.addr = (uint16_t)V(addr);
    in.data0 = (uint16_t)V(data);
    return in;
}

static int run(gcn_inst in)
{
    return gcn_exec(&fx.w, &in);
}

static void test_flat_dword_paths(void **state)
{
    (void)state;
    /* Coalesced store: lane l -> buf + 4l. */
    for (int l = 0; l < 64; l++) {
        set_addr(0, l, fx.buf + 4 * (uint64_t)l);
        vr(2)[l] = 0x1000u + (uint32_t)l;
    }
    assert_int_equal(run(flat(GCN_OP_FLAT_STORE_DWORD, 0, 0, 2)), MGS_OK);
    assert_int_equal(dev32(fx.buf + 4 * 17), 0x1011);
    /* Scattered, reversed load with some lanes off. */
    for (int l = 0; l < 64; l++)
        set_addr(0, l, fx.buf + 4 * (uint64_t)(63 - l));
    fx.w.exec = 0xffffffff0000ffffull;
    vr(3)[20] = 0xdead;
    assert_int_equal(run(flat(GCN_OP_FLAT_LOAD_DWORD, 3, 0, 0)), MGS_OK);
    assert_int_equal(vr(3)[0], 0x103f);
    assert_int_equal(vr(3)[63], 0x1000);
    assert_int_equal(vr(3)[20], 0xdead); /* inactive lane untouched */
    /* Runs of 16 consecutive lanes with gaps (a tile row pattern). */
    fx.w.exec = ~0ull;
    for (int l = 0; l < 64; l++)
        set_addr(0, l, fx.buf + 1024 + 4 * (uint64_t)((l / 16) * 64 + l % 16));
    assert_int_equal(run(flat(GCN_OP_FLAT_STORE_DWORD, 0, 0, 2)), MGS_OK);
    assert_int_equal(dev32(fx.buf + 1024 + 4 * (64 * 2 + 5)), 0x1000 + 37);
    assert_int_equal(run(flat(GCN_OP_FLAT_LOAD_DWORD, 4, 0, 0)), MGS_OK);
    assert_int_equal(vr(4)[37], 0x1000 + 37);
}

static void test_flat_widths(void **state)
{
    (void)state;
    /* x4 store/load, coalesced (16-byte stride). */
    for (int l = 0; l < 64; l++) {
        set_addr(0, l, fx.buf + 16 * (uint64_t)l);
        for (int i = 0; i < 4; i++)
            vr(4 + i)[l] = (uint32_t)(l * 4 + i);
    }
    assert_int_equal(run(flat(GCN_OP_FLAT_STORE_DWORDX4, 0, 0, 4)), MGS_OK);
    assert_int_equal(dev32(fx.buf + 16 * 3 + 8), 14);
    assert_int_equal(run(flat(GCN_OP_FLAT_LOAD_DWORDX4, 8, 0, 0)), MGS_OK);
    assert_int_equal(vr(11)[63], 255);
    /* x2 load, strided (not coalesced). */
    for (int l = 0; l < 64; l++)
        set_addr(0, l, fx.buf + 32 * (uint64_t)(l / 2));
    assert_int_equal(run(flat(GCN_OP_FLAT_LOAD_DWORDX2, 8, 0, 0)), MGS_OK);
    assert_int_equal(vr(8)[5], 16); /* lane 5 reads buf + 64 */
    assert_int_equal(vr(9)[5], 17);
    /* x3 */
    assert_int_equal(run(flat(GCN_OP_FLAT_LOAD_DWORDX3, 12, 0, 0)), MGS_OK);
    assert_int_equal(vr(14)[5], 18);
    /* Sub-dword loads extend; byte stores touch one byte. */
    uint32_t word = 0x8001fe80u;
    assert_int_equal(mgs_devmem_write(&fx.mem, fx.buf + 2048, &word, 4),
                     MGS_OK);
    fx.w.exec = 1;
    set_addr(0, 0, fx.buf + 2048);
    assert_int_equal(run(flat(GCN_OP_FLAT_LOAD_SBYTE, 2, 0, 0)), MGS_OK);
    assert_int_equal(vr(2)[0], 0xffffff80u);
    assert_int_equal(run(flat(GCN_OP_FLAT_LOAD_UBYTE, 2, 0, 0)), MGS_OK);
    assert_int_equal(vr(2)[0], 0x80u);
    assert_int_equal(run(flat(GCN_OP_FLAT_LOAD_SSHORT, 2, 0, 0)), MGS_OK);
    assert_int_equal(vr(2)[0], 0xfffffe80u);
    set_addr(0, 0, fx.buf + 2050);
    assert_int_equal(run(flat(GCN_OP_FLAT_LOAD_USHORT, 2, 0, 0)), MGS_OK);
    assert_int_equal(vr(2)[0], 0x8001u);
    vr(3)[0] = 0x77;
    assert_int_equal(run(flat(GCN_OP_FLAT_STORE_BYTE, 0, 0, 3)), MGS_OK);
    assert_int_equal(dev32(fx.buf + 2048), 0x8077fe80u);
}

static void test_flat_atomics(void **state)
{
    (void)state;
    uint64_t a = fx.buf + 3072;
    assert_int_equal(mgs_devmem_fill(&fx.mem, a, 0, 64), MGS_OK);
    for (int l = 0; l < 64; l++) {
        set_addr(0, l, a);
        vr(2)[l] = 1;
    }
    /* 64 lanes add 1; with glc each sees the value before its add. */
    gcn_inst in = flat(GCN_OP_FLAT_ATOMIC_ADD, 4, 0, 2);
    in.glc = 1;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(dev32(a), 64);
    assert_int_equal(vr(4)[0], 0);
    assert_int_equal(vr(4)[63], 63);
    /* Without glc the destination is not written. */
    vr(5)[0] = 0x55;
    in = flat(GCN_OP_FLAT_ATOMIC_ADD, 5, 0, 2);
    fx.w.exec = 1;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(vr(5)[0], 0x55);
    assert_int_equal(dev32(a), 65);
    /* cmpswap: data = {src, cmp}. */
    vr(6)[0] = 1000; /* src */
    vr(7)[0] = 65;   /* cmp */
    in = flat(GCN_OP_FLAT_ATOMIC_CMPSWAP, 8, 0, 6);
    in.glc = 1;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(vr(8)[0], 65);
    assert_int_equal(dev32(a), 1000);
    assert_int_equal(run(in), MGS_OK); /* compare fails now */
    assert_int_equal(dev32(a), 1000);
    /* add_x2 carries across the 32-bit halves; cmpswap_x2 data order. */
    set_addr(0, 0, a + 8);
    uint64_t v = 0xffffffffull;
    assert_int_equal(mgs_devmem_write(&fx.mem, a + 8, &v, 8), MGS_OK);
    vr(6)[0] = 1;
    vr(7)[0] = 0;
    in = flat(GCN_OP_FLAT_ATOMIC_ADD_X2, 8, 0, 6);
    in.glc = 1;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(vr(8)[0], 0xffffffffu);
    assert_int_equal(vr(9)[0], 0);
    assert_int_equal(dev32(a + 12), 1);
    vr(6)[0] = 7;       /* src lo */
    vr(7)[0] = 0;       /* src hi */
    vr(8)[0] = 0;       /* cmp lo */
    vr(9)[0] = 1;       /* cmp hi */
    in = flat(GCN_OP_FLAT_ATOMIC_CMPSWAP_X2, 10, 0, 6);
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(dev32(a + 8), 7);
    assert_int_equal(dev32(a + 12), 0);
}

static void test_flat_fault(void **state)
{
    (void)state;
    fx.w.exec = 0x3;
    set_addr(0, 0, fx.buf);
    set_addr(0, 1, fx.buf + 4096); /* the guard page after the buffer */
    assert_int_equal(run(flat(GCN_OP_FLAT_LOAD_DWORD, 2, 0, 0)), MGS_EFAULT);
    char want[64];
    snprintf(want, sizeof want, "address 0x%llx (read of 4 bytes)",
             (unsigned long long)(fx.buf + 4096));
    assert_non_null(strstr(mgs_error_msg(), want));
    assert_int_equal(run(flat(GCN_OP_FLAT_STORE_DWORD, 0, 0, 2)), MGS_EFAULT);
    assert_non_null(strstr(mgs_error_msg(), "write of 4 bytes"));
}

static void test_apertures(void **state)
{
    (void)state;
    /* Group aperture: the address's low 32 bits index LDS. */
    uint64_t g = (uint64_t)GCN_EMU_APERTURE_GROUP_HI << 32;
    for (int l = 0; l < 64; l++) {
        set_addr(0, l, g + 4 * (uint64_t)l);
        vr(2)[l] = 500 + (uint32_t)l;
    }
    assert_int_equal(run(flat(GCN_OP_FLAT_STORE_DWORD, 0, 0, 2)), MGS_OK);
    uint32_t v;
    memcpy(&v, fx.lds + 4 * 9, 4);
    assert_int_equal(v, 509);
    set_addr(0, 0, g + sizeof fx.lds);
    assert_int_equal(run(flat(GCN_OP_FLAT_LOAD_DWORD, 3, 0, 0)), MGS_EFAULT);

    /* Private aperture and MUBUF scratch see the same bytes. Scratch for
    ** one wave: 64 lanes x 16 bytes, at wave offset 0x100 (FLAT_SCRATCH_HI
    ** = 1) of a 2-wave block. */
    uint64_t scratch;
    assert_int_equal(mgs_devmem_alloc_range(&fx.mem, 0, 2 * 64 * 16 + 256,
                                            &scratch), MGS_OK);
    fx.ctx.private_base = scratch;
    fx.w.sgpr[GCN_OPR_FLAT_SCR_HI] = 1;
    /* V#: base = scratch, swizzled, element 4, index stride 64, ADD_TID. */
    fx.w.sgpr[0] = (uint32_t)scratch;
    fx.w.sgpr[1] = (uint32_t)(scratch >> 32) | (16u << 16) | (1u << 31);
    fx.w.sgpr[2] = 0xffffffffu;
    fx.w.sgpr[3] = (1u << 19) | (3u << 21) | (1u << 23);
    fx.w.sgpr[4] = 0x100; /* soffset = wave offset */
    fx.w.exec = ~0ull;
    gcn_inst st;
    memset(&st, 0, sizeof st);
    st.op = GCN_OP_BUFFER_STORE_DWORDX2;
    st.fmt = GCN_FMT_MUBUF;
    st.size = 8;
    st.addr = V(0);
    st.data0 = V(2);
    st.srsrc = 0;
    st.soffset = 4;
    st.offen = 1;
    st.offset = 4;
    for (int l = 0; l < 64; l++) {
        vr(0)[l] = 4;           /* private byte offset 4 + 4 = 8 */
        vr(2)[l] = 0xa00 + (uint32_t)l;
        vr(3)[l] = 0xb00 + (uint32_t)l;
    }
    assert_int_equal(run(st), MGS_OK);
    /* Swizzled: dword 2 of lane 5 at base + 0x100 + 2*256 + 5*4. */
    assert_int_equal(dev32(scratch + 0x100 + 2 * 256 + 5 * 4), 0xa05);
    assert_int_equal(dev32(scratch + 0x100 + 3 * 256 + 5 * 4), 0xb05);
    uint64_t p = (uint64_t)GCN_EMU_APERTURE_PRIVATE_HI << 32;
    for (int l = 0; l < 64; l++)
        set_addr(0, l, p + 8);
    assert_int_equal(run(flat(GCN_OP_FLAT_LOAD_DWORDX2, 6, 0, 0)), MGS_OK);
    assert_int_equal(vr(6)[33], 0xa21);
    assert_int_equal(vr(7)[33], 0xb21);
    /* And back: a FLAT private store read by buffer_load. */
    for (int l = 0; l < 64; l++)
        vr(8)[l] = 0xc00 + (uint32_t)l;
    for (int l = 0; l < 64; l++)
        set_addr(0, l, p + 12);
    assert_int_equal(run(flat(GCN_OP_FLAT_STORE_DWORD, 0, 0, 8)), MGS_OK);
    gcn_inst ld = st;
    ld.op = GCN_OP_BUFFER_LOAD_DWORD;
    ld.data0 = V(9);
    ld.offset = 12;
    for (int l = 0; l < 64; l++)
        vr(0)[l] = 0;
    assert_int_equal(run(ld), MGS_OK);
    assert_int_equal(vr(9)[60], 0xc3c);
}

static void test_mubuf_raw_range(void **state)
{
    (void)state;
    /* Raw buffer of 16 bytes over buf: offsets >= 16 read 0, writes drop. */
    uint32_t init[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    assert_int_equal(mgs_devmem_write(&fx.mem, fx.buf, init, sizeof init),
                     MGS_OK);
    fx.w.sgpr[8] = (uint32_t)fx.buf;
    fx.w.sgpr[9] = (uint32_t)(fx.buf >> 32);
    fx.w.sgpr[10] = 16;
    fx.w.sgpr[11] = 0;
    gcn_inst in;
    memset(&in, 0, sizeof in);
    in.op = GCN_OP_BUFFER_LOAD_DWORD;
    in.fmt = GCN_FMT_MUBUF;
    in.size = 8;
    in.addr = V(0);
    in.data0 = V(1);
    in.srsrc = 8;
    in.soffset = GCN_OPR_ZERO;
    in.offen = 1;
    fx.w.exec = 0x3;
    vr(0)[0] = 12;
    vr(0)[1] = 16;
    vr(1)[1] = 0x99;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(vr(1)[0], 4);
    assert_int_equal(vr(1)[1], 0);
    in.op = GCN_OP_BUFFER_STORE_DWORD;
    vr(1)[0] = 40;
    vr(1)[1] = 50;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(dev32(fx.buf + 12), 40);
    assert_int_equal(dev32(fx.buf + 16), 5);
    /* buffer_atomic_add with glc returns the old value in vdata. */
    in.op = GCN_OP_BUFFER_ATOMIC_ADD;
    in.glc = 1;
    fx.w.exec = 1;
    vr(1)[0] = 2;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(vr(1)[0], 40);
    assert_int_equal(dev32(fx.buf + 12), 42);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_flat_dword_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flat_widths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flat_atomics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flat_fault, setup, teardown),
        cmocka_unit_test_setup_teardown(test_apertures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mubuf_raw_range, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
