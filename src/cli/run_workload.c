/*
** `mgsim run WORKLOAD`: looks the workload up in the registry, resolves
** its parameters (--size picks each parameter's small or default value,
** --param k=v overrides one), builds a runtime from the effective
** configuration and calls the workload's run(), which verifies its output
** against the CPU reference. The runtime's totals become statistics of
** component "run" so they land in the results database next to the
** runtime's own statistics.
*/
#include "cli/run.h"

#include "mgsim/errors.h"
#include "mgsim/runtime.h"
#include "workloads/workload.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int resolve(const cli_workload_opts *o, const mgs_workload **wl_out,
                   wl_args *args)
{
    const mgs_workload *wl = wl_find(o->name);
    if (!wl)
        return mgs_error_set(MGS_ENOENT,
                             "unknown workload '%s' ('mgsim list workloads' "
                             "shows the %zu available)",
                             o->name, wl_count());
    bool small;
    if (!o->size || !strcmp(o->size, "default"))
        small = false;
    else if (!strcmp(o->size, "small"))
        small = true;
    else
        return mgs_error_set(MGS_EINVAL,
                             "--size '%s': use small or default", o->size);
    memset(args, 0, sizeof *args);
    int np = 0;
    for (; np < WL_MAX_PARAMS && wl->params[np].name; np++)
        args->param[np] = small ? wl->params[np].small : wl->params[np].dflt;
    for (size_t i = 0; i < o->nparams; i++) {
        const char *kv = o->params[i];
        const char *eq = strchr(kv, '=');
        if (!eq || eq == kv)
            return mgs_error_set(MGS_EINVAL,
                                 "--param '%s': expected NAME=VALUE", kv);
        int which = -1;
        for (int p = 0; p < np; p++)
            if (strlen(wl->params[p].name) == (size_t)(eq - kv) &&
                !strncmp(wl->params[p].name, kv, (size_t)(eq - kv)))
                which = p;
        if (which < 0) {
            char names[256] = "";
            for (int p = 0; p < np; p++) {
                size_t len = strlen(names);
                snprintf(names + len, sizeof names - len, "%s%s",
                         p ? ", " : "", wl->params[p].name);
            }
            return mgs_error_set(MGS_EINVAL,
                                 "--param '%s': workload %s has no parameter "
                                 "'%.*s' (parameters: %s)",
                                 kv, wl->name, (int)(eq - kv), kv,
                                 np ? names : "none");
        }
        char *end;
        long long v = strtoll(eq + 1, &end, 0);
        if (end == eq + 1 || *end)
            return mgs_error_set(MGS_EINVAL,
                                 "--param '%s': value is not an integer", kv);
        args->param[which] = v;
    }
    *wl_out = wl;
    return MGS_OK;
}

int cli_workload_check(const cli_workload_opts *o)
{
    const mgs_workload *wl;
    wl_args args;
    return resolve(o, &wl, &args);
}

/* After every kernel launch: kernels and work-groups done so far. */
static void launch_progress(mgs_rt *rt, const mgs_kernel *k,
                            const mgs_launch *l, void *user)
{
    (void)k;
    (void)l;
    cli_progress *p = user;
    if (!p->enabled)
        return;
    mgs_rt_totals t;
    mgs_rt_totals_get(rt, &t);
    char note[64];
    snprintf(note, sizeof note, "%" PRIu64 " kernels, %" PRIu64 " WGs",
             t.kernels, t.workgroups);
    cli_progress_note(p, note);
    cli_progress_update(p, t.sim_time_ps + t.copy_time_ps, t.wf_insts, -1);
}

int cli_workload_run(const cli_workload_opts *o, const mgs_config *cfg,
                     stat_registry *stats, cli_progress *progress,
                     cli_run_result *out)
{
    const mgs_workload *wl;
    wl_args args;
    int rc = resolve(o, &wl, &args);
    if (rc != MGS_OK)
        return rc;
    args.seed = cfg->sim_seed;
    args.num_gpus = cfg->platform_gpus;
    args.gpu_all = wl_platform_gpu_all(cfg->platform_type);
    args.verbose = o->verbose;

    mgs_rt_options ro;
    mgs_rt_options_default(&ro);
    ro.mode = !strcmp(cfg->sim_mode, "timing") ? MGS_MODE_TIMING : MGS_MODE_EMU;
    ro.num_gpus = cfg->platform_gpus;
    ro.mem_per_gpu = cfg->platform_mem_per_gpu;
    ro.platform = cfg->platform_type;
    ro.config = cfg;
    ro.stats = stats;
    mgs_rt *rt = NULL;
    rc = mgs_rt_new(&ro, &rt);
    if (rc != MGS_OK)
        return rc;
    /* Workloads do not know their total work in advance, so the line shows
    ** work done and speed, refreshed after each kernel launch (no ETA). */
    mgs_rt_set_launch_hook(rt, launch_progress, progress);
    cli_progress_update(progress, 0, 0, -1);
    int run_rc = wl->run(rt, &args);
    mgs_rt_totals t;
    mgs_rt_totals_get(rt, &t);
    for (int g = 0; g < mgs_rt_num_gpus(rt); g++) {
        char comp[32];
        snprintf(comp, sizeof comp, "GPU[%d]", g);
        stat_value_add(stats, comp, "workgroups",
                       (double)mgs_rt_gpu_workgroups(rt, g), "count");
    }
    cli_progress_update(progress, t.sim_time_ps + t.copy_time_ps, t.wf_insts,
                        1);
    mgs_rt_free(rt);

    out->verified = run_rc == MGS_OK ? 1 : 0;
    out->sim_time_ps = t.sim_time_ps;
    out->copy_time_ps = t.copy_time_ps;
    out->copies = t.copies;
    out->copy_bytes = t.copy_bytes;
    out->wf_insts = t.wf_insts;
    out->kernels = t.kernels;
    out->workgroups = t.workgroups;
    stat_value_add(stats, "run", "kernels", (double)t.kernels, "count");
    stat_value_add(stats, "run", "workgroups", (double)t.workgroups, "count");
    stat_value_add(stats, "run", "wavefronts", (double)t.wavefronts, "count");
    stat_value_add(stats, "run", "wf_insts", (double)t.wf_insts, "count");
    stat_value_add(stats, "run", "copies", (double)t.copies, "count");
    stat_value_add(stats, "run", "copy_bytes", (double)t.copy_bytes, "bytes");
    for (int p = 0; p < WL_MAX_PARAMS && wl->params[p].name; p++) {
        char metric[64];
        snprintf(metric, sizeof metric, "param.%s", wl->params[p].name);
        stat_value_add(stats, "run", metric, (double)args.param[p], "value");
    }
    return run_rc;
}
