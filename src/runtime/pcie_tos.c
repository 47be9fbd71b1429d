/*
** The driver's PCIe scheduler (see pcie_tos.h).
*/
#include "runtime/pcie_tos.h"

#include <string.h>

#include "platform/platform.h"

void pcie_tos_init(pcie_tos *s, int policy, uint32_t nvc, uint32_t ntasks,
                   uint64_t bandwidth)
{
    memset(s, 0, sizeof *s);
    s->policy = policy;
    s->nvc = nvc < 1 ? 1 : nvc > 8 ? 8 : nvc;
    s->ntasks = ntasks > TOS_MAX_TASKS ? TOS_MAX_TASKS : ntasks;
    s->bandwidth = bandwidth ? bandwidth : 1;
    noc_pcie_vcmap_default(&s->map, s->nvc);
}

bool pcie_tos_active(const pcie_tos *s)
{
    return s->policy != PLATFORM_PCIE_RR;
}

/* Does task a rank above task b (both active)? */
static bool above(const pcie_tos *s, uint32_t a, uint32_t b)
{
    if (s->promoted[a] != s->promoted[b])
        return s->promoted[a];
    if (s->remaining[a] != s->remaining[b])
        return s->policy == PLATFORM_PCIE_PRIORITY_L
                   ? s->remaining[a] > s->remaining[b]
                   : s->remaining[a] < s->remaining[b];
    return a < b;
}

static void rerank(pcie_tos *s)
{
    if (!pcie_tos_active(s))
        return;
    uint32_t half = s->nvc / 2;
    noc_pcie_vcmap m = s->map;
    for (uint32_t t = 0; t < s->ntasks; t++) {
        uint32_t rsp = half, req = 0;
        if (s->remaining[t]) {
            uint32_t r = 0;
            for (uint32_t u = 0; u < s->ntasks; u++)
                r += u != t && s->remaining[u] && above(s, u, t);
            rsp = s->nvc - 1 < half + r ? half : s->nvc - 1 - r;
            req = half < 1 + r ? 0 : half - 1 - r;
        }
        if (s->nvc == 1)
            rsp = req = 0;
        if (2 * t + 1 < NOC_PCIE_MAX_TC) {
            m.vc[2 * t] = (uint8_t)req;
            m.vc[2 * t + 1] = (uint8_t)rsp;
        }
    }
    if (memcmp(&m, &s->map, sizeof m)) {
        s->map = m;
        s->dirty = true;
        s->remaps++;
    }
}

/* QoOS: promotes task t if now + B_R / BW misses its deadline. */
static bool qos_check(pcie_tos *s, uint32_t t, mgs_time now)
{
    if (s->policy != PLATFORM_PCIE_QOS || !s->deadline[t] ||
        s->promoted[t] || !s->remaining[t])
        return false;
    mgs_time trans = (mgs_time)((double)s->remaining[t] * 1e12 /
                                (double)s->bandwidth);
    if (now + trans <= s->deadline[t])
        return false;
    s->promoted[t] = true;
    s->promotions++;
    return true;
}

void pcie_tos_add(pcie_tos *s, uint32_t t, uint64_t bytes, mgs_time deadline,
                  mgs_time now)
{
    if (t >= s->ntasks)
        return;
    s->remaining[t] += bytes;
    s->deadline[t] = deadline;
    qos_check(s, t, now);
    rerank(s);
}

void pcie_tos_done(pcie_tos *s, uint32_t t, uint64_t bytes, mgs_time now)
{
    if (t >= s->ntasks)
        return;
    s->remaining[t] = bytes < s->remaining[t] ? s->remaining[t] - bytes : 0;
    if (!s->remaining[t]) {
        s->promoted[t] = false;
        s->deadline[t] = 0;
        rerank(s);
    } else if (qos_check(s, t, now)) {
        rerank(s);
    }
}

bool pcie_tos_take_map(pcie_tos *s, noc_pcie_vcmap *out)
{
    if (!s->dirty)
        return false;
    *out = s->map;
    s->dirty = false;
    return true;
}
