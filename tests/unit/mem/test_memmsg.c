/* Tests for src/mem/memmsg.c: pool reuse order (LIFO), outstanding count,
** growth past one slab, responses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mem/memmsg.h"

static void test_pool_lifo_and_count(void **state)
{
    (void)state;
    mem_pool *p = mem_pool_new();
    mem_msg *a = mem_msg_alloc(p, MEM_READ);
    mem_msg *b = mem_msg_alloc(p, MEM_WRITE);
    assert_ptr_not_equal(a, b);
    assert_int_equal(mem_pool_outstanding(p), 2);
    assert_int_equal(a->base.type, MEM_READ);
    assert_int_equal(b->base.type, MEM_WRITE);
    assert_true(a->mask == ~0ull);
    a->addr = 77;
    mem_msg_release(p, a);
    assert_int_equal(mem_pool_outstanding(p), 1);
    /* LIFO: the message just released comes back first, zeroed. */
    mem_msg *c = mem_msg_alloc(p, MEM_ATOMIC);
    assert_ptr_equal(c, a);
    assert_int_equal(c->addr, 0);
    assert_int_equal(c->base.type, MEM_ATOMIC);
    mem_msg_release(p, b);
    mem_msg_release(p, c);
    assert_int_equal(mem_pool_outstanding(p), 0);
    mem_pool_free(p);
}

static void test_pool_grows(void **state)
{
    (void)state;
    mem_pool *p = mem_pool_new();
    enum { N = 1000 };
    static mem_msg *m[N];
    for (int i = 0; i < N; i++) {
        m[i] = mem_msg_alloc(p, MEM_READ);
        m[i]->addr = (uint64_t)i;
    }
    for (int i = 0; i < N; i++)
        assert_int_equal(m[i]->addr, (uint64_t)i); /* no aliasing */
    assert_int_equal(mem_pool_outstanding(p), N);
    for (int i = N; i-- > 0;)
        mem_msg_release(p, m[i]);
    assert_int_equal(mem_pool_outstanding(p), 0);
    mem_pool_free(p);
}

static void test_response(void **state)
{
    (void)state;
    mem_pool *p = mem_pool_new();
    sim_port src;
    int cookie;
    mem_msg *req = mem_msg_alloc(p, MEM_READ);
    req->base.src = &src;
    req->base.id = 9;
    req->addr = 0x1234;
    req->size = 16;
    req->flags = MEM_F_GLC;
    req->pid = 3;
    req->gpu = 2;
    req->origin = &cookie;
    req->issue_time = 5000;
    mem_msg *r = mem_msg_response(p, req);
    assert_int_equal(r->base.type, MEM_READ_RSP);
    assert_ptr_equal(r->base.dst, &src);
    assert_ptr_equal(r->req, req);
    assert_ptr_equal(r->origin, &cookie);
    assert_int_equal(r->addr, 0x1234);
    assert_int_equal(r->size, 16);
    assert_int_equal(r->flags, MEM_F_GLC);
    assert_int_equal(r->pid, 3);
    assert_int_equal(r->gpu, 2);
    assert_int_equal(r->issue_time, 5000);
    assert_int_equal(r->base.bytes, 8 + 16);
    static const struct { mem_msg_type req, rsp; } map[] = {
        {MEM_WRITE, MEM_WRITE_RSP}, {MEM_ATOMIC, MEM_ATOMIC_RSP},
        {MEM_FLUSH, MEM_CTRL_RSP}, {MEM_INVALIDATE, MEM_CTRL_RSP},
        {MEM_XLATE, MEM_XLATE_RSP}, {MEM_INV_LINE, MEM_INV_ACK}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        mem_msg *q = mem_msg_alloc(p, map[i].req);
        mem_msg *s = mem_msg_response(p, q);
        assert_int_equal(s->base.type, map[i].rsp);
        mem_msg_release(p, s);
        mem_msg_release(p, q);
    }
    mem_msg_release(p, r);
    mem_msg_release(p, req);
    assert_int_equal(mem_pool_outstanding(p), 0);
    mem_pool_free(p);
}

/* Protocol fields: zero on allocation, not copied into a response, their
** wire size declared once (re-declaring replaces it), relayed with it. */
static void test_protocol_fields(void **state)
{
    (void)state;
    mem_pool *p = mem_pool_new();
    mem_msg *req = mem_msg_alloc(p, MEM_READ);
    assert_int_equal(req->coh[0] | req->coh[1] | req->sharers, 0);
    assert_int_equal(req->coh_bytes, 0);
    req->size = 4;
    req->base.bytes = 8;
    req->coh[0] = 11;
    req->sharers = 0x5;
    mem_msg_set_coh_bytes(req, 8);
    assert_int_equal(req->base.bytes, 16);
    mem_msg_set_coh_bytes(req, 12);
    assert_int_equal(req->base.bytes, 20);
    mem_msg *r = mem_msg_response(p, req);
    assert_int_equal(r->coh[0] | r->sharers, 0);
    assert_int_equal(r->base.bytes, 8 + 4);
    mem_msg_copy_coh(r, req);
    assert_int_equal(r->coh[0], 11);
    assert_int_equal(r->sharers, 0x5);
    assert_int_equal(r->coh_bytes, 12);
    assert_int_equal(r->base.bytes, 8 + 4 + 12);
    mem_msg_release(p, r);
    mem_msg_release(p, req);
    mem_pool_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_lifo_and_count),
        cmocka_unit_test(test_pool_grows),
        cmocka_unit_test(test_response),
        cmocka_unit_test(test_protocol_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
