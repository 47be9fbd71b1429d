/*
** Test fixtures for the memory-system tests (header-only, static):
**   probe      a scripted requester: sends given messages at given times
**              through its port and records every answer with its time
**   mem_world  tester agents -> L1s -> interleaved L2 banks -> simplemem,
**              each arrow a connection; or a probe -> one cache -> memory
** plus what other fixtures of these tests share: the L1/L2 configuration
** (mem_world_cache_defaults) and statistics read through the text dump
** (stats_row_append, stats_counter).
*/
#ifndef MGS_TEST_MEM_WORLD_H
#define MGS_TEST_MEM_WORLD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/cache.h"
#include "mem/cache_int.h"
#include "mem/simplemem.h"
#include "mem/tester.h"
#include "mgsim/errors.h"
#include "sim/conn.h"
#include "sim/engine.h"
#include "sim/name.h"
#include "util/xmalloc.h"

#define PROBE_MAX 64

typedef struct probe {
    sim_comp base;
    sim_port port;
    sim_event ev;
    mem_pool *pool;
    mem_msg *out[PROBE_MAX];
    mgs_time out_at[PROBE_MAX];
    uint32_t nout, next;
    mem_msg *rsp[PROBE_MAX];
    mgs_time rsp_at[PROBE_MAX];
    uint32_t nrsp;
} probe;

static inline void probe_pump(probe *p)
{
    mgs_time now = eng_now(p->base.eng);
    while (p->next < p->nout && p->out_at[p->next] <= now) {
        if (port_send(&p->port, &p->out[p->next]->base) != MGS_OK)
            return; /* lane full: probe_port_free resumes */
        p->next++;
    }
    if (p->next < p->nout && !p->ev.scheduled)
        eng_schedule(p->base.eng, &p->ev, p->out_at[p->next]);
}

static inline void probe_handle(sim_comp *c, sim_event *ev)
{
    (void)ev;
    probe_pump((probe *)c);
}

static inline void probe_port_free(sim_comp *c, sim_port *port)
{
    (void)port;
    probe_pump((probe *)c);
}

static inline void probe_recv(sim_comp *c, sim_port *port)
{
    probe *p = (probe *)c;
    sim_msg *m;
    while ((m = port_retrieve(port))) {
        if (p->nrsp == PROBE_MAX)
            abort();
        p->rsp_at[p->nrsp] = eng_now(c->eng);
        p->rsp[p->nrsp++] = (mem_msg *)m;
    }
}

static const sim_comp_ops probe_ops = {.kind = "Probe",
                                       .handle = probe_handle,
                                       .notify_recv = probe_recv,
                                       .notify_port_free = probe_port_free};

static inline void probe_init(probe *p, sim_engine *e, mem_pool *pool,
                       const char *name)
{
    memset(p, 0, sizeof *p);
    comp_init(&p->base, e, &probe_ops, name, 0);
    port_init(&p->port, &p->base, "port", PROBE_MAX);
    eng_event_init(&p->ev, &p->base, 1, NULL);
    p->pool = pool;
}

/* Queues m (dst set by the caller) to be sent at time t (non-decreasing
** across calls; call between eng_run calls). */
static inline void probe_send_at(probe *p, mem_msg *m, mgs_time t)
{
    p->out[p->nout] = m;
    p->out_at[p->nout++] = t;
    if (!p->ev.scheduled)
        eng_schedule(p->base.eng, &p->ev, t);
}

static inline mem_msg * probe_req(probe *p, mem_msg_type type, uint64_t addr,
                          uint32_t size, sim_port *dst)
{
    mem_msg *m = mem_msg_alloc(p->pool, type);
    m->addr = addr;
    m->size = size;
    m->base.dst = dst;
    m->base.bytes = 8 + (type == MEM_WRITE ? size : 0);
    m->flags = MEM_F_PHYS;
    return m;
}

/* The answer to req, or NULL. */
static inline mem_msg * probe_answer(const probe *p, const mem_msg *req,
                             mgs_time *at)
{
    for (uint32_t i = 0; i < p->nrsp; i++)
        if (p->rsp[i]->req == req) {
            if (at)
                *at = p->rsp_at[i];
            return p->rsp[i];
        }
    return NULL;
}

/* Frees every request sent and answer received. */
static inline void probe_clear(probe *p)
{
    for (uint32_t i = 0; i < p->nrsp; i++)
        mem_msg_release(p->pool, p->rsp[i]);
    for (uint32_t i = 0; i < p->nout; i++)
        mem_msg_release(p->pool, p->out[i]);
    p->nrsp = p->nout = p->next = 0;
}

static inline void probe_fini(probe *p)
{
    probe_clear(p);
    port_fini(&p->port);
    comp_fini(&p->base);
}

/* ---- the world ---------------------------------------------------------- */

typedef struct mem_world_params {
    uint32_t nl1, nl2;          /* nl1 = 0: agents talk to the L2 banks */
    cache_config l1, l2;
    simplemem_config mem;
    mem_tester_config tester;
    sim_conn_config conn;
    uint32_t interleave;        /* bytes per L2 bank */
} mem_world_params;

typedef struct mem_world {
    sim_engine *eng;
    mem_pool *pool;
    stat_registry *stats;
    uint8_t *bytes;             /* memory [0, mem_size) */
    uint64_t mem_size;
    mem_array arr;
    simplemem *mem;
    cache *l1[16], *l2[16];
    sim_port *l2_tops[16];
    uint32_t nl1, nl2;
    mem_tester *tester;
    probe ctrl;                 /* flushes and invalidates */
    sim_conn *c_top, *c_mid, *c_bot, *c_ctrl;
} mem_world;

/* The small two-level hierarchy of the tests: 1 KiB L1s, 4 KiB 4-way
** write-back L2 banks that do atomics and do not bypass for GLC. */
static inline void mem_world_cache_defaults(cache_config *l1, cache_config *l2)
{
    cache_config_default(l1);
    l1->size = 1024;
    l1->hit_latency = 2;
    cache_config_default(l2);
    l2->size = 4096;
    l2->ways = 4;
    l2->hit_latency = 4;
    l2->write_policy = CACHE_WRITE_BACK;
    l2->atomics_here = true;
    l2->glc_bypass = false;
}

static inline void mem_world_params_default(mem_world_params *p)
{
    memset(p, 0, sizeof *p);
    p->nl1 = 2;
    p->nl2 = 2;
    mem_world_cache_defaults(&p->l1, &p->l2);
    simplemem_config_default(&p->mem);
    p->mem.latency = 20;
    mem_tester_config_default(&p->tester);
    p->tester.agents = 4;
    p->tester.size = 16 * 1024;
    p->tester.ops_per_agent = 1500;
    conn_config_default(&p->conn);
    conn_config_set_latency_cycles(&p->conn, 1);
    p->interleave = 128;
}

static inline void mem_world_build(mem_world *w, const mem_world_params *p)
{
    memset(w, 0, sizeof *w);
    w->eng = eng_new(NULL);
    w->pool = mem_pool_new();
    w->stats = stat_registry_new();
    w->mem_size = p->tester.base + p->tester.size;
    w->bytes = mgs_xmalloc(w->mem_size);
    mem_tester_fill_initial(w->bytes, 0, w->mem_size);
    w->arr = (mem_array){w->bytes, 0, w->mem_size};
    mem_backing b;
    mem_array_backing(&b, &w->arr);
    w->mem = simplemem_new(w->eng, "Mem", &p->mem, w->pool, &b, w->stats);
    w->c_top = conn_new(w->eng, "ConnTop", &p->conn, w->stats);
    w->c_mid = conn_new(w->eng, "ConnMid", &p->conn, w->stats);
    w->c_bot = conn_new(w->eng, "ConnBot", &p->conn, w->stats);
    w->c_ctrl = conn_new(w->eng, "ConnCtrl", &p->conn, NULL);
    probe_init(&w->ctrl, w->eng, w->pool, "Ctrl");
    conn_plug(w->c_ctrl, &w->ctrl.port);
    conn_plug(w->c_bot, simplemem_port(w->mem));
    mem_route to_mem;
    mem_route_single(&to_mem, simplemem_port(w->mem));
    w->nl2 = p->nl2;
    for (uint32_t i = 0; i < p->nl2; i++) {
        char *n = name_new(NULL, "L2", i);
        w->l2[i] = cache_new(w->eng, n, &p->l2, w->pool, w->stats);
        free(n);
        cache_set_route(w->l2[i], &to_mem);
        conn_plug(w->c_bot, cache_bottom(w->l2[i]));
        conn_plug(w->c_mid, cache_top(w->l2[i]));
        conn_plug(w->c_ctrl, cache_ctrl(w->l2[i]));
        w->l2_tops[i] = cache_top(w->l2[i]);
    }
    mem_route to_l2 = {0};
    if (p->nl2)
        mem_route_interleaved(&to_l2, w->l2_tops, w->nl2, p->interleave);
    w->nl1 = p->nl1;
    for (uint32_t i = 0; i < p->nl1; i++) {
        char *n = name_new(NULL, "L1", i);
        w->l1[i] = cache_new(w->eng, n, &p->l1, w->pool, w->stats);
        free(n);
        cache_set_route(w->l1[i], &to_l2);
        conn_plug(w->c_mid, cache_bottom(w->l1[i]));
        conn_plug(w->c_top, cache_top(w->l1[i]));
        conn_plug(w->c_ctrl, cache_ctrl(w->l1[i]));
    }
    w->tester = mem_tester_new(w->eng, "Tester", &p->tester, w->pool,
                               w->stats);
    for (uint32_t i = 0; i < p->tester.agents; i++) {
        mem_route r;
        sim_conn *plug = w->c_top;
        if (p->nl1) {
            mem_route_single(&r, cache_top(w->l1[i % p->nl1]));
        } else if (p->nl2) {
            r = to_l2;           /* straight to the L2 banks */
            plug = w->c_mid;
        } else {
            r = to_mem;          /* no caches at all */
            plug = w->c_bot;
        }
        conn_plug(plug, mem_tester_port(w->tester, i));
        mem_tester_set_route(w->tester, i, &r);
    }
}

/* Flushes every L1, then every L2 (write back dirty data), and runs. */
static inline int mem_world_flush_all(mem_world *w, uint32_t flags)
{
    mgs_time t = eng_now(w->eng);
    for (uint32_t i = 0; i < w->nl1; i++) {
        mem_msg *m = probe_req(&w->ctrl, MEM_FLUSH, 0, 0,
                               cache_ctrl(w->l1[i]));
        m->flags = flags;
        probe_send_at(&w->ctrl, m, t);
    }
    int rc = eng_run(w->eng);
    if (rc != MGS_OK)
        return rc;
    t = eng_now(w->eng);
    for (uint32_t i = 0; i < w->nl2; i++) {
        mem_msg *m = probe_req(&w->ctrl, MEM_FLUSH, 0, 0,
                               cache_ctrl(w->l2[i]));
        m->flags = flags;
        probe_send_at(&w->ctrl, m, t);
    }
    return eng_run(w->eng);
}

static inline void stats_row_append(const stat_row *row, void *ud)
{
    char **buf = ud;
    char line[256];
    snprintf(line, sizeof line, "%s %s %.17g\n", row->component, row->metric,
             row->value);
    size_t n = strlen(*buf), k = strlen(line);
    *buf = mgs_xrealloc(*buf, n + k + 1);
    memcpy(*buf + n, line, k + 1);
}

/* Counter `metric` of component `comp`, read at time 0 through the text
** dump (the public interface), or UINT64_MAX if there is none. */
static inline uint64_t stats_counter(const stat_registry *st, const char *comp,
                                     const char *metric)
{
    char *buf = mgs_xstrdup("\n");
    stat_registry_foreach(st, 0, stats_row_append, &buf);
    char key[256];
    snprintf(key, sizeof key, "\n%s %s ", comp, metric);
    char *at = strstr(buf, key);
    uint64_t v = at ? strtoull(at + strlen(key), NULL, 10) : UINT64_MAX;
    free(buf);
    return v;
}

/* All statistics as text (caller frees). */
static inline char * mem_world_stats_text(const mem_world *w)
{
    char *buf = mgs_xstrdup("");
    stat_registry_foreach(w->stats, eng_now(w->eng), stats_row_append, &buf);
    return buf;
}

static inline void mem_world_free(mem_world *w)
{
    mem_tester_free(w->tester);
    probe_fini(&w->ctrl);
    for (uint32_t i = 0; i < w->nl1; i++)
        cache_free(w->l1[i]);
    for (uint32_t i = 0; i < w->nl2; i++)
        cache_free(w->l2[i]);
    simplemem_free(w->mem);
    conn_free(w->c_top);
    conn_free(w->c_mid);
    conn_free(w->c_bot);
    conn_free(w->c_ctrl);
    eng_free(w->eng);
    stat_registry_free(w->stats);
    mem_pool_free(w->pool);
    free(w->bytes);
}

#endif
