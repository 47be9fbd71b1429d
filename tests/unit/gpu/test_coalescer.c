/*
** The coalescer (src/gpu/coalescer.c) and the two-phase memory semantics
** it consumes (src/gcn3/exec_mem_plan.c):
**   - request shapes: contiguous, strided, scattered with repeats, partial
**     EXEC, sub-dword, dwordx4, straddling a line, stores with byte masks
**     (highest lane wins), atomics one per lane;
**   - equivalence: for random FLAT loads, stores and atomics (global, LDS
**     and private apertures), the timing path (plan -> coalesce ->
**     requests served by a byte array -> fill -> complete) leaves the same
**     registers and memory as emu mode (gcn_exec_mem: plan -> functional
**     access -> complete).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcn3/decode.h"
#include "gcn3/emu_atomic.h"
#include "gcn3/exec.h"
#include "gcn3/exec_mem_plan.h"
#include "gpu/coalescer.h"
#include "mgsim/errors.h"

static cu_coal_req reqs[CU_COAL_MAX];

static void plan_load(gcn_mem_plan *p, unsigned elem_bytes, unsigned nelem)
{
    memset(p, 0, sizeof *p);
    p->kind = GCN_MEM_LOAD;
    p->elem_bytes = (uint8_t)elem_bytes;
    p->nelem = (uint8_t)nelem;
}

static void set_lane(gcn_mem_plan *p, unsigned lane, uint64_t a)
{
    p->mem_lanes |= 1ull << lane;
    for (unsigned e = 0; e < p->nelem; e++)
        p->addr[e][lane] = a + (uint64_t)e * p->elem_bytes;
}

static void test_contiguous(void **state)
{
    (void)state;
    gcn_mem_plan p;
    plan_load(&p, 4, 1);
    for (unsigned l = 0; l < 64; l++)
        set_lane(&p, l, 0x1000 + 4 * l);
    uint32_t n = cu_coalesce(&p, 64, reqs);
    assert_int_equal(n, 4);
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(reqs[i].line, 0x1000 + 64 * i);
        assert_true(reqs[i].mask == ~0ull);
        assert_true(reqs[i].lanes == 0xffffull << (16 * i));
        assert_int_equal(cu_coal_first(&reqs[i]), 0);
        assert_int_equal(cu_coal_size(&reqs[i]), 64);
    }
    /* 32-byte lines: twice as many. */
    assert_int_equal(cu_coalesce(&p, 32, reqs), 8);
}

static void test_strided_and_scattered(void **state)
{
    (void)state;
    gcn_mem_plan p;
    plan_load(&p, 4, 1);
    for (unsigned l = 0; l < 64; l++)
        set_lane(&p, l, 0x2000 + 64 * l + 8);
    assert_int_equal(cu_coalesce(&p, 64, reqs), 64);
    assert_int_equal(cu_coal_first(&reqs[5]), 8);
    assert_int_equal(cu_coal_size(&reqs[5]), 4);
    /* Scattered over three lines, with repeats, out of order. */
    plan_load(&p, 4, 1);
    static const uint64_t a[] = {0x3080, 0x3000, 0x3084, 0x3000, 0x3104,
                                 0x3088, 0x3100};
    for (unsigned l = 0; l < 7; l++)
        set_lane(&p, l, a[l]);
    uint32_t n = cu_coalesce(&p, 64, reqs);
    assert_int_equal(n, 3);
    assert_int_equal(reqs[0].line, 0x3080); /* order of first touch */
    assert_int_equal(reqs[1].line, 0x3000);
    assert_int_equal(reqs[2].line, 0x3100);
    assert_true(reqs[0].mask == 0xfffull);
    assert_true(reqs[0].lanes == ((1u << 0) | (1u << 2) | (1u << 5)));
    assert_true(reqs[1].mask == 0xfull);
    assert_true(reqs[2].mask == 0xffull);
}

static void test_partial_exec_and_subdword(void **state)
{
    (void)state;
    gcn_mem_plan p;
    plan_load(&p, 4, 1);
    for (unsigned l = 0; l < 10; l++)
        set_lane(&p, l, 0x4000 + 4 * l);
    assert_int_equal(cu_coalesce(&p, 64, reqs), 1);
    assert_int_equal(cu_coal_size(&reqs[0]), 40);
    /* 64 consecutive bytes: one line; 64 shorts: two. */
    plan_load(&p, 1, 1);
    for (unsigned l = 0; l < 64; l++)
        set_lane(&p, l, 0x5000 + l);
    assert_int_equal(cu_coalesce(&p, 64, reqs), 1);
    assert_true(reqs[0].mask == ~0ull);
    plan_load(&p, 2, 1);
    for (unsigned l = 0; l < 64; l++)
        set_lane(&p, l, 0x5000 + 2 * l);
    assert_int_equal(cu_coalesce(&p, 64, reqs), 2);
    /* dwordx4, lanes 16 B apart: 1 KiB = 16 lines, 4 lanes each. */
    plan_load(&p, 4, 4);
    for (unsigned l = 0; l < 64; l++)
        set_lane(&p, l, 0x6000 + 16 * l);
    assert_int_equal(cu_coalesce(&p, 64, reqs), 16);
    assert_true(reqs[3].lanes == 0xfull << 12);
    /* No active lane: nothing to send. */
    plan_load(&p, 4, 1);
    assert_int_equal(cu_coalesce(&p, 64, reqs), 0);
}

static void test_straddle_and_fill(void **state)
{
    (void)state;
    gcn_mem_plan p;
    plan_load(&p, 4, 1);
    set_lane(&p, 0, 0x703e); /* bytes 0x703e..0x7041 */
    assert_int_equal(cu_coalesce(&p, 64, reqs), 2);
    assert_int_equal(reqs[0].line, 0x7000);
    assert_int_equal(cu_coal_first(&reqs[0]), 62);
    assert_int_equal(cu_coal_size(&reqs[0]), 2);
    assert_int_equal(reqs[1].line, 0x7040);
    assert_int_equal(cu_coal_size(&reqs[1]), 2);
    const uint8_t lo[2] = {0x11, 0x22}, hi[2] = {0x33, 0x44};
    cu_coal_fill(&p, 0x7040, 2, hi); /* any order */
    cu_coal_fill(&p, 0x703e, 2, lo);
    assert_int_equal(p.data[0][0], 0x44332211u);
}

/* A response filled through the lanes of its request: only those lanes
** change, and together the requests fill what cu_coal_fill fills. */
static void test_fill_lanes(void **state)
{
    (void)state;
    gcn_mem_plan p, q;
    plan_load(&p, 4, 1);
    set_lane(&p, 0, 0x703e);  /* straddles 0x7000 / 0x7040 */
    set_lane(&p, 1, 0x7044);  /* line 0x7040 */
    set_lane(&p, 2, 0x7008);  /* line 0x7000 */
    set_lane(&p, 3, 0x7084);  /* line 0x7080 */
    q = p;
    assert_int_equal(cu_coalesce(&p, 64, reqs), 3);
    assert_true(reqs[0].lanes == 0x5);  /* 0x7000: lanes 0, 2 */
    assert_true(reqs[1].lanes == 0x3);  /* 0x7040: lanes 0, 1 */
    assert_true(reqs[2].lanes == 0x8);  /* 0x7080: lane 3 */
    uint8_t line[3][64];
    for (unsigned i = 0; i < sizeof line; i++)
        (&line[0][0])[i] = (uint8_t)(i * 7 + 1);
    cu_coal_fill_lanes(&p, reqs[1].lanes, 0x7040, 64, line[1]);
    assert_int_equal(p.data[0][2], 0);  /* lane 2 is not in that request */
    assert_int_equal(p.data[0][3], 0);
    assert_int_equal(p.data[0][1], (uint32_t)line[1][4] |
                                       (uint32_t)line[1][5] << 8 |
                                       (uint32_t)line[1][6] << 16 |
                                       (uint32_t)line[1][7] << 24);
    cu_coal_fill_lanes(&p, reqs[0].lanes, 0x7000, 64, line[0]);
    cu_coal_fill_lanes(&p, reqs[2].lanes, 0x7080, 64, line[2]);
    for (unsigned i = 0; i < 3; i++)
        cu_coal_fill(&q, 0x7000 + 64 * i, 64, line[i]);
    for (unsigned l = 0; l < 4; l++)
        assert_int_equal(p.data[0][l], q.data[0][l]);
    assert_int_equal(p.data[0][0], (uint32_t)line[0][62] |
                                       (uint32_t)line[0][63] << 8 |
                                       (uint32_t)line[1][0] << 16 |
                                       (uint32_t)line[1][1] << 24);
}

static void test_store_masks(void **state)
{
    (void)state;
    gcn_mem_plan p;
    memset(&p, 0, sizeof p);
    p.kind = GCN_MEM_STORE;
    p.elem_bytes = 1;
    p.nelem = 1;
    for (unsigned l = 0; l < 32; l++) {
        set_lane(&p, l, 0x8000 + 2 * l); /* every other byte */
        p.data[0][l] = 0xa0 + l;
    }
    set_lane(&p, 40, 0x8000); /* conflicts with lane 0: lane 40 wins */
    p.data[0][40] = 0x55;
    assert_int_equal(cu_coalesce(&p, 64, reqs), 1);
    assert_true(reqs[0].mask == 0x5555555555555555ull);
    assert_int_equal(reqs[0].data[0], 0x55);
    assert_int_equal(reqs[0].data[2], 0xa1);
    assert_int_equal(reqs[0].data[62], 0xa0 + 31);
}

static void test_atomics_one_per_lane(void **state)
{
    (void)state;
    gcn_mem_plan p;
    memset(&p, 0, sizeof p);
    p.kind = GCN_MEM_ATOMIC;
    p.elem_bytes = 4;
    p.nelem = 1;
    for (unsigned l = 0; l < 8; l++)
        set_lane(&p, l, 0x9000); /* all on one counter */
    assert_int_equal(cu_coalesce(&p, 64, reqs), 8);
    assert_int_equal(reqs[7].lane, 7);
    assert_true(reqs[7].mask == 0xfull);
    uint8_t old[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    cu_coal_fill_atomic(&p, 3, old);
    assert_int_equal(p.data[0][3], 0x04030201u);
}

/* ---- equivalence with the emulator ---- */

#define MEM_BASE 0x10000ull
#define MEM_SIZE 0x4000u

typedef struct bytes_mem {
    uint8_t b[MEM_SIZE];
} bytes_mem;

static int bm_read(void *m, uint64_t a, void *d, size_t n)
{
    bytes_mem *bm = m;
    if (a < MEM_BASE || a + n > MEM_BASE + MEM_SIZE)
        return mgs_error_set(MGS_EFAULT, "fault at 0x%llx",
                             (unsigned long long)a);
    memcpy(d, bm->b + (a - MEM_BASE), n);
    return MGS_OK;
}

static int bm_write(void *m, uint64_t a, const void *s, size_t n)
{
    bytes_mem *bm = m;
    if (a < MEM_BASE || a + n > MEM_BASE + MEM_SIZE)
        return mgs_error_set(MGS_EFAULT, "fault at 0x%llx",
                             (unsigned long long)a);
    memcpy(bm->b + (a - MEM_BASE), s, n);
    return MGS_OK;
}

static int bm_atomic(void *m, uint64_t a, unsigned op, unsigned size,
                     uint64_t src, uint64_t cmp, uint64_t *old)
{
    bytes_mem *bm = m;
    uint64_t cur = 0;
    int rc = bm_read(m, a, &cur, size);
    if (rc)
        return rc;
    uint64_t nv = gcn_atomic_apply(gcn_atomic_kind_of(op), size, cur, src,
                                   cmp);
    memcpy(bm->b + (a - MEM_BASE), &nv, size);
    *old = cur;
    return MGS_OK;
}

static const gcn_mem_ops bm_ops = {bm_read, bm_write, bm_atomic, NULL, NULL};

typedef struct machine {
    gcn_wave w;
    uint32_t vgpr[16 * 64];
    gcn_exec_ctx ctx;
    uint8_t lds[256];
    bytes_mem mem;
} machine;

/* The timing path without timing: coalesce, serve each request from the
** byte array as a memory would, fill, complete. */
static void run_timing_path(machine *m, const gcn_inst *in)
{
    static gcn_mem_plan p;
    assert_int_equal(gcn_mem_plan_inst(&m->w, in, &p), MGS_OK);
    uint32_t n = cu_coalesce(&p, 64, reqs);
    for (uint32_t i = 0; i < n; i++) {
        const cu_coal_req *r = &reqs[i];
        uint64_t a = r->line + cu_coal_first(r);
        uint32_t size = cu_coal_size(r);
        uint8_t *mem = m->mem.b + (a - MEM_BASE);
        if (p.kind == GCN_MEM_LOAD) {
            cu_coal_fill_lanes(&p, r->lanes, a, size, mem); /* as the CU */
        } else if (p.kind == GCN_MEM_STORE) {
            uint64_t mask = r->mask >> cu_coal_first(r);
            for (uint32_t j = 0; j < size; j++)
                if ((mask >> j) & 1)
                    mem[j] = r->data[cu_coal_first(r) + j];
        } else {
            unsigned l = r->lane;
            uint64_t old = 0;
            uint64_t src = p.data[0][l] | (uint64_t)p.data[1][l] << 32;
            uint64_t cmp = p.data[2][l] | (uint64_t)p.data[3][l] << 32;
            assert_int_equal(bm_atomic(&m->mem, a, p.atomic_op, p.elem_bytes,
                                       src, cmp, &old), MGS_OK);
            cu_coal_fill_atomic(&p, l, (const uint8_t *)&old);
        }
    }
    gcn_mem_plan_complete(&m->w, &p);
}

static void machine_init(machine *m, uint64_t seed)
{
    memset(m, 0, sizeof *m);
    m->w.vgpr = m->vgpr;
    m->w.nvgpr = 16;
    m->w.ctx = &m->ctx;
    m->ctx.mem_ops = &bm_ops;
    m->ctx.mem = &m->mem;
    m->ctx.lds = m->lds;
    m->ctx.lds_size = sizeof m->lds;
    srand((unsigned)seed);
    for (size_t i = 0; i < sizeof m->mem.b; i++)
        m->mem.b[i] = (uint8_t)rand();
    for (size_t i = 0; i < 16 * 64; i++)
        m->vgpr[i] = (uint32_t)rand() * 2654435761u;
}

/* Random addresses in v[0:1]: contiguous, strided, random, repeated,
** half the lanes in the LDS aperture, half in the private aperture. */
static void random_addresses(machine *m, int pattern, unsigned align)
{
    if (pattern >= 4) {
        uint32_t ap = pattern == 4 ? 0x1000u : 0x2000u; /* emu.h apertures */
        unsigned span = pattern == 4 ? 128 : 32; /* private dwords: 256 B apart */
        m->ctx.private_base = MEM_BASE + 0x2000;
        m->w.sgpr[GCN_OPR_FLAT_SCR_HI] = 1; /* wave base + 256 */
        for (unsigned l = 0; l < 64; l++) {
            bool in_ap = (l * 7 + (unsigned)rand()) % 2;
            uint64_t a = in_ap ? (uint64_t)ap << 32 |
                                     (uint64_t)(rand() % (span / align)) * align
                               : MEM_BASE + 64 + (uint64_t)(rand() % 512) * align;
            m->vgpr[0 * 64 + l] = (uint32_t)a;
            m->vgpr[1 * 64 + l] = (uint32_t)(a >> 32);
        }
        m->w.exec = ~0ull;
        return;
    }
    uint64_t base = MEM_BASE + 64 + (uint64_t)(rand() % 1024) * align;
    for (unsigned l = 0; l < 64; l++) {
        uint64_t a;
        switch (pattern) {
        case 0: a = base + l * 4; break;
        case 1: a = base + l * 36; break;
        case 2: a = MEM_BASE + 64 +
                    (uint64_t)(rand() % ((MEM_SIZE - 256) / align)) * align;
                break;
        default: a = base + (l % 5) * align; break;
        }
        m->vgpr[0 * 64 + l] = (uint32_t)a;
        m->vgpr[1 * 64 + l] = (uint32_t)(a >> 32);
    }
    m->w.exec = pattern == 1 ? 0x00ff00ff0f0f0f0full : ~0ull;
    if (rand() % 4 == 0)
        m->w.exec = ((uint64_t)rand() << 32) | (uint64_t)rand();
}

static void test_equivalent_to_emulator(void **state)
{
    (void)state;
    /* FLAT opcodes (GCN3 table 12.16) with the alignment each needs. */
    static const struct { uint32_t op; unsigned align; bool glc; } ops[] = {
        {0x10, 1, 0}, {0x11, 1, 0}, {0x12, 2, 0}, {0x13, 2, 0}, /* loads */
        {0x14, 4, 0}, {0x15, 4, 0}, {0x16, 4, 0}, {0x17, 4, 0},
        {0x14, 1, 0},                                /* unaligned dword */
        {0x18, 1, 0}, {0x1a, 2, 0}, {0x1c, 4, 0},    /* stores */
        {0x1d, 4, 0}, {0x1e, 4, 0}, {0x1f, 4, 0},
        {0x42, 4, 1}, {0x41, 4, 1}, {0x42, 4, 0},    /* atomics */
        {0x62, 8, 1},                                /* atomic_add_x2 */
    };
    static machine ref, tim;
    for (unsigned t = 0; t < 600; t++) {
        unsigned k = t % (sizeof ops / sizeof ops[0]);
        int pattern = (int)(t / 19 % 6);
        /* Private memory is swizzled per dword: the plan refuses accesses
        ** that are not naturally aligned or wider than a dword. */
        if (pattern == 5 && (ops[k].align == 1 && ops[k].op == 0x14))
            pattern = 4;
        if (pattern == 5 && ops[k].op == 0x62)
            pattern = 4;
        uint32_t words[2] = {0xdc000000u | ops[k].op << 18 |
                                 (uint32_t)ops[k].glc << 16,
                             /* addr v[0:1], data v4.., vdst v8.. */
                             0u | 4u << 8 | 8u << 24};
        gcn_inst in;
        assert_int_equal(gcn_decode((const uint8_t *)words, 8, &in), 8);
        machine_init(&ref, t);
        random_addresses(&ref, pattern, ops[k].align);
        tim = ref;
        tim.w.vgpr = tim.vgpr;
        tim.w.ctx = &tim.ctx;
        tim.ctx.mem = &tim.mem;
        tim.ctx.lds = tim.lds;
        assert_int_equal(gcn_exec_mem(&ref.w, &in), MGS_OK);
        run_timing_path(&tim, &in);
        assert_memory_equal(ref.lds, tim.lds, sizeof ref.lds);
        assert_memory_equal(ref.vgpr, tim.vgpr, sizeof ref.vgpr);
        assert_memory_equal(ref.mem.b, tim.mem.b, sizeof ref.mem.b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contiguous),
        cmocka_unit_test(test_strided_and_scattered),
        cmocka_unit_test(test_partial_exec_and_subdword),
        cmocka_unit_test(test_straddle_and_fill),
        cmocka_unit_test(test_fill_lanes),
        cmocka_unit_test(test_store_masks),
        cmocka_unit_test(test_atomics_one_per_lane),
        cmocka_unit_test(test_equivalent_to_emulator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
