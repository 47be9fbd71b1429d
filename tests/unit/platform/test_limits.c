/*
** The run limits of a timing simulation (sim.max_events, sim.watchdog):
** a kernel that spins forever (s_branch -1) is stopped by the watchdog
** with MGS_EDEADLOCK and a line naming what was still busy; a normal
** kernel under a small event budget stops with MGS_ELIMIT; in both cases
** the model tears down cleanly (messages still in flight are expected:
** no "memory messages leaked" abort, no leak under ASan).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/engine.h"
#include "tm_fixture.h"

/* vecadd's code object with its first instruction replaced by `word`
** (in the loaded image, so the decoded program and the code that
** instruction fetch reads from device memory agree). */
static void init_patched(tm_fix *f, uint32_t word)
{
    assert_int_equal(tm_fix_init(f, "vecadd", "vecadd"), MGS_OK);
    const gcn_kernel *k = f->prog.kernel;
    gcn_emu_program_destroy(&f->prog);
    memcpy((uint8_t *)(uintptr_t)k->code, &word, 4);
    uint64_t tva = 0;
    size_t tsize = 0;
    const uint8_t *text = gcn_codeobj_text(f->co, &tva, &tsize);
    assert_non_null(text);
    assert_int_equal(gcn_emu_program_init_range(&f->prog, k, text, tva,
                                                tsize), MGS_OK);
    uint8_t args[28] = {0};
    assert_int_equal(tm_fix_launch(f, args, sizeof args, 64, 64), MGS_OK);
}

static int run_limited(tm_fix *f, uint64_t max_events, mgs_time watchdog,
                       uint64_t *events)
{
    gpu_build_config gc;
    tm_small_gpu(&gc);
    mgs_timing *t = NULL;
    assert_int_equal(mgs_timing_new(&gc, &f->mem, NULL, &t), MGS_OK);
    eng_set_limits(mgs_timing_engine(t), max_events, watchdog);
    mgs_timing_result res;
    int rc = mgs_timing_launch(t, 0, &f->el, &res);
    *events = eng_events(mgs_timing_engine(t));
    mgs_timing_free(t);       /* after a stopped run: must not abort */
    return rc;
}

static void test_watchdog_stops_spin(void **state)
{
    (void)state;
    tm_fix f;
    init_patched(&f, 0xbf82ffffu);          /* s_branch -1 */
    uint64_t events = 0;
    /* 10 us of simulated time with no message consumed anywhere. */
    int rc = run_limited(&f, 0, 10u * 1000u * 1000u, &events);
    assert_int_equal(rc, MGS_EDEADLOCK);
    assert_non_null(strstr(mgs_error_msg(), "sim.watchdog"));
    assert_non_null(strstr(mgs_error_msg(), "still busy: GPU[0]"));
    /* About 10 000 cycles of spinning, not millions. */
    assert_true(events > 1000 && events < 200000);
    tm_fix_fini(&f);
}

static void test_watchdog_off_max_events_stops_spin(void **state)
{
    (void)state;
    tm_fix f;
    init_patched(&f, 0xbf82ffffu);
    uint64_t events = 0;
    int rc = run_limited(&f, 50000, 0, &events);
    assert_int_equal(rc, MGS_ELIMIT);
    assert_int_equal(mgs_exit_code(rc), 3);
    assert_non_null(strstr(mgs_error_msg(), "sim.max_events: stopped after "
                                            "50000 events"));
    assert_int_equal(events, 50000);
    tm_fix_fini(&f);
}

/* A real kernel is not a livelock for the default watchdog, and a budget
** below its event count stops it part-way. */
static void test_limits_on_real_kernel(void **state)
{
    (void)state;
    tm_fix f;
    assert_int_equal(tm_fix_init(&f, "vecadd", "vecadd"), MGS_OK);
    uint64_t a = 0;
    assert_int_equal(mgs_devmem_alloc_range(&f.mem, 0, 4096, &a), 0);
    uint8_t args[28] = {0};
    uint32_t n = 1024;
    memcpy(args, &a, 8);
    memcpy(args + 8, &a, 8);
    memcpy(args + 16, &a, 8);
    memcpy(args + 24, &n, 4);
    assert_int_equal(tm_fix_launch(&f, args, sizeof args, n, 64), MGS_OK);
    uint64_t full = 0, part = 0;
    assert_int_equal(run_limited(&f, 0, 1000u * 1000u * 1000u, &full),
                     MGS_OK);
    assert_true(full > 1000);
    assert_int_equal(run_limited(&f, full / 2, 0, &part), MGS_ELIMIT);
    assert_int_equal(part, full / 2);
    tm_fix_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watchdog_stops_spin),
        cmocka_unit_test(test_watchdog_off_max_events_stops_spin),
        cmocka_unit_test(test_limits_on_real_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
