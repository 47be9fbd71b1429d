/*
** gjacobi: Jacobi solver (seed 003 Table 2: "iterative solver for a
** diagonally dominant linear system", peer-to-peer): the 2-D Poisson
** problem on an n x n grid, y = (4 neighbours + b) / 4, `iters` sweeps
** ping-ponging x0 / x1. Rows are split in bands over the GPUs; a band
** reads one halo row of each neighbour, so a page of x is shared only by
** the GPUs whose bands touch it (mostly one remote subscriber, Fig. 9).
** Paradigm: the `paradigm` parameter (workloads/wl_gps.h). Verification:
** relative 1e-5 + absolute 1e-6 against the CPU reference.
*/
#include "workloads/wl_gps.h"

#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"

enum { P_N, P_ITERS, P_PARADIGM };
extern const mgs_workload wl_gjacobi;

static void ref_sweep(const float *x, float *y, const float *b, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            int64_t k = i * n + j;
            float v = x[k];
            if (i > 0 && i < n - 1 && j > 0 && j < n - 1)
                v = 0.25f * (((x[k - n] + x[k + n]) + (x[k - 1] + x[k + 1])) +
                             b[k]);
            y[k] = v;
        }
}

static int gjacobi_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N], iters = a->param[P_ITERS];
    if (n < 16 || n > 8192 || iters < 1)
        return mgs_error_set(MGS_EINVAL, "gjacobi: n in [16, 8192] and "
                             "iters >= 1");
    size_t cells = (size_t)(n * n), bytes = cells * sizeof(float);
    float *b = malloc(bytes), *x = calloc(cells, sizeof *x),
          *y = calloc(cells, sizeof *y), *got = malloc(bytes);
    wl_fill_float(b, cells, a->seed, 1, 0.0f, 1.0f);
    wl_fill_float(x, cells, a->seed, 2, 0.0f, 1.0f);
    wl_gps w;
    wl_gbuf *gb, *gx[2];
    mgs_kernel *k = NULL;
    int rc = wl_gps_open(&w, rt, a, "gps.hsaco", (int)a->param[P_PARADIGM]);
    wl_grange own[WL_MAX_PARTS];
    int64_t r0[WL_MAX_PARTS], rows[WL_MAX_PARTS];
    for (int p = 0; !rc && p < w.ngpu; p++) {
        wl_gps_split(&w, n, p, &r0[p], &rows[p]);
        own[p] = (wl_grange){(uint64_t)(r0[p] * n) * 4,
                             (uint64_t)((r0[p] + rows[p]) * n) * 4};
    }
    if (!rc)
        rc = wl_gps_array(&w, b, bytes, own, false, &gb);
    for (int v = 0; v < 2 && !rc; v++)
        rc = wl_gps_array(&w, x, bytes, own, true, &gx[v]);
    for (int p = 0; !rc && p < w.ngpu; p++)
        for (int v = 0; v < 2; v++) {
            int64_t lo = r0[p] > 0 ? r0[p] - 1 : 0;
            int64_t hi = r0[p] + rows[p] < n ? r0[p] + rows[p] + 1 : n;
            wl_gps_access(gx[v], p, (uint64_t)(lo * n) * 4,
                          (uint64_t)(hi * n) * 4);
        }
    if (!rc)
        rc = wl_gps_setup(&w);
    if (!rc)
        rc = wl_kernel(&w.c, "gps_jacobi", &k);
    for (int64_t it = 0; !rc && it < iters; it++) {
        const wl_gbuf *in = gx[it & 1], *out = gx[!(it & 1)];
        rc = wl_gps_iter_begin(&w, (int)it);
        for (int p = 0; !rc && p < w.ngpu; p++)
            rc = wl_launch2(&w.c, k, wl_part_gpu(&w.c, p), (uint64_t)n,
                            (uint64_t)rows[p], 64, 4, "pppuuu",
                            wl_gps_ptr(&w, in, p), wl_gps_ptr(&w, out, p),
                            wl_gps_ptr(&w, gb, p), (uint32_t)n,
                            (uint32_t)r0[p], (uint32_t)rows[p]);
        if (!rc)
            rc = wl_gps_iter_end(&w, (int)it);
    }
    if (!rc)
        rc = wl_gps_download(&w, gx[iters & 1], got);
    if (!rc) {
        for (int64_t it = 0; it < iters; it++) {
            ref_sweep(x, y, b, n);
            float *t = x;
            x = y;
            y = t;
        }
        rc = wl_check_f32("gjacobi x", got, x, cells, 1e-5f, 1e-6f);
    }
    wl_gps_close(&w);
    free(b);
    free(x);
    free(y);
    free(got);
    return rc;
}

static uint64_t gjacobi_footprint(const wl_args *a)
{
    return (uint64_t)(a->param[P_N] * a->param[P_N]) * 12 *
           (uint64_t)(a->num_gpus > 0 ? a->num_gpus : 1);
}

const mgs_workload wl_gjacobi = {
    .name = "gjacobi",
    .suite = "GPS",
    .pattern = "peer-to-peer",
    .description = "Jacobi solver, 2-D Poisson (seed 003 Table 2)",
    .kernel_file = "gps.hsaco",
    .params = {
        { "n", 256, 2048, "grid height = width (3 arrays of n*n floats)" },
        { "iters", 4, 5, "Jacobi sweeps (the first is the profiling window)" },
        { "paradigm", 0, 0, "0 gps, 1 manual, 2 gps-all, 3 memcpy, 4 rdl, 5 um (workloads/wl_gps.h)" },
    },
    .run = gjacobi_run,
    .footprint = gjacobi_footprint,
};
