/*
** wl_util: helpers shared by the benchmark-suite workloads (aes, atax, ...,
** xtreme3). They keep each workload's host program down to what is specific
** to it: inputs, kernel launches, the CPU reference.
**
** - wl_ctx: one workload run. Loads the code object, owns every device
**   buffer allocated through it (wl_ctx_close frees them all), and knows how
**   work is spread over GPUs:
**     parts == 1 on one GPU, or in place (gpu_all: unified, shared and
**     monolithic, wl_platform_gpu_all) where one launch with MGS_GPU_ALL
**     spans every GPU and every buffer is spread over the GPUs
**     (MGS_GPU_ALL, pages placed by platform.placement): no halos, no
**     copies, neighbours' data read where it lives;
**     parts == num_gpus on a discrete multi-GPU platform: the host launches
**     once per GPU on that GPU's slice, and partitioned data lives on the
**     GPU that owns it.
** - wl_rows: an array of rows partitioned over the parts. Part p owns rows
**   [begin[p], begin[p] + count[p]) in its own buffer on its own GPU, with
**   `halo` extra rows above and `halo_after` below (zero at the array's
**   edges) for adjacent-access kernels; wl_rows_exchange refreshes the
**   halos from the neighbours with device-to-device copies (the inter-GPU
**   traffic of the adjacent pattern). Local row r of part p is global row
**   begin[p] + r - halo.
** - wl_rmat: R-MAT graphs in CSR form for the graph workloads;
**   wl_graph_part puts one part's rows on its GPU.
** - wl_stencil2d_workload: the whole host program of j2d and st, which
**   differ only in the stencil formula. wl_gemm_parts and wl_ref_gemm: the
**   gemm-kernel steps of gemm, mm2 and mm3 and their CPU reference (which
**   mm uses too).
** - shared arrays (read by every part) go to wl_shared_gpu(): MGS_GPU_ALL
**   when there are several GPUs, so each GPU reads local and remote pages.
** - wl_launch packs the explicit kernel arguments at the offsets the code
**   object's metadata gives, from a format string: 'p' device pointer
**   (mgs_dptr), 'u' uint32_t, 'i' int32_t, 'f' float (passed as double).
** - wl_param_order: the common parameter check of the n x n workloads
**   (range, multiple, host memory).
** - wl_check_*: compare with the CPU reference; on mismatch they return
**   MGS_EVERIFY with a message naming the array and first bad index.
**   wl_inject_corruption(1) makes the next check flip its first element
**   before comparing (tests use it to prove that the checkers can fail).
*/
#ifndef MGS_WORKLOADS_WL_UTIL_H
#define MGS_WORKLOADS_WL_UTIL_H

#include "workloads/workload.h"

#include <stddef.h>
#include <stdint.h>

#define WL_MAX_PARTS 16
#define WL_MAX_BUFS 128

#define WL_MAX_COPIES 8

/* A small read-only array with one copy per member GPU (Locality API
** variant): launches on member g get copy[g] wherever base is passed. */
typedef struct wl_copies {
    mgs_dptr base;         /* copy[0], the address the workload holds */
    mgs_dptr copy[WL_MAX_PARTS];
} wl_copies;

typedef struct wl_ctx {
    mgs_rt *rt;
    const wl_args *args;
    mgs_module *mod;
    int parts;             /* launches per kernel step (see header note) */
    int gpu_all;           /* in place: one launch over MGS_GPU_ALL */
    int multi;             /* more than one GPU takes part */
    int nbufs;
    mgs_dptr bufs[WL_MAX_BUFS]; /* owned: freed by wl_ctx_close */
    int members;           /* > 0: Locality API variant (wl_locality.h) */
    int ncopies;
    wl_copies copies[WL_MAX_COPIES];
} wl_ctx;

int wl_ctx_open(wl_ctx *c, mgs_rt *rt, const wl_args *args,
                const char *kernel_file);
/* The same with a code object path (not under the kernel directory). */
int wl_ctx_open_path(wl_ctx *c, mgs_rt *rt, const wl_args *args,
                     const char *path);
void wl_ctx_close(wl_ctx *c);
int wl_kernel(wl_ctx *c, const char *name, mgs_kernel **out);

/* GPU that part p launches on / stores its partitioned data on. */
int wl_part_gpu(const wl_ctx *c, int p);
/* Where data read by every part lives. */
int wl_shared_gpu(const wl_ctx *c);
/* Even split of n items into c->parts chunks, each a multiple of align
** (except the last). */
void wl_split(const wl_ctx *c, int64_t n, int64_t align, int p,
              int64_t *begin, int64_t *count);

/* Host synchronisation between dependent steps, where HIP requires one
** (hipDeviceSynchronize on every device): before a launch that reads, or
** overwrites, what a launch on another GPU wrote or read. Launches on one
** GPU run in order (one stream per device), launches on different GPUs
** overlap (platform.concurrent_launches), so only a multi-GPU run needs
** it; on one GPU it does nothing. */
int wl_sync(wl_ctx *c);
/* Test hook: while on, wl_sync does nothing (tests show that gd and lu then
** fail verification when launches on different GPUs overlap). */
void wl_inject_skip_sync(int on);

int wl_alloc(wl_ctx *c, int gpu, size_t bytes, mgs_dptr *out);
/* wl_alloc + copy host data in. */
int wl_upload(wl_ctx *c, int gpu, const void *host, size_t bytes,
              mgs_dptr *out);
int wl_download(wl_ctx *c, void *host, mgs_dptr src, size_t bytes);

typedef struct wl_rows {
    int parts;
    int halo;              /* rows of halo above (before) each part */
    int halo_after;        /* rows of halo below (after) each part */
    size_t row_bytes;
    int64_t nrows;
    int64_t begin[WL_MAX_PARTS];
    int64_t count[WL_MAX_PARTS];
    mgs_dptr d[WL_MAX_PARTS]; /* part buffer: halo + count + halo_after rows */
} wl_rows;

/* halo rows above and below each part. */
int wl_rows_alloc(wl_ctx *c, wl_rows *r, int64_t nrows, size_t row_bytes,
                  int halo, int64_t align);
/* As wl_rows_alloc with different halos before and after each part (fir
** reads only earlier samples). */
int wl_rows_alloc_halo(wl_ctx *c, wl_rows *r, int64_t nrows,
                       size_t row_bytes, int before, int after,
                       int64_t align);
/* Copies host rows (all nrows) in, halos included (zero beyond edges). */
int wl_rows_upload(wl_ctx *c, wl_rows *r, const void *host);
/* Copies each part's owned rows back into host (all nrows). */
int wl_rows_download(wl_ctx *c, const wl_rows *r, void *host);
/* Refreshes every halo row from the part that owns it, one copy per run
** of rows owned by the same neighbour. */
int wl_rows_exchange(wl_ctx *c, const wl_rows *r);
/* Device address of the first owned row of part p. */
mgs_dptr wl_rows_own(const wl_rows *r, int p);

/* Runs `steps` sweeps of a 2-D stencil kernel with the signature
** (const float *a, float *b, unsigned n, unsigned row0, unsigned rows) over
** an n x n row-major grid, band-partitioned with one halo row: after each
** sweep the roles of a and b swap and the halos are refreshed from the
** neighbouring GPUs. host holds the input and receives the result. */
int wl_stencil2d(wl_ctx *c, mgs_kernel *k, int64_t n, int steps, float *host);

/* The whole run of a 2-D stencil workload w (j2d, st) whose param[0] is n
** and param[1] the number of sweeps (named w->params[1].name): checks
** 3 <= n <= 65536, 1 <= sweeps <= 100000 and wl_host_fits, fills an n x n
** grid with wl_fill_float in [0, 1) (stream 0), runs the sweeps of `kernel`
** (from w->kernel_file) through wl_stencil2d, repeats them on the CPU with
** the boundary fixed, where point(m, j, n) is the new value of element j of
** interior row m (neighbours m[j - 1], m[j + 1], m[j - n], m[j + n], ...),
** and compares the grids as `what` (relative 1e-5 + 1e-6 absolute). */
int wl_stencil2d_workload(mgs_rt *rt, const wl_args *a,
                          const mgs_workload *w, const char *kernel,
                          const char *what,
                          float (*point)(const float *m, int64_t j,
                                         int64_t n));

/* One launch of the gemm kernel (kernels/gemm.hip) per part:
** out[p] = alpha * a[p] * b + beta * out[p], where a[p] is rows[p] x kd,
** b is kd x n and out[p] is rows[p] x n (rows[p], n, kd multiples of 16). */
int wl_gemm_parts(wl_ctx *c, mgs_kernel *k, const int64_t rows[],
                  const mgs_dptr a[], mgs_dptr b, const mgs_dptr out[],
                  int64_t n, int64_t kd, float alpha, float beta);
/* CPU reference with the kernel's summation order:
** out = alpha * (a * b) + beta * out, a m x kd, b kd x n. */
void wl_ref_gemm(float *out, const float *a, const float *b, int64_t m,
                 int64_t n, int64_t kd, float alpha, float beta);

/* grid and block in work-items; fmt as in the header note. */
int wl_launch(wl_ctx *c, mgs_kernel *k, int gpu, const uint32_t grid[3],
              const uint32_t block[3], uint32_t lds, const char *fmt, ...);
/* 1-D launch of n work-items rounded up to a multiple of block. */
int wl_launch1(wl_ctx *c, mgs_kernel *k, int gpu, uint64_t n, uint32_t block,
               const char *fmt, ...);
/* 2-D launch: nx x ny work-items rounded up to bx x by tiles. */
int wl_launch2(wl_ctx *c, mgs_kernel *k, int gpu, uint64_t nx, uint64_t ny,
               uint32_t bx, uint32_t by, const char *fmt, ...);

/* Deterministic inputs: splitmix64 streams keyed by (seed, stream). */
typedef struct wl_rng { uint64_t s; } wl_rng;
void wl_rng_init(wl_rng *r, uint64_t seed, uint64_t stream);
uint64_t wl_rng_u64(wl_rng *r);
uint32_t wl_rng_below(wl_rng *r, uint32_t bound);
/* Uniform in [lo, hi), quantised to 1/1024 so inputs print exactly. */
float wl_rng_float(wl_rng *r, float lo, float hi);
void wl_fill_float(float *v, size_t n, uint64_t seed, uint64_t stream,
                   float lo, float hi);
/* A 32-bit integer hash (lowbias32), the one the CARVE stand-ins' kernels
** use to draw positions on the GPU (randacc, xsbench). */
uint32_t wl_hash32(uint32_t x);

/* A directed graph in compressed sparse rows: the edges of vertex v are
** adj[off[v]] .. adj[off[v + 1] - 1]. Owned arrays (wl_graph_free). */
typedef struct wl_graph {
    int64_t nv, ne;
    uint32_t *off;         /* nv + 1 entries */
    uint32_t *adj;         /* ne entries */
} wl_graph;
/* R-MAT generator (Chakrabarti, Zhan, Faloutsos, SDM 2004) with the
** Graph500 probabilities a = 0.57, b = c = 0.19, d = 0.05: 2^scale vertices,
** edgefactor * 2^scale directed edges (self-loops and duplicates kept, as
** in Graph500), vertex ids randomly permuted so that the hubs are spread
** over the id space. by_dst = 0: rows hold out-edges (adj = destinations);
** by_dst = 1: rows hold in-edges (adj = sources). Within a row, edges keep
** generation order. Deterministic in seed. */
void wl_rmat(wl_graph *g, int scale, int64_t edgefactor, uint64_t seed,
             int by_dst);
void wl_graph_free(wl_graph *g);
/* Part p's share of g for the graph workloads: the vertices
** [*first, *first + *count) from wl_split(align), and their rows uploaded
** to the part's GPU, offsets rebased to start at 0 (*off, count + 1
** entries) and neighbour ids kept global (*adj). */
int wl_graph_part(wl_ctx *c, const wl_graph *g, int p, int64_t align,
                  int64_t *first, int64_t *count, mgs_dptr *off,
                  mgs_dptr *adj);

/* Host-side guard: a run keeps inputs, the result and the CPU reference in
** host memory, up to about 3x its device footprint. Returns MGS_EINVAL
** (naming the workload and the sizes) when that exceeds this machine's
** physical memory, so that an oversized --param fails cleanly instead of
** aborting in an allocation. */
int wl_host_fits(const char *name, uint64_t device_bytes);

/* The parameter check of the n x n workloads: lo <= n <= hi and, when
** multiple > 1, n a multiple of it (else MGS_EINVAL: "<name>: n must be
** [a multiple of M ]in [lo, hi], got n"); then wl_host_fits with
** footprint(a), which is called only once n is in range. */
int wl_param_order(const wl_args *a, const char *name, int64_t n,
                   int64_t lo, int64_t hi, int64_t multiple,
                   uint64_t (*footprint)(const wl_args *a));

void wl_inject_corruption(int on);
int wl_check_u32(const char *what, uint32_t *got, const uint32_t *want,
                 size_t n);
int wl_check_u8(const char *what, uint8_t *got, const uint8_t *want,
                size_t n);
/* |got - want| <= atol + rtol * |want| elementwise (NaN never passes). */
int wl_check_f32(const char *what, float *got, const float *want, size_t n,
                 float rtol, float atol);

#endif
