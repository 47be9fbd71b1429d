/*
** Coalescer implementation (rules and invariants: coalescer.h).
**
** Lookup of the request for a line tries the most recent request first
** (consecutive lanes usually share a line), then scans the earlier ones;
** an instruction touches few lines in the common case, and at most
** CU_COAL_MAX, so the scan stays cheap and needs no table to clear.
** cu_coalesce handles an access inside the latest request's line inline
** (no split, no lookup; for one-element loads the latest request stays in
** registers); cu_coal_fill_lanes lets the CU scatter a response to the
** lanes of its request only (the CU sends that mask in base.id), a dword
** inside the response as one 4-byte move.
*/
#include "gpu/coalescer.h"

#include <string.h>

static cu_coal_req *find_line(cu_coal_req *out, uint32_t *n, uint64_t line)
{
    uint32_t k = *n;
    if (k && out[k - 1].line == line)
        return &out[k - 1];
    for (uint32_t i = 0; i + 1 < k; i++)
        if (out[i].line == line)
            return &out[i];
    cu_coal_req *r = &out[(*n)++];
    r->line = line;
    r->mask = 0;
    r->lanes = 0;
    r->lane = 0;
    return r;
}

/* Adds bytes [a, a + n) of lane `lane` (store bytes from src when not
** NULL) to the requests, splitting at line boundaries. */
static void add_access(cu_coal_req *out, uint32_t *count, uint32_t line_bytes,
                       unsigned lane, uint64_t a, unsigned n,
                       const uint8_t *src)
{
    const uint64_t lmask = ~(uint64_t)(line_bytes - 1);
    while (n) {
        uint64_t line = a & lmask;
        unsigned off = (unsigned)(a - line);
        unsigned chunk = line_bytes - off;
        if (chunk > n)
            chunk = n;
        cu_coal_req *r = find_line(out, count, line);
        uint64_t bits = (chunk == 64 ? ~0ull : ((1ull << chunk) - 1)) << off;
        r->mask |= bits;
        r->lanes |= 1ull << lane;
        if (src) {
            memcpy(r->data + off, src, chunk);
            src += chunk;
        }
        a += chunk;
        n -= chunk;
    }
}

uint32_t cu_coalesce(const gcn_mem_plan *p, uint32_t line_bytes,
                     cu_coal_req *out)
{
    uint32_t n = 0;
    if (p->kind == GCN_MEM_NONE || !p->mem_lanes)
        return 0;
    if (p->kind == GCN_MEM_ATOMIC) {
        for (uint64_t m = p->mem_lanes; m; m &= m - 1) {
            unsigned lane = (unsigned)__builtin_ctzll(m);
            uint64_t a = p->addr[0][lane];
            cu_coal_req *r = &out[n++];
            r->line = a & ~(uint64_t)(line_bytes - 1);
            unsigned off = (unsigned)(a - r->line);
            r->mask = (p->elem_bytes == 8 ? 0xffull : 0xfull) << off;
            r->lanes = 1ull << lane;
            r->lane = (uint8_t)lane;
        }
        return n;
    }
    const bool store = p->kind == GCN_MEM_STORE;
    const unsigned eb = p->elem_bytes;
    const uint64_t off_mask = line_bytes - 1;
    const uint64_t elem_bits = eb < 64 ? (1ull << eb) - 1 : ~0ull;
    if (p->nelem == 1 && !store) {
        /* The common load: one element per lane. Same steps as below,
        ** without the element loop and the store data; the latest
        ** request's line, mask and lanes stay in registers (written back
        ** before add_access, which may read or extend any request). The
        ** sentinel line 1 is not line-aligned, so it matches no address. */
        cu_coal_req *r = NULL;
        uint64_t rline = 1, rmask = 0, rlanes = 0;
        for (uint64_t m = p->mem_lanes; m; m &= m - 1) {
            unsigned lane = (unsigned)__builtin_ctzll(m);
            uint64_t a = p->addr[0][lane];
            unsigned off = (unsigned)(a & off_mask);
            if (a - off == rline && off + eb <= line_bytes) {
                rmask |= elem_bits << off;
                rlanes |= 1ull << lane;
                continue;
            }
            if (r) {
                r->mask = rmask;
                r->lanes = rlanes;
            }
            add_access(out, &n, line_bytes, lane, a, eb, NULL);
            r = &out[n - 1];
            rline = r->line;
            rmask = r->mask;
            rlanes = r->lanes;
        }
        if (r) {
            r->mask = rmask;
            r->lanes = rlanes;
        }
        return n;
    }
    for (uint64_t m = p->mem_lanes; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctzll(m);
        for (unsigned e = 0; e < p->nelem; e++) {
            uint32_t v = p->data[e][lane];
            uint64_t a = p->addr[e][lane];
            unsigned off = (unsigned)(a & off_mask);
            /* Fast path, the common case: the access lies inside the line
            ** of the latest request (consecutive lanes, same line). It
            ** does what add_access does for it. */
            if (n && off + eb <= line_bytes && out[n - 1].line == a - off) {
                cu_coal_req *r = &out[n - 1];
                r->mask |= elem_bits << off;
                r->lanes |= 1ull << lane;
                if (store)
                    memcpy(r->data + off, &v, eb);
                continue;
            }
            add_access(out, &n, line_bytes, lane, a, eb,
                       store ? (const uint8_t *)&v : NULL);
        }
    }
    return n;
}

void cu_coal_fill(gcn_mem_plan *p, uint64_t addr, uint32_t size,
                  const uint8_t *bytes)
{
    cu_coal_fill_lanes(p, p->mem_lanes, addr, size, bytes);
}

/* Copies the part of lane's element e that lies in [addr, end). */
static void fill_one(gcn_mem_plan *p, unsigned e, unsigned lane,
                     uint64_t addr, uint64_t end, const uint8_t *bytes)
{
    const unsigned eb = p->elem_bytes;
    uint64_t a = p->addr[e][lane];
    if (a >= end || a + eb <= addr)
        return;
    uint64_t lo = a > addr ? a : addr;
    uint64_t hi = a + eb < end ? a + eb : end;
    uint8_t *dst = (uint8_t *)&p->data[e][lane];
    /* The whole element, or the part of a straddling access that this
    ** response holds. */
    memcpy(dst + (lo - a), bytes + (lo - addr), (size_t)(hi - lo));
}

void cu_coal_fill_lanes(gcn_mem_plan *p, uint64_t lanes, uint64_t addr,
                        uint32_t size, const uint8_t *bytes)
{
    const uint64_t end = addr + size;
    if (p->nelem == 1 && p->elem_bytes == 4 && size >= 4) {
        /* The common load (a dword per lane): an access wholly inside the
        ** response is one 4-byte move (an address below addr wraps to a
        ** large offset and takes the general path, as does a straddling
        ** one). */
        const uint64_t last = (uint64_t)size - 4;
        for (uint64_t m = lanes & p->mem_lanes; m; m &= m - 1) {
            unsigned lane = (unsigned)__builtin_ctzll(m);
            uint64_t d = p->addr[0][lane] - addr;
            if (d <= last)
                memcpy(&p->data[0][lane], bytes + d, 4);
            else
                fill_one(p, 0, lane, addr, end, bytes);
        }
        return;
    }
    for (uint64_t m = lanes & p->mem_lanes; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctzll(m);
        for (unsigned e = 0; e < p->nelem; e++)
            fill_one(p, e, lane, addr, end, bytes);
    }
}

void cu_coal_fill_atomic(gcn_mem_plan *p, unsigned lane, const uint8_t *old)
{
    uint64_t v = 0;
    memcpy(&v, old, p->elem_bytes);
    p->data[0][lane] = (uint32_t)v;
    p->data[1][lane] = (uint32_t)(v >> 32);
}
