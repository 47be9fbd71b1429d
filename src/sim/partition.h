/*
** Partitions: one simulation split into several engines (one per GPU, one
** for the network, one for the host) that run in parallel, conservatively
** synchronised, with results independent of the number of threads.
**
** Model. The root engine (eng_new) is partition 0; eng_partition_new adds
** partitions 1, 2, ... Each partition has its own event queue, its own
** `now`, its own events. A component belongs to the partition it was
** created with (comp_init(c, eng, ...)) and only ever touches that
** partition: its events, its ports, connections whose lanes it owns.
** Partitions interact only through CROSSINGS: a post (eng_post) from a
** handler of partition P to partition Q that runs fn in Q at time t, where
** t >= P's time + the crossing's latency, declared beforehand with
** eng_crossing_add(P, Q, latency). Connections whose ports sit in
** different partitions (conn.c) and network links between nodes of
** different partitions (src/noc) are built on posts.
**
** Synchronisation (docs/engine.md "Parallel engine"). eng_run on the root
** runs windows. At a window boundary (all threads stopped) the engine
**   1. moves every post of the last window into its destination queue:
**      a post due at t fires before the receiver's own events at t, and
**      posts due at the same t in order of (source partition, the
**      source's post order), whatever window made or merged them;
**   2. computes, for every partition p, the earliest time E_p at which it
**      can do anything: its first queued event, or B_rp + latency(r -> p)
**      for a partition r that can post to it (a shortest-path relaxation
**      over the crossing graph), where B_rp is E_r or r's promise
**      (eng_promise_add);
**   3. gives each partition q the horizon H_q = min over crossings
**      (p -> q) of B_pq + latency(p -> q): nothing can reach q before H_q,
**      so q may fire every event with time < H_q without looking at the
**      others.
** Then the threads run the partitions (partition k on thread k mod N) up
** to their horizons, and meet at the next boundary. Every decision depends
** only on the simulation state at boundaries, never on which thread ran
** what or when, so statistics are bit-identical for any thread count
** (sim.threads); with one thread the same windows run one after another.
** Because of step 1's order they do not depend on the windows either.
**
** With two threads or more the partitions run ahead instead (unless
** sim.max_events or a window cap asks for windows): each steps to its own
** horizon, computed from the bounds its sources last published, takes the
** posts handed to it, and publishes its own bounds; a global step (the
** boundary above, every partition claimed) jumps gaps and makes the
** checks. The same merge order makes the results the same.
**
** Limits, the watchdog, stops and errors are checked at boundaries: a
** partition that stops (eng_stop, an error) at time T runs no further,
** the others run through every event at or before T, and the run returns
** the outcome of the earliest failure (by time, then partition index).
*/
#ifndef MGS_SIM_PARTITION_H
#define MGS_SIM_PARTITION_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/engine.h"

#define ENG_MAX_PARTITIONS 32

/* A new partition of root's group, named for messages ("GPU[2]"). */
sim_engine *eng_partition_new(sim_engine *root, const char *name);
uint32_t eng_partition_count(const sim_engine *root);
uint32_t eng_partition_index(const sim_engine *e);
sim_engine *eng_partition_root(sim_engine *e);
sim_engine *eng_partition_get(sim_engine *root, uint32_t i);
const char *eng_partition_name(const sim_engine *e);

/* Declares that handlers of `from` may post to `to` at least latency ps
** ahead of their own time. A zero latency makes the group unrunnable:
** eng_run then fails with MGS_ECONFIG naming `what`. */
void eng_crossing_add(sim_engine *from, sim_engine *to, mgs_time latency,
                      const char *what);
/* The smallest crossing latency (the lookahead), or MGS_TIME_MAX. */
mgs_time eng_lookahead(const sim_engine *root);

/* Promises (docs/engine.md "Parallel engine"). By default a partition p
** may post to q at its earliest time E_p plus the crossing's latency. A
** component that makes every post of p (the network, in the network
** partition) may promise more: fn(ud, p, E, q) returns a time T >= E such
** that, if p fires nothing before E, every post it makes to q from now on
** is made by an event at time >= T (MGS_TIME_MAX: it never posts to q).
** fn reads only p's state and must not decrease when E grows. With
** promises registered, p's bound for q is the smallest of them; a post
** below it fails an assert in debug builds. At most ENG_MAX_PROMISES per
** partition. */
#define ENG_MAX_PROMISES 4
typedef mgs_time (*eng_promise_fn)(void *ud, const sim_engine *p, mgs_time e,
                                   const sim_engine *q);
void eng_promise_add(sim_engine *p, eng_promise_fn fn, void *ud);

/* Worker threads for eng_run (>= 1; default 1). MGS_EINVAL above the
** limit. */
int eng_set_threads(sim_engine *root, uint32_t threads);

/* fn(e, a, b, x) runs in partition `to` at time t, as if target's handler
** (target must belong to `to`). From another partition t must respect a
** declared crossing; to == from schedules it locally (any t >= now). */
typedef void (*eng_post_fn)(sim_engine *e, void *a, void *b, uint64_t x);
void eng_post(sim_engine *from, sim_engine *to, mgs_time t, sim_comp *target,
              eng_post_fn fn, void *a, void *b, uint64_t x);

/* Tests: no window longer than cap ps (0: no cap). Results must not
** change (a crossing's post is ordered independently of its window). */
void eng_set_window_cap(sim_engine *root, mgs_time cap);

/* Counters of the synchronisation (bench_parallel4, docs/engine.md). */
#define ENG_PROFILE_WIDTHS 3   /* 2, 4 and 8 threads */
typedef struct eng_group_stats {
    uint64_t windows;       /* boundaries passed (running ahead: global
                               steps, when no partition could go on) */
    uint64_t steps;         /* running ahead: partition steps that fired
                               events */
    uint64_t events;        /* events fired in all partitions */
    uint64_t posts;         /* crossings delivered through mailboxes */
    double wait_s;          /* wall time threads spent at the barrier
                               (running ahead: finding nothing to run) */
    double serial_s;        /* wall time of the boundary work */
    /* With eng_set_profile and one thread: CPU seconds of all partitions'
    ** windows, and the sum over windows of the busiest thread's share had
    ** 2, 4, 8 threads run them: part_s / crit_s[k] is the speed-up those
    ** threads could reach with free barriers. */
    double part_s;
    double crit_s[ENG_PROFILE_WIDTHS];
    /* The same windows replayed as running ahead (partition_profile.c):
    ** part_s / ahead_s[k] estimates that scheme's speed-up on 2, 4, 8
    ** threads with free synchronisation. Counts the windows since
    ** eng_set_profile turned profiling on. */
    double ahead_s[ENG_PROFILE_WIDTHS];
} eng_group_stats;
void eng_group_stats_get(const sim_engine *root, eng_group_stats *out);
/* Measures each partition's CPU time per window (one thread only; costs
** two clock reads per partition and window, and 16 bytes per partition
** and window for the running-ahead estimate). Turning it on starts a new
** record for that estimate. */
void eng_set_profile(sim_engine *root, bool on);

#endif
