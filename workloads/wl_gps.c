/*
** wl_gps: the paradigms of the GPS workloads (wl_gps.h).
*/
#include "workloads/wl_gps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"

int wl_gps_open(wl_gps *w, mgs_rt *rt, const wl_args *a, const char *kfile,
                int paradigm)
{
    memset(w, 0, sizeof *w);
    if (paradigm < 0 || paradigm >= WL_GPS_PARADIGMS)
        return mgs_error_set(MGS_EINVAL, "paradigm must be 0 (gps), 1 "
                             "(manual), 2 (gps without subscription), 3 "
                             "(memcpy), 4 (rdl) or 5 (um); got %d",
                             paradigm);
    w->paradigm = paradigm;
    int rc = wl_ctx_open(&w->c, rt, a, kfile);
    w->ngpu = w->c.parts;
    return rc;
}

void wl_gps_close(wl_gps *w) { wl_ctx_close(&w->c); }

void wl_gps_split(const wl_gps *w, int64_t n, int p, int64_t *begin,
                  int64_t *count)
{
    wl_split(&w->c, n, 1, p, begin, count);
}

static int track(wl_gps *w, mgs_dptr p)
{
    if (w->c.nbufs == WL_MAX_BUFS)
        return mgs_error_set(MGS_EINTERNAL, "workload uses more than %d "
                             "device buffers", WL_MAX_BUFS);
    w->c.bufs[w->c.nbufs++] = p;
    return MGS_OK;
}

int wl_gps_array(wl_gps *w, const void *host, size_t bytes,
                 const wl_grange own[], bool written, wl_gbuf **out)
{
    if (w->nbufs == WL_GPS_MAX_BUFS)
        return mgs_error_set(MGS_EINTERNAL, "more than %d GPS arrays",
                             WL_GPS_MAX_BUFS);
    wl_gbuf *b = &w->buf[w->nbufs++];
    memset(b, 0, sizeof *b);
    b->bytes = bytes ? bytes : 4;
    b->written = written;
    for (int p = 0; p < w->ngpu; p++)
        b->own[p] = own[p];
    int rc = MGS_OK;
    mgs_rt *rt = w->c.rt;
    switch (w->paradigm) {
    case WL_GPS_AUTO:
    case WL_GPS_ALL:
        rc = mgs_malloc_gps(rt, b->bytes, MGS_GPS_AUTO, &b->base);
        break;
    case WL_GPS_MANUAL:
        rc = mgs_malloc_gps(rt, b->bytes, MGS_GPS_MANUAL, &b->base);
        break;
    case WL_GPS_MEMCPY:
        for (int p = 0; !rc && p < w->ngpu; p++)
            if (!(rc = mgs_malloc(rt, wl_part_gpu(&w->c, p), b->bytes,
                                  &b->copy[p])))
                rc = track(w, b->copy[p]);
        b->base = b->copy[0];
        break;
    case WL_GPS_RDL:
        rc = mgs_malloc(rt, wl_shared_gpu(&w->c), b->bytes, &b->base);
        break;
    default:
        rc = mgs_malloc_managed(rt, b->bytes, &b->base);
        break;
    }
    if (!rc && w->paradigm != WL_GPS_MEMCPY)
        rc = track(w, b->base);
    for (int p = 0; !rc && host && p < (w->paradigm == WL_GPS_MEMCPY
                                            ? w->ngpu : 1); p++)
        rc = mgs_memcpy_h2d_untimed(rt, wl_gps_ptr(w, b, p), host, bytes);
    *out = b;
    return rc;
}

void wl_gps_access(wl_gbuf *b, int p, uint64_t begin, uint64_t end)
{
    if (b->nacc[p] < WL_GPS_MAX_RANGES && begin < end)
        b->acc[p][b->nacc[p]++] = (wl_grange){begin, end};
}

mgs_dptr wl_gps_ptr(const wl_gps *w, const wl_gbuf *b, int p)
{
    return w->paradigm == WL_GPS_MEMCPY ? b->copy[p] : b->base;
}

static bool accessed(const wl_gbuf *b, int p, uint64_t lo, uint64_t hi)
{
    if (b->own[p].begin < hi && lo < b->own[p].end)
        return true;
    for (uint32_t k = 0; k < b->nacc[p]; k++)
        if (b->acc[p][k].begin < hi && lo < b->acc[p][k].end)
            return true;
    return false;
}

/* manual: unsubscribe each part from the pages it never accesses (a page
** nobody accesses stays with part 0). */
static int subscribe_manual(wl_gps *w, const wl_gbuf *b)
{
    uint64_t page = mgs_rt_page_size(w->c.rt);
    for (uint64_t lo = 0; lo < b->bytes; lo += page) {
        uint32_t users = 0;
        for (int p = 0; p < w->ngpu; p++)
            users |= (uint32_t)accessed(b, p, lo, lo + page) << p;
        if (!users)
            users = 1;
        for (int p = 0; p < w->ngpu; p++) {
            int rc = users >> p & 1 ? MGS_OK
                                    : mgs_gps_unsubscribe(w->c.rt,
                                                          b->base + lo, page,
                                                          wl_part_gpu(&w->c,
                                                                      p));
            if (rc)
                return rc;
        }
    }
    return MGS_OK;
}

/* rdl: each page of b moves to the part owning its first byte. */
static int place_owners(wl_gps *w, const wl_gbuf *b)
{
    uint64_t page = mgs_rt_page_size(w->c.rt);
    for (uint64_t lo = 0; lo < b->bytes; lo += page)
        for (int p = 0; p < w->ngpu; p++)
            if (b->own[p].begin < lo + page && lo < b->own[p].end) {
                int g = wl_part_gpu(&w->c, p);
                int rc = mgs_rt_gpu_of(w->c.rt, b->base + lo) == g
                             ? MGS_OK
                             : mgs_rt_page_move(w->c.rt, b->base + lo, g, 1);
                if (rc)
                    return rc;
                break;
            }
    return MGS_OK;
}

int wl_gps_setup(wl_gps *w)
{
    if (w->ngpu < 2)
        return MGS_OK;
    for (int i = 0; i < w->nbufs; i++) {
        int rc = MGS_OK;
        if (w->paradigm == WL_GPS_MANUAL && mgs_gps_active(w->c.rt))
            rc = subscribe_manual(w, &w->buf[i]);
        else if (w->paradigm == WL_GPS_RDL)
            rc = place_owners(w, &w->buf[i]);
        if (rc)
            return rc;
    }
    return MGS_OK;
}

int wl_gps_iter_begin(wl_gps *w, int it)
{
    return it == 0 && w->paradigm == WL_GPS_AUTO && w->ngpu > 1
               ? mgs_gps_tracking_start(w->c.rt)
               : MGS_OK;
}

/* memcpy: every part's written bytes to every other part's copy. */
static int broadcast(wl_gps *w, const wl_gbuf *b)
{
    for (int p = 0; p < w->ngpu; p++) {
        const wl_grange *r = &b->own[p];
        if (r->end <= r->begin)
            continue;
        for (int q = 0; q < w->ngpu; q++) {
            if (q == p)
                continue;
            int rc = mgs_memcpy_d2d(w->c.rt, b->copy[q] + r->begin,
                                    b->copy[p] + r->begin,
                                    r->end - r->begin);
            if (rc)
                return rc;
        }
    }
    return MGS_OK;
}

int wl_gps_exchange(wl_gps *w, const wl_gbuf *b)
{
    int rc = wl_sync(&w->c);
    return !rc && w->paradigm == WL_GPS_MEMCPY && w->ngpu > 1
               ? broadcast(w, b)
               : rc;
}

int wl_gps_iter_end(wl_gps *w, int it)
{
    int rc = wl_sync(&w->c);
    if (!rc && it == 0 && w->paradigm == WL_GPS_AUTO && w->ngpu > 1)
        rc = mgs_gps_tracking_stop(w->c.rt);
    if (w->paradigm == WL_GPS_MEMCPY && w->ngpu > 1)
        for (int i = 0; !rc && i < w->nbufs; i++)
            if (w->buf[i].written)
                rc = broadcast(w, &w->buf[i]);
    return rc;
}

/* GPS: every GPU's replica of b must hold what the host read (a lost
** publication shows here even where no later kernel reads the bytes). */
static int check_replicas(wl_gps *w, const wl_gbuf *b, const void *host)
{
    uint8_t *got = malloc(b->bytes);
    int rc = MGS_OK;
    for (int p = 0; !rc && p < w->ngpu; p++) {
        rc = mgs_gps_read_replica(w->c.rt, wl_part_gpu(&w->c, p), got,
                                  b->base, b->bytes);
        for (size_t i = 0; !rc && i < b->bytes; i++)
            if (got[i] != ((const uint8_t *)host)[i])
                rc = mgs_error_set(MGS_EVERIFY, "GPS replica of GPU %d "
                                   "differs from the host's view at byte %zu "
                                   "of a %zu-byte array", wl_part_gpu(&w->c, p),
                                   i, b->bytes);
    }
    free(got);
    return rc;
}

int wl_gps_download(wl_gps *w, const wl_gbuf *b, void *host)
{
    int rc = wl_sync(&w->c);
    if (!rc)
        rc = mgs_memcpy_d2h_untimed(w->c.rt, host, b->base, b->bytes);
    if (!rc && w->paradigm <= WL_GPS_ALL && w->ngpu > 1 &&
        mgs_gps_active(w->c.rt))
        rc = check_replicas(w, b, host);
    return rc;
}

/* ---- 3-D stencils ---------------------------------------------------------- */

static int stencil_launch(wl_gps *w, mgs_kernel *k, const wl_gps_stencil *s,
                          wl_gbuf *const *st, int p, uint32_t nx, uint32_t ny,
                          uint32_t nz, uint32_t z0, uint32_t nzl)
{
    uint32_t grid[3] = {(nx + 63) / 64 * 64, (ny + 3) / 4 * 4, nzl};
    uint32_t blk[3] = {64, 4, 1};
    int g = wl_part_gpu(&w->c, p);
    mgs_dptr a0 = wl_gps_ptr(w, st[0], p), a1 = wl_gps_ptr(w, st[1], p);
    if (s->arrays == 3)
        return wl_launch(&w->c, k, g, grid, blk, 0, "pppuuuuuf", a0, a1,
                         wl_gps_ptr(w, st[2], p), nx, ny, nz, z0, nzl,
                         (double)s->coef[0]);
    return s->ncoef == 2
               ? wl_launch(&w->c, k, g, grid, blk, 0, "ppuuuuuff", a0, a1, nx,
                           ny, nz, z0, nzl, (double)s->coef[0],
                           (double)s->coef[1])
               : wl_launch(&w->c, k, g, grid, blk, 0, "ppuuuuuf", a0, a1, nx,
                           ny, nz, z0, nzl, (double)s->coef[0]);
}

int wl_gps_stencil_run(mgs_rt *rt, const wl_args *a, const wl_gps_stencil *s,
                       int64_t nx, int64_t ny, int64_t nz, int64_t iters,
                       int paradigm, float rtol)
{
    if (nx < 8 || ny < 8 || nz < 8 || nx * ny * nz > (1 << 26) || iters < 1)
        return mgs_error_set(MGS_EINVAL, "%s: each dimension >= 8, at most "
                             "2^26 cells, iters >= 1", s->name);
    size_t plane = (size_t)(nx * ny * s->comps), cells = plane * (size_t)nz;
    size_t bytes = cells * sizeof(float);
    float *h[3], *got = malloc(bytes);
    for (int v = 0; v < 3; v++)
        h[v] = malloc(bytes);
    wl_fill_float(h[0], cells, a->seed, 1, 0.0f, 1.0f);
    memcpy(h[1], h[0], bytes);
    memcpy(h[2], h[0], bytes);
    wl_gps w;
    wl_gbuf *st[3] = {0};
    mgs_kernel *k = NULL;
    int rc = wl_gps_open(&w, rt, a, "gps.hsaco", paradigm);
    int64_t z0[WL_MAX_PARTS], nzl[WL_MAX_PARTS];
    wl_grange own[WL_MAX_PARTS];
    for (int p = 0; !rc && p < w.ngpu; p++) {
        wl_gps_split(&w, nz, p, &z0[p], &nzl[p]);
        own[p] = (wl_grange){(uint64_t)z0[p] * plane * 4,
                             (uint64_t)(z0[p] + nzl[p]) * plane * 4};
    }
    for (int v = 0; v < s->arrays && !rc; v++) {
        rc = wl_gps_array(&w, h[0], bytes, own, true, &st[v]);
        for (int p = 0; !rc && p < w.ngpu; p++) {
            int64_t lo = z0[p] > s->halo ? z0[p] - s->halo : 0;
            int64_t hi = z0[p] + nzl[p] + s->halo < nz
                             ? z0[p] + nzl[p] + s->halo : nz;
            wl_gps_access(st[v], p, (uint64_t)lo * plane * 4,
                          (uint64_t)hi * plane * 4);
        }
    }
    if (!rc)
        rc = wl_gps_setup(&w);
    if (!rc)
        rc = wl_kernel(&w.c, s->kernel, &k);
    int na = s->arrays;
    for (int64_t it = 0; !rc && it < iters; it++) {
        wl_gbuf *rot[3];
        for (int v = 0; v < na; v++)
            rot[v] = st[(it + v) % na];
        rc = wl_gps_iter_begin(&w, (int)it);
        for (int p = 0; !rc && p < w.ngpu; p++)
            rc = stencil_launch(&w, k, s, rot, p, (uint32_t)nx, (uint32_t)ny,
                                (uint32_t)nz, (uint32_t)z0[p],
                                (uint32_t)nzl[p]);
        if (!rc)
            rc = wl_gps_iter_end(&w, (int)it);
    }
    if (!rc)
        rc = wl_gps_download(&w, st[(iters + na - 2) % na], got);
    if (!rc) {
        for (int64_t it = 0; it < iters; it++) {
            const float *in[3];
            for (int v = 0; v < na - 1; v++)
                in[v] = h[(it + v) % na];
            s->ref(in, h[(it + na - 1) % na], nx, ny, nz, s->coef);
        }
        char what[64];
        snprintf(what, sizeof what, "%s state", s->name);
        rc = wl_check_f32(what, got, h[(iters + na - 2) % na], cells, rtol,
                          1e-5f);
    }
    wl_gps_close(&w);
    for (int v = 0; v < 3; v++)
        free(h[v]);
    free(got);
    return rc;
}

/* ---- graphs ---------------------------------------------------------------- */

static uint32_t mix32(uint64_t a, uint64_t b)
{
    uint64_t z = a * 0x9E3779B97F4A7C15ull + b * 0xD1B54A32D192ED03ull + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)(z ^ (z >> 31));
}

void wl_gps_graph_make(wl_gps_graph *g, int64_t n, int64_t w, int far,
                       uint64_t seed)
{
    /* Undirected edges (u, v), u < v, each stored both ways. */
    int64_t cap = n * 3, ne = 0;
    int64_t *eu = malloc((size_t)cap * sizeof *eu),
            *ev = malloc((size_t)cap * sizeof *ev);
    for (int64_t u = 0; u < n; u++) {
        if (u + 1 < n)
            eu[ne] = u, ev[ne++] = u + 1;
        if (u + w < n)
            eu[ne] = u, ev[ne++] = u + w;
        int64_t r = far ? (int64_t)(mix32(seed, (uint64_t)u) % (uint64_t)n)
                        : u;
        if (r != u && r != u + 1 && r != u + w && r + 1 != u && r + w != u)
            eu[ne] = u, ev[ne++] = r;
    }
    g->n = n;
    g->m = 2 * ne;
    g->rowp = calloc((size_t)n + 1, sizeof *g->rowp);
    g->col = malloc((size_t)g->m * sizeof *g->col);
    g->wt = malloc((size_t)g->m * sizeof *g->wt);
    for (int64_t e = 0; e < ne; e++) {
        g->rowp[eu[e] + 1]++;
        g->rowp[ev[e] + 1]++;
    }
    for (int64_t v = 0; v < n; v++)
        g->rowp[v + 1] += g->rowp[v];
    uint32_t *fill = malloc((size_t)n * sizeof *fill);
    memcpy(fill, g->rowp, (size_t)n * sizeof *fill);
    for (int64_t e = 0; e < ne; e++) {
        int64_t a = eu[e] < ev[e] ? eu[e] : ev[e], b = eu[e] ^ ev[e] ^ a;
        uint32_t wgt = 1 + mix32(seed + 1, (uint64_t)(a * n + b)) % 16;
        uint32_t i = fill[eu[e]]++, j = fill[ev[e]]++;
        g->col[i] = (uint32_t)ev[e];
        g->wt[i] = wgt;
        g->col[j] = (uint32_t)eu[e];
        g->wt[j] = wgt;
    }
    free(fill);
    free(eu);
    free(ev);
}

void wl_gps_graph_free(wl_gps_graph *g)
{
    free(g->rowp);
    free(g->col);
    free(g->wt);
}

void wl_gps_graph_access(const wl_gps_graph *g, wl_gbuf *b, int p,
                         int64_t v0, int64_t nv)
{
    /* Own range plus the neighbours, merged into at most
    ** WL_GPS_MAX_RANGES ranges (far neighbours: the whole array). */
    int64_t lo = v0, hi = v0 + nv;
    bool far = false;
    for (int64_t v = v0; v < v0 + nv; v++)
        for (uint32_t e = g->rowp[v]; e < g->rowp[v + 1]; e++) {
            int64_t u = g->col[e];
            if (u < v0 - 4 * nv || u >= v0 + 5 * nv)
                far = true;
            lo = u < lo ? u : lo;
            hi = u + 1 > hi ? u + 1 : hi;
        }
    /* One more entry: rowp[u + 1] gives u's degree. */
    if (far)
        wl_gps_access(b, p, 0, (uint64_t)(g->n + 1) * 4);
    else
        wl_gps_access(b, p, (uint64_t)lo * 4, (uint64_t)(hi + 1) * 4);
}

int wl_gps_graph_arrays(wl_gps *w, const wl_gps_graph *g,
                        const int64_t v0[], const int64_t nv[],
                        wl_gbuf **rowp, wl_gbuf **col, wl_gbuf **wt)
{
    wl_grange ov[WL_MAX_PARTS], oe[WL_MAX_PARTS];
    for (int p = 0; p < w->ngpu; p++) {
        ov[p] = (wl_grange){(uint64_t)v0[p] * 4,
                            (uint64_t)(v0[p] + nv[p] + 1) * 4};
        oe[p] = (wl_grange){(uint64_t)g->rowp[v0[p]] * 4,
                            (uint64_t)g->rowp[v0[p] + nv[p]] * 4};
    }
    int rc = wl_gps_array(w, g->rowp, (size_t)(g->n + 1) * 4, ov, false,
                          rowp);
    if (!rc)
        rc = wl_gps_array(w, g->col, (size_t)g->m * 4, oe, false, col);
    if (!rc && wt)
        rc = wl_gps_array(w, g->wt, (size_t)g->m * 4, oe, false, wt);
    for (int p = 0; !rc && p < w->ngpu; p++)
        wl_gps_graph_access(g, *rowp, p, v0[p], nv[p]);
    return rc;
}

uint64_t wl_gps_stencil_footprint(const wl_gps_stencil *s, const wl_args *a,
                                  int64_t n)
{
    uint64_t cells = (uint64_t)n * (uint64_t)n * (uint64_t)n;
    return cells * 4 * (uint64_t)s->arrays * (uint64_t)s->comps *
           (uint64_t)(a->num_gpus > 0 ? a->num_gpus : 1);
}
