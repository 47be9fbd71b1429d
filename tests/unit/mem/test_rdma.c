/* Tests for src/mem/rdma.c: two GPUs, each a fixed-latency memory
** (simplemem) behind its RDMA engine, the engines joined by one plain
** connection (the network). Remote read / write / atomic return the right
** data; the remote latency is exact; a request spanning two lines is split;
** misrouted addresses fault; tiny tables stay bounded and complete under
** back-pressure; a random tester on both GPUs agrees with its reference;
** two runs give identical statistics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gcn3/inst.h"
#include "mem/rdma.h"
#include "mem_world.h"

#define GPU_BYTES 0x10000ull /* 64 KB of memory per GPU */

typedef struct duo_params {
    rdma_config rdma;
    simplemem_config mem;
    sim_conn_config gpu_conn;   /* inside each GPU */
    sim_conn_config net;        /* between the RDMA engines */
    uint32_t home_widen;        /* GPU 1's connection is this many times
                                   wider (0: as wide as GPU 0's) */
} duo_params;

typedef struct duo {
    sim_engine *eng;
    mem_pool *pool;
    stat_registry *stats;
    uint8_t *bytes;             /* [0, 2 * GPU_BYTES): both GPUs' memory */
    mem_array arr[2];
    simplemem *mem[2];
    rdma_engine *rdma[2];
    sim_conn *gpu_conn[2], *net;
    probe p[2];                 /* one requester per GPU */
    sim_port *local_ports[2][1]; /* borrowed by the testers' routes */
    uint32_t max_parents, max_out, max_in; /* peaks seen by the hook */
    int hook;
} duo;

static void duo_params_default(duo_params *p)
{
    rdma_config_default(&p->rdma);
    p->rdma.bytes_per_gpu = GPU_BYTES;
    simplemem_config_default(&p->mem);
    p->mem.latency = 20;
    conn_config_default(&p->gpu_conn);
    conn_config_set_latency_cycles(&p->gpu_conn, 1);
    conn_config_default(&p->net);
    p->net.bytes_per_cycle = 16;          /* 16 GB/s at 1 GHz */
    conn_config_set_latency_cycles(&p->net, 100);
    p->home_widen = 0;
}

static void duo_build(duo *d, const duo_params *p, stat_registry *stats)
{
    memset(d, 0, sizeof *d);
    d->eng = eng_new(NULL);
    d->pool = mem_pool_new();
    d->stats = stats;
    d->bytes = mgs_xmalloc(2 * GPU_BYTES);
    mem_tester_fill_initial(d->bytes, 0, 2 * GPU_BYTES);
    d->net = conn_new(d->eng, "Net", &p->net, stats);
    sim_port *outs[2];
    for (uint32_t g = 0; g < 2; g++) {
        char *gn = name_new(NULL, "GPU", g);
        char *n = name_new(gn, "Mem", -1);
        d->arr[g] = (mem_array){d->bytes + g * GPU_BYTES, g * GPU_BYTES,
                                GPU_BYTES};
        mem_backing b;
        mem_array_backing(&b, &d->arr[g]);
        d->mem[g] = simplemem_new(d->eng, n, &p->mem, d->pool, &b, stats);
        free(n);
        n = name_new(gn, "RDMA", -1);
        rdma_config rc = p->rdma;
        rc.gpu = g;
        rc.ngpus = 2;
        assert_int_equal(rdma_config_validate(&rc), MGS_OK);
        d->rdma[g] = rdma_new(d->eng, n, &rc, d->pool, stats);
        free(n);
        n = name_new(gn, "Conn", -1);
        sim_conn_config gc = p->gpu_conn;
        if (g == 1 && p->home_widen)
            gc.bytes_per_cycle *= p->home_widen;
        d->gpu_conn[g] = conn_new(d->eng, n, &gc, stats);
        free(n);
        n = name_new(gn, "Probe", -1);
        probe_init(&d->p[g], d->eng, d->pool, n);
        free(n);
        free(gn);
        conn_plug(d->gpu_conn[g], &d->p[g].port);
        rdma_plug(d->rdma[g], d->gpu_conn[g]);
        conn_plug(d->gpu_conn[g], simplemem_port(d->mem[g]));
        conn_plug(d->net, rdma_outside(d->rdma[g]));
        mem_route to_mem;
        mem_route_single(&to_mem, simplemem_port(d->mem[g]));
        rdma_set_local_route(d->rdma[g], &to_mem);
        outs[g] = rdma_outside(d->rdma[g]);
    }
    for (uint32_t g = 0; g < 2; g++)
        rdma_set_peers(d->rdma[g], outs, 2);
}

static void peak_hook(const sim_hook_ctx *ctx, void *ud)
{
    (void)ctx;
    duo *d = ud;
    for (int g = 0; g < 2; g++) {
        uint32_t pa, o, i;
        assert_int_equal(rdma_check(d->rdma[g]), 1);
        rdma_occupancy(d->rdma[g], &pa, &o, &i);
        d->max_parents = pa > d->max_parents ? pa : d->max_parents;
        d->max_out = o > d->max_out ? o : d->max_out;
        d->max_in = i > d->max_in ? i : d->max_in;
    }
}

static void duo_watch(duo *d)
{
    d->hook = eng_hook_add(d->eng, SIM_HOOK_AFTER_EVENT, peak_hook, d);
}

static void duo_free(duo *d)
{
    for (int g = 0; g < 2; g++) {
        probe_fini(&d->p[g]);
        rdma_free(d->rdma[g]);
        simplemem_free(d->mem[g]);
        conn_free(d->gpu_conn[g]);
    }
    conn_free(d->net);
    eng_free(d->eng);
    assert_int_equal(mem_pool_outstanding(d->pool), 0);
    mem_pool_free(d->pool);
    free(d->bytes);
}

/* A request from GPU g's probe to its RDMA engine. */
static mem_msg *remote_req(duo *d, int g, mem_msg_type type, uint64_t addr,
                           uint32_t size)
{
    mem_msg *m = probe_req(&d->p[g], type, addr, size, rdma_inside(d->rdma[g]));
    m->gpu = g;
    return m;
}

static uint64_t counter(stat_registry *r, const char *comp, const char *metric)
{
    return stats_counter(r, comp, metric); /* through the text dump */
}

/* ---- functional ---------------------------------------------------------- */

static void test_remote_read_write_atomic(void **state)
{
    (void)state;
    duo_params p;
    duo_params_default(&p);
    stat_registry *st = stat_registry_new();
    duo d;
    duo_build(&d, &p, st);
    uint64_t a1 = GPU_BYTES + 0x1040; /* homed on GPU 1 */
    uint64_t a0 = 0x2080;             /* homed on GPU 0 */

    /* GPU 0 writes 16 bytes on GPU 1 with a mask, GPU 1 writes on GPU 0. */
    mem_msg *w0 = remote_req(&d, 0, MEM_WRITE, a1, 16);
    for (int i = 0; i < 16; i++)
        w0->data[i] = (uint8_t)(0xa0 + i);
    w0->mask = 0xff0f; /* bytes 4..7 not written */
    w0->base.bytes += 16;
    probe_send_at(&d.p[0], w0, 0);
    mem_msg *w1 = remote_req(&d, 1, MEM_WRITE, a0, 8);
    memcpy(w1->data, "\x11\x22\x33\x44\x55\x66\x77\x88", 8);
    probe_send_at(&d.p[1], w1, 0);
    assert_int_equal(eng_run(d.eng), MGS_OK);
    assert_non_null(probe_answer(&d.p[0], w0, NULL));
    assert_non_null(probe_answer(&d.p[1], w1, NULL));
    uint8_t before4 = mem_tester_init_byte(a1 + 4);
    assert_int_equal(d.bytes[a1 + 0], 0xa0);
    assert_int_equal(d.bytes[a1 + 3], 0xa3);
    assert_int_equal(d.bytes[a1 + 4], before4);
    assert_int_equal(d.bytes[a1 + 8], 0xa8);
    assert_int_equal(d.bytes[a1 + 15], 0xaf);
    assert_memory_equal(d.bytes + a0, "\x11\x22\x33\x44\x55\x66\x77\x88", 8);

    /* Reads back from the other side, and an atomic add at the home. */
    mgs_time t0 = eng_now(d.eng);
    mem_msg *r0 = remote_req(&d, 0, MEM_READ, a1, 16);
    probe_send_at(&d.p[0], r0, t0);
    mem_msg *r1 = remote_req(&d, 1, MEM_READ, a0, 8);
    probe_send_at(&d.p[1], r1, t0);
    mem_msg *at = remote_req(&d, 0, MEM_ATOMIC, a1 + 8, 4);
    at->atomic_op = GCN_OP_FLAT_ATOMIC_ADD;
    at->atomic_size = 4;
    at->atomic_src = 0x01010101;
    at->base.bytes += 8;
    probe_send_at(&d.p[0], at, t0);
    assert_int_equal(eng_run(d.eng), MGS_OK);
    mem_msg *a = probe_answer(&d.p[0], r0, NULL);
    assert_non_null(a);
    assert_int_equal(a->base.type, MEM_READ_RSP);
    assert_false(a->flags & MEM_F_FAULT);
    assert_int_equal(a->data[0], 0xa0);
    assert_int_equal(a->data[4], before4);
    assert_int_equal(a->data[15], 0xaf);
    a = probe_answer(&d.p[1], r1, NULL);
    assert_non_null(a);
    assert_memory_equal(a->data, "\x11\x22\x33\x44\x55\x66\x77\x88", 8);
    a = probe_answer(&d.p[0], at, NULL);
    assert_non_null(a);
    assert_int_equal(a->base.type, MEM_ATOMIC_RSP);
    assert_memory_equal(a->data, "\xa8\xa9\xaa\xab", 4); /* old value */
    assert_memory_equal(d.bytes + a1 + 8, "\xa9\xaa\xab\xac", 4);

    assert_int_equal(counter(st, "GPU[0].RDMA", "out_reads"), 1);
    assert_int_equal(counter(st, "GPU[0].RDMA", "out_writes"), 1);
    assert_int_equal(counter(st, "GPU[0].RDMA", "out_atomics"), 1);
    assert_int_equal(counter(st, "GPU[1].RDMA", "in_reads"), 1);
    assert_int_equal(counter(st, "GPU[1].RDMA", "in_writes"), 1);
    assert_int_equal(counter(st, "GPU[1].RDMA", "in_atomics"), 1);
    assert_int_equal(counter(st, "GPU[1].RDMA", "out_writes"), 1);
    assert_int_equal(counter(st, "GPU[0].RDMA", "in_writes"), 1);
    /* Wire bytes GPU 0 sent: write 8+16, read 8, atomic 8+8; answers to
    ** GPU 1's write (8) and read (8+8). */
    assert_int_equal(counter(st, "GPU[0].RDMA", "bytes_out"),
                     24 + 8 + 16 + 8 + 16);
    duo_free(&d);
    stat_registry_free(st);
}

/* Latency. Connections: 1 GHz; inside a GPU 64 B/cycle + 1 cycle; the
** network 16 B/cycle + 100 cycles; memory 20 cycles. A component sees a
** message at the first edge after it arrives.
**   local read (probe on GPU 1 -> its memory), 64 B:
**     8 B request: 1 cy + 1 cy -> arrives 2000, taken 3000, answered
**     23000; 72 B answer: 2 cy + 1 cy -> 26000.
**   remote read (probe on GPU 0 -> RDMA 0 -> net -> RDMA 1 -> memory):
**     probe -> RDMA0        arrives 2000, taken 3000
**     RDMA0 -> RDMA1  8 B:  1 cy + 100 cy -> 104000, taken 105000
**     RDMA1 -> memory:      the local path's request + answer, 26000 - 3000
**                           after taking... arrives back 131000, taken 132000
**     RDMA1 -> RDMA0 72 B:  5 cy + 100 cy -> 237000, taken 238000
**     RDMA0 -> probe 72 B:  2 cy + 1 cy -> 241000
** So remote = local (26000) + 2 x link latency (200000) + serialisation of
** the request and answer on the link (1000 + 5000) + the extra hop to the
** engine and back (2000 + 3000) + one edge per engine visit (4 x 1000). */
static void test_latency_exact(void **state)
{
    (void)state;
    duo_params p;
    duo_params_default(&p);
    stat_registry *st = stat_registry_new();
    duo d;
    duo_build(&d, &p, st);
    mem_msg *lr = probe_req(&d.p[1], MEM_READ, GPU_BYTES + 0x400, 64,
                            simplemem_port(d.mem[1]));
    probe_send_at(&d.p[1], lr, 0);
    assert_int_equal(eng_run(d.eng), MGS_OK);
    mgs_time t_local = 0;
    assert_non_null(probe_answer(&d.p[1], lr, &t_local));
    assert_int_equal(t_local, 26000);

    mgs_time t0 = 1000000; /* quiet start, on an edge */
    mem_msg *rr = remote_req(&d, 0, MEM_READ, GPU_BYTES + 0x400, 64);
    probe_send_at(&d.p[0], rr, t0);
    assert_int_equal(eng_run(d.eng), MGS_OK);
    mgs_time t = 0;
    mem_msg *a = probe_answer(&d.p[0], rr, &t);
    assert_non_null(a);
    assert_memory_equal(a->data, d.bytes + GPU_BYTES + 0x400, 64);
    mgs_time ser = 1000 + 5000, hops = 2000 + 3000, visits = 4 * 1000;
    assert_int_equal(t - t0, t_local + 2 * p.net.latency + ser + hops + visits);
    assert_int_equal(t - t0, 241000);
    /* The engine's own view: taken at +3000, answer handed back at
    ** +238000. */
    assert_int_equal(counter(st, "GPU[0].RDMA", "remote_latency.max"),
                     235000);
    assert_int_equal(counter(st, "GPU[0].RDMA", "remote_latency.count"), 1);
    duo_free(&d);
    stat_registry_free(st);
}

/* Streaming: 64 remote 64-byte reads issued back to back. The network
** lane must cover the link's bandwidth-delay product (105 cycles / 5 per
** answer = 21 messages; 32 given). Answers are 72 bytes = 5 link cycles,
** so after the first one (241 cycles, test_latency_exact) one arrives
** every 5 cycles: the link, not the engine, is the bottleneck (64 B per
** 5 ns = 12.8 GB/s of data on a 16 GB/s link). */
static void test_streaming_bandwidth(void **state)
{
    (void)state;
    duo_params p;
    duo_params_default(&p);
    p.net.lane_capacity = 32;
    duo d;
    duo_build(&d, &p, NULL);
    mem_msg *r[64];
    for (int i = 0; i < 64; i++) {
        r[i] = remote_req(&d, 0, MEM_READ, GPU_BYTES + 0x1000 + 64u * i, 64);
        probe_send_at(&d.p[0], r[i], 0);
    }
    assert_int_equal(eng_run(d.eng), MGS_OK);
    mgs_time first = 0, last = 0;
    for (int i = 0; i < 64; i++) {
        mgs_time t = 0;
        mem_msg *a = probe_answer(&d.p[0], r[i], &t);
        assert_non_null(a);
        assert_memory_equal(a->data, d.bytes + GPU_BYTES + 0x1000 + 64 * i,
                            64);
        if (i == 0)
            first = t;
        assert_true(t >= last); /* in order: one path, FIFO everywhere */
        last = t;
    }
    print_message("# first %llu ps, last %llu ps\n",
                  (unsigned long long)first, (unsigned long long)last);
    /* 240 ns, not 241: the home engine is already ticking when the first
    ** memory answer lands on its clock edge, so it takes it at that same
    ** edge instead of the next (sim/comp.h: only a sleeping component
    ** waits for the edge strictly after the arrival). */
    assert_int_equal(first, 240000);
    assert_int_equal(last - first, 63 * 5 * 1000);
    duo_free(&d);
}

/* 64 remote reads through a fast network: the answers (72 B) take two
** cycles each on a 64 B/cycle crossbar lane, so one inside lane delivers
** one answer every 2 ns; four lanes deliver them as fast as the network
** (one message per cycle here; the home's memory answers on a lane twice
** as wide, so it keeps up). Returns the time from the first answer to
** the last. */
static mgs_time stream_answers(uint32_t xbar_ports)
{
    duo_params p;
    duo_params_default(&p);
    p.rdma.xbar_ports = xbar_ports;
    p.net.bytes_per_cycle = 1024;         /* never the bottleneck */
    p.net.lane_capacity = 64;
    p.gpu_conn.lane_capacity = 64;
    p.mem.requests_per_cycle = 8;
    p.mem.queue = 128;
    p.home_widen = 2;
    duo d;
    duo_build(&d, &p, NULL);
    enum { N = 64 };  /* the probe holds 64 */
    mem_msg *r[N];
    for (int i = 0; i < N; i++) {
        r[i] = remote_req(&d, 0, MEM_READ, GPU_BYTES + 64u * i, 64);
        probe_send_at(&d.p[0], r[i], 0);
    }
    assert_int_equal(eng_run(d.eng), MGS_OK);
    mgs_time first = UINT64_MAX, last = 0;
    for (int i = 0; i < N; i++) {
        mgs_time t = 0;
        mem_msg *a = probe_answer(&d.p[0], r[i], &t);
        assert_non_null(a);
        assert_memory_equal(a->data, d.bytes + GPU_BYTES + 64 * i, 64);
        first = t < first ? t : first;
        last = t > last ? t : last;
    }
    duo_free(&d);
    return last - first;
}

static void test_xbar_ports_widen(void **state)
{
    (void)state;
    mgs_time one = stream_answers(1);
    mgs_time four = stream_answers(4);
    print_message("# 64 answers: 1 lane %llu ps, 4 lanes %llu ps\n",
                  (unsigned long long)one, (unsigned long long)four);
    assert_true(one >= 63 * 2000);      /* 2 cycles per answer */
    assert_true(four <= 63 * 1000 + 2000); /* the network's pace */
}

/* A 128-byte read and write spanning two 64-byte lines go as two parts
** each, and the answers are assembled in place. */
static void test_split_two_lines(void **state)
{
    (void)state;
    duo_params p;
    duo_params_default(&p);
    stat_registry *st = stat_registry_new();
    duo d;
    duo_build(&d, &p, st);
    uint64_t addr = GPU_BYTES + 0x800;
    mem_msg *w = remote_req(&d, 0, MEM_WRITE, addr, 128);
    for (int i = 0; i < 128; i++)
        w->data[i] = (uint8_t)(255 - i);
    w->base.bytes += 128;
    probe_send_at(&d.p[0], w, 0);
    mem_msg *r = remote_req(&d, 0, MEM_READ, addr, 128);
    probe_send_at(&d.p[0], r, 0);
    assert_int_equal(eng_run(d.eng), MGS_OK);
    mem_msg *a = probe_answer(&d.p[0], r, NULL);
    assert_non_null(a);
    assert_int_equal(a->size, 128);
    for (int i = 0; i < 128; i++)
        assert_int_equal(a->data[i], (uint8_t)(255 - i));
    assert_memory_equal(d.bytes + addr, a->data, 128);
    assert_int_equal(counter(st, "GPU[0].RDMA", "out_reads"), 2);
    assert_int_equal(counter(st, "GPU[0].RDMA", "out_writes"), 2);
    assert_int_equal(counter(st, "GPU[1].RDMA", "in_reads"), 2);
    duo_free(&d);
    stat_registry_free(st);
}

/* 32-byte packets: a masked 64-byte write goes as two parts, each with its
** slice of the byte mask; a 64-byte read comes back whole. */
static void test_split_masked_write(void **state)
{
    (void)state;
    duo_params p;
    duo_params_default(&p);
    p.rdma.line = 32;
    duo d;
    duo_build(&d, &p, NULL);
    uint64_t addr = GPU_BYTES + 0xc0;
    uint64_t mask = 0x0f0f0000ffff00ffull;
    uint8_t before[64];
    memcpy(before, d.bytes + addr, 64);
    mem_msg *w = remote_req(&d, 0, MEM_WRITE, addr, 64);
    for (int i = 0; i < 64; i++)
        w->data[i] = (uint8_t)(0x80 | i);
    w->mask = mask;
    w->base.bytes += 64;
    probe_send_at(&d.p[0], w, 0);
    mem_msg *r = remote_req(&d, 0, MEM_READ, addr, 64);
    probe_send_at(&d.p[0], r, 0);
    assert_int_equal(eng_run(d.eng), MGS_OK);
    mem_msg *a = probe_answer(&d.p[0], r, NULL);
    assert_non_null(a);
    for (int i = 0; i < 64; i++) {
        uint8_t want = ((mask >> i) & 1) ? (uint8_t)(0x80 | i) : before[i];
        assert_int_equal(d.bytes[addr + i], want);
        assert_int_equal(a->data[i], want);
    }
    duo_free(&d);
}

/* Addresses homed on the requester, on no GPU, and a flush. */
static void test_misrouted_and_ctrl(void **state)
{
    (void)state;
    duo_params p;
    duo_params_default(&p);
    stat_registry *st = stat_registry_new();
    duo d;
    duo_build(&d, &p, st);
    mem_msg *own = remote_req(&d, 0, MEM_READ, 0x100, 4);
    mem_msg *none = remote_req(&d, 0, MEM_WRITE, 5 * GPU_BYTES, 4);
    mem_msg *fl = remote_req(&d, 0, MEM_FLUSH, 0, 0);
    mem_msg *ok = remote_req(&d, 0, MEM_READ, GPU_BYTES, 4);
    probe_send_at(&d.p[0], own, 0);
    probe_send_at(&d.p[0], none, 0);
    probe_send_at(&d.p[0], fl, 0);
    probe_send_at(&d.p[0], ok, 0);
    assert_int_equal(eng_run(d.eng), MGS_OK);
    mem_msg *a = probe_answer(&d.p[0], own, NULL);
    assert_non_null(a);
    assert_true(a->flags & MEM_F_FAULT);
    a = probe_answer(&d.p[0], none, NULL);
    assert_non_null(a);
    assert_true(a->flags & MEM_F_FAULT);
    a = probe_answer(&d.p[0], fl, NULL);
    assert_non_null(a);
    assert_int_equal(a->base.type, MEM_CTRL_RSP);
    assert_false(a->flags & MEM_F_FAULT);
    a = probe_answer(&d.p[0], ok, NULL);
    assert_non_null(a);
    assert_false(a->flags & MEM_F_FAULT);
    assert_int_equal(counter(st, "GPU[0].RDMA", "faults"), 2);
    assert_int_equal(counter(st, "GPU[0].RDMA", "ctrl"), 1);
    assert_int_equal(counter(st, "GPU[0].RDMA", "out_reads"), 1);
    duo_free(&d);
    stat_registry_free(st);
}

/* One-entry tables, one-message buffers and one-message lanes, both GPUs
** hammering each other: everything completes with the right data, the
** tables never exceed one entry, and the stalls are counted. */
static void test_tiny_tables(void **state)
{
    (void)state;
    duo_params p;
    duo_params_default(&p);
    p.rdma.outgoing_entries = 1;
    p.rdma.incoming_entries = 1;
    p.rdma.inside_buffer = 1;
    p.rdma.outside_buffer = 1;
    p.rdma.local_buffer = 1;
    p.net.lane_capacity = 1;
    p.gpu_conn.lane_capacity = 1;
    p.mem.buffer = 1;
    p.mem.queue = 1;
    stat_registry *st = stat_registry_new();
    duo d;
    duo_build(&d, &p, st);
    duo_watch(&d);
    enum { N = 30 };
    mem_msg *w[2][N], *r[2][N];
    for (int g = 0; g < 2; g++) {
        uint64_t base = (uint64_t)(1 - g) * GPU_BYTES + 0x3000;
        for (int i = 0; i < N; i++) {
            w[g][i] = remote_req(&d, g, MEM_WRITE, base + 8u * i, 8);
            for (int b = 0; b < 8; b++)
                w[g][i]->data[b] = (uint8_t)(g * 100 + i + b);
            w[g][i]->base.bytes += 8;
            probe_send_at(&d.p[g], w[g][i], 0);
        }
    }
    for (int g = 0; g < 2; g++) {
        uint64_t base = (uint64_t)(1 - g) * GPU_BYTES + 0x3000;
        for (int i = 0; i < N; i++) {
            r[g][i] = remote_req(&d, g, MEM_READ, base + 8u * i, 8);
            probe_send_at(&d.p[g], r[g][i], 0);
        }
    }
    assert_int_equal(eng_run(d.eng), MGS_OK);
    for (int g = 0; g < 2; g++)
        for (int i = 0; i < N; i++) {
            assert_non_null(probe_answer(&d.p[g], w[g][i], NULL));
            mem_msg *a = probe_answer(&d.p[g], r[g][i], NULL);
            assert_non_null(a);
            for (int b = 0; b < 8; b++)
                assert_int_equal(a->data[b], (uint8_t)(g * 100 + i + b));
        }
    assert_int_equal(d.max_parents, 1);
    assert_int_equal(d.max_out, 1);
    assert_int_equal(d.max_in, 1);
    assert_true(counter(st, "GPU[0].RDMA", "stall_outgoing_full") > 0);
    /* The back-pressure reaches the requesters: their sends were refused. */
    assert_true(counter(st, "GPU[0].Conn", "refused") > 0);
    assert_true(counter(st, "GPU[1].Conn", "refused") > 0);
    duo_free(&d);
    stat_registry_free(st);
}

/* ---- random tester across GPUs ------------------------------------------ */

#define MAXG 4

/* n GPUs, each: tester agents -> [L1s -> L2 banks] -> memory, remote
** addresses through the RDMA engine (rdma_route_split), engines joined by
** one network connection. Without caches the agents talk to the memory and
** the RDMA engine directly. */
typedef struct mgpu_params {
    uint32_t ngpus;
    bool caches;
    duo_params base;             /* rdma, memory, connections */
    cache_config l1, l2;
    uint32_t max_size;           /* tester accesses */
    uint64_t ops_per_agent;
    uint64_t seed;
} mgpu_params;

typedef struct mgpu {
    sim_engine *eng;
    mem_pool *pool;
    stat_registry *st;
    uint8_t *bytes;
    uint32_t n;
    mem_array arr[MAXG];
    simplemem *mem[MAXG];
    rdma_engine *rdma[MAXG];
    cache *l1[MAXG][2], *l2[MAXG][2];
    sim_port *l2_tops[MAXG][2], *mem_port[MAXG][1];
    sim_conn *top[MAXG], *mid[MAXG], *bot[MAXG], *net, *ctrl;
    probe ctl;
    mem_tester *t;
} mgpu;

static void mgpu_params_default(mgpu_params *p)
{
    memset(p, 0, sizeof *p);
    p->ngpus = 2;
    duo_params_default(&p->base);
    mem_world_cache_defaults(&p->l1, &p->l2); /* as mem_world's */
    p->max_size = 128;
    p->ops_per_agent = 1500;
    p->seed = 7;
}

static void mgpu_build(mgpu *w, const mgpu_params *p)
{
    memset(w, 0, sizeof *w);
    w->n = p->ngpus;
    w->eng = eng_new(NULL);
    w->pool = mem_pool_new();
    w->st = stat_registry_new();
    w->bytes = mgs_xmalloc(w->n * GPU_BYTES);
    mem_tester_fill_initial(w->bytes, 0, w->n * GPU_BYTES);
    w->net = conn_new(w->eng, "Net", &p->base.net, w->st);
    w->ctrl = conn_new(w->eng, "Ctrl", &p->base.gpu_conn, NULL);
    probe_init(&w->ctl, w->eng, w->pool, "Ctl");
    conn_plug(w->ctrl, &w->ctl.port);
    sim_port *outs[MAXG];
    for (uint32_t g = 0; g < w->n; g++) {
        char *gn = name_new(NULL, "GPU", g);
        char *n = name_new(gn, "Mem", -1);
        w->arr[g] = (mem_array){w->bytes + g * GPU_BYTES, g * GPU_BYTES,
                                GPU_BYTES};
        mem_backing b;
        mem_array_backing(&b, &w->arr[g]);
        w->mem[g] = simplemem_new(w->eng, n, &p->base.mem, w->pool, &b, w->st);
        free(n);
        rdma_config rc = p->base.rdma;
        rc.gpu = g;
        rc.ngpus = w->n;
        assert_int_equal(rdma_config_validate(&rc), MGS_OK);
        n = name_new(gn, "RDMA", -1);
        w->rdma[g] = rdma_new(w->eng, n, &rc, w->pool, w->st);
        free(n);
        const char *cn[3] = {"Top", "Mid", "Bot"};
        sim_conn **cs[3] = {&w->top[g], &w->mid[g], &w->bot[g]};
        for (int i = 0; i < 3; i++) {
            n = name_new(gn, cn[i], -1);
            *cs[i] = conn_new(w->eng, n, &p->base.gpu_conn, NULL);
            free(n);
        }
        conn_plug(w->bot[g], simplemem_port(w->mem[g]));
        /* The engine sits beside the L2 banks, or beside the memory. */
        sim_conn *side = p->caches ? w->mid[g] : w->bot[g];
        rdma_plug(w->rdma[g], side);
        conn_plug(w->net, rdma_outside(w->rdma[g]));
        outs[g] = rdma_outside(w->rdma[g]);
        w->mem_port[g][0] = simplemem_port(w->mem[g]);
        mem_route local;
        if (p->caches) {
            mem_route to_mem;
            mem_route_single(&to_mem, simplemem_port(w->mem[g]));
            for (int i = 0; i < 2; i++) {
                n = name_new(gn, "L2", i);
                w->l2[g][i] = cache_new(w->eng, n, &p->l2, w->pool, w->st);
                free(n);
                cache_set_route(w->l2[g][i], &to_mem);
                conn_plug(w->bot[g], cache_bottom(w->l2[g][i]));
                conn_plug(w->mid[g], cache_top(w->l2[g][i]));
                conn_plug(w->ctrl, cache_ctrl(w->l2[g][i]));
                w->l2_tops[g][i] = cache_top(w->l2[g][i]);
            }
            mem_route_interleaved(&local, w->l2_tops[g], 2, 128);
            mem_route split;
            rdma_route_split(&split, w->l2_tops[g], 2, 128, g * GPU_BYTES,
                             (g + 1) * GPU_BYTES, rdma_inside(w->rdma[g]));
            for (int i = 0; i < 2; i++) {
                n = name_new(gn, "L1", i);
                w->l1[g][i] = cache_new(w->eng, n, &p->l1, w->pool, w->st);
                free(n);
                cache_set_route(w->l1[g][i], &split);
                conn_plug(w->mid[g], cache_bottom(w->l1[g][i]));
                conn_plug(w->top[g], cache_top(w->l1[g][i]));
                conn_plug(w->ctrl, cache_ctrl(w->l1[g][i]));
            }
        } else {
            mem_route_single(&local, simplemem_port(w->mem[g]));
        }
        rdma_set_local_route(w->rdma[g], &local);
        free(gn);
    }
    for (uint32_t g = 0; g < w->n; g++)
        rdma_set_peers(w->rdma[g], outs, w->n);

    mem_tester_config tc;
    mem_tester_config_default(&tc);
    tc.agents = 2 * w->n;
    tc.base = 0;
    tc.size = w->n * GPU_BYTES;
    tc.unit = 128;
    tc.max_size = p->max_size;
    tc.ops_per_agent = p->ops_per_agent;
    tc.max_outstanding = 8;
    tc.mode = MEM_TESTER_PRIVATE; /* slice i lies in GPU i / 2's memory */
    tc.seed = p->seed;
    assert_int_equal(mem_tester_config_validate(&tc), MGS_OK);
    w->t = mem_tester_new(w->eng, "Tester", &tc, w->pool, w->st);
    for (uint32_t i = 0; i < tc.agents; i++) {
        uint32_t g = i % w->n; /* so that most agents' slices are remote */
        mem_route r;
        if (p->caches) {
            mem_route_single(&r, cache_top(w->l1[g][(i / w->n) % 2]));
            conn_plug(w->top[g], mem_tester_port(w->t, i));
        } else {
            rdma_route_split(&r, w->mem_port[g], 1, 64, g * GPU_BYTES,
                             (g + 1) * GPU_BYTES, rdma_inside(w->rdma[g]));
            conn_plug(w->bot[g], mem_tester_port(w->t, i));
        }
        mem_tester_set_route(w->t, i, &r);
        mem_tester_set_gpu(w->t, i, (int32_t)g);
    }
}

static void mgpu_check_hook(const sim_hook_ctx *ctx, void *ud)
{
    (void)ctx;
    const mgpu *w = ud;
    for (uint32_t g = 0; g < w->n; g++)
        assert_int_equal(rdma_check(w->rdma[g]), 1);
}

/* Writes back every cache (L1s first, then L2s) so memory is final. */
static void mgpu_flush(mgpu *w)
{
    for (int level = 0; level < 2; level++) {
        mgs_time t = eng_now(w->eng);
        for (uint32_t g = 0; g < w->n; g++)
            for (int i = 0; i < 2; i++) {
                cache *c = level == 0 ? w->l1[g][i] : w->l2[g][i];
                if (!c)
                    continue;
                mem_msg *m = probe_req(&w->ctl, MEM_FLUSH, 0, 0, cache_ctrl(c));
                m->flags = 0;
                probe_send_at(&w->ctl, m, t);
            }
        assert_int_equal(eng_run(w->eng), MGS_OK);
    }
}

static void mgpu_free(mgpu *w)
{
    mem_tester_free(w->t);
    probe_fini(&w->ctl);
    for (uint32_t g = 0; g < w->n; g++) {
        for (int i = 0; i < 2; i++) {
            cache_free(w->l1[g][i]);
            cache_free(w->l2[g][i]);
        }
        rdma_free(w->rdma[g]);
        simplemem_free(w->mem[g]);
        conn_free(w->top[g]);
        conn_free(w->mid[g]);
        conn_free(w->bot[g]);
    }
    conn_free(w->net);
    conn_free(w->ctrl);
    eng_free(w->eng);
    assert_int_equal(mem_pool_outstanding(w->pool), 0);
    mem_pool_free(w->pool);
    stat_registry_free(w->st);
    free(w->bytes);
}

typedef struct random_run {
    uint64_t mismatches, checked;
    bool done, memory_matches;
    uint64_t remote_parts[MAXG];
    uint64_t incoming_stalls;     /* all engines; credits keep it 0 */
    char *stats;
} random_run;

static void run_random(const mgpu_params *p, random_run *out)
{
    memset(out, 0, sizeof *out);
    mgpu w;
    mgpu_build(&w, p);
    eng_hook_add(w.eng, SIM_HOOK_AFTER_EVENT, mgpu_check_hook, &w);
    assert_int_equal(eng_run(w.eng), MGS_OK);
    out->done = mem_tester_done(w.t);
    out->mismatches = mem_tester_mismatches(w.t);
    out->checked = mem_tester_checked(w.t);
    if (out->mismatches)
        mem_tester_report(w.t, stderr);
    if (p->caches)
        mgpu_flush(&w);
    out->memory_matches = memcmp(mem_tester_shadow(w.t), w.bytes,
                                 w.n * GPU_BYTES) == 0;
    for (uint32_t g = 0; g < w.n; g++) {
        char *gn = name_new(NULL, "GPU", g);
        char *n = name_new(gn, "RDMA", -1);
        out->remote_parts[g] = counter(w.st, n, "out_reads") +
                               counter(w.st, n, "out_writes") +
                               counter(w.st, n, "out_atomics");
        out->incoming_stalls += counter(w.st, n, "stall_incoming_full");
        free(n);
        free(gn);
    }
    out->stats = mgs_xstrdup("");
    stat_registry_foreach(w.st, eng_now(w.eng), stats_row_append,
                          &out->stats);
    mgpu_free(&w);
}

static void check_random(const random_run *r, uint32_t ngpus,
                         uint64_t min_remote)
{
    print_message("# checked %llu bytes, remote parts %llu %llu\n",
                  (unsigned long long)r->checked,
                  (unsigned long long)r->remote_parts[0],
                  (unsigned long long)r->remote_parts[1]);
    assert_true(r->done);
    assert_int_equal(r->mismatches, 0);
    assert_true(r->checked > 1000);
    assert_true(r->memory_matches);
    assert_int_equal(r->incoming_stalls, 0);
    for (uint32_t g = 0; g < ngpus; g++)
        assert_true(r->remote_parts[g] >= min_remote);
}

/* No caches, 128-byte accesses (split in two parts), both directions. */
static void test_random_both_sides(void **state)
{
    (void)state;
    mgpu_params p;
    mgpu_params_default(&p);
    random_run r;
    run_random(&p, &r);
    check_random(&r, 2, 500);
    free(r.stats);
}

static void test_random_small_tables(void **state)
{
    (void)state;
    mgpu_params p;
    mgpu_params_default(&p);
    p.seed = 11;
    p.base.rdma.outgoing_entries = 2;
    p.base.rdma.incoming_entries = 3;
    p.base.rdma.credits_per_home = 2;
    p.base.rdma.outside_buffer = 2;
    p.base.net.lane_capacity = 1;
    random_run r;
    run_random(&p, &r);
    check_random(&r, 2, 500);
    free(r.stats);
}

/* The full path of seed 002 Fig. 5.8a: L1 -> RDMA -> network -> RDMA ->
** home L2 (write-back, atomics performed there) -> memory; after a flush
** every GPU's memory equals the reference. */
static void test_random_with_caches(void **state)
{
    (void)state;
    mgpu_params p;
    mgpu_params_default(&p);
    p.caches = true;
    p.max_size = 64; /* L1 requests stay within one 64-byte line */
    p.seed = 5;
    random_run r;
    run_random(&p, &r);
    check_random(&r, 2, 200);
    free(r.stats);
}

/* Four GPUs all to all, small tables: one credit per home (3 incoming
** entries / 3 peers) while each engine could have 4 parts out: without
** credits, two requesters could overrun a home's incoming table. */
static void test_random_four_gpus(void **state)
{
    (void)state;
    mgpu_params p;
    mgpu_params_default(&p);
    p.ngpus = 4;
    p.ops_per_agent = 600;
    p.seed = 9;
    p.base.rdma.outgoing_entries = 4;
    p.base.rdma.incoming_entries = 3;
    random_run r;
    run_random(&p, &r);
    check_random(&r, 4, 100);
    free(r.stats);
}

static void test_determinism(void **state)
{
    (void)state;
    mgpu_params p;
    mgpu_params_default(&p);
    p.caches = true;
    p.max_size = 64;
    p.ops_per_agent = 600;
    random_run a, b;
    run_random(&p, &a);
    run_random(&p, &b);
    assert_string_equal(a.stats, b.stats);
    assert_non_null(strstr(a.stats, "GPU[0].RDMA remote_latency.count"));
    free(a.stats);
    free(b.stats);
}

static void test_config_validate(void **state)
{
    (void)state;
    rdma_config c;
    rdma_config_default(&c);
    assert_int_equal(rdma_config_validate(&c), MGS_OK);
    /* Automatic sizes: every outgoing entry may go to one home, and the
    ** incoming table is the deadlock-free minimum for every peer. */
    assert_int_equal(rdma_config_credits(&c), 1024);
    assert_int_equal(rdma_config_incoming(&c), 1024);
    c.ngpus = 8;
    assert_int_equal(rdma_config_credits(&c), 1024);
    assert_int_equal(rdma_config_incoming(&c), 7 * 1024);
    assert_int_equal(rdma_config_validate(&c), MGS_OK);
    c.credits_per_home = 10;  /* given credits: incoming follows */
    assert_int_equal(rdma_config_incoming(&c), 70);
    rdma_config_default(&c);
    c.ngpus = 4;
    c.incoming_entries = 64;  /* given incoming: credits follow */
    assert_int_equal(rdma_config_credits(&c), 21);
    assert_int_equal(rdma_config_validate(&c), MGS_OK);
    c.credits_per_home = 22; /* 22 x 3 > 64 */
    assert_int_equal(rdma_config_validate(&c), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "deadlock"));
    assert_non_null(strstr(mgs_error_msg(), "rdma.credits_per_home"));
    assert_non_null(strstr(mgs_error_msg(), "rdma.incoming_entries"));
    c.credits_per_home = 21; /* 21 x 3 <= 64: the bound itself is fine */
    assert_int_equal(rdma_config_validate(&c), MGS_OK);
    rdma_config_default(&c);
    c.xbar_ports = 0;
    assert_int_equal(rdma_config_validate(&c), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "rdma.xbar_ports"));
    c.xbar_ports = RDMA_MAX_XBAR_PORTS + 1;
    assert_int_equal(rdma_config_validate(&c), MGS_EINVAL);
    rdma_config_default(&c);
    c.requests_per_cycle = 0;
    assert_int_equal(rdma_config_validate(&c), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "rdma.requests_per_cycle"));
    rdma_config_default(&c);
    c.outgoing_entries = 0;
    assert_int_equal(rdma_config_validate(&c), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "rdma.outgoing_entries"));
    rdma_config_default(&c);
    c.line = 96;
    assert_int_equal(rdma_config_validate(&c), MGS_EINVAL);
    rdma_config_default(&c);
    c.ngpus = 0;
    assert_int_equal(rdma_config_validate(&c), MGS_EINVAL);
    rdma_config_default(&c);
    c.ngpus = 1; /* one GPU: host frames only */
    c.gpu = 0;
    assert_int_equal(rdma_config_validate(&c), MGS_OK);
    rdma_config_default(&c);
    c.gpu = 2;
    assert_int_equal(rdma_config_validate(&c), MGS_EINVAL);
    rdma_config_default(&c);
    c.ngpus = 8;
    c.incoming_entries = 4; /* fewer than peers */
    assert_int_equal(rdma_config_validate(&c), MGS_EINVAL);
    rdma_config_default(&c);
    c.bytes_per_gpu = 100; /* not a multiple of the line */
    assert_int_equal(rdma_config_validate(&c), MGS_EINVAL);
}

static uint32_t home_by_page(void *ud, uint64_t paddr)
{
    (void)ud;
    return (uint32_t)((paddr >> 12) & 1); /* 4 KB pages alternate */
}

static void test_home_map_and_route(void **state)
{
    (void)state;
    duo_params p;
    duo_params_default(&p);
    duo d;
    duo_build(&d, &p, NULL);
    assert_int_equal(rdma_home_of(d.rdma[0], GPU_BYTES - 1), 0);
    assert_int_equal(rdma_home_of(d.rdma[0], GPU_BYTES), 1);
    assert_true(rdma_home_of(d.rdma[0], 2 * GPU_BYTES) >= 2);
    rdma_set_home_map(d.rdma[0], home_by_page, NULL);
    assert_int_equal(rdma_home_of(d.rdma[0], 0x1000), 1);
    assert_int_equal(rdma_home_of(d.rdma[0], 0x2000), 0);
    sim_port *banks[2] = {&d.p[0].port, &d.p[1].port};
    mem_route r;
    rdma_route_split(&r, banks, 2, 256, 0x1000, 0x2000,
                     rdma_inside(d.rdma[0]));
    assert_ptr_equal(mem_route_lookup(&r, 0x1000), banks[0]);
    assert_ptr_equal(mem_route_lookup(&r, 0x1100), banks[1]);
    assert_ptr_equal(mem_route_lookup(&r, 0x0fff), rdma_inside(d.rdma[0]));
    assert_ptr_equal(mem_route_lookup(&r, 0x2000), rdma_inside(d.rdma[0]));
    duo_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_remote_read_write_atomic),
        cmocka_unit_test(test_latency_exact),
        cmocka_unit_test(test_streaming_bandwidth),
        cmocka_unit_test(test_xbar_ports_widen),
        cmocka_unit_test(test_split_two_lines),
        cmocka_unit_test(test_split_masked_write),
        cmocka_unit_test(test_misrouted_and_ctrl),
        cmocka_unit_test(test_tiny_tables),
        cmocka_unit_test(test_random_both_sides),
        cmocka_unit_test(test_random_small_tables),
        cmocka_unit_test(test_random_with_caches),
        cmocka_unit_test(test_random_four_gpus),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_config_validate),
        cmocka_unit_test(test_home_map_and_route),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
