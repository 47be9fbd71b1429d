/* Tests for src/noc/topo.c: node/link counts and hop counts of the PCIe
** tree, all-to-all and switch-complex builders, exact end-to-end latency
** over each, delivery between every endpoint pair, and the switch
** complex's aggregate bandwidth (1 TB/s, within 2 %). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mem/memmsg.h"
#include "noc/topo.h"
#include "tests/unit/noc/noc_testbed.h"

static void test_pcie_bandwidths(void **state)
{
    (void)state;
    assert_true(noc_pcie_bandwidth(3) == 16000000000ULL);
    assert_true(noc_pcie_bandwidth(4) == 32000000000ULL);
    assert_true(noc_pcie_bandwidth(5) == 64000000000ULL);
    assert_true(noc_pcie_bandwidth(6) == 128000000000ULL);
    assert_true(noc_pcie_bandwidth(2) == 0);
    assert_true(noc_pcie_bandwidth(7) == 0);
    sim_engine *e = eng_new(NULL);
    noc_net *n = noc_net_new(e, "PCIe", NULL, 4);
    noc_pcie_cfg c;
    noc_topo t;
    noc_pcie_cfg_default(&c, 7, 4);
    assert_int_equal(noc_build_pcie(n, &c, &t), MGS_EINVAL);
    noc_pcie_cfg_default(&c, 4, 0);
    assert_int_equal(noc_build_pcie(n, &c, &t), MGS_EINVAL);
    noc_net_free(n);
    eng_free(e);
}

static void test_pcie_hops(void **state)
{
    (void)state;
    static const uint32_t counts[] = {1, 2, 3, 4, 8, 16};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        uint32_t g = counts[k];
        sim_engine *e = eng_new(NULL);
        noc_net *n = noc_net_new(e, "PCIe", NULL, 4);
        noc_pcie_cfg c;
        noc_topo t;
        noc_pcie_cfg_default(&c, 4, g);
        assert_int_equal(noc_build_pcie(n, &c, &t), MGS_OK);
        uint32_t nsw = (g + 1) / 2;
        assert_int_equal(t.ngpus, g);
        assert_int_equal(t.nswitches, nsw + 1);
        assert_int_equal(noc_node_count(n), 2 + nsw + g);
        assert_int_equal(noc_link_count(n), 1 + nsw + g);
        for (uint32_t a = 0; a < g; a++) {
            assert_int_equal(noc_route_hops(n, t.gpu[a], t.host), 3);
            assert_int_equal(noc_route_hops(n, t.host, t.gpu[a]), 3);
            for (uint32_t b = 0; b < g; b++) {
                int expect = a == b ? 0 : a / 2 == b / 2 ? 2 : 4;
                assert_int_equal(noc_route_hops(n, t.gpu[a], t.gpu[b]),
                                 expect);
            }
        }
        char want[32];
        snprintf(want, sizeof want, "PCIe.GPU[%u]", g - 1);
        assert_string_equal(noc_node_name(n, t.gpu[g - 1]), want);
        assert_string_equal(noc_node_name(n, t.host), "PCIe.Host");
        noc_net_free(n);
        eng_free(e);
    }
}

static void test_all_to_all_and_xbar_hops(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    noc_net *n = noc_net_new(e, "NVLink", NULL, 4);
    noc_link_cfg l;
    noc_nvlink_cfg_default(&l, 150000000000ULL);
    noc_topo t;
    assert_int_equal(noc_build_all_to_all(n, 8, &l, &t), MGS_OK);
    assert_int_equal(noc_link_count(n), 28);
    for (uint32_t a = 0; a < 8; a++)
        for (uint32_t b = 0; b < 8; b++)
            assert_int_equal(noc_route_hops(n, t.gpu[a], t.gpu[b]),
                             a == b ? 0 : 1);
    noc_net_free(n);

    n = noc_net_new(e, "SM", NULL, 4);
    noc_xbar_cfg x;
    noc_xbar_cfg_default(&x, 4, 4);
    assert_int_equal(noc_build_switch_complex(n, &x, &t), MGS_OK);
    assert_int_equal(noc_node_count(n), 9);
    for (uint32_t a = 0; a < 4; a++)
        for (uint32_t m = 0; m < 4; m++) {
            assert_int_equal(noc_route_hops(n, t.gpu[a], t.mem[m]), 2);
            assert_int_equal(noc_route_hops(n, t.mem[m], t.gpu[a]), 2);
        }
    noc_net_free(n);

    /* one endpoint per L2 bank / per channel: consecutive ids, own links */
    n = noc_net_new(e, "SM", NULL, 4);
    noc_xbar_cfg_default(&x, 2, 2);
    x.gpu_ports = 4;
    x.mem_ports = 2;
    assert_int_equal(noc_build_switch_complex(n, &x, &t), MGS_OK);
    assert_int_equal(noc_node_count(n), 1 + 8 + 4);
    assert_int_equal(noc_link_count(n), 12);
    assert_int_equal(t.gpu[1], t.gpu[0] + 4);
    assert_string_equal(noc_node_name(n, t.gpu[1] + 3), "SM.GPU[7]");
    assert_string_equal(noc_node_name(n, t.mem[1] + 1), "SM.Mem[3]");
    for (int a = t.gpu[0]; a < t.gpu[0] + 8; a++)
        for (int m = t.mem[0]; m < t.mem[0] + 4; m++)
            assert_int_equal(noc_route_hops(n, a, m), 2);
    x.gpu_ports = 0;
    noc_topo t2;
    noc_net *bad = noc_net_new(e, "Bad", NULL, 4);
    assert_int_equal(noc_build_switch_complex(bad, &x, &t2), MGS_EINVAL);
    noc_net_free(bad);
    noc_net_free(n);
    eng_free(e);
}

/* One agent per endpoint; every agent sends one message to every other
** one; checks that all arrive, each from the right source. */
static void all_pairs(sim_engine *e, noc_net *n, const int *eps, uint32_t k)
{
    tb_agent *ag[40];
    assert_true(k <= 40);
    for (uint32_t i = 0; i < k; i++) {
        ag[i] = tb_agent_new(e, i, 4);
        assert_int_equal(noc_attach(n, &ag[i]->port, eps[i]), MGS_OK);
    }
    for (uint32_t i = 0; i < k; i++) {
        /* every destination in turn: prepare k-1 messages by hand */
        free(ag[i]->msgs);
        ag[i]->msgs = MGS_NEW_ARRAY(sim_msg, k);
        uint32_t m = 0;
        for (uint32_t j = 0; j < k; j++)
            if (j != i)
                ag[i]->msgs[m++] = (sim_msg){.dst = &ag[j]->port,
                                             .bytes = 64,
                                             .id = i * 100 + j};
        ag[i]->nmsgs = m;
        eng_schedule(e, &ag[i]->send_ev, 0);
    }
    assert_int_equal(eng_run(e), MGS_OK);
    for (uint32_t j = 0; j < k; j++) {
        assert_int_equal(ag[j]->nrecv, k - 1);
        for (uint32_t r = 0; r < ag[j]->nrecv; r++) {
            uint64_t from = ag[j]->recv_id[r] / 100;
            assert_int_equal(ag[j]->recv_id[r] % 100, j);
            assert_ptr_equal(ag[j]->recv_src[r], &ag[from]->port);
        }
    }
    assert_int_equal(noc_in_flight(n), 0);
    for (uint32_t i = 0; i < k; i++)
        tb_agent_free(ag[i]);
}

static void test_every_endpoint_reachable(void **state)
{
    (void)state;
    noc_topo t;
    int eps[40];
    {
        sim_engine *e = eng_new(NULL);
        noc_net *n = noc_net_new(e, "PCIe", NULL, 4);
        noc_pcie_cfg c;
        noc_pcie_cfg_default(&c, 3, 8);
        assert_int_equal(noc_build_pcie(n, &c, &t), MGS_OK);
        eps[0] = t.host;
        for (int g = 0; g < 8; g++)
            eps[1 + g] = t.gpu[g];
        all_pairs(e, n, eps, 9);
        noc_net_free(n);
        eng_free(e);
    }
    {
        sim_engine *e = eng_new(NULL);
        noc_net *n = noc_net_new(e, "NVLink", NULL, 4);
        noc_link_cfg l;
        noc_nvlink_cfg_default(&l, 25000000000ULL);
        assert_int_equal(noc_build_all_to_all(n, 4, &l, &t), MGS_OK);
        all_pairs(e, n, t.gpu, 4);
        noc_net_free(n);
        eng_free(e);
    }
    {
        sim_engine *e = eng_new(NULL);
        noc_net *n = noc_net_new(e, "SM", NULL, 4);
        noc_xbar_cfg x;
        noc_xbar_cfg_default(&x, 4, 4);
        assert_int_equal(noc_build_switch_complex(n, &x, &t), MGS_OK);
        for (int i = 0; i < 4; i++) {
            eps[i] = t.gpu[i];
            eps[4 + i] = t.mem[i];
        }
        all_pairs(e, n, eps, 8);
        noc_net_free(n);
        eng_free(e);
    }
}

/* Exact lone-message latency across each topology. */
static mgs_time lone(noc_net *n, sim_engine *e, int from, int to)
{
    tb_agent *a = tb_agent_new(e, 0, 4), *b = tb_agent_new(e, 1, 4);
    assert_int_equal(noc_attach(n, &a->port, from), MGS_OK);
    assert_int_equal(noc_attach(n, &b->port, to), MGS_OK);
    tb_plan(a, &b->port, 1, 64, 0, 0);
    assert_int_equal(eng_run(e), MGS_OK);
    assert_int_equal(b->nrecv, 1);
    mgs_time t = b->recv_at[0];
    tb_agent_free(a);
    tb_agent_free(b);
    return t;
}

static void test_topology_latency(void **state)
{
    (void)state;
    noc_topo t;
    sim_engine *e = eng_new(NULL);
    noc_net *n = noc_net_new(e, "PCIe", NULL, 4);
    noc_pcie_cfg c;
    noc_pcie_cfg_default(&c, 4, 4);
    assert_int_equal(noc_build_pcie(n, &c, &t), MGS_OK);
    /* 64 B + 24 B TLP overhead at 32 GB/s = 2750 ps per hop; 4 links of
    ** 20 ns, 3 switches of 140 ns, 2 ps of attachment. */
    assert_int_equal(lone(n, e, t.gpu[0], t.gpu[2]),
                     2 + 4 * (2750 + 20000) + 3 * 140000);
    noc_net_free(n);
    eng_free(e);

    e = eng_new(NULL);
    n = noc_net_new(e, "SM", NULL, 4);
    noc_xbar_cfg x;
    noc_xbar_cfg_default(&x, 4, 4);
    assert_int_equal(noc_build_switch_complex(n, &x, &t), MGS_OK);
    /* 250 GB/s per port: 64 B in 256 ps; 2 links of 2 ns + 10 ns switch */
    assert_int_equal(lone(n, e, t.gpu[1], t.mem[3]),
                     2 + 2 * (256 + 2000) + 10000);
    noc_net_free(n);
    eng_free(e);

    /* 2 GPUs x 4 ports (125 GB/s: 512 ps), 2 stacks x 2 (250 GB/s) */
    e = eng_new(NULL);
    n = noc_net_new(e, "SM", NULL, 4);
    noc_xbar_cfg_default(&x, 2, 2);
    x.gpu_ports = 4;
    x.mem_ports = 2;
    assert_int_equal(noc_build_switch_complex(n, &x, &t), MGS_OK);
    assert_int_equal(lone(n, e, t.gpu[1] + 2, t.mem[0] + 1),
                     2 + (512 + 2000) + 10000 + (256 + 2000));
    noc_net_free(n);
    eng_free(e);

    e = eng_new(NULL);
    n = noc_net_new(e, "NVLink", NULL, 4);
    noc_link_cfg l;
    noc_nvlink_cfg_default(&l, 150000000000ULL);
    assert_int_equal(noc_build_all_to_all(n, 4, &l, &t), MGS_OK);
    /* 80 wire bytes at 150 GB/s = 533.3 -> 534 ps; 100 ns */
    assert_int_equal(lone(n, e, t.gpu[3], t.gpu[0]), 2 + 534 + 100000);
    noc_net_free(n);
    eng_free(e);
}

/* Every GPU streams lines to the memory stacks in a rotating pattern: the
** switch complex delivers the seed's 1 TB/s total (within 2 %). */
static void test_switch_complex_bandwidth(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    noc_net *n = noc_net_new(e, "SM", NULL, 4);
    noc_xbar_cfg x;
    noc_xbar_cfg_default(&x, 4, 4);
    noc_topo t;
    assert_int_equal(noc_build_switch_complex(n, &x, &t), MGS_OK);
    tb_agent *g[4], *m[4];
    const uint32_t N = 1000;
    for (int i = 0; i < 4; i++) {
        g[i] = tb_agent_new(e, i, 4);
        m[i] = tb_agent_new(e, 4 + i, 4);
        assert_int_equal(noc_attach(n, &g[i]->port, t.gpu[i]), MGS_OK);
        assert_int_equal(noc_attach(n, &m[i]->port, t.mem[i]), MGS_OK);
    }
    for (int i = 0; i < 4; i++) {
        g[i]->msgs = MGS_NEW_ARRAY(sim_msg, N);
        for (uint32_t k = 0; k < N; k++)
            g[i]->msgs[k] = (sim_msg){.dst = &m[(i + k) % 4]->port,
                                      .bytes = 64, .id = k};
        g[i]->nmsgs = N;
        eng_schedule(e, &g[i]->send_ev, 0);
    }
    assert_int_equal(eng_run(e), MGS_OK);
    mgs_time first = MGS_TIME_MAX, last = 0;
    uint64_t total = 0;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(m[i]->nrecv, N);
        total += m[i]->nrecv;
        if (m[i]->recv_at[0] < first)
            first = m[i]->recv_at[0];
        if (m[i]->recv_at[N - 1] > last)
            last = m[i]->recv_at[N - 1];
    }
    double bw = (double)(total - 4) * 64 / ((double)(last - first) / 1e12);
    print_message("switch complex aggregate: %.1f GB/s\n", bw / 1e9);
    assert_true(bw > 0.98e12 && bw < 1.02e12);
    for (int i = 0; i < 4; i++) {
        tb_agent_free(g[i]);
        tb_agent_free(m[i]);
    }
    noc_net_free(n);
    eng_free(e);
}

static void test_mem_response_class(void **state)
{
    (void)state;
    sim_msg m = {0};
    static const uint32_t rsp[] = {MEM_READ_RSP, MEM_WRITE_RSP,
                                   MEM_ATOMIC_RSP, MEM_CTRL_RSP,
                                   MEM_XLATE_RSP};
    static const uint32_t req[] = {MEM_READ, MEM_WRITE, MEM_ATOMIC,
                                   MEM_FLUSH, MEM_INVALIDATE, MEM_XLATE, 0};
    for (size_t i = 0; i < sizeof rsp / sizeof *rsp; i++) {
        m.type = rsp[i];
        assert_int_equal(noc_class_mem_rsp(&m, NULL), 1);
    }
    for (size_t i = 0; i < sizeof req / sizeof *req; i++) {
        m.type = req[i];
        assert_int_equal(noc_class_mem_rsp(&m, NULL), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pcie_bandwidths),
        cmocka_unit_test(test_pcie_hops),
        cmocka_unit_test(test_all_to_all_and_xbar_hops),
        cmocka_unit_test(test_every_endpoint_reachable),
        cmocka_unit_test(test_topology_latency),
        cmocka_unit_test(test_switch_complex_bandwidth),
        cmocka_unit_test(test_mem_response_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
