/*
** `mgsim study NAME`: runs a study (study.h) and writes, into its output
** folder, NAME.csv (every point), NAME-figure.csv (the figure's table:
** x, group, value, paper), NAME.png (drawn by scripts/plot.py, the one
** plotting back end) and report.md (results, "paper | mgsim | ratio",
** the paper's statements and whether mgsim reproduces them, and the
** command that reproduces the report).
**
** The figure has two axes of the sweep: x (e.g. workload) and group (e.g.
** variant); every other axis must have a single value. Normalisation
** divides by the point that differs only in the baseline axis (speedup:
** baseline / value; ratio: value / baseline). The aggregate (geometric
** or arithmetic mean over x) becomes one more x value, "geomean"/"mean".
*/
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/study.h"
#include "cli/sweep.h"
#include "mgsim/errors.h"
#include "results/db.h"
#include "results/merge.h"
#include "util/xmalloc.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mgsim study NAME [options]\n"
        "       mgsim study --list\n\n"
        "Runs the study NAME (a data file, %s/NAME.ini): its sweep\n"
        "(reusing finished points), then writes NAME.csv, NAME.png and\n"
        "report.md into the output folder (docs/studies.md).\n\n"
        "options:\n"
        "  --size small|study|paper  inputs: a smoke run in seconds; footprints\n"
        "                       above the total L2 (default); the seeds' sizes\n"
        "  --out DIR            output folder (default: results/study-NAME-SIZE)\n"
        "  --kernels DIR        folder of external code objects the study's\n"
        "                       workloads run (MGSIM_MGPUSIM_DIR; validate-mgpusim)\n"
        "  -j, --jobs N         points at once (-jN too; default: the number of cores)\n"
        "  --timeout S          seconds per point\n"
        "  --force              rerun finished points (--retry-failed: failed ones)\n"
        "  --dry-run            list the points and their footprints; run nothing\n"
        "  --report-only        write the outputs from the points finished so far\n"
        "  --quiet              no progress line\n"
        "  --list               list the studies\n"
        "  -h, --help           this text\n\n"
        "Exit codes: 0 ok, 1 a point failed (outputs are still written),\n"
        "2 usage or study error, 4 internal error.\n", study_dir());
}

static int list_studies(void)
{
    const char *dir = study_dir();
    struct dirent **ents = NULL;
    int n = scandir(dir, &ents, NULL, alphasort);
    if (n < 0)
        return cli_fail(mgs_error_set(MGS_ENOENT, "%s: %s", dir, strerror(errno)));
    printf("studies (%s):\n", dir);
    for (int i = 0; i < n; i++) {
        const char *e = ents[i]->d_name;
        size_t len = strlen(e);
        if (len > 4 && !strcmp(e + len - 4, ".ini")) {
            study s;
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(len - 4), e);
            if (study_load(name, &s) == MGS_OK) {
                printf("  %-16s %s\n", s.name, s.title);
                study_free(&s);
            }
        }
        free(ents[i]);
    }
    free(ents);
    return MGS_EXIT_OK;
}

static long axis_index(const sweep_spec *sp, const char *name)
{
    for (size_t a = 0; name && a < sp->naxes; a++)
        if (!strcmp(sp->axes[a].name, name))
            return (long)a;
    return -1;
}

static long choice_index(const sweep_axis *ax, const char *label)
{
    for (size_t c = 0; c < ax->n; c++)
        if (!strcmp(ax->choices[c].label, label))
            return (long)c;
    return -1;
}

/* The figure's table, computed once and written three ways. */
typedef struct table {
    long ax_x, ax_g, ax_b, base;   /* axes (-1: none), baseline choice */
    size_t nx, ng;                 /* x values (+1 aggregate row), groups */
    size_t *group_choice;          /* [ng]: choice index on ax_g */
    double *cell;                  /* [(nx + 1) * ng], NAN = missing */
    double *raw, *norm;            /* per point */
    int *code;                     /* per point, -1 missing */
} table;

static size_t stride(const sweep_spec *sp, long axis)
{
    size_t s = 1;
    for (size_t a = (size_t)axis + 1; a < sp->naxes; a++)
        s *= sp->axes[a].n;
    return s;
}

/* Whether item is in the comma (or space) separated list. */
static bool in_list(const char *list, const char *item)
{
    bool in = false;
    char *copy = mgs_xstrdup(list), *save = NULL;
    for (char *tok = strtok_r(copy, ", ", &save); tok && !in;
         tok = strtok_r(NULL, ", ", &save))
        in = !strcmp(tok, item);
    free(copy);
    return in;
}

/* The metric of every point: a sum of metrics ("a + b") or a quotient of
** two sums ("a / b + c"), each summed over the components that match. */
static int metric_values(const char *db, const study *st, size_t n,
                         double *raw, int *code)
{
    const char *slash = strchr(st->metric, '/');
    if (!slash)
        return mgs_sweep_db_values(db, st->component, st->metric, n, raw,
                                   code);
    char *num = mgs_xstrdup(st->metric);
    num[slash - st->metric] = '\0';
    double *den = MGS_NEW_ARRAY(double, n);
    int rc = mgs_sweep_db_values(db, st->component, num, n, raw, code);
    if (rc == MGS_OK)
        rc = mgs_sweep_db_values(db, st->component, slash + 1, n, den, code);
    for (size_t i = 0; rc == MGS_OK && i < n; i++)
        raw[i] = den[i] != 0 ? raw[i] / den[i] : NAN;
    free(den);
    free(num);
    return rc;
}

static int build_table(const study *st, const sweep_spec *sp, const char *db,
                       table *t)
{
    memset(t, 0, sizeof *t);
    t->ax_x = axis_index(sp, st->x_axis);
    t->ax_g = axis_index(sp, st->group_axis);
    t->ax_b = axis_index(sp, st->baseline_axis);
    if (t->ax_x < 0)
        return mgs_error_set(MGS_EINVAL, "study %s: x = %s is not an axis of "
                             "its sweep", st->path, st->x_axis);
    if (st->group_axis && t->ax_g < 0)
        return mgs_error_set(MGS_EINVAL, "study %s: group = %s is not an axis "
                             "of its sweep", st->path, st->group_axis);
    bool norm = strcmp(st->normalise, "none") != 0;
    /* A baseline axis of its own (neither x nor group) has the baseline
    ** and one other value: the cells are that value's points. */
    bool own_base = norm && t->ax_b >= 0 && t->ax_b != t->ax_x &&
                    t->ax_b != t->ax_g;
    for (size_t a = 0; a < sp->naxes; a++)
        if ((long)a != t->ax_x && (long)a != t->ax_g && sp->axes[a].n > 1 &&
            !(own_base && (long)a == t->ax_b && sp->axes[a].n == 2))
            return mgs_error_set(MGS_EINVAL, "study %s: axis '%s' has %zu "
                                 "values; a study varies only x and group "
                                 "(and a baseline axis of two values)",
                                 st->path, sp->axes[a].name, sp->axes[a].n);
    if (norm) {
        if (t->ax_b < 0)
            return mgs_error_set(MGS_EINVAL, "study %s: baseline axis '%s' is "
                                 "not an axis of its sweep", st->path,
                                 st->baseline_axis);
        t->base = choice_index(&sp->axes[t->ax_b], st->baseline_value);
        if (t->base < 0)
            return mgs_error_set(MGS_EINVAL, "study %s: baseline %s=%s: no "
                                 "such value", st->path, st->baseline_axis,
                                 st->baseline_value);
    }
    size_t n = sp->npoints;
    t->raw = MGS_NEW_ARRAY(double, n);
    t->norm = MGS_NEW_ARRAY(double, n);
    t->code = MGS_NEW_ARRAY(int, n);
    int rc = metric_values(db, st, n, t->raw, t->code);
    if (rc != MGS_OK)
        return rc;
    for (size_t i = 0; i < n; i++) {
        double v = t->code[i] == 0 ? t->raw[i] : NAN;
        if (norm) {
            const sweep_point *p = &sp->points[i];
            size_t j = i + ((size_t)t->base - p->choice[t->ax_b]) *
                               stride(sp, t->ax_b);
            double b = t->code[j] == 0 ? t->raw[j] : NAN;
            v = !strcmp(st->normalise, "speedup") ? b / v : v / b;
        }
        t->norm[i] = v;
    }
    /* Groups: every value of the group axis but the baseline's (when the
    ** baseline is on that axis, it is 1 by definition). */
    size_t gn = t->ax_g >= 0 ? sp->axes[t->ax_g].n : 1;
    t->group_choice = MGS_NEW_ARRAY(size_t, gn);
    for (size_t g = 0; g < gn; g++)
        if (!(norm && t->ax_g == t->ax_b && (long)g == t->base) &&
            (!st->groups || t->ax_g < 0 ||
             in_list(st->groups, sp->axes[t->ax_g].choices[g].label)))
            t->group_choice[t->ng++] = g;
    t->nx = sp->axes[t->ax_x].n;
    t->cell = MGS_NEW_ARRAY(double, (t->nx + 1) * t->ng);
    for (size_t k = 0; k < (t->nx + 1) * t->ng; k++)
        t->cell[k] = NAN;
    for (size_t i = 0; i < n; i++) {
        const sweep_point *p = &sp->points[i];
        if (own_base && (long)p->choice[t->ax_b] == t->base)
            continue;
        size_t x = p->choice[t->ax_x];
        size_t gc = t->ax_g >= 0 ? p->choice[t->ax_g] : 0;
        for (size_t g = 0; g < t->ng; g++)
            if (t->group_choice[g] == gc)
                t->cell[x * t->ng + g] = t->norm[i];
    }
    bool geo = !strcmp(st->aggregate, "geomean");
    for (size_t g = 0; strcmp(st->aggregate, "none") && g < t->ng; g++) {
        double acc = 0;
        size_t cnt = 0;
        for (size_t x = 0; x < t->nx; x++) {
            double v = t->cell[x * t->ng + g];
            if (isfinite(v) && (!geo || v > 0)) {
                acc += geo ? log(v) : v;
                cnt++;
            }
        }
        if (cnt)
            t->cell[t->nx * t->ng + g] = geo ? exp(acc / (double)cnt)
                                             : acc / (double)cnt;
    }
    return MGS_OK;
}

static void table_free(table *t)
{
    free(t->group_choice);
    free(t->cell);
    free(t->raw);
    free(t->norm);
    free(t->code);
}

static const char *x_label(const sweep_spec *sp, const table *t, size_t x,
                           const study *st)
{
    return x < t->nx ? sp->axes[t->ax_x].choices[x].label : st->aggregate;
}

static const char *g_label(const sweep_spec *sp, const table *t, size_t g)
{
    return t->ax_g >= 0 ? sp->axes[t->ax_g].choices[t->group_choice[g]].label
                        : "value";
}

/* The mgsim value a reference or claim points at, NAN if none. */
static double lookup(const sweep_spec *sp, const table *t, const study *st,
                     const char *group, const char *x)
{
    for (size_t g = 0; g < t->ng; g++)
        if (!strcmp(g_label(sp, t, g), group))
            for (size_t xi = 0; xi <= t->nx; xi++)
                if (!strcmp(x_label(sp, t, xi, st), x) &&
                    (xi < t->nx || strcmp(st->aggregate, "none")))
                    return t->cell[xi * t->ng + g];
    return NAN;
}

static double paper_value(const study *st, const char *group, const char *x)
{
    for (size_t r = 0; r < st->nrefs; r++)
        if (!strcmp(st->refs[r].group, group) && !strcmp(st->refs[r].x, x))
            return st->refs[r].value;
    return NAN;
}

static void fmt_num(char *buf, size_t n, double v)
{
    if (isfinite(v))
        snprintf(buf, n, "%.4g", v);
    else
        snprintf(buf, n, "%s", "");
}

static int write_points_csv(const char *path, const study *st,
                            const sweep_spec *sp, const table *t)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return mgs_error_set(MGS_EIO, "%s: %s", path, strerror(errno));
    fputs("index,label", f);
    for (size_t a = 0; a < sp->naxes; a++) {
        fputc(',', f);
        mgs_csv_field(f, sp->axes[a].name);
    }
    fprintf(f, ",footprint_bytes,exit_code,%s.%s,%s\n", st->component,
            st->metric, st->normalise);
    for (size_t i = 0; i < sp->npoints; i++) {
        const sweep_point *p = &sp->points[i];
        fprintf(f, "%zu,", i);
        mgs_csv_field(f, p->label);
        for (size_t a = 0; a < sp->naxes; a++) {
            fputc(',', f);
            mgs_csv_field(f, sp->axes[a].choices[p->choice[a]].label);
        }
        char v[32], nv[32];
        fmt_num(v, sizeof v, t->raw[i]);
        fmt_num(nv, sizeof nv, t->norm[i]);
        fprintf(f, ",%llu,%d,%s,%s\n", (unsigned long long)p->footprint,
                t->code[i], v, nv);
    }
    if (fclose(f) != 0)
        return mgs_error_set(MGS_EIO, "%s: cannot write", path);
    return MGS_OK;
}

static int write_figure_csv(const char *path, const study *st,
                            const sweep_spec *sp, const table *t)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return mgs_error_set(MGS_EIO, "%s: %s", path, strerror(errno));
    fputs("x,group,value,paper\n", f);
    size_t rows = strcmp(st->aggregate, "none") ? t->nx + 1 : t->nx;
    for (size_t x = 0; x < rows; x++)
        for (size_t g = 0; g < t->ng; g++) {
            char v[32], pv[32];
            fmt_num(v, sizeof v, t->cell[x * t->ng + g]);
            fmt_num(pv, sizeof pv, paper_value(st, g_label(sp, t, g),
                                               x_label(sp, t, x, st)));
            mgs_csv_field(f, x_label(sp, t, x, st));
            fputc(',', f);
            mgs_csv_field(f, g_label(sp, t, g));
            fprintf(f, ",%s,%s\n", v, pv);
        }
    if (fclose(f) != 0)
        return mgs_error_set(MGS_EIO, "%s: cannot write", path);
    return MGS_OK;
}

/* Runs scripts/plot.py on the figure table. */
static int draw(const study *st, const char *figure_csv, const char *png)
{
    const char *py = getenv("MGSIM_PYTHON");
    if (!py || !*py)
        py = "/usr/bin/python3";
    char script[PATH_MAX];
    snprintf(script, sizeof script, "%s/scripts/plot.py", MGS_SOURCE_DIR);
    char ylabel[256];
    snprintf(ylabel, sizeof ylabel, "%s", st->ylabel ? st->ylabel : st->metric);
    const char *argv[] = {py, script, "--figure", figure_csv, "--kind",
                          st->figure, "--title", st->title, "--ylabel", ylabel,
                          "--xlabel", st->x_axis, "-o", png,
                          strcmp(st->normalise, "none") ? "--hline" : NULL,
                          "1", NULL};
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 1);
        execv(py, (char **)argv);
        fprintf(stderr, "mgsim: error: cannot run %s: %s\n", py, strerror(errno));
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return mgs_error_set(MGS_EINTERNAL, "study: %s %s could not draw %s "
                             "(Debian's python3-matplotlib is needed; "
                             "scripts/deps.sh)", py, script, png);
    return MGS_OK;
}

static void claim_report(FILE *f, const study *st, const sweep_spec *sp,
                         const table *t, const study_claim *c)
{
    size_t ok = 0, n = 0;
    char vals[2048] = "";
    for (size_t x = 0; x < t->nx; x++) {
        const char *xl = x_label(sp, t, x, st);
        if (c->xs && strcmp(c->xs, "all") && !in_list(c->xs, xl))
            continue;
        double v = lookup(sp, t, st, c->group ? c->group : "", xl);
        size_t len = strlen(vals);
        if (!isfinite(v)) {
            snprintf(vals + len, sizeof vals - len, "%s%s n/a", len ? ", " : "", xl);
            continue;
        }
        n++;
        bool yes = (!c->has_min || v >= c->min) && (!c->has_max || v <= c->max);
        ok += yes;
        snprintf(vals + len, sizeof vals - len, "%s%s %.2f%s", len ? ", " : "",
                 xl, v, yes ? "" : "*");
    }
    bool repro = n > 0 && (double)ok >= c->share * (double)n - 1e-9;
    char cond[96] = "";
    if (c->has_min && c->has_max)
        snprintf(cond, sizeof cond, "between %.2f and %.2f", c->min, c->max);
    else if (c->has_min)
        snprintf(cond, sizeof cond, ">= %.2f", c->min);
    else if (c->has_max)
        snprintf(cond, sizeof cond, "<= %.2f", c->max);
    fprintf(f, "- **%s** (%s)  \n  %s: %zu of %zu %s values %s (needed: %.0f%%). "
            "Values (* = outside): %s.\n", c->text ? c->text : c->name,
            c->source ? c->source : "no source given",
            repro ? "**reproduced**" : "**not reproduced**", ok, n,
            c->group ? c->group : "", cond, c->share * 100, vals);
    if (c->note)
        fprintf(f, "  Why: %s\n", c->note);
}

/* One figure's part of the report: the figure, its table, "paper |
** mgsim | ratio" and the statements. A further figure ([figure FIG]) gets
** its own heading, description and metric line. */
static void report_figure(FILE *f, const study *st, const sweep_spec *sp,
                          const table *t, bool further)
{
    if (further) {
        fprintf(f, "\n## %s\n\n", st->title);
        if (st->description)
            fprintf(f, "%s\n\n", st->description);
        fprintf(f, "Metric: `%s.%s`", st->component, st->metric);
        if (strcmp(st->normalise, "none"))
            fprintf(f, ", %s relative to `%s=%s`", st->normalise,
                    st->baseline_axis, st->baseline_value);
        fputs(".\n\n", f);
    }
    fprintf(f, "![%s](%s.png)\n\n%s\n\n| %s |", st->title, st->name,
            further ? "### Results" : "## Results", st->x_axis);
    for (size_t g = 0; g < t->ng; g++)
        fprintf(f, " %s |", g_label(sp, t, g));
    fputs("\n|---|", f);
    for (size_t g = 0; g < t->ng; g++)
        fputs("---:|", f);
    fputc('\n', f);
    size_t rows = strcmp(st->aggregate, "none") ? t->nx + 1 : t->nx;
    for (size_t x = 0; x < rows; x++) {
        fprintf(f, x < t->nx ? "| %s |" : "| **%s** |", x_label(sp, t, x, st));
        for (size_t g = 0; g < t->ng; g++) {
            double v = t->cell[x * t->ng + g];
            if (isfinite(v))
                fprintf(f, " %.3f |", v);
            else
                fputs(" - |", f);
        }
        fputc('\n', f);
    }
    if (st->nrefs) {
        fprintf(f, "\n%s Paper and mgsim\n\n| reference | paper | mgsim | "
                "ratio | source |\n|---|---:|---:|---:|---|\n",
                further ? "###" : "##");
        for (size_t r = 0; r < st->nrefs; r++) {
            const study_ref *ref = &st->refs[r];
            double m = lookup(sp, t, st, ref->group, ref->x);
            char mv[32] = "n/a", ratio[32] = "n/a";
            if (isfinite(m)) {
                snprintf(mv, sizeof mv, "%.3f", m);
                snprintf(ratio, sizeof ratio, "%.2f", m / ref->value);
            }
            fprintf(f, "| %s %s | %.3g | %s | %s | %s |\n", ref->group, ref->x,
                    ref->value, mv, ratio, ref->source);
        }
    }
    if (st->nclaims) {
        fputs("\n## The paper's statements\n\n", f);
        for (size_t c = 0; c < st->nclaims; c++)
            claim_report(f, st, sp, t, &st->claims[c]);
    }
}

/* report.md: the study's header, each figure (tables[0] is the [study]
** figure's, tables[1 + i] figures[i]'s) and the failed points with their
** messages. */
static int write_report(const char *path, const study *st,
                        const sweep_spec *sp, const table *tables,
                        const char *size, const char *command,
                        const char *dir, size_t failed)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return mgs_error_set(MGS_EIO, "%s: %s", path, strerror(errno));
    fprintf(f, "# %s\n\n", st->title);
    if (st->source)
        fprintf(f, "Source: %s.\n\n", st->source);
    if (st->description)
        fprintf(f, "%s\n\n", st->description);
    fprintf(f, "Reproduce with `%s` (mgsim %s, %s). Size: `%s`", command,
            MGS_VERSION, MGS_GIT_REV, size);
    if (!strcmp(size, "small"))
        fprintf(f, " (a smoke run: inputs far below the L2 capacity, so the "
                "numbers say little about the paper's claims)");
    fprintf(f, ". Metric: `%s.%s`", st->component, st->metric);
    if (strcmp(st->normalise, "none"))
        fprintf(f, ", %s relative to `%s=%s`", st->normalise,
                st->baseline_axis, st->baseline_value);
    fprintf(f, "; %zu points, %zu failed or not run (- in the tables).\n\n",
            sp->npoints, failed);
    report_figure(f, st, sp, &tables[0], false);
    for (size_t i = 0; i < st->nfigures; i++)
        report_figure(f, &st->figures[i], sp, &tables[1 + i], true);
    if (failed) {
        fputs("\n## Failed points\n\n", f);
        for (size_t i = 0; i < sp->npoints; i++)
            if (tables[0].code[i] != 0) {
                char msg[512] = "";
                if (tables[0].code[i] > 0)
                    sweep_point_message(sp, dir, i, msg, sizeof msg);
                fprintf(f, "- point %zu (%s): ", i, sp->points[i].label);
                if (tables[0].code[i] < 0)
                    fputs("not run\n", f);
                else
                    fprintf(f, "exit %d%s%s\n", tables[0].code[i],
                            *msg ? ": " : " (see sweep.db)", msg);
            }
    }
    if (fclose(f) != 0)
        return mgs_error_set(MGS_EIO, "%s: cannot write", path);
    return MGS_OK;
}

/* One figure's table and files: NAME.csv (every point), NAME-figure.csv
** and NAME.png. */
static int write_figure(const study *st, const sweep_spec *sp,
                        const char *db, const char *dir, table *t)
{
    char csv[4400], fig[4400], png[4400];
    snprintf(csv, sizeof csv, "%s/%s.csv", dir, st->name);
    snprintf(fig, sizeof fig, "%s/%s-figure.csv", dir, st->name);
    snprintf(png, sizeof png, "%s/%s.png", dir, st->name);
    int rc;
    if ((rc = build_table(st, sp, db, t)) == MGS_OK &&
        (rc = write_points_csv(csv, st, sp, t)) == MGS_OK &&
        (rc = write_figure_csv(fig, st, sp, t)) == MGS_OK)
        rc = draw(st, fig, png);
    return rc;
}

typedef struct study_opts {
    const char *name, *size, *out;
    const char *kernels;   /* --kernels: MGPUSim's code objects */
    sweep_run_opts run;
    bool list, dry_run, quiet, report_only;
} study_opts;

static int parse(study_opts *o, int argc, char **argv, bool *help)
{
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if ((r = sweep_take_run_opt(&o->run, &o->quiet, "study", argc, argv,
                                    &i)) == 0 &&
            (r = cli_opt_value(argc, argv, &i, "--size", &v)) > 0)
            o->size = v;
        else if (!r && (r = cli_opt_value(argc, argv, &i, "--out", &v)) > 0)
            o->out = v;
        else if (!r &&
                 (r = cli_opt_value(argc, argv, &i, "--kernels", &v)) > 0)
            o->kernels = v;
        if (r < 0)
            return MGS_EXIT_USAGE;
        if (r > 0)
            continue;
        if (!strcmp(argv[i], "--list"))
            o->list = true;
        else if (!strcmp(argv[i], "--dry-run"))
            o->dry_run = true;
        else if (!strcmp(argv[i], "--report-only"))
            o->report_only = true;
        else if (cli_is_help(argv[i])) {
            *help = true;
            return MGS_EXIT_OK;
        } else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("study: unknown option '%s' (try 'mgsim "
                                   "study --help')", argv[i]);
        else if (o->name)
            return cli_usage_error("study: one study at a time ('%s' and "
                                   "'%s')", o->name, argv[i]);
        else
            o->name = argv[i];
    }
    return MGS_EXIT_OK;
}

/* Every point's footprint must exceed the study's minimum (--size study). */
static int check_footprints(const study *st, const sweep_spec *sp)
{
    for (size_t i = 0; st->min_footprint && i < sp->npoints; i++)
        if (sp->points[i].footprint <= st->min_footprint)
            return mgs_error_set(MGS_EINVAL, "study %s, size study: point %zu "
                                 "(%s) uses %.1f MB, not above min_footprint "
                                 "%.1f MB", st->path, i, sp->points[i].label,
                                 (double)sp->points[i].footprint / 1048576.0,
                                 (double)st->min_footprint / 1048576.0);
    return MGS_OK;
}

int cmd_study(int argc, char **argv)
{
    study_opts o = {0};
    bool help = false;
    study st = {0};
    sweep_spec sp = {0};
    table *tables = NULL;
    size_t nt = 0;
    int exit_code = parse(&o, argc, argv, &help);
    if (exit_code != MGS_EXIT_OK || help) {
        if (help)
            usage(stdout);
        return exit_code;
    }
    if (o.list)
        return list_studies();
    if (!o.name)
        return cli_usage_error("study: which study? ('mgsim study --list')");
    const char *size = o.size ? o.size : "study";
    if (o.kernels) {   /* the runs (child processes) inherit it */
        struct stat sb;
        if (stat(o.kernels, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return cli_usage_error("study: --kernels %s is not a folder",
                                   o.kernels);
        setenv("MGSIM_MGPUSIM_DIR", o.kernels, 1);
    }
    int rc = study_load(o.name, &st);
    if (rc == MGS_OK) {
        char origin[300];
        snprintf(origin, sizeof origin, "study %s", st.path);
        rc = sweep_spec_parse(st.text, origin, size, &sp);
    }
    if (rc == MGS_OK && !strcmp(size, "study"))
        rc = check_footprints(&st, &sp);
    if (rc != MGS_OK) {
        exit_code = cli_fail(rc);
        goto out;
    }
    if (o.dry_run) {
        printf("study %s, size %s: %zu points\n", st.name, size, sp.npoints);
        for (size_t i = 0; i < sp.npoints; i++) {
            printf("  %3zu  %-40s %8.1f MB  mgsim", i, sp.points[i].label,
                   (double)sp.points[i].footprint / 1048576.0);
            for (int k = 0; k < sp.points[i].argc; k++)
                printf(" %s", sp.points[i].argv[k]);
            printf("\n");
        }
        goto out;
    }
    char dir[4096];
    if (o.out)
        snprintf(dir, sizeof dir, "%s", o.out);
    else
        snprintf(dir, sizeof dir, "results/study-%s-%s", st.name, size);
    char self[PATH_MAX];
    if ((rc = sweep_run_opts_finish(&o.run, self, sizeof self, o.quiet))) {
        exit_code = cli_fail(rc);
        goto out;
    }
    o.run.dir = dir;
    sweep_outcome res;
    /* --report-only: the outputs from the points finished so far (a
    ** sweep still running, or a Slurm array that has not ended). */
    if (o.report_only ? (rc = sweep_merge(&sp, dir, &res)) != MGS_OK
                      : (rc = sweep_run(&sp, &o.run, &res)) != MGS_OK) {
        exit_code = cli_fail(rc);
        goto out;
    }
    char db[4200], rep[4200], command[512];
    snprintf(db, sizeof db, "%s/sweep.db", dir);
    snprintf(rep, sizeof rep, "%s/report.md", dir);
    snprintf(command, sizeof command, "mgsim study %s --size %s%s%s", st.name,
             size, o.kernels ? " --kernels " : "", o.kernels ? o.kernels : "");
    nt = 1 + st.nfigures;
    tables = MGS_NEW_ARRAY(table, nt);
    for (size_t i = 0; i < nt && rc == MGS_OK; i++)
        rc = write_figure(i ? &st.figures[i - 1] : &st, &sp, db, dir,
                          &tables[i]);
    if (rc == MGS_OK)
        rc = write_report(rep, &st, &sp, tables, size, command, dir,
                          res.failed + res.missing);
    if (rc != MGS_OK) {
        exit_code = cli_fail(rc);
        goto out;
    }
    printf("mgsim study %s (size %s): %zu points: %zu run, %zu reused, %zu "
           "failed, %zu missing\n  report   %s\n  figure   %s/%s.png\n  points"
           "   %s/%s.csv\n", st.name, size, sp.npoints, res.ran, res.reused,
           res.failed, res.missing, rep, dir, st.name, dir, st.name);
    exit_code = res.failed || res.missing ? MGS_EXIT_VERIFY : MGS_EXIT_OK;
    if (exit_code != MGS_EXIT_OK) {
        printf("failed points:\n");
        sweep_print_failures(&sp, dir, stdout);
    }
out:
    for (size_t i = 0; i < nt; i++)
        table_free(&tables[i]);
    free(tables);
    sweep_spec_free(&sp);
    study_free(&st);
    return exit_code;
}
