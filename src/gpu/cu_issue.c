/*
** CU front end: the fetch arbiter, the instruction buffers and the issue
** arbiter with the execution units (seed 002 §2.4.2, Figure 5.2).
**
** Fetch. Each cycle the fetch arbiter serves the SIMD cycle % num_simds;
** among its waves that have no fetch in flight and room in their
** instruction buffer it picks the one that has not fetched for the longest
** time (oldest-fetch first, ties to the older wave) and sends one aligned
** fetch_line request to the L1I. The buffer holds code offsets [ib_start,
** ib_end) (code VA = code_va + offset); bytes before the current pc's line are dropped when room is
** needed. A taken branch to a target outside the buffer empties it (a new
** epoch: the response of a fetch in flight is dropped).
**
** Issue. Each cycle the issue arbiter serves the SIMD cycle % num_simds
** (so each SIMD's turn comes every num_simds cycles, which with 4-cycle
** VALU instructions keeps all four SIMDs busy, as GCN does). It walks that
** SIMD's waves oldest first and issues at most one instruction per unit
** type (VALU on the SIMD, scalar, branch, vector memory, scalar memory,
** LDS) from different waves. A wave issues when its next instruction is in
** its buffer, it has no non-memory instruction in flight (busy_until), and
** the unit can take it. s_waitcnt, s_barrier, s_endpgm and s_nop are
** handled by the scheduler itself (not issued to a unit).
**
** With gpu.issue_model = mgpusim (cfg.issue_mgpusim) the arbiter follows
** MGPUSim v4.0.0 instead (docs/cu.md, "Issue models"): each cycle it walks
** every SIMD, starting at SIMD cycle % num_simds; each unit type takes one
** instruction per cycle for the whole CU (one decoder per type, the scalar
** ALU and scalar memory sharing one); a VALU instruction waits in the
** vector decoder until its SIMD is free, blocking the decoder; and a wave
** is ready again only when its instruction has left the pipeline
** (MGP_*_READY cycles after issue, VALU: decode + the SIMD's 4 cycles).
** A branch always empties the wave's instruction buffer.
**
** Execution: ALU, branch and LDS semantics run at issue (one
** implementation with emu mode); their latency is modelled by busy_until.
** Vector and scalar memory are planned at issue (gcn3/exec_mem_plan.h)
** and completed when their data returns (cu_mem.c).
*/
#include "gpu/cu_int.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "gcn3/disasm.h"
#include "mgsim/errors.h"
#include "sim/port.h"

/* ---- fetch ---- */

static void ib_reset(cu *c, cu_wave *wv)
{
    uint64_t line = wv->w.pc & ~(uint64_t)(c->cfg.fetch_line - 1);
    wv->ib_start = wv->ib_end = wv->fetch_next = line;
    wv->fetch_epoch++;
}

/* CU_CHECKS: SIMD s's count of waves wanting a fetch is right, and so are
** each wave's flag and fetch key. */
static void check_fetch_want(const cu *c, uint32_t s)
{
    const cu_simd *d = c->simd[s];
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->nwaves; i++) {
        const cu_wave *wv = d->waves[i];
        assert(wv->fetch_want == cu_wave_wants_fetch(c, wv));
        assert(d->fetch_key[i] ==
               (wv->fetch_want ? wv->last_fetch : UINT64_MAX));
        n += wv->fetch_want;
    }
    assert(n == d->fetch_want);
    (void)n;
}

/* CU_CHECKS: SIMD s's issue_at entries and READY count are right. */
static void check_issue_at(const cu *c, uint32_t s)
{
    const cu_simd *d = c->simd[s];
    uint32_t nready = 0;
    for (uint32_t i = 0; i < d->nwaves; i++) {
        const cu_wave *wv = d->waves[i];
        assert(wv->list_pos == i);
        assert(d->issue_at[i] ==
               (wv->state == CU_W_READY ? wv->busy_until : UINT64_MAX));
        nready += wv->state == CU_W_READY;
    }
    assert(nready == d->nready);
    (void)nready;
}

bool cu_fetch(cu *c, uint64_t now)
{
    if (!c->inst_routed || c->fetch_inflight >= c->cfg.fetch_max_inflight)
        return false;
    uint32_t s = cu_turn(c, now);
    if (CU_CHECKS)
        check_fetch_want(c, s);
    const cu_simd *d = c->simd[s];
    if (!d->fetch_want)
        return false; /* most turns: no scan */
    /* The wave that has not fetched for the longest time, ties to the
    ** older one (the first in age order). */
    const uint64_t *key = d->fetch_key;
    uint32_t bi = 0;
    for (uint32_t i = 1; i < d->nwaves; i++)
        if (key[i] < key[bi])
            bi = i;
    if (!port_can_send(&c->inst)) {
        port_notify_when_free(&c->inst); /* ticks the CU then */
        return false;
    }
    cu_wave *wv = d->waves[bi];
    const uint64_t line = c->cfg.fetch_line;
    uint64_t pc_line = wv->w.pc & ~(line - 1);
    if (pc_line > wv->ib_start)
        wv->ib_start = pc_line; /* drop lines behind the pc */
    mem_msg *m = mem_msg_alloc(c->pool, MEM_READ);
    m->addr = wv->code_va + wv->fetch_next;
    m->vaddr = m->addr; /* a translator rewrites addr, not vaddr */
    m->size = (uint32_t)line;
    m->flags = MEM_F_INST;
    m->gpu = c->cfg.gpu;
    m->origin = wv;
    m->base.id = wv->fetch_epoch;
    m->base.bytes = 8;
    m->issue_time = eng_now(c->base.eng);
    m->base.dst = mem_route_lookup(&c->inst_route, m->addr);
    if (port_send(&c->inst, &m->base) != MGS_OK) {
        mem_msg_release(c->pool, m);
        return false;
    }
    wv->fetch_next += line;
    wv->fetch_inflight = 1;
    wv->last_fetch = now;
    cu_wave_sched_update(c, wv);
    c->fetch_inflight++;
    stat_inc(c->st.fetches);
    return true;
}

/* Debug builds check that the bytes the L1I returned are the program's
** (the pre-decoded instructions are what executes). */
static bool fetch_bytes_match(const cu_wave *wv, const mem_msg *rsp)
{
#ifdef NDEBUG
    (void)wv;
    (void)rsp;
    return true;
#else
    const gcn_emu_program *p = wv->prog;
    uint64_t base = wv->code_va;
    /* Only the part of the line inside the program is compared (the rest
    ** is padding around it). */
    uint64_t va = rsp->vaddr;
    uint64_t lo = va > base ? va : base;
    uint64_t hi = va + rsp->size;
    if (hi > base + p->code_size)
        hi = base + p->code_size;
    return lo >= hi ||
           memcmp(rsp->data + (lo - va), p->code + (lo - base),
                  (size_t)(hi - lo)) == 0;
#endif
}

bool cu_take_fetch_responses(cu *c, uint64_t now)
{
    (void)now;
    bool progress = false;
    mem_msg *rsp;
    while ((rsp = (mem_msg *)port_retrieve(&c->inst))) {
        mem_msg *req = rsp->req;
        cu_wave *wv = req->origin;
        progress = true;
        c->fetch_inflight--;
        wv->fetch_inflight = 0;
        bool current = req->base.id == wv->fetch_epoch &&
                       wv->state != CU_W_ENDED;
        if (current && (rsp->flags & MEM_F_FAULT)) {
            char msg[400];
            snprintf(msg, sizeof msg,
                     "kernel %s wave (%u,%u,%u)/%u: instruction fetch fault "
                     "at 0x%llx", wv->wg->launch->emu.prog->kernel->name,
                     wv->w.wg_id[0], wv->w.wg_id[1], wv->w.wg_id[2],
                     wv->w.wave_id, (unsigned long long)req->vaddr);
            cu_wave_end(c, wv, MGS_EFAULT, msg);
        } else if (current && !fetch_bytes_match(wv, rsp)) {
            char msg[400];
            snprintf(msg, sizeof msg,
                     "kernel %s wave (%u,%u,%u)/%u: instruction fetch at "
                     "0x%llx returned bytes that differ from the program",
                     wv->wg->launch->emu.prog->kernel->name, wv->w.wg_id[0],
                     wv->w.wg_id[1], wv->w.wg_id[2], wv->w.wave_id,
                     (unsigned long long)req->vaddr);
            cu_wave_end(c, wv, MGS_EINTERNAL, msg);
        } else if (current) {
            wv->ib_end = req->vaddr - wv->code_va + req->size;
        }
        cu_wave_sched_update(c, wv);
        mem_msg_release(c->pool, req);
        mem_msg_release(c->pool, rsp);
        cu_wave_maybe_finish(c, wv);
    }
    return progress;
}

/* ---- issue ---- */


static cu_unit unit_of(const gcn_inst *in)
{
    cu_unit u = cu_unit_of_fmt(in->fmt);
    if (u != CU_U_SALU)
        return u;
    /* The scalar families: the op decides. */
    uint32_t flags = gcn_op_table[in->op].flags;
    if (in->fmt == GCN_FMT_SOPP)
        return flags & GCN_F_BRANCH && in->op != GCN_OP_S_ENDPGM
                   ? CU_U_BRANCH
                   : CU_U_INTERNAL;
    return flags & GCN_F_BRANCH ? CU_U_BRANCH : CU_U_SALU;
}

/* Ends the wave's work-group with the one-line message of emu mode. */
static void fail(cu *c, cu_wave *wv, const gcn_inst *in, int rc)
{
    const gcn_emu_program *p = wv->wg->launch->emu.prog;
    unsigned long long addr = (unsigned long long)(p->code_vaddr + wv->w.pc);
    char msg[512], text[128] = "<undecodable>";
    if (rc == MGS_EUNSUPPORTED) {
        if (in && in->fmt != GCN_FMT_INVALID)
            gcn_disasm(in, p->code_vaddr + wv->w.pc, text, sizeof text);
        snprintf(msg, sizeof msg,
                 "kernel %s wave (%u,%u,%u)/%u: unsupported instruction at pc "
                 "0x%llx: %08x %s", p->kernel->name, wv->w.wg_id[0],
                 wv->w.wg_id[1], wv->w.wg_id[2], wv->w.wave_id, addr,
                 in ? in->word0 : 0u, text);
    } else {
        snprintf(msg, sizeof msg, "kernel %s wave (%u,%u,%u)/%u pc 0x%llx: %s",
                 p->kernel->name, wv->w.wg_id[0], wv->w.wg_id[1],
                 wv->w.wg_id[2], wv->w.wave_id, addr, mgs_error_msg());
    }
    cu_wave_end(c, wv, rc, msg);
}

static void count_inst(cu *c, cu_wave *wv, stat_counter *kind)
{
    wv->w.insts++; /* the work-group's count is their sum (finish_wg) */
    c->wf_insts++;
    stat_inc(c->st.wf_insts);
    stat_inc(kind);
}

/* After a change of pc by a branch: keep the buffer if the target is in
** it, else refetch from the target. */
static void after_branch(cu *c, cu_wave *wv)
{
    uint64_t pc = wv->w.pc;
    if (pc < wv->ib_start || pc >= wv->ib_end)
        ib_reset(c, wv);
}

/* Scheduler-handled instructions (s_waitcnt, s_barrier, s_endpgm, s_nop and
** the other non-branch SOPP); they always issue. */
static void exec_internal(cu *c, cu_wave *wv, const gcn_inst *in,
                          uint64_t now)
{
    cu_wg *g = wv->wg;
    count_inst(c, wv, c->st.internal);
    switch (in->op) {
    case GCN_OP_S_WAITCNT: {
        uint32_t imm = (uint32_t)in->simm16;
        wv->wait_vm = imm & 0xf;
        wv->wait_lgkm = (imm >> 8) & 0xf;
        if (wv->vm_out <= wv->wait_vm && wv->lgkm_out <= wv->wait_lgkm) {
            wv->w.pc += 4;
            wv->busy_until = now + 1;
        } else {
            wv->state = CU_W_WAITCNT;
            wv->state_since = now;
        }
        return;
    }
    case GCN_OP_S_BARRIER:
        if (g->wg.nwaves - g->ended <= 1) {
            wv->w.pc += 4;
            wv->busy_until = now + 1;
            return;
        }
        wv->state = CU_W_BARRIER;
        wv->state_since = now;
        wv->w.at_barrier = true;
        g->at_barrier++;
        cu_barrier_check(c, g);
        return;
    case GCN_OP_S_ENDPGM:
        wv->w.done = true;
        cu_wave_end(c, wv, MGS_OK, NULL);
        return;
    case GCN_OP_S_NOP:
        wv->w.pc += 4;
        wv->busy_until = now + 1 + ((uint32_t)in->simm16 & 0xf);
        return;
    default: {
        int rc = gcn_exec_scalar(&wv->w, in);
        if (rc != MGS_OK) {
            fail(c, wv, in, rc);
            return;
        }
        wv->w.pc += in->size;
        wv->busy_until = now + 1;
        return;
    }
    }
}

/* Issues a vector (FLAT/MUBUF) or scalar (SMEM) memory instruction.
** Returns whether it issued (false: back-pressure, try again later). */
static bool exec_mem(cu *c, cu_wave *wv, const gcn_inst *in, uint64_t now,
                     bool vector)
{
    cu_memunit *u = vector ? &c->vmem : &c->smem;
    bool flat = in->fmt == GCN_FMT_FLAT;
    if (cu_mem_refused(c, wv, in->fmt, vector)) {
        if (vector)
            stat_inc(c->st.stall_vmem_backpressure);
        return false;
    }
    gcn_mem_plan *p = cu_plan_alloc(c);
    int rc = gcn_mem_plan_inst(&wv->w, in, p);
    /* sim.strict_bounds: past an allocation's end faults as in emu mode
    ** (the memory system only knows pages). */
    const gcn_emu_launch *el = &wv->wg->launch->emu;
    if (rc == MGS_OK)
        rc = gcn_mem_plan_bounds(p, &wv->w, el->mem_ops, el->mem,
                                 el->strict_bounds, el->past_end);
    if (rc == MGS_OK && p->kind == GCN_MEM_NONE && !vector) {
        rc = gcn_exec_scalar(&wv->w, in); /* s_memtime, s_dcache_* */
        /* In timing mode the time counters read the CU's cycle (emu mode
        ** has no clock and returns the wave's instruction count). */
        if (rc == MGS_OK && (in->op == GCN_OP_S_MEMTIME ||
                             in->op == GCN_OP_S_MEMREALTIME))
            gcn_write_s64(&wv->w, in->data0, now);
    }
    count_inst(c, wv, vector ? c->st.vmem : c->st.smem);
    /* buffer_wbinvl1[_vol] (the L1V is write-through: invalidate) and
    ** s_dcache_inv[_vol] invalidate the wave's L1: a MEM_INVALIDATE down
    ** the same path, counted in vmcnt / lgkmcnt until the cache answers
    ** (__threadfence and volatile accesses rely on it). */
    bool inval = c->cfg.fence_invalidates_l1 &&
                 (vector ? in->op == GCN_OP_BUFFER_WBINVL1 ||
                               in->op == GCN_OP_BUFFER_WBINVL1_VOL
                         : in->op == GCN_OP_S_DCACHE_INV ||
                               in->op == GCN_OP_S_DCACHE_INV_VOL);
    if (rc == MGS_OK && inval) {
        c->plan_free[c->plan_nfree++] = p;
        p = NULL; /* one MEM_INVALIDATE, nothing to plan */
    } else if (rc != MGS_OK || p->kind == GCN_MEM_NONE) {
        c->plan_free[c->plan_nfree++] = p;
        if (rc != MGS_OK) {
            fail(c, wv, in, rc);
            return true;
        }
        wv->w.pc += in->size;
        wv->busy_until = now + 1;
        return true;
    }
    cu_memop *op = cu_memop_new(wv);
    op->plan = p;
    op->ready_cycle = vector && c->cfg.issue_mgpusim
                          ? now + MGP_VMEM_READY + MGP_VMEM_TRANSACTION_STAGES
                          : 0;
    op->inval = inval;
    op->pc = wv->w.pc;
    op->vm = vector;
    /* FLAT counts on both (it may hit LDS); an invalidation on its own. */
    op->lgkm = !vector || (flat && !inval);
    wv->vm_out += op->vm;
    wv->lgkm_out += op->lgkm;
    cu_memunit_push(u, op);
    c->work |= vector ? CU_WORK_VMEM_Q : CU_WORK_SMEM_Q;
    wv->w.pc += in->size;
    wv->busy_until = now + 1;
    return true;
}

static bool exec_lds(cu *c, cu_wave *wv, const gcn_inst *in, uint64_t now)
{
    if (c->lds_next_free > now || !cu_mem_room(wv, false, true))
        return false;
    int rc = gcn_exec_ds(&wv->w, in);
    count_inst(c, wv, c->st.lds);
    if (rc != MGS_OK) {
        fail(c, wv, in, rc);
        return true;
    }
    cu_memop *op = cu_memop_new(wv);
    op->plan = NULL;
    op->pc = wv->w.pc;
    op->lgkm = 1;
    op->ready_cycle = now + (c->cfg.issue_mgpusim ? MGP_LDS_READY
                                                  : c->cfg.lds_cycles);
    uint32_t tail = c->lds_head + c->lds_pending;
    if (tail >= c->lds_fifo_cap)
        tail -= c->lds_fifo_cap;
    c->lds_fifo[tail] = op;
    c->lds_ready[tail] = op->ready_cycle;
    if (!c->lds_pending++)
        c->lds_head_ready = op->ready_cycle;
    wv->lgkm_out++;
    c->lds_next_free = now + (c->cfg.issue_mgpusim ? 1
                                                   : c->cfg.lds_issue_cycles);
    wv->w.pc += in->size;
    wv->busy_until = now + 1;
    return true;
}

static bool exec_alu(cu *c, cu_wave *wv, const gcn_inst *in, uint64_t now,
                     cu_unit unit)
{
    int rc;
    uint64_t lat;
    uint64_t start = now; /* the cycle the unit starts it */
    if (unit == CU_U_VALU) {
        bool f64 = gcn_op_table[in->op].flags & GCN_F_F64;
        lat = f64 ? c->cfg.valu_f64_cycles : c->cfg.valu_cycles;
        uint64_t simd_free = c->simd[wv->simd]->busy_until;
        if (c->cfg.issue_mgpusim) {
            /* The vector decoder takes it (one per cycle) and hands it to
            ** the SIMD the next cycle, or once the SIMD is free; until
            ** then the decoder takes nothing else. */
            if (c->vdec_free_at > now)
                return false;
            start = simd_free > now + 1 ? simd_free : now + 1;
            c->vdec_free_at = start;
        } else if (simd_free > now) {
            return false;
        }
        rc = gcn_exec_valu(&wv->w, in);
        count_inst(c, wv, c->st.valu);
        c->simd[wv->simd]->busy_until = start + lat;
    } else if (c->cfg.issue_mgpusim) {
        lat = unit == CU_U_BRANCH ? MGP_BRANCH_READY : MGP_SALU_READY;
        rc = gcn_exec_scalar(&wv->w, in);
        count_inst(c, wv, unit == CU_U_BRANCH ? c->st.branch : c->st.salu);
    } else {
        lat = unit == CU_U_BRANCH ? c->cfg.branch_cycles : c->cfg.salu_cycles;
        rc = gcn_exec_scalar(&wv->w, in);
        count_inst(c, wv, unit == CU_U_BRANCH ? c->st.branch : c->st.salu);
    }
    if (rc == MGS_OK) {
        wv->w.pc += in->size;
    } else if (rc == GCN_EXEC_BRANCHED) {
        after_branch(c, wv);
    } else {
        fail(c, wv, in, rc);
        return true;
    }
    /* MGPUSim's branch unit empties the buffer, taken or not. */
    if (unit == CU_U_BRANCH && c->cfg.issue_mgpusim)
        ib_reset(c, wv);
    wv->busy_until = start + lat;
    return true;
}

/* Tries to issue the wave's next instruction; used[] holds the unit types
** already taken this cycle. Returns whether anything happened; *ready is
** set when the wave had an instruction to issue (MGPUSim's arbiter stays
** on a SIMD that has one, whether its unit took it or not). */
static bool issue_wave(cu *c, cu_wave *wv, uint64_t now, bool *used,
                       bool *ready)
{
    if (wv->state != CU_W_READY || wv->busy_until > now)
        return false;
    const gcn_emu_program *p = wv->prog;
    size_t slot = (size_t)(wv->w.pc >> 2);
    if (slot >= p->nslots || (wv->w.pc & 3)) {
        char msg[400];
        snprintf(msg, sizeof msg,
                 "kernel %s wave (%u,%u,%u)/%u: pc 0x%llx is outside the "
                 "kernel's code", p->kernel->name, wv->w.wg_id[0],
                 wv->w.wg_id[1], wv->w.wg_id[2], wv->w.wave_id,
                 (unsigned long long)(p->code_vaddr + wv->w.pc));
        cu_wave_end(c, wv, MGS_EUNSUPPORTED, msg);
        return true;
    }
    const gcn_inst *in = &p->insts[slot];
    uint64_t va = wv->w.pc; /* code offset, like the buffer bounds */
    uint32_t size = in->size ? in->size : 4;
    if (va < wv->ib_start || va + size > wv->ib_end) {
        if (!wv->fetch_stalled) {
            wv->fetch_stalled = 1;
            wv->fetch_stall_since = now;
        }
        return false; /* not fetched yet */
    }
    if (wv->fetch_stalled) {
        stat_addn(c->st.stall_fetch, now - wv->fetch_stall_since);
        wv->fetch_stalled = 0;
    }
    *ready = true;
    if (__builtin_expect(wv->w.insts >= c->wave_inst_limit, 0)) {
        char msg[400];
        snprintf(msg, sizeof msg,
                 "kernel %s wave (%u,%u,%u)/%u pc 0x%llx: no progress "
                 "after %llu instructions (sim.max_wave_insts: a spin "
                 "loop waiting for something that never happens?)",
                 p->kernel->name, wv->w.wg_id[0], wv->w.wg_id[1],
                 wv->w.wg_id[2], wv->w.wave_id,
                 (unsigned long long)(p->code_vaddr + wv->w.pc),
                 (unsigned long long)wv->w.insts);
        cu_wave_end(c, wv, MGS_EDEADLOCK, msg);
        return true;
    }
    cu_unit u = unit_of(in);
    if (u == CU_U_COUNT) {
        fail(c, wv, in, MGS_EUNSUPPORTED);
        return true;
    }
    /* MGPUSim: scalar ALU and scalar memory share one decoder. */
    cu_unit slot_u = u == CU_U_SMEM && c->cfg.issue_mgpusim ? CU_U_SALU : u;
    if (u != CU_U_INTERNAL && used[slot_u])
        return false;
    bool issued = true;
    switch (u) {
    case CU_U_INTERNAL: exec_internal(c, wv, in, now); break;
    case CU_U_VMEM: issued = exec_mem(c, wv, in, now, true); break;
    case CU_U_SMEM: issued = exec_mem(c, wv, in, now, false); break;
    case CU_U_LDS: issued = exec_lds(c, wv, in, now); break;
    default: issued = exec_alu(c, wv, in, now, u); break;
    }
    if (!issued)
        return false;
    used[slot_u] = true;
    c->issued_this_cycle = true;
    if (c->cfg.issue_mgpusim && wv->state == CU_W_READY) {
        /* Memory and LDS instructions hold the wave until they leave
        ** MGPUSim's pipeline (exec_alu has set the others). */
        if (u == CU_U_VMEM)
            wv->busy_until = now + MGP_VMEM_READY;
        else if (u == CU_U_SMEM)
            wv->busy_until = now + MGP_SMEM_READY;
        else if (u == CU_U_LDS)
            wv->busy_until = now + MGP_LDS_READY;
    }
    return true;
}

/* GCN: the waves of SIMD cycle % num_simds. MGPUSim (issuearbiter.go):
** the first SIMD, from the last one that issued on, that has a wave with
** an instruction to issue; the arbiter stays on it while it has one. */
bool cu_issue(cu *c, uint64_t now)
{
    const uint32_t ns = c->cfg.num_simds;
    const bool mgp = c->cfg.issue_mgpusim;
    uint32_t s = mgp ? c->mgp_simd : cu_turn(c, now);
    const uint32_t nsimds = mgp ? ns : 1;
    bool used[CU_U_COUNT + 1] = {false};
    bool progress = false;
    for (uint32_t k = 0; k < nsimds; k++, s = s + 1 < ns ? s + 1 : 0) {
        const cu_simd *d = c->simd[s];
        const uint32_t n = d->nwaves;
        if (CU_CHECKS)
            check_issue_at(c, s);
        /* The waves that may issue now (READY, busy_until passed), in age
        ** order. Issuing cannot add one (a release sets busy_until to the
        ** next cycle) but may end some or free them (a work-group that
        ** finishes leaves the list): issue_wave tests each again. */
        cu_wave *cand[64];
        uint32_t nc = 0;
        for (uint32_t i = 0; d->nready && i < n; i++)
            if (d->issue_at[i] <= now) {
                /* Their first lines are rarely in the host L1 (64 CUs'
                ** waves): asking for all of them at once overlaps the
                ** misses. */
                cand[nc] = d->waves[i];
                __builtin_prefetch(cand[nc]);
                __builtin_prefetch(&cand[nc++]->w.insts); /* the limit */
            }
        bool ready = false;
        for (uint32_t i = 0; i < nc; i++)
            if (issue_wave(c, cand[i], now, used, &ready)) {
                progress = true;
                if (cand[i]->state != CU_W_FREE)
                    cu_wave_sched_update(c, cand[i]); /* pc, busy, state */
            }
        if (ready) {
            c->mgp_simd = s;
            break;
        }
    }
    return progress;
}
