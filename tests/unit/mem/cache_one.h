/*
** The one-cache fixture of the cache tests (header-only, static): a
** scripted probe above one cache, a fixed-latency memory below it, a
** control probe on its ctrl port and a "directory" probe on its bottom
** connection (it sends MEM_INV_LINE and receives the acks), all joined by
** 1-cycle, 64 B/cycle connections at 1 GHz; plus request helpers.
*/
#ifndef MGS_TEST_CACHE_ONE_H
#define MGS_TEST_CACHE_ONE_H

#include "mem_world.h"

typedef struct one {
    sim_engine *eng;
    mem_pool *pool;
    uint8_t bytes[64 * 1024];
    mem_array arr;
    simplemem *mem;
    cache *c;
    probe p;
    probe ctl;
    probe dir;    /* on the bottom connection: a directory's stand-in */
    sim_conn *up, *down, *ctrl;
} one;

/* probe -> (1 cycle, 64 B/cycle) -> cache -> (same) -> memory (10 cy). */
static inline one *one_new(const cache_config *cfg)
{
    one *o = MGS_NEW(one);
    o->eng = eng_new(NULL);
    o->pool = mem_pool_new();
    mem_tester_fill_initial(o->bytes, 0, sizeof o->bytes);
    o->arr = (mem_array){o->bytes, 0, sizeof o->bytes};
    mem_backing b;
    mem_array_backing(&b, &o->arr);
    simplemem_config mc;
    simplemem_config_default(&mc);
    mc.latency = 10;
    o->mem = simplemem_new(o->eng, "Mem", &mc, o->pool, &b, NULL);
    assert_int_equal(cache_config_validate(cfg), MGS_OK);
    o->c = cache_new(o->eng, "L1", cfg, o->pool, NULL);
    sim_conn_config cc;
    conn_config_default(&cc);
    conn_config_set_latency_cycles(&cc, 1);
    o->up = conn_new(o->eng, "Up", &cc, NULL);
    o->down = conn_new(o->eng, "Down", &cc, NULL);
    o->ctrl = conn_new(o->eng, "Ctrl", &cc, NULL);
    probe_init(&o->p, o->eng, o->pool, "Probe");
    probe_init(&o->ctl, o->eng, o->pool, "CtlProbe");
    probe_init(&o->dir, o->eng, o->pool, "DirProbe");
    conn_plug(o->up, &o->p.port);
    conn_plug(o->up, cache_top(o->c));
    conn_plug(o->down, cache_bottom(o->c));
    conn_plug(o->down, simplemem_port(o->mem));
    conn_plug(o->down, &o->dir.port);
    conn_plug(o->ctrl, &o->ctl.port);
    conn_plug(o->ctrl, cache_ctrl(o->c));
    mem_route r;
    mem_route_single(&r, simplemem_port(o->mem));
    cache_set_route(o->c, &r);
    return o;
}

static inline void one_run(one *o)
{
    int rc = eng_run(o->eng);
    if (rc != MGS_OK)
        fprintf(stderr, "%s\n", mgs_error_msg());
    assert_int_equal(rc, MGS_OK);
    assert_int_equal(cache_check(o->c), 1);
}

static inline void one_free(one *o)
{
    probe_fini(&o->p);
    probe_fini(&o->ctl);
    probe_fini(&o->dir);
    cache_free(o->c);
    simplemem_free(o->mem);
    conn_free(o->up);
    conn_free(o->down);
    conn_free(o->ctrl);
    eng_free(o->eng);
    assert_int_equal(mem_pool_outstanding(o->pool), 0);
    mem_pool_free(o->pool);
    free(o);
}

static inline mem_msg *rd(one *o, uint64_t addr, uint32_t size, mgs_time t)
{
    mem_msg *m = probe_req(&o->p, MEM_READ, addr, size, cache_top(o->c));
    probe_send_at(&o->p, m, t);
    return m;
}

static inline mem_msg *wr(one *o, uint64_t addr, uint32_t size, uint8_t fill,
                   mgs_time t)
{
    mem_msg *m = probe_req(&o->p, MEM_WRITE, addr, size, cache_top(o->c));
    memset(m->data, fill, size);
    probe_send_at(&o->p, m, t);
    return m;
}

static inline mem_msg *ctl(one *o, mem_msg_type type, uint32_t flags, mgs_time t)
{
    mem_msg *m = probe_req(&o->ctl, type, 0, 0, cache_ctrl(o->c));
    m->flags = flags;
    probe_send_at(&o->ctl, m, t);
    return m;
}

static inline void base_cfg(cache_config *c, cache_write_policy pol)
{
    cache_config_default(c);
    c->size = 1024;
    c->ways = 2;
    c->line = 64;
    c->hit_latency = 5;
    c->miss_latency = 2;
    c->write_policy = pol;
}

static inline void assert_bytes(const uint8_t *got, uint64_t addr, uint32_t n,
                         const uint8_t *mem)
{
    assert_memory_equal(got, mem + addr, n);
}

#endif
