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

#include "cli/cli.h"
#include "cli/options.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"
#include "util/xmalloc.h"
#include "workloads/workload.h"

#include <inttypes.h>
#include <stdio.h>
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

/* The workload's arguments and the runtime options of a run from cfg. */
static void run_setup(const cli_workload_opts *o, const mgs_config *cfg,
                      stat_registry *stats, wl_args *args,
                      mgs_rt_options *ro)
{
    args->seed = cfg->sim_seed;
    args->num_gpus = cfg->platform_gpus;
    /* unified, monolithic and shared run in place: one launch spans every
    ** GPU (workloads/registry.c, docs/workloads-suite.md) */
    args->gpu_all = wl_platform_gpu_all(cfg->platform_type);
    args->verbose = o->verbose;
    mgs_rt_options_default(ro);
    ro->mode = !strcmp(cfg->sim_mode, "timing") ? MGS_MODE_TIMING
                                                : MGS_MODE_EMU;
    ro->num_gpus = cfg->platform_gpus;
    ro->mem_per_gpu = cfg->platform_mem_per_gpu;
    ro->platform = cfg->platform_type;
    ro->config = cfg;
    ro->stats = stats;
}


int cli_trace_take(cli_workload_opts *o, int argc, char **argv, int *i)
{
    const char *v;
    int r;
    if ((r = cli_opt_value(argc, argv, i, "--trace", &v)) != 0) {
        if (r > 0)
            o->trace = v;
        return r;
    }
    if (!strcmp(argv[*i], "--trace-mem")) {
        o->trace_opt.mem = true;
        return 1;
    }
    if ((r = cli_opt_value(argc, argv, i, "--trace-component", &v)) != 0) {
        if (r > 0)
            o->trace_opt.component = v, o->trace_opt.mem = true;
        return r;
    }
    if ((r = cli_opt_value(argc, argv, i, "--trace-range", &v)) != 0) {
        if (r < 0)
            return r;
        char *end, *end2;
        unsigned long long lo = strtoull(v, &end, 0), hi = 0;
        if (*end == ':')
            hi = strtoull(end + 1, &end2, 0);
        if (*end != ':' || end == v || *end2 || hi <= lo) {
            cli_usage_error("--trace-range '%s': expected LO:HI with LO < HI "
                            "(e.g. 0x1000:0x2000)", v);
            return -1;
        }
        o->trace_opt.addr_lo = lo;
        o->trace_opt.addr_hi = hi;
        o->trace_opt.mem = true;
        return 1;
    }
    if ((r = cli_opt_value(argc, argv, i, "--trace-limit", &v)) != 0) {
        if (r < 0)
            return r;
        char *end;
        unsigned long long n = strtoull(v, &end, 10);
        if (end == v || *end || n == 0 || v[0] == '-') {
            cli_usage_error("--trace-limit '%s': expected a positive number "
                            "of events", v);
            return -1;
        }
        o->trace_opt.max_events = n;
        return 1;
    }
    return 0;
}

int cli_workload_check(const cli_workload_opts *o, const mgs_config *cfg,
                       uint64_t *footprint)
{
    const mgs_workload *wl;
    wl_args args;
    int rc = resolve(o, &wl, &args);
    if (rc != MGS_OK)
        return rc;
    if (footprint) {
        wl_args one = args;
        one.num_gpus = 1;
        *footprint = wl->footprint ? wl->footprint(&one) : 0;
    }
    if (!cfg)
        return MGS_OK;
    mgs_rt_options ro;
    run_setup(o, cfg, NULL, &args, &ro);
    return mgs_rt_check(&ro, wl->footprint ? wl->footprint(&args) : 0);
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

/* Inside a kernel or copy (timing mode), about 4 times a second: the
** running launch's work-groups and an ETA for it from its own rate. */
typedef struct live_state {
    cli_progress *p;
    uint64_t kernels, wgs_total, copy_total; /* what is being timed */
    double start_s;                          /* when it was first seen */
} live_state;

static void live_progress(mgs_rt *rt, const mgs_rt_progress *r, void *user)
{
    (void)rt;
    live_state *ls = user;
    double now = cli_wall_seconds();
    uint64_t done, total;
    const char *what;
    if (r->wgs_total) {
        done = r->wgs_done, total = r->wgs_total, what = "WGs";
    } else {
        done = r->copy_cmds_done, total = r->copy_cmds_total, what = "copy pages";
    }
    if (r->kernels != ls->kernels || r->wgs_total != ls->wgs_total ||
        r->copy_cmds_total != ls->copy_total) {
        ls->kernels = r->kernels;
        ls->wgs_total = r->wgs_total;
        ls->copy_total = r->copy_cmds_total;
        ls->start_s = now;
    }
    char note[128] = "", eta[48] = "";
    double el = now - ls->start_s;
    /* Work-groups that run at once finish together; only once a tenth is
    ** done does their completion rate say something about the rest. */
    if (done * 10 >= total && done < total && el > 0.5)
        snprintf(eta, sizeof eta, " | ETA %.0f s",
                 el * (double)(total - done) / (double)done);
    if (r->wgs_total)
        snprintf(note, sizeof note, "kernel: %" PRIu64 "/%" PRIu64
                 " %s done, %" PRIu64 " started%s", done, total, what,
                 r->wgs_started, eta);
    else if (total)
        snprintf(note, sizeof note, "copy: %" PRIu64 "/%" PRIu64 " %s%s",
                 done, total, what, eta);
    cli_progress_note(ls->p, note);
    cli_progress_update(ls->p, r->sim_time_ps, r->wf_insts, -1);
}

/* memory.spill_choice = coldest (docs/memory-management.md "Host
** frames"): the heat profile of the run, from an emu-mode pass of the
** same workload, inputs and configuration with nothing spilled: bytes
** the GPUs accessed per application page (*heat: the caller frees it;
** NULL when the run spills evenly or nothing). The application's pages
** are numbered in allocation order, which is host code and the same in
** both modes. */
static int heat_profile(const cli_workload_opts *o, const mgs_config *cfg,
                        const mgs_workload *wl, const wl_args *args,
                        uint64_t **heat, uint64_t *pages)
{
    *heat = NULL;
    *pages = 0;
    if (!cfg || !cfg->memory_spill_ppm ||
        strcmp(cfg->memory_spill_choice, "coldest"))
        return MGS_OK;
    mgs_config *emu = mgs_xmalloc(sizeof *emu);
    *emu = *cfg;
    int rc = mgs_config_set(emu, "sim.mode=emu", "spill_choice");
    if (!rc)
        rc = mgs_config_set(emu, "memory.spill_ppm=0", "spill_choice");
    wl_args a = *args;
    mgs_rt_options ro;
    run_setup(o, emu, NULL, &a, &ro);
    a.verbose = false;
    ro.record_heat = true;
    mgs_rt *rt = NULL;
    if (!rc)
        rc = mgs_rt_new(&ro, &rt);
    if (!rc && (rc = wl->run(rt, &a)) != MGS_OK) {
        char why[256];
        snprintf(why, sizeof why, "%s", mgs_error_msg());
        rc = mgs_error_set(rc, "memory.spill_choice = coldest: the emu "
                           "profile pass of %s failed: %s", wl->name, why);
    }
    if (!rc) {
        const uint64_t *h = mgs_rt_heat(rt, pages);
        *heat = mgs_xcalloc(*pages ? *pages : 1, sizeof **heat);
        if (*pages)
            memcpy(*heat, h, *pages * sizeof **heat);
    }
    mgs_rt_free(rt);
    free(emu);
    return rc;
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
    mgs_rt_options ro;
    run_setup(o, cfg, stats, &args, &ro);
    uint64_t *heat = NULL, heat_pages = 0;
    if ((rc = heat_profile(o, cfg, wl, &args, &heat, &heat_pages)))
        return rc;
    ro.spill_heat = heat;
    ro.spill_heat_pages = heat_pages;
    bool profiled = heat != NULL;
    mgs_rt *rt = NULL;
    rc = mgs_rt_new(&ro, &rt);
    free(heat);
    ro.spill_heat = NULL;
    if (rc != MGS_OK)
        return rc;
    if (profiled)
        stat_value_add(stats, "run", "spill_profile_pages",
                       (double)heat_pages, "count");
    /* Workloads do not know their total work in advance, so the line shows
    ** work done and speed, refreshed after each kernel launch and, in
    ** timing mode, from inside the engine with the running kernel's
    ** work-groups and an ETA for that kernel. */
    if (o->trace && (rc = mgs_rt_trace_open(rt, o->trace, &o->trace_opt))) {
        mgs_rt_free(rt);
        return rc;
    }
    mgs_rt_set_launch_hook(rt, launch_progress, progress);
    live_state live = {.p = progress, .start_s = cli_wall_seconds()};
    if (progress->enabled)
        mgs_rt_set_progress_hook(rt, live_progress, &live, 0.25);
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
    uint64_t traced = 0, dropped = 0;
    int trc = mgs_rt_trace_close(rt, &traced, &dropped);
    if (dropped)
        fprintf(stderr, "mgsim: note: --trace %s: the cap of %" PRIu64
                " events was reached; %" PRIu64 " later events are not in the "
                "file (raise --trace-limit, or narrow --trace-range or "
                "--trace-component)\n", o->trace, traced, dropped);
    mgs_rt_free(rt);
    if (run_rc == MGS_OK && trc != MGS_OK)
        run_rc = trc;

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
