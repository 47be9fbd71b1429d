/*
** Coalescer implementation (rules and invariants: coalescer.h).
**
** Lookup of the request for a line tries the most recent request first
** (consecutive lanes usually share a line), then scans the earlier ones;
** an instruction touches few lines in the common case, and at most
** CU_COAL_MAX, so the scan stays cheap and needs no table to clear.
** cu_coalesce handles an access inside the latest request's line inline
** (no split, no lookup); cu_coal_fill_lanes lets the CU scatter a response
** to the lanes of its request only (the CU sends that mask in base.id).
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
        ** without the element loop and the store data. */
        for (uint64_t m = p->mem_lanes; m; m &= m - 1) {
            unsigned lane = (unsigned)__builtin_ctzll(m);
            uint64_t a = p->addr[0][lane];
            unsigned off = (unsigned)(a & off_mask);
            if (n && off + eb <= line_bytes && out[n - 1].line == a - off) {
                out[n - 1].mask |= elem_bits << off;
                out[n - 1].lanes |= 1ull << lane;
                continue;
            }
            add_access(out, &n, line_bytes, lane, a, eb, NULL);
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

void cu_coal_fill_lanes(gcn_mem_plan *p, uint64_t lanes, uint64_t addr,
                        uint32_t size, const uint8_t *bytes)
{
    const uint64_t end = addr + size;
    const unsigned eb = p->elem_bytes;
    for (uint64_t m = lanes & p->mem_lanes; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctzll(m);
        for (unsigned e = 0; e < p->nelem; e++) {
            uint64_t a = p->addr[e][lane];
            if (a >= end || a + eb <= addr)
                continue;
            uint64_t lo = a > addr ? a : addr;
            uint64_t hi = a + eb < end ? a + eb : end;
            uint8_t *dst = (uint8_t *)&p->data[e][lane];
            if (lo == a && hi == a + eb) { /* the common case */
                if (eb == 4)
                    memcpy(dst, bytes + (a - addr), 4); /* one move */
                else
                    memcpy(dst, bytes + (a - addr), eb);
                continue;
            }
            /* A straddling access: copy the part in this response. */
            memcpy(dst + (lo - a), bytes + (lo - addr), (size_t)(hi - lo));
        }
    }
}

void cu_coal_fill_atomic(gcn_mem_plan *p, unsigned lane, const uint8_t *old)
{
    uint64_t v = 0;
    memcpy(&v, old, p->elem_bytes);
    p->data[0][lane] = (uint32_t)v;
    p->data[1][lane] = (uint32_t)(v >> 32);
}
