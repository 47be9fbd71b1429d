/*
** Compute unit internals shared by cu.c (component, work-group and wave
** life cycle), cu_issue.c (fetch and issue arbiters, execution units) and
** cu_mem.c (vector/scalar memory units, responses, in-order retirement).
** Not for other modules: they see only cu.h.
**
** Storage is allocated at cu_new (wave slots, work-group records, plan
** pool, coalescer scratch) or grown when a launch needs more VGPRs or LDS
** than any earlier one (a work-group start, not the per-instruction path).
**
** Invariants:
**   - A wave is in exactly one SIMD list (c->simd[s]->waves) from its
**     work-group start until the work-group finishes; lists are in age
**     order, and wv->list_pos is its index there.
**   - wv->nops memory operations are outstanding; vm_out / lgkm_out count
**     those holding each counter; an op is retired (registers written,
**     counters decremented) only after every older op that holds one of
**     the same counters retired (the in-order counter semantics that
**     s_waitcnt relies on).
**   - At most one instruction fetch per wave is in flight (fetch_inflight);
**     a response whose epoch is stale (the wave branched meanwhile) is
**     dropped.
**   - A work-group finishes (CU_WG_DONE) only when each of its waves ended
**     (s_endpgm or an error) with no memory operation and no fetch in
**     flight, so no response can reach a reused slot.
*/
#ifndef MGS_GPU_CU_INT_H
#define MGS_GPU_CU_INT_H

#include <stddef.h>

#include "gcn3/exec_mem_plan.h"
#include "gpu/coalescer.h"
#include "gpu/cu.h"

#define CU_WAVE_MAX_OPS 32      /* memory ops in flight per wave */
#define CU_VM_MAX 15            /* vmcnt field (4 bits): issue stalls beyond */
#define CU_LGKM_MAX 15          /* lgkmcnt field (4 bits) */
#define CU_WAKE_EVENTS 4

/* cu.work bits: inputs that may need a step this tick. Set when a message
** arrives (notify_recv) or an instruction enters a memory queue; cleared
** by the tick once the input is empty. The tick tests one word instead of
** four ports and two queues (six host cache lines) every cycle. */
enum {
    CU_WORK_INST = 1u << 0,     /* fetch responses in c->inst */
    CU_WORK_VMEM_RSP = 1u << 1, /* responses in c->vmem.port */
    CU_WORK_SMEM_RSP = 1u << 2, /* responses in c->smem.port */
    CU_WORK_CTRL = 1u << 3,     /* CP messages in c->ctrl */
    CU_WORK_VMEM_Q = 1u << 4,   /* c->vmem.qcount > 0 */
    CU_WORK_SMEM_Q = 1u << 5    /* c->smem.qcount > 0 */
};

typedef enum cu_wstate {
    CU_W_READY,    /* issues when its instruction is buffered and busy ends */
    CU_W_WAITCNT,  /* s_waitcnt not satisfied yet */
    CU_W_BARRIER,  /* at s_barrier */
    CU_W_ENDED,    /* s_endpgm or error: drains, then finishes */
    CU_W_FREE      /* slot unused */
} cu_wstate;

typedef enum cu_unit {
    CU_U_VALU, CU_U_SALU, CU_U_BRANCH, CU_U_VMEM, CU_U_SMEM, CU_U_LDS,
    CU_U_INTERNAL, /* s_waitcnt, s_barrier, s_endpgm, s_nop: scheduler */
    CU_U_COUNT
} cu_unit;

struct cu_wave;

typedef struct cu_memop {
    struct cu_wave *wave;
    gcn_mem_plan *plan;    /* vector/scalar memory; NULL for LDS */
    uint64_t ready_cycle;  /* LDS: when it completes */
    uint64_t pc;           /* of the instruction (messages) */
    uint64_t fault_addr;
    uint32_t pending;      /* requests not answered */
    uint8_t vm, lgkm;      /* counters held */
    uint8_t done;          /* all data back */
    uint8_t fault;
    uint8_t in_use;
    uint8_t inval;         /* a cache invalidation (buffer_wbinvl1*,
                              s_dcache_inv*): one MEM_INVALIDATE, no plan */
} cu_memop;

typedef struct cu_wg {
    cp_msg *msg;           /* the CU_MAP_WG, answered at the end */
    const gpu_launch *launch;
    gcn_workgroup wg;      /* id, size, nwaves (wave.h's gcn_workgroup) */
    gcn_exec_ctx ctx;      /* LDS and code for the semantics */
    uint8_t *lds;          /* grown to the largest launch (owned) */
    uint32_t lds_cap;
    uint8_t simd_of_wave[GCN_EMU_MAX_WAVES];
    struct cu_wave *waves[GCN_EMU_MAX_WAVES];
    uint32_t finished;     /* waves drained */
    uint32_t at_barrier;   /* live waves waiting at s_barrier */
    uint32_t ended;        /* waves that executed s_endpgm or halted */
    int status;            /* MGS_OK or the first error */
    char err[512];         /* its message */
    bool in_use;
} cu_wg;

typedef struct cu_wave {
    /* What the fetch and issue arbiters read for every wave of a SIMD every
    ** cycle comes first: these 56 bytes and w.pc (gcn_wave's first field)
    ** fill exactly one 64-byte host cache line (waves are allocated
    ** 128-aligned); those scans were bound by cache misses. The buffer
    ** bounds are code offsets (the domain of w.pc), so the scans need not
    ** read code_va; prog copies wg->launch's, saving two dependent loads. */
    _Alignas(128) cu_wstate state;
    uint8_t fetch_inflight;
    uint8_t fetch_stalled; /* fetch_stall_since is set (issue waits for a
                              fetch); tested here, in the hot line */
    uint8_t fetch_want;    /* = cu_wave_wants_fetch, counted in
                              cu_simd.fetch_want (cu_wave_sched_update) */
    uint64_t busy_until;   /* cycle its non-memory instruction completes */
    /* instruction buffer: code offsets [ib_start, ib_end) are buffered;
    ** fetch_next is the next line to fetch (code_va is fetch_line-aligned,
    ** so offset lines are address lines) */
    uint64_t ib_start, ib_end, fetch_next;
    uint64_t last_fetch;   /* cycle of its last fetch (oldest-first) */
    const gcn_emu_program *prog; /* = wg->launch->emu.prog */
    gcn_wave w;            /* architectural state (functional model) */
    uint64_t code_va;      /* = wg->launch->code_va */
    cu_wg *wg;
    uint32_t *vgpr_store;  /* owned, vgpr_cap words */
    size_t vgpr_cap;
    uint32_t simd;
    uint32_t list_pos;     /* index in c->simd[simd]->waves */
    uint64_t age;          /* dispatch order (oldest first) */
    uint64_t state_since;  /* cycle it entered WAITCNT / BARRIER */
    uint64_t fetch_stall_since; /* cycle it started waiting for fetch
                                   (valid while fetch_stalled) */
    uint8_t wait_vm, wait_lgkm;
    uint32_t fetch_epoch;
    bool finished;
    /* memory operations, in issue order: order[0..nops) index ops[] */
    cu_memop ops[CU_WAVE_MAX_OPS];
    uint8_t order[CU_WAVE_MAX_OPS];
    uint32_t nops;
    uint32_t vm_out, lgkm_out;
} cu_wave;

/* A memory pipeline: the vector memory unit (to L1V) or the scalar one
** (to L1S). Instructions wait in a queue; the head is coalesced into line
** requests (scratch reqs) and sent at reqs_per_cycle. */
typedef struct cu_memunit {
    sim_port port;
    mem_route route;
    bool routed;
    uint32_t flags;        /* MEM_F_SCALAR for the scalar unit */
    cu_memop **queue;      /* ring of queue_cap */
    uint32_t qhead, qcount, queue_cap;
    cu_coal_req *reqs;     /* CU_COAL_MAX (owned) */
    uint32_t nreq, sent;
    bool coalesced;
    uint64_t next_start;   /* cycle the unit can take a new instruction */
    uint32_t inflight, max_inflight, issue_cycles, per_cycle;
    stat_hist *reqs_per_inst;
    bool own_hist;         /* reqs_per_inst allocated here (no registry) */
} cu_memunit;

/* One SIMD: its live waves in age order, its VALU, and the summaries the
** fetch and issue arbiters and the idle check read instead of the waves
** (cu_wave_sched_update). One allocation per SIMD: this header, then
** issue_at[], fetch_key[] and waves[] (wf_slots_per_simd entries each),
** so that a turn reads a few adjacent host cache lines. Entry i of each
** array belongs to waves[i] (its list_pos). */
typedef struct cu_simd {
    uint32_t nwaves;
    uint32_t nready;       /* entries of issue_at below UINT64_MAX */
    uint32_t fetch_want;   /* waves with fetch_want set: the fetch arbiter
                              looks at a SIMD only when one wants a fetch */
    uint64_t busy_until;   /* cycle its VALU takes a new instruction */
    uint64_t *fetch_key;   /* the wave's last_fetch while it wants a fetch,
                              else UINT64_MAX: the arbiter's choice without
                              reading the waves */
    struct cu_wave **waves;
    uint64_t issue_at[];   /* the wave's busy_until while READY, else
                              UINT64_MAX: the scans skip waves that cannot
                              issue without reading them */
} cu_simd;

typedef struct cu_stats {
    stat_counter *wf_insts, *valu, *salu, *vmem, *smem, *lds, *branch,
        *internal;
    stat_counter *cycles_busy, *cycles_issue, *cycles_no_issue;
    stat_counter *stall_waitcnt, *stall_barrier, *stall_fetch,
        *stall_vmem_backpressure;
    stat_counter *wgs, *wavefronts, *fetches, *vmem_reqs, *smem_reqs;
    stat_counter own[22];
} cu_stats;

struct cu {
    sim_comp base;         /* FIRST */
    /* Fields every tick reads come first, together (64 CUs' worth of
    ** per-tick state does not fit the host's L1; fewer lines, fewer
    ** misses). */
    mgs_time cycle_time;      /* cu_cycle's memo: time and its cycle */
    uint64_t cycle;
    mgs_time period;          /* = cfg.period */
    uint64_t last_cycle;      /* last tick's cycle (busy-cycle accounting) */
    uint32_t work;            /* CU_WORK_* */
    uint32_t resident;
    uint32_t lds_pending;     /* LDS operations not yet complete */
    uint32_t lds_head, lds_fifo_cap;
    uint32_t done_head, done_count;
    uint32_t fetch_inflight;  /* CU-wide */
    bool issued_this_cycle;
    bool vmem_refusing;       /* asleep with waves the vector memory unit
                                 refuses: their turns count as refusals */
    bool simd_pow2;           /* num_simds is a power of two */
    bool inst_routed;
    uint64_t lds_head_ready;  /* lds_ready[lds_head] while lds_pending: the
                                 per-cycle check reads only this line */
    uint64_t *lds_ready;      /* lds_fifo[i]->ready_cycle, kept here so that
                                 the pops do not touch the wave */
    cu_simd *simd[CU_MAX_SIMDS]; /* per SIMD: its waves and summaries */
    uint64_t lds_next_free;   /* cycle the LDS unit takes a new op */
    uint64_t vdec_free_at;    /* issue_mgpusim: cycle the CU's one vector
                                 decoder takes a new VALU instruction */
    uint32_t mgp_simd;        /* issue_mgpusim: the SIMD the arbiter is on */
    uint64_t wf_insts;
    /* Instructions a wave may execute (sim.max_wave_insts, as in emu
    ** mode): a wave spinning for ever on a flag nobody sets ends with
    ** MGS_EDEADLOCK instead of hanging the run. */
    uint64_t wave_inst_limit;
    cu_stats st;
    cu_config cfg;
    /* The rest. */
    mem_pool *pool;
    sim_port ctrl, inst;
    mem_route inst_route;
    cu_memunit vmem, smem;
    cu_res res;
    cu_wave *waves;        /* num_simds * wf_slots_per_simd slots */
    uint32_t nwaves_slots;
    cu_wg *wgs;            /* nwaves_slots records */
    cp_msg *map_blocked;   /* head CU_MAP_WG that did not fit ... */
    bool res_freed;        /* ... and whether resources were freed since */
    cp_msg **done_q;       /* CU_WG_DONE waiting for the ctrl lane */
    gcn_mem_plan *plans;   /* plan pool (owned) */
    gcn_mem_plan **plan_free;
    uint32_t nplans, plan_nfree;
    uint64_t next_age;
    cu_memop **lds_fifo;      /* LDS operations in issue order = completion
                                 order (a fixed latency); ring of
                                 lds_fifo_cap */
    sim_event wake[CU_WAKE_EVENTS];
    uint64_t wake_at[CU_WAKE_EVENTS];
};

/* The current cycle. Ticks come on consecutive edges most of the time, so
** the division is skipped when the time is one period after the last. */
static inline uint64_t cu_cycle(cu *c)
{
    mgs_time t = eng_now(c->base.eng);
    if (t != c->cycle_time) {
        c->cycle = t == c->cycle_time + c->period ? c->cycle + 1
                                                   : t / c->period;
        c->cycle_time = t;
    }
    return c->cycle;
}

/* The SIMD whose fetch and issue turn it is in cycle now. */
/* MGPUSim v4.0.0's CU pipeline (issue_mgpusim): cycles from issue until the
** wave is ready again, one tick per stage as its Run methods advance them
** (computeunit.go runPipeline, units before decoders before the
** scheduler). Scalar ALU: decoder, read, exec, write (scalarunit.go);
** scalar memory: decoder, read, exec (executeSMEMLoad sets it ready);
** branch: read, exec, write, no decoder (branchunit.go); LDS: decoder,
** read, exec, write, the result written at the end (ldsunit.go); vector
** memory: decoder, a 6-stage instruction pipeline, execute
** (cubuilder.go, vectormemoryunit.go). */
enum {
    MGP_SALU_READY = 4,
    MGP_SMEM_READY = 3,
    MGP_BRANCH_READY = 3,
    MGP_LDS_READY = 4,
    MGP_VMEM_READY = 8,
    /* A vector memory request then passes a 60-stage transaction
    ** pipeline, one per cycle, before it is sent (cubuilder.go). */
    MGP_VMEM_TRANSACTION_STAGES = 60,
};

static inline uint32_t cu_turn(const cu *c, uint64_t now)
{
    return c->simd_pow2 ? (uint32_t)now & (c->cfg.num_simds - 1)
                        : (uint32_t)(now % c->cfg.num_simds);
}

static inline uint64_t cu_wave_pc_va(const cu_wave *wv)
{
    return wv->code_va + wv->w.pc;
}

_Static_assert(offsetof(cu_wave, w) + offsetof(gcn_wave, pc) + 8 <= 64,
               "w.pc must share the first host cache line of cu_wave");

/* The unit of an instruction by its encoding: CU_U_SALU stands for all the
** scalar families (whose op decides between SALU, branch and the
** scheduler: cu_issue.c's unit_of); CU_U_COUNT for formats not executed. */
static inline cu_unit cu_unit_of_fmt(uint8_t fmt)
{
    switch ((gcn_fmt)fmt) {
    case GCN_FMT_SOPP: case GCN_FMT_SOP1: case GCN_FMT_SOP2:
    case GCN_FMT_SOPK: case GCN_FMT_SOPC:
        return CU_U_SALU;
    case GCN_FMT_SMEM:
        return CU_U_SMEM;
    case GCN_FMT_VOP1: case GCN_FMT_VOP2: case GCN_FMT_VOPC:
    case GCN_FMT_VOP3A: case GCN_FMT_VOP3B:
        return CU_U_VALU;
    case GCN_FMT_DS:
        return CU_U_LDS;
    case GCN_FMT_FLAT: case GCN_FMT_MUBUF:
        return CU_U_VMEM;
    default:
        return CU_U_COUNT;
    }
}

/* Whether the wave can take one more memory operation holding the given
** counters (32 in flight, each counter at most 15). */
static inline bool cu_mem_room(const cu_wave *wv, bool vm, bool lgkm)
{
    return wv->nops < CU_WAVE_MAX_OPS && (!vm || wv->vm_out < CU_VM_MAX) &&
           (!lgkm || wv->lgkm_out < CU_LGKM_MAX);
}

/* Whether the memory unit refuses the wave's vector (FLAT/MUBUF) or scalar
** memory instruction of format fmt now (back-pressure). Only a tick that
** makes progress (a response retires an operation, the unit takes its
** queue head) ends it, so a waiting wave needs no timer. The CU-wide
** conditions come first: they do not read the wave's counters (another
** host cache line). */
static inline bool cu_mem_refused(const cu *c, const cu_wave *wv,
                                  uint8_t fmt, bool vector)
{
    const cu_memunit *u = vector ? &c->vmem : &c->smem;
    return !u->routed || !c->plan_nfree || u->qcount == u->queue_cap ||
           !cu_mem_room(wv, vector, !vector || fmt == GCN_FMT_FLAT);
}

/* Whether the fetch arbiter may pick the wave (cu_fetch's per-wave test):
** it has not ended, has no fetch in flight, and its buffer has room for one
** more line once the lines behind the pc are dropped. Asked only of waves
** in a SIMD's list (never of a freed one). */
static inline bool cu_wave_wants_fetch(const cu *c, const cu_wave *wv)
{
    if (wv->state == CU_W_ENDED || wv->fetch_inflight)
        return false;
    const uint64_t line = c->cfg.fetch_line;
    uint64_t pc_line = wv->w.pc & ~(line - 1);
    uint64_t start = wv->ib_start > pc_line ? wv->ib_start : pc_line;
    return wv->fetch_next + line - start <= c->cfg.inst_buf_bytes;
}

/* Brings the wave's scheduling summaries up to date: fetch_want and its
** SIMD's count, its entries in issue_at (and nready) and fetch_key.
** Called wherever an input changes: the pc, the buffer bounds, the fetch
** in flight, the state, busy_until (after each issue, a release from
** s_waitcnt or s_barrier, a fetch sent or answered, the end of a wave).
** Not for a freed wave (it has left its SIMD's list). CU_CHECKS builds
** verify the summaries on every fetch and issue turn. */
static inline void cu_wave_sched_update(cu *c, cu_wave *wv)
{
    cu_simd *d = c->simd[wv->simd];
    const uint8_t want = cu_wave_wants_fetch(c, wv);
    if (want != wv->fetch_want) {
        wv->fetch_want = want;
        if (want)
            d->fetch_want++;
        else
            d->fetch_want--;
    }
    const uint64_t issue_at =
        wv->state == CU_W_READY ? wv->busy_until : UINT64_MAX;
    d->nready += (issue_at != UINT64_MAX) -
                 (d->issue_at[wv->list_pos] != UINT64_MAX);
    d->issue_at[wv->list_pos] = issue_at;
    d->fetch_key[wv->list_pos] = want ? wv->last_fetch : UINT64_MAX;
}

/* Consistency checks of the CU's incremental state against a full scan:
** on in the sanitizer build (the tests), off in the -O2 build
** (benchmarks), where they would cost what the state saves. */
#if defined(__SANITIZE_ADDRESS__)
#define CU_CHECKS 1
#else
#define CU_CHECKS 0
#endif

/* cu.c */
void cu_wave_end(cu *c, cu_wave *wv, int status, const char *msg);
void cu_wave_maybe_finish(cu *c, cu_wave *wv);
void cu_barrier_check(cu *c, cu_wg *g);

/* cu_issue.c */
bool cu_fetch(cu *c, uint64_t now);
bool cu_issue(cu *c, uint64_t now);
bool cu_take_fetch_responses(cu *c, uint64_t now);

/* cu_mem.c */
bool cu_memunit_run(cu *c, cu_memunit *u, uint64_t now);
bool cu_take_mem_responses(cu *c, cu_memunit *u, uint64_t now);
bool cu_retire_lds(cu *c, uint64_t now);
void cu_wave_retire(cu *c, cu_wave *wv, uint64_t now);
cu_memop *cu_memop_new(cu_wave *wv);
gcn_mem_plan *cu_plan_alloc(cu *c);
void cu_waitcnt_check(cu *c, cu_wave *wv, uint64_t now);
void cu_memunit_init(cu *c, cu_memunit *u, const char *name,
                     uint32_t queue_cap, uint32_t max_inflight,
                     uint32_t issue_cycles, uint32_t per_cycle,
                     uint32_t flags, stat_registry *stats,
                     const char *hist_name);
void cu_memunit_fini(cu_memunit *u);
bool cu_memunit_push(cu_memunit *u, cu_memop *op);

#endif
