/*
** The compute unit timing model (src/gpu/cu*.c) against a fixed-latency
** memory (cu_testbed.h): a compiled kernel (vecadd.hsaco) computes the
** right results; a chain of K dependent VALU instructions takes about 4K
** cycles and four waves on four SIMDs run in parallel; s_memtime reads the
** CU's cycle; s_waitcnt waits for
** the memory latency; s_barrier holds waves until the slowest arrives;
** faults and unsupported instructions end the work-group with a message;
** configuration validation and the resource table.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gcn3/codeobj.h"
#include "workloads/workload.h"

#include "cu_testbed.h"

/* ---- vecadd.hsaco ---- */

static void run_vecadd_cfg(const cu_config *cfg_in, uint32_t n,
                           uint32_t block, uint64_t latency)
{
    char path[512];
    wl_kernel_path("vecadd.hsaco", path, sizeof path);
    gcn_codeobj *co = NULL;
    assert_int_equal(gcn_codeobj_load_file(path, &co), MGS_OK);
    const gcn_kernel *k = gcn_codeobj_find(co, "vecadd");
    assert_non_null(k);

    cu_config cfg = *cfg_in;
    testbed tb;
    tb_init(&tb, &cfg, latency);
    assert_int_equal(gcn_emu_program_init(&tb.prog, k), MGS_OK);

    const uint64_t dispatch = TB_MEM_BASE, kernarg = TB_MEM_BASE + 0x100;
    const uint64_t a = TB_MEM_BASE + 0x1000, b = a + 0x10000, c = b + 0x10000;
    uint8_t *pkt = tb_ptr(&tb, dispatch);
    uint16_t wgx = (uint16_t)block;
    memcpy(pkt + GCN_PKT_WG_SIZE_X, &wgx, 2);
    uint8_t *ka = tb_ptr(&tb, kernarg);
    memcpy(ka + 0, &a, 8);
    memcpy(ka + 8, &b, 8);
    memcpy(ka + 16, &c, 8);
    memcpy(ka + 24, &n, 4);
    float *fa = (float *)tb_ptr(&tb, a), *fb = (float *)tb_ptr(&tb, b);
    float *fc = (float *)tb_ptr(&tb, c);
    for (uint32_t i = 0; i < n + 16; i++) {
        fa[i] = (float)i * 0.5f;
        fb[i] = (float)(3 * i) + 1.0f;
        fc[i] = -1.0f;
    }
    /* HIP launches whole work-groups: the grid is rounded up to a multiple
    ** of the block and the kernel checks i < n. */
    uint32_t grid = (n + block - 1) / block * block;
    memcpy(pkt + GCN_PKT_GRID_SIZE_X, &grid, 4);
    tb_launch(&tb, grid, block, 0, kernarg, dispatch);

    int rc = tb_run(&tb);
    if (rc != MGS_OK) {
        print_error("%s\n", mgs_error_msg());
        eng_dump(tb.eng, stderr);
    }
    assert_int_equal(rc, MGS_OK);
    assert_int_equal(tb.cp.done, tb.cp.nmsgs);
    for (uint32_t g = 0; g < tb.cp.nmsgs; g++)
        assert_int_equal(tb.cp.status[g], MGS_OK);
    for (uint32_t i = 0; i < n; i++)
    for (uint32_t i = 0; i < n; i++)
        assert_true(fc[i] == fa[i] + fb[i]);
    for (uint32_t i = n; i < n + 16; i++)
        assert_true(fc[i] == -1.0f); /* lanes past n stay inactive */
    /* 33 instructions per wave on the path that stores (vecadd listing);
    ** every wave has an active lane for the sizes used here. */
    uint32_t waves = grid / 64;
    assert_int_equal(tb.cp.wf_insts, (uint64_t)waves * 33);
    assert_int_equal(cu_wf_insts(tb.cu), (uint64_t)waves * 33);
    assert_int_equal((uint64_t)stat_of(&tb, "vmem_insts"), waves * 3);
    assert_int_equal((uint64_t)stat_of(&tb, "smem_insts"), waves * 5);
    /* A full wave's dword load is 4 line requests (64 lanes x 4 B). */
    assert_true(stat_of(&tb, "vmem_reqs_per_inst.max") ==
                (cfg.vmem_line == 64 ? 4.0 : 8.0));
    assert_int_equal(cu_resident_wgs(tb.cu), 0);
    tb_fini(&tb);
    gcn_codeobj_free(co);
}

static void run_vecadd(uint32_t n, uint32_t block, uint64_t latency)
{
    cu_config cfg;
    cu_config_default(&cfg);
    run_vecadd_cfg(&cfg, n, block, latency);
}

static void test_vecadd_results(void **state)
{
    (void)state;
    run_vecadd(1000, 256, 20); /* 4 work-groups, the last one partial */
    run_vecadd(3000, 64, 5);   /* more work-groups than fit at once */
}

/* Every queue and limit at its minimum: slower, same results, no hang. */
static void test_tiny_buffers(void **state)
{
    (void)state;
    cu_config cfg;
    cu_config_default(&cfg);
    cfg.vmem_queue = 1;
    cfg.vmem_max_inflight = 1;
    cfg.smem_max_inflight = 1;
    cfg.fetch_max_inflight = 1;
    cfg.mem_inst_max = 2;
    cfg.ctrl_buffer = 1;
    cfg.mem_buffer = 1;
    cfg.inst_buf_bytes = 64; /* one line cannot hold a straddling inst */
    assert_int_equal(cu_config_validate(&cfg), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "cu.inst_buf_bytes"));
    cfg.inst_buf_bytes = 128;
    cfg.vmem_line = 32;
    cfg.wf_slots_per_simd = 1;
    assert_int_equal(cu_config_validate(&cfg), MGS_OK);
    run_vecadd_cfg(&cfg, 1000, 256, 7);
}

/* ---- mt.hsaco: LDS tile + s_barrier, 2-D work-groups of 4 waves ---- */

static void test_transpose_lds_barrier(void **state)
{
    (void)state;
    char path[512];
    wl_kernel_path("mt.hsaco", path, sizeof path);
    gcn_codeobj *co = NULL;
    assert_int_equal(gcn_codeobj_load_file(path, &co), MGS_OK);
    const gcn_kernel *k = gcn_codeobj_find(co, "mt");
    assert_non_null(k);
    cu_config cfg;
    cu_config_default(&cfg);
    testbed tb;
    tb_init(&tb, &cfg, 30);
    assert_int_equal(gcn_emu_program_init(&tb.prog, k), MGS_OK);
    const uint32_t rows = 40, cols = 56; /* partial edge tiles */
    const uint64_t kernarg = TB_MEM_BASE + 0x100;
    const uint64_t in = TB_MEM_BASE + 0x1000, out = in + 0x4000;
    uint8_t *ka = tb_ptr(&tb, kernarg);
    memcpy(ka + 0, &in, 8);
    memcpy(ka + 8, &out, 8);
    memcpy(ka + 16, &rows, 4);
    memcpy(ka + 20, &cols, 4);
    memcpy(ka + 24, &rows, 4); /* ld_out */
    uint32_t *src = (uint32_t *)tb_ptr(&tb, in);
    uint32_t *dst = (uint32_t *)tb_ptr(&tb, out);
    for (uint32_t i = 0; i < rows * cols; i++)
        src[i] = 0xabc00000u + i;
    tb_launch2(&tb, 64, 48, 16, 16, k->group_segment_size, kernarg, 0);
    assert_int_equal(tb_run(&tb), MGS_OK);
    assert_int_equal(tb.cp.done, 12);
    for (uint32_t g = 0; g < 12; g++)
        assert_int_equal(tb.cp.status[g], MGS_OK);
    for (uint32_t y = 0; y < rows; y++)
        for (uint32_t x = 0; x < cols; x++)
            assert_int_equal(dst[x * rows + y], src[y * cols + x]);
    /* Waves whose lanes are all outside the matrix skip a DS op. */
    assert_true(stat_of(&tb, "lds_insts") >= 12 * 4);
    assert_true(stat_of(&tb, "stall_barrier") > 0);
    tb_fini(&tb);
    gcn_codeobj_free(co);
}

/* ---- ALU chain: 4 cycles per dependent VALU instruction ---- */

static uint64_t run_chain_at(uint32_t k, uint32_t waves, uint64_t start)
{
    cu_config cfg;
    cu_config_default(&cfg);
    return tb_run_repeated(&cfg, V_ADD_F32_V5_V5_V5, k, waves, start);
}

static uint64_t run_chain(uint32_t k, uint32_t waves)
{
    return run_chain_at(k, waves, 0);
}

/* A work-group arriving on any cycle of the 4-cycle SIMD rotation starts:
** the CU, asleep, must wake for the wave's SIMD's fetch turn. */
static void test_start_on_every_simd_turn(void **state)
{
    (void)state;
    for (uint64_t start = 0; start < 8; start++) {
        uint64_t t = run_chain_at(40, 1, start);
        assert_true(t >= start + 160 && t <= start + 160 + 40);
    }
}

static void test_alu_chain_4_cycles_each(void **state)
{
    (void)state;
    const uint32_t k = 1000;
    uint64_t t1 = run_chain(k, 1);
    /* Tolerance: +2 % + 40 cycles for dispatch, the first fetch and the
    ** CP round trip. */
    assert_true(t1 >= 4 * k);
    assert_true(t1 <= 4 * k + 4 * k / 50 + 40);
    /* Four waves land on the four SIMDs and run side by side. */
    uint64_t t4 = run_chain(k, 4);
    assert_true(t4 <= t1 + 8);
    /* Eight waves share the SIMDs two by two: twice the time. */
    uint64_t t8 = run_chain(k, 8);
    print_message("ALU chain of %u: 1 wave %llu cycles, 4 waves %llu, "
                  "8 waves %llu\n", k, (unsigned long long)t1,
                  (unsigned long long)t4, (unsigned long long)t8);
    assert_true(t8 >= 2 * 4 * k);
    assert_true(t8 <= 2 * (4 * k + 4 * k / 50 + 40));
}

/* s_memtime reads the CU's cycle: two reads around a chain of k
** dependent VALU instructions differ by about 4k. */
static void test_memtime_counts_cycles(void **state)
{
    (void)state;
    enum { K = 50 };
    static uint32_t code[K + 16];
    uint32_t n = 0;
    code[n++] = 0xc0900000u; code[n++] = 0; /* s_memtime s[0:1] */
    for (uint32_t i = 0; i < K; i++)
        code[n++] = V_ADD_F32_V5_V5_V5;
    code[n++] = 0xc0900080u; code[n++] = 0; /* s_memtime s[2:3] */
    code[n++] = 0x80840002u;                 /* s_sub_u32 s4, s2, s0 */
    code[n++] = 0x7e040204u;                 /* v_mov_b32 v2, s4 */
    code[n++] = V_MOV_V0_LIT;
    code[n++] = (uint32_t)TB_MEM_BASE;
    code[n++] = V_MOV_V1_0;
    code[n++] = 0xdc700000u;
    code[n++] = 0x00000200u;                 /* flat_store_dword v[0:1], v2 */
    code[n++] = S_ENDPGM;
    cu_config cfg;
    cu_config_default(&cfg);
    testbed tb;
    tb_init(&tb, &cfg, 5);
    tb_hand_kernel(&tb, code, n, 8);
    tb_launch(&tb, 64, 64, 0, 0, 0);
    assert_int_equal(tb_run(&tb), MGS_OK);
    assert_int_equal(tb.cp.status[0], MGS_OK);
    uint32_t dt;
    memcpy(&dt, tb_ptr(&tb, TB_MEM_BASE), 4);
    assert_true(dt >= 4 * K && dt <= 4 * K + 8);
    tb_fini(&tb);
}

/* ---- s_waitcnt waits for memory ---- */

static uint64_t run_load_store(uint64_t latency, bool wait, uint32_t *out)
{
    static const uint32_t with_wait[] = {
        V_MOV_V0_LIT, (uint32_t)TB_MEM_BASE, V_MOV_V1_0, FLAT_LOAD_V2_V01,
        S_WAITCNT_VM0, FLAT_STORE_V01_V2 /* at +0 again: word 0 */, S_ENDPGM};
    static const uint32_t no_wait[] = {
        V_MOV_V0_LIT, (uint32_t)TB_MEM_BASE, V_MOV_V1_0, FLAT_LOAD_V2_V01,
        S_NOP0, FLAT_STORE_V01_V2, S_ENDPGM};
    (void)no_wait;
    cu_config cfg;
    cu_config_default(&cfg);
    testbed tb;
    tb_init(&tb, &cfg, latency);
    /* The store writes the loaded word back to memory + 4 via a second
    ** address: use the same address; the value tells whether the load
    ** completed before the store read its data register. */
    tb_hand_kernel(&tb, wait ? with_wait : no_wait,
                   sizeof with_wait / sizeof with_wait[0], 8);
    uint32_t v = 0x12345678;
    memcpy(tb_ptr(&tb, TB_MEM_BASE), &v, 4);
    tb_launch(&tb, 64, 64, 0, 0, 0);
    assert_int_equal(tb_run(&tb), MGS_OK);
    assert_int_equal(tb.cp.status[0], MGS_OK);
    uint64_t first_write = tb.mem.first_write[0];
    memcpy(out, tb_ptr(&tb, TB_MEM_BASE), 4);
    tb_fini(&tb);
    return first_write;
}

static void test_waitcnt_waits_for_memory(void **state)
{
    (void)state;
    uint32_t v;
    uint64_t w100 = run_load_store(100, true, &v);
    assert_int_equal(v, 0x12345678);
    uint64_t w300 = run_load_store(300, true, &v);
    assert_int_equal(v, 0x12345678);
    /* The store is written after three memory latencies in a row: the
    ** instruction fetch, the load (s_waitcnt holds the store until its
    ** data is back) and the store itself. */
    assert_true(w300 - w100 >= 3 * 200 - 2 && w300 - w100 <= 3 * 200 + 2);
    /* Without s_waitcnt the store issues right behind the load and the
    ** load's value arrives only after the store read v2 (still 0). */
    uint64_t n100 = run_load_store(100, false, &v);
    print_message("store written at cycle %llu (latency 100), %llu (300), "
                  "%llu (100, no s_waitcnt)\n", (unsigned long long)w100,
                  (unsigned long long)w300, (unsigned long long)n100);
    assert_int_equal(v, 0);
    assert_true(n100 + 90 < w100);
}

/* ---- barrier ---- */

static void run_barrier(bool barrier, uint32_t k, uint64_t *first_other,
                        uint64_t *wave0)
{
    static uint32_t code[600];
    uint32_t n = 0;
    code[n++] = V_READFIRSTLANE_S0_V0;
    code[n++] = S_CMP_EQ_U32_S0_0;
    code[n++] = S_CBRANCH_SCC0(k); /* waves 1..3 skip the chain */
    for (uint32_t i = 0; i < k; i++)
        code[n++] = V_ADD_F32_V5_V5_V5;
    code[n++] = barrier ? S_BARRIER : S_NOP0;
    code[n++] = V_LSHLREV_V1_2_V0;
    code[n++] = V_ADD_U32_V1_LIT_V1;
    code[n++] = (uint32_t)TB_MEM_BASE;
    code[n++] = V_MOV_V2_0;
    code[n++] = V_MOV_V3_V0;
    code[n++] = 0xdc700000u;
    code[n++] = 0x00000301u; /* flat_store_dword v[1:2], v3 */
    code[n++] = S_ENDPGM;
    cu_config cfg;
    cu_config_default(&cfg);
    testbed tb;
    tb_init(&tb, &cfg, 10);
    tb_hand_kernel(&tb, code, n, 8);
    tb_launch(&tb, 256, 256, 0, 0, 0);
    assert_int_equal(tb_run(&tb), MGS_OK);
    assert_int_equal(tb.cp.status[0], MGS_OK);
    const uint32_t *m = (const uint32_t *)tb_ptr(&tb, TB_MEM_BASE);
    for (uint32_t i = 0; i < 256; i++)
        assert_int_equal(m[i], i);
    *wave0 = tb.mem.first_write[0];
    *first_other = UINT64_MAX;
    for (uint32_t i = 64; i < 256; i++)
        if (tb.mem.first_write[i] < *first_other)
            *first_other = tb.mem.first_write[i];
    if (barrier)
        assert_true(stat_of(&tb, "stall_barrier") >= 3.0 * 4 * k * 0.9);
    tb_fini(&tb);
}

static void test_barrier_synchronises_waves(void **state)
{
    (void)state;
    const uint32_t k = 500;
    uint64_t other, wave0;
    run_barrier(true, k, &other, &wave0);
    /* Waves 1..3 store only after wave 0's 500-instruction chain. */
    assert_true(other >= 4 * k);
    /* Wave 0 reaches its store last: behind the others' stores in the
    ** vector memory unit (4 requests each at 1 per cycle). */
    assert_true(wave0 <= other + 40);
    run_barrier(false, k, &other, &wave0);
    assert_true(other < 4 * k / 4); /* without the barrier: long before */
}

/* ---- errors ---- */

static void test_fault_ends_workgroup(void **state)
{
    (void)state;
    static const uint32_t code[] = {
        V_MOV_V0_LIT, 0x40, V_MOV_V1_0, /* address 0x40: unmapped */
        FLAT_LOAD_V2_V01, S_WAITCNT_VM0, S_ENDPGM};
    cu_config cfg;
    cu_config_default(&cfg);
    testbed tb;
    tb_init(&tb, &cfg, 10);
    tb_hand_kernel(&tb, code, sizeof code / 4, 8);
    tb_launch(&tb, 128, 128, 0, 0, 0);
    assert_int_equal(tb_run(&tb), MGS_OK);
    assert_int_equal(tb.cp.done, 1);
    assert_int_equal(tb.cp.status[0], MGS_EFAULT);
    assert_non_null(strstr(mgs_error_msg(), "kernel handmade wave (0,0,0)/"));
    assert_non_null(strstr(mgs_error_msg(), "pc 0x100c"));
    assert_non_null(strstr(mgs_error_msg(), "memory fault at address 0x40"));
    tb_fini(&tb);
}

static void test_unsupported_instruction(void **state)
{
    (void)state;
    /* An EXP instruction (graphics export) is not modelled. */
    static const uint32_t code[] = {V_MOV_V1_0, 0xc4000000u, 0x00000000u,
                                    S_ENDPGM};
    cu_config cfg;
    cu_config_default(&cfg);
    testbed tb;
    tb_init(&tb, &cfg, 10);
    tb_hand_kernel(&tb, code, sizeof code / 4, 8);
    tb_launch(&tb, 64, 64, 0, 0, 0);
    assert_int_equal(tb_run(&tb), MGS_OK);
    assert_int_equal(tb.cp.status[0], MGS_EUNSUPPORTED);
    assert_non_null(strstr(mgs_error_msg(), "unsupported instruction at pc "
                                            "0x1004"));
    tb_fini(&tb);
}

/* A work-group the CU can never hold, or an inconsistent launch, is
** answered at once with an error instead of waiting forever. */
static void test_impossible_workgroups(void **state)
{
    (void)state;
    static const uint32_t code[] = {S_ENDPGM};
    cu_config cfg;
    cu_config_default(&cfg);
    testbed tb;
    tb_init(&tb, &cfg, 10);
    tb_hand_kernel(&tb, code, 1, 8);
    tb_launch(&tb, 128, 128, 0, 0, 0);
    tb.launch.vgprs_per_wave = 300; /* more than a SIMD has */
    assert_int_equal(tb_run(&tb), MGS_OK);
    assert_int_equal(tb.cp.status[0], MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "does not fit CU[0]"));
    tb_fini(&tb);

    tb_init(&tb, &cfg, 10);
    tb_hand_kernel(&tb, code, 1, 8);
    tb_launch(&tb, 128, 128, 0, 0, 0);
    tb.launch.waves_per_group = 1; /* the group has 2 */
    assert_int_equal(tb_run(&tb), MGS_OK);
    assert_int_equal(tb.cp.status[0], MGS_EINTERNAL);
    assert_non_null(strstr(mgs_error_msg(), "has 2 waves"));
    tb_fini(&tb);
}

/* ---- configuration and resources ---- */

static void test_config_validate(void **state)
{
    (void)state;
    cu_config c;
    cu_config_default(&c);
    assert_int_equal(cu_config_validate(&c), MGS_OK);
    c.num_simds = 0;
    assert_int_equal(cu_config_validate(&c), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "cu.num_simds"));
    cu_config_default(&c);
    c.vmem_line = 48;
    assert_int_equal(cu_config_validate(&c), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "cu.vmem_line"));
}

static void test_resource_table(void **state)
{
    (void)state;
    cu_config cfg;
    cu_config_default(&cfg);
    cu_res r;
    cu_res_init(&r, &cfg);
    gpu_launch l;
    memset(&l, 0, sizeof l);
    l.waves_per_group = 4;
    l.vgprs_per_wave = 64;   /* 4 waves per SIMD by VGPRs */
    l.sgprs_per_wave = 32;
    l.lds_per_group = 16384; /* 4 groups by LDS */
    uint8_t simd[GCN_EMU_MAX_WAVES];
    int fits = 0;
    while (cu_res_reserve(&r, &l, simd))
        fits++;
    assert_int_equal(fits, 4); /* LDS and VGPRs both allow 4 */
    assert_int_equal(simd[0], 0);
    assert_int_equal(simd[3], 3);
    cu_res_release(&r, &l, simd);
    assert_true(cu_res_reserve(&r, &l, simd));
    l.waves_per_group = 16;
    l.vgprs_per_wave = 128; /* 2 per SIMD: 8 < 16 waves */
    l.lds_per_group = 0;
    assert_false(cu_res_fits_empty(&cfg, &l));
    l.vgprs_per_wave = 64;
    assert_true(cu_res_fits_empty(&cfg, &l));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vecadd_results),
        cmocka_unit_test(test_tiny_buffers),
        cmocka_unit_test(test_transpose_lds_barrier),
        cmocka_unit_test(test_alu_chain_4_cycles_each),
        cmocka_unit_test(test_start_on_every_simd_turn),
        cmocka_unit_test(test_memtime_counts_cycles),
        cmocka_unit_test(test_waitcnt_waits_for_memory),
        cmocka_unit_test(test_barrier_synchronises_waves),
        cmocka_unit_test(test_fault_ends_workgroup),
        cmocka_unit_test(test_unsupported_instruction),
        cmocka_unit_test(test_impossible_workgroups),
        cmocka_unit_test(test_config_validate),
        cmocka_unit_test(test_resource_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
