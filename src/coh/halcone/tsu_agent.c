/*
** The TSU agent: a component between the L2 banks and one memory
** controller (the insertion point, coh.h). Every request from an L2 looks
** up its line's timestamps in the table (tsu.h) when it arrives and goes
** on to memory at once; the TSU access takes tsu_latency cycles in
** parallel with the DRAM access (seed 000 §3.2.5, Fig. 6), so the answer
** leaves at the later of the two, carrying (rts, wts) in coh[0] and 4
** wire bytes. Atomics are performed by the memory (DRAM) and get a write
** lease. An eviction notice (HC_EVICT_NOTICE) updates the table and goes
** no further.
**
** Bookkeeping: a request's answer must come back here, so the agent lends
** the request its own bottom port as reply_to and keeps the requester's
** origin, source and reply_to in a record (origin points at the record
** while the request is below); both are restored before the answer goes
** up, so the L2 sees its own request. At most TSU_RECORDS requests are
** below or waiting to go up at once (back-pressure on the top port beyond
** that): enough that the TSU never limits the memory controller's queue
** (with 64, xtreme1 on 4 shared GPUs took 53.8 us instead of 30.4: the
** DRAM lost its reordering depth). Answers leave in arrival order.
*/
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coh/halcone/halcone_int.h"
#include "coh/halcone/tsu.h"
#include "mgsim/errors.h"
#include "sim/comp.h"
#include "sim/conn.h"
#include "sim/port.h"
#include "util/xmalloc.h"

#define TSU_RECORDS 512u
#define TSU_TOP_BUFFER 64u

enum { TSU_EV_WAKE = 1 };

typedef struct tsu_rec {
    void *origin;             /* the requester's */
    sim_port *src, *reply_to; /* the requester's */
    uint64_t stamp;           /* the grant (hc_stamp_pack) */
    mgs_time tsu_done;        /* when the TSU access ends */
    struct tsu_rec *next_free;
} tsu_rec;

typedef struct tsu_out {
    mem_msg *msg;
    mgs_time ready;
} tsu_out;

struct tsu_agent {
    sim_comp base;            /* FIRST */
    sim_port top, bottom;
    sim_port *memory;
    halcone *hc;
    tsu_table tab;
    uint32_t epoch;           /* the table's epoch */
    mgs_time latency;         /* ps */
    mem_msg *held;            /* a request the bottom refused, retried */
    tsu_rec recs[TSU_RECORDS];
    tsu_rec *free_recs;
    uint32_t inflight;        /* records in use */
    tsu_out out[TSU_RECORDS]; /* answers waiting to go up, FIFO */
    uint32_t out_head, out_count;
    bool top_blocked, bottom_blocked;
    sim_event wake_ev;
    tsu_agent *next;
};

/* The table in the current epoch (a re-initialisation empties it). */
static void sync_epoch(tsu_agent *a)
{
    if (a->epoch != a->hc->epoch) {
        tsu_table_reset(&a->tab);
        a->epoch = a->hc->epoch;
    }
}

/* Algorithm 3 for m; a lease past ts_max re-initialises (§3.2.6). */
static uint64_t grant(tsu_agent *a, const mem_msg *m)
{
    halcone *hc = a->hc;
    bool write = m->base.type != MEM_READ;
    uint64_t line = m->addr & ~((1ull << a->tab.line_shift) - 1);
    hc_stamp s;
    sync_epoch(a);
    if (!tsu_table_grant(&a->tab, line, write, &hc->p, &s.rts, &s.wts)) {
        stat_inc(a->tab.overflows);
        hc_reinitialise(hc);
        sync_epoch(a);
        /* An empty table grants from 0: check() keeps leases < ts_max. */
        tsu_table_grant(&a->tab, line, write, &hc->p, &s.rts, &s.wts);
    }
    s.epoch = hc->epoch;
    if (s.rts > hc->mem_time)
        hc->mem_time = s.rts;
    return hc_stamp_pack(s);
}

static bool is_notice(const mem_msg *m)
{
    return m->base.type == MEM_WRITE && m->size == 0 &&
           m->coh[1] == HC_EVICT_NOTICE;
}

/* Answers whose time has come go up, in order. */
static bool send_up(tsu_agent *a)
{
    bool progress = false;
    mgs_time now = eng_now(a->base.eng);
    while (a->out_count && !a->top_blocked) {
        tsu_out *o = &a->out[a->out_head];
        if (o->ready > now)
            break;
        if (port_send(&a->top, &o->msg->base) != MGS_OK) {
            a->top_blocked = true;
            break;
        }
        a->out_head = (a->out_head + 1) % TSU_RECORDS;
        a->out_count--;
        progress = true;
    }
    return progress;
}

/* Answers from memory: restore the requester's fields, stamp, queue. */
static bool take_bottom(tsu_agent *a)
{
    bool progress = false;
    mem_msg *r;
    while ((r = (mem_msg *)port_retrieve(&a->bottom))) {
        mem_msg *req = r->req;
        tsu_rec *rec = req->origin;
        req->origin = rec->origin;
        req->reply_to = rec->reply_to;
        r->origin = rec->origin;
        r->base.dst = rec->reply_to ? rec->reply_to : rec->src;
        r->coh[0] = rec->stamp;
        mem_msg_set_coh_bytes(r, HC_TS_WIRE_BYTES);
        mgs_time now = eng_now(a->base.eng);
        assert(a->out_count < TSU_RECORDS);
        tsu_out *o = &a->out[(a->out_head + a->out_count++) % TSU_RECORDS];
        o->msg = r;
        o->ready = rec->tsu_done > now ? rec->tsu_done : now;
        rec->next_free = a->free_recs;
        a->free_recs = rec;
        a->inflight--;
        progress = true;
    }
    return progress;
}

/* Sends a request (or the held one) to memory. */
static bool send_down(tsu_agent *a, mem_msg *m)
{
    if (a->bottom_blocked || port_send(&a->bottom, &m->base) != MGS_OK) {
        a->bottom_blocked = true;
        a->held = m;
        return false;
    }
    a->held = NULL;
    return true;
}

static bool take_top(tsu_agent *a)
{
    bool progress = false;
    if (a->held && !send_down(a, a->held))
        return false;
    mem_msg *m;
    while ((m = (mem_msg *)port_peek(&a->top))) {
        if (is_notice(m)) {
            port_retrieve(&a->top);
            sync_epoch(a);
            tsu_table_notice(&a->tab, m->addr, &a->hc->p);
            mem_msg_release(a->hc->pool, m);
            progress = true;
            continue;
        }
        /* A record is free again once its answer is queued, but the
        ** answer still holds a slot of out[] until it goes up: admit a
        ** request only while every answer has a slot (with a blocked top,
        ** 16 GPUs overflowed out[] and lost answers). */
        if (!a->free_recs || a->inflight + a->out_count >= TSU_RECORDS)
            break;
        port_retrieve(&a->top);
        tsu_rec *rec = a->free_recs;
        a->free_recs = rec->next_free;
        a->inflight++;
        rec->origin = m->origin;
        rec->src = m->base.src;
        rec->reply_to = m->reply_to;
        rec->stamp = grant(a, m);
        rec->tsu_done = eng_now(a->base.eng) + a->latency;
        m->origin = rec;
        m->reply_to = &a->bottom;
        m->base.dst = a->memory;
        progress = true;
        if (!send_down(a, m))
            break;
    }
    return progress;
}

static mgs_time next_ready(const tsu_agent *a)
{
    if (!a->out_count || a->top_blocked)
        return MGS_TIME_MAX;
    return a->out[a->out_head].ready;
}

static bool agent_tick(sim_comp *sc)
{
    tsu_agent *a = (tsu_agent *)sc;
    bool progress = send_up(a);
    progress |= take_bottom(a);
    progress |= take_top(a);
    progress |= send_up(a);
    if (progress)
        return true;
    mgs_time t = next_ready(a);
    if (t == MGS_TIME_MAX)
        return false;
    mgs_time p = sc->period, now = eng_now(sc->eng);
    if (t <= now + p)
        return true;
    if (!a->wake_ev.scheduled)
        eng_schedule(sc->eng, &a->wake_ev, t - p);
    return false;
}

static void agent_handle(sim_comp *sc, sim_event *ev)
{
    (void)ev;
    comp_wake(sc);
}

static void agent_port_free(sim_comp *sc, sim_port *p)
{
    tsu_agent *a = (tsu_agent *)sc;
    if (p == &a->top)
        a->top_blocked = false;
    else
        a->bottom_blocked = false;
    comp_wake(sc);
}

static bool agent_busy(const sim_comp *sc)
{
    const tsu_agent *a = (const tsu_agent *)sc;
    return a->held || a->out_count || port_occupancy(&a->top) ||
           port_occupancy(&a->bottom) || a->inflight;
}

static void agent_dump(const sim_comp *sc, FILE *f)
{
    const tsu_agent *a = (const tsu_agent *)sc;
    fprintf(f, "  below %u/%u answers %u%s%s%s\n", a->inflight, TSU_RECORDS,
            a->out_count, a->held ? " held" : "",
            a->top_blocked ? " top-blocked" : "",
            a->bottom_blocked ? " bottom-blocked" : "");
}

static const sim_comp_ops agent_ops = {
    .kind = "TSU",
    .tick = agent_tick,
    .handle = agent_handle,
    .notify_port_free = agent_port_free,
    .busy = agent_busy,
    .dump = agent_dump,
};

sim_port *hc_tsu_agent_new(halcone *hc, const coh_site *site)
{
    tsu_agent *a = MGS_NEW(tsu_agent);
    char name[96];
    snprintf(name, sizeof name, "%s.TSU", site->name);
    mgs_time period = site->period ? site->period : 1000;
    comp_init(&a->base, site->eng, &agent_ops, name, period);
    port_init(&a->top, &a->base, "top", TSU_TOP_BUFFER);
    /* Every request below can answer at once. */
    port_init(&a->bottom, &a->base, "bottom", TSU_RECORDS);
    eng_event_init(&a->wake_ev, &a->base, TSU_EV_WAKE, NULL);
    a->hc = hc;
    a->memory = site->memory;
    a->latency = (mgs_time)hc->p.tsu_latency * period;
    a->epoch = hc->epoch;
    /* The L2 line is the cache line of every level (gpu.cache_line);
    ** 64 B unless configured otherwise: the table indexes by line. */
    tsu_table_init(&a->tab, hc->p.tsu_entries, hc->line);
    if (site->stats)
        tsu_table_stats(&a->tab, site->stats, name);
    for (uint32_t i = TSU_RECORDS; i-- > 0;) {
        a->recs[i].next_free = a->free_recs;
        a->free_recs = &a->recs[i];
    }
    conn_plug(site->net, &a->bottom);
    if (!site->top_external)
        conn_plug(site->net, &a->top);
    a->next = hc->tsus;
    hc->tsus = a;
    return &a->top;
}

void hc_tsu_agent_free_all(halcone *hc)
{
    for (tsu_agent *a = hc->tsus, *n; a; a = n) {
        n = a->next;
        /* Answers still queued are ours (a run that stopped early). */
        for (uint32_t i = 0; i < a->out_count; i++)
            mem_msg_release(hc->pool,
                            a->out[(a->out_head + i) % TSU_RECORDS].msg);
        tsu_table_fini(&a->tab);
        port_fini(&a->top);
        port_fini(&a->bottom);
        comp_fini(&a->base);
        free(a);
    }
    hc->tsus = NULL;
}
