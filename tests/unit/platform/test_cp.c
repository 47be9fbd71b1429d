/*
** Command processor and dispatcher in isolation: fake CUs (answer each
** CU_MAP_WG after a fixed delay, tracking their resident work-groups),
** fake caches (answer control requests, recording when), and a driver.
** Checks the launch protocol order (invalidate -> dispatch -> flush ->
** done), the counters, resource limits and error handling.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "gpu/cp.h"
#include "gpu/dispatcher.h"
#include "mgsim/errors.h"
#include "sim/conn.h"

#define NCU 4
#define NCACHE 6   /* 3 L1 + 2 TLB + 1 L2 */
#define MAXQ 64

typedef struct fcu {
    sim_comp base;
    sim_port port;
    cp_msg *q[MAXQ];
    uint64_t ready[MAXQ];
    uint32_t n;
    uint32_t resident, max_resident, mapped;
    uint64_t first_map, last_done;
    uint64_t fail_index;     /* wg_index answered with MGS_EFAULT */
    uint64_t lose_index;     /* wg_index never answered (a lost message) */
} fcu;

static bool fcu_tick(sim_comp *c)
{
    fcu *f = (fcu *)c;
    uint64_t now = eng_now(c->eng);
    bool progress = false;
    cp_msg *m;
    while (f->n < MAXQ && (m = (cp_msg *)port_retrieve(&f->port))) {
        assert_int_equal(m->base.type, CU_MAP_WG);
        if (!f->mapped++)
            f->first_map = now;
        if (m->wg_index == f->lose_index)
            continue;
        f->q[f->n] = m;
        f->ready[f->n++] = now + 50 * 1000;
        if (++f->resident > f->max_resident)
            f->max_resident = f->resident;
        progress = true;
    }
    for (uint32_t i = 0; i < f->n;) {
        if (f->ready[i] > now || !port_can_send(&f->port)) {
            i++;
            continue;
        }
        m = f->q[i];
        m->base.type = CU_WG_DONE;
        m->base.dst = m->base.src;
        m->wf_insts = 10;
        m->status = m->wg_index == f->fail_index ? MGS_EFAULT : MGS_OK;
        assert_int_equal(port_send(&f->port, &m->base), MGS_OK);
        f->resident--;
        f->last_done = now;
        f->q[i] = f->q[--f->n];
        f->ready[i] = f->ready[f->n];
        progress = true;
    }
    return progress || f->n;
}
static const sim_comp_ops fcu_ops = {.kind = "FakeCU", .tick = fcu_tick};

typedef struct fcache {
    sim_comp base;
    sim_port port;
    mem_pool *pool;
    uint32_t invalidates, flushes, writebacks;
    uint64_t last_ctrl;
    uint64_t addr[4], span[4];  /* of the first ranged requests */
    uint32_t nranged;
} fcache;

static bool fcache_tick(sim_comp *c)
{
    fcache *f = (fcache *)c;
    mem_msg *m;
    bool progress = false;
    while (port_can_send(&f->port) &&
           (m = (mem_msg *)port_retrieve(&f->port))) {
        if (m->base.type == MEM_INVALIDATE)
            f->invalidates++;
        else if (m->base.type == MEM_FLUSH &&
                 (m->flags & MEM_F_INVALIDATE))
            f->flushes++;
        else if (m->base.type == MEM_FLUSH)
            f->writebacks++;
        if (m->span && f->nranged < 4) {
            f->addr[f->nranged] = m->addr;
            f->span[f->nranged++] = m->span;
        }
        f->last_ctrl = eng_now(c->eng);
        mem_msg *r = mem_msg_response(f->pool, m);
        assert_int_equal(port_send(&f->port, &r->base), MGS_OK);
        progress = true;
    }
    return progress;
}
static const sim_comp_ops fcache_ops = {.kind = "FakeCache",
                                        .tick = fcache_tick};

typedef struct fdrv {
    sim_comp base;
    sim_port port;
    cp_msg msg;
    bool send, done;
    uint64_t done_time;
} fdrv;

static bool fdrv_tick(sim_comp *c)
{
    fdrv *d = (fdrv *)c;
    if (d->send && port_send(&d->port, &d->msg.base) == MGS_OK)
        d->send = false;
    if (port_retrieve(&d->port)) {
        d->done = true;
        d->done_time = eng_now(c->eng);
    }
    return false;
}
static const sim_comp_ops fdrv_ops = {.kind = "FakeDriver",
                                      .tick = fdrv_tick};

typedef struct world {
    sim_engine *eng;
    mem_pool *pool;
    stat_registry *st;
    sim_conn *conn;
    cp *cp;
    fcu cus[NCU];
    fcache caches[NCACHE];
    fdrv drv;
    cu_config cucfg;
    gpu_launch l;
} world;

/* dispatch_latency: cycles between work-group maps (cp.h). */
static void world_init_latency(world *w, uint64_t fail_index,
                               uint32_t dispatch_latency)
{
    memset(w, 0, sizeof *w);
    w->eng = eng_new(NULL);
    w->pool = mem_pool_new();
    w->st = stat_registry_new();
    sim_conn_config cc;
    conn_config_default(&cc);
    w->conn = conn_new(w->eng, "Net", &cc, NULL);
    cu_config_default(&w->cucfg);
    cp_config ccfg;
    cp_config_default(&ccfg);
    ccfg.dispatch_latency = dispatch_latency;
    w->cp = cp_new(w->eng, "CP", &ccfg, NCU, &w->cucfg, w->pool, w->st);
    conn_plug(w->conn, cp_driver(w->cp));
    conn_plug(w->conn, cp_cu(w->cp));
    conn_plug(w->conn, cp_ctrl(w->cp));
    for (int i = 0; i < NCU; i++) {
        fcu *f = &w->cus[i];
        char n[16];
        snprintf(n, sizeof n, "CU[%d]", i);
        comp_init(&f->base, w->eng, &fcu_ops, n, 1000);
        port_init(&f->port, &f->base, "ctrl", 4);
        f->fail_index = fail_index;
        f->lose_index = UINT64_MAX;
        conn_plug(w->conn, &f->port);
        cp_set_cu_port(w->cp, (uint32_t)i, &f->port);
    }
    for (int i = 0; i < NCACHE; i++) {
        fcache *f = &w->caches[i];
        char n[16];
        snprintf(n, sizeof n, "C[%d]", i);
        comp_init(&f->base, w->eng, &fcache_ops, n, 1000);
        port_init(&f->port, &f->base, "ctrl", 2);
        f->pool = w->pool;
        conn_plug(w->conn, &f->port);
        if (i < 3)
            cp_add_l1(w->cp, &f->port);
        else if (i < 5)
            cp_add_tlb(w->cp, &f->port);
        else
            cp_add_l2(w->cp, &f->port);
    }
    comp_init(&w->drv.base, w->eng, &fdrv_ops, "Driver", 1000);
    port_init(&w->drv.port, &w->drv.base, "port", 2);
    conn_plug(w->conn, &w->drv.port);
}

static void world_init(world *w, uint64_t fail_index)
{
    cp_config c;
    cp_config_default(&c);
    world_init_latency(w, fail_index, c.dispatch_latency);
}

static int world_launch(world *w, uint64_t groups, uint32_t waves)
{
    gpu_launch *l = &w->l;
    memset(l, 0, sizeof *l);
    l->num_groups[0] = (uint32_t)groups;
    l->num_groups[1] = l->num_groups[2] = 1;
    l->total_groups = groups;
    l->waves_per_group = waves;
    l->vgprs_per_wave = 8;
    l->sgprs_per_wave = 16;
    /* What nc asks of a multi-GPU launch: invalidate L1s and TLBs, then
    ** write back and drop the L2. */
    l->acquire.l1 = l->acquire.tlb = COH_INVALIDATE;
    l->release.l2 = COH_WRITEBACK_INVALIDATE;
    l->release.l2_all = true;
    fdrv *d = &w->drv;
    memset(&d->msg, 0, sizeof d->msg);
    d->msg.base.type = CP_LAUNCH;
    d->msg.base.dst = cp_driver(w->cp);
    d->msg.launch = l;
    d->send = true;
    d->done = false;
    comp_wake(&d->base);
    return eng_run(w->eng);
}

static uint64_t stat_of(world *w, const char *metric);

static void world_fini(world *w)
{
    cp_free(w->cp);
    for (int i = 0; i < NCU; i++) {
        port_fini(&w->cus[i].port);
        comp_fini(&w->cus[i].base);
    }
    for (int i = 0; i < NCACHE; i++) {
        port_fini(&w->caches[i].port);
        comp_fini(&w->caches[i].base);
    }
    port_fini(&w->drv.port);
    comp_fini(&w->drv.base);
    conn_free(w->conn);
    assert_int_equal(mem_pool_outstanding(w->pool), 0);
    mem_pool_free(w->pool);
    stat_registry_free(w->st);
    eng_free(w->eng);
}

typedef struct find { const char *metric; uint64_t v; } find;
static void find_row(const stat_row *r, void *ud)
{
    find *f = ud;
    if (!strcmp(r->metric, f->metric))
        f->v = (uint64_t)r->value;
}
static uint64_t stat_of(world *w, const char *metric)
{
    find f = {metric, UINT64_MAX};
    stat_registry_foreach(w->st, eng_now(w->eng), find_row, &f);
    return f.v;
}

static void test_launch_protocol(void **state)
{
    (void)state;
    static world w;
    world_init(&w, UINT64_MAX);
    assert_int_equal(world_launch(&w, 100, 1), MGS_OK);
    assert_true(w.drv.done);
    assert_int_equal(w.drv.msg.base.type, CP_LAUNCH_DONE);
    assert_int_equal(w.drv.msg.status, MGS_OK);
    assert_int_equal(w.drv.msg.wg_index, 100);
    assert_int_equal(w.drv.msg.wf_insts, 1000);
    uint64_t last_inval = 0, first_map = UINT64_MAX, last_done = 0;
    for (int i = 0; i < 5; i++) {
        assert_int_equal(w.caches[i].invalidates, 1);
        assert_int_equal(w.caches[i].flushes, 0);
        if (w.caches[i].last_ctrl > last_inval)
            last_inval = w.caches[i].last_ctrl;
    }
    assert_int_equal(w.caches[5].flushes, 1);
    assert_int_equal(w.caches[5].invalidates, 0);
    for (int i = 0; i < NCU; i++) {
        /* Round robin: 100 work-groups over 4 CUs, 25 each. */
        assert_int_equal(w.cus[i].mapped, 25);
        if (w.cus[i].first_map < first_map)
            first_map = w.cus[i].first_map;
        if (w.cus[i].last_done > last_done)
            last_done = w.cus[i].last_done;
    }
    /* Acquire before dispatch, release after the last work-group. */
    assert_true(first_map > last_inval);
    assert_true(w.caches[5].last_ctrl > last_done);
    assert_true(w.drv.done_time > w.caches[5].last_ctrl);
    assert_int_equal(stat_of(&w, "kernels"), 1);
    assert_int_equal(stat_of(&w, "workgroups"), 100);
    assert_int_equal(stat_of(&w, "invalidations"), 5);
    assert_int_equal(stat_of(&w, "flushes"), 1);
    assert_int_equal(stat_of(&w, "wf_insts"), 1000);
    assert_true(stat_of(&w, "kernel_time") > 50 * 1000);

    /* A second launch reuses everything. */
    assert_int_equal(world_launch(&w, 8, 1), MGS_OK);
    assert_int_equal(w.drv.msg.wg_index, 8);
    assert_int_equal(stat_of(&w, "kernels"), 2);
    assert_int_equal(cp_kernels_done(w.cp), 2);
    world_fini(&w);
}

/* 16-wave work-groups: a CU (4 SIMDs x 10 slots) holds 2 at a time
** (mapped back to back, so that the CUs fill up). */
static void test_resource_limit(void **state)
{
    (void)state;
    static world w;
    world_init_latency(&w, UINT64_MAX, 0);
    assert_int_equal(world_launch(&w, 40, 16), MGS_OK);
    assert_int_equal(w.drv.msg.wg_index, 40);
    for (int i = 0; i < NCU; i++) {
        assert_int_equal(w.cus[i].max_resident, 2);
        assert_int_equal(w.cus[i].mapped, 10);
    }
    assert_true(stat_of(&w, "dispatch_stalls") > 0);
    world_fini(&w);
}

static void test_failing_workgroup(void **state)
{
    (void)state;
    static world w;
    world_init(&w, 5);
    assert_int_equal(world_launch(&w, 1000, 16), MGS_OK);
    assert_int_equal(w.drv.msg.status, MGS_EFAULT);
    /* Nothing new is mapped after the failure; what was in flight drains,
    ** and the L2 is still flushed. */
    uint32_t mapped = 0;
    for (int i = 0; i < NCU; i++)
        mapped += w.cus[i].mapped;
    assert_true(mapped < 20);
    assert_int_equal(w.caches[5].flushes, 1);
    world_fini(&w);
}

/* The CP performs what the launch carries and nothing else: no maintenance
** at all (nc on one GPU between kernels), and ranged L2 operations in the
** acquire (host writes), each sent to every L2 before the first
** work-group. */
static void test_maintenance_from_launch(void **state)
{
    (void)state;
    static world w;
    world_init(&w, UINT64_MAX);
    gpu_launch *l = &w.l;
    memset(l, 0, sizeof *l);
    l->num_groups[0] = 4;
    l->num_groups[1] = l->num_groups[2] = 1;
    l->total_groups = 4;
    l->waves_per_group = 1;
    l->vgprs_per_wave = 8;
    l->sgprs_per_wave = 16;
    l->acquire.l2 = COH_WRITEBACK;
    coh_sync_add_range(&l->acquire, 0x1000, 64);
    coh_sync_add_range(&l->acquire, 0x9000, 256);
    fdrv *d = &w.drv;
    memset(&d->msg, 0, sizeof d->msg);
    d->msg.base.type = CP_LAUNCH;
    d->msg.base.dst = cp_driver(w.cp);
    d->msg.launch = l;
    d->send = true;
    comp_wake(&d->base);
    assert_int_equal(eng_run(w.eng), MGS_OK);
    assert_true(d->done);
    fcache *l2 = &w.caches[5];
    assert_int_equal(l2->writebacks, 2);
    assert_int_equal(l2->flushes, 0);
    assert_int_equal(l2->nranged, 2);
    assert_int_equal(l2->addr[0], 0x1000);
    assert_int_equal(l2->span[0], 64);
    assert_int_equal(l2->addr[1], 0x9000);
    assert_int_equal(l2->span[1], 256);
    for (int i = 0; i < 5; i++)
        assert_int_equal(w.caches[i].invalidates + w.caches[i].flushes, 0);
    uint64_t first_map = UINT64_MAX;
    for (int i = 0; i < NCU; i++)
        if (w.cus[i].first_map < first_map)
            first_map = w.cus[i].first_map;
    assert_true(l2->last_ctrl < first_map);
    assert_int_equal(stat_of(&w, "flushes"), 2);
    assert_int_equal(stat_of(&w, "invalidations"), 0);
    world_fini(&w);
}

static void test_workgroup_too_big(void **state)
{
    (void)state;
    static world w;
    world_init(&w, UINT64_MAX);
    w.cucfg.wf_slots_per_simd = 10;
    /* 41 waves never fit 40 slots. */
    assert_int_equal(world_launch(&w, 4, 41), MGS_OK);
    assert_int_equal(w.drv.msg.status, MGS_EINVAL);
    assert_non_null(strstr(w.drv.msg.err, "does not fit a CU"));
    assert_int_equal(w.cus[0].mapped, 0);
    world_fini(&w);
}

/* A CU that loses a work-group: the engine's watchdog reports the CP still
** busy when the queue runs dry (MGS_EDEADLOCK, exit code 3). */
static void test_lost_workgroup_deadlock(void **state)
{
    (void)state;
    static world w;
    world_init(&w, UINT64_MAX);
    for (int i = 0; i < NCU; i++)
        w.cus[i].lose_index = 7;
    int rc = world_launch(&w, 20, 1);
    assert_int_equal(rc, MGS_EDEADLOCK);
    assert_int_equal(mgs_exit_code(rc), 3);
    assert_non_null(strstr(mgs_error_msg(), "deadlock"));
    assert_non_null(strstr(mgs_error_msg(), "CP"));
    assert_false(w.drv.done);
    /* The lost message is the CP's own record: nothing to release. */
    world_fini(&w);
}

/* MGPUSim's dispatch rate: after a work-group of up to 4 wavefronts the
** dispatcher waits 4 cycles and maps the next on the 5th; a group of 8
** wavefronts waits 8 cycles. CU i gets work-group i, so consecutive first
** maps are 5 (9) cycles apart. */
static void test_dispatch_latency(void **state)
{
    (void)state;
    static world w;
    world_init(&w, UINT64_MAX);
    const uint32_t waves[] = {1, 4, 8};
    const uint64_t gap[] = {5000, 5000, 9000};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < NCU; i++)
            w.cus[i].mapped = 0;
        assert_int_equal(world_launch(&w, NCU, waves[k]), MGS_OK);
        for (int i = 1; i < NCU; i++)
            assert_int_equal(w.cus[i].first_map - w.cus[i - 1].first_map,
                             gap[k]);
    }
    world_fini(&w);
}

static void test_dispatcher_round_robin(void **state)
{
    (void)state;
    cu_config c;
    cu_config_default(&c);
    gpu_dispatcher d;
    gpu_dispatcher_init(&d, 3, &c);
    gpu_launch l = {.waves_per_group = 16, .vgprs_per_wave = 8,
                    .sgprs_per_wave = 16};
    uint8_t simd[6][GCN_EMU_MAX_WAVES];
    uint32_t cu[6];
    for (int i = 0; i < 6; i++) {
        assert_true(gpu_dispatcher_place(&d, &l, &cu[i], simd[i]));
        assert_int_equal(cu[i], (uint32_t)(i % 3));
    }
    uint32_t x;
    uint8_t s[GCN_EMU_MAX_WAVES];
    assert_false(gpu_dispatcher_place(&d, &l, &x, s)); /* all full */
    assert_int_equal(gpu_dispatcher_resident(&d), 6);
    gpu_dispatcher_release(&d, cu[4], &l, simd[4]);   /* CU 1 frees */
    assert_true(gpu_dispatcher_place(&d, &l, &x, s));
    assert_int_equal(x, 1);
    gpu_dispatcher_destroy(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_protocol),
        cmocka_unit_test(test_resource_limit),
        cmocka_unit_test(test_failing_workgroup),
        cmocka_unit_test(test_maintenance_from_launch),
        cmocka_unit_test(test_workgroup_too_big),
        cmocka_unit_test(test_lost_workgroup_deadlock),
        cmocka_unit_test(test_dispatcher_round_robin),
        cmocka_unit_test(test_dispatch_latency),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
