/*
** Chrome trace-event output (the JSON format Perfetto and chrome://tracing
** open): {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}.
**
** What is recorded (all complete events, "ph": "X", ts/dur in
** microseconds of simulated time):
**   - cat "kernel", on track Runtime/kernels: one event per runtime
**     synchronisation of launched kernels, from the first launch posted to
**     the end of its release; the durations add up to the run's kernel
**     time (run.sim_time). Named after the kernels.
**   - cat "kernel", on each command processor's track: the CP's own span
**     of a launch (its component task "kernel", id = dispatch id).
**   - cat "wg": one event per work-group on its compute unit's track (the
**     CU's task "wg", id = work-group id), args: kernel dispatch id.
**   - cat "copy", on track Runtime/copies: each timed copy.
**   - cat "mem" (only with mem = true): each memory request that got a
**     response, on the requester's track, from the request's last send to
**     the response's arrival, args: address, bytes, responder; limited to
**     an address range and/or components whose name contains a string.
** Tracks: one process per GPU (components named "GPU[i]...."), one for
** the rest ("System") and one for the runtime; one thread per component;
** metadata events name them.
**
** Bounded: after max_events events nothing more is recorded; the file is
** still valid JSON and trace_close reports how many were dropped.
** Observers only: tracing never changes the simulation's statistics.
*/
#ifndef MGS_RUNTIME_TRACE_H
#define MGS_RUNTIME_TRACE_H

#include "sim/engine.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct sim_trace sim_trace;

typedef struct sim_trace_options {
    bool mem;                  /* memory transactions */
    uint64_t addr_lo, addr_hi; /* mem: [lo, hi); hi == 0: every address */
    const char *component;     /* mem: substring of the requester's or
                                  responder's name; NULL: every one */
    uint64_t max_events;       /* cap (0: the default, 1000000) */
} sim_trace_options;

#define SIM_TRACE_DEFAULT_MAX 1000000u

/* Opens path for writing (MGS_EIO with a message on failure). */
int sim_trace_open(const char *path, const sim_trace_options *o,
                   sim_trace **out);
/* Records the engine's kernel, work-group (and memory) tasks, until
** sim_trace_close (which removes the hooks: close before freeing e). */
void sim_trace_attach(sim_trace *t, sim_engine *e);
/* Names a dispatch (kernel launch) before it runs. */
void sim_trace_launch(sim_trace *t, uint64_t dispatch_id, const char *name);
/* A runtime-level span on track Runtime/<track> (cat = track). */
void sim_trace_span(sim_trace *t, const char *track, const char *name,
                    mgs_time start, mgs_time end, const char *args_json);
/* The kernels posted since the last call ran from start to end. */
void sim_trace_launches_done(sim_trace *t, mgs_time start, mgs_time end);
/* Writes the end of the file and closes it; *recorded and *dropped (may be
** NULL) count events. MGS_OK or MGS_EIO. t may be NULL. */
int sim_trace_close(sim_trace *t, uint64_t *recorded, uint64_t *dropped);

#endif
