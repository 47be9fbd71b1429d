/*
** lulesh: relaxation on an unstructured quad mesh (CARVE stand-in for
** Lulesh-Unstruct-Mesh1, seed 004 Table II; read-write shared data that
** every GPU reads where it lives, Fig. 2's third class). An nx x ny mesh
** of quads whose (nx + 1) x (ny + 1) node ids are shuffled within blocks
** of `block` nodes (an unstructured numbering); each of `steps` steps runs
** lulesh_elem (an element averages its 4 nodes through the connectivity)
** and lulesh_node (a node relaxes towards its elements' mean), with a
** synchronisation between the two (kernels/lulesh.hip).
**
** Placement: every array spread over the GPUs (MGS_GPU_ALL); each GPU
** updates its contiguous slice of elements, then of nodes, and reads node
** and element values wherever they live.
** Verification: relative 1e-5 + 1e-6 absolute (same operations, same
** order).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_NX, P_NY, P_STEPS, P_BLOCK };

static int lulesh_run(mgs_rt *rt, const wl_args *a)
{
    int64_t nx = a->param[P_NX], ny = a->param[P_NY];
    int64_t steps = a->param[P_STEPS], block = a->param[P_BLOCK];
    if (nx < 2 || ny < 2 || nx > 32768 || ny > 32768 || steps < 1 ||
        steps > 1000 || block < 1)
        return mgs_error_set(MGS_EINVAL, "lulesh: nx, ny in [2, 32768], "
                             "steps in [1, 1000], block >= 1");
    int64_t ne = nx * ny, nn = (nx + 1) * (ny + 1);
    int rc = wl_host_fits("lulesh", 4 * (uint64_t)(5 * ne + 5 * nn));
    if (rc)
        return rc;
    uint32_t *perm = mgs_xmalloc((size_t)nn * 4);
    uint32_t *en = mgs_xmalloc((size_t)ne * 16);
    int32_t *ne4 = mgs_xmalloc((size_t)nn * 16);
    float *nv = mgs_xmalloc((size_t)nn * 4), *ev = mgs_xmalloc((size_t)ne * 4);
    float *got = mgs_xmalloc((size_t)nn * 4);
    wl_rng r;
    wl_rng_init(&r, a->seed, 0);
    for (int64_t i = 0; i < nn; i++)
        perm[i] = (uint32_t)i;
    for (int64_t b0 = 0; b0 < nn; b0 += block) {
        int64_t len = nn - b0 < block ? nn - b0 : block;
        for (int64_t i = len - 1; i > 0; i--) {
            int64_t j = wl_rng_below(&r, (uint32_t)(i + 1));
            uint32_t t = perm[b0 + i];
            perm[b0 + i] = perm[b0 + j];
            perm[b0 + j] = t;
        }
    }
    for (int64_t i = 0; i < nn * 4; i++)
        ne4[i] = -1;
    for (int64_t y = 0; y < ny; y++)
        for (int64_t x = 0; x < nx; x++) {
            int64_t e = y * nx + x;
            int64_t nd[4] = {y * (nx + 1) + x, y * (nx + 1) + x + 1,
                             (y + 1) * (nx + 1) + x + 1,
                             (y + 1) * (nx + 1) + x};
            for (int k = 0; k < 4; k++) {
                uint32_t id = perm[nd[k]];
                en[e * 4 + k] = id;
                /* node corner k sees this element in slot (k + 2) % 4 */
                ne4[(int64_t)id * 4 + (k + 2) % 4] = (int32_t)e;
            }
        }
    wl_fill_float(nv, (size_t)nn, a->seed, 1, 0.0f, 1.0f);
    wl_ctx c;
    mgs_kernel *ke = NULL, *kn = NULL;
    mgs_dptr den, dne, dnv, dev;
    rc = wl_ctx_open(&c, rt, a, "lulesh.hsaco");
    if (!rc) rc = wl_kernel(&c, "lulesh_elem", &ke);
    if (!rc) rc = wl_kernel(&c, "lulesh_node", &kn);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), en, (size_t)ne * 16, &den);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), ne4, (size_t)nn * 16, &dne);
    if (!rc) rc = wl_upload(&c, wl_shared_gpu(&c), nv, (size_t)nn * 4, &dnv);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), (size_t)ne * 4, &dev);
    for (int64_t s = 0; !rc && s < steps; s++) {
        for (int p = 0; !rc && p < c.parts; p++) {
            int64_t b, cnt;
            wl_split(&c, ne, 64, p, &b, &cnt);
            rc = wl_launch1(&c, ke, wl_part_gpu(&c, p), (uint64_t)cnt, 64,
                            "pppuu", den, dnv, dev, (uint32_t)b,
                            (uint32_t)cnt);
        }
        if (!rc) rc = wl_sync(&c);
        for (int p = 0; !rc && p < c.parts; p++) {
            int64_t b, cnt;
            wl_split(&c, nn, 64, p, &b, &cnt);
            rc = wl_launch1(&c, kn, wl_part_gpu(&c, p), (uint64_t)cnt, 64,
                            "pppuu", dne, dev, dnv, (uint32_t)b,
                            (uint32_t)cnt);
        }
        if (!rc) rc = wl_sync(&c);
    }
    if (!rc) rc = wl_download(&c, got, dnv, (size_t)nn * 4);
    if (!rc) {
        for (int64_t s = 0; s < steps; s++) {
            for (int64_t e = 0; e < ne; e++) {
                float sum = 0.0f;
                for (int k = 0; k < 4; k++)
                    sum += nv[en[e * 4 + k]];
                ev[e] = 0.25f * sum;
            }
            for (int64_t n = 0; n < nn; n++) {
                float sum = 0.0f;
                uint32_t m = 0;
                for (int k = 0; k < 4; k++)
                    if (ne4[n * 4 + k] >= 0) {
                        sum += ev[ne4[n * 4 + k]];
                        m++;
                    }
                nv[n] = 0.5f * nv[n] + 0.5f * sum / (float)m;
            }
        }
        rc = wl_check_f32("lulesh: node", got, nv, (size_t)nn, 1e-5f, 1e-6f);
    }
    wl_ctx_close(&c);
    free(perm);
    free(en);
    free(ne4);
    free(nv);
    free(ev);
    free(got);
    return rc;
}

static uint64_t lulesh_footprint(const wl_args *a)
{
    uint64_t ne = (uint64_t)a->param[P_NX] * (uint64_t)a->param[P_NY];
    uint64_t nn = (uint64_t)(a->param[P_NX] + 1) *
                  (uint64_t)(a->param[P_NY] + 1);
    return 20 * ne + 20 * nn;
}

const mgs_workload wl_lulesh = {
    .name = "lulesh",
    .suite = "CARVE",
    .pattern = "irregular",
    .description = "element/node relaxation on an unstructured quad mesh (CARVE stand-in for Lulesh)",
    .kernel_file = "lulesh.hsaco",
    .params = {{"nx", 64, 768,
                "mesh elements across (default 768 x 768: 24 MB; seed 004 Table II Lulesh-Unstruct-Mesh1 24 MB)"},
               {"ny", 64, 768, "mesh elements down"},
               {"steps", 3, 4, "element + node steps (assumed)"},
               {"block", 4096, 65536,
                "node ids are shuffled within blocks of this many nodes (assumed)"}},
    .run = lulesh_run,
    .footprint = lulesh_footprint,
};
