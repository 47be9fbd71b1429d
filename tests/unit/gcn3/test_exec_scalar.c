/*
** Scalar semantics (src/gcn3/exec_scalar.c) on hand-built instructions:
** SOP2 carries and flags, bit-field extract, SOPK compares, SOP1
** saveexec/brev/ff1/getpc, SOPC, SOPP branches and wave status, SMEM loads
** and stores through a small array-backed memory.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gcn3/exec.h"
#include "mgsim/errors.h"

/* 256 bytes of "device memory" at address 0x1000. */
typedef struct fake_mem {
    uint8_t bytes[256];
} fake_mem;

#define FAKE_BASE 0x1000u

static int fm_read(void *m, uint64_t a, void *dst, size_t n)
{
    fake_mem *f = m;
    if (a < FAKE_BASE || a + n > FAKE_BASE + sizeof f->bytes)
        return mgs_error_set(MGS_EFAULT, "fault at 0x%llx",
                             (unsigned long long)a);
    memcpy(dst, f->bytes + (a - FAKE_BASE), n);
    return MGS_OK;
}

static int fm_write(void *m, uint64_t a, const void *src, size_t n)
{
    fake_mem *f = m;
    if (a < FAKE_BASE || a + n > FAKE_BASE + sizeof f->bytes)
        return mgs_error_set(MGS_EFAULT, "fault at 0x%llx",
                             (unsigned long long)a);
    memcpy(f->bytes + (a - FAKE_BASE), src, n);
    return MGS_OK;
}

static const gcn_mem_ops fm_ops = {.read = fm_read, .write = fm_write};

typedef struct fixture {
    gcn_wave w;
    uint32_t vgpr[4 * GCN_WAVE_LANES];
    gcn_exec_ctx ctx;
    fake_mem mem;
} fixture;

static fixture fx;

static void reset(void)
{
    memset(&fx, 0, sizeof fx);
    fx.w.vgpr = fx.vgpr;
    fx.w.nvgpr = 4;
    fx.w.exec = ~0ull;
    fx.ctx.mem_ops = &fm_ops;
    fx.ctx.mem = &fx.mem;
    fx.ctx.code_vaddr = 0x1700;
    fx.w.ctx = &fx.ctx;
}

static gcn_inst sop(gcn_op op, gcn_fmt fmt, unsigned dst, unsigned s0,
                    unsigned s1)
{
    gcn_inst in;
    memset(&in, 0, sizeof in);
    in.op = (uint16_t)op;
    in.fmt = (uint8_t)fmt;
    in.size = 4;
    in.dst = (uint16_t)dst;
    in.src0 = (uint16_t)s0;
    in.src1 = (uint16_t)s1;
    return in;
}

static int run(gcn_inst in)
{
    return gcn_exec(&fx.w, &in);
}

static void test_add_carry_chain(void **state)
{
    (void)state;
    reset();
    /* 64-bit add 0x1_ffffffff + 1 as s_add_u32 + s_addc_u32. */
    fx.w.sgpr[0] = 0xffffffffu;
    fx.w.sgpr[1] = 1;
    assert_int_equal(run(sop(GCN_OP_S_ADD_U32, GCN_FMT_SOP2, 2, 0,
                             GCN_OPR_ZERO + 1)), MGS_OK);
    assert_int_equal(fx.w.sgpr[2], 0);
    assert_int_equal(fx.w.scc, 1);
    assert_int_equal(run(sop(GCN_OP_S_ADDC_U32, GCN_FMT_SOP2, 3, 1,
                             GCN_OPR_ZERO)), MGS_OK);
    assert_int_equal(fx.w.sgpr[3], 2);
    assert_int_equal(fx.w.scc, 0);
    /* s_sub_u32 borrow, s_subb_u32 consumes it. */
    fx.w.sgpr[4] = 1;
    assert_int_equal(run(sop(GCN_OP_S_SUB_U32, GCN_FMT_SOP2, 5, 4,
                             GCN_OPR_ZERO + 2)), MGS_OK);
    assert_int_equal(fx.w.sgpr[5], 0xffffffffu);
    assert_int_equal(fx.w.scc, 1);
    fx.w.sgpr[6] = 10;
    assert_int_equal(run(sop(GCN_OP_S_SUBB_U32, GCN_FMT_SOP2, 7, 6,
                             GCN_OPR_ZERO + 3)), MGS_OK);
    assert_int_equal(fx.w.sgpr[7], 6);
    assert_int_equal(fx.w.scc, 0);
    /* Signed overflow on s_add_i32. */
    fx.w.sgpr[8] = 0x7fffffffu;
    assert_int_equal(run(sop(GCN_OP_S_ADD_I32, GCN_FMT_SOP2, 9, 8,
                             GCN_OPR_ZERO + 1)), MGS_OK);
    assert_int_equal(fx.w.sgpr[9], 0x80000000u);
    assert_int_equal(fx.w.scc, 1);
}

static void test_logic_shift_bfe(void **state)
{
    (void)state;
    reset();
    /* s_and_b32 with a literal, as vecadd does (s0 & 0xffff). */
    gcn_inst in = sop(GCN_OP_S_AND_B32, GCN_FMT_SOP2, 0, 1, GCN_OPR_LITERAL);
    in.literal = 0xffff;
    in.size = 8;
    fx.w.sgpr[1] = 0x12345678u;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(fx.w.sgpr[0], 0x5678);
    assert_int_equal(fx.w.scc, 1);
    /* s_lshl_b64 by 4. */
    fx.w.sgpr[2] = 0x80000001u;
    fx.w.sgpr[3] = 0;
    assert_int_equal(run(sop(GCN_OP_S_LSHL_B64, GCN_FMT_SOP2, 4, 2,
                             GCN_OPR_ZERO + 4)), MGS_OK);
    assert_int_equal(fx.w.sgpr[4], 0x10);
    assert_int_equal(fx.w.sgpr[5], 0x8);
    /* s_bfe_i32: 4 bits at offset 8 of 0x00000f00 -> -1. */
    fx.w.sgpr[6] = 0xf00;
    in = sop(GCN_OP_S_BFE_I32, GCN_FMT_SOP2, 7, 6, GCN_OPR_LITERAL);
    in.literal = (4u << 16) | 8;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(fx.w.sgpr[7], 0xffffffffu);
    in.op = GCN_OP_S_BFE_U32;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(fx.w.sgpr[7], 0xf);
    /* s_ashr_i32 of a negative value. */
    fx.w.sgpr[8] = 0x80000000u;
    assert_int_equal(run(sop(GCN_OP_S_ASHR_I32, GCN_FMT_SOP2, 9, 8,
                             GCN_OPR_ZERO + 31)), MGS_OK);
    assert_int_equal(fx.w.sgpr[9], 0xffffffffu);
    /* s_min_u32 picks src1 and clears SCC. */
    fx.w.sgpr[10] = 9;
    assert_int_equal(run(sop(GCN_OP_S_MIN_U32, GCN_FMT_SOP2, 11, 10,
                             GCN_OPR_ZERO + 5)), MGS_OK);
    assert_int_equal(fx.w.sgpr[11], 5);
    assert_int_equal(fx.w.scc, 0);
    /* s_mul_i32 with a negative inline constant. */
    fx.w.sgpr[12] = 7;
    assert_int_equal(run(sop(GCN_OP_S_MUL_I32, GCN_FMT_SOP2, 13, 12,
                             GCN_OPR_INT_NEG_FIRST + 2)), MGS_OK);
    assert_int_equal((int32_t)fx.w.sgpr[13], -21);
}

static void test_sopk_and_sopc(void **state)
{
    (void)state;
    reset();
    gcn_inst in = sop(GCN_OP_S_MOVK_I32, GCN_FMT_SOPK, 0, 0, 0);
    in.simm16 = -5;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal((int32_t)fx.w.sgpr[0], -5);
    in = sop(GCN_OP_S_CMPK_LT_I32, GCN_FMT_SOPK, 0, 0, 0);
    in.simm16 = 0;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(fx.w.scc, 1);
    in = sop(GCN_OP_S_CMPK_GT_U32, GCN_FMT_SOPK, 0, 0, 0);
    in.simm16 = 1;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(fx.w.scc, 1); /* 0xfffffffb > 1 unsigned */
    in = sop(GCN_OP_S_ADDK_I32, GCN_FMT_SOPK, 0, 0, 0);
    in.simm16 = 6;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(fx.w.sgpr[0], 1);
    /* SOPC */
    fx.w.sgpr[1] = 3;
    assert_int_equal(run(sop(GCN_OP_S_CMP_LG_U32, GCN_FMT_SOPC, 0, 1,
                             GCN_OPR_ZERO)), MGS_OK);
    assert_int_equal(fx.w.scc, 1);
    assert_int_equal(run(sop(GCN_OP_S_CMP_GE_I32, GCN_FMT_SOPC, 0,
                             GCN_OPR_INT_NEG_FIRST, 1)), MGS_OK);
    assert_int_equal(fx.w.scc, 0); /* -1 >= 3 is false */
    assert_int_equal(run(sop(GCN_OP_S_BITCMP1_B32, GCN_FMT_SOPC, 0, 1,
                             GCN_OPR_ZERO + 1)), MGS_OK);
    assert_int_equal(fx.w.scc, 1);
}

static void test_sop1(void **state)
{
    (void)state;
    reset();
    /* s_and_saveexec_b64 s[0:1], vcc */
    fx.w.exec = 0xff00ff00ff00ff00ull;
    fx.w.vcc = 0x0f0f0f0f0f0f0f0full;
    assert_int_equal(run(sop(GCN_OP_S_AND_SAVEEXEC_B64, GCN_FMT_SOP1, 0,
                             GCN_OPR_VCC_LO, 0)), MGS_OK);
    assert_int_equal(fx.w.sgpr[0], 0xff00ff00u);
    assert_int_equal(fx.w.sgpr[1], 0xff00ff00u);
    assert_true(fx.w.exec == 0x0f000f000f000f00ull);
    assert_int_equal(fx.w.scc, 1);
    /* s_or_b64 exec, exec, s[0:1] restores it (SOP2 into exec). */
    assert_int_equal(run(sop(GCN_OP_S_OR_B64, GCN_FMT_SOP2, GCN_OPR_EXEC_LO,
                             GCN_OPR_EXEC_LO, 0)), MGS_OK);
    assert_true(fx.w.exec == 0xff00ff00ff00ff00ull);
    /* s_brev_b32 8 -> 0x10000000 (fpdiv's s_brev_b32 s3, 8). */
    assert_int_equal(run(sop(GCN_OP_S_BREV_B32, GCN_FMT_SOP1, 3,
                             GCN_OPR_ZERO + 8, 0)), MGS_OK);
    assert_int_equal(fx.w.sgpr[3], 0x10000000u);
    /* s_ff1_i32_b64 of 0 -> -1; of bit 40 -> 40. */
    fx.w.sgpr[4] = 0;
    fx.w.sgpr[5] = 0;
    assert_int_equal(run(sop(GCN_OP_S_FF1_I32_B64, GCN_FMT_SOP1, 6, 4, 0)),
                     MGS_OK);
    assert_int_equal(fx.w.sgpr[6], 0xffffffffu);
    fx.w.sgpr[5] = 1u << 8;
    assert_int_equal(run(sop(GCN_OP_S_FF1_I32_B64, GCN_FMT_SOP1, 6, 4, 0)),
                     MGS_OK);
    assert_int_equal(fx.w.sgpr[6], 40);
    /* s_bcnt1_i32_b64 */
    fx.w.sgpr[4] = 0xf0;
    assert_int_equal(run(sop(GCN_OP_S_BCNT1_I32_B64, GCN_FMT_SOP1, 7, 4, 0)),
                     MGS_OK);
    assert_int_equal(fx.w.sgpr[7], 5);
    /* s_getpc_b64 = code address of the next instruction. */
    fx.w.pc = 0x20;
    assert_int_equal(run(sop(GCN_OP_S_GETPC_B64, GCN_FMT_SOP1, 8, 0, 0)),
                     MGS_OK);
    assert_int_equal(fx.w.sgpr[8], 0x1700 + 0x24);
    /* s_setpc_b64 back to it branches to offset 0x24. */
    assert_int_equal(run(sop(GCN_OP_S_SETPC_B64, GCN_FMT_SOP1, 0, 8, 0)),
                     GCN_EXEC_BRANCHED);
    assert_int_equal(fx.w.pc, 0x24);
}

static void test_branches_and_status(void **state)
{
    (void)state;
    reset();
    gcn_inst in = sop(GCN_OP_S_CBRANCH_SCC0, GCN_FMT_SOPP, 0, 0, 0);
    in.simm16 = -3;
    fx.w.pc = 0x40;
    fx.w.scc = 1;
    assert_int_equal(run(in), MGS_OK); /* not taken */
    assert_int_equal(fx.w.pc, 0x40);
    fx.w.scc = 0;
    assert_int_equal(run(in), GCN_EXEC_BRANCHED);
    assert_int_equal(fx.w.pc, 0x40 + 4 - 12);
    in.op = GCN_OP_S_CBRANCH_EXECZ;
    in.simm16 = 25;
    fx.w.exec = 0;
    fx.w.pc = 0x40;
    assert_int_equal(run(in), GCN_EXEC_BRANCHED);
    assert_int_equal(fx.w.pc, 0x40 + 4 + 100);
    in.op = GCN_OP_S_CBRANCH_VCCNZ;
    fx.w.vcc = 0;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(run(sop(GCN_OP_S_WAITCNT, GCN_FMT_SOPP, 0, 0, 0)), MGS_OK);
    assert_int_equal(run(sop(GCN_OP_S_BARRIER, GCN_FMT_SOPP, 0, 0, 0)), MGS_OK);
    assert_true(fx.w.at_barrier);
    assert_false(fx.w.done);
    assert_int_equal(run(sop(GCN_OP_S_ENDPGM, GCN_FMT_SOPP, 0, 0, 0)),
                     GCN_EXEC_BRANCHED);
    assert_true(fx.w.done);
    /* An unmodelled SOPP is reported, not ignored. */
    assert_int_equal(run(sop(GCN_OP_S_TRAP, GCN_FMT_SOPP, 0, 0, 0)),
                     MGS_EUNSUPPORTED);
    /* s_trap 2 (llvm.trap: a failed device assert) is an assertion;
    ** the debugger's s_trap 3 stays unsupported. */
    gcn_inst trap = sop(GCN_OP_S_TRAP, GCN_FMT_SOPP, 0, 0, 0);
    trap.simm16 = 2;
    assert_int_equal(run(trap), MGS_EASSERT);
    assert_non_null(strstr(mgs_error_msg(), "device-side assertion"));
    trap.simm16 = 3;
    assert_int_equal(run(trap), MGS_EUNSUPPORTED);
}

static gcn_inst smem(gcn_op op, unsigned sdata, unsigned sbase, uint32_t off)
{
    gcn_inst in = sop(op, GCN_FMT_SMEM, 0, 0, 0);
    in.size = 8;
    in.data0 = (uint16_t)sdata;
    in.addr = (uint16_t)sbase;
    in.imm = 1;
    in.offset = off;
    return in;
}

static void test_smem(void **state)
{
    (void)state;
    reset();
    for (int i = 0; i < 64; i++) {
        uint32_t v = 0x100 + (uint32_t)i;
        memcpy(fx.mem.bytes + 4 * i, &v, 4);
    }
    fx.w.sgpr[4] = FAKE_BASE;
    fx.w.sgpr[5] = 0;
    assert_int_equal(run(smem(GCN_OP_S_LOAD_DWORDX4, 8, 4, 0x10)), MGS_OK);
    assert_int_equal(fx.w.sgpr[8], 0x104);
    assert_int_equal(fx.w.sgpr[11], 0x107);
    /* soffset form: offset from an SGPR. */
    gcn_inst in = smem(GCN_OP_S_LOAD_DWORD, 12, 4, 0);
    in.imm = 0;
    in.soffset = 13;
    fx.w.sgpr[13] = 0x40;
    assert_int_equal(run(in), MGS_OK);
    assert_int_equal(fx.w.sgpr[12], 0x110);
    /* s_load_dwordx16 into s[16:31]. */
    assert_int_equal(run(smem(GCN_OP_S_LOAD_DWORDX16, 16, 4, 0)), MGS_OK);
    assert_int_equal(fx.w.sgpr[31], 0x10f);
    /* s_store_dword then load back. */
    fx.w.sgpr[40] = 0xdeadbeefu;
    assert_int_equal(run(smem(GCN_OP_S_STORE_DWORD, 40, 4, 0x80)), MGS_OK);
    assert_int_equal(run(smem(GCN_OP_S_LOAD_DWORD, 41, 4, 0x80)), MGS_OK);
    assert_int_equal(fx.w.sgpr[41], 0xdeadbeefu);
    /* s_buffer_load takes the base from a V# (bits 47:0). */
    fx.w.sgpr[44] = FAKE_BASE;
    fx.w.sgpr[45] = 0x00040000u; /* stride bits above the base */
    fx.w.sgpr[46] = 256;
    fx.w.sgpr[47] = 0;
    assert_int_equal(run(smem(GCN_OP_S_BUFFER_LOAD_DWORD, 48, 44, 8)), MGS_OK);
    assert_int_equal(fx.w.sgpr[48], 0x102);
    /* A fault propagates. */
    assert_int_equal(run(smem(GCN_OP_S_LOAD_DWORD, 12, 4, 0x1000)), MGS_EFAULT);
    /* Cache controls are accepted. */
    assert_int_equal(run(smem(GCN_OP_S_DCACHE_WB, 0, 0, 0)), MGS_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_carry_chain),
        cmocka_unit_test(test_logic_shift_bfe),
        cmocka_unit_test(test_sopk_and_sopc),
        cmocka_unit_test(test_sop1),
        cmocka_unit_test(test_branches_and_status),
        cmocka_unit_test(test_smem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
