/*
** UM.Migrator (um.h): the shared IOMMU's page-fault handler under
** memory.management = migrate or esi. Seed 002 §5.3.3.1 steps 3-8 and
** §5.3.3.2, with the rules the text leaves open (docs/memory-management.md).
** What a fault needs comes from the page directory (esi_dir.h): under
** migrate every fault moves the page (Exclusive only); under esi a read
** gets a read-only replica and a write invalidates the other copies.
**
** A fault (MEM_XLATE | MEM_F_FAULT from the IOMMU's walker: page VA, pid,
** faulting GPU g, MEM_F_XWRITE for a write) is taken into a fault record
** and then, in order:
**   1. the page is in flight (a slot has it): the fault waits on that slot
**      (no double move; counted in pages_waiting);
**   2. g's table maps the page, writable if the fault is a write (a move
**      finished between the walk and now): answered at once (raced);
**   3. the directory's plan would take the page from a GPU it was given to
**      less than memory.min_residency ago: the fault is parked until then
**      (residency_waits), the ping-pong rule;
**   4. every slot is busy: the fault queues (FIFO);
**   5. else the plan starts. The page's host-table frame is on GPU k. If no
**      GPU holds the page and k == g, it is mapped in place (first_touch).
**      Otherwise: a frame on g is held if data moves; each GPU whose copy
**      goes is unmapped at once (its new accesses fault and wait here; its
**      frame is kept until dropped) and its PMC gets UM_MIGRATE with
**      UM_F_NO_DATA; the supplier's PMC (the staging frame's, k, if nobody
**      holds the page) gets UM_MIGRATE: a move (its copy goes), or a
**      replica (UM_F_KEEP; an Exclusive owner is made read-only first and
**      shot down).
** A plan completes when every PMC answered (UM_RELEASED from each command,
** UM_FILLED from g): g's table maps the new frame (read-only for a
** replica) or its own frame writable (an upgrade), the host table maps
** the copy of an Exclusive page, the dropped frames are released, the
** directory records the result, the page is resident on g until now +
** min_residency, and every waiting fault that g's mapping now satisfies is
** answered "resolved" (with memory.fault_latency = N: not before N after
** the start); the others start over. Then the queue is served.
**
** Fault record life (a fixed pool of max_faults: every unanswered fault
** holds one of the IOMMU's walks, so there are never more):
**   FREE --taken from the fault port--> WAITING (on a slot) | PARKED
**        (its event at the residency end) | QUEUED | answered -> FREE
** Slot life: FREE --start--> MOVING --every PMC answered--> (ANSWERING:
** fixed latency not reached, its event pending) --> FREE.
*/
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "um/esi_dir.h"
#include "um/um_int.h"

um_break um_test_break = UM_BREAK_NONE;

#define NONE UINT32_MAX

typedef struct um_fault {
    mem_msg *msg;             /* the walker's fault message (borrowed) */
    sim_event ev;             /* PARKED: wake-up */
    uint32_t next;            /* list link (waiters, queue, free) */
} um_fault;

typedef struct um_slot {
    bool used, answering;
    uint64_t id;              /* migration sequence number; a command's id
                                 is id << UM_ID_SHIFT | its page */
    uint64_t va;              /* first byte of the piece */
    uint32_t npages;          /* pages of the piece */
    int dst;                  /* the faulting GPU */
    int sender;               /* GPU whose PMC sends the data (-1: none) */
    esi_plan plan;
    int64_t wrong_half;       /* UM_BREAK_WRONG_HALF: bytes from the piece
                                 to the half whose bytes are sent */
    uint64_t *new_pa;         /* [piece_pages] ESI_FETCH: dst's frames */
    bool *in_place;           /* [piece_pages] a staging frame on dst: mapped
                                 as it is (first touch), not held */
    uint64_t *old_pa;         /* [piece_pages * ngpus]: frames of invalidated
                                 copies, kept until their PMC dropped them
                                 (0: none); page k of GPU x at k * ngpus + x */
    uint32_t *due;            /* [ngpus] UM_RELEASED still due per PMC */
    uint32_t due_total;       /* every answer still due (fills too) */
    uint32_t due_filled;      /* dst's UM_FILLED still due */
    mgs_time start;
    uint32_t waiters, wtail;  /* fault records, FIFO */
    sim_event ev;             /* ANSWERING: the fixed-latency answer */
    char label[128];          /* for dumps */
} um_slot;

#define UM_ID_SHIFT 20        /* pages of a piece < 2^20 */

/* Which GPUs were last given a page and until when no other GPU's fault
** may take it from them (open addressing, key = page number + 1, 0 =
** empty). Several readers of one page are protected together. */
typedef struct um_resident {
    uint64_t key;
    mgs_time until;
    uint64_t gpus;            /* bit per GPU */
} um_resident;

struct um_migrator {
    sim_comp base;            /* FIRST */
    sim_port fault, ctl;
    um_config cfg;
    mem_pool *pool;
    um_pagemap pages;
    esi_dir *dir;
    sim_port **pmcs;          /* [ngpus], borrowed */
    uint32_t npmcs;
    unsigned page_shift;
    um_fault *faults;         /* [max_faults] */
    uint32_t nfaults, free_faults;
    uint32_t queue, qtail;    /* faults waiting for a slot */
    uint32_t parked;          /* faults parked (count) */
    um_slot *slots;           /* [max_migrations] */
    uint32_t active;
    uint64_t next_id;
    um_resident *res;
    uint64_t res_cap, res_n;
    um_queue to_walker, to_pmc;
    stat_counter *st_faults, *st_migr, *st_bytes, *st_shoot, *st_wait,
        *st_res_wait, *st_first, *st_raced, *st_over, *st_failed,
        *st_write_faults, *st_replicas, *st_upgrades, *st_inval,
        *st_downgrades, *st_collapses, *st_splits, *st_merges;
    stat_hist *st_latency;
    stat_counter own[18];
    unsigned max_order, min_order; /* pieces: 2^order pages (pasi) */
    stat_hist own_hist;
};

/* ---- residency table ------------------------------------------------- */

static um_resident *res_find(um_migrator *m, uint64_t page, bool add)
{
    if (add && 2 * (m->res_n + 1) > m->res_cap) {
        uint64_t cap = m->res_cap ? 2 * m->res_cap : 1024;
        um_resident *old = m->res;
        uint64_t oldcap = m->res_cap;
        m->res = mgs_xcalloc(cap, sizeof *m->res);
        m->res_cap = cap;
        for (uint64_t i = 0; i < oldcap; i++) {
            if (!old[i].key)
                continue;
            uint64_t h = (old[i].key * 0x9e3779b97f4a7c15ull) & (cap - 1);
            while (m->res[h].key)
                h = (h + 1) & (cap - 1);
            m->res[h] = old[i];
        }
        free(old);
    }
    if (!m->res_cap)
        return NULL;
    uint64_t key = page + 1;
    uint64_t h = (key * 0x9e3779b97f4a7c15ull) & (m->res_cap - 1);
    while (m->res[h].key && m->res[h].key != key)
        h = (h + 1) & (m->res_cap - 1);
    if (m->res[h].key)
        return &m->res[h];
    if (!add)
        return NULL;
    m->res[h].key = key;
    m->res_n++;
    return &m->res[h];
}

/* ---- answers ----------------------------------------------------------- */

static void fault_free(um_migrator *m, uint32_t i)
{
    m->faults[i].msg = NULL;
    m->faults[i].next = m->free_faults;
    m->free_faults = i;
}

/* Answers fault record i (resolved or not) and frees it. */
static void answer(um_migrator *m, uint32_t i, bool resolved)
{
    mem_msg *f = m->faults[i].msg;
    mem_msg *a = mem_msg_response(m->pool, f);
    if (resolved)
        a->flags &= ~MEM_F_FAULT;
    else
        a->flags |= MEM_F_FAULT;
    a->base.bytes = 16;
    stat_hist_sample(m->st_latency, eng_now(m->base.eng) - f->issue_time);
    um_queue_push(&m->to_walker, a);
    fault_free(m, i);
}

/* ---- migrations ------------------------------------------------------- */

static uint64_t page_of(const um_migrator *m, uint64_t va)
{
    return va & ~(((uint64_t)1 << m->page_shift) - 1);
}

static bool fault_writes(const mem_msg *f)
{
    return f->flags & MEM_F_XWRITE;
}

/* Whether fault f's GPU may now do what it faulted on. */
static bool satisfied(um_migrator *m, const mem_msg *f)
{
    uint64_t pa, va = page_of(m, f->addr);
    return m->pages.lookup(m->pages.ud, f->gpu, va, &pa) &&
           (!fault_writes(f) || !m->pages.readonly(m->pages.ud, f->gpu, va));
}

static uint64_t page_bytes(const um_migrator *m)
{
    return (uint64_t)1 << m->page_shift;
}

/* The slot whose piece holds page va, if any. */
static um_slot *slot_of_page(um_migrator *m, uint64_t va)
{
    for (uint32_t s = 0; s < m->cfg.max_migrations; s++) {
        um_slot *x = &m->slots[s];
        if (x->used && va >= x->va &&
            va < x->va + ((uint64_t)x->npages << m->page_shift))
            return x;
    }
    return NULL;
}

/* esi_dir_merge's question: whether pages [first, first + n) (page
** numbers) meet a piece in flight. */
static bool range_busy(void *ud, uint64_t first, uint64_t n)
{
    um_migrator *m = ud;
    for (uint32_t s = 0; s < m->cfg.max_migrations; s++) {
        const um_slot *x = &m->slots[s];
        uint64_t lo = x->va >> m->page_shift;
        if (x->used && lo < first + n && first < lo + x->npages)
            return true;
    }
    return false;
}

/* pasi: every holder's table tags the piece holding page vpn as one run
** where its frames are consecutive (one TLB entry, docs/translation.md). */
static void tag_piece(um_migrator *m, uint64_t vpn)
{
    if (!m->max_order)
        return;
    uint64_t first;
    unsigned order;
    esi_dir_piece(m->dir, vpn, &first, &order);
    uint64_t holders = esi_dir_holders(m->dir, vpn);
    for (int x = 0; x < (int)m->cfg.ngpus; x++)
        if (holders >> x & 1)
            m->pages.set_run(m->pages.ud, x, first << m->page_shift, order);
}

static void slot_wait(um_slot *s, um_fault *faults, uint32_t i)
{
    faults[i].next = NONE;
    if (s->waiters == NONE)
        s->waiters = i;
    else
        faults[s->wtail].next = i;
    s->wtail = i;
}

/* gpu was given the npages pages at va at `answered`: no other GPU's
** fault takes them away before answered + min_residency. */
static void resident_until(um_migrator *m, uint64_t va, uint32_t npages,
                           int gpu, mgs_time answered)
{
    for (uint32_t k = 0; k < npages; k++) {
        um_resident *r = res_find(m, (va >> m->page_shift) + k, true);
        if (r->until <= eng_now(m->base.eng))
            r->gpus = 0;
        r->gpus |= 1ull << gpu;
        r->until = answered + m->cfg.min_residency;
    }
}

/* A command to GPU x's PMC about page k of slot s's piece: its copy at
** `pa` (to dst's frame new_pa[k]). */
static void command(um_migrator *m, um_slot *s, uint32_t k, int x,
                    uint64_t pa, uint64_t flags, uint32_t pid)
{
    mem_msg *c = mem_msg_alloc(m->pool, (mem_msg_type)UM_MIGRATE);
    c->base.dst = m->pmcs[x];
    c->base.bytes = UM_CTL_BYTES;
    c->base.id = s->id << UM_ID_SHIFT | k;
    c->vaddr = s->va + ((uint64_t)k << m->page_shift);
    c->addr = pa;
    c->paddr = s->new_pa[k];
    c->gpu = s->dst;
    c->pid = pid;
    c->coh[0] = flags;
    c->issue_time = s->start;
    s->due[x]++;
    s->due_total++;
    if (flags & UM_F_SHOOTDOWN)
        stat_inc(m->st_shoot);
    um_queue_push(&m->to_pmc, c);
}

/* Gives back the frames slot s held on dst (a start that failed). */
static void drop_held(um_migrator *m, um_slot *s, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (!s->in_place[k])
            m->pages.drop(m->pages.ud, s->new_pa[k]);
}

static void complete(um_migrator *m, um_slot *s);

/* The commands of page k of a fetch: from the supplier, or from the page's
** staging frame (nobody holds it; a staging frame on dst is mapped in
** place, no command). */
static void fetch_page(um_migrator *m, um_slot *s, uint32_t k,
                       uint64_t host_pa, uint32_t pid)
{
    const esi_plan *p = &s->plan;
    uint64_t va = s->va + ((uint64_t)k << m->page_shift);
    uint64_t via_host = m->cfg.via_host ? UM_F_VIA_HOST : 0;
    int x = p->supplier;
    uint64_t flags = via_host, pa = host_pa;
    if (x < 0) {
        x = (int)(host_pa / m->cfg.mem_per_gpu);
        flags = UM_F_VIA_HOST;    /* from the staging frame */
    } else if (p->invalidate >> x & 1) {
        pa = s->old_pa[k * m->cfg.ngpus + (uint32_t)x];   /* a move */
        flags |= UM_F_SHOOTDOWN;
        if (s->wrong_half)    /* the broken split: the other half's bytes */
            m->pages.lookup(m->pages.ud, x, va + (uint64_t)s->wrong_half,
                            &pa);
    } else {
        m->pages.lookup(m->pages.ud, x, va + (uint64_t)s->wrong_half, &pa);
        flags |= UM_F_KEEP;       /* a replica */
        if (p->downgrade >> x & 1) {
            m->pages.protect(m->pages.ud, x, va, true);
            flags |= UM_F_SHOOTDOWN;
        }
    }
    s->sender = x;
    if (um_test_break != UM_BREAK_NO_COPY) {
        s->due_filled++;
        s->due_total++;
    }
    command(m, s, k, x, pa, flags, pid);
}

/* Starts fault i's plan p for the piece of npages pages at va in slot s:
** frames held, tables changed (the GPUs losing their copy unmapped, a
** downgraded owner read-only), commands to the PMCs, page by page (seed
** 002 §5.3.3.1 step 5, §5.3.3.2). */
static void start(um_migrator *m, um_slot *s, uint32_t i, const esi_plan *p,
                  uint64_t va, uint32_t npages, int64_t wrong_half)
{
    mem_msg *f = m->faults[i].msg;
    int g = f->gpu;
    uint32_t n = m->cfg.ngpus;
    uint64_t *new_pa = s->new_pa, *old_pa = s->old_pa;
    bool *in_place = s->in_place;
    uint32_t *due = s->due;
    memset(old_pa, 0, (size_t)npages * n * sizeof *old_pa);
    memset(due, 0, n * sizeof *due);
    *s = (um_slot){.used = true, .id = m->next_id++, .va = va,
                   .npages = npages, .dst = g, .sender = -1, .plan = *p,
                   .new_pa = new_pa, .in_place = in_place, .old_pa = old_pa,
                   .due = due, .wrong_half = wrong_half,
                   .start = eng_now(m->base.eng),
                   .waiters = NONE, .wtail = NONE, .ev = s->ev};
    uint64_t host_pa[1];
    uint32_t placed = 0;
    for (uint32_t k = 0; k < npages && p->kind == ESI_FETCH; k++) {
        uint64_t pva = va + ((uint64_t)k << m->page_shift);
        m->pages.lookup(m->pages.ud, UM_HOST_TABLE, pva, host_pa);
        in_place[k] = p->supplier < 0 &&
                      (int)(host_pa[0] / m->cfg.mem_per_gpu) == g;
        new_pa[k] = host_pa[0];
        placed += in_place[k];
    }
    /* A piece's frames are consecutive when they can be (one TLB entry). */
    uint64_t run = 0;
    bool as_run = p->kind == ESI_FETCH && npages > 1 && !placed &&
                  m->pages.hold_run(m->pages.ud, g, npages, &run) == MGS_OK;
    for (uint32_t k = 0; k < npages && p->kind == ESI_FETCH; k++) {
        if (as_run)
            new_pa[k] = run + ((uint64_t)k << m->page_shift);
        else if (!in_place[k] &&
                 m->pages.hold(m->pages.ud, g, &new_pa[k]) != MGS_OK) {
            drop_held(m, s, k);
            s->used = false;
            stat_inc(m->st_failed);
            answer(m, i, false);  /* out of frames on g: the access faults */
            return;
        }
    }
    m->active++;
    slot_wait(s, m->faults, i);
    bool skip = um_test_break == UM_BREAK_NO_INVALIDATE;
    for (int x = 0; x < (int)n; x++) {
        if (!(p->invalidate >> x & 1) || (skip && x != p->supplier))
            continue;
        if (x != p->supplier)
            stat_inc(m->st_inval);
        for (uint32_t k = 0; k < npages; k++) {
            /* Copies that go: unmapped now (new accesses fault and wait
            ** here), their frames kept until their PMC dropped them. */
            uint64_t pa, pva = va + ((uint64_t)k << m->page_shift);
            if (!m->pages.lookup(m->pages.ud, x, pva, &pa))
                continue;
            m->pages.keep(m->pages.ud, pa);
            m->pages.unmap(m->pages.ud, x, pva);
            old_pa[k * n + (uint32_t)x] = pa;
            if (x != p->supplier)
                command(m, s, k, x, pa, UM_F_SHOOTDOWN | UM_F_NO_DATA,
                        f->pid);
        }
    }
    if (p->kind == ESI_FETCH) {
        if (p->supplier >= 0 && (p->downgrade >> p->supplier & 1))
            stat_inc(m->st_downgrades);
        for (uint32_t k = 0; k < npages; k++) {
            if (in_place[k])
                continue;
            uint64_t pva = va + ((uint64_t)k << m->page_shift);
            m->pages.lookup(m->pages.ud, UM_HOST_TABLE, pva, host_pa);
            fetch_page(m, s, k, host_pa[0], f->pid);
        }
    }
    snprintf(s->label, sizeof s->label, "%s: page 0x%" PRIx64 " (%u) GPU %d "
             "-> GPU %d (migration %" PRIu64 ")", m->base.name, va, npages,
             s->sender, g, s->id);
    if (!s->due_total)
        complete(m, s);       /* in place, or nobody to invalidate */
}

static void take(um_migrator *m, uint32_t i);

/* Serves queued faults while slots are free. */
static void serve_queue(um_migrator *m)
{
    while (m->queue != NONE && m->active < m->cfg.max_migrations) {
        uint32_t i = m->queue;
        m->queue = m->faults[i].next;
        if (m->queue == NONE)
            m->qtail = NONE;
        take(m, i);
    }
}

/* The piece is where the plan put it: the faults it satisfies are
** answered; the others (other GPUs, a write that got a read-only replica)
** start over (they meet the residency rule). */
static void slot_answer_all(um_migrator *m, um_slot *s)
{
    uint32_t others = NONE, otail = NONE;
    for (uint32_t i = s->waiters; i != NONE;) {
        uint32_t next = m->faults[i].next;
        if (satisfied(m, m->faults[i].msg)) {
            answer(m, i, true);
        } else {
            m->faults[i].next = NONE;
            if (others == NONE)
                others = i;
            else
                m->faults[otail].next = i;
            otail = i;
        }
        i = next;
    }
    s->used = s->answering = false;
    m->active--;
    for (uint32_t i = others; i != NONE;) {
        uint32_t next = m->faults[i].next;
        take(m, i);
        i = next;
    }
    serve_queue(m);
}

/* Every PMC answered: the tables say what the plan did (the host's maps
** the only copy of an Exclusive page), the dropped frames go, the
** directory records it (and joins pieces that now agree); then the faults
** are answered (now, or at the fixed time). */
static void complete(um_migrator *m, um_slot *s)
{
    const esi_plan *p = &s->plan;
    uint32_t n = m->cfg.ngpus, moved = 0;
    for (uint32_t k = 0; k < s->npages; k++) {
        uint64_t va = s->va + ((uint64_t)k << m->page_shift), pa = 0;
        if (p->kind == ESI_FETCH) {
            pa = s->new_pa[k];
            m->pages.map(m->pages.ud, s->dst, va, pa);
            if (p->result == ESI_S)
                m->pages.protect(m->pages.ud, s->dst, va, true);
            moved += !s->in_place[k];
        } else {
            m->pages.lookup(m->pages.ud, s->dst, va, &pa);
            m->pages.protect(m->pages.ud, s->dst, va, false);
        }
        if (p->result == ESI_E)
            m->pages.map(m->pages.ud, UM_HOST_TABLE, va, pa);
        for (uint32_t x = 0; x < n; x++)
            if (s->old_pa[k * n + x]) {
                m->pages.drop(m->pages.ud, s->old_pa[k * n + x]);
                s->old_pa[k * n + x] = 0;
            }
    }
    if (p->kind == ESI_FETCH)
        drop_held(m, s, s->npages);
    if (p->kind == ESI_UPGRADE)
        stat_inc(m->st_upgrades);
    else if (moved)
        stat_inc(p->result == ESI_S ? m->st_replicas : m->st_migr);
    if (s->npages - moved && p->kind == ESI_FETCH)
        stat_addn(m->st_first, s->npages - moved);
    stat_addn(m->st_bytes, (uint64_t)moved << m->page_shift);
    uint64_t vpn = s->va >> m->page_shift;
    esi_dir_commit(m->dir, vpn, (uint32_t)s->dst, p);
    s->used = false;          /* not in flight for the merge */
    stat_addn(m->st_merges, esi_dir_merge(m->dir, vpn, eng_now(m->base.eng),
                                          range_busy, m));
    s->used = true;
    tag_piece(m, vpn);
    mgs_time now = eng_now(m->base.eng);
    if (m->cfg.fault_latency) {
        mgs_time at = s->start + m->cfg.fault_latency;
        if (at > now) {
            s->answering = true;
            resident_until(m, s->va, s->npages, s->dst, at);
            eng_schedule(m->base.eng, &s->ev, at);
            return;
        }
        stat_inc(m->st_over);
    }
    resident_until(m, s->va, s->npages, s->dst, now);
    slot_answer_all(m, s);
}

/* The GPU whose table maps page va (the first one), or -1. */
static int table_holder(um_migrator *m, uint64_t va)
{
    uint64_t pa;
    for (uint32_t t = 0; t < m->cfg.ngpus; t++)
        if (m->pages.lookup(m->pages.ud, (int)t, va, &pa))
            return (int)t;
    return -1;
}

/* First sight of page vpn: its piece is the largest aligned block of at
** most 2^max_order pages, all unseen, all in the host table (one
** allocation: the guard page after each is unmapped) and held by the same
** GPU's table (or by none). */
static void seed_piece(um_migrator *m, uint64_t vpn)
{
    int holder = table_holder(m, vpn << m->page_shift);
    for (unsigned o = m->max_order; o > 0; o--) {
        uint64_t first = vpn & ~((1ull << o) - 1), pa;
        bool ok = true;
        for (uint64_t k = 0; ok && k < 1ull << o; k++) {
            uint64_t va = (first + k) << m->page_shift;
            ok = !esi_dir_known(m->dir, first + k) &&
                 m->pages.lookup(m->pages.ud, UM_HOST_TABLE, va, &pa) &&
                 table_holder(m, va) == holder;
        }
        if (ok) {
            esi_dir_seed(m->dir, first, o, holder);
            tag_piece(m, vpn);
            return;
        }
    }
    esi_dir_seed(m->dir, vpn, 0, holder);
}

/* Steps 1-5 for fault record i. */
static void take(um_migrator *m, uint32_t i)
{
    mem_msg *f = m->faults[i].msg;
    uint64_t va = page_of(m, f->addr), vpn = va >> m->page_shift;
    int g = f->gpu;
    um_slot *s = slot_of_page(m, va);
    if (s) {
        stat_inc(m->st_wait);
        slot_wait(s, m->faults, i);
        return;
    }
    uint64_t pa;
    if (g < 0 || (uint32_t)g >= m->cfg.ngpus ||
        !m->pages.lookup(m->pages.ud, UM_HOST_TABLE, va, &pa)) {
        answer(m, i, false);  /* no allocation there: a real fault */
        return;
    }
    if (satisfied(m, f)) {
        stat_inc(m->st_raced);
        answer(m, i, true);
        return;
    }
    if (!esi_dir_known(m->dir, vpn))
        seed_piece(m, vpn);
    esi_plan p = esi_dir_plan(m->dir, vpn, (uint32_t)g, fault_writes(f));
    if (p.kind == ESI_NOTHING) {
        answer(m, i, false);  /* the directory and the tables disagree */
        return;
    }
    um_resident *r = res_find(m, vpn, false);
    mgs_time now = eng_now(m->base.eng);
    uint64_t taken = (p.invalidate | p.downgrade) & ~(1ull << g);
    if (r && r->until > now && (r->gpus & taken)) {
        stat_inc(m->st_res_wait);
        m->parked++;
        eng_schedule(m->base.eng, &m->faults[i].ev, r->until);
        return;
    }
    if (m->active >= m->cfg.max_migrations) {
        m->faults[i].next = NONE;
        if (m->queue == NONE)
            m->queue = i;
        else
            m->faults[m->qtail].next = i;
        m->qtail = i;
        return;
    }
    uint64_t first;
    unsigned order;
    esi_dir_piece(m->dir, vpn, &first, &order);
    /* A conflict (the piece would leave, or be shared by, another GPU):
    ** halve it, only the half with the fault goes (seed 002 §5.3.3.3). */
    int64_t wrong = 0;
    if (taken && order > m->min_order && esi_dir_split(m->dir, vpn, now)) {
        stat_inc(m->st_splits);
        esi_dir_piece(m->dir, vpn, &first, &order);
        tag_piece(m, first);  /* both halves: runs of the new size */
        tag_piece(m, first ^ (1ull << order));
        if (um_test_break == UM_BREAK_WRONG_HALF)
            wrong = (int64_t)(((first ^ (1ull << order)) - first)
                              << m->page_shift);
    }
    for (uint32_t k = 0; k < m->cfg.max_migrations; k++)
        if (!m->slots[k].used) {
            start(m, &m->slots[k], i, &p, first << m->page_shift,
                  1u << order, wrong);
            return;
        }
}

/* ---- component ------------------------------------------------------- */

static void pmc_answer(um_migrator *m, mem_msg *a)
{
    um_slot *s = NULL;
    for (uint32_t k = 0; k < m->cfg.max_migrations; k++)
        if (m->slots[k].used &&
            m->slots[k].id == a->base.id >> UM_ID_SHIFT)
            s = &m->slots[k];
    assert(s && !s->answering && s->due_total);
    if (a->base.type == UM_FILLED)
        s->due_filled--;
    else
        s->due[a->gpu]--;
    mem_msg_release(m->pool, a);
    if (!--s->due_total)
        complete(m, s);
}

static bool mig_tick(sim_comp *c)
{
    um_migrator *m = (um_migrator *)c;
    bool progress = false;
    mem_msg *a;
    while ((a = (mem_msg *)port_retrieve(&m->ctl))) {
        pmc_answer(m, a);
        progress = true;
    }
    while (m->free_faults != NONE && port_peek(&m->fault)) {
        uint32_t i = m->free_faults;
        m->free_faults = m->faults[i].next;
        m->faults[i].msg = (mem_msg *)port_retrieve(&m->fault);
        stat_inc(m->st_faults);
        if (fault_writes(m->faults[i].msg))
            stat_inc(m->st_write_faults);
        take(m, i);
        progress = true;
    }
    progress |= um_queue_drain(&m->to_pmc, &m->ctl);
    progress |= um_queue_drain(&m->to_walker, &m->fault);
    return progress;
}

static void mig_handle(sim_comp *c, sim_event *ev)
{
    um_migrator *m = (um_migrator *)c;
    if (ev->kind == 1) {
        slot_answer_all(m, ev->data);
    } else {
        um_fault *f = ev->data;
        m->parked--;
        take(m, (uint32_t)(f - m->faults));
    }
    comp_wake(c);             /* send what was answered */
    eng_note_progress(c->eng);
}

static bool mig_busy(const sim_comp *c)
{
    const um_migrator *m = (const um_migrator *)c;
    return m->active || m->parked || m->queue != NONE || m->to_pmc.n ||
           m->to_walker.n;
}

/* The watchdog's line: the oldest page in flight and whom it waits for. */
static bool mig_stall(const sim_comp *c, char *buf, size_t n)
{
    const um_migrator *m = (const um_migrator *)c;
    const um_slot *s = NULL;
    for (uint32_t k = 0; k < m->cfg.max_migrations; k++)
        if (m->slots[k].used && (!s || m->slots[k].id < s->id))
            s = &m->slots[k];
    if (!s)
        return false;
    char who[160];
    size_t w = 0;
    who[0] = 0;
    if (s->answering)
        snprintf(who, sizeof who, "the fixed fault latency");
    for (uint32_t x = 0; !s->answering && x < m->cfg.ngpus && w < 120; x++)
        if (s->due[x])
            w += (size_t)snprintf(who + w, sizeof who - w, "%sGPU[%u].PMC%s",
                                  w ? " and " : "", x,
                                  (int)x == s->sender ? " (source)" : "");
    if (!s->answering && s->due_filled)
        snprintf(who + w, sizeof who - w, "%sGPU[%d].PMC (destination)",
                 w ? " and " : "", s->dst);
    snprintf(buf, n, "%s (%u page(s) in flight): page 0x%" PRIx64
             " GPU %d -> GPU %d since t=%" PRIu64 " ps waits for %s",
             c->name, m->active, s->va, s->sender, s->dst, s->start, who);
    return true;
}

static void mig_dump(const sim_comp *c, FILE *f)
{
    const um_migrator *m = (const um_migrator *)c;
    fprintf(f, "  migrations in flight %u, parked faults %u, queued %s\n",
            m->active, m->parked, m->queue != NONE ? "yes" : "no");
    for (uint32_t k = 0; k < m->cfg.max_migrations; k++) {
        const um_slot *s = &m->slots[k];
        if (s->used)
            fprintf(f, "  %s: PMC answers due %u (fills %u)\n", s->label,
                    s->due_total, s->due_filled);
    }
}

static const sim_comp_ops mig_ops = {
    .kind = "Migrator",
    .tick = mig_tick,
    .handle = mig_handle,
    .busy = mig_busy,
    .stall = mig_stall,
    .dump = mig_dump,
};

um_migrator *um_migrator_new(sim_engine *eng, const char *name,
                             const um_config *cfg, mem_pool *pool,
                             stat_registry *stats, const um_pagemap *pages)
{
    um_migrator *m = MGS_NEW(um_migrator);
    m->cfg = *cfg;
    m->pool = pool;
    m->pages = *pages;
    m->page_shift = (unsigned)__builtin_ctz(cfg->page_bytes);
    comp_init(&m->base, eng, &mig_ops, name, cfg->period);
    port_init(&m->fault, &m->base, "fault", cfg->max_faults);
    port_init(&m->ctl, &m->base, "ctl", 64);
    m->nfaults = cfg->max_faults;
    m->faults = MGS_NEW_ARRAY(um_fault, m->nfaults);
    m->free_faults = NONE;
    for (uint32_t i = m->nfaults; i-- > 0;) {
        eng_event_init(&m->faults[i].ev, &m->base, 0, &m->faults[i]);
        fault_free(m, i);
    }
    m->queue = m->qtail = NONE;
    m->slots = MGS_NEW_ARRAY(um_slot, cfg->max_migrations);
    uint32_t pp = cfg->piece_pages ? cfg->piece_pages : 1;
    for (uint32_t k = 0; k < cfg->max_migrations; k++) {
        um_slot *x = &m->slots[k];
        eng_event_init(&x->ev, &m->base, 1, x);
        x->new_pa = MGS_NEW_ARRAY(uint64_t, pp);
        x->in_place = MGS_NEW_ARRAY(bool, pp);
        x->old_pa = MGS_NEW_ARRAY(uint64_t, (size_t)pp * cfg->ngpus);
        x->due = MGS_NEW_ARRAY(uint32_t, cfg->ngpus);
    }
    m->max_order = (unsigned)__builtin_ctz(pp);
    if (cfg->pasi && cfg->pasi_min > cfg->page_bytes)
        m->min_order = (unsigned)__builtin_ctzll(cfg->pasi_min /
                                                 cfg->page_bytes);
    if (m->min_order > m->max_order)
        m->min_order = m->max_order;
    /* assumed: a fixed seed, so runs repeat (the supplier pick only has to
    ** spread the load, seed 002 §5.3.3.2) */
    m->dir = esi_dir_new(cfg->ngpus, !cfg->esi, 0x5eed0002ull, m->max_order);
    esi_dir_set_merge_hold(m->dir, cfg->pasi_merge_hold);
    stat_counter **t[] = {&m->st_faults, &m->st_migr, &m->st_bytes,
                          &m->st_shoot, &m->st_wait, &m->st_res_wait,
                          &m->st_first, &m->st_raced, &m->st_over,
                          &m->st_failed, &m->st_write_faults,
                          &m->st_replicas, &m->st_upgrades, &m->st_inval,
                          &m->st_downgrades, &m->st_collapses,
                          &m->st_splits, &m->st_merges};
    static const char *names[] = {
        "faults", "migrations", "bytes_migrated", "shootdowns",
        "pages_waiting", "residency_waits", "first_touch", "raced",
        "fixed_latency_overruns", "failed_migrations", "write_faults",
        "replicas", "upgrades", "invalidations", "downgrades",
        "host_collapses", "splits", "merges"};
    static const char *units[] = {"count", "count", "bytes", "count",
                                  "count", "count", "count", "count",
                                  "count", "count", "count", "count",
                                  "count", "count", "count", "count",
                                  "count", "count"};
    for (size_t i = 0; i < 18; i++)
        *t[i] = stats ? stat_counter_add(stats, name, names[i], units[i])
                      : &m->own[i];
    m->st_latency = stats ? stat_hist_add(stats, name, "fault_latency", "ps")
                          : &m->own_hist;
    return m;
}

void um_migrator_free(um_migrator *m)
{
    if (!m)
        return;
    um_queue_free(&m->to_walker, m->pool);
    um_queue_free(&m->to_pmc, m->pool);
    free(m->faults);
    for (uint32_t k = 0; k < m->cfg.max_migrations; k++) {
        free(m->slots[k].new_pa);
        free(m->slots[k].in_place);
        free(m->slots[k].old_pa);
        free(m->slots[k].due);
    }
    free(m->slots);
    esi_dir_free(m->dir);
    free(m->res);
    free(m->pmcs);
    port_fini(&m->fault);
    port_fini(&m->ctl);
    comp_fini(&m->base);
    free(m);
}

sim_port *um_migrator_fault_port(um_migrator *m) { return &m->fault; }
sim_port *um_migrator_ctl_port(um_migrator *m) { return &m->ctl; }

void um_migrator_host_write(um_migrator *m, uint64_t va, uint64_t n)
{
    if (!m->cfg.esi || !n)
        return;
    for (uint64_t p = page_of(m, va); p < va + n; p += page_bytes(m)) {
        uint64_t vpn = p >> m->page_shift, first, pa;
        unsigned order;
        uint64_t holders = esi_dir_holders(m->dir, vpn);
        if (!(holders & (holders - 1)) ||
            !m->pages.lookup(m->pages.ud, UM_HOST_TABLE, p, &pa))
            continue;         /* not replicated */
        /* The whole piece collapses to the GPU of this page's host copy;
        ** its other pages' host entries move to that GPU's replicas. */
        esi_dir_piece(m->dir, vpn, &first, &order);
        int keep = (int)(pa / m->cfg.mem_per_gpu);
        for (uint64_t k = 0; k < 1ull << order; k++) {
            uint64_t kva = (first + k) << m->page_shift;
            if (m->pages.lookup(m->pages.ud, keep, kva, &pa))
                m->pages.map(m->pages.ud, UM_HOST_TABLE, kva, pa);
            for (int x = 0; x < (int)m->cfg.ngpus; x++)
                if (x != keep && (holders >> x & 1))
                    m->pages.unmap(m->pages.ud, x, kva);
            m->pages.protect(m->pages.ud, keep, kva, false);
        }
        esi_dir_seed(m->dir, first, order, keep);
        tag_piece(m, first);
        stat_inc(m->st_collapses);
    }
}

void um_migrator_placed(um_migrator *m, uint64_t va, uint64_t n, int gpu)
{
    mgs_time now = eng_now(m->base.eng);
    for (uint64_t p = page_of(m, va); p < va + n; p += page_bytes(m)) {
        uint64_t vpn = p >> m->page_shift;
        if (!esi_dir_known(m->dir, vpn))
            continue;
        while (esi_dir_split(m->dir, vpn, now))
            ;
        esi_dir_seed(m->dir, vpn, 0, gpu);
    }
}

void um_migrator_set_pmcs(um_migrator *m, sim_port *const *pmc_ctl,
                          uint32_t n)
{
    free(m->pmcs);
    m->pmcs = mgs_xcalloc(n, sizeof *m->pmcs);
    memcpy(m->pmcs, pmc_ctl, n * sizeof *m->pmcs);
    m->npmcs = n;
}
