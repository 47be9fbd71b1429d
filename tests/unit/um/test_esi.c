/*
** The ESI protocol (src/um/esi_dir.c, migrator.c; docs/memory-management.md):
**   - the IOMMU's directory driven by a script of faults: the states each
**     step leaves, and the messages its plan asks for (who supplies, whose
**     copies go, who is downgraded), under esi and under migrate;
**   - the supplier among several sharers is spread and deterministic;
**   - end to end (timing, unified GPUs): mm's input pages are replicated,
**     not moved, and it verifies; km (a page written by one GPU after
**     others read it, and host copies into replicated pages) verifies;
**   - the broken variant whose writes leave the other replicas in place
**     fails verification (and the same run verifies without the break);
**   - pieces (pasi): a script of splits, plans on halves and merges
**     (blocked while a range is in flight); mt splits and verifies, and
**     fails verification when a split sends the wrong half's bytes or a
**     move skips its copy;
**   - two identical esi runs give identical statistics.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/um/um_rig.h"
#include "um/esi_dir.h"
#include "um/um.h"

/* ---- the directory, by script ------------------------------------------ */

/* One step: GPU g reads or writes page P; the plan it must produce and
** the states of GPUs 0-3 once it is committed ("IESI": GPU 0 I, 1 E...). */
typedef struct step {
    uint32_t gpu;
    bool write;
    esi_kind kind;
    int supplier;             /* -2: any sharer (random pick) */
    uint64_t invalidate, downgrade;
    const char *after;
} step;

static char state_char(esi_state s)
{
    return s == ESI_E ? 'E' : s == ESI_S ? 'S' : 'I';
}

static void run_script(esi_dir *d, uint64_t page, const step *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        esi_plan p = esi_dir_plan(d, page, s[i].gpu, s[i].write);
        if (p.kind != s[i].kind || p.invalidate != s[i].invalidate ||
            p.downgrade != s[i].downgrade ||
            (s[i].supplier != -2 && p.supplier != s[i].supplier))
            fail_msg("step %zu: kind %d supplier %d invalidate 0x%llx "
                     "downgrade 0x%llx", i, p.kind, p.supplier,
                     (unsigned long long)p.invalidate,
                     (unsigned long long)p.downgrade);
        if (s[i].supplier == -2)
            assert_true(p.supplier >= 0 &&
                        (esi_dir_holders(d, page) >> p.supplier & 1));
        esi_dir_commit(d, page, s[i].gpu, &p);
        char got[5] = {0};
        for (uint32_t g = 0; g < 4; g++)
            got[g] = state_char(esi_dir_state(d, page, g));
        if (strcmp(got, s[i].after))
            fail_msg("step %zu: states %s, expected %s", i, got, s[i].after);
    }
}

static void test_dir_esi_script(void **state)
{
    (void)state;
    esi_dir *d = esi_dir_new(4, false, 1, 0);
    assert_false(esi_dir_known(d, 7));
    esi_dir_seed(d, 7, 0, 0);    /* placed on GPU 0: Exclusive there */
    assert_true(esi_dir_known(d, 7));
    static const step s[] = {
        /* GPU 0 reads its own page: nothing. */
        {0, false, ESI_NOTHING, -1, 0, 0, "EIII"},
        /* GPU 1 reads: GPU 0 supplies and goes read-only; both Shared. */
        {1, false, ESI_FETCH, 0, 0, 0x1, "SSII"},
        /* GPU 2 reads: one of the sharers supplies, nobody downgraded. */
        {2, false, ESI_FETCH, -2, 0, 0, "SSSI"},
        /* GPU 2 reads again: it has it. */
        {2, false, ESI_NOTHING, -1, 0, 0, "SSSI"},
        /* GPU 1 writes: it holds a copy, so no data moves (an upgrade);
        ** GPUs 0 and 2 are invalidated. */
        {1, true, ESI_UPGRADE, -1, 0x5, 0, "IEII"},
        /* GPU 1 writes again: Exclusive already. */
        {1, true, ESI_NOTHING, -1, 0, 0, "IEII"},
        /* GPU 3 writes: GPU 1 supplies and is invalidated (a move). */
        {3, true, ESI_FETCH, 1, 0x2, 0, "IIIE"},
        /* GPU 0 and 2 read: replicas again. */
        {0, false, ESI_FETCH, 3, 0, 0x8, "SIIS"},
        {2, false, ESI_FETCH, -2, 0, 0, "SISS"},
        /* GPU 1 (Invalid) writes: a sharer supplies; every copy goes. */
        {1, true, ESI_FETCH, -2, 0xd, 0, "IEII"},
    };
    run_script(d, 7, s, sizeof s / sizeof *s);

    /* A page no GPU holds (managed memory, first touch): from staging. */
    esi_dir_seed(d, 9, 0, -1);
    static const step t[] = {
        {2, false, ESI_FETCH, -1, 0, 0, "IIEI"},
        {0, false, ESI_FETCH, 2, 0, 0x4, "SISI"},
    };
    run_script(d, 9, t, sizeof t / sizeof *t);
    /* The first page is untouched by the second's steps. */
    assert_int_equal(esi_dir_state(d, 7, 1), ESI_E);
    esi_dir_free(d);
}

/* migrate: every fault is a write; pages move, never replicate. */
static void test_dir_migrate_script(void **state)
{
    (void)state;
    esi_dir *d = esi_dir_new(4, true, 1, 0);
    esi_dir_seed(d, 3, 0, 1);
    static const step s[] = {
        {0, false, ESI_FETCH, 1, 0x2, 0, "EIII"},
        {0, false, ESI_NOTHING, -1, 0, 0, "EIII"},
        {3, false, ESI_FETCH, 0, 0x1, 0, "IIIE"},
        {2, true, ESI_FETCH, 3, 0x8, 0, "IIEI"},
    };
    run_script(d, 3, s, sizeof s / sizeof *s);
    esi_dir_free(d);
}

/* Reads from a page shared by four GPUs spread over the sharers, the same
** way every time. */
static void test_dir_supplier_pick(void **state)
{
    (void)state;
    int first[64], count[4] = {0};
    for (int round = 0; round < 2; round++) {
        esi_dir *d = esi_dir_new(5, false, 42, 0);
        for (uint64_t page = 0; page < 64; page++) {
            esi_dir_seed(d, page, 0, 0);
            for (uint32_t g = 1; g < 4; g++) {
                esi_plan p = esi_dir_plan(d, page, g, false);
                esi_dir_commit(d, page, g, &p);
            }
            esi_plan p = esi_dir_plan(d, page, 4, false);
            assert_int_equal(p.kind, ESI_FETCH);
            assert_true(p.supplier >= 0 && p.supplier < 4);
            if (round == 0) {
                first[page] = p.supplier;
                count[p.supplier]++;
            } else {
                assert_int_equal(p.supplier, first[page]);
            }
            esi_dir_commit(d, page, 4, &p);
        }
        esi_dir_free(d);
    }
    for (int g = 0; g < 4; g++)
        assert_true(count[g] >= 4);   /* every sharer supplies some */
}

/* The piece holding page: "first+pages". */
static void expect_piece(const esi_dir *d, uint64_t page, uint64_t first,
                         unsigned order)
{
    uint64_t f;
    unsigned o;
    esi_dir_piece(d, page, &f, &o);
    if (f != first || o != order)
        fail_msg("page %llu: piece %llu order %u, expected %llu order %u",
                 (unsigned long long)page, (unsigned long long)f, o,
                 (unsigned long long)first, order);
}

static uint64_t busy_lo, busy_n;

static bool busy_range(void *ud, uint64_t first, uint64_t n)
{
    (void)ud;
    return busy_n && busy_lo < first + n && first < busy_lo + busy_n;
}

/* pasi: a piece of 8 pages (orders up to 3) at page 16, Exclusive on GPU
** 0. GPU 1 reads page 21: a conflict (GPU 0 would be downgraded), so the
** piece halves and only the half with page 21 (pages 20-23) is replicated;
** GPU 1 then writes page 23: the half halves again (22-23 moves to GPU 1,
** E, and GPU 0's copy goes). When GPU 1 also takes 20-21 Exclusive, the
** two quarters agree and merge into 20-23; a busy range blocks a merge. */
static void test_dir_pieces_script(void **state)
{
    (void)state;
    esi_dir *d = esi_dir_new(4, false, 1, 3);
    esi_dir_seed(d, 16, 3, 0);
    expect_piece(d, 21, 16, 3);
    assert_int_equal(esi_dir_state(d, 19, 0), ESI_E);
    /* The read: the migrator splits on the conflict, then fetches. */
    esi_plan p = esi_dir_plan(d, 21, 1, false);
    assert_int_equal(p.kind, ESI_FETCH);
    assert_int_equal(p.downgrade, 0x1);
    assert_true(esi_dir_split(d, 21, 0));
    expect_piece(d, 21, 20, 2);
    expect_piece(d, 17, 16, 2);
    esi_dir_commit(d, 21, 1, &p);
    assert_int_equal(esi_dir_state(d, 22, 0), ESI_S);
    assert_int_equal(esi_dir_state(d, 22, 1), ESI_S);
    assert_int_equal(esi_dir_state(d, 17, 0), ESI_E);   /* the other half */
    assert_int_equal(esi_dir_state(d, 17, 1), ESI_I);
    /* Halves that disagree do not merge. */
    assert_int_equal(esi_dir_merge(d, 21, 0, NULL, NULL), 0);
    /* The write: an upgrade of GPU 1's replica, after a split. */
    p = esi_dir_plan(d, 23, 1, true);
    assert_int_equal(p.kind, ESI_UPGRADE);
    assert_int_equal(p.invalidate, 0x1);
    assert_true(esi_dir_split(d, 23, 0));
    expect_piece(d, 23, 22, 1);
    esi_dir_commit(d, 23, 1, &p);
    assert_int_equal(esi_dir_state(d, 22, 1), ESI_E);
    assert_int_equal(esi_dir_state(d, 22, 0), ESI_I);
    assert_int_equal(esi_dir_state(d, 20, 0), ESI_S);   /* 20-21 as was */
    /* 20-21 goes Exclusive to GPU 1 too: now the quarters agree. */
    p = esi_dir_plan(d, 20, 1, true);
    assert_int_equal(p.kind, ESI_UPGRADE);
    esi_dir_commit(d, 20, 1, &p);
    busy_lo = 22;
    busy_n = 1;
    assert_int_equal(esi_dir_merge(d, 20, 0, busy_range, NULL), 0);
    busy_n = 0;
    assert_int_equal(esi_dir_merge(d, 20, 0, busy_range, NULL), 1);
    expect_piece(d, 23, 20, 2);
    assert_int_equal(esi_dir_state(d, 21, 1), ESI_E);
    /* One page cannot split; the largest order does not merge further. */
    esi_dir_seed(d, 40, 0, 2);
    assert_false(esi_dir_split(d, 40, 0));
    esi_dir_free(d);
}

/* ---- end to end ------------------------------------------------------- */

static const char *scheme = "memory.management=esi";

static int run_wl(rt_rig *r, const char *name, int gpus)
{
    return um_run(r, scheme, name, gpus, NULL);
}

/* mm: every GPU reads all of A and B; under esi the pages are replicated
** (each GPU maps its own read-only copy), none moves. */
static void test_mm_replicates(void **state)
{
    (void)state;
    rt_rig r;
    assert_int_equal(run_wl(&r, "mm", 4), MGS_OK);
    double reps = stat_of(&r, "UM.Migrator", "replicas");
    double moves = stat_of(&r, "UM.Migrator", "migrations");
    assert_true(reps > 20);
    assert_true(moves == 0);
    assert_true(stat_of(&r, "UM.Migrator", "bytes_migrated") ==
                (reps + moves) * 4096);
    /* A replica leaves its supplier with every line, and it stays there. */
    assert_true(pmc_sum(&r, "lines_out", 4) == reps * 64);
    assert_true(pmc_sum(&r, "flushes", 4) == 0);
    /* Only an Exclusive owner's translations go (its writes must fault). */
    assert_true(stat_of(&r, "UM.Migrator", "shootdowns") ==
                stat_of(&r, "UM.Migrator", "downgrades"));
    rt_rig_fini(&r);
}

/* km: GPUs write pages others hold replicas of, and the host copies new
** centroids into replicated pages between kernels. */
static void test_km_invalidates(void **state)
{
    (void)state;
    rt_rig r;
    assert_int_equal(run_wl(&r, "km", 4), MGS_OK);
    assert_true(stat_of(&r, "UM.Migrator", "replicas") > 0);
    assert_true(stat_of(&r, "UM.Migrator", "write_faults") > 0);
    assert_true(stat_of(&r, "UM.Migrator", "host_collapses") > 0);
    rt_rig_fini(&r);
}

/* Writes that leave the other GPUs' replicas in place: those GPUs read
** stale bytes and verification fails; the same runs with the invalidations
** verify. (mm2 and bfs read pages in one kernel that another GPU writes
** in the next.) */
static void test_broken_invalidate_fails(void **state)
{
    (void)state;
    static const char *const names[] = {"mm2", "bfs"};
    for (size_t i = 0; i < 2; i++) {
        rt_rig r;
        um_test_break = UM_BREAK_NO_INVALIDATE;
        int rc = run_wl(&r, names[i], 2);
        um_test_break = UM_BREAK_NONE;
        assert_int_equal(rc, MGS_EVERIFY);
        assert_true(stat_of(&r, "UM.Migrator", "replicas") > 0);
        assert_true(stat_of(&r, "UM.Migrator", "invalidations") == 0);
        rt_rig_fini(&r);
        assert_int_equal(run_wl(&r, names[i], 2), MGS_OK);
        assert_true(stat_of(&r, "UM.Migrator", "invalidations") > 0);
        assert_true(pmc_sum(&r, "copies_dropped", 2) ==
                    stat_of(&r, "UM.Migrator", "invalidations"));
        rt_rig_fini(&r);
    }
}

/* pasi: mt's buffers start as large pieces and split on conflicts;
** it verifies. A split that sends the other half's bytes, or a move that
** skips the copy, fails verification. */
static void test_pasi_splits_and_breaks(void **state)
{
    (void)state;
    scheme = "memory.management=pasi";
    rt_rig r;
    assert_int_equal(run_wl(&r, "mt", 4), MGS_OK);
    assert_true(stat_of(&r, "UM.Migrator", "splits") > 10);
    assert_true(stat_of(&r, "UM.Migrator", "merges") > 0);
    rt_rig_fini(&r);
    um_test_break = UM_BREAK_WRONG_HALF;
    int rc = run_wl(&r, "mt", 4);
    um_test_break = UM_BREAK_NONE;
    assert_int_equal(rc, MGS_EVERIFY);
    assert_true(stat_of(&r, "UM.Migrator", "splits") > 0);
    rt_rig_fini(&r);
    um_test_break = UM_BREAK_NO_COPY;
    rc = run_wl(&r, "mt", 4);
    um_test_break = UM_BREAK_NONE;
    assert_int_equal(rc, MGS_EVERIFY);
    rt_rig_fini(&r);
    scheme = "memory.management=esi";
}

static void test_deterministic(void **state)
{
    (void)state;
    char *a = um_all_stats(scheme, "mm", 4);
    char *b = um_all_stats(scheme, "mm", 4);
    assert_non_null(strstr(a, "UM.Migrator replicas"));
    assert_string_equal(a, b);
    free(a);
    free(b);
}

/* pasi on mt with interleaved pages (every piece starts as one page, so
** all of PASI's large pieces come from merges): with no merge hold, halves
** that meet on one GPU join at once and the next conflict splits them
** again (the churn that kept mt at --size study from finishing); the
** default hold (memory.pasi_merge_hold) bounds it. Both verify. */
static void run_mt_pasi(rt_rig *r, const char *hold)
{
    const char *sets[] = {"sim.mode=timing", "memory.management=pasi",
                          "platform.type=unified",
                          "platform.placement=interleaved", hold, NULL};
    rt_rig_configure(r, sets);
    rt_rig_start(r, MGS_MODE_TIMING, 4, 256ull << 20, "unified");
    const mgs_workload *wl = wl_find("mt");
    wl_args a;
    suite_args(wl, &a, 4, 1);
    a.param[suite_param_index(wl, "rows")] = 512;
    a.param[suite_param_index(wl, "cols")] = 512;
    assert_int_equal(wl->run(r->rt, &a), MGS_OK);
}

static void test_pasi_merge_hold_bounds_churn(void **state)
{
    (void)state;
    rt_rig r;
    run_mt_pasi(&r, "memory.pasi_merge_hold=0");
    double merges0 = stat_of(&r, "UM.Migrator", "merges");
    double splits0 = stat_of(&r, "UM.Migrator", "splits");
    double faults0 = stat_of(&r, "UM.Migrator", "faults");
    rt_rig_fini(&r);
    run_mt_pasi(&r, "memory.pasi_merge_hold=100us");
    double merges = stat_of(&r, "UM.Migrator", "merges");
    double splits = stat_of(&r, "UM.Migrator", "splits");
    double faults = stat_of(&r, "UM.Migrator", "faults");
    rt_rig_fini(&r);
    printf("mt 512x512 pasi, hold 0: %.0f faults %.0f splits %.0f merges; "
           "hold 100us: %.0f faults %.0f splits %.0f merges\n", faults0,
           splits0, merges0, faults, splits, merges);
    assert_true(merges0 > 100);              /* the churn is there */
    assert_true(splits0 > 100);
    assert_true(merges * 2 < merges0);        /* and the hold bounds it */
    assert_true(splits < splits0);
    assert_true(faults < faults0 * 1.05);
}

/* The Locality API's placement under migrating pages (mgs_rt_place): aes
** is partitioned, so with each member's blocks placed on it no GPU
** faults, under pasi, esi and migrate, while the plain variant on
** interleaved pages faults (the placed pages used to stay mapped by their
** old holder only: every GPU faulted on its own pages). */
static void test_placement_under_migration(void **state)
{
    (void)state;
    static const char *const schemes[] = {"memory.management=pasi",
                                          "memory.management=esi",
                                          "memory.management=migrate"};
    for (int i = 0; i < 3; i++)
        for (int loc = 0; loc <= 1; loc++) {
            const char *sets[] = {"sim.mode=timing", schemes[i],
                                  "platform.type=unified",
                                  "platform.placement=interleaved", NULL};
            rt_rig r;
            rt_rig_configure(&r, sets);
            rt_rig_start(&r, MGS_MODE_TIMING, 4, 256ull << 20, "unified");
            const mgs_workload *wl = wl_find("aes");
            wl_args a;
            suite_args(wl, &a, 4, 1);
            a.param[suite_param_index(wl, "locality")] = loc;
            assert_int_equal(wl->run(r.rt, &a), MGS_OK);
            double faults = stat_of(&r, "UM.Migrator", "faults");
            if (loc)
                assert_true(faults == 0);
            else
                assert_true(faults > 10);
            rt_rig_fini(&r);
        }
}

/* The merge hold in the directory: halves split at t join only from
** t + hold on; a joined piece keeps the later split time. */
static void test_dir_merge_hold(void **state)
{
    (void)state;
    esi_dir *d = esi_dir_new(2, false, 1, 2);
    esi_dir_set_merge_hold(d, 1000);
    esi_dir_seed(d, 0, 2, 0);                 /* pages 0-3 at GPU 0 */
    assert_true(esi_dir_split(d, 0, 5000));   /* 0-1, 2-3 */
    assert_true(esi_dir_split(d, 0, 5500));   /* 0, 1 */
    assert_int_equal(esi_dir_merge(d, 0, 5999, NULL, NULL), 0);
    assert_int_equal(esi_dir_merge(d, 0, 6000, NULL, NULL), 0); /* 0, 1 */
    expect_piece(d, 0, 0, 0);
    assert_int_equal(esi_dir_merge(d, 0, 6499, NULL, NULL), 0);
    assert_int_equal(esi_dir_merge(d, 0, 6500, NULL, NULL), 2);
    expect_piece(d, 3, 0, 2);
    /* The whole piece was last split at 5500: split again, the clock of
    ** the new halves starts over. */
    assert_true(esi_dir_split(d, 3, 9000));
    assert_int_equal(esi_dir_merge(d, 3, 9999, NULL, NULL), 0);
    assert_int_equal(esi_dir_merge(d, 3, 10000, NULL, NULL), 1);
    /* No hold: at once. */
    esi_dir_set_merge_hold(d, 0);
    assert_true(esi_dir_split(d, 3, 20000));
    assert_int_equal(esi_dir_merge(d, 3, 20000, NULL, NULL), 1);
    esi_dir_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dir_esi_script),
        cmocka_unit_test(test_dir_migrate_script),
        cmocka_unit_test(test_dir_supplier_pick),
        cmocka_unit_test(test_dir_pieces_script),
        cmocka_unit_test(test_dir_merge_hold),
        cmocka_unit_test(test_mm_replicates),
        cmocka_unit_test(test_km_invalidates),
        cmocka_unit_test(test_broken_invalidate_fails),
        cmocka_unit_test(test_pasi_splits_and_breaks),
        cmocka_unit_test(test_pasi_merge_hold_bounds_churn),
        cmocka_unit_test(test_placement_under_migration),
        cmocka_unit_test(test_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
