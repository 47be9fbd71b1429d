/* Tests for the cache's coherence plumbing (src/mem/cache*.c): per-byte
** dirty tracking (two write-back caches, two "GPUs", writing different
** bytes of one line), different write policies for local and remote
** lines, the protocol hooks (responses, acknowledgements, invalidations,
** sending below and up) with protocol fields and their wire size, line
** locks, MEM_INV_LINE arriving from below (absent, clean and dirty lines,
** during a fill: waiting for it on write-back lines, acknowledged at once
** on write-through ones), admission and held answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cache_one.h"

/* ---- two caches ("GPUs") over one memory ------------------------------- */

typedef struct two {
    sim_engine *eng;
    mem_pool *pool;
    uint8_t bytes[64 * 1024];
    uint8_t orig[64 * 1024];
    mem_array arr;
    simplemem *mem;
    cache *c[2];
    probe p[2], ctl;
    sim_conn *up, *down, *ctrl;
} two;

static two *two_new(const cache_config *cfg)
{
    two *w = MGS_NEW(two);
    w->eng = eng_new(NULL);
    w->pool = mem_pool_new();
    mem_tester_fill_initial(w->bytes, 0, sizeof w->bytes);
    memcpy(w->orig, w->bytes, sizeof w->bytes);
    w->arr = (mem_array){w->bytes, 0, sizeof w->bytes};
    mem_backing b;
    mem_array_backing(&b, &w->arr);
    simplemem_config mc;
    simplemem_config_default(&mc);
    mc.latency = 10;
    w->mem = simplemem_new(w->eng, "Mem", &mc, w->pool, &b, NULL);
    sim_conn_config cc;
    conn_config_default(&cc);
    conn_config_set_latency_cycles(&cc, 1);
    w->up = conn_new(w->eng, "Up", &cc, NULL);
    w->down = conn_new(w->eng, "Down", &cc, NULL);
    w->ctrl = conn_new(w->eng, "Ctrl", &cc, NULL);
    conn_plug(w->down, simplemem_port(w->mem));
    probe_init(&w->ctl, w->eng, w->pool, "CtlProbe");
    conn_plug(w->ctrl, &w->ctl.port);
    mem_route r;
    mem_route_single(&r, simplemem_port(w->mem));
    for (int i = 0; i < 2; i++) {
        char *n = name_new(NULL, "L2", i);
        w->c[i] = cache_new(w->eng, n, cfg, w->pool, NULL);
        free(n);
        n = name_new(NULL, "GPU", i);
        probe_init(&w->p[i], w->eng, w->pool, n);
        free(n);
        conn_plug(w->up, &w->p[i].port);
        conn_plug(w->up, cache_top(w->c[i]));
        conn_plug(w->down, cache_bottom(w->c[i]));
        conn_plug(w->ctrl, cache_ctrl(w->c[i]));
        cache_set_route(w->c[i], &r);
    }
    return w;
}

static void two_run(two *w)
{
    assert_int_equal(eng_run(w->eng), MGS_OK);
    for (int i = 0; i < 2; i++)
        assert_int_equal(cache_check(w->c[i]), 1);
}

static mem_msg *two_write(two *w, int g, uint64_t addr, uint32_t size,
                          uint8_t fill)
{
    mem_msg *m = probe_req(&w->p[g], MEM_WRITE, addr, size,
                           cache_top(w->c[g]));
    memset(m->data, fill, size);
    probe_send_at(&w->p[g], m, eng_now(w->eng));
    return m;
}

static void two_flush(two *w)
{
    for (int i = 0; i < 2; i++)
        probe_send_at(&w->ctl, probe_req(&w->ctl, MEM_FLUSH, 0, 0,
                                         cache_ctrl(w->c[i])),
                      eng_now(w->eng));
    two_run(w);
}

static void two_free(two *w)
{
    for (int i = 0; i < 2; i++) {
        probe_fini(&w->p[i]);
        cache_free(w->c[i]);
    }
    probe_fini(&w->ctl);
    simplemem_free(w->mem);
    conn_free(w->up);
    conn_free(w->down);
    conn_free(w->ctrl);
    eng_free(w->eng);
    assert_int_equal(mem_pool_outstanding(w->pool), 0);
    mem_pool_free(w->pool);
    free(w);
}

/* Expects memory [a, a+n) to hold fill, or the initial bytes if fill < 0. */
static void expect_mem(const two *w, uint64_t a, uint32_t n, int fill)
{
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(w->bytes[a + i],
                         fill < 0 ? w->orig[a + i] : (uint8_t)fill);
}

/* Counts what a cache sends below (a protocol hook, so also a check that
** on_send_below sees both halves of a split write-back). */
typedef struct sent_log {
    uint32_t writes;
    uint32_t size[8];
    uint64_t addr[8], mask[8];
} sent_log;

static void log_send_below(void *pd, cache *c, mem_msg *down,
                           const mem_msg *orig)
{
    (void)c; (void)orig;
    sent_log *l = pd;
    if (down->base.type != MEM_WRITE || l->writes == 8)
        return;
    l->addr[l->writes] = down->addr;
    l->size[l->writes] = down->size;
    l->mask[l->writes++] = down->mask;
}

/* Two caches of cfg, each logging its writes below into log[i]. */
static two *two_logged(const cache_config *cfg, sent_log log[2])
{
    static const cache_protocol logp = {.name = "log",
                                        .on_send_below = log_send_below};
    two *w = two_new(cfg);
    for (int i = 0; i < 2; i++) {
        log[i] = (sent_log){0};
        cache_set_protocol(w->c[i], &logp, &log[i]);
    }
    return w;
}

/* Two write-back caches write different bytes of one 64-byte line; both
** write back: memory holds both writers' bytes (whole-line write-back
** would let the second flush put back the first writer's stale bytes). */
static void test_dirty_bytes_two_writers(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_BACK);
    sent_log log[2];
    two *w = two_logged(&cfg, log);
    two_write(w, 0, 0x1000, 4, 0xaa);     /* partial: fetch, merge */
    two_write(w, 1, 0x1008, 4, 0xbb);
    mem_msg *holes = probe_req(&w->p[0], MEM_WRITE, 0x1010, 8,
                               cache_top(w->c[0]));
    memset(holes->data, 0xcc, 8);
    holes->mask = 0xa5; /* bytes 0, 2, 5, 7 */
    probe_send_at(&w->p[0], holes, 0);
    two_run(w);
    uint64_t dm[2];
    assert_true(cache_probe_dirty(w->c[0], 0x1000, dm));
    assert_int_equal(dm[0], 0xa5000full);
    assert_int_equal(dm[1], 0);
    assert_true(cache_probe_dirty(w->c[1], 0x1000, dm));
    assert_int_equal(dm[0], 0xf00ull);
    expect_mem(w, 0x1000, 64, -1); /* nothing below yet */
    two_flush(w);
    expect_mem(w, 0x1000, 4, 0xaa);
    expect_mem(w, 0x1004, 4, -1);
    expect_mem(w, 0x1008, 4, 0xbb);
    expect_mem(w, 0x100c, 4, -1);
    for (int i = 0; i < 8; i++)
        expect_mem(w, 0x1010 + i, 1, (0xa5 >> i) & 1 ? 0xcc : -1);
    expect_mem(w, 0x1018, 40, -1);
    /* one masked write of the line each; bytes_to_below counts wire data */
    assert_int_equal(log[0].writes, 1);
    assert_int_equal(log[0].size[0], 64);
    assert_int_equal(log[0].mask[0], 0xa5000full);
    assert_int_equal(log[1].mask[0], 0xf00ull);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(w->c[i]->writebacks->value, 1);
        assert_int_equal(w->c[i]->bytes_to_below->value, 64);
        assert_true(cache_probe_dirty(w->c[i], 0x1000, dm));
        assert_int_equal(dm[0], 0);
    }
    /* a fully written line still leaves as one unmasked write */
    two_write(w, 1, 0x2000, 64, 0x11);
    two_run(w);
    two_flush(w);
    assert_int_equal(log[1].writes, 2);
    assert_int_equal(log[1].mask[1], ~0ull);
    expect_mem(w, 0x2000, 64, 0x11);
    two_free(w);
}

/* 128-byte lines: dirty bytes in both halves leave as two masked 64-byte
** writes of one write-back (masks cover <= 64 bytes); a half with no
** dirty byte is not sent; a fully dirty line is one 128-byte write. */
static void test_dirty_bytes_128_byte_lines(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_BACK);
    cfg.line = 128;
    cfg.size = 2048;
    sent_log log[2];
    two *w = two_logged(&cfg, log);
    two_write(w, 0, 0x3000 + 60, 8, 0xa1);   /* bytes 60..67: both halves */
    two_write(w, 0, 0x3000 + 100, 4, 0xa2);
    two_write(w, 1, 0x3000 + 0, 4, 0xb1);
    two_write(w, 1, 0x3000 + 120, 8, 0xb2);
    two_write(w, 1, 0x3100 + 8, 8, 0xb3);    /* another line, low half */
    two_run(w);
    uint64_t dm[2];
    assert_true(cache_probe_dirty(w->c[0], 0x3000, dm));
    assert_int_equal(dm[0], 0xfull << 60);
    assert_int_equal(dm[1], 0xfull | (0xfull << 36));
    two_flush(w);
    expect_mem(w, 0x3000, 4, 0xb1);
    expect_mem(w, 0x3004, 56, -1);
    expect_mem(w, 0x3000 + 60, 8, 0xa1);
    expect_mem(w, 0x3000 + 68, 32, -1);
    expect_mem(w, 0x3000 + 100, 4, 0xa2);
    expect_mem(w, 0x3000 + 104, 16, -1);
    expect_mem(w, 0x3000 + 120, 8, 0xb2);
    expect_mem(w, 0x3108, 8, 0xb3);
    expect_mem(w, 0x3110, 112, -1);
    assert_int_equal(log[0].writes, 2);
    assert_int_equal(log[0].addr[0], 0x3000);
    assert_int_equal(log[0].addr[1], 0x3040);
    assert_int_equal(log[0].size[0], 64);
    assert_int_equal(log[0].mask[0], 0xfull << 60);
    assert_int_equal(log[0].mask[1], 0xfull | (0xfull << 36));
    assert_int_equal(w->c[0]->writebacks->value, 1);  /* one transaction */
    assert_int_equal(w->c[0]->bytes_to_below->value, 128);
    assert_int_equal(log[1].writes, 3);                /* 2 + low half */
    assert_int_equal(log[1].addr[2], 0x3100);
    assert_int_equal(log[1].mask[2], 0xff00ull);
    assert_int_equal(w->c[1]->bytes_to_below->value, 192);
    two_write(w, 0, 0x4000, 128, 0x77);
    two_run(w);
    two_flush(w);
    assert_int_equal(log[0].writes, 3);
    assert_int_equal(log[0].size[2], 128);
    assert_int_equal(log[0].mask[2], ~0ull);
    expect_mem(w, 0x4000, 128, 0x77);
    two_free(w);
}

/* ---- write policy for local and remote lines --------------------------- */

static bool odd_pages_local(void *ud, uint64_t line)
{
    (void)ud;
    return (line >> 12) & 1;
}

/* An L2 that is write-back for local lines [0, 0x8000) and write-through
** (no allocation on a write miss) for remote ones. */
static void test_remote_write_policy(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_BACK);
    cfg.remote_write_policy = CACHE_WRITE_THROUGH;
    cfg.local_base = 0;
    cfg.local_limit = 0x8000;
    one *o = one_new(&cfg);
    assert_false(cache_line_is_remote(o->c, 0x7fc0));
    assert_true(cache_line_is_remote(o->c, 0x8000));
    uint8_t before[4];
    memcpy(before, o->bytes + 0x1000, 4);
    mem_msg *wl = wr(o, 0x1000, 4, 0x5a, 0);       /* local: stays here */
    mem_msg *wrm = wr(o, 0x9000, 4, 0x6b, 0);      /* remote miss: below */
    one_run(o);
    assert_non_null(probe_answer(&o->p, wl, NULL));
    assert_non_null(probe_answer(&o->p, wrm, NULL));
    assert_memory_equal(o->bytes + 0x1000, before, 4);
    assert_int_equal(o->bytes[0x9000], 0x6b);
    assert_false(cache_probe(o->c, 0x9000, NULL, NULL)); /* no allocation */
    bool dirty = false;
    assert_true(cache_probe(o->c, 0x1000, NULL, &dirty));
    assert_true(dirty);
    /* a remote line read in, then written: updated here and below, clean */
    rd(o, 0x9100, 4, eng_now(o->eng) + 1000);
    one_run(o);
    wr(o, 0x9104, 4, 0x7c, eng_now(o->eng) + 1000);
    one_run(o);
    uint8_t line[64];
    assert_true(cache_probe(o->c, 0x9100, line, &dirty));
    assert_false(dirty);
    assert_int_equal(line[4], 0x7c);
    assert_int_equal(o->bytes[0x9104], 0x7c);
    assert_int_equal(o->c->bytes_to_below->value, 8);
    /* a flush writes back the local line only */
    ctl(o, MEM_FLUSH, 0, eng_now(o->eng) + 1000);
    one_run(o);
    assert_int_equal(o->c->writebacks->value, 1);
    assert_int_equal(o->bytes[0x1000], 0x5a);
    /* a predicate replaces the range: odd 4 KB pages are local */
    cache_set_locality(o->c, odd_pages_local, NULL);
    assert_true(cache_line_is_remote(o->c, 0x2000));
    assert_false(cache_line_is_remote(o->c, 0x3000));
    wr(o, 0x2040, 4, 0x21, eng_now(o->eng) + 1000);   /* remote: below */
    wr(o, 0x3040, 4, 0x31, eng_now(o->eng) + 1000);   /* local: here */
    one_run(o);
    assert_int_equal(o->bytes[0x2040], 0x21);
    assert_int_not_equal(o->bytes[0x3040], 0x31);
    assert_true(cache_probe(o->c, 0x3040, NULL, &dirty));
    assert_true(dirty);
    cache_set_locality(o->c, NULL, NULL);  /* back to the range */
    assert_false(cache_line_is_remote(o->c, 0x2000));
    one_free(o);

    /* write-around for remote lines, GLC bypass allowed for them only */
    cfg.remote_write_policy = CACHE_WRITE_AROUND;
    cfg.glc_bypass = true;
    o = one_new(&cfg);
    rd(o, 0x9200, 4, 0);
    rd(o, 0x1200, 4, 0);
    one_run(o);
    mem_msg *g1 = rd(o, 0x9200, 4, eng_now(o->eng) + 1000);
    g1->flags |= MEM_F_GLC;
    mem_msg *g2 = rd(o, 0x1200, 4, eng_now(o->eng) + 1000);
    g2->flags |= MEM_F_GLC;
    one_run(o);
    assert_int_equal(o->c->read_hits->value, 1);     /* the local one */
    assert_int_equal(o->c->read_misses->value, 3);   /* 2 fills + bypass */
    one_free(o);

    cache_config bad;
    base_cfg(&bad, CACHE_WRITE_BACK);
    bad.remote_write_policy = (cache_write_policy)7;
    assert_int_equal(cache_config_validate(&bad), MGS_EINVAL);
    assert_non_null(strstr(mgs_error_msg(), "remote_write_policy"));
    base_cfg(&bad, CACHE_WRITE_AROUND);
    bad.remote_write_policy = CACHE_WRITE_BACK;
    bad.max_inflight_below = 1; /* a write-back policy needs 2 */
    assert_int_equal(cache_config_validate(&bad), MGS_EINVAL);
}

/* ---- a test protocol that uses every hook -------------------------------- */

typedef struct tproto {
    one *o;
    uint32_t responds, responds_with_meta, acks, acks_with_up, invs,
        evicts, fills, writes, locks_taken, proto_answers, notices_sent;
    uint64_t last_respond_line, last_ack_type, last_inv_line;
    mem_msg *side_read;          /* a request the protocol sent below */
    bool lock_on_write;
} tproto;

static void tp_on_fill(void *pd, cache *c, uint64_t line, uint64_t *meta,
                       const mem_msg *rsp)
{
    tproto *t = pd;
    (void)rsp;
    t->fills++;
    *meta = 0x40 + t->fills;
    if (line == 0xe00 && !t->side_read) {
        /* a request of the protocol's own, answered through on_ack */
        mem_msg *m = mem_msg_alloc(t->o->pool, MEM_READ);
        m->addr = 0xf00;
        m->size = 8;
        m->flags = MEM_F_PHYS;
        m->base.bytes = 8;
        assert_true(cache_send_below(c, m, true));
        t->side_read = m;
    }
}

static void tp_on_write(void *pd, cache *c, uint64_t line, uint64_t *meta,
                        const mem_msg *req)
{
    tproto *t = pd;
    (void)meta; (void)req;
    t->writes++;
    if (t->lock_on_write) {
        /* a write in flight: the line waits for its acknowledgement */
        assert_true(cache_line_lock(c, line));
        assert_true(cache_line_locked(c, line));
        t->locks_taken++;
    }
}

static void tp_on_evict(void *pd, cache *c, uint64_t line, uint64_t *meta,
                        bool dirty)
{
    tproto *t = pd;
    (void)meta; (void)dirty;
    t->evicts++;
    /* a notification to the directory, no answer expected */
    mem_msg *n = mem_msg_alloc(t->o->pool, MEM_WRITE);
    n->addr = line;
    n->size = 0;
    n->base.bytes = 8;
    n->base.dst = &t->o->dir.port;
    n->coh[0] = 0x77;
    mem_msg_set_coh_bytes(n, 4);
    assert_true(cache_send_below(c, n, false));
    t->notices_sent++;
}

static void tp_on_respond(void *pd, cache *c, uint64_t line, uint64_t *meta,
                          mem_msg *rsp, const mem_msg *req)
{
    tproto *t = pd;
    (void)c;
    assert_ptr_equal(rsp->req, req);
    t->responds++;
    t->last_respond_line = line;
    if (meta) {
        t->responds_with_meta++;
        rsp->coh[0] = 0xc0de00 + *meta;
        mem_msg_set_coh_bytes(rsp, 8);
    }
}

static void tp_on_ack(void *pd, cache *c, uint64_t line, uint64_t *meta,
                      const mem_msg *ack, mem_msg *up)
{
    tproto *t = pd;
    (void)meta;
    t->acks++;
    t->last_ack_type = ack->base.type;
    if (ack->req == t->side_read) {
        t->proto_answers++;
        assert_null(up);
        assert_memory_equal(ack->data, t->o->bytes + 0xf00, 8);
        t->side_read = (mem_msg *)1; /* the cache frees it */
        return;
    }
    if (up) {
        t->acks_with_up++;
        up->coh[1] = 0xacc;
    }
    if (t->lock_on_write && ack->base.type == MEM_WRITE_RSP &&
        cache_line_locked(c, line))
        cache_line_unlock(c, line);
}

static void tp_on_inv(void *pd, cache *c, uint64_t line, uint64_t *meta,
                      const mem_msg *inv, mem_msg *ack)
{
    tproto *t = pd;
    (void)meta;
    assert_int_equal(inv->base.type, MEM_INV_LINE);
    assert_int_equal(ack->base.type, MEM_INV_ACK);
    assert_ptr_equal(ack->req, inv);
    t->invs++;
    t->last_inv_line = line;
    ack->coh[0] = 0x1ac;
    mem_msg_set_coh_bytes(ack, 8);
    /* pass the invalidation up (an L1 above would drop its copy) */
    mem_msg *fwd = mem_msg_alloc(t->o->pool, MEM_INV_LINE);
    fwd->addr = line;
    fwd->base.bytes = 8;
    fwd->base.dst = &t->o->p.port;
    assert_true(cache_room_up(c) > 0);
    assert_true(cache_send_up(c, fwd));
}

static const cache_protocol test_proto = {
    .name = "test", .on_fill = tp_on_fill, .on_write = tp_on_write,
    .on_evict = tp_on_evict, .on_respond = tp_on_respond,
    .on_ack = tp_on_ack, .on_inv = tp_on_inv};

/* One cache of policy pol running the test protocol with state t. */
static one *proto_one(cache_write_policy pol, tproto *t, bool lock_on_write)
{
    cache_config cfg;
    base_cfg(&cfg, pol);
    one *o = one_new(&cfg);
    *t = (tproto){.o = o, .lock_on_write = lock_on_write};
    cache_set_protocol(o->c, &test_proto, t);
    return o;
}

/* The number of messages of a type the probe received. */
static uint32_t count_type(const probe *p, uint32_t type)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->nrsp; i++)
        n += p->rsp[i]->base.type == type;
    return n;
}

/* Responses are stamped (hits and drained targets, with the line's word),
** relayed answers carry the fields of the answer below and on_ack's
** stamp, protocol fields count on the wire, a protocol's own request is
** answered through on_ack, notifications and messages up are sent. */
static void test_protocol_respond_ack_send(void **state)
{
    (void)state;
    tproto t;
    one *o = proto_one(CACHE_WRITE_AROUND, &t, false);
    mem_msg *miss = rd(o, 0xd00, 4, 0);
    mem_msg *merged = rd(o, 0xd04, 4, 0);
    one_run(o);
    mem_msg *hit = rd(o, 0xd08, 4, eng_now(o->eng) + 1000);
    mem_msg *w = wr(o, 0x2000, 4, 0x33, eng_now(o->eng) + 1000); /* miss */
    one_run(o);
    assert_int_equal(t.fills, 1);
    assert_int_equal(t.responds, 4);
    assert_int_equal(t.responds_with_meta, 3);  /* not the write miss */
    mem_msg *a[3] = {probe_answer(&o->p, miss, NULL),
                     probe_answer(&o->p, merged, NULL),
                     probe_answer(&o->p, hit, NULL)};
    for (int i = 0; i < 3; i++) {
        assert_non_null(a[i]);
        assert_int_equal(a[i]->coh[0], 0xc0de41);
        assert_int_equal(a[i]->coh_bytes, 8);
        assert_int_equal(a[i]->base.bytes, 8 + 4 + 8);
    }
    mem_msg *wa = probe_answer(&o->p, w, NULL);
    assert_non_null(wa);
    assert_int_equal(wa->coh[1], 0xacc);      /* stamped in on_ack */
    assert_int_equal(t.acks, 1);
    assert_int_equal(t.acks_with_up, 1);
    assert_int_equal(t.last_ack_type, MEM_WRITE_RSP);
    assert_int_equal(t.last_respond_line, 0x2000);
    /* on_fill of 0xe00 sends a request of its own */
    rd(o, 0xe00, 4, eng_now(o->eng) + 1000);
    one_run(o);
    assert_int_equal(t.proto_answers, 1);
    assert_ptr_equal(t.side_read, (mem_msg *)1);
    /* an eviction's notification reaches the directory, with its fields */
    rd(o, 0xd00 + 1024 / 2, 4, eng_now(o->eng) + 1000); /* same set */
    rd(o, 0xd00 + 1024, 4, eng_now(o->eng) + 2000);     /* evicts 0xd00 */
    one_run(o);
    assert_true(t.evicts >= 1);
    assert_int_equal(o->dir.nrsp, t.notices_sent);
    assert_int_equal(o->dir.rsp[0]->coh[0], 0x77);
    assert_int_equal(o->dir.rsp[0]->base.bytes, 8 + 4);
    assert_int_equal(mem_pool_outstanding(o->pool),
                     2 * o->p.nout + o->dir.nrsp); /* nothing leaked */
    one_free(o);
}

/* A line lock holds every later request to the line until unlocked: the
** protocol locks a line when a write goes below and unlocks it on the
** write's ack; a read issued right after the write waits for the ack
** (without the lock it would hit long before). */
static void test_line_lock_holds_requests(void **state)
{
    (void)state;
    tproto t;
    one *o = proto_one(CACHE_WRITE_THROUGH, &t, true);
    rd(o, 0x500, 4, 0);
    one_run(o);
    mgs_time t0 = eng_now(o->eng) + 1000;
    mem_msg *w = wr(o, 0x504, 4, 0x99, t0);
    mem_msg *r = rd(o, 0x504, 4, t0 + 1000);
    mem_msg *other = rd(o, 0x600, 4, t0 + 1000);  /* another line: free */
    one_run(o);
    mgs_time tw = 0, tr = 0, to = 0;
    assert_non_null(probe_answer(&o->p, w, &tw));
    mem_msg *ra = probe_answer(&o->p, r, &tr);
    assert_non_null(ra);
    assert_non_null(probe_answer(&o->p, other, &to));
    assert_int_equal(t.locks_taken, 1);
    assert_false(cache_line_locked(o->c, 0x500));
    assert_int_equal(ra->data[0], 0x99);
    /* the read was merged behind the lock and answered with the write */
    assert_int_equal(o->c->read_mshr_merges->value, 1);
    assert_true(tr >= tw);
    /* a hit would take 10 cycles; the write's round trip is 20+ */
    assert_true(tr - (t0 + 1000) > 20000);
    (void)to;
    /* locking an absent line fails; nothing stays locked */
    assert_false(cache_line_lock(o->c, 0x7000));
    assert_int_equal(o->c->mshr_used, 0);
    one_free(o);
}

/* ---- invalidations from below ------------------------------------------- */

static mem_msg *inv(one *o, uint64_t addr, mgs_time t)
{
    mem_msg *m = probe_req(&o->dir, MEM_INV_LINE, addr, 0, cache_bottom(o->c));
    probe_send_at(&o->dir, m, t);
    return m;
}

/* Absent, clean and dirty lines: each is dropped (dirty bytes written
** back first) and acknowledged to the sender; the hooks see it. */
static void test_inv_line_from_below(void **state)
{
    (void)state;
    tproto t;
    one *o = proto_one(CACHE_WRITE_BACK, &t, false);
    mem_msg *i1 = inv(o, 0x7000, 0);                   /* absent */
    one_run(o);
    mem_msg *ack = probe_answer(&o->dir, i1, NULL);
    assert_non_null(ack);
    assert_int_equal(ack->base.type, MEM_INV_ACK);
    assert_int_equal(ack->coh[0], 0x1ac);
    assert_int_equal(ack->base.bytes, 8 + 8);
    rd(o, 0x800, 4, eng_now(o->eng) + 1000);           /* clean */
    mem_msg *wd = wr(o, 0x904, 4, 0xee, eng_now(o->eng) + 1000); /* dirty */
    one_run(o);
    assert_non_null(probe_answer(&o->p, wd, NULL));
    assert_int_not_equal(o->bytes[0x904], 0xee);
    uint32_t ev0 = t.evicts;
    mem_msg *i2 = inv(o, 0x800, eng_now(o->eng) + 1000);
    mem_msg *i3 = inv(o, 0x900, eng_now(o->eng) + 1000);
    one_run(o);
    assert_non_null(probe_answer(&o->dir, i2, NULL));
    assert_non_null(probe_answer(&o->dir, i3, NULL));
    assert_false(cache_probe(o->c, 0x800, NULL, NULL));
    assert_false(cache_probe(o->c, 0x900, NULL, NULL));
    assert_int_equal(o->bytes[0x904], 0xee);           /* written back */
    assert_int_equal(o->c->writebacks->value, 1);
    assert_int_equal(o->c->line_invalidations->value, 3);
    assert_int_equal(t.invs, 3);
    assert_int_equal(t.last_inv_line, 0x900);
    assert_int_equal(t.evicts - ev0, 2);
    /* each invalidation was also passed up */
    assert_int_equal(count_type(&o->p, MEM_INV_LINE), 3);
    one_free(o);
}

/* The write-back leaves before the ack: with a directory in front of
** memory (both on one port), it receives the line's dirty bytes first. */
static void test_inv_writeback_before_ack(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_BACK);
    one *o = one_new(&cfg);
    mem_route r;
    mem_route_single(&r, &o->dir.port);
    cache_set_route(o->c, &r);
    wr(o, 0xa00, 64, 0x42, 0);            /* whole line: no fetch, dirty */
    one_run(o);
    mem_msg *i = inv(o, 0xa00, eng_now(o->eng) + 1000);
    assert_int_equal(eng_run(o->eng), MGS_EDEADLOCK); /* WB unanswered */
    assert_int_equal(o->dir.nrsp, 2);
    mem_msg *wb = o->dir.rsp[0];
    assert_int_equal(wb->base.type, MEM_WRITE);
    assert_int_equal(wb->addr, 0xa00);
    assert_int_equal(wb->data[0], 0x42);
    assert_int_equal(o->dir.rsp[1]->base.type, MEM_INV_ACK);
    assert_ptr_equal(o->dir.rsp[1]->req, i);
    /* answer the write-back as memory would (the cache frees both) */
    o->dir.rsp[0] = o->dir.rsp[1];
    o->dir.nrsp = 1;
    mem_msg *ok = mem_msg_response(o->pool, wb);
    ok->base.dst = cache_bottom(o->c);
    probe_send_at(&o->dir, ok, eng_now(o->eng));
    one_run(o);
    o->dir.out[o->dir.nout - 1] = NULL; /* freed by the cache */
    assert_int_equal(o->c->txn_used, 0);
    one_free(o);
}

/* An invalidation that arrives while the line is being filled waits for
** the fill and its merged targets (a write among them, whose bytes are
** then written back); a request arriving after it is not merged into the
** old fill but waits and misses again. */
static void test_inv_during_fill(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_BACK);
    one *o = one_new(&cfg);
    mem_msg *r1 = rd(o, 0xb00, 4, 0);
    mem_msg *w1 = wr(o, 0xb08, 4, 0x5d, 0);       /* merged into the fill */
    mem_msg *i = inv(o, 0xb00, 4000);             /* fill in flight */
    mem_msg *r2 = rd(o, 0xb08, 4, 8000);          /* after the INV */
    one_run(o);
    mgs_time t1 = 0, ti = 0, t2 = 0;
    assert_non_null(probe_answer(&o->p, r1, &t1));
    assert_non_null(probe_answer(&o->p, w1, NULL));
    assert_non_null(probe_answer(&o->dir, i, &ti));
    mem_msg *a2 = probe_answer(&o->p, r2, &t2);
    assert_non_null(a2);
    /* the fill is taken at 22000 (test_cache.c, test_read_latency_exact),
    ** its targets served, then the invalidation: its write-back (72 bytes,
    ** 2 cycles on the link) leaves miss_latency later, at 24000, the ack
    ** right behind it on the same lane, arriving at 28000; the first read's
    ** answer leaves after hit_latency (27000, arriving at 29000) */
    assert_int_equal(t1, 29000);
    assert_int_equal(ti, 28000);
    assert_true(t2 > ti);                   /* r2 refetched after it */
    assert_int_equal(a2->data[0], 0x5d);    /* sees the written-back byte */
    assert_int_equal(o->bytes[0xb08], 0x5d);
    assert_int_equal(o->c->read_misses->value, 2);
    assert_int_equal(o->c->read_mshr_merges->value, 0);
    assert_int_equal(o->c->writebacks->value, 1);
    assert_int_equal(o->c->line_invalidations->value, 1);
    assert_true(o->c->stall_mshr_full->value > 0); /* r2 was held */
    one_free(o);
}

/* A clean write-through line being filled is acknowledged at once (the
** acknowledgement must not wait for a fill that may itself wait at a home
** for it: a directory holding a write's answer); the fill still serves the
** targets merged before the invalidation, then the line is dropped, and a
** request after the invalidation misses again. */
static void test_inv_during_fill_write_through(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_THROUGH);
    one *o = one_new(&cfg);
    mem_msg *r1 = rd(o, 0xb00, 4, 0);
    mem_msg *i = inv(o, 0xb00, 4000);             /* fill in flight */
    mem_msg *r2 = rd(o, 0xb08, 4, 8000);          /* after the INV */
    one_run(o);
    mgs_time t1 = 0, ti = 0, t2 = 0;
    assert_non_null(probe_answer(&o->p, r1, &t1));
    assert_non_null(probe_answer(&o->dir, i, &ti));
    assert_non_null(probe_answer(&o->p, r2, &t2));
    assert_true(ti < 22000);                /* before the fill is taken */
    assert_int_equal(t1, 29000);            /* the fill served r1 */
    assert_true(t2 > t1);                   /* r2 refetched */
    assert_int_equal(o->c->read_misses->value, 2);
    assert_int_equal(o->c->read_mshr_merges->value, 0);
    assert_int_equal(o->c->line_invalidations->value, 1);
    one_free(o);
}

/* ---- admission and held answers (a directory's hooks) ------------------- */

typedef struct held_proto {
    one *o;
    mem_msg *pending;            /* our request to the "directory", or NULL */
    uint32_t admits_write, admits_read, refusals, holds, released;
} held_proto;

/* A write to line 0x300 first sends a request below (to the directory
** probe) and its answer is held until that request is answered; a read of
** 0x300 is refused while the request is out. */
static bool hp_admit(void *pd, cache *c, const mem_msg *req, bool home)
{
    (void)home;
    held_proto *h = pd;
    if ((req->addr & ~63ull) != 0x300)
        return true;
    if (req->base.type == MEM_READ) {
        h->admits_read++;
        if (h->pending) {
            h->refusals++;
            return false;
        }
        return true;
    }
    h->admits_write++;
    mem_msg *m = mem_msg_alloc(h->o->pool, MEM_READ);
    m->addr = 0x300;
    m->size = 4;
    m->base.dst = &h->o->dir.port;
    m->base.bytes = 8;
    assert_true(cache_send_below(c, m, true));
    h->pending = m;
    return true;
}

static bool hp_hold(void *pd, cache *c, uint64_t line, const mem_msg *rsp,
                    const mem_msg *req)
{
    (void)c, (void)rsp;
    held_proto *h = pd;
    if (line != 0x300 || !h->pending || req->base.type != MEM_WRITE)
        return false;
    h->holds++;
    return true;
}

static void hp_on_ack(void *pd, cache *c, uint64_t line, uint64_t *meta,
                      const mem_msg *ack, mem_msg *up)
{
    (void)line, (void)meta, (void)up;
    held_proto *h = pd;
    if (ack->req == h->pending) {
        h->pending = NULL;
        h->released += cache_release_held(c, 0x300);
    }
}

static const cache_protocol held_protocol = {
    .name = "held", .admit = hp_admit, .hold = hp_hold,
    .on_ack = hp_on_ack};

static void test_admit_and_held_answers(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_BACK);
    one *o = one_new(&cfg);
    held_proto h = {.o = o};
    cache_set_protocol(o->c, &held_protocol, &h);
    mem_msg *w = wr(o, 0x300, 64, 0x61, 0);      /* whole line: no fetch */
    mem_msg *other = rd(o, 0x400, 4, 1000);      /* another line: free */
    mem_msg *r = rd(o, 0x308, 4, 2000);          /* refused while out (and
                                                    what follows it on the
                                                    port waits too) */
    assert_int_equal(eng_run(o->eng), MGS_EDEADLOCK); /* request unanswered */
    assert_int_equal(h.admits_write, 1);
    assert_int_equal(h.holds, 1);
    assert_null(probe_answer(&o->p, w, NULL));   /* held */
    assert_null(probe_answer(&o->p, r, NULL));   /* refused */
    assert_non_null(probe_answer(&o->p, other, NULL));
    assert_true(h.refusals >= 1);
    assert_int_equal(o->dir.nrsp, 1);
    /* the directory answers at 100 ns: the held answer leaves, the read
    ** is admitted and hits the written line */
    mgs_time ta = eng_now(o->eng) + 100000;
    mem_msg *ok = mem_msg_response(o->pool, o->dir.rsp[0]);
    ok->base.dst = cache_bottom(o->c);
    o->dir.nrsp = 0;                    /* the cache frees its request */
    probe_send_at(&o->dir, ok, ta);
    one_run(o);
    o->dir.out[o->dir.nout - 1] = NULL; /* and the answer */
    mgs_time tw = 0, tr = 0;
    assert_non_null(probe_answer(&o->p, w, &tw));
    mem_msg *ra = probe_answer(&o->p, r, &tr);
    assert_non_null(ra);
    assert_true(tw > ta && tr > ta);
    assert_int_equal(ra->data[0], 0x61);
    assert_int_equal(h.released, 1);
    assert_int_equal(h.admits_write, 1);         /* admitted once */
    assert_int_equal(o->c->txn_used, 0);
    one_free(o);
}

/* Invalidations do not block answers from below while the sender keeps
** at most inv_buffer of them unacknowledged (the contract, docs/memory.md):
** six invalidations of lines whose fills are in flight all wait, every
** fill completes, every invalidation is acked. */
static void test_inv_many_during_misses(void **state)
{
    (void)state;
    cache_config cfg;
    base_cfg(&cfg, CACHE_WRITE_BACK);
    cfg.inv_buffer = 6;
    one *o = one_new(&cfg);
    mem_msg *rq[6], *iv[6];
    for (int k = 0; k < 6; k++) {
        rq[k] = wr(o, 0xc00 + 0x40u * k, 4, (uint8_t)(0x10 + k), 0);
        iv[k] = inv(o, 0xc00 + 0x40u * (5 - k), 10000); /* fills out */
    }
    one_run(o);
    for (int k = 0; k < 6; k++) {
        assert_non_null(probe_answer(&o->p, rq[k], NULL));
        assert_non_null(probe_answer(&o->dir, iv[k], NULL));
        assert_int_equal(o->bytes[0xc00 + 0x40u * k], 0x10 + k);
        assert_false(cache_probe(o->c, 0xc00 + 0x40u * k, NULL, NULL));
    }
    assert_int_equal(o->c->line_invalidations->value, 6);
    assert_int_equal(o->c->writebacks->value, 6);
    one_free(o);
}

/* ---- random invalidations during a random tester run ------------------- */

/* A stand-in directory: every `period` ps it sends MEM_INV_LINE for a
** random line of [base, base + size) to a random L1, keeping at most
** `cap` unacknowledged per cache (the contract), until `total` are sent;
** it frees each invalidation with its ack. */
typedef struct invalidator {
    sim_comp base;
    sim_port port;
    sim_event ev;
    mem_pool *pool;
    cache **caches;
    uint32_t ncaches, cap, total, sent, acked, line;
    uint32_t outstanding[16];
    uint64_t base_addr, size, rng;
    mgs_time period;
} invalidator;

static void inval_handle(sim_comp *sc, sim_event *ev)
{
    (void)ev;
    invalidator *v = (invalidator *)sc;
    if (v->sent == v->total)
        return;
    v->rng = v->rng * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t i = (uint32_t)(v->rng >> 33) % v->ncaches;
    if (v->outstanding[i] < v->cap && port_can_send(&v->port)) {
        mem_msg *m = mem_msg_alloc(v->pool, MEM_INV_LINE);
        uint64_t lines = v->size / v->line;
        m->addr = v->base_addr + ((v->rng >> 13) % lines) * v->line;
        m->flags = MEM_F_PHYS;
        m->base.bytes = 8;
        m->base.dst = cache_bottom(v->caches[i]);
        m->base.id = i;
        assert_int_equal(port_send(&v->port, &m->base), MGS_OK);
        v->outstanding[i]++;
        v->sent++;
    }
    eng_schedule(sc->eng, &v->ev, eng_now(sc->eng) + v->period);
}

static void inval_recv(sim_comp *sc, sim_port *p)
{
    invalidator *v = (invalidator *)sc;
    sim_msg *m;
    while ((m = port_retrieve(p))) {
        mem_msg *ack = (mem_msg *)m;
        assert_int_equal(ack->base.type, MEM_INV_ACK);
        v->outstanding[ack->req->base.id]--;
        v->acked++;
        mem_msg_release(v->pool, ack->req);
        mem_msg_release(v->pool, ack);
    }
}

static bool inval_busy(const sim_comp *sc)
{
    const invalidator *v = (const invalidator *)sc;
    return v->acked < v->sent;
}

static const sim_comp_ops inval_ops = {.kind = "Invalidator",
                                       .handle = inval_handle,
                                       .notify_recv = inval_recv,
                                       .busy = inval_busy};

/* Random invalidations of L1 lines (clean, dirty, being filled, with
** merged targets) while the random tester runs over L1s -> L2 banks ->
** memory: no value is lost (per-source order holds, owned units of 8
** bytes share lines between the L1s), and after a flush memory equals the
** tester's reference. Write-back and write-through L1s. */
static void test_random_invalidations_under_load(void **state)
{
    (void)state;
    for (int pol = 0; pol < 2; pol++) {
        mem_world_params p;
        mem_world_params_default(&p);
        p.l1.write_policy = pol ? CACHE_WRITE_THROUGH : CACHE_WRITE_BACK;
        p.l1.write_allocate = true;
        p.l1.max_inflight_below = 4;
        p.l1.inv_buffer = 2;
        p.tester.mode = MEM_TESTER_OWNED_UNITS;
        p.tester.unit = 8;
        p.tester.max_size = 8;
        p.tester.size = 4096;
        p.tester.ops_per_agent = 2000;
        p.tester.seed = 77 + pol;
        mem_world w;
        mem_world_build(&w, &p);
        invalidator v = {0};
        comp_init(&v.base, w.eng, &inval_ops, "Dir", 0);
        port_init(&v.port, &v.base, "port", 16);
        eng_event_init(&v.ev, &v.base, 1, NULL);
        conn_plug(w.c_mid, &v.port);
        v.pool = w.pool;
        v.caches = w.l1;
        v.ncaches = w.nl1;
        v.cap = p.l1.inv_buffer;
        v.total = 1500;
        v.line = p.l1.line;
        v.base_addr = p.tester.base;
        v.size = p.tester.size;
        v.rng = 12345 + pol;
        v.period = 3000;
        eng_schedule(w.eng, &v.ev, 1000);
        int rc = eng_run(w.eng);
        if (rc != MGS_OK)
            fprintf(stderr, "%s\n", mgs_error_msg());
        assert_int_equal(rc, MGS_OK);
        assert_true(mem_tester_done(w.tester));
        if (mem_tester_mismatches(w.tester))
            mem_tester_report(w.tester, stderr);
        assert_int_equal(mem_tester_mismatches(w.tester), 0);
        assert_int_equal(v.acked, v.total);
        uint64_t invs = 0, held = 0;
        for (uint32_t i = 0; i < w.nl1; i++) {
            assert_int_equal(cache_check(w.l1[i]), 1);
            invs += w.l1[i]->line_invalidations->value;
            held += w.l1[i]->stall_mshr_full->value;
        }
        assert_int_equal(invs, v.total);
        /* requests held behind an invalidation waiting for an MSHR: with
        ** 16 MSHRs of 8 targets, the only MSHR stalls of this setup */
        assert_true(held > 0);
        assert_int_equal(mem_world_flush_all(&w, 0), MGS_OK);
        assert_memory_equal(w.bytes + p.tester.base,
                            mem_tester_shadow(w.tester), p.tester.size);
        probe_clear(&w.ctrl);
        port_fini(&v.port);
        comp_fini(&v.base);
        assert_int_equal(mem_pool_outstanding(w.pool), 0);
        mem_world_free(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dirty_bytes_two_writers),
        cmocka_unit_test(test_dirty_bytes_128_byte_lines),
        cmocka_unit_test(test_remote_write_policy),
        cmocka_unit_test(test_protocol_respond_ack_send),
        cmocka_unit_test(test_line_lock_holds_requests),
        cmocka_unit_test(test_inv_line_from_below),
        cmocka_unit_test(test_inv_writeback_before_ack),
        cmocka_unit_test(test_inv_during_fill),
        cmocka_unit_test(test_inv_during_fill_write_through),
        cmocka_unit_test(test_admit_and_held_answers),
        cmocka_unit_test(test_inv_many_during_misses),
        cmocka_unit_test(test_random_invalidations_under_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
