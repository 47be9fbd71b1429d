/* Tests for src/mem/simplemem.c: exact latency, in-order data effects,
** masked writes, atomics, faults out of range, back-pressure of a 1-entry
** answer queue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gcn3/inst.h"
#include "mem_world.h"

typedef struct rig {
    sim_engine *eng;
    mem_pool *pool;
    uint8_t bytes[4096];
    mem_array arr;
    simplemem *mem;
    probe p;
    sim_conn *conn;
} rig;

static rig *rig_new(uint32_t latency, uint32_t queue)
{
    rig *r = MGS_NEW(rig);
    r->eng = eng_new(NULL);
    r->pool = mem_pool_new();
    for (size_t i = 0; i < sizeof r->bytes; i++)
        r->bytes[i] = (uint8_t)i;
    r->arr = (mem_array){r->bytes, 0x10000, sizeof r->bytes};
    mem_backing b;
    mem_array_backing(&b, &r->arr);
    simplemem_config mc;
    simplemem_config_default(&mc);
    mc.latency = latency;
    mc.queue = queue;
    assert_int_equal(simplemem_config_validate(&mc), MGS_OK);
    r->mem = simplemem_new(r->eng, "Mem", &mc, r->pool, &b, NULL);
    sim_conn_config cc;
    conn_config_default(&cc);
    conn_config_set_latency_cycles(&cc, 1);
    r->conn = conn_new(r->eng, "Conn", &cc, NULL);
    probe_init(&r->p, r->eng, r->pool, "Probe");
    conn_plug(r->conn, &r->p.port);
    conn_plug(r->conn, simplemem_port(r->mem));
    return r;
}

static void rig_free(rig *r)
{
    probe_fini(&r->p);
    simplemem_free(r->mem);
    conn_free(r->conn);
    eng_free(r->eng);
    assert_int_equal(mem_pool_outstanding(r->pool), 0);
    mem_pool_free(r->pool);
    free(r);
}

static mem_msg *send(rig *r, mem_msg_type type, uint64_t addr, uint32_t size,
                     mgs_time t)
{
    mem_msg *m = probe_req(&r->p, type, addr, size, simplemem_port(r->mem));
    probe_send_at(&r->p, m, t);
    return m;
}

/* Read at 0: arrives 2000, taken 3000, answered 3000 + 10 cy = 13000;
** 16 + 8 bytes in one 64-byte cycle + 1 cycle: 15000. */
static void test_latency_and_data(void **state)
{
    (void)state;
    rig *r = rig_new(10, 8);
    mem_msg *rd = send(r, MEM_READ, 0x10010, 16, 0);
    assert_int_equal(eng_run(r->eng), MGS_OK);
    mgs_time t = 0;
    mem_msg *a = probe_answer(&r->p, rd, &t);
    assert_non_null(a);
    assert_int_equal(t, 15000);
    assert_memory_equal(a->data, r->bytes + 0x10, 16);
    assert_int_equal(a->flags & MEM_F_FAULT, 0);
    rig_free(r);
}

static void test_write_mask_atomic_order(void **state)
{
    (void)state;
    rig *r = rig_new(5, 8);
    mem_msg *w = send(r, MEM_WRITE, 0x10100, 4, 0);
    memset(w->data, 0xaa, 4);
    w->mask = 0x9; /* bytes 0 and 3 */
    mem_msg *a = send(r, MEM_ATOMIC, 0x10100, 4, 1000);
    a->atomic_op = GCN_OP_FLAT_ATOMIC_ADD;
    a->atomic_size = 4;
    a->atomic_src = 1;
    mem_msg *rd = send(r, MEM_READ, 0x10100, 4, 2000);
    assert_int_equal(eng_run(r->eng), MGS_OK);
    /* after the write: aa 01 02 aa (bytes were i & 0xff) */
    uint64_t old = 0xaa0201aaull;
    const uint8_t *got = probe_answer(&r->p, a, NULL)->data;
    assert_int_equal(got[0] | got[1] << 8 | got[2] << 16 |
                         (uint64_t)got[3] << 24, old);
    const uint8_t *now = probe_answer(&r->p, rd, NULL)->data;
    assert_int_equal(now[0], 0xab);
    assert_int_equal(now[1], 0x01);
    assert_int_equal(now[3], 0xaa);
    rig_free(r);
}

static void test_fault_out_of_range(void **state)
{
    (void)state;
    rig *r = rig_new(1, 8);
    mem_msg *rd = send(r, MEM_READ, 0x20000, 4, 0);
    mem_msg *wr = send(r, MEM_WRITE, 0xfffc, 8, 0); /* straddles the base */
    assert_int_equal(eng_run(r->eng), MGS_OK);
    assert_true(probe_answer(&r->p, rd, NULL)->flags & MEM_F_FAULT);
    assert_true(probe_answer(&r->p, wr, NULL)->flags & MEM_F_FAULT);
    rig_free(r);
}

/* queue = 1: the second request waits for the first answer to leave; the
** slot frees and is refilled on the same edge (13000), so the answers are
** exactly one latency apart. */
static void test_queue_backpressure(void **state)
{
    (void)state;
    rig *r = rig_new(10, 1);
    mem_msg *a = send(r, MEM_READ, 0x10000, 4, 0);
    mem_msg *b = send(r, MEM_READ, 0x10004, 4, 0);
    assert_int_equal(eng_run(r->eng), MGS_OK);
    mgs_time ta = 0, tb = 0;
    assert_non_null(probe_answer(&r->p, a, &ta));
    assert_non_null(probe_answer(&r->p, b, &tb));
    assert_int_equal(ta, 15000);
    assert_int_equal(tb - ta, 10000);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latency_and_data),
        cmocka_unit_test(test_write_mask_atomic_order),
        cmocka_unit_test(test_fault_out_of_range),
        cmocka_unit_test(test_queue_backpressure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
