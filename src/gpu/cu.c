/*
** Compute unit: configuration, the resource table, the component (ports,
** tick, wake-ups, statistics) and the work-group / wavefront life cycle.
** Pipeline stages live in cu_issue.c (fetch, issue, execution units) and
** cu_mem.c (memory units, responses, retirement). Design: cu.h, cu_int.h,
** docs/cu.md.
**
** Tick order within one cycle (each step sees what the previous did):
**   1. responses: instruction fetches, vector and scalar memory;
**   2. LDS operations whose latency elapsed retire;
**   3. finished work-groups answer the CP; new CU_MAP_WG are admitted;
**   4. memory units coalesce and send requests;
**   5. the fetch arbiter sends one fetch; the issue arbiter issues.
** No busy ticking: when a tick makes no progress the CU sleeps, after
** scheduling one of its own wake events at the earliest cycle at which a
** timed condition (a busy wave, a SIMD, an LDS op, a memory unit's issue
** interval) changes; responses, CP messages and a full lane's freeing wake
** it through its ports. A wave the memory unit refuses waits for such an
** event, not for a time (docs/cu.md "Not sleeping").
*/
#include "gpu/cu_int.h"

#include <assert.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "sim/name.h"
#include "sim/port.h"
#include "util/xmalloc.h"

/* ---- configuration ---- */

void cu_config_default(cu_config *c)
{
    *c = (cu_config){
        .period = mgs_period_from_hz(1000000000),
        .num_simds = 4,
        .simd_lanes = 16,
        .wf_slots_per_simd = 10,
        .vgprs_per_simd = 256,
        .sgprs_per_simd = 800,
        .lds_bytes = 65536,
        .inst_buf_bytes = 256,
        .fetch_line = 64,
        .vmem_line = 64,
        .valu_cycles = 4,
        .valu_f64_cycles = 32,
        .salu_cycles = 2,
        .branch_cycles = 4,
        .lds_cycles = 64,
        .lds_issue_cycles = 4,
        .vmem_issue_cycles = 4,
        .vmem_reqs_per_cycle = 1,
        .vmem_queue = 4,
        .vmem_max_inflight = 512,
        .smem_max_inflight = 64,
        .fetch_max_inflight = 4,
        .mem_inst_max = 80,
        .ctrl_buffer = 4,
        .fence_invalidates_l1 = true,
        .mem_buffer = 16,
        .issue_mgpusim = false,
        .gpu = 0,
    };
}

static bool pow2(uint32_t v) { return v && !(v & (v - 1)); }

int cu_config_validate(const cu_config *c)
{
#define NEED(cond, ...) \
    do { if (!(cond)) return mgs_error_set(MGS_EINVAL, __VA_ARGS__); } while (0)
    NEED(c->period >= 1, "cu.period must be >= 1 ps");
    NEED(c->num_simds >= 1 && c->num_simds <= CU_MAX_SIMDS,
         "cu.num_simds must be 1..%d (got %u)", CU_MAX_SIMDS, c->num_simds);
    NEED(c->simd_lanes >= 1 && c->simd_lanes <= 64 &&
             64 % c->simd_lanes == 0,
         "cu.simd_lanes must divide 64 (got %u)", c->simd_lanes);
    NEED(c->wf_slots_per_simd >= 1 && c->wf_slots_per_simd <= 64,
         "cu.wf_slots_per_simd must be 1..64 (got %u)", c->wf_slots_per_simd);
    NEED(c->vgprs_per_simd >= 4, "cu.vgprs_per_simd must be >= 4");
    NEED(c->sgprs_per_simd >= 16, "cu.sgprs_per_simd must be >= 16");
    NEED(c->lds_bytes <= 65536, "cu.lds_bytes must be <= 65536 (got %u)",
         c->lds_bytes);
    NEED(pow2(c->fetch_line) && c->fetch_line >= 8 &&
             c->fetch_line <= MEM_LINE_MAX,
         "cu.fetch_line must be a power of 2 in 8..%d (got %u)", MEM_LINE_MAX,
         c->fetch_line);
    /* Two lines at least: an instruction may straddle a line boundary. */
    NEED(c->inst_buf_bytes >= 2 * c->fetch_line && c->inst_buf_bytes <= 4096,
         "cu.inst_buf_bytes must be 2 x fetch_line..4096 (got %u)",
         c->inst_buf_bytes);
    NEED(pow2(c->vmem_line) && c->vmem_line >= 8 && c->vmem_line <= 64,
         "cu.vmem_line must be a power of 2 in 8..64 (got %u)", c->vmem_line);
    NEED(c->valu_cycles >= 1 && c->valu_f64_cycles >= 1 &&
             c->salu_cycles >= 1 && c->branch_cycles >= 1 &&
             c->lds_cycles >= 1 && c->lds_issue_cycles >= 1 &&
             c->vmem_issue_cycles >= 1,
         "cu latencies (valu/valu_f64/salu/branch/lds/lds_issue/vmem_issue "
         "cycles) must be >= 1");
    NEED(c->vmem_reqs_per_cycle >= 1, "cu.vmem_reqs_per_cycle must be >= 1");
    NEED(c->vmem_queue >= 1, "cu.vmem_queue must be >= 1");
    NEED(c->vmem_max_inflight >= 1 && c->smem_max_inflight >= 1 &&
             c->fetch_max_inflight >= 1,
         "cu in-flight limits (vmem/smem/fetch) must be >= 1");
    NEED(c->mem_inst_max >= 2, "cu.mem_inst_max must be >= 2");
    NEED(c->ctrl_buffer >= 1 && c->mem_buffer >= 1,
         "cu.ctrl_buffer and cu.mem_buffer must be >= 1");
#undef NEED
    return MGS_OK;
}

/* ---- resource table ---- */

void cu_res_init(cu_res *r, const cu_config *cfg)
{
    memset(r, 0, sizeof *r);
    r->num_simds = cfg->num_simds;
    for (uint32_t s = 0; s < cfg->num_simds; s++) {
        r->slots_free[s] = cfg->wf_slots_per_simd;
        r->vgprs_free[s] = cfg->vgprs_per_simd;
        r->sgprs_free[s] = cfg->sgprs_per_simd;
    }
    r->lds_free = cfg->lds_bytes;
}

bool cu_res_reserve(cu_res *r, const gpu_launch *l,
                    uint8_t simd_of_wave[GCN_EMU_MAX_WAVES])
{
    if (l->waves_per_group > GCN_EMU_MAX_WAVES || l->lds_per_group > r->lds_free)
        return false;
    cu_res t = *r;
    uint32_t s = t.next_simd;
    for (uint32_t i = 0; i < l->waves_per_group; i++) {
        uint32_t tries = 0;
        while (tries < t.num_simds &&
               !(t.slots_free[s] && t.vgprs_free[s] >= l->vgprs_per_wave &&
                 t.sgprs_free[s] >= l->sgprs_per_wave)) {
            s = (s + 1) % t.num_simds;
            tries++;
        }
        if (tries == t.num_simds)
            return false;
        t.slots_free[s]--;
        t.vgprs_free[s] -= l->vgprs_per_wave;
        t.sgprs_free[s] -= l->sgprs_per_wave;
        simd_of_wave[i] = (uint8_t)s;
        s = (s + 1) % t.num_simds;
    }
    t.lds_free -= l->lds_per_group;
    t.next_simd = s;
    *r = t;
    return true;
}

void cu_res_release(cu_res *r, const gpu_launch *l,
                    const uint8_t simd_of_wave[GCN_EMU_MAX_WAVES])
{
    for (uint32_t i = 0; i < l->waves_per_group && i < GCN_EMU_MAX_WAVES; i++) {
        uint32_t s = simd_of_wave[i];
        r->slots_free[s]++;
        r->vgprs_free[s] += l->vgprs_per_wave;
        r->sgprs_free[s] += l->sgprs_per_wave;
    }
    r->lds_free += l->lds_per_group;
}

bool cu_res_fits_empty(const cu_config *cfg, const gpu_launch *l)
{
    cu_res r;
    uint8_t simd[GCN_EMU_MAX_WAVES];
    cu_res_init(&r, cfg);
    return cu_res_reserve(&r, l, simd);
}

/* ---- work-groups and waves ---- */

static void simd_list_add(cu *c, cu_wave *wv)
{
    cu_simd *d = c->simd[wv->simd];
    wv->list_pos = d->nwaves++;
    d->waves[wv->list_pos] = wv; /* newest last: age order */
    d->issue_at[wv->list_pos] = UINT64_MAX; /* counted by the first update */
}

/* Removes the wave from its SIMD's list (and the parallel arrays), keeping the
** age order of the others. */
static void simd_list_remove(cu *c, cu_wave *wv)
{
    cu_simd *d = c->simd[wv->simd];
    uint32_t n = d->nwaves, i = wv->list_pos;
    cu_wave **l = d->waves;
    uint64_t *at = d->issue_at, *fk = d->fetch_key;
    assert(i < n && l[i] == wv && at[i] == UINT64_MAX); /* ended */
    memmove(&l[i], &l[i + 1], (n - i - 1) * sizeof *l);
    memmove(&at[i], &at[i + 1], (n - i - 1) * sizeof *at);
    memmove(&fk[i], &fk[i + 1], (n - i - 1) * sizeof *fk);
    for (uint32_t j = i; j + 1 < n; j++)
        l[j]->list_pos = j;
    d->nwaves--;
}

static cu_wave *free_wave_slot(cu *c)
{
    for (uint32_t i = 0; i < c->nwaves_slots; i++)
        if (c->waves[i].state == CU_W_FREE)
            return &c->waves[i];
    return NULL;
}

static cu_wg *free_wg(cu *c)
{
    for (uint32_t i = 0; i < c->nwaves_slots; i++)
        if (!c->wgs[i].in_use)
            return &c->wgs[i];
    return NULL;
}

/* The work-group's task id for hooks (tracing): x | y << 21 | z << 42. */
static uint64_t wg_task_id(const cp_msg *m)
{
    return (uint64_t)m->wg_id[0] | (uint64_t)m->wg_id[1] << 21 |
           (uint64_t)m->wg_id[2] << 42;
}

/* Answers the CP (queued until the ctrl lane takes it). */
/* Answers the CP for work-group m; with an error, m->err holds its
** message. */
static void answer(cu *c, cp_msg *m, int status, uint64_t insts)
{
    m->base.type = CU_WG_DONE;
    m->base.dst = m->base.src;
    m->status = status;
    m->wf_insts = insts;
    uint32_t cap = c->nwaves_slots + c->cfg.ctrl_buffer;
    c->done_q[(c->done_head + c->done_count) % cap] = m;
    c->done_count++;
}

static void start_wg(cu *c, cp_msg *m, const uint8_t simd_of_wave[])
{
    const gpu_launch *l = m->launch;
    const gcn_emu_launch *el = &l->emu;
    const gcn_kernel *k = el->prog->kernel;
    cu_wg *g = free_wg(c);
    uint64_t now = cu_cycle(c);
    g->in_use = true;
    g->msg = m;
    g->launch = l;
    c->wave_inst_limit = el->max_wave_insts ? el->max_wave_insts
                                            : GCN_EMU_DEFAULT_WAVE_INST_LIMIT;
    g->finished = g->at_barrier = g->ended = 0;
    g->status = MGS_OK;
    g->err[0] = 0;
    memcpy(g->simd_of_wave, simd_of_wave, GCN_EMU_MAX_WAVES);
    gcn_emu_init_workgroup(el, m->wg_id, &g->wg);
    if (el->lds_bytes > g->lds_cap) {
        g->lds = mgs_xrealloc(g->lds, el->lds_bytes);
        g->lds_cap = el->lds_bytes;
    }
    if (el->lds_bytes)
        memset(g->lds, 0, el->lds_bytes); /* reproducible, as in emu */
    g->ctx = (gcn_exec_ctx){
        .mem_ops = NULL, .mem = NULL, /* memory goes through the ports */
        .lds = g->lds, .lds_size = el->lds_bytes, .code = el->prog->code,
        .code_size = el->prog->code_size, .private_base = el->scratch_va,
        .code_vaddr = el->prog->code_vaddr + el->load_base};
    uint32_t nvgpr = k->vgpr_count ? k->vgpr_count : 256;
    if (nvgpr < 3)
        nvgpr = 3; /* room for the work-item id VGPRs (as emu) */
    size_t words = (size_t)nvgpr * GCN_WAVE_LANES;
    for (uint32_t i = 0; i < g->wg.nwaves; i++) {
        cu_wave *wv = free_wave_slot(c);
        if (words > wv->vgpr_cap) {
            free(wv->vgpr_store);
            wv->vgpr_store = mgs_xcalloc(words, sizeof(uint32_t));
            wv->vgpr_cap = words;
        }
        wv->w.vgpr = wv->vgpr_store;
        wv->w.nvgpr = nvgpr;
        gcn_emu_init_wave_slot(el, &g->wg, &g->ctx, i,
                               c->cfg.scratch_slot_base +
                                   (uint32_t)(wv - c->waves),
                               &wv->w);
        wv->wg = g;
        wv->prog = l->emu.prog;
        wv->code_va = l->code_va;
        /* The buffer works on code offsets (cu_int.h). */
        assert(l->code_va % c->cfg.fetch_line == 0 &&
               "code_va must be fetch_line-aligned");
        wv->simd = simd_of_wave[i];
        wv->age = c->next_age++;
        wv->state = CU_W_READY;
        wv->busy_until = now + 1; /* dispatch: one wave per cycle is not
                                     modelled; waves start next cycle */
        wv->fetch_stalled = 0;
        wv->wait_vm = wv->wait_lgkm = 0;
        uint64_t line = wv->w.pc & ~(uint64_t)(c->cfg.fetch_line - 1);
        wv->ib_start = wv->ib_end = wv->fetch_next = line;
        wv->last_fetch = 0;
        wv->fetch_inflight = 0;
        wv->fetch_want = 0;
        wv->finished = false;
        wv->nops = wv->vm_out = wv->lgkm_out = 0;
        for (uint32_t j = 0; j < CU_WAVE_MAX_OPS; j++)
            wv->ops[j].in_use = 0;
        g->waves[i] = wv;
        simd_list_add(c, wv);
        cu_wave_sched_update(c, wv);
    }
    c->resident++;
    stat_inc(c->st.wgs);
    stat_addn(c->st.wavefronts, g->wg.nwaves);
}

static void finish_wg(cu *c, cu_wg *g)
{
    uint64_t insts = 0;
    for (uint32_t i = 0; i < g->wg.nwaves; i++) {
        cu_wave *wv = g->waves[i];
        insts += wv->w.insts;
        simd_list_remove(c, wv);
        assert(!wv->fetch_want); /* ENDED */
        wv->state = CU_W_FREE;
        wv->wg = NULL;
    }
    cu_res_release(&c->res, g->launch, g->simd_of_wave);
    c->res_freed = true;
    if (g->status != MGS_OK)
        snprintf(g->msg->err, sizeof g->msg->err, "%s", g->err);
    comp_task_end(&c->base, wg_task_id(g->msg), "wg");   /* tracing only */
    answer(c, g->msg, g->status, insts);
    g->in_use = false;
    g->msg = NULL;
    c->resident--;
}

void cu_wave_maybe_finish(cu *c, cu_wave *wv)
{
    if (wv->finished || wv->state != CU_W_ENDED || wv->nops ||
        wv->fetch_inflight)
        return;
    wv->finished = true;
    cu_wg *g = wv->wg;
    if (++g->finished == g->wg.nwaves)
        finish_wg(c, g);
}

/* Releases the barrier when every wave that has not ended waits at it
** (waves that ended no longer take part, as on hardware). */
void cu_barrier_check(cu *c, cu_wg *g)
{
    uint32_t live = g->wg.nwaves - g->ended;
    if (!g->at_barrier || g->at_barrier < live)
        return;
    uint64_t now = cu_cycle(c);
    for (uint32_t i = 0; i < g->wg.nwaves; i++) {
        cu_wave *wv = g->waves[i];
        if (wv->state != CU_W_BARRIER)
            continue;
        stat_addn(c->st.stall_barrier, now - wv->state_since);
        wv->state = CU_W_READY;
        wv->w.at_barrier = false;
        wv->w.pc += 4;
        wv->busy_until = now + 1;
        cu_wave_sched_update(c, wv);
    }
    g->at_barrier = 0;
}

/* Ends a wave: s_endpgm (status MGS_OK) or an error, which halts the whole
** work-group: its other waves stop issuing, drain, and CU_WG_DONE carries
** the status and message. */
void cu_wave_end(cu *c, cu_wave *wv, int status, const char *msg)
{
    cu_wg *g = wv->wg;
    if (status != MGS_OK && g->status == MGS_OK) {
        g->status = status;
        snprintf(g->err, sizeof g->err, "%s", msg);
        for (uint32_t i = 0; i < g->wg.nwaves; i++) {
            cu_wave *o = g->waves[i];
            if (o != wv && o->state != CU_W_ENDED) {
                o->state = CU_W_ENDED;
                g->ended++;
            }
        }
    }
    if (wv->state != CU_W_ENDED) {
        if (wv->state == CU_W_BARRIER && g->at_barrier)
            g->at_barrier--;
        wv->state = CU_W_ENDED;
        g->ended++;
    }
    for (uint32_t i = 0; i < g->wg.nwaves; i++)
        cu_wave_sched_update(c, g->waves[i]); /* ENDED: no more fetches */
    if (g->status == MGS_OK)
        cu_barrier_check(c, g);
    for (uint32_t i = 0; i < g->wg.nwaves; i++)
        cu_wave_maybe_finish(c, g->waves[i]);
}

/* ---- CP messages ---- */

static bool take_maps(cu *c)
{
    bool progress = false;
    cp_msg *m;
    const uint32_t cap = c->nwaves_slots + c->cfg.ctrl_buffer;
    /* Every message taken is answered through done_q: keep room for it. */
    while (c->done_count + c->resident < cap &&
           (m = (cp_msg *)port_peek(&c->ctrl))) {
        if (m == c->map_blocked && !c->res_freed)
            break; /* still does not fit: nothing was released since */
        if (m->base.type != CU_MAP_WG) {
            port_retrieve(&c->ctrl);
            snprintf(m->err, sizeof m->err, "%s: unexpected CP message "
                     "type %u", c->base.name, m->base.type);
            answer(c, m, MGS_EINTERNAL, 0);
            progress = true;
            continue;
        }
        const gpu_launch *l = m->launch;
        gcn_workgroup shape;
        gcn_emu_init_workgroup(&l->emu, m->wg_id, &shape);
        if (shape.nwaves > l->waves_per_group) {
            port_retrieve(&c->ctrl);
            snprintf(m->err, sizeof m->err,
                     "kernel %s: work-group (%u,%u,%u) has %u waves but the "
                     "launch reserves %u", l->emu.prog->kernel->name,
                     m->wg_id[0], m->wg_id[1], m->wg_id[2], shape.nwaves,
                     l->waves_per_group);
            answer(c, m, MGS_EINTERNAL, 0);
            progress = true;
            continue;
        }
        if (!cu_res_fits_empty(&c->cfg, l)) {
            port_retrieve(&c->ctrl);
            snprintf(m->err, sizeof m->err,
                     "kernel %s: a work-group of %u waves (%u VGPRs, %u SGPRs "
                     "per wave, %u B LDS) does not fit %s",
                     l->emu.prog->kernel->name, l->waves_per_group,
                     l->vgprs_per_wave, l->sgprs_per_wave, l->lds_per_group,
                     c->base.name);
            answer(c, m, MGS_EINVAL, 0);
            progress = true;
            continue;
        }
        uint8_t simd[GCN_EMU_MAX_WAVES];
        if (!cu_res_reserve(&c->res, l, simd)) {
            c->map_blocked = m; /* stays in the buffer until resources free */
            c->res_freed = false;
            break;
        }
        c->map_blocked = NULL;
        port_retrieve(&c->ctrl);
        comp_task_start(&c->base, wg_task_id(m), "wg");   /* tracing only */
        start_wg(c, m, simd);
        progress = true;
    }
    return progress;
}

static bool send_done(cu *c)
{
    bool progress = false;
    uint32_t cap = c->nwaves_slots + c->cfg.ctrl_buffer;
    while (c->done_count) {
        cp_msg *m = c->done_q[c->done_head];
        if (port_send(&c->ctrl, &m->base) != MGS_OK)
            break;
        c->done_head = (c->done_head + 1) % cap;
        c->done_count--;
        progress = true;
    }
    return progress;
}

/* ---- timed wake-ups ---- */

/* Whether the fetch arbiter would send a fetch on a turn of a SIMD with a
** wave that wants one (cu_fetch's CU-wide tests). A full instruction lane
** needs no timer: the port notifies when it frees (cu_fetch asked it to). */
static bool cu_can_fetch(const cu *c)
{
    return c->fetch_inflight < c->cfg.fetch_max_inflight && c->inst_routed &&
           port_can_send(&c->inst);
}

/* The first cycle at or after t that is SIMD s's turn. */
static inline uint64_t turn_at_or_after(const cu *c, uint64_t t, uint32_t s)
{
    const uint32_t ns = c->cfg.num_simds;
    uint32_t cur = cu_turn(c, t);
    return t + (s >= cur ? s - cur : s + ns - cur);
}

/* How many of the cycles [from, to] are SIMD s's turn. */
static uint64_t turns_between(const cu *c, uint64_t from, uint64_t to,
                              uint32_t s)
{
    if (from > to)
        return 0;
    uint64_t first = turn_at_or_after(c, from, s);
    return first > to ? 0 : (to - first) / c->cfg.num_simds + 1;
}

/* The earliest cycle at or after from at which the wave's next instruction
** can issue (its SIMD's turn aside): busy_until, the SIMD's VALU, the LDS
** issue interval (the tests of cu_issue and its exec_*). UINT64_MAX when
** only an event that ticks the CU anyway lets it issue: it is not READY,
** its instruction is not buffered (the fetch response), or the memory unit
** refuses it (a response or the unit's progress; *vmem_refused for the
** vector unit, which counts stall_vmem_backpressure on each of its turns).
** A pc outside the code or an unsupported instruction ends the wave at its
** turn, like a scheduler instruction. */
static uint64_t wave_issue_at(const cu *c, const cu_wave *wv, uint64_t from,
                              bool *vmem_refused)
{
    if (wv->state != CU_W_READY)
        return UINT64_MAX;
    const gcn_emu_program *p = wv->prog;
    size_t slot = (size_t)(wv->w.pc >> 2);
    const gcn_inst *in = slot < p->nslots ? &p->insts[slot] : NULL;
    uint32_t size = in && in->size ? in->size : 4;
    if (wv->w.pc < wv->ib_start || wv->w.pc + size > wv->ib_end)
        return UINT64_MAX;
    uint64_t t = wv->busy_until > from ? wv->busy_until : from;
    if (!in || (wv->w.pc & 3))
        return t;
    switch (cu_unit_of_fmt(in->fmt)) {
    case CU_U_VALU: {
        /* MGPUSim: the vector decoder takes it even when the SIMD is busy. */
        uint64_t free = c->cfg.issue_mgpusim ? c->vdec_free_at
                                             : c->simd[wv->simd]->busy_until;
        return free > t ? free : t;
    }
    case CU_U_VMEM:
        if (cu_mem_refused(c, wv, in->fmt, true)) {
            *vmem_refused = true;
            return UINT64_MAX;
        }
        return t;
    case CU_U_SMEM:
        return cu_mem_refused(c, wv, in->fmt, false) ? UINT64_MAX : t;
    case CU_U_LDS:
        if (!cu_mem_room(wv, false, true))
            return UINT64_MAX; /* an LDS completion or a response */
        return c->lds_next_free > t ? c->lds_next_free : t;
    default:
        return t;
    }
}

/* Earliest future cycle at which something timed changes, or UINT64_MAX:
** a wave's next issue turn once its instruction in flight completes and
** its unit is free (wave_issue_at), its SIMD's next fetch turn when it
** wants a fetch, an LDS operation's completion, a memory unit's next
** instruction slot. Waves that wait for an event (a response, the memory
** unit taking its queue head, a free lane) need no timer: that event ticks
** the CU. Sets vmem_refusing when it finds a wave the vector memory unit
** refuses (it scans every wave when it returns a cycle after now + 1,
** i.e. when the CU goes to sleep). */
static uint64_t next_timed_cycle(cu *c, uint64_t now)
{
    uint64_t best = UINT64_MAX;
    const uint32_t ns = c->cfg.num_simds;
    bool refusing = false;
    /* Nothing can come before now + 1: the scan stops once that is found
    ** (the result is the same minimum). It starts at the SIMD whose turn
    ** is next, the likeliest to hold that earliest cycle. */
    const uint32_t first = cu_turn(c, now + 1);
    const bool can_fetch = cu_can_fetch(c);
    for (uint32_t k = 0; k < ns && best > now + 1; k++) {
        const uint32_t s = first + k < ns ? first + k : first + k - ns;
        const cu_simd *d = c->simd[s];
        if (can_fetch && d->fetch_want) {
            const uint64_t fetch_turn = turn_at_or_after(c, now + 1, s);
            if (fetch_turn < best)
                best = fetch_turn; /* its next fetch turn */
        }
        if (!d->nready)
            continue; /* no READY wave: only an event makes one */
        const uint64_t *at = d->issue_at;
        for (uint32_t i = 0; i < d->nwaves; i++) {
            if (at[i] == UINT64_MAX)
                continue; /* not READY: only an event makes it so */
            const cu_wave *wv = d->waves[i];
            uint64_t t = wave_issue_at(c, wv, now + 1, &refusing);
            if (t != UINT64_MAX) {
                if (!c->cfg.issue_mgpusim) /* MGPUSim: every cycle */
                    t = turn_at_or_after(c, t, s); /* its SIMD's issue turn */
                if (t < best)
                    best = t;
            }
            if (best <= now + 1)
                break;
        }
    }
    c->vmem_refusing = refusing;
    if (c->lds_pending) {
        uint64_t ready = c->lds_head_ready;
        if (ready > now && ready < best)
            best = ready;
    }
    const cu_memunit *units[2] = {&c->vmem, &c->smem};
    for (int i = 0; i < 2; i++)
        if (units[i]->qcount && !units[i]->coalesced &&
            units[i]->next_start > now && units[i]->next_start < best)
            best = units[i]->next_start;
    return best;
}

/* A CU that slept through cycles (last, now) with waves the vector memory
** unit refused would have counted a refusal for each of them on each turn
** of its SIMD once it was not busy (cu_issue): nothing changed while it
** slept, so count those turns now. */
static void count_refusals_asleep(cu *c, uint64_t last, uint64_t now)
{
    for (uint32_t s = 0; s < c->cfg.num_simds; s++) {
        const cu_simd *d = c->simd[s];
        for (uint32_t i = 0; d->nready && i < d->nwaves; i++) {
            if (d->issue_at[i] == UINT64_MAX)
                continue; /* not READY: not refused */
            const cu_wave *wv = d->waves[i];
            bool refused = false;
            wave_issue_at(c, wv, 0, &refused);
            if (!refused)
                continue;
            uint64_t from = wv->busy_until > last + 1 ? wv->busy_until
                                                      : last + 1;
            stat_addn(c->st.stall_vmem_backpressure,
                      turns_between(c, from, now - 1, s));
        }
    }
}

static void schedule_wake(cu *c, uint64_t cycle)
{
    mgs_time t = cycle * c->cfg.period;
    /* An already scheduled wake at or before t serves. */
    for (int i = 0; i < CU_WAKE_EVENTS; i++)
        if (c->wake[i].scheduled && c->wake_at[i] <= cycle)
            return;
    for (int i = 0; i < CU_WAKE_EVENTS; i++)
        if (!c->wake[i].scheduled) {
            c->wake_at[i] = cycle;
            /* A wake at an edge t ticks at the next edge after t, so
            ** schedule it one period early. */
            eng_schedule(c->base.eng, &c->wake[i], t - c->cfg.period);
            return;
        }
    comp_wake(&c->base); /* no free event: tick next cycle */
}

static void cu_handle(sim_comp *comp, sim_event *ev)
{
    (void)ev;
    comp_wake(comp);
}

static void cu_notify_recv(sim_comp *comp, sim_port *p)
{
    cu *c = (cu *)comp;
    c->work |= p == &c->inst        ? CU_WORK_INST
               : p == &c->vmem.port ? CU_WORK_VMEM_RSP
               : p == &c->smem.port ? CU_WORK_SMEM_RSP
                                    : CU_WORK_CTRL;
    comp_wake(comp);
}

/* ---- the tick ---- */

static bool cu_tick(sim_comp *comp)
{
    cu *c = (cu *)comp;
    uint64_t now = cu_cycle(c);
    /* Cycles skipped while asleep with work resident issued nothing. */
    if (c->resident && now > c->last_cycle + 1) {
        stat_addn(c->st.cycles_busy, now - c->last_cycle - 1);
        stat_addn(c->st.cycles_no_issue, now - c->last_cycle - 1);
    }
    if (c->vmem_refusing) {
        if (now > c->last_cycle + 1)
            count_refusals_asleep(c, c->last_cycle, now);
        c->vmem_refusing = false;
    }
    bool was_resident = c->resident != 0;
    c->last_cycle = now;
    c->issued_this_cycle = false;

    /* Each step is skipped when its input is empty (it would do nothing):
    ** most ticks have no response, no CP message and no LDS op due. */
    bool progress = false;
    if (c->work & CU_WORK_INST) {
        progress |= cu_take_fetch_responses(c, now);
        if (!port_occupancy(&c->inst))
            c->work &= ~(uint32_t)CU_WORK_INST;
    }
    if (c->work & CU_WORK_VMEM_RSP) {
        progress |= cu_take_mem_responses(c, &c->vmem, now);
        if (!port_occupancy(&c->vmem.port))
            c->work &= ~(uint32_t)CU_WORK_VMEM_RSP;
    }
    if (c->work & CU_WORK_SMEM_RSP) {
        progress |= cu_take_mem_responses(c, &c->smem, now);
        if (!port_occupancy(&c->smem.port))
            c->work &= ~(uint32_t)CU_WORK_SMEM_RSP;
    }
    if (c->lds_pending && c->lds_head_ready <= now)
        progress |= cu_retire_lds(c, now);
    if (c->done_count)
        progress |= send_done(c);
    if (c->work & CU_WORK_CTRL) {
        progress |= take_maps(c);
        if (!port_occupancy(&c->ctrl))
            c->work &= ~(uint32_t)CU_WORK_CTRL;
    }
    if (c->work & CU_WORK_VMEM_Q) {
        progress |= cu_memunit_run(c, &c->vmem, now);
        if (!c->vmem.qcount)
            c->work &= ~(uint32_t)CU_WORK_VMEM_Q;
    }
    if (c->work & CU_WORK_SMEM_Q) {
        progress |= cu_memunit_run(c, &c->smem, now);
        if (!c->smem.qcount)
            c->work &= ~(uint32_t)CU_WORK_SMEM_Q;
    }
    progress |= cu_fetch(c, now);
    progress |= cu_issue(c, now);
    if (c->done_count)
        progress |= send_done(c);

    if (was_resident || c->resident) {
        stat_inc(c->st.cycles_busy);
        stat_inc(c->issued_this_cycle ? c->st.cycles_issue
                                      : c->st.cycles_no_issue);
    }
    if (progress) {
        /* Ticking again next cycle: start fetching that SIMD's waves. */
        const uint32_t s = cu_turn(c, now + 1);
        const cu_simd *d = c->simd[s];
        for (uint32_t i = 0, n = d->nwaves; d->nready && i < n; i++)
            if (d->issue_at[i] <= now + 1)
                __builtin_prefetch(d->waves[i]);
        return true;
    }
    uint64_t t = next_timed_cycle(c, now);
    if (t != UINT64_MAX) {
        if (t <= now + 1)
            return true; /* next cycle anyway */
        schedule_wake(c, t);
    }
    return false;
}

static bool cu_busy(const sim_comp *comp)
{
    const cu *c = (const cu *)comp;
    return c->resident || c->done_count;
}

static void cu_dump(const sim_comp *comp, FILE *f)
{
    const cu *c = (const cu *)comp;
    fprintf(f, "  resident work-groups %u, vmem queue %u (inflight %u), "
               "smem queue %u (inflight %u), fetches %u\n",
            c->resident, c->vmem.qcount, c->vmem.inflight, c->smem.qcount,
            c->smem.inflight, c->fetch_inflight);
    for (uint32_t s = 0; s < c->cfg.num_simds; s++)
        for (uint32_t i = 0; i < c->simd[s]->nwaves; i++) {
            const cu_wave *wv = c->simd[s]->waves[i];
            fprintf(f, "  SIMD %u wave (%u,%u,%u)/%u pc 0x%llx state %d "
                       "vm %u lgkm %u ops %u\n",
                    s, wv->w.wg_id[0], wv->w.wg_id[1], wv->w.wg_id[2],
                    wv->w.wave_id, (unsigned long long)cu_wave_pc_va(wv),
                    (int)wv->state, wv->vm_out, wv->lgkm_out, wv->nops);
        }
}

static const sim_comp_ops cu_ops = {
    .kind = "CU",
    .tick = cu_tick,
    .handle = cu_handle,
    .notify_recv = cu_notify_recv,
    .busy = cu_busy,
    .dump = cu_dump,
};

/* ---- construction ---- */

static stat_counter *counter(cu *c, stat_registry *r, int *i,
                             const char *metric, const char *unit)
{
    if (r)
        return stat_counter_add(r, c->base.name, metric, unit);
    return &c->st.own[(*i)++];
}

cu *cu_new(sim_engine *eng, const char *name, const cu_config *cfg,
           mem_pool *pool, stat_registry *stats)
{
    cu *c = MGS_NEW(cu);
    c->cfg = *cfg;
    c->period = cfg->period;
    c->pool = pool;
    comp_init(&c->base, eng, &cu_ops, name, cfg->period);
    port_init(&c->ctrl, &c->base, "ctrl", cfg->ctrl_buffer);
    port_init(&c->inst, &c->base, "inst", cfg->mem_buffer);
    cu_res_init(&c->res, cfg);
    c->nwaves_slots = cfg->num_simds * cfg->wf_slots_per_simd;
    c->simd_pow2 = !(cfg->num_simds & (cfg->num_simds - 1));
    /* cu_wave is 128-aligned (its hot fields: cu_int.h). */
    c->waves = mgs_xcalloc_aligned(c->nwaves_slots, sizeof *c->waves,
                                   _Alignof(cu_wave));
    for (uint32_t i = 0; i < c->nwaves_slots; i++)
        c->waves[i].state = CU_W_FREE;
    for (uint32_t s = 0; s < cfg->num_simds; s++) {
        /* cu_simd, then issue_at[], fetch_key[] and waves[] (cu_int.h). */
        const size_t n = cfg->wf_slots_per_simd;
        cu_simd *d = mgs_xcalloc_aligned(
            1, sizeof *d + n * (2 * sizeof(uint64_t) + sizeof(cu_wave *)),
            64);
        d->fetch_key = d->issue_at + n;
        d->waves = (cu_wave **)(d->issue_at + 2 * n);
        c->simd[s] = d;
    }
    c->wgs = mgs_xcalloc(c->nwaves_slots, sizeof *c->wgs);
    c->done_q = mgs_xcalloc(c->nwaves_slots + cfg->ctrl_buffer,
                            sizeof(cp_msg *));
    c->nplans = cfg->mem_inst_max;
    c->plans = mgs_xcalloc(c->nplans, sizeof *c->plans);
    c->plan_free = mgs_xcalloc(c->nplans, sizeof *c->plan_free);
    for (uint32_t i = 0; i < c->nplans; i++)
        c->plan_free[i] = &c->plans[c->nplans - 1 - i];
    c->plan_nfree = c->nplans;
    c->lds_fifo_cap = c->nwaves_slots * CU_LGKM_MAX;
    c->lds_fifo = mgs_xcalloc(c->lds_fifo_cap, sizeof *c->lds_fifo);
    c->lds_ready = mgs_xcalloc(c->lds_fifo_cap, sizeof *c->lds_ready);
    for (int i = 0; i < CU_WAKE_EVENTS; i++)
        eng_event_init(&c->wake[i], &c->base, 1, NULL);

    int own = 0;
    cu_stats *st = &c->st;
    st->wf_insts = counter(c, stats, &own, "wf_insts", "count");
    st->valu = counter(c, stats, &own, "valu_insts", "count");
    st->salu = counter(c, stats, &own, "salu_insts", "count");
    st->vmem = counter(c, stats, &own, "vmem_insts", "count");
    st->smem = counter(c, stats, &own, "smem_insts", "count");
    st->lds = counter(c, stats, &own, "lds_insts", "count");
    st->branch = counter(c, stats, &own, "branch_insts", "count");
    st->internal = counter(c, stats, &own, "sched_insts", "count");
    st->cycles_busy = counter(c, stats, &own, "cycles_busy", "cycles");
    st->cycles_issue = counter(c, stats, &own, "cycles_issue", "cycles");
    st->cycles_no_issue = counter(c, stats, &own, "stall_no_issue", "cycles");
    st->stall_waitcnt = counter(c, stats, &own, "stall_waitcnt", "wave_cycles");
    st->stall_barrier = counter(c, stats, &own, "stall_barrier", "wave_cycles");
    st->stall_fetch = counter(c, stats, &own, "stall_fetch", "wave_cycles");
    st->stall_vmem_backpressure =
        counter(c, stats, &own, "stall_vmem_backpressure", "count");
    st->wgs = counter(c, stats, &own, "work_groups", "count");
    st->wavefronts = counter(c, stats, &own, "wavefronts", "count");
    st->fetches = counter(c, stats, &own, "inst_fetches", "count");
    st->vmem_reqs = counter(c, stats, &own, "vmem_requests", "count");
    st->smem_reqs = counter(c, stats, &own, "smem_requests", "count");

    /* issue_mgpusim: the queue also holds the ops in MGPUSim's pipelines
    ** (one may enter per cycle), and the unit takes one per cycle. */
    cu_memunit_init(c, &c->vmem, "vmem",
                    cfg->vmem_queue + (cfg->issue_mgpusim
                                           ? MGP_VMEM_READY +
                                                 MGP_VMEM_TRANSACTION_STAGES
                                           : 0),
                    cfg->vmem_max_inflight,
                    cfg->issue_mgpusim ? 1 : cfg->vmem_issue_cycles,
                    cfg->vmem_reqs_per_cycle, 0, stats,
                    "vmem_reqs_per_inst");
    /* Scalar memory: assumed one request per cycle, a new instruction
    ** every cycle, a 4-instruction queue. */
    cu_memunit_init(c, &c->smem, "smem", 4, cfg->smem_max_inflight, 1, 1,
                    MEM_F_SCALAR, stats, "smem_reqs_per_inst");
    return c;
}

void cu_free(cu *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; i < c->nwaves_slots; i++) {
        free(c->waves[i].vgpr_store);
        free(c->wgs[i].lds);
    }
    for (uint32_t s = 0; s < c->cfg.num_simds; s++)
        free(c->simd[s]);
    free(c->waves);
    free(c->wgs);
    free(c->done_q);
    free(c->plans);
    free(c->plan_free);
    free(c->lds_fifo);
    free(c->lds_ready);
    cu_memunit_fini(&c->vmem);
    cu_memunit_fini(&c->smem);
    port_fini(&c->ctrl);
    port_fini(&c->inst);
    comp_fini(&c->base);
    free(c);
}

sim_port *cu_ctrl(cu *c) { return &c->ctrl; }
sim_port *cu_vmem(cu *c) { return &c->vmem.port; }
sim_port *cu_smem(cu *c) { return &c->smem.port; }
sim_port *cu_inst(cu *c) { return &c->inst; }

void cu_set_vmem_route(cu *c, const mem_route *r)
{
    c->vmem.route = *r;
    c->vmem.routed = true;
}

void cu_set_smem_route(cu *c, const mem_route *r)
{
    c->smem.route = *r;
    c->smem.routed = true;
}

void cu_set_inst_route(cu *c, const mem_route *r)
{
    c->inst_route = *r;
    c->inst_routed = true;
}

uint32_t cu_resident_wgs(const cu *c) { return c->resident; }
uint64_t cu_wf_insts(const cu *c) { return c->wf_insts; }
