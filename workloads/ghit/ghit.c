/*
** ghit: a Hit-like 3-D turbulence step (seed 003 Table 2: "homogeneous
** isotropic turbulence", Navier-Stokes, peer-to-peer; a Tartan
** application): the three velocity components advected by the local
** velocity (central differences) and diffused (7-point), plane by plane
** (plane z holds u, v, w), z-planes split over the GPUs (one halo plane
** each side). Paradigm: the `paradigm` parameter (workloads/wl_gps.h).
** Verification: relative 1e-4 against the CPU reference.
*/
#include "workloads/wl_gps.h"

enum { P_N, P_ITERS, P_PARADIGM };
extern const mgs_workload wl_ghit;

static void ref(const float *const *in, float *o, int64_t nx, int64_t ny,
                int64_t nz, const float *coef)
{
    const float *q = in[0];
    int64_t p = nx * ny, sy = nx, sz = 3 * p;
    for (int64_t z = 0; z < nz; z++)
        for (int64_t y = 0; y < ny; y++)
            for (int64_t x = 0; x < nx; x++) {
                int64_t i = (3 * z * ny + y) * nx + x;
                bool in_ = x > 0 && y > 0 && z > 0 && x < nx - 1 &&
                           y < ny - 1 && z < nz - 1;
                float a = q[i], b = q[i + p], cw = q[i + 2 * p];
                for (int64_t c = 0; c < 3; c++) {
                    int64_t j = i + c * p;
                    float v = q[j];
                    if (in_) {
                        float dx = q[j + 1] - q[j - 1];
                        float dy = q[j + sy] - q[j - sy];
                        float dz = q[j + sz] - q[j - sz];
                        float s = ((q[j - 1] + q[j + 1]) +
                                   (q[j - sy] + q[j + sy])) +
                                  (q[j - sz] + q[j + sz]);
                        float adv = 0.5f * ((a * dx + b * dy) + cw * dz);
                        v = v + coef[0] * (coef[1] * (s - 6.0f * v) - adv);
                    }
                    o[j] = v;
                }
            }
}

static const wl_gps_stencil st = {
    .name = "ghit", .kernel = "gps_hit", .arrays = 2, .comps = 3,
    .halo = 1, .coef = {0.01f, 0.1f}, .ncoef = 2, .ref = ref};

static int ghit_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    return wl_gps_stencil_run(rt, a, &st, n, n, n, a->param[P_ITERS],
                              (int)a->param[P_PARADIGM], 1e-4f);
}

static uint64_t ghit_footprint(const wl_args *a)
{
    return wl_gps_stencil_footprint(&st, a, a->param[P_N]);
}

const mgs_workload wl_ghit = {
    .name = "ghit",
    .suite = "GPS",
    .pattern = "peer-to-peer",
    .description = "Hit-like 3-D turbulence step, 3 velocity components (seed 003 Table 2)",
    .kernel_file = "gps.hsaco",
    .params = {
        { "n", 32, 96, "grid edge (2 arrays of 3 n^3 floats)" },
        { "iters", 4, 5, "time steps (the first is the profiling window)" },
        { "paradigm", 0, 0, "0 gps, 1 manual, 2 gps-all, 3 memcpy, 4 rdl, 5 um (workloads/wl_gps.h)" },
    },
    .run = ghit_run,
    .footprint = ghit_footprint,
};
