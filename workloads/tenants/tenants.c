/*
** tenants: the two-tenant harness of seed 002 §4.3.5 (Fig. 4.10/4.11;
** docs/pcie-scheduling.md). Two tasks, each a Table 4.3 workload on its own
** GPU, each a loop of copy-in / kernel(s) / copy-out relaunched until a
** fixed simulated time has passed; the figure of merit is the iterations
** completed in that time, normalised to the same task alone.
**
** How: each workload's host program runs once as usual (verified against
** its CPU reference) while the runtime records its copies and launches
** (mgs_rt_record_begin); mgs_rt_tenants then replays the two recordings,
** each alone for the window and then together, every iteration's output
** compared byte for byte with the verified run's (all iterations are
** checked). Memsets are not recorded (the Table 4.3 workloads' outputs
** are written by their kernels).
**
** Tasks: a and b are Table 4.3 APP IDs, 1 SC (conv), 2 MM (mm), 3 MT (mt),
** 4 AES (aes), 5 FIR (fir), 6 KS (km), 7 MP (mp), 8 RL (rl), with
** parameters chosen so that each workload's device data (its input and
** output buffers, what one iteration copies) is Table 4.3's "size per
** iteration" divided by `scale`. Task 0 is the one with less data (Fig.
** 4.11's task 1), task 1 the larger, which is the QoS task (seed §4.3.5).
** GPUs: task 0 on GPU 0, task 1 on GPU 1, both under PCIe switch 0 of the
** Fig. 4.7 tree (assumed: the text does not say which GPUs its two tasks
** used; in our tree the root's host link has the bandwidth of both
** switches, so only two GPUs under one switch contend, on that switch's
** link to the root, as Fig. 4.6's "same PCIe bandwidth" bottleneck).
** Needs --mode timing, a discrete platform of >= 2 GPUs (4 for Fig. 4.7)
** and platform.copy_timing = dma.
** Metrics: Tenants.Task[i] milli_iterations and solo_milli_iterations
** (study metric milli_iterations / solo_milli_iterations).
*/
#include "workloads/wl_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mgsim/errors.h"

enum { P_A, P_B, P_WINDOW, P_SCALE };

typedef struct tenant_app {
    const char *abbr, *workload;
    double kb;                      /* Table 4.3, size per iteration */
} tenant_app;

static const tenant_app apps[8] = {
    {"SC", "conv", 328.4}, {"MM", "mm", 128.0},  {"MT", "mt", 1024.0},
    {"AES", "aes", 65.2},  {"FIR", "fir", 256.1}, {"KS", "km", 131.1},
    {"MP", "mp", 64.0},    {"RL", "rl", 32.0}};

static int param_index(const mgs_workload *w, const char *name)
{
    for (int i = 0; i < WL_MAX_PARAMS && w->params[i].name; i++)
        if (!strcmp(w->params[i].name, name))
            return i;
    return -1;
}

static void set_param(const mgs_workload *w, wl_args *a, const char *name,
                      int64_t v)
{
    int i = param_index(w, name);
    if (i >= 0)
        a->param[i] = v < 1 ? 1 : v;
}

/* Parameters of app `id` (0-based) for `bytes` of device data. */
static void app_args(int id, double bytes, const mgs_workload *w, wl_args *a)
{
    for (int i = 0; i < WL_MAX_PARAMS && w->params[i].name; i++)
        a->param[i] = w->params[i].small;
    switch (id) {
    case 0: set_param(w, a, "n", (int64_t)sqrt(bytes / 8)); /* in + out */
        set_param(w, a, "radius", 1);
        break;
    case 1: {                                 /* A, B, C: 3 n^2 floats */
        int64_t n = (int64_t)(sqrt(bytes / 12) / 16 + 0.5) * 16;
        set_param(w, a, "n", n < 16 ? 16 : n);
        break;
    }
    case 2: {                                 /* in + out: 8 rows cols */
        int64_t r = (int64_t)sqrt(bytes / 16);
        set_param(w, a, "rows", r);
        set_param(w, a, "cols", 2 * r);
        break;
    }
    case 3: set_param(w, a, "blocks", (int64_t)((bytes - 496) / 32)); break;
    case 4: set_param(w, a, "n", (int64_t)((bytes - 64) / 8));
        set_param(w, a, "taps", 16);
        break;
    case 5: set_param(w, a, "features", 8);  /* (17 np + 32) x 4 bytes */
        set_param(w, a, "clusters", 4);
        set_param(w, a, "iters", 1);
        set_param(w, a, "points", (int64_t)((bytes - 128) / 68));
        break;
    case 6: {                                 /* in + out: 5 hw^2 bytes */
        int64_t hw = (int64_t)sqrt(bytes / 5) / 2 * 2;
        set_param(w, a, "planes", 1);
        set_param(w, a, "hw", hw < 2 ? 2 : hw);
        break;
    }
    default: set_param(w, a, "n", (int64_t)(bytes / 8)); break;
    }
}

static int tenants_run(mgs_rt *rt, const wl_args *args)
{
    int64_t a = args->param[P_A], b = args->param[P_B];
    int64_t scale = args->param[P_SCALE];
    if (a < 1 || a > 8 || b < 1 || b > 8 || scale < 1 || scale > 1024 ||
        args->param[P_WINDOW] < 1)
        return mgs_error_set(MGS_EINVAL, "tenants: a and b must be Table "
                             "4.3 APP IDs 1..8, scale in [1, 1024] and "
                             "window >= 1 us (got %lld, %lld, %lld, %lld)",
                             (long long)a, (long long)b, (long long)scale,
                             (long long)args->param[P_WINDOW]);
    if (mgs_rt_num_gpus(rt) < 2)
        return mgs_error_set(MGS_ECONFIG, "tenants: needs 2 or more GPUs "
                             "(--gpus 4 for the Fig. 4.7 tree)");
    /* Task 0 has less data (ties: the lower APP ID). */
    int id[2] = {(int)a - 1, (int)b - 1};
    if (apps[id[1]].kb < apps[id[0]].kb ||
        (apps[id[1]].kb == apps[id[0]].kb && id[1] < id[0])) {
        int t = id[0];
        id[0] = id[1];
        id[1] = t;
    }
    mgs_program *prog[2] = {NULL, NULL};
    int rc = MGS_OK;
    for (int k = 0; k < 2 && !rc; k++) {
        const mgs_workload *w = wl_find(apps[id[k]].workload);
        if (!w)
            return mgs_error_set(MGS_EINTERNAL, "tenants: no workload %s",
                                 apps[id[k]].workload);
        wl_args wa = {.seed = args->seed + (uint64_t)k, .num_gpus = 1,
                      .verbose = args->verbose};
        app_args(id[k], apps[id[k]].kb * 1024.0 / (double)scale, w, &wa);
        rc = mgs_rt_record_begin(rt, k);
        if (!rc) {
            rc = w->run(rt, &wa);
            mgs_program *p = NULL;
            int rc2 = mgs_rt_record_end(rt, &p);
            prog[k] = p;
            if (!rc)
                rc = rc2;
        }
        if (!rc && args->verbose)
            fprintf(stderr, "tenants: task %d = %s (%s) on GPU %d, %llu "
                    "bytes copied per iteration\n", k, apps[id[k]].abbr,
                    w->name, k,
                    (unsigned long long)mgs_program_copy_bytes(prog[k]));
    }
    mgs_tenant_result res[2];
    if (!rc)
        rc = mgs_rt_tenants(rt, prog, 2, 1,
                            (uint64_t)args->param[P_WINDOW] * 1000000ull,
                            res);
    if (!rc && args->verbose)
        for (int k = 0; k < 2; k++)
            fprintf(stderr, "tenants: task %d (%s): %.3f iterations alone, "
                    "%.3f together (%.3f); %llu of %llu QoS copies missed "
                    "their deadline\n", k, apps[id[k]].abbr,
                    res[k].solo_milli_iterations / 1000.0,
                    res[k].milli_iterations / 1000.0,
                    res[k].solo_milli_iterations
                        ? (double)res[k].milli_iterations /
                              (double)res[k].solo_milli_iterations
                        : 0.0,
                    (unsigned long long)res[k].deadline_misses,
                    (unsigned long long)res[k].qos_copies);
    mgs_program_free(prog[0]);
    mgs_program_free(prog[1]);
    return rc;
}

static uint64_t tenants_footprint(const wl_args *args)
{
    double kb = 0;
    for (int k = 0; k < 2; k++) {
        int64_t id = args->param[k];
        if (id >= 1 && id <= 8)
            kb += apps[id - 1].kb;
    }
    int64_t s = args->param[P_SCALE] < 1 ? 1 : args->param[P_SCALE];
    /* kernel arguments, code and dispatch buffers: 1 MB of slack */
    return (uint64_t)(kb * 1024.0 / (double)s) + (1u << 20);
}

const mgs_workload wl_tenants = {
    .name = "tenants",
    .suite = "PCIe",
    .pattern = "multi-tenant",
    .description = "two Table 4.3 tasks on GPUs 0 and 1 sharing a PCIe "
                   "switch, relaunched for a fixed time (seed 002 §4.3.5)",
    .kernel_file = NULL,
    .params = {
        {"a", 8, 1, "first task, Table 4.3 APP ID 1..8 (SC MM MT AES FIR "
                    "KS MP RL)"},
        {"b", 7, 2, "second task, Table 4.3 APP ID 1..8"},
        {"window", 40, 300, "simulated time each task is relaunched for, "
                            "us (seed: 0.3 s; assumed smaller)"},
        {"scale", 8, 1, "Table 4.3 sizes divided by this"},
    },
    .run = tenants_run,
    .footprint = tenants_footprint,
};
