/* Tests for src/mem/tester.c: clean over plain memory, the tester fails
** when a cache drops writes (and says where), configuration errors, the
** ownership rule of the shared mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mem_world.h"

static void test_clean_on_plain_memory(void **state)
{
    (void)state;
    mem_world_params p;
    mem_world_params_default(&p);
    p.nl1 = 0;
    p.nl2 = 0; /* no caches: agents talk straight to the memory */
    mem_world w;
    mem_world_build(&w, &p);
    assert_int_equal(eng_run(w.eng), MGS_OK);
    assert_true(mem_tester_done(w.tester));
    assert_int_equal(mem_tester_mismatches(w.tester), 0);
    /* ~half of 4 x 1500 ops are reads, all checked in private mode */
    assert_true(mem_tester_checked(w.tester) > 1000);
    assert_null(mem_tester_mismatch_get(w.tester, 0));
    mem_world_free(&w);
}

/* An L1 that acknowledges every 5th write without doing it: the tester
** must notice, and report address, expected and got. */
static void test_detects_dropped_writes(void **state)
{
    (void)state;
    for (int pol = CACHE_WRITE_AROUND; pol <= CACHE_WRITE_BACK; pol++) {
        mem_world_params p;
        mem_world_params_default(&p);
        p.l1.write_policy = (cache_write_policy)pol;
        p.tester.size = 4096;
        mem_world w;
        mem_world_build(&w, &p);
        w.l1[0]->fault_drop_write_every = 5;
        assert_int_equal(eng_run(w.eng), MGS_OK);
        assert_true(mem_tester_done(w.tester));
        assert_true(mem_tester_mismatches(w.tester) > 0);
        const mem_tester_mismatch *m = mem_tester_mismatch_get(w.tester, 0);
        assert_non_null(m);
        /* agents 0 and 2 use L1[0] */
        assert_true(m->agent == 0 || m->agent == 2);
        assert_true(m->addr >= m->access_addr &&
                    m->addr < m->access_addr + m->access_size);
        assert_int_not_equal(m->expected, m->got);
        char buf[4096];
        FILE *f = fmemopen(buf, sizeof buf, "w");
        mem_tester_report(w.tester, f);
        fclose(f);
        char needle[64];
        snprintf(needle, sizeof needle, "byte 0x%llx expected 0x",
                 (unsigned long long)m->addr);
        assert_non_null(strstr(buf, needle));
        assert_non_null(strstr(buf, "mismatches"));
        mem_world_free(&w);
    }
}

static void test_config_validate(void **state)
{
    (void)state;
    mem_tester_config c;
    mem_tester_config_default(&c);
    assert_int_equal(mem_tester_config_validate(&c), MGS_OK);
    c.max_size = 3;
    assert_int_equal(mem_tester_config_validate(&c), MGS_EINVAL);
    mem_tester_config_default(&c);
    c.unit = 32;
    c.max_size = 64;
    assert_int_equal(mem_tester_config_validate(&c), MGS_EINVAL);
    mem_tester_config_default(&c);
    c.size = 128 * 3;
    c.agents = 4; /* fewer units than agents */
    assert_int_equal(mem_tester_config_validate(&c), MGS_EINVAL);
    mem_tester_config_default(&c);
    c.read_percent = 90;
    c.atomic_percent = 20;
    assert_int_equal(mem_tester_config_validate(&c), MGS_EINVAL);
}

/* Shared mode: writes only to owned units, so after a flush every unit
** holds exactly what its owner's shadow says, and reads of other agents'
** units were issued but not checked. */
static void test_owned_units_rule(void **state)
{
    (void)state;
    mem_world_params p;
    mem_world_params_default(&p);
    p.tester.mode = MEM_TESTER_OWNED_UNITS;
    p.tester.size = 2048;  /* 16 units of 128 B over 4 agents */
    p.tester.read_percent = 100;
    p.tester.atomic_percent = 0;
    mem_world w;
    mem_world_build(&w, &p);
    assert_int_equal(eng_run(w.eng), MGS_OK);
    /* only reads: about a quarter of them target an owned unit */
    uint64_t checked = mem_tester_checked(w.tester);
    assert_true(checked > 0);
    uint64_t reads = 4 * 1500;
    assert_true(checked < reads * 64 / 2);
    assert_int_equal(mem_tester_mismatches(w.tester), 0);
    mem_world_free(&w);
}

typedef struct obs_count {
    uint64_t seen, checked, gpu_ok;
    uint64_t reject_after;
} obs_count;

static bool observer(void *ud, uint32_t agent, const mem_msg *req,
                     const mem_msg *rsp, bool checked)
{
    obs_count *o = ud;
    o->seen++;
    o->checked += checked;
    o->gpu_ok += req->gpu == (int32_t)(agent + 10) && rsp->req == req;
    return o->seen != o->reject_after;
}

/* The observer sees every completion; its verdict counts. */
static void test_observer_and_gpu(void **state)
{
    (void)state;
    mem_world_params p;
    mem_world_params_default(&p);
    p.tester.mode = MEM_TESTER_OWNED_UNITS;
    mem_world w;
    mem_world_build(&w, &p);
    obs_count o = {0, 0, 0, 100};
    mem_tester_set_observer(w.tester, observer, &o);
    for (uint32_t i = 0; i < p.tester.agents; i++)
        mem_tester_set_gpu(w.tester, i, (int32_t)i + 10);
    assert_int_equal(eng_run(w.eng), MGS_OK);
    assert_int_equal(o.seen, 4 * 1500);
    assert_int_equal(o.gpu_ok, 4 * 1500);
    assert_true(o.checked > 0 && o.checked < o.seen);
    assert_int_equal(mem_tester_mismatches(w.tester), 1); /* the rejected */
    mem_world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_on_plain_memory),
        cmocka_unit_test(test_detects_dropped_writes),
        cmocka_unit_test(test_config_validate),
        cmocka_unit_test(test_owned_units_rule),
        cmocka_unit_test(test_observer_and_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
