/*
** wl_gps: the host-side harness of the GPS workloads (seed 003 Table 2,
** docs/gps.md): iterative multi-GPU programs whose shared arrays follow one
** of the paradigms the seed compares, chosen by the workload parameter
** `paradigm` so that a study sweeps it:
**
**   0 gps      mgs_malloc_gps, automatic subscription: the first iteration
**              is the profiling window (mgs_gps_tracking_start / _stop)
**   1 manual   mgs_malloc_gps(MGS_GPS_MANUAL): each GPU is unsubscribed
**              from the pages outside the ranges the workload declares it
**              reads or writes (wl_gps_access)
**   2 gps-all  GPS without subscription (all-to-all for the whole run, the
**              "no subscription" bars of Fig. 11)
**   3 memcpy   a full copy of every array on every GPU; after each
**              iteration each GPU's written range is copied to every other
**              GPU (device-to-device DMA, no overlap with kernels). With
**              platform.copy_timing = instant it is the infinite-bandwidth
**              bound (seed 003 §6: memcpy with the transfers elided)
**   4 rdl      remote demand loads: one copy, each page placed on the GPU
**              that writes it (the last writer, as the seed's oracle; read
**              only arrays on their owner), other GPUs' loads go over RDMA
**   5 um       unified memory: mgs_malloc_managed (run with
**              memory.management = migrate: pages fault and migrate)
** Partitioning is the same for every paradigm (seed 003 §6): part p runs on
** GPU p (discrete platform, one launch per GPU per kernel step). On a
** platform that shows one device (unified, shared, monolithic) there is
** one part launched over every GPU and the paradigms are plain arrays.
** Outside GPS mode (emu, another protocol, one GPU) paradigms 0-2 are
** ordinary allocations, so every paradigm verifies everywhere. Inputs go
** in and results come back untimed (mgs_memcpy_h2d_untimed): the
** simulated time is the iterations' (kernels and memcpy's broadcasts).
*/
#ifndef MGS_WORKLOADS_WL_GPS_H
#define MGS_WORKLOADS_WL_GPS_H

#include "workloads/wl_util.h"

enum {
    WL_GPS_AUTO = 0,
    WL_GPS_MANUAL,
    WL_GPS_ALL,
    WL_GPS_MEMCPY,
    WL_GPS_RDL,
    WL_GPS_UM,
    WL_GPS_PARADIGMS
};

#define WL_GPS_MAX_BUFS 8
#define WL_GPS_MAX_RANGES 4

typedef struct wl_grange {
    uint64_t begin, end;       /* bytes into the array */
} wl_grange;

/* One shared array. */
typedef struct wl_gbuf {
    size_t bytes;
    mgs_dptr base;             /* the one copy (copy[0] under memcpy) */
    mgs_dptr copy[WL_MAX_PARTS];
    wl_grange own[WL_MAX_PARTS];   /* bytes part p writes (or owns) */
    bool written;              /* some part writes it (memcpy broadcasts) */
    /* manual: bytes part p accesses (own[p] is added) */
    wl_grange acc[WL_MAX_PARTS][WL_GPS_MAX_RANGES];
    uint32_t nacc[WL_MAX_PARTS];
} wl_gbuf;

typedef struct wl_gps {
    wl_ctx c;
    int paradigm;
    int ngpu;                  /* parts: GPUs taking part */
    wl_gbuf buf[WL_GPS_MAX_BUFS];
    int nbufs;
} wl_gps;

/* Opens the run (wl_ctx_open) with paradigm (a workload parameter). */
int wl_gps_open(wl_gps *w, mgs_rt *rt, const wl_args *a, const char *kfile,
                int paradigm);
void wl_gps_close(wl_gps *w);
/* A shared array of bytes with the host's initial contents (NULL: zeros).
** own[p] (bytes, each part's) says which part writes which bytes (written
** = true) or, for a read-only array, which part owns which (RDL places
** them there). */
int wl_gps_array(wl_gps *w, const void *host, size_t bytes,
                 const wl_grange own[], bool written, wl_gbuf **out);
/* manual: part p also reads [begin, end) of b. */
void wl_gps_access(wl_gbuf *b, int p, uint64_t begin, uint64_t end);
/* After every array is declared (and its accesses): uploads, places and
** subscribes. */
int wl_gps_setup(wl_gps *w);
/* The address of b that part p's kernels use. */
mgs_dptr wl_gps_ptr(const wl_gps *w, const wl_gbuf *b, int p);
/* Around iteration it: the profiling window (iteration 0), the
** synchronisation, and memcpy's broadcast of every written array. */
int wl_gps_iter_begin(wl_gps *w, int it);
int wl_gps_iter_end(wl_gps *w, int it);
/* Between two kernel steps of one iteration: synchronise and, under
** memcpy, send every part's bytes of b to the other copies (arrays a later
** step of the same iteration reads; declare them written = false so that
** wl_gps_iter_end does not send them again). */
int wl_gps_exchange(wl_gps *w, const wl_gbuf *b);
/* Copies b back (part p's copy under memcpy: part 0's after the last
** broadcast is complete). */
int wl_gps_download(wl_gps *w, const wl_gbuf *b, void *host);
/* Even split of n items into w->ngpu parts (wl_split). */
void wl_gps_split(const wl_gps *w, int64_t n, int p, int64_t *begin,
                  int64_t *count);

/* ---- graphs (gpagerank, gsssp) ------------------------------------------
** A symmetric graph of n vertices in CSR: edges to v +- 1 and v +- w (a
** w-wide grid: neighbours mostly on the same GPU or the next, the
** peer-to-peer pattern), plus, with far != 0, one edge from each vertex to
** a pseudo-random vertex (many-to-many). Weights 1..16 from (seed, edge).
** The arrays are malloc'ed (free them). */
typedef struct wl_gps_graph {
    int64_t n, m;
    uint32_t *rowp, *col, *wt;
} wl_gps_graph;
void wl_gps_graph_make(wl_gps_graph *g, int64_t n, int64_t w, int far,
                       uint64_t seed);
void wl_gps_graph_free(wl_gps_graph *g);
/* The CSR arrays as shared read-only arrays split by vertices (own[p]:
** part p's vertices), each part also reading its vertices' neighbours. */
int wl_gps_graph_arrays(wl_gps *w, const wl_gps_graph *g,
                        const int64_t v0[], const int64_t nv[],
                        wl_gbuf **rowp, wl_gbuf **col, wl_gbuf **wt);
/* manual: part p (vertices [v0, v0 + nv)) reads these entries of a
** per-vertex array of 4-byte values: its own and its neighbours'. */
void wl_gps_graph_access(const wl_gps_graph *g, wl_gbuf *b, int p,
                         int64_t v0, int64_t nv);

/* ---- 3-D stencils split by z-planes (gdiff, geqwp, ghit) ------------- */
typedef struct wl_gps_stencil {
    const char *name;          /* workload (messages, array names) */
    const char *kernel;        /* kernel symbol in gps.hsaco */
    int arrays;                /* 2: in -> out; 3: prev, cur -> next */
    int comps;                 /* values per cell (planes hold comps x nx*ny) */
    int halo;                  /* planes read beyond the own ones */
    float coef[2];             /* the kernel's float arguments */
    int ncoef;
    /* CPU reference of one step on the whole grid (in[0] the oldest). */
    void (*ref)(const float *const *in, float *out, int64_t nx, int64_t ny,
                int64_t nz, const float *coef);
} wl_gps_stencil;
/* Runs the stencil for iters steps on an nx x ny x nz grid (random state
** in [0, 1)), verifying with relative tolerance rtol. */
int wl_gps_stencil_run(mgs_rt *rt, const wl_args *a, const wl_gps_stencil *s,
                       int64_t nx, int64_t ny, int64_t nz, int64_t iters,
                       int paradigm, float rtol);
/* Footprint of a cubic stencil of edge n: its arrays of comps floats per
** cell, one copy per GPU (the memcpy paradigm's replicas). */
uint64_t wl_gps_stencil_footprint(const wl_gps_stencil *s, const wl_args *a,
                                  int64_t n);
#endif
