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
    uint64_t id;              /* migration sequence number */
    uint64_t va;              /* page */
    int dst;                  /* the faulting GPU */
    int sender;               /* GPU whose PMC sends the data (-1: none) */
    esi_plan plan;
    uint64_t new_pa;          /* ESI_FETCH: the frame held on dst */
    uint64_t *old_pa;         /* [ngpus]: frames of invalidated copies, kept
                                 until their PMC dropped them (0: none) */
    uint64_t wait_released;   /* PMCs whose UM_RELEASED is still due */
    bool wait_filled;         /* dst's UM_FILLED still due */
    mgs_time start;
    uint32_t waiters, wtail;  /* fault records, FIFO */
    sim_event ev;             /* ANSWERING: the fixed-latency answer */
    char label[128];          /* for dumps */
} um_slot;

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
        *st_downgrades, *st_collapses;
    stat_hist *st_latency;
    stat_counter own[16];
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

static um_slot *slot_of_page(um_migrator *m, uint64_t va)
{
    for (uint32_t s = 0; s < m->cfg.max_migrations; s++)
        if (m->slots[s].used && m->slots[s].va == va)
            return &m->slots[s];
    return NULL;
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

/* gpu was given the page at `answered`: no other GPU's fault takes it
** away before answered + min_residency. */
static void resident_until(um_migrator *m, uint64_t va, int gpu,
                           mgs_time answered)
{
    um_resident *r = res_find(m, va >> m->page_shift, true);
    if (r->until <= eng_now(m->base.eng))
        r->gpus = 0;
    r->gpus |= 1ull << gpu;
    r->until = answered + m->cfg.min_residency;
}

/* A command to GPU x's PMC about slot s's page: its copy at `pa`. */
static void command(um_migrator *m, um_slot *s, int x, uint64_t pa,
                    uint64_t flags, uint32_t pid)
{
    mem_msg *c = mem_msg_alloc(m->pool, (mem_msg_type)UM_MIGRATE);
    c->base.dst = m->pmcs[x];
    c->base.bytes = UM_CTL_BYTES;
    c->base.id = s->id;
    c->vaddr = s->va;
    c->addr = pa;
    c->paddr = s->new_pa;
    c->gpu = s->dst;
    c->pid = pid;
    c->coh[0] = flags;
    c->issue_time = s->start;
    s->wait_released |= 1ull << x;
    if (flags & UM_F_SHOOTDOWN)
        stat_inc(m->st_shoot);
    um_queue_push(&m->to_pmc, c);
}

static void complete(um_migrator *m, um_slot *s);

/* Starts fault i's plan p in slot s: frames held, tables changed (the GPUs
** losing their copy unmapped, a downgraded owner read-only), commands to
** the PMCs (seed 002 §5.3.3.1 step 5, §5.3.3.2). */
static void start(um_migrator *m, um_slot *s, uint32_t i, const esi_plan *p)
{
    mem_msg *f = m->faults[i].msg;
    uint64_t va = page_of(m, f->addr), vpn = va >> m->page_shift;
    int g = f->gpu;
    uint64_t host_pa;
    m->pages.lookup(m->pages.ud, UM_HOST_TABLE, va, &host_pa);
    int staging = (int)(host_pa / m->cfg.mem_per_gpu);
    if (p->kind == ESI_FETCH && p->supplier < 0 && staging == g) {
        /* First touch by the GPU holding the staging frame: no move. */
        m->pages.map(m->pages.ud, g, va, host_pa);
        esi_dir_commit(m->dir, vpn, (uint32_t)g, p);
        stat_inc(m->st_first);
        resident_until(m, va, g, eng_now(m->base.eng));
        answer(m, i, true);
        return;
    }
    uint64_t new_pa = 0;
    if (p->kind == ESI_FETCH &&
        m->pages.hold(m->pages.ud, g, &new_pa) != MGS_OK) {
        stat_inc(m->st_failed);
        answer(m, i, false);  /* out of frames on g: the access faults */
        return;
    }
    uint64_t *old_pa = s->old_pa;
    memset(old_pa, 0, m->cfg.ngpus * sizeof *old_pa);
    *s = (um_slot){.used = true, .id = m->next_id++, .va = va, .dst = g,
                   .sender = -1, .plan = *p, .new_pa = new_pa,
                   .old_pa = old_pa, .start = eng_now(m->base.eng),
                   .waiters = NONE, .wtail = NONE, .ev = s->ev};
    m->active++;
    slot_wait(s, m->faults, i);
    uint64_t via_host = m->cfg.via_host ? UM_F_VIA_HOST : 0;
    bool skip = um_test_break == UM_BREAK_NO_INVALIDATE;
    /* Copies that go: unmapped now (new accesses fault and wait here),
    ** their frames kept until their PMC dropped them. */
    for (int x = 0; x < (int)m->cfg.ngpus; x++) {
        if (!(p->invalidate >> x & 1) || (skip && x != p->supplier))
            continue;
        uint64_t pa;
        if (!m->pages.lookup(m->pages.ud, x, va, &pa))
            continue;
        m->pages.keep(m->pages.ud, pa);
        m->pages.unmap(m->pages.ud, x, va);
        s->old_pa[x] = pa;
        if (x != p->supplier) {
            command(m, s, x, pa, UM_F_SHOOTDOWN | UM_F_NO_DATA, f->pid);
            stat_inc(m->st_inval);
        }
    }
    if (p->kind == ESI_FETCH) {
        int x = p->supplier;
        uint64_t flags = via_host, pa = host_pa;
        if (x < 0) {
            x = staging;          /* no GPU holds it: from the staging frame */
            flags = UM_F_VIA_HOST;
        } else if (p->invalidate >> x & 1) {
            pa = s->old_pa[x];    /* a move */
            flags |= UM_F_SHOOTDOWN;
        } else {
            m->pages.lookup(m->pages.ud, x, va, &pa);
            flags |= UM_F_KEEP;   /* a replica */
            if (p->downgrade >> x & 1) {
                m->pages.protect(m->pages.ud, x, va, true);
                flags |= UM_F_SHOOTDOWN;
                stat_inc(m->st_downgrades);
            }
        }
        s->sender = x;
        s->wait_filled = um_test_break != UM_BREAK_NO_COPY;
        command(m, s, x, pa, flags, f->pid);
    }
    snprintf(s->label, sizeof s->label, "%s: page 0x%" PRIx64 " GPU %d -> "
             "GPU %d (migration %" PRIu64 ")", m->base.name, va, s->sender,
             g, s->id);
    if (!s->wait_released && !s->wait_filled)
        complete(m, s);       /* an upgrade with nobody to invalidate */
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

/* The page is where the plan put it: the faults it satisfies are
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
** directory records it; then the faults are answered (now, or at the
** fixed time). */
static void complete(um_migrator *m, um_slot *s)
{
    const esi_plan *p = &s->plan;
    uint64_t dst_pa = s->new_pa;
    if (p->kind == ESI_FETCH) {
        m->pages.map(m->pages.ud, s->dst, s->va, s->new_pa);
        if (p->result == ESI_S)
            m->pages.protect(m->pages.ud, s->dst, s->va, true);
        stat_addn(m->st_bytes, (uint64_t)1 << m->page_shift);
        stat_inc(p->result == ESI_S ? m->st_replicas : m->st_migr);
    } else {
        m->pages.lookup(m->pages.ud, s->dst, s->va, &dst_pa);
        m->pages.protect(m->pages.ud, s->dst, s->va, false);
        stat_inc(m->st_upgrades);
    }
    if (p->result == ESI_E)
        m->pages.map(m->pages.ud, UM_HOST_TABLE, s->va, dst_pa);
    for (uint32_t x = 0; x < m->cfg.ngpus; x++)
        if (s->old_pa[x]) {
            m->pages.drop(m->pages.ud, s->old_pa[x]);
            s->old_pa[x] = 0;
        }
    if (p->kind == ESI_FETCH)
        m->pages.drop(m->pages.ud, s->new_pa);
    esi_dir_commit(m->dir, s->va >> m->page_shift, (uint32_t)s->dst, p);
    mgs_time now = eng_now(m->base.eng);
    if (m->cfg.fault_latency) {
        mgs_time at = s->start + m->cfg.fault_latency;
        if (at > now) {
            s->answering = true;
            resident_until(m, s->va, s->dst, at);
            eng_schedule(m->base.eng, &s->ev, at);
            return;
        }
        stat_inc(m->st_over);
    }
    resident_until(m, s->va, s->dst, now);
    slot_answer_all(m, s);
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
    if (!esi_dir_known(m->dir, vpn)) {
        int holder = -1;      /* first sight: whoever's table maps it */
        for (uint32_t t = 0; t < m->cfg.ngpus && holder < 0; t++)
            if (m->pages.lookup(m->pages.ud, (int)t, va, &pa))
                holder = (int)t;
        esi_dir_seed(m->dir, vpn, holder);
    }
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
    for (uint32_t k = 0; k < m->cfg.max_migrations; k++)
        if (!m->slots[k].used) {
            start(m, &m->slots[k], i, &p);
            return;
        }
}

/* ---- component ------------------------------------------------------- */

static void pmc_answer(um_migrator *m, mem_msg *a)
{
    um_slot *s = NULL;
    for (uint32_t k = 0; k < m->cfg.max_migrations; k++)
        if (m->slots[k].used && m->slots[k].id == a->base.id)
            s = &m->slots[k];
    assert(s && !s->answering);
    if (a->base.type == UM_FILLED)
        s->wait_filled = false;
    else
        s->wait_released &= ~(1ull << a->gpu);
    mem_msg_release(m->pool, a);
    if (!s->wait_released && !s->wait_filled)
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
        if (s->wait_released >> x & 1)
            w += (size_t)snprintf(who + w, sizeof who - w, "%sGPU[%u].PMC%s",
                                  w ? " and " : "", x,
                                  (int)x == s->sender ? " (source)" : "");
    if (!s->answering && s->wait_filled)
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
            fprintf(f, "  %s: PMC answers due 0x%" PRIx64 ", filled %d\n",
                    s->label, s->wait_released, !s->wait_filled);
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
    for (uint32_t k = 0; k < cfg->max_migrations; k++) {
        eng_event_init(&m->slots[k].ev, &m->base, 1, &m->slots[k]);
        m->slots[k].old_pa = MGS_NEW_ARRAY(uint64_t, cfg->ngpus);
    }
    /* assumed: a fixed seed, so runs repeat (the supplier pick only has to
    ** spread the load, seed 002 §5.3.3.2) */
    m->dir = esi_dir_new(cfg->ngpus, !cfg->esi, 0x5eed0002ull);
    stat_counter **t[] = {&m->st_faults, &m->st_migr, &m->st_bytes,
                          &m->st_shoot, &m->st_wait, &m->st_res_wait,
                          &m->st_first, &m->st_raced, &m->st_over,
                          &m->st_failed, &m->st_write_faults,
                          &m->st_replicas, &m->st_upgrades, &m->st_inval,
                          &m->st_downgrades, &m->st_collapses};
    static const char *names[] = {
        "faults", "migrations", "bytes_migrated", "shootdowns",
        "pages_waiting", "residency_waits", "first_touch", "raced",
        "fixed_latency_overruns", "failed_migrations", "write_faults",
        "replicas", "upgrades", "invalidations", "downgrades",
        "host_collapses"};
    static const char *units[] = {"count", "count", "bytes", "count",
                                  "count", "count", "count", "count",
                                  "count", "count", "count", "count",
                                  "count", "count", "count", "count"};
    for (size_t i = 0; i < 16; i++)
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
    for (uint32_t k = 0; k < m->cfg.max_migrations; k++)
        free(m->slots[k].old_pa);
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
    uint64_t step = (uint64_t)1 << m->page_shift;
    for (uint64_t p = page_of(m, va); p < va + n; p += step) {
        uint64_t vpn = p >> m->page_shift, holders, pa;
        holders = esi_dir_holders(m->dir, vpn);
        if (!(holders & (holders - 1)) ||
            !m->pages.lookup(m->pages.ud, UM_HOST_TABLE, p, &pa))
            continue;         /* not replicated */
        int keep = (int)(pa / m->cfg.mem_per_gpu);
        for (int x = 0; x < (int)m->cfg.ngpus; x++)
            if (x != keep && (holders >> x & 1))
                m->pages.unmap(m->pages.ud, x, p);
        m->pages.protect(m->pages.ud, keep, p, false);
        esi_dir_seed(m->dir, vpn, keep);
        stat_inc(m->st_collapses);
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
