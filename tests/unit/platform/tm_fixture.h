/*
** Fixture for the timing-path tests: device memory, one code object from
** the build's kernel directory, and a launch set up the way the runtime
** does it (kernarg segment + padding, dispatch packet, queue with the flat
** apertures), so mgs_timing_launch can run real kernels without the rest
** of the runtime. Header-only (one test binary = one file plus this).
*/
#ifndef MGS_TEST_TM_FIXTURE_H
#define MGS_TEST_TM_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcn3/codeobj.h"
#include "gcn3/emu.h"
#include "mgsim/errors.h"
#include "runtime/devmem.h"
#include "runtime/timing.h"

typedef struct tm_fix {
    mgs_devmem mem;
    gcn_codeobj *co;
    gcn_emu_program prog;
    gcn_emu_launch el;
    uint64_t kernarg, packet, queue;
} tm_fix;

static void tm_put(uint8_t *p, uint64_t v, int n) { memcpy(p, &v, (size_t)n); }

/* Loads <kernel dir>/<file>.hsaco ($MGSIM_KERNEL_DIR or the build's) and
** decodes kernel `name`. */
static int tm_fix_init(tm_fix *f, const char *file, const char *name)
{
    memset(f, 0, sizeof *f);
    int rc = mgs_devmem_init(&f->mem, 1, 1ull << 30);
    if (rc)
        return rc;
    char path[512];
    const char *dir = getenv("MGSIM_KERNEL_DIR");
    snprintf(path, sizeof path, "%s/%s.hsaco", dir && *dir ? dir
                                                           : MGS_KERNEL_DIR,
             file);
    if ((rc = gcn_codeobj_load_file(path, &f->co)))
        return rc;
    const gcn_kernel *k = gcn_codeobj_find(f->co, name);
    if (!k)
        return MGS_ENOENT;
    uint64_t tva = 0;
    size_t tsize = 0;
    const uint8_t *text = gcn_codeobj_text(f->co, &tva, &tsize);
    return text ? gcn_emu_program_init_range(&f->prog, k, text, tva, tsize)
                : gcn_emu_program_init(&f->prog, k);
}

/* Writes the kernarg block (args, then zeros), packet and queue. */
static int tm_fix_launch(tm_fix *f, const void *args, size_t args_size,
                         uint32_t grid, uint32_t block)
{
    const gcn_kernel *k = f->prog.kernel;
    uint32_t ksize = k->kernarg_size > args_size ? k->kernarg_size
                                                 : (uint32_t)args_size;
    ksize = ((ksize + 63) & ~63u) + 64;
    uint8_t *ka = calloc(1, ksize);
    memcpy(ka, args, args_size);
    int rc;
    if ((rc = mgs_devmem_alloc_range(&f->mem, 0, ksize, &f->kernarg)) ||
        (rc = mgs_devmem_write(&f->mem, f->kernarg, ka, ksize))) {
        free(ka);
        return rc;
    }
    free(ka);
    uint8_t pkt[GCN_PKT_SIZE] = {0};
    tm_put(pkt + GCN_PKT_HEADER, 2, 2);
    tm_put(pkt + GCN_PKT_SETUP, 1, 2);
    tm_put(pkt + GCN_PKT_WG_SIZE_X, block, 2);
    tm_put(pkt + GCN_PKT_WG_SIZE_Y, 1, 2);
    tm_put(pkt + GCN_PKT_WG_SIZE_Z, 1, 2);
    tm_put(pkt + GCN_PKT_GRID_SIZE_X, grid, 4);
    tm_put(pkt + GCN_PKT_GRID_SIZE_Y, 1, 4);
    tm_put(pkt + GCN_PKT_GRID_SIZE_Z, 1, 4);
    tm_put(pkt + GCN_PKT_GROUP_SEGMENT_SIZE, k->group_segment_size, 4);
    tm_put(pkt + GCN_PKT_KERNARG_ADDRESS, f->kernarg, 8);
    uint8_t q[GCN_QUEUE_SIZE] = {0};
    tm_put(q + GCN_QUEUE_GROUP_APERTURE_HI, GCN_EMU_APERTURE_GROUP_HI, 4);
    tm_put(q + GCN_QUEUE_PRIVATE_APERTURE_HI, GCN_EMU_APERTURE_PRIVATE_HI, 4);
    if ((rc = mgs_devmem_alloc_range(&f->mem, 0, sizeof pkt, &f->packet)) ||
        (rc = mgs_devmem_write(&f->mem, f->packet, pkt, sizeof pkt)) ||
        (rc = mgs_devmem_alloc_range(&f->mem, 0, sizeof q, &f->queue)) ||
        (rc = mgs_devmem_write(&f->mem, f->queue, q, sizeof q)))
        return rc;
    f->el = (gcn_emu_launch){
        .prog = &f->prog, .grid = {grid, 1, 1}, .block = {block, 1, 1},
        .lds_bytes = k->group_segment_size, .kernarg_va = f->kernarg,
        .dispatch_va = f->packet, .queue_va = f->queue, .dispatch_id = 1,
        .mem_ops = &mgs_devmem_ops, .mem = &f->mem};
    return MGS_OK;
}

static void tm_fix_fini(tm_fix *f)
{
    if (f->prog.insts)
        gcn_emu_program_destroy(&f->prog);
    gcn_codeobj_free(f->co);
    mgs_devmem_destroy(&f->mem);
}

/* A small GPU for fast tests: 4 CUs in 2 shader arrays, 2 L2 banks. */
static void tm_small_gpu(gpu_build_config *gc)
{
    gpu_build_config_default(gc);
    gc->num_cus = 4;
    gc->cus_per_sa = 2;
    gc->l2_banks = 2;
    gc->l2_tlbs = 2;
}

#endif
