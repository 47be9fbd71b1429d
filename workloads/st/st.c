/*
** st: SHOC Stencil2D, `iters` iterations of a 9-point weighted stencil
** (centre 0.25, edge neighbours 0.15, diagonals 0.05; boundary fixed), seed
** 001 Table 3 (128 MB: two n x n float grids, n = 4096).
**
** Placement: adjacent. Both grids are split into bands of rows, one per GPU,
** with one halo row above and below refreshed from the neighbouring GPUs
** after every iteration (wl_stencil2d).
** Host program: wl_stencil2d_workload (wl_util), shared with the other
** stencil workload; this file gives the per-point formula of the CPU
** reference (st_point) and the parameters (n, then the sweep count).
** Verification: relative tolerance 1e-5 + 1e-6 absolute (inputs in [0, 1);
** fused multiply-add rounding).
*/
#include "workloads/wl_util.h"

#include <stdint.h>

enum { P_N, P_ITERS };
extern const mgs_workload wl_st;

static float st_point(const float *m, int64_t j, int64_t n)
{
    const float *u = m - n, *d = m + n;
    return 0.25f * m[j]
        + 0.15f * (u[j] + d[j] + m[j - 1] + m[j + 1])
        + 0.05f * (u[j - 1] + u[j + 1] + d[j - 1] + d[j + 1]);
}

static int st_run(mgs_rt *rt, const wl_args *a)
{
    return wl_stencil2d_workload(rt, a, &wl_st, "stencil2d", "st grid",
                                 st_point);
}

static uint64_t st_footprint(const wl_args *a)
{
    return (uint64_t)(a->param[P_N] * a->param[P_N]) * 8;
}

const mgs_workload wl_st = {
    .name = "st",
    .suite = "REC",
    .pattern = "adjacent",
    .description = "2-D 9-point stencil (SHOC Stencil2D)",
    .kernel_file = "st.hsaco",
    .params = {
        { "n", 64, 4096, "grid height = width (128 MiB: two grids)" },
        { "iters", 2, 4, "stencil iterations" },
    },
    .run = st_run,
    .footprint = st_footprint,
};
