/*
** fpdiv: per element, fp64 arithmetic and 32-bit integer division
** (kernels/fpdiv.hip):
**   out_f[i] = x[i] / y[i] + fma(x[i], y[i], 0.5) - sqrt(|x[i]| + 1)
**   out_q[i] = p[i] / q[i],  out_r[i] = p[i] % q[i]   (C semantics)
** The compiler expands these into v_div_scale/v_div_fmas/v_div_fixup_f64,
** v_rcp/v_rsq_f64 Newton steps and the v_rcp_iflag_f32 integer-division
** sequence, so the workload checks those instruction semantics end to end.
**
** Placement: partitioned (like vecadd).
** Inputs: x, y uniform in [-8, 8) with |y| >= 1/1024; p any int32 except
** INT32_MIN, q in [-65536, 65536] without 0 (no division traps).
** Verification: integers bit-exact; out_f relative tolerance 1e-12 (the
** hardware sequences are correctly rounded up to a few ulp for sqrt).
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { P_N };

#define FPDIV_RTOL 1e-12

static int check_f64(const double *got, const double *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double d = fabs(got[i] - want[i]);
        if (!(d <= FPDIV_RTOL * fabs(want[i])))
            return mgs_error_set(MGS_EVERIFY,
                                 "fpdiv: out_f[%zu] = %.17g, expected %.17g "
                                 "(relative tolerance %g)", i, got[i], want[i],
                                 FPDIV_RTOL);
    }
    return MGS_OK;
}

static int fpdiv_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[P_N];
    if (n < 1 || n > (1ll << 28))
        return mgs_error_set(MGS_EINVAL, "fpdiv: n must be in [1, 2^28], "
                             "got %lld", (long long)n);
    size_t un = (size_t)n;
    double *x = mgs_xmalloc(un * 8), *y = mgs_xmalloc(un * 8);
    double *wf = mgs_xmalloc(un * 8), *gf = mgs_xmalloc(un * 8);
    int32_t *p = mgs_xmalloc(un * 4), *q = mgs_xmalloc(un * 4);
    uint32_t *wq = mgs_xmalloc(un * 4), *wr = mgs_xmalloc(un * 4);
    uint32_t *gq = mgs_xmalloc(un * 4), *gr = mgs_xmalloc(un * 4);
    wl_rng r;
    wl_rng_init(&r, a->seed, 0);
    for (size_t i = 0; i < un; i++) {
        x[i] = (double)wl_rng_float(&r, -8.0f, 8.0f) +
               (double)wl_rng_below(&r, 1u << 20) / (1 << 30);
        double yy = (double)wl_rng_float(&r, -8.0f, 8.0f);
        if (fabs(yy) < 1.0 / 1024)
            yy = 1.0 / 1024;
        y[i] = yy + (double)wl_rng_below(&r, 1u << 20) / (1 << 30);
        int32_t pi = (int32_t)(uint32_t)wl_rng_u64(&r);
        if (pi == INT32_MIN)
            pi = 0;
        int32_t qi = (int32_t)wl_rng_below(&r, 131073) - 65536;
        if (qi == 0)
            qi = 7;
        p[i] = pi;
        q[i] = qi;
        wf[i] = x[i] / y[i] + fma(x[i], y[i], 0.5) - sqrt(fabs(x[i]) + 1.0);
        wq[i] = (uint32_t)(pi / qi);
        wr[i] = (uint32_t)(pi % qi);
    }
    wl_ctx c;
    mgs_kernel *k = NULL;
    int rc = wl_ctx_open(&c, rt, a, "fpdiv.hsaco");
    if (!rc)
        rc = wl_kernel(&c, "fpdiv", &k);
    /* Per part: x, y, p, q in; f, quotient, remainder out. All copies in,
    ** then every launch, then all copies out, so the GPUs overlap. */
    int64_t b[WL_MAX_PARTS], cnt[WL_MAX_PARTS];
    mgs_dptr d[WL_MAX_PARTS][7];
    for (int part = 0; !rc && part < c.parts; part++) {
        wl_split(&c, n, 256, part, &b[part], &cnt[part]);
        int gpu = wl_part_gpu(&c, part);
        int64_t o = b[part];
        size_t c8 = (size_t)cnt[part] * 8, c4 = (size_t)cnt[part] * 4;
        mgs_dptr *dd = d[part];
        rc = wl_upload(&c, gpu, x + o, c8, &dd[0]);
        if (!rc) rc = wl_upload(&c, gpu, y + o, c8, &dd[1]);
        if (!rc) rc = wl_upload(&c, gpu, p + o, c4, &dd[2]);
        if (!rc) rc = wl_upload(&c, gpu, q + o, c4, &dd[3]);
        if (!rc) rc = wl_alloc(&c, gpu, c8, &dd[4]);
        if (!rc) rc = wl_alloc(&c, gpu, c4, &dd[5]);
        if (!rc) rc = wl_alloc(&c, gpu, c4, &dd[6]);
    }
    for (int part = 0; !rc && part < c.parts; part++) {
        mgs_dptr *dd = d[part];
        rc = wl_launch1(&c, k, wl_part_gpu(&c, part), (uint64_t)cnt[part],
                        256, "pppppppu", dd[0], dd[1], dd[2], dd[3], dd[4],
                        dd[5], dd[6], (uint32_t)cnt[part]);
    }
    for (int part = 0; !rc && part < c.parts; part++) {
        int64_t o = b[part];
        size_t c8 = (size_t)cnt[part] * 8, c4 = (size_t)cnt[part] * 4;
        rc = wl_download(&c, gf + o, d[part][4], c8);
        if (!rc) rc = wl_download(&c, gq + o, d[part][5], c4);
        if (!rc) rc = wl_download(&c, gr + o, d[part][6], c4);
    }
    if (!rc) rc = wl_check_u32("fpdiv: out_q", gq, wq, un);
    if (!rc) rc = wl_check_u32("fpdiv: out_r", gr, wr, un);
    if (!rc) rc = check_f64(gf, wf, un);
    wl_ctx_close(&c);
    free(x); free(y); free(wf); free(gf); free(p); free(q);
    free(wq); free(wr); free(gq); free(gr);
    return rc;
}

static uint64_t fpdiv_footprint(const wl_args *a)
{
    return 40ull * (uint64_t)a->param[P_N]; /* 3 x 8 B + 4 x 4 B */
}

const mgs_workload wl_fpdiv = {
    .name = "fpdiv",
    .suite = "micro",
    .pattern = "partitioned",
    .description = "fp64 division/fma/sqrt and int32 division/modulo",
    .kernel_file = "fpdiv.hsaco",
    .params = {{"n", 16384, 4 << 20, "elements (default 4 Mi: 160 MB; assumed)"}},
    .run = fpdiv_run,
    .footprint = fpdiv_footprint,
};
