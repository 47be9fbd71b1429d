/*
** The functional executor (src/gcn3/emu.c): initial wave state for a
** hand-made kernel descriptor and for a real code object (vecadd.hsaco),
** partial work-groups, barriers, and the error reports for unsupported
** instructions and for running off the end of the code.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gcn3/codeobj.h"
#include "gcn3/emu.h"
#include "mgsim/errors.h"
#include "workloads/workload.h"

static int no_read(void *m, uint64_t a, void *d, size_t n)
{
    (void)m; (void)d; (void)n;
    return mgs_error_set(MGS_EFAULT, "memory fault at address 0x%llx",
                         (unsigned long long)a);
}

static int no_write(void *m, uint64_t a, const void *s, size_t n)
{
    (void)m; (void)s; (void)n;
    return mgs_error_set(MGS_EFAULT, "memory fault at address 0x%llx",
                         (unsigned long long)a);
}

static const gcn_mem_ops no_mem = {.read = no_read, .write = no_write};

/* A kernel descriptor asking for every initial SGPR. */
static gcn_kernel full_kernel(const uint32_t *code, size_t nwords)
{
    gcn_kernel k;
    memset(&k, 0, sizeof k);
    strcpy(k.name, "handmade");
    k.code = (const uint8_t *)code;
    k.code_size = nwords * 4;
    k.code_vaddr = 0x1700;
    k.vgpr_count = 8;
    k.sgpr_count = 32;
    k.sgpr_private_segment_buffer = true;
    k.sgpr_dispatch_ptr = true;
    k.sgpr_queue_ptr = true;
    k.sgpr_kernarg_segment_ptr = true;
    k.sgpr_dispatch_id = true;
    k.sgpr_flat_scratch_init = true;
    k.sgpr_private_segment_size = true;
    k.user_sgpr_count = 15;
    k.sgpr_workgroup_id_x = k.sgpr_workgroup_id_y = k.sgpr_workgroup_id_z =
        true;
    k.sgpr_workgroup_info = true;
    k.sgpr_private_segment_wave_offset = true;
    k.vgpr_workitem_id = 2;
    k.private_segment_size = 16;
    return k;
}

static gcn_emu_launch launch_of(const gcn_emu_program *p, uint32_t gx,
                                uint32_t gy, uint32_t gz, uint32_t bx,
                                uint32_t by, uint32_t bz)
{
    gcn_emu_launch l = {
        .prog = p, .grid = {gx, gy, gz}, .block = {bx, by, bz},
        .lds_bytes = 64, .kernarg_va = 0x200000000ull,
        .dispatch_va = 0x300000000ull, .queue_va = 0x400000000ull,
        .dispatch_id = 7, .scratch_va = 0x500000000ull, .private_size = 16,
        .mem_ops = &no_mem, .mem = NULL};
    return l;
}

static void test_initial_state_all_sgprs(void **state)
{
    (void)state;
    static const uint32_t code[] = {0xbf810000u}; /* s_endpgm */
    gcn_kernel k = full_kernel(code, 1);
    gcn_emu_program p;
    assert_int_equal(gcn_emu_program_init(&p, &k), MGS_OK);
    /* 3-D grid 40x6x2 in 8x4x2 groups: group (4,1,0) is 8 wide, 2 tall
    ** (rows 4..5), 2 deep = 32 work-items in one wave. */
    gcn_emu_launch l = launch_of(&p, 40, 6, 2, 8, 4, 2);
    gcn_emu e;
    assert_int_equal(gcn_emu_init(&e, &l), MGS_OK);
    uint32_t id[3] = {4, 1, 0};
    gcn_emu_start_workgroup(&e, id);
    assert_int_equal(e.wg.nwaves, 1);
    assert_int_equal(e.wg.size[1], 2);
    const gcn_wave *w = &e.waves[0];
    /* s[0:3] private segment buffer: base = scratch, swizzled. */
    assert_int_equal(w->sgpr[0], 0);
    assert_int_equal(w->sgpr[1] & 0xffff, 5);
    assert_int_equal((w->sgpr[1] >> 16) & 0x3fff, 16);
    assert_true(w->sgpr[1] >> 31);
    assert_true((w->sgpr[3] >> 23) & 1); /* ADD_TID */
    /* dispatch ptr, queue ptr, kernarg ptr, dispatch id */
    assert_int_equal(w->sgpr[4], 0);
    assert_int_equal(w->sgpr[5], 3);
    assert_int_equal(w->sgpr[7], 4);
    assert_int_equal(w->sgpr[9], 2);
    assert_int_equal(w->sgpr[10], 7);
    /* flat scratch init (offset 0, size 16), private segment size */
    assert_int_equal(w->sgpr[12], 0);
    assert_int_equal(w->sgpr[13], 16);
    assert_int_equal(w->sgpr[14], 16);
    /* system SGPRs from s15: wg id x, y, z, info, wave offset */
    assert_int_equal(w->sgpr[15], 4);
    assert_int_equal(w->sgpr[16], 1);
    assert_int_equal(w->sgpr[17], 0);
    assert_int_equal(w->sgpr[19], 0);
    /* 32 active lanes; v0/v1/v2 = x/y/z within the (partial) group. */
    assert_true(w->exec == 0xffffffffull);
    const uint32_t *vx = w->vgpr, *vy = w->vgpr + 64, *vz = w->vgpr + 128;
    assert_int_equal(vx[9], 1);
    assert_int_equal(vy[9], 1);
    assert_int_equal(vz[9], 0);
    assert_int_equal(vx[31], 7);
    assert_int_equal(vy[31], 1);
    assert_int_equal(vz[31], 1);
    assert_int_equal(gcn_emu_finish_workgroup(&e), MGS_OK);
    assert_true(e.waves[0].done);
    assert_int_equal(e.wf_insts, 1);
    gcn_emu_destroy(&e);
    gcn_emu_program_destroy(&p);
}

static void test_partial_wave_and_offsets(void **state)
{
    (void)state;
    static const uint32_t code[] = {0xbf810000u};
    gcn_kernel k = full_kernel(code, 1);
    gcn_emu_program p;
    assert_int_equal(gcn_emu_program_init(&p, &k), MGS_OK);
    gcn_emu_launch l = launch_of(&p, 100, 1, 1, 100, 1, 1);
    gcn_emu e;
    assert_int_equal(gcn_emu_init(&e, &l), MGS_OK);
    uint32_t id[3] = {0, 0, 0};
    gcn_emu_start_workgroup(&e, id);
    assert_int_equal(e.wg.nwaves, 2);
    assert_true(e.waves[0].exec == ~0ull);
    assert_true(e.waves[1].exec == (1ull << 36) - 1);
    assert_int_equal(e.waves[1].vgpr[0], 64);
    assert_int_equal(e.waves[1].vgpr[35], 99);
    /* Private segment wave offset: 64 lanes x 16 B per wave. */
    assert_int_equal(e.waves[1].sgpr[19], 1024);
    assert_int_equal(e.waves[1].sgpr[GCN_OPR_FLAT_SCR_HI], 1024 >> 8);
    assert_int_equal(gcn_emu_finish_workgroup(&e), MGS_OK);
    assert_int_equal(e.wavefronts, 2);
    gcn_emu_destroy(&e);
    gcn_emu_program_destroy(&p);
}

static void test_barrier(void **state)
{
    (void)state;
    /* s_barrier; s_barrier; s_endpgm for 4 waves. */
    static const uint32_t code[] = {0xbf8a0000u, 0xbf8a0000u, 0xbf810000u};
    gcn_kernel k = full_kernel(code, 3);
    gcn_emu_program p;
    assert_int_equal(gcn_emu_program_init(&p, &k), MGS_OK);
    gcn_emu_launch l = launch_of(&p, 256, 1, 1, 256, 1, 1);
    gcn_emu e;
    assert_int_equal(gcn_emu_init(&e, &l), MGS_OK);
    uint32_t id[3] = {0, 0, 0};
    assert_int_equal(gcn_emu_run_workgroup(&e, id), MGS_OK);
    for (int i = 0; i < 4; i++) {
        assert_true(e.waves[i].done);
        assert_false(e.waves[i].at_barrier);
        assert_int_equal(e.waves[i].insts, 3);
    }
    assert_int_equal(e.wf_insts, 12);
    gcn_emu_destroy(&e);
    gcn_emu_program_destroy(&p);
}

static void test_unsupported_and_runaway(void **state)
{
    (void)state;
    /* s_nop 0; image_load v[0:3], v[0:3], s[0:7] dmask:0xf (MIMG). */
    static const uint32_t code[] = {0xbf800000u, 0xf0000f00u, 0x00000000u};
    gcn_kernel k = full_kernel(code, 3);
    gcn_emu_program p;
    assert_int_equal(gcn_emu_program_init(&p, &k), MGS_OK);
    gcn_emu_launch l = launch_of(&p, 64, 1, 1, 64, 1, 1);
    gcn_emu e;
    assert_int_equal(gcn_emu_init(&e, &l), MGS_OK);
    uint32_t id[3] = {0, 0, 0};
    assert_int_equal(gcn_emu_run_workgroup(&e, id), MGS_EUNSUPPORTED);
    const char *msg = mgs_error_msg();
    assert_non_null(strstr(msg, "kernel handmade: unsupported instruction "
                                "at pc 0x1704: f0000f00 00000000"));
    assert_non_null(strstr(msg, "image_load"));
    gcn_emu_destroy(&e);
    gcn_emu_program_destroy(&p);

    /* No s_endpgm: the wave runs off its code. */
    static const uint32_t nops[] = {0xbf800000u, 0xbf800000u};
    k = full_kernel(nops, 2);
    assert_int_equal(gcn_emu_program_init(&p, &k), MGS_OK);
    l = launch_of(&p, 64, 1, 1, 64, 1, 1);
    assert_int_equal(gcn_emu_init(&e, &l), MGS_OK);
    assert_int_equal(gcn_emu_run_workgroup(&e, id), MGS_EUNSUPPORTED);
    assert_non_null(strstr(mgs_error_msg(), "pc 0x1708 is outside"));
    gcn_emu_destroy(&e);
    gcn_emu_program_destroy(&p);

    /* An endless loop (s_branch -1) is stopped by the wave budget. */
    static const uint32_t spin[] = {0xbf82ffffu};
    k = full_kernel(spin, 1);
    assert_int_equal(gcn_emu_program_init(&p, &k), MGS_OK);
    l = launch_of(&p, 64, 1, 1, 64, 1, 1);
    l.max_wave_insts = 1000;
    assert_int_equal(gcn_emu_init(&e, &l), MGS_OK);
    assert_int_equal(gcn_emu_run_workgroup(&e, id), MGS_EDEADLOCK);
    assert_non_null(strstr(mgs_error_msg(), "no progress after 1000 "
                                            "instructions"));
    assert_int_equal(e.wf_insts, 1000);
    gcn_emu_destroy(&e);
    gcn_emu_program_destroy(&p);

    /* Bad launch shapes are refused. */
    k = full_kernel(nops, 2);
    assert_int_equal(gcn_emu_program_init(&p, &k), MGS_OK);
    l = launch_of(&p, 64, 1, 1, 2048, 1, 1);
    assert_int_equal(gcn_emu_init(&e, &l), MGS_EINVAL);
    gcn_emu_program_destroy(&p);
}

/* The state a real kernel asks for: vecadd takes the dispatch pointer in
** s[4:5], the kernarg pointer in s[6:7] and the work-group id x in s8. */
static void test_initial_state_vecadd(void **state)
{
    (void)state;
    char path[4096];
    wl_kernel_path("vecadd.hsaco", path, sizeof path);
    gcn_codeobj *co = NULL;
    assert_int_equal(gcn_codeobj_load_file(path, &co), MGS_OK);
    const gcn_kernel *k = gcn_codeobj_find(co, "vecadd");
    assert_non_null(k);
    assert_true(k->sgpr_dispatch_ptr);
    assert_true(k->sgpr_kernarg_segment_ptr);
    assert_true(k->sgpr_workgroup_id_x);
    gcn_emu_program p;
    assert_int_equal(gcn_emu_program_init(&p, k), MGS_OK);
    gcn_emu_launch l = launch_of(&p, 1024, 1, 1, 256, 1, 1);
    l.scratch_va = 0;
    l.private_size = 0;
    gcn_emu e;
    assert_int_equal(gcn_emu_init(&e, &l), MGS_OK);
    uint32_t id[3] = {3, 0, 0};
    gcn_emu_start_workgroup(&e, id);
    unsigned s = k->sgpr_private_segment_buffer ? 4 : 0;
    const gcn_wave *w = &e.waves[2];
    assert_int_equal(w->sgpr[s], 0);          /* dispatch ptr lo */
    assert_int_equal(w->sgpr[s + 1], 3);      /* dispatch ptr hi */
    assert_int_equal(w->sgpr[s + 3], 2);      /* kernarg ptr hi */
    assert_int_equal(w->sgpr[k->user_sgpr_count], 3); /* wg id x */
    assert_int_equal(w->vgpr[5], 128 + 5);    /* v0 = work-item id */
    gcn_emu_destroy(&e);
    gcn_emu_program_destroy(&p);
    gcn_codeobj_free(co);
}

/* A register operand beyond the kernel's allocation (8 VGPRs, 32 SGPRs
** here) ends the wave with MGS_ESIM naming kernel, pc and operand, before
** any register or memory is touched (was: reads and writes outside the
** register file, heap-buffer-overflow under ASan). */
static void test_register_bounds(void **state)
{
    (void)state;
    static const struct {
        uint32_t w0, w1;
        const char *msg;
    } cases[] = {
        {0xdc500000u, 0xfe000000u, "destination v254 outside the 8 VGPRs"},
        {0xdc700000u, 0x0000fe00u, "store data v254 outside"},
        {0xdd050000u, 0x00000700u, "atomic data v[7:8] outside"},
        {0xd86c0000u, 0xfe000000u, "destination v254 outside"},
        {0xd81a0000u, 0x0000c800u, "data0 v200 outside"},
        {0xd8ee0100u, 0xfc000000u, "destination v[252:255] outside"},
        {0xe0501000u, 0x8000fe00u, "destination v254 outside"},
        {0xe0741000u, 0x80000700u, "store data v[7:8] outside"},
        {0xc00e0702u, 0x00000000u, "destination s[28:35] outside the 32 "
                                   "SGPRs"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t code[] = {cases[i].w0, cases[i].w1, 0xbf810000u};
        gcn_kernel k = full_kernel(code, 3);
        gcn_emu_program p;
        assert_int_equal(gcn_emu_program_init(&p, &k), MGS_OK);
        gcn_emu_launch l = launch_of(&p, 64, 1, 1, 64, 1, 1);
        gcn_emu e;
        assert_int_equal(gcn_emu_init(&e, &l), MGS_OK);
        uint32_t id[3] = {0, 0, 0};
        int rc = gcn_emu_run_workgroup(&e, id);
        if (rc != MGS_ESIM || !strstr(mgs_error_msg(), cases[i].msg))
            fail_msg("case %zu: rc %d, \"%s\"", i, rc, mgs_error_msg());
        assert_non_null(strstr(mgs_error_msg(), "kernel handmade"));
        assert_non_null(strstr(mgs_error_msg(), "pc 0x1700"));
        gcn_emu_destroy(&e);
        gcn_emu_program_destroy(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_initial_state_all_sgprs),
        cmocka_unit_test(test_partial_wave_and_offsets),
        cmocka_unit_test(test_barrier),
        cmocka_unit_test(test_unsupported_and_runaway),
        cmocka_unit_test(test_initial_state_vecadd),
        cmocka_unit_test(test_register_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
