/*
** Helpers shared by the coherence tests (tests/unit/coh/): a timing-mode
** runtime with a chosen protocol and platform and its statistics, a
** registered workload's small-size arguments, a kernel from the build's
** kernel directory, and the sum of a metric over components. Header-only.
*/
#ifndef MGS_TESTS_COH_RUN_H
#define MGS_TESTS_COH_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"
#include "sim/stats.h"
#include "workloads/workload.h"

typedef struct coh_run {
    mgs_config cfg;
    stat_registry *st;
    mgs_rt *rt;
} coh_run;

/* Settings of a run before its runtime exists (coh_run_start). */
static inline void coh_run_config(coh_run *r, const char *protocol)
{
    memset(r, 0, sizeof *r);
    mgs_config_defaults(&r->cfg);
    snprintf(r->cfg.coherence_protocol, sizeof r->cfg.coherence_protocol,
             "%s", protocol);
}

/* The runtime: timing mode, gpus GPUs of 1 GiB on platform. */
static inline void coh_run_start(coh_run *r, const char *platform, int gpus)
{
    r->st = stat_registry_new();
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.mode = MGS_MODE_TIMING;
    o.num_gpus = gpus;
    o.mem_per_gpu = 1ull << 30;
    o.platform = platform;
    o.config = &r->cfg;
    o.stats = r->st;
    assert_int_equal(mgs_rt_new(&o, &r->rt), MGS_OK);
}

static inline void coh_run_open(coh_run *r, const char *protocol,
                                const char *platform, int gpus)
{
    coh_run_config(r, protocol);
    coh_run_start(r, platform, gpus);
}

static inline void coh_run_close(coh_run *r)
{
    mgs_rt_free(r->rt);
    stat_registry_free(r->st);
    mgs_error_clear();
}

/* Small-size arguments of workload `name` on gpus GPUs. */
static inline const mgs_workload *coh_small_args(const char *name, int gpus,
                                                 bool gpu_all, wl_args *a)
{
    const mgs_workload *wl = wl_find(name);
    assert_non_null(wl);
    memset(a, 0, sizeof *a);
    a->seed = 1;
    a->num_gpus = gpus;
    a->gpu_all = gpu_all;
    for (int i = 0; i < WL_MAX_PARAMS && wl->params[i].name; i++)
        a->param[i] = wl->params[i].small;
    return wl;
}

/* Kernel `name` of <kernel dir>/<file>.hsaco. */
static inline mgs_kernel *coh_kernel(mgs_rt *rt, const char *file,
                                     const char *name)
{
    char path[512];
    const char *dir = getenv("MGSIM_KERNEL_DIR");
    snprintf(path, sizeof path, "%s/%s.hsaco",
             dir && *dir ? dir : MGS_KERNEL_DIR, file);
    mgs_module *m;
    mgs_kernel *k;
    assert_int_equal(mgs_module_load(rt, path, &m), MGS_OK);
    assert_int_equal(mgs_module_kernel(m, name, &k), MGS_OK);
    return k;
}

typedef struct coh_sum { const char *prefix, *metric; double v; } coh_sum;
static inline void coh_sum_row(const stat_row *row, void *ud)
{
    coh_sum *s = ud;
    if (!strcmp(row->metric, s->metric) &&
        !strncmp(row->component, s->prefix, strlen(s->prefix)))
        s->v += row->value;
}
/* Sum of metric over the components whose name starts with prefix. */
static inline double coh_stat_sum(stat_registry *st, const char *prefix,
                                  const char *metric)
{
    coh_sum s = {prefix, metric, 0};
    stat_registry_foreach(st, 0, coh_sum_row, &s);
    return s.v;
}

#endif
