/*
** HALCONE (src/coh/halcone/, docs/coherence.md "HALCONE"):
**   - the TSU table: Algorithm 3's values, 8-way sets, eviction of the
**     lowest memts, the floor a re-added entry starts from, eviction
**     notices ("shared" entries stay), overflow;
**   - the cache rules on one write-through L2 over a TSU and a memory,
**     with exact timestamps on the wire (hit by lease, cts after writes,
**     a coherence miss that renews a lease) and the TSU in parallel with
**     memory (an answer leaves at the later of the two);
**   - the rules at synchronisation points, and what check() refuses;
**   - whole systems on the shared platform: xtreme1-3 verify with no L2
**     flush at all, also with a tiny timestamp range (overflows happen);
**     the variant without the lease check makes xtreme3 fail; atomics of
**     4 GPUs on one counter sum up (performed at memory; nc's per-L2
**     atomics on `shared` lose updates); the random memory tester runs
**     clean over 4 GPUs (MGSIM_HALCONE_OPS=1000000 for the long run).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coh/coh.h"
#include "coh/halcone/halcone_int.h"
#include "coh/halcone/tsu.h"
#include "mem/tester.h"
#include "mgsim/errors.h"
#include "platform/platform.h"
#include "sim/stats.h"

#include "coh_run.h"
#include "tests/unit/mem/cache_one.h"
#include "tests/unit/platform/tester_rig.h"

extern const coh_protocol coh_halcone;
extern const coh_protocol coh_halcone_no_lease;

static const coh_ts_params PARAMS = {.rd_lease = 10, .wr_lease = 5,
                                     .tsu_entries = 8, .tsu_latency = 50,
                                     .ts_max = 65535};

/* ---- the TSU table ---- */

static void grant(tsu_table *t, uint64_t line, bool write, uint32_t rts,
                  uint32_t wts)
{
    uint32_t r = 0, w = 0;
    assert_true(tsu_table_grant(t, line, write, &PARAMS, &r, &w));
    assert_int_equal(r, rts);
    assert_int_equal(w, wts);
}

static void test_tsu_algorithm3(void **state)
{
    (void)state;
    tsu_table t;
    tsu_table_init(&t, 8, 64);
    assert_int_equal(t.sets, 1);
    /* Read: memts += RdLease, Mrts = memts, Mwts = Mrts - RdLease. */
    grant(&t, 0x1000, false, 10, 0);
    grant(&t, 0x1000, true, 15, 10);     /* write: + WrLease */
    grant(&t, 0x1000, false, 25, 15);
    assert_int_equal(t.insertions->value, 1);
    assert_int_equal(t.hits->value, 2);
    assert_int_equal(tsu_table_memts(&t, 0x1000), 25);
    assert_int_equal(t.max_memts_stat->value, 25);
    tsu_table_fini(&t);
}

static void test_tsu_eviction_and_floor(void **state)
{
    (void)state;
    tsu_table t;
    tsu_table_init(&t, 8, 64);
    /* Line i (1..8) read i times: memts 10 i; the one set is full. */
    for (uint64_t i = 1; i <= 8; i++)
        for (uint64_t k = 0; k < i; k++)
            grant(&t, i * 64, false, (uint32_t)(10 * (k + 1)),
                  (uint32_t)(10 * k));
    assert_int_equal(t.evictions->value, 0);
    /* A ninth line evicts the lowest memts (line 1, 10) and starts at the
    ** floor 10, not 0. */
    grant(&t, 9 * 64, false, 20, 10);
    assert_int_equal(tsu_table_memts(&t, 64), -1);
    assert_int_equal(t.evictions->value, 1);
    assert_int_equal(t.floor, 10);
    /* Line 1 comes back: the lowest now is 20 (line 9, in the first way,
    ** before line 2's equal 20); the floor rises to 20 and line 1's write
    ** gets Mwts = 20 >= the lease (rts 10) a cache may still hold. */
    grant(&t, 64, true, 25, 20);
    assert_int_equal(tsu_table_memts(&t, 9 * 64), -1);
    assert_int_equal(tsu_table_memts(&t, 2 * 64), 20);
    assert_int_equal(t.floor, 20);
    assert_int_equal(t.evictions->value, 2);
    tsu_table_fini(&t);
}

static void test_tsu_notice_and_overflow(void **state)
{
    (void)state;
    tsu_table t;
    tsu_table_init(&t, 64, 64);
    grant(&t, 0, false, 10, 0);          /* memts 10 */
    for (int k = 0; k < 3; k++)           /* another line: memts 30 */
        grant(&t, 4096, false, (uint32_t)(10 * (k + 1)), (uint32_t)(10 * k));
    /* Line 4096 is within one lease (10) of the newest grant (30): it may
    ** be shared, it stays. Line 0 (10) leaves, raising the floor. */
    tsu_table_notice(&t, 4096, &PARAMS);
    assert_int_equal(t.shared_kept->value, 1);
    assert_int_equal(tsu_table_memts(&t, 4096), 30);
    tsu_table_notice(&t, 0, &PARAMS);
    assert_int_equal(tsu_table_memts(&t, 0), -1);
    assert_int_equal(t.floor, 10);
    tsu_table_notice(&t, 8192, &PARAMS);  /* absent: nothing */
    assert_int_equal(t.evictions->value, 1);
    /* Overflow: no lease past ts_max. */
    coh_ts_params tiny = PARAMS;
    tiny.ts_max = 64;
    uint32_t r, w;
    for (int k = 3; k < 6; k++)
        assert_true(tsu_table_grant(&t, 4096, false, &tiny, &r, &w));
    assert_int_equal(r, 60);
    assert_false(tsu_table_grant(&t, 4096, false, &tiny, &r, &w));
    tsu_table_reset(&t);
    assert_int_equal(tsu_table_memts(&t, 4096), -1);
    assert_int_equal(t.floor, 0);
    tsu_table_fini(&t);
}

/* ---- one L2 over a TSU and a memory ---- */

typedef struct hworld {
    one *o;
    coh *h;
    stat_registry *st;
} hworld;

static coh_system shared_sys(const coh_ts_params *p)
{
    return (coh_system){.ngpus = 1, .shared_platform = true, .line = 64,
                        .ts = *p};
}

/* probe -> L2 (write-through, halcone hooks) -> TSU -> memory (10 cy). */
static void hworld_new(hworld *w, uint32_t tsu_latency)
{
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_THROUGH);
    cfg.glc_bypass = false;
    w->o = one_new(&cfg);
    w->st = stat_registry_new();
    coh_ts_params p = PARAMS;
    p.tsu_entries = 64;
    p.tsu_latency = tsu_latency;
    coh_system sys = shared_sys(&p);
    assert_int_equal(coh_new(&coh_halcone, &sys, w->o->eng, w->o->pool,
                             w->st, &w->h), MGS_OK);
    coh_halcone.attach_cache(w->h->pd, w->o->c, COH_L2, 0);
    coh_site site = {.eng = w->o->eng, .pool = w->o->pool, .stats = w->st,
                     .net = w->o->down, .memory = simplemem_port(w->o->mem),
                     .name = "L2", .period = 1000};
    sim_port *agent = coh_halcone.memory_agent(w->h->pd, &site);
    mem_route r;
    mem_route_single(&r, agent);
    cache_set_route(w->o->c, &r);
}

static void hworld_free(hworld *w)
{
    /* The agent's ports sit on the world's connections: it goes first. */
    coh_free(w->h);
    one_free(w->o);
    stat_registry_free(w->st);
}

static double wstat(const hworld *w, const char *comp, const char *metric)
{
    rt_rig r = {.stats = w->st};
    return rt_rig_stat(&r, comp, metric, NULL);
}

/* The (rts, wts) the n-th answer carried, with its wire bytes. */
static hc_stamp answer(const hworld *w, uint32_t n)
{
    assert_true(n < w->o->p.nrsp);
    const mem_msg *r = w->o->p.rsp[n];
    assert_int_equal(r->coh_bytes, HC_TS_WIRE_BYTES);
    return hc_stamp_unpack(r->coh[0]);
}

#define ASSERT_STAMP(w, n, r, wt)                                            \
    do {                                                                     \
        hc_stamp s_ = answer(w, n);                                          \
        assert_int_equal(s_.rts, r);                                         \
        assert_int_equal(s_.wts, wt);                                        \
    } while (0)

static void test_cache_rules_exact(void **state)
{
    (void)state;
    hworld w;
    hworld_new(&w, 50);
    mgs_time us = 1000000;
    /* 1. Read A: L2 miss; TSU memts 0 -> 10: (10, 0); cts 0. */
    rd(w.o, 0x000, 4, 0);
    /* 2. Read A again: hit (cts 0 <= 10). */
    rd(w.o, 0x000, 4, 1 * us);
    /* 3. Write A (hit: locked until the answer): TSU 10 -> 15, Mwts 10;
    ** Bwts = max(0, 10) = 10, Brts = max(11, 15) = 15, cts = 10. The copy
    ** keeps a lease (nobody else was granted one: Bwts <= its rts 10). */
    wr(w.o, 0x000, 4, 0xab, 2 * us);
    /* 4. Read C: TSU new entry 0 -> 10, Mwts 0: Brts = 10, Bwts = 10
    ** (max(cts 10, 0)). */
    rd(w.o, 0x400, 4, 3 * us);
    /* 5. Write A again: 15 -> 20, Mwts 15: cts = 15. */
    wr(w.o, 0x000, 4, 0xcd, 4 * us);
    /* 6. Read A: hit (15 <= 20). Read C: cts 15 > rts 10: a coherence
    ** miss, refetched: TSU 10 -> 20, Mwts 10: (20, max(15, 10) = 15); the
    ** data had not changed: a lease renewal. */
    rd(w.o, 0x000, 4, 5 * us);
    rd(w.o, 0x400, 4, 6 * us);
    one_run(w.o);
    assert_int_equal(w.o->p.nrsp, 7);
    ASSERT_STAMP(&w, 0, 10, 0);
    ASSERT_STAMP(&w, 1, 10, 0);
    ASSERT_STAMP(&w, 2, 15, 10);
    ASSERT_STAMP(&w, 3, 10, 10);
    ASSERT_STAMP(&w, 4, 20, 15);
    ASSERT_STAMP(&w, 5, 20, 15);
    ASSERT_STAMP(&w, 6, 20, 15);
    assert_int_equal(w.o->p.rsp[5]->data[0], 0xcd);
    /* 5 of the 7 accesses reached the TSU: the reads 2 and 6 of A hit. */
    assert_int_equal(wstat(&w, "L1", "coherence_misses"), 1);
    assert_int_equal(wstat(&w, "L1", "lease_renewals"), 1);
    assert_int_equal(wstat(&w, "L2.TSU", "tsu_insertions"), 2);
    assert_int_equal(wstat(&w, "L2.TSU", "tsu_hits"), 3);
    hworld_free(&w);
}

/* The TSU works in parallel with memory: an answer leaves at the later of
** the two (memory here takes about 12 cycles). */
static void test_tsu_in_parallel(void **state)
{
    (void)state;
    mgs_time at[2];
    uint32_t lat[2] = {0, 50};
    for (int i = 0; i < 2; i++) {
        hworld w;
        hworld_new(&w, lat[i]);
        rd(w.o, 0x000, 4, 0);
        one_run(w.o);
        at[i] = w.o->p.rsp_at[0];
        hworld_free(&w);
    }
    mgs_time d = (at[1] - at[0]) / 1000;
    printf("# read miss: %llu ns without TSU latency, %llu ns with 50\n",
           (unsigned long long)at[0] / 1000, (unsigned long long)at[1] / 1000);
    assert_true(d >= 30 && d <= 50);  /* 50 minus the memory's ~12-18 */
}

/* A read after an acquire does not take a copy whose fetch started before
** it (it could predate a write the acquire must show): it waits for the
** fill and asks again, and the acquire (memory time 100) has expired the
** fill's lease (rts 10): a refetch. Without the acquire it merges into the
** fill and is answered with the first read. */
static mgs_time second_read_lag(bool acquire_between)
{
    hworld w;
    hworld_new(&w, 50);
    rd(w.o, 0x000, 4, 0);
    rd(w.o, 0x000, 4, 20000);
    assert_int_equal(eng_run_until(w.o->eng, 10000), MGS_OK);
    if (acquire_between) {
        /* As if another cache's write had been granted up to 100. */
        ((halcone *)w.h->pd)->mem_time = 100;
        hc_acquire_l2s(w.h->pd, 0);
    }
    one_run(w.o);
    assert_int_equal(w.o->p.nrsp, 2);
    mgs_time lag = w.o->p.rsp_at[1] - w.o->p.rsp_at[0];
    assert_int_equal(wstat(&w, "L1", "coherence_misses"),
                     acquire_between ? 1 : 0);
    hworld_free(&w);
    return lag;
}

static void test_no_merge_across_acquire(void **state)
{
    (void)state;
    mgs_time merged = second_read_lag(false), waited = second_read_lag(true);
    printf("# second read answered %llu ps after the first (merged), %llu "
           "ps after an acquire\n", (unsigned long long)merged,
           (unsigned long long)waited);
    assert_true(merged <= 1000);    /* both drain from one fill */
    assert_true(waited >= 30000);   /* a second trip to memory */
}

/* ---- rules at synchronisation points, refusals ---- */

static void test_sync_rules_and_check(void **state)
{
    (void)state;
    coh_system sys = shared_sys(&PARAMS);
    sys.ngpus = 4;
    sys.shared_memory = true;
    coh_sync s;
    memset(&s, 0, sizeof s);
    coh_halcone.sync(&sys, COH_LAUNCH, 0, &s);
    assert_int_equal(s.l1, COH_INVALIDATE);
    assert_int_equal(s.l2, COH_KEEP);
    coh_point none[] = {COH_KERNEL_END, COH_PEER_RELEASE, COH_COPY_END,
                        COH_HOST_READ};
    for (size_t i = 0; i < 4; i++) {
        memset(&s, 0, sizeof s);
        coh_halcone.sync(&sys, none[i], 1, &s);
        assert_false(coh_sync_any(&s));
    }
    memset(&s, 0, sizeof s);
    coh_halcone.sync(&sys, COH_HOST_WRITE, 0, &s);
    assert_int_equal(s.l2, COH_INVALIDATE);
    assert_int_equal(coh_halcone.fence_l1, COH_INVALIDATE);
    assert_true(coh_halcone.atomics_below);
    assert_int_equal(coh_halcone.check(&sys), MGS_OK);
    sys.l2_write_back = true;
    assert_int_equal(coh_halcone.check(&sys), MGS_ECONFIG);
    assert_non_null(strstr(mgs_error_msg(), "writethrough"));
    sys.l2_write_back = false;
    sys.shared_platform = false;
    assert_int_equal(coh_halcone.check(&sys), MGS_ECONFIG);
    assert_non_null(strstr(mgs_error_msg(), "shared"));
    sys.shared_platform = true;
    sys.ts.tsu_entries = 12;
    assert_int_equal(coh_halcone.check(&sys), MGS_ECONFIG);
    mgs_error_clear();
}

/* ---- whole systems on `shared` ---- */

static void halcone_config(coh_run *r, const char *protocol)
{
    coh_run_config(r, protocol);
    snprintf(r->cfg.l2_write_policy, sizeof r->cfg.l2_write_policy,
             "writethrough");
}

/* Runs workload name (small) on gpus shared GPUs; *flushes, *coh_misses
** and *overflows (may be NULL) receive the L2s' statistics. */
static int run_shared(const char *protocol, const char *name, int gpus,
                      int ts_max, double *flushes, double *coh_misses,
                      double *overflows)
{
    wl_args a;
    const mgs_workload *wl = coh_small_args(name, gpus, true, &a);
    coh_run r;
    halcone_config(&r, protocol);
    if (ts_max)
        r.cfg.halcone_ts_max = ts_max;
    coh_run_start(&r, "shared", gpus);
    int rc = wl->run(r.rt, &a);
    if (flushes)
        *flushes = coh_stat_sum(&r, "GPU", "flushes");
    if (coh_misses) {
        *coh_misses = 0;
        for (int g = 0; g < gpus; g++) {
            char l2s[32];
            snprintf(l2s, sizeof l2s, "GPU[%d].L2*", g);
            *coh_misses += rt_rig_stat(&r, l2s, "coherence_misses", NULL);
        }
    }
    if (overflows)
        *overflows = rt_rig_stat(&r, "Stack*", "ts_overflows", NULL);
    coh_run_close(&r);
    return rc;
}

static void test_xtreme_no_flushes(void **state)
{
    (void)state;
    const char *names[] = {"xtreme1", "xtreme2", "xtreme3"};
    for (int i = 0; i < 3; i++) {
        double fl = -1, cm = -1;
        assert_int_equal(run_shared("halcone", names[i], 4, 0, &fl, &cm, NULL),
                         MGS_OK);
        printf("# %s on 4 shared GPUs: %.0f flushes, %.0f L2 coherence "
               "misses\n", names[i], fl, cm);
        assert_true(fl == 0);   /* no kernel-boundary write-back, anywhere */
    }
}

static void test_overflow_keeps_correctness(void **state)
{
    (void)state;
    double ov = 0;
    assert_int_equal(run_shared("halcone", "xtreme3", 2, 64, NULL, NULL, &ov),
                     MGS_OK);
    printf("# xtreme3 with ts_max = 64: %.0f re-initialisations\n", ov);
    assert_true(ov > 0);
}

static void register_no_lease(void)
{
    if (!coh_find(coh_halcone_no_lease.name))
        assert_int_equal(coh_register(&coh_halcone_no_lease), MGS_OK);
}

static void test_without_lease_check_fails(void **state)
{
    (void)state;
    register_no_lease();
    assert_int_equal(run_shared("halcone-no-lease", "xtreme3", 2, 0, NULL,
                                NULL, NULL), MGS_EVERIFY);
}

/* kernels/fence_pass.hip on 2 shared GPUs, one work-group on each: the
** reader (GPU 1) caches the zeroed data, the writer (GPU 0) rewrites it,
** fences and raises a flag (atomics: at memory), the reader spins on the
** flag (liveness), fences (the acquire) and reads the data again. Returns
** how many of the reader's sums are stale. */
#define FENCE_N 1024
#define FENCE_BLOCK COH_FENCE_BLOCK

static int fence_pass_stale(const char *protocol)
{
    coh_run r;
    halcone_config(&r, protocol);
    coh_run_start(&r, "shared", 2);
    int stale = coh_fence_pass_stale(&r, FENCE_N);
    coh_run_close(&r);
    return stale;
}

static void test_fence_across_gpus(void **state)
{
    (void)state;
    register_no_lease();
    assert_int_equal(fence_pass_stale("halcone"), 0);
    int stale = fence_pass_stale("halcone-no-lease");
    printf("# fence_pass across 2 shared GPUs without the lease check: %d "
           "of %d sums stale\n", stale, FENCE_BLOCK);
    assert_true(stale > 0);
}

/* 4 GPUs x NA atomicAdds on one counter (isa_atomics): performed at
** memory they sum up, under halcone and under nc (several L2s over one
** memory: the platform performs atomics at memory whatever the protocol;
** in each GPU's L2 they summed to 1,024). */
static uint64_t atomics_sum(const char *protocol)
{
    coh_run r;
    if (!strcmp(protocol, "halcone"))
        halcone_config(&r, protocol);
    else
        coh_run_config(&r, protocol);
    coh_run_start(&r, "shared", 4);
    int32_t g[8];
    uint64_t g64[4];
    coh_isa_atomics(r.rt, 4096, g, g64);
    coh_run_close(&r);
    return g64[0];
}

static void test_atomics_at_memory(void **state)
{
    (void)state;
    uint64_t h = atomics_sum("halcone"), n = atomics_sum("nc");
    printf("# 4 shared GPUs, 4096 atomicAdds: %llu under halcone, %llu under "
           "nc\n", (unsigned long long)h, (unsigned long long)n);
    assert_int_equal(h, 4096);
    assert_int_equal(n, 4096);
}

/* ---- the random memory tester over 4 shared GPUs ---- */

#define TESTER_MEM (64u * 1024)

static void test_random_tester(void **state)
{
    (void)state;
    const char *env = getenv("MGSIM_HALCONE_OPS");
    uint64_t total = env && *env ? strtoull(env, NULL, 10) : 100000;
    platform_config pc;
    tester_rig_small_gpus(&pc, PLATFORM_SHARED, 4, TESTER_MEM);
    pc.gpu.l2.size = 8 * 1024;    /* small: lines are evicted, refetched */
    pc.gpu.l2.write_policy = CACHE_WRITE_THROUGH;
    pc.coh_ts.tsu_entries = 64;   /* small: TSU entries are evicted */
    pc.coh_ts.ts_max = 256;       /* small: timestamps overflow */
    snprintf(pc.coherence, sizeof pc.coherence, "halcone");
    tester_rig tr;
    tester_rig_platform(&tr, &pc);
    mem_tester_config tc;
    /* Write-through everywhere: memory equals the reference. */
    tester_rig_run_owned(&tr, &pc, total, 11, &tc);
    rt_rig r = {.stats = tr.st};
    double ins = rt_rig_stat(&r, "Stack*", "tsu_insertions", NULL);
    double ev = rt_rig_stat(&r, "Stack*", "tsu_evictions", NULL);
    double ov = rt_rig_stat(&r, "Stack*", "ts_overflows", NULL);
    double cm = rt_rig_stat(&r, "GPU*", "coherence_misses", NULL);
    printf("# tester: %llu ops on 4 shared GPUs, %llu bytes checked; TSU "
           "%.0f insertions, %.0f evictions, %.0f overflows; %.0f coherence "
           "misses\n", (unsigned long long)(tc.ops_per_agent * tc.agents),
           (unsigned long long)mem_tester_checked(tr.t), ins, ev, ov, cm);
    assert_true(ev > 0 && cm > 0 && ov > 0);
    tester_rig_free(&tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tsu_algorithm3),
        cmocka_unit_test(test_tsu_eviction_and_floor),
        cmocka_unit_test(test_tsu_notice_and_overflow),
        cmocka_unit_test(test_cache_rules_exact),
        cmocka_unit_test(test_tsu_in_parallel),
        cmocka_unit_test(test_no_merge_across_acquire),
        cmocka_unit_test(test_sync_rules_and_check),
        cmocka_unit_test(test_xtreme_no_flushes),
        cmocka_unit_test(test_overflow_keeps_correctness),
        cmocka_unit_test(test_without_lease_check_fails),
        cmocka_unit_test(test_fence_across_gpus),
        cmocka_unit_test(test_atomics_at_memory),
        cmocka_unit_test(test_random_tester),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
