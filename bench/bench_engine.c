/*
** Engine benchmarks.
**   BENCH engine events_per_s=N        demo world: agent pairs streaming
**                                      messages over connections (ticking,
**                                      ports, back-pressure)
**   BENCH engine_sched events_per_s=N  raw schedule/pop: 1024 pending
**                                      events, each rescheduling itself 0-63
**                                      cycles later on a 1 ns clock grid
**                                      (clocked hardware: many ties)
**   BENCH engine_sched_distinct ...    the same with every pending event at
**                                      a distinct time (queue worst case)
** Each runs for a fixed amount of simulated work, about 1-2 s at -O2.
** Usage: bench_engine [scale [engine|sched|distinct]]; scale multiplies
** the work (e.g. 0.05 for profiling runs), the name selects one benchmark.
*/
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "mgsim/errors.h"
#include "sim/comp.h"
#include "sim/demo.h"
#include "sim/engine.h"

#define SCHED_PENDING 1024
#define SCHED_EVENTS 5000000ULL

typedef struct sched_comp {
    sim_comp base;
    sim_event ev[SCHED_PENDING];
    uint64_t rng;
    uint64_t left;
} sched_comp;

static void sched_handle(sim_comp *c, sim_event *ev)
{
    sched_comp *s = (sched_comp *)c;
    if (s->left == 0)
        return;
    s->left--;
    s->rng = s->rng * 6364136223846793005ULL + 1442695040888963407ULL;
    eng_schedule(c->eng, ev, eng_now(c->eng) + 1000 * ((s->rng >> 33) % 64));
}

static const sim_comp_ops sched_ops = {.kind = "Sched",
                                       .handle = sched_handle};

static int bench_sched(double scale, bool distinct)
{
    sim_engine *e = eng_new(NULL);
    static sched_comp s;
    memset(&s, 0, sizeof s);
    comp_init(&s.base, e, &sched_ops, "Sched", 0);
    s.rng = 1;
    s.left = (uint64_t)((double)SCHED_EVENTS * scale);
    for (int i = 0; i < SCHED_PENDING; i++) {
        eng_event_init(&s.ev[i], &s.base, 0, NULL);
        /* Distinct: phases 7 ps apart never meet on the 1000 ps steps. */
        eng_schedule(e, &s.ev[i], distinct ? (uint64_t)i * 7
                                           : (uint64_t)(i % 64) * 1000);
    }
    double t0 = bench_clock_s(CLOCK_MONOTONIC);
    int rc = eng_run(e);
    double dt = bench_clock_s(CLOCK_MONOTONIC) - t0;
    printf("BENCH engine_sched%s events_per_s=%.0f events=%llu wall_s=%.3f\n",
           distinct ? "_distinct" : "", (double)eng_events(e) / dt,
           (unsigned long long)eng_events(e), dt);
    comp_fini(&s.base);
    eng_free(e);
    return rc;
}

static int bench_pingpong(double scale)
{
    sim_demo_params p;
    sim_demo_params_default(&p);
    p.messages = (uint64_t)((double)p.messages * scale) + 1;
    sim_demo_result r;
    double t0 = bench_clock_s(CLOCK_MONOTONIC);
    int rc = sim_demo_run(&p, NULL, NULL, NULL, &r);
    double dt = bench_clock_s(CLOCK_MONOTONIC) - t0;
    if (rc != MGS_OK) {
        fprintf(stderr, "bench_engine: %s\n", mgs_error_msg());
        return rc;
    }
    printf("BENCH engine events_per_s=%.0f events=%llu messages=%llu "
           "sim_time_ps=%llu wall_s=%.3f\n",
           (double)r.events / dt, (unsigned long long)r.events,
           (unsigned long long)r.messages, (unsigned long long)r.sim_time,
           dt);
    return MGS_OK;
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    if (!(scale > 0 && scale <= 100)) {
        fprintf(stderr, "usage: bench_engine [scale in (0, 100]]\n");
        return 2;
    }
    const char *only = argc > 2 ? argv[2] : "";
    int rc = MGS_OK;
    if (!*only || !strcmp(only, "engine"))
        rc = bench_pingpong(scale);
    if (rc == MGS_OK && (!*only || !strcmp(only, "sched")))
        rc = bench_sched(scale, false);
    if (rc == MGS_OK && (!*only || !strcmp(only, "distinct")))
        rc = bench_sched(scale, true);
    return rc == MGS_OK ? 0 : 1;
}
