/*
** Vector memory semantics: FLAT (GCN3 ISA manual ch. 10 "Flat Memory
** Instructions", table 12.16) and MUBUF (ch. 8 "Vector Memory Operations",
** table 12.14), per active lane, through the executor's gcn_mem_ops.
**
** FLAT addresses are 64-bit per lane. The high 32 bits select an aperture
** (emu.h): GCN_EMU_APERTURE_GROUP_HI -> the work-group's LDS,
** GCN_EMU_APERTURE_PRIVATE_HI -> the wave's scratch, anything else ->
** global memory. Private addresses are swizzled like MUBUF scratch (element
** size 4, index stride 64): byte o of lane l lives at
**   private_base + (FLAT_SCRATCH_HI << 8) + (o / 4) * 256 + l * 4 + o % 4
** so FLAT and buffer views of one private variable agree.
**
** MUBUF addresses come from the buffer resource (ISA 8.1.8) with the
** swizzled or linear formula of ISA 8.1.5; out-of-range accesses (raw
** buffers: offset >= num_records; structured: index >= num_records) read
** 0 and drop writes, as on hardware. Format conversion (buffer_load_format)
** and LDS-direct loads are not modelled (MGS_EUNSUPPORTED).
**
** Fast path: global FLAT dword-multiple accesses go to memory as runs of
** lanes with consecutive addresses, one mem_ops call per run (one for a
** fully coalesced wave) instead of one per lane. A faulting run may leave
** earlier runs' stores done, like a fault on hardware.
**
** Lanes are processed in order 0..63: for conflicting stores the highest
** lane wins; atomics from one instruction are applied in lane order.
*/
#include "gcn3/emu.h"
#include "gcn3/emu_atomic.h"
#include "gcn3/exec.h"

#include "mgsim/errors.h"

#include <string.h>

typedef enum mem_kind { MK_LOAD, MK_STORE, MK_ATOMIC, MK_NOP } mem_kind;

typedef struct mem_desc {
    mem_kind kind;
    unsigned size;      /* bytes of a sub-dword access, else 4 */
    unsigned dwords;    /* dwords per lane (data or return) */
    bool sign;          /* sign-extending sub-dword load */
    unsigned asize;     /* atomic operand size: 4 or 8 */
    bool cmpswap;
} mem_desc;

static bool describe(unsigned op, mem_desc *d)
{
    memset(d, 0, sizeof *d);
    d->size = 4;
    d->dwords = 1;
    switch (op) {
    case GCN_OP_FLAT_LOAD_UBYTE: case GCN_OP_BUFFER_LOAD_UBYTE:
        d->kind = MK_LOAD; d->size = 1; return true;
    case GCN_OP_FLAT_LOAD_SBYTE: case GCN_OP_BUFFER_LOAD_SBYTE:
        d->kind = MK_LOAD; d->size = 1; d->sign = true; return true;
    case GCN_OP_FLAT_LOAD_USHORT: case GCN_OP_BUFFER_LOAD_USHORT:
        d->kind = MK_LOAD; d->size = 2; return true;
    case GCN_OP_FLAT_LOAD_SSHORT: case GCN_OP_BUFFER_LOAD_SSHORT:
        d->kind = MK_LOAD; d->size = 2; d->sign = true; return true;
    case GCN_OP_FLAT_LOAD_DWORD: case GCN_OP_BUFFER_LOAD_DWORD:
        d->kind = MK_LOAD; return true;
    case GCN_OP_FLAT_LOAD_DWORDX2: case GCN_OP_BUFFER_LOAD_DWORDX2:
        d->kind = MK_LOAD; d->dwords = 2; return true;
    case GCN_OP_FLAT_LOAD_DWORDX3: case GCN_OP_BUFFER_LOAD_DWORDX3:
        d->kind = MK_LOAD; d->dwords = 3; return true;
    case GCN_OP_FLAT_LOAD_DWORDX4: case GCN_OP_BUFFER_LOAD_DWORDX4:
        d->kind = MK_LOAD; d->dwords = 4; return true;
    case GCN_OP_FLAT_STORE_BYTE: case GCN_OP_BUFFER_STORE_BYTE:
        d->kind = MK_STORE; d->size = 1; return true;
    case GCN_OP_FLAT_STORE_SHORT: case GCN_OP_BUFFER_STORE_SHORT:
        d->kind = MK_STORE; d->size = 2; return true;
    case GCN_OP_FLAT_STORE_DWORD: case GCN_OP_BUFFER_STORE_DWORD:
        d->kind = MK_STORE; return true;
    case GCN_OP_FLAT_STORE_DWORDX2: case GCN_OP_BUFFER_STORE_DWORDX2:
        d->kind = MK_STORE; d->dwords = 2; return true;
    case GCN_OP_FLAT_STORE_DWORDX3: case GCN_OP_BUFFER_STORE_DWORDX3:
        d->kind = MK_STORE; d->dwords = 3; return true;
    case GCN_OP_FLAT_STORE_DWORDX4: case GCN_OP_BUFFER_STORE_DWORDX4:
        d->kind = MK_STORE; d->dwords = 4; return true;
    case GCN_OP_BUFFER_WBINVL1: case GCN_OP_BUFFER_WBINVL1_VOL:
        d->kind = MK_NOP; return true;
    default:
        break;
    }
    gcn_atomic_kind k = gcn_atomic_kind_of(op);
    if (k == GCN_ATOMIC_NONE)
        return false;
    d->kind = MK_ATOMIC;
    /* The 64-bit forms are the _x2 opcodes. */
    d->asize = strstr(gcn_op_table[op].mnemonic, "_x2") ? 8 : 4;
    d->dwords = d->asize / 4;
    d->cmpswap = k == GCN_ATOMIC_CMPSWAP;
    return true;
}

static inline uint32_t *vrow(gcn_wave *w, unsigned code)
{
    return gcn_vreg(w, code - GCN_OPR_VGPR0);
}

/* ---- per-lane access through an aperture ---- */

static int lds_fault(const gcn_exec_ctx *ctx, uint64_t addr, unsigned n,
                     bool write)
{
    return mgs_error_set(MGS_EFAULT,
                         "LDS fault at address 0x%llx (%s of %u bytes, LDS "
                         "size %u)", (unsigned long long)addr,
                         write ? "write" : "read", n, ctx->lds_size);
}

/* Scratch VA of byte `off` of lane `lane`'s private memory (swizzled). */
static inline uint64_t private_va(const gcn_wave *w, unsigned lane,
                                  uint64_t off)
{
    const gcn_exec_ctx *ctx = w->ctx;
    uint64_t wave_base = ctx->private_base +
                         ((uint64_t)w->sgpr[GCN_OPR_FLAT_SCR_HI] << 8);
    return wave_base + (off / 4) * 4 * GCN_WAVE_LANES + lane * 4 + off % 4;
}

/* Reads or writes n bytes of a FLAT address for one lane. */
static int flat_rw(gcn_wave *w, unsigned lane, uint64_t addr, void *buf,
                   unsigned n, bool write)
{
    const gcn_exec_ctx *ctx = w->ctx;
    uint32_t hi = (uint32_t)(addr >> 32);
    if (hi == GCN_EMU_APERTURE_GROUP_HI) {
        uint32_t a = (uint32_t)addr;
        if ((uint64_t)a + n > ctx->lds_size)
            return lds_fault(ctx, a, n, write);
        if (write)
            memcpy(ctx->lds + a, buf, n);
        else
            memcpy(buf, ctx->lds + a, n);
        return MGS_OK;
    }
    if (hi == GCN_EMU_APERTURE_PRIVATE_HI) {
        /* Split at dword boundaries: consecutive dwords are 256 B apart. */
        uint64_t off = (uint32_t)addr;
        uint8_t *b = buf;
        while (n) {
            unsigned chunk = 4 - (unsigned)(off % 4);
            if (chunk > n)
                chunk = n;
            uint64_t va = private_va(w, lane, off);
            int rc = write ? ctx->mem_ops->write(ctx->mem, va, b, chunk)
                           : ctx->mem_ops->read(ctx->mem, va, b, chunk);
            if (rc)
                return rc;
            off += chunk;
            b += chunk;
            n -= chunk;
        }
        return MGS_OK;
    }
    return write ? ctx->mem_ops->write(ctx->mem, addr, buf, n)
                 : ctx->mem_ops->read(ctx->mem, addr, buf, n);
}

static int flat_atomic(gcn_wave *w, unsigned lane, uint64_t addr, unsigned op,
                       unsigned size, uint64_t src, uint64_t cmp,
                       uint64_t *old)
{
    const gcn_exec_ctx *ctx = w->ctx;
    uint32_t hi = (uint32_t)(addr >> 32);
    if (hi == GCN_EMU_APERTURE_GROUP_HI || hi == GCN_EMU_APERTURE_PRIVATE_HI) {
        /* LDS and scratch are private to this wave/work-group: a plain
        ** read-modify-write is atomic in the functional model. */
        uint64_t cur = 0;
        int rc = flat_rw(w, lane, addr, &cur, size, false);
        if (rc)
            return rc;
        uint64_t next = gcn_atomic_apply(gcn_atomic_kind_of(op), size, cur,
                                         src, cmp);
        *old = cur;
        return flat_rw(w, lane, addr, &next, size, true);
    }
    return ctx->mem_ops->atomic(ctx->mem, addr, op, size, src, cmp, old);
}

/* ---- data movement between VGPRs and a lane's bytes ---- */

static inline void gather_lane(gcn_wave *w, unsigned data, unsigned lane,
                               const mem_desc *d, uint8_t *buf)
{
    if (d->size < 4) {
        uint32_t v = vrow(w, data)[lane];
        memcpy(buf, &v, d->size);
        return;
    }
    for (unsigned i = 0; i < d->dwords; i++)
        memcpy(buf + 4 * i, &vrow(w, data + i)[lane], 4);
}

static inline void scatter_lane(gcn_wave *w, unsigned dst, unsigned lane,
                                const mem_desc *d, const uint8_t *buf)
{
    if (d->size < 4) {
        uint32_t v = 0;
        memcpy(&v, buf, d->size);
        if (d->sign)
            v = d->size == 1 ? (uint32_t)(int32_t)(int8_t)v
                             : (uint32_t)(int32_t)(int16_t)v;
        vrow(w, dst)[lane] = v;
        return;
    }
    for (unsigned i = 0; i < d->dwords; i++)
        memcpy(&vrow(w, dst + i)[lane], buf + 4 * i, 4);
}

/* ---- FLAT ---- */

static inline bool is_global(uint64_t a)
{
    uint32_t hi = (uint32_t)(a >> 32);
    return hi != GCN_EMU_APERTURE_GROUP_HI && hi != GCN_EMU_APERTURE_PRIVATE_HI;
}

/* The coalesced case: global dword-multiple loads and stores are split
** into runs of active lanes with consecutive addresses, and each run is
** one mem_ops call (a fully coalesced wave is one call; a 16-wide tile row
** is four). Lanes of other apertures fall back to per-lane access. */
static int flat_runs(gcn_wave *w, const gcn_inst *in, const mem_desc *d,
                     const uint64_t *addr)
{
    const gcn_exec_ctx *ctx = w->ctx;
    const unsigned dw = d->dwords, bytes = 4 * dw;
    const uint64_t exec = w->exec;
    const bool load = d->kind == MK_LOAD;
    const unsigned reg = load ? in->dst : in->data0;
    uint32_t buf[GCN_WAVE_LANES * 4];
    unsigned lane = 0;
    while (lane < GCN_WAVE_LANES) {
        if (!((exec >> lane) & 1)) {
            lane++;
            continue;
        }
        unsigned first = lane++;
        while (lane < GCN_WAVE_LANES && ((exec >> lane) & 1) &&
               addr[lane] == addr[lane - 1] + bytes)
            lane++;
        unsigned n = lane - first;
        uint64_t a0 = addr[first];
        size_t total = (size_t)n * bytes;
        int rc;
        if (!is_global(a0) || !is_global(a0 + total - 1)) {
            for (unsigned l = first; l < lane; l++) {
                uint8_t one[16];
                if (!load)
                    gather_lane(w, reg, l, d, one);
                if ((rc = flat_rw(w, l, addr[l], one, bytes, !load)))
                    return rc;
                if (load)
                    scatter_lane(w, reg, l, d, one);
            }
            continue;
        }
        if (dw == 1) {
            uint32_t *row = vrow(w, reg) + first;
            rc = load ? ctx->mem_ops->read(ctx->mem, a0, row, total)
                      : ctx->mem_ops->write(ctx->mem, a0, row, total);
            if (rc)
                return rc;
            continue;
        }
        if (!load)
            for (unsigned i = 0; i < dw; i++) {
                const uint32_t *row = vrow(w, reg + i) + first;
                for (unsigned l = 0; l < n; l++)
                    buf[l * dw + i] = row[l];
            }
        rc = load ? ctx->mem_ops->read(ctx->mem, a0, buf, total)
                  : ctx->mem_ops->write(ctx->mem, a0, buf, total);
        if (rc)
            return rc;
        if (load)
            for (unsigned i = 0; i < dw; i++) {
                uint32_t *row = vrow(w, reg + i) + first;
                for (unsigned l = 0; l < n; l++)
                    row[l] = buf[l * dw + i];
            }
    }
    return MGS_OK;
}

static int exec_flat(gcn_wave *w, const gcn_inst *in, const mem_desc *d)
{
    uint64_t addr[GCN_WAVE_LANES];
    const uint32_t *lo = vrow(w, in->addr), *hi = vrow(w, in->addr + 1);
    for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++)
        addr[lane] = lo[lane] | (uint64_t)hi[lane] << 32;
    int rc = MGS_OK;
    if (d->size == 4 && d->kind != MK_ATOMIC)
        return flat_runs(w, in, d, addr);
    unsigned bytes = d->size < 4 ? d->size : 4 * d->dwords;
    for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++) {
        if (!((w->exec >> lane) & 1))
            continue;
        uint8_t buf[16] = {0};
        if (d->kind == MK_LOAD) {
            if ((rc = flat_rw(w, lane, addr[lane], buf, bytes, false)))
                return rc;
            scatter_lane(w, in->dst, lane, d, buf);
        } else if (d->kind == MK_STORE) {
            gather_lane(w, in->data0, lane, d, buf);
            if ((rc = flat_rw(w, lane, addr[lane], buf, bytes, true)))
                return rc;
        } else {
            /* FLAT cmpswap data: {src, cmp}, each asize bytes (ISA 12.16). */
            const uint32_t *s0 = vrow(w, in->data0);
            uint64_t src = s0[lane], cmp = 0, old = 0;
            unsigned n = d->dwords;
            if (n == 2)
                src |= (uint64_t)vrow(w, in->data0 + 1)[lane] << 32;
            if (d->cmpswap) {
                cmp = vrow(w, in->data0 + n)[lane];
                if (n == 2)
                    cmp |= (uint64_t)vrow(w, in->data0 + n + 1)[lane] << 32;
            }
            if ((rc = flat_atomic(w, lane, addr[lane], in->op, d->asize, src,
                                  cmp, &old)))
                return rc;
            if (in->glc) {
                vrow(w, in->dst)[lane] = (uint32_t)old;
                if (n == 2)
                    vrow(w, in->dst + 1)[lane] = (uint32_t)(old >> 32);
            }
        }
    }
    return MGS_OK;
}

/* ---- MUBUF ---- */

typedef struct buf_rsrc {
    uint64_t base;
    uint32_t stride, num_records, elem, idx_stride;
    bool swizzle, add_tid;
} buf_rsrc;

static void read_rsrc(const gcn_wave *w, unsigned s, buf_rsrc *r)
{
    uint32_t v0 = w->sgpr[s & 127], v1 = w->sgpr[(s + 1) & 127],
             v2 = w->sgpr[(s + 2) & 127], v3 = w->sgpr[(s + 3) & 127];
    r->base = v0 | (uint64_t)(v1 & 0xffffu) << 32;
    r->stride = (v1 >> 16) & 0x3fffu;
    r->swizzle = (v1 >> 31) & 1;
    r->num_records = v2;
    r->elem = 2u << ((v3 >> 19) & 3);
    r->idx_stride = 8u << ((v3 >> 21) & 3);
    r->add_tid = (v3 >> 23) & 1;
}

/* ISA 8.1.5 address of byte `offset` of record `index`. */
static inline uint64_t buf_addr(const buf_rsrc *r, uint32_t soffset,
                                uint64_t index, uint64_t offset)
{
    if (r->swizzle) {
        uint64_t imsb = index / r->idx_stride, ilsb = index % r->idx_stride;
        uint64_t omsb = offset / r->elem, olsb = offset % r->elem;
        return r->base + soffset +
               (imsb * r->stride + omsb * r->elem) * r->idx_stride +
               ilsb * r->elem + olsb;
    }
    return r->base + soffset + index * r->stride + offset;
}

static int exec_mubuf(gcn_wave *w, const gcn_inst *in, const mem_desc *d)
{
    const gcn_exec_ctx *ctx = w->ctx;
    if (in->lds || in->addr64)
        return MGS_EUNSUPPORTED;
    buf_rsrc r;
    read_rsrc(w, in->srsrc, &r);
    uint32_t soffset = gcn_read_s32(w, in->soffset, in->literal);
    const uint32_t *v0 = vrow(w, in->addr), *v1 = vrow(w, in->addr + 1);
    bool structured = r.stride != 0 || in->idxen || r.add_tid;
    unsigned elem_bytes = d->size < 4 ? d->size : 4;
    unsigned n = d->size < 4 ? 1 : d->dwords;
    int rc;
    for (unsigned lane = 0; lane < GCN_WAVE_LANES; lane++) {
        if (!((w->exec >> lane) & 1))
            continue;
        uint64_t index = 0, voff = 0;
        if (in->idxen && in->offen) {
            index = v0[lane];
            voff = v1[lane];
        } else if (in->idxen) {
            index = v0[lane];
        } else if (in->offen) {
            voff = v0[lane];
        }
        if (r.add_tid)
            index += lane;
        uint64_t offset = voff + in->offset;
        bool in_range = structured ? index < r.num_records
                                   : offset < r.num_records;
        if (d->kind == MK_ATOMIC) {
            uint64_t src = vrow(w, in->data0)[lane], cmp = 0, old = 0;
            if (d->dwords == 2)
                src |= (uint64_t)vrow(w, in->data0 + 1)[lane] << 32;
            if (d->cmpswap) {
                cmp = vrow(w, in->data0 + d->dwords)[lane];
                if (d->dwords == 2)
                    cmp |= (uint64_t)vrow(w, in->data0 + 3)[lane] << 32;
            }
            if (in_range &&
                (rc = ctx->mem_ops->atomic(ctx->mem,
                                           buf_addr(&r, soffset, index, offset),
                                           in->op, d->asize, src, cmp, &old)))
                return rc;
            if (in->glc) {
                vrow(w, in->data0)[lane] = (uint32_t)old;
                if (d->dwords == 2)
                    vrow(w, in->data0 + 1)[lane] = (uint32_t)(old >> 32);
            }
            continue;
        }
        /* One element (dword or sub-dword) at a time: swizzling may put
        ** consecutive dwords far apart. */
        for (unsigned i = 0; i < n; i++) {
            uint64_t a = buf_addr(&r, soffset, index, offset + 4 * i);
            uint32_t v = 0;
            if (d->kind == MK_LOAD) {
                if (in_range &&
                    (rc = ctx->mem_ops->read(ctx->mem, a, &v, elem_bytes)))
                    return rc;
                if (d->sign)
                    v = elem_bytes == 1 ? (uint32_t)(int32_t)(int8_t)v
                                        : (uint32_t)(int32_t)(int16_t)v;
                vrow(w, in->data0 + i)[lane] = v;
            } else {
                v = vrow(w, in->data0 + i)[lane];
                if (in_range &&
                    (rc = ctx->mem_ops->write(ctx->mem, a, &v, elem_bytes)))
                    return rc;
            }
        }
    }
    return MGS_OK;
}

int gcn_exec_mem(gcn_wave *w, const gcn_inst *in)
{
    mem_desc d;
    if (!describe(in->op, &d))
        return MGS_EUNSUPPORTED;
    if (d.kind == MK_NOP)
        return MGS_OK;
    if (in->fmt == GCN_FMT_FLAT)
        return exec_flat(w, in, &d);
    if (in->fmt == GCN_FMT_MUBUF)
        return exec_mubuf(w, in, &d);
    return MGS_EUNSUPPORTED;
}
