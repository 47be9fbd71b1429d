/*
** Demo world for `mgsim run` without a workload: pairs of agents that
** stream messages to each other over connections, exercising ticking,
** ports, connection latency/bandwidth and back-pressure.
**
** Agent 2k and 2k+1 form a pair joined by connection Demo.Conn[k]. Each
** agent sends `messages` messages of msg_bytes to its partner (at most one
** per cycle, as the link and back-pressure allow) and retrieves at most one
** message per cycle, checking that they arrive in order. The run ends when
** every agent has sent and received all its messages.
*/
#ifndef MGS_SIM_DEMO_H
#define MGS_SIM_DEMO_H

#include <stdint.h>

#include "sim/stats.h"

typedef struct sim_demo_params {
    uint32_t agents;            /* ping-pong pairs x2, >= 2 */
    uint64_t messages;          /* messages each agent sends in total */
    uint32_t latency_cycles;    /* connection latency */
    uint32_t bytes_per_cycle;   /* connection bandwidth */
    uint32_t msg_bytes;         /* message size */
    uint32_t buffer_capacity;   /* port buffer capacity, messages */
    uint64_t freq_hz;           /* clock of agents and connections */
} sim_demo_params;

void sim_demo_params_default(sim_demo_params *p);  /* sensible defaults that run ~1 s */

typedef struct sim_progress { mgs_time now; uint64_t events; double done_fraction; } sim_progress;
typedef void (*sim_progress_fn)(const sim_progress *p, void *ud);

typedef struct sim_demo_result { uint64_t events; mgs_time sim_time; uint64_t messages; } sim_demo_result;

/* Registers per-agent and per-connection stats in stats (may be NULL).
** Validates p (MGS_EINVAL with a message naming the field). progress (may
** be NULL) is called about every 0.5 s of wall time and once at the end
** with done_fraction 1. Returns MGS_OK, or MGS_EDEADLOCK / MGS_EINTERNAL
** if the engine stops early or a message arrives out of order; out (may be
** NULL) is filled in every case. */
int sim_demo_run(const sim_demo_params *p, stat_registry *stats,
                 sim_progress_fn progress, void *progress_ud, sim_demo_result *out);

/* Validation alone (MGS_OK or MGS_EINVAL with a message). */
int sim_demo_params_validate(const sim_demo_params *p);

#endif
