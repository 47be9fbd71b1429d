/*
** gdiff: 3-D diffusion (seed 003 Table 2: "multi-GPU 3D heat equation",
** peer-to-peer; a Tartan application): an explicit 7-point heat step on an
** n x n x n grid, `iters` steps, z-planes split over the GPUs (one halo
** plane each side). Paradigm: the `paradigm` parameter (workloads/wl_gps.h).
** Verification: relative 1e-5 against the CPU reference (same summation
** order).
*/
#include "workloads/wl_gps.h"

enum { P_N, P_ITERS, P_PARADIGM };
extern const mgs_workload wl_gdiff;

#define K 0.1f

static void ref(const float *const *in, float *o, int64_t nx, int64_t ny,
                int64_t nz, const float *coef)
{
    const float *t = in[0];
    int64_t sz = nx * ny;
    for (int64_t z = 0; z < nz; z++)
        for (int64_t y = 0; y < ny; y++)
            for (int64_t x = 0; x < nx; x++) {
                int64_t i = (z * ny + y) * nx + x;
                float v = t[i];
                if (x > 0 && y > 0 && z > 0 && x < nx - 1 && y < ny - 1 &&
                    z < nz - 1) {
                    float s = ((t[i - 1] + t[i + 1]) + (t[i - nx] + t[i + nx])) +
                              (t[i - sz] + t[i + sz]);
                    v = v + coef[0] * (s - 6.0f * v);
                }
                o[i] = v;
            }
}

static const wl_gps_stencil st = {
    .name = "gdiff", .kernel = "gps_diffusion", .arrays = 2, .comps = 1,
    .halo = 1, .coef = {K}, .ncoef = 1, .ref = ref};

static int gdiff_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    return wl_gps_stencil_run(rt, a, &st, n, n, n, a->param[P_ITERS],
                              (int)a->param[P_PARADIGM], 1e-5f);
}

static uint64_t gdiff_footprint(const wl_args *a)
{
    return wl_gps_stencil_footprint(&st, a, a->param[P_N]);
}

const mgs_workload wl_gdiff = {
    .name = "gdiff",
    .suite = "GPS",
    .pattern = "peer-to-peer",
    .description = "3-D diffusion, 7-point heat step (seed 003 Table 2)",
    .kernel_file = "gps.hsaco",
    .params = {
        { "n", 32, 128, "grid edge (2 arrays of n^3 floats)" },
        { "iters", 4, 5, "time steps (the first is the profiling window)" },
        { "paradigm", 0, 0, "0 gps, 1 manual, 2 gps-all, 3 memcpy, 4 rdl, 5 um (workloads/wl_gps.h)" },
    },
    .run = gdiff_run,
    .footprint = gdiff_footprint,
};
