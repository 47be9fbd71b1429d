/*
** The random memory tester (src/mem/tester.h) on assembled multi-GPU
** platforms (src/platform/platform.h): agents sit at the L1 level of
** different GPUs (on each GPU's crossbar, with the route its L1s use), so
** an access to memory homed on another GPU takes the real path L1 route ->
** RDMA engine -> PCIe tree (or links) -> home RDMA engine -> home L2 ->
** DRAM, and back. Half the agents work on a slice homed on another GPU,
** half on their own GPU's memory. Every read and atomic is checked against
** the reference; with write-through L2s the memory equals the reference
** at the end; the RDMA engines and the network carried the remote parts.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mem/tester.h"
#include "mgsim/errors.h"
#include "platform/platform.h"
#include "sim/stats.h"

#include "tester_rig.h"

#define MEM_PER_GPU (64u * 1024)

typedef struct sum_q {
    const char *comp, *metric;
    double sum;
} sum_q;

static void sum_row(const stat_row *r, void *ud)
{
    sum_q *q = ud;
    if (strstr(r->component, q->comp) && !strcmp(r->metric, q->metric))
        q->sum += r->value;
}

static double stat_sum(stat_registry *st, const char *comp,
                       const char *metric)
{
    sum_q q = {.comp = comp, .metric = metric};
    stat_registry_foreach(st, 0, sum_row, &q);
    return q.sum;
}

static void run_tester(uint32_t ngpus, platform_net net)
{
    platform_config pc;
    tester_rig_small_gpus(&pc, PLATFORM_DISCRETE, ngpus, MEM_PER_GPU);
    pc.net = net;
    pc.link_bw = 32000000000ull;
    /* Small L2s so that lines are evicted and refetched; write-through so
    ** that DRAM holds every write when the tester is done. */
    pc.gpu.l2.size = 8 * 1024;
    pc.gpu.l2.write_policy = CACHE_WRITE_THROUGH;
    tester_rig tr;
    tester_rig_platform(&tr, &pc);
    stat_registry *st = tr.st;

    mem_tester_config tc;
    tester_rig_config(&tr, &pc, 2 * ngpus, &tc);
    tc.ops_per_agent = 400;
    tc.mode = MEM_TESTER_PRIVATE;
    tc.seed = 7;
    tester_rig_tester(&tr, &tc);
    /* Agent i owns a slice homed on GPU i / 2; even agents run on that
    ** GPU, odd ones on the next GPU (all their accesses are remote). */
    for (uint32_t i = 0; i < tc.agents; i++)
        tester_rig_place(&tr, i, (i / 2 + i % 2) % ngpus);
    tester_rig_run_clean(&tr);

    double out = stat_sum(st, "RDMA", "out_reads") +
                 stat_sum(st, "RDMA", "out_writes") +
                 stat_sum(st, "RDMA", "out_atomics");
    double in = stat_sum(st, "RDMA", "in_reads") +
                stat_sum(st, "RDMA", "in_writes") +
                stat_sum(st, "RDMA", "in_atomics");
    print_message("%u GPUs: %.0f remote parts, %llu bytes checked\n", ngpus,
                  out, (unsigned long long)mem_tester_checked(tr.t));
    assert_true(out > 200.0 * ngpus);
    assert_true(in == out);
    assert_true(stat_sum(st, "RDMA", "faults") == 0);
    for (uint32_t g = 0; g < ngpus; g++) {
        char comp[32];
        snprintf(comp, sizeof comp, "GPU[%u].RDMA", g);
        assert_true(stat_sum(st, comp, "in_reads") > 0);
    }
    const char *net_name = net == PLATFORM_NET_PCIE ? "PCIe.Link" : "Links";
    assert_true(stat_sum(st, net_name, "a_to_b.messages") +
                    stat_sum(st, net_name, "b_to_a.messages") >= 2 * out);

    tester_rig_free(&tr);
}

static void test_tester_2gpus_pcie(void **state)
{
    (void)state;
    run_tester(2, PLATFORM_NET_PCIE);
}

static void test_tester_4gpus_pcie(void **state)
{
    (void)state;
    run_tester(4, PLATFORM_NET_PCIE);
}

static void test_tester_4gpus_links(void **state)
{
    (void)state;
    run_tester(4, PLATFORM_NET_LINKS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tester_2gpus_pcie),
        cmocka_unit_test(test_tester_4gpus_pcie),
        cmocka_unit_test(test_tester_4gpus_links),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
