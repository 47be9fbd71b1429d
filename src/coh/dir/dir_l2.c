/*
** What a directory protocol does in each L2 bank (cache hooks, cache.h).
**
** As a home, for the lines the bank homes:
**   admit    a remote read records its GPU in the directory (which may
**            evict an entry: EVICT invalidations); a write or atomic, local
**            or remote, asks the directory whom to invalidate (WRITE
**            invalidations). The invalidations of one operation form one
**            request to the GPU's invalidation engine (inv_engine.h), sent
**            below with an answer expected. Admission waits for two free
**            transactions, so that send never fails.
**   hold     the answer to a write or atomic waits while an invalidation
**            of its line is in flight: a writer that sees its write
**            acknowledged (and a fence after it) knows no other GPU's L2
**            still holds the old value. The paper's protocol needs no
**            acknowledgements because it synchronises only at kernel
**            boundaries; mgsim also runs fences and atomics across GPUs
**            (docs/coherence.md, "assumed").
**   on_ack   an engine's answer: the invalidations landed; release the
**            held answers of those lines.
**   ordering a remote read of a line with a write admitted but not yet
**            answered waits (so it cannot fetch the old value after the
**            directory already forgot to invalidate it).
** As a sharer (every bank), for statistics:
**   on_inv / on_evict / on_fill   invalidations that hit or missed, by
**            cause; misses split into cold, capacity and coherence
**            (line_history.h).
**   on_respond   the answer latency of every request (l2_latency).
*/
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "coh/dir/dir_int.h"
#include "util/xmalloc.h"

static const char *const stat_names[DS_COUNT] = {
    "dir_inv_hit_write", "dir_inv_hit_evict", "dir_inv_miss_write",
    "dir_inv_miss_evict", "l2_miss_cold", "l2_miss_capacity",
    "l2_miss_coherence", "dir_held_writes", "dir_stall_room",
    "dir_stall_write_pending", "dir_inv_requests", "dir_lookups",
    "dir_hits", "dir_insertions", "dir_evictions", "dir_evicted_lines",
    "dir_inv_lines_write", "dir_inv_lines_evict", "dir_inv_msgs_write",
    "dir_inv_msgs_evict"};

static uint64_t line_of(const dir_bank *b, uint64_t addr)
{
    return addr & ~(uint64_t)(b->line - 1);
}

static bool homed_here(const dir_bank *b, uint64_t line)
{
    return b->engine && !cache_line_is_remote(b->l2, line);
}

/* ---- the request being built ------------------------------------------ */

static void send_building(dir_bank *b)
{
    mem_msg *m = b->building;
    b->building = NULL;
    uint64_t lines = 0;
    for (uint32_t i = 0; i < m->size; i++)
        if (m->data[2 * i] | m->data[2 * i + 1])
            lines |= 1ull << i;
    m->base.bytes = 8 + 2 * m->size;
    bool sent = cache_send_below(b->l2, m, true);
    assert(sent && "admission checked the room");
    (void)sent;
    b->built++;
    assert(b->built <= 2 && "one directory operation sends at most two");
    if (b->npend == b->cap_pend) {
        b->cap_pend = b->cap_pend ? 2 * b->cap_pend : 8;
        b->pend = mgs_xrealloc(b->pend, b->cap_pend * sizeof *b->pend);
    }
    b->pend[b->npend++] = (dir_pending){m, m->addr, lines};
    stat_inc(b->st[DS_INV_REQUESTS]);
}

static void emit(void *ud, uint64_t line, uint64_t sharers, dir_cause cause)
{
    dir_bank *b = ud;
    uint64_t base = line & ~(b->group - 1);
    if (b->building &&
        (b->building->addr != base || b->building->coh[0] != cause))
        send_building(b);
    if (!b->building) {
        mem_msg *m = mem_msg_alloc(b->dp->pool, MEM_INV_LINE);
        m->addr = base;
        m->size = b->dp->tcfg.range_lines;
        memset(m->data, 0, 2 * m->size);
        m->flags = MEM_F_PHYS;
        m->gpu = (int32_t)b->gpu;
        m->coh[0] = cause;
        m->base.dst = b->engine;
        b->building = m;
    }
    uint32_t i = (uint32_t)((line - base) / b->line);
    uint16_t mask = (uint16_t)(b->building->data[2 * i] |
                               b->building->data[2 * i + 1] << 8);
    mask |= (uint16_t)sharers;
    b->building->data[2 * i] = (uint8_t)mask;
    b->building->data[2 * i + 1] = (uint8_t)(mask >> 8);
}

void dir_bank_invalidate(dir_bank *b, uint64_t line, uint64_t sharers)
{
    emit(b, line, sharers, DIR_CAUSE_WRITE);
}

static void sync_table_stats(dir_bank *b)
{
    if (!b->table)
        return;
    const dir_table_stats *s = dir_table_stats_get(b->table);
    b->st[DS_LOOKUPS]->value = s->lookups;
    b->st[DS_HITS]->value = s->hits;
    b->st[DS_INSERTIONS]->value = s->insertions;
    b->st[DS_EVICTIONS]->value = s->evictions;
    b->st[DS_EVICTED_LINES]->value = s->evicted_lines;
    b->st[DS_INV_LINES_WRITE]->value = s->inv_lines[DIR_CAUSE_WRITE];
    b->st[DS_INV_LINES_EVICT]->value = s->inv_lines[DIR_CAUSE_EVICT];
    b->st[DS_INV_MSGS_WRITE]->value = s->inv_messages[DIR_CAUSE_WRITE];
    b->st[DS_INV_MSGS_EVICT]->value = s->inv_messages[DIR_CAUSE_EVICT];
}

static void finish_operation(dir_bank *b)
{
    if (b->building)
        send_building(b);
    b->built = 0;
    sync_table_stats(b);
}

/* ---- writes admitted, not yet performed -------------------------------- */

static dir_admitted *admitted_find(dir_bank *b, uint64_t line)
{
    for (uint32_t i = 0; i < b->nadm; i++)
        if (b->adm[i].line == line)
            return &b->adm[i];
    return NULL;
}

static void admitted_add(dir_bank *b, uint64_t line)
{
    dir_admitted *a = admitted_find(b, line);
    if (a) {
        a->count++;
        return;
    }
    if (b->nadm == b->cap_adm) {
        b->cap_adm = b->cap_adm ? 2 * b->cap_adm : 8;
        b->adm = mgs_xrealloc(b->adm, b->cap_adm * sizeof *b->adm);
    }
    b->adm[b->nadm++] = (dir_admitted){line, 1};
}

static void admitted_done(dir_bank *b, uint64_t line)
{
    dir_admitted *a = admitted_find(b, line);
    if (!a)
        return;
    if (--a->count == 0)
        *a = b->adm[--b->nadm];
}

/* ---- hooks ------------------------------------------------------------- */

static bool in_flight(const dir_bank *b, uint64_t line)
{
    for (uint32_t i = 0; i < b->npend; i++) {
        const dir_pending *p = &b->pend[i];
        if (line >= p->base && line < p->base + b->group &&
            (p->lines >> ((line - p->base) / b->line) & 1))
            return true;
    }
    return false;
}

bool dir_bank_inv_pending(const dir_bank *b, uint64_t line)
{
    return b->npend && in_flight(b, line);
}

static bool dl_admit(void *pd, cache *c, const mem_msg *req, bool home)
{
    (void)home;
    dir_bank *b = pd;
    uint64_t line = line_of(b, req->addr);
    if (!homed_here(b, line))
        return true;
    uint32_t g = req->gpu >= 0 && (uint32_t)req->gpu < b->dp->sys.ngpus
                     ? (uint32_t)req->gpu
                     : b->gpu;
    bool read = req->base.type == MEM_READ;
    if (read && g == b->gpu)
        return true; /* a local read: the directory is not involved */
    if (read && b->nadm && admitted_find(b, line)) {
        stat_inc(b->st[DS_STALL_WRITE_PENDING]);
        return false;
    }
    /* Room for the (at most two) requests this operation may send, and
    ** no more than a quarter of the bank's transactions waiting for
    ** invalidations, so misses always find some. */
    if (cache_room_below(c) < 2 || b->npend + 2 > b->max_pend) {
        stat_inc(b->st[DS_STALL_ROOM]);
        return false;
    }
    const dir_tracker *tr = b->dp->tracker;
    bool remote_write = req->base.type == MEM_WRITE && g != b->gpu;
    if (read) {
        if (tr)
            tr->read(tr->ud, b, line, g);
        else
            dir_table_read(b->table, line, g);
    } else if (req->base.type == MEM_WRITE && b->dp->no_write_inv) {
        return true; /* the broken variant: no invalidation */
    } else {
        if (tr)
            tr->write(tr->ud, b, line, g, remote_write);
        else
            dir_table_write(b->table, line, g, remote_write);
        admitted_add(b, line);
    }
    finish_operation(b);
    return true;
}

static bool dl_hold(void *pd, cache *c, uint64_t line, const mem_msg *rsp,
                    const mem_msg *req)
{
    (void)c, (void)rsp;
    dir_bank *b = pd;
    if (!b->npend || (req->base.type != MEM_WRITE &&
                      req->base.type != MEM_ATOMIC) ||
        !in_flight(b, line))
        return false;
    stat_inc(b->st[DS_HELD_WRITES]);
    return true;
}

static void dl_on_ack(void *pd, cache *c, uint64_t line, uint64_t *meta,
                      const mem_msg *ack, mem_msg *up)
{
    (void)line, (void)meta, (void)up;
    dir_bank *b = pd;
    if (ack->base.type != MEM_INV_ACK)
        return;
    uint32_t i = 0;
    while (i < b->npend && b->pend[i].req != ack->req)
        i++;
    assert(i < b->npend && "answer to no invalidation request");
    dir_pending p = b->pend[i];
    b->pend[i] = b->pend[--b->npend];
    for (uint64_t m = p.lines; m; m &= m - 1) {
        uint64_t l = p.base + (uint64_t)__builtin_ctzll(m) * b->line;
        if (!in_flight(b, l))
            cache_release_held(c, l);
    }
}

static void dl_on_inv(void *pd, cache *c, uint64_t line, uint64_t *meta,
                      const mem_msg *inv, mem_msg *ack)
{
    (void)c, (void)ack;
    dir_bank *b = pd;
    bool evict = inv->coh[0] == DIR_CAUSE_EVICT;
    if (meta) {
        stat_inc(b->st[evict ? DS_INV_HIT_EVICT : DS_INV_HIT_WRITE]);
        b->inv_line = line + 1;
    } else {
        stat_inc(b->st[evict ? DS_INV_MISS_EVICT : DS_INV_MISS_WRITE]);
    }
}

static void dl_on_evict(void *pd, cache *c, uint64_t line, uint64_t *meta,
                        bool dirty)
{
    (void)c, (void)meta, (void)dirty;
    dir_bank *b = pd;
    line_history_set(&b->hist, line,
                     b->inv_line == line + 1 ? LINE_COHERENCE
                                             : LINE_EVICTED);
    b->inv_line = 0;
}

static void dl_on_fill(void *pd, cache *c, uint64_t line, uint64_t *meta,
                       const mem_msg *rsp)
{
    (void)c, (void)meta, (void)rsp;
    dir_bank *b = pd;
    line_fate f = line_history_get(&b->hist, line);
    stat_inc(b->st[f == LINE_NEVER       ? DS_MISS_COLD
                   : f == LINE_COHERENCE ? DS_MISS_COHERENCE
                                         : DS_MISS_CAPACITY]);
    line_history_set(&b->hist, line, LINE_PRESENT);
}

static void dl_on_respond(void *pd, cache *c, uint64_t line, uint64_t *meta,
                          mem_msg *rsp, const mem_msg *req)
{
    (void)meta, (void)rsp;
    dir_bank *b = pd;
    /* A write or atomic is done (performed here, or acknowledged from
    ** below when it went through): later remote reads may be served. */
    if (b->nadm && req->base.type != MEM_READ)
        admitted_done(b, line);
    mgs_time now = eng_now(b->dp->eng);
    const cache_config *cc = cache_config_of(c);
    mgs_time leave = now + (mgs_time)cc->hit_latency * cc->period;
    if (req->issue_time && leave > req->issue_time)
        stat_hist_sample(b->latency, leave - req->issue_time);
}

const cache_protocol dir_l2_hooks = {
    .name = "dir",
    .admit = dl_admit,
    .hold = dl_hold,
    .on_ack = dl_on_ack,
    .on_inv = dl_on_inv,
    .on_evict = dl_on_evict,
    .on_fill = dl_on_fill,
    .on_respond = dl_on_respond,
};

/* ---- life cycle -------------------------------------------------------- */

typedef struct dir_bank_own {
    dir_bank b;
    stat_counter own[DS_COUNT];
    stat_hist own_latency;
} dir_bank_own;

dir_bank *dir_bank_new(dir_proto *dp, cache *l2, uint32_t gpu)
{
    dir_bank_own *o = MGS_NEW(dir_bank_own);
    dir_bank *b = &o->b;
    b->dp = dp;
    b->l2 = l2;
    b->gpu = gpu;
    b->line = dp->sys.line;
    b->group = (uint64_t)dp->tcfg.range_lines * b->line;
    uint32_t txns = cache_config_of(l2)->max_inflight_below;
    b->max_pend = txns / 4 > 2 ? txns / 4 : 2; /* assumed: a quarter */
    line_history_init(&b->hist);
    for (int i = 0; i < DS_COUNT; i++)
        b->st[i] = &o->own[i];
    b->latency = &o->own_latency;
    cache_set_protocol(l2, &dir_l2_hooks, b);
    b->next = dp->banks;
    dp->banks = b;
    return b;
}

void dir_bank_place(dir_bank *b, uint32_t bank, sim_port *engine,
                    const char *name)
{
    dir_proto *dp = b->dp;
    b->bank = bank;
    b->engine = engine;
    dir_table_config tc = dp->tcfg;
    tc.home = b->gpu;
    if (!dp->tracker) {
        b->table = dir_table_new(&tc, emit, b);
        assert(b->table && "the protocol validated the directory");
    }
    if (dp->stats) {
        for (int i = 0; i < DS_COUNT; i++)
            b->st[i] = stat_counter_add(dp->stats, name, stat_names[i],
                                        "count");
        b->latency = stat_hist_add(dp->stats, name, "l2_latency", "ps");
    }
}

dir_bank *dir_bank_of(const dir_proto *dp, const cache *l2)
{
    dir_bank *b = dp->banks;
    while (b && b->l2 != l2)
        b = b->next;
    return b;
}

void dir_bank_free(dir_bank *b)
{
    dir_table_free(b->table);
    line_history_fini(&b->hist);
    free(b->pend);
    free(b->adm);
    free((dir_bank_own *)b);
}
