/*
** Address translator end to end: agent -> xlat (with its L1 TLB) -> (L2
** TLB -> MMU) and xlat -> DRAM channel with a real backing array; the DRAM
** answers the agent directly. Virtual page k of pid 1 maps to physical
** page k + 5. Checks data written through virtual addresses lands at the
** physical address and reads back, the response carries the physical
** address and the requester's virtual one, atomics pass through, and a
** translation fault answers the request with MEM_F_FAULT without touching
** memory.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dramtest_agent.h"
#include "gcn3/inst.h"
#include "mem/dram.h"
#include "mem/tlb.h"
#include "sim/stats.h"

#define MEM_BYTES AGENT_MEM_BYTES /* flat backing array, agent_mem_* */

static int pt_translate(void *ud, int32_t gpu, uint32_t pid,
                        uint64_t vaddr, uint64_t *paddr)
{
    (void)ud;
    (void)gpu;
    uint64_t k = vaddr / 4096;
    if (pid != 1 || k >= 100)
        return MGS_EFAULT;
    *paddr = (k + 5) * 4096 + vaddr % 4096;
    return MGS_OK;
}

/* Page 3 is read-only (a replica) while this is set. */
static bool page3_readonly;

static bool pt_readonly(void *ud, int32_t gpu, uint64_t vaddr)
{
    (void)ud;
    (void)gpu;
    return page3_readonly && vaddr / 4096 == 3;
}

/* Pages 40-43 map consecutive frames and are tagged as one run (a PASI
** piece of 4 pages). */
static unsigned pt_run_order(void *ud, int32_t gpu, uint64_t vaddr)
{
    (void)ud;
    (void)gpu;
    return vaddr / 4096 >= 40 && vaddr / 4096 < 44 ? 2 : 0;
}

typedef struct xworld {
    sim_engine *e;
    mem_pool *pool;
    stat_registry *stats;
    uint8_t *mem;
    mem_backing backing;
    xlat *x;
    tlb *t;
    mmu *m;
    dram *d;
    agent *a;
    sim_conn *c[4];
} xworld;

static void xw_init_tiny(xworld *w, uint32_t max_inflight, bool tiny)
{
    memset(w, 0, sizeof *w);
    w->e = eng_new(NULL);
    w->pool = mem_pool_new();
    w->stats = stat_registry_new();
    w->mem = calloc(1, MEM_BYTES);
    w->backing = (mem_backing){agent_mem_read, agent_mem_write, w->mem};
    xlat_config xc;
    xlat_config_default(&xc);
    xc.max_inflight = max_inflight;
    tlb_config tc;
    tlb_config_default(&tc);
    mmu_config mc;
    mmu_config_default(&mc);
    dram_config dc;
    dram_config_default(&dc);
    dc.channels = 1;
    if (tiny) { /* every buffer and queue at its minimum */
        xc.top_buffer = 1;
        tc.top_buffer = tc.mshr_entries = tc.width = 1;
        tc.sets = tc.ways = 1;
        mc.top_buffer = mc.max_walks = 1;
        dc.queue_entries = dc.top_buffer = 1;
    }
    mem_pagetable pt = {.translate = pt_translate,
                        .readonly = pt_readonly,
                        .run_order = pt_run_order, .ud = NULL};
    w->x = xlat_new(w->e, "XLAT", &xc, &tc, w->pool, w->stats);
    w->t = tlb_new(w->e, "TLB", &tc, w->pool, w->stats);
    w->m = mmu_new(w->e, "MMU", &mc, w->pool, w->stats, &pt);
    w->d = dram_new(w->e, "DRAM", &dc, w->pool, w->stats, &w->backing);
    w->a = agent_new(w->e, "Agent", w->pool, 1000, 16);
    w->a->per_tick = 4;
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "Conn%d", i);
        w->c[i] = agent_conn(w->e, name, 1000, 8);
    }
    conn_plug(w->c[0], &w->a->port);
    conn_plug(w->c[0], xlat_top(w->x));
    conn_plug(w->c[1], xlat_tlb(w->x));
    conn_plug(w->c[1], tlb_top(w->t));
    conn_plug(w->c[2], tlb_bottom(w->t));
    conn_plug(w->c[2], mmu_top(w->m));
    /* On the agent's connection: the DRAM answers the agent directly. */
    conn_plug(w->c[0], xlat_bottom(w->x));
    conn_plug(w->c[0], dram_top(w->d));
    mem_route r;
    mem_route_single(&r, tlb_top(w->t));
    xlat_set_tlb_route(w->x, &r);
    mem_route_single(&r, mmu_top(w->m));
    tlb_set_route(w->t, &r);
    mem_route_single(&r, dram_top(w->d));
    xlat_set_route(w->x, &r);
    w->a->dst = xlat_top(w->x);
}

static void xw_init_n(xworld *w, uint32_t max_inflight)
{
    xw_init_tiny(w, max_inflight, false);
}

static void xw_init(xworld *w)
{
    xlat_config xc;
    xlat_config_default(&xc);
    xw_init_n(w, xc.max_inflight);
}

static mem_msg *req(xworld *w, mem_msg_type t, uint64_t va, uint32_t size,
                    mgs_time at)
{
    return agent_add_virt(w->a, t, va, size, at);
}

static void xw_run(xworld *w)
{
    agent_run(w->e, w->a);
}

static void xw_fini(xworld *w)
{
    agent_release_all(w->a);
    xlat_free(w->x);
    tlb_free(w->t);
    mmu_free(w->m);
    dram_free(w->d);
    for (int i = 0; i < 4; i++)
        conn_free(w->c[i]);
    agent_free(w->a);
    agent_env_free(w->e, w->pool, w->stats);
    free(w->mem);
}

static double stat_of(xworld *w, const char *comp, const char *metric)
{
    return agent_stat(w->stats, eng_now(w->e), comp, metric);
}

static void test_write_read_through_translation(void **state)
{
    (void)state;
    xworld w;
    xw_init(&w);
    mem_msg *wr = req(&w, MEM_WRITE, 0x1040, 64, 0);
    for (int i = 0; i < 64; i++)
        wr->data[i] = (uint8_t)(i ^ 0x5A);
    req(&w, MEM_READ, 0x1040, 64, 300000);
    xw_run(&w);
    uint64_t pa = 0x1040 + 5 * 4096;
    for (int i = 0; i < 64; i++)
        assert_int_equal(w.mem[pa + i], (uint8_t)(i ^ 0x5A));
    assert_int_equal(w.mem[0x1040], 0); /* not at the virtual address */
    mem_msg *r = agent_rsp_of(w.a, 1);
    assert_int_equal(r->base.type, MEM_READ_RSP);
    assert_int_equal(r->addr, pa);
    assert_int_equal(r->vaddr, 0x1040);
    assert_ptr_equal(r->base.src, dram_top(w.d)); /* not relayed */
    assert_false(r->flags & MEM_F_FAULT);
    for (int i = 0; i < 64; i++)
        assert_int_equal(r->data[i], (uint8_t)(i ^ 0x5A));
    assert_int_equal(agent_rsp_of(w.a, 0)->base.type, MEM_WRITE_RSP);
    assert_int_equal(stat_of(&w, "XLAT", "translations"), 2);
    assert_int_equal(stat_of(&w, "XLAT", "hits"), 1);   /* its L1 TLB */
    assert_int_equal(stat_of(&w, "XLAT", "misses"), 1);
    assert_int_equal(stat_of(&w, "TLB", "misses"), 1);  /* the L2 TLB */
    assert_int_equal(stat_of(&w, "DRAM", "writes"), 1);
    xw_fini(&w);
}

static void test_atomic_through_translation(void **state)
{
    (void)state;
    xworld w;
    xw_init(&w);
    uint32_t v = 40;
    memcpy(w.mem + 7 * 4096 + 8, &v, 4);   /* virtual page 2 */
    mem_msg *m = req(&w, MEM_ATOMIC, 2 * 4096 + 8, 4, 0);
    m->atomic_op = GCN_OP_FLAT_ATOMIC_ADD;
    m->atomic_size = 4;
    m->atomic_src = 2;
    xw_run(&w);
    uint32_t old;
    memcpy(&old, agent_rsp_of(w.a, 0)->data, 4);
    assert_int_equal(old, 40);
    memcpy(&v, w.mem + 7 * 4096 + 8, 4);
    assert_int_equal(v, 42);
    assert_int_equal(agent_rsp_of(w.a, 0)->base.type, MEM_ATOMIC_RSP);
    xw_fini(&w);
}

/* Page 3 read-only: reads translate (the TLBs keep a read-only entry);
** a write after them misses its read-only entry, asks with MEM_F_XWRITE
** and faults at the walker (no handler here), memory untouched; a read
** after the write still translates. */
static void test_readonly_page_write_faults(void **state)
{
    (void)state;
    xworld w;
    xw_init(&w);
    page3_readonly = true;
    uint64_t pa = 3 * 4096 + 5 * 4096;
    w.mem[pa] = 7;
    req(&w, MEM_READ, 3 * 4096, 4, 0);
    mem_msg *wr = req(&w, MEM_WRITE, 3 * 4096, 4, 400000);
    memset(wr->data, 9, 4);
    req(&w, MEM_READ, 3 * 4096, 4, 800000);
    xw_run(&w);
    page3_readonly = false;
    assert_false(agent_rsp_of(w.a, 0)->flags & MEM_F_FAULT);
    assert_int_equal(agent_rsp_of(w.a, 0)->data[0], 7);
    assert_true(agent_rsp_of(w.a, 1)->flags & MEM_F_FAULT);
    assert_int_equal(w.mem[pa], 7);
    assert_false(agent_rsp_of(w.a, 2)->flags & MEM_F_FAULT);
    assert_int_equal(agent_rsp_of(w.a, 2)->data[0], 7);
    assert_int_equal(stat_of(&w, "MMU", "faults"), 1);
    xw_fini(&w);
}

/* A run of 4 pages is one TLB entry: after page 41's walk, pages 40, 42
** and 43 hit in the translator's L1 TLB at their own frames; */
static void test_run_is_one_entry(void **state)
{
    (void)state;
    xworld w;
    xw_init(&w);
    for (int p = 40; p < 44; p++)
        w.mem[(uint64_t)(p + 5) * 4096 + 4] = (uint8_t)p;
    req(&w, MEM_READ, 41 * 4096 + 4, 4, 0);
    req(&w, MEM_READ, 40 * 4096 + 4, 4, 400000);
    req(&w, MEM_READ, 42 * 4096 + 4, 4, 400000);
    req(&w, MEM_READ, 43 * 4096 + 4, 4, 400000);
    xw_run(&w);
    for (int i = 0; i < 4; i++) {
        mem_msg *r = agent_rsp_of(w.a, (size_t)i);
        uint64_t page = r->vaddr / 4096;
        assert_int_equal(r->addr, (page + 5) * 4096 + 4);
        assert_int_equal(r->data[0], (uint8_t)page);
    }
    assert_int_equal(stat_of(&w, "MMU", "walks"), 1);
    assert_int_equal(stat_of(&w, "XLAT", "hits"), 3);
    xw_fini(&w);
}

static void test_fault(void **state)
{
    (void)state;
    xworld w;
    xw_init(&w);
    mem_msg *wr = req(&w, MEM_WRITE, 200 * 4096, 64, 0); /* unmapped */
    memset(wr->data, 0xEE, 64);
    req(&w, MEM_READ, 3 * 4096, 64, 0);                  /* mapped */
    xw_run(&w);
    mem_msg *r = agent_rsp_of(w.a, 0);
    assert_int_equal(r->base.type, MEM_WRITE_RSP);
    assert_true(r->flags & MEM_F_FAULT);
    assert_false(agent_rsp_of(w.a, 1)->flags & MEM_F_FAULT);
    assert_int_equal(stat_of(&w, "DRAM", "writes"), 0);
    assert_int_equal(stat_of(&w, "MMU", "faults"), 1);
    for (uint32_t i = 0; i < MEM_BYTES; i++)
        if (w.mem[i] == 0xEE)
            fail_msg("faulting write reached memory at %u", i);
    xw_fini(&w);
}

static void test_many_inflight(void **state)
{
    (void)state;
    xworld w;
    xw_init(&w);
    for (uint32_t i = 0; i < 200; i++) {
        mem_msg *m = req(&w, MEM_WRITE, (uint64_t)i * 64, 64, 0);
        memset(m->data, (int)i, 64);
    }
    for (uint32_t i = 0; i < 200; i++)
        req(&w, MEM_READ, (uint64_t)i * 64, 64, 2000000);
    xw_run(&w);
    for (uint32_t i = 0; i < 200; i++)
        assert_int_equal(agent_rsp_of(w.a, 200 + i)->data[17], (uint8_t)i);
    assert_int_equal(stat_of(&w, "XLAT", "translations"), 400);
    xw_fini(&w);
}

/* Two slots: the rest wait in the port (the agent sees refusals), and
** everything still completes with the right data. */
static void test_inflight_limit(void **state)
{
    (void)state;
    xworld w;
    xw_init_n(&w, 2);
    w.a->per_tick = 16;
    for (uint32_t i = 0; i < 40; i++)
        req(&w, MEM_READ, 4096 + (uint64_t)i * 64, 64, 0);
    for (uint32_t i = 0; i < 40 * 64; i++)
        w.mem[6 * 4096 + i] = (uint8_t)(i / 64);
    xw_run(&w);
    assert_true(w.a->refused > 0);
    for (uint32_t i = 0; i < 40; i++)
        assert_int_equal(agent_rsp_of(w.a, i)->data[3], (uint8_t)i);
    xw_fini(&w);
}

/* Write-then-read pairs to one address, all issued at once across pages
** that miss and hit: each read sees its own write (the translator keeps
** same-address order). */
static void test_same_address_order(void **state)
{
    (void)state;
    xworld w;
    xw_init(&w);
    w.a->per_tick = 4;
    for (uint32_t i = 0; i < 60; i++) {
        uint64_t va = (uint64_t)(i % 10) * 4096 + (i / 10) * 64 % 256;
        mem_msg *m = req(&w, MEM_WRITE, va, 64, 0);
        memset(m->data, (int)(i + 1), 64);
        req(&w, MEM_READ, va, 64, 0);
    }
    xw_run(&w);
    for (uint32_t i = 0; i < 60; i++)
        assert_int_equal(agent_rsp_of(w.a, 2 * i + 1)->data[9], i + 1);
    xw_fini(&w);
}

/* Minimum buffers everywhere: slow, but no deadlock and right data. */
static void test_tiny_buffers(void **state)
{
    (void)state;
    xworld w;
    xw_init_tiny(&w, 1, true);
    w.a->per_tick = 8;
    for (uint32_t i = 0; i < 24; i++) {
        mem_msg *m = req(&w, MEM_WRITE, (uint64_t)(i % 6) * 4096 + i * 64,
                         64, 0);
        memset(m->data, (int)(i + 1), 64);
    }
    for (uint32_t i = 0; i < 24; i++)
        req(&w, MEM_READ, (uint64_t)(i % 6) * 4096 + i * 64, 64, 0);
    xw_run(&w);
    for (uint32_t i = 0; i < 24; i++)
        assert_int_equal(agent_rsp_of(w.a, 24 + i)->data[63], i + 1);
    assert_true(w.a->refused > 0);
    assert_true(stat_of(&w, "XLAT", "evictions") > 0);
    xw_fini(&w);
}

/* Flush carries no address to translate: passed through to memory. */
static void test_control_passes_through(void **state)
{
    (void)state;
    xworld w;
    xw_init(&w);
    req(&w, MEM_FLUSH, 0, 0, 0);
    xw_run(&w);
    mem_msg *r = agent_rsp_of(w.a, 0);
    assert_int_equal(r->base.type, MEM_CTRL_RSP);
    assert_false(r->flags & MEM_F_FAULT);
    assert_int_equal(stat_of(&w, "XLAT", "translations"), 0);
    assert_int_equal(stat_of(&w, "XLAT", "misses"), 0);
    assert_int_equal(stat_of(&w, "TLB", "misses"), 0);
    xw_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_read_through_translation),
        cmocka_unit_test(test_atomic_through_translation),
        cmocka_unit_test(test_fault),
        cmocka_unit_test(test_readonly_page_write_faults),
        cmocka_unit_test(test_run_is_one_entry),
        cmocka_unit_test(test_many_inflight),
        cmocka_unit_test(test_inflight_limit),
        cmocka_unit_test(test_control_passes_through),
        cmocka_unit_test(test_tiny_buffers),
        cmocka_unit_test(test_same_address_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
