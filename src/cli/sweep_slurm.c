/*
** `mgsim sweep --slurm` (sweep.h): one job-array task per unfinished
** point. The batch script only runs `mgsim sweep --run-point N --out DIR`,
** which re-reads DIR/sweep.ini and runs point N exactly as the local pool
** would (same files, same failure records), so resuming and merging
** (`mgsim sweep --merge DIR`) are the same code for both. DIR and the
** mgsim binary must be on a filesystem every node sees.
*/
#include "cli/sweep.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Appends to a growing string. */
static void add(char **s, size_t *len, const char *fmt, const char *a)
{
    size_t n = strlen(fmt) + (a ? strlen(a) : 0) + 1;
    *s = mgs_xrealloc(*s, *len + n);
    *len += (size_t)snprintf(*s + *len, n, fmt, a);
}

int sweep_slurm_submit(const sweep_spec *s, const sweep_run_opts *ro,
                       const sweep_slurm_opts *so)
{
    char dir[PATH_MAX];
    int rc = sweep_prepare_dir(s, ro->dir);
    if (rc != MGS_OK)
        return rc;
    if (!realpath(ro->dir, dir))
        return mgs_error_set(MGS_EIO, "%s: %s", ro->dir, strerror(errno));

    /* The array: the points still to run only (resume). */
    bool *todo = MGS_NEW_ARRAY(bool, s->npoints);
    size_t ntasks = sweep_pending(s, ro, todo), llen = 0;
    char *list = NULL;
    for (size_t i = 0, k = 0; i < s->npoints; i++)
        if (todo[i]) {
            char num[32];
            snprintf(num, sizeof num, "%zu", i);
            add(&list, &llen, k++ ? ",%s" : "%s", num);
        }
    free(todo);
    if (!ntasks) {
        printf("mgsim sweep: every point of %s is finished; nothing to submit\n",
               dir);
        free(list);
        return MGS_OK;
    }
    char *sh = NULL;
    size_t len = 0;
    char num[64];
    add(&sh, &len, "%s", "#!/bin/sh\n# mgsim sweep: one array task per point "
                         "(docs/studies.md)\n#SBATCH --job-name=mgsim-sweep\n");
    add(&sh, &len, "#SBATCH --array=%s", list);
    if (so->max_parallel > 0) {
        snprintf(num, sizeof num, "%%%d", so->max_parallel);
        add(&sh, &len, "%s", num);
    }
    add(&sh, &len, "%s", "\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n");
    add(&sh, &len, "#SBATCH --output=%s/points/slurm-%%A_%%a.out\n", dir);
    if (so->partition)
        add(&sh, &len, "#SBATCH --partition=%s\n", so->partition);
    if (so->account)
        add(&sh, &len, "#SBATCH --account=%s\n", so->account);
    if (so->time_limit)
        add(&sh, &len, "#SBATCH --time=%s\n", so->time_limit);
    if (ro->timeout_s > 0) {
        snprintf(num, sizeof num, " --timeout %g", ro->timeout_s);
    } else {
        num[0] = '\0';
    }
    add(&sh, &len, "exec '%s' sweep --run-point \"$SLURM_ARRAY_TASK_ID\"", ro->self);
    add(&sh, &len, " --out '%s'", dir);
    add(&sh, &len, "%s", num);
    add(&sh, &len, "%s", ro->force ? " --force" : "");
    add(&sh, &len, "%s\n", ro->retry_failed ? " --retry-failed" : "");
    free(list);

    char script[PATH_MAX + 16];
    snprintf(script, sizeof script, "%s/slurm.sh", dir);
    FILE *f = fopen(script, "w");
    if (!f || fputs(sh, f) < 0 || fclose(f) != 0) {
        free(sh);
        return mgs_error_set(MGS_EIO, "%s: cannot write", script);
    }
    if (so->dry_run) {
        fputs(sh, stdout);
        free(sh);
        return MGS_OK;
    }
    free(sh);
    printf("mgsim sweep: submitting %zu array task%s: sbatch%s %s\n", ntasks,
           ntasks == 1 ? "" : "s", so->wait ? " --wait" : "", script);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (so->wait)
            execlp("sbatch", "sbatch", "--wait", script, (char *)NULL);
        else
            execlp("sbatch", "sbatch", script, (char *)NULL);
        fprintf(stderr, "mgsim: error: cannot run sbatch: %s (is Slurm "
                "installed? docs/studies.md)\n", strerror(errno));
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return mgs_error_set(MGS_EINTERNAL, "sweep: cannot run sbatch: %s",
                             strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        /* sbatch --wait exits with the highest task exit code; a task's
        ** exit code is the sweep's (0 when the point was recorded), so a
        ** non-zero one means a task could not record its point. */
        return mgs_error_set(MGS_EIO, "sbatch %s failed (exit %d); see %s/"
                             "points/slurm-*.out", script,
                             WIFEXITED(status) ? WEXITSTATUS(status) : -1, dir);
    }
    if (!so->wait)
        printf("when the array has finished: mgsim sweep --merge %s\n", dir);
    return MGS_OK;
}
