/*
** MGPUSim validation workloads: MGPUSim v4.0.0's own code objects (code
** object v2, OpenCL, shipped in its repository; not part of mgsim) run with
** the launch geometry and arguments of MGPUSim's Go benchmark hosts, each
** checked against a CPU reference of what the kernel computes. They make
** mgsim's timing directly comparable with MGPUSim's figures on identical
** machine code (docs/validation.md; `mgsim study validate-mgpusim`).
**
** The code objects are read from $MGSIM_MGPUSIM_DIR (`mgsim study ...
** --kernels DIR` sets it): fir.hsaco, relu.hsaco, matrixtranspose.hsaco,
** bitonicsort.hsaco, matrixmultiplication.hsaco. Without it the workloads
** stop with exit 2 and say so. They are registered apart from the suite
** (workloads/list_mgpusim.def): `mgsim list workloads` shows them in their
** own section and the all-workload tests do not run them.
**
** Geometry (MGPUSim's hosts; ../shared/validation/mgpusim/README.md):
**   FIR              n work-items, groups of 256; output, coeff (16 taps),
**                    input, history (taps + 1), numTap = 16
**   ReLUForward      n work-items, groups of 64; count = n, in, out
**   matrixTranspose  (n/4, n/4) work-items, 16 x 16 groups, 16 KiB of
**                    dynamic LDS; out, in, local block (0), n/4, n/4,
**                    n/4/16, 0, 0; each work-item moves a 4 x 4 tile
**   BitonicSort      n/2 work-items, groups of 64; array, stage, pass,
**                    direction 1; one launch per (stage, pass)
**   mmmKernel_local  (n/4, n/4) work-items, 8 x 8 groups, 4 KiB of dynamic
**                    LDS; A, B, C (float4 *), width n, local block (0)
** The hidden arguments (global offsets ...) are zeros, as the runtime
** appends them. The workloads run on one GPU, or in place over all GPUs
** (unified, monolithic, shared: one launch, buffers spread over the GPUs
** by platform.placement), as MGPUSim's unified multi-GPU mode does.
**
** References (the kernels' own arithmetic, read from their disassembly and
** MGPUSim's OpenCL sources):
**   FIR: out[g] = sum_t coeff[t] * (t <= g ? in[g - t]
**                                          : history[taps + g - t])
**   ReLU: out = max(in, 0) (in > 0 ? in : 0)
**   matrixTranspose: out = in^T (n x n floats)
**   BitonicSort: ascending order
**   mmmKernel_local: as shipped it indexes matrix A by the local id, so row
**     r of C is row (r mod 32) of A times B (equal to A * B for n <= 32);
**     the reference computes exactly that.
*/
#include "workloads/wl_util.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MGP_TAPS 16

/* Opens the context on MGPUSim's file `file` in $MGSIM_MGPUSIM_DIR. */
static int mgp_open(wl_ctx *c, mgs_rt *rt, const wl_args *a, const char *wl,
                    const char *file)
{
    memset(c, 0, sizeof *c);   /* wl_ctx_close must work after a failure */
    const char *dir = getenv("MGSIM_MGPUSIM_DIR");
    if (!dir || !*dir)
        return mgs_error_set(MGS_EINVAL,
                             "%s: runs MGPUSim's code object %s: set "
                             "MGSIM_MGPUSIM_DIR to their folder (e.g. "
                             "../shared/validation/mgpusim), or use mgsim "
                             "study validate-mgpusim --kernels DIR", wl, file);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int rc = wl_ctx_open_path(c, rt, a, path);
    if (!rc && c->parts > 1)
        rc = mgs_error_set(MGS_EINVAL,
                           "%s: runs on one GPU or in place over all GPUs "
                           "(platform unified, monolithic or shared), as "
                           "MGPUSim's unified mode does; not discrete", wl);
    return rc;
}

/* Where buffers go and launches run: GPU 0, or everywhere in place. */
static int mgp_gpu(const wl_ctx *c)
{
    return c->gpu_all ? MGS_GPU_ALL : 0;
}

static int mgp_upload(wl_ctx *c, const void *host, size_t bytes,
                      mgs_dptr *out)
{
    return wl_upload(c, wl_shared_gpu(c), host, bytes, out);
}

static int mgp_check_n(const char *wl, int64_t n, int64_t lo, int64_t hi,
                       int64_t multiple, bool pow2)
{
    if (n < lo || n > hi || n % multiple || (pow2 && (n & (n - 1))))
        return mgs_error_set(MGS_EINVAL,
                             "%s: need %lld <= n <= %lld, n a multiple of "
                             "%lld%s, got n=%lld", wl, (long long)lo,
                             (long long)hi, (long long)multiple,
                             pow2 ? " and a power of two" : "",
                             (long long)n);
    return MGS_OK;
}

/* ---- FIR (Hetero-Mark) ------------------------------------------------- */

static uint64_t fir_footprint(const wl_args *a)
{
    return (uint64_t)a->param[0] * 8 + (2 * MGP_TAPS + 1) * 4;
}

static int fir_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[0];
    int rc = mgp_check_n("mgpusim_fir", n, 256, 1 << 26, 256, false);
    if (rc || (rc = wl_host_fits("mgpusim_fir", fir_footprint(a))))
        return rc;
    float *in = mgs_xmalloc((size_t)n * 4), *got = mgs_xmalloc((size_t)n * 4);
    float *want = mgs_xmalloc((size_t)n * 4);
    float coeff[MGP_TAPS], hist[MGP_TAPS + 1];
    wl_fill_float(in, (size_t)n, a->seed, 0, -1.0f, 1.0f);
    wl_fill_float(coeff, MGP_TAPS, a->seed, 1, 0.0f, 1.0f);
    wl_fill_float(hist, MGP_TAPS + 1, a->seed, 2, -1.0f, 1.0f);
    wl_ctx c;
    mgs_kernel *k;
    mgs_dptr dout, dcoeff, din, dhist;
    rc = mgp_open(&c, rt, a, "mgpusim_fir", "fir.hsaco");
    if (!rc) rc = wl_kernel(&c, "FIR", &k);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), (size_t)n * 4, &dout);
    if (!rc) rc = mgp_upload(&c, coeff, sizeof coeff, &dcoeff);
    if (!rc) rc = mgp_upload(&c, in, (size_t)n * 4, &din);
    if (!rc) rc = mgp_upload(&c, hist, sizeof hist, &dhist);
    uint32_t grid[3] = {(uint32_t)n, 1, 1}, block[3] = {256, 1, 1};
    if (!rc)
        rc = wl_launch(&c, k, mgp_gpu(&c), grid, block, 0, "ppppu", dout,
                       dcoeff, din, dhist, (uint32_t)MGP_TAPS);
    if (!rc) rc = wl_download(&c, got, dout, (size_t)n * 4);
    if (!rc) {
        for (int64_t g = 0; g < n; g++) {
            float acc = 0.0f;
            for (int64_t t = 0; t < MGP_TAPS; t++)
                acc += coeff[t] * (t <= g ? in[g - t] : hist[MGP_TAPS + g - t]);
            want[g] = acc;
        }
        rc = wl_check_f32("FIR output", got, want, (size_t)n, 1e-5f, 1e-5f);
    }
    wl_ctx_close(&c);
    free(in);
    free(got);
    free(want);
    return rc;
}

/* ---- ReLUForward (MGPUSim DNN layer benchmark) -------------------------- */

static uint64_t relu_footprint(const wl_args *a)
{
    return (uint64_t)a->param[0] * 8;
}

static int relu_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[0];
    int rc = mgp_check_n("mgpusim_relu", n, 64, 1 << 27, 64, false);
    if (rc || (rc = wl_host_fits("mgpusim_relu", relu_footprint(a))))
        return rc;
    float *in = mgs_xmalloc((size_t)n * 4), *got = mgs_xmalloc((size_t)n * 4);
    float *want = mgs_xmalloc((size_t)n * 4);
    wl_fill_float(in, (size_t)n, a->seed, 0, -1.0f, 1.0f);
    wl_ctx c;
    mgs_kernel *k;
    mgs_dptr din, dout;
    rc = mgp_open(&c, rt, a, "mgpusim_relu", "relu.hsaco");
    if (!rc) rc = wl_kernel(&c, "ReLUForward", &k);
    if (!rc) rc = mgp_upload(&c, in, (size_t)n * 4, &din);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), (size_t)n * 4, &dout);
    uint32_t grid[3] = {(uint32_t)n, 1, 1}, block[3] = {64, 1, 1};
    if (!rc)
        rc = wl_launch(&c, k, mgp_gpu(&c), grid, block, 0, "ipp",
                       (int32_t)n, din, dout);
    if (!rc) rc = wl_download(&c, got, dout, (size_t)n * 4);
    if (!rc) {
        for (int64_t i = 0; i < n; i++)
            want[i] = in[i] > 0.0f ? in[i] : 0.0f;
        rc = wl_check_f32("ReLU output", got, want, (size_t)n, 0.0f, 0.0f);
    }
    wl_ctx_close(&c);
    free(in);
    free(got);
    free(want);
    return rc;
}

/* ---- matrixTranspose (AMD APP SDK) ------------------------------------- */

static uint64_t mt_footprint(const wl_args *a)
{
    return (uint64_t)a->param[0] * (uint64_t)a->param[0] * 8;
}

static int mt_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[0];
    int rc = mgp_check_n("mgpusim_mt", n, 64, 16384, 64, false);
    if (rc || (rc = wl_host_fits("mgpusim_mt", mt_footprint(a))))
        return rc;
    size_t cells = (size_t)n * (size_t)n;
    float *in = mgs_xmalloc(cells * 4), *got = mgs_xmalloc(cells * 4);
    float *want = mgs_xmalloc(cells * 4);
    wl_fill_float(in, cells, a->seed, 0, -1.0f, 1.0f);
    wl_ctx c;
    mgs_kernel *k;
    mgs_dptr din, dout;
    rc = mgp_open(&c, rt, a, "mgpusim_mt", "matrixtranspose.hsaco");
    if (!rc) rc = wl_kernel(&c, "matrixTranspose", &k);
    if (!rc) rc = mgp_upload(&c, in, cells * 4, &din);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), cells * 4, &dout);
    uint32_t wi = (uint32_t)(n / 4);
    uint32_t grid[3] = {wi, wi, 1}, block[3] = {16, 16, 1};
    if (!rc)
        rc = wl_launch(&c, k, mgp_gpu(&c), grid, block, 16 * 16 * 16 * 4,
                       "ppuuuuuu", dout, din, 0u, wi, wi, wi / 16, 0u, 0u);
    if (!rc) rc = wl_download(&c, got, dout, cells * 4);
    if (!rc) {
        for (int64_t r = 0; r < n; r++)
            for (int64_t col = 0; col < n; col++)
                want[col * n + r] = in[r * n + col];
        rc = wl_check_f32("transpose", got, want, cells, 0.0f, 0.0f);
    }
    wl_ctx_close(&c);
    free(in);
    free(got);
    free(want);
    return rc;
}

/* ---- BitonicSort (AMD APP SDK) ------------------------------------------ */

static uint64_t bs_footprint(const wl_args *a)
{
    return (uint64_t)a->param[0] * 4;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

static int bs_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[0];
    int rc = mgp_check_n("mgpusim_bs", n, 128, 1 << 26, 128, true);
    if (rc || (rc = wl_host_fits("mgpusim_bs", bs_footprint(a))))
        return rc;
    uint32_t *keys = mgs_xmalloc((size_t)n * 4);
    uint32_t *got = mgs_xmalloc((size_t)n * 4);
    wl_rng r;
    wl_rng_init(&r, a->seed, 0);
    for (int64_t i = 0; i < n; i++)
        keys[i] = (uint32_t)wl_rng_u64(&r);
    wl_ctx c;
    mgs_kernel *k;
    mgs_dptr d;
    rc = mgp_open(&c, rt, a, "mgpusim_bs", "bitonicsort.hsaco");
    if (!rc) rc = wl_kernel(&c, "BitonicSort", &k);
    if (!rc) rc = mgp_upload(&c, keys, (size_t)n * 4, &d);
    uint32_t stages = 0;
    for (int64_t m = n; m > 1; m >>= 1)
        stages++;
    uint32_t grid[3] = {(uint32_t)(n / 2), 1, 1}, block[3] = {64, 1, 1};
    for (uint32_t s = 0; !rc && s < stages; s++)
        for (uint32_t p = 0; !rc && p <= s; p++)
            rc = wl_launch(&c, k, mgp_gpu(&c), grid, block, 0, "puuu", d, s,
                           p, 1u);
    if (!rc) rc = wl_download(&c, got, d, (size_t)n * 4);
    if (!rc) {
        qsort(keys, (size_t)n, 4, cmp_u32);
        rc = wl_check_u32("sorted keys", got, keys, (size_t)n);
    }
    wl_ctx_close(&c);
    free(keys);
    free(got);
    return rc;
}

/* ---- mmmKernel_local (AMD APP SDK matrix multiplication) ---------------- */

static uint64_t mm_footprint(const wl_args *a)
{
    return (uint64_t)a->param[0] * (uint64_t)a->param[0] * 12;
}

static int mm_run(mgs_rt *rt, const wl_args *a)
{
    int64_t n = a->param[0];
    int rc = mgp_check_n("mgpusim_mm", n, 32, 8192, 32, false);
    if (rc || (rc = wl_host_fits("mgpusim_mm", mm_footprint(a))))
        return rc;
    size_t cells = (size_t)n * (size_t)n;
    float *ma = mgs_xmalloc(cells * 4), *mb = mgs_xmalloc(cells * 4);
    float *got = mgs_xmalloc(cells * 4), *want = mgs_xmalloc(cells * 4);
    wl_fill_float(ma, cells, a->seed, 0, -1.0f, 1.0f);
    wl_fill_float(mb, cells, a->seed, 1, -1.0f, 1.0f);
    wl_ctx c;
    mgs_kernel *k;
    mgs_dptr da, db, dc;
    rc = mgp_open(&c, rt, a, "mgpusim_mm", "matrixmultiplication.hsaco");
    if (!rc) rc = wl_kernel(&c, "mmmKernel_local", &k);
    if (!rc) rc = mgp_upload(&c, ma, cells * 4, &da);
    if (!rc) rc = mgp_upload(&c, mb, cells * 4, &db);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), cells * 4, &dc);
    uint32_t grid[3] = {(uint32_t)(n / 4), (uint32_t)(n / 4), 1};
    uint32_t block[3] = {8, 8, 1};
    if (!rc)
        rc = wl_launch(&c, k, mgp_gpu(&c), grid, block, 32 * 32 * 4, "pppiu",
                       da, db, dc, (int32_t)n, 0u);
    if (!rc) rc = wl_download(&c, got, dc, cells * 4);
    if (!rc) {
        /* Row r of C uses row r mod 32 of A (the kernel's local-id
        ** indexing), summed four products at a time as the kernel does. */
        for (int64_t r = 0; r < n; r++)
            for (int64_t col = 0; col < n; col++) {
                const float *arow = ma + (r % 32) * n;
                float acc = 0.0f;
                for (int64_t q = 0; q < n; q += 4)
                    acc += arow[q] * mb[q * n + col] +
                           arow[q + 1] * mb[(q + 1) * n + col] +
                           arow[q + 2] * mb[(q + 2) * n + col] +
                           arow[q + 3] * mb[(q + 3) * n + col];
                want[r * n + col] = acc;
            }
        rc = wl_check_f32("matrix C", got, want, cells, 1e-4f, 1e-4f);
    }
    wl_ctx_close(&c);
    free(ma);
    free(mb);
    free(got);
    free(want);
    return rc;
}

/* Sizes: small = a quick check; default = the size of MGPUSim's figures. */
const mgs_workload wl_mgpusim_fir = {
    .name = "mgpusim_fir",
    .suite = "MGPUSim",
    .pattern = "adjacent",
    .description = "MGPUSim's FIR code object (Hetero-Mark, 16 taps)",
    .kernel_file = "fir.hsaco",
    .params = {{"n", 8192, 65536, "samples"}},
    .run = fir_run,
    .footprint = fir_footprint,
};

const mgs_workload wl_mgpusim_relu = {
    .name = "mgpusim_relu",
    .suite = "MGPUSim",
    .pattern = "partitioned",
    .description = "MGPUSim's ReLUForward code object (DNN layer)",
    .kernel_file = "relu.hsaco",
    .params = {{"n", 8192, 262144, "elements"}},
    .run = relu_run,
    .footprint = relu_footprint,
};

const mgs_workload wl_mgpusim_mt = {
    .name = "mgpusim_mt",
    .suite = "MGPUSim",
    .pattern = "transpose",
    .description = "MGPUSim's matrixTranspose code object (AMD APP SDK)",
    .kernel_file = "matrixtranspose.hsaco",
    .params = {{"n", 128, 512, "matrix side (floats)"}},
    .run = mt_run,
    .footprint = mt_footprint,
};

const mgs_workload wl_mgpusim_bs = {
    .name = "mgpusim_bs",
    .suite = "MGPUSim",
    .pattern = "butterfly",
    .description = "MGPUSim's BitonicSort code object (AMD APP SDK), one "
                   "launch per step",
    .kernel_file = "bitonicsort.hsaco",
    .params = {{"n", 1024, 4096, "keys (a power of two)"}},
    .run = bs_run,
    .footprint = bs_footprint,
};

const mgs_workload wl_mgpusim_mm = {
    .name = "mgpusim_mm",
    .suite = "MGPUSim",
    .pattern = "tiled",
    .description = "MGPUSim's mmmKernel_local code object (AMD APP SDK; "
                   "rows of A taken mod 32, as shipped)",
    .kernel_file = "matrixmultiplication.hsaco",
    .params = {{"n", 64, 256, "matrix side (floats)"}},
    .run = mm_run,
    .footprint = mm_footprint,
};
