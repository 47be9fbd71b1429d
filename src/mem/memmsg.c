/*
** Message pool and responses of the memory protocol (see memmsg.h).
**
** Model. A pool hands out mem_msg records from slabs it never returns to
** the host until mem_pool_free: steady-state simulation allocates nothing.
** Free messages form a LIFO list threaded through base.dst (a field that
** is meaningless while a message is free), so the same message is reused
** first and a run's allocation order is deterministic.
**
** Invariants:
**   - outstanding == allocated - released; mem_pool_free asserts it is 0
**     (a leaked message is a protocol bug: some component forgot to free a
**     request or a response it owned). A simulation cut short frees with
**     mem_pool_free_stopped instead.
**   - A released message carries MEM_MSG_FREED in base.type until it is
**     allocated again, so a double release is caught by an assert.
**
** Partitions (sim/partition.h). The pool keeps one share per partition:
** slabs, free list and count. A thread running partition k allocates from
** and releases to share k (eng_thread_part_), so the hot path takes no
** lock; a message allocated in one partition and released in another
** (a response that crossed the network) simply joins the releaser's free
** list. Outside parallel runs everything uses share 0, as before.
*/
#include "mem/memmsg.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sim/partition.h"
#include "util/xmalloc.h"

#define MEM_POOL_SLAB 256u            /* messages per slab */
#define MEM_MSG_FREED 0xdeadu         /* base.type of a free message */

typedef struct mem_slab {
    struct mem_slab *next;
    mem_msg msgs[MEM_POOL_SLAB];
} mem_slab;

typedef struct mem_pool_share {
    mem_slab *slabs;         /* owned, singly linked */
    mem_msg *free_list;      /* LIFO through base.dst */
    int64_t outstanding;     /* allocated minus released here */
    uint64_t capacity;       /* messages in all slabs */
} __attribute__((aligned(64))) mem_pool_share;

struct mem_pool {
    mem_pool_share share[ENG_MAX_PARTITIONS];
};

mem_pool *mem_pool_new(void)
{
    return mgs_xcalloc(1, sizeof(mem_pool));
}

void mem_pool_free(mem_pool *p)
{
    if (!p)
        return;
    assert(mem_pool_outstanding(p) == 0 && "memory messages leaked");
    mem_pool_free_stopped(p);
}

void mem_pool_free_stopped(mem_pool *p)
{
    if (!p)
        return;
    for (uint32_t k = 0; k < ENG_MAX_PARTITIONS; k++) {
        mem_slab *s = p->share[k].slabs;
        while (s) {
            mem_slab *n = s->next;
            free(s);
            s = n;
        }
    }
    free(p);
}

static void pool_grow(mem_pool_share *p)
{
    mem_slab *s = mgs_xmalloc(sizeof *s);
    s->next = p->slabs;
    p->slabs = s;
    /* Thread in reverse so the first message of the slab is handed out
    ** first (cosmetic, but keeps addresses ascending in dumps). */
    for (uint32_t i = MEM_POOL_SLAB; i-- > 0;) {
        s->msgs[i].base.type = MEM_MSG_FREED;
        s->msgs[i].base.dst = (sim_port *)p->free_list;
        p->free_list = &s->msgs[i];
    }
    p->capacity += MEM_POOL_SLAB;
}

mem_msg *mem_msg_alloc(mem_pool *pool, mem_msg_type type)
{
    mem_pool_share *p = &pool->share[eng_thread_part_];
    if (!p->free_list)
        pool_grow(p);
    mem_msg *m = p->free_list;
    p->free_list = (mem_msg *)m->base.dst;
    /* The 128-byte payload is not cleared: that halves the bytes written
    ** per message, and data[0..size) is always written before it is read. */
    memset(m, 0, offsetof(mem_msg, data));
    m->base.type = type;
    m->mask = ~0ull; /* a write covers its whole access unless masked */
    p->outstanding++;
    return m;
}

void mem_msg_release(mem_pool *pool, mem_msg *m)
{
    if (!m)
        return;
    assert(m->base.type != MEM_MSG_FREED && "memory message freed twice");
    mem_pool_share *p = &pool->share[eng_thread_part_];
    m->base.type = MEM_MSG_FREED;
    m->base.dst = (sim_port *)p->free_list;
    p->free_list = m;
    p->outstanding--;
}

uint64_t mem_pool_outstanding(const mem_pool *p)
{
    int64_t n = 0;
    for (uint32_t k = 0; k < ENG_MAX_PARTITIONS; k++)
        n += p->share[k].outstanding;
    return (uint64_t)n;
}

static mem_msg_type response_type(uint32_t req_type)
{
    switch (req_type) {
    case MEM_READ: return MEM_READ_RSP;
    case MEM_WRITE: return MEM_WRITE_RSP;
    case MEM_ATOMIC: return MEM_ATOMIC_RSP;
    case MEM_FLUSH:
    case MEM_INVALIDATE: return MEM_CTRL_RSP;
    case MEM_XLATE: return MEM_XLATE_RSP;
    case MEM_INV_LINE: return MEM_INV_ACK;
    default:
        assert(!"response to a message that is not a request");
        return MEM_CTRL_RSP;
    }
}

mem_msg *mem_msg_response(mem_pool *p, const mem_msg *req)
{
    mem_msg *r = mem_msg_alloc(p, response_type(req->base.type));
    r->base.dst = req->reply_to ? req->reply_to : req->base.src;
    r->base.id = req->base.id;
    r->addr = req->addr;
    r->vaddr = req->vaddr;
    r->size = req->size;
    r->flags = req->flags;
    r->pid = req->pid;
    r->gpu = req->gpu;
    r->tc = req->flags & MEM_F_TC ? (uint8_t)(req->tc | 1) : 0;
    r->origin = req->origin;
    r->issue_time = req->issue_time;
    r->req = (mem_msg *)req;
    /* Wire size: a header, plus the payload the response carries. */
    r->base.bytes = 8;
    if (r->base.type == MEM_READ_RSP)
        r->base.bytes += req->size;
    else if (r->base.type == MEM_ATOMIC_RSP)
        r->base.bytes += req->atomic_size;
    return r;
}
