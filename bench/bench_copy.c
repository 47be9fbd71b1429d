/*
** bench_copy: timing-mode speed of host copies (DMA engine, PCIe host link,
** L2 and DRAM), one R9 Nano (configs/r9nano.ini defaults), one 64 MiB
** host-to-device copy and the same back.
**
** Prints: BENCH copy_h2d_first sim_bytes_per_s=<n> cpu_s=<t> bytes=<n>
**         sim_time_us=<t> sim_gb_per_s=<x>
**         BENCH copy_h2d ... (the same copy again)
**         BENCH copy_d2h ... (the copy back)
** sim_bytes_per_s = simulated bytes moved per second of this thread's CPU
** time (target, issue 18: >= 1 GiB/s), after an untimed 64-byte copy that
** builds the timing platform; sim_time_us is the copy's simulated
** time, which a faster simulation must keep (within 2 %).
** copy_h2d_first writes device memory no copy has touched: its CPU time
** includes the kernel's faulting in and zeroing of the host pages that
** back it (on this project's virtual machines 0.01-0.2 s per 64 MiB,
** varying with the host; docs/performance.md). copy_h2d repeats it into
** the same, now backed, memory: the simulator's own cost, measured as
** copy_d2h is (into a host buffer written beforehand).
** The default moves 4 KiB bursts (platform.copy_burst); without a
** copy_burst argument it then prints the same three lines without bursts
** (platform.copy_burst=0), named with the suffix _noburst.
** Usage: bench_copy [MiB [copy_burst]]   (default 64; copy_burst sets
** platform.copy_burst, e.g. 4KB, and prints only that run)
*/
#include "bench/bench_util.h"
#include "config/config.h"
#include "mgsim/errors.h"
#include "mgsim/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fail(const char *what, int rc)
{
    return bench_fail("bench_copy", what, rc);
}

/* One timed copy: prints its line. */
static int timed(mgs_rt *rt, const char *name, int h2d, mgs_dptr d, void *h,
                 size_t bytes)
{
    mgs_rt_totals t0, t1;
    mgs_rt_totals_get(rt, &t0);
    double cpu = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
    int rc = h2d ? mgs_memcpy_h2d(rt, d, h, bytes) : mgs_memcpy_d2h(rt, h, d, bytes);
    cpu = bench_clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu;
    if (rc)
        return fail(name, rc);
    mgs_rt_totals_get(rt, &t1);
    double sim_s = (double)(t1.copy_time_ps - t0.copy_time_ps) * 1e-12;
    printf("BENCH %s sim_bytes_per_s=%.0f cpu_s=%.3f bytes=%zu "
           "sim_time_us=%.3f sim_gb_per_s=%.3f\n", name, (double)bytes / cpu,
           cpu, bytes, sim_s * 1e6, sim_s > 0 ? (double)bytes / sim_s / 1e9 : 0);
    return 0;
}

/* One runtime: an h2d of bytes from h and the d2h back into back, timed;
** burst NULL: the runtime's own defaults, else platform.copy_burst=burst
** on keys.def's defaults. Lines are named copy_h2d<suffix>. */
static int run(const uint8_t *h, uint8_t *back, size_t bytes,
               const char *burst, const char *suffix)
{
    static mgs_config cfg;
    mgs_config_defaults(&cfg);
    if (burst) {
        char set[64];
        snprintf(set, sizeof set, "platform.copy_burst=%s", burst);
        if (mgs_config_set(&cfg, set, "bench_copy") != MGS_OK) {
            fprintf(stderr, "bench_copy: bad copy_burst %s\n", burst);
            return 2;
        }
    }
    mgs_rt_options o;
    mgs_rt_options_default(&o);
    o.mode = MGS_MODE_TIMING;
    if (burst)
        o.config = &cfg;  /* without: the runtime's own defaults, as before */
    mgs_rt *rt;
    int rc = mgs_rt_new(&o, &rt);
    if (rc)
        return fail("runtime", rc);
    /* The first copy builds the timing platform: do it untimed, so the
    ** lines time the copies alone. */
    mgs_dptr d, warm;
    uint8_t line[64] = {0};
    if ((rc = mgs_malloc(rt, 0, sizeof line, &warm)) ||
        (rc = mgs_memcpy_h2d(rt, warm, line, sizeof line))) {
        mgs_rt_free(rt);
        return fail("warm-up copy", rc);
    }
    char n0[32], n1[32], n2[32];
    snprintf(n0, sizeof n0, "copy_h2d_first%s", suffix);
    snprintf(n1, sizeof n1, "copy_h2d%s", suffix);
    snprintf(n2, sizeof n2, "copy_d2h%s", suffix);
    memset(back, 0, bytes);
    if ((rc = mgs_malloc(rt, 0, bytes, &d)) ||
        (rc = timed(rt, n0, 1, d, (void *)h, bytes)) ||
        (rc = timed(rt, n1, 1, d, (void *)h, bytes)) ||
        (rc = timed(rt, n2, 0, d, back, bytes))) {
        mgs_rt_free(rt);
        return fail("copy", rc);
    }
    mgs_rt_free(rt);
    if (memcmp(h, back, bytes)) {
        fprintf(stderr, "bench_copy: the bytes read back differ\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
    if (mib < 1 || mib > 1024) {
        fprintf(stderr, "usage: bench_copy [MiB, 1..1024 [copy_burst]]\n");
        return 2;
    }
    size_t bytes = mib << 20;
    uint8_t *h = malloc(bytes), *back = malloc(bytes);
    if (!h || !back)
        return 4;
    uint64_t s = 7;
    for (size_t i = 0; i < bytes; i += 8) {
        uint64_t v = bench_splitmix64(&s);
        memcpy(h + i, &v, 8);
    }
    int rc = argc > 2 ? run(h, back, bytes, argv[2], "")
                      : run(h, back, bytes, NULL, "");
    /* Without a copy_burst argument (make bench): the default (4 KiB
    ** bursts), then without bursts as copy_h2d_noburst / copy_d2h_noburst. */
    if (!rc && argc <= 2)
        rc = run(h, back, bytes, "0", "_noburst");
    free(h);
    free(back);
    return rc;
}
