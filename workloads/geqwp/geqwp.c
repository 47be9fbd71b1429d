/*
** geqwp: a B2rEqwp-like 3-D wave propagation kernel (seed 003 Table 2: "3D
** earthquake wave propagation, 4th-order finite difference", peer-to-peer;
** a Tartan application): u_next = 2u - u_prev + c * L4(u) with the
** 4th-order (radius 2) Laplacian, three rotating arrays, z-planes split
** over the GPUs (two halo planes each side). Paradigm: the `paradigm`
** parameter (workloads/wl_gps.h). Verification: relative 1e-4 against the
** CPU reference (same order; the GPU may fuse multiply-adds).
*/
#include "workloads/wl_gps.h"

enum { P_N, P_ITERS, P_PARADIGM };
extern const mgs_workload wl_geqwp;

static void ref(const float *const *in, float *o, int64_t nx, int64_t ny,
                int64_t nz, const float *coef)
{
    const float *up = in[0], *u = in[1];
    int64_t sy = nx, sz = nx * ny;
    for (int64_t z = 0; z < nz; z++)
        for (int64_t y = 0; y < ny; y++)
            for (int64_t x = 0; x < nx; x++) {
                int64_t i = (z * ny + y) * nx + x;
                float v = u[i];
                if (x > 1 && y > 1 && z > 1 && x < nx - 2 && y < ny - 2 &&
                    z < nz - 2) {
                    float l1 = ((u[i - 1] + u[i + 1]) + (u[i - sy] + u[i + sy])) +
                               (u[i - sz] + u[i + sz]);
                    float l2 = ((u[i - 2] + u[i + 2]) +
                                (u[i - 2 * sy] + u[i + 2 * sy])) +
                               (u[i - 2 * sz] + u[i + 2 * sz]);
                    float lap = (16.0f * l1 - l2 - 90.0f * v) * (1.0f / 12.0f);
                    v = (2.0f * v - up[i]) + coef[0] * lap;
                }
                o[i] = v;
            }
}

static const wl_gps_stencil st = {
    .name = "geqwp", .kernel = "gps_eqwp", .arrays = 3, .comps = 1,
    .halo = 2, .coef = {0.05f}, .ncoef = 1, .ref = ref};

static int geqwp_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    return wl_gps_stencil_run(rt, a, &st, n, n, n, a->param[P_ITERS],
                              (int)a->param[P_PARADIGM], 1e-4f);
}

static uint64_t geqwp_footprint(const wl_args *a)
{
    return wl_gps_stencil_footprint(&st, a, a->param[P_N]);
}

const mgs_workload wl_geqwp = {
    .name = "geqwp",
    .suite = "GPS",
    .pattern = "peer-to-peer",
    .description = "B2rEqwp-like 3-D wave, 4th-order finite difference (seed 003 Table 2)",
    .kernel_file = "gps.hsaco",
    .params = {
        { "n", 32, 128, "grid edge (3 arrays of n^3 floats)" },
        { "iters", 4, 5, "time steps (the first is the profiling window)" },
        { "paradigm", 0, 0, "0 gps, 1 manual, 2 gps-all, 3 memcpy, 4 rdl, 5 um (workloads/wl_gps.h)" },
    },
    .run = geqwp_run,
    .footprint = geqwp_footprint,
};
