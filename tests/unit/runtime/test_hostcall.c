/*
** Device printf over the hostcall protocol (src/runtime/hostcall.[ch],
** devprintf.[ch], hostcall_agent.[ch]; docs/hip.md "Device printf"):
**   - the formatter on scripted messages (every conversion kind, '*'
**     widths, inline strings, missing words);
**   - the emu listener on packets written here as the device library
**     writes them (a message over three calls, two lanes, the LIFO ready
**     stack served oldest first);
**   - kernels/hostcall_printf.hip in emu and timing mode, 1 and 2 GPUs: the
**     text, printf's return values, a launch that never calls, and the two
**     broken listeners (answers not written; READY never cleared) failing.
*/
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_rig.h"
#include "runtime/devmem.h"
#include "runtime/devprintf.h"
#include "runtime/hostcall.h"
#include "workloads/workload.h"

/* ---- the formatter ---- */

/* Words of a message: stream, then the format string inline. */
static size_t put_string(uint64_t *w, const char *s)
{
    size_t n = (strlen(s) + 1 + 7) / 8;
    memset(w, 0, n * 8);
    memcpy(w, s, strlen(s));
    return n;
}

static void expect_format(const uint64_t *w, size_t n, const char *want)
{
    mgs_devprintf_out o;
    int len = mgs_devprintf_format(w, n, &o);
    assert_string_equal(o.text, want);
    assert_int_equal(len, (int)strlen(want));
    free(o.text);
}

static void test_format_conversions(void **state)
{
    (void)state;
    uint64_t w[64];
    size_t n = 0;
    w[n++] = 0;
    n += put_string(w + n, "%d|%5u|%-4x|%lld|%hhd|%c|%s|%8.3f|%e|%p|%%|%*d|%.*s");
    w[n++] = (uint32_t)-7;            /* int, zero-extended as the device does */
    w[n++] = 42;
    w[n++] = 255;
    w[n++] = (uint64_t)-5000000000ll;
    w[n++] = 0x1ff;                   /* hh: -1 */
    w[n++] = 'Z';
    n += put_string(w + n, "inline string");
    double d = 3.14159, e = 1e-3;
    memcpy(&w[n++], &d, 8);
    memcpy(&w[n++], &e, 8);
    w[n++] = 0x1234;
    w[n++] = 6;                       /* width of %*d */
    w[n++] = 9;
    w[n++] = 3;                       /* precision of %.*s */
    n += put_string(w + n, "abcdef");
    char want[256];
    snprintf(want, sizeof want, "%d|%5u|%-4x|%lld|%hhd|%c|%s|%8.3f|%e|%p|%%|%*d|%.*s",
             -7, 42u, 255u, -5000000000ll, (signed char)-1, 'Z', "inline string",
             d, e, (void *)0x1234, 6, 9, 3, "abcdef");
    expect_format(w, n, want);
}

static void test_format_edges(void **state)
{
    (void)state;
    uint64_t w[16];
    size_t n = 0;
    w[n++] = 1;                       /* stderr */
    n += put_string(w + n, "a=%d b=%d %q %");
    w[n++] = 1;                       /* b's word is missing */
    mgs_devprintf_out o;
    mgs_devprintf_format(w, n, &o);
    assert_int_equal(o.stream, 1);
    assert_string_equal(o.text, "a=1 b= %q %");
    free(o.text);
    /* A null string is one zero word: an empty string. */
    n = 0;
    w[n++] = 0;
    n += put_string(w + n, "[%s]");
    w[n++] = 0;
    expect_format(w, n, "[]");
}

/* ---- the emu listener on scripted packets ---- */

enum { HDR = 24, ROWB = 64, PAY = 64 * ROWB };

typedef struct device {
    mgs_devmem mem;
    mgs_hostcall *hc;
    uint64_t buf;
    mgs_hostcall_layout lay;
    FILE *out;
    char *text;
    size_t len;
} device;

static void device_init(device *d)
{
    assert_int_equal(mgs_devmem_init(&d->mem, 1, 64ull << 20), MGS_OK);
    d->out = open_memstream(&d->text, &d->len);
    assert_int_equal(mgs_hostcall_new(&d->mem, 0, 4, d->out, d->out, &d->hc),
                     MGS_OK);
    d->buf = mgs_hostcall_va(d->hc);
    mgs_hostcall_layout_get(d->hc, &d->lay);
}

static void device_fini(device *d)
{
    mgs_hostcall_free(d->hc);
    fclose(d->out);
    free(d->text);
    mgs_devmem_destroy(&d->mem);
}

static uint64_t rd64(device *d, uint64_t va)
{
    uint64_t v;
    assert_int_equal(mgs_devmem_read(&d->mem, va, &v, 8), MGS_OK);
    return v;
}

static void wr64(device *d, uint64_t va, uint64_t v)
{
    assert_int_equal(mgs_devmem_write(&d->mem, va, &v, 8), MGS_OK);
}

/* What __ockl_hostcall_internal does before it waits: pop a free packet,
** fill it (lanes in mask, each with its 8 words), push it on the ready
** stack. Returns the packet index. */
static uint64_t device_call(device *d, uint64_t mask, uint64_t words[64][8])
{
    uint64_t m = d->lay.index_mask;
    uint64_t f = rd64(d, d->buf + 24);
    assert_true(f & m);
    uint64_t i = f & m;
    uint64_t hva = d->lay.headers + i * HDR;
    wr64(d, d->buf + 24, rd64(d, hva));          /* pop */
    wr64(d, hva + 8, mask);
    uint32_t sc[2] = {2, 1};                      /* printf service, READY */
    assert_int_equal(mgs_devmem_write(&d->mem, hva + 16, sc, 8), MGS_OK);
    for (int l = 0; l < 64; l++)
        if (mask >> l & 1)
            assert_int_equal(mgs_devmem_write(&d->mem, d->lay.payloads +
                                              i * PAY + l * ROWB, words[l], 64),
                             MGS_OK);
    wr64(d, hva, rd64(d, d->buf + 32));           /* push ready */
    wr64(d, d->buf + 32, f);
    return i;
}

static uint32_t control_of(device *d, uint64_t i)
{
    uint32_t c;
    assert_int_equal(mgs_devmem_read(&d->mem, d->lay.headers + i * HDR + 20,
                                     &c, 4), MGS_OK);
    return c;
}

static uint64_t answer(device *d, uint64_t i, int lane)
{
    return rd64(d, d->lay.payloads + i * PAY + lane * ROWB);
}

static void test_listener_script(void **state)
{
    (void)state;
    device d;
    device_init(&d);
    uint64_t w[64][8];
    memset(w, 0, sizeof w);
    /* Lanes 0 and 5 begin messages (3 words: stream 0, then "id=%d\n"). */
    const char *fmt = "id=%d\n";
    for (int l = 0; l < 64; l += 5) {
        if (l > 5) break;
        w[l][0] = 1 | 2u << 5;                    /* BEGIN, 2 words */
        w[l][1] = 0;
        memcpy(&w[l][2], fmt, strlen(fmt) + 1);
    }
    uint64_t p = device_call(&d, 1u | 1u << 5, w);
    /* A second packet from another wave before the listener runs: a
    ** one-call message. */
    uint64_t w2[64][8];
    memset(w2, 0, sizeof w2);
    w2[3][0] = 1 | 2 | 3u << 5;                   /* BEGIN | END, 3 words */
    w2[3][1] = 0;
    memcpy(&w2[3][2], "first", 6);
    w2[3][3] = 0;
    uint64_t q = device_call(&d, 1u << 3, w2);
    assert_int_equal(mgs_hostcall_interrupt(d.hc, 0x11), MGS_OK);  /* not ours */
    assert_int_equal(control_of(&d, p), 1);
    assert_int_equal(mgs_hostcall_interrupt(d.hc, MGS_HOSTCALL_EVENT), MGS_OK);
    assert_int_equal(rd64(&d, d.buf + 32), 0);    /* the stack was taken */
    assert_int_equal(control_of(&d, p), 0);
    assert_int_equal(control_of(&d, q), 0);
    uint64_t id0 = answer(&d, p, 0), id5 = answer(&d, p, 5);
    assert_true(id0 && id5 && id0 != id5);        /* message descriptors */
    assert_int_equal(answer(&d, q, 3), 5);        /* "first" */
    /* Both end with their argument (END, 1 word). */
    memset(w, 0, sizeof w);
    w[0][0] = id0 | 2 | 1u << 5;
    w[0][1] = 7;
    w[5][0] = id5 | 2 | 1u << 5;
    w[5][1] = 123;
    /* The waves return their packets first (as the device library does). */
    for (uint64_t k = p; k; k = 0) {
        wr64(&d, d.lay.headers + k * HDR, rd64(&d, d.buf + 24));
        wr64(&d, d.buf + 24, k + (d.lay.index_mask + 1));
    }
    uint64_t r = device_call(&d, 1u | 1u << 5, w);
    assert_int_equal(mgs_hostcall_interrupt(d.hc, MGS_HOSTCALL_EVENT), MGS_OK);
    assert_int_equal(answer(&d, r, 0), 5);        /* "id=7\n" */
    assert_int_equal(answer(&d, r, 5), 7);        /* "id=123\n" */
    mgs_hostcall_flush(d.hc);
    fflush(d.out);
    assert_string_equal(d.text, "firstid=7\nid=123\n");
    /* An unknown service stops the listener for good. */
    uint64_t s = device_call(&d, 1, w2);
    uint32_t bad = 9;
    assert_int_equal(mgs_devmem_write(&d.mem, d.lay.headers + s * HDR + 16,
                                      &bad, 4), MGS_OK);
    assert_int_equal(mgs_hostcall_interrupt(d.hc, MGS_HOSTCALL_EVENT),
                     MGS_EUNSUPPORTED);
    assert_non_null(strstr(mgs_error_msg(), "unsupported service 9"));
    assert_int_equal(control_of(&d, s), 1);
    device_fini(&d);
}

/* ---- kernels/hostcall_printf.hip through the runtime ---- */

/* Runs hostcall_printf over n work-items (blocks of 64) with stdout in a
** file; returns the launch's status; text receives what was printed. */
static int run_kernel_on(mgs_mode mode, int gpus, const char *platform,
                         uint32_t stream, int n, int quiet, int *out,
                         char *text, size_t cap)
{
    static const char *const sets[] = {"sim.max_wave_insts=200000",
                                       "sim.watchdog=200us", NULL};
    rt_rig r;
    rt_rig_init(&r, mode, gpus, platform, sets);
    char path[4096];
    wl_kernel_path("hostcall_printf.hsaco", path, sizeof path);
    mgs_module *m;
    assert_int_equal(mgs_module_load(r.rt, path, &m), MGS_OK);
    mgs_kernel *k;
    assert_int_equal(mgs_module_kernel(m, "hostcall_printf", &k), MGS_OK);
    mgs_dptr dout;
    assert_int_equal(mgs_malloc(r.rt, 0, 4 * (size_t)n, &dout), MGS_OK);
    struct { uint64_t out; int n, quiet; } args = {dout, n, quiet};
    /* Whole work-groups, as HIP launches them (blockDim is the full size). */
    mgs_launch l = {.grid = {((uint32_t)n + 63) / 64 * 64, 1, 1},
                    .block = {64, 1, 1},
                    .args = &args, .args_size = sizeof args,
                    .gpu = gpus > 1 ? MGS_GPU_ALL : 0, .stream = stream};
    char tmpl[] = "/tmp/mgsim-hostcall-XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    int rc = mgs_launch_kernel(r.rt, k, &l);
    if (!rc)
        rc = mgs_synchronize(r.rt);
    if (!rc)
        rc = mgs_memcpy_d2h(r.rt, out, dout, 4 * (size_t)n);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    ssize_t got = pread(fd, text, cap - 1, 0);
    text[got > 0 ? got : 0] = 0;
    close(fd);
    unlink(tmpl);
    rt_rig_fini(&r);
    return rc;
}

static int run_kernel(mgs_mode mode, int gpus, const char *platform, int n,
                      int quiet, int *out, char *text, size_t cap)
{
    return run_kernel_on(mode, gpus, platform, 0, n, quiet, out, text, cap);
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every item's line once (waves print in the order they run: timing mode
** interleaves them) and printf's return value its length. */
static void check_lines(int n, const int *out, char *text)
{
    char **got = calloc((size_t)n + 1, sizeof *got), **want = calloc((size_t)n, sizeof *want);
    int k = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        got[k < n ? k++ : n] = line;
    assert_int_equal(k, n);
    for (int i = 0; i < n; i++) {
        want[i] = malloc(96);
        int len = snprintf(want[i], 96, "item %d of %d: %.2f %s", i, n,
                           i * 0.5, i & 1 ? "odd" : "even");
        assert_int_equal(out[i], len + 1);
    }
    qsort(got, (size_t)n, sizeof *got, by_text);
    qsort(want, (size_t)n, sizeof *want, by_text);
    for (int i = 0; i < n; i++) {
        assert_string_equal(got[i], want[i]);
        free(want[i]);
    }
    free(got);
    free(want);
}

static void run_and_check(mgs_mode mode, int gpus, const char *platform)
{
    enum { N = 130 };
    int out[N];
    static char text[1 << 14];
    assert_int_equal(run_kernel(mode, gpus, platform, N, 0, out, text,
                                sizeof text), MGS_OK);
    check_lines(N, out, text);
}

static void test_kernel_emu(void **state)
{
    (void)state;
    run_and_check(MGS_MODE_EMU, 1, NULL);
    run_and_check(MGS_MODE_EMU, 2, "unified");
}

static void test_kernel_timing(void **state)
{
    (void)state;
    run_and_check(MGS_MODE_TIMING, 1, NULL);
    run_and_check(MGS_MODE_TIMING, 2, "unified");
}

/* A launch queued on a stream (replayed at the synchronisation, timing
** mode): its listener is armed too. */
static void test_kernel_stream(void **state)
{
    (void)state;
    enum { N = 70 };
    int out[N];
    static char text[1 << 13];
    assert_int_equal(run_kernel_on(MGS_MODE_TIMING, 1, NULL, 1, N, 0, out,
                                   text, sizeof text), MGS_OK);
    check_lines(N, out, text);
}

/* A launch that takes the buffer and never calls: no output, and the
** listener lets the run end. */
static void test_kernel_quiet(void **state)
{
    (void)state;
    int out[64];
    char text[64];
    assert_int_equal(run_kernel(MGS_MODE_TIMING, 1, NULL, 64, 1, out, text,
                                sizeof text), MGS_OK);
    assert_int_equal(out[0], -1);
    assert_string_equal(text, "");
}

static void test_broken_listeners_fail(void **state)
{
    (void)state;
    enum { N = 64 };
    int out[N];
    static char text[1 << 13];
    /* Answers not written: printf's return values are wrong. */
    mgs_hostcall_test_break = 1;
    for (int mode = 0; mode < 2; mode++) {
        assert_int_equal(run_kernel(mode ? MGS_MODE_TIMING : MGS_MODE_EMU, 1,
                                    NULL, N, 0, out, text, sizeof text),
                         MGS_OK);
        int wrong = 0;
        for (int i = 0; i < N; i++) {
            char line[96];
            wrong += out[i] != snprintf(line, sizeof line,
                                        "item %d of %d: %.2f %s\n", i, N,
                                        i * 0.5, i & 1 ? "odd" : "even");
        }
        assert_true(wrong > N / 2);
    }
    /* READY never cleared: the waves wait until a limit ends the run. */
    mgs_hostcall_test_break = 2;
    assert_int_equal(run_kernel(MGS_MODE_EMU, 1, NULL, N, 0, out, text,
                                sizeof text), MGS_EDEADLOCK);
    assert_non_null(strstr(mgs_error_msg(), "no progress after"));
    assert_int_equal(run_kernel(MGS_MODE_TIMING, 1, NULL, N, 0, out, text,
                                sizeof text), MGS_EDEADLOCK);
    assert_non_null(strstr(mgs_error_msg(), "sim.max_wave_insts"));
    mgs_hostcall_test_break = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_conversions),
        cmocka_unit_test(test_format_edges),
        cmocka_unit_test(test_listener_script),
        cmocka_unit_test(test_kernel_emu),
        cmocka_unit_test(test_kernel_timing),
        cmocka_unit_test(test_kernel_stream),
        cmocka_unit_test(test_kernel_quiet),
        cmocka_unit_test(test_broken_listeners_fail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
