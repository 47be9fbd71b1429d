/*
** The RDC tag store (rdc.h): set mapping, lazily allocated metadata, the
** state changes of one set.
*/
#include "coh/carve/rdc.h"

#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"

void rdc_init(rdc *r, uint64_t rdc_bytes, uint32_t line, uint32_t slices,
              uint32_t slice, uint32_t interleave, bool use_epoch,
              uint32_t epoch_bits)
{
    memset(r, 0, sizeof *r);
    r->span = rdc_bytes;
    r->line = line;
    r->slices = slices;
    r->slice = slice;
    r->interleave = interleave;
    r->sets = rdc_bytes / slices / line;   /* 0: no cache (every call a miss) */
    r->use_epoch = use_epoch;
    r->epoch_mask = epoch_bits >= 32 ? ~0u : (1u << epoch_bits) - 1;
    r->nchunks = (r->sets + RDC_CHUNK - 1) / RDC_CHUNK;
    r->chunk = mgs_xcalloc(r->nchunks, sizeof *r->chunk);
}

void rdc_fini(rdc *r)
{
    for (uint64_t i = 0; r->chunk && i < r->nchunks; i++)
        free(r->chunk[i]);
    free(r->chunk);
    r->chunk = NULL;
    free(r->dmap);
    r->dmap = NULL;
}

/* The rotation of tag t's sets: lines at the same offset of different
** spans (the same frames of different home GPUs) land in different sets. */
static uint64_t rotation(const rdc *r, uint32_t t)
{
    return ((uint64_t)t * 2654435761u) % r->sets;
}

uint64_t rdc_set(const rdc *r, uint64_t a)
{
    uint64_t unit = a / r->interleave, off = a % r->interleave;
    uint64_t local = (unit / r->slices) * r->interleave + off;
    return ((local / r->line) % r->sets + rotation(r, rdc_tag(r, a))) %
           r->sets;
}

uint32_t rdc_tag(const rdc *r, uint64_t a)
{
    return (uint32_t)(a / r->span);
}

/* Offset in [0, span) of the set's line: set s of this slice is the
** s-th line of the slice's interleaving units. */
static uint64_t set_offset(const rdc *r, uint64_t set)
{
    uint64_t local = set * r->line;
    uint64_t unit = (local / r->interleave) * r->slices + r->slice;
    return unit * r->interleave + local % r->interleave;
}

uint64_t rdc_offset(const rdc *r, uint64_t a)
{
    return set_offset(r, rdc_set(r, a));
}

/* The line address a set holds under tag t (inverse of rdc_set/rdc_tag). */
static uint64_t line_of(const rdc *r, uint64_t set, uint32_t t)
{
    uint64_t base = (set + r->sets - rotation(r, t)) % r->sets;
    return (uint64_t)t * r->span + set_offset(r, base);
}

rdc_meta rdc_peek(const rdc *r, uint64_t set)
{
    rdc_meta *c = r->chunk[set / RDC_CHUNK];
    if (!c)
        return (rdc_meta){0};
    return c[set % RDC_CHUNK];
}

static rdc_meta *meta(rdc *r, uint64_t set)
{
    rdc_meta **c = &r->chunk[set / RDC_CHUNK];
    if (!*c)
        *c = mgs_xcalloc(RDC_CHUNK, sizeof **c);
    return &(*c)[set % RDC_CHUNK];
}

/* The metadata of a's set if the set was ever used, else NULL (nothing
** allocated: a lookup that only drops or reads never creates a chunk). */
static rdc_meta *existing(rdc *r, uint64_t a)
{
    if (!r->sets)
        return NULL;
    uint64_t set = rdc_set(r, a);
    return r->chunk[set / RDC_CHUNK] ? meta(r, set) : NULL;
}

static bool usable(const rdc *r, const rdc_meta *m, uint32_t tag)
{
    return m->state == RDC_VALID && m->tag == tag &&
           (!r->use_epoch || m->epoch == r->epoch);
}

/* The set's line leaves or changes tag: its dirty bytes are lost. */
static void drop_dirty(rdc *r, rdc_meta *m)
{
    if (!m->dirty)
        return;
    m->dirty = 0;
    r->ndirty--;
    r->n.dirty_dropped++;
}

bool rdc_hit(const rdc *r, uint64_t a)
{
    if (!r->sets)
        return false;
    rdc_meta m = rdc_peek(r, rdc_set(r, a));
    return usable(r, &m, rdc_tag(r, a));
}

uint16_t rdc_fetch(rdc *r, uint64_t a)
{
    rdc_meta *m = meta(r, rdc_set(r, a));
    if (m->state == RDC_VALID && m->tag != rdc_tag(r, a) &&
        (!r->use_epoch || m->epoch == r->epoch))
        r->n.evictions++;
    drop_dirty(r, m);
    m->state = RDC_FETCHING;
    m->tag = rdc_tag(r, a);
    return ++m->seq;
}

bool rdc_fill(rdc *r, uint64_t a, uint16_t seq, uint32_t epoch)
{
    rdc_meta *m = meta(r, rdc_set(r, a));
    if (m->state != RDC_FETCHING || m->seq != seq || m->tag != rdc_tag(r, a))
        return false;
    m->state = RDC_VALID;
    m->epoch = epoch;
    m->seq++;
    r->n.fills++;
    return true;
}

bool rdc_invalidate(rdc *r, uint64_t a)
{
    rdc_meta *m = existing(r, a);
    if (!m || m->state == RDC_INVALID || m->tag != rdc_tag(r, a))
        return false;
    bool counted = usable(r, m, m->tag);
    drop_dirty(r, m);
    m->state = RDC_INVALID;
    m->seq++;
    if (counted)
        r->n.invalidations++;
    return counted;
}

uint64_t rdc_invalidate_range(rdc *r, uint64_t addr, uint64_t bytes)
{
    uint64_t n = 0, end = addr + bytes;
    if (!r->sets)
        return 0;
    uint64_t first = addr & ~(uint64_t)(r->line - 1);
    if (bytes / r->line <= r->sets * r->slices) {
        for (uint64_t a = first; a < end; a += r->line)
            if ((a / r->interleave) % r->slices == r->slice &&
                rdc_invalidate(r, a))
                n++;
        r->n.range_invalidations += n;
        return n;
    }
    /* A range larger than the cache: look at every line it holds. */
    for (uint64_t c = 0; c < r->nchunks; c++) {
        if (!r->chunk[c])
            continue;
        for (uint32_t i = 0; i < RDC_CHUNK; i++) {
            rdc_meta *m = &r->chunk[c][i];
            uint64_t set = c * RDC_CHUNK + i;
            if (m->state == RDC_INVALID || set >= r->sets)
                continue;
            uint64_t a = line_of(r, set, m->tag);
            if (a + r->line > addr && a < end && rdc_invalidate(r, a))
                n++;
        }
    }
    r->n.range_invalidations += n;
    return n;
}

/* Every set INVALID (its sequence bumped). */
static void reset_all(rdc *r)
{
    for (uint64_t c = 0; c < r->nchunks; c++)
        if (r->chunk[c])
            for (uint32_t i = 0; i < RDC_CHUNK; i++)
                if (r->chunk[c][i].state != RDC_INVALID) {
                    drop_dirty(r, &r->chunk[c][i]);
                    r->chunk[c][i].state = RDC_INVALID;
                    r->chunk[c][i].seq++;
                }
}

void rdc_invalidate_all(rdc *r)
{
    reset_all(r);
    r->n.full_invalidations++;
}

bool rdc_epoch_bump(rdc *r)
{
    r->n.bumps++;
    r->epoch = (r->epoch + 1) & r->epoch_mask;
    if (r->epoch)
        return false;
    /* Wrapped: a line of epoch 0 from 2^bits boundaries ago would look
    ** current, so every set is reset (the full sweep of §IV.B). */
    reset_all(r);
    r->n.sweeps++;
    return true;
}

/* ---- write-back ---- */

/* The metadata of a's set if the set holds a usable line a, else NULL. */
static rdc_meta *held(rdc *r, uint64_t a)
{
    rdc_meta *m = existing(r, a);
    return m && usable(r, m, rdc_tag(r, a)) ? m : NULL;
}

/* Hands the set's dirty bytes to the caller (who writes them back). */
static uint64_t take_dirty(rdc *r, rdc_meta *m)
{
    uint64_t d = m->dirty;
    if (!d)
        return 0;
    m->dirty = 0;
    r->ndirty--;
    r->n.cleaned++;
    r->n.cleaned_bytes += (uint64_t)__builtin_popcountll(d);
    return d;
}

bool rdc_write_hit(rdc *r, uint64_t a, uint64_t mask)
{
    rdc_meta *m = held(r, a);
    if (!m)
        return false;
    r->n.write_hits++;
    if (!mask)
        return true;              /* no byte enabled: nothing changes */
    if (!m->dirty)
        r->ndirty++;
    m->dirty |= mask;
    if (!m->listed) {
        if (r->dmap_len == r->dmap_cap) {
            r->dmap_cap = r->dmap_cap ? 2 * r->dmap_cap : 64;
            r->dmap = mgs_xrealloc(r->dmap, r->dmap_cap * sizeof *r->dmap);
        }
        r->dmap[r->dmap_len++] = rdc_set(r, a);
        m->listed = 1;
    }
    return true;
}

uint64_t rdc_dirty(const rdc *r, uint64_t a)
{
    if (!r->sets)
        return 0;
    rdc_meta m = rdc_peek(r, rdc_set(r, a));
    return usable(r, &m, rdc_tag(r, a)) ? m.dirty : 0;
}

uint64_t rdc_clean(rdc *r, uint64_t a)
{
    rdc_meta *m = held(r, a);
    return m ? take_dirty(r, m) : 0;
}

uint64_t rdc_take_victim(rdc *r, uint64_t a, uint64_t *victim)
{
    rdc_meta *m = existing(r, a);
    if (!m || !m->dirty || m->tag == rdc_tag(r, a))
        return 0;
    *victim = line_of(r, rdc_set(r, a), m->tag);
    return take_dirty(r, m);
}

bool rdc_dirty_next(rdc *r, uint64_t *line, uint64_t *mask)
{
    while (r->ndirty && r->dmap_len) {
        uint64_t set = r->dmap[--r->dmap_len];
        rdc_meta *m = meta(r, set);
        m->listed = 0;
        if (!m->dirty)
            continue;             /* cleaned since it was listed */
        *line = line_of(r, set, m->tag);
        *mask = take_dirty(r, m);
        return true;
    }
    return false;
}

uint64_t rdc_dirty_drop_all(rdc *r)
{
    uint64_t n = 0;
    while (r->dmap_len) {
        rdc_meta *m = meta(r, r->dmap[--r->dmap_len]);
        m->listed = 0;
        n += m->dirty != 0;
        drop_dirty(r, m);
    }
    return n;
}
