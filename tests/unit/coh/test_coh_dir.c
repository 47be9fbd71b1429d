/*
** The directory protocols dir, hmg and rec (src/coh/dir/,
** docs/coherence.md "Directory coherence"):
**   - the rules at synchronisation points, and what check() refuses;
**   - whole systems of discrete GPUs: workloads verify under each
**     organisation with a directory small enough that entries are evicted
**     (evict-initiated invalidations hit remote L2s) and with the paper's
**     8K entries; the invalidation engines' counts agree with the
**     directories', with one message per line or per entry
**     (directory.inv_message); fewer credits, more stalls
**     (directory.inv_credits);
**   - a fence orders a write for another GPU's L2 (fence_pass across two
**     GPUs: the reader's L2 holds the old data until the writer's
**     invalidations land, and the writer's answers wait for them);
**   - without write-initiated invalidations (dir-no-write-inv) pr and bfs
**     compute wrong results (a GPU reads its L2's stale copy of what
**     another GPU wrote in an earlier kernel);
**   - atomics of 4 GPUs on one counter sum up (performed at the home);
**   - 4 KB L2 banks: remote fills never take a whole set (gemm on 4
**     unified GPUs once deadlocked);
**   - the random memory tester runs clean over 4 GPUs with tiny caches and
**     directories (MGSIM_DIR_OPS=1000000 for the long run).
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
#include "mem/tester.h"
#include "mgsim/errors.h"
#include "platform/platform.h"
#include "sim/stats.h"

#include "coh_run.h"
#include "tests/unit/platform/tester_rig.h"

extern const coh_protocol coh_dir, coh_hmg, coh_rec;
extern const coh_protocol coh_dir_no_write_inv;

static const char *const ORGS[] = {"dir", "hmg", "rec"};

/* Each organisation with its own invalidation messages (auto: per entry
** for hmg, per line otherwise), and the two others' choices swapped. */
typedef struct dir_variant {
    const char *protocol, *inv_message;
    bool per_entry;
} dir_variant;
static const dir_variant VARIANTS[] = {
    {"dir", "auto", false}, {"hmg", "auto", true}, {"rec", "auto", false},
    {"hmg", "line", false}, {"rec", "entry", true}};
#define NVARIANTS (sizeof VARIANTS / sizeof VARIANTS[0])

/* ---- rules at synchronisation points, refusals ---- */

static coh_system rdma_sys(uint32_t ngpus)
{
    coh_system s;
    memset(&s, 0, sizeof s);
    s.ngpus = ngpus;
    s.rdma = true;
    s.l2_write_back = true;
    s.line = 64;
    s.remote_cache = COH_REMOTE_L2;
    s.dir = (coh_dir_params){.entries = 8192, .ways = 8};
    s.l2_banks = 16;
    s.l2_interleave = 4096;
    return s;
}

static void expect_refused(const coh_protocol *p, const coh_system *s,
                           const char *why)
{
    assert_int_equal(p->check(s), MGS_ECONFIG);
    if (!strstr(mgs_error_msg(), why))
        fail_msg("'%s' does not say '%s'", mgs_error_msg(), why);
    mgs_error_clear();
}

static void test_sync_rules_and_check(void **state)
{
    (void)state;
    coh_system sys = rdma_sys(4);
    coh_sync s;
    memset(&s, 0, sizeof s);
    coh_dir.sync(&sys, COH_LAUNCH, 0, &s);
    assert_int_equal(s.l1, COH_INVALIDATE);
    assert_int_equal(s.tlb, COH_INVALIDATE);
    assert_int_equal(s.l2, COH_KEEP); /* acquire never touches the L2 */
    memset(&s, 0, sizeof s);
    coh_dir.sync(&sys, COH_KERNEL_END, 0, &s);
    assert_int_equal(s.l2, COH_WRITEBACK); /* release flushes, keeps lines */
    assert_true(s.l2_all);
    coh_point none[] = {COH_PEER_RELEASE, COH_COPY_END};
    for (size_t i = 0; i < 2; i++) {
        memset(&s, 0, sizeof s);
        coh_dir.sync(&sys, none[i], 1, &s);
        assert_false(coh_sync_any(&s));
    }
    memset(&s, 0, sizeof s);
    coh_dir.sync(&sys, COH_HOST_WRITE, 0, &s);
    assert_int_equal(s.l2, COH_WRITEBACK_INVALIDATE);
    memset(&s, 0, sizeof s);
    coh_dir.sync(&sys, COH_HOST_READ, 0, &s);
    assert_int_equal(s.l2, COH_WRITEBACK);
    assert_int_equal(coh_dir.fence_l1, COH_INVALIDATE);

    const coh_protocol *all[] = {&coh_dir, &coh_hmg, &coh_rec};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(all[i]->check(&sys), MGS_OK);
        coh_system t = rdma_sys(1);
        t.rdma = false;
        assert_int_equal(all[i]->check(&t), MGS_OK); /* one GPU: nothing */
        t.dir.entries = 8200; /* ... but the keys are still checked */
        expect_refused(all[i], &t, "multiple of the L2 banks");
        t = rdma_sys(2);
        t.rdma = false;
        t.shared_platform = true;
        expect_refused(all[i], &t, "discrete or unified");
        t = rdma_sys(2);
        t.remote_cache = COH_REMOTE_L1;
        expect_refused(all[i], &t, "coherence.remote_cache = l2");
        t = rdma_sys(17);
        expect_refused(all[i], &t, "at most 16 GPUs");
        t = rdma_sys(4);
        t.dir.entries = 8200;
        expect_refused(all[i], &t, "multiple of the L2 banks");
        t = rdma_sys(4);
        t.dir.range = 96;
        expect_refused(all[i], &t, "power of two");
        t = rdma_sys(4);
        t.dir.ways = 3;
        expect_refused(all[i], &t, "directory");
        t = rdma_sys(4);
        t.dir.entries = 0; /* unbounded */
        assert_int_equal(all[i]->check(&t), MGS_OK);
    }
    coh_system t = rdma_sys(4);
    t.dir.range = 1024;
    expect_refused(&coh_dir, &t, "one line per entry");
    assert_int_equal(coh_rec.check(&t), MGS_OK);
    t.l2_interleave = 256;
    expect_refused(&coh_rec, &t, "interleave");
    t = rdma_sys(4);
    t.dir.range = 64;
    expect_refused(&coh_hmg, &t, "at least 2 lines");
}

/* ---- whole systems ---- */

typedef struct dir_counts {
    double evictions, inv_write, inv_evict, hit_write, hit_evict, sent,
        lines_sent, received, held, coh_misses;
} dir_counts;

static void dir_config(coh_run *r, const char *protocol, int entries,
                       int ways)
{
    coh_run_config(r, protocol);
    snprintf(r->cfg.coherence_remote_cache,
             sizeof r->cfg.coherence_remote_cache, "l2");
    r->cfg.directory_entries = entries;
    r->cfg.directory_ways = ways;
}

/* Runs workload name (small) on gpus discrete GPUs (inv_message NULL:
** the protocol's). */
static int run_dir_msg(const char *protocol, const char *inv_message,
                       const char *name, int gpus, int entries, int ways,
                       dir_counts *n)
{
    wl_args a;
    const mgs_workload *wl = coh_small_args(name, gpus, true, &a);
    coh_run r;
    dir_config(&r, protocol, entries, ways);
    if (inv_message)
        snprintf(r.cfg.directory_inv_message,
                 sizeof r.cfg.directory_inv_message, "%s", inv_message);
    coh_run_start(&r, "discrete", gpus);
    int rc = wl->run(r.rt, &a);
    if (n) {
        n->evictions = coh_stat_sum(&r, "GPU", "dir_evictions");
        n->inv_write = coh_stat_sum(&r, "GPU", "dir_inv_msgs_write");
        n->inv_evict = coh_stat_sum(&r, "GPU", "dir_inv_msgs_evict");
        n->hit_write = coh_stat_sum(&r, "GPU", "dir_inv_hit_write");
        n->hit_evict = coh_stat_sum(&r, "GPU", "dir_inv_hit_evict");
        n->sent = coh_stat_sum(&r, "GPU", "inv_sent_write") +
                  coh_stat_sum(&r, "GPU", "inv_sent_evict");
        n->lines_sent = coh_stat_sum(&r, "GPU", "inv_lines_sent");
        n->received = coh_stat_sum(&r, "GPU", "inv_received");
        n->held = coh_stat_sum(&r, "GPU", "dir_held_writes");
        n->coh_misses = coh_stat_sum(&r, "GPU", "l2_miss_coherence");
    }
    coh_run_close(&r);
    return rc;
}

static int run_dir(const char *protocol, const char *name, int gpus,
                   int entries, int ways, dir_counts *n)
{
    return run_dir_msg(protocol, NULL, name, gpus, entries, ways, n);
}

static void test_workloads_tiny_directory(void **state)
{
    (void)state;
    /* 64 entries per GPU: 4 per bank, one 4-way set: entries are evicted
    ** all the time (wl->run gives MGS_EVERIFY on a wrong result). */
    const char *wls[] = {"fir", "pr", "j2d", "bfs"};
    for (size_t v = 0; v < NVARIANTS; v++) {
        const dir_variant *dv = &VARIANTS[v];
        dir_counts sum = {0};
        /* REC coalesces 16 lines an entry: give it one entry per bank. */
        bool rec = !strcmp(dv->protocol, "rec");
        int entries = rec ? 16 : 64, ways = rec ? 1 : 4;
        for (size_t w = 0; w < sizeof wls / sizeof wls[0]; w++) {
            dir_counts n;
            assert_int_equal(run_dir_msg(dv->protocol, dv->inv_message,
                                         wls[w], 4, entries, ways, &n),
                             MGS_OK);
            /* Every network invalidation arrives; they name exactly the
            ** (line, GPU) pairs the directories decided, one message
            ** each or (per entry) several lines a message. */
            assert_true(n.sent == n.received);
            assert_true(n.lines_sent == n.inv_write + n.inv_evict);
            if (dv->per_entry)
                assert_true(n.sent <= n.lines_sent);
            else
                assert_true(n.sent == n.lines_sent);
            sum.sent += n.sent;
            sum.lines_sent += n.lines_sent;
            sum.evictions += n.evictions;
            sum.hit_evict += n.hit_evict;
            sum.hit_write += n.hit_write;
            sum.coh_misses += n.coh_misses;
            sum.held += n.held;
        }
        printf("# %s (inv_message %s), %d entries, fir+pr+j2d+bfs on 4 "
               "GPUs: %.0f entry evictions, %.0f invalidation messages for "
               "%.0f lines, hit %.0f (evict) %.0f (write), %.0f coherence "
               "misses, %.0f writes held\n", dv->protocol, dv->inv_message,
               entries, sum.evictions, sum.sent, sum.lines_sent,
               sum.hit_evict, sum.hit_write, sum.coh_misses, sum.held);
        assert_true(sum.evictions > 0 && sum.hit_evict > 0);
        assert_true(sum.coh_misses > 0);
        if (dv->per_entry) /* packing happened */
            assert_true(sum.sent < sum.lines_sent);
    }
}

/* directory.inv_credits bounds the invalidations in flight to each peer:
** with one credit the engines stall far more than with 4096, and the
** results still verify. */
static double credit_stalls(int credits)
{
    wl_args a;
    const mgs_workload *wl = coh_small_args("fir", 4, true, &a);
    coh_run r;
    dir_config(&r, "dir", 64, 4);
    r.cfg.directory_inv_credits = credits;
    coh_run_start(&r, "discrete", 4);
    assert_int_equal(wl->run(r.rt, &a), MGS_OK);
    double stalls = coh_stat_sum(&r, "GPU", "stall_credits");
    coh_run_close(&r);
    return stalls;
}

static void test_invalidation_credits(void **state)
{
    (void)state;
    double one = credit_stalls(1), many = credit_stalls(4096);
    printf("# fir, 4 GPUs, 64 entries: %.0f credit stalls with 1 credit, "
           "%.0f with 4096\n", one, many);
    assert_true(one > 0 && one > 10 * many);
}

static void test_workloads_paper_directory(void **state)
{
    (void)state;
    for (int o = 0; o < 3; o++)
        for (int g = 2; g <= 4; g += 2) {
            assert_int_equal(run_dir(ORGS[o], "mm", g, 8192, 8, NULL),
                             MGS_OK);
            assert_int_equal(run_dir(ORGS[o], "bs", g, 8192, 8, NULL),
                             MGS_OK);
        }
}

/* Tiny L2 banks (4 KB: 4 sets of 16 ways) with 32 remote fills out each:
** without the rule that remote fills may take at most half of a set's
** ways, every GPU filled whole sets with remote fills waiting at each
** other's home ports, whose requests found no victim (gemm, 4 unified
** GPUs, pages interleaved: a deadlock). */
static void test_tiny_l2_remote_fills(void **state)
{
    (void)state;
    for (int o = 0; o < 3; o++) {
        wl_args a;
        const mgs_workload *wl = coh_small_args("gemm", 4, true, &a);
        coh_run r;
        dir_config(&r, ORGS[o], 256, 8);
        snprintf(r.cfg.platform_placement, sizeof r.cfg.platform_placement,
                 "interleaved");
        r.cfg.gpu_l2_size = 4096;
        coh_run_start(&r, "unified", 4);
        assert_int_equal(wl->run(r.rt, &a), MGS_OK);
        coh_run_close(&r);
    }
}

static void register_broken(void)
{
    if (!coh_find(coh_dir_no_write_inv.name))
        assert_int_equal(coh_register(&coh_dir_no_write_inv), MGS_OK);
}

/* Without write-initiated invalidations a GPU keeps reading its L2's copy
** of ranks (pr) or levels (bfs) another GPU rewrote in an earlier kernel. */
static void test_without_write_invalidations_fails(void **state)
{
    (void)state;
    register_broken();
    assert_int_equal(run_dir("dir", "pr", 2, 8192, 8, NULL), MGS_OK);
    assert_int_equal(run_dir("dir-no-write-inv", "pr", 2, 8192, 8, NULL),
                     MGS_EVERIFY);
    assert_int_equal(run_dir("dir-no-write-inv", "bfs", 2, 8192, 8, NULL),
                     MGS_EVERIFY);
    mgs_error_clear();
}

/* kernels/fence_pass.hip on 2 discrete GPUs, data and flags on GPU 0, one
** work-group on each GPU: the reader (GPU 1) caches the zeroed data in its
** L2, the writer (GPU 0, the home) rewrites it, fences and raises a flag
** (atomics: at the home), the reader spins on the flag, fences and reads
** the data again. Returns how many of the reader's sums are stale. */
static int fence_pass_stale(const char *protocol, int n, double *held)
{
    coh_run r;
    dir_config(&r, protocol, 8192, 8);
    coh_run_start(&r, "discrete", 2);
    int stale = coh_fence_pass_stale(&r, n);
    *held = coh_stat_sum(&r, "GPU", "dir_held_writes");
    coh_run_close(&r);
    return stale;
}

static void test_fence_across_gpus(void **state)
{
    (void)state;
    double held = 0;
    for (int o = 0; o < 3; o++) {
        assert_int_equal(fence_pass_stale(ORGS[o], 1024, &held), 0);
        /* The writer's writes waited for the reader's invalidations. (A
        ** variant that answers at once also passed here, with up to 64 K
        ** elements and the flags on either GPU: an invalidation outruns
        ** the flag's round trip in this model, so the window stays shut.) */
        assert_true(held > 0);
    }
}

static void test_atomics_at_home(void **state)
{
    (void)state;
    for (int o = 0; o < 3; o++) {
        coh_run r;
        dir_config(&r, ORGS[o], 8192, 8);
        coh_run_start(&r, "discrete", 4);
        int32_t g[8];
        uint64_t g64[4];
        coh_isa_atomics(r.rt, 4096, g, g64);
        coh_run_close(&r);
        assert_int_equal(g64[0], 4096);
    }
}

/* ---- the random memory tester over 4 GPUs ---- */

#define TESTER_MEM (64u * 1024)

static void tester_run(const char *protocol, uint8_t inv_message,
                       uint64_t total)
{
    platform_config pc;
    tester_rig_small_gpus(&pc, PLATFORM_DISCRETE, 4, TESTER_MEM);
    pc.gpu.l2.size = 4 * 1024;    /* small: lines are evicted, refetched */
    /* Write-through everywhere, so memory equals the reference at the
    ** end; the directory acts the same on write-back homes. */
    pc.gpu.l2.write_policy = CACHE_WRITE_THROUGH;
    pc.remote_cache = COH_REMOTE_L2;
    pc.coh_dir = (coh_dir_params){.entries = 16, .ways = 4,
                                  .inv_message = inv_message};
    snprintf(pc.coherence, sizeof pc.coherence, "%s", protocol);
    tester_rig tr;
    tester_rig_platform(&tr, &pc);
    mem_tester_config tc;
    tester_rig_run_owned(&tr, &pc, total, 13, &tc);
    rt_rig r = {.stats = tr.st};
    double ev = rt_rig_stat(&r, "GPU*", "dir_evictions", NULL);
    double hw = rt_rig_stat(&r, "GPU*", "dir_inv_hit_write", NULL);
    double he = rt_rig_stat(&r, "GPU*", "dir_inv_hit_evict", NULL);
    double cm = rt_rig_stat(&r, "GPU*", "l2_miss_coherence", NULL);
    printf("# tester, %s (inv_message %u): %llu ops on 4 GPUs, %llu bytes "
           "checked; %.0f entry evictions, invalidations hit %.0f (write) "
           "%.0f (evict), %.0f coherence misses\n", protocol, inv_message,
           (unsigned long long)(tc.ops_per_agent * tc.agents),
           (unsigned long long)mem_tester_checked(tr.t), ev, hw, he, cm);
    assert_true(ev > 0 && hw > 0 && he > 0 && cm > 0);
    tester_rig_free(&tr);
}

static void test_random_tester(void **state)
{
    (void)state;
    const char *env = getenv("MGSIM_DIR_OPS");
    uint64_t total = env && *env ? strtoull(env, NULL, 10) : 60000;
    for (int o = 0; o < 3; o++)
        tester_run(ORGS[o], 0, total);
    tester_run("hmg", 1, total); /* per line */
    tester_run("rec", 2, total); /* per entry */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sync_rules_and_check),
        cmocka_unit_test(test_workloads_tiny_directory),
        cmocka_unit_test(test_invalidation_credits),
        cmocka_unit_test(test_workloads_paper_directory),
        cmocka_unit_test(test_tiny_l2_remote_fills),
        cmocka_unit_test(test_without_write_invalidations_fails),
        cmocka_unit_test(test_fence_across_gpus),
        cmocka_unit_test(test_atomics_at_home),
        cmocka_unit_test(test_random_tester),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
