/*
** Functional GCN3 executor: program pre-decoding, initial wave state, the
** run loop and barriers. Design notes and invariants: emu.h.
**
** Hot path: gcn_emu_finish_workgroup -> run_wave, a loop of "take the
** pre-decoded slot at pc, call its family's entry (chosen at decode time),
** advance pc". Nothing in it allocates or decodes; the per-instruction
** cost is the semantics themselves.
*/
#include "gcn3/emu.h"

#include "gcn3/decode.h"
#include "gcn3/disasm.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The semantics entry for an instruction (as gcn_exec would choose). */
static gcn_exec_fn family_of(const gcn_inst *in)
{
    switch ((gcn_fmt)in->fmt) {
    case GCN_FMT_SOP2: case GCN_FMT_SOPK: case GCN_FMT_SOP1:
    case GCN_FMT_SOPC: case GCN_FMT_SOPP: case GCN_FMT_SMEM:
        return gcn_exec_scalar;
    case GCN_FMT_VOP2: case GCN_FMT_VOP1: case GCN_FMT_VOPC:
    case GCN_FMT_VOP3A: case GCN_FMT_VOP3B:
        return gcn_exec_valu;
    case GCN_FMT_DS:
        return gcn_exec_ds;
    case GCN_FMT_FLAT: case GCN_FMT_MUBUF:
        return gcn_exec_mem;
    default:
        return gcn_exec;
    }
}

int gcn_emu_program_init_range(gcn_emu_program *p, const gcn_kernel *k,
                               const uint8_t *code, uint64_t code_vaddr,
                               size_t code_size)
{
    memset(p, 0, sizeof *p);
    if (!k->code || k->code_size < 4)
        return mgs_error_set(MGS_EINVAL, "kernel %s has no code", k->name);
    if (k->code_vaddr < code_vaddr ||
        k->code_vaddr + k->code_size > code_vaddr + code_size)
        return mgs_error_set(MGS_EINVAL,
                             "kernel %s lies outside the code range given",
                             k->name);
    p->kernel = k;
    p->code = code;
    p->code_vaddr = code_vaddr;
    p->code_size = code_size;
    p->entry = k->code_vaddr - code_vaddr;
    p->nslots = code_size / 4;
    p->insts = mgs_xcalloc(p->nslots, sizeof(gcn_inst)); /* fmt INVALID */
    p->fns = mgs_xcalloc(p->nslots, sizeof(gcn_exec_fn));
    size_t pc = 0;
    while (pc + 4 <= code_size) {
        gcn_inst in;
        /* Bytes before the entry (a v2 amd_kernel_code_t, data) must not
        ** swallow its first word into a two-word instruction. */
        size_t limit = pc < p->entry ? p->entry : code_size;
        int n = gcn_decode(code + pc, limit - pc, &in);
        if (n <= 0) {
            /* Keep the raw word for the error message; skip one dword. */
            memcpy(&p->insts[pc / 4].word0, code + pc, 4);
            p->insts[pc / 4].size = 4;
            pc += 4;
            continue;
        }
        p->insts[pc / 4] = in;
        p->fns[pc / 4] = family_of(&in);
        pc += (size_t)n;
    }
    for (size_t i = 0; i < p->nslots; i++)
        if (!p->fns[i])
            p->fns[i] = gcn_exec; /* reports the slot as unsupported */
    mgs_error_clear();
    return MGS_OK;
}

int gcn_emu_program_init(gcn_emu_program *p, const gcn_kernel *k)
{
    return gcn_emu_program_init_range(p, k, k->code, k->code_vaddr,
                                      k->code_size);
}

void gcn_emu_program_destroy(gcn_emu_program *p)
{
    free(p->insts);
    free(p->fns);
    memset(p, 0, sizeof *p);
}

int gcn_emu_init(gcn_emu *e, const gcn_emu_launch *cfg)
{
    memset(e, 0, sizeof *e);
    const gcn_kernel *k = cfg->prog->kernel;
    for (int d = 0; d < 3; d++)
        if (!cfg->grid[d] || !cfg->block[d])
            return mgs_error_set(MGS_EINVAL,
                                 "kernel %s: grid and block sizes must be > 0",
                                 k->name);
    uint64_t wg_items = (uint64_t)cfg->block[0] * cfg->block[1] * cfg->block[2];
    if (wg_items > GCN_EMU_MAX_WG_SIZE)
        return mgs_error_set(MGS_EINVAL,
                             "kernel %s: work-group of %llu work-items exceeds %d",
                             k->name, (unsigned long long)wg_items,
                             GCN_EMU_MAX_WG_SIZE);
    if (cfg->lds_bytes > 65536)
        return mgs_error_set(MGS_EINVAL,
                             "kernel %s: %u bytes of LDS exceed the 64 KiB limit",
                             k->name, cfg->lds_bytes);
    e->cfg = *cfg;
    e->inst_limit = cfg->max_wave_insts ? cfg->max_wave_insts
                                        : GCN_EMU_DEFAULT_WAVE_INST_LIMIT;
    uint32_t nvgpr = k->vgpr_count ? k->vgpr_count : 256;
    if (nvgpr < 3)
        nvgpr = 3; /* room for the work-item id VGPRs */
    e->vgpr_store = mgs_xcalloc((size_t)GCN_EMU_MAX_WAVES * nvgpr *
                                    GCN_WAVE_LANES, sizeof(uint32_t));
    e->lds = mgs_xcalloc(1, cfg->lds_bytes ? cfg->lds_bytes : 4);
    e->ctx = (gcn_exec_ctx){
        .mem_ops = cfg->mem_ops, .mem = cfg->mem, .lds = e->lds,
        .lds_size = cfg->lds_bytes, .code = cfg->prog->code,
        .code_size = cfg->prog->code_size, .private_base = cfg->scratch_va,
        .code_vaddr = cfg->prog->code_vaddr + cfg->load_base,
        .interrupt = cfg->interrupt, .host = cfg->host,
        .past_end = cfg->past_end, .strict_bounds = cfg->strict_bounds};
    for (int i = 0; i < GCN_EMU_MAX_WAVES; i++) {
        e->waves[i].vgpr = e->vgpr_store + (size_t)i * nvgpr * GCN_WAVE_LANES;
        e->waves[i].nvgpr = nvgpr;
    }
    return MGS_OK;
}

void gcn_emu_destroy(gcn_emu *e)
{
    free(e->vgpr_store);
    free(e->lds);
    memset(e, 0, sizeof *e);
}

/* Builds the private segment buffer resource (GCN3 ISA 8.1.8, buffer
** resource descriptor): base = scratch, stride = private size, swizzled
** with element size 4 (code 1) and index stride 64 (code 3), ADD_TID. */
static void scratch_descriptor(const gcn_emu_launch *l, uint32_t v[4])
{
    v[0] = (uint32_t)l->scratch_va;
    v[1] = (uint32_t)(l->scratch_va >> 32) & 0xffffu;
    v[1] |= (l->private_size & 0x3fffu) << 16;
    v[1] |= 1u << 31;                           /* SWIZZLE_ENABLE */
    v[2] = 0xffffffffu;                         /* NUM_RECORDS */
    v[3] = (4u << 0) | (5u << 3) | (6u << 6) | (7u << 9); /* DST_SEL xyzw */
    v[3] |= 4u << 15;                           /* DATA_FORMAT 32 */
    v[3] |= 1u << 19;                           /* ELEMENT_SIZE 4 bytes */
    v[3] |= 3u << 21;                           /* INDEX_STRIDE 64 */
    v[3] |= 1u << 23;                           /* ADD_TID_ENABLE */
}

/* Initial register state of wave `wi` of work-group wg, in the order of
** LLVM AMDGPUUsage "Initial Kernel Execution State". Shared with the
** timing model's CU (emu.h). */
void gcn_emu_init_wave(const gcn_emu_launch *l, gcn_workgroup *wg,
                       gcn_exec_ctx *ctx, uint32_t wi, gcn_wave *w)
{
    gcn_emu_init_wave_slot(l, wg, ctx, wi, wi, w);
}

void gcn_emu_init_wave_slot(const gcn_emu_launch *l, gcn_workgroup *wg,
                            gcn_exec_ctx *ctx, uint32_t wi,
                            uint32_t scratch_slot, gcn_wave *w)
{
    const gcn_kernel *k = l->prog->kernel;
    uint32_t *vgpr = w->vgpr;
    uint32_t nvgpr = w->nvgpr;

    memset(w, 0, sizeof *w);
    w->vgpr = vgpr;
    w->nvgpr = nvgpr;
    w->nsgpr = k->sgpr_count;
    w->wave_id = wi;
    memcpy(w->wg_id, wg->id, sizeof w->wg_id);
    w->wg = wg;
    w->ctx = ctx;
    w->pc = l->prog->entry;

    uint32_t wave_scratch = l->private_size * GCN_WAVE_LANES;
    uint32_t wave_offset = scratch_slot * wave_scratch;
    unsigned s = 0;
    if (k->sgpr_private_segment_buffer) {
        scratch_descriptor(l, &w->sgpr[s]);
        s += 4;
    }
    if (k->sgpr_dispatch_ptr) {
        w->sgpr[s++] = (uint32_t)l->dispatch_va;
        w->sgpr[s++] = (uint32_t)(l->dispatch_va >> 32);
    }
    if (k->sgpr_queue_ptr) {
        w->sgpr[s++] = (uint32_t)l->queue_va;
        w->sgpr[s++] = (uint32_t)(l->queue_va >> 32);
    }
    if (k->sgpr_kernarg_segment_ptr) {
        w->sgpr[s++] = (uint32_t)l->kernarg_va;
        w->sgpr[s++] = (uint32_t)(l->kernarg_va >> 32);
    }
    if (k->sgpr_dispatch_id) {
        w->sgpr[s++] = (uint32_t)l->dispatch_id;
        w->sgpr[s++] = (uint32_t)(l->dispatch_id >> 32);
    }
    if (k->sgpr_flat_scratch_init) {
        /* GFX8: offset of the queue's scratch from the hidden private base
        ** (ours is the base itself), then the per-lane size. The kernel's
        ** prologue adds the wave offset and moves these into FLAT_SCRATCH. */
        w->sgpr[s++] = 0;
        w->sgpr[s++] = l->private_size;
    }
    if (k->sgpr_private_segment_size)
        w->sgpr[s++] = l->private_size;
    if (k->user_sgpr_count > s)
        s = k->user_sgpr_count; /* system SGPRs follow all user SGPRs */
    if (k->sgpr_workgroup_id_x)
        w->sgpr[s++] = wg->id[0];
    if (k->sgpr_workgroup_id_y)
        w->sgpr[s++] = wg->id[1];
    if (k->sgpr_workgroup_id_z)
        w->sgpr[s++] = wg->id[2];
    if (k->sgpr_workgroup_info)
        w->sgpr[s++] = wg->nwaves; /* assumed: only the wave count is modelled */
    if (k->sgpr_private_segment_wave_offset)
        w->sgpr[s++] = wave_offset;
    /* FLAT_SCRATCH as the prologue would set it, for kernels without one. */
    w->sgpr[GCN_OPR_FLAT_SCR_LO] = l->private_size;
    w->sgpr[GCN_OPR_FLAT_SCR_HI] = wave_offset >> 8;

    /* Work-item ids of this wave's lanes; lanes past the work-group's end
    ** are inactive. */
    uint32_t nx = wg->size[0], ny = wg->size[1];
    uint32_t items = nx * ny * wg->size[2];
    uint32_t first = wi * GCN_WAVE_LANES;
    uint32_t lanes = items - first < GCN_WAVE_LANES ? items - first
                                                    : GCN_WAVE_LANES;
    w->exec = lanes == 64 ? ~0ull : (1ull << lanes) - 1;
    uint32_t *vx = gcn_vreg(w, 0), *vy = gcn_vreg(w, 1), *vz = gcn_vreg(w, 2);
    /* Lane i is work-item first + i: one division for the first lane, then
    ** x counts up and carries into y and z (a wave starts thousands of
    ** times per launch; three divisions per lane were 10-15 % of emu time
    ** on kernels of a few instructions, such as bs and fws). */
    const unsigned ids = k->vgpr_workitem_id; /* VGPRs v1, v2 only if set */
    uint32_t x = first % nx, y = first / nx % ny, z = first / nx / ny;
    if (lanes == GCN_WAVE_LANES && x + GCN_WAVE_LANES <= nx) {
        /* The wave lies in one row (every 1-D work-group of 64k items):
        ** straight-line stores the compiler vectorises. */
        for (uint32_t i = 0; i < GCN_WAVE_LANES; i++)
            vx[i] = x + i;
        if (ids >= 1)
            for (uint32_t i = 0; i < GCN_WAVE_LANES; i++)
                vy[i] = y;
        if (ids >= 2)
            for (uint32_t i = 0; i < GCN_WAVE_LANES; i++)
                vz[i] = z;
        return;
    }
    for (uint32_t i = 0; i < lanes; i++) {
        vx[i] = x;
        if (ids >= 1)
            vy[i] = y;
        if (ids >= 2)
            vz[i] = z;
        if (++x == nx) {
            x = 0;
            if (++y == ny) {
                y = 0;
                z++;
            }
        }
    }
    for (uint32_t i = lanes; i < GCN_WAVE_LANES; i++) {
        vx[i] = 0;
        if (ids >= 1)
            vy[i] = 0;
        if (ids >= 2)
            vz[i] = 0;
    }
}

void gcn_emu_init_workgroup(const gcn_emu_launch *l, const uint32_t wg_id[3],
                            gcn_workgroup *wg)
{
    uint32_t items = 1;
    for (int d = 0; d < 3; d++) {
        wg->id[d] = wg_id[d];
        uint32_t start = wg_id[d] * l->block[d];
        uint32_t left = l->grid[d] - start;
        wg->size[d] = left < l->block[d] ? left : l->block[d];
        items *= wg->size[d];
    }
    wg->nwaves = (items + GCN_WAVE_LANES - 1) / GCN_WAVE_LANES;
}

void gcn_emu_start_workgroup(gcn_emu *e, const uint32_t wg_id[3])
{
    const gcn_emu_launch *l = &e->cfg;
    gcn_workgroup *wg = &e->wg;
    gcn_emu_init_workgroup(l, wg_id, wg);
    /* LDS is not initialised on hardware; zeroing keeps runs reproducible. */
    if (l->lds_bytes)
        memset(e->lds, 0, l->lds_bytes);
    for (uint32_t i = 0; i < wg->nwaves; i++)
        gcn_emu_init_wave(l, wg, &e->ctx, i, &e->waves[i]);
    e->wavefronts += wg->nwaves;
}

/* Turns a failed instruction into the one-line message of emu.h. */
static int report(gcn_emu *e, const gcn_wave *w, const gcn_inst *in, int rc)
{
    const gcn_emu_program *p = e->cfg.prog;
    const char *name = p->kernel->name;
    unsigned long long addr = (unsigned long long)(p->code_vaddr + w->pc);
    char msg[512];
    if (rc == MGS_EUNSUPPORTED) {
        char raw[40] = "", text[128] = "<undecodable>";
        size_t pc = (size_t)w->pc, nwords = 1;
        if (in->fmt != GCN_FMT_INVALID) {
            nwords = in->size / 4;
            gcn_disasm(in, p->code_vaddr + w->pc, text, sizeof text);
        }
        if (pc + nwords * 4 > p->code_size)
            nwords = (p->code_size - pc) / 4;
        int len = 0;
        for (size_t i = 0; i < nwords; i++) {
            uint32_t word;
            memcpy(&word, p->code + pc + 4 * i, 4);
            len += snprintf(raw + len, sizeof raw - (size_t)len, "%s%08x",
                            i ? " " : "", word);
        }
        return mgs_error_set(MGS_EUNSUPPORTED,
                             "kernel %s: unsupported instruction at pc 0x%llx: "
                             "%s %s", name, addr, raw, text);
    }
    /* Memory faults and other errors: the family recorded the cause. */
    snprintf(msg, sizeof msg, "%s", mgs_error_msg());
    return mgs_error_set(rc, "kernel %s wave (%u,%u,%u)/%u pc 0x%llx: %s",
                         name, w->wg_id[0], w->wg_id[1], w->wg_id[2],
                         w->wave_id, addr, msg);
}

/* Runs one wave until it ends or waits at a barrier. */
static int run_wave(gcn_emu *e, gcn_wave *w)
{
    const gcn_inst *insts = e->cfg.prog->insts;
    const gcn_exec_fn *fns = e->cfg.prog->fns;
    size_t nslots = e->cfg.prog->nslots;
    const uint64_t start = w->insts, limit = e->inst_limit;
    int rc = MGS_OK;
    while (!w->done && !w->at_barrier) {
        if (w->insts >= limit) {
            rc = mgs_error_set(MGS_EDEADLOCK,
                               "kernel %s wave (%u,%u,%u)/%u pc 0x%llx: no "
                               "progress after %llu instructions (a spin "
                               "loop waiting for another work-group? emu "
                               "mode runs work-groups one at a time)",
                               e->cfg.prog->kernel->name, w->wg_id[0],
                               w->wg_id[1], w->wg_id[2], w->wave_id,
                               (unsigned long long)(e->cfg.prog->code_vaddr +
                                                    w->pc),
                               (unsigned long long)e->inst_limit);
            break;
        }
        size_t slot = (size_t)(w->pc >> 2);
        if (slot >= nslots || (w->pc & 3)) {
            rc = mgs_error_set(MGS_EUNSUPPORTED,
                               "kernel %s wave (%u,%u,%u)/%u: pc 0x%llx is "
                               "outside the kernel's code",
                               e->cfg.prog->kernel->name, w->wg_id[0],
                               w->wg_id[1], w->wg_id[2], w->wave_id,
                               (unsigned long long)(e->cfg.prog->code_vaddr +
                                                    w->pc));
            break;
        }
        const gcn_inst *in = &insts[slot];
        int r = fns[slot](w, in);
        if (r == MGS_OK) {
            w->pc += in->size;
        } else if (r != GCN_EXEC_BRANCHED) {
            rc = report(e, w, in, r); /* not counted: it did not complete */
            break;
        }
        w->insts++;
    }
    e->wf_insts += w->insts - start;
    return rc;
}

int gcn_emu_finish_workgroup(gcn_emu *e)
{
    gcn_workgroup *wg = &e->wg;
    for (;;) {
        uint32_t waiting = 0;
        for (uint32_t i = 0; i < wg->nwaves; i++) {
            gcn_wave *w = &e->waves[i];
            if (w->done)
                continue;
            int rc = run_wave(e, w);
            if (rc)
                return rc;
            waiting += w->at_barrier;
        }
        if (!waiting)
            return MGS_OK; /* every wave ended */
        /* All live waves wait: release the barrier. */
        for (uint32_t i = 0; i < wg->nwaves; i++)
            e->waves[i].at_barrier = false;
    }
}

int gcn_emu_run_workgroup(gcn_emu *e, const uint32_t wg_id[3])
{
    gcn_emu_start_workgroup(e, wg_id);
    return gcn_emu_finish_workgroup(e);
}
