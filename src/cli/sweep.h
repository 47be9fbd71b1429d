/*
** Sweeps: the cross product of axes of `mgsim run` options, run as one
** child `mgsim run` per point (docs/studies.md).
**
** A sweep is described by INI text (a sweep file, or the text the command
** line is turned into, so both go through one parser):
**
**   [sweep]
**   workloads = mm, fir          ; every key with a comma list is an axis
**   presets = default, r9nano
**   gpus = 1, 4
**   mode = timing                ; one value: the same for every point
**   set.gpu.num_cus = 32, 64     ; --set gpu.num_cus=32 / =64
**   param.n = 64, 128            ; --param n=64 / =128
**   param.mm.n = 256             ; --param n=256 for workload mm only
**   [variant 1gpu]               ; variants: one axis of named bundles
**   gpus = 1
**   [variant unified4]
**   gpus = 4
**   platform = unified
**   [size small]                 ; applied only when that size is active
**   size = small                 ; (mgsim study --size), replacing keys
**   variant.1gpu.gpus = 2        ; replaces (or adds) one variant's key
**
** Keys: workload(s), preset(s), config(s), gpus, platform(s), mode(s),
** size(s), seed(s), set.SECTION.KEY, param.[WORKLOAD.]NAME. Other sections
** ([study], [paper], [claim ...]) belong to studies and are ignored here.
**
** Points are numbered in cross-product order, the first axis varying
** slowest (variants sit where the first [variant] section appears). A
** point's identity is a hash of its effective configuration (the INI text
** `mgsim config show --no-origins` prints), its workload, size and
** parameters, and MGS_VERSION: the same point in another sweep, or after a
** commit that does not change the version, is the same file.
**
** Directory layout (DIR = --out):
**   DIR/sweep.ini            the sweep, as parsed (Slurm tasks re-read it)
**   DIR/points/HASH.db       one results database per finished point
**   DIR/points/HASH.log      the point's stdout and stderr
**   DIR/sweep.db             every point merged (results/merge.h)
** A point is finished when DIR/points/HASH.db exists: the child writes a
** temporary file that is renamed into place only after it ended (and, when
** the child could not record it, e.g. on a timeout, the sweep records the
** failure itself), so a killed sweep leaves no half-finished point.
*/
#ifndef MGS_CLI_SWEEP_H
#define MGS_CLI_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One `mgsim run` option: opt is "--preset", "--set", ... or NULL for the
** workload name; only_workload restricts a --param to one workload. */
typedef struct sweep_arg {
    char *opt;
    char *val;
    char *only_workload;
} sweep_arg;

/* One value of an axis: a label and the options it stands for. */
typedef struct sweep_choice {
    char *label;
    sweep_arg *args;
    size_t nargs;
} sweep_choice;

typedef struct sweep_axis {
    char *name;             /* "workload", "gpus", "set.gpu.num_cus", "variant" */
    sweep_choice *choices;
    size_t n;
} sweep_axis;

typedef struct sweep_point {
    size_t index;
    char hash[17];          /* 16 hex digits */
    char *label;            /* "workload=mm gpus=4" (axes with > 1 value) */
    char *workload;
    uint64_t footprint;     /* workload's device memory, bytes (0: unknown) */
    size_t *choice;         /* [naxes]: the choice of each axis */
    char **argv;            /* "run", WORKLOAD, options... (NULL-terminated) */
    int argc;
} sweep_point;

typedef struct sweep_spec {
    sweep_axis *axes;
    size_t naxes;
    sweep_point *points;
    size_t npoints;
    char *text;             /* the INI text it was parsed from */
} sweep_spec;

/* Parses INI text (size: the [size NAME] section to apply, or NULL), then
** expands and checks every point (configuration, workload, parameters)
** without simulating. MGS_OK, or MGS_EINVAL / MGS_ECONFIG / MGS_ENOENT
** with a message naming the point or line. origin names the text in
** messages ("sweep.ini", "study platforms", "command line"). */
int sweep_spec_parse(const char *text, const char *origin, const char *size,
                     sweep_spec *out);
void sweep_spec_free(sweep_spec *s);
/* The value label of axis `name` for point p, or NULL if no such axis. */
const char *sweep_point_axis(const sweep_spec *s, const sweep_point *p,
                             const char *name);

/* ---- running (sweep_run.c) ---------------------------------------- */

typedef enum sweep_status {
    SWEEP_PENDING,
    SWEEP_REUSED,           /* found finished, not rerun */
    SWEEP_DONE,             /* ran now */
} sweep_status;

typedef struct sweep_run_opts {
    const char *dir;
    int jobs;               /* local processes at once (>= 1) */
    double timeout_s;       /* per point; <= 0: none */
    bool force;             /* rerun finished points */
    bool retry_failed;      /* rerun points recorded as failed */
    bool progress;          /* draw the progress line on stderr */
    const char *self;       /* the mgsim binary to run for each point */
} sweep_run_opts;

/* The pool options every sweeping command takes: -j/--jobs N, --timeout
** S, --force, --retry-failed, --quiet/-q. 1 consumed, 0 not ours, -1
** usage error printed (cmd names the command in it). */
int sweep_take_run_opt(sweep_run_opts *o, bool *quiet, const char *cmd,
                       int argc, char **argv, int *i);
/* Fills self (the running mgsim binary, into buf), jobs (0: the number
** of cores) and progress (on a terminal unless quiet). */
int sweep_run_opts_finish(sweep_run_opts *o, char *buf, size_t size,
                          bool quiet);

typedef struct sweep_outcome {
    size_t reused, ran, failed, missing;
} sweep_outcome;

/* Which points must run (todo[npoints]): not finished in opts->dir (or
** forced, or failed with retry_failed), and the first of equal points.
** Returns how many. */
size_t sweep_pending(const sweep_spec *s, const sweep_run_opts *opts,
                     bool *todo);
/* Creates DIR/points and writes DIR/sweep.ini. */
int sweep_prepare_dir(const sweep_spec *s, const char *dir);
/* Writes DIR/sweep.ini, runs every unfinished point in a pool of
** opts->jobs children, then merges into DIR/sweep.db. MGS_OK even when
** points failed (see out->failed); an MGS_E* code when the sweep itself
** could not proceed (directory, database). */
int sweep_run(const sweep_spec *s, const sweep_run_opts *opts,
              sweep_outcome *out);
/* Runs point `index` alone (a Slurm array task), recording it like the
** pool does. MGS_OK when it was recorded (whatever its exit code). */
int sweep_run_point(const sweep_spec *s, const sweep_run_opts *opts,
                    size_t index);
/* Merges the finished points of DIR into DIR/sweep.db (rebuilt) and
** counts reused (= finished), failed and missing points. */
int sweep_merge(const sweep_spec *s, const char *dir, sweep_outcome *out);
/* Point i's recorded exit code and message (into msg), -1 if it has not
** run. */
int sweep_point_message(const sweep_spec *s, const char *dir, size_t i,
                        char *msg, size_t size);
/* Prints the failed and missing points (label, exit code, message). */
void sweep_print_failures(const sweep_spec *s, const char *dir, FILE *f);
/* Reads DIR/sweep.ini. */
int sweep_load_dir(const char *dir, sweep_spec *out);

/* ---- Slurm (sweep_slurm.c) ---------------------------------------- */

typedef struct sweep_slurm_opts {
    const char *partition, *account, *time_limit; /* may be NULL */
    const char *extra;      /* extra #SBATCH line text, may be NULL */
    int max_parallel;       /* %N array throttle; 0 = none */
    bool dry_run;           /* print the script, do not submit */
    bool wait;              /* sbatch --wait: return when the array ended */
} sweep_slurm_opts;

/* Writes DIR/sweep.ini and DIR/slurm.sh (one array task per unfinished
** point) and submits it with sbatch (unless dry_run: prints it). */
int sweep_slurm_submit(const sweep_spec *s, const sweep_run_opts *ro,
                       const sweep_slurm_opts *so);

#endif
