/*
** GPU[g].PMC, the page-migration controller of one GPU (um.h; seed 002
** §5.3.3.1: "a PMC in each memory controller"). It sits on the GPU's
** crossbar beside the L1s, so it reaches every L2 bank (and, through
** them, the memory controllers) with physical requests; on the GPU's
** control network beside the command processor, so it can shoot TLBs
** down and flush L2s by range; and on every shader array's connection, so
** it can fence an L1 in order with the requests reaching it.
**
** A page leaving (UM_MIGRATE from the migrator), one job per page:
**   SHOOT  MEM_INVALIDATE (the page's VA, pid) to every TLB of the GPU:
**          the translators' L1 TLBs and the L2 TLBs; wait for every answer
**          (a translator answers once the requests it translated before
**          have left it, xlat.c). Skipped when no table of this GPU mapped
**          the page.
**   DRAIN  a ranged MEM_INVALIDATE of the old frame into every L1's top
**          port, behind the requests already there: an L1 answers once
**          they are done in the L2. Now every write made with the old
**          mapping is in the L2.
**   READ   read the old frame line by line through the L2 (dirty lines
**          come from the L2, the rest from DRAM), at most pmc_reads lines
**          in flight; each line leaves at once as UM_DATA to the
**          destination PMC.
**   FLUSH  MEM_FLUSH | MEM_F_INVALIDATE over the old frame to every L2
**          bank and the L1 fence again: no line of the old frame stays
**          (the frame is released and reused afterwards).
**   then UM_RELEASED to the migrator.
** Under esi a job may keep its copy (UM_F_KEEP: a replica's supplier;
** READ, then UM_RELEASED, no FLUSH) or send nothing (UM_F_NO_DATA: an
** invalidated replica; SHOOT, DRAIN, FLUSH).
** A page arriving: every UM_DATA becomes a MEM_WRITE of its line into the
** new frame through the L2 (at most pmc_reads in flight; more wait in the
** port: back-pressure on the network); when the last one is acknowledged
** the L1s drop any line of the frame (from its last life), then UM_FILLED
** goes to the migrator.
** Job life: FREE -> SHOOT -> DRAIN -> READ -> FLUSH -> FREE (MUTE: the
** broken variant that never answers, tests only).
*/
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "um/um_int.h"

enum pmc_phase { P_FREE, P_SHOOT, P_DRAIN, P_READ, P_FLUSH, P_MUTE };

typedef struct pmc_job {
    enum pmc_phase phase;
    mem_msg *cmd;             /* the UM_MIGRATE (owned) */
    uint32_t ctrl_out;        /* maintenance requests unanswered */
    uint32_t next_line, lines, reads_out;
} pmc_job;

typedef struct pmc_fill {
    bool used;
    uint64_t id;
    uint64_t frame;           /* the new frame (first line's page) */
    uint32_t written, total;
    uint32_t fence_out;       /* L1 invalidations unanswered */
} pmc_fill;

struct um_pmc {
    sim_comp base;            /* FIRST */
    sim_port ctl, peer, host, mem, maint;
    um_config cfg;
    uint32_t gpu;
    mem_pool *pool;
    sim_port **l1, **tlb, **l2;   /* L1 top ports; TLB and L2 ctrl ports */
    uint32_t *l1_sa;          /* shader array of each L1 */
    uint32_t nl1, ntlb, nl2;
    sim_port *sa;             /* [nsas]: on each shader array's connection */
    uint32_t nsas;
    mem_route to_l2;
    sim_port **peer_ctl, **peer_net, **peer_host; /* [npeers] */
    uint32_t npeers;
    sim_port *migrator;
    pmc_job *jobs;            /* [njobs]: one per page in flight */
    pmc_fill *fills;          /* [njobs] */
    uint32_t njobs;           /* max_migrations x pages of a piece */
    uint32_t jobs_hw, fills_hw; /* entries at and above are free */
    uint32_t reads_out, writes_out;
    um_queue q_ctl, q_peer, q_host, q_mem, q_maint;
    um_queue *q_sa;           /* [nsas] */
    stat_counter *st_out, *st_in, *st_lines_out, *st_lines_in, *st_shoot,
        *st_flush, *st_dropped;
    stat_counter own[7];
};

/* ---- maintenance ---------------------------------------------------- */

/* A maintenance request of job j to dst, queued on q. */
static mem_msg *maint(um_pmc *p, pmc_job *j, um_queue *q, sim_port *dst,
                  mem_msg_type type, uint32_t flags, uint64_t addr,
                  uint64_t span)
{
    mem_msg *m = mem_msg_alloc(p->pool, type);
    m->base.dst = dst;
    m->base.bytes = 16;
    m->flags = flags;
    m->addr = addr;
    m->span = span;
    m->pid = j->cmd->pid;
    m->gpu = (int32_t)p->gpu;
    m->origin = j;
    m->issue_time = eng_now(p->base.eng);
    um_queue_push(q, m);
    j->ctrl_out++;
    return m;
}

/* A ranged invalidation of the old frame into every L1's top port, behind
** the requests that reached it first: the L1 answers once those are done
** in the L2 (cache.c drains before a control request completes). */
static void l1_fence(um_pmc *p, pmc_job *j)
{
    for (uint32_t i = 0; i < p->nl1; i++)
        maint(p, j, &p->q_sa[p->l1_sa[i]], p->l1[i], MEM_INVALIDATE, 0,
              j->cmd->addr, p->cfg.page_bytes);
}

static void job_shoot(um_pmc *p, pmc_job *j)
{
    j->phase = P_SHOOT;
    bool shoot = (j->cmd->coh[0] & UM_F_SHOOTDOWN) &&
                 um_test_break != UM_BREAK_NO_SHOOTDOWN;
    if (!shoot)
        return;
    /* A TLB reads the range from size. */
    for (uint32_t i = 0; i < p->ntlb; i++)
        maint(p, j, &p->q_maint, p->tlb[i], MEM_INVALIDATE, 0,
              j->cmd->vaddr, p->cfg.page_bytes)->size = p->cfg.page_bytes;
    stat_inc(p->st_shoot);
}

/* After the shoot-down (whose answers wait until every translator sent
** the requests it translated before it, xlat.c) no new access can reach
** the old frame; the L1 fence then waits until those requests are done in
** the L2, so the first line read sees every write made before the
** shoot-down. */
static void job_drain(um_pmc *p, pmc_job *j)
{
    j->phase = P_DRAIN;
    l1_fence(p, j);
}

static void job_flush(um_pmc *p, pmc_job *j)
{
    j->phase = P_FLUSH;
    for (uint32_t i = 0; i < p->nl2; i++)
        maint(p, j, &p->q_maint, p->l2[i], MEM_FLUSH, MEM_F_INVALIDATE,
              j->cmd->addr, p->cfg.page_bytes);
    l1_fence(p, j);
    stat_inc(p->st_flush);
}

/* ---- a page leaving ------------------------------------------------- */

static void job_read(um_pmc *p, pmc_job *j)
{
    while (j->next_line < j->lines && p->reads_out < p->cfg.pmc_reads) {
        mem_msg *m = mem_msg_alloc(p->pool, MEM_READ);
        m->addr = j->cmd->addr + (uint64_t)j->next_line * p->cfg.line;
        m->size = p->cfg.line;
        m->flags = MEM_F_PHYS;
        m->gpu = (int32_t)p->gpu;
        m->origin = j;
        m->issue_time = eng_now(p->base.eng);
        m->base.bytes = UM_DATA_HEADER;
        m->base.dst = mem_route_lookup(&p->to_l2, m->addr);
        um_queue_push(&p->q_mem, m);
        j->next_line++;
        j->reads_out++;
        p->reads_out++;
    }
}

/* A line of the old frame came back: it leaves for the destination. */
static void line_read(um_pmc *p, mem_msg *r)
{
    pmc_job *j = r->origin;
    const mem_msg *c = j->cmd;
    mem_msg *d = mem_msg_alloc(p->pool, (mem_msg_type)UM_DATA);
    d->addr = c->paddr + (r->addr - c->addr);
    d->size = p->cfg.line;
    memcpy(d->data, r->data, p->cfg.line);
    d->base.id = c->base.id;
    d->base.bytes = UM_DATA_HEADER + p->cfg.line;
    d->coh[0] = j->lines;
    d->gpu = (int32_t)p->gpu;
    /* The link the command asks for if the platform has it, else the
    ** other one, else the control link (one GPU, no host tree). */
    uint32_t dst = (uint32_t)c->gpu;
    bool via_host = c->coh[0] & UM_F_VIA_HOST;
    sim_port *first = via_host ? p->peer_host[dst] : p->peer_net[dst];
    sim_port *second = via_host ? p->peer_net[dst] : p->peer_host[dst];
    if (first || second) {
        bool host = first ? via_host : !via_host;
        d->base.dst = first ? first : second;
        um_queue_push(host ? &p->q_host : &p->q_peer, d);
    } else {
        d->base.dst = p->peer_ctl[dst];
        um_queue_push(&p->q_ctl, d);
    }
    stat_inc(p->st_lines_out);
    j->reads_out--;
    p->reads_out--;
    mem_msg_release(p->pool, r->req);
    mem_msg_release(p->pool, r);
}

static void answer_migrator(um_pmc *p, uint64_t id, uint32_t type)
{
    mem_msg *a = mem_msg_alloc(p->pool, (mem_msg_type)type);
    a->base.dst = p->migrator;
    a->base.bytes = UM_CTL_BYTES;
    a->base.id = id;
    a->gpu = (int32_t)p->gpu;
    um_queue_push(&p->q_ctl, a);
}

/* Moves every job as far as it can go. */
static void jobs_advance(um_pmc *p)
{
    for (uint32_t k = 0; k < p->jobs_hw; k++) {
        pmc_job *j = &p->jobs[k];
        if (j->phase == P_SHOOT && !j->ctrl_out)
            job_drain(p, j);
        uint64_t f = j->phase != P_FREE ? j->cmd->coh[0] : 0;
        if (j->phase == P_DRAIN && !j->ctrl_out) {
            j->phase = P_READ;
            if (um_test_break == UM_BREAK_NO_COPY || (f & UM_F_NO_DATA))
                j->next_line = j->lines;
        }
        if (j->phase == P_READ) {
            job_read(p, j);
            if (j->next_line == j->lines && !j->reads_out) {
                if (f & UM_F_KEEP)
                    j->phase = P_FLUSH;  /* the copy stays: nothing to drop */
                else
                    job_flush(p, j);
            }
        }
        if (j->phase == P_FLUSH && !j->ctrl_out) {
            answer_migrator(p, j->cmd->base.id, UM_RELEASED);
            stat_inc(f & UM_F_NO_DATA ? p->st_dropped : p->st_out);
            mem_msg_release(p->pool, j->cmd);
            *j = (pmc_job){.phase = P_FREE};
        }
    }
    while (p->jobs_hw && p->jobs[p->jobs_hw - 1].phase == P_FREE)
        p->jobs_hw--;
}

static void job_start(um_pmc *p, mem_msg *cmd)
{
    pmc_job *j = NULL;
    for (uint32_t k = 0; k < p->njobs && !j; k++)
        if (p->jobs[k].phase == P_FREE)
            j = &p->jobs[k];
    assert(j && "more pages leaving than migrations in flight");
    if ((uint32_t)(j - p->jobs) >= p->jobs_hw)
        p->jobs_hw = (uint32_t)(j - p->jobs) + 1;
    *j = (pmc_job){.cmd = cmd, .lines = p->cfg.page_bytes / p->cfg.line};
    if (um_test_break == UM_BREAK_MUTE_PMC) {
        j->phase = P_MUTE;    /* the broken variant: never answers */
        return;
    }
    job_shoot(p, j);
}

/* ---- a page arriving ------------------------------------------------ */

static pmc_fill *fill_of(um_pmc *p, uint64_t id, uint32_t total)
{
    pmc_fill *free_one = NULL;
    for (uint32_t k = 0; k < p->njobs; k++) {
        if (k < p->fills_hw && p->fills[k].used && p->fills[k].id == id)
            return &p->fills[k];
        if (!p->fills[k].used && !free_one)
            free_one = &p->fills[k];
        if (k >= p->fills_hw && free_one)
            break;
    }
    assert(free_one && "more pages arriving than migrations in flight");
    if ((uint32_t)(free_one - p->fills) >= p->fills_hw)
        p->fills_hw = (uint32_t)(free_one - p->fills) + 1;
    *free_one = (pmc_fill){.used = true, .id = id, .total = total};
    return free_one;
}

static void line_arrived(um_pmc *p, mem_msg *d)
{
    pmc_fill *f = fill_of(p, d->base.id, (uint32_t)d->coh[0]);
    f->frame = d->addr & ~(uint64_t)(p->cfg.page_bytes - 1);
    mem_msg *w = mem_msg_alloc(p->pool, MEM_WRITE);
    w->addr = d->addr;
    w->size = d->size;
    w->flags = MEM_F_PHYS;
    w->gpu = (int32_t)p->gpu;
    w->origin = f;
    w->issue_time = eng_now(p->base.eng);
    memcpy(w->data, d->data, d->size);
    w->base.bytes = UM_DATA_HEADER + d->size;
    w->base.dst = mem_route_lookup(&p->to_l2, w->addr);
    um_queue_push(&p->q_mem, w);
    p->writes_out++;
    stat_inc(p->st_lines_in);
    mem_msg_release(p->pool, d);
}

static void fill_done(um_pmc *p, pmc_fill *f)
{
    answer_migrator(p, f->id, UM_FILLED);
    stat_inc(p->st_in);
    f->used = false;
    while (p->fills_hw && !p->fills[p->fills_hw - 1].used)
        p->fills_hw--;
}

/* Every line is in the L2. A reused frame may still have lines in this
** GPU's L1s from its last life (a late read of a page that left): they go
** before the page is announced. */
static void line_written(um_pmc *p, mem_msg *r)
{
    pmc_fill *f = r->origin;
    p->writes_out--;
    mem_msg_release(p->pool, r->req);
    mem_msg_release(p->pool, r);
    if (++f->written < f->total)
        return;
    for (uint32_t i = 0; i < p->nl1; i++) {
        mem_msg *m = mem_msg_alloc(p->pool, MEM_INVALIDATE);
        m->base.dst = p->l1[i];
        m->base.bytes = 16;
        m->addr = f->frame;
        m->span = p->cfg.page_bytes;
        m->gpu = (int32_t)p->gpu;
        m->origin = f;
        m->issue_time = eng_now(p->base.eng);
        um_queue_push(&p->q_sa[p->l1_sa[i]], m);
        f->fence_out++;
    }
    if (!f->fence_out)
        fill_done(p, f);
}

/* ---- component ------------------------------------------------------ */

/* A maintenance request was answered (its job, or a page arriving). */
static void maint_answer(um_pmc *p, mem_msg *r)
{
    pmc_job *j = r->req->origin;
    if (j >= p->jobs && j < p->jobs + p->njobs) {
        j->ctrl_out--;
    } else {
        pmc_fill *f = r->req->origin;
        if (--f->fence_out == 0)
            fill_done(p, f);
    }
    mem_msg_release(p->pool, r->req);
    mem_msg_release(p->pool, r);
}

/* Commands and lines from a network port; lines only while a write slot
** is free (the rest wait in the port). */
static bool take_incoming(um_pmc *p, sim_port *port)
{
    bool progress = false;
    sim_msg *m;
    while ((m = port_peek(port))) {
        if (m->type == UM_DATA && p->writes_out >= p->cfg.pmc_reads)
            break;
        port_retrieve(port);
        progress = true;
        if (m->type == UM_MIGRATE)
            job_start(p, (mem_msg *)m);
        else
            line_arrived(p, (mem_msg *)m);
    }
    return progress;
}

static bool pmc_tick(sim_comp *c)
{
    um_pmc *p = (um_pmc *)c;
    bool progress = false;
    mem_msg *r;
    for (uint32_t s = 0; s <= p->nsas; s++) {
        sim_port *port = s < p->nsas ? &p->sa[s] : &p->maint;
        while ((r = (mem_msg *)port_retrieve(port))) {
            maint_answer(p, r);
            progress = true;
        }
    }
    while ((r = (mem_msg *)port_retrieve(&p->mem))) {
        if (r->base.type == MEM_READ_RSP)
            line_read(p, r);
        else
            line_written(p, r);
        progress = true;
    }
    progress |= take_incoming(p, &p->ctl);
    progress |= take_incoming(p, &p->peer);
    progress |= take_incoming(p, &p->host);
    jobs_advance(p);
    progress |= um_queue_drain(&p->q_maint, &p->maint);
    for (uint32_t s = 0; s < p->nsas; s++)
        progress |= um_queue_drain(&p->q_sa[s], &p->sa[s]);
    progress |= um_queue_drain(&p->q_mem, &p->mem);
    progress |= um_queue_drain(&p->q_peer, &p->peer);
    progress |= um_queue_drain(&p->q_host, &p->host);
    progress |= um_queue_drain(&p->q_ctl, &p->ctl);
    return progress;
}

static bool pmc_busy(const sim_comp *c)
{
    const um_pmc *p = (const um_pmc *)c;
    if (p->jobs_hw || p->fills_hw)
        return true;
    for (uint32_t s = 0; s < p->nsas; s++)
        if (p->q_sa[s].n)
            return true;
    return p->q_ctl.n || p->q_peer.n || p->q_host.n || p->q_mem.n ||
           p->q_maint.n;
}

static void pmc_dump(const sim_comp *c, FILE *f)
{
    const um_pmc *p = (const um_pmc *)c;
    static const char *names[] = {"free", "shoot", "drain", "read", "flush",
                                  "mute"};
    for (uint32_t k = 0; k < p->jobs_hw || k < p->fills_hw; k++) {
        const pmc_job *j = &p->jobs[k];
        if (j->phase != P_FREE)
            fprintf(f, "  out: page 0x%llx -> GPU %d %s, line %u/%u, "
                       "ctrl %u\n", (unsigned long long)j->cmd->vaddr,
                    j->cmd->gpu, names[j->phase], j->next_line, j->lines,
                    j->ctrl_out);
        if (p->fills[k].used)
            fprintf(f, "  in: migration %llu %u/%u lines\n",
                    (unsigned long long)p->fills[k].id, p->fills[k].written,
                    p->fills[k].total);
    }
}

static const sim_comp_ops pmc_ops = {
    .kind = "PMC", .tick = pmc_tick, .busy = pmc_busy, .dump = pmc_dump};

um_pmc *um_pmc_new(sim_engine *eng, const char *name, uint32_t gpu,
                   const um_config *cfg, mem_pool *pool,
                   stat_registry *stats)
{
    um_pmc *p = MGS_NEW(um_pmc);
    p->cfg = *cfg;
    p->gpu = gpu;
    p->pool = pool;
    comp_init(&p->base, eng, &pmc_ops, name, cfg->period);
    port_init(&p->ctl, &p->base, "ctl", 64);
    port_init(&p->peer, &p->base, "peer", 64);
    port_init(&p->host, &p->base, "host", 64);
    port_init(&p->mem, &p->base, "mem", 2 * cfg->pmc_reads + 16);
    port_init(&p->maint, &p->base, "maint", 64);
    p->njobs = cfg->max_migrations * cfg->piece_pages;
    p->jobs = MGS_NEW_ARRAY(pmc_job, p->njobs);
    p->fills = MGS_NEW_ARRAY(pmc_fill, p->njobs);
    stat_counter **t[] = {&p->st_out, &p->st_in, &p->st_lines_out,
                          &p->st_lines_in, &p->st_shoot, &p->st_flush,
                          &p->st_dropped};
    static const char *names[] = {"pages_out", "pages_in", "lines_out",
                                  "lines_in", "shootdowns", "flushes",
                                  "copies_dropped"};
    for (size_t i = 0; i < 7; i++)
        *t[i] = stats ? stat_counter_add(stats, name, names[i], "count")
                      : &p->own[i];
    return p;
}

void um_pmc_free(um_pmc *p)
{
    if (!p)
        return;
    for (uint32_t k = 0; k < p->jobs_hw; k++)
        if (p->jobs[k].phase != P_FREE)
            mem_msg_release(p->pool, p->jobs[k].cmd);
    um_queue_free(&p->q_ctl, p->pool);
    um_queue_free(&p->q_peer, p->pool);
    um_queue_free(&p->q_host, p->pool);
    um_queue_free(&p->q_mem, p->pool);
    um_queue_free(&p->q_maint, p->pool);
    for (uint32_t s = 0; s < p->nsas; s++) {
        um_queue_free(&p->q_sa[s], p->pool);
        port_fini(&p->sa[s]);
    }
    free(p->q_sa);
    free(p->sa);
    free(p->l1_sa);
    free(p->jobs);
    free(p->fills);
    free(p->l1);
    free(p->tlb);
    free(p->l2);
    free(p->peer_ctl);
    free(p->peer_net);
    free(p->peer_host);
    port_fini(&p->ctl);
    port_fini(&p->peer);
    port_fini(&p->host);
    port_fini(&p->mem);
    port_fini(&p->maint);
    comp_fini(&p->base);
    free(p);
}

sim_port *um_pmc_ctl_port(um_pmc *p) { return &p->ctl; }
sim_port *um_pmc_peer_port(um_pmc *p) { return &p->peer; }
sim_port *um_pmc_host_port(um_pmc *p) { return &p->host; }
sim_port *um_pmc_mem_port(um_pmc *p) { return &p->mem; }
sim_port *um_pmc_maint_port(um_pmc *p) { return &p->maint; }

static sim_port **ports_copy(sim_port *const *v, uint32_t n)
{
    sim_port **out = mgs_xcalloc(n ? n : 1, sizeof *out);
    if (n)
        memcpy(out, v, n * sizeof *out);
    return out;
}

void um_pmc_set_targets(um_pmc *p, sim_port *const *l1_top,
                        const uint32_t *l1_sa, uint32_t nl1, uint32_t nsas,
                        sim_port *const *tlb, uint32_t ntlb,
                        sim_port *const *l2, uint32_t nl2,
                        const mem_route *to_l2)
{
    p->l1 = ports_copy(l1_top, nl1);
    p->l1_sa = mgs_xcalloc(nl1 ? nl1 : 1, sizeof *p->l1_sa);
    if (nl1)
        memcpy(p->l1_sa, l1_sa, nl1 * sizeof *l1_sa);
    p->tlb = ports_copy(tlb, ntlb);
    p->l2 = ports_copy(l2, nl2);
    p->nl1 = nl1;
    p->ntlb = ntlb;
    p->nl2 = nl2;
    p->to_l2 = *to_l2;
    p->nsas = nsas;
    p->sa = mgs_xcalloc(nsas ? nsas : 1, sizeof *p->sa);
    p->q_sa = mgs_xcalloc(nsas ? nsas : 1, sizeof *p->q_sa);
    for (uint32_t s = 0; s < nsas; s++) {
        char name[32];
        snprintf(name, sizeof name, "sa[%u]", s);
        port_init(&p->sa[s], &p->base, name, 64);
    }
}

sim_port *um_pmc_sa_port(um_pmc *p, uint32_t s)
{
    return s < p->nsas ? &p->sa[s] : NULL;
}

void um_pmc_set_peers(um_pmc *p, sim_port *const *ctl, sim_port *const *peer,
                      sim_port *const *host, uint32_t n, sim_port *migrator)
{
    p->peer_ctl = ports_copy(ctl, n);
    p->peer_net = mgs_xcalloc(n, sizeof *p->peer_net);
    p->peer_host = mgs_xcalloc(n, sizeof *p->peer_host);
    for (uint32_t i = 0; i < n; i++) {
        p->peer_net[i] = peer ? peer[i] : NULL;
        p->peer_host[i] = host ? host[i] : NULL;
    }
    p->npeers = n;
    p->migrator = migrator;
}
