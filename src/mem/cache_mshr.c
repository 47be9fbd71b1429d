/*
** MSHRs and transactions below.
**
** An MSHR tracks one line being fetched: it owns a reserved frame and an
** ordered list of the requests that wait for the line (targets). Its life
** cycle (functions in cache.c unless noted):
**
**   FREE --cache_mshr_alloc (from miss_alloc)--> WAIT_FILL
**   WAIT_FILL --fill arrives (take_bottom)--> DRAIN (cache_mshr_drain_push)
**   DRAIN --all targets served, in order (drain)--> FREE (cache_mshr_release)
**
** A line lock (cache_line_lock) raises the MSHR's lock count, taking a
** lock-only MSHR (straight to DRAIN, no targets) if the line had none;
** drain skips an MSHR while it is locked, so its targets wait in order.
**
** Requests for the line that arrive in WAIT_FILL or DRAIN merge as targets
** (cache_mshr_add_target) so that every request to a line is served in
** arrival order; when targets are full the request waits in the top buffer.
**
** A transaction (cache_txn) is one request this cache sends below: queued
** in down_q until its ready time, then in flight until its answer comes
** back through the bottom port (the down message's origin points at the
** transaction). max_inflight_below transactions exist; allocating one is
** how the cache reserves room below before accepting work.
*/
#include "mem/cache_int.h"

#include <assert.h>

cache_mshr *cache_mshr_alloc(cache *c, uint64_t line_addr, uint32_t frame)
{
    cache_mshr *m = c->mshr_free;
    assert(m);
    c->mshr_free = m->next;
    m->next = NULL;
    m->line_addr = line_addr;
    m->frame = frame;
    m->state = MSHR_WAIT_FILL;
    m->head = m->count = 0;
    m->locks = 0;
    m->lock_only = m->inv_wait = m->drop_after = false;
    c->mshr_used++;
    c->frames[frame].mshr = m;
    return m;
}

bool cache_mshr_add_target(cache *c, cache_mshr *m, mem_msg *req)
{
    if (m->count == c->cfg.mshr_targets)
        return false;
    m->targets[m->count++] = req;
    return true;
}

void cache_mshr_release(cache *c, cache_mshr *m)
{
    assert(m->state == MSHR_DRAIN && m->head == m->count && !m->locks);
    c->frames[m->frame].mshr = NULL;
    if (m->lock_only)
        c->lock_mshrs--;
    m->state = MSHR_FREE;
    m->next = c->mshr_free;
    c->mshr_free = m;
    c->mshr_used--;
}

void cache_mshr_drain_push(cache *c, cache_mshr *m)
{
    m->state = MSHR_DRAIN;
    m->next = NULL;
    if (c->drain_tail)
        c->drain_tail->next = m;
    else
        c->drain_head = m;
    c->drain_tail = m;
}

cache_txn *cache_txn_alloc(cache *c, uint8_t kind)
{
    cache_txn *t = c->txn_free;
    assert(t);
    c->txn_free = t->next_free;
    t->next_free = NULL;
    t->kind = kind;
    t->sent = t->fixed_dst = t->remote = false;
    t->nsent = 0;
    t->unanswered = 1;
    t->down = t->down2 = t->orig = NULL;
    t->mshr = NULL;
    c->txn_used++;
    return t;
}

void cache_txn_release(cache *c, cache_txn *t)
{
    if (t->remote)
        c->remote_txns--;
    t->kind = TXN_FREE;
    t->next_free = c->txn_free;
    c->txn_free = t;
    c->txn_used--;
}

void cache_down_push(cache *c, cache_txn *t)
{
    uint32_t cap = c->cfg.max_inflight_below;
    assert(c->down_count < cap);
    t->ready = eng_now(c->base.eng) +
               mgs_cycles(c->cfg.miss_latency, c->cfg.period);
    if (t->kind != TXN_POST) {
        t->down->origin = t;
        t->down->issue_time = eng_now(c->base.eng);
        if (t->down2) {
            t->down2->origin = t;
            t->down2->issue_time = t->down->issue_time;
            t->unanswered = 2;
        }
    }
    c->down_q[(c->down_head + c->down_count) % cap] = t;
    c->down_count++;
}
