/*
** Physical memory (src/runtime/devmem.c): frames distinct from virtual
** pages, one page table per GPU, page sizes 4 KiB / 64 KiB / 2 MiB, and the
** migration / replication operations, down to the bytes a kernel reads:
**   - devmem level: reference-counted frames, lazy 4 KiB host blocks for
**     2 MiB pages, map/unmap/move/replicate, faults through one GPU's table;
**   - runtime level, emu and timing (DRAM path): a page move that skips the
**     data copy makes vecadd fail verification and passes with the copy;
**     two replicas of one page hold different bytes and GPU 0 and GPU 1
**     each read their own.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/devmem.h"
#include "tests/unit/runtime/rt_rig.h"
#include "workloads/workload.h"

/* ---- devmem level ------------------------------------------------------ */

static void test_page_sizes_and_lazy_blocks(void **state)
{
    (void)state;
    mgs_devmem m;
    assert_int_equal(mgs_devmem_init_paged(&m, 1, 64 << 20, 8192),
                     MGS_ECONFIG);
    assert_non_null(strstr(mgs_error_msg(), "gpu.page_size"));
    static const uint64_t sizes[] = {4096, 65536, 2097152};
    for (int i = 0; i < 3; i++) {
        uint64_t ps = sizes[i];
        assert_int_equal(mgs_devmem_init_paged(&m, 2, 64 << 20, ps), MGS_OK);
        uint64_t a, b;
        /* 10 bytes take one page; the next allocation starts after a
        ** guard page. */
        assert_int_equal(mgs_devmem_alloc_range(&m, 1, 10, &a), MGS_OK);
        assert_int_equal(mgs_devmem_alloc_range(&m, 0, 3 * ps, &b), MGS_OK);
        assert_true(b == a + 2 * ps);
        assert_true(mgs_devmem_used_pages(&m, 1) == 1);
        assert_true(mgs_devmem_used_pages(&m, 0) == 3);
        /* A 4-byte write backs one 4 KiB block, whatever the page size. */
        uint32_t v = 0xdeadbeef, r = 0;
        assert_int_equal(mgs_devmem_write(&m, b + ps + 8, &v, 4), MGS_OK);
        assert_true(m.backed_pages == 1);
        assert_int_equal(mgs_devmem_read(&m, b + ps + 8, &r, 4), MGS_OK);
        assert_int_equal(r, v);
        /* Physical address: GPU 0's frame of page 1 of b, same offset. */
        uint64_t pa;
        assert_int_equal(mgs_devmem_translate(&m, 1, b + ps + 8, &pa),
                         MGS_OK);
        assert_true(pa % ps == 8 && pa < m.mem_per_gpu);
        assert_int_equal(mgs_devmem_phys_read(&m, pa, &r, 4), MGS_OK);
        assert_int_equal(r, v);
        /* Byte 10 of a is outside even though its page is mapped. */
        assert_int_equal(mgs_devmem_read(&m, a + 8, &r, 4), MGS_EFAULT);
        assert_true(m.last_fault_addr == a + 10);
        assert_int_equal(mgs_devmem_free_range(&m, b), MGS_OK);
        assert_true(m.backed_pages == 0);
        assert_true(mgs_devmem_used_pages(&m, 0) == 0);
        /* A DRAM write to a freed frame is refused. */
        assert_int_equal(mgs_devmem_phys_write(&m, pa, &v, 4), MGS_EFAULT);
        mgs_devmem_destroy(&m);
    }
}

static void test_per_gpu_tables(void **state)
{
    (void)state;
    mgs_devmem m;
    assert_int_equal(mgs_devmem_init_paged(&m, 2, 1 << 20, 4096), MGS_OK);
    uint64_t a;
    uint32_t x = 7, y = 9, r = 0;
    assert_int_equal(mgs_devmem_alloc_range(&m, 0, 8192, &a), MGS_OK);
    assert_int_equal(mgs_devmem_write(&m, a + 4096, &x, 4), MGS_OK);
    /* Every table maps alike by default. */
    assert_int_equal(mgs_devmem_read_as(&m, 1, a + 4096, &r, 4), MGS_OK);
    assert_int_equal(r, 7);
    /* Unmapped in GPU 1's table only: GPU 1 faults, GPU 0 and the host
    ** still read, and a write through GPU 1 changes nothing. */
    assert_int_equal(mgs_devmem_unmap(&m, 1, a + 4096), MGS_OK);
    assert_int_equal(mgs_devmem_read_as(&m, 1, a + 4096, &r, 4), MGS_EFAULT);
    assert_int_equal(mgs_devmem_write_as(&m, 1, a + 4092, &y, 8),
                     MGS_EFAULT);
    assert_int_equal(mgs_devmem_read_as(&m, 0, a + 4096, &r, 4), MGS_OK);
    assert_int_equal(r, 7);
    uint64_t pa;
    assert_int_equal(mgs_devmem_translate(&m, 1, a + 4096, &pa), MGS_EFAULT);
    /* Map it back to GPU 0's frame of the page. */
    int fg;
    uint32_t f;
    assert_int_equal(mgs_devmem_page_frame(&m, 0, a + 4096, &fg, &f), MGS_OK);
    assert_int_equal(fg, 0);
    assert_int_equal(mgs_devmem_map(&m, 1, a + 4096, fg, f), MGS_OK);
    assert_int_equal(mgs_devmem_read_as(&m, 1, a + 4096, &r, 4), MGS_OK);
    assert_int_equal(r, 7);
    assert_int_equal(mgs_devmem_map(&m, 1, a + 4096, 1, 0), MGS_EINVAL);
    assert_int_equal(mgs_devmem_map(&m, 2, a, 0, f), MGS_EINVAL);
    assert_int_equal(mgs_devmem_unmap(&m, 0, a + 8192), MGS_EFAULT);

    /* Move without copy: every table follows to a zeroed frame on GPU 1
    ** and the old frame is released. */
    assert_int_equal(mgs_devmem_move_page(&m, a + 4096, 1, false), MGS_OK);
    assert_int_equal(mgs_devmem_gpu_of(&m, a + 4096), 1);
    assert_true(mgs_devmem_used_pages(&m, 0) == 1);
    assert_true(mgs_devmem_used_pages(&m, 1) == 1);
    for (int g = 0; g < 2; g++) {
        assert_int_equal(mgs_devmem_read_as(&m, g, a + 4096, &r, 4), MGS_OK);
        assert_int_equal(r, 0);
    }
    /* Move with copy: the bytes come along. */
    assert_int_equal(mgs_devmem_write(&m, a + 4096, &x, 4), MGS_OK);
    assert_int_equal(mgs_devmem_move_page(&m, a + 4096, 0, true), MGS_OK);
    assert_int_equal(mgs_devmem_read_as(&m, 1, a + 4096, &r, 4), MGS_OK);
    assert_int_equal(r, 7);
    assert_true(mgs_devmem_used_pages(&m, 1) == 0);

    /* Replica on GPU 1 for GPU 1: two frames, different bytes. */
    assert_int_equal(mgs_devmem_replicate_page(&m, a, 1, 0x2), MGS_OK);
    assert_true(mgs_devmem_used_pages(&m, 1) == 1);
    assert_int_equal(mgs_devmem_write_as(&m, 1, a, &y, 4), MGS_OK);
    assert_int_equal(mgs_devmem_read_as(&m, 0, a, &r, 4), MGS_OK);
    assert_int_equal(r, 0);
    assert_int_equal(mgs_devmem_read_as(&m, 1, a, &r, 4), MGS_OK);
    assert_int_equal(r, 9);
    assert_int_equal(mgs_devmem_replicate_page(&m, a, 1, 0), MGS_EINVAL);
    assert_int_equal(mgs_devmem_replicate_page(&m, a, 1, 0x4), MGS_EINVAL);
    /* Freeing releases every frame, replicas included. */
    assert_int_equal(mgs_devmem_free_range(&m, a), MGS_OK);
    assert_true(mgs_devmem_used_pages(&m, 0) == 0);
    assert_true(mgs_devmem_used_pages(&m, 1) == 0);
    assert_true(m.backed_pages == 0);
    mgs_devmem_destroy(&m);
}

/* ---- runtime level: vecadd through the tables ------------------------- */

enum { N = 8192 };                  /* floats: 32 KiB, 8 pages of 4 KiB */

typedef struct vecadd_args {
    mgs_dptr a, b, c;
    uint32_t n;
} vecadd_args;

typedef struct rig {
    rt_rig env;
    mgs_rt *rt;
    mgs_kernel *k;
} rig;

/* Two small GPUs (discrete) with the given page size, vecadd loaded. */
static void rig_init(rig *r, mgs_mode mode, const char *page)
{
    char set[64];
    snprintf(set, sizeof set, "gpu.page_size=%s", page);
    const char *sets[] = {set, NULL};
    rt_rig_init(&r->env, mode, 2, NULL, sets);
    r->rt = r->env.rt;
    char path[4096];
    wl_kernel_path("vecadd.hsaco", path, sizeof path);
    mgs_module *mod;
    assert_int_equal(mgs_module_load(r->rt, path, &mod), MGS_OK);
    assert_int_equal(mgs_module_kernel(mod, "vecadd", &r->k), MGS_OK);
}

static void launch(rig *r, int gpu, const vecadd_args *args)
{
    mgs_launch l = {.grid = {N, 1, 1}, .block = {256, 1, 1},
                    .args = args, .args_size = 28, .gpu = gpu};
    int rc = mgs_launch_kernel(r->rt, r->k, &l);
    if (!rc)
        rc = mgs_synchronize(r->rt);
    if (rc)
        fail_msg("%s", mgs_error_msg());
}

/* vecadd on GPU 0 over a, b on GPU 0 after the pages of a moved to GPU 1
** (copy or not); returns the number of wrong elements of c. */
static int moved_vecadd(mgs_mode mode, bool copy)
{
    rig r;
    rig_init(&r, mode, "4KB");
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i + 1);
    }
    vecadd_args args = {.n = N};
    assert_int_equal(mgs_malloc(r.rt, 0, sizeof a, &args.a), MGS_OK);
    assert_int_equal(mgs_malloc(r.rt, 0, sizeof b, &args.b), MGS_OK);
    assert_int_equal(mgs_malloc(r.rt, 0, sizeof c, &args.c), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(r.rt, args.a, a, sizeof a), MGS_OK);
    assert_int_equal(mgs_memcpy_h2d(r.rt, args.b, b, sizeof b), MGS_OK);
    uint64_t ps = mgs_rt_page_size(r.rt);
    for (uint64_t off = 0; off < sizeof a; off += ps)
        assert_int_equal(mgs_rt_page_move(r.rt, args.a + off, 1, copy),
                         MGS_OK);
    assert_int_equal(mgs_rt_gpu_of(r.rt, args.a), 1);
    launch(&r, 0, &args);
    assert_int_equal(mgs_memcpy_d2h(r.rt, c, args.c, sizeof c), MGS_OK);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += c[i] != a[i] + b[i];
    rt_rig_fini(&r.env);
    return wrong;
}

static void test_move_without_copy_fails_emu(void **state)
{
    (void)state;
    assert_int_equal(moved_vecadd(MGS_MODE_EMU, true), 0);
    assert_int_equal(moved_vecadd(MGS_MODE_EMU, false), N - 1); /* c[0] ok */
}

static void test_move_without_copy_fails_timing(void **state)
{
    (void)state;
    assert_int_equal(moved_vecadd(MGS_MODE_TIMING, true), 0);
    assert_int_equal(moved_vecadd(MGS_MODE_TIMING, false), N - 1);
}

/* x's page replicated on GPU 1 for GPU 1, then the host rewrites the
** original: GPU 0 reads the new bytes, GPU 1 its replica's old ones. */
static void replicas(mgs_mode mode, const char *page)
{
    rig r;
    rig_init(&r, mode, page);
    static float x[N], zero[N], out[N];
    vecadd_args args[2] = {{.n = N}, {.n = N}};
    mgs_dptr xd, zd;
    assert_int_equal(mgs_malloc(r.rt, 0, sizeof x, &xd), MGS_OK);
    assert_int_equal(mgs_malloc(r.rt, 0, sizeof zero, &zd), MGS_OK);
    for (int g = 0; g < 2; g++) {
        args[g].a = xd;
        args[g].b = zd;
        assert_int_equal(mgs_malloc(r.rt, g, sizeof out, &args[g].c), MGS_OK);
    }
    for (int i = 0; i < N; i++)
        x[i] = (float)i;
    assert_int_equal(mgs_memcpy_h2d(r.rt, xd, x, sizeof x), MGS_OK);
    uint64_t ps = mgs_rt_page_size(r.rt);
    for (uint64_t off = 0; off < sizeof x; off += ps)
        assert_int_equal(mgs_rt_page_replicate(r.rt, xd + off, 1, 0x2),
                         MGS_OK);
    for (int i = 0; i < N; i++)
        x[i] = (float)(100000 + i);
    assert_int_equal(mgs_memcpy_h2d(r.rt, xd, x, sizeof x), MGS_OK);
    for (int g = 0; g < 2; g++) {
        launch(&r, g, &args[g]);
        assert_int_equal(mgs_memcpy_d2h(r.rt, out, args[g].c, sizeof out),
                         MGS_OK);
        int wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += out[i] != (float)(g == 0 ? 100000 + i : i);
        assert_int_equal(wrong, 0);
    }
    rt_rig_fini(&r.env);
}

static void test_replicas_differ_emu(void **state)
{
    (void)state;
    replicas(MGS_MODE_EMU, "4KB");
    replicas(MGS_MODE_EMU, "2MB");
}

static void test_replicas_differ_timing(void **state)
{
    (void)state;
    replicas(MGS_MODE_TIMING, "4KB");
    replicas(MGS_MODE_TIMING, "64KB");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_sizes_and_lazy_blocks),
        cmocka_unit_test(test_per_gpu_tables),
        cmocka_unit_test(test_move_without_copy_fails_emu),
        cmocka_unit_test(test_move_without_copy_fails_timing),
        cmocka_unit_test(test_replicas_differ_emu),
        cmocka_unit_test(test_replicas_differ_timing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
