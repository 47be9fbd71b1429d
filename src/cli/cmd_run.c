/*
** `mgsim run [WORKLOAD] [options]`: builds the effective configuration,
** runs the engine demo (no WORKLOAD) or a workload (run_workload.c),
** writes one row to the results database with every statistic, and prints
** a short summary (or one JSON object with --json).
**
** Order of work, chosen so that mistakes fail before any simulation:
** parse options -> build configuration -> check the workload and its
** parameters -> open the database (creating results/) -> simulate ->
** record -> report. A run that fails in simulation is still recorded,
** with its exit code, because failed configurations are results too.
*/
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "cli/run.h"
#include "config/config.h"
#include "mgsim/errors.h"
#include "results/db.h"
#include "sim/demo.h"
#include "sim/stats.h"
#include "util/interrupt.h"
#include "util/xmalloc.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mgsim run [WORKLOAD] [options]\n\n"
        "Runs WORKLOAD ('mgsim list workloads') and verifies its output, or,\n"
        "without WORKLOAD, the engine demo (agents passing messages on a ring,\n"
        "configured by the [demo] section). Results go to an SQLite database.\n\n"
        "options:\n"
        "  --mode emu|timing    simulation mode (sim.mode)\n"
        "  --gpus N             number of GPUs (platform.gpus)\n"
        "  --platform TYPE      discrete|unified|monolithic|shared (platform.type)\n"
        "  --seed N             random seed (sim.seed)\n"
        "  --size small|default workload input size (default: default)\n"
        "  --param NAME=VALUE   set one workload parameter (repeatable)\n"
        "%s"
        "  --db FILE            results database (default: results/<time>-run-<pid>.db)\n"
        "  --trace FILE         Chrome trace (Perfetto) of a timing run: kernels,\n"
        "                       work-groups per CU, copies (docs/studies.md)\n"
        "  --trace-mem          ... and memory transactions, optionally only\n"
        "                       --trace-range LO:HI and --trace-component NAME\n"
        "  --trace-limit N      at most N events (default 1000000)\n"
        "  --json               print one JSON object instead of the summary\n"
        "  --quiet              no progress line and no summary\n"
        "  -v, --verbose        let the workload print details\n"
        "  -h, --help           this text\n\n"
        "Exit codes: 0 ok, 1 verification failed, 2 usage/config/input error,\n"
        "3 simulation error, 4 internal error.\n",
        cli_cfg_help);
}

typedef struct run_opts {
    cli_cfg_opts cfg;
    cli_workload_opts wl;
    bool json, quiet;
} run_opts;

/* Options that are --set under another name. */
static const cli_shorthand shorthands[] = {
    {"--mode", "sim.mode"},
    {"--gpus", "platform.gpus"},
    {"--platform", "platform.type"},
    {"--seed", "sim.seed"},
    {"--db", "output.db"},
};

static int parse(run_opts *o, int argc, char **argv, bool *help)
{
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r = cli_shorthand_take(&o->cfg, shorthands,
                                   sizeof shorthands / sizeof shorthands[0],
                                   argc, argv, &i);
        if (r < 0)
            return MGS_EXIT_USAGE;
        if (r > 0)
            continue;
        if ((r = cli_trace_take(&o->wl, argc, argv, &i)) != 0) {
            if (r < 0)
                return MGS_EXIT_USAGE;
        } else if ((r = cli_opt_value(argc, argv, &i, "--size", &v)) != 0) {
            if (r < 0)
                return MGS_EXIT_USAGE;
            o->wl.size = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--param", &v)) != 0) {
            if (r < 0)
                return MGS_EXIT_USAGE;
            o->wl.params = mgs_xrealloc(o->wl.params,
                                        (o->wl.nparams + 1) * sizeof *o->wl.params);
            o->wl.params[o->wl.nparams++] = v;
        } else if (!strcmp(argv[i], "--json")) {
            o->json = true;
        } else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
            o->quiet = true;
        } else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) {
            o->wl.verbose = true;
        } else if (cli_is_help(argv[i])) {
            *help = true;
            return MGS_EXIT_OK;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error("run: unknown option '%s' (try 'mgsim run "
                                   "--help')", argv[i]);
        } else if (o->wl.name) {
            return cli_usage_error("run: more than one workload ('%s' and "
                                   "'%s'); run them one at a time",
                                   o->wl.name, argv[i]);
        } else {
            o->wl.name = argv[i];
        }
    }
    if (!o->wl.name && (o->wl.size || o->wl.nparams))
        return cli_usage_error("run: --size and --param need a WORKLOAD");
    if (!o->wl.name && o->wl.trace)
        return cli_usage_error("run: --trace needs a WORKLOAD");
    return MGS_EXIT_OK;
}

/* ---- engine demo -------------------------------------------------- */

static void demo_progress(const sim_progress *p, void *ud)
{
    cli_progress_update(ud, p->now, p->events, p->done_fraction);
}

static void demo_params(const mgs_config *cfg, sim_demo_params *p)
{
    sim_demo_params_default(p);
    p->agents = (uint32_t)cfg->demo_agents;
    p->messages = cfg->demo_messages;
    p->latency_cycles = (uint32_t)cfg->demo_latency_cycles;
    p->bytes_per_cycle = (uint32_t)cfg->demo_bytes_per_cycle;
    p->msg_bytes = (uint32_t)cfg->demo_msg_bytes;
    p->buffer_capacity = (uint32_t)cfg->demo_buffer_capacity;
    p->freq_hz = cfg->demo_freq;
}

static int run_demo(const mgs_config *cfg, stat_registry *stats,
                    cli_progress *prog, cli_run_result *out)
{
    sim_demo_params p;
    demo_params(cfg, &p);
    sim_demo_result r = {0};
    int rc = sim_demo_run(&p, stats, demo_progress, prog, &r);
    out->verified = -1;
    out->events = r.events;
    out->sim_time_ps = r.sim_time;
    out->messages = r.messages;
    return rc;
}

/* ---- reporting ---------------------------------------------------- */

static void print_json(const char *what, const mgs_config *cfg,
                       const cli_run_result *r, int exit_code, double wall,
                       const char *db, int64_t run_id, const char *error)
{
    printf("{\"command\": \"run\", \"workload\": ");
    mgs_json_string(stdout, what);
    printf(", \"mode\": ");
    mgs_json_string(stdout, cfg->sim_mode);
    printf(", \"gpus\": %d, \"platform\": ", cfg->platform_gpus);
    mgs_json_string(stdout, cfg->platform_type);
    printf(", \"preset\": ");
    mgs_json_string(stdout, cfg->preset);
    printf(", \"seed\": %" PRIu64 ", \"verified\": %s, \"exit_code\": %d",
           cfg->sim_seed,
           r->verified < 0 ? "null" : r->verified ? "true" : "false",
           exit_code);
    printf(", \"sim_time_ps\": %" PRIu64 ", \"events\": %" PRIu64
           ", \"messages\": %" PRIu64 ", \"kernels\": %" PRIu64
           ", \"wf_insts\": %" PRIu64,
           r->sim_time_ps, r->events, r->messages, r->kernels, r->wf_insts);
    /* sim_time_ps: the kernels; copy_time_ps: the DMA copies; total: both. */
    printf(", \"copy_time_ps\": %" PRIu64 ", \"total_time_ps\": %" PRIu64
           ", \"copies\": %" PRIu64 ", \"copy_bytes\": %" PRIu64,
           r->copy_time_ps, r->sim_time_ps + r->copy_time_ps, r->copies,
           r->copy_bytes);
    double work = (double)(r->events ? r->events : r->wf_insts);
    printf(", \"wall_time_s\": %.6f, \"rate_per_s\": %.1f", wall,
           wall > 0 ? work / wall : 0.0);
    printf(", \"db\": ");
    if (db)
        mgs_json_string(stdout, db);
    else
        printf("null");
    printf(", \"run_id\": ");
    if (run_id > 0)
        printf("%" PRId64, run_id);
    else
        printf("null");
    if (error) {
        printf(", \"error\": ");
        mgs_json_string(stdout, error);
    }
    printf("}\n");
}

static void print_summary(const char *what, const mgs_config *cfg,
                          const cli_run_result *r, double wall,
                          const char *db, int64_t run_id)
{
    char t[32], rate[32], n[32];
    if (r->verified < 0)
        printf("mgsim run: engine demo (%d agents, %" PRIu64 " messages), "
               "mode %s\n", cfg->demo_agents, cfg->demo_messages,
               cfg->sim_mode);
    else
        printf("mgsim run: %s, mode %s, %d GPU%s (%s), preset %s\n", what,
               cfg->sim_mode, cfg->platform_gpus,
               cfg->platform_gpus == 1 ? "" : "s", cfg->platform_type,
               *cfg->preset ? cfg->preset : "none");
    printf("  verified       %s\n", r->verified < 0 ? "n/a (the demo computes no output)"
                                    : r->verified ? "yes" : "NO");
    if (r->verified >= 0 && r->sim_time_ps == 0 && !strcmp(cfg->sim_mode, "emu"))
        printf("  simulated time n/a (emu mode is functional only)\n");
    else if (r->verified >= 0) {
        char k[32], c[32];
        /* Kernels first: the number scripts read stays the kernels' time
        ** (JSON sim_time_ps, DB run.sim_time); then copies and the total. */
        printf("  simulated time %s kernels + %s copies = %s\n",
               cli_fmt_time_ps(r->sim_time_ps, k, sizeof k),
               cli_fmt_time_ps(r->copy_time_ps, c, sizeof c),
               cli_fmt_time_ps(r->sim_time_ps + r->copy_time_ps, t, sizeof t));
    } else
        printf("  simulated time %s\n",
               cli_fmt_time_ps(r->sim_time_ps, t, sizeof t));
    if (r->verified < 0) {
        printf("  events         %" PRIu64 " (%" PRIu64 " messages)\n",
               r->events, r->messages);
        printf("  wall time      %.3f s (%s events/s)\n", wall,
               cli_fmt_si(wall > 0 ? (double)r->events / wall : 0, rate,
                          sizeof rate));
    } else {
        printf("  kernels        %" PRIu64 " (%" PRIu64 " work-groups)\n",
               r->kernels, r->workgroups);
        printf("  wf insts       %s\n", cli_fmt_si((double)r->wf_insts, n, sizeof n));
        printf("  wall time      %.3f s (%s insts/s)\n", wall,
               cli_fmt_si(wall > 0 ? (double)r->wf_insts / wall : 0, rate,
                          sizeof rate));
    }
    if (db)
        printf("  results        %s (run %" PRId64 ")\n", db, run_id);
}

/* The run's own rows (component "run") next to the model's statistics. */
static void add_run_stats(stat_registry *stats, bool demo,
                          const cli_run_result *res, double wall)
{
    stat_value_add(stats, "run", "wall_time", wall, "s");
    /* run.sim_time keeps its meaning (kernels; the demo's whole run);
    ** run.copy_time is the copies' and run.total_time the sum. */
    stat_value_add(stats, "run", "sim_time", (double)res->sim_time_ps, "ps");
    stat_value_add(stats, "run", "copy_time", (double)res->copy_time_ps, "ps");
    stat_value_add(stats, "run", "total_time",
                   (double)(res->sim_time_ps + res->copy_time_ps), "ps");
    if (demo) {
        stat_value_add(stats, "run", "events", (double)res->events, "count");
        stat_value_add(stats, "run", "messages", (double)res->messages, "count");
        stat_value_add(stats, "run", "events_per_s",
                       wall > 0 ? (double)res->events / wall : 0, "1/s");
    } else {
        stat_value_add(stats, "run", "wf_insts_per_s",
                       wall > 0 ? (double)res->wf_insts / wall : 0, "1/s");
    }
}

/* Completes rec (command line, configuration, host) and writes it with
** every statistic; returns MGS_OK or MGS_EDB. */
static int record_run(mgs_db *db, mgs_run_record *rec, int argc, char **argv,
                      const mgs_config *cfg, const stat_registry *stats,
                      mgs_time now, int64_t *run_id)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    char *cmdline = cli_join_command_line(argc, argv);
    char *cfg_text = mgs_config_ini_string(cfg, true);
    rec->command_line = cmdline;
    rec->config_text = cfg_text;
    rec->host = host;
    int rc = mgs_db_add_run(db, rec, stats, now, run_id);
    rec->command_line = rec->config_text = rec->host = NULL;
    free(cmdline);
    free(cfg_text);
    return rc;
}

/* ---- signals ------------------------------------------------------ */

/* SIGINT, SIGTERM, SIGHUP: the first asks the simulation to stop at the
** next safe point (util/interrupt.h) so the run is recorded with its
** statistics so far and exits 130; a second one exits at once. */
static void on_signal(int sig)
{
    if (mgs_interrupt_signal) {
        static const char msg[] =
            "mgsim: error: interrupted again: exiting at once\n";
        ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)n;
        _exit(MGS_EXIT_INTERRUPTED);
    }
    mgs_interrupt_signal = sig;
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* ---- command ------------------------------------------------------ */

int cmd_run(int argc, char **argv)
{
    run_opts o = {0};
    bool help = false;
    mgs_config *cfg = MGS_NEW(mgs_config);
    stat_registry *stats = NULL;
    mgs_db *db = NULL;
    int exit_code = parse(&o, argc, argv, &help);
    if (exit_code != MGS_EXIT_OK || help) {
        if (help)
            usage(stdout);
        goto out;
    }
    int rc = cli_cfg_build(&o.cfg, cfg);
    if (rc == MGS_OK && o.wl.trace && strcmp(cfg->sim_mode, "timing"))
        rc = mgs_error_set(MGS_EINVAL, "--trace needs --mode timing (emu "
                           "mode has no simulated time)");
    if (rc == MGS_OK && o.wl.name) {
        rc = cli_workload_check(&o.wl, cfg, NULL);
    } else if (rc == MGS_OK) {
        sim_demo_params dp;
        demo_params(cfg, &dp);
        rc = sim_demo_params_validate(&dp);
    }
    if (rc != MGS_OK) {
        exit_code = cli_fail(rc);
        goto out;
    }
    char db_path[MGS_CFG_STR_MAX + 64];
    if (*cfg->output_db)
        snprintf(db_path, sizeof db_path, "%s", cfg->output_db);
    else
        mgs_db_default_path("run", db_path, sizeof db_path);
    if ((rc = mgs_db_open(db_path, &db)) != MGS_OK) {
        exit_code = cli_fail(rc);
        goto out;
    }

    bool show_progress = !o.quiet && !mgs_config_is(cfg, MGS_CFGK_output_progress, "off") &&
                         (mgs_config_is(cfg, MGS_CFGK_output_progress, "on") ||
                          isatty(STDERR_FILENO));
    cli_progress prog;
    cli_progress_init(&prog, show_progress, stderr,
                      o.wl.name ? "insts" : "events");
    char started[32];
    mgs_utc_now(started, sizeof started);
    stats = stat_registry_new();
    cli_run_result res = {.verified = -1};
    double t0 = cli_wall_seconds();
    catch_signals();
    rc = o.wl.name ? cli_workload_run(&o.wl, cfg, stats, &prog, &res)
                   : run_demo(cfg, stats, &prog, &res);
    /* A signal during host-side work (inputs, the CPU reference) lets the
    ** run finish; it still ends as interrupted. */
    if (mgs_interrupted() && rc != MGS_EINTR)
        rc = mgs_interrupt_error(rc == MGS_OK ? "after the simulation "
                                                "finished"
                                              : "during a failing run");
    double wall = cli_wall_seconds() - t0;
    cli_progress_finish(&prog);
    /* Keep the message: recording the run must not overwrite it. */
    char error[1024] = "";
    if (rc != MGS_OK)
        snprintf(error, sizeof error, "%s", mgs_error_msg());
    exit_code = mgs_exit_code(rc);

    const char *what = o.wl.name ? o.wl.name : "demo";
    add_run_stats(stats, !o.wl.name, &res, wall);
    int64_t run_id = 0;
    mgs_run_record rec = {
        .started_utc = started, .git_rev = MGS_GIT_REV,
        .version = MGS_VERSION, .wall_time_s = wall, .exit_code = exit_code,
        .mode = cfg->sim_mode, .workload = what, .verified = res.verified};
    int dbrc = record_run(db, &rec, argc, argv, cfg, stats, res.sim_time_ps,
                          &run_id);
    if (dbrc != MGS_OK) {
        /* The simulation's own failure is the more useful message. */
        if (rc == MGS_OK) {
            snprintf(error, sizeof error, "%s", mgs_error_msg());
            exit_code = mgs_exit_code(dbrc);
        }
        run_id = 0;
    }

    if (o.json)
        print_json(what, cfg, &res, exit_code, wall, dbrc == MGS_OK ? db_path : NULL,
                   run_id, *error ? error : NULL);
    else if (!o.quiet)
        print_summary(what, cfg, &res, wall, dbrc == MGS_OK ? db_path : NULL,
                      run_id);
    if (*error)
        cli_print_error(error);
out:
    mgs_db_close(db);
    if (stats)
        stat_registry_free(stats);
    free(o.wl.params);
    cli_cfg_free(&o.cfg);
    free(cfg);
    return exit_code;
}
