/*
** CARVE (src/coh/carve/, docs/coherence.md "CARVE"):
**   - the RDC tag store driven by a scripted sequence: miss, fetch, fill,
**     hit, an alias evicting, invalidation, a fill refused after an
**     invalidation landed during its fetch, epochs and their wrap (sweep),
**     the set mapping (same channel as the cached line), ranges;
**   - the IMST state machine: every transition and broadcast decision,
**     the probabilistic reset at p = 0 and p = 1, the broken variant;
**   - check() refusals;
**   - whole systems: workloads with read-write sharing across kernels
**     verify under carve-swc and carve-hwc on 2 and 4 GPUs with the RDC
**     hitting; carve-nc (no coherence) and a broken IMST that forgets
**     remote readers compute wrong results (the RDC's bytes are real);
**   - the fenced litmus tests across 2 GPUs (MP on 4) are clean under
**     carve-swc and carve-hwc; MP shows its forbidden outcome when the
**     IMST misses sharers (carve-hwc-broken-imst) and when carve-swc's
**     acquire fences stop at the L1 (carve-swc-broken-fence); carve-hwc's
**     invalidations travel as messages and are counted;
**   - the carved capacity is not allocatable;
**   - the random memory tester over 4 GPUs with tiny L2s and RDCs
**     (MGSIM_CARVE_OPS=1000000 for the long run).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coh/carve/imst.h"
#include "coh/carve/rdc.h"
#include "coh/coh.h"
#include "litmus/litmus.h"
#include "mem/tester.h"
#include "mgsim/errors.h"
#include "platform/platform.h"
#include "sim/stats.h"

#include "coh_run.h"
#include "tests/unit/mem/mem_world.h"
#include "tests/unit/platform/tester_rig.h"

extern const coh_protocol coh_carve_swc, coh_carve_hwc, coh_carve_nc;
extern const coh_protocol coh_carve_hwc_broken_imst;
extern const coh_protocol coh_carve_swc_broken_fence;
extern const coh_protocol coh_carve_swc_broken_flush;

static void register_broken(void)
{
    if (!coh_find(coh_carve_swc_broken_flush.name))
        assert_int_equal(coh_register(&coh_carve_swc_broken_flush), MGS_OK);
    if (!coh_find(coh_carve_hwc_broken_imst.name))
        assert_int_equal(coh_register(&coh_carve_hwc_broken_imst), MGS_OK);
    if (!coh_find(coh_carve_swc_broken_fence.name))
        assert_int_equal(coh_register(&coh_carve_swc_broken_fence), MGS_OK);
}

/* ---- the tag store ---- */

static void test_rdc_script(void **state)
{
    (void)state;
    rdc r;
    /* 64 KiB over 2 slices of 4 KiB interleave, 64 B lines: 512 sets per
    ** slice; this is slice 0; epochs of 2 bits. */
    rdc_init(&r, 64 * 1024, 64, 2, 0, 4096, true, 2);
    assert_int_equal(r.sets, 512);
    uint64_t a = 0x100000040ull;   /* slice 0: (a / 4096) % 2 == 0 */
    assert_int_equal((a / 4096) % 2, 0);
    /* Cold: miss; a fetch makes it FETCHING, still no hit. */
    assert_false(rdc_hit(&r, a));
    uint16_t s = rdc_fetch(&r, a);
    assert_false(rdc_hit(&r, a));
    assert_int_equal(rdc_peek(&r, rdc_set(&r, a)).state, RDC_FETCHING);
    /* Fill: hit. */
    assert_true(rdc_fill(&r, a, s, r.epoch));
    assert_true(rdc_hit(&r, a));
    assert_int_equal(r.n.fills, 1);
    /* An alias (same set, another tag) evicts it. The same offset of the
    ** next span is not one (the sets rotate with the tag); search. */
    assert_int_not_equal(rdc_set(&r, a + 64 * 1024), rdc_set(&r, a));
    uint64_t b = a + 64 * 1024;
    while ((b / 4096) % 2 != 0 || rdc_set(&r, b) != rdc_set(&r, a))
        b += 64;
    assert_int_equal(rdc_offset(&r, b), rdc_offset(&r, a));
    assert_int_not_equal(rdc_tag(&r, b), rdc_tag(&r, a));
    assert_false(rdc_hit(&r, b));
    s = rdc_fetch(&r, b);
    assert_int_equal(r.n.evictions, 1);
    assert_false(rdc_hit(&r, a));
    assert_true(rdc_fill(&r, b, s, r.epoch));
    assert_true(rdc_hit(&r, b));
    assert_false(rdc_hit(&r, a));
    /* Invalidating the absent tag does nothing; the present one drops. */
    assert_false(rdc_invalidate(&r, a));
    assert_true(rdc_invalidate(&r, b));
    assert_false(rdc_hit(&r, b));
    assert_int_equal(r.n.invalidations, 1);
    /* An invalidation during the fetch: the fill is refused (stale). */
    s = rdc_fetch(&r, a);
    assert_false(rdc_invalidate(&r, a)); /* FETCHING: dropped, not counted */
    assert_false(rdc_fill(&r, a, s, r.epoch));
    assert_false(rdc_hit(&r, a));
    /* A second fetch of the set wins over the first. */
    uint16_t s1 = rdc_fetch(&r, a), s2 = rdc_fetch(&r, a);
    assert_false(rdc_fill(&r, a, s1, r.epoch));
    assert_true(rdc_fill(&r, a, s2, r.epoch));
    assert_true(rdc_hit(&r, a));
    /* Epochs: a boundary invalidates everything at once. */
    assert_false(rdc_epoch_bump(&r));
    assert_false(rdc_hit(&r, a));
    /* A fill fetched in the old epoch is not valid in the new one. */
    s = rdc_fetch(&r, a);
    assert_true(rdc_fill(&r, a, s, r.epoch - 1));
    assert_false(rdc_hit(&r, a));
    s = rdc_fetch(&r, a);
    assert_true(rdc_fill(&r, a, s, r.epoch));
    assert_true(rdc_hit(&r, a));
    /* 2-bit counter: the 4th bump wraps and sweeps every set, so a line
    ** of the wrapped-to epoch is not taken for current. */
    assert_false(rdc_epoch_bump(&r));
    assert_false(rdc_epoch_bump(&r));
    assert_true(rdc_epoch_bump(&r));
    assert_int_equal(r.epoch, 0);
    assert_int_equal(r.n.bumps, 4);
    assert_int_equal(r.n.sweeps, 1);
    assert_false(rdc_hit(&r, a));
    assert_int_equal(rdc_peek(&r, rdc_set(&r, a)).state, RDC_INVALID);
    rdc_fini(&r);
}

/* Write-back (the dirty map): a write hit marks bytes dirty, an eviction
** hands the victim's dirty bytes out, a flush visits only the dirty
** lines, and the epoch bump after the flush leaves nothing dirty. */
static void test_rdc_write_back_script(void **state)
{
    (void)state;
    rdc r;
    rdc_init(&r, 64 * 1024, 64, 2, 0, 4096, true, 20);
    uint64_t a = 0x100000040ull, c = a + 2 * 4096, d = a + 4 * 4096;
    uint64_t b = a + 64 * 1024;        /* an alias of a (same set) */
    while ((b / 4096) % 2 != 0 || rdc_set(&r, b) != rdc_set(&r, a))
        b += 64;
    /* A write to an absent line is not a hit (no write-allocate). */
    assert_false(rdc_write_hit(&r, a, 0xf));
    assert_int_equal(r.ndirty, 0);
    for (uint64_t l = a; l <= d; l += 2 * 4096)
        assert_true(rdc_fill(&r, l, rdc_fetch(&r, l), r.epoch));
    /* Write hits: bytes 0-3 of a, then 8-15; c's whole line; d clean. */
    uint16_t seq = rdc_peek(&r, rdc_set(&r, a)).seq;
    assert_true(rdc_write_hit(&r, a, 0xfull));
    assert_true(rdc_write_hit(&r, a, 0xff00ull));
    assert_int_equal(rdc_peek(&r, rdc_set(&r, a)).seq, seq); /* no bump */
    assert_true(rdc_hit(&r, a));
    assert_int_equal(rdc_dirty(&r, a), 0xff0full);
    assert_true(rdc_write_hit(&r, c, ~0ull));
    assert_int_equal(r.ndirty, 2);
    assert_int_equal(r.n.write_hits, 3);
    assert_int_equal(rdc_dirty(&r, d), 0);
    /* Evicting a (a fetch of its alias b): the victim's dirty bytes are
    ** handed out with its address, then the fetch replaces it. */
    uint64_t victim = 0;
    assert_int_equal(rdc_take_victim(&r, a, &victim), 0); /* not an alias */
    assert_int_equal(rdc_take_victim(&r, b, &victim), 0xff0full);
    assert_int_equal(victim, a);
    assert_int_equal(r.ndirty, 1);
    assert_true(rdc_fill(&r, b, rdc_fetch(&r, b), r.epoch));
    assert_int_equal(r.n.dirty_dropped, 0);
    assert_int_equal(r.n.evictions, 1);
    /* b dirty too; then the flush: only the dirty lines (c, b), each
    ** once, with its bytes; a's stale map entry is skipped. */
    assert_true(rdc_write_hit(&r, b, 0x1ull));
    assert_int_equal(r.ndirty, 2);
    uint64_t line, mask, seen = 0, bytes = 0;
    int n = 0;
    while (rdc_dirty_next(&r, &line, &mask)) {
        assert_true(line == b || line == c);
        seen |= line == b ? 1 : 2;
        bytes += (uint64_t)__builtin_popcountll(mask);
        n++;
    }
    assert_int_equal(n, 2);
    assert_int_equal(seen, 3);
    assert_int_equal(bytes, 65);
    assert_int_equal(r.ndirty, 0);
    assert_int_equal(r.n.cleaned, 3);          /* a (victim), b, c */
    assert_int_equal(r.n.cleaned_bytes, 12 + 65);
    /* Flushed lines stay valid and clean until the epoch bump drops them. */
    assert_true(rdc_hit(&r, c) && rdc_dirty(&r, c) == 0);
    assert_false(rdc_dirty_next(&r, &line, &mask));
    assert_false(rdc_epoch_bump(&r));
    assert_false(rdc_hit(&r, c));
    assert_false(rdc_write_hit(&r, c, 1));     /* an old epoch: a miss */
    assert_int_equal(r.n.dirty_dropped, 0);
    /* rdc_clean hands out one line; dropping a dirty line counts. */
    assert_true(rdc_fill(&r, d, rdc_fetch(&r, d), r.epoch));
    assert_true(rdc_write_hit(&r, d, 0x30ull));
    assert_int_equal(rdc_clean(&r, d), 0x30ull);
    assert_int_equal(rdc_clean(&r, d), 0);
    assert_true(rdc_write_hit(&r, d, 0x1ull));
    assert_true(rdc_invalidate(&r, d));
    assert_int_equal(r.n.dirty_dropped, 1);
    assert_int_equal(r.ndirty, 0);
    rdc_fini(&r);
}

static void test_rdc_mapping_and_ranges(void **state)
{
    (void)state;
    rdc r;
    rdc_init(&r, 64 * 1024, 64, 2, 1, 4096, false, 20);
    /* Every line of slice 1 in one tag span has its own set, and the set's
    ** place in the carved region is in the same channel (slice). */
    uint8_t *seen = calloc(r.sets, 1);
    uint64_t base = 3ull << 30;
    for (uint64_t a = base; a < base + r.span; a += 64) {
        if ((a / 4096) % 2 != 1)
            continue;
        uint64_t set = rdc_set(&r, a);
        assert_true(set < r.sets);
        assert_int_equal(seen[set], 0);
        seen[set] = 1;
        assert_int_equal((rdc_offset(&r, a) / 4096) % 2, 1);
    }
    free(seen);
    /* Fill 3 lines of slice 1, drop two with a small range. */
    uint64_t l[3] = {base + 4096, base + 4096 + 64, base + 3 * 4096};
    for (int i = 0; i < 3; i++)
        assert_true(rdc_fill(&r, l[i], rdc_fetch(&r, l[i]), 0));
    assert_int_equal(rdc_invalidate_range(&r, base, 4096 + 100), 2);
    assert_false(rdc_hit(&r, l[0]));
    assert_false(rdc_hit(&r, l[1]));
    assert_true(rdc_hit(&r, l[2]));
    /* A range larger than the cache walks the sets (inverse mapping). */
    assert_int_equal(rdc_invalidate_range(&r, base, 1ull << 30), 1);
    assert_false(rdc_hit(&r, l[2]));
    assert_int_equal(r.n.range_invalidations, 3);
    /* A line outside the range stays. */
    assert_true(rdc_fill(&r, l[2], rdc_fetch(&r, l[2]), 0));
    assert_int_equal(rdc_invalidate_range(&r, base + (1ull << 30),
                                          1ull << 30), 0);
    assert_true(rdc_hit(&r, l[2]));
    rdc_invalidate_all(&r);
    assert_false(rdc_hit(&r, l[2]));
    rdc_fini(&r);
}

/* ---- the IMST ---- */

static void test_imst_script(void **state)
{
    (void)state;
    imst t;
    uint64_t base = 1ull << 30, x = base + 64, y = base + 128, z = base + 192;
    imst_init(&t, base, 1 << 20, 64, 0, 1); /* p = 0: never reset */
    assert_int_equal(imst_get(&t, x), IMST_UNCACHED);
    /* Local traffic: private, no broadcast. */
    imst_local_read(&t, x);
    assert_int_equal(imst_get(&t, x), IMST_PRIVATE);
    assert_false(imst_local_write(&t, x));
    assert_int_equal(imst_get(&t, x), IMST_PRIVATE);
    /* A remote read: read-shared; a local write must broadcast and (p = 0)
    ** leaves it read-write shared. */
    imst_remote_read(&t, x);
    assert_int_equal(imst_get(&t, x), IMST_RS);
    assert_true(imst_local_write(&t, x));
    assert_int_equal(imst_get(&t, x), IMST_RW);
    assert_true(imst_local_write(&t, x));
    imst_remote_read(&t, x);
    assert_int_equal(imst_get(&t, x), IMST_RW);
    /* A remote write to a line nobody else holds: RW, no broadcast; to a
    ** shared line: broadcast. */
    assert_false(imst_remote_write(&t, y));
    assert_int_equal(imst_get(&t, y), IMST_RW);
    assert_true(imst_remote_write(&t, y));
    imst_local_read(&t, z);
    imst_remote_read(&t, z);
    assert_true(imst_remote_write(&t, z));
    assert_int_equal(t.broadcasts, 4);
    assert_int_equal(t.transitions[IMST_UNCACHED][IMST_PRIVATE], 2);
    assert_int_equal(t.transitions[IMST_PRIVATE][IMST_RS], 2);
    assert_int_equal(t.transitions[IMST_RS][IMST_RW], 2);
    imst_fini(&t);
    /* p = 1: a local write to a shared line broadcasts, then private. */
    imst_init(&t, base, 1 << 20, 64, 1000000, 1);
    imst_remote_read(&t, x);
    assert_true(imst_local_write(&t, x));
    assert_int_equal(imst_get(&t, x), IMST_PRIVATE);
    assert_int_equal(t.resets, 1);
    assert_false(imst_local_write(&t, x));
    imst_fini(&t);
    /* p = 0.01 from a fixed seed: about 1 % of 10^5 shared writes. */
    imst_init(&t, base, 1 << 20, 64, 10000, 7);
    for (int i = 0; i < 100000; i++) {
        imst_remote_read(&t, x);
        assert_true(imst_local_write(&t, x));
    }
    assert_in_range(t.resets, 800, 1200);
    imst_fini(&t);
    /* Broken: remote readers are forgotten, the home's write is silent. */
    imst_init(&t, base, 1 << 20, 64, 0, 1);
    t.break_remote_read = true;
    imst_remote_read(&t, x);
    assert_int_equal(imst_get(&t, x), IMST_PRIVATE);
    assert_false(imst_local_write(&t, x));
    imst_fini(&t);
}

/* ---- check() ---- */

static coh_system carve_sys(uint32_t ngpus)
{
    coh_system s;
    memset(&s, 0, sizeof s);
    s.ngpus = ngpus;
    s.rdma = true;
    s.l2_write_back = true;
    s.line = 64;
    s.remote_cache = COH_REMOTE_L2;
    s.l2_banks = 16;
    s.l2_interleave = 4096;
    s.mem_per_gpu = 4ull << 30;
    s.carve = (coh_carve_params){.rdc_bytes = 2ull << 30, .epoch_bits = 20,
                                 .imst_reset_ppm = 10000};
    return s;
}

static void expect_refused(const coh_system *s, const char *why)
{
    assert_int_equal(coh_carve_hwc.check(s), MGS_ECONFIG);
    if (!strstr(mgs_error_msg(), why))
        fail_msg("'%s' does not say '%s'", mgs_error_msg(), why);
    mgs_error_clear();
}

static void test_check_and_sync(void **state)
{
    (void)state;
    coh_system s = carve_sys(4);
    assert_int_equal(coh_carve_swc.check(&s), MGS_OK);
    s.remote_cache = COH_REMOTE_L1;
    expect_refused(&s, "coherence.remote_cache = l2");
    s = carve_sys(4);
    s.carve.rdc_bytes = 4ull << 30;
    expect_refused(&s, "carve.rdc_size");
    s.carve.rdc_bytes = (1ull << 30) + 4096;
    expect_refused(&s, "carve.rdc_size");
    s = carve_sys(1);
    s.rdma = false;
    assert_int_equal(coh_carve_nc.check(&s), MGS_OK);
    /* nc's rules, plus host writes drop the range (every GPU). */
    s = carve_sys(4);
    coh_sync o;
    memset(&o, 0, sizeof o);
    coh_carve_swc.sync(&s, COH_KERNEL_END, 0, &o);
    assert_int_equal(o.l2, COH_WRITEBACK_INVALIDATE);
    assert_true(o.l2_all);
    memset(&o, 0, sizeof o);
    coh_carve_hwc.sync(&s, COH_HOST_WRITE, 2, &o);
    assert_int_equal(o.l2, COH_INVALIDATE);
    memset(&o, 0, sizeof o);
    coh_carve_hwc.sync(&s, COH_LAUNCH, 2, &o);
    assert_int_equal(o.l1, COH_INVALIDATE);
    assert_int_equal(o.l2, COH_KEEP);
}

/* ---- whole systems ---- */

typedef struct carve_counts {
    double hits, probes, fills, bumps, broadcasts, inv_received;
    double write_hits, writebacks, flush_lines, flushes, dropped;
} carve_counts;

/* write: carve.rdc_write ("through" or "back"). */
static int run_carve_write(const char *protocol, const char *write,
                           const char *name, int gpus, carve_counts *n)
{
    wl_args a;
    const mgs_workload *wl = coh_small_args(name, gpus, false, &a);
    coh_run r;
    coh_run_config(&r, protocol);
    snprintf(r.cfg.coherence_remote_cache, sizeof r.cfg.coherence_remote_cache,
             "l2");
    r.cfg.carve_rdc_size = 64ull << 20;
    snprintf(r.cfg.carve_rdc_write, sizeof r.cfg.carve_rdc_write, "%s",
             write);
    coh_run_start(&r, "discrete", gpus);
    int rc = wl->run(r.rt, &a);
    if (n) {
        n->hits = coh_stat_sum(&r, "GPU", "rdc_hits");
        n->probes = coh_stat_sum(&r, "GPU", "rdc_probes");
        n->fills = coh_stat_sum(&r, "GPU", "rdc_fills");
        n->bumps = coh_stat_sum(&r, "GPU", "epoch_bumps");
        n->broadcasts = coh_stat_sum(&r, "GPU", "imst_broadcasts");
        n->inv_received = coh_stat_sum(&r, "GPU", "rdc_inv_received");
        n->write_hits = coh_stat_sum(&r, "GPU", "rdc_write_hits");
        n->writebacks = coh_stat_sum(&r, "GPU", "rdc_writebacks");
        n->flush_lines = coh_stat_sum(&r, "GPU", "rdc_flush_lines");
        n->flushes = coh_stat_sum(&r, "GPU", "rdc_flushes");
        n->dropped = coh_stat_sum(&r, "GPU", "rdc_dirty_dropped");
    }
    coh_run_close(&r);
    return rc;
}

static int run_carve(const char *protocol, const char *name, int gpus,
                     carve_counts *n)
{
    return run_carve_write(protocol, "through", name, gpus, n);
}

static void test_workloads_verify(void **state)
{
    (void)state;
    const char *wls[] = {"pr", "fws", "bfs", "atax"};
    for (int g = 2; g <= 4; g += 2)
        for (size_t w = 0; w < sizeof wls / sizeof wls[0]; w++) {
            carve_counts s, h;
            assert_int_equal(run_carve("carve-swc", wls[w], g, &s), MGS_OK);
            assert_int_equal(run_carve("carve-hwc", wls[w], g, &h), MGS_OK);
            printf("# %s on %d GPUs: swc %.0f/%.0f hits, %.0f epochs; hwc "
                   "%.0f/%.0f hits, %.0f broadcasts, %.0f invalidations\n",
                   wls[w], g, s.hits, s.probes, s.bumps, h.hits, h.probes,
                   h.broadcasts, h.inv_received);
            assert_true(s.probes > 0 && s.fills > 0 && s.bumps > 0);
            assert_true(h.probes > 0 && h.fills > 0 && h.bumps == 0);
            /* HWC keeps lines across kernels: at least SWC's hits. */
            assert_true(h.hits >= s.hits);
            if (!strcmp(wls[w], "pr"))
                assert_true(h.hits > 0 && h.broadcasts > 0 &&
                            h.inv_received > 0);
        }
}

/* A write-back RDC (carve.rdc_write = back): the workloads verify under
** carve-swc and carve-nc on 2 and 4 GPUs with remote writes hitting the
** RDC and dirty lines written back at kernel end (lulesh: remote writes
** to lines read earlier); a carve-swc whose flushes drop the dirty lines
** computes wrong results. */
static void test_write_back(void **state)
{
    (void)state;
    register_broken();
    const char *wls[] = {"lulesh", "pr", "bfs", "atax"};
    double hits = 0;
    for (int g = 2; g <= 4; g += 2)
        for (size_t w = 0; w < sizeof wls / sizeof wls[0]; w++) {
            carve_counts s;
            assert_int_equal(run_carve_write("carve-swc", "back", wls[w], g,
                                             &s), MGS_OK);
            printf("# %s on %d GPUs, write-back: %.0f write hits, %.0f "
                   "lines written back (%.0f by %.0f flushes), %.0f "
                   "dropped\n", wls[w], g, s.write_hits, s.writebacks,
                   s.flush_lines, s.flushes, s.dropped);
            assert_true(s.writebacks <= s.write_hits);
            assert_true(s.flush_lines <= s.writebacks);
            assert_true(s.dropped == 0);
            if (s.flush_lines > 0)
                assert_true(s.flushes > 0);
            hits += s.write_hits;
        }
    carve_counts l;
    assert_int_equal(run_carve_write("carve-swc", "back", "lulesh", 2, &l),
                     MGS_OK);
    assert_true(l.write_hits > 0 && l.flush_lines > 0);
    assert_true(hits > 0);
    /* The dirty lines dropped at kernel end: wrong results. */
    assert_int_equal(run_carve_write("carve-swc-broken-flush", "through",
                                     "lulesh", 2, &l), MGS_EVERIFY);
    assert_true(l.dropped > 0 && l.flush_lines == 0);
    mgs_error_clear();
}

/* Stale RDC lines give wrong results: no coherence (carve-nc), and an
** IMST that forgets remote readers (the home's writes leave their copies).
*/
static void test_stale_rdc_fails(void **state)
{
    (void)state;
    register_broken();
    assert_int_equal(run_carve("carve-hwc", "pr", 2, NULL), MGS_OK);
    assert_int_equal(run_carve("carve-hwc-broken-imst", "pr", 2, NULL),
                     MGS_EVERIFY);
    assert_int_equal(run_carve("carve-nc", "pr", 2, NULL), MGS_EVERIFY);
    assert_int_equal(run_carve("carve-nc", "bfs", 2, NULL), MGS_EVERIFY);
    mgs_error_clear();
}

/* The RDC's write policy of litmus_gpus (a carve.rdc_write setting). */
static const char *litmus_write = "carve.rdc_write=through";
static double litmus_flush_lines;   /* write-back: lines the fences flushed */

/* One fenced litmus test with threads on different GPUs (4-CU GPUs of
** 256 MiB, 64 MiB carved); returns its forbidden outcomes, *inv the
** invalidation messages carve-hwc's engines sent and their bytes. */
static uint64_t litmus_gpus(const char *protocol, const char *test, int gpus,
                            uint64_t iterations, double *inv, double *bytes)
{
    rt_rig r;
    const char *sets[] = {"coherence.remote_cache=l2", "carve.rdc_size=64MB",
                          litmus_write, NULL};
    rt_rig_configure(&r, sets);
    snprintf(r.cfg.coherence_protocol, sizeof r.cfg.coherence_protocol,
             "%s", protocol);
    rt_rig_start(&r, MGS_MODE_TIMING, gpus, 256ull << 20, "discrete");
    litmus_opts o;
    litmus_opts_default(&o);
    o.iterations = iterations;
    o.placement = LITMUS_GPU;
    o.fenced = true;
    o.groups = 16;
    const litmus_test *t = litmus_find(test);
    assert_non_null(t);
    litmus_result res;
    if (litmus_run(r.rt, t, &o, &res) != MGS_OK)
        fail_msg("%s %s: %s", protocol, test, mgs_error_msg());
    if (inv)
        *inv = rt_rig_stat(&r, "GPU*", "inv_sent_write", NULL);
    if (bytes)
        *bytes = rt_rig_stat(&r, "GPU*", "bytes_out", NULL);
    litmus_flush_lines += rt_rig_stat(&r, "GPU*", "rdc_flush_lines", NULL);
    rt_rig_fini(&r);
    return res.forbidden;
}

static void test_litmus_across_gpus(void **state)
{
    (void)state;
    register_broken();
    const char *tests[] = {"MP", "SB", "LB", "CoRR", "IRIW", "2+2W"};
    double inv = 0, bytes = 0;
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        assert_int_equal(litmus_gpus("carve-swc", tests[i], 2, 1024, NULL,
                                     NULL), 0);
        assert_int_equal(litmus_gpus("carve-hwc", tests[i], 2, 1024, &inv,
                                     &bytes), 0);
        assert_true(inv > 0 && bytes >= 8 * inv);
    }
    assert_int_equal(litmus_gpus("carve-swc", "MP", 4, 1024, NULL, NULL), 0);
    assert_int_equal(litmus_gpus("carve-hwc", "MP", 4, 1024, NULL, NULL), 0);
    uint64_t swc = litmus_gpus("carve-swc-broken-fence", "MP", 2, 1024, NULL,
                               NULL);
    uint64_t hwc = litmus_gpus("carve-hwc-broken-imst", "MP", 2, 1024, &inv,
                               NULL);
    printf("# MP forbidden outcomes of 1024: swc-broken-fence %llu, "
           "hwc-broken-imst %llu (%.0f invalidations)\n",
           (unsigned long long)swc, (unsigned long long)hwc, inv);
    assert_true(swc > 0);
    assert_true(hwc > 0);
}

/* A write-back RDC under carve-swc: the fences write the dirty lines back
** before the epoch bump, and the fenced tests stay clean. */
static void test_litmus_write_back(void **state)
{
    (void)state;
    const char *tests[] = {"MP", "SB", "LB", "CoRR", "IRIW", "2+2W"};
    litmus_write = "carve.rdc_write=back";
    litmus_flush_lines = 0;
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        assert_int_equal(litmus_gpus("carve-swc", tests[i], 2, 1024, NULL,
                                     NULL), 0);
    assert_int_equal(litmus_gpus("carve-swc", "MP", 4, 1024, NULL, NULL), 0);
    printf("# litmus, write-back: %.0f lines written back by fences\n",
           litmus_flush_lines);
    litmus_write = "carve.rdc_write=through";
}

/* The carved slice is not allocatable: 1 GiB GPUs with 512 MiB carved. */
static void test_capacity_carved_out(void **state)
{
    (void)state;
    for (int carve = 0; carve < 2; carve++) {
        coh_run r;
        coh_run_config(&r, carve ? "carve-swc" : "nc");
        snprintf(r.cfg.coherence_remote_cache,
                 sizeof r.cfg.coherence_remote_cache, "l2");
        r.cfg.carve_rdc_size = 512ull << 20;
        coh_run_start(&r, "discrete", 2);
        mgs_dptr p;
        int rc = mgs_malloc(r.rt, 0, 600ull << 20, &p);
        assert_int_equal(rc, carve ? MGS_ENOMEM : MGS_OK);
        mgs_error_clear();
        assert_int_equal(mgs_malloc(r.rt, 1, 400ull << 20, &p), MGS_OK);
        coh_run_close(&r);
    }
}

/* The random tester: 4 GPUs of 64 KiB with 16 KiB carved (never touched
** by the tester), 4 KiB L2s, every unit read by every agent. */
#define TESTER_MEM (64u * 1024)
#define TESTER_RDC (16u * 1024)

/* Writes back and drops every L2 bank of the rig (a kernel end: a
** write-back RDC writes its dirty lines back first), one probe per GPU on
** its control network; every flush is answered. */
static void tester_flush_l2s(tester_rig *tr, uint32_t ngpus, uint32_t banks)
{
    probe pr[4];
    mem_msg *sent[4][4];
    assert_true(ngpus <= 4 && banks <= 4);
    for (uint32_t g = 0; g < ngpus; g++) {
        gpu_build *gb = platform_gpu(tr->p, g);
        probe_init(&pr[g], tr->eng, tr->pool, "Flush");
        conn_plug(gpu_build_ctrl_net(gb), &pr[g].port);
        for (uint32_t b = 0; b < banks; b++) {
            mem_msg *m = probe_req(&pr[g], MEM_FLUSH, 0, 0,
                                   cache_ctrl(gpu_build_l2(gb, b)));
            m->flags |= MEM_F_INVALIDATE;
            sent[g][b] = m;
            probe_send_at(&pr[g], m, eng_now(tr->eng));
        }
    }
    if (eng_run(tr->eng) != MGS_OK) {
        eng_dump(tr->eng, stderr);
        fail_msg("flush: %s", mgs_error_msg());
    }
    for (uint32_t g = 0; g < ngpus; g++) {
        for (uint32_t b = 0; b < banks; b++)
            assert_non_null(probe_answer(&pr[g], sent[g][b], NULL));
        probe_fini(&pr[g]);
    }
}

static void tester_run(const char *protocol, bool write_back, uint64_t total)
{
    platform_config pc;
    tester_rig_small_gpus(&pc, PLATFORM_DISCRETE, 4, TESTER_MEM);
    pc.gpu.l2.size = 4 * 1024;
    pc.gpu.l2.write_policy = CACHE_WRITE_THROUGH;
    pc.remote_cache = COH_REMOTE_L2;
    pc.coh_carve = (coh_carve_params){.rdc_bytes = TESTER_RDC,
                                      .epoch_bits = 20,
                                      .imst_reset_ppm = 10000,
                                      .write_back = write_back};
    snprintf(pc.coherence, sizeof pc.coherence, "%s", protocol);
    tester_rig tr;
    tester_rig_platform(&tr, &pc);
    mem_tester_config tc;
    tester_rig_config(&tr, &pc, 2 * pc.ngpus, &tc);
    tc.ops_per_agent = total / tc.agents;
    tc.mode = MEM_TESTER_OWNED_UNITS;
    tc.seed = 17;
    tc.hole_period = TESTER_MEM;
    tc.hole_bytes = TESTER_RDC;
    tester_rig_tester(&tr, &tc);
    for (uint32_t i = 0; i < tc.agents; i++)
        tester_rig_place(&tr, i, i % pc.ngpus);
    assert_int_equal(eng_run(tr.eng), MGS_OK);
    if (mem_tester_mismatches(tr.t))
        mem_tester_report(tr.t, stderr);
    assert_true(mem_tester_done(tr.t));
    assert_int_equal(mem_tester_mismatches(tr.t), 0);
    if (write_back)   /* the dirty lines go home at the "kernel end" */
        tester_flush_l2s(&tr, pc.ngpus, pc.gpu.l2_banks);
    /* Memory equals the reference outside the carved slices. */
    const uint8_t *ref = mem_tester_shadow(tr.t);
    for (uint32_t g = 0; g < pc.ngpus; g++)
        assert_memory_equal(tr.fm.bytes + (uint64_t)g * TESTER_MEM,
                            ref + (uint64_t)g * TESTER_MEM,
                            TESTER_MEM - TESTER_RDC);
    rt_rig r = {.stats = tr.st};
    double hits = rt_rig_stat(&r, "GPU*", "rdc_hits", NULL);
    double probes = rt_rig_stat(&r, "GPU*", "rdc_probes", NULL);
    double inv = rt_rig_stat(&r, "GPU*", "rdc_invalidations", NULL);
    double wh = rt_rig_stat(&r, "GPU*", "rdc_write_hits", NULL);
    double vic = rt_rig_stat(&r, "GPU*", "rdc_victim_writebacks", NULL);
    double home = rt_rig_stat(&r, "GPU*", "rdc_home_writebacks", NULL);
    double fl = rt_rig_stat(&r, "GPU*", "rdc_flush_lines", NULL);
    double parked = rt_rig_stat(&r, "GPU*", "rdc_parked", NULL);
    printf("# tester, %s%s: %llu ops on 4 GPUs, %llu bytes checked; RDC "
           "%.0f/%.0f hits, %.0f invalidations; %.0f write hits, %.0f "
           "write-backs (%.0f victims, %.0f before home, %.0f flushed), "
           "%.0f parked\n", protocol, write_back ? " write-back" : "",
           (unsigned long long)(tc.ops_per_agent * tc.agents),
           (unsigned long long)mem_tester_checked(tr.t), hits, probes, inv,
           wh, vic + home + fl, vic, home, fl, parked);
    assert_true(hits > 0 && probes > hits);
    if (write_back)
        assert_true(wh > 0 && vic > 0 && home > 0 && fl > 0);
    assert_true(rt_rig_stat(&r, "GPU*", "rdc_dirty_dropped", NULL) == 0);
    tester_rig_free(&tr);
}

static void test_random_tester(void **state)
{
    (void)state;
    const char *env = getenv("MGSIM_CARVE_OPS");
    uint64_t total = env && *env ? strtoull(env, NULL, 10) : 60000;
    tester_run("carve-swc", false, total);
    tester_run("carve-hwc", false, total);
    tester_run("carve-nc", false, total);
    tester_run("carve-swc", true, total);
    tester_run("carve-nc", true, total);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rdc_script),
        cmocka_unit_test(test_rdc_write_back_script),
        cmocka_unit_test(test_rdc_mapping_and_ranges),
        cmocka_unit_test(test_imst_script),
        cmocka_unit_test(test_check_and_sync),
        cmocka_unit_test(test_workloads_verify),
        cmocka_unit_test(test_write_back),
        cmocka_unit_test(test_stale_rdc_fails),
        cmocka_unit_test(test_litmus_across_gpus),
        cmocka_unit_test(test_litmus_write_back),
        cmocka_unit_test(test_capacity_carved_out),
        cmocka_unit_test(test_random_tester),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
