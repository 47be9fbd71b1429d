/*
** Random memory tester (see tester.h for the model and the checking rule).
**
** Per agent, each outstanding request owns a slot holding the expected
** bytes (snapshot of the shadow at issue time) and whether they are to be
** checked; the request's origin points at the slot. Writes and atomics
** update the shadow at issue time, in program order, which is the order
** the hierarchy promises to respect for one source.
*/
#include "mem/tester.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "gcn3/emu_atomic.h"
#include "gcn3/inst.h"
#include "mgsim/errors.h"
#include "sim/name.h"
#include "util/xmalloc.h"

typedef struct tester_slot {
    mem_msg *req;               /* NULL = free */
    bool check;
    uint8_t expected[MEM_LINE_MAX];
} tester_slot;

typedef struct tester_agent {
    sim_comp base;              /* first */
    sim_port port;
    struct mem_tester *t;
    uint32_t index;
    mem_route route;
    bool have_route;
    uint64_t rng;
    uint64_t lo, hi;            /* PRIVATE: own slice [lo, hi) */
    int32_t gpu;
    uint64_t issued, completed;
    uint32_t outstanding;
    tester_slot *slots;         /* max_outstanding */
    mem_msg *pending;           /* refused send, retried */
    bool blocked;
    stat_counter *s_reads, *s_writes, *s_atomics, *s_mismatches;
    stat_counter own[4];
} tester_agent;

struct mem_tester {
    mem_tester_config cfg;
    mem_pool *pool;
    tester_agent *agents;
    uint8_t *shadow;            /* reference copy of [base, base + size) */
    uint64_t checked_bytes;
    uint64_t mismatches;
    mem_tester_mismatch recorded[MEM_TESTER_MAX_RECORDED];
    mem_tester_observer observer;
    void *observer_ud;
};

void mem_tester_config_default(mem_tester_config *c)
{
    memset(c, 0, sizeof *c);
    c->agents = 4;
    c->base = 0;
    c->size = 64 * 1024;
    c->unit = 128;
    c->max_size = 64;
    c->ops_per_agent = 2000;
    c->max_outstanding = 8;
    c->read_percent = 50;
    c->atomic_percent = 5;
    c->partial_percent = 25;
    c->glc_percent = 10;
    c->mode = MEM_TESTER_PRIVATE;
    c->seed = 1;
    c->buffer = 4;
    c->period = 1000;
}

static bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

int mem_tester_config_validate(const mem_tester_config *c)
{
    if (c->agents < 1)
        return mgs_error_set(MGS_EINVAL, "tester agents must be >= 1");
    if (!is_pow2(c->max_size) || c->max_size > MEM_LINE_MAX)
        return mgs_error_set(MGS_EINVAL, "tester max_size = %u: must be a "
                             "power of 2 <= %u", c->max_size, MEM_LINE_MAX);
    if (!is_pow2(c->unit) || c->unit < c->max_size)
        return mgs_error_set(MGS_EINVAL, "tester unit = %u: must be a power "
                             "of 2 >= max_size", c->unit);
    if (c->size % c->unit || c->base % c->unit ||
        c->size / c->unit < c->agents)
        return mgs_error_set(MGS_EINVAL, "tester range: base and size must "
                             "be multiples of unit with >= 1 unit per agent");
    if (c->hole_period && (c->hole_bytes >= c->hole_period ||
                           c->hole_period % c->unit ||
                           c->hole_bytes % c->unit))
        return mgs_error_set(MGS_EINVAL, "tester hole: hole_bytes < "
                             "hole_period, both multiples of unit");
    if (c->max_outstanding < 1 || c->buffer < 1 || c->period < 1)
        return mgs_error_set(MGS_EINVAL, "tester max_outstanding, buffer "
                             "and period must be >= 1");
    if (c->read_percent + c->atomic_percent > 100 ||
        c->partial_percent > 100 || c->glc_percent > 100)
        return mgs_error_set(MGS_EINVAL, "tester percentages out of range");
    if (c->atomic_percent && c->max_size < 4)
        return mgs_error_set(MGS_EINVAL, "tester atomics need max_size >= 4");
    return MGS_OK;
}

uint8_t mem_tester_init_byte(uint64_t addr)
{
    uint64_t x = addr * 0x9e3779b97f4a7c15ull;
    return (uint8_t)(x >> 56 ^ x >> 29);
}

void mem_tester_fill_initial(uint8_t *bytes, uint64_t base, uint64_t size)
{
    for (uint64_t i = 0; i < size; i++)
        bytes[i] = mem_tester_init_byte(base + i);
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rng_below(uint64_t *s, uint64_t n)
{
    return (uint32_t)(rng_next(s) % n);
}

/* A random address aligned to size, in a unit this agent may write
** (write) or in any unit of the range (read in OWNED_UNITS mode). */
static uint64_t pick_one(tester_agent *a, uint32_t size, bool write);

static bool in_hole(const mem_tester_config *c, uint64_t addr)
{
    return c->hole_period &&
           (addr - c->base) % c->hole_period >= c->hole_period - c->hole_bytes;
}

static uint64_t pick_addr(tester_agent *a, uint32_t size, bool write)
{
    uint64_t addr;
    do
        addr = pick_one(a, size, write);
    while (in_hole(&a->t->cfg, addr));
    return addr;
}

static uint64_t pick_one(tester_agent *a, uint32_t size, bool write)
{
    const mem_tester_config *c = &a->t->cfg;
    uint64_t units = c->size / c->unit, unit;
    if (c->mode == MEM_TESTER_PRIVATE) {
        uint64_t first = (a->lo - c->base) / c->unit;
        unit = first + rng_next(&a->rng) % ((a->hi - a->lo) / c->unit);
    } else if (write) {
        /* units u with u % agents == index */
        uint64_t mine = (units - a->index + c->agents - 1) / c->agents;
        unit = a->index + (rng_next(&a->rng) % mine) * c->agents;
    } else {
        unit = rng_next(&a->rng) % units;
    }
    uint64_t slot = rng_next(&a->rng) % (c->unit / size);
    return c->base + unit * c->unit + slot * size;
}

static bool owns(const tester_agent *a, uint64_t addr)
{
    const mem_tester_config *c = &a->t->cfg;
    if (c->mode == MEM_TESTER_PRIVATE)
        return addr >= a->lo && addr < a->hi;
    return ((addr - c->base) / c->unit) % c->agents == a->index;
}

static const uint16_t atomic_ops[][2] = {
    /* {32-bit op, 64-bit op} */
    {GCN_OP_FLAT_ATOMIC_ADD, GCN_OP_FLAT_ATOMIC_ADD_X2},
    {GCN_OP_FLAT_ATOMIC_SWAP, GCN_OP_FLAT_ATOMIC_SWAP_X2},
    {GCN_OP_FLAT_ATOMIC_CMPSWAP, GCN_OP_FLAT_ATOMIC_CMPSWAP_X2},
    {GCN_OP_FLAT_ATOMIC_UMAX, GCN_OP_FLAT_ATOMIC_UMAX_X2},
    {GCN_OP_FLAT_ATOMIC_XOR, GCN_OP_FLAT_ATOMIC_XOR_X2},
    {GCN_OP_FLAT_ATOMIC_INC, GCN_OP_FLAT_ATOMIC_INC_X2},
};

static uint64_t load_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = (v << 8) | p[i];
    return v;
}

/* Builds the next request into slot s (shadow updated, expected taken). */
static mem_msg *make_request(tester_agent *a, tester_slot *s)
{
    mem_tester *t = a->t;
    const mem_tester_config *c = &t->cfg;
    uint32_t roll = rng_below(&a->rng, 100);
    uint32_t type = roll < c->read_percent ? MEM_READ
                    : roll < c->read_percent + c->atomic_percent ? MEM_ATOMIC
                                                                 : MEM_WRITE;
    uint32_t size;
    if (type == MEM_ATOMIC) {
        size = (c->max_size >= 8 && rng_below(&a->rng, 2)) ? 8 : 4;
    } else {
        uint32_t log = (uint32_t)__builtin_ctz(c->max_size);
        size = 1u << rng_below(&a->rng, log + 1);
    }
    uint64_t addr = pick_addr(a, size, type != MEM_READ);
    uint8_t *sh = t->shadow + (addr - c->base);
    mem_msg *m = mem_msg_alloc(t->pool, type);
    m->addr = addr;
    m->size = size;
    m->flags = MEM_F_PHYS;
    m->gpu = a->gpu;
    m->origin = s;
    m->base.id = a->issued;
    m->base.bytes = 8;
    m->issue_time = eng_now(a->base.eng);
    if (type != MEM_ATOMIC && rng_below(&a->rng, 100) < c->glc_percent)
        m->flags |= MEM_F_GLC;
    s->req = m;
    s->check = false;
    if (type == MEM_READ) {
        s->check = owns(a, addr);
        memcpy(s->expected, sh, size);
        stat_inc(a->s_reads);
    } else if (type == MEM_WRITE) {
        for (uint32_t i = 0; i < size; i++)
            m->data[i] = (uint8_t)rng_next(&a->rng);
        if (size <= 64 && rng_below(&a->rng, 100) < c->partial_percent) {
            m->mask = rng_next(&a->rng);
            if (size < 64)
                m->mask &= (1ull << size) - 1;
            /* keep "all ones" meaning the whole access only */
            if (m->mask == ~0ull)
                m->mask &= ~1ull;
        }
        for (uint32_t i = 0; i < size; i++)
            if (m->mask == ~0ull || ((m->mask >> i) & 1))
                sh[i] = m->data[i];
        m->base.bytes += size;
        stat_inc(a->s_writes);
    } else {
        uint32_t k = rng_below(&a->rng, 6);
        m->atomic_op = atomic_ops[k][size == 8];
        m->atomic_size = (uint8_t)size;
        m->atomic_src = rng_next(&a->rng);
        if (k == 5) /* inc wraps at src: keep it from wrapping at once */
            m->atomic_src |= 1ull << 20;
        uint64_t old = load_le(sh, size);
        m->atomic_cmp = rng_below(&a->rng, 2) ? old : rng_next(&a->rng);
        uint64_t nv = gcn_atomic_apply(gcn_atomic_kind_of(m->atomic_op), size,
                                       old, m->atomic_src, m->atomic_cmp);
        s->check = true;
        memcpy(s->expected, sh, size);
        for (uint32_t i = 0; i < size; i++, nv >>= 8)
            sh[i] = (uint8_t)nv;
        m->base.bytes += 2 * size;
        stat_inc(a->s_atomics);
    }
    return m;
}

static void check_response(tester_agent *a, tester_slot *s, mem_msg *rsp)
{
    mem_tester *t = a->t;
    const mem_msg *req = s->req;
    if (!s->check)
        return;
    uint32_t n = req->base.type == MEM_ATOMIC ? req->atomic_size : req->size;
    t->checked_bytes += n;
    for (uint32_t i = 0; i < n; i++) {
        if (rsp->data[i] == s->expected[i])
            continue;
        if (t->mismatches < MEM_TESTER_MAX_RECORDED) {
            mem_tester_mismatch *r = &t->recorded[t->mismatches];
            r->agent = a->index;
            r->type = req->base.type;
            r->access_addr = req->addr;
            r->access_size = n;
            r->addr = req->addr + i;
            r->nbytes = n - i < 8 ? n - i : 8;
            r->expected = load_le(s->expected + i, r->nbytes);
            r->got = load_le(rsp->data + i, r->nbytes);
        }
        t->mismatches++;
        stat_inc(a->s_mismatches);
        break;
    }
}

static bool agent_tick(sim_comp *c)
{
    tester_agent *a = (tester_agent *)c;
    mem_tester *t = a->t;
    bool progress = false;
    /* Answers: any number per cycle (the tester is not what is measured). */
    mem_msg *rsp;
    while ((rsp = (mem_msg *)port_retrieve(&a->port))) {
        tester_slot *s = rsp->origin;
        assert(s && s->req == rsp->req);
        check_response(a, s, rsp);
        if (t->observer &&
            !t->observer(t->observer_ud, a->index, s->req, rsp, s->check)) {
            t->mismatches++;
            stat_inc(a->s_mismatches);
        }
        mem_msg_release(t->pool, s->req);
        mem_msg_release(t->pool, rsp);
        s->req = NULL;
        a->outstanding--;
        a->completed++;
        progress = true;
    }
    if (a->blocked)
        return progress;
    if (!a->pending && a->issued < t->cfg.ops_per_agent &&
        a->outstanding < t->cfg.max_outstanding) {
        tester_slot *s = NULL;
        for (uint32_t i = 0; i < t->cfg.max_outstanding; i++)
            if (!a->slots[i].req) {
                s = &a->slots[i];
                break;
            }
        assert(s);
        a->pending = make_request(a, s);
        a->outstanding++;
        a->issued++;
        progress = true;
    }
    if (a->pending) {
        assert(a->have_route && "mem_tester_set_route was not called");
        a->pending->base.dst = mem_route_lookup(&a->route, a->pending->addr);
        if (port_send(&a->port, &a->pending->base) == MGS_OK) {
            a->pending = NULL;
            progress = true;
        } else {
            a->blocked = true;
        }
    }
    return progress;
}

static void agent_port_free(sim_comp *c, sim_port *p)
{
    (void)p;
    ((tester_agent *)c)->blocked = false;
    comp_wake(c);
}

static bool agent_busy(const sim_comp *c)
{
    const tester_agent *a = (const tester_agent *)c;
    return a->outstanding || a->issued < a->t->cfg.ops_per_agent;
}

static void agent_dump(const sim_comp *c, FILE *f)
{
    const tester_agent *a = (const tester_agent *)c;
    fprintf(f, "  issued %llu completed %llu outstanding %u%s\n",
            (unsigned long long)a->issued, (unsigned long long)a->completed,
            a->outstanding, a->blocked ? " (send blocked)" : "");
}

static const sim_comp_ops agent_ops = {
    .kind = "MemTester",
    .tick = agent_tick,
    .notify_port_free = agent_port_free,
    .busy = agent_busy,
    .dump = agent_dump,
};

mem_tester *mem_tester_new(sim_engine *eng, const char *name,
                           const mem_tester_config *cfg, mem_pool *pool,
                           stat_registry *stats)
{
    int rc = mem_tester_config_validate(cfg);
    assert(rc == MGS_OK && "mem_tester_new: validate the config first");
    (void)rc;
    mem_tester *t = MGS_NEW(mem_tester);
    t->cfg = *cfg;
    t->pool = pool;
    t->shadow = mgs_xmalloc(cfg->size);
    mem_tester_fill_initial(t->shadow, cfg->base, cfg->size);
    t->agents = MGS_NEW_ARRAY(tester_agent, cfg->agents);
    uint64_t slice = cfg->size / cfg->unit / cfg->agents * cfg->unit;
    for (uint32_t i = 0; i < cfg->agents; i++) {
        tester_agent *a = &t->agents[i];
        char *an = name_new(name, "Agent", i);
        comp_init(&a->base, eng, &agent_ops, an, cfg->period);
        port_init(&a->port, &a->base, "port", cfg->buffer);
        a->t = t;
        a->index = i;
        a->rng = cfg->seed * 0x100000001b3ull + i + 1;
        a->lo = cfg->base + i * slice;
        a->hi = a->lo + slice;
        a->slots = MGS_NEW_ARRAY(tester_slot, cfg->max_outstanding);
        stat_counter **s[4] = {&a->s_reads, &a->s_writes, &a->s_atomics,
                               &a->s_mismatches};
        static const char *const names[4] = {"reads", "writes", "atomics",
                                             "mismatches"};
        for (int k = 0; k < 4; k++)
            *s[k] = stats ? stat_counter_add(stats, an, names[k], "count")
                          : &a->own[k];
        free(an);
        comp_wake(&a->base); /* start issuing at the first edge */
    }
    return t;
}

void mem_tester_free(mem_tester *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->cfg.agents; i++) {
        tester_agent *a = &t->agents[i];
        /* Requests still out (an aborted run): ours to free unless they
        ** are still inside the hierarchy; free only the unsent one. */
        if (a->pending)
            mem_msg_release(t->pool, a->pending);
        port_fini(&a->port);
        comp_fini(&a->base);
        free(a->slots);
    }
    free(t->agents);
    free(t->shadow);
    free(t);
}

sim_port *mem_tester_port(mem_tester *t, uint32_t agent)
{
    return &t->agents[agent].port;
}

void mem_tester_set_route(mem_tester *t, uint32_t agent, const mem_route *r)
{
    t->agents[agent].route = *r;
    t->agents[agent].have_route = true;
}

void mem_tester_set_gpu(mem_tester *t, uint32_t agent, int32_t gpu)
{
    t->agents[agent].gpu = gpu;
}

void mem_tester_set_observer(mem_tester *t, mem_tester_observer fn, void *ud)
{
    t->observer = fn;
    t->observer_ud = ud;
}

bool mem_tester_done(const mem_tester *t)
{
    for (uint32_t i = 0; i < t->cfg.agents; i++)
        if (agent_busy(&t->agents[i].base))
            return false;
    return true;
}

const uint8_t *mem_tester_shadow(const mem_tester *t) { return t->shadow; }

uint64_t mem_tester_checked(const mem_tester *t) { return t->checked_bytes; }
uint64_t mem_tester_mismatches(const mem_tester *t) { return t->mismatches; }

const mem_tester_mismatch *mem_tester_mismatch_get(const mem_tester *t,
                                                   uint32_t i)
{
    uint64_t n = t->mismatches < MEM_TESTER_MAX_RECORDED
                     ? t->mismatches : MEM_TESTER_MAX_RECORDED;
    return i < n ? &t->recorded[i] : NULL;
}

void mem_tester_report(const mem_tester *t, FILE *f)
{
    const mem_tester_mismatch *m;
    for (uint32_t i = 0; (m = mem_tester_mismatch_get(t, i)); i++)
        fprintf(f, "tester: agent %u %s of %u bytes at 0x%llx: byte 0x%llx "
                "expected 0x%0*llx got 0x%0*llx\n", m->agent,
                m->type == MEM_ATOMIC ? "atomic" : "read", m->access_size,
                (unsigned long long)m->access_addr,
                (unsigned long long)m->addr, (int)m->nbytes * 2,
                (unsigned long long)m->expected, (int)m->nbytes * 2,
                (unsigned long long)m->got);
    fprintf(f, "tester: %llu mismatches, %llu bytes checked\n",
            (unsigned long long)t->mismatches,
            (unsigned long long)t->checked_bytes);
}
