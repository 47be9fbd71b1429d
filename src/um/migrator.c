/*
** UM.Migrator (um.h): the shared IOMMU's page-fault handler under
** memory.management = migrate. Seed 002 §5.3.3.1 steps 3-8, with the
** rules the text leaves open (docs/memory-management.md):
**
** A fault (MEM_XLATE | MEM_F_FAULT from the IOMMU's walker: page VA, pid,
** faulting GPU g) is taken into a fault record and then, in order:
**   1. the page is in flight (a migration slot has it): the fault waits on
**      that slot (no double move; counted in pages_waiting);
**   2. g's table maps the page already (a migration finished between the
**      walk and now): answered at once, resolved (counted in raced);
**   3. the page arrived on another GPU less than memory.min_residency ago:
**      the fault is parked until then (residency_waits), the ping-pong rule;
**   4. every slot is busy: the fault queues (FIFO);
**   5. else a migration starts. The page's frame (host table) is on GPU k;
**      the GPU whose table maps it is the source s (none: the page waits
**      for its first touch, k holds its staging frame). If no GPU maps it
**      and k == g, the page is mapped in place (first_touch). Otherwise a
**      frame on g is held, s's mapping is removed at once (its new
**      accesses fault and wait here), and UM_MIGRATE goes to PMC[k].
** A migration completes when the destination PMC wrote every line
** (UM_FILLED) and the source PMC dropped the old copy (UM_RELEASED): the
** host table and g's table map the new frame (the old one is released),
** the page is resident on g until now + min_residency, and every waiting
** fault is answered "resolved" (with memory.fault_latency = N: not before
** N after the migration started). Then the queue is served.
**
** Fault record life (a fixed pool of max_faults: every unanswered fault
** holds one of the IOMMU's walks, so there are never more):
**   FREE --taken from the fault port--> WAITING (on a slot) | PARKED
**        (its event at the residency end) | QUEUED | answered -> FREE
** Slot life: FREE --start--> MOVING --filled and released--> (ANSWERING:
** fixed latency not reached, its event pending) --> FREE.
*/
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "um/um_int.h"

um_break um_test_break = UM_BREAK_NONE;

#define NONE UINT32_MAX

typedef struct um_fault {
    mem_msg *msg;             /* the walker's fault message (borrowed) */
    sim_event ev;             /* PARKED: wake-up */
    uint32_t next;            /* list link (waiters, queue, free) */
} um_fault;

typedef struct um_slot {
    bool used, filled, released, answering;
    uint64_t id;              /* migration sequence number */
    uint64_t va;              /* page */
    int src, holder, dst;     /* table that mapped it (-1), frame's GPU, g */
    uint64_t old_pa, new_pa;
    mgs_time start;
    uint32_t waiters, wtail;  /* fault records, FIFO */
    sim_event ev;             /* ANSWERING: the fixed-latency answer */
    char label[128];          /* for dumps */
} um_slot;

/* Where a page last arrived and until when it stays (open addressing,
** key = page number + 1, 0 = empty). */
typedef struct um_resident {
    uint64_t key;
    mgs_time until;
    int32_t gpu;
} um_resident;

struct um_migrator {
    sim_comp base;            /* FIRST */
    sim_port fault, ctl;
    um_config cfg;
    mem_pool *pool;
    um_pagemap pages;
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
        *st_res_wait, *st_first, *st_raced, *st_over, *st_failed;
    stat_hist *st_latency;
    stat_counter own[10];
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

static void send_ctl(um_migrator *m, mem_msg *c)
{
    um_queue_push(&m->to_pmc, c);
}

/* ---- migrations ------------------------------------------------------- */

static uint64_t page_of(const um_migrator *m, uint64_t va)
{
    return va & ~(((uint64_t)1 << m->page_shift) - 1);
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

/* The page stays on gpu until `answered` + min_residency. */
static void resident_until(um_migrator *m, uint64_t va, int gpu,
                           mgs_time answered)
{
    um_resident *r = res_find(m, va >> m->page_shift, true);
    r->gpu = gpu;
    r->until = answered + m->cfg.min_residency;
}

/* Starts moving fault i's page to its GPU in slot s (step 5). */
static void start(um_migrator *m, um_slot *s, uint32_t i)
{
    mem_msg *f = m->faults[i].msg;
    uint64_t va = page_of(m, f->addr);
    int g = f->gpu;
    uint64_t old_pa;
    if (!m->pages.lookup(m->pages.ud, UM_HOST_TABLE, va, &old_pa)) {
        answer(m, i, false);  /* no allocation there: a real fault */
        return;
    }
    int src = -1;
    for (uint32_t t = 0; t < m->cfg.ngpus; t++) {
        uint64_t pa;
        if ((int)t != g && m->pages.lookup(m->pages.ud, (int)t, va, &pa)) {
            src = (int)t;
            break;
        }
    }
    int holder = (int)(old_pa / m->cfg.mem_per_gpu);
    if (src < 0 && holder == g) {
        /* First touch by the GPU holding the staging frame: no move. */
        m->pages.map(m->pages.ud, g, va, old_pa);
        stat_inc(m->st_first);
        resident_until(m, va, g, eng_now(m->base.eng));
        answer(m, i, true);
        return;
    }
    uint64_t new_pa;
    if (m->pages.hold(m->pages.ud, g, &new_pa) != MGS_OK) {
        stat_inc(m->st_failed);
        answer(m, i, false);  /* out of frames on g: the access faults */
        return;
    }
    if (src >= 0)
        m->pages.unmap(m->pages.ud, src, va);
    *s = (um_slot){.used = true, .id = m->next_id++, .va = va, .src = src,
                   .holder = holder, .dst = g, .old_pa = old_pa,
                   .new_pa = new_pa, .start = eng_now(m->base.eng),
                   .waiters = NONE, .wtail = NONE, .ev = s->ev};
    snprintf(s->label, sizeof s->label, "%s: page 0x%" PRIx64 " GPU %d -> "
             "GPU %d (migration %" PRIu64 ")", m->base.name, va, holder, g,
             s->id);
    m->active++;
    slot_wait(s, m->faults, i);
    stat_inc(m->st_migr);
    if (src >= 0)
        stat_inc(m->st_shoot);
    mem_msg *c = mem_msg_alloc(m->pool, (mem_msg_type)UM_MIGRATE);
    c->base.dst = m->pmcs[holder];
    c->base.bytes = UM_CTL_BYTES;
    c->base.id = s->id;
    c->vaddr = va;
    c->addr = old_pa;
    c->paddr = new_pa;
    c->gpu = g;
    c->pid = f->pid;
    c->coh[0] = (src >= 0 ? UM_F_SHOOTDOWN : 0) |
                (m->cfg.via_host || src < 0 ? UM_F_VIA_HOST : 0);
    c->issue_time = s->start;
    send_ctl(m, c);
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

/* The page is on s->dst: its faults are answered; faults of other GPUs
** that waited on the move start over (they meet the residency rule). */
static void slot_answer_all(um_migrator *m, um_slot *s)
{
    uint32_t others = NONE, otail = NONE;
    for (uint32_t i = s->waiters; i != NONE;) {
        uint32_t next = m->faults[i].next;
        if (m->faults[i].msg->gpu == s->dst) {
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

/* Both PMCs are done: remap, then answer (now, or at the fixed time). */
static void complete(um_migrator *m, um_slot *s)
{
    m->pages.map(m->pages.ud, UM_HOST_TABLE, s->va, s->new_pa);
    m->pages.map(m->pages.ud, s->dst, s->va, s->new_pa);
    m->pages.drop(m->pages.ud, s->new_pa);
    stat_addn(m->st_bytes, (uint64_t)1 << m->page_shift);
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
    uint64_t va = page_of(m, f->addr);
    int g = f->gpu;
    um_slot *s = slot_of_page(m, va);
    if (s) {
        stat_inc(m->st_wait);
        slot_wait(s, m->faults, i);
        return;
    }
    uint64_t pa;
    if (g >= 0 && (uint32_t)g < m->cfg.ngpus &&
        m->pages.lookup(m->pages.ud, g, va, &pa)) {
        stat_inc(m->st_raced);
        answer(m, i, true);
        return;
    }
    if (g < 0 || (uint32_t)g >= m->cfg.ngpus) {
        answer(m, i, false);
        return;
    }
    um_resident *r = res_find(m, va >> m->page_shift, false);
    mgs_time now = eng_now(m->base.eng);
    if (r && r->gpu != g && r->until > now) {
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
            start(m, &m->slots[k], i);
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
        s->filled = true;
    else
        s->released = true;
    mem_msg_release(m->pool, a);
    bool copy = um_test_break != UM_BREAK_NO_COPY;
    if (s->released && (s->filled || !copy))
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
    char who[96];
    if (s->answering)
        snprintf(who, sizeof who, "the fixed fault latency");
    else if (!s->released && !s->filled)
        snprintf(who, sizeof who, "GPU[%d].PMC (source) and GPU[%d].PMC "
                 "(destination)", s->holder, s->dst);
    else if (!s->released)
        snprintf(who, sizeof who, "GPU[%d].PMC (source)", s->holder);
    else
        snprintf(who, sizeof who, "GPU[%d].PMC (destination)", s->dst);
    snprintf(buf, n, "%s (%u page(s) in flight): page 0x%" PRIx64
             " GPU %d -> GPU %d since t=%" PRIu64 " ps waits for %s",
             c->name, m->active, s->va, s->holder, s->dst, s->start, who);
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
            fprintf(f, "  %s filled %d released %d\n", s->label, s->filled,
                    s->released);
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
    for (uint32_t k = 0; k < cfg->max_migrations; k++)
        eng_event_init(&m->slots[k].ev, &m->base, 1, &m->slots[k]);
    stat_counter **t[] = {&m->st_faults, &m->st_migr, &m->st_bytes,
                          &m->st_shoot, &m->st_wait, &m->st_res_wait,
                          &m->st_first, &m->st_raced, &m->st_over,
                          &m->st_failed};
    static const char *names[] = {
        "faults", "migrations", "bytes_migrated", "shootdowns",
        "pages_waiting", "residency_waits", "first_touch", "raced",
        "fixed_latency_overruns", "failed_migrations"};
    static const char *units[] = {"count", "count", "bytes", "count",
                                  "count", "count", "count", "count",
                                  "count", "count"};
    for (size_t i = 0; i < 10; i++)
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
    free(m->slots);
    free(m->res);
    free(m->pmcs);
    port_fini(&m->fault);
    port_fini(&m->ctl);
    comp_fini(&m->base);
    free(m);
}

sim_port *um_migrator_fault_port(um_migrator *m) { return &m->fault; }
sim_port *um_migrator_ctl_port(um_migrator *m) { return &m->ctl; }

void um_migrator_set_pmcs(um_migrator *m, sim_port *const *pmc_ctl,
                          uint32_t n)
{
    free(m->pmcs);
    m->pmcs = mgs_xcalloc(n, sizeof *m->pmcs);
    memcpy(m->pmcs, pmc_ctl, n * sizeof *m->pmcs);
    m->npmcs = n;
}
