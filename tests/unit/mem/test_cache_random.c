/* The random memory tester over whole hierarchies: tester agents -> L1s
** -> interleaved L2 banks (over one connection) -> fixed-latency memory,
** for every write policy and several geometries, in both tester modes;
** then every cache is flushed and memory must equal the tester's
** reference copy byte for byte. Also: tiny buffers everywhere still
** complete, and two identical runs give identical statistics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mem_world.h"

/* Runs w to completion and checks values, leaks and the final memory. */
static void run_and_check(const mem_world_params *p, const char *what,
                          uint64_t *stalls)
{
    mem_world w;
    mem_world_build(&w, p);
    int rc = eng_run(w.eng);
    if (rc != MGS_OK)
        fprintf(stderr, "%s: %s\n", what, mgs_error_msg());
    assert_int_equal(rc, MGS_OK);
    assert_true(mem_tester_done(w.tester));
    if (mem_tester_mismatches(w.tester)) {
        fprintf(stderr, "%s:\n", what);
        mem_tester_report(w.tester, stderr);
    }
    assert_int_equal(mem_tester_mismatches(w.tester), 0);
    assert_true(mem_tester_checked(w.tester) > 0);
    for (uint32_t i = 0; i < w.nl1; i++)
        assert_int_equal(cache_check(w.l1[i]), 1);
    for (uint32_t i = 0; i < w.nl2; i++)
        assert_int_equal(cache_check(w.l2[i]), 1);
    if (stalls) {
        *stalls = 0;
        for (uint32_t i = 0; i < w.nl1; i++)
            *stalls += w.l1[i]->stall_mshr_full->value +
                       w.l1[i]->stall_bottom_busy->value;
        for (uint32_t i = 0; i < w.nl2; i++)
            *stalls += w.l2[i]->stall_mshr_full->value +
                       w.l2[i]->stall_bottom_busy->value;
    }
    assert_int_equal(mem_world_flush_all(&w, 0), MGS_OK);
    const mem_tester_config *tc = &p->tester;
    if (memcmp(w.bytes + tc->base, mem_tester_shadow(w.tester), tc->size)) {
        fprintf(stderr, "%s: memory differs from the reference after "
                "flush\n", what);
        fail();
    }
    probe_clear(&w.ctrl);
    assert_int_equal(mem_pool_outstanding(w.pool), 0);
    mem_world_free(&w);
}

typedef struct geometry {
    const char *name;
    uint64_t l1_size;
    uint32_t l1_ways, line;
} geometry;

static const geometry geometries[] = {
    {"direct-mapped", 1024, 1, 64},
    {"2-way", 1024, 2, 64},
    {"fully-associative", 512, 8, 64},
    {"line32", 1024, 2, 32},
    {"line128", 2048, 2, 128},
};

static void sweep(mem_tester_mode mode, uint64_t ops)
{
    static const struct { cache_write_policy pol; bool alloc; const char *n;
    } l1pol[] = {{CACHE_WRITE_AROUND, false, "WA"},
                 {CACHE_WRITE_THROUGH, false, "WT"},
                 {CACHE_WRITE_THROUGH, true, "WT+alloc"},
                 {CACHE_WRITE_BACK, false, "WB"}};
    for (size_t g = 0; g < sizeof geometries / sizeof geometries[0]; g++) {
        for (size_t k = 0; k < sizeof l1pol / sizeof l1pol[0]; k++) {
            mem_world_params p;
            mem_world_params_default(&p);
            const geometry *ge = &geometries[g];
            p.l1.size = ge->l1_size;
            p.l1.ways = ge->l1_ways;
            p.l1.line = ge->line;
            p.l1.write_policy = l1pol[k].pol;
            p.l1.write_allocate = l1pol[k].alloc;
            p.l2.line = ge->line < 64 ? 64 : ge->line;
            /* alternate the L2: write-back atomic point, or write-through
            ** with atomics performed in memory */
            bool l2wt = (g + k) % 2 == 1;
            p.l2.write_policy = l2wt ? CACHE_WRITE_THROUGH : CACHE_WRITE_BACK;
            p.l2.atomics_here = !l2wt;
            p.tester.mode = mode;
            p.tester.max_size = ge->line;
            p.tester.ops_per_agent = ops;
            p.tester.seed = 100 + g * 10 + k;
            /* a small range half of the time: more hits and merges */
            p.tester.size = (g + k) % 2 ? 16384 : 4096;
            char what[128];
            snprintf(what, sizeof what, "%s L1 %s, L2 %s, mode %d",
                     ge->name, l1pol[k].n, l2wt ? "WT" : "WB", (int)mode);
            run_and_check(&p, what, NULL);
        }
    }
}

static void test_private_regions_all_policies(void **state)
{
    (void)state;
    sweep(MEM_TESTER_PRIVATE, 800);
}

static void test_shared_owned_units_all_policies(void **state)
{
    (void)state;
    sweep(MEM_TESTER_OWNED_UNITS, 800);
}

/* The tester straight on the L2 banks (no L1). */
static void test_l2_only(void **state)
{
    (void)state;
    mem_world_params p;
    mem_world_params_default(&p);
    p.nl1 = 0;
    p.nl2 = 4;
    p.tester.mode = MEM_TESTER_OWNED_UNITS;
    run_and_check(&p, "L2 only", NULL);
}

/* Owners of single bytes share lines across private write-back caches
** (one per agent, like one L2 per GPU): unit 1..8 bytes, so every line
** has several writers. Only dirty bytes are written back, so no writer
** puts back another's stale bytes: every owned read checks, and memory
** equals the reference after the flush. 64- and 128-byte lines, with a
** write-back or write-through level below. */
static void test_byte_owners_share_lines(void **state)
{
    (void)state;
    static const uint32_t lines[] = {64, 128};
    static const uint32_t units[] = {1, 4, 8};
    for (size_t l = 0; l < 2; l++) {
        for (size_t u = 0; u < 3; u++) {
            mem_world_params p;
            mem_world_params_default(&p);
            p.nl1 = 4;
            p.nl2 = 1;
            p.l1.line = lines[l];
            p.l1.size = 2048;
            p.l1.write_policy = CACHE_WRITE_BACK;
            p.l2.line = lines[l];
            p.l2.write_policy = u % 2 ? CACHE_WRITE_THROUGH
                                      : CACHE_WRITE_BACK;
            p.l2.atomics_here = u % 2 == 0;
            p.tester.mode = MEM_TESTER_OWNED_UNITS;
            p.tester.unit = units[u];
            p.tester.max_size = units[u];
            if (units[u] < 4)
                p.tester.atomic_percent = 0; /* atomics are 4 or 8 bytes */
            p.tester.size = 4096;
            p.tester.ops_per_agent = 1500;
            p.tester.seed = 900 + l * 10 + u;
            char what[96];
            snprintf(what, sizeof what, "byte owners: line %u unit %u",
                     lines[l], units[u]);
            run_and_check(&p, what, NULL);
        }
    }
}

/* 1-entry MSHRs, 1 target, 1-message buffers and lanes, minimum
** transactions below: slow, but everything completes. */
static void test_tiny_buffers_complete(void **state)
{
    (void)state;
    for (int pol = CACHE_WRITE_AROUND; pol <= CACHE_WRITE_BACK; pol++) {
        mem_world_params p;
        mem_world_params_default(&p);
        cache_config *cs[2] = {&p.l1, &p.l2};
        for (int i = 0; i < 2; i++) {
            cs[i]->mshr_entries = 1;
            cs[i]->mshr_targets = 1;
            cs[i]->top_buffer = 1;
            cs[i]->ctrl_buffer = 1;
            cs[i]->requests_per_cycle = 1;
            cs[i]->max_inflight_below =
                cs[i]->write_policy == CACHE_WRITE_BACK ? 2 : 1;
        }
        p.l1.write_policy = (cache_write_policy)pol;
        p.l1.max_inflight_below = pol == CACHE_WRITE_BACK ? 2 : 1;
        p.mem.buffer = 1;
        p.mem.queue = 1;
        p.conn.lane_capacity = 1;
        p.tester.buffer = 1;
        p.tester.ops_per_agent = 400;
        p.tester.mode = MEM_TESTER_OWNED_UNITS;
        uint64_t stalls;
        run_and_check(&p, "tiny buffers", &stalls);
        assert_true(stalls > 100); /* back-pressure really engaged */
    }
}

static uint64_t soak_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t soak_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(soak_next(s) % n);
}

/* Random hierarchies: every cache parameter, policy, buffer size, clock,
** link width and tester setting drawn at random (seeded). A longer run of
** the same generator (3000 configurations) was clean during development. */
static void test_random_configurations(void **state)
{
    (void)state;
    uint64_t s = 2026;
    for (int it = 0; it < 60; it++) {
        mem_world_params p;
        mem_world_params_default(&p);
        static const uint32_t lines[] = {32, 64, 128};
        uint32_t l1line = lines[soak_below(&s, 3)];
        uint32_t l2line = l1line == 128 ? 128 : lines[1 + soak_below(&s, 2)];
        p.nl1 = 1 + soak_below(&s, 4);
        p.nl2 = 1 + soak_below(&s, 4);
        cache_config *cs[2] = {&p.l1, &p.l2};
        for (int i = 0; i < 2; i++) {
            cache_config *c = cs[i];
            c->line = i ? l2line : l1line;
            c->size = (uint64_t)c->line * 2 << soak_below(&s, 6);
            uint32_t max_ways = (uint32_t)(c->size / c->line);
            c->ways = 1u << soak_below(&s, 4);
            if (c->ways > max_ways)
                c->ways = max_ways;
            c->hit_latency = soak_below(&s, 6);
            c->miss_latency = soak_below(&s, 4);
            c->mshr_entries = 1 + soak_below(&s, 4);
            c->mshr_targets = 1 + soak_below(&s, 4);
            c->top_buffer = 1 + soak_below(&s, 4);
            c->ctrl_buffer = 1 + soak_below(&s, 2);
            c->requests_per_cycle = 1 + soak_below(&s, 4);
            c->write_policy = (cache_write_policy)soak_below(&s, 3);
            c->max_inflight_below =
                (c->write_policy == CACHE_WRITE_BACK ? 2 : 1) +
                soak_below(&s, 6);
            c->write_allocate = soak_below(&s, 2);
            c->glc_bypass = soak_below(&s, 2);
            c->atomics_here = soak_below(&s, 2);
            c->period = 1000 + 500 * soak_below(&s, 2);
        }
        p.mem.latency = soak_below(&s, 30);
        p.mem.buffer = 1 + soak_below(&s, 4);
        p.mem.queue = 1 + soak_below(&s, 8);
        p.conn.lane_capacity = 1 + soak_below(&s, 4);
        p.conn.bytes_per_cycle = 8u << soak_below(&s, 4);
        p.tester.agents = 1 + soak_below(&s, 8);
        p.tester.mode = (mem_tester_mode)soak_below(&s, 2);
        p.tester.max_size = l1line;
        p.tester.size = 128ull * p.tester.agents << soak_below(&s, 5);
        p.tester.ops_per_agent = 200 + soak_below(&s, 300);
        p.tester.max_outstanding = 1 + soak_below(&s, 16);
        p.tester.read_percent = soak_below(&s, 80);
        p.tester.atomic_percent = soak_below(&s, 15);
        p.tester.partial_percent = soak_below(&s, 50);
        p.tester.glc_percent = soak_below(&s, 30);
        p.tester.buffer = 1 + soak_below(&s, 4);
        p.tester.seed = soak_next(&s);
        assert_int_equal(cache_config_validate(&p.l1), MGS_OK);
        assert_int_equal(cache_config_validate(&p.l2), MGS_OK);
        assert_int_equal(mem_tester_config_validate(&p.tester), MGS_OK);
        char what[64];
        snprintf(what, sizeof what, "random configuration %d", it);
        run_and_check(&p, what, NULL);
    }
}

static char *run_stats(uint64_t seed)
{
    mem_world_params p;
    mem_world_params_default(&p);
    p.tester.seed = seed;
    p.tester.mode = MEM_TESTER_OWNED_UNITS;
    mem_world w;
    mem_world_build(&w, &p);
    assert_int_equal(eng_run(w.eng), MGS_OK);
    char *s = mem_world_stats_text(&w);
    mem_world_free(&w);
    return s;
}

static void test_deterministic_stats(void **state)
{
    (void)state;
    char *a = run_stats(7), *b = run_stats(7), *c = run_stats(8);
    assert_true(strlen(a) > 1000);
    assert_string_equal(a, b);
    assert_string_not_equal(a, c); /* the seed matters */
    assert_non_null(strstr(a, "L2[1] read_hits"));
    free(a);
    free(b);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_private_regions_all_policies),
        cmocka_unit_test(test_shared_owned_units_all_policies),
        cmocka_unit_test(test_l2_only),
        cmocka_unit_test(test_byte_owners_share_lines),
        cmocka_unit_test(test_tiny_buffers_complete),
        cmocka_unit_test(test_random_configurations),
        cmocka_unit_test(test_deterministic_stats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
