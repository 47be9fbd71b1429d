/*
** Test bed for the compute unit (tests/unit/gpu/test_cu*.c): one CU wired
** to
**   - tmem: a fixed-latency memory that answers MEM_READ / MEM_WRITE /
**     MEM_ATOMIC from a byte array after `latency` cycles (MEM_F_FAULT
**     outside it), and instruction fetches from the program bytes at
**     code_va; it records the cycle of the first write to every dword;
**   - tcp: a command processor stand-in that sends CU_MAP_WG messages and
**     collects CU_WG_DONE (status, cycle).
** Everything talks through one connection (1-cycle latency, 64 B/cycle,
** lanes of 16 messages or tb_init_lanes's). tmem answers in FIFO order,
** fetches after inst_latency if set. Also: hand-encoded instructions and
** stat_of, shared by the tests.
** Header-only so each test binary stays a single file plus this.
*/
#ifndef MGS_TEST_CU_TESTBED_H
#define MGS_TEST_CU_TESTBED_H

#include <stdlib.h>
#include <string.h>

#include "gcn3/emu.h"
#include "gcn3/emu_atomic.h"
#include "gpu/cu.h"
#include "mem/memmsg.h"
#include "mgsim/errors.h"
#include "sim/comp.h"
#include "sim/conn.h"
#include "sim/engine.h"
#include "sim/port.h"

/* Hand-encoded GCN3 instructions (checked against `mgsim disasm`). */
#define S_ENDPGM 0xbf810000u
#define S_BARRIER 0xbf8a0000u
#define S_NOP0 0xbf800000u
#define S_WAITCNT_VM0 0xbf8c0f70u
#define V_ADD_F32_V5_V5_V5 0x020a0b05u       /* v_add_f32 v5, v5, v5 */
#define V_MOV_V0_LIT 0x7e0002ffu             /* v_mov_b32 v0, lit */
#define V_MOV_V1_0 0x7e020280u               /* v_mov_b32 v1, 0 */
#define V_MOV_V2_0 0x7e040280u               /* v_mov_b32 v2, 0 */
#define V_MOV_V3_V0 0x7e060300u              /* v_mov_b32 v3, v0 */
#define V_READFIRSTLANE_S0_V0 0x7e000500u    /* v_readfirstlane_b32 s0, v0 */
#define S_CMP_EQ_U32_S0_0 0xbf068000u        /* s_cmp_eq_u32 s0, 0 */
#define S_CBRANCH_SCC0(n) (0xbf840000u | (n)) /* skip n dwords */
#define V_LSHLREV_V1_2_V0 0x24020082u        /* v_lshlrev_b32 v1, 2, v0 */
#define V_ADD_U32_V1_LIT_V1 0x320202ffu      /* v_add_u32 v1, vcc, lit, v1 */
#define FLAT_LOAD_V2_V01 0xdc500000u, 0x02000000u /* flat_load_dword v2, v[0:1] */
#define FLAT_STORE_V01_V2 0xdc700000u, 0x00000200u /* flat_store_dword v[0:1], v2 */
#define FLAT_STORE_V12_V3 0xdc700000u, 0x00000301u /* flat_store_dword v[1:2], v3 */
/* These three are checked by test_cu_sleep.c's results instead. */
#define V_LSHLREV_V1_4_V0 0x24020084u        /* v_lshlrev_b32 v1, 4, v0 */
#define S_SUB_U32_S0_S0_1 0x80808100u        /* s_sub_u32 s0, s0, 1 */
#define FLAT_STORE_X4_V12_V36 0xdc7c0000u, 0x00000301u
                               /* flat_store_dwordx4 v[1:2], v[3:6] */

#define TB_MEM_BASE 0x100000ull
#define TB_MEM_SIZE (1u << 20)
#define TB_CODE_VA 0x7000000ull
#define TB_QUEUE 4096

typedef struct tmem {
    sim_comp base;
    sim_port port;
    mem_pool *pool;
    uint64_t latency;                 /* cycles */
    uint64_t inst_latency;            /* fetches, if not 0 (else latency) */
    struct { mem_msg *req; uint64_t ready; } q[TB_QUEUE];
    uint32_t head, count;
    uint8_t *mem;                     /* TB_MEM_SIZE bytes at TB_MEM_BASE */
    uint64_t *first_write;            /* per dword; UINT64_MAX = never */
    const uint8_t *code;
    uint64_t code_size;
    uint64_t reads, writes, atomics, fetches;
} tmem;

static mem_msg *tmem_answer(tmem *t, mem_msg *req, uint64_t now)
{
    mem_msg *rsp = mem_msg_response(t->pool, req);
    if (req->flags & MEM_F_INST) {
        t->fetches++;
        for (uint32_t i = 0; i < req->size; i++) {
            uint64_t va = req->addr + i;
            rsp->data[i] = va >= TB_CODE_VA && va - TB_CODE_VA < t->code_size
                               ? t->code[va - TB_CODE_VA] : 0;
        }
        return rsp;
    }
    if (req->addr < TB_MEM_BASE ||
        req->addr + req->size > TB_MEM_BASE + TB_MEM_SIZE) {
        rsp->flags |= MEM_F_FAULT;
        return rsp;
    }
    uint8_t *m = t->mem + (req->addr - TB_MEM_BASE);
    switch (req->base.type) {
    case MEM_READ:
        t->reads++;
        memcpy(rsp->data, m, req->size);
        break;
    case MEM_WRITE:
        t->writes++;
        for (uint32_t i = 0; i < req->size; i++)
            if ((req->mask >> i) & 1) {
                m[i] = req->data[i];
                uint64_t dw = (req->addr + i - TB_MEM_BASE) / 4;
                if (t->first_write[dw] == UINT64_MAX)
                    t->first_write[dw] = now;
            }
        break;
    case MEM_ATOMIC: {
        t->atomics++;
        uint64_t old = 0;
        memcpy(&old, m, req->atomic_size);
        uint64_t nv = gcn_atomic_apply(gcn_atomic_kind_of(req->atomic_op),
                                       req->atomic_size, old, req->atomic_src,
                                       req->atomic_cmp);
        memcpy(m, &nv, req->atomic_size);
        memcpy(rsp->data, &old, req->atomic_size);
        break;
    }
    default:
        break;
    }
    return rsp;
}

static bool tmem_tick(sim_comp *c)
{
    tmem *t = (tmem *)c;
    uint64_t now = eng_now(c->eng) / c->period;
    bool progress = false;
    mem_msg *m;
    while (t->count < TB_QUEUE && (m = (mem_msg *)port_retrieve(&t->port))) {
        t->q[(t->head + t->count) % TB_QUEUE].req = m;
        t->q[(t->head + t->count) % TB_QUEUE].ready =
            now + (m->flags & MEM_F_INST && t->inst_latency ? t->inst_latency
                                                            : t->latency);
        t->count++;
        progress = true;
    }
    while (t->count && t->q[t->head].ready <= now &&
           port_can_send(&t->port)) {
        mem_msg *rsp = tmem_answer(t, t->q[t->head].req, now);
        if (port_send(&t->port, &rsp->base) != MGS_OK) {
            mem_msg_release(t->pool, rsp);
            break;
        }
        t->head = (t->head + 1) % TB_QUEUE;
        t->count--;
        progress = true;
    }
    return progress || t->count;
}

static const sim_comp_ops tmem_ops = {.kind = "TMem", .tick = tmem_tick};

typedef struct tcp {
    sim_comp base;
    sim_port port;
    sim_port *cu_port;
    cp_msg msgs[1024];
    uint32_t nmsgs, sent, done;
    int status[1024];
    uint64_t done_cycle[1024];
    uint64_t wf_insts;
    uint64_t start_cycle;     /* first cycle at which it sends */
} tcp;

static bool tcp_tick(sim_comp *c)
{
    tcp *p = (tcp *)c;
    bool progress = false;
    if (eng_now(c->eng) / c->period < p->start_cycle)
        return true; /* wait (ticking) until the start cycle */
    while (p->sent < p->nmsgs) {
        cp_msg *m = &p->msgs[p->sent];
        m->base.dst = p->cu_port;
        m->base.type = CU_MAP_WG;
        m->base.bytes = 32;
        if (port_send(&p->port, &m->base) != MGS_OK)
            break;
        p->sent++;
        progress = true;
    }
    cp_msg *m;
    while ((m = (cp_msg *)port_retrieve(&p->port))) {
        uint32_t i = (uint32_t)(m - p->msgs);
        p->status[i] = m->status;
        if (m->status != MGS_OK) /* as the CP passes it on */
            mgs_error_set(m->status, "%s", m->err);
        p->done_cycle[i] = eng_now(c->eng) / c->period;
        p->wf_insts += m->wf_insts;
        p->done++;
        progress = true;
    }
    return progress;
}

static const sim_comp_ops tcp_ops = {.kind = "TCP", .tick = tcp_tick};

typedef struct testbed {
    sim_engine *eng;
    mem_pool *pool;
    sim_conn *conn;
    stat_registry *stats;
    cu *cu;
    tmem mem;
    tcp cp;
    gcn_emu_program prog;
    gcn_kernel kernel;       /* for hand-built programs */
    gpu_launch launch;
} testbed;

/* lane_capacity: messages each port may have in flight on the connection
** (tb_init: 16). */
static void tb_init_lanes(testbed *tb, const cu_config *cfg, uint64_t latency,
                          uint32_t lane_capacity)
{
    memset(tb, 0, sizeof *tb);
    tb->eng = eng_new(NULL);
    tb->pool = mem_pool_new();
    tb->stats = stat_registry_new();
    sim_conn_config cc;
    conn_config_default(&cc);
    cc.lane_capacity = lane_capacity;
    tb->conn = conn_new(tb->eng, "Conn", &cc, NULL);
    tb->cu = cu_new(tb->eng, "CU[0]", cfg, tb->pool, tb->stats);
    comp_init(&tb->mem.base, tb->eng, &tmem_ops, "TMem", cfg->period);
    port_init(&tb->mem.port, &tb->mem.base, "top", 64);
    tb->mem.pool = tb->pool;
    tb->mem.latency = latency;
    tb->mem.mem = calloc(TB_MEM_SIZE, 1);
    tb->mem.first_write = malloc(TB_MEM_SIZE / 4 * sizeof(uint64_t));
    memset(tb->mem.first_write, 0xff, TB_MEM_SIZE / 4 * sizeof(uint64_t));
    comp_init(&tb->cp.base, tb->eng, &tcp_ops, "TCP", cfg->period);
    port_init(&tb->cp.port, &tb->cp.base, "port", 64);
    tb->cp.cu_port = cu_ctrl(tb->cu);
    conn_plug(tb->conn, cu_ctrl(tb->cu));
    conn_plug(tb->conn, cu_vmem(tb->cu));
    conn_plug(tb->conn, cu_smem(tb->cu));
    conn_plug(tb->conn, cu_inst(tb->cu));
    conn_plug(tb->conn, &tb->mem.port);
    conn_plug(tb->conn, &tb->cp.port);
    mem_route r;
    mem_route_single(&r, &tb->mem.port);
    cu_set_vmem_route(tb->cu, &r);
    cu_set_smem_route(tb->cu, &r);
    cu_set_inst_route(tb->cu, &r);
}

static void tb_init(testbed *tb, const cu_config *cfg, uint64_t latency)
{
    tb_init_lanes(tb, cfg, latency, 16);
}

/* A kernel descriptor for a hand-written program: v0 = work-item id x,
** no SGPR set-up. */
static void tb_hand_kernel(testbed *tb, const uint32_t *code, size_t nwords,
                           uint32_t vgprs)
{
    gcn_kernel *k = &tb->kernel;
    memset(k, 0, sizeof *k);
    strcpy(k->name, "handmade");
    k->code = (const uint8_t *)code;
    k->code_size = nwords * 4;
    k->code_vaddr = 0x1000;
    k->vgpr_count = vgprs;
    k->sgpr_count = 16;
    assert_int_equal(gcn_emu_program_init(&tb->prog, k), MGS_OK);
}

/* Sets up the launch of tb->prog over a 2-D grid and queues one CU_MAP_WG
** per work-group (row-major order of work-group ids). */
static void tb_launch2(testbed *tb, uint32_t gx, uint32_t gy, uint32_t bx,
                       uint32_t by, uint32_t lds, uint64_t kernarg_va,
                       uint64_t dispatch_va)
{
    gpu_launch *l = &tb->launch;
    const gcn_kernel *k = tb->prog.kernel;
    memset(l, 0, sizeof *l);
    l->emu = (gcn_emu_launch){
        .prog = &tb->prog, .grid = {gx, gy, 1}, .block = {bx, by, 1},
        .lds_bytes = lds, .kernarg_va = kernarg_va,
        .dispatch_va = dispatch_va};
    l->num_groups[0] = (gx + bx - 1) / bx;
    l->num_groups[1] = (gy + by - 1) / by;
    l->num_groups[2] = 1;
    l->total_groups = (uint64_t)l->num_groups[0] * l->num_groups[1];
    l->waves_per_group = (bx * by + 63) / 64;
    l->vgprs_per_wave = k->vgpr_count;
    l->sgprs_per_wave = k->sgpr_count ? k->sgpr_count : 16;
    l->lds_per_group = lds;
    l->code_va = TB_CODE_VA;
    tb->mem.code = tb->prog.code;
    tb->mem.code_size = tb->prog.code_size;
    for (uint32_t g = 0; g < l->total_groups; g++) {
        assert_true(tb->cp.nmsgs < 1024);
        cp_msg *m = &tb->cp.msgs[tb->cp.nmsgs++];
        memset(m, 0, sizeof *m);
        m->launch = l;
        m->wg_id[0] = g % l->num_groups[0];
        m->wg_id[1] = g / l->num_groups[0];
        m->wg_index = g;
    }
}

static void tb_launch(testbed *tb, uint32_t grid, uint32_t block,
                      uint32_t lds, uint64_t kernarg_va, uint64_t dispatch_va)
{
    tb_launch2(tb, grid, 1, block, 1, lds, kernarg_va, dispatch_va);
}

/* Runs to completion; returns the engine's status. */
static int tb_run(testbed *tb)
{
    comp_wake(&tb->cp.base);
    return eng_run(tb->eng);
}

static void tb_fini(testbed *tb)
{
    cu_free(tb->cu);
    port_fini(&tb->mem.port);
    comp_fini(&tb->mem.base);
    port_fini(&tb->cp.port);
    comp_fini(&tb->cp.base);
    conn_free(tb->conn);
    assert_int_equal(mem_pool_outstanding(tb->pool), 0);
    mem_pool_free(tb->pool);
    stat_registry_free(tb->stats);
    eng_free(tb->eng);
    free(tb->mem.mem);
    free(tb->mem.first_write);
    if (tb->prog.insts)
        gcn_emu_program_destroy(&tb->prog);
}

typedef struct tb_stat_find {
    const char *metric;
    double value;
    bool found;
} tb_stat_find;

static inline void tb_stat_row(const stat_row *row, void *ud)
{
    tb_stat_find *f = ud;
    if (!strcmp(row->metric, f->metric)) {
        f->value = row->value;
        f->found = true;
    }
}

/* The value of the CU's statistic metric (the test fails if it has none). */
static inline double stat_of(testbed *tb, const char *metric)
{
    tb_stat_find f = {.metric = metric};
    stat_registry_foreach(tb->stats, eng_now(tb->eng), tb_stat_row, &f);
    assert_true(f.found);
    return f.value;
}

static inline uint8_t *tb_ptr(testbed *tb, uint64_t va)
{
    return tb->mem.mem + (va - TB_MEM_BASE);
}

/* Runs one work-group of `waves` waves, each executing k copies of the
** instruction word `inst` and s_endpgm, arriving at cycle `start` on a CU
** configured by cfg (memory latency 2); returns the cycle it completed. */
static inline uint64_t tb_run_repeated(const cu_config *cfg, uint32_t inst,
                                       uint32_t k, uint32_t waves,
                                       uint64_t start)
{
    uint32_t *code = malloc((k + 1) * sizeof *code);
    assert_non_null(code);
    for (uint32_t i = 0; i < k; i++)
        code[i] = inst;
    code[k] = S_ENDPGM;
    testbed tb;
    tb_init(&tb, cfg, 2);
    tb_hand_kernel(&tb, code, k + 1, 8);
    tb_launch(&tb, 64 * waves, 64 * waves, 0, 0, 0);
    tb.cp.start_cycle = start;
    assert_int_equal(tb_run(&tb), MGS_OK);
    assert_int_equal(tb.cp.done, 1);
    assert_int_equal(tb.cp.status[0], MGS_OK);
    assert_int_equal(tb.cp.wf_insts, (uint64_t)(k + 1) * waves);
    uint64_t cycles = tb.cp.done_cycle[0];
    tb_fini(&tb);
    free(code);
    return cycles;
}

#endif
