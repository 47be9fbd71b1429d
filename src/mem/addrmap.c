/*
** Address routes (mem_route, memmsg.h): which lower-level port serves an
** address. Single: one port for everything. Interleaved: consecutive
** `interleave`-byte units go round-robin over the ports, so one cache line
** (line <= interleave) always lands on one bank, which is what keeps the
** per-address ordering rule of the caches intact across banks.
*/
#include "mem/memmsg.h"

#include <assert.h>
#include <stddef.h>

static sim_port *route_single(const mem_route *r, uint64_t addr)
{
    (void)addr;
    return r->single;
}

static sim_port *route_interleaved(const mem_route *r, uint64_t addr)
{
    /* interleave is a power of two: shift instead of divide. */
    uint64_t unit = addr >> __builtin_ctz(r->interleave);
    return r->ports[unit % r->nports];
}

uint32_t mem_route_run_length(const mem_route *r, uint64_t addr, uint32_t n,
                              uint64_t step)
{
    if (n < 2 || r->route == route_single)
        return n;
    sim_port *p = mem_route_lookup(r, addr);
    uint32_t k = 1;
    if (r->route == route_interleaved && step <= r->interleave &&
        r->interleave % step == 0) {
        /* Whole interleaving units at a time: the rest of addr's, then
        ** each next one while it goes to the same port. */
        uint64_t unit = r->interleave;
        uint64_t end = (addr & ~(unit - 1)) + unit;
        uint64_t in_unit = (end - addr + step - 1) / step;
        k = in_unit < n ? (uint32_t)in_unit : n;
        while (k < n && mem_route_lookup(r, addr + (uint64_t)k * step) == p) {
            uint64_t more = unit / step;
            k = (uint64_t)k + more < n ? k + (uint32_t)more : n;
        }
        return k;
    }
    while (k < n && mem_route_lookup(r, addr + (uint64_t)k * step) == p)
        k++;
    return k;
}

void mem_route_single(mem_route *r, sim_port *p)
{
    assert(p);
    r->route = route_single;
    /* The target lives inside the route, so a copied route (cache_set_route
    ** copies) never points back into the caller's storage. */
    r->ports = NULL;
    r->nports = 1;
    r->interleave = 0;
    r->base = 0;
    r->limit = UINT64_MAX;
    r->single = p;
}

void mem_route_interleaved(mem_route *r, sim_port **ports, uint32_t nports,
                           uint32_t interleave)
{
    assert(ports && nports >= 1);
    assert(interleave && (interleave & (interleave - 1)) == 0);
    r->route = route_interleaved;
    r->ports = ports;
    r->nports = nports;
    r->interleave = interleave;
    r->base = 0;
    r->limit = UINT64_MAX;
    r->single = NULL;
}
