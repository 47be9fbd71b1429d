/*
** Device memory (src/runtime/devmem.c) through the runtime API and the
** devmem interface: allocation and page-table placement (one GPU and
** round robin), lazy backing, faults to the byte, guard pages, freeing and
** page reuse, out-of-memory, copies and memset, atomics.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gcn3/exec.h"
#include "gcn3/exec_mem_plan.h"
#include "gcn3/inst.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"
#include "runtime/devmem.h"

static mgs_rt *new_rt(int gpus, uint64_t mem)
{
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.num_gpus = gpus;
    o.mem_per_gpu = mem;
    mgs_rt *rt = NULL;
    assert_int_equal(mgs_rt_new(&o, &rt), MGS_OK);
    return rt;
}

static void test_defaults_and_bad_options(void **state)
{
    (void)state;
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    assert_int_equal(o.num_gpus, 1);
    assert_true(o.mem_per_gpu == 4ull << 30);
    assert_int_equal(o.mode, MGS_MODE_EMU);
    o.num_gpus = 0;
    mgs_rt *rt = (mgs_rt *)&o;
    assert_int_equal(mgs_rt_new(&o, &rt), MGS_EINVAL);
    assert_null(rt);
}

static void test_alloc_lazy_and_roundtrip(void **state)
{
    (void)state;
    /* A 4 GiB device and a 1 GiB buffer cost no backing until touched. */
    mgs_rt *rt = new_rt(1, 4ull << 30);
    mgs_dptr big, small;
    assert_int_equal(mgs_malloc(rt, 0, 1ull << 30, &big), MGS_OK);
    assert_true(big >= MGS_DEVMEM_VA_BASE);
    assert_true(mgs_rt_gpu_used_pages(rt, 0) == (1ull << 30) / 4096);
    assert_true(mgs_rt_backed_pages(rt) == 0);
    /* Reads of untouched memory are zero and still back nothing. */
    uint32_t v = 0xffffffffu;
    assert_int_equal(mgs_memcpy_d2h(rt, &v, big + 12345 * 4, 4), MGS_OK);
    assert_int_equal(v, 0);
    assert_true(mgs_rt_backed_pages(rt) == 0);
    /* A write spanning a page boundary backs exactly two pages. */
    uint8_t data[64];
    for (int i = 0; i < 64; i++)
        data[i] = (uint8_t)i;
    assert_int_equal(mgs_memcpy_h2d(rt, big + 4096 * 7 - 32, data, 64),
                     MGS_OK);
    assert_true(mgs_rt_backed_pages(rt) == 2);
    uint8_t back[64];
    assert_int_equal(mgs_memcpy_d2h(rt, back, big + 4096 * 7 - 32, 64),
                     MGS_OK);
    assert_memory_equal(back, data, 64);
    /* Distinct allocations never overlap and are separated by a guard. */
    assert_int_equal(mgs_malloc(rt, 0, 10, &small), MGS_OK);
    assert_true(small >= big + (1ull << 30) + 4096);
    mgs_rt_free(rt);
}

static void test_faults(void **state)
{
    (void)state;
    mgs_rt *rt = new_rt(1, 1 << 20);
    mgs_dptr p;
    assert_int_equal(mgs_malloc(rt, 0, 100, &p), MGS_OK);
    uint8_t buf[16] = {0};
    /* Byte 100 is past the allocation even though its page is mapped. */
    assert_int_equal(mgs_memcpy_h2d(rt, p + 96, buf, 4), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(rt, p + 97, buf, 4), MGS_EFAULT);
    char want[80];
    snprintf(want, sizeof want, "memory fault at address 0x%llx (write of 4 "
             "bytes)", (unsigned long long)(p + 100));
    assert_string_equal(mgs_error_msg(), want);
    assert_int_equal(mgs_memcpy_d2h(rt, buf, p - 8, 4), MGS_EFAULT);
    assert_int_equal(mgs_memcpy_d2h(rt, buf, 0, 4), MGS_EFAULT);
    assert_int_equal(mgs_memcpy_d2h(rt, buf, 0x7fffffffffffull, 4),
                     MGS_EFAULT);
    /* After free the range faults and free twice is refused. */
    assert_int_equal(mgs_free(rt, p), MGS_OK);
    assert_int_equal(mgs_memcpy_d2h(rt, buf, p, 4), MGS_EFAULT);
    assert_int_equal(mgs_free(rt, p), MGS_EINVAL);
    assert_int_equal(mgs_free(rt, p + 4), MGS_EINVAL);
    mgs_rt_free(rt);
}

static void test_out_of_memory_and_reuse(void **state)
{
    (void)state;
    mgs_rt *rt = new_rt(2, 64 * 4096);
    mgs_dptr a, b, c;
    assert_int_equal(mgs_malloc(rt, 1, 64 * 4096, &a), MGS_OK);
    assert_int_equal(mgs_malloc(rt, 1, 1, &b), MGS_ENOMEM);
    assert_non_null(strstr(mgs_error_msg(), "out of device memory on GPU 1"));
    /* GPU 0 still has room; a spread allocation needs room on both. */
    assert_int_equal(mgs_malloc(rt, 0, 4096, &b), MGS_OK);
    assert_int_equal(mgs_malloc(rt, MGS_GPU_ALL, 2 * 4096, &c), MGS_ENOMEM);
    assert_int_equal(mgs_malloc(rt, 2, 16, &c), MGS_EINVAL);
    /* Freeing returns the pages, and their bytes: a page taken again reads
    ** as zeros (devmem.c gives a released block back to the OS). */
    static uint8_t page[4096];
    memset(page, 0xab, sizeof page);
    for (uint64_t o = 0; o < 64 * 4096; o += 4096)
        assert_int_equal(mgs_memcpy_h2d(rt, a + o, page, 4096), MGS_OK);
    assert_int_equal(mgs_free(rt, a), MGS_OK);
    assert_true(mgs_rt_gpu_used_pages(rt, 1) == 0);
    assert_int_equal(mgs_malloc(rt, MGS_GPU_ALL, 8 * 4096, &c), MGS_OK);
    assert_true(mgs_rt_gpu_used_pages(rt, 1) == 4);
    for (uint64_t o = 0; o < 8 * 4096; o += 4096) {
        uint8_t one = 1; /* backs the block again; the rest stays zero */
        assert_int_equal(mgs_memcpy_h2d(rt, c + o, &one, 1), MGS_OK);
        assert_int_equal(mgs_memcpy_d2h(rt, page, c + o, 4096), MGS_OK);
        assert_int_equal(page[0], 1);
        for (size_t i = 1; i < sizeof page; i++)
            assert_int_equal(page[i], 0);
    }
    mgs_rt_free(rt);
}

static void test_distributed_placement(void **state)
{
    (void)state;
    mgs_rt *rt = new_rt(4, 1 << 24);
    mgs_dptr p, q;
    assert_int_equal(mgs_malloc(rt, MGS_GPU_ALL, 10 * 4096 + 1, &p), MGS_OK);
    /* Contiguous chunks (platform.placement's default): page i of 11 on
    ** GPU floor(i * 4 / 11). */
    for (int i = 0; i < 11; i++)
        assert_int_equal(mgs_rt_gpu_of(rt, p + (mgs_dptr)i * 4096 + 5),
                         i * 4 / 11);
    assert_true(mgs_rt_gpu_used_pages(rt, 0) == 3);
    assert_true(mgs_rt_gpu_used_pages(rt, 3) == 2);
    assert_int_equal(mgs_malloc(rt, 2, 3 * 4096, &q), MGS_OK);
    assert_int_equal(mgs_rt_gpu_of(rt, q + 2 * 4096), 2);
    assert_int_equal(mgs_rt_gpu_of(rt, q + 3 * 4096), -1); /* guard */
    /* Data crosses GPU pages transparently. */
    uint32_t in[3000], out[3000];
    for (int i = 0; i < 3000; i++)
        in[i] = (uint32_t)i * 2654435761u;
    assert_int_equal(mgs_memcpy_h2d(rt, p + 100, in, sizeof in), MGS_OK);
    assert_int_equal(mgs_memcpy_d2h(rt, out, p + 100, sizeof out), MGS_OK);
    assert_memory_equal(in, out, sizeof in);
    mgs_rt_free(rt);
}

static void test_d2d_memset(void **state)
{
    (void)state;
    mgs_rt *rt = new_rt(2, 1 << 24);
    mgs_dptr a, b;
    assert_int_equal(mgs_malloc(rt, 0, 3 * 4096, &a), MGS_OK);
    assert_int_equal(mgs_malloc(rt, 1, 3 * 4096, &b), MGS_OK);
    assert_int_equal(mgs_memset(rt, a, 0x5a, 3 * 4096), MGS_OK);
    assert_int_equal(mgs_memset(rt, a + 10, 0, 5), MGS_OK);
    assert_int_equal(mgs_memcpy_d2d(rt, b, a, 3 * 4096), MGS_OK);
    uint8_t buf[16];
    assert_int_equal(mgs_memcpy_d2h(rt, buf, b + 8, 8), MGS_OK);
    assert_int_equal(buf[1], 0x5a);
    assert_int_equal(buf[2], 0);   /* bytes 10..14 were zeroed */
    assert_int_equal(buf[6], 0);
    assert_int_equal(buf[7], 0x5a);
    /* Overlapping copy behaves like memmove. */
    uint8_t seq[32];
    for (int i = 0; i < 32; i++)
        seq[i] = (uint8_t)i;
    assert_int_equal(mgs_memcpy_h2d(rt, a, seq, 32), MGS_OK);
    assert_int_equal(mgs_memcpy_d2d(rt, a + 4, a, 28), MGS_OK);
    assert_int_equal(mgs_memcpy_d2h(rt, buf, a, 16), MGS_OK);
    assert_int_equal(buf[4], 0);
    assert_int_equal(buf[15], 11);
    /* A copy past the end fails without writing. */
    assert_int_equal(mgs_memcpy_d2d(rt, b + 3 * 4096 - 8, a, 16), MGS_EFAULT);
    assert_int_equal(mgs_memset(rt, b, 1, 3 * 4096 + 1), MGS_EFAULT);
    mgs_rt_free(rt);
}

static void test_atomics(void **state)
{
    (void)state;
    mgs_devmem m;
    assert_int_equal(mgs_devmem_init(&m, 1, 1 << 20), MGS_OK);
    uint64_t p, old;
    assert_int_equal(mgs_devmem_alloc_range(&m, 0, 64, &p), MGS_OK);
    assert_int_equal(mgs_devmem_atomic(&m, p, GCN_OP_FLAT_ATOMIC_ADD, 4, 5, 0,
                                       &old), MGS_OK);
    assert_true(old == 0);
    assert_int_equal(mgs_devmem_atomic(&m, p, GCN_OP_FLAT_ATOMIC_SMIN, 4,
                                       (uint32_t)-3, 0, &old), MGS_OK);
    assert_true(old == 5);
    assert_int_equal(mgs_devmem_atomic(&m, p, GCN_OP_FLAT_ATOMIC_CMPSWAP, 4,
                                       9, (uint32_t)-3, &old), MGS_OK);
    assert_true(old == 0xfffffffdu);
    uint32_t v;
    assert_int_equal(mgs_devmem_read(&m, p, &v, 4), MGS_OK);
    assert_int_equal(v, 9);
    assert_int_equal(mgs_devmem_atomic(&m, p + 8, GCN_OP_FLAT_ATOMIC_DEC_X2,
                                       8, 10, 0, &old), MGS_OK);
    assert_int_equal(mgs_devmem_read(&m, p + 8, &v, 4), MGS_OK);
    assert_int_equal(v, 10); /* dec of 0 wraps to the operand */
    assert_int_equal(mgs_devmem_atomic(&m, p + 2, GCN_OP_FLAT_ATOMIC_ADD, 4,
                                       1, 0, &old), MGS_EFAULT);
    assert_int_equal(mgs_devmem_atomic(&m, p + 64, GCN_OP_FLAT_ATOMIC_ADD, 4,
                                       1, 0, &old), MGS_EFAULT);
    mgs_devmem_destroy(&m);
}

/* Runs (PASI pieces): an allocation of 8 pages on GPU 1 tagged in runs of
** at most 4 pages is two runs; a changed entry ends its run (and only its
** run); a block whose frames are not consecutive is no run; read-only bits
** and the held frame runs. */
static void test_runs_and_readonly(void **state)
{
    (void)state;
    mgs_devmem m;
    assert_int_equal(mgs_devmem_init(&m, 2, 1 << 20), MGS_OK);
    uint64_t va;
    assert_int_equal(mgs_devmem_alloc_mapped(&m, 1, 8 * 4096,
                                             MGS_MAP_RESIDENT, &va), MGS_OK);
    mgs_devmem_tag_runs(&m, va, 8 * 4096, 2);
    for (int k = 0; k < 8; k++)
        assert_int_equal(mgs_devmem_run_order(&m, 1, va + k * 4096u), 2);
    assert_int_equal(mgs_devmem_run_order(&m, 0, va), 0); /* not mapped */
    assert_false(mgs_devmem_readonly(&m, 1, va + 4096));
    assert_int_equal(mgs_devmem_set_readonly(&m, 1, va + 4096, true), MGS_OK);
    assert_true(mgs_devmem_readonly(&m, 1, va + 4096));
    for (int k = 0; k < 4; k++)   /* mixed permissions: no run */
        assert_int_equal(mgs_devmem_run_order(&m, 1, va + k * 4096u), 0);
    assert_int_equal(mgs_devmem_run_order(&m, 1, va + 5 * 4096u), 2);
    assert_int_equal(mgs_devmem_set_run(&m, 1, va, 2), 0);
    assert_int_equal(mgs_devmem_set_readonly(&m, 1, va + 4096, false),
                     MGS_OK);
    assert_int_equal(mgs_devmem_set_run(&m, 1, va, 2), 2);
    assert_int_equal(mgs_devmem_set_run(&m, 1, va, 3), 3);  /* all 8 */
    assert_int_equal(mgs_devmem_unmap(&m, 1, va + 6 * 4096u), MGS_OK);
    for (int k = 0; k < 8; k++)
        assert_int_equal(mgs_devmem_run_order(&m, 1, va + k * 4096u), 0);
    /* Frames in another order are no run. */
    int g;
    uint32_t f0, f1;
    assert_int_equal(mgs_devmem_page_frame(&m, 1, va, &g, &f0), MGS_OK);
    assert_int_equal(mgs_devmem_page_frame(&m, 1, va + 4096, &g, &f1),
                     MGS_OK);
    assert_int_equal(mgs_devmem_map(&m, 1, va, 1, f1), MGS_OK);
    assert_int_equal(mgs_devmem_set_run(&m, 1, va, 1), 0);
    /* A run of never-used frames, held. */
    uint32_t run;
    assert_int_equal(mgs_devmem_frame_hold_run(&m, 0, 4, &run), MGS_OK);
    uint64_t used = mgs_devmem_used_pages(&m, 0);
    for (uint32_t k = 0; k < 4; k++)
        mgs_devmem_frame_drop(&m, 0, run + k);
    assert_int_equal(mgs_devmem_used_pages(&m, 0), used - 4);
    assert_int_equal(mgs_devmem_frame_hold_run(&m, 0, 1u << 30, &run),
                     MGS_ENOMEM);
    mgs_devmem_destroy(&m);
}

/* Runs plan p twice, through the view's ops with and without the span
** fast path (gcn_mem_ops.span); both must give the same result code, the
** same loaded data and the same memory. */
static int plan_both_ways(mgs_devmem *m, mgs_devmem_view *v,
                          const gcn_mem_plan *p, uint64_t va, size_t bytes)
{
    gcn_mem_ops slow = mgs_devmem_view_ops;
    slow.span = NULL;
    static gcn_mem_plan a, b;
    static uint8_t before[3 * 4096], after_a[3 * 4096], after_b[3 * 4096];
    assert_true(bytes <= sizeof before);
    assert_int_equal(mgs_devmem_read(m, va, before, bytes), MGS_OK);
    a = *p;
    int rc_a = gcn_mem_plan_access(&a, &mgs_devmem_view_ops, v);
    char msg_a[160];
    snprintf(msg_a, sizeof msg_a, "%s", rc_a ? mgs_error_msg() : "");
    assert_int_equal(mgs_devmem_read(m, va, after_a, bytes), MGS_OK);
    assert_int_equal(mgs_devmem_write(m, va, before, bytes), MGS_OK);
    b = *p;
    int rc_b = gcn_mem_plan_access(&b, &slow, v);
    assert_int_equal(rc_a, rc_b);
    if (rc_b)
        assert_string_equal(msg_a, mgs_error_msg());
    assert_int_equal(mgs_devmem_read(m, va, after_b, bytes), MGS_OK);
    assert_memory_equal(after_a, after_b, bytes);
    assert_memory_equal(a.data, b.data, sizeof a.data);
    return rc_a;
}

/* Gathers and scatters inside one 4 KiB block take one span; the result
** is the per-lane path's: data, lane order of overlapping stores, partial
** EXEC, dwordx2 elements, fall-back across blocks, faults to the byte. */
static void test_view_span_matches_per_lane(void **state)
{
    (void)state;
    mgs_devmem m;
    assert_int_equal(mgs_devmem_init(&m, 1, 1 << 20), MGS_OK);
    uint64_t va;
    assert_int_equal(mgs_devmem_alloc_range(&m, 0, 3 * 4096, &va), MGS_OK);
    uint32_t init[3 * 1024];
    for (uint32_t i = 0; i < 3 * 1024; i++)
        init[i] = 0x1000u + i;
    assert_int_equal(mgs_devmem_write(&m, va, init, sizeof init), MGS_OK);
    mgs_devmem_view v = {.mem = &m, .gpu = 0, .page_bounds = false};
    static gcn_mem_plan p;
    memset(&p, 0, sizeof p);
    p.kind = GCN_MEM_LOAD;
    p.elem_bytes = 4;
    p.nelem = 1;
    p.mem_lanes = p.ret_lanes = ~0ull;
    for (unsigned l = 0; l < 64; l++) /* a gather: lanes out of order */
        p.addr[0][l] = va + 4 * ((l * 37) % 64 + 200);
    assert_int_equal(plan_both_ways(&m, &v, &p, va, sizeof init), MGS_OK);
    p.mem_lanes = p.ret_lanes = 0x00ff00ff00ff00f1ull; /* partial EXEC */
    assert_int_equal(plan_both_ways(&m, &v, &p, va, sizeof init), MGS_OK);
    /* Stores: every lane to one of two dwords; the last lane wins. */
    p.kind = GCN_MEM_STORE;
    p.mem_lanes = ~0ull;
    for (unsigned l = 0; l < 64; l++) {
        p.addr[0][l] = va + 4096 + 4 * (l & 1);
        p.data[0][l] = 0xabc00u + l;
    }
    assert_int_equal(plan_both_ways(&m, &v, &p, va, sizeof init), MGS_OK);
    uint32_t w[2];
    assert_int_equal(mgs_devmem_read(&m, va + 4096, w, 8), MGS_OK);
    assert_int_equal(w[0], 0xabc00u + 62);
    assert_int_equal(w[1], 0xabc00u + 63);
    /* dwordx2 per lane, and lanes across two blocks (no single span). */
    p.nelem = 2;
    for (unsigned l = 0; l < 64; l++) {
        p.addr[0][l] = va + 8 * ((l * 5) % 64) + (l < 32 ? 0 : 4096 - 256);
        p.addr[1][l] = p.addr[0][l] + 4;
        p.data[1][l] = 0xdef00u + l;
    }
    assert_int_equal(plan_both_ways(&m, &v, &p, va, sizeof init), MGS_OK);
    p.kind = GCN_MEM_LOAD;
    assert_int_equal(plan_both_ways(&m, &v, &p, va, sizeof init), MGS_OK);
    /* One lane past the allocation's end: the same fault either way, and
    ** with page bounds (ROCm) both read the mapped page. */
    p.nelem = 1;
    for (unsigned l = 0; l < 64; l++)
        p.addr[0][l] = va + 3 * 4096 - 256 + 4 * l;
    p.addr[0][9] = va + 3 * 4096;
    assert_int_equal(plan_both_ways(&m, &v, &p, va, sizeof init), MGS_EFAULT);
    p.addr[0][9] = va + 3 * 4096 - 4;
    p.kind = GCN_MEM_STORE;
    assert_int_equal(plan_both_ways(&m, &v, &p, va, sizeof init), MGS_OK);
    mgs_devmem_destroy(&m);
}

/* Mapping changes for TLB shoot-downs at the next launch
** (cp.launch_tlb_shootdown = changed): fresh allocations are none, a free,
** an unmap, a remap and a permission change each name their pages; a
** reader too far behind the ring is told "many". */
static void test_mapping_changes(void **state)
{
    (void)state;
    mgs_devmem m;
    assert_int_equal(mgs_devmem_init(&m, 2, 1 << 20), MGS_OK);
    uint64_t mark = 0, lo = 0, hi = 0, a, b, c;
    assert_int_equal(mgs_devmem_alloc_range(&m, 0, 3 * 4096, &a), MGS_OK);
    assert_int_equal(mgs_devmem_alloc_range(&m, 1, 100, &b), MGS_OK);
    assert_int_equal(mgs_devmem_changes_since(&m, &mark, &lo, &hi),
                     MGS_DEVMEM_CHANGES_NONE);   /* fresh VAs only */
    assert_int_equal(mgs_devmem_free_range(&m, a), MGS_OK);
    assert_int_equal(mgs_devmem_changes_since(&m, &mark, &lo, &hi),
                     MGS_DEVMEM_CHANGES_SPAN);
    assert_true(lo == a && hi == a + 3 * 4096);
    assert_int_equal(mgs_devmem_changes_since(&m, &mark, &lo, &hi),
                     MGS_DEVMEM_CHANGES_NONE);   /* the mark moved */
    /* A new allocation never reuses the freed VAs. */
    assert_int_equal(mgs_devmem_alloc_range(&m, 0, 4096, &c), MGS_OK);
    assert_true(c >= a + 3 * 4096);
    assert_int_equal(mgs_devmem_changes_since(&m, &mark, &lo, &hi),
                     MGS_DEVMEM_CHANGES_NONE);
    /* Unmap, map and a permission change: the union of their pages. */
    int fg;
    uint32_t f;
    assert_int_equal(mgs_devmem_page_frame(&m, 1, b, &fg, &f), MGS_OK);
    assert_int_equal(mgs_devmem_unmap(&m, 0, b), MGS_OK);
    assert_int_equal(mgs_devmem_map(&m, 0, b, fg, f), MGS_OK);
    assert_int_equal(mgs_devmem_set_readonly(&m, 0, c, true), MGS_OK);
    assert_int_equal(mgs_devmem_set_readonly(&m, 0, c, true), MGS_OK);
    assert_int_equal(mgs_devmem_changes_since(&m, &mark, &lo, &hi),
                     MGS_DEVMEM_CHANGES_SPAN);
    assert_true(lo == b && hi == c + 4096);
    /* A page moved to another GPU's frame. */
    assert_int_equal(mgs_devmem_move_page(&m, c, 1, true), MGS_OK);
    assert_int_equal(mgs_devmem_changes_since(&m, &mark, &lo, &hi),
                     MGS_DEVMEM_CHANGES_SPAN);
    assert_true(lo == c && hi == c + 4096);
    /* More changes than the ring keeps: every translation is suspect. */
    for (int k = 0; k <= MGS_DEVMEM_CHANGES; k++) {
        uint64_t v;
        assert_int_equal(mgs_devmem_alloc_range(&m, 0, 64, &v), MGS_OK);
        assert_int_equal(mgs_devmem_free_range(&m, v), MGS_OK);
    }
    assert_int_equal(mgs_devmem_changes_since(&m, &mark, &lo, &hi),
                     MGS_DEVMEM_CHANGES_MANY);
    assert_int_equal(mgs_devmem_changes_since(&m, &mark, &lo, &hi),
                     MGS_DEVMEM_CHANGES_NONE);
    uint64_t late = 0;          /* a new reader from the start */
    assert_int_equal(mgs_devmem_changes_since(&m, &late, &lo, &hi),
                     MGS_DEVMEM_CHANGES_MANY);
    mgs_devmem_destroy(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_bad_options),
        cmocka_unit_test(test_alloc_lazy_and_roundtrip),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_out_of_memory_and_reuse),
        cmocka_unit_test(test_distributed_placement),
        cmocka_unit_test(test_d2d_memset),
        cmocka_unit_test(test_atomics),
        cmocka_unit_test(test_runs_and_readonly),
        cmocka_unit_test(test_view_span_matches_per_lane),
        cmocka_unit_test(test_mapping_changes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
