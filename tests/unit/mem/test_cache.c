/* Tests for src/mem/cache*.c with a scripted probe above one cache and a
** fixed-latency memory below: exact latencies in ps, LRU order, MSHR
** merging, write policies, dirty eviction, flush, invalidate, atomics,
** GLC bypass, the same-source ordering rule, config validation. The
** fixture is cache_one.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gcn3/inst.h"
#include "cache_one.h"

/* Exact timing, in ps, 1 GHz everywhere, 1-cycle links of 64 B/cycle:
**   request (8 B) sent at 0 arrives at 0 + 1 cy transfer + 1 cy = 2000;
**   cache takes it at the next edge, 3000.
** Miss: fetch leaves at 3000 + miss_latency 2 cy = 5000, reaches memory at
**   7000, memory takes it at 8000, answers at 8000 + 10 cy = 18000; the
**   72-byte fill takes 2 cy + 1 cy: arrives 21000; the cache takes it at
**   22000 and answers at 22000 + hit_latency 5 cy = 27000; the 12-byte
**   answer arrives at 27000 + 2000 = 29000.
** Hit: sent at 100000 -> taken 103000 -> answered 108000 -> at 110000. */
static void test_read_latency_exact(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_AROUND);
    one *o = one_new(&cfg);
    mem_msg *miss = rd(o, 0x100, 4, 0);
    one_run(o);
    mem_msg *hit = rd(o, 0x104, 4, 100000);
    one_run(o);
    mgs_time t_miss = 0, t_hit = 0;
    mem_msg *a = probe_answer(&o->p, miss, &t_miss);
    mem_msg *b = probe_answer(&o->p, hit, &t_hit);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->base.type, MEM_READ_RSP);
    assert_int_equal(t_miss, 29000);
    assert_int_equal(t_hit, 110000);
    assert_bytes(a->data, 0x100, 4, o->bytes);
    assert_bytes(b->data, 0x104, 4, o->bytes);
    assert_int_equal(o->c->read_misses->value, 1);
    assert_int_equal(o->c->read_hits->value, 1);
    assert_int_equal(o->c->bytes_from_below->value, 64);
    one_free(o);
}

/* The cache sleeps while it waits: a 10-cycle memory latency costs a few
** events, not one per cycle. */
static void test_no_busy_ticking(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_AROUND);
    cfg.hit_latency = 200;
    one *o = one_new(&cfg);
    rd(o, 0x100, 4, 0);
    one_run(o);
    /* ~ 220 cycles of simulated time, far fewer cache ticks */
    assert_true(eng_now(o->eng) > 200000);
    assert_true(o->c->base.ticks < 12);
    one_free(o);
}

static void test_mshr_merge(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_AROUND);
    one *o = one_new(&cfg);
    mem_msg *r[3];
    for (int i = 0; i < 3; i++)
        r[i] = rd(o, 0x200 + 8 * (uint64_t)i, 8, 1000 * (mgs_time)i);
    one_run(o);
    assert_int_equal(o->c->read_misses->value, 1);
    assert_int_equal(o->c->read_mshr_merges->value, 2);
    assert_int_equal(o->c->read_hits->value, 0);
    mgs_time prev = 0;
    for (int i = 0; i < 3; i++) {
        mgs_time t = 0;
        mem_msg *a = probe_answer(&o->p, r[i], &t);
        assert_non_null(a);
        assert_bytes(a->data, 0x200 + 8 * (uint64_t)i, 8, o->bytes);
        assert_true(t >= prev); /* served in arrival order */
        prev = t;
    }
    one_free(o);
}

/* Fully associative, 4 lines: A B C D, touch A, E evicts B; touch C, F
** evicts D. */
static void test_lru_order(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_AROUND);
    cfg.size = 256;
    cfg.ways = 4;
    one *o = one_new(&cfg);
    const uint64_t A = 0x000, B = 0x400, C = 0x800, D = 0xc00, E = 0x1000,
                   F = 0x1400;
    mgs_time t = 0;
    uint64_t seq[] = {A, B, C, D, A, E, C, F};
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        rd(o, seq[i], 4, t);
        one_run(o);
        t = eng_now(o->eng) + 1000;
    }
    assert_true(cache_probe(o->c, A, NULL, NULL));
    assert_false(cache_probe(o->c, B, NULL, NULL));
    assert_true(cache_probe(o->c, C, NULL, NULL));
    assert_false(cache_probe(o->c, D, NULL, NULL));
    assert_true(cache_probe(o->c, E, NULL, NULL));
    assert_true(cache_probe(o->c, F, NULL, NULL));
    assert_int_equal(o->c->evictions->value, 2);
    assert_int_equal(o->c->read_hits->value, 2);
    one_free(o);
}

/* One bank of four interleaved every 128 B (two lines): its lines use all
** of its sets, since the bank-select bits are not part of the set index.
** 16 lines of bank 0 fill the 8 sets x 2 ways exactly, so reading them
** again hits 16 times (with the plain index they would share 2 sets). */
static void test_bank_sets(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_AROUND);
    cfg.size = 1024;
    cfg.ways = 2;
    cfg.banks = 4;
    cfg.bank_interleave = 128;
    one *o = one_new(&cfg);
    mgs_time t = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t i = 0; i < 16; i++) {
            uint64_t unit = i / 2 * 4; /* bank 0's units: 0, 4, 8, ... */
            rd(o, unit * 128 + i % 2 * 64, 4, t);
            one_run(o);
            t = eng_now(o->eng) + 1000;
        }
    assert_int_equal(o->c->read_misses->value, 16);
    assert_int_equal(o->c->read_hits->value, 16);
    assert_int_equal(o->c->evictions->value, 0);
    one_free(o);
    cache_config bad;
    base_cfg(&bad, CACHE_WRITE_AROUND);
    bad.banks = 4;
    bad.bank_interleave = 32; /* smaller than a line */
    assert_int_equal(cache_config_validate(&bad), MGS_EINVAL);
}

/* cache_tags_find_run (a DMA burst's lookup: sets stepped inside a bank's
** interleave unit, a vector pre-check of 16 ways) answers what
** cache_tags_find answers line by line, for runs that start anywhere and
** cross units, with some lines held and some not. It fails if the set is
** stepped across a unit boundary or the pre-check drops a hit. */
static void test_find_run_matches_find(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_AROUND);
    cfg.size = 16 * 8 * 64; /* 16 ways x 8 sets */
    cfg.ways = 16;
    cfg.banks = 2;
    cfg.bank_interleave = 256;
    one *o = one_new(&cfg);
    mgs_time t = 0;
    for (uint64_t line = 0; line < 200; line += 4) { /* 50: the probe keeps 64 */
        rd(o, line * 64, 4, t);
        one_run(o);
        t = eng_now(o->eng) + 1000;
    }
    int64_t run[64];
    uint32_t held = 0;
    for (uint64_t first = 0; first < 150; first += 7) {
        cache_tags_find_run(o->c, first * 64, 64, run);
        for (uint32_t i = 0; i < 64; i++) {
            int64_t one_line = cache_tags_find(o->c, (first + i) * 64);
            assert_int_equal(run[i], one_line);
            held += one_line >= 0;
        }
    }
    assert_true(held > 100); /* the runs met held lines, not only misses */
    one_free(o);
}

/* Write-around: a miss goes below without allocating; a hit updates the
** line and goes below; the answer waits for the memory's ack. */
static void test_write_around(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_AROUND);
    one *o = one_new(&cfg);
    mem_msg *w = wr(o, 0x300, 8, 0xab, 0);
    one_run(o);
    mgs_time t = 0;
    assert_non_null(probe_answer(&o->p, w, &t));
    /* fetch-free path: taken 3000, sent 5000, mem answers 18000, ack
    ** arrives 20000, taken 21000, answered 26000, arrives 28000 */
    assert_int_equal(t, 28000);
    assert_false(cache_probe(o->c, 0x300, NULL, NULL));
    assert_int_equal(o->bytes[0x300], 0xab);
    assert_int_equal(o->c->write_misses->value, 1);
    assert_int_equal(o->c->bytes_to_below->value, 8);
    /* now bring the line in and write to it: line and memory updated */
    rd(o, 0x300, 4, eng_now(o->eng) + 1000);
    one_run(o);
    wr(o, 0x308, 4, 0xcd, eng_now(o->eng) + 1000);
    one_run(o);
    uint8_t line[64];
    assert_true(cache_probe(o->c, 0x300, line, NULL));
    assert_int_equal(line[8], 0xcd);
    assert_int_equal(line[0], 0xab);
    assert_int_equal(o->bytes[0x308], 0xcd);
    assert_int_equal(o->c->write_hits->value, 1);
    one_free(o);
}

/* Partial (masked) writes reach memory as only the enabled bytes. */
static void test_partial_write_mask(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_THROUGH);
    one *o = one_new(&cfg);
    uint8_t before[8];
    memcpy(before, o->bytes + 0x400, 8);
    mem_msg *w = wr(o, 0x400, 8, 0x11, 0);
    w->mask = 0x05; /* bytes 0 and 2 */
    one_run(o);
    assert_int_equal(o->bytes[0x400], 0x11);
    assert_int_equal(o->bytes[0x401], before[1]);
    assert_int_equal(o->bytes[0x402], 0x11);
    assert_memory_equal(o->bytes + 0x403, before + 3, 5);
    one_free(o);
}

/* Write-through with write_allocate: a partial write miss fetches the
** line, merges, and writes through only its bytes. */
static void test_write_through_allocate(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_THROUGH);
    cfg.write_allocate = true;
    one *o = one_new(&cfg);
    uint8_t expect[64];
    memcpy(expect, o->bytes + 0x500, 64);
    wr(o, 0x510, 4, 0x77, 0);
    one_run(o);
    memset(expect + 0x10, 0x77, 4);
    uint8_t line[64];
    bool dirty = true;
    assert_true(cache_probe(o->c, 0x500, line, &dirty));
    assert_false(dirty);
    assert_memory_equal(line, expect, 64);
    assert_memory_equal(o->bytes + 0x500, expect, 64);
    assert_int_equal(o->c->bytes_from_below->value, 64);
    assert_int_equal(o->c->bytes_to_below->value, 4);
    one_free(o);
}

/* Write-back: writes stay in the cache (dirty) until evicted or flushed. */
static void test_write_back_evict_and_flush(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_BACK);
    cfg.size = 128; /* 1 set x 2 ways */
    one *o = one_new(&cfg);
    uint8_t orig[64];
    memcpy(orig, o->bytes + 0x1000, 64);
    mem_msg *w = wr(o, 0x1000, 64, 0x5a, 0);  /* full line: no fetch */
    one_run(o);
    mgs_time t = 0;
    assert_non_null(probe_answer(&o->p, w, &t));
    /* 72 bytes take 2 cycles + 1: arrives 3000, taken 4000, answered
    ** after hit_latency at 9000, ack arrives 11000: a hit's timing */
    assert_int_equal(t, 11000);
    assert_memory_equal(o->bytes + 0x1000, orig, 64);   /* not yet below */
    bool dirty = false;
    assert_true(cache_probe(o->c, 0x1000, NULL, &dirty));
    assert_true(dirty);
    assert_int_equal(o->c->bytes_from_below->value, 0);
    /* partial write miss: fetch, merge, dirty */
    wr(o, 0x2004, 4, 0x66, eng_now(o->eng) + 1000);
    one_run(o);
    assert_int_equal(o->c->bytes_from_below->value, 64);
    /* a third line evicts the LRU dirty line 0x1000: written back */
    rd(o, 0x3000, 4, eng_now(o->eng) + 1000);
    one_run(o);
    assert_int_equal(o->c->dirty_evictions->value, 1);
    assert_int_equal(o->c->writebacks->value, 1);
    for (int i = 0; i < 64; i++)
        assert_int_equal(o->bytes[0x1000 + i], 0x5a);
    assert_int_not_equal(o->bytes[0x2004], 0x66); /* still only cached */
    /* flush writes back the remaining dirty line and keeps it (clean) */
    mem_msg *f = ctl(o, MEM_FLUSH, 0, eng_now(o->eng) + 1000);
    one_run(o);
    mem_msg *fr = probe_answer(&o->ctl, f, NULL);
    assert_non_null(fr);
    assert_int_equal(fr->base.type, MEM_CTRL_RSP);
    assert_int_equal(o->bytes[0x2004], 0x66);
    assert_int_equal(o->c->writebacks->value, 2);
    assert_int_equal(o->c->flushes->value, 1);
    assert_true(cache_probe(o->c, 0x2000, NULL, &dirty));
    assert_false(dirty);
    /* flush + invalidate drops everything */
    ctl(o, MEM_FLUSH, MEM_F_INVALIDATE, eng_now(o->eng) + 1000);
    one_run(o);
    assert_false(cache_probe(o->c, 0x2000, NULL, NULL));
    assert_false(cache_probe(o->c, 0x3000, NULL, NULL));
    one_free(o);
}

/* A copy's write (MEM_F_NOALLOC) that misses a write-back cache goes to
** memory without allocating; one that hits updates the cached line, which
** stays dirty in the cache as any write-back write. */
static void test_write_back_noalloc(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_BACK);
    one *o = one_new(&cfg);
    mem_msg *w = wr(o, 0x1000, 64, 0x5a, 0);
    w->flags |= MEM_F_NOALLOC;
    one_run(o);
    assert_non_null(probe_answer(&o->p, w, NULL));
    assert_false(cache_probe(o->c, 0x1000, NULL, NULL));
    for (int i = 0; i < 64; i++)
        assert_int_equal(o->bytes[0x1000 + i], 0x5a);
    assert_int_equal(o->c->write_misses->value, 1);
    assert_int_equal(o->c->bytes_to_below->value, 64);
    /* cached (a read brings it in), then a copy's write hits it */
    rd(o, 0x2000, 4, eng_now(o->eng) + 1000);
    one_run(o);
    w = wr(o, 0x2000, 64, 0x77, eng_now(o->eng) + 1000);
    w->flags |= MEM_F_NOALLOC;
    one_run(o);
    uint8_t line[64];
    bool dirty = false;
    assert_true(cache_probe(o->c, 0x2000, line, &dirty));
    assert_true(dirty);
    assert_int_equal(line[0], 0x77);
    assert_int_equal(o->c->write_hits->value, 1);
    one_free(o);
}

/* A ranged FLUSH (mem_msg.span, the coherence protocols' host points)
** writes back and drops only the lines of its range; control requests walk
** the live list (frames used since the last compaction), not every frame
** of a large cache. */
static void test_ranged_flush_and_live_list(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_BACK);
    cfg.size = 16 << 20;        /* 262,144 frames */
    cfg.ways = 16;
    one *o = one_new(&cfg);
    for (uint64_t a = 0x1000; a <= 0x3000; a += 0x1000)
        wr(o, a, 64, (int)(a >> 12), 0);
    one_run(o);
    assert_int_equal(o->c->nlive, 3);
    mem_msg *f = ctl(o, MEM_FLUSH, MEM_F_INVALIDATE, eng_now(o->eng) + 1000);
    f->addr = 0x2010;           /* any byte of the line selects it */
    f->span = 8;
    one_run(o);
    assert_non_null(probe_answer(&o->ctl, f, NULL));
    assert_int_equal(o->bytes[0x2000], 2);          /* written back */
    assert_int_not_equal(o->bytes[0x1000], 1);      /* still only cached */
    assert_false(cache_probe(o->c, 0x2000, NULL, NULL));
    bool dirty = false;
    assert_true(cache_probe(o->c, 0x1000, NULL, &dirty) && dirty);
    assert_true(cache_probe(o->c, 0x3000, NULL, &dirty) && dirty);
    assert_int_equal(o->c->writebacks->value, 1);
    assert_int_equal(o->c->nlive, 2);
    ctl(o, MEM_FLUSH, MEM_F_INVALIDATE, eng_now(o->eng) + 1000);
    one_run(o);
    assert_int_equal(o->bytes[0x1000], 1);
    assert_int_equal(o->bytes[0x3000], 3);
    assert_int_equal(o->c->writebacks->value, 3);
    assert_int_equal(o->c->nlive, 0);
    assert_int_equal(cache_check(o->c), 1);
    one_free(o);
}

/* INVALIDATE drops clean lines only; it waits for a miss in flight. */
static void test_invalidate(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_BACK);
    one *o = one_new(&cfg);
    rd(o, 0x000, 4, 0);                 /* clean */
    wr(o, 0x040, 64, 0x42, 0);          /* dirty (full line) */
    one_run(o);
    mem_msg *miss = rd(o, 0x080, 4, eng_now(o->eng) + 1000);
    /* the invalidate arrives while the miss is in flight */
    mem_msg *inv = ctl(o, MEM_INVALIDATE, 0, eng_now(o->eng) + 3000);
    one_run(o);
    mgs_time t_miss = 0, t_inv = 0;
    assert_non_null(probe_answer(&o->p, miss, &t_miss));
    assert_non_null(probe_answer(&o->ctl, inv, &t_inv));
    assert_true(t_inv > t_miss - 3000);  /* answered after the fill */
    assert_false(cache_probe(o->c, 0x000, NULL, NULL));
    assert_false(cache_probe(o->c, 0x080, NULL, NULL));
    bool dirty = false;
    assert_true(cache_probe(o->c, 0x040, NULL, &dirty));
    assert_true(dirty);
    assert_int_equal(o->c->invalidations->value, 1);
    one_free(o);
}

/* regions_seen (a DMA burst's shortcut past its lookups): a region is
** seen once a line of it is claimed, stays seen while any line may be
** here (a dirty line survives an invalidate), and is unseen again only
** when the cache holds nothing. Fails if a claim is not noted (the burst
** would miss a held line) or the bits are cleared with lines still here. */
static void test_regions_seen(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_BACK);
    one *o = one_new(&cfg);
    const uint64_t A = 0x1000, B = 0x3000;
    assert_int_not_equal(cache_region_bit(A), cache_region_bit(B));
    assert_true(cache_regions_unseen(o->c, A, 4096));
    rd(o, A + 0x40, 4, 0);               /* clean line of region A */
    wr(o, B, 64, 0x42, 0);               /* dirty line of region B */
    one_run(o);
    assert_false(cache_regions_unseen(o->c, A, 4096));
    assert_false(cache_regions_unseen(o->c, B, 4096));
    /* A range is seen if any of its regions is (8 KiB bursts of 128-byte
    ** lines span three). */
    assert_false(cache_regions_unseen(o->c, A - 4096, 3 * 4096));
    ctl(o, MEM_INVALIDATE, 0, eng_now(o->eng) + 1000);
    one_run(o);
    /* B's dirty line stays: nothing is forgotten. */
    assert_true(cache_probe(o->c, B, NULL, NULL));
    assert_false(cache_regions_unseen(o->c, A, 4096));
    ctl(o, MEM_FLUSH, 0, eng_now(o->eng) + 1000);
    one_run(o);
    ctl(o, MEM_INVALIDATE, 0, eng_now(o->eng) + 1000);
    one_run(o);
    assert_false(cache_probe(o->c, B, NULL, NULL));
    assert_true(cache_regions_unseen(o->c, A, 4096));
    assert_true(cache_regions_unseen(o->c, B, 4096));
    one_free(o);
}

static mem_msg *atomic_req(one *o, uint64_t addr, unsigned op, uint8_t size,
                           uint64_t src, mgs_time t)
{
    mem_msg *m = probe_req(&o->p, MEM_ATOMIC, addr, size, cache_top(o->c));
    m->atomic_op = (uint16_t)op;
    m->atomic_size = size;
    m->atomic_src = src;
    probe_send_at(&o->p, m, t);
    return m;
}

static uint64_t le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* Atomics at an L2-like cache (atomics_here, write-back). */
static void test_atomics_here(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_BACK);
    cfg.atomics_here = true;
    one *o = one_new(&cfg);
    uint64_t init = le(o->bytes + 0x600, 4);
    mem_msg *a1 = atomic_req(o, 0x600, GCN_OP_FLAT_ATOMIC_ADD, 4, 5, 0);
    mem_msg *a2 = atomic_req(o, 0x600, GCN_OP_FLAT_ATOMIC_ADD, 4, 7, 1000);
    one_run(o);
    mem_msg *r1 = probe_answer(&o->p, a1, NULL);
    mem_msg *r2 = probe_answer(&o->p, a2, NULL);
    assert_int_equal(r1->base.type, MEM_ATOMIC_RSP);
    assert_int_equal(le(r1->data, 4), init);
    assert_int_equal(le(r2->data, 4), (init + 5) & 0xffffffff);
    uint8_t line[64];
    bool dirty = false;
    assert_true(cache_probe(o->c, 0x600, line, &dirty));
    assert_true(dirty);
    assert_int_equal(le(line, 4), (init + 12) & 0xffffffff);
    assert_int_equal(le(o->bytes + 0x600, 4), init); /* memory untouched */
    assert_int_equal(o->c->atomics->value, 2);
    one_free(o);
}

/* Without atomics_here the atomic goes below and our copy is dropped. */
static void test_atomics_forwarded(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_AROUND);
    one *o = one_new(&cfg);
    uint64_t init = le(o->bytes + 0x700, 8);
    rd(o, 0x700, 8, 0);
    one_run(o);
    assert_true(cache_probe(o->c, 0x700, NULL, NULL));
    mem_msg *a = atomic_req(o, 0x700, GCN_OP_FLAT_ATOMIC_SWAP_X2, 8,
                            0x1122334455667788ull, eng_now(o->eng) + 1000);
    mem_msg *r = rd(o, 0x700, 8, eng_now(o->eng) + 2000);
    one_run(o);
    assert_int_equal(le(probe_answer(&o->p, a, NULL)->data, 8), init);
    assert_int_equal(le(probe_answer(&o->p, r, NULL)->data, 8),
                     0x1122334455667788ull);
    assert_int_equal(le(o->bytes + 0x700, 8), 0x1122334455667788ull);
    one_free(o);
}

/* GLC reads bypass an L1 with glc_bypass: they go below even on a hit. */
static void test_glc_bypass(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_AROUND);
    one *o = one_new(&cfg);
    rd(o, 0x800, 4, 0);
    one_run(o);
    mem_msg *g = rd(o, 0x800, 4, eng_now(o->eng) + 1000);
    g->flags |= MEM_F_GLC;
    one_run(o);
    assert_int_equal(o->c->read_hits->value, 0);
    assert_int_equal(o->c->read_misses->value, 2);
    assert_bytes(probe_answer(&o->p, g, NULL)->data, 0x800, 4, o->bytes);
    assert_int_equal(o->c->bytes_from_below->value, 64 + 4);
    one_free(o);
}

/* Ordering rule: a read after a write of the same source sees the write,
** whether the write is still on its way below (write-around miss) or
** waiting behind a fill; a read before the write does not. */
static void test_read_after_write_ordering(void **state)
{
    (void)state;
    for (int pol = CACHE_WRITE_AROUND; pol <= CACHE_WRITE_BACK; pol++) {
        cache_config cfg;
        base_cfg(&cfg, (cache_write_policy)pol);
        one *o = one_new(&cfg);
        uint8_t old = o->bytes[0x900];
        /* pending write to an absent line, then a read: one cycle apart */
        wr(o, 0x900, 4, 0xee, 0);
        mem_msg *r1 = rd(o, 0x900, 4, 1000);
        /* read miss, then a write to the same line, then a read */
        mem_msg *r2 = rd(o, 0xa00, 4, 2000);
        wr(o, 0xa00, 4, 0x99, 3000);
        mem_msg *r3 = rd(o, 0xa00, 4, 4000);
        uint8_t old_a = o->bytes[0xa00];
        one_run(o);
        (void)old;
        assert_int_equal(probe_answer(&o->p, r1, NULL)->data[0], 0xee);
        assert_int_equal(probe_answer(&o->p, r2, NULL)->data[0], old_a);
        assert_int_equal(probe_answer(&o->p, r3, NULL)->data[0], 0x99);
        one_free(o);
    }
}

/* requests_per_cycle: four hits taken in one cycle leave together. */
static void test_requests_per_cycle(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_AROUND);
    cfg.requests_per_cycle = 4;
    one *o = one_new(&cfg);
    rd(o, 0xb00, 4, 0);
    one_run(o);
    mgs_time t0 = eng_now(o->eng) + 1000;
    mem_msg *r[4];
    for (int i = 0; i < 4; i++)
        r[i] = rd(o, 0xb00 + 4 * (uint64_t)i, 4, t0);
    one_run(o);
    mgs_time t[4] = {0};
    for (int i = 0; i < 4; i++)
        assert_non_null(probe_answer(&o->p, r[i], &t[i]));
    /* one link cycle apart (the lane serialises), not hit_latency apart */
    for (int i = 1; i < 4; i++)
        assert_int_equal(t[i] - t[i - 1], 1000);
    assert_int_equal(o->c->read_hits->value, 4);
    one_free(o);
}

/* A flush sent on the top port is served in order with requests. */
static void test_ctrl_on_top_port(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_BACK);
    one *o = one_new(&cfg);
    wr(o, 0xc00, 64, 0x31, 0);
    mem_msg *f = probe_req(&o->p, MEM_FLUSH, 0, 0, cache_top(o->c));
    probe_send_at(&o->p, f, 1000);
    one_run(o);
    mem_msg *a = probe_answer(&o->p, f, NULL);
    assert_non_null(a);
    assert_int_equal(a->base.type, MEM_CTRL_RSP);
    assert_int_equal(o->bytes[0xc00], 0x31);
    one_free(o);
}

/* The watchdog sees a cache stuck on a miss that is never answered. */
static void test_deadlock_reported(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_AROUND);
    one *o = one_new(&cfg);
    probe sink;
    probe_init(&sink, o->eng, o->pool, "Sink");
    sim_conn_config cc;
    conn_config_default(&cc);
    sim_conn *sc = conn_new(o->eng, "SinkConn", &cc, NULL);
    /* A second cache whose level below (the sink) never answers. */
    cache *c2 = cache_new(o->eng, "L1X", &cfg, o->pool, NULL);
    conn_plug(sc, cache_bottom(c2));
    conn_plug(sc, &sink.port);
    sim_conn *up2 = conn_new(o->eng, "Up2", &cc, NULL);
    probe req;
    probe_init(&req, o->eng, o->pool, "Req");
    conn_plug(up2, &req.port);
    conn_plug(up2, cache_top(c2));
    mem_route r;
    mem_route_single(&r, &sink.port);
    cache_set_route(c2, &r);
    mem_msg *m = probe_req(&req, MEM_READ, 0x40, 4, cache_top(c2));
    probe_send_at(&req, m, 0);
    assert_int_equal(eng_run(o->eng), MGS_EDEADLOCK);
    assert_non_null(strstr(mgs_error_msg(), "L1X"));
    assert_non_null(strstr(mgs_error_msg(), "deadlock"));
    assert_int_equal(sink.nrsp, 1);        /* the fetch reached the sink */
    probe_fini(&req);                      /* frees the read request */
    probe_fini(&sink);                     /* frees the fetch (ours now) */
    cache_free(c2);
    conn_free(sc);
    conn_free(up2);
    one_free(o);
}

/* A protocol that rejects every hit (an expired lease) turns hits into
** refetches into the same frame; hooks see fills, writes and evictions. */
typedef struct count_proto {
    int hit_checks, fills, writes, evicts, ctrls;
} count_proto;

static bool cp_hit_valid(void *pd, cache *c, uint64_t line, uint64_t *meta,
                         const mem_msg *req)
{
    (void)c; (void)line; (void)req;
    count_proto *p = pd;
    p->hit_checks++;
    return *meta != 0; /* valid only when the fill set it */
}

static void cp_on_fill(void *pd, cache *c, uint64_t line, uint64_t *meta,
                       const mem_msg *rsp)
{
    (void)c; (void)line; (void)rsp;
    ((count_proto *)pd)->fills++;
    *meta = 0; /* expire at once: next access refetches */
}

static void cp_on_write(void *pd, cache *c, uint64_t line, uint64_t *meta,
                        const mem_msg *req)
{
    (void)c; (void)line; (void)meta; (void)req;
    ((count_proto *)pd)->writes++;
}

static void cp_on_evict(void *pd, cache *c, uint64_t line, uint64_t *meta,
                        bool dirty)
{
    (void)c; (void)line; (void)meta; (void)dirty;
    ((count_proto *)pd)->evicts++;
}

static void cp_on_ctrl(void *pd, cache *c, const mem_msg *req)
{
    (void)c; (void)req;
    ((count_proto *)pd)->ctrls++;
}

static void test_protocol_hooks(void **state)
{
    (void)state;
    static const cache_protocol proto = {
        .name = "count", .hit_valid = cp_hit_valid, .on_fill = cp_on_fill,
        .on_write = cp_on_write, .on_evict = cp_on_evict,
        .on_ctrl = cp_on_ctrl};
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_AROUND);
    one *o = one_new(&cfg);
    count_proto pc = {0};
    cache_set_protocol(o->c, &proto, &pc);
    rd(o, 0xd00, 4, 0);
    one_run(o);
    mem_msg *again = rd(o, 0xd00, 4, eng_now(o->eng) + 1000);
    one_run(o);
    assert_bytes(probe_answer(&o->p, again, NULL)->data, 0xd00, 4, o->bytes);
    assert_int_equal(pc.hit_checks, 1);
    assert_int_equal(pc.fills, 2);          /* refetched */
    assert_int_equal(o->c->read_hits->value, 0);
    assert_int_equal(o->c->read_misses->value, 2);
    assert_int_equal(o->c->evictions->value, 0); /* same frame, same line */
    ctl(o, MEM_INVALIDATE, 0, eng_now(o->eng) + 1000);
    one_run(o);
    assert_int_equal(pc.ctrls, 1);
    assert_true(pc.evicts >= 2); /* refetch and invalidate dropped it */
    one_free(o);
}

static void test_config_validate(void **state)
{
    (void)state;
    cache_config c;
    cache_config_default(&c);
    assert_int_equal(cache_config_validate(&c), MGS_OK);
    c.line = 96;
    assert_int_equal(cache_config_validate(&c), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "line"));
    cache_config_default(&c);
    c.ways = 3;
    assert_int_equal(cache_config_validate(&c), MGS_EINVAL);
    cache_config_default(&c);
    c.mshr_entries = 0;
    assert_int_equal(cache_config_validate(&c), MGS_EINVAL);
    cache_config_default(&c);
    c.write_policy = CACHE_WRITE_BACK;
    c.max_inflight_below = 1;
    assert_int_equal(cache_config_validate(&c), MGS_EINVAL);
    cache_config_default(&c);
    c.ways = 256; /* fully associative 16 KB / 64 B */
    assert_int_equal(cache_config_validate(&c), MGS_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_latency_exact),
        cmocka_unit_test(test_no_busy_ticking),
        cmocka_unit_test(test_mshr_merge),
        cmocka_unit_test(test_lru_order),
        cmocka_unit_test(test_bank_sets),
        cmocka_unit_test(test_find_run_matches_find),
        cmocka_unit_test(test_write_around),
        cmocka_unit_test(test_partial_write_mask),
        cmocka_unit_test(test_write_through_allocate),
        cmocka_unit_test(test_write_back_evict_and_flush),
        cmocka_unit_test(test_write_back_noalloc),
        cmocka_unit_test(test_ranged_flush_and_live_list),
        cmocka_unit_test(test_invalidate),
        cmocka_unit_test(test_regions_seen),
        cmocka_unit_test(test_atomics_here),
        cmocka_unit_test(test_atomics_forwarded),
        cmocka_unit_test(test_glc_bypass),
        cmocka_unit_test(test_read_after_write_ordering),
        cmocka_unit_test(test_requests_per_cycle),
        cmocka_unit_test(test_ctrl_on_top_port),
        cmocka_unit_test(test_deadlock_reported),
        cmocka_unit_test(test_protocol_hooks),
        cmocka_unit_test(test_config_validate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
