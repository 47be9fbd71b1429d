/*
** TLB tests with the page walker behind it: exact hit and miss latencies,
** LRU replacement in a 1-set 2-way TLB, MSHR merging (two misses to one
** page cost one walk), shoot-down through the ctrl port, faults (answered,
** never installed), MSHR back-pressure, and a slice of a sliced TLB
** using all its sets.
**
** Links are 1-cycle, zero-latency connections at the TLB clock (1 GHz), so
** a miss costs: 1 cycle to be seen (next edge) + 1 link cycle down + the
** walk + 1 link cycle up + 1 cycle to be seen by the TLB.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dramtest_agent.h"
#include "mem/tlb.h"
#include "mem/tlb_core.h"
#include "sim/stats.h"

static int pt_translate(void *ud, int32_t gpu, uint32_t pid,
                        uint64_t vaddr, uint64_t *paddr)
{
    (void)ud;
    (void)gpu;
    uint64_t k = vaddr / 4096;
    if (pid != 1 || k >= 64)
        return MGS_EFAULT;
    *paddr = 0x200000 + k * 4096 + vaddr % 4096;
    return MGS_OK;
}

typedef struct tworld {
    sim_engine *e;
    mem_pool *pool;
    stat_registry *stats;
    tlb *t;
    mmu *m;
    agent *a, *ctl;
    sim_conn *c_top, *c_bot, *c_ctl;
    tlb_config tcfg;
    mmu_config mcfg;
} tworld;

static void tw_init(tworld *w, uint32_t sets, uint32_t ways, uint32_t mshrs)
{
    memset(w, 0, sizeof *w);
    w->e = eng_new(NULL);
    w->pool = mem_pool_new();
    w->stats = stat_registry_new();
    tlb_config_default(&w->tcfg);
    w->tcfg.sets = sets;
    w->tcfg.ways = ways;
    w->tcfg.mshr_entries = mshrs;
    mmu_config_default(&w->mcfg);
    mem_pagetable pt = {.translate = pt_translate, .ud = NULL};
    w->t = tlb_new(w->e, "TLB", &w->tcfg, w->pool, w->stats);
    w->m = mmu_new(w->e, "MMU", &w->mcfg, w->pool, w->stats, &pt);
    w->a = agent_new(w->e, "Agent", w->pool, 1000, 64);
    w->ctl = agent_new(w->e, "CP", w->pool, 1000, 4);
    w->c_top = agent_conn(w->e, "ConnTop", 1000, 8);
    w->c_bot = agent_conn(w->e, "ConnBot", 1000, 8);
    w->c_ctl = agent_conn(w->e, "ConnCtl", 1000, 8);
    conn_plug(w->c_top, &w->a->port);
    conn_plug(w->c_top, tlb_top(w->t));
    conn_plug(w->c_bot, tlb_bottom(w->t));
    conn_plug(w->c_bot, mmu_top(w->m));
    conn_plug(w->c_ctl, &w->ctl->port);
    conn_plug(w->c_ctl, tlb_ctrl(w->t));
    mem_route r;
    mem_route_single(&r, mmu_top(w->m));
    tlb_set_route(w->t, &r);
    w->a->dst = tlb_top(w->t);
    w->a->per_tick = 8;
    w->ctl->dst = tlb_ctrl(w->t);
}

static mem_msg *xl(agent *a, uint64_t vaddr, mgs_time at)
{
    return agent_add_virt(a, MEM_XLATE, vaddr, 0, at);
}

static void tw_run(tworld *w)
{
    agent_start(w->a);
    agent_start(w->ctl);
    assert_int_equal(eng_run(w->e), MGS_OK);
    assert_int_equal(w->a->nrsp, w->a->nreq);
    assert_int_equal(w->ctl->nrsp, w->ctl->nreq);
}

static void tw_fini(tworld *w)
{
    agent_release_all(w->a);
    agent_release_all(w->ctl);
    tlb_free(w->t);
    mmu_free(w->m);
    conn_free(w->c_top);
    conn_free(w->c_bot);
    conn_free(w->c_ctl);
    agent_free(w->a);
    agent_free(w->ctl);
    agent_env_free(w->e, w->pool, w->stats);
}

static double stat_of(tworld *w, const char *comp, const char *metric)
{
    return agent_stat(w->stats, eng_now(w->e), comp, metric);
}

static mgs_time lat(tworld *w, uint32_t i)
{
    return agent_latency(w->a, i);
}

static void test_hit_miss_latency(void **state)
{
    (void)state;
    tworld w;
    tw_init(&w, 1, 32, 4);
    xl(w.a, 5 * 4096 + 0x24, 0);          /* miss */
    xl(w.a, 5 * 4096 + 0x80, 300000);     /* hit */
    tw_run(&w);
    mgs_time p = 1000;
    mgs_time walk = (mgs_time)w.mcfg.levels * w.mcfg.walk_latency * p;
    assert_int_equal(lat(&w, 0), walk + 4 * p);
    assert_int_equal(lat(&w, 1), (1 + w.tcfg.hit_latency) * p);
    assert_int_equal(agent_rsp_of(w.a, 0)->paddr, 0x200000 + 5 * 4096 + 0x24);
    assert_int_equal(agent_rsp_of(w.a, 1)->paddr, 0x200000 + 5 * 4096 + 0x80);
    assert_int_equal(stat_of(&w, "TLB", "hits"), 1);
    assert_int_equal(stat_of(&w, "TLB", "misses"), 1);
    assert_int_equal(stat_of(&w, "MMU", "walks"), 1);
    tw_fini(&w);
}

static void test_lru(void **state)
{
    (void)state;
    tworld w;
    tw_init(&w, 1, 2, 4);
    /* A B A C A B: C evicts B (LRU), B then evicts C. */
    uint64_t pages[] = {1, 2, 1, 3, 1, 2};
    for (int i = 0; i < 6; i++)
        xl(w.a, pages[i] * 4096, (mgs_time)i * 200000);
    tw_run(&w);
    assert_int_equal(stat_of(&w, "TLB", "hits"), 2);
    assert_int_equal(stat_of(&w, "TLB", "misses"), 4);
    assert_int_equal(stat_of(&w, "TLB", "evictions"), 2);
    assert_int_equal(lat(&w, 2), 2000);   /* A hit */
    assert_int_equal(lat(&w, 4), 2000);   /* A hit after C */
    assert_true(lat(&w, 5) > 100000);     /* B was evicted */
    tw_fini(&w);
}

static void test_mshr_merge(void **state)
{
    (void)state;
    tworld w;
    tw_init(&w, 1, 32, 4);
    xl(w.a, 7 * 4096, 0);
    xl(w.a, 7 * 4096 + 64, 0);
    xl(w.a, 7 * 4096 + 128, 0);
    tw_run(&w);
    assert_int_equal(stat_of(&w, "TLB", "misses"), 3);
    assert_int_equal(stat_of(&w, "TLB", "mshr_merges"), 2);
    assert_int_equal(stat_of(&w, "MMU", "walks"), 1);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(agent_rsp_of(w.a, i)->paddr,
                         0x200000 + 7 * 4096 + 64 * i);
    tw_fini(&w);
}

static void test_mshr_backpressure(void **state)
{
    (void)state;
    tworld w;
    tw_init(&w, 1, 32, 1);              /* one MSHR: misses serialise */
    for (int i = 0; i < 4; i++)
        xl(w.a, (uint64_t)(10 + i) * 4096, 0);
    tw_run(&w);
    assert_int_equal(stat_of(&w, "MMU", "walks"), 4);
    /* Each walk starts only after the previous fill. */
    assert_true(agent_rsp_of(w.a, 3)->base.send_time >= 4 * 100000);
    tw_fini(&w);
}

static void test_shootdown(void **state)
{
    (void)state;
    tworld w;
    tw_init(&w, 1, 32, 4);
    xl(w.a, 3 * 4096, 0);               /* miss, installs */
    xl(w.a, 3 * 4096, 200000);          /* hit */
    agent_add(w.ctl, MEM_INVALIDATE, 0, 0, 300000); /* flush all */
    xl(w.a, 3 * 4096, 400000);          /* miss again */
    tw_run(&w);
    assert_int_equal(w.ctl->rsp[0]->base.type, MEM_CTRL_RSP);
    assert_int_equal(stat_of(&w, "TLB", "shootdowns"), 1);
    assert_int_equal(stat_of(&w, "TLB", "hits"), 1);
    assert_int_equal(stat_of(&w, "TLB", "misses"), 2);
    assert_int_equal(stat_of(&w, "MMU", "walks"), 2);
    tw_fini(&w);
}

static void test_fault_not_installed(void **state)
{
    (void)state;
    tworld w;
    tw_init(&w, 1, 32, 4);
    xl(w.a, 500 * 4096, 0);
    xl(w.a, 500 * 4096, 200000);
    tw_run(&w);
    assert_true(agent_rsp_of(w.a, 0)->flags & MEM_F_FAULT);
    assert_true(agent_rsp_of(w.a, 1)->flags & MEM_F_FAULT);
    assert_int_equal(stat_of(&w, "TLB", "misses"), 2);
    assert_int_equal(stat_of(&w, "MMU", "faults"), 2);
    tw_fini(&w);
}

static void test_config_validate(void **state)
{
    (void)state;
    tlb_config c;
    tlb_config_default(&c);
    assert_int_equal(tlb_config_validate(&c), MGS_OK);
    assert_int_equal(c.sets * c.ways, 32);
    c.ways = 0;
    assert_int_equal(tlb_config_validate(&c), MGS_ECONFIG);
    tlb_config_default(&c);
    c.page_bytes = 1000;
    assert_int_equal(tlb_config_validate(&c), MGS_ECONFIG);
}

static void test_slice_uses_all_its_sets(void **state)
{
    (void)state;
    /* One slice of 8 (pages interleaved by page number) sees only pages
    ** p with p mod 8 = 3. With the slice bits removed from the set index
    ** its 8 one-way sets hold 8 such pages; indexed by p mod 8 they would
    ** all fall in set 3 and evict each other. */
    for (uint32_t slices = 1; slices <= 8; slices += 7) {
        tlb_config cfg;
        tlb_config_default(&cfg);
        cfg.sets = 8;
        cfg.ways = 1;
        cfg.slices = slices;
        tlb_core k;
        tlb_core_init(&k, &cfg);
        uint32_t evictions = 0, hits = 0;
        for (uint64_t i = 0; i < 8; i++)
            evictions += tlb_core_install(&k, 1, 3 + 8 * i, 100 + i, false,
                                          4096);
        for (uint64_t i = 0; i < 8; i++) {
            tlb_entry *e = tlb_core_lookup(&k, 1, 3 + 8 * i);
            if (e) {
                hits++;
                assert_int_equal(tlb_core_ppage(&k, e, 3 + 8 * i), 100 + i);
            }
        }
        assert_int_equal(evictions, slices == 8 ? 0 : 7);
        assert_int_equal(hits, slices == 8 ? 8 : 1);
        tlb_core_fini(&k, NULL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hit_miss_latency),
        cmocka_unit_test(test_lru),
        cmocka_unit_test(test_mshr_merge),
        cmocka_unit_test(test_mshr_backpressure),
        cmocka_unit_test(test_shootdown),
        cmocka_unit_test(test_fault_not_installed),
        cmocka_unit_test(test_config_validate),
        cmocka_unit_test(test_slice_uses_all_its_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
