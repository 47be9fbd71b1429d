/*
** Timing mode's hostcall listener (hostcall_agent.h): a small state
** machine of memory steps, each step a batch of requests sent after the
** host link's latency and finished when every answer is back.
*/
#include "runtime/hostcall_agent.h"

#include "gcn3/inst.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

/* assumed: the listener's poll interval and the host's round trip to
** device memory (not in any seed; ROCm's listener wakes on the doorbell
** within microseconds, and a PCIe read takes about one). */
#define POLL_INTERVAL_PS 1000000ull
#define HOST_LATENCY_PS 1000000ull

enum { LANES = 64, ROW = 64 /* bytes of one lane's 8 slots */ };
enum { EV_POLL = 1, EV_STEP };

typedef enum agent_state {
    ST_IDLE,      /* waiting for the next poll */
    ST_SWAP,      /* taking the ready stack */
    ST_WALK,      /* reading the header of packet walk[nwalk] */
    ST_ROWS,      /* reading the active rows of packet walk[cur] */
    ST_ANSWER,    /* writing its answers */
    ST_READY      /* clearing its READY flag */
} agent_state;

struct hostcall_agent {
    sim_comp base;             /* FIRST */
    sim_port port;
    mem_route route;
    mem_pool *pool;
    mgs_hostcall *hc;
    mgs_devmem *mem;
    mgs_hostcall_layout lay;
    sim_event ev;              /* the poll or the next step's send time */
    bool armed;                /* a poll is scheduled or under way */
    agent_state state;
    mem_msg **q;               /* the step's requests not yet sent */
    size_t qhead, qn, qcap;
    uint32_t out;              /* sent, not answered */
    uint64_t top;              /* the ready stack taken */
    uint64_t *walk;            /* packet indexes, newest first */
    uint8_t (*hdr)[MGS_HOSTCALL_HEADER];  /* their headers */
    size_t nwalk, cur;         /* cur: serving walk[cur - 1] */
    uint64_t slots[LANES][8];
    stat_counter *st[5];       /* polls, packets, calls, bytes read and
                                  written: the registry's or own */
    stat_counter own[5];
};

enum { S_POLLS, S_PACKETS, S_CALLS, S_BYTES_READ, S_BYTES_WRITTEN };
static const char *const stat_names[5] = {"polls", "packets", "calls",
                                          "bytes_read", "bytes_written"};
static const char *const stat_units[5] = {"count", "count", "count", "bytes",
                                          "bytes"};

static void enqueue(hostcall_agent *a, mem_msg *m)
{
    if (a->qn == a->qcap) {
        size_t cap = a->qcap ? a->qcap * 2 : 128;
        mem_msg **q = mgs_xmalloc(cap * sizeof *q);
        for (size_t i = 0; i < a->qn; i++)
            q[i] = a->q[(a->qhead + i) % a->qcap];
        free(a->q);
        a->q = q;
        a->qcap = cap;
        a->qhead = 0;
    }
    a->q[(a->qhead + a->qn++) % a->qcap] = m;
}

/* Stops the run with the listener's error (the first one wins). */
static void fail(hostcall_agent *a, int rc)
{
    (void)rc;       /* its message is set: tm_run reports it */
    a->state = ST_IDLE;
    a->armed = false;
    eng_stop(a->base.eng);
}

/* A request for [va, va + n) (inside one 64-byte block): read into dst,
** write src, or (op != 0) an atomic with operand src64. */
static void request(hostcall_agent *a, mem_msg_type type, uint64_t va,
                    uint32_t n, void *dst, const void *src, unsigned op)
{
    uint64_t pa;
    if (mgs_devmem_translate(a->mem, MGS_DEVMEM_HOST, va, &pa)) {
        fail(a, mgs_error_set(MGS_EFAULT, "hostcall listener: buffer address "
                              "0x%llx is not mapped", (unsigned long long)va));
        return;
    }
    mem_msg *m = mem_msg_alloc(a->pool, type);
    m->addr = pa;
    m->vaddr = va;
    m->size = n;
    m->flags = MEM_F_PHYS;
    m->gpu = -1;
    m->origin = dst;
    m->issue_time = eng_now(a->base.eng);
    m->base.bytes = 16;        /* assumed: a request header on the link */
    if (type == MEM_WRITE) {
        memcpy(m->data, src, n);
        m->base.bytes += n;
        stat_addn(a->st[S_BYTES_WRITTEN], n);
    } else if (type == MEM_ATOMIC) {
        m->atomic_op = (uint16_t)op;
        m->atomic_size = (uint8_t)n;
        memcpy(&m->atomic_src, src, 8);
        m->base.bytes += n;
    }
    m->base.dst = mem_route_lookup(&a->route, pa);
    enqueue(a, m);
}

/* Reads or writes [va, va + n) in requests that stay inside 64-byte
** blocks (caches take requests within one line). */
static void access_range(hostcall_agent *a, mem_msg_type type, uint64_t va,
                         uint32_t n, uint8_t *host)
{
    while (n) {
        uint32_t k = 64 - (uint32_t)(va & 63);
        if (k > n)
            k = n;
        request(a, type, va, k, type == MEM_READ ? host : NULL, host, 0);
        va += k;
        host += k;
        n -= k;
    }
}

static uint64_t header_va(const hostcall_agent *a, uint64_t i)
{
    return a->lay.headers + i * MGS_HOSTCALL_HEADER;
}

static uint64_t active_of(const uint8_t *hdr)
{
    uint64_t active;
    memcpy(&active, hdr + 8, 8);
    return active;
}

/* The packet being served: a request per active lane's payload row, a
** read of the whole row or a write of its first n bytes. */
static void rows(hostcall_agent *a, mem_msg_type type, uint32_t n)
{
    uint64_t i = a->walk[a->cur - 1], active = active_of(a->hdr[a->cur - 1]);
    for (int lane = 0; lane < LANES; lane++)
        if (active >> lane & 1) {
            uint64_t va = a->lay.payloads + (i * LANES + lane) * ROW;
            access_range(a, type, va, n, (uint8_t *)a->slots[lane]);
            if (type == MEM_READ)
                stat_addn(a->st[S_BYTES_READ], n);
            else
                stat_inc(a->st[S_CALLS]);
        }
}

/* Queues the requests of the current state's step; they leave after the
** host link's latency. */
static void step(hostcall_agent *a)
{
    switch (a->state) {
    case ST_IDLE:
        return;
    case ST_SWAP: {
        uint64_t zero = 0;
        request(a, MEM_ATOMIC, a->lay.ready_stack, 8, &a->top, &zero,
                GCN_OP_FLAT_ATOMIC_SWAP_X2);
        break;
    }
    case ST_WALK: {
        uint64_t i = a->walk[a->nwalk - 1];
        access_range(a, MEM_READ, header_va(a, i), MGS_HOSTCALL_HEADER,
                     a->hdr[a->nwalk - 1]);
        break;
    }
    case ST_ROWS:
        rows(a, MEM_READ, ROW);
        break;
    case ST_ANSWER:
        rows(a, MEM_WRITE, 16);     /* the answer: the first two words */
        break;
    case ST_READY: {
        uint64_t i = a->walk[a->cur - 1];
        access_range(a, MEM_WRITE, header_va(a, i) + 20, 4,
                     a->hdr[a->cur - 1] + 20);
        break;
    }
    }
    eng_schedule(a->base.eng, &a->ev, eng_now(a->base.eng) + HOST_LATENCY_PS);
}

/* The next poll, or nothing when the engine has nothing else to do (no
** wave can be waiting for an answer then). */
static void idle(hostcall_agent *a)
{
    a->state = ST_IDLE;
    if (eng_pending(a->base.eng) == 0) {
        a->armed = false;
        return;
    }
    a->ev.kind = EV_POLL;
    eng_schedule(a->base.eng, &a->ev,
                 eng_now(a->base.eng) + POLL_INTERVAL_PS);
}

/* The current step's answers are all back: decide the next step. */
static void advance(hostcall_agent *a)
{
    uint64_t mask = a->lay.index_mask;
    switch (a->state) {
    case ST_IDLE:
        return;
    case ST_SWAP:
        if (!(a->top & mask)) {
            idle(a);
            return;
        }
        a->nwalk = 1;
        a->walk[0] = a->top & mask;
        a->state = ST_WALK;
        break;
    case ST_WALK: {
        uint64_t next;
        memcpy(&next, a->hdr[a->nwalk - 1], 8);
        if (next & mask) {
            if (a->nwalk == a->lay.packets || (next & mask) > a->lay.packets) {
                fail(a, mgs_error_set(MGS_ESIM, "hostcall listener: the ready "
                                      "stack is corrupt at packet %llu",
                                      (unsigned long long)(next & mask)));
                return;
            }
            a->walk[a->nwalk++] = next & mask;
            break;
        }
        a->cur = a->nwalk;        /* serve from the oldest */
        stat_addn(a->st[S_PACKETS], a->nwalk);
        a->state = ST_ROWS;
        break;
    }
    case ST_ROWS: {
        int rc = mgs_hostcall_serve(a->hc, a->hdr[a->cur - 1], a->slots);
        if (rc) {
            fail(a, rc);
            return;
        }
        eng_note_forward(a->base.eng);
        a->state = ST_ANSWER;
        break;
    }
    case ST_ANSWER:
        a->state = ST_READY;
        break;
    case ST_READY:
        if (--a->cur) {
            a->state = ST_ROWS;
            break;
        }
        idle(a);
        return;
    }
    a->ev.kind = EV_STEP;
    step(a);
}

static void agent_handle(sim_comp *c, sim_event *ev)
{
    hostcall_agent *a = (hostcall_agent *)c;
    if (ev->kind == EV_POLL) {
        stat_inc(a->st[S_POLLS]);
        a->state = ST_SWAP;
        a->ev.kind = EV_STEP;
        step(a);
        return;
    }
    comp_wake(c);             /* EV_STEP: the step's requests may leave */
}

static bool agent_tick(sim_comp *c)
{
    hostcall_agent *a = (hostcall_agent *)c;
    bool progress = false;
    bool due = !a->ev.scheduled;   /* the step's latency has elapsed */
    while (due && a->qn && port_can_send(&a->port)) {
        mem_msg *m = a->q[a->qhead];
        if (port_send(&a->port, &m->base) != MGS_OK)
            break;
        a->qhead = (a->qhead + 1) % a->qcap;
        a->qn--;
        a->out++;
        progress = true;
    }
    mem_msg *rsp;
    while ((rsp = (mem_msg *)port_retrieve(&a->port))) {
        mem_msg *req = rsp->req;
        if (rsp->flags & MEM_F_FAULT) {
            fail(a, mgs_error_set(MGS_EFAULT, "hostcall listener: fault at "
                                  "0x%llx", (unsigned long long)req->vaddr));
        } else if (rsp->base.type == MEM_READ_RSP) {
            memcpy(req->origin, rsp->data, req->size);
        } else if (rsp->base.type == MEM_ATOMIC_RSP) {
            memcpy(req->origin, rsp->data, 8);
        }
        mem_msg_release(a->pool, req);
        mem_msg_release(a->pool, rsp);
        a->out--;
        progress = true;
    }
    /* The step is over (every answer back, or it had no requests). */
    if (due && !a->qn && !a->out && a->state != ST_IDLE) {
        advance(a);
        progress = true;
    }
    return progress;
}

static bool agent_busy(const sim_comp *c)
{
    const hostcall_agent *a = (const hostcall_agent *)c;
    return a->qn || a->out;
}

static bool agent_stall(const sim_comp *c, char *buf, size_t n)
{
    const hostcall_agent *a = (const hostcall_agent *)c;
    if (!a->qn && !a->out)
        return false;
    snprintf(buf, n, "hostcall listener: %u requests unanswered, %zu to send",
             a->out, a->qn);
    return true;
}

static const sim_comp_ops agent_ops = {
    .kind = "Hostcall", .tick = agent_tick, .handle = agent_handle,
    .busy = agent_busy, .stall = agent_stall};

hostcall_agent *hostcall_agent_new(sim_engine *eng, mgs_hostcall *hc,
                                   mgs_devmem *mem, mem_pool *pool,
                                   stat_registry *stats, mgs_time period)
{
    hostcall_agent *a = MGS_NEW(hostcall_agent);
    comp_init(&a->base, eng, &agent_ops, "Host.Hostcall", period);
    port_init(&a->port, &a->base, "mem", 4);
    eng_event_init(&a->ev, &a->base, EV_POLL, NULL);
    a->pool = pool;
    a->hc = hc;
    a->mem = mem;
    mgs_hostcall_layout_get(hc, &a->lay);
    a->walk = mgs_xcalloc(a->lay.packets, sizeof *a->walk);
    a->hdr = mgs_xcalloc(a->lay.packets, sizeof *a->hdr);
    for (int i = 0; i < 5; i++)
        a->st[i] = stats ? stat_counter_add(stats, "Host.Hostcall",
                                            stat_names[i], stat_units[i])
                         : &a->own[i];
    return a;
}

void hostcall_agent_free(hostcall_agent *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->qn; i++)
        mem_msg_release(a->pool, a->q[(a->qhead + i) % a->qcap]);
    free(a->q);
    free(a->walk);
    free(a->hdr);
    port_fini(&a->port);
    comp_fini(&a->base);
    free(a);
}

sim_port *hostcall_agent_port(hostcall_agent *a) { return &a->port; }

void hostcall_agent_set_route(hostcall_agent *a, const mem_route *route)
{
    a->route = *route;
}

void hostcall_agent_arm(hostcall_agent *a)
{
    if (a->armed)
        return;
    a->armed = true;
    a->state = ST_IDLE;
    a->ev.kind = EV_POLL;
    eng_schedule(a->base.eng, &a->ev, eng_now(a->base.eng) + POLL_INTERVAL_PS);
}
