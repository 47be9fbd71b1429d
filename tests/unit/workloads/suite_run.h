/*
** Helpers shared by the benchmark-suite tests (test_suite_*.c): run one
** registered workload at its small size through the runtime API on a fresh
** emu-mode runtime with `gpus` GPUs, discrete or unified.
*/
#ifndef MGS_TESTS_SUITE_RUN_H
#define MGS_TESTS_SUITE_RUN_H

#include "workloads/workload.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"

#include <string.h>

/* The workloads of the suite (workloads/list.def minus the emu engineer's
** vecadd, mm, mt, fpdiv). */
static const char *const suite_names[] = {
    "aes", "atax", "bicg", "bs", "fir", "fws", "mp", "rl", "conv", "gd",
    "km", "gemm", "gemver", "j2d", "c2d", "st", "mm2", "mm3", "lu",
    "xtreme1", "xtreme2", "xtreme3", "bfs", "pr",
};
#define SUITE_COUNT (sizeof suite_names / sizeof suite_names[0])

/* Small-size arguments of wl, with overrides "name=value" (NULL-ended). */
static inline void suite_args(const mgs_workload *wl, wl_args *a, int gpus,
                              int unified)
{
    memset(a, 0, sizeof *a);
    a->seed = 1;
    a->num_gpus = gpus;
    a->gpu_all = unified;
    for (int i = 0; i < WL_MAX_PARAMS && wl->params[i].name; i++)
        a->param[i] = wl->params[i].small;
}

static inline int suite_param_index(const mgs_workload *wl, const char *name)
{
    for (int i = 0; i < WL_MAX_PARAMS && wl->params[i].name; i++)
        if (!strcmp(wl->params[i].name, name))
            return i;
    return -1;
}

/* Runs wl with args a on a new runtime; returns the workload's code. */
static inline int suite_run_args(const mgs_workload *wl, const wl_args *a)
{
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.num_gpus = a->num_gpus;
    o.platform = a->gpu_all ? "unified" : "discrete";
    mgs_rt *rt = NULL;
    int rc = mgs_rt_new(&o, &rt);
    if (rc)
        return rc;
    rc = wl->run(rt, a);
    mgs_rt_free(rt);
    return rc;
}

static inline int suite_run(const char *name, int gpus, int unified)
{
    const mgs_workload *wl = wl_find(name);
    if (!wl)
        return MGS_ENOENT;
    wl_args a;
    suite_args(wl, &a, gpus, unified);
    return suite_run_args(wl, &a);
}

#endif
