/*
** wl_gps: the paradigms of the GPS workloads (wl_gps.h).
*/
#include "workloads/wl_gps.h"

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
        rc = mgs_memcpy_h2d(rt, wl_gps_ptr(w, b, p), host, bytes);
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
        rc = mgs_memcpy_d2h(w->c.rt, host, b->base, b->bytes);
    if (!rc && w->paradigm <= WL_GPS_ALL && w->ngpu > 1 &&
        mgs_gps_active(w->c.rt))
        rc = check_replicas(w, b, host);
    return rc;
}
