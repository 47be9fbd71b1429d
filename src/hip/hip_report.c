/*
** libmgsim-hip run report (see hip_report.h). The runtime registers its
** own statistics in the registry we pass it; at exit we add the HIP-level
** counters (component "hip": launches, bytes copied per direction, bytes
** moved by managed/host-memory synchronisation) and the runtime totals,
** then write one results-database run.
**
** The exit code column is -1: an atexit handler cannot see the program's
** exit status. The "workload" column is "hip:<program name>".
*/
#include "hip/hip_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hip/hip_internal.h"
#include "mgsim/errors.h"
#include "results/db.h"
#include "sim/stats.h"
#include "util/xmalloc.h"

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int mhip_report_open(mgs_rt_options *o)
{
    if (!mhip_g.stats) mhip_g.stats = stat_registry_new();
    o->stats = mhip_g.stats;
    mhip_g.start_wall_s = monotonic_s();
    mgs_utc_now(mhip_g.started_utc, sizeof mhip_g.started_utc);
    return MGS_OK;
}

void mhip_report_discard(void)
{
    if (mhip_g.stats) stat_registry_free(mhip_g.stats);
    mhip_g.stats = NULL;
}

/* The program's command line from /proc/self/cmdline, space-separated. */
static void command_line(char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f) return;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (size_t i = 0; i + 1 < n; i++)
        if (buf[i] == '\0') buf[i] = ' ';
}

static void add_hip_counters(const mgs_rt_totals *t)
{
    stat_registry *r = mhip_g.stats;
    const char *c = "hip";
    stat_value_add(r, c, "launches", (double)mhip_g.counts.launches, "count");
    stat_value_add(r, c, "memcpy_h2d_bytes", (double)mhip_g.counts.h2d_bytes,
                   "bytes");
    stat_value_add(r, c, "memcpy_d2h_bytes", (double)mhip_g.counts.d2h_bytes,
                   "bytes");
    stat_value_add(r, c, "memcpy_d2d_bytes", (double)mhip_g.counts.d2d_bytes,
                   "bytes");
    stat_value_add(r, c, "memcpy_peer_bytes", (double)mhip_g.counts.peer_bytes,
                   "bytes");
    stat_value_add(r, c, "shared_copy_in_bytes",
                   (double)mhip_g.counts.shared_in_bytes, "bytes");
    stat_value_add(r, c, "shared_copy_out_bytes",
                   (double)mhip_g.counts.shared_out_bytes, "bytes");
    stat_value_add(r, c, "kernels", (double)t->kernels, "count");
    stat_value_add(r, c, "workgroups", (double)t->workgroups, "count");
    stat_value_add(r, c, "wavefronts", (double)t->wavefronts, "count");
    stat_value_add(r, c, "wf_insts", (double)t->wf_insts, "count");
    stat_value_add(r, c, "sim_time", (double)t->sim_time_ps, "ps");
    stat_value_add(r, c, "copy_time", (double)t->copy_time_ps, "ps");
    stat_value_add(r, c, "copies", (double)t->copies, "count");
    stat_value_add(r, c, "copy_bytes", (double)t->copy_bytes, "bytes");
    for (int g = 0; g < mgs_rt_num_gpus(mhip_g.rt); g++) {
        char comp[32];
        snprintf(comp, sizeof comp, "hip.GPU[%d]", g);
        stat_value_add(r, comp, "workgroups",
                       (double)mgs_rt_gpu_workgroups(mhip_g.rt, g), "count");
    }
}

void mhip_report_write(mgs_rt *rt)
{
    if (!mhip_g.stats || !rt) return;
    mgs_rt_totals t;
    mgs_rt_totals_get(rt, &t);
    add_hip_counters(&t);
    const mgs_config *cfg = &mhip_g.env.cfg;

    char cmd[1024], prog[256], host[256] = "";
    command_line(cmd, sizeof cmd);
    /* Program name: basename of the first word. */
    size_t w = strcspn(cmd, " ");
    const char *slash = memrchr(cmd, '/', w);
    const char *name = slash ? slash + 1 : cmd;
    snprintf(prog, sizeof prog, "hip:%.*s",
             (int)(w - (size_t)(name - cmd)), name);
    gethostname(host, sizeof host - 1);

    char path[1024];
    if (cfg->output_db[0])
        snprintf(path, sizeof path, "%s", cfg->output_db);
    else
        mgs_db_default_path("hip", path, sizeof path);
    char *config_text = mgs_config_ini_string(cfg, false);
    mgs_run_record rec = {
        .started_utc = mhip_g.started_utc,
        .command_line = cmd,
        .config_text = config_text,
        .git_rev = MGS_GIT_REV,
        .version = MGS_VERSION,
        .wall_time_s = monotonic_s() - mhip_g.start_wall_s,
        .host = host,
        .exit_code = -1,
        .mode = cfg->sim_mode,
        .workload = prog,
        .verified = -1,
    };
    mgs_db *db = NULL;
    int64_t run_id = 0;
    int rc = mhip_g.env.no_db ? MGS_EINVAL : mgs_db_open(path, &db);
    if (rc == MGS_OK)
        rc = mgs_db_add_run(db, &rec, mhip_g.stats, t.sim_time_ps, &run_id);
    if (db) mgs_db_close(db);
    free(config_text);
    if (rc != MGS_OK && !mhip_g.env.no_db)
        fprintf(stderr, "mgsim-hip: error: results not written: %s\n",
                mgs_error_msg());

    if (!mhip_g.env.quiet) {
        fprintf(stderr,
                "mgsim-hip: %s: %s mode, %d GPU(s), %llu kernels, "
                "%llu work-groups, %llu wavefront instructions",
                prog + 4, cfg->sim_mode, cfg->platform_gpus,
                (unsigned long long)t.kernels,
                (unsigned long long)t.workgroups,
                (unsigned long long)t.wf_insts);
        if (strcmp(cfg->sim_mode, "timing") == 0)
            fprintf(stderr, ", simulated time %.3f us kernels + %.3f us "
                            "copies",
                    (double)t.sim_time_ps * 1e-6,
                    (double)t.copy_time_ps * 1e-6);
        else
            fprintf(stderr, ", estimated time %.3f us (emu mode: event "
                            "times are estimates from instruction counts "
                            "and bytes copied; use timing mode to simulate)",
                    (double)mhip_time_now_ps(&t, NULL) * 1e-6);
        if (rc == MGS_OK)
            fprintf(stderr, "; results: %s (run %lld)", path,
                    (long long)run_id);
        fputc('\n', stderr);
    }
}
