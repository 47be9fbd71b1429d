/* Tests for src/sim/engine.c: ordering, run_until, stop, hooks, progress,
** livelock watchdog, diagnosis. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mgsim/errors.h"
#include "sim/comp.h"
#include "sim/engine.h"
#include "sim/port.h"

#define MAXLOG 64

typedef struct logger {
    sim_comp base;
    sim_event ev[16];
    uint32_t log[MAXLOG];
    mgs_time at[MAXLOG];
    int n;
    int stop_after;     /* eng_stop when n reaches it (0 = never) */
    bool spin;          /* reschedule the same event at now forever */
} logger;

static void logger_handle(sim_comp *c, sim_event *ev)
{
    logger *l = (logger *)c;
    if (l->n < MAXLOG) {
        l->log[l->n] = ev->kind;
        l->at[l->n] = eng_now(c->eng);
    }
    l->n++;
    if (l->stop_after && l->n == l->stop_after)
        eng_stop(c->eng);
    if (l->spin)
        eng_schedule(c->eng, ev, eng_now(c->eng));
}

static const sim_comp_ops logger_ops = {.kind = "Logger",
                                        .handle = logger_handle};

static void logger_init(logger *l, sim_engine *e, const char *name)
{
    memset(l, 0, sizeof *l);
    comp_init(&l->base, e, &logger_ops, name, 0);
    for (uint32_t i = 0; i < 16; i++)
        eng_event_init(&l->ev[i], &l->base, i, NULL);
}

static void test_order_by_time_then_insertion(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    logger l;
    logger_init(&l, e, "L");
    /* kinds 0..7 at times chosen so that ties must follow insertion. */
    const mgs_time t[8] = {500, 100, 500, 100, 0, 500, 100, 0};
    for (int i = 0; i < 8; i++)
        eng_schedule(e, &l.ev[i], t[i]);
    assert_int_equal(eng_pending(e), 8);
    assert_int_equal(eng_run(e), MGS_OK);
    const uint32_t want[8] = {4, 7, 1, 3, 6, 0, 2, 5};
    assert_int_equal(l.n, 8);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(l.log[i], want[i]);
        assert_int_equal(l.at[i], t[want[i]]);
    }
    assert_int_equal(eng_now(e), 500);
    assert_int_equal(eng_events(e), 8);
    comp_fini(&l.base);
    eng_free(e);
}

enum { MANY = 1000 };
typedef struct recorder {
    sim_comp base;
    sim_event ev[MANY];
    uint32_t order[MANY];
    mgs_time at[MANY];
    int n;
} recorder;

static void recorder_handle(sim_comp *c, sim_event *ev)
{
    recorder *r = (recorder *)c;
    r->order[r->n] = ev->kind;
    r->at[r->n] = eng_now(c->eng);
    r->n++;
}

static const sim_comp_ops recorder_ops = {.kind = "Rec",
                                          .handle = recorder_handle};

static void test_many_events_sorted(void **state)
{
    (void)state;
    /* Heap growth past the initial capacity, pseudo-random times with many
    ** ties: the firing order must be (time, insertion index). */
    sim_engine_config cfg;
    eng_config_default(&cfg);
    cfg.queue_hint = 2;
    sim_engine *e = eng_new(&cfg);
    static recorder r;
    memset(&r, 0, sizeof r);
    comp_init(&r.base, e, &recorder_ops, "Rec", 0);
    uint64_t rng = 42;
    for (uint32_t i = 0; i < MANY; i++) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        eng_event_init(&r.ev[i], &r.base, i, NULL);
        eng_schedule(e, &r.ev[i], (rng >> 40) % 300);
    }
    assert_int_equal(eng_run(e), MGS_OK);
    assert_int_equal(r.n, MANY);
    int ties = 0;
    for (int i = 1; i < MANY; i++) {
        assert_true(r.at[i] >= r.at[i - 1]);
        if (r.at[i] == r.at[i - 1]) {
            ties++;
            assert_true(r.order[i] > r.order[i - 1]);
        }
    }
    assert_true(ties > 100); /* the test really exercised ties */
    comp_fini(&r.base);
    eng_free(e);
}

static void test_run_until_and_stop(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    logger l;
    logger_init(&l, e, "L");
    eng_schedule(e, &l.ev[0], 100);
    eng_schedule(e, &l.ev[1], 200);
    eng_schedule(e, &l.ev[2], 300);
    eng_schedule(e, &l.ev[3], 400);
    assert_int_equal(eng_run_until(e, 250), MGS_OK);
    assert_int_equal(l.n, 2);
    assert_int_equal(eng_now(e), 250);
    l.stop_after = 3;
    assert_int_equal(eng_run(e), MGS_OK);
    assert_true(eng_stop_requested(e));
    assert_int_equal(l.n, 3);
    assert_int_equal(eng_now(e), 300);
    assert_int_equal(eng_pending(e), 1);
    assert_int_equal(eng_run(e), MGS_OK);
    assert_int_equal(l.n, 4);
    /* An empty queue: run_until still moves time to the horizon. */
    assert_int_equal(eng_run_until(e, 9000), MGS_OK);
    assert_int_equal(eng_now(e), 9000);
    comp_fini(&l.base);
    eng_free(e);
}

typedef struct hook_rec {
    int before, after, tstart, tend;
    uint64_t last_task;
    mgs_time last_now;
} hook_rec;

static void on_hook(const sim_hook_ctx *ctx, void *ud)
{
    hook_rec *r = ud;
    switch (ctx->pos) {
    case SIM_HOOK_BEFORE_EVENT: r->before++; break;
    case SIM_HOOK_AFTER_EVENT: r->after++; break;
    case SIM_HOOK_TASK_START: r->tstart++; r->last_task = ctx->task_id; break;
    case SIM_HOOK_TASK_END: r->tend++; break;
    default: break;
    }
    r->last_now = ctx->now;
}

static void test_hooks(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    logger l;
    logger_init(&l, e, "L");
    hook_rec r = {0};
    int hb = eng_hook_add(e, SIM_HOOK_BEFORE_EVENT, on_hook, &r);
    int ha = eng_hook_add(e, SIM_HOOK_AFTER_EVENT, on_hook, &r);
    eng_hook_add(e, SIM_HOOK_TASK_START, on_hook, &r);
    eng_hook_add(e, SIM_HOOK_TASK_END, on_hook, &r);
    assert_true(hb > 0 && ha > 0 && ha != hb);
    eng_schedule(e, &l.ev[0], 10);
    eng_schedule(e, &l.ev[1], 20);
    eng_run(e);
    assert_int_equal(r.before, 2);
    assert_int_equal(r.after, 2);
    assert_int_equal(r.last_now, 20);
    comp_task_start(&l.base, 77, "req");
    comp_task_end(&l.base, 77, "req");
    assert_int_equal(r.tstart, 1);
    assert_int_equal(r.tend, 1);
    assert_int_equal(r.last_task, 77);
    eng_hook_remove(e, hb);
    eng_schedule(e, &l.ev[2], 30);
    eng_run(e);
    assert_int_equal(r.before, 2); /* removed */
    assert_int_equal(r.after, 3);
    comp_fini(&l.base);
    eng_free(e);
}

typedef struct prog_rec {
    int calls;
    uint64_t events[8];
    mgs_time now[8];
} prog_rec;

static void on_progress(const eng_progress_info *info, void *ud)
{
    prog_rec *r = ud;
    if (r->calls < 8) {
        r->events[r->calls] = info->events;
        r->now[r->calls] = info->now;
    }
    r->calls++;
    assert_true(info->events_per_s >= 0);
}

static void test_progress_every_n_events(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    logger l;
    logger_init(&l, e, "L");
    for (int i = 0; i < 10; i++)
        eng_schedule(e, &l.ev[i], (mgs_time)i * 100);
    prog_rec r = {0};
    eng_set_progress(e, on_progress, &r, 4, 0);
    eng_run(e);
    assert_int_equal(r.calls, 2);
    assert_int_equal(r.events[0], 4);
    assert_int_equal(r.now[0], 300);
    assert_int_equal(r.events[1], 8);
    assert_int_equal(r.now[1], 700);
    comp_fini(&l.base);
    eng_free(e);
}

static void test_livelock_detected(void **state)
{
    (void)state;
    sim_engine_config cfg;
    eng_config_default(&cfg);
    cfg.livelock_events = 1000;
    sim_engine *e = eng_new(&cfg);
    logger l;
    logger_init(&l, e, "Spinner[0]");
    l.spin = true;
    eng_schedule(e, &l.ev[0], 5000);
    int rc = eng_run(e);
    assert_int_equal(rc, MGS_EDEADLOCK);
    assert_int_equal(mgs_exit_code(rc), 3);
    assert_non_null(strstr(mgs_error_msg(), "livelock"));
    assert_non_null(strstr(mgs_error_msg(), "Spinner[0]"));
    assert_non_null(strstr(mgs_error_msg(), "t=5000 ps"));
    /* First event at 5000 plus 1000 at the same time, then it stops. */
    assert_int_equal(l.n, 1001);
    comp_fini(&l.base);
    eng_free(e);
}

static void test_livelock_off_when_zero(void **state)
{
    (void)state;
    sim_engine_config cfg;
    eng_config_default(&cfg);
    cfg.livelock_events = 0;
    sim_engine *e = eng_new(&cfg);
    logger l;
    logger_init(&l, e, "L");
    l.spin = true;
    l.stop_after = 5000;
    eng_schedule(e, &l.ev[0], 0);
    assert_int_equal(eng_run(e), MGS_OK);
    assert_int_equal(l.n, 5000);
    comp_fini(&l.base);
    eng_free(e);
}

/* A clocked component that ticks (and claims progress) every cycle until
** stop_at ticks; with forward set it also notes forward progress. */
typedef struct spinner {
    sim_comp base;
    uint64_t ticks, stop_at;
    bool forward;
} spinner;

static bool spinner_tick(sim_comp *c)
{
    spinner *s = (spinner *)c;
    if (s->forward)
        eng_note_forward(c->eng);
    return ++s->ticks < s->stop_at;
}

static const sim_comp_ops spinner_ops = {.kind = "Spinner",
                                         .tick = spinner_tick};

static uint64_t run_spinner(uint64_t max_events, mgs_time watchdog,
                            bool forward, int *rc)
{
    sim_engine *e = eng_new(NULL);
    eng_set_limits(e, max_events, watchdog);
    spinner s = {.stop_at = 100000, .forward = forward};
    comp_init(&s.base, e, &spinner_ops, "Spin", 1000);
    comp_wake(&s.base);
    *rc = eng_run(e);
    comp_fini(&s.base);
    eng_free(e);
    return s.ticks;
}

/* sim.max_events: exactly that many events fire, then MGS_ELIMIT. */
static void test_max_events(void **state)
{
    (void)state;
    int rc;
    assert_int_equal(run_spinner(2500, 0, false, &rc), 2500);
    assert_int_equal(rc, MGS_ELIMIT);
    assert_int_equal(mgs_exit_code(rc), 3);
    assert_non_null(strstr(mgs_error_msg(), "sim.max_events: stopped after "
                                            "2500 events"));
    assert_int_equal(run_spinner(0, 0, false, &rc), 100000);
    assert_int_equal(rc, MGS_OK);
}

/* sim.watchdog: events over more simulated time than the watchdog with
** no forward progress stop the run; noted progress keeps it going. */
static void test_watchdog(void **state)
{
    (void)state;
    int rc;
    uint64_t n = run_spinner(0, 50000, false, &rc);
    assert_int_equal(rc, MGS_EDEADLOCK);
    assert_non_null(strstr(mgs_error_msg(), "sim.watchdog = 50000 ps"));
    /* More than ENG_WATCHDOG_MIN_EVENTS events, far fewer than 100000. */
    assert_true(n > ENG_WATCHDOG_MIN_EVENTS && n < 2 * ENG_WATCHDOG_MIN_EVENTS);
    assert_int_equal(run_spinner(0, 50000, true, &rc), 100000);
    assert_int_equal(rc, MGS_OK);
}

/* A component with two ports whose buffers we fill by hand. */
typedef struct holder {
    sim_comp base;
    sim_port a, b;
} holder;

static const sim_comp_ops holder_ops = {.kind = "Holder"};

/* A component that names its buffer in a stack buffer, as rdma, dma and
** simplemem do, and reuses it once the visitor returned. */
static void stack_visit(const sim_comp *c, sim_buf_visit_fn fn, void *ud)
{
    char name[64];
    snprintf(name, sizeof name, "%s.queue", c->name);
    fn(name, 3, 3, ud);
    memset(name, 'x', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    fn(name, 0, 1, ud);       /* empty: not listed, but the bytes changed */
}

static const sim_comp_ops stacker_ops = {.kind = "Stacker",
                                         .visit_buffers = stack_visit};

static void test_diagnose_sorted_by_fullness(void **state)
{
    (void)state;
    sim_engine *e = eng_new(NULL);
    holder h1, h2;
    comp_init(&h1.base, e, &holder_ops, "H[0]", 0);
    comp_init(&h2.base, e, &holder_ops, "H[1]", 0);
    port_init(&h1.a, &h1.base, "a", 4);
    port_init(&h1.b, &h1.base, "b", 2);
    port_init(&h2.a, &h2.base, "a", 8);
    port_init(&h2.b, &h2.base, "b", 4);
    char buf[256];
    eng_diagnose(e, buf, sizeof buf, 5);
    assert_string_equal(buf, "no buffered messages");
    sim_msg m = {0};
    h1.a.count = 1;  /* 1/4 */
    h1.b.count = 2;  /* 2/2 */
    h2.a.count = 4;  /* 4/8 */
    h2.b.count = 2;  /* 2/4 */
    for (uint32_t i = 0; i < 8; i++)
        h1.a.buf[i % 4] = h1.b.buf[i % 2] = h2.a.buf[i] = h2.b.buf[i % 4] = &m;
    size_t need = eng_diagnose(e, buf, sizeof buf, 5);
    assert_string_equal(buf, "fullest buffers: H[0].b 2/2, H[1].a 4/8, "
                             "H[1].b 2/4, H[0].a 1/4");
    assert_int_equal(need, strlen(buf));

    eng_diagnose(e, buf, sizeof buf, 2);
    assert_string_equal(buf, "fullest buffers: H[0].b 2/2, H[1].a 4/8, "
                             "... (2 more)");
    /* Truncation stays NUL-terminated and reports the full length. */
    char small[10];
    need = eng_diagnose(e, small, sizeof small, 5);
    assert_int_equal(strlen(small), 9);
    assert_true(need > 9);
    /* A name the visitor built on its stack is copied when it is seen. */
    sim_comp q;
    comp_init(&q, e, &stacker_ops, "Q", 0);
    eng_diagnose(e, buf, sizeof buf, 2);
    assert_string_equal(buf, "fullest buffers: Q.queue 3/3, H[0].b 2/2, "
                             "... (3 more)");
    h1.a.count = h1.b.count = h2.a.count = h2.b.count = 0;
    port_fini(&h1.a); port_fini(&h1.b); port_fini(&h2.a); port_fini(&h2.b);
    comp_fini(&h1.base);
    comp_fini(&h2.base);
    comp_fini(&q);
    eng_free(e);
}

/* Handler of L[0] that tries to schedule an event belonging to L[1]. */
static logger *victim;
static void meddler_handle(sim_comp *c, sim_event *ev)
{
    (void)ev;
    eng_schedule(c->eng, &victim->ev[0], eng_now(c->eng) + 1);
}

static const sim_comp_ops meddler_ops = {.kind = "Meddler",
                                         .handle = meddler_handle};

static void test_scheduling_for_another_component_aborts(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* Child: quiet the assertion text, then break the rule. */
        if (!freopen("/dev/null", "w", stderr))
            _exit(3);
        sim_engine *e = eng_new(NULL);
        static logger a, b;
        logger_init(&a, e, "L[0]");
        logger_init(&b, e, "L[1]");
        a.base.ops = &meddler_ops;
        victim = &b;
        eng_schedule(e, &a.ev[0], 10);
        eng_run(e);
        _exit(0); /* not reached if the assertion fires */
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_by_time_then_insertion),
        cmocka_unit_test(test_many_events_sorted),
        cmocka_unit_test(test_run_until_and_stop),
        cmocka_unit_test(test_hooks),
        cmocka_unit_test(test_progress_every_n_events),
        cmocka_unit_test(test_livelock_detected),
        cmocka_unit_test(test_livelock_off_when_zero),
        cmocka_unit_test(test_max_events),
        cmocka_unit_test(test_watchdog),
        cmocka_unit_test(test_diagnose_sorted_by_fullness),
        cmocka_unit_test(test_scheduling_for_another_component_aborts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
