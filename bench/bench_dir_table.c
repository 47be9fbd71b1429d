/*
** Coherence directory table benchmark (src/coh/dir/dir_table.h): the cost
** of one directory operation at a home L2, per organisation, with the
** paper's geometry (8K entries, 8-way, 4 GPUs, home 0).
**   BENCH dir_table_<org> ns_per_op=N evictions=E lines_per_eviction=L
** org: line (baseline, FIFO), hmg (4 lines, FIFO), rec (1 kB, LRU), ideal
** (unbounded LINE). The stream: GPUs 1-3 each walk their own part of a
** 64 MB footprint line by line with a random jump one access in 16 (so
** entries fill and get evicted); 1 access in 8 is a write (remote, keeping
** the writer), 1 in 32 a local write by the home. CPU time per operation,
** invalidations go to a callback that counts them.
** Usage: bench_dir_table [scale]   (scale multiplies the operation count)
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench/bench_util.h"
#include "coh/dir/dir_table.h"

#define FOOTPRINT_LINES (1u << 20)

static void count_emit(void *ud, uint64_t addr, uint64_t sharers,
                       dir_cause cause)
{
    (void)addr;
    (void)cause;
    *(uint64_t *)ud += sharers;
}

static double run(dir_table *t, uint64_t ops)
{
    uint64_t seed = 7, cursor[4];
    for (uint32_t g = 0; g < 4; g++)
        cursor[g] = g * (FOOTPRINT_LINES / 4);
    double t0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
    for (uint64_t i = 0; i < ops; i++) {
        uint64_t r = bench_splitmix64(&seed);
        uint32_t g = 1 + (uint32_t)(r % 3);
        if ((r >> 8) % 16 == 0)
            cursor[g] = (r >> 24) % FOOTPRINT_LINES;
        else
            cursor[g] = (cursor[g] + 1) % FOOTPRINT_LINES;
        uint64_t addr = cursor[g] * 64 + ((r >> 12) & 63);
        uint32_t kind = (uint32_t)(r >> 16) % 32;
        if (kind == 0)
            dir_table_write(t, addr, 0, false);
        else if (kind < 5)
            dir_table_write(t, addr, g, true);
        else
            dir_table_read(t, addr, g);
    }
    return (bench_clock_s(CLOCK_THREAD_CPUTIME_ID) - t0) * 1e9 /
           (double)ops;
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    if (!(scale > 0)) {
        fprintf(stderr, "usage: bench_dir_table [scale > 0]\n");
        return 2;
    }
    static const struct {
        const char *name;
        dir_org org;
        uint32_t entries;
    } cfg[] = {{"line", DIR_ORG_LINE, 8192}, {"hmg", DIR_ORG_HMG, 8192},
               {"rec", DIR_ORG_REC, 8192}, {"ideal", DIR_ORG_LINE, 0}};
    uint64_t ops = (uint64_t)(10000000 * scale) + 1;
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        dir_table_config c;
        dir_table_config_default(&c, cfg[i].org);
        c.entries = cfg[i].entries;
        uint64_t sink = 0;
        dir_table *t = dir_table_new(&c, count_emit, &sink);
        if (!t) {
            fprintf(stderr, "bench_dir_table: bad configuration\n");
            return 4;
        }
        double ns = run(t, ops);
        const dir_table_stats *s = dir_table_stats_get(t);
        printf("BENCH dir_table_%s ns_per_op=%.1f evictions=%llu "
               "lines_per_eviction=%.2f valid_entries=%llu\n", cfg[i].name,
               ns, (unsigned long long)s->evictions,
               s->evictions ? (double)s->evicted_lines /
                                  (double)s->evictions : 0.0,
               (unsigned long long)s->valid_entries);
        dir_table_free(t);
    }
    return 0;
}
