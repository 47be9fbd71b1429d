/*
** TLB core (tlb_core.h): tags, MSHRs and shoot-down shared by the TLB
** component and the address translator.
*/
#include "mem/tlb_core.h"

#include <assert.h>
#include <stdlib.h>

#include "mgsim/errors.h"
#include "util/xmalloc.h"

void tlb_core_init(tlb_core *k, const tlb_config *cfg)
{
    k->entries = MGS_NEW_ARRAY(tlb_entry, (size_t)cfg->sets * cfg->ways);
    k->sets = cfg->sets;
    k->ways = cfg->ways;
    k->slices = cfg->slices > 1 ? cfg->slices : 1;
    k->stamp = 0;
    k->mshrs = MGS_NEW_ARRAY(tlb_mshr, cfg->mshr_entries);
    k->nmshrs = cfg->mshr_entries;
    k->unsent = 0;
    k->page_shift = (uint32_t)__builtin_ctz(cfg->page_bytes);
}

void tlb_core_fini(tlb_core *k, mem_pool *pool)
{
    for (uint32_t i = 0; i < k->nmshrs; i++)
        if (k->mshrs[i].used && !k->mshrs[i].sent)
            mem_msg_release(pool, k->mshrs[i].down);
    free(k->mshrs);
    free(k->entries);
    k->mshrs = NULL;
    k->entries = NULL;
}

tlb_entry *tlb_core_lookup_run(tlb_core *k, uint32_t pid, uint64_t vpn)
{
    for (uint32_t o = 1; o < 32; o++) {
        if (!(k->orders >> o & 1))
            continue;
        uint64_t base = vpn & ~((1ull << o) - 1);
        tlb_entry *s = tlb_core_set(k, base);
        for (uint32_t w = 0; w < k->ways; w++)
            if (s[w].valid && s[w].vpn == base && s[w].order == o &&
                s[w].pid == pid)
                return &s[w];
    }
    return NULL;
}

bool tlb_core_install(tlb_core *k, uint32_t pid, uint64_t vpn,
                      uint64_t ppage, bool readonly, uint64_t span)
{
    uint32_t order = span >> k->page_shift > 1
                         ? (uint32_t)__builtin_ctzll(span >> k->page_shift)
                         : 0;
    uint64_t base = vpn & ~((1ull << order) - 1);
    ppage -= (vpn - base) << k->page_shift;
    vpn = base;
    tlb_entry *s = tlb_core_set(k, vpn), *victim = &s[0];
    for (uint32_t w = 0; w < k->ways; w++)
        if (s[w].valid && s[w].vpn == vpn && s[w].order == order &&
            s[w].pid == pid) {
            s[w].ppage = ppage;
            s[w].readonly = readonly;
            return false;
        }
    k->orders |= 1u << order;
    for (uint32_t w = 0; w < k->ways; w++) {
        if (!s[w].valid) {
            victim = &s[w];
            break;
        }
        if (s[w].lru < victim->lru)
            victim = &s[w];
    }
    bool evicted = victim->valid;
    *victim = (tlb_entry){.valid = true, .pid = pid, .vpn = vpn,
                          .readonly = readonly, .order = (uint8_t)order,
                          .ppage = ppage, .lru = ++k->stamp};
    return evicted;
}

tlb_mshr *tlb_core_miss(tlb_core *k, mem_pool *pool, mem_msg *req,
                        uint64_t vpn, mgs_time now, bool *merged)
{
    tlb_mshr *h = NULL, *free_one = NULL;
    for (uint32_t i = 0; i < k->nmshrs; i++) {
        tlb_mshr *x = &k->mshrs[i];
        if (x->used && !x->stale && x->pid == req->pid && x->vpn == vpn) {
            h = x;
            break;
        }
        if (!x->used && !free_one)
            free_one = x;
    }
    *merged = h != NULL;
    bool write = tlb_core_writes(req);
    if (h) {
        if (h->nwait == TLB_MSHR_WAITERS)
            return NULL;
        if (write && !h->write) {
            /* Asked for a read: a read-only answer is asked for again
            ** (tlb_core_ask_again). */
            h->write = true;
            if (!h->sent)
                h->down->flags |= MEM_F_XWRITE;
        }
    } else {
        if (!free_one)
            return NULL; /* all MSHRs busy: back-pressure */
        h = free_one;
        *h = (tlb_mshr){.used = true, .write = write, .pid = req->pid,
                        .vpn = vpn};
        h->down = mem_msg_alloc(pool, MEM_XLATE);
        h->down->flags = write ? MEM_F_XWRITE : 0;
        h->down->addr = vpn << k->page_shift;
        h->down->pid = req->pid;
        h->down->gpu = req->gpu;
        h->down->origin = h;
        h->down->issue_time = now;
        h->down->base.bytes = 8;
        k->unsent++;
    }
    h->wait[h->nwait++] = req;
    return h;
}

void tlb_core_mshr_retry(tlb_core *k, mem_pool *pool, tlb_mshr *h,
                         mgs_time now)
{
    mem_msg *d = mem_msg_alloc(pool, MEM_XLATE);
    d->addr = h->down->addr;
    d->pid = h->down->pid;
    d->gpu = h->down->gpu;
    d->flags = h->write ? MEM_F_XWRITE : 0;
    d->origin = h;
    d->issue_time = now;
    d->base.bytes = h->down->base.bytes;
    mem_msg_release(pool, h->down);
    h->down = d;
    h->sent = h->stale = false;
    k->unsent++;
}

bool tlb_core_send_down(tlb_core *k, sim_port *p, const mem_route *route)
{
    bool progress = false;
    for (uint32_t i = 0; k->unsent && i < k->nmshrs; i++) {
        tlb_mshr *h = &k->mshrs[i];
        if (!h->used || h->sent)
            continue;
        h->down->base.dst = mem_route_lookup(route, h->down->addr);
        if (port_send(p, &h->down->base) != MGS_OK)
            break;
        h->sent = true;
        k->unsent--;
        progress = true;
    }
    return progress;
}

void tlb_core_shootdown(tlb_core *k, const mem_msg *m)
{
    bool all = m->size == 0;
    uint64_t lo = m->addr >> k->page_shift;
    uint64_t hi = all ? 0 : (m->addr + m->size - 1) >> k->page_shift;
    uint32_t n = k->sets * k->ways;
    for (uint32_t i = 0; i < n; i++) {
        tlb_entry *e = &k->entries[i];
        if (all || (e->pid == m->pid && e->vpn <= hi &&
                    e->vpn + ((1ull << e->order) - 1) >= lo))
            e->valid = false;
    }
    for (uint32_t i = 0; i < k->nmshrs; i++) {
        tlb_mshr *h = &k->mshrs[i];
        if (h->used && (all || (h->pid == m->pid && h->vpn >= lo &&
                                h->vpn <= hi)))
            h->stale = true;
    }
}

bool tlb_core_ctrl_step(tlb_core *k, sim_port *ctrl, mem_pool *pool,
                        mem_msg **held, stat_counter *shootdowns)
{
    if (*held) {
        if (port_send(ctrl, &(*held)->base) != MGS_OK)
            return false;
        *held = NULL;
    }
    bool progress = false;
    mem_msg *m;
    while ((m = (mem_msg *)port_retrieve(ctrl))) {
        if (m->base.type == MEM_INVALIDATE || m->base.type == MEM_FLUSH) {
            tlb_core_shootdown(k, m);
            stat_inc(shootdowns);
        }
        progress = true;
        mem_msg *r = mem_msg_response(pool, m);
        if (port_send(ctrl, &r->base) != MGS_OK) {
            *held = r;
            break;
        }
    }
    return progress;
}

bool tlb_core_busy(const tlb_core *k)
{
    for (uint32_t i = 0; i < k->nmshrs; i++)
        if (k->mshrs[i].used)
            return true;
    return false;
}
