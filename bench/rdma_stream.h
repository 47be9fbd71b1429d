/*
** One GPU streaming from remote memory through its RDMA engine, shared by
** bench/bench_rdma.c (BENCH rdma_stream) and the unit test
** tests/unit/platform/test_rdma_stream.c (header-only: each user is one
** binary).
**
** GPU 0 of a discrete platform runs kernels/micro_stream.hip (`threads`
** work-items, 65,536 by default, reading 16 B each with a grid stride, so
** every wavefront instruction reads whole lines) over a buffer placed on
** the LAST GPU:
** every line crosses the network (on `links` one link; on a PCIe tree GPU
** 0's link to its switch, the root complex for 4 and more GPUs). Two runs
** stream kib and 3 x kib KiB; differences between them cancel the
** launch's fixed costs (as workloads/micro's micro_bw does). kib must be a
** whole number of grid passes (threads x 16 B): with a partial pass the
** two runs differ in shape, not only in length, and the difference
** overstates the bandwidth. Copies are instant: only the kernels' time
** counts.
**
**   ratio      achieved / link bandwidth: the busiest link direction's busy
**              time over the elapsed time (the answers' direction, 0..1)
**   data_gbps  data bytes streamed per ns
** With 64-B lines each answer carries 8 B of protocol header plus the
** link's packet header (16 B NVLink-like, 24 B PCIe TLP, docs/noc.md), so
** data_gbps / link bandwidth is at most 64 / 88 (links) or 64 / 96 (PCIe)
** even when ratio is 1.
** The checksums the kernel writes are checked against the CPU.
*/
#ifndef MGS_BENCH_RDMA_STREAM_H
#define MGS_BENCH_RDMA_STREAM_H

#include "config/config.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"
#include "sim/stats.h"
#include "workloads/workload.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RDMA_STREAM_THREADS (256u * 256u) /* default grid */

typedef struct rdma_stream_cfg {
    int links;                /* 1: all-to-all links, 0: PCIe tree */
    uint64_t link_bw;         /* links: bytes/s per direction */
    int pcie_version;         /* PCIe tree */
    int gpus;                 /* >= 2 */
    uint32_t kib;             /* run A streams kib KiB, run B 3 x kib;
                                 a multiple of threads x 16 B */
    uint32_t threads;         /* grid, a multiple of 256; 0: 65,536 */
    const char *const *sets;  /* more "key=value" (NULL-terminated), or
                                 NULL */
} rdma_stream_cfg;

typedef struct rdma_stream_result {
    double ratio;             /* busiest link direction busy / elapsed */
    double data_gbps;         /* data bytes per ns */
    uint64_t out_reads;       /* GPU 0's RDMA parts sent (both runs) */
} rdma_stream_result;

typedef struct rdma_stream_sum {
    const char *prefix;       /* component prefix of the network's links */
    double max_busy;          /* ps */
    uint64_t out_reads;
} rdma_stream_sum;

static inline void rdma_stream_row(const stat_row *r, void *ud)
{
    rdma_stream_sum *q = ud;
    size_t m = strlen(r->metric);
    if (!strcmp(r->component, "GPU[0].RDMA") &&
        !strcmp(r->metric, "out_reads"))
        q->out_reads = (uint64_t)r->value;
    if (strncmp(r->component, q->prefix, strlen(q->prefix)) || m < 7 ||
        strcmp(r->metric + m - 7, "busy_ps"))
        return;
    if (r->value > q->max_busy)
        q->max_busy = r->value;
}

static inline rdma_stream_sum rdma_stream_stats(const stat_registry *st,
                                                int links)
{
    rdma_stream_sum q = {.prefix = links ? "Links.Link" : "PCIe.Link"};
    stat_registry_foreach(st, 0, rdma_stream_row, &q);
    return q;
}

/* MGS_OK if the threads checksums in sums match the CPU's over chunks
** 16-B chunks of host. */
static inline int rdma_stream_check(const uint32_t *host, uint32_t chunks,
                                    const uint32_t *sums, uint32_t threads)
{
    for (uint32_t i = 0; i < threads; i++) {
        uint32_t want = 0;
        for (uint32_t c = i; c < chunks; c += threads) {
            const uint32_t *v = host + (size_t)c * 4;
            want += v[0] ^ v[1] ^ v[2] ^ v[3];
        }
        if (sums[i] != want)
            return mgs_error_set(MGS_EVERIFY, "rdma stream: checksum %u is "
                                 "%u, expected %u", i, sums[i], want);
    }
    return MGS_OK;
}

/* Builds the platform, streams, checks. Returns an MGS_ status (the
** message in mgs_error_msg()). */
static inline int rdma_stream_run(const rdma_stream_cfg *sc,
                                  rdma_stream_result *out)
{
    memset(out, 0, sizeof *out);
    uint32_t threads = sc->threads ? sc->threads : RDMA_STREAM_THREADS;
    if (threads % 256 || ((uint64_t)sc->kib << 10) % ((uint64_t)threads * 16))
        return mgs_error_set(MGS_EINVAL, "rdma stream: %u KiB is not a "
                             "whole number of passes of %u work-items x "
                             "16 B", sc->kib, threads);
    mgs_config cfg;
    mgs_config_defaults(&cfg);
    char set[96];
    const char *fixed[] = {"sim.mode=timing", "platform.type=discrete",
                           "platform.copy_timing=instant",
                           "platform.mem_per_gpu=256MB"};
    int rc = MGS_OK;
    for (size_t i = 0; i < 4 && !rc; i++)
        rc = mgs_config_set(&cfg, fixed[i], "rdma_stream");
    snprintf(set, sizeof set, "platform.gpus=%d", sc->gpus);
    if (!rc)
        rc = mgs_config_set(&cfg, set, "rdma_stream");
    if (!rc && sc->links) {
        rc = mgs_config_set(&cfg, "platform.interconnect=links",
                            "rdma_stream");
        snprintf(set, sizeof set, "platform.inter_gpu_bw=%lluB/s",
                 (unsigned long long)sc->link_bw);
        if (!rc)
            rc = mgs_config_set(&cfg, set, "rdma_stream");
    } else if (!rc) {
        snprintf(set, sizeof set, "platform.pcie_version=%d",
                 sc->pcie_version);
        rc = mgs_config_set(&cfg, set, "rdma_stream");
    }
    for (size_t i = 0; sc->sets && sc->sets[i] && !rc; i++)
        rc = mgs_config_set(&cfg, sc->sets[i], "rdma_stream");
    if (rc)
        return rc;

    stat_registry *st = stat_registry_new();
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.mode = MGS_MODE_TIMING;
    o.num_gpus = sc->gpus;
    o.mem_per_gpu = cfg.platform_mem_per_gpu;
    o.platform = "discrete";
    o.config = &cfg;
    o.stats = st;
    mgs_rt *rt = NULL;
    if ((rc = mgs_rt_new(&o, &rt))) {
        stat_registry_free(st);
        return rc;
    }
    size_t bytes = (size_t)3 * sc->kib << 10;
    uint32_t *host = malloc(bytes);
    uint32_t *sums = malloc((size_t)threads * 4);
    char path[4096];
    mgs_module *m;
    mgs_kernel *k;
    mgs_dptr din = 0, dout = 0;
    if (!host || !sums)
        rc = mgs_error_set(MGS_EINTERNAL, "rdma stream: out of memory");
    uint64_t seed = 7;
    for (size_t i = 0; !rc && i < bytes / 4; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        host[i] = (uint32_t)(z ^ (z >> 31));
    }
    if (!rc) {
        wl_kernel_path("micro_stream.hsaco", path, sizeof path);
        rc = mgs_module_load(rt, path, &m);
        if (!rc)
            rc = mgs_module_kernel(m, "micro_stream", &k);
        if (!rc)
            rc = mgs_malloc(rt, sc->gpus - 1, bytes, &din);
        if (!rc)
            rc = mgs_malloc(rt, 0, (size_t)threads * 4, &dout);
        if (!rc)
            rc = mgs_memcpy_h2d(rt, din, host, bytes);
    }
    double ps[2] = {0, 0}, busy[2] = {0, 0};
    for (int r = 0; r < 2 && !rc; r++) {
        struct { uint64_t in; uint32_t n, pad; uint64_t out; } args = {
            din, (uint32_t)(((size_t)(r ? 3 : 1) * sc->kib << 10) / 16), 0,
            dout};
        mgs_launch l = {.grid = {threads, 1, 1},
                        .block = {256, 1, 1}, .args = &args,
                        .args_size = sizeof args, .gpu = 0};
        mgs_rt_totals t0, t1;
        mgs_rt_totals_get(rt, &t0);
        double b0 = rdma_stream_stats(st, sc->links).max_busy;
        if ((rc = mgs_launch_kernel(rt, k, &l)) ||
            (rc = mgs_synchronize(rt)))
            break;
        mgs_rt_totals_get(rt, &t1);
        ps[r] = (double)(t1.sim_time_ps - t0.sim_time_ps);
        busy[r] = rdma_stream_stats(st, sc->links).max_busy - b0;
        if (!(rc = mgs_memcpy_d2h(rt, sums, dout, (size_t)threads * 4)))
            rc = rdma_stream_check(host, args.n, sums, threads);
    }
    if (!rc && ps[1] > ps[0]) {
        double dt = ps[1] - ps[0];
        out->data_gbps = (double)((uint64_t)2 * sc->kib << 10) /
                         (dt / 1000.0);
        out->ratio = (busy[1] - busy[0]) / dt;
    }
    out->out_reads = rdma_stream_stats(st, sc->links).out_reads;
    free(host);
    free(sums);
    mgs_rt_free(rt);
    stat_registry_free(st);
    return rc;
}

#endif
