/*
** Fixed-latency memory (see simplemem.h). Invariant: the answer queue is a
** FIFO whose ready times never decrease (every answer is taken-time +
** latency), so only its head needs watching; the component sleeps until
** the head is due (one wake event) instead of ticking every cycle.
*/
#include "mem/simplemem.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "gcn3/emu_atomic.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

typedef struct sm_entry {
    mem_msg *rsp;
    mgs_time ready;
} sm_entry;

struct simplemem {
    sim_comp base;          /* first */
    sim_port port;
    simplemem_config cfg;
    mem_pool *pool;         /* borrowed */
    mem_backing backing;
    sm_entry *q;            /* ring, cfg.queue */
    uint32_t head, count;
    bool blocked;           /* a send was refused */
    sim_event wake_ev;
    stat_counter *reads, *writes, *atomics, *faults, *bytes_read,
        *bytes_written;
    stat_counter own[6];
};

void simplemem_config_default(simplemem_config *c)
{
    c->latency = 100; /* MGPUSim main's ideal DRAM: fixed 100 cycles */
    c->buffer = 8;
    c->queue = 64;
    c->requests_per_cycle = 1;
    c->quiet_after_progress = false;
    c->period = 1000;
}

int simplemem_config_validate(const simplemem_config *c)
{
    if (c->buffer < 1 || c->queue < 1 || c->requests_per_cycle < 1 ||
        c->period < 1)
        return mgs_error_set(MGS_EINVAL, "simplemem buffer, queue, "
                             "requests_per_cycle and period must be >= 1");
    return MGS_OK;
}

/* A burst (memmsg.h: parts accesses of size bytes in bulk), whole. */
static bool perform_burst(simplemem *m, const mem_msg *req)
{
    const mem_backing *b = &m->backing;
    size_t n = (size_t)req->size * req->parts;
    switch (req->base.type) {
    case MEM_READ:
        stat_addn(m->reads, req->parts);
        stat_addn(m->bytes_read, n);
        return b->read(b->ud, req->addr, req->bulk, n) == 0;
    case MEM_WRITE:
        stat_addn(m->writes, req->parts);
        stat_addn(m->bytes_written, n);
        return b->write(b->ud, req->addr, req->bulk, n) == 0;
    default:
        return false;   /* bursts are reads and whole writes only */
    }
}

static bool perform(simplemem *m, const mem_msg *req, mem_msg *rsp)
{
    const mem_backing *b = &m->backing;
    if (req->parts > 1)
        return perform_burst(m, req);
    switch (req->base.type) {
    case MEM_READ:
        stat_inc(m->reads);
        stat_addn(m->bytes_read, req->size);
        return b->read(b->ud, req->addr, rsp->data, req->size) == 0;
    case MEM_WRITE: {
        stat_inc(m->writes);
        stat_addn(m->bytes_written, req->size);
        if (req->mask == ~0ull)
            return b->write(b->ud, req->addr, req->data, req->size) == 0;
        /* Partial write: only enabled bytes, as runs. */
        uint32_t i = 0;
        while (i < req->size) {
            if (!((req->mask >> i) & 1)) {
                i++;
                continue;
            }
            uint32_t j = i;
            while (j < req->size && j < 64 && ((req->mask >> j) & 1))
                j++;
            if (b->write(b->ud, req->addr + i, req->data + i, j - i))
                return false;
            i = j;
        }
        return true;
    }
    case MEM_ATOMIC: {
        stat_inc(m->atomics);
        uint8_t buf[8];
        unsigned n = req->atomic_size;
        if (b->read(b->ud, req->addr, buf, n))
            return false;
        uint64_t old = 0;
        for (unsigned i = n; i-- > 0;)
            old = (old << 8) | buf[i];
        uint64_t nv = gcn_atomic_apply(gcn_atomic_kind_of(req->atomic_op), n,
                                       old, req->atomic_src, req->atomic_cmp);
        memcpy(rsp->data, buf, n);
        for (unsigned i = 0; i < n; i++, nv >>= 8)
            buf[i] = (uint8_t)nv;
        return b->write(b->ud, req->addr, buf, n) == 0;
    }
    default: /* FLUSH / INVALIDATE: nothing cached here */
        return true;
    }
}

static bool sm_send(simplemem *m, mgs_time now)
{
    bool progress = false;
    while (m->count && !m->blocked && m->q[m->head].ready <= now) {
        if (port_send(&m->port, &m->q[m->head].rsp->base) != MGS_OK) {
            m->blocked = true;
            break;
        }
        m->head = (m->head + 1) % m->cfg.queue;
        m->count--;
        progress = true;
    }
    return progress;
}

static bool sm_tick(sim_comp *c)
{
    simplemem *m = (simplemem *)c;
    mgs_time now = eng_now(c->eng);
    bool progress = false;
    /* Answers first, so a full queue frees a slot for this cycle. */
    progress |= sm_send(m, now);
    for (uint32_t n = 0; n < m->cfg.requests_per_cycle; n++) {
        if (m->count == m->cfg.queue)
            break;
        mem_msg *req = (mem_msg *)port_retrieve(&m->port);
        if (!req)
            break;
        mem_msg *rsp = mem_msg_response(m->pool, req);
        if (req->parts > 1) { /* a burst's answer: all its parts */
            rsp->parts = req->parts;
            rsp->bulk = req->bulk;
            rsp->burst_first = rsp->burst_last = 0;
        }
        if (!perform(m, req, rsp)) {
            rsp->flags |= MEM_F_FAULT;
            stat_inc(m->faults);
        }
        sm_entry *e = &m->q[(m->head + m->count) % m->cfg.queue];
        e->rsp = rsp;
        e->ready = now + mgs_cycles(m->cfg.latency, m->cfg.period);
        if (req->parts > 1 && req->burst_last > req->burst_first) {
            /* A burst is taken with its first part; its last part would
            ** have been taken at the edge after it came, and answered
            ** latency later: the answer's last part leaves no earlier. */
            mgs_time delay = req->base.arrive_time - req->burst_first;
            rsp->burst_last = mgs_edge_after(req->burst_last + delay,
                                             m->cfg.period) +
                              mgs_cycles(m->cfg.latency, m->cfg.period);
        }
        m->count++;
        progress = true;
    }
    progress |= sm_send(m, now); /* zero-latency answers */
    /* cfg.quiet_after_progress: after progress, tick on only for requests
    ** still waiting; otherwise sleep at once (arrivals and freed lanes
    ** wake us, the wake below the next answer) rather than tick once
    ** more to find nothing. */
    if (progress && (!m->cfg.quiet_after_progress ||
                     (port_peek(&m->port) && m->count < m->cfg.queue)))
        return true;
    if (!m->count || m->blocked)
        return false;
    mgs_time t = m->q[m->head].ready, p = m->cfg.period;
    if (t <= now + p)
        return true;
    if (!m->wake_ev.scheduled)
        eng_schedule(c->eng, &m->wake_ev, t - p);
    return false;
}

static void sm_handle(sim_comp *c, sim_event *ev)
{
    (void)ev;
    comp_wake(c);
}

static void sm_port_free(sim_comp *c, sim_port *p)
{
    (void)p;
    ((simplemem *)c)->blocked = false;
    comp_wake(c);
}

static bool sm_busy(const sim_comp *c)
{
    const simplemem *m = (const simplemem *)c;
    return m->count || port_occupancy(&m->port);
}

static void sm_visit(const sim_comp *c, sim_buf_visit_fn fn, void *ud)
{
    const simplemem *m = (const simplemem *)c;
    char name[256];
    snprintf(name, sizeof name, "%s.queue", c->name);
    fn(name, m->count, m->cfg.queue, ud);
}

static const sim_comp_ops sm_ops = {
    .kind = "SimpleMem",
    .tick = sm_tick,
    .handle = sm_handle,
    .notify_port_free = sm_port_free,
    .busy = sm_busy,
    .visit_buffers = sm_visit,
};

simplemem *simplemem_new(sim_engine *eng, const char *name,
                         const simplemem_config *cfg, mem_pool *pool,
                         const mem_backing *backing, stat_registry *stats)
{
    int rc = simplemem_config_validate(cfg);
    assert(rc == MGS_OK);
    (void)rc;
    simplemem *m = MGS_NEW(simplemem);
    m->cfg = *cfg;
    m->pool = pool;
    m->backing = *backing;
    comp_init(&m->base, eng, &sm_ops, name, cfg->period);
    port_init(&m->port, &m->base, "port", cfg->buffer);
    eng_event_init(&m->wake_ev, &m->base, 1, NULL);
    m->q = MGS_NEW_ARRAY(sm_entry, cfg->queue);
    static const char *const names[6] = {"reads", "writes", "atomics",
                                         "faults", "bytes_read",
                                         "bytes_written"};
    stat_counter **slots[6] = {&m->reads, &m->writes, &m->atomics,
                               &m->faults, &m->bytes_read, &m->bytes_written};
    for (int i = 0; i < 6; i++)
        *slots[i] = stats ? stat_counter_add(stats, name, names[i],
                                             i >= 4 ? "bytes" : "count")
                          : &m->own[i];
    return m;
}

void simplemem_free(simplemem *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->count; i++)
        mem_msg_release(m->pool, m->q[(m->head + i) % m->cfg.queue].rsp);
    port_fini(&m->port);
    comp_fini(&m->base);
    free(m->q);
    free(m);
}

sim_port *simplemem_port(simplemem *m) { return &m->port; }

static int array_read(void *ud, uint64_t paddr, void *dst, size_t n)
{
    mem_array *a = ud;
    if (paddr < a->base || paddr - a->base > a->size ||
        n > a->size - (paddr - a->base))
        return mgs_error_set(MGS_EINVAL, "memory read of %zu bytes at "
                             "0x%llx is out of range", n,
                             (unsigned long long)paddr);
    memcpy(dst, a->bytes + (paddr - a->base), n);
    return 0;
}

static int array_write(void *ud, uint64_t paddr, const void *src, size_t n)
{
    mem_array *a = ud;
    if (paddr < a->base || paddr - a->base > a->size ||
        n > a->size - (paddr - a->base))
        return mgs_error_set(MGS_EINVAL, "memory write of %zu bytes at "
                             "0x%llx is out of range", n,
                             (unsigned long long)paddr);
    memcpy(a->bytes + (paddr - a->base), src, n);
    return 0;
}

void mem_array_backing(mem_backing *out, mem_array *a)
{
    out->read = array_read;
    out->write = array_write;
    out->ud = a;
}
