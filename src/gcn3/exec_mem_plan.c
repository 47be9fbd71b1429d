/*
** Two-phase memory semantics (design note: exec_mem_plan.h): FLAT (GCN3
** ISA ch. 10, table 12.16), MUBUF (ch. 8, table 12.14) and SMEM (ch. 7,
** table 12.6).
**
** FLAT addresses are 64-bit per lane; the high 32 bits select an aperture
** (emu.h). Private (scratch) bytes are swizzled like MUBUF scratch (element
** size 4, index stride 64): byte o of lane l lives at
**   private_base + (FLAT_SCRATCH_HI << 8) + (o / 4) * 256 + l * 4 + o % 4
** so each dword of a private access is its own element address.
** MUBUF addresses follow the buffer resource (ISA 8.1.8) with the swizzled
** or linear formula of ISA 8.1.5; out-of-range lanes (raw buffers:
** offset >= num_records; structured: index >= num_records) read 0 and drop
** writes, as on hardware. Format conversion and LDS-direct loads are not
** modelled (MGS_EUNSUPPORTED).
**
** Order: accesses are performed lane 0..63 (element by element inside a
** lane), so for conflicting stores the highest lane wins and atomics of
** one instruction apply in lane order, in both modes.
*/
#include "gcn3/exec_mem_plan.h"

#include "gcn3/emu.h"
#include "gcn3/emu_atomic.h"
#include "gcn3/exec.h"
#include "mgsim/errors.h"

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Fills kind / sizes of a FLAT or MUBUF op; false if not a memory op we
** model. */
static bool describe_vector(unsigned op, gcn_mem_plan *p)
{
    p->elem_bytes = 4;
    p->nelem = 1;
    p->sign = 0;
    switch (op) {
    case GCN_OP_FLAT_LOAD_UBYTE: case GCN_OP_BUFFER_LOAD_UBYTE:
        p->kind = GCN_MEM_LOAD; p->elem_bytes = 1; return true;
    case GCN_OP_FLAT_LOAD_SBYTE: case GCN_OP_BUFFER_LOAD_SBYTE:
        p->kind = GCN_MEM_LOAD; p->elem_bytes = 1; p->sign = 1; return true;
    case GCN_OP_FLAT_LOAD_USHORT: case GCN_OP_BUFFER_LOAD_USHORT:
        p->kind = GCN_MEM_LOAD; p->elem_bytes = 2; return true;
    case GCN_OP_FLAT_LOAD_SSHORT: case GCN_OP_BUFFER_LOAD_SSHORT:
        p->kind = GCN_MEM_LOAD; p->elem_bytes = 2; p->sign = 1; return true;
    case GCN_OP_FLAT_LOAD_DWORD: case GCN_OP_BUFFER_LOAD_DWORD:
        p->kind = GCN_MEM_LOAD; return true;
    case GCN_OP_FLAT_LOAD_DWORDX2: case GCN_OP_BUFFER_LOAD_DWORDX2:
        p->kind = GCN_MEM_LOAD; p->nelem = 2; return true;
    case GCN_OP_FLAT_LOAD_DWORDX3: case GCN_OP_BUFFER_LOAD_DWORDX3:
        p->kind = GCN_MEM_LOAD; p->nelem = 3; return true;
    case GCN_OP_FLAT_LOAD_DWORDX4: case GCN_OP_BUFFER_LOAD_DWORDX4:
        p->kind = GCN_MEM_LOAD; p->nelem = 4; return true;
    case GCN_OP_FLAT_STORE_BYTE: case GCN_OP_BUFFER_STORE_BYTE:
        p->kind = GCN_MEM_STORE; p->elem_bytes = 1; return true;
    case GCN_OP_FLAT_STORE_SHORT: case GCN_OP_BUFFER_STORE_SHORT:
        p->kind = GCN_MEM_STORE; p->elem_bytes = 2; return true;
    case GCN_OP_FLAT_STORE_DWORD: case GCN_OP_BUFFER_STORE_DWORD:
        p->kind = GCN_MEM_STORE; return true;
    case GCN_OP_FLAT_STORE_DWORDX2: case GCN_OP_BUFFER_STORE_DWORDX2:
        p->kind = GCN_MEM_STORE; p->nelem = 2; return true;
    case GCN_OP_FLAT_STORE_DWORDX3: case GCN_OP_BUFFER_STORE_DWORDX3:
        p->kind = GCN_MEM_STORE; p->nelem = 3; return true;
    case GCN_OP_FLAT_STORE_DWORDX4: case GCN_OP_BUFFER_STORE_DWORDX4:
        p->kind = GCN_MEM_STORE; p->nelem = 4; return true;
    case GCN_OP_BUFFER_WBINVL1: case GCN_OP_BUFFER_WBINVL1_VOL:
        p->kind = GCN_MEM_NONE; return true;
    default:
        break;
    }
    gcn_atomic_kind k = gcn_atomic_kind_of(op);
    if (k == GCN_ATOMIC_NONE)
        return false;
    p->kind = GCN_MEM_ATOMIC;
    /* The 64-bit forms are the _x2 opcodes. */
    p->elem_bytes = strstr(gcn_op_table[op].mnemonic, "_x2") ? 8 : 4;
    p->nelem = 1;
    p->atomic_op = (uint16_t)op;
    return true;
}

static inline uint32_t *vrow(gcn_wave *w, unsigned code)
{
    return gcn_vreg(w, code - GCN_OPR_VGPR0);
}

/* Reads the atomic operand (and compare value) of one lane from the data
** registers: {src, cmp}, each atomic_size bytes (ISA 12.16 / 12.14). */
static inline void atomic_operands(gcn_wave *w, unsigned data, unsigned lane,
                                   gcn_mem_plan *p)
{
    unsigned n = p->elem_bytes / 4;
    p->data[0][lane] = vrow(w, data)[lane];
    p->data[1][lane] = n == 2 ? vrow(w, data + 1)[lane] : 0;
    bool cmpswap = gcn_atomic_kind_of(p->atomic_op) == GCN_ATOMIC_CMPSWAP;
    p->data[2][lane] = cmpswap ? vrow(w, data + n)[lane] : 0;
    p->data[3][lane] = cmpswap && n == 2 ? vrow(w, data + n + 1)[lane] : 0;
}

/* Store data of one lane: element e is VGPR data + e (sub-dword: low
** bytes of data). */
static inline void store_operands(gcn_wave *w, unsigned data, unsigned lane,
                                  gcn_mem_plan *p)
{
    for (unsigned e = 0; e < p->nelem; e++)
        p->data[e][lane] = vrow(w, data + e)[lane];
}

/* ---- FLAT ---- */

static int lds_fault(const gcn_exec_ctx *ctx, uint64_t addr, unsigned n,
                     bool write)
{
    return mgs_error_set(MGS_EFAULT,
                         "LDS fault at address 0x%llx (%s of %u bytes, LDS "
                         "size %u)", (unsigned long long)addr,
                         write ? "write" : "read", n, ctx->lds_size);
}

/* Performs one lane of a FLAT access that targets the group aperture
** (LDS, inside the CU) right away. */
static int flat_lds_lane(gcn_wave *w, gcn_mem_plan *p, unsigned lane,
                         uint32_t a)
{
    const gcn_exec_ctx *ctx = w->ctx;
    unsigned size = p->kind == GCN_MEM_ATOMIC ? p->elem_bytes
                                               : p->elem_bytes * p->nelem;
    if ((uint64_t)a + size > ctx->lds_size)
        return lds_fault(ctx, a, size, p->kind != GCN_MEM_LOAD);
    uint8_t *m = ctx->lds + a;
    if (p->kind == GCN_MEM_LOAD) {
        for (unsigned e = 0; e < p->nelem; e++) {
            uint32_t v = 0;
            memcpy(&v, m + e * p->elem_bytes, p->elem_bytes);
            p->data[e][lane] = v;
        }
    } else if (p->kind == GCN_MEM_STORE) {
        for (unsigned e = 0; e < p->nelem; e++)
            memcpy(m + e * p->elem_bytes, &p->data[e][lane], p->elem_bytes);
    } else {
        uint64_t cur = 0;
        memcpy(&cur, m, size);
        uint64_t src = p->data[0][lane] | (uint64_t)p->data[1][lane] << 32;
        uint64_t cmp = p->data[2][lane] | (uint64_t)p->data[3][lane] << 32;
        uint64_t next = gcn_atomic_apply(gcn_atomic_kind_of(p->atomic_op),
                                         size, cur, src, cmp);
        memcpy(m, &next, size);
        p->data[0][lane] = (uint32_t)cur;
        p->data[1][lane] = (uint32_t)(cur >> 32);
    }
    return MGS_OK;
}

static int plan_flat(gcn_wave *w, const gcn_inst *in, gcn_mem_plan *p)
{
    const gcn_exec_ctx *ctx = w->ctx;
    const uint32_t *lo = vrow(w, in->addr), *hi = vrow(w, in->addr + 1);
    const uint64_t exec = w->exec;
    const unsigned eb = p->elem_bytes;
    const bool atomic = p->kind == GCN_MEM_ATOMIC;
    p->dst = in->dst;
    p->ret_lanes = p->kind == GCN_MEM_LOAD || (atomic && in->glc) ? exec : 0;

    /* Fast path (the common case): no active lane in the LDS or private
    ** aperture. Whole rows, no per-lane branches; inactive lanes get
    ** harmless values that nothing reads. */
    if (!atomic) {
        /* Any lane, active or not, in an aperture sends the instruction to
        ** the exact per-lane path below: branch-free 32-bit compares
        ** vectorise, and inactive lanes rarely hold aperture addresses. */
        uint32_t special = 0;
        for (unsigned l = 0; l < GCN_WAVE_LANES; l++)
            special |= (uint32_t)(hi[l] == GCN_EMU_APERTURE_GROUP_HI) |
                       (uint32_t)(hi[l] == GCN_EMU_APERTURE_PRIVATE_HI);
        if (!special) {
            for (unsigned l = 0; l < GCN_WAVE_LANES; l++)
                p->addr[0][l] = lo[l] | (uint64_t)hi[l] << 32;
            for (unsigned e = 1; e < p->nelem; e++)
                for (unsigned l = 0; l < GCN_WAVE_LANES; l++)
                    p->addr[e][l] = p->addr[0][l] + (uint64_t)e * eb;
            if (p->kind == GCN_MEM_STORE)
                for (unsigned e = 0; e < p->nelem; e++)
                    memcpy(p->data[e], vrow(w, in->data0 + e),
                           sizeof p->data[e]);
            p->mem_lanes = exec;
            return MGS_OK;
        }
    }
    uint64_t mem = 0;
    for (uint64_t m = exec; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctzll(m);
        uint64_t a = lo[lane] | (uint64_t)hi[lane] << 32;
        uint32_t ap = (uint32_t)(a >> 32);
        if (p->kind == GCN_MEM_STORE)
            store_operands(w, in->data0, lane, p);
        else if (atomic)
            atomic_operands(w, in->data0, lane, p);
        if (ap == GCN_EMU_APERTURE_GROUP_HI) {
            int rc = flat_lds_lane(w, p, lane, (uint32_t)a);
            if (rc)
                return rc;
            continue;
        }
        mem |= 1ull << lane;
        if (ap == GCN_EMU_APERTURE_PRIVATE_HI) {
            uint64_t off = (uint32_t)a;
            unsigned span = atomic ? eb : eb * p->nelem;
            /* Each dword of a lane is 256 B from the next: only naturally
            ** aligned accesses of at most a dword per element fit. */
            if (off % 4 + (eb < 4 ? eb : 4) > 4 || (span >= 4 && off % 4) ||
                eb > 4)
                return mgs_error_set(MGS_EUNSUPPORTED,
                                     "misaligned private (scratch) access at "
                                     "0x%llx", (unsigned long long)a);
            uint64_t base = ctx->private_base +
                            ((uint64_t)w->sgpr[GCN_OPR_FLAT_SCR_HI] << 8);
            for (unsigned e = 0; e < p->nelem; e++) {
                uint64_t o = off + (uint64_t)e * eb;
                p->addr[e][lane] = base + (o / 4) * 4 * GCN_WAVE_LANES +
                                   lane * 4 + o % 4;
            }
            continue;
        }
        for (unsigned e = 0; e < p->nelem; e++)
            p->addr[e][lane] = a + (uint64_t)e * eb;
    }
    p->mem_lanes = mem;
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

static int plan_mubuf(gcn_wave *w, const gcn_inst *in, gcn_mem_plan *p)
{
    if (in->lds || in->addr64)
        return MGS_EUNSUPPORTED;
    buf_rsrc r;
    read_rsrc(w, in->srsrc, &r);
    uint32_t soffset = gcn_read_s32(w, in->soffset, in->literal);
    /* Address VGPRs exist only as far as idxen/offen use them (checked). */
    const uint32_t *v0 = in->idxen || in->offen ? vrow(w, in->addr) : NULL;
    const uint32_t *v1 = in->idxen && in->offen ? vrow(w, in->addr + 1)
                                                : v0;
    const bool structured = r.stride != 0 || in->idxen || r.add_tid;
    const bool atomic = p->kind == GCN_MEM_ATOMIC;
    const uint64_t exec = w->exec;
    p->dst = in->data0; /* loads and returning atomics write vdata */
    p->ret_lanes = p->kind == GCN_MEM_LOAD || (atomic && in->glc) ? exec : 0;
    uint64_t mem = 0;
    for (uint64_t m = exec; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctzll(m);
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
        if (p->kind == GCN_MEM_STORE)
            store_operands(w, in->data0, lane, p);
        else if (atomic)
            atomic_operands(w, in->data0, lane, p);
        if (!in_range) {
            /* Loads (and atomic returns) of an out-of-range lane give 0. */
            for (unsigned e = 0; e < GCN_MEM_PLAN_ELEMS; e++)
                p->data[e][lane] = 0;
            continue;
        }
        mem |= 1ull << lane;
        /* One element (dword or sub-dword) at a time: swizzling may put
        ** consecutive dwords far apart. */
        for (unsigned e = 0; e < p->nelem; e++)
            p->addr[e][lane] = buf_addr(&r, soffset, index, offset + 4 * e);
    }
    p->mem_lanes = mem;
    return MGS_OK;
}

/* Every VGPR the instruction reads or writes lies inside the wave's
** allocation (a mutated or hostile kernel may name v254 with 16
** allocated): address, data (stores, atomics: twice for compare-swap)
** and destination (loads, returning atomics). */
static int vector_regs_fit(const gcn_wave *w, const gcn_inst *in,
                           const gcn_mem_plan *p)
{
    bool atomic = p->kind == GCN_MEM_ATOMIC;
    unsigned rows = atomic ? p->elem_bytes / 4u : p->nelem;
    unsigned naddr = in->fmt == GCN_FMT_FLAT ? 2
                     : in->idxen && in->offen ? 2
                     : in->idxen || in->offen ? 1 : 0;
    unsigned data = in->data0;
    unsigned dst = in->fmt == GCN_FMT_FLAT ? in->dst : in->data0;
    int rc = 0;
    if (naddr)
        rc = gcn_vgprs_fit(w, in->addr, naddr, "address");
    if (!rc && p->kind == GCN_MEM_STORE)
        rc = gcn_vgprs_fit(w, data, rows, "store data");
    if (!rc && atomic) {
        bool cmpswap =
            gcn_atomic_kind_of(in->op) == GCN_ATOMIC_CMPSWAP;
        rc = gcn_vgprs_fit(w, data, cmpswap ? 2 * rows : rows,
                           "atomic data");
    }
    if (!rc && (p->kind == GCN_MEM_LOAD || (atomic && in->glc)))
        rc = gcn_vgprs_fit(w, dst, rows, "destination");
    if (!rc && in->fmt == GCN_FMT_MUBUF && in->srsrc < 102)
        rc = gcn_sgprs_fit(w, in->srsrc, 4, "buffer resource");
    return rc;
}

int gcn_mem_plan_vector(gcn_wave *w, const gcn_inst *in, gcn_mem_plan *p)
{
    p->scalar = 0;
    p->glc = in->glc;
    p->slc = in->slc;
    p->atomic_op = 0;
    p->mem_lanes = p->ret_lanes = 0;
    if (!describe_vector(in->op, p))
        return MGS_EUNSUPPORTED;
    if (p->kind == GCN_MEM_NONE) {
        p->returns = 0;
        return MGS_OK;
    }
    int rc = vector_regs_fit(w, in, p);
    if (rc)
        return rc;
    rc = in->fmt == GCN_FMT_FLAT    ? plan_flat(w, in, p)
         : in->fmt == GCN_FMT_MUBUF ? plan_mubuf(w, in, p)
                                    : MGS_EUNSUPPORTED;
    p->returns = p->ret_lanes != 0;
    return rc;
}

/* ---- SMEM ---- */

int gcn_mem_plan_scalar(gcn_wave *w, const gcn_inst *in, gcn_mem_plan *p)
{
    unsigned n;
    bool store = false, buffer = false;
    p->scalar = 1;
    p->glc = in->glc;
    p->slc = 0;
    p->sign = 0;
    p->atomic_op = 0;
    p->elem_bytes = 4;
    p->nelem = 1;
    p->mem_lanes = p->ret_lanes = 0;
    p->returns = 0;
    switch (in->op) {
    case GCN_OP_S_LOAD_DWORD: n = 1; break;
    case GCN_OP_S_LOAD_DWORDX2: n = 2; break;
    case GCN_OP_S_LOAD_DWORDX4: n = 4; break;
    case GCN_OP_S_LOAD_DWORDX8: n = 8; break;
    case GCN_OP_S_LOAD_DWORDX16: n = 16; break;
    case GCN_OP_S_BUFFER_LOAD_DWORD: n = 1; buffer = true; break;
    case GCN_OP_S_BUFFER_LOAD_DWORDX2: n = 2; buffer = true; break;
    case GCN_OP_S_BUFFER_LOAD_DWORDX4: n = 4; buffer = true; break;
    case GCN_OP_S_BUFFER_LOAD_DWORDX8: n = 8; buffer = true; break;
    case GCN_OP_S_BUFFER_LOAD_DWORDX16: n = 16; buffer = true; break;
    case GCN_OP_S_STORE_DWORD: n = 1; store = true; break;
    case GCN_OP_S_STORE_DWORDX2: n = 2; store = true; break;
    case GCN_OP_S_STORE_DWORDX4: n = 4; store = true; break;
    case GCN_OP_S_BUFFER_STORE_DWORD: n = 1; store = buffer = true; break;
    case GCN_OP_S_BUFFER_STORE_DWORDX2: n = 2; store = buffer = true; break;
    case GCN_OP_S_BUFFER_STORE_DWORDX4: n = 4; store = buffer = true; break;
    case GCN_OP_S_DCACHE_INV:
    case GCN_OP_S_DCACHE_WB:
    case GCN_OP_S_DCACHE_INV_VOL:
    case GCN_OP_S_DCACHE_WB_VOL:
    case GCN_OP_S_MEMTIME:
    case GCN_OP_S_MEMREALTIME:
        p->kind = GCN_MEM_NONE;
        return MGS_OK;
    default:
        return MGS_EUNSUPPORTED;
    }
    /* ISA 12.6: address = base + offset, dword aligned; the offset is the
    ** immediate when imm = 1, else the SGPR in soffset. */
    int rc = 0;
    if (in->addr < 102)
        rc = gcn_sgprs_fit(w, in->addr, buffer ? 4 : 2,
                           buffer ? "buffer resource" : "base address");
    if (!rc && in->data0 < 102)
        rc = gcn_sgprs_fit(w, in->data0, n,
                           store ? "store data" : "destination");
    if (rc)
        return rc;
    uint64_t base = gcn_read_s64(w, in->addr, 0, false);
    if (buffer) /* V# dwords 0-1: base address bits 47:0 */
        base &= 0xffffffffffffull;
    uint64_t off = in->imm ? in->offset : gcn_read_s32(w, in->soffset, 0);
    uint64_t addr = (base + off) & ~3ull;
    p->kind = store ? GCN_MEM_STORE : GCN_MEM_LOAD;
    p->dst = in->data0;
    p->mem_lanes = n == 64 ? ~0ull : (1ull << n) - 1;
    p->ret_lanes = store ? 0 : p->mem_lanes;
    p->returns = !store;
    for (unsigned i = 0; i < n; i++) {
        p->addr[0][i] = addr + 4 * i;
        if (store)
            p->data[0][i] = gcn_read_s32(w, in->data0 + i, 0);
    }
    return MGS_OK;
}

int gcn_mem_plan_inst(gcn_wave *w, const gcn_inst *in, gcn_mem_plan *p)
{
    return in->fmt == GCN_FMT_SMEM ? gcn_mem_plan_scalar(w, in, p)
                                   : gcn_mem_plan_vector(w, in, p);
}

/* ---- emu-mode access ---- */

/* Lane-major run: lane l's elements are consecutive (addr[e][l] =
** addr[0][l] + 4e) and lane l+1 follows lane l. Such runs (a coalesced
** dwordxN access) are one mem_ops call. */
/* Every active lane's dwords inside one host span (ops->span): copied
** lane by lane, elements in order (the order the per-lane path writes
** them). Returns 1 if done, 0 if the lanes do not fit one span. */
static int access_span(gcn_mem_plan *p, const gcn_mem_ops *ops, void *mem,
                       bool load)
{
    const unsigned ne = p->nelem;
    uint64_t lo = UINT64_MAX, hi = 0;
    if (ne == 1 && p->mem_lanes == ~0ull) { /* the common case, vectorised */
        const uint64_t *a = p->addr[0];
        for (unsigned l = 0; l < GCN_WAVE_LANES; l++) {
            lo = a[l] < lo ? a[l] : lo;
            hi = a[l] > hi ? a[l] : hi;
        }
        if (hi - lo >= 4096)
            return 0;
        uint8_t *base = ops->span(mem, lo, (size_t)(hi - lo) + 4, !load);
        if (!base)
            return 0;
        uint32_t *d = p->data[0];
        if (load)
            for (unsigned l = 0; l < GCN_WAVE_LANES; l++)
                memcpy(&d[l], base + (a[l] - lo), 4);
        else
            for (unsigned l = 0; l < GCN_WAVE_LANES; l++)
                memcpy(base + (a[l] - lo), &d[l], 4);
        return 1;
    }
    for (unsigned e = 0; e < ne; e++)
        for (uint64_t m = p->mem_lanes; m; m &= m - 1) {
            uint64_t a = p->addr[e][__builtin_ctzll(m)];
            lo = a < lo ? a : lo;
            hi = a > hi ? a : hi;
        }
    if (hi - lo >= 4096) /* no host block is larger */
        return 0;
    uint8_t *base = ops->span(mem, lo, (size_t)(hi - lo) + 4, !load);
    if (!base)
        return 0;
    for (uint64_t m = p->mem_lanes; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        for (unsigned e = 0; e < ne; e++) {
            uint8_t *b = base + (p->addr[e][l] - lo);
            if (load)
                memcpy(&p->data[e][l], b, 4);
            else
                memcpy(b, &p->data[e][l], 4);
        }
    }
    return 1;
}

static int access_dwords(gcn_mem_plan *p, const gcn_mem_ops *ops, void *mem)
{
    const unsigned ne = p->nelem, bytes = 4 * ne;
    const bool load = p->kind == GCN_MEM_LOAD;
    const uint64_t lanes = p->mem_lanes;
    uint32_t buf[GCN_WAVE_LANES * GCN_MEM_PLAN_ELEMS];
    unsigned lane = 0;
    if (ops->span && access_span(p, ops, mem, load))
        return MGS_OK;
    if (ne == 1) { /* runs of lanes with consecutive dwords */
        const uint64_t *a = p->addr[0];
        while (lane < GCN_WAVE_LANES) {
            if (!((lanes >> lane) & 1)) {
                lane++;
                continue;
            }
            unsigned first = lane++;
            while (lane < GCN_WAVE_LANES && ((lanes >> lane) & 1) &&
                   a[lane] == a[lane - 1] + 4)
                lane++;
            size_t total = (size_t)(lane - first) * 4;
            int rc = load ? ops->read(mem, a[first], &p->data[0][first], total)
                          : ops->write(mem, a[first], &p->data[0][first],
                                       total);
            if (rc)
                return rc;
        }
        return MGS_OK;
    }
    while (lane < GCN_WAVE_LANES) {
        if (!((lanes >> lane) & 1)) {
            lane++;
            continue;
        }
        bool inner = true;
        for (unsigned e = 1; e < ne; e++)
            inner &= p->addr[e][lane] == p->addr[0][lane] + 4 * e;
        if (!inner) { /* scattered elements (swizzled or private) */
            for (unsigned e = 0; e < ne; e++) {
                int rc = load ? ops->read(mem, p->addr[e][lane],
                                          &p->data[e][lane], 4)
                              : ops->write(mem, p->addr[e][lane],
                                           &p->data[e][lane], 4);
                if (rc)
                    return rc;
            }
            lane++;
            continue;
        }
        unsigned first = lane++;
        while (lane < GCN_WAVE_LANES && ((lanes >> lane) & 1) &&
               p->addr[0][lane] == p->addr[0][lane - 1] + bytes) {
            bool ok = true;
            for (unsigned e = 1; e < ne; e++)
                ok &= p->addr[e][lane] == p->addr[0][lane] + 4 * e;
            if (!ok)
                break;
            lane++;
        }
        unsigned n = lane - first;
        uint64_t a0 = p->addr[0][first];
        size_t total = (size_t)n * bytes;
        int rc;
        if (ne == 1) {
            rc = load ? ops->read(mem, a0, &p->data[0][first], total)
                      : ops->write(mem, a0, &p->data[0][first], total);
            if (rc)
                return rc;
            continue;
        }
        if (!load)
            for (unsigned e = 0; e < ne; e++)
                for (unsigned l = 0; l < n; l++)
                    buf[l * ne + e] = p->data[e][first + l];
        rc = load ? ops->read(mem, a0, buf, total)
                  : ops->write(mem, a0, buf, total);
        if (rc)
            return rc;
        if (load)
            for (unsigned e = 0; e < ne; e++)
                for (unsigned l = 0; l < n; l++)
                    p->data[e][first + l] = buf[l * ne + e];
    }
    return MGS_OK;
}

int gcn_mem_plan_access(gcn_mem_plan *p, const gcn_mem_ops *ops, void *mem)
{
    if (p->kind == GCN_MEM_NONE || !p->mem_lanes)
        return MGS_OK;
    if (p->kind != GCN_MEM_ATOMIC && p->elem_bytes == 4)
        return access_dwords(p, ops, mem);
    for (uint64_t m = p->mem_lanes; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctzll(m);
        int rc;
        if (p->kind == GCN_MEM_ATOMIC) {
            uint64_t src = p->data[0][lane] | (uint64_t)p->data[1][lane] << 32;
            uint64_t cmp = p->data[2][lane] | (uint64_t)p->data[3][lane] << 32;
            uint64_t old = 0;
            rc = ops->atomic(mem, p->addr[0][lane], p->atomic_op,
                             p->elem_bytes, src, cmp, &old);
            p->data[0][lane] = (uint32_t)old;
            p->data[1][lane] = (uint32_t)(old >> 32);
        } else if (p->kind == GCN_MEM_LOAD) {
            uint32_t v = 0;
            rc = ops->read(mem, p->addr[0][lane], &v, p->elem_bytes);
            p->data[0][lane] = v;
        } else {
            rc = ops->write(mem, p->addr[0][lane], &p->data[0][lane],
                            p->elem_bytes);
        }
        if (rc)
            return rc;
    }
    return MGS_OK;
}

/* ---- bounds ---- */

/* The AND of a[0..63] and the OR of b[0..63]. */
static inline void lanes_and_or(const uint64_t *a, const uint64_t *b,
                                uint64_t *and_out, uint64_t *or_out)
{
#ifdef __SSE2__
    __m128i x = _mm_set1_epi64x(-1), y = _mm_setzero_si128();
    for (unsigned l = 0; l < GCN_WAVE_LANES; l += 2) {
        x = _mm_and_si128(x, _mm_loadu_si128((const __m128i *)(a + l)));
        y = _mm_or_si128(y, _mm_loadu_si128((const __m128i *)(b + l)));
    }
    uint64_t xs[2], ys[2];
    _mm_storeu_si128((__m128i *)xs, x);
    _mm_storeu_si128((__m128i *)ys, y);
    *and_out = xs[0] & xs[1];
    *or_out = ys[0] | ys[1];
#else
    uint64_t x = UINT64_MAX, y = 0;
    for (unsigned l = 0; l < GCN_WAVE_LANES; l++) {
        x &= a[l];
        y |= b[l];
    }
    *and_out = x;
    *or_out = y;
#endif
}

bool gcn_mem_plan_past_end(const gcn_mem_plan *p, const gcn_mem_ops *ops,
                           void *mem, gcn_past_end *out)
{
    if (p->kind == GCN_MEM_NONE || !p->mem_lanes || !ops->alloc_end)
        return false;
    /* Bytes per lane: SMEM's lanes are dwords; atomics one element. */
    unsigned rows = p->scalar || p->kind == GCN_MEM_ATOMIC ? 1 : p->nelem;
    unsigned bytes = p->scalar ? 4 : p->elem_bytes;
    /* A lane's elements lie at increasing addresses (consecutive, or
    ** 256 B apart in the private aperture), so the lowest address is in
    ** row 0 and the highest in the last row: one lookup when the whole
    ** span [lo, hi] lies in lo's allocation (the usual case). Allocations
    ** start on a page, so lo may be any address of the span's first
    ** page; with every lane active, the AND of the addresses (<= the
    ** lowest) and their OR (>= the highest) bound the span without
    ** compares (the loop vectorises). */
    const uint64_t *first = p->addr[0], *last = p->addr[rows - 1];
    uint64_t lo = UINT64_MAX, hi = 0;
    if (p->mem_lanes == ~0ull) {
        lanes_and_or(first, last, &lo, &hi);
    } else {
        for (uint64_t m = p->mem_lanes; m; m &= m - 1) {
            unsigned l = (unsigned)__builtin_ctzll(m);
            lo = first[l] < lo ? first[l] : lo;
            hi = last[l] > hi ? last[l] : hi;
        }
    }
    uint64_t end = ops->alloc_end(mem, lo);
    if (end && hi + bytes <= end)
        return false;
    for (unsigned e = 0; e < rows; e++)
        for (uint64_t m = p->mem_lanes; m; m &= m - 1) {
            uint64_t a = p->addr[e][__builtin_ctzll(m)];
            uint64_t ae = ops->alloc_end(mem, a);
            if (ae && a + bytes > ae) {
                out->addr = ae;
                out->bytes = bytes;
                out->write = p->kind != GCN_MEM_LOAD;
                return true;
            }
        }
    return false;
}

int gcn_mem_plan_bounds_fault(const gcn_mem_plan *p, const gcn_mem_ops *ops,
                              void *mem)
{
    gcn_past_end f;
    if (!gcn_mem_plan_past_end(p, ops, mem, &f))
        return MGS_OK;
    return mgs_error_set(MGS_EFAULT, "memory fault at address 0x%llx (%s of "
                         "%u bytes)", (unsigned long long)f.addr,
                         f.write ? "write" : "read", f.bytes);
}

void gcn_mem_plan_note_past_end(const gcn_mem_plan *p, const gcn_wave *w,
                                const gcn_mem_ops *ops, void *mem,
                                gcn_past_end *note)
{
    gcn_past_end f;
    if (!gcn_mem_plan_past_end(p, ops, mem, &f) ||
        __atomic_exchange_n(&note->seen, 1u, __ATOMIC_ACQ_REL))
        return;
    note->addr = f.addr;
    note->bytes = f.bytes;
    note->write = f.write;
    note->pc = w->pc;
    memcpy(note->wg, w->wg_id, sizeof note->wg);
    note->wave = w->wave_id;
}

/* ---- completion ---- */

int gcn_mem_plan_run(gcn_wave *w, gcn_mem_plan *p)
{
    const gcn_exec_ctx *ctx = w->ctx;
    /* The bounds rule as in timing mode (cu_issue.c): a fault reported
    ** per lane, or the launch's first such access noted for a warning. */
    int rc = gcn_mem_plan_bounds(p, w, ctx->mem_ops, ctx->mem,
                                 ctx->strict_bounds, ctx->past_end);
    if (rc == MGS_OK)
        rc = gcn_mem_plan_access(p, ctx->mem_ops, ctx->mem);
    if (rc == MGS_OK)
        gcn_mem_plan_complete(w, p);
    return rc;
}

void gcn_mem_plan_complete(gcn_wave *w, const gcn_mem_plan *p)
{
    if (!p->returns)
        return;
    const uint64_t lanes = p->ret_lanes;
    if (p->scalar) {
        unsigned n = (unsigned)__builtin_popcountll(lanes);
        if (p->dst + n <= 102) {
            memcpy(&w->sgpr[p->dst], p->data[0], n * 4);
        } else {
            for (unsigned i = 0; i < n; i++)
                gcn_write_s32(w, p->dst + i, p->data[0][i]);
        }
        return;
    }
    unsigned nrows = p->kind == GCN_MEM_ATOMIC ? p->elem_bytes / 4 : p->nelem;
    for (unsigned e = 0; e < nrows; e++) {
        uint32_t *row = vrow(w, p->dst + e);
        const uint32_t *src = p->data[e];
        if (p->elem_bytes < 4) {
            /* Only the low elem_bytes of data are defined. */
            for (uint64_t m = lanes; m; m &= m - 1) {
                unsigned l = (unsigned)__builtin_ctzll(m);
                uint32_t v = p->elem_bytes == 1 ? src[l] & 0xffu
                                                : src[l] & 0xffffu;
                if (p->sign)
                    v = p->elem_bytes == 1 ? (uint32_t)(int32_t)(int8_t)v
                                           : (uint32_t)(int32_t)(int16_t)v;
                row[l] = v;
            }
        } else if (lanes == ~0ull) {
            memcpy(row, src, GCN_WAVE_LANES * 4);
        } else {
            for (uint64_t m = lanes; m; m &= m - 1) {
                unsigned l = (unsigned)__builtin_ctzll(m);
                row[l] = src[l];
            }
        }
    }
}
