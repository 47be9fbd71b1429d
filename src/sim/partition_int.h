/*
** Partition internals shared by partition.c (building, windows, the
** boundary) and partition_ahead.c (running ahead). Nothing outside these
** two files includes it.
*/
#ifndef MGS_SIM_PARTITION_INT_H
#define MGS_SIM_PARTITION_INT_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/engine_int.h"
#include "sim/partition.h"

#define ENG_MAX_THREADS 64u

/* A barrier for a fixed set of threads: spin, then sleep on a futex (so
** workers idle between runs cost nothing). */
typedef struct par_barrier {
    uint32_t n;
    uint32_t count;           /* arrived in this generation */
    uint32_t gen;             /* bumped by the last arrival */
    uint32_t sleepers;        /* threads in futex_wait */
} par_barrier;

/* A post waiting in a mailbox: a future event of another partition. */
typedef struct eng_mail {
    mgs_time t;
    eng_post_fn fn;
    sim_comp *target;
    void *a, *b;
    uint64_t x;
    /* A crossing's post: (from, seq) orders posts due at the same time
    ** whatever the window they were merged in (merge_mail). */
    bool crossed;
    uint32_t from;
    uint64_t seq;
} eng_mail;

typedef struct eng_box {
    eng_mail *v;
    uint32_t n, cap;
    uint64_t seq;             /* posts ever made through this box */
} eng_box;

/* A post in a queue: an event of the partition's mailbox component. */
struct eng_post_rec {
    sim_event ev;
    eng_mail m;
    eng_post_rec *next_free;
    eng_post_rec *next_all;   /* every record of the partition (freeing) */
};

typedef struct worker_arg {
    struct eng_group *g;
    uint32_t k;
} worker_arg;

typedef struct eng_part {
    sim_engine *e;
    char *name;
    eng_post_rec *all;
    int rc;                   /* the last window's outcome */
    double cost;              /* seconds its share took, averaged over the
                                 windows (weight 1/2 to the last one) */
    int err_code;             /* the error its thread recorded */
    char err[1024];
    uint64_t posts;           /* running ahead: posts it took */
    /* It failed or stopped (at the time of that event) in this run: it
    ** runs no further, and the run's outcome is the earliest such. */
    bool failed;
    mgs_time fail_t;
} eng_part;

/* Running ahead: a flag and a counter on a cache line of their own (a
** line written by two threads in turn costs each write a miss). */
typedef struct eng_flag {
    uint32_t v;
} __attribute__((aligned(64))) eng_flag;
typedef struct eng_count {
    uint64_t v;
} __attribute__((aligned(64))) eng_count;

/* Running ahead: posts handed over to a partition by the others' threads
** (each at the end of its step), taken by the partition's own thread. */
typedef struct eng_inbox {
    uint32_t lock;
    uint32_t n, cap;
    eng_mail *v;
    eng_mail *spare;          /* the taker's buffer, swapped with v */
    uint32_t spare_cap;
} __attribute__((aligned(64))) eng_inbox; /* a line each: senders write */

struct eng_group {
    uint32_t n;
    eng_part part[ENG_MAX_PARTITIONS];
    mgs_time lat[ENG_MAX_PARTITIONS][ENG_MAX_PARTITIONS]; /* MAX: none */
    char zero_what[200];      /* the first zero-latency crossing, or "" */
    eng_box box[ENG_MAX_PARTITIONS][ENG_MAX_PARTITIONS];  /* [from][to] */
    mgs_time horizon[ENG_MAX_PARTITIONS];
    /* eng_promise_add: per partition; `bound` is the last boundary's
    ** earliest post time before the crossing latency. */
    uint32_t npromise[ENG_MAX_PARTITIONS];
    eng_promise_fn promise_fn[ENG_MAX_PARTITIONS][ENG_MAX_PROMISES];
    void *promise_ud[ENG_MAX_PARTITIONS][ENG_MAX_PROMISES];
    mgs_time bound[ENG_MAX_PARTITIONS][ENG_MAX_PARTITIONS];  /* [from][to] */
    /* Threads: the caller is worker 0; workers 1.. wait at `start`. */
    uint32_t threads, started;
    bool profile;             /* eng_set_profile */
    mgs_time window_cap;      /* eng_set_window_cap (0: none) */
    uint32_t next_part;       /* run_share's counter, reset per window */
    uint32_t order[ENG_MAX_PARTITIONS]; /* hand-out order: dearest first */
    pthread_t tid[ENG_MAX_THREADS];
    par_barrier start, end;
    bool quit;
    worker_arg warg[ENG_MAX_THREADS];
    double arrive[ENG_MAX_THREADS]; /* when each reached the window's end */
    double wait_s;                  /* summed: last arrival - arrival */
    eng_group_stats st;
    /* Running ahead (partition_ahead.c). pub[p][q]: the earliest time p
    ** can still post to q (release-stored by p's thread, only ever
    ** raised); pub_ep[p] the earliest time p can act as it last published
    ** (0: unknown, publish at the next step). */
    bool ahead;
    /* Each row and each inbox on lines of its own: an 8-byte shift of
    ** this struct once halved bench_parallel4's speed-up (docs/engine.md,
    ** "Estimates for more threads"). */
    mgs_time pub[ENG_MAX_PARTITIONS][ENG_MAX_PARTITIONS]
        __attribute__((aligned(64)));
    mgs_time pub_ep[ENG_MAX_PARTITIONS] __attribute__((aligned(64)));
    eng_inbox inbox[ENG_MAX_PARTITIONS];
    eng_flag claim[ENG_MAX_PARTITIONS]; /* 1 while a thread steps it */
    /* Written by one thread, read by the others: one line each. */
    struct {
        mgs_time cap;             /* no horizon beyond (limit, watchdog) */
        uint32_t global_req;      /* thread 0 wants every partition */
        uint32_t halt;            /* a partition stopped or failed */
        uint32_t done;            /* the run is over: threads leave */
    } __attribute__((aligned(64))) ctl;
    eng_count steps[ENG_MAX_THREADS]; /* per thread: steps (slices) that
                                         fired events */
    mgs_time slice;               /* a step publishes every slice */
    bool workers_pinned, caller_pinned;
    cpu_set_t caller_mask;        /* the caller's CPUs, back after a run */
    double idle_s[ENG_MAX_THREADS];
    struct eng_profile *prof; /* eng_set_profile's record
                                 (partition_profile.c) */
};

/* A spinning thread's hint to the core (barriers, claims, locks). */
static inline void eng_cpu_pause_(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* partition.c */
void eng_barrier_wait_(par_barrier *b);
double eng_wall_s_(void);
/* Runs partition p's share up to g->horizon[p], keeping its outcome. */
void eng_run_part_(eng_group *g, uint32_t p);
/* Fills g->bound[p]: when p can next post to each partition if it fires
** nothing before e (its promises included). */
void eng_post_bounds_(eng_group *g, uint32_t p, mgs_time e);
/* Queues a crossing's post in its receiver (the merge order). */
void eng_schedule_crossed_(sim_engine *e, const eng_mail *m);
/* The boundary: every post merged, the checks, the horizons. */
enum { BOUNDARY_RUN, BOUNDARY_END, BOUNDARY_FAIL, BOUNDARY_HALT };
int eng_boundary_(eng_group *g, sim_engine *root, mgs_time limit, int *rc);
void eng_group_progress_(sim_engine *root, uint64_t events);

/* partition_profile.c: the 1-thread profile's record of every window
** (cost[p]: partition p's CPU seconds in the window just run, to its
** g->horizon[p]), its reset and release, and the makespan of its windows
** replayed as running ahead on `threads` threads with free
** synchronisation (0 without a record). */
typedef struct eng_profile eng_profile;
void eng_profile_note_(eng_group *g, const double *cost);
void eng_profile_reset_(eng_group *g);
void eng_profile_free_(eng_group *g);
double eng_profile_ahead_(const eng_group *g, uint32_t threads);

/* partition_ahead.c: returns BOUNDARY_END, BOUNDARY_FAIL (*rc) or
** BOUNDARY_HALT (a partition failed or stopped: every claim released). */
int eng_run_ahead_(eng_group *g, sim_engine *root, mgs_time limit, int *rc);
void eng_ahead_worker_(eng_group *g, uint32_t k);
void eng_take_mail_(eng_group *g, uint32_t q);
uint64_t eng_steps_total_(const eng_group *g);

#endif
