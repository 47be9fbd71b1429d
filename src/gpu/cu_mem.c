/*
** CU memory back end: the vector and scalar memory units, their responses,
** LDS completion and the in-order retirement that implements vmcnt and
** lgkmcnt.
**
** A memory unit takes instructions (their plans) from a bounded queue. The
** head is coalesced (gpu/coalescer.h) at most once every issue_cycles,
** then its line requests leave at per_cycle requests per cycle while the
** port's lane accepts them and fewer than max_inflight are outstanding
** (vmem back-pressure). Each request carries its memory operation in
** origin; atomics carry their lane in base.id, reads the mask of the lanes
** their line serves (a response scatters to those lanes only). Responses
** fill the plan's data; when an operation's last response arrives it is
** done.
**
** Retirement (cu_wave_retire) walks the wave's operations oldest first and
** retires each done one unless an older unretired operation holds one of
** the same counters: registers are written (gcn_mem_plan_complete) and the
** counters drop in issue order, which is what s_waitcnt vmcnt(N) /
** lgkmcnt(N) with N > 0 relies on. A faulted operation ends the
** work-group with a message naming kernel, wave, PC and address.
*/
#include "gpu/cu_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgsim/errors.h"
#include "sim/port.h"
#include "util/xmalloc.h"

void cu_memunit_init(cu *c, cu_memunit *u, const char *name,
                     uint32_t queue_cap, uint32_t max_inflight,
                     uint32_t issue_cycles, uint32_t per_cycle,
                     uint32_t flags, stat_registry *stats,
                     const char *hist_name)
{
    memset(u, 0, sizeof *u);
    port_init(&u->port, &c->base, name, c->cfg.mem_buffer);
    u->queue = mgs_xcalloc(queue_cap, sizeof *u->queue);
    u->queue_cap = queue_cap;
    u->reqs = mgs_xcalloc(CU_COAL_MAX, sizeof *u->reqs);
    u->max_inflight = max_inflight;
    u->issue_cycles = issue_cycles;
    u->per_cycle = per_cycle;
    u->flags = flags;
    u->reqs_per_inst = stats ? stat_hist_add(stats, c->base.name, hist_name,
                                             "requests")
                             : mgs_xcalloc(1, sizeof(stat_hist));
    u->own_hist = stats == NULL;
}

void cu_memunit_fini(cu_memunit *u)
{
    port_fini(&u->port);
    free(u->queue);
    free(u->reqs);
    if (u->own_hist)
        free(u->reqs_per_inst);
}

bool cu_memunit_push(cu_memunit *u, cu_memop *op)
{
    if (u->qcount == u->queue_cap)
        return false;
    u->queue[(u->qhead + u->qcount) % u->queue_cap] = op;
    u->qcount++;
    return true;
}

gcn_mem_plan *cu_plan_alloc(cu *c)
{
    return c->plan_free[--c->plan_nfree];
}

cu_memop *cu_memop_new(cu_wave *wv)
{
    for (uint8_t i = 0; i < CU_WAVE_MAX_OPS; i++) {
        cu_memop *op = &wv->ops[i];
        if (op->in_use)
            continue;
        memset(op, 0, sizeof *op);
        op->in_use = 1;
        op->wave = wv;
        wv->order[wv->nops++] = i;
        return op;
    }
    return NULL; /* callers check mem_room first */
}

static void op_done(cu *c, cu_memop *op, uint64_t now)
{
    op->done = 1;
    cu_wave_retire(c, op->wave, now);
}

static mem_msg *make_request(cu *c, cu_memunit *u, const cu_memop *op,
                             const cu_coal_req *r)
{
    if (op->inval) { /* the whole L1: size 0 */
        mem_msg *m = mem_msg_alloc(c->pool, MEM_INVALIDATE);
        m->flags = u->flags;
        m->gpu = c->cfg.gpu;
        m->origin = (void *)op;
        m->issue_time = eng_now(c->base.eng);
        m->base.bytes = 8;
        m->base.dst = mem_route_lookup(&u->route, 0);
        return m;
    }
    const gcn_mem_plan *p = op->plan;
    mem_msg_type type = p->kind == GCN_MEM_LOAD    ? MEM_READ
                        : p->kind == GCN_MEM_STORE ? MEM_WRITE
                                                   : MEM_ATOMIC;
    mem_msg *m = mem_msg_alloc(c->pool, type);
    uint32_t first = cu_coal_first(r), size = cu_coal_size(r);
    m->addr = r->line + first;
    m->vaddr = m->addr; /* a translator rewrites addr, not vaddr */
    m->size = size;
    m->flags = u->flags | (p->glc ? MEM_F_GLC : 0) | (p->slc ? MEM_F_SLC : 0);
    m->gpu = c->cfg.gpu;
    m->origin = (void *)op;
    m->issue_time = eng_now(c->base.eng);
    m->base.bytes = 8;
    if (type == MEM_WRITE) {
        m->mask = r->mask >> first;
        memcpy(m->data, r->data + first, size);
        m->base.bytes += size;
    } else if (type == MEM_READ) {
        /* The lanes this line serves: the response fills only those. */
        m->base.id = r->lanes;
    } else {
        unsigned l = r->lane;
        m->base.id = l;
        m->atomic_op = p->atomic_op;
        m->atomic_size = p->elem_bytes;
        m->atomic_src = p->data[0][l] | (uint64_t)p->data[1][l] << 32;
        m->atomic_cmp = p->data[2][l] | (uint64_t)p->data[3][l] << 32;
        m->base.bytes += 2u * p->elem_bytes;
    }
    m->base.dst = mem_route_lookup(&u->route, m->addr);
    return m;
}

bool cu_memunit_run(cu *c, cu_memunit *u, uint64_t now)
{
    bool progress = false;
    while (u->qcount) {
        cu_memop *op = u->queue[u->qhead];
        if (!u->coalesced) {
            /* issue_mgpusim: a vector memory op's requests leave MGPUSim's
            ** instruction and transaction pipelines at op->ready_cycle. */
            if (op->ready_cycle > u->next_start)
                u->next_start = op->ready_cycle;
            if (u->next_start > now)
                return progress;
            u->nreq = op->inval ? 1
                                : cu_coalesce(op->plan, c->cfg.vmem_line,
                                              u->reqs);
            u->sent = 0;
            u->coalesced = true;
            u->next_start = now + u->issue_cycles;
            op->pending = u->nreq;
            stat_hist_sample(u->reqs_per_inst, u->nreq);
            progress = true;
        }
        uint32_t budget = u->per_cycle;
        while (u->sent < u->nreq && budget && u->inflight < u->max_inflight) {
            if (!port_can_send(&u->port)) {
                port_notify_when_free(&u->port); /* ticks the CU then */
                break;
            }
            mem_msg *m = make_request(c, u, op, &u->reqs[u->sent]);
            if (port_send(&u->port, &m->base) != MGS_OK) {
                mem_msg_release(c->pool, m);
                break;
            }
            u->sent++;
            u->inflight++;
            budget--;
            stat_inc(u->flags & MEM_F_SCALAR ? c->st.smem_reqs
                                             : c->st.vmem_reqs);
            progress = true;
        }
        if (u->sent < u->nreq)
            return progress;
        /* Every request left: the next instruction may start. */
        u->qhead = (u->qhead + 1) % u->queue_cap;
        u->qcount--;
        u->coalesced = false;
        if (!u->nreq)
            op_done(c, op, now); /* nothing for the memory system */
        if (!budget)
            return progress;
    }
    return progress;
}

bool cu_take_mem_responses(cu *c, cu_memunit *u, uint64_t now)
{
    bool progress = false;
    mem_msg *rsp;
    while ((rsp = (mem_msg *)port_retrieve(&u->port))) {
        mem_msg *req = rsp->req;
        cu_memop *op = req->origin;
        progress = true;
        u->inflight--;
        if (rsp->flags & MEM_F_FAULT) {
            if (!op->fault)
                op->fault_addr = req->vaddr;
            op->fault = 1;
        } else if (rsp->base.type == MEM_READ_RSP) {
            cu_coal_fill_lanes(op->plan, req->base.id, req->vaddr, req->size,
                               rsp->data);
        } else if (rsp->base.type == MEM_ATOMIC_RSP) {
            cu_coal_fill_atomic(op->plan, (unsigned)req->base.id, rsp->data);
        }
        mem_msg_release(c->pool, req);
        mem_msg_release(c->pool, rsp);
        if (--op->pending == 0)
            op_done(c, op, now);
    }
    return progress;
}

bool cu_retire_lds(cu *c, uint64_t now)
{
    bool progress = false;
    while (c->lds_pending && c->lds_head_ready <= now) {
        cu_memop *op = c->lds_fifo[c->lds_head];
        c->lds_head = c->lds_head + 1 == c->lds_fifo_cap ? 0 : c->lds_head + 1;
        c->lds_pending--;
        c->lds_head_ready = c->lds_pending ? c->lds_ready[c->lds_head]
                                           : UINT64_MAX;
        op->done = 1;
        progress = true;
        cu_wave_retire(c, op->wave, now); /* may finish the work-group */
    }
    return progress;
}

void cu_waitcnt_check(cu *c, cu_wave *wv, uint64_t now)
{
    if (wv->state != CU_W_WAITCNT || wv->vm_out > wv->wait_vm ||
        wv->lgkm_out > wv->wait_lgkm)
        return;
    stat_addn(c->st.stall_waitcnt, now - wv->state_since);
    wv->state = CU_W_READY;
    wv->w.pc += 4; /* past the s_waitcnt */
    wv->busy_until = now + 1;
    cu_wave_sched_update(c, wv);
}

void cu_wave_retire(cu *c, cu_wave *wv, uint64_t now)
{
    bool vm_blocked = false, lgkm_blocked = false, faulted = false;
    char fault_msg[240] = "";
    uint32_t keep = 0;
    for (uint32_t j = 0; j < wv->nops; j++) {
        uint8_t idx = wv->order[j];
        cu_memop *op = &wv->ops[idx];
        bool blocked = (op->vm && vm_blocked) || (op->lgkm && lgkm_blocked);
        if (!op->done || blocked) {
            vm_blocked |= op->vm;
            lgkm_blocked |= op->lgkm;
            wv->order[keep++] = idx;
            continue;
        }
        if (op->plan) {
            if (op->fault && !faulted) {
                const gcn_emu_program *p = wv->wg->launch->emu.prog;
                snprintf(fault_msg, sizeof fault_msg,
                         "kernel %s wave (%u,%u,%u)/%u pc 0x%llx: memory "
                         "fault at address 0x%llx on GPU %d",
                         p->kernel->name, wv->w.wg_id[0], wv->w.wg_id[1],
                         wv->w.wg_id[2], wv->w.wave_id,
                         (unsigned long long)(p->code_vaddr + op->pc),
                         (unsigned long long)op->fault_addr, c->cfg.gpu);
                faulted = true;
            } else if (!op->fault && wv->wg->status == MGS_OK) {
                gcn_mem_plan_complete(&wv->w, op->plan);
            }
            c->plan_free[c->plan_nfree++] = op->plan;
        }
        wv->vm_out -= op->vm;
        wv->lgkm_out -= op->lgkm;
        op->in_use = 0;
    }
    wv->nops = keep;
    if (faulted) {
        cu_wave_end(c, wv, MGS_EFAULT, fault_msg); /* may free the wave */
        return;
    }
    cu_waitcnt_check(c, wv, now);
    cu_wave_maybe_finish(c, wv);
}
