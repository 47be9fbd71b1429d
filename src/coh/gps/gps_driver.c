/*
** The GPS driver (seed 003 §4, §5.2): what cudaMallocGPS, cuMemAdvise's
** GPS_SUBSCRIBE / GPS_UNSUBSCRIBE and cuGPSTrackingStart / Stop do to the
** page tables (src/runtime/devmem.h) and the GPS page table (gps_table.c).
** The runtime calls these between kernels, after synchronising: with
** several GPUs every L2 is empty then (nc's kernel-end and peer-release
** rules) and the next launch drops the TLBs, so changing a mapping needs
** no shoot-down here.
**
** Mappings of a GPS page:
**   - a subscriber's page table maps its own replica (a frame on its GPU);
**   - a non-subscriber's maps the replica of the lowest numbered subscriber
**     (its loads and stores go there over RDMA; gps.h);
**   - the host's maps a subscriber's replica (the one the allocation
**     placed, until that GPU unsubscribes): host copies read it, and host
**     writes are copied to every other replica (gps_drv_host_wrote).
*/
#include "coh/gps/gps_int.h"
#include "mgsim/errors.h"
#include "runtime/devmem.h"

static uint64_t frame_pa(const mgs_devmem *m, int gpu, uint32_t frame)
{
    return (uint64_t)gpu * m->mem_per_gpu + (uint64_t)frame * m->page_size;
}

/* Where table t maps va's page, as a global physical page address. */
static int table_pa(mgs_devmem *m, int t, uint64_t va, uint64_t *pa)
{
    int g;
    uint32_t f;
    int rc = mgs_devmem_page_frame(m, t, va, &g, &f);
    if (!rc)
        *pa = frame_pa(m, g, f);
    return rc;
}

static int map_to(mgs_devmem *m, int t, uint64_t va, uint64_t pa)
{
    return mgs_devmem_map(m, t, va, (int)(pa / m->mem_per_gpu),
                          (uint32_t)(pa % m->mem_per_gpu / m->page_size));
}

int gps_drv_alloc(gps *s, mgs_devmem *m, uint64_t va, uint64_t size,
                  bool manual)
{
    if (m->page_size != gps_page_bytes(s))
        return mgs_error_set(MGS_ECONFIG, "GPS: page size mismatch");
    uint32_t all = (uint32_t)((1ull << s->sys.ngpus) - 1);
    for (uint64_t o = 0; o < size; o += m->page_size) {
        if (gps_table_find(s, va + o))
            continue;          /* already GPS */
        gps_page p = {.va = va + o, .subs = all, .manual = manual};
        for (uint32_t g = 0; g < GPS_MAX_GPUS; g++)
            p.pa[g] = GPS_NO_PA;
        uint64_t host;
        int rc = table_pa(m, MGS_DEVMEM_HOST, p.va, &host);
        int owner = (int)(host / m->mem_per_gpu);
        for (uint32_t g = 0; !rc && g < s->sys.ngpus; g++) {
            if ((int)g != owner)
                rc = mgs_devmem_replicate_page(m, p.va, (int)g, 1u << g);
            if (!rc)
                rc = table_pa(m, (int)g, p.va, &p.pa[g]);
        }
        if (rc)
            return rc;
        gps_table_add(s, &p);
    }
    return MGS_OK;
}

/* Page index i no longer has GPU g as a subscriber. */
static int drop_subscriber(gps *s, mgs_devmem *m, uint32_t i, uint32_t g)
{
    gps_page *p = gps_table_at(s, i);
    uint32_t rest = p->subs & ~(1u << g);
    if (!rest)
        return mgs_error_set(MGS_EINVAL, "GPS unsubscribe of GPU %u from "
                             "0x%llx: it is the page's last subscriber", g,
                             (unsigned long long)p->va);
    uint64_t gone = p->pa[g];
    uint64_t keep = p->pa[__builtin_ctz(rest)];
    /* Every table that maps the dropped replica (g's, the host's, the
    ** non-subscribers' that pointed there) moves to the lowest remaining
    ** subscriber's; the frame is released with its last mapping. */
    for (int t = -2; t < (int)s->sys.ngpus; t++) {
        if (t == -1)
            continue;
        uint64_t pa;
        if (!table_pa(m, t, p->va, &pa) && pa == gone) {
            int rc = map_to(m, t, p->va, keep);
            if (rc)
                return rc;
        }
    }
    gps_table_forget(s, i, g);
    return MGS_OK;
}

static int add_subscriber(gps *s, mgs_devmem *m, uint32_t i, uint32_t g)
{
    gps_page *p = gps_table_at(s, i);
    /* A replica with the host-visible bytes (a subscriber's: current
    ** between kernels), mapped in g's table only. */
    int rc = mgs_devmem_replicate_page(m, p->va, (int)g, 1u << g);
    if (!rc)
        rc = table_pa(m, (int)g, p->va, &p->pa[g]);
    if (rc)
        return rc;
    p->subs |= 1u << g;
    gps_table_update(s, i);
    return MGS_OK;
}

int gps_drv_subscription(gps *s, mgs_devmem *m, uint64_t va, uint64_t n,
                         int gpu, bool subscribe)
{
    if (gpu < 0 || (uint32_t)gpu >= s->sys.ngpus)
        return mgs_error_set(MGS_EINVAL, "GPS subscription: no GPU %d", gpu);
    uint64_t first = va & ~(m->page_size - 1);
    bool any = false;
    for (uint64_t a = first; a < va + n; a += m->page_size) {
        gps_page *p = gps_table_find(s, a);
        if (!p)
            continue;
        any = true;
        uint32_t i = (uint32_t)(p - gps_table_at(s, 0));
        bool is = p->subs >> gpu & 1;
        int rc = subscribe && !is    ? add_subscriber(s, m, i, (uint32_t)gpu)
                 : !subscribe && is ? drop_subscriber(s, m, i, (uint32_t)gpu)
                                    : MGS_OK;
        if (rc)
            return rc;
    }
    return any ? MGS_OK
               : mgs_error_set(MGS_EINVAL, "GPS subscription: 0x%llx is not "
                               "in a GPS allocation",
                               (unsigned long long)va);
}

/* The subscriber (as a bit) whose replica the host maps: the copy the
** allocation placed, unless that GPU has left; else the lowest numbered. */
static uint32_t home_subscriber(gps *s, mgs_devmem *m, const gps_page *p)
{
    uint64_t host;
    if (!table_pa(m, MGS_DEVMEM_HOST, p->va, &host))
        for (uint32_t g = 0; g < s->sys.ngpus; g++)
            if ((p->subs >> g & 1) && p->pa[g] == host)
                return 1u << g;
    return p->subs & (0u - p->subs);
}

int gps_drv_tracking_stop(gps *s, mgs_devmem *m)
{
    gps_tracking_set(s, false);
    for (uint32_t i = 0; i < gps_table_count(s); i++) {
        gps_page *p = gps_table_at(s, i);
        if (p->manual)
            continue;
        uint32_t keep = p->touched & p->subs;
        if (!keep)            /* nobody touched it: one copy stays */
            keep = home_subscriber(s, m, p);
        for (uint32_t g = 0; g < s->sys.ngpus; g++)
            if ((p->subs & ~keep) >> g & 1) {
                int rc = drop_subscriber(s, m, i, g);
                if (rc)
                    return rc;
            }
    }
    gps_count_subscribers(s);
    return MGS_OK;
}

int gps_drv_host_wrote(gps *s, mgs_devmem *m, uint64_t va, uint64_t n)
{
    uint8_t buf[4096];
    uint64_t first = va & ~(m->page_size - 1);
    for (uint64_t a = first; a < va + n; a += m->page_size) {
        gps_page *p = gps_table_find(s, a);
        uint64_t host;
        if (!p || table_pa(m, MGS_DEVMEM_HOST, a, &host))
            continue;
        uint64_t lo = a > va ? a : va;
        uint64_t hi = a + m->page_size < va + n ? a + m->page_size : va + n;
        for (uint32_t g = 0; g < s->sys.ngpus; g++) {
            if (p->pa[g] == GPS_NO_PA || p->pa[g] == host)
                continue;
            for (uint64_t b = lo; b < hi; b += sizeof buf) {
                size_t k = hi - b < sizeof buf ? (size_t)(hi - b) : sizeof buf;
                int rc = mgs_devmem_phys_read(m, host + (b - a), buf, k);
                if (!rc)
                    rc = mgs_devmem_phys_write(m, p->pa[g] + (b - a), buf, k);
                if (rc)
                    return rc;
            }
        }
    }
    return MGS_OK;
}
