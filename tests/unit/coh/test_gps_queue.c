/*
** The GPS remote write queue (src/coh/gps/gps_queue.c), seed 003 §5.2:
**   - coalescing with byte masks: stores to one block merge into one entry
**     (a hit), whatever their order; a masked store writes only its
**     enabled bytes; a later store overwrites an earlier one's bytes; the
**     two 64-byte halves of a 128-byte block have their own mask words; a
**     store longer than 64 bytes is whole (the memory protocol's masks
**     cover 64 bytes);
**   - the high watermark: capacity - 1 entries, reached by allocations
**     only; the oldest entry by allocation leaves first and a merge does
**     not refresh its age;
**   - the full drain of a release: every entry leaves, in allocation
**     order, with its bytes and mask, and the queue is empty and reusable;
**   - capacity: a full queue needs room only for a new block (a store to a
**     queued block still merges); a one-entry queue never reaches a
**     watermark;
**   - a randomized cross-check against a per-block model: no byte is lost
**     or invented over 10^5 stores, whatever the drains.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coh/gps/gps_int.h"

#define ALL ~0ull

/* A store of n bytes of value v at va (mask: bytes written, n <= 64). */
static bool store(gps_queue *q, uint64_t va, uint32_t n, uint8_t v,
                  uint64_t mask)
{
    uint8_t d[MEM_LINE_MAX];
    memset(d, v, sizeof d);
    return gps_queue_store(q, va, 7, d, n, mask);
}

static void test_coalescing(void **state)
{
    (void)state;
    gps_queue q;
    gps_queue_init(&q, 512, 128);
    /* Two 4-byte stores to one block, the later one first in memory. */
    assert_false(store(&q, 0x10008, 4, 0xbb, ALL));
    assert_true(store(&q, 0x10000, 4, 0xaa, ALL));
    assert_int_equal(q.count, 1);
    /* A masked 64-byte store: only bytes 16 and 17 of the block. */
    assert_true(store(&q, 0x10000, 64, 0xcc, 3ull << 16));
    /* The second half of the block: its own mask word. */
    assert_true(store(&q, 0x10040, 8, 0xdd, ALL));
    /* Overwrite byte 0x09 with a masked store. */
    assert_true(store(&q, 0x10008, 4, 0xee, 2));
    /* Another block allocates. */
    assert_false(store(&q, 0x10080, 4, 0x11, ALL));
    assert_int_equal(q.count, 2);
    gps_qentry e;
    assert_true(gps_queue_pop(&q, &e));
    assert_int_equal(e.block, 0x10000);
    assert_int_equal(e.page, 7);
    assert_int_equal(e.mask[0], 0xfull | 0xf00ull | 3ull << 16);
    assert_int_equal(e.mask[1], 0xffull);
    assert_int_equal(e.data[0], 0xaa);
    assert_int_equal(e.data[3], 0xaa);
    assert_int_equal(e.data[8], 0xbb);
    assert_int_equal(e.data[9], 0xee);
    assert_int_equal(e.data[10], 0xbb);
    assert_int_equal(e.data[16], 0xcc);
    assert_int_equal(e.data[17], 0xcc);
    assert_int_equal(e.data[64], 0xdd);
    assert_int_equal(e.data[71], 0xdd);
    assert_true(gps_queue_pop(&q, &e));
    assert_int_equal(e.block, 0x10080);
    assert_int_equal(e.mask[0], 0xfull);
    assert_int_equal(e.mask[1], 0);
    assert_false(gps_queue_pop(&q, &e));
    /* A whole-block store (128 bytes, no mask) sets every byte. */
    uint8_t d[128];
    for (int i = 0; i < 128; i++)
        d[i] = (uint8_t)i;
    assert_false(gps_queue_store(&q, 0x20000, 1, d, 128, 0));
    assert_true(gps_queue_pop(&q, &e));
    assert_int_equal(e.mask[0], ALL);
    assert_int_equal(e.mask[1], ALL);
    assert_memory_equal(e.data, d, 128);
    gps_queue_fini(&q);
}

static void test_watermark(void **state)
{
    (void)state;
    gps_queue q;
    gps_queue_init(&q, 4, 128);
    assert_false(store(&q, 0x000, 4, 1, ALL));
    assert_false(store(&q, 0x080, 4, 2, ALL));
    assert_false(gps_queue_at_watermark(&q));
    /* Merges into the oldest block do not refresh it nor fill the queue. */
    for (int i = 0; i < 10; i++)
        assert_true(store(&q, 0x000 + 4 * (uint64_t)i, 4, 1, ALL));
    assert_false(gps_queue_at_watermark(&q));
    assert_false(store(&q, 0x100, 4, 3, ALL));
    assert_true(gps_queue_at_watermark(&q)); /* 3 of 4 = capacity - 1 */
    gps_qentry e;
    assert_true(gps_queue_pop(&q, &e));
    assert_int_equal(e.block, 0x000);       /* oldest by allocation */
    assert_false(gps_queue_at_watermark(&q));
    /* Address 0 left: a store to it allocates again, now the youngest. */
    assert_false(store(&q, 0x000, 4, 4, ALL));
    assert_true(gps_queue_at_watermark(&q));
    const uint64_t order[] = {0x080, 0x100, 0x000};
    for (int i = 0; i < 3; i++) {
        assert_true(gps_queue_pop(&q, &e));
        assert_int_equal(e.block, order[i]);
    }
    gps_queue_fini(&q);
}

static void test_release_drain(void **state)
{
    (void)state;
    gps_queue q;
    gps_queue_init(&q, 512, 128);
    for (uint64_t b = 0; b < 300; b++)
        assert_false(store(&q, 0x40000 + b * 128 + 4, 8, (uint8_t)b, ALL));
    assert_int_equal(q.count, 300);
    gps_qentry e;
    for (uint64_t b = 0; b < 300; b++) {
        assert_true(gps_queue_pop(&q, &e));
        assert_int_equal(e.block, 0x40000 + b * 128);
        assert_int_equal(e.mask[0], 0xffull << 4);
        assert_int_equal(e.data[4], (uint8_t)b);
    }
    assert_false(gps_queue_pop(&q, &e));
    assert_int_equal(q.count, 0);
    /* Reusable: every entry again, tags freed. */
    for (uint64_t b = 0; b < 512; b++)
        assert_false(store(&q, b * 128, 4, 9, ALL));
    assert_int_equal(q.count, 512);
    gps_queue_fini(&q);
}

static void test_capacity(void **state)
{
    (void)state;
    gps_queue q;
    gps_queue_init(&q, 2, 64);
    assert_false(gps_queue_needs_room(&q, 0x0));
    store(&q, 0x00, 4, 1, ALL);
    store(&q, 0x40, 4, 2, ALL);
    assert_int_equal(q.count, 2);
    /* Full: a new block needs room, a queued one does not. */
    assert_true(gps_queue_needs_room(&q, 0x80));
    assert_false(gps_queue_needs_room(&q, 0x44));
    assert_true(store(&q, 0x44, 4, 3, ALL));
    gps_qentry e;
    assert_true(gps_queue_pop(&q, &e));
    assert_false(gps_queue_needs_room(&q, 0x80));
    assert_false(store(&q, 0x80, 4, 4, ALL));
    assert_int_equal(q.count, 2);
    /* A 64-byte block keeps one mask word; bytes past the block are not
    ** taken. */
    assert_true(gps_queue_pop(&q, &e));
    assert_int_equal(e.block, 0x40);
    assert_int_equal(e.mask[0], 0xffull);
    assert_int_equal(e.mask[1], 0);
    gps_queue_fini(&q);
    /* One entry: no watermark; it drains only when full (needs room). */
    gps_queue_init(&q, 1, 128);
    store(&q, 0x00, 4, 1, ALL);
    assert_false(gps_queue_at_watermark(&q));
    assert_true(gps_queue_needs_room(&q, 0x80));
    gps_queue_fini(&q);
}

/* 10^5 random masked stores over 64 blocks of a 16-entry queue, draining at
** the watermark and at random "releases": the last value of every byte is
** what the drained entries delivered, in order. */
static void test_cross_check(void **state)
{
    (void)state;
    enum { BLOCKS = 64, B = 128 };
    static uint8_t model[BLOCKS * B], got[BLOCKS * B];
    static bool wrote[BLOCKS * B], seen[BLOCKS * B];
    memset(wrote, 0, sizeof wrote);
    memset(seen, 0, sizeof seen);
    gps_queue q;
    gps_queue_init(&q, 16, B);
    uint64_t x = 12345;
    gps_qentry e;
    for (int i = 0; i < 100000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t blk = (uint32_t)(x >> 33) % BLOCKS;
        uint32_t off = (uint32_t)(x >> 20) % (B / 4) * 4;
        uint32_t n = off + 64 <= B && (x >> 60 & 1) ? 64 : 4;
        uint64_t mask = n == 64 ? x * 0x9e3779b97f4a7c15ull : ALL;
        uint8_t d[64];
        for (uint32_t k = 0; k < n; k++) {
            d[k] = (uint8_t)(x >> (k % 8 * 8)) ^ (uint8_t)k;
            if (n < 64 || (mask >> k & 1)) {
                model[blk * B + off + k] = d[k];
                wrote[blk * B + off + k] = true;
            }
        }
        uint64_t va = 0x100000 + (uint64_t)blk * B + off;
        if (gps_queue_needs_room(&q, va) && gps_queue_pop(&q, &e))
            fail();            /* the watermark below keeps one free */
        gps_queue_store(&q, va, 0, d, n, mask);
        assert_true(q.count <= 16);
        bool release = (x >> 40) % 997 == 0;
        while ((gps_queue_at_watermark(&q) || release) &&
               gps_queue_pop(&q, &e)) {
            uint64_t base = e.block - 0x100000;
            for (uint32_t k = 0; k < B; k++)
                if (e.mask[k / 64] >> (k % 64) & 1) {
                    got[base + k] = e.data[k];
                    seen[base + k] = true;
                }
        }
    }
    while (gps_queue_pop(&q, &e))
        for (uint32_t k = 0; k < B; k++)
            if (e.mask[k / 64] >> (k % 64) & 1) {
                got[e.block - 0x100000 + k] = e.data[k];
                seen[e.block - 0x100000 + k] = true;
            }
    for (uint32_t i = 0; i < BLOCKS * B; i++) {
        assert_int_equal(seen[i], wrote[i]);
        if (wrote[i])
            assert_int_equal(got[i], model[i]);
    }
    gps_queue_fini(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coalescing),
        cmocka_unit_test(test_watermark),
        cmocka_unit_test(test_release_drain),
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_cross_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
