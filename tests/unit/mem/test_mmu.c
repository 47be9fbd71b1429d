/*
** Page walker tests: exact walk latency (levels * walk_latency cycles),
** the max_walks concurrency limit, faults for unmapped pages, and the
** translated address (page base + offset) against a small page table.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dramtest_agent.h"
#include "mem/tlb.h"
#include "sim/stats.h"

/* pid 1: virtual page k < 16 -> physical 1 MB + k pages; others fault. */
static int pt_translate(void *ud, int32_t gpu, uint32_t pid,
                        uint64_t vaddr, uint64_t *paddr)
{
    (void)ud;
    (void)gpu;
    uint64_t k = vaddr / 4096;
    if (pid != 1 || k >= 16)
        return MGS_EFAULT;
    *paddr = 0x100000 + k * 4096 + vaddr % 4096;
    return MGS_OK;
}

typedef struct mworld {
    sim_engine *e;
    mem_pool *pool;
    stat_registry *stats;
    mmu *m;
    agent *a;
    sim_conn *conn;
    mmu_config cfg;
} mworld;

static void mw_init(mworld *w, uint32_t max_walks)
{
    w->e = eng_new(NULL);
    w->pool = mem_pool_new();
    w->stats = stat_registry_new();
    mmu_config_default(&w->cfg);
    w->cfg.max_walks = max_walks;
    mem_pagetable pt = {pt_translate, NULL};
    w->m = mmu_new(w->e, "MMU", &w->cfg, w->pool, w->stats, &pt);
    w->a = agent_new(w->e, "Agent", w->pool, 1000, 16);
    w->a->per_tick = 8;
    w->conn = agent_conn(w->e, "Conn", 1000, 8);
    conn_plug(w->conn, &w->a->port);
    conn_plug(w->conn, mmu_top(w->m));
    w->a->dst = mmu_top(w->m);
}

static mem_msg *xl(mworld *w, uint64_t vaddr, mgs_time at)
{
    return agent_add_virt(w->a, MEM_XLATE, vaddr, 0, at);
}

static void mw_run(mworld *w)
{
    agent_run(w->e, w->a);
}

static void mw_fini(mworld *w)
{
    agent_release_all(w->a);
    mmu_free(w->m);
    conn_free(w->conn);
    agent_free(w->a);
    agent_env_free(w->e, w->pool, w->stats);
}

static double stat_of(mworld *w, const char *metric)
{
    return agent_stat(w->stats, eng_now(w->e), NULL, metric);
}

static void test_walk_latency_and_address(void **state)
{
    (void)state;
    mworld w;
    mw_init(&w, 16);
    xl(&w, 2 * 4096 + 0x10, 0);
    mw_run(&w);
    mem_msg *r = w.a->rsp[0];
    assert_int_equal(r->base.type, MEM_XLATE_RSP);
    assert_false(r->flags & MEM_F_FAULT);
    assert_int_equal(r->paddr, 0x100000 + 2 * 4096 + 0x10);
    assert_int_equal(r->addr, 2 * 4096 + 0x10);
    mgs_time walk = (mgs_time)w.cfg.levels * w.cfg.walk_latency * 1000;
    assert_int_equal(walk, 100000);
    assert_int_equal(r->base.send_time - r->req->base.arrive_time, walk);
    assert_int_equal(stat_of(&w, "walks"), 1);
    assert_int_equal(stat_of(&w, "faults"), 0);
    assert_int_equal(stat_of(&w, "walk_latency.max"), walk);
    mw_fini(&w);
}

static void test_concurrency_limit(void **state)
{
    (void)state;
    mworld w;
    mw_init(&w, 2);
    for (int i = 0; i < 5; i++)
        xl(&w, (uint64_t)i * 4096, 0);
    mw_run(&w);
    mgs_time walk = 100000;
    mgs_time t0 = agent_rsp_of(w.a, 0)->base.send_time;
    mgs_time t1 = agent_rsp_of(w.a, 1)->base.send_time;
    /* Two walks overlap; the third starts when the first ends. */
    assert_int_equal(t0 - w.a->req[0]->base.arrive_time, walk);
    assert_int_equal(t1 - w.a->req[1]->base.arrive_time, walk);
    assert_int_equal(agent_rsp_of(w.a, 2)->base.send_time, t0 + walk);
    assert_int_equal(agent_rsp_of(w.a, 3)->base.send_time, t1 + walk);
    assert_int_equal(agent_rsp_of(w.a, 4)->base.send_time, t0 + 2 * walk);
    assert_int_equal(stat_of(&w, "walks"), 5);
    mw_fini(&w);
}

static void test_fault(void **state)
{
    (void)state;
    mworld w;
    mw_init(&w, 4);
    xl(&w, 100 * 4096, 0);             /* unmapped */
    mem_msg *q = xl(&w, 4096, 0);
    q->pid = 2;                        /* other address space */
    xl(&w, 3 * 4096, 0);               /* fine */
    mw_run(&w);
    assert_true(agent_rsp_of(w.a, 0)->flags & MEM_F_FAULT);
    assert_true(agent_rsp_of(w.a, 1)->flags & MEM_F_FAULT);
    assert_false(agent_rsp_of(w.a, 2)->flags & MEM_F_FAULT);
    assert_int_equal(stat_of(&w, "faults"), 2);
    assert_int_equal(stat_of(&w, "walks"), 3);
    mw_fini(&w);
}

static void test_config_validate(void **state)
{
    (void)state;
    mmu_config c;
    mmu_config_default(&c);
    assert_int_equal(mmu_config_validate(&c), MGS_OK);
    c.max_walks = 0;
    assert_int_equal(mmu_config_validate(&c), MGS_ECONFIG);
    mmu_config_default(&c);
    c.page_bytes = 3000;
    assert_int_equal(mmu_config_validate(&c), MGS_ECONFIG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walk_latency_and_address),
        cmocka_unit_test(test_concurrency_limit),
        cmocka_unit_test(test_fault),
        cmocka_unit_test(test_config_validate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
