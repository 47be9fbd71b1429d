/*
** Shared between `mgsim run` (cmd_run.c: options, configuration, database,
** summary) and the workload path (run_workload.c: registry lookup,
** parameters, runtime). Kept apart so the workload path, which depends on
** the runtime library, can change without touching the command itself.
*/
#ifndef MGS_CLI_RUN_H
#define MGS_CLI_RUN_H

#include "cli/progress.h"
#include "config/config.h"
#include "mgsim/runtime.h"
#include "sim/stats.h"

#include <stdint.h>

/* What a run produced, for the summary, --json and the database. */
typedef struct cli_run_result {
    int verified;          /* 1 yes, 0 no, -1 not applicable (demo) */
    uint64_t sim_time_ps;  /* simulated time of the kernels (demo: all) */
    uint64_t copy_time_ps; /* simulated time of the copies (timing mode
                              with DMA copies; total = sim + copy) */
    uint64_t copies;       /* host/device copies and their bytes */
    uint64_t copy_bytes;
    uint64_t events;       /* engine events (0 if unknown) */
    uint64_t wf_insts;     /* wavefront instructions (workloads) */
    uint64_t kernels;
    uint64_t workgroups;
    uint64_t messages;     /* demo: messages delivered */
} cli_run_result;

typedef struct cli_workload_opts {
    const char *name;
    const char *size;        /* "small" | "default" */
    const char **params;     /* "k=v", in order */
    size_t nparams;
    bool verbose;
    const char *trace;       /* --trace FILE (timing mode), or NULL */
    mgs_rt_trace_options trace_opt;
} cli_workload_opts;

/* --trace, --trace-mem, --trace-range LO:HI, --trace-component S,
** --trace-limit N at argv[*i]: 1 consumed, 0 not ours, -1 usage error
** printed (run_workload.c). */
int cli_trace_take(cli_workload_opts *o, int argc, char **argv, int *i);

/* Checks that the workload exists and resolves its parameters, then (cfg
** not NULL) that the run fits (mgs_rt_check: device memory, the timing
** platform's configuration, the host-memory budget); returns MGS_OK or an
** error with a message. Cheap: call before any simulation so that a typo
** or an impossible size fails at once. footprint (may be NULL): the
** workload's device-memory bytes for these parameters on one GPU (0 if
** unknown). */
int cli_workload_check(const cli_workload_opts *o, const mgs_config *cfg,
                       uint64_t *footprint);
/* Runs it on a runtime built from cfg, recording statistics in stats. */
int cli_workload_run(const cli_workload_opts *o, const mgs_config *cfg,
                     stat_registry *stats, cli_progress *progress,
                     cli_run_result *out);

#endif
