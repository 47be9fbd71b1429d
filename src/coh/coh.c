/*
** The protocol registry and the coh_sync helpers every protocol and the
** runtime share (coh.h).
*/
#include "coh/coh.h"

#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

/* One line per protocol folder under src/coh/. */
extern const coh_protocol coh_nc;
extern const coh_protocol coh_halcone;
extern const coh_protocol coh_dir, coh_hmg, coh_rec; /* src/coh/dir/ */
extern const coh_protocol coh_gps;                  /* src/coh/gps/ */
extern const coh_protocol coh_carve_swc, coh_carve_hwc,
    coh_carve_nc;                                    /* src/coh/carve/ */

static const coh_protocol *const protocols[] = {
    &coh_nc,
    &coh_halcone,
    &coh_dir,
    &coh_hmg,
    &coh_rec,
    &coh_gps,
    &coh_carve_swc,
    &coh_carve_hwc,
    &coh_carve_nc,
};

#define NBUILTIN (sizeof protocols / sizeof protocols[0])

/* Protocols registered at run time (tests' deliberately broken variants,
** experiments linked into a program); looked up after the built-in ones. */
#define COH_MAX_EXTRA 16
static const coh_protocol *extra[COH_MAX_EXTRA];
static size_t nextra;

const coh_protocol *const *coh_all(size_t *n)
{
    *n = NBUILTIN;
    return protocols;
}

int coh_register(const coh_protocol *p)
{
    if (coh_find(p->name))
        return mgs_error_set(MGS_EINVAL, "coherence protocol '%s' is "
                             "already registered", p->name);
    if (nextra == COH_MAX_EXTRA)
        return mgs_error_set(MGS_EINVAL, "more than %d registered coherence "
                             "protocols", COH_MAX_EXTRA);
    extra[nextra++] = p;
    return MGS_OK;
}

const coh_protocol *coh_find(const char *name)
{
    for (size_t i = 0; i < NBUILTIN; i++)
        if (!strcmp(protocols[i]->name, name))
            return protocols[i];
    for (size_t i = 0; i < nextra; i++)
        if (!strcmp(extra[i]->name, name))
            return extra[i];
    return NULL;
}

const char *coh_not_built(const char *name)
{
    /* Every protocol coherence.protocol names is built; a protocol a
    ** preset names before it exists gets a line here ({name, which issue
    ** builds it}) until then. */
    (void)name;
    return NULL;
}

int coh_remote_cache_parse(const char *s)
{
    if (!strcmp(s, "l1"))
        return COH_REMOTE_L1;
    if (!strcmp(s, "l2"))
        return COH_REMOTE_L2;
    return -1;
}

int coh_new(const coh_protocol *p, const coh_system *sys, sim_engine *eng,
            mem_pool *pool, stat_registry *stats, coh **out)
{
    *out = NULL;
    int rc = p->check ? p->check(sys) : MGS_OK;
    if (rc)
        return rc;
    coh *c = MGS_NEW(coh);
    c->proto = p;
    c->sys = *sys;
    c->pd = p->create ? p->create(sys, eng, pool, stats) : NULL;
    *out = c;
    return MGS_OK;
}

void coh_free(coh *c)
{
    if (!c)
        return;
    if (c->proto->destroy)
        c->proto->destroy(c->pd);
    free(c);
}

void coh_sync_at(const coh *c, coh_point p, uint32_t gpu, coh_sync *out)
{
    memset(out, 0, sizeof *out);
    c->proto->sync(&c->sys, p, gpu, out);
}

void coh_sync_add_range(coh_sync *s, uint64_t addr, uint64_t bytes)
{
    if (s->l2_all || !bytes)
        return;
    for (uint32_t i = 0; i < s->nranges; i++) {
        coh_range *r = &s->range[i];
        /* Touching or overlapping ranges merge. */
        if (addr <= r->addr + r->bytes && r->addr <= addr + bytes) {
            uint64_t lo = addr < r->addr ? addr : r->addr;
            uint64_t hi = addr + bytes > r->addr + r->bytes
                              ? addr + bytes : r->addr + r->bytes;
            r->addr = lo;
            r->bytes = hi - lo;
            return;
        }
    }
    if (s->nranges == COH_MAX_RANGES) {
        s->l2_all = true;
        s->nranges = 0;
        return;
    }
    s->range[s->nranges++] = (coh_range){addr, bytes};
}

bool coh_sync_any(const coh_sync *s)
{
    return s->l1 || s->tlb || (s->l2 && (s->l2_all || s->nranges));
}

/* The operation that does both a and b. */
static uint8_t op_union(uint8_t a, uint8_t b)
{
    if (a == b || b == COH_KEEP)
        return a;
    if (a == COH_KEEP)
        return b;
    return COH_WRITEBACK_INVALIDATE;
}

void coh_sync_merge(coh_sync *a, const coh_sync *b)
{
    a->l1 = op_union(a->l1, b->l1);
    if (b->tlb) {
        if (!a->tlb || (a->tlb_span && b->tlb_span)) {
            uint64_t lo = a->tlb ? a->tlb_lo : b->tlb_lo;
            uint64_t hi = a->tlb ? a->tlb_hi : b->tlb_hi;
            a->tlb_span = b->tlb_span;
            a->tlb_lo = lo < b->tlb_lo ? lo : b->tlb_lo;
            a->tlb_hi = hi > b->tlb_hi ? hi : b->tlb_hi;
        } else
            a->tlb_span = false;  /* one of them drops every entry */
    }
    a->tlb = op_union(a->tlb, b->tlb);
    if (!b->l2)
        return;
    a->l2 = op_union(a->l2, b->l2);
    if (b->l2_all) {
        a->l2_all = true;
        a->nranges = 0;
        return;
    }
    for (uint32_t i = 0; i < b->nranges; i++)
        coh_sync_add_range(a, b->range[i].addr, b->range[i].bytes);
}
