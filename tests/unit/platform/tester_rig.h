/*
** The random memory tester (src/mem/tester.h) on an assembled platform
** over a flat backing store, for tests that check a multi-GPU memory
** system with it (test_multi_tester.c, test_coh_halcone.c). The test
** chooses the platform, the tester's mode and where each agent sits; the
** rig builds, runs and checks. Header-only; include after <cmocka.h>.
*/
#ifndef MGS_TESTS_TESTER_RIG_H
#define MGS_TESTS_TESTER_RIG_H

#include <stdio.h>
#include <stdlib.h>

#include "mem/tester.h"
#include "mgsim/errors.h"
#include "platform/platform.h"
#include "sim/stats.h"

#include "flat_mem.h"

typedef struct tester_rig {
    flat_mem fm;
    mem_backing backing;      /* borrowed by the platform */
    mem_pagetable pt;
    sim_engine *eng;
    mem_pool *pool;
    stat_registry *st;
    platform *p;
    mem_tester *t;
} tester_rig;

/* pc: the default platform of ngpus small GPUs of type `type` (4 CUs, 2
** per shader array, 2 L2 banks and 2 L2 TLBs, 4 KB bank interleave) with
** mem_bytes of memory each: the tester's machine. */
static inline void tester_rig_small_gpus(platform_config *pc,
                                         platform_type type, uint32_t ngpus,
                                         uint64_t mem_bytes)
{
    platform_config_default(pc);
    pc->type = type;
    pc->ngpus = ngpus;
    pc->gpu.num_cus = 4;
    pc->gpu.cus_per_sa = 2;
    pc->gpu.l2_banks = 2;
    pc->gpu.l2_tlbs = 2;
    pc->gpu.l2_interleave = 4096;
    pc->gpu.mem_bytes = mem_bytes;
}

/* Builds pc's platform over pc->ngpus x pc->gpu.mem_bytes of flat memory
** holding the tester's initial pattern. */
static inline void tester_rig_platform(tester_rig *r,
                                       const platform_config *pc)
{
    assert_int_equal(platform_config_validate(pc), MGS_OK);
    r->fm.size = (uint64_t)pc->ngpus * pc->gpu.mem_bytes;
    r->fm.bytes = malloc(r->fm.size);
    mem_tester_fill_initial(r->fm.bytes, 0, r->fm.size);
    r->backing = (mem_backing){.read = flat_read, .write = flat_write,
                               .ud = &r->fm};
    r->pt = (mem_pagetable){.translate = no_translate, .ud = NULL};
    r->eng = eng_new(NULL);
    r->pool = mem_pool_new();
    r->st = stat_registry_new();
    r->p = platform_new(r->eng, pc, r->pool, r->st, &r->backing, &r->pt);
}

/* A tester configuration over the whole memory: `agents` agents, 64-byte
** units and accesses, 8 requests out per agent, the GPUs' clock. */
static inline void tester_rig_config(const tester_rig *r,
                                     const platform_config *pc,
                                     uint32_t agents, mem_tester_config *tc)
{
    mem_tester_config_default(tc);
    tc->agents = agents;
    tc->base = 0;
    tc->size = r->fm.size;
    tc->unit = 64;
    tc->max_size = 64;
    tc->max_outstanding = 8;
    tc->period = pc->gpu.period;
}

/* Creates the tester; place each agent with tester_rig_place. */
static inline void tester_rig_tester(tester_rig *r,
                                     const mem_tester_config *tc)
{
    assert_int_equal(mem_tester_config_validate(tc), MGS_OK);
    r->t = mem_tester_new(r->eng, "Tester", tc, r->pool, r->st);
}

/* Agent i at the L1 level of GPU gpu: on its crossbar, with the route its
** L1s use. */
static inline void tester_rig_place(tester_rig *r, uint32_t i, uint32_t gpu)
{
    gpu_build *g = platform_gpu(r->p, gpu);
    mem_route route;
    gpu_build_l1_route(g, &route);
    conn_plug(gpu_build_xbar(g), mem_tester_port(r->t, i));
    mem_tester_set_route(r->t, i, &route);
    mem_tester_set_gpu(r->t, i, (int32_t)gpu);
}

/* Runs to the end: every agent done, every read and atomic matched the
** reference, and (write-through L2s) memory equals the reference. */
static inline void tester_rig_run_clean(tester_rig *r)
{
    assert_int_equal(eng_run(r->eng), MGS_OK);
    if (mem_tester_mismatches(r->t))
        mem_tester_report(r->t, stderr);
    assert_true(mem_tester_done(r->t));
    assert_int_equal(mem_tester_mismatches(r->t), 0);
    assert_true(mem_tester_checked(r->t) > 0);
    assert_memory_equal(r->fm.bytes, mem_tester_shadow(r->t), r->fm.size);
}

/* The coherence protocols' run: two agents per GPU (agent i on GPU
** i % ngpus), every unit shared (MEM_TESTER_OWNED_UNITS), `total`
** operations in all from `seed`; runs clean. tc receives the tester's
** configuration. */
static inline void tester_rig_run_owned(tester_rig *r,
                                        const platform_config *pc,
                                        uint64_t total, uint64_t seed,
                                        mem_tester_config *tc)
{
    tester_rig_config(r, pc, 2 * pc->ngpus, tc);
    tc->ops_per_agent = total / tc->agents;
    tc->mode = MEM_TESTER_OWNED_UNITS;
    tc->seed = seed;
    tester_rig_tester(r, tc);
    for (uint32_t i = 0; i < tc->agents; i++)
        tester_rig_place(r, i, i % pc->ngpus);
    tester_rig_run_clean(r);
}

static inline void tester_rig_free(tester_rig *r)
{
    mem_tester_free(r->t);
    platform_free(r->p);
    mem_pool_free(r->pool);
    eng_free(r->eng);
    stat_registry_free(r->st);
    free(r->fm.bytes);
}

#endif
