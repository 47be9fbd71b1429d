/*
** comd: neighbour-list forces on a lattice of atoms (CARVE stand-in for
** CoMD, seed 004 Table II). L x L x L atoms on a jittered cubic lattice,
** each with a neighbour list of up to 16 lattice neighbours (the 6 faces,
** then 10 edge neighbours, in a fixed order); each of `steps` steps runs
** comd_force (a linear pair force summed over the list: positions of atoms
** that may live on any GPU) and comd_move (the atom's own position), with
** a synchronisation between the two (kernels/comd.hip).
**
** Placement: positions, forces and lists spread over the GPUs
** (MGS_GPU_ALL); each GPU owns a contiguous slab of atoms; the slab's
** neighbours across a partition plane are remote (read-write shared
** across kernels).
** Verification: relative 1e-4 + 1e-5 absolute.
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_L, P_STEPS };
#define COMD_NB 16
#define COMD_DT 0.01f

static const int OFF[COMD_NB][3] = {
    {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1},
    {1, 1, 0}, {-1, -1, 0}, {1, -1, 0}, {-1, 1, 0}, {1, 0, 1},
    {-1, 0, -1}, {0, 1, 1}, {0, -1, -1}, {1, 0, -1}, {-1, 0, 1}};

static int comd_run(mgs_rt *rt, const wl_args *a)
{
    int64_t L = a->param[P_L], steps = a->param[P_STEPS];
    if (L < 2 || L > 640 || steps < 1 || steps > 1000)
        return mgs_error_set(MGS_EINVAL, "comd: L in [2, 640], steps in "
                             "[1, 1000]");
    int64_t n = L * L * L;
    int rc = wl_host_fits("comd", (uint64_t)n * (24 + 4 * COMD_NB));
    if (rc)
        return rc;
    int32_t *nbr = mgs_xmalloc((size_t)n * COMD_NB * 4);
    float *pos = mgs_xmalloc((size_t)n * 12), *f = mgs_xmalloc((size_t)n * 12);
    float *got = mgs_xmalloc((size_t)n * 12);
    wl_rng r;
    wl_rng_init(&r, a->seed, 0);
    for (int64_t z = 0; z < L; z++)
        for (int64_t y = 0; y < L; y++)
            for (int64_t x = 0; x < L; x++) {
                int64_t i = (z * L + y) * L + x, m = 0;
                pos[i * 3] = (float)x + wl_rng_float(&r, -0.125f, 0.125f);
                pos[i * 3 + 1] = (float)y + wl_rng_float(&r, -0.125f, 0.125f);
                pos[i * 3 + 2] = (float)z + wl_rng_float(&r, -0.125f, 0.125f);
                for (int k = 0; k < COMD_NB; k++) {
                    int64_t ux = x + OFF[k][0], uy = y + OFF[k][1];
                    int64_t uz = z + OFF[k][2];
                    if (ux < 0 || uy < 0 || uz < 0 || ux >= L || uy >= L ||
                        uz >= L)
                        continue;
                    nbr[i * COMD_NB + m++] = (int32_t)((uz * L + uy) * L + ux);
                }
                while (m < COMD_NB)
                    nbr[i * COMD_NB + m++] = -1;
            }
    wl_ctx c;
    mgs_kernel *kf = NULL, *km = NULL;
    mgs_dptr dn, dp, df;
    rc = wl_ctx_open(&c, rt, a, "comd.hsaco");
    if (!rc) rc = wl_kernel(&c, "comd_force", &kf);
    if (!rc) rc = wl_kernel(&c, "comd_move", &km);
    if (!rc)
        rc = wl_upload(&c, wl_shared_gpu(&c), nbr, (size_t)n * COMD_NB * 4,
                       &dn);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), pos, (size_t)n * 12, &dp);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), (size_t)n * 12, &df);
    for (int64_t s = 0; !rc && s < steps; s++) {
        for (int p = 0; !rc && p < c.parts; p++) {
            int64_t b, cnt;
            wl_split(&c, n, 64, p, &b, &cnt);
            rc = wl_launch1(&c, kf, wl_part_gpu(&c, p), (uint64_t)cnt, 64,
                            "pppuu", dn, dp, df, (uint32_t)b, (uint32_t)cnt);
        }
        if (!rc) rc = wl_sync(&c);
        for (int p = 0; !rc && p < c.parts; p++) {
            int64_t b, cnt;
            wl_split(&c, n, 64, p, &b, &cnt);
            rc = wl_launch1(&c, km, wl_part_gpu(&c, p), (uint64_t)cnt, 64,
                            "ppfuu", dp, df, (double)COMD_DT, (uint32_t)b,
                            (uint32_t)cnt);
        }
        if (!rc) rc = wl_sync(&c);
    }
    if (!rc) rc = wl_download(&c, got, dp, (size_t)n * 12);
    if (!rc) {
        for (int64_t s = 0; s < steps; s++) {
            for (int64_t i = 0; i < n; i++) {
                float fx = 0.0f, fy = 0.0f, fz = 0.0f;
                for (int k = 0; k < COMD_NB; k++) {
                    int32_t b = nbr[i * COMD_NB + k];
                    if (b < 0)
                        break;
                    fx += pos[b * 3] - pos[i * 3];
                    fy += pos[b * 3 + 1] - pos[i * 3 + 1];
                    fz += pos[b * 3 + 2] - pos[i * 3 + 2];
                }
                f[i * 3] = fx;
                f[i * 3 + 1] = fy;
                f[i * 3 + 2] = fz;
            }
            for (int64_t i = 0; i < 3 * n; i++)
                pos[i] += COMD_DT * f[i];
        }
        rc = wl_check_f32("comd: pos", got, pos, (size_t)(3 * n), 1e-4f,
                          1e-5f);
    }
    wl_ctx_close(&c);
    free(nbr);
    free(pos);
    free(f);
    free(got);
    return rc;
}

static uint64_t comd_footprint(const wl_args *a)
{
    uint64_t n = (uint64_t)a->param[P_L] * (uint64_t)a->param[P_L] *
                 (uint64_t)a->param[P_L];
    return n * (24 + 4 * COMD_NB);
}

const mgs_workload wl_comd = {
    .name = "comd",
    .suite = "CARVE",
    .pattern = "adjacent",
    .description = "neighbour-list forces and moves on a lattice of atoms (CARVE stand-in for CoMD)",
    .kernel_file = "comd.hsaco",
    .params = {{"L", 16, 256,
                "atoms per lattice edge (default 256^3 x 88 B: 1.4 GB; seed 004 Table II CoMD 910 MB)"},
               {"steps", 2, 4, "force + move steps (assumed)"}},
    .run = comd_run,
    .footprint = comd_footprint,
};
