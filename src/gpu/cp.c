/*
** Command processor (cp.h). A ticking component that sleeps while idle
** and while it only waits for answers (its ports wake it).
**
** Invariants:
**   - ctrl_outstanding = control requests sent and not yet answered;
**     the phase advances only when every target was sent to and
**     ctrl_outstanding == 0.
**   - outstanding = work-groups mapped and not yet done = the
**     dispatcher's resident count; a record is on the free list iff it is
**     not mapped (and not the pending one).
*/
#include "gpu/cp.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/dispatcher.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

enum cp_phase { CP_IDLE, CP_ACQUIRE, CP_DISPATCH, CP_RELEASE, CP_REPORT };

/* One work-group in flight; msg is what the CU sees and returns. */
typedef struct cp_wg {
    cp_msg msg;               /* FIRST: a returned message is its record */
    uint32_t cu;
    uint8_t simd_of_wave[GCN_EMU_MAX_WAVES];
    struct cp_wg *next_free;
} cp_wg;

typedef struct cp_ports {
    sim_port **v;
    uint32_t n, cap;
} cp_ports;

struct cp {
    sim_comp base;            /* FIRST */
    sim_port driver, cu, ctrl;
    cp_config cfg;
    mem_pool *pool;
    gpu_dispatcher disp;
    sim_port **cu_ports;      /* ncus, borrowed */
    cp_ports l1s, tlbs, l2s;

    cp_wg *wgs;               /* table (owned) */
    uint32_t nwgs;
    cp_wg *free_wgs;
    cp_wg *pending;           /* placed but refused by the port */

    enum cp_phase phase;
    cp_msg *launch_msg;       /* the driver's, while a launch runs */
    const gpu_launch *launch;
    mgs_time start;
    uint32_t ctrl_step;       /* maintenance step of the phase (0, 1) */
    uint32_t ctrl_next;       /* next message of the step */
    uint32_t ctrl_outstanding;
    uint64_t next_wg, wgs_done, outstanding, wf_insts;
    uint32_t gap_left;        /* cycles before the next map (dispatch_latency) */
    int status;
    char err[512];         /* status's message */
    uint64_t kernels_done;

    stat_counter *st_kernels, *st_wgs, *st_insts, *st_inval, *st_flush,
        *st_ktime, *st_stalls;
    stat_counter own[7];
};

void cp_config_default(cp_config *c)
{
    c->period = 1000;
    c->wgs_per_cycle = 1;
    c->port_buffer = 64;
    c->dispatch_latency = 4;
    c->launch_tlb_changed = false;
    c->launch_code_every = false;
    c->launch_keep = false;
}

int cp_config_validate(const cp_config *c)
{
    if (!c->period || !c->wgs_per_cycle || !c->port_buffer)
        return mgs_error_set(MGS_ECONFIG, "cp: period, wgs_per_cycle and "
                                          "port_buffer must be >= 1");
    return MGS_OK;
}

static void ports_add(cp_ports *p, sim_port *port)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 16;
        p->v = mgs_xrealloc(p->v, p->cap * sizeof *p->v);
    }
    p->v[p->n++] = port;
}

/* ---- control phases ------------------------------------------------- */

/* A phase's maintenance (coh_sync) runs in two steps: the L1s and TLBs
** together, then the L2 banks over each range. A step's messages are
** numbered 0..step_total-1 and sent in order; the step ends when all were
** sent and answered. */
static uint32_t step_total(const cp *c, const coh_sync *s, uint32_t step)
{
    if (step == 0)
        return (s->l1 ? c->l1s.n : 0) + (s->tlb ? c->tlbs.n : 0);
    if (!s->l2)
        return 0;
    return c->l2s.n * (s->l2_all ? 1 : s->nranges);
}

static mem_msg_type op_type(uint8_t op)
{
    return op == COH_INVALIDATE ? MEM_INVALIDATE : MEM_FLUSH;
}

/* Bytes of the TLB shoot-down's span (pid 0), or 0 for every entry: no
** span, or one too long for a message's size. */
static uint32_t tlb_span_bytes(const coh_sync *s)
{
    if (!s->tlb_span)
        return 0;
    uint64_t n = s->tlb_hi > s->tlb_lo ? s->tlb_hi - s->tlb_lo : 1;
    return n <= UINT32_MAX ? (uint32_t)n : 0;
}

/* Sends the step's messages not yet sent. Returns whether anything was
** sent. */
static bool ctrl_send_step(cp *c, const coh_sync *s)
{
    bool progress = false;
    uint32_t total = step_total(c, s, c->ctrl_step);
    while (c->ctrl_next < total) {
        uint32_t i = c->ctrl_next;
        sim_port *dst;
        uint8_t op;
        uint64_t addr = 0, span = 0;
        uint32_t tlb_bytes = 0;
        if (c->ctrl_step == 0) {
            uint32_t nl1 = s->l1 ? c->l1s.n : 0;
            bool l1 = i < nl1;
            dst = l1 ? c->l1s.v[i] : c->tlbs.v[i - nl1];
            op = l1 ? s->l1 : COH_INVALIDATE; /* a TLB only drops */
            tlb_bytes = l1 ? 0 : tlb_span_bytes(s);
            if (tlb_bytes)
                addr = s->tlb_lo;
        } else {
            dst = c->l2s.v[i % c->l2s.n];
            op = s->l2;
            if (!s->l2_all) {
                addr = s->range[i / c->l2s.n].addr;
                span = s->range[i / c->l2s.n].bytes;
            }
        }
        mem_msg *m = mem_msg_alloc(c->pool, op_type(op));
        m->base.dst = dst;
        m->base.bytes = 16;
        m->flags = op == COH_WRITEBACK_INVALIDATE ? MEM_F_INVALIDATE : 0;
        m->addr = addr;
        m->span = span;
        m->size = tlb_bytes;      /* a TLB: 0 drops every entry */
        m->issue_time = eng_now(c->base.eng);
        if (port_send(&c->ctrl, &m->base) != MGS_OK) {
            mem_msg_release(c->pool, m);
            break;
        }
        stat_inc(op == COH_INVALIDATE ? c->st_inval : c->st_flush);
        c->ctrl_next++;
        c->ctrl_outstanding++;
        progress = true;
    }
    return progress;
}

/* Advances the maintenance of the current phase; true once complete. */
static bool ctrl_phase(cp *c, const coh_sync *s, bool *progress)
{
    for (;;) {
        if (c->ctrl_step > 1)
            return true;
        *progress |= ctrl_send_step(c, s);
        if (c->ctrl_next < step_total(c, s, c->ctrl_step) ||
            c->ctrl_outstanding)
            return false;
        c->ctrl_step++;
        c->ctrl_next = 0;
    }
}

/* ---- dispatch ----------------------------------------------------- */

static void wg_id_of(const gpu_launch *l, uint64_t index, uint32_t id[3])
{
    id[0] = (uint32_t)(index % l->num_groups[0]);
    uint64_t rest = index / l->num_groups[0];
    id[1] = (uint32_t)(rest % l->num_groups[1]);
    id[2] = (uint32_t)(rest / l->num_groups[1]);
}

static bool send_map(cp *c, cp_wg *w)
{
    w->msg.base.dst = c->cu_ports[w->cu];
    w->msg.base.type = CU_MAP_WG;
    w->msg.base.bytes = 32;
    if (port_send(&c->cu, &w->msg.base) != MGS_OK) {
        c->pending = w;
        return false;
    }
    c->pending = NULL;
    c->outstanding++;
    return true;
}

/* One past the last work-group this CP runs (gpu_launch.wg_end). */
static uint64_t wg_limit(const gpu_launch *l)
{
    return l->wg_end ? l->wg_end : l->total_groups;
}

void cp_progress(const cp *c, uint64_t *wgs_done, uint64_t *wgs_started,
                 uint64_t *wgs_total)
{
    const gpu_launch *l = c->launch;
    bool any = l && wg_limit(l) > l->wg_begin;
    *wgs_done = any ? c->wgs_done : 0;
    *wgs_started = any ? c->next_wg - l->wg_begin : 0;
    *wgs_total = any ? wg_limit(l) - l->wg_begin : 0;
}

static bool dispatch(cp *c)
{
    bool progress = false;
    if (c->pending && !send_map(c, c->pending))
        return false;
    if (c->gap_left) {
        c->gap_left--;   /* counting cycles is progress: tick again */
        return true;
    }
    const gpu_launch *l = c->launch;
    for (uint32_t k = 0; k < c->cfg.wgs_per_cycle; k++) {
        if (c->status != MGS_OK || c->next_wg >= wg_limit(l))
            break;
        cp_wg *w = c->free_wgs;
        uint32_t cu_index;
        if (!w || !gpu_dispatcher_place(&c->disp, l, &cu_index,
                                        w->simd_of_wave)) {
            stat_inc(c->st_stalls);
            break;
        }
        c->free_wgs = w->next_free;
        w->cu = cu_index;
        memset(&w->msg, 0, sizeof w->msg);
        w->msg.launch = l;
        w->msg.wg_index = l->wg_list ? l->wg_list[c->next_wg]
                                     : c->next_wg;
        wg_id_of(l, w->msg.wg_index, w->msg.wg_id);
        c->next_wg++;
        progress = true;
        if (c->cfg.dispatch_latency) {
            uint32_t waves = l->waves_per_group;
            c->gap_left = waves > c->cfg.dispatch_latency
                              ? waves : c->cfg.dispatch_latency;
            send_map(c, w);
            break;
        }
        if (!send_map(c, w))
            break;
    }
    return progress;
}

static bool collect_done(cp *c)
{
    bool progress = false;
    sim_msg *m;
    while ((m = port_retrieve(&c->cu))) {
        assert(m->type == CU_WG_DONE);
        cp_wg *w = (cp_wg *)m;
        assert(c->outstanding > 0);
        gpu_dispatcher_release(&c->disp, w->cu, c->launch, w->simd_of_wave);
        c->outstanding--;
        c->wf_insts += w->msg.wf_insts;
        if (w->msg.status == MGS_OK) {
            c->wgs_done++;
        } else {
            /* The launch reports the latest failed work-group, as when
            ** the message was the thread's last error. */
            c->status = w->msg.status;
            snprintf(c->err, sizeof c->err, "%s", w->msg.err);
        }
        w->next_free = c->free_wgs;
        c->free_wgs = w;
        progress = true;
    }
    return progress;
}

static bool collect_ctrl(cp *c)
{
    bool progress = false;
    mem_msg *r;
    while ((r = (mem_msg *)port_retrieve(&c->ctrl))) {
        assert(r->base.type == MEM_CTRL_RSP && c->ctrl_outstanding > 0);
        mem_msg_release(c->pool, r->req);
        mem_msg_release(c->pool, r);
        c->ctrl_outstanding--;
        progress = true;
    }
    return progress;
}

static void start_launch(cp *c, cp_msg *m)
{
    c->launch_msg = m;
    c->launch = m->launch;
    c->start = eng_now(c->base.eng);
    if (wg_limit(c->launch) > c->launch->wg_begin)   /* tracing only */
        comp_task_start(&c->base, c->launch->id, "kernel");
    c->next_wg = c->launch->wg_begin;
    c->gap_left = 0;
    c->wgs_done = c->outstanding = c->wf_insts = 0;
    c->status = MGS_OK;
    c->ctrl_step = 0;
    c->ctrl_next = 0;
    c->ctrl_outstanding = 0;
    if (!gpu_dispatcher_can_run(&c->disp, c->launch)) {
        c->status = MGS_EINVAL;
        snprintf(c->err, sizeof c->err, "%s: a work-group of %u "
                 "wavefront(s), %u VGPRs and %u SGPRs per wavefront and %u "
                 "bytes of LDS does not fit a CU", c->base.name,
                 c->launch->waves_per_group, c->launch->vgprs_per_wave,
                 c->launch->sgprs_per_wave, c->launch->lds_per_group);
        c->phase = CP_REPORT;
        return;
    }
    c->phase = CP_ACQUIRE;
}

static bool cp_tick(sim_comp *sc)
{
    cp *c = (cp *)sc;
    bool progress = collect_ctrl(c);
    progress |= collect_done(c);
    if (c->phase == CP_IDLE) {
        cp_msg *m = (cp_msg *)port_retrieve(&c->driver);
        if (!m)
            return progress;
        assert(m->base.type == CP_LAUNCH);
        start_launch(c, m);
        progress = true;
    }
    if (c->phase == CP_ACQUIRE &&
        ctrl_phase(c, &c->launch->acquire, &progress)) {
        c->phase = CP_DISPATCH;
        progress = true;
    }
    if (c->phase == CP_DISPATCH) {
        progress |= dispatch(c);
        bool all_mapped = c->next_wg >= wg_limit(c->launch) ||
                          c->status != MGS_OK;
        if (all_mapped && !c->pending && c->outstanding == 0) {
            c->phase = CP_RELEASE;
            c->ctrl_step = 0;
            c->ctrl_next = 0;
            progress = true;
        }
    }
    if (c->phase == CP_RELEASE &&
        ctrl_phase(c, &c->launch->release, &progress)) {
        c->phase = CP_REPORT;
        progress = true;
    }
    if (c->phase == CP_REPORT) {
        cp_msg *m = c->launch_msg;
        m->status = c->status;
        if (c->status != MGS_OK)
            snprintf(m->err, sizeof m->err, "%s", c->err);
        m->wg_index = c->wgs_done;
        m->wf_insts = c->wf_insts;
        m->base.type = CP_LAUNCH_DONE;
        m->base.dst = m->base.src;
        if (port_send(&c->driver, &m->base) == MGS_OK) {
            stat_inc(c->st_kernels);
            stat_addn(c->st_wgs, c->wgs_done);
            stat_addn(c->st_insts, c->wf_insts);
            stat_addn(c->st_ktime, eng_now(sc->eng) - c->start);
            c->kernels_done++;
            if (wg_limit(c->launch) > c->launch->wg_begin)
                comp_task_end(&c->base, c->launch->id, "kernel");
            c->launch_msg = NULL;
            c->launch = NULL;
            c->phase = CP_IDLE;
            progress = true;
        }
    }
    return progress;
}

static bool cp_busy_op(const sim_comp *sc)
{
    const cp *c = (const cp *)sc;
    return c->phase != CP_IDLE || port_occupancy(&c->driver) > 0;
}

static void cp_dump(const sim_comp *sc, FILE *f)
{
    const cp *c = (const cp *)sc;
    static const char *names[] = {"idle", "acquire", "dispatch", "release",
                                  "report"};
    fprintf(f, "  phase %s, wg next %llu done %llu outstanding %llu, "
               "ctrl step %u outstanding %u\n", names[c->phase],
            (unsigned long long)c->next_wg, (unsigned long long)c->wgs_done,
            (unsigned long long)c->outstanding, c->ctrl_step,
            c->ctrl_outstanding);
}

static const sim_comp_ops cp_ops = {
    .kind = "CP", .tick = cp_tick, .busy = cp_busy_op, .dump = cp_dump};

cp *cp_new(sim_engine *eng, const char *name, const cp_config *cfg,
           uint32_t ncus, const cu_config *cu_cfg, mem_pool *pool,
           stat_registry *stats)
{
    assert(cp_config_validate(cfg) == MGS_OK && ncus >= 1);
    cp *c = MGS_NEW(cp);
    c->cfg = *cfg;
    c->pool = pool;
    comp_init(&c->base, eng, &cp_ops, name, cfg->period);
    port_init(&c->driver, &c->base, "driver", cfg->port_buffer);
    port_init(&c->cu, &c->base, "cu", cfg->port_buffer);
    port_init(&c->ctrl, &c->base, "ctrl", cfg->port_buffer);
    gpu_dispatcher_init(&c->disp, ncus, cu_cfg);
    c->cu_ports = mgs_xcalloc(ncus, sizeof *c->cu_ports);
    /* Every resident work-group has at least one wave in a slot. */
    c->nwgs = ncus * cu_cfg->num_simds * cu_cfg->wf_slots_per_simd;
    c->wgs = mgs_xcalloc(c->nwgs, sizeof *c->wgs);
    for (uint32_t i = c->nwgs; i-- > 0;) {
        c->wgs[i].next_free = c->free_wgs;
        c->free_wgs = &c->wgs[i];
    }
    stat_counter **targets[] = {&c->st_kernels, &c->st_wgs, &c->st_insts,
                                &c->st_inval, &c->st_flush, &c->st_ktime,
                                &c->st_stalls};
    static const char *metrics[] = {"kernels", "workgroups", "wf_insts",
                                    "invalidations", "flushes", "kernel_time",
                                    "dispatch_stalls"};
    static const char *units[] = {"count", "count", "count", "count",
                                  "count", "ps", "cycles"};
    for (size_t i = 0; i < 7; i++)
        *targets[i] = stats ? stat_counter_add(stats, name, metrics[i],
                                               units[i])
                            : &c->own[i];
    return c;
}

void cp_free(cp *c)
{
    if (!c)
        return;
    gpu_dispatcher_destroy(&c->disp);
    free(c->cu_ports);
    free(c->wgs);
    free(c->l1s.v);
    free(c->tlbs.v);
    free(c->l2s.v);
    port_fini(&c->driver);
    port_fini(&c->cu);
    port_fini(&c->ctrl);
    comp_fini(&c->base);
    free(c);
}

sim_port *cp_driver(cp *c) { return &c->driver; }
sim_port *cp_cu(cp *c) { return &c->cu; }
sim_port *cp_ctrl(cp *c) { return &c->ctrl; }

void cp_set_cu_port(cp *c, uint32_t cu_index, sim_port *cu_ctrl)
{
    assert(cu_index < c->disp.ncus);
    c->cu_ports[cu_index] = cu_ctrl;
}

void cp_add_l1(cp *c, sim_port *ctrl) { ports_add(&c->l1s, ctrl); }
void cp_add_tlb(cp *c, sim_port *ctrl) { ports_add(&c->tlbs, ctrl); }
void cp_add_l2(cp *c, sim_port *ctrl) { ports_add(&c->l2s, ctrl); }

uint64_t cp_kernels_done(const cp *c) { return c->kernels_done; }
bool cp_busy(const cp *c) { return cp_busy_op(&c->base); }
