/*
** Xtreme1/2/3 (HALCONE seed 000 §4.3.2): C = A + B on float vectors cut into
** slices, one slice per CU: with G GPUs of `cus` CUs (default: the
** configuration's gpu.num_cus, mgs_rt_num_cus) there are G * cus
** slices of L = ceil(n / (G * cus)) elements, and slice s belongs to CU
** s % cus of GPU s / cus. A work-group of xtreme_add processes one slice,
** so "CU x works on slice x" holds when the dispatcher gives each CU one
** work-group (the seed's example: 2 GPUs x 2 CUs, 4 slices).
**
**   xtreme1: (1) every CU: C_s = A_s + B_s, `reps` times in a row inside one
**            kernel; (3) every CU: A_s = C_s + B_s, `reps` times.
**   xtreme2: (1) every CU: C_s = A_s + B_s; (2)+(3) on every GPU g, CU 0
**            performs A_t = C_t + B_t `reps` times, t = the slice of CU 1 of
**            the same GPU (intra-GPU sharing); (4) step (1) again.
**   xtreme3: as xtreme2 but t = the slice of the last CU of the next GPU
**            ((g + 1) % G), the seed's "CU_X0 writes A_3" (inter-GPU).
** "Repeat step k 10 times" is read as the step running `reps` (10) times in
** all. Step (2) is a launch of one work-group on GPU g, i.e. its CU 0.
**
** Placement: on a discrete platform each GPU's slices of A, B, C are stored
** on that GPU and each step launches once per GPU over its slices; step (2)
** of xtreme3 writes to the next GPU's memory. On unified, shared and
** monolithic the vectors are spread over all GPUs and steps (1), (3), (4)
** are single launches over all GPUs (MGS_GPU_ALL); step (2) still runs on
** GPU g. The host synchronises every GPU before and after step (2).
** Verification: bit-exact (each element is one IEEE add per step, computed
** the same way by the C reference).
*/
#include "workloads/xtreme1/xtreme.h"

#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

enum { P_KB, P_CUS, P_REPS };
enum { VA, VB, VC };

#define XTREME_BLOCK 256

typedef struct xtreme {
    wl_ctx c;
    mgs_kernel *k;
    wl_rows v[3];
    int64_t n, slice, cus;
    int gpus;
} xtreme;

/* Device address and length of slice s of vector v. */
static mgs_dptr xt_slice(const xtreme *x, int v, int64_t s, int64_t *len)
{
    int q = x->c.parts > 1 ? (int)(s / x->cus) : 0;
    const wl_rows *r = &x->v[v];
    int64_t off = s * x->slice - r->begin[q];
    int64_t left = r->count[q] - off;
    *len = left < 0 ? 0 : left < x->slice ? left : x->slice;
    return wl_rows_own(r, q) + (mgs_dptr)off * 4;
}

/* dst = a + b over every slice, reps times, one launch per part. */
static int xt_all(xtreme *x, int dst, int a, int b, int64_t reps)
{
    int rc = MGS_OK;
    for (int p = 0; !rc && p < x->c.parts; p++) {
        int64_t cnt = x->v[dst].count[p];
        int64_t wgs = (cnt + x->slice - 1) / x->slice;
        rc = wl_launch1(&x->c, x->k, wl_part_gpu(&x->c, p),
                        (uint64_t)wgs * XTREME_BLOCK, XTREME_BLOCK, "pppuuu",
                        wl_rows_own(&x->v[dst], p), wl_rows_own(&x->v[a], p),
                        wl_rows_own(&x->v[b], p), (uint32_t)x->slice,
                        (uint32_t)cnt, (uint32_t)reps);
    }
    return rc;
}

/* Step (2): on GPU g, CU 0 does A_t = C_t + B_t reps times. */
static int xt_one(xtreme *x, int g, int64_t t, int64_t reps)
{
    int64_t len;
    mgs_dptr a = xt_slice(x, VA, t, &len);
    mgs_dptr cc = xt_slice(x, VC, t, &len);
    mgs_dptr b = xt_slice(x, VB, t, &len);
    return wl_launch1(&x->c, x->k, x->gpus > 1 ? g : wl_part_gpu(&x->c, 0),
                      len ? XTREME_BLOCK : 0, XTREME_BLOCK, "pppuuu", a, cc,
                      b, (uint32_t)x->slice, (uint32_t)len, (uint32_t)reps);
}

static int64_t xt_target(const xtreme *x, int variant, int g)
{
    if (variant == 2)
        return (int64_t)g * x->cus + (1 % x->cus);
    return (int64_t)((g + 1) % x->gpus) * x->cus + x->cus - 1;
}

static void ref_add(float *d, const float *a, const float *b, int64_t lo,
                    int64_t hi)
{
    for (int64_t i = lo; i < hi; i++)
        d[i] = a[i] + b[i];
}

int xtreme_run(mgs_rt *rt, const wl_args *a, int variant)
{
    int64_t kb = a->param[P_KB], cus = a->param[P_CUS], reps = a->param[P_REPS];
    if (cus == 0)
        cus = mgs_rt_num_cus(rt); /* one slice per CU of the configuration */
    if (kb < 1 || kb > 4194304 || cus < 1 || cus > 1024 || reps < 1 ||
        reps > 1000000)
        return mgs_error_set(MGS_EINVAL, "xtreme%d: need 1 <= kb <= 4194304,"
                             " 0 <= cus <= 1024 (0: gpu.num_cus), 1 <= reps "
                             "<= 10^6", variant);
    int fits = wl_host_fits("xtreme", xtreme_footprint(a));
    if (fits)
        return fits;
    xtreme x;
    memset(&x, 0, sizeof x);
    x.n = kb * 256;
    x.cus = cus;
    x.gpus = a->num_gpus > 1 ? a->num_gpus : 1;
    x.slice = (x.n + x.gpus * cus - 1) / (x.gpus * cus);
    size_t bytes = (size_t)x.n * 4;
    float *h[3], *got = mgs_xmalloc(bytes);
    for (int v = 0; v < 3; v++) {
        h[v] = mgs_xmalloc(bytes);
        wl_fill_float(h[v], (size_t)x.n, a->seed, (uint64_t)v, -4.0f, 4.0f);
    }
    int rc = wl_ctx_open(&x.c, rt, a, "xtreme1.hsaco");
    if (!rc) rc = wl_kernel(&x.c, "xtreme_add", &x.k);
    for (int v = 0; !rc && v < 3; v++) {
        rc = wl_rows_alloc(&x.c, &x.v[v], x.n, 4, 0, cus * x.slice);
        if (!rc) rc = wl_rows_upload(&x.c, &x.v[v], h[v]);
    }
    if (!rc && variant == 1) {
        rc = xt_all(&x, VC, VA, VB, reps);
        if (!rc) rc = xt_all(&x, VA, VC, VB, reps);
        ref_add(h[VC], h[VA], h[VB], 0, x.n);
        ref_add(h[VA], h[VC], h[VB], 0, x.n);
    } else if (!rc) {
        rc = xt_all(&x, VC, VA, VB, 1);
        ref_add(h[VC], h[VA], h[VB], 0, x.n);
        /* step (2) reads a slice of C that another launch wrote (xtreme3:
        ** on another GPU), and step (4) reads what step (2) wrote */
        if (!rc) rc = wl_sync(&x.c);
        for (int g = 0; !rc && g < x.gpus; g++) {
            int64_t t = xt_target(&x, variant, g);
            rc = xt_one(&x, g, t, reps);
            int64_t lo = t * x.slice, hi = lo + x.slice;
            ref_add(h[VA], h[VC], h[VB], lo < x.n ? lo : x.n,
                    hi < x.n ? hi : x.n);
        }
        if (!rc) rc = wl_sync(&x.c);
        if (!rc) rc = xt_all(&x, VC, VA, VB, 1);
        ref_add(h[VC], h[VA], h[VB], 0, x.n);
    }
    const char *names[2] = { "xtreme A", "xtreme C" };
    for (int i = 0; !rc && i < 2; i++) {
        int v = i ? VC : VA;
        rc = wl_rows_download(&x.c, &x.v[v], got);
        if (!rc) rc = wl_check_u32(names[i], (uint32_t *)got,
                                   (const uint32_t *)h[v], (size_t)x.n);
    }
    wl_ctx_close(&x.c);
    for (int v = 0; v < 3; v++)
        free(h[v]);
    free(got);
    return rc;
}

uint64_t xtreme_footprint(const wl_args *a)
{
    return (uint64_t)a->param[P_KB] * 1024 * 3;
}
