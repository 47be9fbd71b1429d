/*
** wl_util: placement, launch, input and verification helpers for the
** benchmark-suite workloads. See wl_util.h for the model (parts, wl_rows
** with halos, shared arrays). Invariant: every device buffer allocated
** through a wl_ctx is recorded in it and freed exactly once by
** wl_ctx_close, so a workload that fails half-way leaks nothing.
*/
#include "workloads/wl_util.h"
#include "workloads/wl_locality.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int wl_ctx_open(wl_ctx *c, mgs_rt *rt, const wl_args *args,
                const char *kernel_file)
{
    char path[4096];
    wl_kernel_path(kernel_file, path, sizeof path);
    return wl_ctx_open_path(c, rt, args, path);
}

int wl_ctx_open_path(wl_ctx *c, mgs_rt *rt, const wl_args *args,
                     const char *path)
{
    memset(c, 0, sizeof *c);
    c->rt = rt;
    c->args = args;
    int ngpu = args->num_gpus > 0 ? args->num_gpus : 1;
    if (ngpu > WL_MAX_PARTS)
        return mgs_error_set(MGS_EINVAL, "workload helpers support at most "
                             "%d GPUs, got %d", WL_MAX_PARTS, ngpu);
    c->gpu_all = args->gpu_all != 0;
    c->multi = ngpu > 1;
    c->parts = c->gpu_all ? 1 : ngpu;
    return mgs_module_load(rt, path, &c->mod);
}

void wl_ctx_close(wl_ctx *c)
{
    for (int i = 0; i < c->nbufs; i++)
        mgs_free(c->rt, c->bufs[i]);
    c->nbufs = 0;
}

int wl_kernel(wl_ctx *c, const char *name, mgs_kernel **out)
{
    return mgs_module_kernel(c->mod, name, out);
}

int wl_part_gpu(const wl_ctx *c, int p)
{
    if (c->gpu_all)
        return MGS_GPU_ALL;
    return c->multi ? p : 0;
}

int wl_shared_gpu(const wl_ctx *c)
{
    return c->multi ? MGS_GPU_ALL : 0;
}

void wl_split(const wl_ctx *c, int64_t n, int64_t align, int p,
              int64_t *begin, int64_t *count)
{
    if (align < 1)
        align = 1;
    int64_t per = (n + c->parts - 1) / c->parts;
    per = (per + align - 1) / align * align;
    int64_t b = per * p;
    if (b > n)
        b = n;
    int64_t e = b + per > n ? n : b + per;
    *begin = b;
    *count = e - b;
}

static int skip_sync;

void wl_inject_skip_sync(int on)
{
    skip_sync = on;
}

int wl_sync(wl_ctx *c)
{
    return c->multi && !skip_sync ? mgs_synchronize(c->rt) : MGS_OK;
}

int wl_alloc(wl_ctx *c, int gpu, size_t bytes, mgs_dptr *out)
{
    if (c->nbufs == WL_MAX_BUFS)
        return mgs_error_set(MGS_EINTERNAL, "workload uses more than %d "
                             "device buffers", WL_MAX_BUFS);
    int rc = mgs_malloc(c->rt, gpu, bytes ? bytes : 4, out);
    if (rc == MGS_OK)
        c->bufs[c->nbufs++] = *out;
    return rc;
}

int wl_upload(wl_ctx *c, int gpu, const void *host, size_t bytes,
              mgs_dptr *out)
{
    int rc = wl_alloc(c, gpu, bytes, out);
    if (rc == MGS_OK && bytes)
        rc = mgs_memcpy_h2d(c->rt, *out, host, bytes);
    return rc;
}

int wl_download(wl_ctx *c, void *host, mgs_dptr src, size_t bytes)
{
    return bytes ? mgs_memcpy_d2h(c->rt, host, src, bytes) : MGS_OK;
}

int wl_rows_alloc_halo(wl_ctx *c, wl_rows *r, int64_t nrows,
                       size_t row_bytes, int before, int after,
                       int64_t align)
{
    memset(r, 0, sizeof *r);
    r->parts = c->parts;
    r->halo = before;
    r->halo_after = after;
    r->row_bytes = row_bytes;
    r->nrows = nrows;
    for (int p = 0; p < r->parts; p++) {
        wl_split(c, nrows, align, p, &r->begin[p], &r->count[p]);
        size_t bytes = (size_t)(r->count[p] + before + after) * row_bytes;
        int rc = wl_alloc(c, wl_part_gpu(c, p), bytes, &r->d[p]);
        if (rc)
            return rc;
    }
    return MGS_OK;
}

int wl_rows_alloc(wl_ctx *c, wl_rows *r, int64_t nrows, size_t row_bytes,
                  int halo, int64_t align)
{
    return wl_rows_alloc_halo(c, r, nrows, row_bytes, halo, halo, align);
}

/* Rows in part p's buffer, halos included. */
static int64_t rows_local(const wl_rows *r, int p)
{
    return r->count[p] + r->halo + r->halo_after;
}

int wl_rows_upload(wl_ctx *c, wl_rows *r, const void *host)
{
    const uint8_t *src = host;
    for (int p = 0; p < r->parts; p++) {
        int64_t lo = r->begin[p] - r->halo;
        int64_t n = rows_local(r, p);
        uint8_t *tmp = mgs_xcalloc((size_t)n ? (size_t)n : 1, r->row_bytes);
        for (int64_t i = 0; i < n; i++) {
            int64_t g = lo + i;
            if (g >= 0 && g < r->nrows)
                memcpy(tmp + i * r->row_bytes, src + g * r->row_bytes,
                       r->row_bytes);
        }
        int rc = n ? mgs_memcpy_h2d(c->rt, r->d[p], tmp,
                                    (size_t)n * r->row_bytes) : MGS_OK;
        free(tmp);
        if (rc)
            return rc;
    }
    return MGS_OK;
}

int wl_rows_download(wl_ctx *c, const wl_rows *r, void *host)
{
    uint8_t *dst = host;
    for (int p = 0; p < r->parts; p++) {
        int rc = wl_download(c, dst + r->begin[p] * r->row_bytes,
                             wl_rows_own(r, p),
                             (size_t)r->count[p] * r->row_bytes);
        if (rc)
            return rc;
    }
    return MGS_OK;
}

mgs_dptr wl_rows_own(const wl_rows *r, int p)
{
    return r->d[p] + (mgs_dptr)r->halo * r->row_bytes;
}

/* Part owning global row g (g within [0, nrows)). */
static int rows_owner(const wl_rows *r, int64_t g)
{
    for (int p = 0; p < r->parts; p++)
        if (g >= r->begin[p] && g < r->begin[p] + r->count[p])
            return p;
    return -1;
}

/* Copies local rows [l0, l1) of part p from their owners, one d2d copy
** per run of rows that one other part owns. */
static int rows_fill(wl_ctx *c, const wl_rows *r, int p, int64_t l0,
                     int64_t l1)
{
    for (int64_t l = l0; l < l1;) {
        int64_t g = r->begin[p] - r->halo + l;
        int q = g >= 0 && g < r->nrows ? rows_owner(r, g) : -1;
        if (q < 0 || q == p) {
            l++;
            continue;
        }
        int64_t run = r->begin[q] + r->count[q] - g;
        if (run > l1 - l)
            run = l1 - l;
        mgs_dptr src = wl_rows_own(r, q) +
                       (mgs_dptr)(g - r->begin[q]) * r->row_bytes;
        mgs_dptr dst = r->d[p] + (mgs_dptr)l * r->row_bytes;
        int rc = mgs_memcpy_d2d(c->rt, dst, src, (size_t)run * r->row_bytes);
        if (rc)
            return rc;
        l += run;
    }
    return MGS_OK;
}

int wl_rows_exchange(wl_ctx *c, const wl_rows *r)
{
    for (int p = 0; p < r->parts; p++) {
        if (r->count[p] == 0)
            continue;
        int64_t below = r->halo + r->count[p];
        int rc = rows_fill(c, r, p, 0, r->halo);
        if (!rc) rc = rows_fill(c, r, p, below, below + r->halo_after);
        if (rc)
            return rc;
    }
    return MGS_OK;
}

/* Packs arguments per fmt at the metadata offsets of k; ptr_off[0 ..
** *nptr) receive the offsets of the pointers. */
static int pack_args(const mgs_kernel *k, uint8_t *buf, size_t cap,
                     size_t *size, uint32_t *ptr_off, int *nptr,
                     const char *fmt, va_list ap)
{
    *nptr = 0;
    /* A mismatch is a code object that does not belong to this host
    ** program (a wrong or corrupt file): bad input, exit 2. */
    int nargs = mgs_kernel_arg_count(k);
    if ((int)strlen(fmt) > nargs)
        return mgs_error_set(MGS_EFORMAT, "kernel %s takes %d explicit "
                             "arguments in its code object, the host "
                             "passes %zu", mgs_kernel_name(k), nargs,
                             strlen(fmt));
    size_t end = 0;
    memset(buf, 0, cap);
    for (int i = 0; fmt[i]; i++) {
        uint32_t off, sz;
        int rc = mgs_kernel_arg_offset(k, i, &off, &sz);
        if (rc)
            return rc;
        size_t want = fmt[i] == 'p' ? 8 : 4;
        if (sz != want || off + sz > cap)
            return mgs_error_set(MGS_EFORMAT, "kernel %s argument %d is "
                                 "%u bytes at %u in its code object, the "
                                 "host passes %zu ('%c')", mgs_kernel_name(k),
                                 i, sz, off, want, fmt[i]);
        switch (fmt[i]) {
        case 'p': {
            uint64_t v = va_arg(ap, mgs_dptr);
            memcpy(buf + off, &v, 8);
            ptr_off[(*nptr)++] = off;
            break;
        }
        case 'u': {
            uint32_t v = va_arg(ap, uint32_t);
            memcpy(buf + off, &v, 4);
            break;
        }
        case 'i': {
            int32_t v = va_arg(ap, int32_t);
            memcpy(buf + off, &v, 4);
            break;
        }
        case 'f': {
            float v = (float)va_arg(ap, double);
            memcpy(buf + off, &v, 4);
            break;
        }
        default:
            return mgs_error_set(MGS_EINTERNAL, "bad argument format '%c'",
                                 fmt[i]);
        }
        if (off + sz > end)
            end = off + sz;
    }
    *size = end;
    return MGS_OK;
}

static int launch_v(wl_ctx *c, mgs_kernel *k, int gpu, const uint32_t grid[3],
                    const uint32_t block[3], uint32_t lds, const char *fmt,
                    va_list ap)
{
    uint8_t buf[256];
    uint32_t ptr_off[256 / 8];
    int nptr;
    mgs_launch l;
    memset(&l, 0, sizeof l);
    int rc = pack_args(k, buf, sizeof buf, &l.args_size, ptr_off, &nptr,
                       fmt, ap);
    if (rc)
        return rc;
    if (!grid[0] || !grid[1] || !grid[2])
        return MGS_OK; /* an empty slice: nothing to do */
    memcpy(l.grid, grid, sizeof l.grid);
    memcpy(l.block, block, sizeof l.block);
    l.dynamic_lds = lds;
    l.args = buf;
    l.gpu = gpu;
    if (c->members && gpu == MGS_GPU_ALL)
        return wl_loc_launch(c, k, &l, ptr_off, nptr);
    return mgs_launch_kernel(c->rt, k, &l);
}

int wl_launch(wl_ctx *c, mgs_kernel *k, int gpu, const uint32_t grid[3],
              const uint32_t block[3], uint32_t lds, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = launch_v(c, k, gpu, grid, block, lds, fmt, ap);
    va_end(ap);
    return rc;
}

static uint32_t round_up(uint64_t n, uint32_t b)
{
    return (uint32_t)((n + b - 1) / b * b);
}

int wl_launch1(wl_ctx *c, mgs_kernel *k, int gpu, uint64_t n, uint32_t block,
               const char *fmt, ...)
{
    uint32_t grid[3] = { round_up(n, block), 1, 1 };
    uint32_t blk[3] = { block, 1, 1 };
    va_list ap;
    va_start(ap, fmt);
    int rc = launch_v(c, k, gpu, grid, blk, 0, fmt, ap);
    va_end(ap);
    return rc;
}

int wl_launch2(wl_ctx *c, mgs_kernel *k, int gpu, uint64_t nx, uint64_t ny,
               uint32_t bx, uint32_t by, const char *fmt, ...)
{
    uint32_t grid[3] = { round_up(nx, bx), round_up(ny, by), 1 };
    uint32_t blk[3] = { bx, by, 1 };
    va_list ap;
    va_start(ap, fmt);
    int rc = launch_v(c, k, gpu, grid, blk, 0, fmt, ap);
    va_end(ap);
    return rc;
}

void wl_rng_init(wl_rng *r, uint64_t seed, uint64_t stream)
{
    r->s = seed * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull + 1;
}

uint64_t wl_rng_u64(wl_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint32_t wl_rng_below(wl_rng *r, uint32_t bound)
{
    return (uint32_t)(((wl_rng_u64(r) >> 32) * (uint64_t)bound) >> 32);
}

float wl_rng_float(wl_rng *r, float lo, float hi)
{
    uint32_t steps = (uint32_t)((hi - lo) * 1024.0f);
    return lo + (float)wl_rng_below(r, steps ? steps : 1) / 1024.0f;
}

uint32_t wl_hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

void wl_fill_float(float *v, size_t n, uint64_t seed, uint64_t stream,
                   float lo, float hi)
{
    wl_rng r;
    wl_rng_init(&r, seed, stream);
    for (size_t i = 0; i < n; i++)
        v[i] = wl_rng_float(&r, lo, hi);
}

static int corrupt_next;

void wl_inject_corruption(int on)
{
    corrupt_next = on;
}

/* Whether this check is the one to corrupt (wl_inject_corruption); a check
** of nothing leaves the request for the next one. */
static int take_corruption(size_t n)
{
    if (!corrupt_next || !n)
        return 0;
    corrupt_next = 0;
    return 1;
}

int wl_check_u32(const char *what, uint32_t *got, const uint32_t *want,
                 size_t n)
{
    if (take_corruption(n))
        got[0] ^= 1;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            return mgs_error_set(MGS_EVERIFY, "%s[%zu] = %u, expected %u",
                                 what, i, got[i], want[i]);
    return MGS_OK;
}

int wl_check_u8(const char *what, uint8_t *got, const uint8_t *want,
                size_t n)
{
    if (take_corruption(n))
        got[0] ^= 1;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            return mgs_error_set(MGS_EVERIFY, "%s[%zu] = 0x%02x, expected "
                                 "0x%02x", what, i, got[i], want[i]);
    return MGS_OK;
}

int wl_check_f32(const char *what, float *got, const float *want, size_t n,
                 float rtol, float atol)
{
    if (take_corruption(n))
        got[0] = got[0] * 2.0f + 1.0f;
    for (size_t i = 0; i < n; i++) {
        float d = fabsf(got[i] - want[i]);
        if (!(d <= atol + rtol * fabsf(want[i])))
            return mgs_error_set(MGS_EVERIFY, "%s[%zu] = %.9g, expected %.9g "
                                 "(relative tolerance %g)", what, i,
                                 (double)got[i], (double)want[i],
                                 (double)rtol);
    }
    return MGS_OK;
}

int wl_stencil2d(wl_ctx *c, mgs_kernel *k, int64_t n, int steps, float *host)
{
    wl_rows buf[2];
    int rc = wl_rows_alloc(c, &buf[0], n, (size_t)n * 4, 1, 1);
    if (!rc) rc = wl_rows_alloc(c, &buf[1], n, (size_t)n * 4, 1, 1);
    if (!rc) rc = wl_rows_upload(c, &buf[0], host);
    if (!rc) rc = wl_rows_exchange(c, &buf[0]);
    int cur = 0;
    for (int s = 0; !rc && s < steps; s++) {
        const wl_rows *src = &buf[cur], *dst = &buf[cur ^ 1];
        for (int p = 0; !rc && p < c->parts; p++)
            rc = wl_launch2(c, k, wl_part_gpu(c, p), (uint64_t)n,
                            (uint64_t)src->count[p], 16, 16, "ppuuu",
                            wl_rows_own(src, p), wl_rows_own(dst, p),
                            (uint32_t)n, (uint32_t)src->begin[p],
                            (uint32_t)src->count[p]);
        cur ^= 1;
        if (!rc && s + 1 < steps)
            rc = wl_rows_exchange(c, &buf[cur]);
    }
    if (!rc) rc = wl_rows_download(c, &buf[cur], host);
    return rc;
}

int wl_stencil2d_workload(mgs_rt *rt, const wl_args *a,
                          const mgs_workload *w, const char *kernel,
                          const char *what,
                          float (*point)(const float *m, int64_t j,
                                         int64_t n))
{
    int64_t n = a->param[0], steps = a->param[1];
    const char *sname = w->params[1].name;
    if (n < 3 || n > 65536 || steps < 1 || steps > 100000)
        return mgs_error_set(MGS_EINVAL, "%s: need 3 <= n <= 65536 and "
                             "1 <= %s <= 100000, got n=%lld %s=%lld",
                             w->name, sname, (long long)n, sname,
                             (long long)steps);
    int fits = wl_host_fits(w->name, w->footprint(a));
    if (fits)
        return fits;
    size_t nn = (size_t)(n * n);
    float *cur = mgs_xmalloc(nn * 4), *got = mgs_xmalloc(nn * 4);
    float *nxt = mgs_xmalloc(nn * 4);
    wl_fill_float(cur, nn, a->seed, 0, 0.0f, 1.0f);
    memcpy(got, cur, nn * 4);
    wl_ctx c;
    mgs_kernel *k;
    int rc = wl_ctx_open(&c, rt, a, w->kernel_file);
    if (!rc) rc = wl_kernel(&c, kernel, &k);
    if (!rc) rc = wl_stencil2d(&c, k, n, (int)steps, got);
    if (!rc) {
        for (int64_t s = 0; s < steps; s++) {
            memcpy(nxt, cur, nn * 4);
            for (int64_t i = 1; i < n - 1; i++)
                for (int64_t j = 1; j < n - 1; j++)
                    nxt[i * n + j] = point(cur + i * n, j, n);
            float *t = cur;
            cur = nxt;
            nxt = t;
        }
        rc = wl_check_f32(what, got, cur, nn, 1e-5f, 1e-6f);
    }
    wl_ctx_close(&c);
    free(cur);
    free(got);
    free(nxt);
    return rc;
}

int wl_gemm_parts(wl_ctx *c, mgs_kernel *k, const int64_t rows[],
                  const mgs_dptr a[], mgs_dptr b, const mgs_dptr out[],
                  int64_t n, int64_t kd, float alpha, float beta)
{
    int rc = MGS_OK;
    for (int p = 0; !rc && p < c->parts; p++)
        rc = wl_launch2(c, k, wl_part_gpu(c, p), (uint64_t)n,
                        (uint64_t)rows[p], 16, 16, "pppuuff", a[p], b,
                        out[p], (uint32_t)n, (uint32_t)kd, (double)alpha,
                        (double)beta);
    return rc;
}

void wl_ref_gemm(float *out, const float *a, const float *b, int64_t m,
                 int64_t n, int64_t kd, float alpha, float beta)
{
    float *acc = mgs_xcalloc((size_t)n, sizeof *acc);
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < n; j++)
            acc[j] = 0.0f;
        /* i-k-j loop order for speed; each acc[j] still sums k in order */
        for (int64_t q = 0; q < kd; q++) {
            float aq = a[i * kd + q];
            const float *brow = b + q * n;
            for (int64_t j = 0; j < n; j++)
                acc[j] += aq * brow[j];
        }
        for (int64_t j = 0; j < n; j++)
            out[i * n + j] = alpha * acc[j] + beta * out[i * n + j];
    }
    free(acc);
}

void wl_rmat(wl_graph *g, int scale, int64_t edgefactor, uint64_t seed,
             int by_dst)
{
    int64_t nv = (int64_t)1 << scale, ne = nv * edgefactor;
    uint32_t *src = mgs_xmalloc((size_t)ne * 4);
    uint32_t *dst = mgs_xmalloc((size_t)ne * 4);
    uint32_t *perm = mgs_xmalloc((size_t)nv * 4);
    wl_rng r;
    wl_rng_init(&r, seed, 0x524d4154); /* "RMAT" */
    for (int64_t v = 0; v < nv; v++)
        perm[v] = (uint32_t)v;
    for (int64_t v = nv - 1; v > 0; v--) {
        uint32_t j = wl_rng_below(&r, (uint32_t)(v + 1));
        uint32_t t = perm[v];
        perm[v] = perm[j];
        perm[j] = t;
    }
    /* Quadrant thresholds out of 2^16: a, a + b, a + b + c. */
    const uint32_t ta = 37356, tb = 49807, tc = 62259;
    for (int64_t e = 0; e < ne; e++) {
        uint32_t s = 0, d = 0;
        for (int bit = 0; bit < scale; bit++) {
            uint32_t x = (uint32_t)(wl_rng_u64(&r) >> 48);
            uint32_t sb = x >= tb, db = (x >= ta && x < tb) || x >= tc;
            s |= sb << bit;
            d |= db << bit;
        }
        src[e] = perm[s];
        dst[e] = perm[d];
    }
    const uint32_t *key = by_dst ? dst : src, *val = by_dst ? src : dst;
    g->nv = nv;
    g->ne = ne;
    g->off = mgs_xcalloc((size_t)nv + 1, 4);
    g->adj = mgs_xmalloc((size_t)ne * 4);
    for (int64_t e = 0; e < ne; e++)
        g->off[key[e] + 1]++;
    for (int64_t v = 0; v < nv; v++)
        g->off[v + 1] += g->off[v];
    uint32_t *fill = mgs_xmalloc((size_t)nv * 4);
    memcpy(fill, g->off, (size_t)nv * 4);
    for (int64_t e = 0; e < ne; e++)
        g->adj[fill[key[e]]++] = val[e];
    free(fill);
    free(perm);
    free(src);
    free(dst);
}

int wl_graph_part(wl_ctx *c, const wl_graph *g, int p, int64_t align,
                  int64_t *first, int64_t *count, mgs_dptr *off,
                  mgs_dptr *adj)
{
    int gpu = wl_part_gpu(c, p);
    wl_split(c, g->nv, align, p, first, count);
    uint32_t e0 = g->off[*first];
    uint32_t *rebased = mgs_xmalloc((size_t)(*count + 1) * 4);
    for (int64_t i = 0; i <= *count; i++)
        rebased[i] = g->off[*first + i] - e0;
    int rc = wl_upload(c, gpu, rebased, (size_t)(*count + 1) * 4, off);
    if (!rc) rc = wl_upload(c, gpu, g->adj + e0,
                            (size_t)rebased[*count] * 4, adj);
    free(rebased);
    return rc;
}

void wl_graph_free(wl_graph *g)
{
    free(g->off);
    free(g->adj);
    g->off = g->adj = NULL;
}

int wl_param_order(const wl_args *a, const char *name, int64_t n,
                   int64_t lo, int64_t hi, int64_t multiple,
                   uint64_t (*footprint)(const wl_args *a))
{
    if (multiple > 1 && (n < lo || n > hi || n % multiple))
        return mgs_error_set(MGS_EINVAL, "%s: n must be a multiple of %lld "
                             "in [%lld, %lld], got %lld", name,
                             (long long)multiple, (long long)lo,
                             (long long)hi, (long long)n);
    if (n < lo || n > hi)
        return mgs_error_set(MGS_EINVAL, "%s: n must be in [%lld, %lld], "
                             "got %lld", name, (long long)lo, (long long)hi,
                             (long long)n);
    return wl_host_fits(name, footprint(a)); /* only once n is sane */
}

int wl_host_fits(const char *name, uint64_t device_bytes)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psize <= 0)
        return MGS_OK; /* unknown: let the allocations decide */
    uint64_t phys = (uint64_t)pages * (uint64_t)psize;
    if (device_bytes > phys / 3)
        return mgs_error_set(MGS_EINVAL, "%s: these parameters need about "
                             "%llu MiB of device memory and up to 3x that "
                             "on the host; this machine has %llu MiB", name,
                             (unsigned long long)(device_bytes >> 20),
                             (unsigned long long)(phys >> 20));
    return MGS_OK;
}
