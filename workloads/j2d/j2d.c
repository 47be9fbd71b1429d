/*
** j2d: PolyBench 2-D Jacobi, `steps` sweeps of the 5-point average
** (boundary fixed), seed 001 Table 3 (128 MB: A and B, n = 4096).
**
** Placement: adjacent. A and B are split into bands of rows, one per GPU,
** each with one halo row above and below; after every sweep the halo rows
** are refreshed from the neighbouring GPUs (wl_stencil2d).
** Host program: wl_stencil2d_workload (wl_util), shared with the other
** stencil workload; this file gives the per-point formula of the CPU
** reference (j2d_point) and the parameters (n, then the sweep count).
** Verification: relative tolerance 1e-5 + 1e-6 absolute (inputs in [0, 1);
** the GPU may fuse the final multiply-add).
*/
#include "workloads/wl_util.h"

#include <stdint.h>

enum { P_N, P_STEPS };
extern const mgs_workload wl_j2d;

static float j2d_point(const float *m, int64_t j, int64_t n)
{
    return 0.2f * (m[j] + m[j - 1] + m[j + 1] + m[j - n] + m[j + n]);
}

static int j2d_run(mgs_rt *rt, const wl_args *a)
{
    return wl_stencil2d_workload(rt, a, &wl_j2d, "jacobi2d", "j2d A",
                                 j2d_point);
}

static uint64_t j2d_footprint(const wl_args *a)
{
    return (uint64_t)(a->param[P_N] * a->param[P_N]) * 8;
}

const mgs_workload wl_j2d = {
    .name = "j2d",
    .suite = "REC",
    .pattern = "adjacent",
    .description = "2-D Jacobi relaxation (5-point stencil)",
    .kernel_file = "j2d.hsaco",
    .params = {
        { "n", 64, 4096, "grid height = width (128 MiB: A and B)" },
        { "steps", 2, 4, "Jacobi sweeps" },
    },
    .run = j2d_run,
    .footprint = j2d_footprint,
};
