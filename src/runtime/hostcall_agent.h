/*
** Timing mode's hostcall listener (device printf): the host runtime's
** listener thread as a component that reaches the hostcall buffer
** (hostcall.h) with memory requests, as the host does over PCIe.
**
** Port:
**   mem   requests to device memory (physical addresses, the host's page
**         table), plugged on the buffer's GPU crossbar next to its DMA
**         engine: local lines go to that GPU's L2 banks, where the waves'
**         device-scope atomics and glc loads meet them
**
** Model. While armed (a launch whose kernel has a hostcall buffer was
** posted) the listener wakes every interval (ROCm's listener waits on the
** doorbell signal with a timeout; assumed: a fixed 1 us poll) and:
**   1. swaps the ready stack's top with 0 (one 64-bit atomic);
**   2. walks the taken packets' headers (the next pointers);
**   3. for each packet, oldest call first: reads the active lanes' payload
**      rows, serves them (mgs_hostcall_serve), writes the answers (the
**      first two words of each active row), then clears READY in the
**      header (a write after the answers' acknowledgements), so a wave
**      that sees READY clear reads its answer.
** Each step waits for the previous one's answers; every request first
** waits latency (the host link's round trip, assumed 1 us) before it is
** sent, so a served call costs some microseconds, as on real systems.
** It disarms itself when its timer finds nothing else pending in the
** engine (no wave can be waiting then: a waiting wave keeps its CU
** ticking); the last poll may end the run up to one interval after the
** kernel's last event.
**
** Statistics (Host.Hostcall): polls, packets, calls (lanes served),
** bytes_read, bytes_written.
*/
#ifndef MGS_RUNTIME_HOSTCALL_AGENT_H
#define MGS_RUNTIME_HOSTCALL_AGENT_H

#include "mem/memmsg.h"
#include "runtime/devmem.h"
#include "runtime/hostcall.h"
#include "sim/comp.h"
#include "sim/stats.h"

typedef struct hostcall_agent hostcall_agent;

/* hc, mem, pool and stats are borrowed. The caller plugs
** hostcall_agent_port into the GPU's crossbar and sets the route. */
hostcall_agent *hostcall_agent_new(sim_engine *eng, mgs_hostcall *hc,
                                   mgs_devmem *mem, mem_pool *pool,
                                   stat_registry *stats, mgs_time period);
void hostcall_agent_free(hostcall_agent *a);
sim_port *hostcall_agent_port(hostcall_agent *a);
void hostcall_agent_set_route(hostcall_agent *a, const mem_route *route);
/* A launch that may call the host was posted: poll until quiet. */
void hostcall_agent_arm(hostcall_agent *a);

#endif
