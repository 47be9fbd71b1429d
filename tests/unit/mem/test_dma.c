/* Tests for src/mem/dma.c. A driver component sends copy commands to
** GPU 0's DMA engine; host memory is a simplemem over the process's memory
** (dma_host_backing) behind a PCIe-like connection (16 B/cycle at 1 GHz,
** 100 cycles); device memory is a simplemem per GPU, and GPU 1 is reached
** through the RDMA engines for peer copies. Checked: h2d then d2h round
** trips the bytes and takes the time the link bandwidth predicts; copies
** at odd alignments; peer copies over RDMA; bounded chunks in flight;
** bad commands and faults; queued commands; determinism. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mem/dma.h"
#include "mem/rdma.h"
#include "mem_world.h"

#define GPU_BYTES 0x40000ull /* 256 KB of device memory per GPU */
#define DRV_MAX 16

/* ---- a driver: sends commands at given times, records completions ----- */

typedef struct drv {
    sim_comp base;
    sim_port port;
    sim_event ev;
    dma_msg *out[DRV_MAX];
    mgs_time out_at[DRV_MAX];
    uint32_t nout, next;
    dma_msg *done[DRV_MAX];
    mgs_time done_at[DRV_MAX];
    uint32_t ndone;
} drv;

static void drv_pump(drv *d)
{
    mgs_time now = eng_now(d->base.eng);
    while (d->next < d->nout && d->out_at[d->next] <= now) {
        if (port_send(&d->port, &d->out[d->next]->base) != MGS_OK)
            return;
        d->next++;
    }
    if (d->next < d->nout && !d->ev.scheduled)
        eng_schedule(d->base.eng, &d->ev, d->out_at[d->next]);
}

static void drv_handle(sim_comp *c, sim_event *ev)
{
    (void)ev;
    drv_pump((drv *)c);
}

static void drv_port_free(sim_comp *c, sim_port *p)
{
    (void)p;
    drv_pump((drv *)c);
}

static void drv_recv(sim_comp *c, sim_port *p)
{
    drv *d = (drv *)c;
    sim_msg *m;
    while ((m = port_retrieve(p))) {
        assert_true(d->ndone < DRV_MAX);
        d->done_at[d->ndone] = eng_now(c->eng);
        d->done[d->ndone++] = (dma_msg *)m;
    }
}

static const sim_comp_ops drv_ops = {.kind = "Driver",
                                     .handle = drv_handle,
                                     .notify_recv = drv_recv,
                                     .notify_port_free = drv_port_free};

static void drv_send_at(drv *d, dma_msg *m, sim_port *dst, mgs_time t)
{
    m->base.dst = dst;
    d->out[d->nout] = m;
    d->out_at[d->nout++] = t;
    if (!d->ev.scheduled)
        eng_schedule(d->base.eng, &d->ev, t);
}

/* ---- the rig -------------------------------------------------------------- */

typedef struct rig_params {
    dma_config dma;
    sim_conn_config pcie;
    simplemem_config host, dev;
    bool no_host_route;          /* as on the shared-memory platform */
} rig_params;

typedef struct rig {
    sim_engine *eng;
    mem_pool *pool;
    stat_registry *st;
    uint8_t *dev_bytes;          /* both GPUs' memory, [0, 2 * GPU_BYTES) */
    mem_array arr[2];
    simplemem *dev[2], *host;
    rdma_engine *rdma[2];
    dma_engine *dma;
    sim_conn *gpu_conn[2], *net, *pcie, *ctl;
    drv d;
    sim_port *local_ports[1];
    uint32_t max_inflight_seen;
} rig;

static void rig_params_default(rig_params *p)
{
    dma_config_default(&p->dma);
    conn_config_default(&p->pcie);
    p->pcie.bytes_per_cycle = 16;            /* PCIe 3.0 x16: 16 GB/s */
    conn_config_set_latency_cycles(&p->pcie, 100);
    /* A lane holds its messages until they arrive, so it must cover the
    ** link's bandwidth-delay product (105 cycles / 5 per message = 21
    ** messages), as a real link's flow-control credits do. */
    p->pcie.lane_capacity = 64;
    simplemem_config_default(&p->host);
    p->host.latency = 50;
    simplemem_config_default(&p->dev);
    p->dev.latency = 20;
    p->no_host_route = false;
}

static void inflight_hook(const sim_hook_ctx *ctx, void *ud)
{
    (void)ctx;
    rig *r = ud;
    assert_int_equal(dma_check(r->dma), 1);
    uint32_t n = dma_inflight(r->dma);
    if (n > r->max_inflight_seen)
        r->max_inflight_seen = n;
}

static void rig_build(rig *r, const rig_params *p)
{
    memset(r, 0, sizeof *r);
    r->eng = eng_new(NULL);
    r->pool = mem_pool_new();
    r->st = stat_registry_new();
    r->dev_bytes = mgs_xcalloc(2 * GPU_BYTES, 1);
    sim_conn_config cc, nc;
    conn_config_default(&cc);
    conn_config_set_latency_cycles(&cc, 1);
    conn_config_default(&nc);
    nc.bytes_per_cycle = 16;
    conn_config_set_latency_cycles(&nc, 100);
    r->net = conn_new(r->eng, "Net", &nc, r->st);
    r->pcie = conn_new(r->eng, "PCIe", &p->pcie, r->st);
    r->ctl = conn_new(r->eng, "Ctl", &cc, NULL);
    sim_port *outs[2];
    for (uint32_t g = 0; g < 2; g++) {
        char *gn = name_new(NULL, "GPU", g);
        char *n = name_new(gn, "Mem", -1);
        r->arr[g] = (mem_array){r->dev_bytes + g * GPU_BYTES, g * GPU_BYTES,
                                GPU_BYTES};
        mem_backing b;
        mem_array_backing(&b, &r->arr[g]);
        r->dev[g] = simplemem_new(r->eng, n, &p->dev, r->pool, &b, r->st);
        free(n);
        rdma_config rc;
        rdma_config_default(&rc);
        rc.gpu = g;
        rc.bytes_per_gpu = GPU_BYTES;
        n = name_new(gn, "RDMA", -1);
        r->rdma[g] = rdma_new(r->eng, n, &rc, r->pool, r->st);
        free(n);
        n = name_new(gn, "Conn", -1);
        r->gpu_conn[g] = conn_new(r->eng, n, &cc, NULL);
        free(n);
        free(gn);
        conn_plug(r->gpu_conn[g], simplemem_port(r->dev[g]));
        rdma_plug(r->rdma[g], r->gpu_conn[g]);
        conn_plug(r->net, rdma_outside(r->rdma[g]));
        mem_route to_mem;
        mem_route_single(&to_mem, simplemem_port(r->dev[g]));
        rdma_set_local_route(r->rdma[g], &to_mem);
        outs[g] = rdma_outside(r->rdma[g]);
    }
    for (uint32_t g = 0; g < 2; g++)
        rdma_set_peers(r->rdma[g], outs, 2);

    mem_backing hb;
    dma_host_backing(&hb);
    r->host = simplemem_new(r->eng, "Host", &p->host, r->pool, &hb, r->st);
    dma_config dc = p->dma;
    assert_int_equal(dma_config_validate(&dc), MGS_OK);
    r->dma = dma_new(r->eng, "GPU[0].DMA", &dc, r->pool, r->st);
    conn_plug(r->pcie, dma_host(r->dma));
    conn_plug(r->pcie, simplemem_port(r->host));
    conn_plug(r->gpu_conn[0], dma_device(r->dma));
    comp_init(&r->d.base, r->eng, &drv_ops, "Driver", 0);
    port_init(&r->d.port, &r->d.base, "port", DRV_MAX);
    eng_event_init(&r->d.ev, &r->d.base, 1, NULL);
    conn_plug(r->ctl, &r->d.port);
    conn_plug(r->ctl, dma_ctrl(r->dma));
    mem_route hr, dr;
    mem_route_single(&hr, simplemem_port(r->host));
    r->local_ports[0] = simplemem_port(r->dev[0]);
    rdma_route_split(&dr, r->local_ports, 1, 64, 0, GPU_BYTES,
                     rdma_inside(r->rdma[0]));
    if (!p->no_host_route)
        dma_set_host_route(r->dma, &hr);
    dma_set_device_route(r->dma, &dr);
    eng_hook_add(r->eng, SIM_HOOK_AFTER_EVENT, inflight_hook, r);
}

static void rig_free(rig *r)
{
    port_fini(&r->d.port);
    comp_fini(&r->d.base);
    dma_free(r->dma);
    simplemem_free(r->host);
    for (int g = 0; g < 2; g++) {
        rdma_free(r->rdma[g]);
        simplemem_free(r->dev[g]);
        conn_free(r->gpu_conn[g]);
    }
    conn_free(r->net);
    conn_free(r->pcie);
    conn_free(r->ctl);
    eng_free(r->eng);
    assert_int_equal(mem_pool_outstanding(r->pool), 0);
    mem_pool_free(r->pool);
    stat_registry_free(r->st);
    free(r->dev_bytes);
}

static uint64_t hptr(const void *p) { return (uint64_t)(uintptr_t)p; }

static uint64_t counter(stat_registry *st, const char *comp,
                        const char *metric)
{
    return stats_counter(st, comp, metric);
}

/* Runs one command to completion; returns its duration in ps. */
static mgs_time run_copy(rig *r, dma_msg *m)
{
    mgs_time t0 = eng_now(r->eng);
    uint32_t before = r->d.ndone;
    drv_send_at(&r->d, m, dma_ctrl(r->dma), t0);
    assert_int_equal(eng_run(r->eng), MGS_OK);
    assert_int_equal(r->d.ndone, before + 1);
    assert_ptr_equal(r->d.done[before], m);
    assert_int_equal(m->base.type, DMA_COPY_DONE);
    return r->d.done_at[before] - t0;
}

/* ---- tests ---------------------------------------------------------------- */

/* 64 KB host -> device -> another host buffer. The host-to-device
** direction of the link carries one 72-byte read answer per 64-byte chunk:
** ceil(72 / 16) = 5 cycles each, so 1024 chunks need at least 5120 cycles;
** on top comes at most one chunk's round trip (stated bound: 400 cycles:
** link 2 x 100 + host 50 + device 20 + serialisation and edges). d2h is
** the mirror image (72-byte writes to the host). */
static void test_h2d_d2h_round_trip(void **state)
{
    (void)state;
    rig_params p;
    rig_params_default(&p);
    rig r;
    rig_build(&r, &p);
    enum { N = 64 * 1024 };
    uint8_t *src = mgs_xmalloc(N), *back = mgs_xcalloc(N, 1);
    for (uint32_t i = 0; i < N; i++)
        src[i] = (uint8_t)(i * 7 + (i >> 8));
    uint64_t dev = 0x8000;

    dma_msg h2d;
    dma_msg_init(&h2d, DMA_SPACE_HOST, hptr(src), DMA_SPACE_DEVICE, dev, N);
    mgs_time t_h2d = run_copy(&r, &h2d);
    assert_int_equal(h2d.status, MGS_OK);
    assert_memory_equal(r.dev_bytes + dev, src, N);

    dma_msg d2h;
    dma_msg_init(&d2h, DMA_SPACE_DEVICE, dev, DMA_SPACE_HOST, hptr(back), N);
    mgs_time t_d2h = run_copy(&r, &d2h);
    assert_int_equal(d2h.status, MGS_OK);
    assert_memory_equal(back, src, N);

    mgs_time ideal = (N / 64) * 5 * 1000ull, bound = ideal + 400 * 1000ull;
    print_message("# h2d %llu ps, d2h %llu ps, bandwidth bound %llu ps\n",
                  (unsigned long long)t_h2d, (unsigned long long)t_d2h,
                  (unsigned long long)ideal);
    assert_true(t_h2d >= ideal && t_h2d <= bound);
    assert_true(t_d2h >= ideal && t_d2h <= bound);
    /* The command reaches the engine in 2 cycles and is taken at the next
    ** edge; the completion takes 2 cycles back. */
    assert_int_equal(h2d.end - h2d.start + 3000 + 2000, t_h2d);
    assert_int_equal(counter(r.st, "GPU[0].DMA", "bytes_h2d"), N);
    assert_int_equal(counter(r.st, "GPU[0].DMA", "bytes_d2h"), N);
    assert_int_equal(counter(r.st, "GPU[0].DMA", "copies"), 2);
    assert_int_equal(counter(r.st, "GPU[0].DMA", "copy_time_total"),
                     (h2d.end - h2d.start) + (d2h.end - d2h.start));
    assert_true(r.max_inflight_seen <= p.dma.max_inflight);
    assert_true(r.max_inflight_seen > 32); /* the link is kept busy */
    free(src);
    free(back);
    rig_free(&r);
}

/* Halving the link width doubles the bandwidth-bound time: ceil(72/8)=9
** cycles per chunk instead of 5. */
static void test_time_follows_bandwidth(void **state)
{
    (void)state;
    rig_params p;
    rig_params_default(&p);
    p.pcie.bytes_per_cycle = 8;
    rig r;
    rig_build(&r, &p);
    enum { N = 32 * 1024 };
    uint8_t *src = mgs_xcalloc(N, 1);
    dma_msg m;
    dma_msg_init(&m, DMA_SPACE_HOST, hptr(src), DMA_SPACE_DEVICE, 0, N);
    mgs_time t = run_copy(&r, &m);
    mgs_time ideal = (N / 64) * 9 * 1000ull;
    assert_true(t >= ideal && t <= ideal + 400 * 1000ull);
    free(src);
    rig_free(&r);
}

/* Odd alignments and lengths: device to device, and host to device. */
static void test_unaligned_copies(void **state)
{
    (void)state;
    rig_params p;
    rig_params_default(&p);
    rig r;
    rig_build(&r, &p);
    for (uint32_t i = 0; i < 4096; i++)
        r.dev_bytes[0x1000 + i] = (uint8_t)(i ^ 0x5a);
    dma_msg m;
    dma_msg_init(&m, DMA_SPACE_DEVICE, 0x1003, DMA_SPACE_DEVICE, 0x303d, 1001);
    run_copy(&r, &m);
    assert_int_equal(m.status, MGS_OK);
    assert_memory_equal(r.dev_bytes + 0x303d, r.dev_bytes + 0x1003, 1001);
    assert_int_equal(r.dev_bytes[0x303c], 0);
    assert_int_equal(r.dev_bytes[0x303d + 1001], 0);
    uint8_t host[77];
    for (int i = 0; i < 77; i++)
        host[i] = (uint8_t)(200 - i);
    dma_msg_init(&m, DMA_SPACE_HOST, hptr(host) , DMA_SPACE_DEVICE, 0x5021, 77);
    run_copy(&r, &m);
    assert_memory_equal(r.dev_bytes + 0x5021, host, 77);
    assert_int_equal(counter(r.st, "GPU[0].DMA", "bytes_d2d"), 1001);
    assert_int_equal(counter(r.st, "GPU[0].DMA", "bytes_h2d"), 77);
    rig_free(&r);
}

/* Bursts (cfg.burst = 16 chunks, no bound on their count): an h2d copy to
** a misaligned device address (a partial first and last chunk go alone,
** the whole chunks between in bursts of up to 16), the d2h copy back from
** another misaligned address; the bytes are right both ways, host memory
** counts every chunk (a burst's parts), at most max_inflight chunks are
** out and bursts did fill the budget; a device fault fails a d2h burst
** whole. */
static void test_bursts(void **state)
{
    (void)state;
    rig_params p;
    rig_params_default(&p);
    p.dma.burst = 16;
    p.dma.min_bursts = 1;
    p.dma.max_inflight = 40;      /* two bursts and a few chunks */
    rig r;
    rig_build(&r, &p);
    enum { N = 20000 };
    uint8_t *src = mgs_xmalloc(N), *back = mgs_xcalloc(N, 1);
    for (uint32_t i = 0; i < N; i++)
        src[i] = (uint8_t)(i * 11 + (i >> 9));
    dma_msg m;
    dma_msg_init(&m, DMA_SPACE_HOST, hptr(src) + 0, DMA_SPACE_DEVICE, 0x8010,
                 N);
    run_copy(&r, &m);
    assert_int_equal(m.status, MGS_OK);
    assert_memory_equal(r.dev_bytes + 0x8010, src, N);
    assert_int_equal(r.dev_bytes[0x800f], 0);
    assert_int_equal(r.dev_bytes[0x8010 + N], 0);
    /* 48 + 311 x 64 + 48 bytes: 313 chunks read from host memory. */
    assert_int_equal(counter(r.st, "Host", "reads"), 313);
    assert_int_equal(counter(r.st, "Host", "bytes_read"), N);
    assert_int_equal(counter(r.st, "GPU[0].DMA", "bytes_h2d"), N);
    assert_true(r.max_inflight_seen <= 40 && r.max_inflight_seen >= 32);
    memcpy(r.dev_bytes + 0x20020, src, 4000);
    dma_msg_init(&m, DMA_SPACE_DEVICE, 0x20020, DMA_SPACE_HOST, hptr(back),
                 4000);
    run_copy(&r, &m);
    assert_int_equal(m.status, MGS_OK);
    assert_memory_equal(back, src, 4000);
    assert_int_equal(counter(r.st, "GPU[0].DMA", "bytes_d2h"), 4000);
    /* Device memory ends at 2 x GPU_BYTES, 40 chunks into this copy of
    ** 64: the bursts ramp up and down (1, 1, 2, 4, 8, 16 | 16 | 8, 4, 2,
    ** 1, 1 chunks), so chunks 0-31 reach the host, the burst of chunks
    ** 32-47 fails whole (its 8 good chunks are not written), and so do the
    ** 16 chunks after it: 32 faults. */
    memset(back, 0xee, 4096);
    dma_msg_init(&m, DMA_SPACE_DEVICE, 2 * GPU_BYTES - 40 * 64,
                 DMA_SPACE_HOST, hptr(back), 4096);
    run_copy(&r, &m);
    assert_int_equal(m.status, MGS_EFAULT);
    assert_int_equal(counter(r.st, "GPU[0].DMA", "faults"), 32);
    assert_int_equal(counter(r.st, "GPU[0].DMA", "bytes_d2h"), 4000 + 2048);
    assert_int_equal(back[0], 0);
    assert_int_equal(back[2047], 0);
    assert_int_equal(back[2048], 0xee);
    assert_int_equal(back[2559], 0xee);
    free(src);
    free(back);
    rig_free(&r);
}

/* A command goes in at least min_bursts bursts: 313 chunks in at least
** 256 bursts are single chunks (one PCIe message each way per chunk), in
** at least 64 bursts of at most 4 chunks (more messages than with bursts
** of up to cfg.burst = 16); the bytes are right. */
static void test_min_bursts(void **state)
{
    (void)state;
    enum { N = 20000 };
    uint8_t *src = mgs_xmalloc(N);
    for (uint32_t i = 0; i < N; i++)
        src[i] = (uint8_t)(i * 7 + (i >> 8));
    const uint32_t mins[] = {256, 64, 1};
    double messages[3];
    for (int k = 0; k < 3; k++) {
        rig_params p;
        rig_params_default(&p);
        p.dma.burst = 16;
        p.dma.min_bursts = mins[k];
        rig r;
        rig_build(&r, &p);
        dma_msg m;
        dma_msg_init(&m, DMA_SPACE_HOST, hptr(src), DMA_SPACE_DEVICE, 0x8010,
                     N);
        run_copy(&r, &m);
        assert_int_equal(m.status, MGS_OK);
        assert_memory_equal(r.dev_bytes + 0x8010, src, N);
        assert_int_equal(counter(r.st, "Host", "reads"), 313);
        messages[k] = counter(r.st, "PCIe", "messages");
        printf("# min_bursts %u: %.0f PCIe messages\n", mins[k], messages[k]);
        rig_free(&r);
    }
    assert_true(messages[0] == 2 * 313);   /* request and answer each */
    assert_true(messages[1] < messages[0] && messages[1] >= 2 * 64);
    assert_true(messages[2] < messages[1]);
    free(src);
}

/* A peer copy: GPU 0's DMA reads its memory and writes GPU 1's through the
** RDMA engines; then back again. */
static void test_peer_copy(void **state)
{
    (void)state;
    rig_params p;
    rig_params_default(&p);
    rig r;
    rig_build(&r, &p);
    enum { N = 4096 };
    for (uint32_t i = 0; i < N; i++)
        r.dev_bytes[0x2000 + i] = (uint8_t)(i * 13);
    uint64_t remote = GPU_BYTES + 0x100;
    dma_msg m;
    dma_msg_init(&m, DMA_SPACE_DEVICE, 0x2000, DMA_SPACE_DEVICE, remote, N);
    m.flags = DMA_F_PEER;
    run_copy(&r, &m);
    assert_int_equal(m.status, MGS_OK);
    assert_memory_equal(r.dev_bytes + remote, r.dev_bytes + 0x2000, N);
    dma_msg_init(&m, DMA_SPACE_DEVICE, remote, DMA_SPACE_DEVICE, 0x9000, N);
    m.flags = DMA_F_PEER;
    run_copy(&r, &m);
    assert_memory_equal(r.dev_bytes + 0x9000, r.dev_bytes + 0x2000, N);
    assert_int_equal(counter(r.st, "GPU[0].DMA", "bytes_peer"), 2 * N);
    assert_int_equal(counter(r.st, "GPU[0].RDMA", "out_writes"), N / 64);
    assert_int_equal(counter(r.st, "GPU[0].RDMA", "out_reads"), N / 64);
    assert_int_equal(counter(r.st, "GPU[1].RDMA", "in_writes"), N / 64);
    rig_free(&r);
}

/* Two chunks in flight at most: the copy is still right, never more than
** two are out, and it takes longer than with the default. */
static void test_bounded_inflight(void **state)
{
    (void)state;
    rig_params p;
    rig_params_default(&p);
    p.dma.max_inflight = 2;
    rig r;
    rig_build(&r, &p);
    enum { N = 8192 };
    uint8_t *src = mgs_xmalloc(N);
    for (uint32_t i = 0; i < N; i++)
        src[i] = (uint8_t)(i >> 3);
    dma_msg m;
    dma_msg_init(&m, DMA_SPACE_HOST, hptr(src), DMA_SPACE_DEVICE, 0x100, N);
    mgs_time t = run_copy(&r, &m);
    assert_memory_equal(r.dev_bytes + 0x100, src, N);
    assert_int_equal(r.max_inflight_seen, 2);
    assert_true(counter(r.st, "GPU[0].DMA", "stall_inflight_full") > 0);
    /* Latency bound: each pair of chunks waits a full host round trip
    ** (> 250 cycles), so 128 chunks take > 64 x 250 cycles. */
    assert_true(t > 64 * 250 * 1000ull);
    free(src);
    rig_free(&r);
}

/* Bad commands, zero length, a device fault, and more commands than the
** engine serves at once (they wait in the ctrl port). */
static void test_errors_and_queueing(void **state)
{
    (void)state;
    rig_params p;
    rig_params_default(&p);
    p.dma.max_copies = 2;
    rig r;
    rig_build(&r, &p);
    _Alignas(64) uint8_t host[256];
    _Alignas(64) uint8_t host2[256]; /* aligned: 128 bytes = 2 chunks */
    memset(host, 0xab, sizeof host);
    memset(host2, 0, sizeof host2);
    dma_msg cmd[8];
    dma_msg_init(&cmd[0], DMA_SPACE_HOST, hptr(host), DMA_SPACE_HOST,
                 hptr(host2), 16);                           /* invalid */
    dma_msg_init(&cmd[1], DMA_SPACE_HOST, hptr(host), DMA_SPACE_DEVICE, 0, 0);
    dma_msg_init(&cmd[2], DMA_SPACE_DEVICE, 2 * GPU_BYTES + 0x40,
                 DMA_SPACE_HOST, hptr(host2), 128);          /* no memory */
    dma_msg_init(&cmd[3], (dma_space)7, 0, DMA_SPACE_DEVICE, 0, 8);
    for (int i = 4; i < 8; i++)
        dma_msg_init(&cmd[i], DMA_SPACE_HOST, hptr(host) + 64 * (i - 4),
                     DMA_SPACE_DEVICE, 0x7000 + 64 * (i - 4), 64);
    for (int i = 0; i < 8; i++) {
        cmd[i].origin = &cmd[i];
        drv_send_at(&r.d, &cmd[i], dma_ctrl(r.dma), 0);
    }
    assert_int_equal(eng_run(r.eng), MGS_OK);
    assert_int_equal(r.d.ndone, 8);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(cmd[i].base.type, DMA_COPY_DONE);
        assert_ptr_equal(cmd[i].origin, &cmd[i]);
    }
    assert_int_equal(cmd[0].status, MGS_EINVAL);
    assert_int_equal(cmd[1].status, MGS_OK);
    assert_int_equal(cmd[2].status, MGS_EFAULT);
    assert_int_equal(cmd[3].status, MGS_EINVAL);
    for (int i = 4; i < 8; i++)
        assert_int_equal(cmd[i].status, MGS_OK);
    assert_memory_equal(r.dev_bytes + 0x7000, host, 256);
    assert_int_equal(host2[0], 0); /* the invalid copy wrote nothing */
    assert_int_equal(counter(r.st, "GPU[0].DMA", "faults"), 2);
    rig_free(&r);
}

/* Without a host route (the shared-memory platform: no host link) a
** command with a host side completes at once with MGS_EINVAL and moves
** nothing; device-to-device copies still run. */
static void test_no_host_route(void **state)
{
    (void)state;
    rig_params p;
    rig_params_default(&p);
    p.no_host_route = true;
    rig r;
    rig_build(&r, &p);
    _Alignas(64) uint8_t host[128];
    memset(host, 0x5a, sizeof host);
    memset(r.dev_bytes + 0x2000, 0x11, 128);
    uint8_t before[128];
    memcpy(before, r.dev_bytes + 0x1000, sizeof before);
    dma_msg h2d, d2h, d2d;
    dma_msg_init(&h2d, DMA_SPACE_HOST, hptr(host), DMA_SPACE_DEVICE, 0x1000,
                 128);
    dma_msg_init(&d2h, DMA_SPACE_DEVICE, 0x1000, DMA_SPACE_HOST, hptr(host),
                 128);
    dma_msg_init(&d2d, DMA_SPACE_DEVICE, 0x2000, DMA_SPACE_DEVICE, 0x3000,
                 128);
    run_copy(&r, &h2d);
    run_copy(&r, &d2h);
    assert_true(run_copy(&r, &d2d) > 0);
    assert_int_equal(h2d.status, MGS_EINVAL);
    assert_int_equal(d2h.status, MGS_EINVAL);
    assert_int_equal(d2d.status, MGS_OK);
    assert_int_equal(host[0], 0x5a);              /* nothing moved */
    assert_memory_equal(r.dev_bytes + 0x1000, before, 128);
    assert_memory_equal(r.dev_bytes + 0x3000, r.dev_bytes + 0x2000, 128);
    assert_int_equal(counter(r.st, "GPU[0].DMA", "bytes_h2d"), 0);
    rig_free(&r);
}

static char *run_for_stats(void)
{
    rig_params p;
    rig_params_default(&p);
    rig r;
    rig_build(&r, &p);
    enum { N = 16384 };
    uint8_t *buf = mgs_xmalloc(N);
    for (uint32_t i = 0; i < N; i++)
        buf[i] = (uint8_t)(i * 31);
    dma_msg a, b, c;
    dma_msg_init(&a, DMA_SPACE_HOST, hptr(buf), DMA_SPACE_DEVICE, 0x40, N);
    dma_msg_init(&b, DMA_SPACE_DEVICE, 0x40, DMA_SPACE_DEVICE,
                 GPU_BYTES + 0x1000, N);
    dma_msg_init(&c, DMA_SPACE_DEVICE, GPU_BYTES + 0x1000, DMA_SPACE_HOST,
                 hptr(buf), N);
    drv_send_at(&r.d, &a, dma_ctrl(r.dma), 0);
    drv_send_at(&r.d, &b, dma_ctrl(r.dma), 0);
    drv_send_at(&r.d, &c, dma_ctrl(r.dma), 0);
    assert_int_equal(eng_run(r.eng), MGS_OK);
    char *s = mgs_xstrdup("");
    stat_registry_foreach(r.st, eng_now(r.eng), stats_row_append, &s);
    free(buf);
    rig_free(&r);
    return s;
}

static void test_determinism(void **state)
{
    (void)state;
    char *a = run_for_stats(), *b = run_for_stats();
    assert_string_equal(a, b);
    assert_non_null(strstr(a, "GPU[0].DMA copy_time.count 3"));
    free(a);
    free(b);
}

static void test_config_validate(void **state)
{
    (void)state;
    dma_config c;
    dma_config_default(&c);
    assert_int_equal(dma_config_validate(&c), MGS_OK);
    c.chunk = 256;
    assert_int_equal(dma_config_validate(&c), MGS_EINVAL);
    c.chunk = 48;
    assert_int_equal(dma_config_validate(&c), MGS_EINVAL);
    dma_config_default(&c);
    c.max_inflight = 0;
    assert_int_equal(dma_config_validate(&c), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "max_inflight"));
    dma_config_default(&c);
    c.burst = 0;
    assert_int_equal(dma_config_validate(&c), MGS_EINVAL);
    c.burst = DMA_MAX_BURST_BYTES / c.chunk;
    assert_int_equal(dma_config_validate(&c), MGS_OK);
    c.burst++;
    assert_int_equal(dma_config_validate(&c), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "burst"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h2d_d2h_round_trip),
        cmocka_unit_test(test_time_follows_bandwidth),
        cmocka_unit_test(test_unaligned_copies),
        cmocka_unit_test(test_peer_copy),
        cmocka_unit_test(test_bursts),
        cmocka_unit_test(test_min_bursts),
        cmocka_unit_test(test_bounded_inflight),
        cmocka_unit_test(test_errors_and_queueing),
        cmocka_unit_test(test_no_host_route),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_config_validate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
