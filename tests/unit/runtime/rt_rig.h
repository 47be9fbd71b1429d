/*
** A runtime for tests that need a configuration and statistics: small
** GPUs (4 CUs in 2 shader arrays, 2 L2 banks, 2 L2 TLBs) plus the caller's
** `--set`-style assignments, a statistics registry, and a lookup that sums
** a metric over one component or a component prefix ("GPU[*").
** Header-only (one test binary = one file plus this).
*/
#ifndef MGS_TEST_RT_RIG_H
#define MGS_TEST_RT_RIG_H

#include <stdbool.h>
#include <string.h>

#include "config/config.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"
#include "sim/stats.h"

/* The arguments of kernels/vecadd (c = a + b over n floats). */
typedef struct rt_vecadd_args {
    mgs_dptr a, b, c;
    uint32_t n;
} rt_vecadd_args;

typedef struct rt_rig {
    mgs_config cfg;
    stat_registry *stats;
    mgs_rt *rt;
} rt_rig;

/* The runtime of a rig whose r->cfg is filled: gpus GPUs of mem_per_gpu
** bytes on platform, its statistics in r->stats. */
static inline void rt_rig_start(rt_rig *r, mgs_mode mode, int gpus,
                                uint64_t mem_per_gpu, const char *platform)
{
    r->stats = stat_registry_new();
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.mode = mode;
    o.num_gpus = gpus;
    o.mem_per_gpu = mem_per_gpu;
    o.platform = platform;
    o.config = &r->cfg;
    o.stats = r->stats;
    assert_int_equal(mgs_rt_new(&o, &r->rt), MGS_OK);
}

/* The configuration of a small-GPU rig, before rt_rig_start: sets are
** NULL-terminated assignments applied after the small-GPU ones. */
static inline void rt_rig_configure(rt_rig *r, const char *const *sets)
{
    memset(r, 0, sizeof *r);
    mgs_config_defaults(&r->cfg);
    static const char *const small[] = {"gpu.num_cus=4", "gpu.cus_per_sa=2",
                                        "gpu.l2_banks=2", "tlb.l2_count=2",
                                        NULL};
    for (size_t i = 0; small[i]; i++)
        assert_int_equal(mgs_config_set(&r->cfg, small[i], "test"), MGS_OK);
    for (size_t i = 0; sets && sets[i]; i++)
        assert_int_equal(mgs_config_set(&r->cfg, sets[i], "test"), MGS_OK);
}

static inline void rt_rig_init(rt_rig *r, mgs_mode mode, int gpus,
                               const char *platform, const char *const *sets)
{
    rt_rig_configure(r, sets);
    rt_rig_start(r, mode, gpus, 256ull << 20, platform);
}

static inline void rt_rig_fini(rt_rig *r)
{
    mgs_rt_free(r->rt);
    stat_registry_free(r->stats);
}

typedef struct rt_rig_sum {
    const char *component;   /* exact, or a prefix ending in '*' */
    const char *metric;
    double sum;
    int rows;
} rt_rig_sum;

static inline void rt_rig_add_row(const stat_row *row, void *ud)
{
    rt_rig_sum *s = ud;
    size_t n = strlen(s->component);
    bool match = s->component[n - 1] == '*'
                     ? !strncmp(row->component, s->component, n - 1)
                     : !strcmp(row->component, s->component);
    if (match && !strcmp(row->metric, s->metric)) {
        s->sum += row->value;
        s->rows++;
    }
}

/* Sum of metric over the matching components; *rows (may be NULL) gets
** how many rows matched. */
static inline double rt_rig_stat(const rt_rig *r, const char *component,
                                 const char *metric, int *rows)
{
    rt_rig_sum s = {component, metric, 0, 0};
    stat_registry_foreach(r->stats, 0, rt_rig_add_row, &s);
    if (rows)
        *rows = s.rows;
    return s.sum;
}

#endif
