/*
** Running a sweep (sweep.h): a local pool of `mgsim run` children, one per
** unfinished point, each writing DIR/points/HASH.part.db and its output to
** DIR/points/HASH.log. When a child ends, the point is finished: its exit
** code and error message are noted in its database (recording the run
** ourselves if the child could not: timeout, crash, usage error) and the
** file is renamed to HASH.db. Then every finished point is merged into
** DIR/sweep.db (results/merge.h).
**
** The pool polls every 50 ms: it reaps children (waitpid WNOHANG), kills
** those past --timeout (SIGKILL; recorded as exit code 124, as timeout(1)
** does) and redraws the progress line. Children die with the sweep
** (PR_SET_PDEATHSIG), so a killed sweep leaves only .part files, which the
** next run overwrites.
*/
#include "cli/sweep.h"

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "mgsim/errors.h"
#include "results/db.h"
#include "results/merge.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SWEEP_EXIT_TIMEOUT 124
#define POLL_NS 50000000L

typedef struct point_files {
    char db[4096], part[4096], log[4096];
} point_files;

static void files_of(const char *dir, const sweep_point *p, point_files *f)
{
    snprintf(f->db, sizeof f->db, "%s/points/%s.db", dir, p->hash);
    snprintf(f->part, sizeof f->part, "%s/points/%s.part.db", dir, p->hash);
    snprintf(f->log, sizeof f->log, "%s/points/%s.log", dir, p->hash);
}

static int write_file(const char *path, const char *text)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path)) {
        int e = errno;
        return mgs_error_set(MGS_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    return MGS_OK;
}

int sweep_prepare_dir(const sweep_spec *s, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/points/x.db", dir);
    mgs_db *probe = NULL;
    /* mgs_db_open creates the parent directories; drop the probe file. */
    int rc = mgs_db_open(path, &probe);
    mgs_db_close(probe);
    unlink(path);
    if (rc != MGS_OK)
        return rc;
    snprintf(path, sizeof path, "%s/sweep.ini", dir);
    return write_file(path, s->text);
}

/* The last "mgsim: error: " line of the log, or "". */
static void log_error(const char *log, char *msg, size_t size)
{
    *msg = '\0';
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char line[2048];
    static const char prefix[] = "mgsim: error: ";
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, prefix, sizeof prefix - 1)) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(msg, size, "%.*s", (int)size - 1, line + sizeof prefix - 1);
        }
    fclose(f);
}

static pid_t spawn(const sweep_run_opts *o, const sweep_point *p,
                   const point_files *f)
{
    unlink(f->part);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    int fd = open(f->log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int null = open("/dev/null", O_RDONLY);
    if (fd < 0 || null < 0)
        _exit(127);
    dup2(null, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    char **argv = mgs_xcalloc((size_t)p->argc + 8, sizeof *argv);
    int n = 0;
    argv[n++] = (char *)o->self;
    for (int i = 0; i < p->argc; i++)
        argv[n++] = p->argv[i];
    argv[n++] = "--db";
    argv[n++] = (char *)f->part;
    argv[n] = NULL;
    execv(o->self, argv);
    fprintf(stderr, "mgsim: error: cannot run %s: %s\n", o->self,
            strerror(errno));
    _exit(127);
}

/* The child ended (status from waitpid, or timed out): note, record if
** needed, rename into place. */
static int finish(const sweep_point *p, const point_files *f, int status,
                  bool timed_out, double wall, double timeout_s, bool *failed)
{
    int code;
    char msg[1024] = "";
    if (timed_out) {
        code = SWEEP_EXIT_TIMEOUT;
        snprintf(msg, sizeof msg, "timed out after %g s (--timeout)", timeout_s);
    } else if (WIFSIGNALED(status)) {
        code = 128 + WTERMSIG(status);
        snprintf(msg, sizeof msg, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    } else {
        code = WEXITSTATUS(status);
        if (code != 0)
            log_error(f->log, msg, sizeof msg);
        if (code != 0 && !*msg)
            snprintf(msg, sizeof msg, "exit code %d (see %.900s)", code, f->log);
    }
    int recorded_code;
    char old[8];
    if (timed_out || WIFSIGNALED(status) ||
        mgs_point_db_read(f->part, &recorded_code, old, sizeof old) != MGS_OK) {
        /* The child recorded nothing (or was stopped before it finished):
        ** record the failure ourselves, without statistics. */
        unlink(f->part);
        mgs_db *db = NULL;
        int rc = mgs_db_open(f->part, &db);
        if (rc != MGS_OK)
            return rc;
        char started[32], host[256] = "";
        mgs_utc_now(started, sizeof started);
        gethostname(host, sizeof host - 1);
        char *cmd = cli_join_command_line(p->argc, p->argv);
        const char *mode = "";
        for (int i = 2; i + 1 < p->argc; i++)
            if (!strcmp(p->argv[i], "--mode"))
                mode = p->argv[i + 1];
        mgs_run_record rec = {
            .started_utc = started, .command_line = cmd, .config_text = "",
            .git_rev = MGS_GIT_REV, .version = MGS_VERSION,
            .wall_time_s = wall, .host = host, .exit_code = code,
            .mode = mode, .workload = p->workload, .verified = -1};
        int64_t id;
        rc = mgs_db_add_run(db, &rec, NULL, 0, &id);
        mgs_db_close(db);
        free(cmd);
        if (rc != MGS_OK)
            return rc;
    }
    int rc = mgs_point_db_note(f->part, msg);
    if (rc != MGS_OK)
        return rc;
    if (rename(f->part, f->db) != 0)
        return mgs_error_set(MGS_EIO, "%s: cannot rename into place: %s",
                             f->db, strerror(errno));
    *failed = code != 0;
    return MGS_OK;
}

/* Whether point p must run: not finished, or forced. */
static bool must_run(const sweep_run_opts *o, const sweep_point *p)
{
    point_files f;
    files_of(o->dir, p, &f);
    int code;
    char msg[8];
    if (mgs_point_db_read(f.db, &code, msg, sizeof msg) != MGS_OK)
        return true;
    return o->force || (o->retry_failed && code != 0);
}

static const sweep_point *sort_points;

static int by_hash(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c = strcmp(sort_points[i].hash, sort_points[j].hash);
    return c ? c : (i > j) - (i < j);
}

/* first[i] = point i is the first with its hash: two equal points of one
** sweep (e.g. a workload listed twice) share one file, run once. */
static void mark_first_of_each_hash(const sweep_spec *s, bool *first)
{
    size_t *idx = MGS_NEW_ARRAY(size_t, s->npoints);
    for (size_t i = 0; i < s->npoints; i++)
        idx[i] = i;
    sort_points = s->points;
    qsort(idx, s->npoints, sizeof *idx, by_hash);
    for (size_t k = 0; k < s->npoints; k++)
        first[idx[k]] = k == 0 || strcmp(s->points[idx[k]].hash,
                                         s->points[idx[k - 1]].hash);
    free(idx);
}

size_t sweep_pending(const sweep_spec *s, const sweep_run_opts *o, bool *todo)
{
    size_t n = 0;
    mark_first_of_each_hash(s, todo);
    for (size_t i = 0; i < s->npoints; i++) {
        todo[i] = todo[i] && must_run(o, &s->points[i]);
        n += todo[i];
    }
    return n;
}

typedef struct job {
    size_t point;
    pid_t pid;
    double start;
    bool timed_out;
} job;

static void draw(cli_progress *prog, size_t done, size_t total, size_t running,
                 size_t failed, size_t reused, size_t ran, size_t to_run,
                 double t0)
{
    double el = cli_wall_seconds() - t0;
    char eta[48] = "";
    if (ran > 0 && ran < to_run)
        snprintf(eta, sizeof eta, " | ETA %.0f s",
                 el / (double)ran * (double)(to_run - ran));
    char line[256];
    snprintf(line, sizeof line, "sweep %zu/%zu points | %zu running | %zu "
             "failed | %zu reused | %.0f s%s", done, total, running, failed,
             reused, el, eta);
    cli_progress_text(prog, line);
}

int sweep_take_run_opt(sweep_run_opts *o, bool *quiet, const char *cmd,
                       int argc, char **argv, int *i)
{
    const char *v;
    int r = 0;
    /* -j N, -jN (as make), --jobs N, --jobs=N */
    bool attached = !strncmp(argv[*i], "-j", 2) && argv[*i][2] &&
                    argv[*i][2] != '=';
    if (attached) {
        v = argv[*i] + 2;
        r = 1;
    }
    if (attached || (r = cli_opt_value(argc, argv, i, "--jobs", &v)) != 0 ||
        (r = cli_opt_value(argc, argv, i, "-j", &v)) != 0) {
        if (r < 0)
            return r;
        char *end;
        long n = strtol(v, &end, 10);
        if (end == v || *end || n < 1 || n > INT_MAX) {
            cli_usage_error("%s: --jobs '%s': expected a whole number >= 1",
                            cmd, v);
            return -1;
        }
        o->jobs = (int)n;
        return 1;
    }
    if ((r = cli_opt_value(argc, argv, i, "--timeout", &v)) != 0) {
        if (r < 0)
            return r;
        char *end;
        o->timeout_s = strtod(v, &end);
        if (end == v || *end || !(o->timeout_s > 0)) {
            cli_usage_error("%s: --timeout '%s': expected a positive number "
                            "of seconds", cmd, v);
            return -1;
        }
        return 1;
    }
    if (!strcmp(argv[*i], "--force"))
        o->force = true;
    else if (!strcmp(argv[*i], "--retry-failed"))
        o->retry_failed = true;
    else if (!strcmp(argv[*i], "--quiet") || !strcmp(argv[*i], "-q"))
        *quiet = true;
    else
        return 0;
    return 1;
}

int sweep_run_opts_finish(sweep_run_opts *o, char *buf, size_t size,
                          bool quiet)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0)
        return mgs_error_set(MGS_EINTERNAL, "cannot find the mgsim binary "
                             "(/proc/self/exe: %s)", strerror(errno));
    buf[n] = '\0';
    o->self = buf;
    if (o->jobs <= 0) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        o->jobs = ncpu > 0 ? (int)ncpu : 1;
    }
    o->progress = !quiet && isatty(STDERR_FILENO);
    return MGS_OK;
}

int sweep_run(const sweep_spec *s, const sweep_run_opts *o,
              sweep_outcome *out)
{
    memset(out, 0, sizeof *out);
    int rc = sweep_prepare_dir(s, o->dir);
    if (rc != MGS_OK)
        return rc;
    bool *todo = MGS_NEW_ARRAY(bool, s->npoints);
    size_t to_run = sweep_pending(s, o, todo);
    out->reused = s->npoints - to_run;
    int jobs = o->jobs > 0 ? o->jobs : 1;
    job *run = MGS_NEW_ARRAY(job, (size_t)jobs);
    size_t nrun = 0, next = 0, ran = 0, failed = 0;
    cli_progress prog;
    cli_progress_init(&prog, o->progress, stderr, "points");
    double t0 = cli_wall_seconds();
    while (rc == MGS_OK && (next < s->npoints || nrun > 0)) {
        while (nrun < (size_t)jobs && next < s->npoints) {
            size_t i = next++;
            if (!todo[i])
                continue;
            point_files f;
            files_of(o->dir, &s->points[i], &f);
            pid_t pid = spawn(o, &s->points[i], &f);
            if (pid < 0) {
                rc = mgs_error_set(MGS_EINTERNAL, "sweep: fork: %s",
                                   strerror(errno));
                break;
            }
            run[nrun++] = (job){i, pid, cli_wall_seconds(), false};
        }
        bool reaped = false;
        for (size_t k = 0; k < nrun;) {
            int status = 0;
            pid_t r = waitpid(run[k].pid, &status, WNOHANG);
            if (r == 0) {
                if (o->timeout_s > 0 && !run[k].timed_out &&
                    cli_wall_seconds() - run[k].start > o->timeout_s) {
                    kill(run[k].pid, SIGKILL);
                    run[k].timed_out = true;
                }
                k++;
                continue;
            }
            point_files f;
            const sweep_point *p = &s->points[run[k].point];
            files_of(o->dir, p, &f);
            bool bad = false;
            int frc = finish(p, &f, status, run[k].timed_out,
                             cli_wall_seconds() - run[k].start, o->timeout_s,
                             &bad);
            if (frc != MGS_OK && rc == MGS_OK)
                rc = frc;
            failed += bad;
            ran++;
            run[k] = run[--nrun];
            reaped = true;
        }
        draw(&prog, out->reused + ran, s->npoints, nrun, failed, out->reused,
             ran, to_run, t0);
        if (!reaped && nrun > 0)
            nanosleep(&(struct timespec){0, POLL_NS}, NULL);
    }
    if (rc != MGS_OK) {         /* stop the others: the sweep cannot go on */
        for (size_t k = 0; k < nrun; k++) {
            kill(run[k].pid, SIGKILL);
            waitpid(run[k].pid, NULL, 0);
        }
    }
    cli_progress_finish(&prog);
    free(run);
    free(todo);
    out->ran = ran;
    if (rc != MGS_OK)
        return rc;
    size_t reused = out->reused;
    rc = sweep_merge(s, o->dir, out);
    out->reused = reused;
    out->ran = ran;
    return rc;
}

int sweep_run_point(const sweep_spec *s, const sweep_run_opts *o,
                    size_t index)
{
    if (index >= s->npoints)
        return mgs_error_set(MGS_EINVAL, "sweep: point %zu of %zu", index,
                             s->npoints);
    const sweep_point *p = &s->points[index];
    if (!must_run(o, p))
        return MGS_OK;
    point_files f;
    files_of(o->dir, p, &f);
    double t0 = cli_wall_seconds();
    pid_t pid = spawn(o, p, &f);
    if (pid < 0)
        return mgs_error_set(MGS_EINTERNAL, "sweep: fork: %s", strerror(errno));
    int status = 0;
    bool timed_out = false;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            break;
        if (o->timeout_s > 0 && !timed_out &&
            cli_wall_seconds() - t0 > o->timeout_s) {
            kill(pid, SIGKILL);
            timed_out = true;
        }
        nanosleep(&(struct timespec){0, POLL_NS}, NULL);
    }
    bool bad;
    return finish(p, &f, status, timed_out, cli_wall_seconds() - t0,
                  o->timeout_s, &bad);
}

int sweep_merge(const sweep_spec *s, const char *dir, sweep_outcome *out)
{
    memset(out, 0, sizeof *out);
    char path[4096];
    snprintf(path, sizeof path, "%s/sweep.db", dir);
    mgs_merge *m = NULL;
    int rc = mgs_merge_open(path, &m);
    for (size_t i = 0; rc == MGS_OK && i < s->npoints; i++) {
        const sweep_point *p = &s->points[i];
        point_files f;
        files_of(dir, p, &f);
        int code;
        char msg[8];
        if (mgs_point_db_read(f.db, &code, msg, sizeof msg) != MGS_OK) {
            out->missing++;
            continue;
        }
        out->reused++;
        out->failed += code != 0;
        rc = mgs_merge_add(m, f.db, i, p->hash, p->label, p->workload);
        for (size_t a = 0; rc == MGS_OK && a < s->naxes; a++)
            rc = mgs_merge_axis(m, i, s->axes[a].name,
                                s->axes[a].choices[p->choice[a]].label);
    }
    int crc = mgs_merge_close(m, rc == MGS_OK);
    return rc != MGS_OK ? rc : crc;
}

int sweep_point_message(const sweep_spec *s, const char *dir, size_t i,
                        char *msg, size_t size)
{
    point_files f;
    files_of(dir, &s->points[i], &f);
    int code;
    if (mgs_point_db_read(f.db, &code, msg, size) != MGS_OK) {
        *msg = '\0';
        return -1;
    }
    return code;
}

void sweep_print_failures(const sweep_spec *s, const char *dir, FILE *out)
{
    for (size_t i = 0; i < s->npoints; i++) {
        const sweep_point *p = &s->points[i];
        char msg[1024];
        const char *name = *p->label ? p->label : p->workload;
        int code = sweep_point_message(s, dir, i, msg, sizeof msg);
        if (code < 0)
            fprintf(out, "  point %zu (%s): not run\n", i, name);
        else if (code != 0)
            fprintf(out, "  point %zu (%s): exit %d: %s\n", i, name, code,
                    *msg ? msg : "(no message)");
    }
}

int sweep_load_dir(const char *dir, sweep_spec *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/sweep.ini", dir);
    char *text = cli_read_file(path);
    if (!text)
        return mgs_error_set(MGS_ENOENT, "%s: %s (is %s a sweep directory?)",
                             path, strerror(errno), dir);
    int rc = sweep_spec_parse(text, path, NULL, out);
    free(text);
    return rc;
}
