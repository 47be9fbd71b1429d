/*
** carve-swc's acquire fence (docs/coherence.md, "CARVE", assumed): a
** wave's buffer_wbinvl1[_vol] invalidates its L1V (fence_l1), and then
** drops the GPU's *remote* lines from every L2 bank and bumps every RDC
** slice's epoch, before the fence is answered. That is the system-scope
** acquire of later AMD GPUs that cache other agents' memory in the L2
** (GFX90A's buffer_invl2 drops the L2's non-local lines), applied to the
** caches CARVE adds; the release side needs nothing more because remote
** lines are written through the L2 and the RDC and the release waits for
** its stores (s_waitcnt vmcnt(0)).
**
** How: once the L1V finished the fence's invalidation (cache hook
** hold_ctrl), the L1V sends one MEM_INVALIDATE per (L2 bank, remote range)
** below, on its own path to the banks, and holds the fence's answer until
** every bank answered. A range is the memory of the GPUs before this one,
** or after it (at most two); each message's address is the first
** interleaving unit of its bank in the range (the L1V's route picks the
** bank by address) and its span runs to the range's end. The bank drops
** the clean lines of the span (remote lines are never dirty: written
** through) after draining its misses, and its CARVE hook bumps the
** slice's epoch on the first range (carve.c, CARVE_FENCE_MARK).
**
** Flow control: the L1V drains every transaction before it finishes an
** invalidation, so rounds never overlap (the next fence's drain waits for
** this round's answers) and the round starts with every transaction slot
** free; while messages of the round wait to be sent the L1V admits no
** other request, so each answer frees a slot for the next message.
*/
#include <assert.h>
#include <stdlib.h>

#include "coh/carve/carve_int.h"
#include "util/xmalloc.h"

struct carve_fence {
    carve *cv;
    uint32_t gpu;
    uint32_t nranges;
    uint64_t lo[2], hi[2];    /* the remote ranges */
    uint32_t sent, total;     /* messages of the round */
    uint32_t outstanding;     /* sent, not answered */
    uint64_t held;            /* the fence's address (its held answer) */
    bool active;
    carve_fence *next;
};

/* The first address of bank b at or after lo (lo is unit-aligned). */
static uint64_t first_in_bank(const coh_system *s, uint64_t lo, uint32_t b)
{
    uint64_t unit = lo / s->l2_interleave;
    uint32_t at = (uint32_t)(unit % s->l2_banks);
    return (unit + (b + s->l2_banks - at) % s->l2_banks) * s->l2_interleave;
}

static void pump(carve_fence *f, cache *c)
{
    const coh_system *s = &f->cv->sys;
    while (f->sent < f->total && cache_room_below(c) > 0) {
        uint32_t r = f->sent / s->l2_banks, b = f->sent % s->l2_banks;
        uint64_t addr = first_in_bank(s, f->lo[r], b);
        f->sent++;
        if (addr >= f->hi[r])
            continue;             /* the bank has no line in the range */
        mem_msg *m = mem_msg_alloc(f->cv->pool, MEM_INVALIDATE);
        m->addr = addr;
        m->span = f->hi[r] - addr;
        m->flags = MEM_F_PHYS;
        m->gpu = (int32_t)f->gpu;
        m->coh[0] = CARVE_FENCE_MARK;
        m->coh[1] = r;
        m->issue_time = eng_now(f->cv->eng);
        m->base.bytes = 8;        /* a header (as every memory message) */
        bool ok = cache_send_below(c, m, true);
        assert(ok);
        (void)ok;
        f->outstanding++;
    }
    if (f->active && f->sent == f->total && !f->outstanding) {
        f->active = false;
        cache_release_held(c, f->held);
    }
}

static bool fence_hold(void *pd, cache *c, const mem_msg *req, bool from_top)
{
    carve_fence *f = pd;
    if (!from_top || req->base.type != MEM_INVALIDATE)
        return false;             /* the CP's launch invalidation */
    assert(!f->active && "the L1V drains before a fence finishes");
    f->active = true;
    f->held = req->addr;
    f->sent = f->outstanding = 0;
    f->total = f->nranges * f->cv->sys.l2_banks;
    pump(f, c);
    return f->active;
}

static void fence_ack(void *pd, cache *c, uint64_t line, uint64_t *meta,
                      const mem_msg *ack, mem_msg *up)
{
    (void)line, (void)meta, (void)up;
    carve_fence *f = pd;
    if (ack->base.type != MEM_CTRL_RSP || ack->req->coh[0] != CARVE_FENCE_MARK)
        return;
    assert(f->outstanding > 0);
    f->outstanding--;
    pump(f, c);
}

/* While the round's messages wait for slots, nothing else takes one. */
static bool fence_admit(void *pd, cache *c, const mem_msg *req, bool home)
{
    (void)c, (void)req, (void)home;
    const carve_fence *f = pd;
    return !f->active || f->sent == f->total;
}

static const cache_protocol fence_hooks = {
    .name = "carve-swc-fence",
    .hold_ctrl = fence_hold,
    .on_ack = fence_ack,
    .admit = fence_admit,
};

void carve_fence_attach(carve *cv, cache *l1, uint32_t gpu)
{
    carve_fence *f = MGS_NEW(carve_fence);
    const coh_system *s = &cv->sys;
    f->cv = cv;
    f->gpu = gpu;
    if (gpu > 0) {
        f->lo[f->nranges] = 0;
        f->hi[f->nranges++] = (uint64_t)gpu * s->mem_per_gpu;
    }
    if (gpu + 1 < s->ngpus) {
        f->lo[f->nranges] = (uint64_t)(gpu + 1) * s->mem_per_gpu;
        f->hi[f->nranges++] = (uint64_t)s->ngpus * s->mem_per_gpu;
    }
    f->next = cv->fences;
    cv->fences = f;
    cache_set_protocol(l1, &fence_hooks, f);
}

void carve_fence_free_all(carve *cv)
{
    for (carve_fence *f = cv->fences, *n; f; f = n) {
        n = f->next;
        free(f);
    }
    cv->fences = NULL;
}
