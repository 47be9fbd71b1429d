/*
** Interconnect microbenchmark.
**   BENCH noc_link gbps=G payload_gbps=P events_per_s=E ...
**       one PCIe 4.0 x16-like link (32 GB/s per direction, 24-B TLP
**       overhead per 256 B, 20 ns), two agents streaming 64-B messages at
**       each other in both directions. gbps is the measured simulated wire
**       bandwidth of one direction (expected 32), payload_gbps the data
**       part (expected 32 * 64/88 = 23.3).
**   BENCH noc_xbar gbps=G events_per_s=E ...
**       the MGPU-SM switch complex (4 GPUs x 4 stacks, 1 TB/s): every GPU
**       streams lines to the stacks in rotation; gbps is the aggregate
**       payload bandwidth (expected 1000).
** Usage: bench_noc [scale]   (scale multiplies the message counts)
*/
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench/bench_util.h"
#include "mgsim/errors.h"
#include "noc/noc.h"
#include "noc/topo.h"
#include "sim/comp.h"
#include "sim/engine.h"
#include "sim/name.h"
#include "sim/port.h"
#include "util/xmalloc.h"

/* Streams `total` messages (recycling a small pool) and counts arrivals. */
typedef struct streamer {
    sim_comp base;
    sim_port port;
    sim_msg pool[64];
    sim_port **dsts;
    uint32_t ndsts;
    uint64_t sent, total, received;
    mgs_time first_rx, last_rx;
    sim_event ev;
} streamer;

static void st_send(streamer *s)
{
    while (s->sent < s->total) {
        sim_msg *m = &s->pool[s->sent % 64];
        m->dst = s->dsts[s->sent % s->ndsts];
        m->bytes = 64;
        m->id = s->sent;
        if (port_send(&s->port, m) != MGS_OK)
            return;
        s->sent++;
    }
}

static void st_handle(sim_comp *c, sim_event *ev)
{
    (void)ev;
    st_send((streamer *)c);
}

static void st_recv(sim_comp *c, sim_port *p)
{
    streamer *s = (streamer *)c;
    while (port_retrieve(p)) {
        mgs_time t = eng_now(c->eng);
        if (!s->received)
            s->first_rx = t;
        s->last_rx = t;
        s->received++;
    }
}

static void st_free_port(sim_comp *c, sim_port *p)
{
    (void)p;
    st_send((streamer *)c);
}

static const sim_comp_ops st_ops = {
    .kind = "Streamer", .handle = st_handle, .notify_recv = st_recv,
    .notify_port_free = st_free_port,
};

static streamer *st_new(sim_engine *e, long idx, uint64_t total)
{
    streamer *s = MGS_NEW(streamer);
    char *name = name_new(NULL, "Streamer", idx);
    comp_init(&s->base, e, &st_ops, name, 0);
    free(name);
    port_init(&s->port, &s->base, "port", 8);
    eng_event_init(&s->ev, &s->base, 0, NULL);
    s->total = total;
    return s;
}

static void st_free(streamer *s)
{
    port_fini(&s->port);
    comp_fini(&s->base);
    free(s->dsts);
    free(s);
}

static int bench_link(double scale)
{
    uint64_t n = (uint64_t)(2000000 * scale) + 2;
    sim_engine *e = eng_new(NULL);
    noc_net *net = noc_net_new(e, "Bench", NULL, 8);
    noc_link_cfg l = {.bandwidth = noc_pcie_bandwidth(4),
                      .latency = 20 * MGS_PS_PER_NS, .header_bytes = 24,
                      .max_payload = 256};
    l.credits = noc_link_credits_for(&l, 64, 0);
    int a = noc_endpoint_add(net, "EP", 0), b = noc_endpoint_add(net, "EP", 1);
    noc_link(net, a, b, &l);
    streamer *sa = st_new(e, 0, n), *sb = st_new(e, 1, n);
    noc_attach(net, &sa->port, a);
    noc_attach(net, &sb->port, b);
    if (noc_route_compute(net) != MGS_OK)
        return 1;
    sa->dsts = MGS_NEW(sim_port *);
    sb->dsts = MGS_NEW(sim_port *);
    sa->dsts[0] = &sb->port;
    sb->dsts[0] = &sa->port;
    sa->ndsts = sb->ndsts = 1;
    eng_schedule(e, &sa->ev, 0);
    eng_schedule(e, &sb->ev, 0);
    double t0 = bench_clock_s(CLOCK_MONOTONIC);
    int rc = eng_run(e);
    double dt = bench_clock_s(CLOCK_MONOTONIC) - t0;
    if (rc != MGS_OK || sb->received != n || sa->received != n) {
        fprintf(stderr, "bench_noc: link run failed: %s\n", mgs_error_msg());
        return 1;
    }
    double span = (double)(sb->last_rx - sb->first_rx) / 1e12;
    double payload = (double)(n - 1) * 64 / span;
    double wire = (double)(n - 1) * (double)noc_wire_bytes(&l, 64) / span;
    printf("BENCH noc_link gbps=%.3f payload_gbps=%.3f events_per_s=%.0f "
           "messages=%llu events=%llu wall_s=%.3f\n",
           wire / 1e9, payload / 1e9, (double)eng_events(e) / dt,
           (unsigned long long)(2 * n), (unsigned long long)eng_events(e),
           dt);
    st_free(sa);
    st_free(sb);
    noc_net_free(net);
    eng_free(e);
    return 0;
}

static int bench_xbar(double scale)
{
    uint64_t n = (uint64_t)(500000 * scale) + 4;
    sim_engine *e = eng_new(NULL);
    noc_net *net = noc_net_new(e, "SM", NULL, 8);
    noc_xbar_cfg x;
    noc_xbar_cfg_default(&x, 4, 4);
    noc_topo t;
    if (noc_build_switch_complex(net, &x, &t) != MGS_OK)
        return 1;
    streamer *g[4], *m[4];
    for (int i = 0; i < 4; i++) {
        g[i] = st_new(e, i, n);
        m[i] = st_new(e, 4 + i, 0);
        noc_attach(net, &g[i]->port, t.gpu[i]);
        noc_attach(net, &m[i]->port, t.mem[i]);
    }
    for (int i = 0; i < 4; i++) {
        g[i]->dsts = MGS_NEW_ARRAY(sim_port *, 4);
        for (int k = 0; k < 4; k++)
            g[i]->dsts[k] = &m[(i + k) % 4]->port;
        g[i]->ndsts = 4;
        eng_schedule(e, &g[i]->ev, 0);
    }
    double t0 = bench_clock_s(CLOCK_MONOTONIC);
    int rc = eng_run(e);
    double dt = bench_clock_s(CLOCK_MONOTONIC) - t0;
    mgs_time first = MGS_TIME_MAX, last = 0;
    uint64_t got = 0;
    for (int i = 0; i < 4; i++) {
        got += m[i]->received;
        if (m[i]->first_rx < first)
            first = m[i]->first_rx;
        if (m[i]->last_rx > last)
            last = m[i]->last_rx;
    }
    if (rc != MGS_OK || got != 4 * n) {
        fprintf(stderr, "bench_noc: xbar run failed: %s\n", mgs_error_msg());
        return 1;
    }
    double bw = (double)(got - 4) * 64 / ((double)(last - first) / 1e12);
    printf("BENCH noc_xbar gbps=%.3f events_per_s=%.0f messages=%llu "
           "events=%llu wall_s=%.3f\n", bw / 1e9,
           (double)eng_events(e) / dt, (unsigned long long)got,
           (unsigned long long)eng_events(e), dt);
    for (int i = 0; i < 4; i++) {
        st_free(g[i]);
        st_free(m[i]);
    }
    noc_net_free(net);
    eng_free(e);
    return 0;
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    if (!(scale > 0)) {
        fprintf(stderr, "usage: bench_noc [scale > 0]\n");
        return 2;
    }
    return bench_link(scale) | bench_xbar(scale);
}
