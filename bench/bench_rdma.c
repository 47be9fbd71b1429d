/*
** bench_rdma: remote streaming bandwidth of one GPU through its RDMA engine
** (docs/rdma.md, "Sizing"), R9 Nano GPUs, discrete platform, default keys.
** The stream itself is bench/rdma_stream.h: GPU 0 reads a buffer homed on
** the last GPU, kib and 3 x kib KiB, the difference timed.
**
** Prints one line per (network, GPUs), GPUs = 2, 4, 8, networks
** `platform.interconnect=links` at 150 GB/s per direction (seed 001
** Table 2) and a PCIe 4.0 tree (32 GB/s per direction, seed 000 §4.1):
**   BENCH rdma_stream net=<links|pcie4> gpus=<n> link_gbps=<bw>
**         ratio=<achieved / link bandwidth: busiest link direction's busy
**         time / elapsed time> data_gbps=<data bytes per ns>
**         data_ratio=<data_gbps / link_gbps> ceiling=<data_ratio at
**         ratio 1: 64 B of data per answer's wire bytes> wall_s=<t>
** Exit 1 if any ratio is below 0.8 (the issue-11 target).
** Usage: bench_rdma [kib]   (default 1024)
*/
#include "bench/bench_util.h"
#include "bench/rdma_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    uint32_t kib = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 1024;
    if (kib < 1024 || kib > 65536 || kib % 1024) {
        fprintf(stderr, "bench_rdma: kib must be a multiple of 1024 (one "
                "pass of the 65,536 work-items) up to 65536\n");
        return 2;
    }
    const int gpus[] = {2, 4, 8};
    int status = 0;
    for (int links = 1; links >= 0; links--)
        for (int g = 0; g < 3; g++) {
            rdma_stream_cfg sc = {.links = links, .link_bw = 150000000000ull,
                                  .pcie_version = 4, .gpus = gpus[g],
                                  .kib = kib};
            double link_gbps = links ? 150.0 : 32.0;
            double header = links ? 8 + 16 : 8 + 24; /* answer, bytes */
            rdma_stream_result r;
            double w0 = bench_clock_s(CLOCK_MONOTONIC);
            int rc = rdma_stream_run(&sc, &r);
            if (rc)
                return bench_fail("bench_rdma", "stream", rc);
            printf("BENCH rdma_stream net=%s gpus=%d link_gbps=%.0f "
                   "ratio=%.3f data_gbps=%.2f data_ratio=%.3f "
                   "ceiling=%.3f wall_s=%.2f\n",
                   links ? "links" : "pcie4", gpus[g], link_gbps, r.ratio,
                   r.data_gbps, r.data_gbps / link_gbps,
                   64.0 / (64.0 + header),
                   bench_clock_s(CLOCK_MONOTONIC) - w0);
            fflush(stdout);
            if (r.ratio < 0.8)
                status = 1;
        }
    return status;
}
