/*
** gct: CT reconstruction (seed 003 Table 2: "model-based iterative
** reconstruction", all-to-all), SIRT-like: each iteration projects the
** image (res = b - A x, rays split over the GPUs, every ray reading every
** pixel) and back-projects (x += lambda A^T res, pixels split, every pixel
** reading every residual). A is a sparse pseudo-random system matrix
** computed on the fly (about 3/16 of the entries nonzero; assumed: the
** seed gives no geometry; the sharing is MBIR's). Paradigm: the `paradigm`
** parameter (workloads/wl_gps.h). Verification: relative 1e-4.
*/
#include "workloads/wl_gps.h"

#include <stdlib.h>

#include "mgsim/errors.h"

enum { P_N, P_ITERS, P_PARADIGM };
extern const mgs_workload wl_gct;

#define LAMBDA 1e-4f

static float ct_a(uint32_t i, uint32_t j)
{
    uint32_t h = i * 2654435761u ^ j * 40503u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return (h >> 28) < 3u ? (float)((h >> 24) & 3u) * 0.25f : 0.0f;
}

static int gct_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N], iters = a->param[P_ITERS];
    if (n < 64 || n > 65536 || iters < 1)
        return mgs_error_set(MGS_EINVAL, "gct: n in [64, 65536], iters >= 1");
    size_t bytes = (size_t)n * 4;
    float *x = calloc((size_t)n, 4), *b = malloc(bytes), *res = calloc((size_t)n, 4),
          *got = malloc(bytes);
    wl_fill_float(b, (size_t)n, a->seed, 1, 0.0f, 16.0f);
    wl_gps w;
    wl_gbuf *gx, *gb, *gr;
    mgs_kernel *kp = NULL, *kb = NULL;
    int64_t i0[WL_MAX_PARTS], ni[WL_MAX_PARTS];
    wl_grange own[WL_MAX_PARTS];
    int rc = wl_gps_open(&w, rt, a, "gps.hsaco", (int)a->param[P_PARADIGM]);
    for (int p = 0; !rc && p < w.ngpu; p++) {
        wl_gps_split(&w, n, p, &i0[p], &ni[p]);
        own[p] = (wl_grange){(uint64_t)i0[p] * 4,
                             (uint64_t)(i0[p] + ni[p]) * 4};
    }
    if (!rc)
        rc = wl_gps_array(&w, x, bytes, own, false, &gx);
    if (!rc)
        rc = wl_gps_array(&w, b, bytes, own, false, &gb);
    if (!rc)
        rc = wl_gps_array(&w, res, bytes, own, false, &gr);
    for (int p = 0; !rc && p < w.ngpu; p++) {
        wl_gps_access(gx, p, 0, bytes);
        wl_gps_access(gr, p, 0, bytes);
    }
    if (!rc)
        rc = wl_gps_setup(&w);
    if (!rc)
        rc = wl_kernel(&w.c, "gps_ct_project", &kp);
    if (!rc)
        rc = wl_kernel(&w.c, "gps_ct_back", &kb);
    for (int64_t it = 0; !rc && it < iters; it++) {
        rc = wl_gps_iter_begin(&w, (int)it);
        for (int p = 0; !rc && p < w.ngpu; p++)
            rc = wl_launch1(&w.c, kp, wl_part_gpu(&w.c, p), (uint64_t)ni[p],
                            256, "pppuuu", wl_gps_ptr(&w, gx, p),
                            wl_gps_ptr(&w, gb, p), wl_gps_ptr(&w, gr, p),
                            (uint32_t)n, (uint32_t)i0[p], (uint32_t)ni[p]);
        if (!rc)
            rc = wl_gps_exchange(&w, gr);
        for (int p = 0; !rc && p < w.ngpu; p++)
            rc = wl_launch1(&w.c, kb, wl_part_gpu(&w.c, p), (uint64_t)ni[p],
                            256, "ppuuuf", wl_gps_ptr(&w, gr, p),
                            wl_gps_ptr(&w, gx, p), (uint32_t)n,
                            (uint32_t)i0[p], (uint32_t)ni[p],
                            (double)LAMBDA);
        if (!rc)
            rc = wl_gps_exchange(&w, gx);
        if (!rc)
            rc = wl_gps_iter_end(&w, (int)it);
    }
    if (!rc)
        rc = wl_gps_download(&w, gx, got);
    if (!rc) {
        for (int64_t it = 0; it < iters; it++) {
            for (int64_t i = 0; i < n; i++) {
                float s = 0.0f;
                for (int64_t j = 0; j < n; j++)
                    s += ct_a((uint32_t)i, (uint32_t)j) * x[j];
                res[i] = b[i] - s;
            }
            for (int64_t j = 0; j < n; j++) {
                float s = 0.0f;
                for (int64_t i = 0; i < n; i++)
                    s += ct_a((uint32_t)i, (uint32_t)j) * res[i];
                x[j] = x[j] + LAMBDA * s;
            }
        }
        rc = wl_check_f32("gct image", got, x, (size_t)n, 1e-4f, 1e-6f);
    }
    wl_gps_close(&w);
    free(x);
    free(b);
    free(res);
    free(got);
    return rc;
}

static uint64_t gct_footprint(const wl_args *a)
{
    return (uint64_t)a->param[P_N] * 12 *
           (uint64_t)(a->num_gpus > 0 ? a->num_gpus : 1);
}

const mgs_workload wl_gct = {
    .name = "gct",
    .suite = "GPS",
    .pattern = "all-to-all",
    .description = "CT reconstruction, SIRT-like projections (seed 003 Table 2)",
    .kernel_file = "gps.hsaco",
    .params = {
        { "n", 1024, 8192, "pixels = rays (n^2 system-matrix entries computed per step)" },
        { "iters", 3, 4, "iterations (the first is the profiling window)" },
        { "paradigm", 0, 0, "0 gps, 1 manual, 2 gps-all, 3 memcpy, 4 rdl, 5 um (workloads/wl_gps.h)" },
    },
    .run = gct_run,
    .footprint = gct_footprint,
};
