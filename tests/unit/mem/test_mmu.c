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

/* Set by the resolving fault handler below: page 100 of pid 1 is mapped
** (to 9 MB). */
static bool page100_mapped;

/* pid 1: virtual page k < 16 -> physical 1 MB + k pages; others fault. */
static int pt_translate(void *ud, int32_t gpu, uint32_t pid,
                        uint64_t vaddr, uint64_t *paddr)
{
    (void)ud;
    (void)gpu;
    uint64_t k = vaddr / 4096;
    if (pid == 1 && k == 100 && page100_mapped) {
        *paddr = 0x900000 + vaddr % 4096;
        return MGS_OK;
    }
    if (pid != 1 || k >= 16)
        return MGS_EFAULT;
    *paddr = 0x100000 + k * 4096 + vaddr % 4096;
    return MGS_OK;
}

/* Page 5 of every GPU's table is read-only (a replica). */
static bool pt_readonly(void *ud, int32_t gpu, uint64_t vaddr)
{
    (void)ud;
    (void)gpu;
    return vaddr / 4096 == 5;
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
    mem_pagetable pt = {.translate = pt_translate,
                        .readonly = pt_readonly, .ud = NULL};
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

/* A read of a read-only page is answered MEM_F_READONLY; a write
** (MEM_F_XWRITE) faults there, and is answered plainly on a writable one. */
static void test_readonly_page(void **state)
{
    (void)state;
    mworld w;
    mw_init(&w, 4);
    xl(&w, 5 * 4096 + 8, 0);
    xl(&w, 5 * 4096 + 8, 0)->flags = MEM_F_XWRITE;
    xl(&w, 6 * 4096, 0)->flags = MEM_F_XWRITE;
    mw_run(&w);
    mem_msg *r = agent_rsp_of(w.a, 0);
    assert_false(r->flags & MEM_F_FAULT);
    assert_true(r->flags & MEM_F_READONLY);
    assert_int_equal(r->paddr, 0x100000 + 5 * 4096 + 8);
    assert_true(agent_rsp_of(w.a, 1)->flags & MEM_F_FAULT);
    r = agent_rsp_of(w.a, 2);
    assert_false(r->flags & (MEM_F_FAULT | MEM_F_READONLY));
    assert_int_equal(stat_of(&w, "faults"), 1);
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

/* A fault handler that maps the page (as a migration scheme would) and
** answers "resolved" one cycle later. */
typedef struct resolver {
    sim_comp base;
    sim_port port;
    mem_pool *pool;
    int seen;
} resolver;

static bool resolver_tick(sim_comp *c)
{
    resolver *r = (resolver *)c;
    mem_msg *f = (mem_msg *)port_peek(&r->port);
    if (!f)
        return false;
    assert_true(f->base.type == MEM_XLATE && (f->flags & MEM_F_FAULT));
    page100_mapped = true;
    mem_msg *a = mem_msg_response(r->pool, f);
    a->flags &= ~MEM_F_FAULT;
    if (port_send(&r->port, &a->base) != MGS_OK) {
        mem_msg_release(r->pool, a);
        return false;
    }
    port_retrieve(&r->port);
    r->seen++;
    return true;
}

static const sim_comp_ops resolver_ops = {.kind = "Resolver",
                                          .tick = resolver_tick};

/* Faults reach the handler as messages: the default handler resolves
** nothing (the requester gets the fault, later than without a handler);
** a resolving handler makes the walker read the table again. */
static void test_fault_handler(void **state)
{
    (void)state;
    for (int resolve = 0; resolve < 2; resolve++) {
        page100_mapped = false;
        mworld w;
        mw_init(&w, 4);
        sim_conn *link = agent_conn(w.e, "FaultLink", 1000, 4);
        fault_handler *fh = NULL;
        resolver rs = {.pool = w.pool};
        sim_port *hp;
        if (resolve) {
            comp_init(&rs.base, w.e, &resolver_ops, "Resolver", 1000);
            port_init(&rs.port, &rs.base, "port", 4);
            hp = &rs.port;
        } else {
            fh = fault_handler_new(w.e, "FH", 1000, w.pool, w.stats);
            hp = fault_handler_port(fh);
        }
        conn_plug(link, mmu_fault_port(w.m));
        conn_plug(link, hp);
        mmu_set_fault_handler(w.m, hp);
        xl(&w, 100 * 4096 + 8, 0);         /* unmapped until resolved */
        xl(&w, 3 * 4096, 0);               /* fine */
        mw_run(&w);
        mem_msg *r0 = agent_rsp_of(w.a, 0);
        assert_false(agent_rsp_of(w.a, 1)->flags & MEM_F_FAULT);
        /* Walk, then a round trip to the handler. */
        assert_true(r0->base.send_time - r0->req->base.arrive_time > 100000);
        if (resolve) {
            assert_false(r0->flags & MEM_F_FAULT);
            assert_int_equal(r0->paddr, 0x900000 + 8);
            assert_int_equal(rs.seen, 1);
            assert_int_equal(agent_stat(w.stats, eng_now(w.e), "MMU",
                                        "faults"), 0);
        } else {
            assert_true(r0->flags & MEM_F_FAULT);
            assert_int_equal(agent_stat(w.stats, eng_now(w.e), "FH",
                                        "faults"), 1);
            assert_int_equal(agent_stat(w.stats, eng_now(w.e), "MMU",
                                        "faults"), 1);
        }
        agent_release_all(w.a);
        mmu_free(w.m);
        w.m = NULL;
        fault_handler_free(fh);
        if (resolve) {
            port_fini(&rs.port);
            comp_fini(&rs.base);
        }
        conn_free(link);
        conn_free(w.conn);
        agent_free(w.a);
        agent_env_free(w.e, w.pool, w.stats);
    }
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
        cmocka_unit_test(test_readonly_page),
        cmocka_unit_test(test_fault_handler),
        cmocka_unit_test(test_config_validate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
