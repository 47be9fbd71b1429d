/*
** mt: out = transpose(in) for a rows x cols uint32 matrix through a 16x17
** LDS tile (kernels/mt.hip): coalesced reads and writes, a barrier, and a
** transposed LDS access pattern. Edge tiles are guarded, so any size works.
**
** Placement: scatter. A transpose sends every input row to every output
** column band, so on several GPUs both matrices are spread over all GPUs
** (one launch per part over a band of input rows on a discrete platform,
** one MGS_GPU_ALL launch on unified, shared and monolithic).
** Inputs: splitmix64 words keyed by seed (wl_rng).
** Verification: bit-exact.
*/
#include "workloads/wl_locality.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>

enum { P_ROWS, P_COLS, P_LOCALITY };

static int mt_run(mgs_rt *rt, const wl_args *a)
{
    int64_t rows = a->param[P_ROWS], cols = a->param[P_COLS];
    if (rows < 1 || cols < 1 || rows > 65536 || cols > 65536)
        return mgs_error_set(MGS_EINVAL, "mt: rows and cols must be in "
                             "[1, 65536], got %lld x %lld", (long long)rows,
                             (long long)cols);
    size_t nn = (size_t)(rows * cols);
    uint32_t *in = mgs_xmalloc(nn * 4), *want = mgs_xmalloc(nn * 4);
    uint32_t *got = mgs_xmalloc(nn * 4);
    wl_rng r;
    wl_rng_init(&r, a->seed, 0);
    for (size_t i = 0; i < nn; i++)
        in[i] = (uint32_t)wl_rng_u64(&r);
    for (int64_t y = 0; y < rows; y++)
        for (int64_t x = 0; x < cols; x++)
            want[x * rows + y] = in[y * cols + x];
    wl_ctx c;
    mgs_kernel *k = NULL;
    mgs_dptr din, dout;
    int rc = wl_ctx_open(&c, rt, a, "mt.hsaco");
    if (!rc) rc = wl_ctx_locality(&c, a->param[P_LOCALITY]);
    if (!rc) rc = wl_kernel(&c, "mt", &k);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), nn * 4, &din);
    if (!rc) rc = wl_alloc(&c, wl_shared_gpu(&c), nn * 4, &dout);
    /* Locality API: each member's band of input rows (16 per row of
    ** work-groups) on it, the output in bands of its rows as well: a
    ** member reads locally and writes a column band of the output, which
    ** lies on every member (scatter; pages are too coarse to place a
    ** column band). */
    if (!rc) rc = wl_loc_place(&c, din, 1, rows, (size_t)cols * 4, 16);
    if (!rc) rc = wl_loc_place(&c, dout, 1, cols, (size_t)rows * 4, 16);
    if (!rc) rc = mgs_memcpy_h2d(rt, din, in, nn * 4);
    /* Each part transposes a band of input rows: its tiles are found by
    ** offsetting the input pointer, and the output pointer by the same
    ** number of output columns. */
    for (int p = 0; !rc && p < c.parts; p++) {
        int64_t b, cnt;
        wl_split(&c, rows, 16, p, &b, &cnt);
        if (!cnt)
            continue;
        rc = wl_launch2(&c, k, wl_part_gpu(&c, p), (uint64_t)cols,
                        (uint64_t)cnt, 16, 16, "ppuuu",
                        din + (mgs_dptr)(b * cols) * 4, dout + (mgs_dptr)b * 4,
                        (uint32_t)cnt, (uint32_t)cols, (uint32_t)rows);
    }
    if (!rc) rc = wl_download(&c, got, dout, nn * 4);
    if (!rc) rc = wl_check_u32("mt: out", got, want, nn);
    wl_ctx_close(&c);
    free(in);
    free(want);
    free(got);
    return rc;
}

static uint64_t mt_footprint(const wl_args *a)
{
    return 2ull * 4 * (uint64_t)a->param[P_ROWS] * (uint64_t)a->param[P_COLS];
}

const mgs_workload wl_mt = {
    .name = "mt",
    .suite = "MGPUMark",
    .pattern = "scatter",
    .description = "matrix transpose through LDS tiles (uint32)",
    .kernel_file = "mt.hsaco",
    .params = {{"rows", 200, 4096, "input rows (default 4096: 128 MB; assumed)"},
               {"cols", 136, 4096, "input columns"},
               {"locality", 0, 0, "1: the Locality API variant (unified "
                "platform, docs/workloads.md)"}},
    .run = mt_run,
    .footprint = mt_footprint,
};
