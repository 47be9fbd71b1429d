/* Tests for src/sim/demo.c: validation, results, exact single-message
** latency, determinism of the statistics rows, progress callback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mgsim/errors.h"
#include "sim/demo.h"

static void small_params(sim_demo_params *p)
{
    sim_demo_params_default(p);
    p->agents = 4;
    p->messages = 2000;
    p->buffer_capacity = 2;
}

static void test_defaults_validate(void **state)
{
    (void)state;
    sim_demo_params p;
    sim_demo_params_default(&p);
    assert_int_equal(sim_demo_params_validate(&p), MGS_OK);
    assert_true(p.agents >= 2 && p.agents % 2 == 0);
}

static void test_invalid_params(void **state)
{
    (void)state;
    sim_demo_params p;
    sim_demo_result r;

    small_params(&p);
    p.agents = 3;
    assert_int_equal(sim_demo_run(&p, NULL, NULL, NULL, &r), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "agents = 3"));
    assert_int_equal(r.events, 0);

    small_params(&p);
    p.bytes_per_cycle = 0;
    assert_int_equal(sim_demo_run(&p, NULL, NULL, NULL, NULL), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "bytes_per_cycle"));

    small_params(&p);
    p.buffer_capacity = 0;
    assert_int_equal(sim_demo_run(&p, NULL, NULL, NULL, NULL), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "buffer_capacity"));

    small_params(&p);
    p.freq_hz = 0;
    assert_int_equal(sim_demo_run(&p, NULL, NULL, NULL, NULL), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "freq_hz"));

    small_params(&p);
    p.freq_hz = 1000;            /* 1 kHz: 10^9 ps periods */
    p.latency_cycles = 2000000;  /* 2 * 10^15 ps of latency */
    p.messages = 1;
    assert_int_equal(sim_demo_run(&p, NULL, NULL, NULL, NULL), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "latency_cycles = 2000000"));

    small_params(&p);
    p.agents = 1u << 20;
    p.buffer_capacity = 1u << 16;
    assert_int_equal(sim_demo_run(&p, NULL, NULL, NULL, NULL), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "GiB of host memory"));

    small_params(&p);
    p.messages = UINT64_MAX / 2;
    assert_int_equal(sim_demo_run(&p, NULL, NULL, NULL, NULL), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "simulated time"));
}

typedef struct rowbuf {
    char *text;
    size_t len, cap;
    double latency_mean;
} rowbuf;

static void collect(const stat_row *row, void *ud)
{
    rowbuf *b = ud;
    char line[256];
    int k = snprintf(line, sizeof line, "%s %s %.17g %s\n", row->component,
                     row->metric, row->value, row->unit);
    if (b->len + (size_t)k + 1 > b->cap) {
        b->cap = 2 * (b->len + (size_t)k + 1);
        b->text = realloc(b->text, b->cap);
    }
    memcpy(b->text + b->len, line, (size_t)k + 1);
    b->len += (size_t)k;
    if (!strcmp(row->component, "Demo.Agent[0]") &&
        !strcmp(row->metric, "latency.mean"))
        b->latency_mean = row->value;
}

static rowbuf run_rows(const sim_demo_params *p, sim_demo_result *r)
{
    stat_registry *reg = stat_registry_new();
    assert_int_equal(sim_demo_run(p, reg, NULL, NULL, r), MGS_OK);
    rowbuf b = {0};
    stat_registry_foreach(reg, r->sim_time, collect, &b);
    stat_registry_free(reg);
    return b;
}

static void test_results_and_determinism(void **state)
{
    (void)state;
    sim_demo_params p;
    small_params(&p);
    sim_demo_result r1, r2;
    rowbuf a = run_rows(&p, &r1);
    rowbuf b = run_rows(&p, &r2);
    assert_int_equal(r1.messages, 4 * 2000);
    assert_true(r1.events >= 2 * r1.messages);
    assert_int_equal(r1.events, r2.events);
    assert_int_equal(r1.sim_time, r2.sim_time);
    assert_non_null(a.text);
    assert_string_equal(a.text, b.text);
    assert_non_null(strstr(a.text, "Demo.Agent[3] received 2000 count\n"));
    assert_non_null(strstr(a.text, "Demo.Conn[1] messages 4000 count\n"));
    /* 64 B over 32 B/cycle: one message per 2 cycles per direction. */
    assert_true(r1.sim_time >= 2000 * 2 * 1000);
    free(a.text);
    free(b.text);
}

static void test_single_message_latency_exact(void **state)
{
    (void)state;
    sim_demo_params p;
    sim_demo_params_default(&p);
    p.agents = 2;
    p.messages = 1;
    sim_demo_result r;
    rowbuf b = run_rows(&p, &r);
    /* Sent at the first edge (1000 ps); 2 link cycles + 10 latency cycles
    ** -> in the buffer at 13000; retrieved at the next edge, 14000. */
    assert_true(b.latency_mean == 13000.0);
    assert_int_equal(r.messages, 2);
    free(b.text);
}

typedef struct prog {
    int calls;
    double last_done;
    uint64_t last_events;
} prog;

static void on_progress(const sim_progress *p, void *ud)
{
    prog *g = ud;
    g->calls++;
    assert_true(p->done_fraction >= g->last_done);
    g->last_done = p->done_fraction;
    g->last_events = p->events;
}

static void test_progress_final_call(void **state)
{
    (void)state;
    sim_demo_params p;
    small_params(&p);
    prog g = {0};
    sim_demo_result r;
    assert_int_equal(sim_demo_run(&p, NULL, on_progress, &g, &r), MGS_OK);
    assert_true(g.calls >= 1);
    assert_true(g.last_done == 1.0);
    assert_int_equal(g.last_events, r.events);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_validate),
        cmocka_unit_test(test_invalid_params),
        cmocka_unit_test(test_results_and_determinism),
        cmocka_unit_test(test_single_message_latency_exact),
        cmocka_unit_test(test_progress_final_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
