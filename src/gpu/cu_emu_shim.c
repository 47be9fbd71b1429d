/*
** TEMPORARY: initial work-group and wave state for the CU, a copy of
** emu.c's setup (LLVM AMDGPUUsage "Initial Kernel Execution State") until
** emu.c exports gcn_emu_init_workgroup / gcn_emu_init_wave; then this file
** goes away and the CU calls the emulator's own code.
*/
#include "gpu/cu_int.h"

#include <string.h>

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

static void scratch_descriptor(const gcn_emu_launch *l, uint32_t v[4])
{
    v[0] = (uint32_t)l->scratch_va;
    v[1] = (uint32_t)(l->scratch_va >> 32) & 0xffffu;
    v[1] |= (l->private_size & 0x3fffu) << 16;
    v[1] |= 1u << 31;
    v[2] = 0xffffffffu;
    v[3] = (4u << 0) | (5u << 3) | (6u << 6) | (7u << 9);
    v[3] |= 4u << 15;
    v[3] |= 1u << 19;
    v[3] |= 3u << 21;
    v[3] |= 1u << 23;
}

void gcn_emu_init_wave(const gcn_emu_launch *l, gcn_workgroup *wg,
                       gcn_exec_ctx *ctx, uint32_t wi, gcn_wave *w)
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
    uint32_t wave_offset = wi * wave_scratch;
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
        w->sgpr[s++] = 0;
        w->sgpr[s++] = l->private_size;
    }
    if (k->sgpr_private_segment_size)
        w->sgpr[s++] = l->private_size;
    if (k->user_sgpr_count > s)
        s = k->user_sgpr_count;
    if (k->sgpr_workgroup_id_x)
        w->sgpr[s++] = wg->id[0];
    if (k->sgpr_workgroup_id_y)
        w->sgpr[s++] = wg->id[1];
    if (k->sgpr_workgroup_id_z)
        w->sgpr[s++] = wg->id[2];
    if (k->sgpr_workgroup_info)
        w->sgpr[s++] = wg->nwaves;
    if (k->sgpr_private_segment_wave_offset)
        w->sgpr[s++] = wave_offset;
    w->sgpr[GCN_OPR_FLAT_SCR_LO] = l->private_size;
    w->sgpr[GCN_OPR_FLAT_SCR_HI] = wave_offset >> 8;

    uint32_t nx = wg->size[0], ny = wg->size[1];
    uint32_t items = nx * ny * wg->size[2];
    uint32_t first = wi * GCN_WAVE_LANES;
    uint32_t lanes = items - first < GCN_WAVE_LANES ? items - first
                                                    : GCN_WAVE_LANES;
    w->exec = lanes == 64 ? ~0ull : (1ull << lanes) - 1;
    uint32_t *vx = gcn_vreg(w, 0), *vy = gcn_vreg(w, 1), *vz = gcn_vreg(w, 2);
    for (uint32_t i = 0; i < GCN_WAVE_LANES; i++) {
        uint32_t flat = first + i;
        uint32_t x = 0, y = 0, z = 0;
        if (i < lanes) {
            x = flat % nx;
            y = flat / nx % ny;
            z = flat / nx / ny;
        }
        vx[i] = x;
        if (k->vgpr_workitem_id >= 1)
            vy[i] = y;
        if (k->vgpr_workitem_id >= 2)
            vz[i] = z;
    }
}
