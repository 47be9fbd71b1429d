/*
** `mgsim sweep`: runs the cross product of axes (sweep.h) as one `mgsim
** run` child per point, locally in a process pool or as a Slurm job array,
** skipping points already finished, and merges the results into one
** database. Command-line axes are turned into sweep-file text so that the
** command line and a sweep file go through one parser.
*/
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/sweep.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mgsim sweep [SWEEP.ini] [axes] [options]\n"
        "       mgsim sweep --merge DIR\n\n"
        "Runs every point of the cross product of the axes (each a comma list)\n"
        "as one 'mgsim run', skipping points already finished in DIR, and\n"
        "merges them into DIR/sweep.db (docs/studies.md).\n\n"
        "axes (a sweep file may give them too; the command line adds to it):\n"
        "  --workloads A,B      workloads ('mgsim list workloads')\n"
        "  --presets P,Q        presets;  --configs F,G  configuration files\n"
        "  --gpus 1,4           GPU counts;  --platforms T,U  platform types\n"
        "  --modes emu,timing   modes;  --sizes small,default  input sizes\n"
        "  --seeds 1,2          seeds\n"
        "  --set S.K=V1,V2      values of one configuration key\n"
        "  --param N=V1,V2      values of one workload parameter\n"
        "  (--workload, --preset, --config, --platform, --mode, --size, --seed\n"
        "   are the same options)\n\n"
        "options:\n"
        "  --out DIR            sweep directory (default: results/sweep-<hash>)\n"
        "  -j, --jobs N         points at once (-jN too; default: the number of cores)\n"
        "  --timeout S          seconds per point; a point past it fails (124)\n"
        "  --force              rerun finished points\n"
        "  --retry-failed       rerun points that failed\n"
        "  --quiet              no progress line\n"
        "  --slurm              submit a Slurm job array instead of running here:\n"
        "    --partition P, --account A, --time T (#SBATCH options),\n"
        "    --max-parallel N (array throttle), --dry-run (print the script),\n"
        "    --wait (wait for the array, then merge)\n"
        "  --merge DIR          merge the finished points of DIR into DIR/sweep.db\n"
        "  -h, --help           this text\n\n"
        "Exit codes: 0 every point succeeded, 1 a point failed or is missing,\n"
        "2 usage or sweep error, 4 internal error.\n");
}

typedef struct sweep_opts {
    char *text;              /* sweep text: file, then command-line axes */
    size_t len;
    bool have_axes;
    const char *file, *out, *merge;
    sweep_run_opts run;
    bool slurm, quiet, wait;
    sweep_slurm_opts so;
    long run_point;          /* --run-point (Slurm task); -1: none */
} sweep_opts;

static void append(sweep_opts *o, const char *a, const char *b,
                   const char *c)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + 2;
    o->text = mgs_xrealloc(o->text, o->len + n + 1);
    o->len += (size_t)snprintf(o->text + o->len, n + 1, "%s%s%s\n", a, b, c);
}

/* --KEY V -> "KEY = V" in [sweep] (set/param: "set.S.K = V1,V2"). */
static int add_axis(sweep_opts *o, const char *key, const char *v)
{
    if (!o->have_axes) {
        append(o, "[sweep]", "", "");
        o->have_axes = true;
    }
    if (!strcmp(key, "set") || !strcmp(key, "param")) {
        const char *eq = strchr(v, '=');
        if (!eq || eq == v)
            return cli_usage_error("sweep: --%s '%s': expected NAME=V1,V2,...",
                                   key, v);
        char name[256];
        snprintf(name, sizeof name, "%s.%.*s = ", key, (int)(eq - v), v);
        append(o, name, eq + 1, "");
        return MGS_EXIT_OK;
    }
    append(o, key, " = ", v);
    return MGS_EXIT_OK;
}

static int parse(sweep_opts *o, int argc, char **argv, bool *help)
{
    static const char *axes[] = {
        "workload", "workloads", "preset", "presets", "config", "configs",
        "gpus", "platform", "platforms", "mode", "modes", "size", "sizes",
        "seed", "seeds", "set", "param"};
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r = 0;
        bool axis = false;
        for (size_t k = 0; !axis && k < sizeof axes / sizeof axes[0]; k++) {
            char opt[32];
            snprintf(opt, sizeof opt, "--%s", axes[k]);
            if ((r = cli_opt_value(argc, argv, &i, opt, &v)) < 0)
                return MGS_EXIT_USAGE;
            if (r > 0) {
                axis = true;
                if ((r = add_axis(o, axes[k], v)) != MGS_EXIT_OK)
                    return r;
            }
        }
        if (axis)
            continue;
        const char *num_opt = NULL, *num = NULL;
        long *num_out = NULL, num_min = 0, maxp = -1;
        if ((r = sweep_take_run_opt(&o->run, &o->quiet, "sweep", argc, argv,
                                    &i)) != 0) {
            if (r < 0)
                return MGS_EXIT_USAGE;
            continue;
        }
        if ((r = cli_opt_value(argc, argv, &i, "--out", &v)) > 0)
            o->out = v;
        else if (!r && (r = cli_opt_value(argc, argv, &i, "--merge", &v)) > 0)
            o->merge = v;
        else if (!r && (r = cli_opt_value(argc, argv, &i, "--run-point", &v)) > 0)
            num_opt = "--run-point", num = v, num_out = &o->run_point;
        else if (!r && (r = cli_opt_value(argc, argv, &i, "--max-parallel", &v)) > 0)
            num_opt = "--max-parallel", num = v, num_out = &maxp, num_min = 1;
        else if (!r && (r = cli_opt_value(argc, argv, &i, "--partition", &v)) > 0)
            o->so.partition = v;
        else if (!r && (r = cli_opt_value(argc, argv, &i, "--account", &v)) > 0)
            o->so.account = v;
        else if (!r && (r = cli_opt_value(argc, argv, &i, "--time", &v)) > 0)
            o->so.time_limit = v;
        if (r < 0)
            return MGS_EXIT_USAGE;
        if (num) {
            char *end;
            long n = strtol(num, &end, 10);
            if (end == num || *end || n < num_min || n > INT_MAX)
                return cli_usage_error("sweep: %s '%s': expected a whole "
                                       "number >= %ld", num_opt, num, num_min);
            *num_out = n;
            if (maxp > 0)
                o->so.max_parallel = (int)maxp;
        }
        if (r > 0)
            continue;
        if (!strcmp(argv[i], "--slurm"))
            o->slurm = true;
        else if (!strcmp(argv[i], "--dry-run"))
            o->so.dry_run = true;
        else if (!strcmp(argv[i], "--wait"))
            o->wait = true;
        else if (cli_is_help(argv[i])) {
            *help = true;
            return MGS_EXIT_OK;
        } else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("sweep: unknown option '%s' (try 'mgsim "
                                   "sweep --help')", argv[i]);
        else if (o->file)
            return cli_usage_error("sweep: more than one sweep file ('%s' and "
                                   "'%s')", o->file, argv[i]);
        else
            o->file = argv[i];
    }
    return MGS_EXIT_OK;
}

/* "results/sweep-<8 hex digits of the sweep text>". */
static void default_dir(const char *text, char *buf, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *c = text; *c; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
    snprintf(buf, n, "results/sweep-%08llx", (unsigned long long)(h >> 32));
}

/* Prints the summary; returns the exit code (1 if a point failed). */
static int report(const sweep_spec *s, const char *dir,
                  const sweep_outcome *out, bool ran)
{
    if (ran)
        printf("mgsim sweep: %zu points: %zu run, %zu reused, %zu failed\n",
               s->npoints, out->ran, out->reused, out->failed);
    else
        printf("mgsim sweep: %zu points: %zu finished, %zu failed, %zu "
               "missing\n", s->npoints, out->reused, out->failed, out->missing);
    printf("  results  %s/sweep.db\n", dir);
    if (out->failed || out->missing) {
        printf("failed points:\n");
        sweep_print_failures(s, dir, stdout);
        return MGS_EXIT_VERIFY;
    }
    return MGS_EXIT_OK;
}

/* --merge (and --slurm --wait): merge DIR's finished points, report. */
static int merge_report(const sweep_spec *s, const char *dir)
{
    sweep_outcome res;
    int rc = sweep_merge(s, dir, &res);
    return rc != MGS_OK ? cli_fail(rc) : report(s, dir, &res, false);
}

int cmd_sweep(int argc, char **argv)
{
    sweep_opts o = {.run_point = -1};
    bool help = false;
    sweep_spec s = {0};
    char *file_text = NULL;
    int exit_code = parse(&o, argc, argv, &help);
    if (exit_code != MGS_EXIT_OK || help) {
        if (help)
            usage(stdout);
        goto out;
    }
    char self[PATH_MAX];
    int rc = sweep_run_opts_finish(&o.run, self, sizeof self, o.quiet);
    if (rc != MGS_OK) {
        exit_code = cli_fail(rc);
        goto out;
    }
    if (o.merge || o.run_point >= 0) {
        /* The sweep directory holds the sweep. */
        const char *dir = o.merge ? o.merge : o.out;
        if (!dir) {
            exit_code = cli_usage_error("sweep: --run-point needs --out DIR");
            goto out;
        }
        if (o.file || o.have_axes) {
            exit_code = cli_usage_error("sweep: --merge and --run-point read "
                                        "DIR/sweep.ini; give no axes");
            goto out;
        }
        if ((rc = sweep_load_dir(dir, &s)) != MGS_OK) {
            exit_code = cli_fail(rc);
            goto out;
        }
        o.run.dir = dir;
        if (o.run_point >= 0) {
            rc = sweep_run_point(&s, &o.run, (size_t)o.run_point);
            exit_code = rc == MGS_OK ? MGS_EXIT_OK : cli_fail(rc);
            goto out;
        }
        exit_code = merge_report(&s, dir);
        goto out;
    }
    if (o.file && !(file_text = cli_read_file(o.file))) {
        exit_code = cli_fail(mgs_error_set(MGS_ENOENT, "sweep file %s: %s",
                                           o.file, strerror(errno)));
        goto out;
    }
    if (!o.file && !o.have_axes) {
        exit_code = cli_usage_error("sweep: give a sweep file or axes such "
                                    "as --workloads (try 'mgsim sweep --help')");
        goto out;
    }
    /* The file first, then the command line's [sweep] keys. */
    size_t len = (file_text ? strlen(file_text) : 0) + o.len + 2;
    char *text = mgs_xmalloc(len);
    snprintf(text, len, "%s%s%s", file_text ? file_text : "",
             file_text && o.len ? "\n" : "", o.text ? o.text : "");
    rc = sweep_spec_parse(text, o.file ? o.file : "command line", NULL, &s);
    char dir[4096];
    if (o.out)
        snprintf(dir, sizeof dir, "%s", o.out);
    else
        default_dir(text, dir, sizeof dir);
    free(text);
    if (rc != MGS_OK) {
        exit_code = cli_fail(rc);
        goto out;
    }
    o.run.dir = dir;
    if (o.slurm) {
        o.so.wait = o.wait;
        rc = sweep_slurm_submit(&s, &o.run, &o.so);
        if (rc != MGS_OK)
            exit_code = cli_fail(rc);
        else if (o.wait)
            exit_code = merge_report(&s, dir);
        goto out;
    }
    sweep_outcome res;
    if ((rc = sweep_run(&s, &o.run, &res)) != MGS_OK) {
        exit_code = cli_fail(rc);
        goto out;
    }
    exit_code = report(&s, dir, &res, true);
out:
    sweep_spec_free(&s);
    free(file_text);
    free(o.text);
    return exit_code;
}
