/*
** The coherence protocol "gps" (seed 003): nc's bulk-synchronous rules
** (src/coh/nc/nc.c) plus the GPS hardware of each GPU.
**
**   L2 ingress shim   cache hook `admit` on every L2 bank: a store or
**                     atomic to a GPS page (found by its physical frame in
**                     the GPS page table's reverse map) that is not itself
**                     a publication enters the GPU's unit (gps_unit.c).
**                     While the profiling window is open, every access of
**                     a GPU to a GPS page marks the page's bit of that GPU.
**   releases          the answer of an L2 flush (kernel end, copy end,
**                     peer release) and of a wave's fence at its L1
**                     (buffer_wbinvl1[_vol]: system scope, gps.h) is held
**                     (cache hook `hold_ctrl`) until the unit has drained
**                     its queue and every publication is acknowledged, so a
**                     kernel ends, and a fence completes, only once its
**                     stores reached every subscriber's replica.
** Everything else is nc: launches invalidate the L1s and TLBs; with several
** GPUs the L2s are written back and dropped at kernel end.
*/
#include <stdio.h>
#include <stdlib.h>

#include "coh/gps/gps_int.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

extern const coh_protocol coh_nc;

/* One cache's view of the instance (hooks get it as pd). */
typedef struct gps_site {
    gps *s;
    uint32_t gpu;
    bool l2;
    struct gps_site *next;
} gps_site;

typedef struct gps_inst {
    gps s;                    /* first: the instance is a gps */
    gps_site *sites;
    stat_registry *own_stats;
} gps_inst;

gps *gps_of(coh *c)
{
    return c && c->proto == &coh_gps ? c->pd : NULL;
}

static int gps_check(const coh_system *sys)
{
    const coh_gps_params *k = &sys->gps;
    if (sys->ngpus > GPS_MAX_GPUS)
        return mgs_error_set(MGS_ECONFIG, "coherence.protocol = gps supports "
                             "at most %d GPUs (got %u)", GPS_MAX_GPUS,
                             sys->ngpus);
    if (sys->ngpus > 1 && !sys->rdma)
        return mgs_error_set(MGS_ECONFIG, "coherence.protocol = gps needs "
                             "platform.type = discrete or unified");
    if (sys->remote_cache != COH_REMOTE_L1)
        return mgs_error_set(MGS_ECONFIG, "coherence.protocol = gps needs "
                             "coherence.remote_cache = l1");
    if (k->queue_block != 64 && k->queue_block != 128)
        return mgs_error_set(MGS_ECONFIG, "gps.queue_block must be 64 or 128 "
                             "(got %u)", k->queue_block);
    if (k->tlb_entries % k->tlb_ways)
        return mgs_error_set(MGS_ECONFIG, "gps.tlb_entries (%u) must be a "
                             "multiple of gps.tlb_ways (%u)", k->tlb_entries,
                             k->tlb_ways);
    return MGS_OK;
}

static void gps_sync(const coh_system *sys, coh_point p, uint32_t gpu,
                     coh_sync *out)
{
    coh_nc.sync(sys, p, gpu, out);
}

static void *gps_create(const coh_system *sys, sim_engine *eng,
                        mem_pool *pool, stat_registry *stats)
{
    gps_inst *in = MGS_NEW(gps_inst);
    gps *s = &in->s;
    s->sys = *sys;
    s->eng = eng;
    s->pool = pool;
    /* Without a registry (litmus runs) the counters go to a private one. */
    if (!stats)
        stats = in->own_stats = stat_registry_new();
    s->stats = stats;
    s->page_shift = (unsigned)__builtin_ctzll(sys->gps.page_bytes);
    gps_map_init(&s->rmap, 1024);
    s->subscribers = stat_hist_add(stats, "GPS", "subscribers_per_page",
                                   "count");
    s->tracked = stat_counter_add(stats, "GPS", "pages_touched_in_window",
                                  "count");
    return in;
}

static void gps_destroy(void *pd)
{
    gps_inst *in = pd;
    for (uint32_t g = 0; g < GPS_MAX_GPUS; g++)
        gps_unit_free(in->s.units[g]);
    for (gps_site *t = in->sites, *n; t; t = n) {
        n = t->next;
        free(t);
    }
    gps_map_fini(&in->s.rmap);
    free(in->s.pages);
    if (in->own_stats)
        stat_registry_free(in->own_stats);
    free(in);
}

/* ---- cache hooks ------------------------------------------------------- */

static bool l2_admit(void *pd, cache *c, const mem_msg *req, bool home)
{
    (void)c;
    (void)home;
    gps_site *t = pd;
    gps *s = t->s;
    /* Publications are not published again; the runtime's copies reach
    ** every replica through the driver (gps_drv_host_wrote). */
    if (!s->rmap.count || (req->flags & (MEM_F_GPS_PUB | MEM_F_COPY)))
        return true;
    bool write = req->base.type != MEM_READ;
    if (!write && !s->tracking)
        return true;
    uint32_t i;
    gps_page *p = gps_table_by_pa(s, req->addr, &i);
    if (!p)
        return true;
    if (s->tracking) {
        uint32_t who = req->gpu >= 0 && (uint32_t)req->gpu < s->sys.ngpus
                           ? (uint32_t)req->gpu
                           : t->gpu;
        if (!(p->touched >> who & 1))
            stat_inc(s->tracked);
        p->touched |= 1u << who;
    }
    if (write && p->gps && s->units[t->gpu])
        gps_unit_capture(s->units[t->gpu], i, req);
    return true;
}

/* Kernel end (and copy end, peer release): the CP's flush of an L2 bank
** is answered once the queue drained and every publication is
** acknowledged. */
static bool hold_release(void *pd, cache *c, const mem_msg *req,
                         bool from_top)
{
    gps_site *t = pd;
    gps_unit *u = t->s->units[t->gpu];
    return u && !from_top && !gps_unit_drained(u, c, req->addr);
}

/* A wave's fence (system scope, gps.h) starts at its L1 only once the
** queue drained and every publication is acknowledged: its invalidation
** then comes after the stores it orders reached every replica. */
static bool admit_fence(void *pd, cache *c, const mem_msg *req)
{
    (void)req;
    gps_site *t = pd;
    gps_unit *u = t->s->units[t->gpu];
    return !u || gps_unit_fence_ready(u, c);
}

static const cache_protocol l2_hooks = {
    .name = "gps-l2",
    .admit = l2_admit,
    .hold_ctrl = hold_release,
};

static const cache_protocol l1_hooks = {
    .name = "gps-l1",
    .admit_fence = admit_fence,
};

static void gps_attach(void *pd, cache *c, coh_level level, uint32_t gpu)
{
    gps_inst *in = pd;
    if (in->s.sys.ngpus < 2 || (level != COH_L2 && level != COH_L1V))
        return;
    gps_site *t = MGS_NEW(gps_site);
    *t = (gps_site){.s = &in->s, .gpu = gpu, .l2 = level == COH_L2,
                    .next = in->sites};
    in->sites = t;
    cache_set_protocol(c, level == COH_L2 ? &l2_hooks : &l1_hooks, t);
}

static void gps_xbar_port(void *pd, uint32_t gpu, sim_conn *xbar,
                          const mem_route *route)
{
    gps_inst *in = pd;
    if (in->s.sys.ngpus < 2 || gpu >= GPS_MAX_GPUS)
        return;
    in->s.units[gpu] = gps_unit_new(&in->s, gpu, route);
    sim_port *port;
    for (uint32_t i = 0; (port = gps_unit_port(in->s.units[gpu], i)); i++)
        conn_plug(xbar, port);
}

const coh_protocol coh_gps = {
    .name = "gps",
    .summary = "GPS publish-subscribe (seed 003): nc plus replicas of GPS "
               "allocations in every subscriber's memory, stores published "
               "through a coalescing remote write queue",
    .check = gps_check,
    .sync = gps_sync,
    .fence_l1 = COH_INVALIDATE,
    .create = gps_create,
    .destroy = gps_destroy,
    .attach_cache = gps_attach,
    .xbar_port = gps_xbar_port,
};
