/*
** What the unified-memory tests share (test_um.c, test_esi.c): a workload
** run at its small size in timing mode on unified GPUs under a memory
** management scheme, its statistics, and every statistic as text (for
** determinism checks). Header-only, like rt_rig.h.
*/
#ifndef MGS_TESTS_UM_RIG_H
#define MGS_TESTS_UM_RIG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/runtime/rt_rig.h"
#include "tests/unit/workloads/suite_run.h"

/* Runs workload `name` on `gpus` unified GPUs in timing mode with the
** setting `scheme` (memory.management=...) and the extra settings
** (NULL-terminated, or NULL); returns its code. */
static inline int um_run(rt_rig *r, const char *scheme, const char *name,
                         int gpus, const char *const *extra)
{
    const char *sets[16] = {"sim.mode=timing", scheme,
                            "platform.type=unified"};
    size_t n = 3;
    for (size_t i = 0; extra && extra[i] && n < 15; i++)
        sets[n++] = extra[i];
    sets[n] = NULL;
    rt_rig_configure(r, sets);
    rt_rig_start(r, MGS_MODE_TIMING, gpus, 256ull << 20, "unified");
    const mgs_workload *wl = wl_find(name);
    assert_non_null(wl);
    wl_args a;
    suite_args(wl, &a, gpus, 1);
    return wl->run(r->rt, &a);
}

static inline double stat_of(const rt_rig *r, const char *comp,
                             const char *metric)
{
    int rows = 0;
    double v = rt_rig_stat(r, comp, metric, &rows);
    assert_true(rows > 0);
    return v;
}

/* A metric summed over the PMCs of `gpus` GPUs. */
static inline double pmc_sum(const rt_rig *r, const char *metric, int gpus)
{
    double v = 0;
    for (int g = 0; g < gpus; g++) {
        char name[32];
        snprintf(name, sizeof name, "GPU[%d].PMC", g);
        v += stat_of(r, name, metric);
    }
    return v;
}

static inline void um_add_row(const stat_row *row, void *ud)
{
    char line[256];
    snprintf(line, sizeof line, "%s %s %.17g\n", row->component, row->metric,
             row->value);
    char **s = ud;
    size_t n = *s ? strlen(*s) : 0;
    *s = realloc(*s, n + strlen(line) + 1);
    strcpy(*s + n, line);
}

/* Every statistic of a run (which must verify) as text; free() it. */
static inline char *um_all_stats(const char *scheme, const char *name,
                                 int gpus)
{
    rt_rig r;
    assert_int_equal(um_run(&r, scheme, name, gpus, NULL), MGS_OK);
    char *s = NULL;
    stat_registry_foreach(r.stats, 0, um_add_row, &s);
    rt_rig_fini(&r);
    return s;
}

#endif
