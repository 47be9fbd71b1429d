/*
** The coherence directory table (src/coh/dir/dir_table.h), seed 001:
**   - configuration: the defaults validate, each bad field is refused with
**     its name, dir_table_new refuses what does not validate;
**   - entry bits: every Table 1 column, 8 and 16 GPUs (§4.3), HMG, the
**     storage of the 8K-entry baseline (52 kB) and REC (103 kB);
**   - the paper's Fig. 8 (2-entry directories: LINE/FIFO evicts 0x1000,
**     REC keeps one entry) and Fig. 10 examples (bits 52/53; a local write
**     clears one line and the entry stays; a remote write by GPU2 to a
**     line of GPU3 invalidates GPU3 only), with every invalidation;
**   - LINE writes and atomics; HMG's false positives and group eviction;
**   - FIFO vs LRU victims, LRU touched by write hits, invalid ways first;
**   - unbounded ("ideal"): 10^6 random reads, never an eviction;
**   - a randomized cross-check of LINE, REC (and HMG as a superset)
**     against a per-line model of who may hold each line: no silent loss
**     of tracking, writes leave only the writer, 10^5 operations each;
**   - unbounded LINE and REC decide the same invalidations;
**   - determinism: the same operations give the same invalidations and
**     statistics (bench/bench_dir_table.c measures the speed).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coh/dir/dir_table.h"

/* ---- recording the emitted invalidations ---- */

#define LOG_MAX 64

typedef struct inv {
    uint64_t addr, sharers;
    dir_cause cause;
} inv;

typedef struct inv_log {
    inv e[LOG_MAX];
    size_t n;
} inv_log;

static void log_emit(void *ud, uint64_t addr, uint64_t sharers,
                     dir_cause cause)
{
    inv_log *l = ud;
    assert_true(l->n < LOG_MAX);
    l->e[l->n++] = (inv){addr, sharers, cause};
}

/* The log holds exactly the n invalidations of want, in order; clears it. */
static void expect_invs(inv_log *l, const inv *want, size_t n)
{
    assert_int_equal(l->n, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(l->e[i].addr, want[i].addr);
        assert_int_equal(l->e[i].sharers, want[i].sharers);
        assert_int_equal(l->e[i].cause, want[i].cause);
    }
    l->n = 0;
}

static void expect_none(inv_log *l) { expect_invs(l, NULL, 0); }

static dir_table *table(dir_org org, uint32_t entries, uint32_t ways,
                        dir_policy policy, inv_log *l)
{
    dir_table_config c;
    dir_table_config_default(&c, org);
    c.entries = entries;
    c.ways = ways;
    c.policy = policy;
    dir_table *t = dir_table_new(&c, log_emit, l);
    assert_non_null(t);
    return t;
}

#define W DIR_CAUSE_WRITE
#define E DIR_CAUSE_EVICT
#define G(g) (1ull << (g))

/* ---- configuration and storage ---- */

static void refused(const dir_table_config *c, const char *word)
{
    char err[160];
    assert_int_equal(dir_table_config_validate(c, err, sizeof err), -1);
    assert_non_null(strstr(err, word));
    assert_null(dir_table_new(c, NULL, NULL));
}

static void test_config(void **state)
{
    (void)state;
    for (int org = DIR_ORG_LINE; org <= DIR_ORG_REC; org++) {
        dir_table_config c;
        dir_table_config_default(&c, (dir_org)org);
        char err[160];
        assert_int_equal(dir_table_config_validate(&c, err, sizeof err), 0);
        c.entries = 0; /* unbounded: ways and policy ignored */
        c.ways = 3;
        c.policy = (dir_policy)7;
        assert_int_equal(dir_table_config_validate(&c, err, sizeof err), 0);
    }
    dir_table_config c, d;
    dir_table_config_default(&d, DIR_ORG_REC);
    c = d, c.ways = 3;
    refused(&c, "associativity 3");
    c = d, c.entries = 8192 * 3, c.ways = 8; /* 3072 sets */
    refused(&c, "associativity");
    c = d, c.ways = 16384;
    refused(&c, "associativity");
    c = d, c.entries = (1u << 24) * 2;
    refused(&c, "entries");
    c = d, c.range_lines = 12;
    refused(&c, "range 12");
    c = d, c.range_lines = 128;
    refused(&c, "range 128");
    c = d, c.org = DIR_ORG_LINE;
    refused(&c, "range 16 lines for the line organisation");
    c = d, c.ngpus = 1;
    refused(&c, "GPU count 1");
    c = d, c.ngpus = 65;
    refused(&c, "GPU count 65");
    c = d, c.home = 4;
    refused(&c, "home GPU 4");
    c = d, c.line = 48;
    refused(&c, "line size 48");
    c = d, c.addr_bits = 10; /* a 1 kB range needs more than 10 */
    refused(&c, "address bits 10");
    c = d, c.policy = (dir_policy)2;
    refused(&c, "replacement policy");
    c = d, c.org = (dir_org)3;
    refused(&c, "organisation 3");
    /* A 2-entry fully associative table and 64 GPUs of 64-line ranges. */
    c = d, c.entries = 2, c.ways = 2;
    assert_int_equal(dir_table_config_validate(&c, NULL, 0), 0);
    c = d, c.ngpus = 64, c.home = 63, c.range_lines = 64;
    assert_int_equal(dir_table_config_validate(&c, NULL, 0), 0);
    dir_table_free(NULL);
}

static uint32_t bits_of(dir_org org, uint32_t range_bytes, uint32_t ngpus)
{
    dir_table_config c;
    dir_table_config_default(&c, org);
    c.range_lines = range_bytes / c.line;
    c.ngpus = ngpus;
    assert_int_equal(dir_table_config_validate(&c, NULL, 0), 0);
    return dir_table_entry_bits(&c);
}

static void test_entry_bits(void **state)
{
    (void)state;
    /* Table 1: 64B (the baseline) 52, 128B 50, 256B 57, 1 kB 103,
    ** 4 kB 293 bits on 4 GPUs. */
    assert_int_equal(bits_of(DIR_ORG_LINE, 64, 4), 52);
    assert_int_equal(bits_of(DIR_ORG_REC, 128, 4), 50);
    assert_int_equal(bits_of(DIR_ORG_REC, 256, 4), 57);
    assert_int_equal(bits_of(DIR_ORG_REC, 1024, 4), 103);
    assert_int_equal(bits_of(DIR_ORG_REC, 4096, 4), 293);
    /* §4.3: 1 kB on 8 GPUs 167 (baseline 56), on 16 GPUs 295 (64). */
    assert_int_equal(bits_of(DIR_ORG_REC, 1024, 8), 167);
    assert_int_equal(bits_of(DIR_ORG_LINE, 64, 8), 56);
    assert_int_equal(bits_of(DIR_ORG_REC, 1024, 16), 295);
    assert_int_equal(bits_of(DIR_ORG_LINE, 64, 16), 64);
    /* HMG, assumed: 40-bit group tag + 3 sharers + valid. */
    assert_int_equal(bits_of(DIR_ORG_HMG, 256, 4), 44);
    /* Storage: 8192 x 52 bits = 52 kB; REC 103 kB (§4.3); ideal 0. */
    dir_table_config c;
    dir_table_config_default(&c, DIR_ORG_LINE);
    assert_int_equal(dir_table_storage_bits(&c), 52ull * 1024 * 8);
    dir_table_config_default(&c, DIR_ORG_REC);
    assert_int_equal(dir_table_storage_bits(&c), 103ull * 1024 * 8);
    c.entries = 0;
    assert_int_equal(dir_table_storage_bits(&c), 0);
}

/* ---- the paper's examples ---- */

static void test_fig8(void **state)
{
    (void)state;
    inv_log l = {0};
    /* Baseline, 2 entries (one set, FIFO): GPU1 reads GPU0's 0x1000,
    ** 0x1040, 0x1080, 0x1000. 0x1080 evicts 0x1000 (invalidated at GPU1),
    ** so the second 0x1000 misses and evicts 0x1040. */
    dir_table *t = table(DIR_ORG_LINE, 2, 2, DIR_POLICY_FIFO, &l);
    dir_table_read(t, 0x1000, 1);
    dir_table_read(t, 0x1040, 1);
    expect_none(&l);
    dir_table_read(t, 0x1080, 1);
    expect_invs(&l, (inv[]){{0x1000, G(1), E}}, 1);
    assert_int_equal(dir_table_sharers(t, 0x1000), 0);
    dir_table_read(t, 0x1000, 1);
    expect_invs(&l, (inv[]){{0x1040, G(1), E}}, 1);
    const dir_table_stats *s = dir_table_stats_get(t);
    assert_int_equal(s->lookups, 4);
    assert_int_equal(s->hits, 0);
    assert_int_equal(s->insertions, 4);
    assert_int_equal(s->evictions, 2);
    assert_int_equal(s->evicted_lines, 2);
    assert_int_equal(s->inv_lines[E], 2);
    assert_int_equal(s->inv_messages[E], 2);
    assert_int_equal(s->valid_entries, 2);
    assert_true(dir_table_check(t));
    dir_table_free(t);

    /* REC, 2 entries: the three lines share one 1 kB base: one entry. */
    t = table(DIR_ORG_REC, 2, 2, DIR_POLICY_LRU, &l);
    dir_table_read(t, 0x1000, 1);
    dir_table_read(t, 0x1040, 1);
    dir_table_read(t, 0x1080, 1);
    dir_table_read(t, 0x1000, 1);
    expect_none(&l);
    s = dir_table_stats_get(t);
    assert_int_equal(s->valid_entries, 1);
    assert_int_equal(s->insertions, 1);
    assert_int_equal(s->hits, 3);
    assert_int_equal(s->evictions, 0);
    for (uint64_t a = 0x1000; a <= 0x1080; a += 0x40)
        assert_int_equal(dir_table_sharers(t, a), G(1));
    assert_int_equal(dir_table_sharers(t, 0x10c0), 0);
    assert_true(dir_table_check(t));
    dir_table_free(t);
}

static void test_fig10(void **state)
{
    (void)state;
    inv_log l = {0};
    dir_table *t = table(DIR_ORG_REC, 8192, 8, DIR_POLICY_LRU, &l);
    const uint64_t base = 0x40000; /* a 1 kB-aligned range of GPU0 */
    /* Remote read by GPU1 at offset 0x340: line 13, bits 52/53. */
    dir_table_read(t, base + 0x340 + 8, 1);
    assert_int_equal(dir_table_sharers(t, base + 0x340), G(1));
    assert_int_equal(dir_table_sharers(t, base + 0x300), 0);
    assert_int_equal(dir_table_sharers(t, base + 0x380), 0);
    /* Offset 0 shared by GPU1, p = 56 (line 14) by GPU3. */
    dir_table_read(t, base, 1);
    dir_table_read(t, base + 0x380, 3);
    expect_none(&l);
    assert_int_equal(dir_table_stats_get(t)->valid_entries, 1);
    /* Local write to offset 0: invalidate GPU1, clear line 0 only. */
    dir_table_write(t, base + 4, 0, true);
    expect_invs(&l, (inv[]){{base, G(1), W}}, 1);
    assert_int_equal(dir_table_sharers(t, base), 0);
    assert_int_equal(dir_table_sharers(t, base + 0x340), G(1));
    assert_int_equal(dir_table_sharers(t, base + 0x380), G(3));
    assert_int_equal(dir_table_stats_get(t)->valid_entries, 1);
    /* Remote write by GPU2 to p = 56 (GPU3's): bit 58 set, 59 cleared,
    ** GPU3 invalidated. */
    dir_table_write(t, base + 0x380, 2, true);
    expect_invs(&l, (inv[]){{base + 0x380, G(3), W}}, 1);
    assert_int_equal(dir_table_sharers(t, base + 0x380), G(2));
    /* Remote write to an untracked line of the entry: added like a read. */
    dir_table_write(t, base + 0x3c0, 3, true);
    expect_none(&l);
    assert_int_equal(dir_table_sharers(t, base + 0x3c0), G(3));
    /* A local write to an untracked line does nothing. */
    dir_table_write(t, base + 0x40, 0, true);
    expect_none(&l);
    /* Local writes to the last three lines free the entry. */
    dir_table_write(t, base + 0x340, 0, true);
    dir_table_write(t, base + 0x380, 0, true);
    assert_int_equal(dir_table_stats_get(t)->valid_entries, 1);
    dir_table_write(t, base + 0x3c0, 0, true);
    expect_invs(&l, (inv[]){{base + 0x340, G(1), W}, {base + 0x380, G(2), W},
                            {base + 0x3c0, G(3), W}}, 3);
    assert_int_equal(dir_table_stats_get(t)->valid_entries, 0);
    assert_int_equal(dir_table_stats_get(t)->inv_lines[W], 5);
    assert_int_equal(dir_table_stats_get(t)->inv_messages[W], 5);
    assert_true(dir_table_check(t));
    /* A remote write that misses allocates with the writer as sharer; an
    ** atomic (keep_writer false) that misses records nothing. */
    dir_table_write(t, base + 0x800, 2, true);
    assert_int_equal(dir_table_sharers(t, base + 0x800), G(2));
    dir_table_write(t, base + 0xc00, 2, false);
    assert_int_equal(dir_table_sharers(t, base + 0xc00), 0);
    assert_int_equal(dir_table_stats_get(t)->valid_entries, 1);
    /* An REC eviction: one invalidation per tracked line, its sharers. */
    dir_table_free(t);
    t = table(DIR_ORG_REC, 1, 1, DIR_POLICY_LRU, &l);
    dir_table_read(t, base + 0x40, 1);
    dir_table_read(t, base + 0x40, 2);
    dir_table_read(t, base + 0x200, 3);
    dir_table_read(t, base + 0x400, 1); /* the next range */
    expect_invs(&l, (inv[]){{base + 0x40, G(1) | G(2), E},
                            {base + 0x200, G(3), E}}, 2);
    assert_int_equal(dir_table_stats_get(t)->evicted_lines, 2);
    assert_int_equal(dir_table_stats_get(t)->inv_messages[E], 3);
    dir_table_free(t);
}

static void test_line_writes(void **state)
{
    (void)state;
    inv_log l = {0};
    dir_table *t = table(DIR_ORG_LINE, 8192, 8, DIR_POLICY_FIFO, &l);
    /* A home read changes nothing. */
    dir_table_read(t, 0x2000, 0);
    assert_int_equal(dir_table_stats_get(t)->lookups, 0);
    dir_table_read(t, 0x2000, 1);
    dir_table_read(t, 0x2000, 2);
    dir_table_read(t, 0x2000, 3);
    assert_int_equal(dir_table_sharers(t, 0x203f), G(1) | G(2) | G(3));
    /* Remote write by 2: the others are invalidated, 2 stays alone. */
    dir_table_write(t, 0x2010, 2, true);
    expect_invs(&l, (inv[]){{0x2000, G(1) | G(3), W}}, 1);
    assert_int_equal(dir_table_sharers(t, 0x2000), G(2));
    /* An atomic by 3 at the home: 2 invalidated, 3 dropped its copy, the
    ** entry is freed. */
    dir_table_write(t, 0x2000, 3, false);
    expect_invs(&l, (inv[]){{0x2000, G(2), W}}, 1);
    assert_int_equal(dir_table_stats_get(t)->valid_entries, 0);
    /* An atomic by the only sharer: no invalidation, freed. */
    dir_table_read(t, 0x2000, 1);
    dir_table_write(t, 0x2000, 1, false);
    expect_none(&l);
    assert_int_equal(dir_table_stats_get(t)->valid_entries, 0);
    /* Local write: all sharers, freed; a second one finds nothing. */
    dir_table_read(t, 0x2000, 1);
    dir_table_read(t, 0x2000, 3);
    dir_table_write(t, 0x2000, 0, false);
    expect_invs(&l, (inv[]){{0x2000, G(1) | G(3), W}}, 1);
    dir_table_write(t, 0x2000, 0, true);
    expect_none(&l);
    /* The writer alone: no invalidation on its own write. */
    dir_table_read(t, 0x3000, 2);
    dir_table_write(t, 0x3000, 2, true);
    expect_none(&l);
    assert_int_equal(dir_table_sharers(t, 0x3000), G(2));
    const dir_table_stats *s = dir_table_stats_get(t);
    assert_int_equal(s->inv_lines[W], 3);
    assert_int_equal(s->inv_messages[W], 5);
    assert_int_equal(s->inv_lines[E], 0);
    assert_true(dir_table_check(t));
    dir_table_free(t);
    /* Home 2 of 8 GPUs: GPU 7 is a sharer, the home never is. */
    dir_table_config c;
    dir_table_config_default(&c, DIR_ORG_LINE);
    c.ngpus = 8;
    c.home = 2;
    t = dir_table_new(&c, log_emit, &l);
    dir_table_read(t, 0x80, 7);
    dir_table_read(t, 0x80, 2);
    dir_table_read(t, 0x80, 0);
    assert_int_equal(dir_table_sharers(t, 0x80), G(7) | G(0));
    dir_table_write(t, 0x80, 2, true);
    expect_invs(&l, (inv[]){{0x80, G(7) | G(0), W}}, 1);
    dir_table_free(t);
}

static void test_hmg(void **state)
{
    (void)state;
    inv_log l = {0};
    dir_table *t = table(DIR_ORG_HMG, 8192, 8, DIR_POLICY_FIFO, &l);
    const uint64_t g0 = 0x8000; /* a 256-B group: lines 0..3 */
    dir_table_read(t, g0 + 0x00, 1);
    dir_table_read(t, g0 + 0x80, 2);
    /* One vector for the group: line 3 looks shared by 1 and 2. */
    assert_int_equal(dir_table_sharers(t, g0 + 0xc0), G(1) | G(2));
    /* A write by 3 to line 1 (nobody's) invalidates lines 0-3 at 1, 2. */
    dir_table_write(t, g0 + 0x40, 3, true);
    expect_invs(&l, (inv[]){{g0 + 0x00, G(1) | G(2), W},
                            {g0 + 0x40, G(1) | G(2), W},
                            {g0 + 0x80, G(1) | G(2), W},
                            {g0 + 0xc0, G(1) | G(2), W}}, 4);
    assert_int_equal(dir_table_sharers(t, g0), G(3));
    /* An atomic by 1 (not a sharer): 3 invalidated, the entry freed. */
    dir_table_write(t, g0 + 0x40, 1, false);
    assert_int_equal(l.n, 4);
    l.n = 0;
    assert_int_equal(dir_table_stats_get(t)->valid_entries, 0);
    /* An atomic by a sharer: it stays (it may hold other lines). */
    dir_table_read(t, g0 + 0x00, 1);
    dir_table_read(t, g0 + 0x40, 2);
    dir_table_write(t, g0 + 0x80, 1, false);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.e[0].sharers, G(2));
    l.n = 0;
    assert_int_equal(dir_table_sharers(t, g0), G(1));
    /* A local write to line 3: all 4 lines at every sharer; freed. */
    dir_table_write(t, g0 + 0xc0, 0, true);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.e[3].addr, g0 + 0xc0);
    assert_int_equal(l.e[3].sharers, G(1));
    l.n = 0;
    assert_int_equal(dir_table_stats_get(t)->valid_entries, 0);
    assert_true(dir_table_check(t));
    dir_table_free(t);
    /* Eviction: every line of the group at every sharer. */
    t = table(DIR_ORG_HMG, 1, 1, DIR_POLICY_FIFO, &l);
    dir_table_read(t, g0 + 0x40, 1);
    dir_table_read(t, g0 + 0x40, 3);
    dir_table_read(t, g0 + 0x100, 2);
    expect_invs(&l, (inv[]){{g0 + 0x00, G(1) | G(3), E},
                            {g0 + 0x40, G(1) | G(3), E},
                            {g0 + 0x80, G(1) | G(3), E},
                            {g0 + 0xc0, G(1) | G(3), E}}, 4);
    assert_int_equal(dir_table_stats_get(t)->evicted_lines, 4);
    assert_int_equal(dir_table_stats_get(t)->inv_messages[E], 8);
    dir_table_free(t);
}

/* ---- replacement ---- */

static void test_replacement(void **state)
{
    (void)state;
    inv_log l = {0};
    /* One set of 2 ways (LINE): A, B, A again, then C. FIFO replaces A
    ** (oldest insertion), LRU replaces B (least recently used). */
    const uint64_t A = 0x0, B = 0x40, C = 0x80;
    for (int p = 0; p < 2; p++) {
        dir_table *t = table(DIR_ORG_LINE, 2, 2, (dir_policy)p, &l);
        dir_table_read(t, A, 1);
        dir_table_read(t, B, 2);
        dir_table_read(t, A, 3);
        dir_table_read(t, C, 1);
        if (p == DIR_POLICY_FIFO)
            expect_invs(&l, (inv[]){{A, G(1) | G(3), E}}, 1);
        else
            expect_invs(&l, (inv[]){{B, G(2), E}}, 1);
        dir_table_free(t);
    }
    /* LRU is touched by a write hit too; FIFO is not. */
    for (int p = 0; p < 2; p++) {
        dir_table *t = table(DIR_ORG_LINE, 2, 2, (dir_policy)p, &l);
        dir_table_read(t, A, 1);
        dir_table_read(t, B, 2);
        dir_table_write(t, A, 1, true);
        dir_table_read(t, C, 1);
        expect_invs(&l, (inv[]){{p == DIR_POLICY_LRU ? B : A,
                                 p == DIR_POLICY_LRU ? G(2) : G(1), E}}, 1);
        dir_table_free(t);
    }
    /* A freed way is taken before any victim. */
    dir_table *t = table(DIR_ORG_LINE, 2, 2, DIR_POLICY_FIFO, &l);
    dir_table_read(t, A, 1);
    dir_table_read(t, B, 2);
    dir_table_write(t, B, 0, true);
    expect_invs(&l, (inv[]){{B, G(2), W}}, 1);
    dir_table_read(t, C, 3);
    expect_none(&l);
    assert_int_equal(dir_table_sharers(t, A), G(1));
    assert_int_equal(dir_table_sharers(t, C), G(3));
    dir_table_free(t);
    /* Sets: key modulo sets. 4 entries, 2 ways = 2 sets: lines 0, 2, 4
    ** share set 0 and line 1 does not disturb it. */
    t = table(DIR_ORG_LINE, 4, 2, DIR_POLICY_FIFO, &l);
    dir_table_read(t, 0 * 64, 1);
    dir_table_read(t, 1 * 64, 1);
    dir_table_read(t, 2 * 64, 1);
    dir_table_read(t, 3 * 64, 1);
    expect_none(&l);
    dir_table_read(t, 4 * 64, 1);
    expect_invs(&l, (inv[]){{0, G(1), E}}, 1);
    dir_table_read(t, 5 * 64, 1);
    expect_invs(&l, (inv[]){{64, G(1), E}}, 1);
    assert_true(dir_table_check(t));
    dir_table_free(t);
}

/* ---- unbounded ---- */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void test_unbounded(void **state)
{
    (void)state;
    const uint64_t lines = 1u << 18;
    for (int org = DIR_ORG_LINE; org <= DIR_ORG_REC; org += 2) {
        dir_table_config c;
        dir_table_config_default(&c, (dir_org)org);
        c.entries = 0;
        dir_table *t = dir_table_new(&c, NULL, NULL); /* only counted */
        uint64_t s = 42;
        for (int i = 0; i < 1000000; i++) {
            uint64_t r = splitmix(&s);
            dir_table_read(t, (r % lines) * 64 + (r >> 58), 1 + (r >> 62) % 3);
        }
        const dir_table_stats *st = dir_table_stats_get(t);
        assert_int_equal(st->evictions, 0);
        assert_int_equal(st->inv_lines[E], 0);
        assert_int_equal(st->inv_lines[W], 0);
        assert_true(dir_table_check(t));
        /* Every read is still recorded. */
        s = 42;
        for (int i = 0; i < 1000000; i++) {
            uint64_t r = splitmix(&s);
            uint64_t sh = dir_table_sharers(t, (r % lines) * 64);
            assert_true(sh & G(1 + (r >> 62) % 3));
        }
        uint64_t valid = st->valid_entries;
        assert_true(valid > (org == DIR_ORG_LINE ? 200000u : 16000u));
        /* Local writes to every line free every entry (hash deletion). */
        for (uint64_t a = 0; a < lines; a++)
            dir_table_write(t, a * 64, 0, true);
        assert_int_equal(st->valid_entries, 0);
        assert_int_equal(st->max_valid_entries, valid);
        assert_true(st->inv_lines[W] > 0);
        assert_true(dir_table_check(t));
        dir_table_free(t);
    }
}

/* ---- randomized cross-check against a per-line model ---- */

#define MODEL_LINES 512u
#define MODEL_BASE 0x100000ull

typedef struct model {
    dir_table *t;
    dir_org org;
    uint32_t range;                /* lines per entry */
    uint64_t holds[MODEL_LINES];   /* GPUs that may hold each line */
    /* The operation in progress. */
    bool writing;
    uint32_t line, writer;
    uint64_t messages;             /* (line, GPU) invalidations seen */
    uint64_t evictions;            /* evictions before the operation */
} model;

static void model_emit(void *ud, uint64_t addr, uint64_t sharers,
                       dir_cause cause)
{
    model *m = ud;
    assert_true(addr >= MODEL_BASE && addr % 64 == 0);
    uint64_t line = (addr - MODEL_BASE) / 64;
    assert_true(line < MODEL_LINES);
    assert_true(sharers != 0);
    assert_false(sharers & G(0)); /* the home */
    assert_false(sharers & ~0xfull);
    if (cause == DIR_CAUSE_WRITE) {
        /* Only the written line (HMG: its group), never the writer. */
        assert_true(m->writing);
        assert_int_equal(line / m->range, m->line / m->range);
        assert_true(m->org == DIR_ORG_HMG || line == m->line);
        assert_false(sharers & G(m->writer));
    } else {
        assert_int_equal(cause, DIR_CAUSE_EVICT);
        /* From the one eviction of this operation, never the entry being
        ** accessed. */
        assert_int_equal(dir_table_stats_get(m->t)->evictions,
                         m->evictions + 1);
        assert_true(line / m->range != m->line / m->range);
    }
    m->holds[line] &= ~sharers;
    m->messages += (uint64_t)__builtin_popcountll(sharers);
}

static void model_check_line(const model *m, uint32_t line)
{
    uint64_t rec = dir_table_sharers(m->t, MODEL_BASE + line * 64ull);
    if (m->org == DIR_ORG_HMG)
        assert_int_equal(rec & m->holds[line], m->holds[line]);
    else
        assert_int_equal(rec, m->holds[line]);
}

static void cross_check(dir_org org, uint32_t entries, uint32_t ways,
                        dir_policy policy, uint32_t range, uint64_t seed)
{
    model *m = calloc(1, sizeof *m);
    dir_table_config c;
    dir_table_config_default(&c, org);
    c.entries = entries;
    c.ways = ways;
    c.policy = policy;
    c.range_lines = range;
    m->t = dir_table_new(&c, model_emit, m);
    assert_non_null(m->t);
    m->org = org;
    m->range = range;
    const dir_table_stats *st = dir_table_stats_get(m->t);
    for (int op = 0; op < 100000; op++) {
        uint64_t r = splitmix(&seed);
        /* Half of the lines from a hot window of 48 that moves every
        ** 1000 operations (hits, write invalidations), half anywhere
        ** (evictions). */
        uint32_t line = (r >> 63) ? (uint32_t)(r % MODEL_LINES)
                                  : (uint32_t)((op / 1000 * 37 + r % 48) %
                                               MODEL_LINES);
        uint32_t kind = (uint32_t)(r >> 32) % 20;
        uint32_t g = 1 + (uint32_t)(r >> 40) % 3;
        uint64_t addr = MODEL_BASE + line * 64ull + (r >> 58);
        m->line = line;
        m->writer = g;
        m->evictions = st->evictions;
        if (kind < 12) { /* remote read */
            m->writing = false;
            dir_table_read(m->t, addr, g);
            m->holds[line] |= G(g);
        } else {
            bool local = kind >= 17, keep = kind < 16;
            if (local)
                m->writer = g = 0;
            m->writing = true;
            dir_table_write(m->t, addr, g, keep);
            /* Nobody but the writer may hold the line any more. */
            assert_int_equal(m->holds[line] & ~G(g), 0);
            if (keep && !local)
                m->holds[line] = G(g);
            else
                m->holds[line] &= ~G(g);
        }
        uint32_t first = line / range * range;
        for (uint32_t i = first; i < first + range; i++)
            model_check_line(m, i);
        if (op % 512 == 0) {
            for (uint32_t i = 0; i < MODEL_LINES; i++)
                model_check_line(m, i);
            assert_true(dir_table_check(m->t));
        }
    }
    printf("# cross-check org %d, %u entries, %u-way, %s, %u lines: %llu "
           "evictions, %llu write + %llu evict messages\n", org, entries,
           ways, policy == DIR_POLICY_LRU ? "LRU" : "FIFO", range,
           (unsigned long long)st->evictions,
           (unsigned long long)st->inv_messages[W],
           (unsigned long long)st->inv_messages[E]);
    /* The counters agree with what was emitted, and it was a workout. */
    assert_int_equal(st->inv_messages[W] + st->inv_messages[E], m->messages);
    assert_int_equal(st->lookups, 100000);
    assert_true(st->inv_lines[W] > 1000);
    if (entries) {
        assert_true(st->evictions > 1000);
        assert_true(st->max_valid_entries == entries);
    } else {
        assert_int_equal(st->evictions, 0);
    }
    assert_true(dir_table_check(m->t));
    dir_table_free(m->t);
    free(m);
}

static void test_cross_check(void **state)
{
    (void)state;
    cross_check(DIR_ORG_LINE, 64, 8, DIR_POLICY_FIFO, 1, 1);
    cross_check(DIR_ORG_LINE, 64, 4, DIR_POLICY_LRU, 1, 2);
    cross_check(DIR_ORG_REC, 16, 4, DIR_POLICY_LRU, 4, 3);
    cross_check(DIR_ORG_REC, 8, 2, DIR_POLICY_FIFO, 16, 4);
    cross_check(DIR_ORG_REC, 4, 4, DIR_POLICY_LRU, 64, 5);
    cross_check(DIR_ORG_HMG, 16, 2, DIR_POLICY_FIFO, 4, 6);
    cross_check(DIR_ORG_LINE, 0, 0, DIR_POLICY_FIFO, 1, 7);
    cross_check(DIR_ORG_REC, 0, 0, DIR_POLICY_LRU, 16, 8);
    cross_check(DIR_ORG_HMG, 0, 0, DIR_POLICY_LRU, 8, 9);
}

/* ---- determinism ---- */

typedef struct digest {
    uint64_t h, n;
} digest;

static void digest_emit(void *ud, uint64_t addr, uint64_t sharers,
                        dir_cause cause)
{
    digest *d = ud;
    d->h = (d->h ^ addr ^ (sharers << 48) ^ cause) * 0x100000001b3ull;
    d->n++;
}

/* ops random operations over 1M lines by GPUs 1-3: 1 in 8 a write (a
** quarter of them by the home, a quarter atomics), the others reads. */
static void random_ops(dir_table *t, uint64_t ops, uint64_t seed)
{
    for (uint64_t i = 0; i < ops; i++) {
        uint64_t r = splitmix(&seed);
        uint64_t addr = (r % (1u << 20)) * 64;
        uint32_t g = 1 + (uint32_t)(r >> 32) % 3;
        uint32_t kind = (uint32_t)(r >> 40) % 32;
        if (kind < 4)
            dir_table_write(t, addr, kind == 0 ? 0 : g, kind != 1);
        else
            dir_table_read(t, addr, g);
    }
}

static void test_determinism(void **state)
{
    (void)state;
    static const struct {
        dir_org org;
        uint32_t entries;
    } cfg[] = {{DIR_ORG_LINE, 8192}, {DIR_ORG_HMG, 8192},
               {DIR_ORG_REC, 8192}, {DIR_ORG_LINE, 0}};
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        digest d[2] = {{0, 0}, {0, 0}};
        dir_table_stats s[2];
        for (int run = 0; run < 2; run++) {
            dir_table_config c;
            dir_table_config_default(&c, cfg[i].org);
            c.entries = cfg[i].entries;
            dir_table *t = dir_table_new(&c, digest_emit, &d[run]);
            random_ops(t, 200000, 99);
            s[run] = *dir_table_stats_get(t);
            assert_true(dir_table_check(t));
            dir_table_free(t);
        }
        assert_int_equal(d[0].h, d[1].h);
        assert_int_equal(d[0].n, d[1].n);
        assert_memory_equal(&s[0], &s[1], sizeof s[0]);
        assert_int_equal(d[0].n, s[0].inv_lines[W] + s[0].inv_lines[E]);
        assert_true(s[0].inv_lines[W] > 0);
        assert_true(cfg[i].entries == 0 || s[0].evictions > 0);
    }
}

/* Unbounded LINE and unbounded REC (64-line ranges) are both exact and
** never evict: they decide the same invalidations (so an ideal run may use
** the REC layout, smaller when accesses have spatial locality). */
static void test_ideal_layouts_agree(void **state)
{
    (void)state;
    digest d[2] = {{0, 0}, {0, 0}};
    for (int i = 0; i < 2; i++) {
        dir_table_config c;
        dir_table_config_default(&c, i ? DIR_ORG_REC : DIR_ORG_LINE);
        c.entries = 0;
        c.range_lines = i ? 64 : 1;
        dir_table *t = dir_table_new(&c, digest_emit, &d[i]);
        random_ops(t, 300000, 5);
        dir_table_free(t);
    }
    assert_true(d[0].n > 1000);
    assert_int_equal(d[0].n, d[1].n);
    assert_int_equal(d[0].h, d[1].h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_entry_bits),
        cmocka_unit_test(test_fig8),
        cmocka_unit_test(test_fig10),
        cmocka_unit_test(test_line_writes),
        cmocka_unit_test(test_hmg),
        cmocka_unit_test(test_replacement),
        cmocka_unit_test(test_unbounded),
        cmocka_unit_test(test_cross_check),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_ideal_layouts_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
