/*
** TLB core: what the TLB component (tlb.c) and the address translator's
** built-in L1 TLB (xlat.c) share. Not a component, just state its owner
** embeds and drives from its own tick:
**   - the tag array: set-associative entries (pid, virtual page ->
**     physical page), set = vpn % sets, LRU by use stamps;
**   - the MSHRs: one per page being translated below, merging later misses
**     to that page (up to TLB_MSHR_WAITERS requests), each with its
**     MEM_XLATE to the next level;
**   - the shoot-down of MEM_INVALIDATE / MEM_FLUSH (size 0: everything;
**     else the pages of pid in [addr, addr + size)), which also marks
**     matching MSHRs stale: a stale MSHR takes no new waiters, and its
**     answer (translated with the mapping the shoot-down removed) is
**     dropped and asked for again (tlb_core_mshr_retry), so no request
**     leaves with a mapping older than the shoot-down;
**   - write permission: an entry may be read-only (its answer carried
**     MEM_F_READONLY: a replica under memory.management = esi). A write or
**     atomic that finds a read-only entry drops it and misses, asking with
**     MEM_F_XWRITE; a write joining a read's MSHR marks it a write one,
**     and a read-only answer to it is asked for again with MEM_F_XWRITE
**     (every waiter waits for that answer), so a page's requests still
**     leave in order. Without read-only pages nothing changes.
** MSHR life: FREE --tlb_core_miss--> ALLOCATED (unsent) --tlb_core_send_down
** --> WAITING --the owner's fill, tlb_core_mshr_done--> FREE.
*/
#ifndef MGS_MEM_TLB_CORE_H
#define MGS_MEM_TLB_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem/memmsg.h"
#include "mem/tlb.h"
#include "sim/stats.h"

#define TLB_MSHR_WAITERS 32u /* requests merged into one MSHR */

typedef struct tlb_entry {
    bool valid;
    uint32_t pid;
    uint64_t vpn;
    bool readonly;         /* writes must ask again (MEM_F_READONLY) */
    uint8_t order;         /* covers 2^order pages from vpn (a PASI piece
                              whose frames are consecutive), 0 = one page */
    uint64_t ppage;        /* physical page base (of page vpn) */
    uint64_t lru;          /* last use stamp: smallest = least recent */
} tlb_entry;

typedef struct tlb_mshr {
    bool used, sent, stale;
    bool write;            /* asks with MEM_F_XWRITE */
    uint32_t pid;
    uint64_t vpn;
    mem_msg *down;         /* our MEM_XLATE (owned until sent; its answer
                              carries this MSHR in origin) */
    uint32_t nwait;
    mem_msg *wait[TLB_MSHR_WAITERS]; /* requests (borrowed) */
} tlb_mshr;

typedef struct tlb_core {
    tlb_entry *entries;    /* sets * ways, set-major (owned) */
    uint32_t sets, ways;
    uint32_t slices;       /* tlb_config.slices, at least 1 */
    uint64_t stamp;
    tlb_mshr *mshrs;       /* owned */
    uint32_t nmshrs;
    uint32_t unsent;       /* MSHRs whose MEM_XLATE is not sent yet */
    uint32_t page_shift;
    uint32_t orders;       /* bit o: an entry of order o was installed */
} tlb_core;

/* cfg: sets, ways, page_bytes and mshr_entries are used. */
void tlb_core_init(tlb_core *k, const tlb_config *cfg);
/* Releases the MEM_XLATEs not sent yet. */
void tlb_core_fini(tlb_core *k, mem_pool *pool);

tlb_entry *tlb_core_lookup_run(tlb_core *k, uint32_t pid, uint64_t vpn);

/* The first entry of the set of page vpn. */
static inline tlb_entry *tlb_core_set(tlb_core *k, uint64_t vpn)
{
    uint64_t v = k->slices > 1 ? vpn / k->slices : vpn;
    return &k->entries[(v % k->sets) * k->ways];
}

/* The valid entry covering (pid, vpn), or NULL. An entry of 2^o pages sits
** in the set of its first page; those are probed only once one exists. */
static inline tlb_entry *tlb_core_lookup(tlb_core *k, uint32_t pid,
                                         uint64_t vpn)
{
    tlb_entry *s = tlb_core_set(k, vpn);
    for (uint32_t w = 0; w < k->ways; w++)
        if (s[w].valid && s[w].vpn == vpn && s[w].pid == pid)
            return &s[w];
    return k->orders > 1 ? tlb_core_lookup_run(k, pid, vpn) : NULL;
}

/* The physical page of page vpn through entry e (which covers it). */
static inline uint64_t tlb_core_ppage(const tlb_core *k, const tlb_entry *e,
                                      uint64_t vpn)
{
    return e->ppage + ((vpn - e->vpn) << k->page_shift);
}

/* Whether req needs a writable mapping: a write or atomic, or a
** translation asked for one. */
static inline bool tlb_core_writes(const mem_msg *req)
{
    return req->base.type == MEM_WRITE || req->base.type == MEM_ATOMIC ||
           (req->flags & MEM_F_XWRITE);
}

/* The entry for req's page that req may use: a read-only entry met by a
** write is dropped (the write misses and asks for a writable one). */
static inline tlb_entry *tlb_core_lookup_for(tlb_core *k, const mem_msg *req,
                                             uint64_t vpn)
{
    tlb_entry *e = tlb_core_lookup(k, req->pid, vpn);
    if (e && e->readonly && tlb_core_writes(req)) {
        e->valid = false;
        return NULL;
    }
    return e;
}

static inline void tlb_core_touch(tlb_core *k, tlb_entry *e)
{
    e->lru = ++k->stamp;
}

/* Installs (pid, vpn) -> ppage (read-only or not) for page vpn of an
** answer that covers span bytes (0: one page), as one entry for the whole
** run, replacing an invalid entry or the set's least recently used one; an
** entry already there for the run takes the new mapping. Returns true if a
** valid entry was evicted. */
bool tlb_core_install(tlb_core *k, uint32_t pid, uint64_t vpn,
                      uint64_t ppage, bool readonly, uint64_t span);

/* A miss of req (page vpn): joins the page's MSHR (*merged = true) or
** allocates one with its MEM_XLATE (from pool, issued at now). Returns
** the MSHR, or NULL when the request must wait (no MSHR free, or the
** page's MSHR has no waiter slot left). */
tlb_mshr *tlb_core_miss(tlb_core *k, mem_pool *pool, mem_msg *req,
                        uint64_t vpn, mgs_time now, bool *merged);

/* Sends unsent MEM_XLATEs through p along route until p refuses. Returns
** whether any left. */
bool tlb_core_send_down(tlb_core *k, sim_port *p, const mem_route *route);

/* The owner served h's waiters: h is free again. */
static inline void tlb_core_mshr_done(tlb_mshr *h)
{
    h->used = false;
}

/* Whether answer m to MSHR h must be asked for again: h went stale in a
** shoot-down, or a write joined it and m is read-only. */
static inline bool tlb_core_ask_again(const tlb_mshr *h, const mem_msg *m)
{
    return h->stale || (h->write && (m->flags & MEM_F_READONLY) &&
                        !(m->flags & MEM_F_FAULT));
}

/* Applies a shoot-down message (MEM_INVALIDATE or MEM_FLUSH). */
void tlb_core_shootdown(tlb_core *k, const mem_msg *m);

/* The ctrl port step of a TLB owner: applies every shoot-down waiting in
** ctrl (counted in shootdowns) and answers each with MEM_CTRL_RSP; an
** answer the port refuses is kept in *held and sent first next time.
** Returns whether anything happened. */
bool tlb_core_ctrl_step(tlb_core *k, sim_port *ctrl, mem_pool *pool,
                        mem_msg **held, stat_counter *shootdowns);

/* Any MSHR in use. */
bool tlb_core_busy(const tlb_core *k);
/* An answer to ask for again came (tlb_core_ask_again): its MEM_XLATE
** goes down again (fresh, not stale, unsent; MEM_F_XWRITE if a write
** waits). */
void tlb_core_mshr_retry(tlb_core *k, mem_pool *pool, tlb_mshr *h,
                         mgs_time now);

#endif
