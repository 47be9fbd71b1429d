/*
** DRAM controller tests: exact row hit / miss / conflict latencies (ps),
** close-page policy, refresh blackout, FR-FCFS reordering, streaming
** bandwidth (within 5 % of bytes_per_cycle x clock), back-pressure with a
** tiny queue, real data (masked writes, read-after-write), bursts after
** an older queued write, atomics at memory and determinism. One requester agent (dramtest_agent.h) talks to
** one channel through a zero-latency connection; latencies inside the
** controller are measured as response send time - request arrival time.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "dramtest_agent.h"
#include "gcn3/inst.h"
#include "mem/dram.h"
#include "mem/dram_int.h"
#include "sim/stats.h"

#define MEM_BYTES AGENT_MEM_BYTES /* flat backing array, agent_mem_* */

typedef struct world {
    sim_engine *e;
    mem_pool *pool;
    stat_registry *stats;
    uint8_t *mem;
    mem_backing backing;
    dram_config cfg;
    dram *d;
    agent *a;
    sim_conn *conn;
    uint64_t dram_events;
} world;

static void count_dram_events(const sim_hook_ctx *ctx, void *ud)
{
    world *w = ud;
    if (ctx->comp == (sim_comp *)w->d)
        w->dram_events++;
}

/* One channel, refresh off unless the test turns it on. */
static void test_cfg(dram_config *c)
{
    dram_config_default(c);
    c->channels = 1;
    c->tREFI = 0;
}

static void world_init(world *w, const dram_config *cfg, mgs_time conn_period,
                       uint32_t lane_capacity)
{
    memset(w, 0, sizeof *w);
    w->e = eng_new(NULL);
    w->pool = mem_pool_new();
    w->stats = stat_registry_new();
    w->mem = calloc(1, MEM_BYTES);
    for (uint32_t i = 0; i < MEM_BYTES; i++)
        w->mem[i] = (uint8_t)(i * 7 + 3);
    w->backing = (mem_backing){agent_mem_read, agent_mem_write, w->mem};
    w->cfg = *cfg;
    assert_int_equal(dram_config_validate(cfg), MGS_OK);
    w->d = dram_new(w->e, "DRAM[0]", cfg, w->pool, w->stats, &w->backing);
    w->a = agent_new(w->e, "Agent", w->pool, 1000, 64);
    w->conn = agent_conn(w->e, "Conn", conn_period, lane_capacity);
    conn_plug(w->conn, &w->a->port);
    conn_plug(w->conn, dram_top(w->d));
    w->a->dst = dram_top(w->d);
    eng_hook_add(w->e, SIM_HOOK_BEFORE_EVENT, count_dram_events, w);
}

static void world_run(world *w)
{
    agent_run(w->e, w->a);
}

static void world_fini(world *w)
{
    agent_release_all(w->a);
    dram_free(w->d);
    conn_free(w->conn);
    agent_free(w->a);
    agent_env_free(w->e, w->pool, w->stats);
    free(w->mem);
}

static double stat_of(world *w, const char *metric)
{
    return agent_stat(w->stats, eng_now(w->e), NULL, metric);
}

/* Time the controller held request i: response sent - request arrived. */
static mgs_time latency_of(world *w, uint32_t i)
{
    return agent_latency(w->a, i);
}

/* ---- configuration ---------------------------------------------------- */

static void test_config(void **state)
{
    (void)state;
    dram_config c;
    dram_config_default(&c);
    assert_int_equal(dram_config_validate(&c), MGS_OK);
    dram_timing t;
    dram_timing_derive(&t, &c);
    assert_int_equal(t.period, 2000);
    assert_int_equal(t.burst, 1000);     /* 64 B at 128 B per 2 ns */
    assert_int_equal(t.tRCD, 14000);
    c.row_bytes = 100;
    assert_int_equal(dram_config_validate(&c), MGS_ECONFIG);
    dram_config_default(&c);
    c.tRFC = c.tREFI;
    assert_int_equal(dram_config_validate(&c), MGS_ECONFIG);
    dram_config_default(&c);
    c.bytes_per_cycle = 3;               /* 64*2000/3 is not whole ps: */
    assert_int_equal(dram_config_validate(&c), MGS_OK); /* rounded up */
    dram_timing_derive(&t, &c);
    assert_int_equal(t.burst, 42667);    /* ceil(128000 / 3) */
    dram_config_default(&c);
    c.queue_entries = 0;
    assert_int_equal(dram_config_validate(&c), MGS_ECONFIG);
}

static void test_mapping(void **state)
{
    (void)state;
    dram_config c;
    dram_config_default(&c); /* 8 channels, 4 KB interleave */
    dram_loc l;
    dram_map(&c, 0, &l);
    assert_int_equal(l.bank, 0);
    assert_int_equal(l.row, 0);
    dram_map(&c, 2048, &l);              /* second half of the 4 KB unit */
    assert_int_equal(l.bank, 1);
    dram_map(&c, 8 * 4096, &l);          /* next unit of this channel */
    assert_int_equal(l.bank, 2);
    dram_map(&c, 8 * 4096 * 8, &l);      /* local 32 KB: bank 0, row 1 */
    assert_int_equal(l.bank, 0);
    assert_int_equal(l.row, 1);
    assert_int_equal(l.offset, 8 * 4096 * 8);
    /* dram_row_left: the bytes after an address that stay in its row (a
    ** burst's run, dram.c issue_burst), checked line by line against
    ** dram_map inside the unit. */
    for (uint64_t a = 0; a < 4096; a += 64) {
        uint64_t left = dram_row_left(&c, 8 * 4096 + a);
        dram_map(&c, 8 * 4096 + a, &l);
        for (uint64_t k = 64; a + k < 4096; k += 64) {
            dram_loc n;
            dram_map(&c, 8 * 4096 + a + k, &n);
            assert_int_equal(n.bank == l.bank && n.row == l.row, k < left);
        }
        assert_true(left <= 4096 - a);
    }
    assert_int_equal(dram_row_left(&c, 2048 - 64), 64);
}

/* ---- latencies -------------------------------------------------------- */

static void test_row_latencies(void **state)
{
    (void)state;
    dram_config c;
    test_cfg(&c);
    world w;
    world_init(&w, &c, c.period, 4);
    mgs_time p = c.period, burst = 1000, ctrl = c.ctrl_latency * p;
    agent_add(w.a, MEM_READ, 0, 64, 0);                /* miss: bank 0 row 0 */
    agent_add(w.a, MEM_READ, 64, 64, 200000);          /* hit */
    agent_add(w.a, MEM_READ, 32768, 64, 400000);       /* conflict: row 1 */
    agent_add(w.a, MEM_WRITE, 32768 + 128, 64, 600000);/* write hit */
    agent_add(w.a, MEM_READ, 2048, 64, 800000);        /* miss: bank 1 */
    world_run(&w);
    /* Arrivals sit on command-clock edges (conn period = DRAM period). */
    for (uint32_t i = 0; i < 5; i++)
        assert_int_equal(w.a->req[i]->base.arrive_time % p, 0);
    assert_int_equal(latency_of(&w, 0),
                     2 * ctrl + (c.tRCD + c.tCL) * p + burst);
    assert_int_equal(latency_of(&w, 0), 101000);
    assert_int_equal(latency_of(&w, 1), 2 * ctrl + c.tCL * p + burst);
    assert_int_equal(latency_of(&w, 2),
                     2 * ctrl + (c.tRP + c.tRCD + c.tCL) * p + burst);
    assert_int_equal(latency_of(&w, 3), 2 * ctrl + c.tCWL * p + burst);
    assert_int_equal(latency_of(&w, 4), latency_of(&w, 0));
    assert_int_equal(stat_of(&w, "row_hits"), 2);
    assert_int_equal(stat_of(&w, "row_misses"), 2);
    assert_int_equal(stat_of(&w, "row_conflicts"), 1);
    assert_int_equal(stat_of(&w, "reads"), 4);
    assert_int_equal(stat_of(&w, "writes"), 1);
    assert_int_equal(stat_of(&w, "bytes_read"), 256);
    assert_int_equal(stat_of(&w, "bytes_written"), 64);
    assert_int_equal(stat_of(&w, "read_latency.count"), 4);
    assert_int_equal(stat_of(&w, "read_latency.max"),
                     2 * ctrl + (c.tRP + c.tRCD + c.tCL) * p + burst);
    /* Idle afterwards: nothing left in the event queue. */
    assert_int_equal(eng_pending(w.e), 0);
    world_fini(&w);
}

static void test_conflict_waits_for_tras(void **state)
{
    (void)state;
    dram_config c;
    test_cfg(&c);
    world w;
    world_init(&w, &c, c.period, 4);
    mgs_time p = c.period, burst = 1000, ctrl = c.ctrl_latency * p;
    agent_add(w.a, MEM_READ, 0, 64, 0);
    /* Conflict right behind the miss: PRE must wait for ACT + tRAS. */
    agent_add(w.a, MEM_READ, 32768, 64, 0);
    world_run(&w);
    mgs_time a0 = w.a->req[0]->base.arrive_time;
    mem_msg *r1 = agent_rsp_of(w.a, 1);
    mgs_time act0 = a0 + ctrl;
    assert_int_equal(r1->base.send_time,
                     act0 + (c.tRAS + c.tRP + c.tRCD + c.tCL) * p + burst +
                         ctrl);
    world_fini(&w);
}

static void test_close_page(void **state)
{
    (void)state;
    dram_config c;
    test_cfg(&c);
    c.open_page = false;
    world w;
    world_init(&w, &c, c.period, 4);
    mgs_time p = c.period, burst = 1000, ctrl = c.ctrl_latency * p;
    agent_add(w.a, MEM_READ, 0, 64, 0);
    agent_add(w.a, MEM_READ, 64, 64, 200000); /* same row, closed again */
    world_run(&w);
    assert_int_equal(latency_of(&w, 1), 2 * ctrl + (c.tRCD + c.tCL) * p +
                                            burst);
    assert_int_equal(stat_of(&w, "row_hits"), 0);
    assert_int_equal(stat_of(&w, "row_misses"), 2);
    world_fini(&w);
}

/* ---- refresh ---------------------------------------------------------- */

static void test_refresh_blocks(void **state)
{
    (void)state;
    dram_config c;
    test_cfg(&c);
    c.tREFI = 1950; /* first window [3.9 us, 3.9 us + tRFC) */
    world w;
    world_init(&w, &c, c.period, 4);
    mgs_time p = c.period, burst = 1000, ctrl = c.ctrl_latency * p;
    mgs_time win = (mgs_time)c.tREFI * p, win_end = win + c.tRFC * p;
    agent_add(w.a, MEM_READ, 0, 64, 0); /* opens row 0 */
    /* Same row, ready inside the refresh window: waits for its end and
    ** finds the row closed by the refresh (a miss, not a hit). */
    agent_add(w.a, MEM_READ, 64, 64, win - 22000);
    world_run(&w);
    mgs_time a1 = w.a->req[1]->base.arrive_time;
    assert_int_equal(a1, win - 20000);
    assert_true(a1 + ctrl > win && a1 + ctrl < win_end);
    assert_int_equal(latency_of(&w, 1),
                     win_end - a1 + (c.tRCD + c.tCL) * p + burst + ctrl);
    assert_int_equal(latency_of(&w, 1), 345000);
    assert_int_equal(stat_of(&w, "refreshes"), 1);
    assert_int_equal(stat_of(&w, "row_misses"), 2);
    assert_int_equal(stat_of(&w, "row_hits"), 0);
    world_fini(&w);
}

/* ---- scheduling ------------------------------------------------------- */

static void test_frfcfs_reorders_row_hit(void **state)
{
    (void)state;
    dram_config c;
    test_cfg(&c);
    world w;
    world_init(&w, &c, c.period, 4);
    mgs_time p = c.period, burst = 1000, ctrl = c.ctrl_latency * p;
    agent_add(w.a, MEM_READ, 0, 64, 0);      /* R0: opens bank 0 row 0 */
    agent_add(w.a, MEM_READ, 32768, 64, 0);  /* A: older, row conflict */
    agent_add(w.a, MEM_READ, 128, 64, 0);    /* B: younger, row hit */
    world_run(&w);
    /* B is answered before A although A arrived first. */
    assert_ptr_equal(w.a->rsp[1]->req, w.a->req[2]);
    assert_ptr_equal(w.a->rsp[2]->req, w.a->req[1]);
    assert_true(w.a->req[1]->base.arrive_time <
                w.a->req[2]->base.arrive_time);
    mgs_time ready0 = w.a->req[0]->base.arrive_time + ctrl;
    mgs_time col0 = ready0 + c.tRCD * p;
    /* B: column at R0's column, data right behind R0's burst. */
    assert_int_equal(agent_rsp_of(w.a, 2)->base.send_time,
                     col0 + c.tCL * p + 2 * burst + ctrl);
    /* A: PRE once tRAS has passed since R0's ACT, then ACT, RD. */
    assert_int_equal(agent_rsp_of(w.a, 1)->base.send_time,
                     ready0 + (c.tRAS + c.tRP + c.tRCD + c.tCL) * p + burst +
                         ctrl);
    assert_int_equal(stat_of(&w, "row_hits"), 1);
    assert_int_equal(stat_of(&w, "row_conflicts"), 1);
    world_fini(&w);
}

/* ---- bandwidth -------------------------------------------------------- */

static double stream(bool refresh, uint32_t n, uint64_t *events)
{
    dram_config c;
    test_cfg(&c);
    if (refresh)
        c.tREFI = 1950;
    world w;
    world_init(&w, &c, 1, 4); /* 1 ps link: the requester is not a limit */
    w.a->per_tick = 4;
    for (uint32_t i = 0; i < n; i++)
        agent_add(w.a, MEM_READ, (uint64_t)i * 64, 64, 0);
    world_run(&w);
    mgs_time first = w.a->req[0]->base.arrive_time;
    mgs_time last = 0;
    for (uint32_t k = 0; k < w.a->nrsp; k++)
        if (w.a->rsp[k]->base.send_time > last)
            last = w.a->rsp[k]->base.send_time;
    for (uint32_t i = 0; i < n; i++) /* data came back in order */
        assert_int_equal(agent_rsp_of(w.a, i)->data[5],
                         (uint8_t)((i * 64 + 5) * 7 + 3));
    *events = w.dram_events;
    double bw = (double)n * 64 / (double)(last - first); /* B per ps */
    world_fini(&w);
    return bw;
}

static void test_streaming_bandwidth(void **state)
{
    (void)state;
    dram_config c;
    dram_config_default(&c);
    double peak = (double)c.bytes_per_cycle / (double)c.period; /* B/ps */
    uint64_t events;
    uint32_t n = 8192;
    /* Tolerance 5 %: the first access's latency and row switches. */
    double bw = stream(false, n, &events);
    printf("# DRAM stream, refresh off: %.2f GB/s of %.2f GB/s peak\n",
           bw * 1000, peak * 1000);
    assert_true(bw > 0.95 * peak && bw <= peak);
    /* No busy ticking: READY + DONE + at most one bank event each. */
    assert_true(events <= 3ull * n);
    /* With refresh the peak is derated by tRFC / tREFI (6.7 %). */
    double derated = peak * (1.0 - (double)c.tRFC / c.tREFI);
    bw = stream(true, n, &events);
    printf("# DRAM stream, refresh on: %.2f GB/s of %.2f GB/s derated\n",
           bw * 1000, derated * 1000);
    assert_true(bw > 0.95 * derated && bw < 1.05 * derated);
}

/* ---- back-pressure ---------------------------------------------------- */

static void test_backpressure(void **state)
{
    (void)state;
    dram_config c;
    test_cfg(&c);
    c.queue_entries = 2;
    c.top_buffer = 1;
    world w;
    world_init(&w, &c, c.period, 1);
    w.a->per_tick = 16;
    for (uint32_t i = 0; i < 16; i++)
        agent_add(w.a, MEM_READ, (uint64_t)i * 4096 + 64, 64, 0);
    world_run(&w);
    assert_true(w.a->refused > 0);
    assert_int_equal(w.a->nrsp, 16);
    assert_int_equal(stat_of(&w, "queue_occupancy.max"), 2);
    for (uint32_t i = 0; i < 16; i++)
        assert_int_equal(agent_rsp_of(w.a, i)->data[0],
                         (uint8_t)((i * 4096 + 64) * 7 + 3));
    world_fini(&w);
}

/* ---- data ------------------------------------------------------------- */

static void test_data_roundtrip(void **state)
{
    (void)state;
    dram_config c;
    test_cfg(&c);
    world w;
    world_init(&w, &c, c.period, 4);
    mem_msg *wr = agent_add(w.a, MEM_WRITE, 4096, 64, 0);
    for (int i = 0; i < 64; i++)
        wr->data[i] = (uint8_t)(0xA0 + i);
    agent_add(w.a, MEM_READ, 4096, 64, 0);   /* right behind: sees it */
    mem_msg *mw = agent_add(w.a, MEM_WRITE, 8192, 8, 0);
    memset(mw->data, 0x11, 8);
    mw->mask = 0x0F;                         /* bytes 0..3 only */
    agent_add(w.a, MEM_READ, 8192, 8, 0);
    agent_add(w.a, MEM_READ, 12288 + 32, 32, 0); /* untouched data */
    world_run(&w);
    mem_msg *r = agent_rsp_of(w.a, 1);
    for (int i = 0; i < 64; i++)
        assert_int_equal(r->data[i], 0xA0 + i);
    r = agent_rsp_of(w.a, 3);
    for (int i = 0; i < 8; i++)
        assert_int_equal(r->data[i],
                         i < 4 ? 0x11 : (uint8_t)((8192 + i) * 7 + 3));
    r = agent_rsp_of(w.a, 4);
    for (int i = 0; i < 32; i++)
        assert_int_equal(r->data[i], (uint8_t)((12288 + 32 + i) * 7 + 3));
    assert_int_equal(w.mem[4096 + 10], 0xA0 + 10);
    assert_int_equal(w.mem[8192 + 3], 0x11);
    assert_int_equal(w.mem[8192 + 4], (uint8_t)((8192 + 4) * 7 + 3));
    assert_int_equal(agent_rsp_of(w.a, 0)->base.type, MEM_WRITE_RSP);
    world_fini(&w);
}

/* Bursts (a DMA engine's device side, docs/dram.md "Bursts"): a write
** burst of 64 lines waits for an older write to one of its lines that
** is still queued (its bank busy with another row), so the burst's bytes
** win; the read burst behind it reads them back; each burst is answered
** once, its parts counted as accesses and rows planned as runs. */
static void test_bursts(void **state)
{
    (void)state;
    dram_config c;
    test_cfg(&c);
    world w;
    world_init(&w, &c, c.period, 4);
    static uint8_t out[4096], in[4096];
    for (int i = 0; i < 4096; i++)
        out[i] = (uint8_t)(0x5A ^ i);
    memset(in, 0, sizeof in);
    /* R0 opens row 1 of bank 0; W1 (bank 0, row 0) must wait for it. */
    agent_add(w.a, MEM_READ, (uint64_t)c.row_bytes * c.banks, 64, 0);
    mem_msg *w1 = agent_add(w.a, MEM_WRITE, 3 * 64, 64, 0);
    memset(w1->data, 0x11, 64);
    mem_msg *bw = agent_add(w.a, MEM_WRITE, 0, 64, 0);
    bw->parts = 64;
    bw->bulk = out;
    bw->base.bytes = 8 + 4096;
    mem_msg *br = agent_add(w.a, MEM_READ, 0, 64, 0);
    br->parts = 64;
    br->bulk = in;
    world_run(&w);
    assert_int_equal(w.a->nrsp, 4);
    assert_memory_equal(w.mem, out, 4096);  /* not W1's 0x11 at line 3 */
    assert_memory_equal(in, out, 4096);
    assert_true(agent_rsp_of(w.a, 2)->base.send_time >
                agent_rsp_of(w.a, 1)->base.send_time);
    assert_int_equal(stat_of(&w, "writes"), 1 + 64);
    assert_int_equal(stat_of(&w, "reads"), 1 + 64);
    assert_int_equal(stat_of(&w, "bytes_written"), 64 + 4096);
    /* 4 KiB = 2 rows of 2 KiB (banks 0 and 1): 62 of the 64 parts of
    ** each burst hit an open row in its run, plus the burst read's first
    ** runs find the rows the write burst left open. */
    assert_true(stat_of(&w, "row_hits") >= 2 * 62);
    world_fini(&w);
}

/* Out-of-range read: answered, with MEM_F_FAULT. */
static void test_out_of_range_faults(void **state)
{
    (void)state;
    dram_config c;
    test_cfg(&c);
    world w;
    world_init(&w, &c, c.period, 4);
    agent_add(w.a, MEM_READ, MEM_BYTES + 64, 64, 0);
    world_run(&w);
    assert_true(agent_rsp_of(w.a, 0)->flags & MEM_F_FAULT);
    world_fini(&w);
}

static mem_msg *add_atomic(agent *a, unsigned op, uint64_t addr,
                           uint8_t size, uint64_t src, uint64_t cmp)
{
    mem_msg *m = agent_add(a, MEM_ATOMIC, addr, size, 0);
    m->atomic_op = (uint16_t)op;
    m->atomic_size = size;
    m->atomic_src = src;
    m->atomic_cmp = cmp;
    return m;
}

static void test_atomics(void **state)
{
    (void)state;
    dram_config c;
    test_cfg(&c);
    world w;
    world_init(&w, &c, c.period, 4);
    uint32_t v = 5;
    memcpy(w.mem + 256, &v, 4);
    uint64_t v64 = 0xFFFFFFFFull;
    memcpy(w.mem + 512, &v64, 8);
    add_atomic(w.a, GCN_OP_FLAT_ATOMIC_ADD, 256, 4, 3, 0);
    add_atomic(w.a, GCN_OP_FLAT_ATOMIC_CMPSWAP, 256, 4, 100, 8);
    add_atomic(w.a, GCN_OP_FLAT_ATOMIC_CMPSWAP, 256, 4, 7, 8); /* fails */
    add_atomic(w.a, GCN_OP_FLAT_ATOMIC_ADD_X2, 512, 8, 1, 0);
    world_run(&w);
    uint32_t old;
    memcpy(&old, agent_rsp_of(w.a, 0)->data, 4);
    assert_int_equal(old, 5);
    memcpy(&old, agent_rsp_of(w.a, 1)->data, 4);
    assert_int_equal(old, 8);
    memcpy(&old, agent_rsp_of(w.a, 2)->data, 4);
    assert_int_equal(old, 100);
    memcpy(&v, w.mem + 256, 4);
    assert_int_equal(v, 100);
    uint64_t old64;
    memcpy(&old64, agent_rsp_of(w.a, 3)->data, 8);
    assert_int_equal(old64, 0xFFFFFFFFull);
    memcpy(&v64, w.mem + 512, 8);
    assert_int_equal(v64, 0x100000000ull);
    assert_int_equal(agent_rsp_of(w.a, 0)->base.type, MEM_ATOMIC_RSP);
    assert_int_equal(stat_of(&w, "atomics"), 4);
    world_fini(&w);
}

/* ---- random tester ----------------------------------------------------- */

/* Random reads, masked writes and atomics from one requester to a few hot
** lines spread over rows of the same banks (so FR-FCFS reorders a lot),
** with a tiny queue and refresh on. Requests to one address must take
** effect in arrival order: every read and atomic result is checked against
** a reference memory that replays the script in order. */
static void test_random_against_reference(void **state)
{
    (void)state;
    dram_config c;
    dram_config_default(&c);
    c.channels = 1;
    c.queue_entries = 6;
    c.tREFI = 400; /* frequent refreshes */
    world w;
    world_init(&w, &c, 1000, 2);
    w.a->per_tick = 3;
    uint8_t *ref = malloc(MEM_BYTES);
    memcpy(ref, w.mem, MEM_BYTES);
    uint64_t x = 12345;
    const uint32_t n = 3000;
    for (uint32_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        /* 4 rows x 2 banks x 4 lines: rows of one bank conflict. */
        uint64_t line = ((x >> 33) & 3) * 32768 + ((x >> 35) & 1) * 2048 +
                        ((x >> 36) & 3) * 64;
        uint32_t kind = (uint32_t)(x >> 40) % 3;
        mgs_time at = (mgs_time)(i / 3) * 1000;
        if (kind == 0) {
            agent_add(w.a, MEM_READ, line, 64, at);
        } else if (kind == 1) {
            mem_msg *m = agent_add(w.a, MEM_WRITE, line, 64, at);
            m->mask = (x >> 20) & 1 ? ~0ull : x ^ (x >> 17);
            for (int b = 0; b < 64; b++) {
                m->data[b] = (uint8_t)(x >> (b % 8) ^ (uint64_t)i);
                if (m->mask >> b & 1)
                    ref[line + b] = m->data[b];
            }
        } else {
            uint64_t off = ((x >> 44) & 15) * 4;
            mem_msg *m = agent_add(w.a, MEM_ATOMIC, line + off, 4, at);
            m->atomic_op = GCN_OP_FLAT_ATOMIC_ADD;
            m->atomic_size = 4;
            m->atomic_src = i;
            uint32_t v;
            memcpy(&v, ref + line + off, 4);
            v += i;
            memcpy(ref + line + off, &v, 4);
        }
    }
    world_run(&w);
    /* Replay in script order to know what each read must have seen. */
    uint8_t *replay = malloc(MEM_BYTES);
    memcpy(replay, w.mem, MEM_BYTES); /* final state first: */
    assert_memory_equal(w.mem, ref, MEM_BYTES);
    for (uint32_t i = 0; i < MEM_BYTES; i++)
        replay[i] = (uint8_t)(i * 7 + 3);
    for (uint32_t i = 0; i < n; i++) {
        mem_msg *q = w.a->req[i], *r = agent_rsp_of(w.a, i);
        assert_non_null(r);
        if (q->base.type == MEM_READ) {
            assert_memory_equal(r->data, replay + q->addr, 64);
        } else if (q->base.type == MEM_WRITE) {
            for (int b = 0; b < 64; b++)
                if (q->mask >> b & 1)
                    replay[q->addr + b] = q->data[b];
        } else {
            uint32_t v;
            memcpy(&v, replay + q->addr, 4);
            assert_memory_equal(r->data, &v, 4);
            v += (uint32_t)q->atomic_src;
            memcpy(replay + q->addr, &v, 4);
        }
    }
    assert_true(stat_of(&w, "row_conflicts") > 100);
    assert_true(stat_of(&w, "refreshes") > 0);
    free(replay);
    free(ref);
    world_fini(&w);
}

/* ---- determinism ------------------------------------------------------ */

typedef struct dump_buf {
    char *s;
    size_t len, cap;
} dump_buf;

static void dump_row(const stat_row *row, void *ud)
{
    dump_buf *b = ud;
    char line[256];
    int n = snprintf(line, sizeof line, "%s %s %.17g\n", row->component,
                     row->metric, row->value);
    if (b->len + (size_t)n + 1 > b->cap) {
        b->cap = (b->cap + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->len, line, (size_t)n + 1);
    b->len += (size_t)n;
}

static char *random_run(uint64_t seed)
{
    dram_config c;
    dram_config_default(&c); /* 8 channels mapping, refresh on */
    c.queue_entries = 8;
    world w;
    world_init(&w, &c, 1000, 2);
    w.a->per_tick = 2;
    uint64_t x = seed;
    for (uint32_t i = 0; i < 600; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t addr = (x >> 20) % (MEM_BYTES / 64) * 64;
        mem_msg_type t = (x >> 60) & 1 ? MEM_WRITE : MEM_READ;
        mem_msg *m = agent_add(w.a, t, addr, 64, (mgs_time)i * 3000);
        memset(m->data, (int)(x >> 8), 64);
    }
    world_run(&w);
    dump_buf b = {0};
    stat_registry_foreach(w.stats, eng_now(w.e), dump_row, &b);
    for (uint32_t k = 0; k < w.a->nrsp; k++) {
        char line[64];
        snprintf(line, sizeof line, "%llu %llu\n",
                 (unsigned long long)w.a->rsp[k]->req->base.id,
                 (unsigned long long)w.a->rsp_time[k]);
        dump_row(&(stat_row){"rsp", line, 0, ""}, &b);
    }
    world_fini(&w);
    return b.s;
}

static void test_determinism(void **state)
{
    (void)state;
    char *a = random_run(42), *b = random_run(42), *c = random_run(43);
    assert_string_equal(a, b);
    assert_string_not_equal(a, c);
    free(a);
    free(b);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_mapping),
        cmocka_unit_test(test_row_latencies),
        cmocka_unit_test(test_conflict_waits_for_tras),
        cmocka_unit_test(test_close_page),
        cmocka_unit_test(test_refresh_blocks),
        cmocka_unit_test(test_frfcfs_reorders_row_hit),
        cmocka_unit_test(test_streaming_bandwidth),
        cmocka_unit_test(test_backpressure),
        cmocka_unit_test(test_data_roundtrip),
        cmocka_unit_test(test_bursts),
        cmocka_unit_test(test_out_of_range_faults),
        cmocka_unit_test(test_atomics),
        cmocka_unit_test(test_random_against_reference),
        cmocka_unit_test(test_determinism),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
