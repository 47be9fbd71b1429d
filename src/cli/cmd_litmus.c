/*
** `mgsim litmus [TEST...] [options]`: runs litmus tests (src/litmus/,
** docs/litmus.md) on the platform and protocol of the effective
** configuration and prints, per test, placement and variant, the histogram
** of outcomes with the forbidden one marked. Exit 1 if a fenced variant
** showed its forbidden outcome, 0 otherwise (2 usage/config, 3 simulation).
**
** Each (test, placement, variant) runs on a fresh runtime with its own
** random stream, so its histogram depends only on the configuration, the
** seed and its own options, not on the other runs of the command line.
** Timing mode is the default here (sim.mode=timing before the user's
** options; --mode emu is the sequentially consistent sanity check).
*/
#include "cli/cli.h"
#include "cli/options.h"
#include "config/config.h"
#include "litmus/litmus.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"
#include "util/xmalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mgsim litmus [TEST...] [options]\n\n"
        "Runs memory-model litmus tests (MP, SB, LB, CoRR, IRIW, 2+2W; default:\n"
        "all) many times with randomised placement and timing and prints the\n"
        "histogram of outcomes. With fences the forbidden outcome must never\n"
        "appear: exit 1 if it does (docs/litmus.md).\n\n"
        "options:\n"
        "  --iterations N       instances per test, placement and variant (default 10000)\n"
        "  --placement P        cu (threads on different CUs of one GPU), gpu\n"
        "                       (on different GPUs) or both (default: both, gpu\n"
        "                       only with 2 or more GPUs)\n"
        "  --fences F           on, off or both (default: both)\n"
        "  --gps                x and y are GPS allocations (coherence.protocol\n"
        "                       = gps: a replica on every GPU, docs/gps.md)\n"
        "  --stress N           stress work-groups per launch (default 4)\n"
        "  --delay N            delays drawn in [0, N] loop iterations (default 512)\n"
        "  --mode emu|timing    simulation mode (default here: timing)\n"
        "  --gpus N             number of GPUs (platform.gpus)\n"
        "  --platform TYPE      discrete|unified|monolithic|shared (platform.type)\n"
        "  --protocol NAME      coherence protocol (coherence.protocol)\n"
        "  --seed N             random seed (sim.seed)\n"
        "%s"
        "  -h, --help           this text\n\n"
        "Exit codes: 0 no forbidden outcome, 1 a forbidden outcome appeared,\n"
        "2 usage/config error, 3 simulation error.\n",
        cli_cfg_help);
}

typedef struct litmus_cli {
    cli_cfg_opts cfg;
    const litmus_test *tests[16];
    size_t ntests;
    int placement;               /* -1 both, else litmus_placement */
    int fences;                  /* -1 both, 0 off, 1 on */
    litmus_opts run;
} litmus_cli;

static const cli_shorthand shorthands[] = {
    {"--mode", "sim.mode"},
    {"--gpus", "platform.gpus"},
    {"--platform", "platform.type"},
    {"--protocol", "coherence.protocol"},
    {"--seed", "sim.seed"},
};

/* A number in [lo, hi] for option opt, or -1 after the usage error. */
static int take_u64(const char *opt, const char *v, uint64_t lo, uint64_t hi,
                    uint64_t *out)
{
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (end == v || *end || v[0] == '-' || n < lo || n > hi) {
        cli_usage_error("litmus: %s '%s': expected an integer in [%" PRIu64
                        ", %" PRIu64 "]", opt, v, lo, hi);
        return -1;
    }
    *out = n;
    return 0;
}

static int parse(litmus_cli *o, int argc, char **argv, bool *help)
{
    for (int i = 1; i < argc; i++) {
        const char *v;
        uint64_t n;
        int r = cli_shorthand_take(&o->cfg, shorthands,
                                   sizeof shorthands / sizeof shorthands[0],
                                   argc, argv, &i);
        if (r < 0)
            return MGS_EXIT_USAGE;
        if (r > 0)
            continue;
        if ((r = cli_opt_value(argc, argv, &i, "--iterations", &v)) != 0) {
            if (r < 0 || take_u64("--iterations", v, 1, 1000000000, &n))
                return MGS_EXIT_USAGE;
            o->run.iterations = n;
        } else if ((r = cli_opt_value(argc, argv, &i, "--stress", &v)) != 0) {
            if (r < 0 || take_u64("--stress", v, 0, 256, &n))
                return MGS_EXIT_USAGE;
            o->run.stress_wgs = (uint32_t)n;
        } else if ((r = cli_opt_value(argc, argv, &i, "--delay", &v)) != 0) {
            if (r < 0 || take_u64("--delay", v, 0, 0xffffff, &n))
                return MGS_EXIT_USAGE;
            o->run.max_delay = (uint32_t)n;
        } else if ((r = cli_opt_value(argc, argv, &i, "--placement", &v)) != 0) {
            if (r < 0)
                return MGS_EXIT_USAGE;
            if (!strcmp(v, "cu"))
                o->placement = LITMUS_CU;
            else if (!strcmp(v, "gpu"))
                o->placement = LITMUS_GPU;
            else if (!strcmp(v, "both"))
                o->placement = -1;
            else
                return cli_usage_error("litmus: --placement '%s': use cu, gpu "
                                       "or both", v);
        } else if ((r = cli_opt_value(argc, argv, &i, "--fences", &v)) != 0) {
            if (r < 0)
                return MGS_EXIT_USAGE;
            if (!strcmp(v, "on"))
                o->fences = 1;
            else if (!strcmp(v, "off"))
                o->fences = 0;
            else if (!strcmp(v, "both"))
                o->fences = -1;
            else
                return cli_usage_error("litmus: --fences '%s': use on, off or "
                                       "both", v);
        } else if (!strcmp(argv[i], "--gps")) {
            o->run.gps = true;
        } else if (cli_is_help(argv[i])) {
            *help = true;
            return MGS_EXIT_OK;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error("litmus: unknown option '%s' (try 'mgsim "
                                   "litmus --help')", argv[i]);
        } else if (!strcasecmp(argv[i], "all")) {
            for (size_t t = 0; t < litmus_count() && o->ntests < 16; t++)
                o->tests[o->ntests++] = litmus_get(t);
        } else {
            const litmus_test *t = litmus_find(argv[i]);
            if (!t)
                return cli_usage_error("litmus: unknown test '%s' (tests: MP, "
                                       "SB, LB, CoRR, IRIW, 2+2W, all)",
                                       argv[i]);
            if (o->ntests == 16)
                return cli_usage_error("litmus: at most 16 tests");
            o->tests[o->ntests++] = t;
        }
    }
    if (!o->ntests)
        for (size_t t = 0; t < litmus_count(); t++)
            o->tests[o->ntests++] = litmus_get(t);
    return MGS_EXIT_OK;
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void print_result(const litmus_test *t, const litmus_opts *ro,
                         const litmus_result *r, bool timing, double wall)
{
    char sim[48] = "emu, no simulated time";
    if (timing)
        snprintf(sim, sizeof sim, "%.3f ms simulated",
                 (double)r->sim_time_ps * 1e-9);
    printf("%s  placement %s, %s: %" PRIu64 " iterations, %" PRIu64
           " launches, %s, %.1f s\n", t->name,
           litmus_placement_name(ro->placement),
           !ro->fenced ? "no fences"
           : ro->placement == LITMUS_GPU ? "fences (system scope)"
                                         : "fences (agent scope)",
           r->iterations, r->launches, sim, wall);
    unsigned bad = litmus_forbidden_key(t);
    for (unsigned k = 0; k < LITMUS_MAX_OUTCOMES; k++) {
        if (!r->count[k] && k != bad)
            continue;
        char text[64];
        litmus_outcome_text(t, k, text, sizeof text);
        printf("  %-24s %10" PRIu64 "%s\n", text, r->count[k],
               k != bad ? ""
               : ro->fenced ? "  forbidden"
                            : "  (forbidden with fences; allowed here)");
    }
    if (ro->fenced && r->forbidden)
        printf("  FORBIDDEN OUTCOME SEEN %" PRIu64 " times\n", r->forbidden);
}

/* One run on a fresh runtime; *seen += forbidden outcomes of a fenced run. */
static int run_one(const mgs_config *cfg, const litmus_test *t,
                   const litmus_opts *ro, uint64_t *seen)
{
    mgs_rt_options opt;
    mgs_rt_options_default(&opt);
    opt.mode = !strcmp(cfg->sim_mode, "timing") ? MGS_MODE_TIMING
                                                : MGS_MODE_EMU;
    opt.num_gpus = cfg->platform_gpus;
    opt.mem_per_gpu = cfg->platform_mem_per_gpu;
    opt.platform = cfg->platform_type;
    opt.config = cfg;
    mgs_rt *rt = NULL;
    int rc = mgs_rt_new(&opt, &rt);
    if (rc != MGS_OK)
        return rc;
    litmus_result *r = MGS_NEW(litmus_result);
    double t0 = wall_seconds();
    rc = litmus_run(rt, t, ro, r);
    double wall = wall_seconds() - t0;
    mgs_rt_free(rt);
    if (rc == MGS_OK) {
        print_result(t, ro, r, opt.mode == MGS_MODE_TIMING, wall);
        fflush(stdout);
        if (ro->fenced)
            *seen += r->forbidden;
    }
    free(r);
    return rc;
}

int cmd_litmus(int argc, char **argv)
{
    litmus_cli o;
    memset(&o, 0, sizeof o);
    o.placement = -1;
    o.fences = -1;
    litmus_opts_default(&o.run);
    bool help = false;
    mgs_config *cfg = MGS_NEW(mgs_config);
    /* Timing unless the user says otherwise (layered before their options). */
    cli_cfg_add_set(&o.cfg, "sim.mode", "timing", "litmus default");
    int exit_code = parse(&o, argc, argv, &help);
    if (exit_code != MGS_EXIT_OK || help) {
        if (help)
            usage(stdout);
        goto out;
    }
    int rc = cli_cfg_build(&o.cfg, cfg);
    if (rc == MGS_OK && o.placement == LITMUS_GPU && cfg->platform_gpus < 2)
        rc = mgs_error_set(MGS_EINVAL, "litmus: --placement gpu needs at "
                           "least 2 GPUs (--gpus N)");
    if (rc != MGS_OK) {
        exit_code = cli_fail(rc);
        goto out;
    }
    o.run.seed = cfg->sim_seed;
    printf("mgsim litmus: protocol %s, %d GPU%s (%s), mode %s, seed %" PRIu64
           ", stress %u WGs, delay <= %u\n", cfg->coherence_protocol,
           cfg->platform_gpus, cfg->platform_gpus == 1 ? "" : "s",
           cfg->platform_type, cfg->sim_mode, o.run.seed, o.run.stress_wgs,
           o.run.max_delay);
    fflush(stdout);
    uint64_t seen = 0;
    for (size_t i = 0; i < o.ntests; i++)
        for (int p = LITMUS_CU; p <= LITMUS_GPU; p++) {
            if (o.placement >= 0 ? p != o.placement
                                 : p == LITMUS_GPU && cfg->platform_gpus < 2)
                continue;
            for (int f = 1; f >= 0; f--) {
                if (o.fences >= 0 && f != o.fences)
                    continue;
                litmus_opts ro = o.run;
                ro.placement = (litmus_placement)p;
                ro.fenced = f;
                if ((rc = run_one(cfg, o.tests[i], &ro, &seen)) != MGS_OK) {
                    exit_code = cli_fail(rc);
                    goto out;
                }
            }
        }
    if (seen) {
        printf("mgsim litmus: FAIL: forbidden outcomes seen %" PRIu64
               " times\n", seen);
        exit_code = MGS_EXIT_VERIFY;
    } else {
        printf("mgsim litmus: ok: no forbidden outcome\n");
    }
out:
    cli_cfg_free(&o.cfg);
    free(cfg);
    return exit_code;
}
