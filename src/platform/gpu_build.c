/*
** GPU builder (gpu_build.h): creates the components of one GPU, plugs
** their ports into connections and sets the routes. Every parameter comes
** from gpu_build_config; docs/timing.md lists them with their sources.
*/
#include "platform/gpu_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

/* Per shader array: the scalar and instruction paths it shares. */
typedef struct gpu_sa {
    sim_conn *net;
    xlat *xs, *xi;           /* translators with their L1 TLBs */
    cache *l1s, *l1i;
} gpu_sa;

/* Per CU: the CU and its vector path. */
typedef struct gpu_cu {
    cu *cu;
    xlat *xv;
    cache *l1v;
} gpu_cu;

struct gpu_build {
    gpu_build_config cfg;
    sim_engine *eng;
    cp *cp;
    gpu_cu *cus;
    gpu_sa *sas;
    uint32_t nsas;
    cache **l2;
    dram **dram;
    tlb **l2tlb;
    mmu *mmu;
    rdma_engine *rdma;        /* NULL without cfg.with_rdma */
    sim_port **l2_tops;       /* route candidates (borrowed by routes) */
    sim_port **l2_below;      /* per bank: its DRAM channel or agent */
    sim_port **l2_homes;      /* per bank: its home port (remote data in L2) */
    mem_route l1_route;       /* what every L1 bottom uses */
    sim_port **l2tlb_tops;
    sim_conn *driver_link, *dispatch_net, *ctrl_net, *xbar, *mem_net,
        *tlb_net;
    gpu_ctrl_ports ctrls[GPU_CTRL_KINDS]; /* what the CP maintains */
    uint32_t *l1_sa;          /* shader array of each L1 (ctrls order) */
};

/* Registers a ctrl port with the CP and in g's list of kind k. */
static void ctrl_add(gpu_build *g, gpu_ctrl_kind k, sim_port *port)
{
    gpu_ctrl_ports *l = &g->ctrls[k];
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = mgs_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = port;
    if (k == GPU_CTRL_L1)
        cp_add_l1(g->cp, port);
    else if (k == GPU_CTRL_TLB)
        cp_add_tlb(g->cp, port);
    else
        cp_add_l2(g->cp, port);
}

void gpu_build_config_default(gpu_build_config *c)
{
    memset(c, 0, sizeof *c);
    c->gpu = 0;
    c->period = 1000;               /* Table 5.1: 1 GHz */
    c->num_cus = 64;                /* Table 5.1 */
    c->cus_per_sa = 4;              /* Table 5.1: 16 L1I/L1S per 64 CUs */
    c->l2_banks = 8;                /* Table 5.1 */
    c->l2_tlbs = 8;                 /* Table 5.1 */
    c->l2_interleave = 4096;        /* MGPUSim 2020: 4 KB bank interleave */
    c->xbar_latency_cycles = 1;     /* Table 5.1 single-stage XBar */
    c->xbar_messages_per_cycle = 1; /* one message per port per cycle */
    c->mem_bytes = 4ull << 30;      /* Table 5.1: 8 x 512 MB */
    c->phys_base = 0;
    cp_config_default(&c->cp);
    cu_config_default(&c->cu);

    cache_config_default(&c->l1v);  /* 16 KB 4-way 64 B (Table 5.1) */
    c->l1v.hit_latency = 20;        /* MGPUSim main: L1V bank latency 20 */
    c->l1v.mshr_entries = 16;       /* MGPUSim 2020: 16 MSHRs */
    c->l1v.write_policy = CACHE_WRITE_AROUND; /* MGPUSim L1V: write-around */

    cache_config_default(&c->l1s);
    c->l1s.size = 16 * 1024;        /* Table 5.1: 16 KB 4-way */
    c->l1s.hit_latency = 1;         /* MGPUSim: bank latency 1 */
    c->l1s.write_policy = CACHE_WRITE_THROUGH;
    cache_config_default(&c->l1i);
    c->l1i.size = 32 * 1024;        /* Table 5.1: 32 KB 4-way */
    c->l1i.hit_latency = 1;         /* MGPUSim: bank latency 1 */
    c->l1i.write_policy = CACHE_WRITE_THROUGH;

    cache_config_default(&c->l2);
    c->l2.size = 256 * 1024;        /* Table 5.1: 256 KB 16-way */
    c->l2.ways = 16;
    c->l2.hit_latency = 10;         /* Akita write-back default bank latency */
    c->l2.mshr_entries = 64;        /* MGPUSim: 64 MSHRs per bank */
    c->l2.max_inflight_below = 64;
    c->l2.top_buffer = 16;          /* assumed */
    c->l2.requests_per_cycle = 1;   /* assumed: one 64 B access per cycle */
    c->l2.write_policy = CACHE_WRITE_BACK; /* seed 002 §5.2.3 */
    c->l2.glc_bypass = false;
    c->l2.atomics_here = true;      /* GCN: atomics performed at L2 */

    tlb_config_default(&c->l1_tlb); /* Table 5.1: 1 set, 32-way */
    tlb_config_default(&c->l2_tlb);
    c->l2_tlb.sets = 32;            /* Table 5.1: 32 sets, 32-way */
    c->l2_tlb.ways = 32;
    c->l2_tlb.mshr_entries = 64;    /* MGPUSim: 64 MSHRs */
    c->l2_tlb.top_buffer = 16;
    xlat_config_default(&c->xlat);
    mmu_config_default(&c->mmu);
    dram_config_default(&c->dram);

    conn_config_default(&c->sa_net);   /* 1 cycle, 64 B/cycle */
    c->sa_net.lane_capacity = 8;
    c->xbar = c->sa_net;               /* single-stage crossbar, 1 cycle */
    c->mem_net = c->sa_net;
    c->tlb_net = c->sa_net;
    c->ctrl_net = c->sa_net;
    c->with_rdma = false;
    rdma_config_default(&c->rdma);
    c->external_memory = false;
    c->external_mmu = false;
}

void gpu_build_config_from(gpu_build_config *c, const mgs_config *k)
{
    c->period = mgs_period_from_hz(k->gpu_freq);
    c->num_cus = (uint32_t)k->gpu_num_cus;
    c->cus_per_sa = (uint32_t)k->gpu_cus_per_sa;
    c->cu.num_simds = (uint32_t)k->gpu_simds_per_cu;
    c->cu.wf_slots_per_simd = (uint32_t)k->gpu_wf_slots_per_simd;
    c->cu.issue_mgpusim = strcmp(k->gpu_issue_model, "mgpusim") == 0;
    uint32_t line = (uint32_t)k->gpu_cache_line;
    c->l1v.line = c->l1s.line = c->l1i.line = c->l2.line = line;
    /* A request never crosses a line of the cache it goes to (the cache
    ** asserts it): instruction fetches and coalesced vector/scalar requests
    ** are 64 B, or one line when lines are smaller. */
    if (c->cu.fetch_line > line)
        c->cu.fetch_line = line;
    if (c->cu.vmem_line > line)
        c->cu.vmem_line = line;
    c->l1v.size = k->gpu_l1v_size;
    c->l1v.ways = (uint32_t)k->gpu_l1v_ways;
    c->l1s.size = k->gpu_l1s_size;
    c->l1s.ways = (uint32_t)k->gpu_l1s_ways;
    c->l1i.size = k->gpu_l1i_size;
    c->l1i.ways = (uint32_t)k->gpu_l1i_ways;
    c->l2_banks = (uint32_t)k->gpu_l2_banks;
    c->l2.size = k->gpu_l2_size;
    c->l2.ways = (uint32_t)k->gpu_l2_ways;
    c->l1_tlb.sets = 1;
    c->l1_tlb.ways = (uint32_t)k->gpu_l1_tlb_ways;
    c->l2_tlb.sets = (uint32_t)k->gpu_l2_tlb_sets;
    c->l2_tlb.ways = (uint32_t)k->gpu_l2_tlb_ways;
    uint32_t page = (uint32_t)k->gpu_page_size;
    c->l1_tlb.page_bytes = c->l2_tlb.page_bytes = page;
    c->mmu.page_bytes = page;
    c->mem_bytes = k->platform_mem_per_gpu;
    c->l1v.hit_latency = (uint32_t)k->l1v_latency;
    c->l1v.mshr_entries = (uint32_t)k->l1v_mshrs;
    c->l1s.hit_latency = (uint32_t)k->l1s_latency;
    c->l1i.hit_latency = (uint32_t)k->l1i_latency;
    c->l2.hit_latency = (uint32_t)k->l2_latency;
    c->l2.mshr_entries = (uint32_t)k->l2_mshrs;
    c->l2.max_inflight_below = (uint32_t)k->l2_mshrs;
    c->l2.requests_per_cycle = (uint32_t)k->l2_requests_per_cycle;
    c->l2.mshr_targets = (uint32_t)k->l2_mshr_targets;
    c->l2_interleave = k->l2_interleave;
    c->l2.write_policy = strcmp(k->l2_write_policy, "writethrough")
                             ? CACHE_WRITE_BACK : CACHE_WRITE_THROUGH;
    c->l2.remote_write_policy = strcmp(k->l2_remote_write_policy,
                                       "writethrough")
                                    ? CACHE_WRITE_BACK : CACHE_WRITE_THROUGH;
    c->l1_tlb.hit_latency = (uint32_t)k->tlb_l1_latency;
    c->l2_tlb.hit_latency = (uint32_t)k->tlb_l2_latency;
    c->l2_tlbs = (uint32_t)k->tlb_l2_count;
    c->mmu.walk_latency = (uint32_t)k->tlb_walk_latency;
    c->mmu.max_walks = (uint32_t)k->tlb_max_walks;
    c->dram.period = mgs_period_from_hz(k->dram_freq);
    c->dram.bytes_per_cycle = (uint32_t)k->dram_bus_bytes;
    c->dram.tCL = (uint32_t)k->dram_tcl;
    c->dram.tRCD = (uint32_t)k->dram_trcd;
    c->dram.tRP = (uint32_t)k->dram_trp;
    c->dram.tRAS = (uint32_t)k->dram_tras;
    c->dram.ctrl_latency = (uint32_t)k->dram_ctrl_latency;
    c->dram.banks = (uint32_t)k->dram_banks;
    c->xbar_latency_cycles = (uint32_t)k->xbar_latency;
    c->xbar.bytes_per_cycle = (uint32_t)k->xbar_bytes_per_cycle;
    c->xbar_messages_per_cycle = (uint32_t)k->xbar_messages_per_cycle;
    c->cp.wgs_per_cycle = (uint32_t)k->cp_wgs_per_cycle;
    c->cp.dispatch_latency = (uint32_t)k->cp_dispatch_latency;
    c->cp.launch_tlb_changed = strcmp(k->cp_launch_tlb_shootdown, "changed") == 0;
    c->cp.launch_code_every = strcmp(k->cp_launch_code, "every") == 0;
    c->cp.launch_keep = strcmp(k->cp_launch_buffers, "keep") == 0;
}

static void set_periods(gpu_build_config *c)
{
    mgs_time p = c->period;
    c->cp.period = c->cu.period = p;
    c->l1v.period = c->l1s.period = c->l1i.period = c->l2.period = p;
    c->l1_tlb.period = c->l2_tlb.period = c->xlat.period = p;
    c->mmu.period = p;
    c->sa_net.period = c->xbar.period = c->mem_net.period = p;
    c->tlb_net.period = c->ctrl_net.period = p;
    c->sa_net.latency = c->mem_net.latency = p;
    /* The lane clock: messages_per_cycle starts per GPU cycle. */
    c->xbar.period = p / (mgs_time)c->xbar_messages_per_cycle;
    c->xbar.latency = (mgs_time)c->xbar_latency_cycles * p;
    c->tlb_net.latency = c->ctrl_net.latency = p;
    c->cu.gpu = c->gpu;
    c->dram.channels = c->l2_banks;
    c->dram.interleave = c->l2_interleave;
    c->dram.base = c->phys_base;
    c->rdma.gpu = (uint32_t)c->gpu;
    c->rdma.period = p;
    c->rdma.line = c->l2.line;
}

/* A component refused a value: the message names the user's keys first
** ("gpu.l2_size, gpu.l2_ways, ...: cache ..."); keeps rc's exit class
** as a configuration error. */
static int keyed(int rc, const char *keys)
{
    char msg[512];
    snprintf(msg, sizeof msg, "%s", mgs_error_msg());
    (void)rc;
    return mgs_error_set(MGS_ECONFIG, "%s: %s", keys, msg);
}

int gpu_build_config_validate(const gpu_build_config *c0)
{
    gpu_build_config c = *c0;
    set_periods(&c);
    if (!c.num_cus || !c.cus_per_sa || c.num_cus % c.cus_per_sa)
        return mgs_error_set(MGS_ECONFIG, "gpu.num_cus (%u) must be a "
                             "multiple of gpu.cus_per_sa (%u)", c.num_cus,
                             c.cus_per_sa);
    if (!c.l2_banks || !c.l2_tlbs)
        return mgs_error_set(MGS_ECONFIG, "gpu.l2_banks must be >= 1");
    if (!mem_page_size_ok(c.l1_tlb.page_bytes) ||
        c.l2_tlb.page_bytes != c.l1_tlb.page_bytes ||
        c.mmu.page_bytes != c.l1_tlb.page_bytes)
        return mgs_error_set(MGS_ECONFIG, "gpu.page_size = %u bytes: must be "
                             "4KB, 64KB or 2MB", c.l1_tlb.page_bytes);
    if (!c.l2_interleave || (c.l2_interleave & (c.l2_interleave - 1)) ||
        c.l2_interleave < c.l2.line)
        return mgs_error_set(MGS_ECONFIG, "L2 interleave (%llu) must be a "
                             "power of two >= the cache line",
                             (unsigned long long)c.l2_interleave);
    if (c.mem_bytes / c.l2_banks < c.l2_interleave)
        return mgs_error_set(MGS_ECONFIG, "platform.mem_per_gpu (%llu) is "
                             "too small for gpu.l2_banks = %u DRAM channels "
                             "of l2.interleave = %llu bytes",
                             (unsigned long long)c.mem_bytes, c.l2_banks,
                             (unsigned long long)c.l2_interleave);
    if (c.l2.line < 16 || c.l2.line > MEM_LINE_MAX ||
        (c.l2.line & (c.l2.line - 1)))
        return mgs_error_set(MGS_ECONFIG, "gpu.cache_line = %u: must be a "
                             "power of 2 in 16B..%uB", c.l2.line,
                             MEM_LINE_MAX);
    int rc;
    if ((rc = cp_config_validate(&c.cp)) || (rc = cu_config_validate(&c.cu)))
        return keyed(rc, "gpu.simds_per_cu, gpu.wf_slots_per_simd, cp.*");
    /* The user's keys behind each component, so that a value the
    ** component refuses is reported by the names the user set. */
    static const char *const cache_keys[4][2] = {
        {"gpu.l1v_size", "gpu.l1v_ways"}, {"gpu.l1s_size", "gpu.l1s_ways"},
        {"gpu.l1i_size", "gpu.l1i_ways"}, {"gpu.l2_size", "gpu.l2_ways"}};
    const cache_config *caches[] = {&c.l1v, &c.l1s, &c.l1i, &c.l2};
    for (size_t i = 0; i < 4; i++) {
        const cache_config *cc = caches[i];
        uint64_t blocks = cc->size / cc->line;
        if (cc->ways && cc->ways <= blocks &&
            (blocks % cc->ways ||
             (blocks / cc->ways & (blocks / cc->ways - 1)) != 0))
            return mgs_error_set(MGS_ECONFIG, "%s = %u with %s = %llu and "
                                 "gpu.cache_line = %u: the number of sets "
                                 "(%llu lines / %u ways) must be a whole "
                                 "power of 2", cache_keys[i][1], cc->ways,
                                 cache_keys[i][0],
                                 (unsigned long long)cc->size, cc->line,
                                 (unsigned long long)blocks, cc->ways);
        if (cc->ways > blocks)
            return mgs_error_set(MGS_ECONFIG, "%s = %u exceeds the %llu "
                                 "lines of %s = %llu (gpu.cache_line = %u)",
                                 cache_keys[i][1], cc->ways,
                                 (unsigned long long)blocks, cache_keys[i][0],
                                 (unsigned long long)cc->size, cc->line);
        if ((rc = cache_config_validate(cc))) {
            char keys[128];
            snprintf(keys, sizeof keys, "%s, %s, gpu.cache_line%s",
                     cache_keys[i][0], cache_keys[i][1],
                     i == 3 ? ", l2.mshrs" : "");
            return keyed(rc, keys);
        }
    }
    if ((rc = tlb_config_validate(&c.l1_tlb)))
        return keyed(rc, "gpu.l1_tlb_ways, gpu.page_size");
    if ((rc = tlb_config_validate(&c.l2_tlb)))
        return keyed(rc, "gpu.l2_tlb_sets, gpu.l2_tlb_ways, gpu.page_size");
    if ((rc = xlat_config_validate(&c.xlat)) ||
        (rc = mmu_config_validate(&c.mmu)))
        return keyed(rc, "tlb.*, gpu.page_size");
    if ((rc = dram_config_validate(&c.dram)))
        return keyed(rc, "dram.*, gpu.l2_banks, l2.interleave");
    if (c.with_rdma && (rc = rdma_config_validate(&c.rdma)))
        return keyed(rc, "gpu.cache_line");
    if (c.xbar.period < 1)
        return mgs_error_set(MGS_ECONFIG, "xbar.messages_per_cycle = %u: "
                             "more than the GPU clock period in ps (%llu)",
                             c.xbar_messages_per_cycle,
                             (unsigned long long)c.period);
    const sim_conn_config *conns[] = {&c.sa_net, &c.xbar, &c.mem_net,
                                      &c.tlb_net, &c.ctrl_net};
    for (size_t i = 0; i < 5; i++)
        if ((rc = conn_config_validate(conns[i])))
            return rc;
    return MGS_OK;
}

/* Lets the protocol install its hooks on a cache it asked for. */
static void coh_attach(const gpu_build_config *c, cache *l, coh_level lvl)
{
    if (c->coh && c->coh->proto->attach_cache)
        c->coh->proto->attach_cache(c->coh->pd, l, lvl, (uint32_t)c->gpu);
}

/* Whether remote data is cached in this GPU's L2 (coh.h). */
static bool remote_in_l2(const gpu_build_config *c)
{
    return c->with_rdma && c->coh &&
           c->coh->sys.remote_cache == COH_REMOTE_L2;
}

/* snprintf into a static-size name buffer. */
#define NAME(buf, ...) snprintf(buf, sizeof buf, __VA_ARGS__)

/* What build_l1_path needs to wire one L1 inside a shader array. */
typedef struct l1_path {
    gpu_build *g;
    sim_conn *net;            /* the shader array's connection */
    mem_pool *pool;
    stat_registry *st;
    const mem_route *to_l2, *to_l2tlb;
    uint32_t sa;              /* s */
    char prefix[64];          /* "GPU[g].SA[s]" */
} l1_path;

/* One L1 of any kind with its address translator X<what> (which holds the
** L1 TLB): translator top/bottom and cache top on the SA connection (the
** cache answers the requester directly); translator tlb port on TLBNet to
** the L2 TLBs; cache bottom on the crossbar; both ctrl ports on CtrlNet and
** registered with the CP. */
static void build_l1_path(const l1_path *p, const char *what,
                          const cache_config *ccfg, coh_level lvl, xlat **xo,
                          cache **lo)
{
    gpu_build *g = p->g;
    const gpu_build_config *c = &g->cfg;
    char n[128];
    NAME(n, "%s.X%s", p->prefix, what);
    xlat *x = xlat_new(g->eng, n, &c->xlat, &c->l1_tlb, p->pool, p->st);
    NAME(n, "%s.%s", p->prefix, what);
    cache *l = cache_new(g->eng, n, ccfg, p->pool, p->st);
    coh_attach(c, l, lvl);
    conn_plug(p->net, xlat_top(x));
    conn_plug(p->net, xlat_bottom(x));
    conn_plug(g->tlb_net, xlat_tlb(x));
    conn_plug(p->net, cache_top(l));
    conn_plug(g->xbar, cache_bottom(l));
    conn_plug(g->ctrl_net, cache_ctrl(l));
    conn_plug(g->ctrl_net, xlat_ctrl(x));
    ctrl_add(g, GPU_CTRL_L1, cache_ctrl(l));
    ctrl_add(g, GPU_CTRL_TLB, xlat_ctrl(x));
    gpu_ctrl_ports *tops = &g->ctrls[GPU_CTRL_L1_TOP];
    if (tops->n == tops->cap) {
        tops->cap = tops->cap ? 2 * tops->cap : 16;
        tops->v = mgs_xrealloc(tops->v, tops->cap * sizeof *tops->v);
        g->l1_sa = mgs_xrealloc(g->l1_sa, tops->cap * sizeof *g->l1_sa);
    }
    g->l1_sa[tops->n] = p->sa;
    tops->v[tops->n++] = cache_top(l);
    mem_route r;
    mem_route_single(&r, cache_top(l));
    xlat_set_route(x, &r);
    xlat_set_tlb_route(x, p->to_l2tlb);
    cache_set_route(l, p->to_l2);
    *xo = x;
    *lo = l;
}

uint32_t gpu_build_wave_slots_per_cu(const gpu_build_config *c)
{
    return c->cu.num_simds * c->cu.wf_slots_per_simd;
}

gpu_build *gpu_build_new(sim_engine *eng, const gpu_build_config *cfg0,
                         mem_pool *pool, stat_registry *st,
                         const mem_backing *backing, const mem_pagetable *pt)
{
    gpu_build *g = MGS_NEW(gpu_build);
    g->cfg = *cfg0;
    set_periods(&g->cfg);
    const gpu_build_config *c = &g->cfg;
    g->eng = eng;
    int gi = c->gpu;
    char n[128];

    NAME(n, "GPU[%d].DriverLink", gi);
    sim_conn_config dl = c->ctrl_net;
    if (c->driver_latency > dl.latency)
        dl.latency = c->driver_latency;
    g->driver_link = conn_new(eng, n, &dl, st);
    NAME(n, "GPU[%d].DispatchNet", gi);
    g->dispatch_net = conn_new(eng, n, &c->ctrl_net, st);
    NAME(n, "GPU[%d].CtrlNet", gi);
    g->ctrl_net = conn_new(eng, n, &c->ctrl_net, st);
    NAME(n, "GPU[%d].XBar", gi);
    g->xbar = conn_new(eng, n, &c->xbar, st);
    NAME(n, "GPU[%d].MemNet", gi);
    g->mem_net = conn_new(eng, n, &c->mem_net, st);
    NAME(n, "GPU[%d].TLBNet", gi);
    g->tlb_net = conn_new(eng, n, &c->tlb_net, st);

    NAME(n, "GPU[%d].CP", gi);
    g->cp = cp_new(eng, n, &c->cp, c->num_cus, &c->cu, pool, st);
    conn_plug(g->driver_link, cp_driver(g->cp));
    conn_plug(g->dispatch_net, cp_cu(g->cp));
    conn_plug(g->ctrl_net, cp_ctrl(g->cp));

    /* Memory side first: L2 banks, DRAM channels, L2 TLBs, MMU. */
    g->l2 = mgs_xcalloc(c->l2_banks, sizeof *g->l2);
    g->dram = mgs_xcalloc(c->l2_banks, sizeof *g->dram);
    g->l2_tops = mgs_xcalloc(c->l2_banks, sizeof *g->l2_tops);
    g->l2_below = mgs_xcalloc(c->l2_banks, sizeof *g->l2_below);
    cache_config l2c = c->l2;
    /* Each bank indexes its sets without the bank-select bits. */
    l2c.banks = c->l2_banks;
    l2c.bank_interleave = c->l2_interleave;
    /* Several L2s over one memory (shared with several GPUs): no L2 owns
    ** a line, so atomics are performed at memory, whatever the protocol;
    ** a protocol may also ask for it (atomics_below). */
    if (c->external_memory || (c->coh && c->coh->proto->atomics_below))
        l2c.atomics_here = false;
    rdma_config rc = c->rdma;
    if (remote_in_l2(c)) {
        /* Remote lines: their own write policy, their atomics at the home,
        ** and at most half the transactions below, so local misses (and
        ** the home requests of other GPUs) always find some (assumed:
        ** half; cache.h remote_max_inflight). The RDMA engine's inside
        ** buffer holds every remote request all banks can have out, so a
        ** bank's bottom lane never waits on it. */
        l2c.local_base = c->phys_base;
        l2c.local_limit = c->phys_base + c->mem_bytes;
        l2c.remote_max_inflight = l2c.max_inflight_below / 2;
        uint32_t all = c->l2_banks * l2c.remote_max_inflight + 16;
        if (rc.inside_buffer < all)
            rc.inside_buffer = all;
    }
    for (uint32_t b = 0; b < c->l2_banks; b++) {
        NAME(n, "GPU[%d].L2[%u]", gi, b);
        g->l2[b] = cache_new(eng, n, &l2c, pool, st);
        coh_attach(c, g->l2[b], COH_L2);
        g->l2_tops[b] = cache_top(g->l2[b]);
        conn_plug(g->xbar, cache_top(g->l2[b]));
        conn_plug(g->ctrl_net, cache_ctrl(g->l2[b]));
        ctrl_add(g, GPU_CTRL_L2, cache_ctrl(g->l2[b]));
        if (c->external_memory)
            continue;         /* the platform wires the bottom */
        char l2name[64];
        NAME(l2name, "GPU[%d].L2[%u]", gi, b);
        NAME(n, "GPU[%d].DRAM[%u]", gi, b);
        g->dram[b] = dram_new(eng, n, &c->dram, pool, st, backing);
        conn_plug(g->mem_net, cache_bottom(g->l2[b]));
        conn_plug(g->mem_net, dram_top(g->dram[b]));
        /* The insertion point: a protocol's agent between the bank and its
        ** channel (docs/coherence.md). */
        g->l2_below[b] = dram_top(g->dram[b]);
        if (c->coh && c->coh->proto->memory_agent) {
            coh_site site = {.eng = eng, .pool = pool, .stats = st,
                             .net = g->mem_net, .memory = g->l2_below[b],
                             .gpu = (uint32_t)gi, .bank = b,
                             .name = l2name, .period = c->l2.period,
                             .l2 = g->l2[b]};
            sim_port *agent = c->coh->proto->memory_agent(c->coh->pd, &site);
            if (agent)
                g->l2_below[b] = agent;
        }
        mem_route r;
        mem_route_single(&r, g->l2_below[b]);
        cache_set_route(g->l2[b], &r);
    }
    mem_route to_mmu = {0};
    if (!c->external_mmu) {
        NAME(n, "GPU[%d].MMU", gi);
        g->mmu = mmu_new(eng, n, &c->mmu, pool, st, pt);
        conn_plug(g->tlb_net, mmu_top(g->mmu));
        mem_route_single(&to_mmu, mmu_top(g->mmu));
    }
    g->l2tlb = mgs_xcalloc(c->l2_tlbs, sizeof *g->l2tlb);
    g->l2tlb_tops = mgs_xcalloc(c->l2_tlbs, sizeof *g->l2tlb_tops);
    /* The slices take pages interleaved by page number (to_l2tlb below). */
    tlb_config l2_tlb = c->l2_tlb;
    l2_tlb.slices = c->l2_tlbs;
    for (uint32_t t = 0; t < c->l2_tlbs; t++) {
        NAME(n, "GPU[%d].L2TLB[%u]", gi, t);
        g->l2tlb[t] = tlb_new(eng, n, &l2_tlb, pool, st);
        g->l2tlb_tops[t] = tlb_top(g->l2tlb[t]);
        conn_plug(g->tlb_net, tlb_top(g->l2tlb[t]));
        conn_plug(g->ctrl_net, tlb_ctrl(g->l2tlb[t]));
        ctrl_add(g, GPU_CTRL_TLB, tlb_ctrl(g->l2tlb[t]));
        if (c->external_mmu)
            continue;         /* the platform wires the bottom */
        conn_plug(g->tlb_net, tlb_bottom(g->l2tlb[t]));
        tlb_set_route(g->l2tlb[t], &to_mmu);
    }
    mem_route to_l2, to_l2tlb;
    mem_route_interleaved(&to_l2, g->l2_tops, c->l2_banks,
                          (uint32_t)c->l2_interleave);
    if (c->with_rdma) {
        /* Seed 002 Fig. 5.8a: local addresses to the L2 banks, every other
        ** one through the RDMA engine to its home GPU's L2. */
        NAME(n, "GPU[%d].RDMA", gi);
        g->rdma = rdma_new(eng, n, &rc, pool, st);
        if (remote_in_l2(c))
            rdma_plug_split(g->rdma, g->mem_net, g->xbar);
        else
            rdma_plug(g->rdma, g->xbar);
        rdma_set_local_route(g->rdma, &to_l2);
        if (remote_in_l2(c)) {
            /* Other GPUs' requests enter the home banks by their home
            ** ports (cache.h), never behind this GPU's own. */
            g->l2_homes = mgs_xcalloc(c->l2_banks, sizeof *g->l2_homes);
            for (uint32_t b = 0; b < c->l2_banks; b++) {
                g->l2_homes[b] = cache_home(g->l2[b]);
                conn_plug(g->xbar, g->l2_homes[b]);
            }
            mem_route to_homes;
            mem_route_interleaved(&to_homes, g->l2_homes, c->l2_banks,
                                  (uint32_t)c->l2_interleave);
            rdma_set_local_route(g->rdma, &to_homes);
            /* Remote lines are cached in the requesting L2: its misses
            ** split between its channel and the RDMA engine (seed 001
            ** §2.2). */
            for (uint32_t b = 0; b < c->l2_banks; b++) {
                mem_route r;
                if (c->coh->proto->remote_via_agent &&
                    g->l2_below[b] != dram_top(g->dram[b])) {
                    /* The agent takes the remote misses too (coh.h). */
                    c->coh->proto->remote_via_agent(
                        c->coh->pd, (uint32_t)gi, b, rdma_inside(g->rdma));
                    mem_route_single(&r, g->l2_below[b]);
                    cache_set_route(g->l2[b], &r);
                    continue;
                }
                rdma_route_split(&r, &g->l2_below[b], 1,
                                 (uint32_t)c->l2_interleave, c->phys_base,
                                 c->phys_base + c->mem_bytes,
                                 rdma_inside(g->rdma));
                cache_set_route(g->l2[b], &r);
            }
        } else {
            rdma_route_split(&to_l2, g->l2_tops, c->l2_banks,
                             (uint32_t)c->l2_interleave, c->phys_base,
                             c->phys_base + c->mem_bytes,
                             rdma_inside(g->rdma));
        }
    }
    mem_route_interleaved(&to_l2tlb, g->l2tlb_tops, c->l2_tlbs,
                          c->l2_tlb.page_bytes);

    g->l1_route = to_l2;
    if (c->coh && c->coh->proto->xbar_port)
        c->coh->proto->xbar_port(c->coh->pd, (uint32_t)gi, g->xbar, &to_l2);
    g->nsas = c->num_cus / c->cus_per_sa;
    g->sas = mgs_xcalloc(g->nsas, sizeof *g->sas);
    g->cus = mgs_xcalloc(c->num_cus, sizeof *g->cus);
    for (uint32_t s = 0; s < g->nsas; s++) {
        gpu_sa *sa = &g->sas[s];
        NAME(n, "GPU[%d].SA[%u].Net", gi, s);
        sa->net = conn_new(eng, n, &c->sa_net, st);
        l1_path p = {.g = g, .net = sa->net, .pool = pool, .st = st,
                     .to_l2 = &to_l2, .to_l2tlb = &to_l2tlb, .sa = s};
        NAME(p.prefix, "GPU[%d].SA[%u]", gi, s);
        build_l1_path(&p, "L1S", &c->l1s, COH_L1S, &sa->xs, &sa->l1s);
        build_l1_path(&p, "L1I", &c->l1i, COH_L1I, &sa->xi, &sa->l1i);
        mem_route to_s, to_i;
        mem_route_single(&to_s, xlat_top(sa->xs));
        mem_route_single(&to_i, xlat_top(sa->xi));
        for (uint32_t k = 0; k < c->cus_per_sa; k++) {
            uint32_t ci = s * c->cus_per_sa + k;
            gpu_cu *u = &g->cus[ci];
            char what[32];
            NAME(what, "L1V[%u]", k);
            build_l1_path(&p, what, &c->l1v, COH_L1V, &u->xv, &u->l1v);
            NAME(n, "GPU[%d].SA[%u].CU[%u]", gi, s, k);
            cu_config cc = c->cu;
            /* Platform-wide scratch slots: GPU model, then CU, then slot. */
            cc.scratch_slot_base = ((uint32_t)gi * c->num_cus + ci) *
                                   gpu_build_wave_slots_per_cu(c);
            cc.fence_invalidates_l1 = !c->coh ||
                                      c->coh->proto->fence_l1 != COH_KEEP;
            u->cu = cu_new(eng, n, &cc, pool, st);
            conn_plug(sa->net, cu_vmem(u->cu));
            conn_plug(sa->net, cu_smem(u->cu));
            conn_plug(sa->net, cu_inst(u->cu));
            conn_plug(g->dispatch_net, cu_ctrl(u->cu));
            cp_set_cu_port(g->cp, ci, cu_ctrl(u->cu));
            mem_route to_v;
            mem_route_single(&to_v, xlat_top(u->xv));
            cu_set_vmem_route(u->cu, &to_v);
            cu_set_smem_route(u->cu, &to_s);
            cu_set_inst_route(u->cu, &to_i);
        }
    }
    return g;
}

void gpu_build_free(gpu_build *g)
{
    if (!g)
        return;
    const gpu_build_config *c = &g->cfg;
    for (uint32_t i = 0; i < c->num_cus; i++) {
        cu_free(g->cus[i].cu);
        xlat_free(g->cus[i].xv);
        cache_free(g->cus[i].l1v);
    }
    for (uint32_t s = 0; s < g->nsas; s++) {
        gpu_sa *sa = &g->sas[s];
        xlat_free(sa->xs);
        xlat_free(sa->xi);
        cache_free(sa->l1s);
        cache_free(sa->l1i);
        conn_free(sa->net);
    }
    for (uint32_t b = 0; b < c->l2_banks; b++) {
        cache_free(g->l2[b]);
        if (g->dram[b])
            dram_free(g->dram[b]);
    }
    if (g->rdma)
        rdma_free(g->rdma);
    for (uint32_t t = 0; t < c->l2_tlbs; t++)
        tlb_free(g->l2tlb[t]);
    mmu_free(g->mmu);
    cp_free(g->cp);
    for (int k = 0; k < GPU_CTRL_KINDS; k++)
        free(g->ctrls[k].v);
    free(g->l1_sa);
    sim_conn *conns[] = {g->driver_link, g->dispatch_net, g->ctrl_net,
                         g->xbar, g->mem_net, g->tlb_net};
    for (size_t i = 0; i < 6; i++)
        conn_free(conns[i]);
    free(g->cus);
    free(g->sas);
    free(g->l2);
    free(g->dram);
    free(g->l2tlb);
    free(g->l2_tops);
    free(g->l2_below);
    free(g->l2_homes);
    free(g->l2tlb_tops);
    free(g);
}

void gpu_build_plug_driver(gpu_build *g, sim_port *driver_port)
{
    conn_plug(g->driver_link, driver_port);
}

sim_port *gpu_build_cp_port(gpu_build *g) { return cp_driver(g->cp); }
cp *gpu_build_cp(gpu_build *g) { return g->cp; }
const gpu_build_config *gpu_build_get_config(const gpu_build *g)
{
    return &g->cfg;
}

rdma_engine *gpu_build_rdma(gpu_build *g) { return g->rdma; }
tlb *gpu_build_l2tlb(gpu_build *g, uint32_t t)
{
    return t < g->cfg.l2_tlbs ? g->l2tlb[t] : NULL;
}
sim_conn *gpu_build_xbar(gpu_build *g) { return g->xbar; }
void gpu_build_l1_route(const gpu_build *g, mem_route *out)
{
    *out = g->l1_route;
}
cache *gpu_build_l2(gpu_build *g, uint32_t b)
{
    return b < g->cfg.l2_banks ? g->l2[b] : NULL;
}

uint64_t gpu_build_wf_insts(const gpu_build *g)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < g->cfg.num_cus; i++)
        n += cu_wf_insts(g->cus[i].cu);
    return n;
}

const gpu_ctrl_ports *gpu_build_ctrl_ports(const gpu_build *g,
                                           gpu_ctrl_kind k)
{
    return &g->ctrls[k];
}

sim_conn *gpu_build_ctrl_net(gpu_build *g) { return g->ctrl_net; }

uint32_t gpu_build_sa_count(const gpu_build *g) { return g->nsas; }

sim_conn *gpu_build_sa_net(gpu_build *g, uint32_t s)
{
    return s < g->nsas ? g->sas[s].net : NULL;
}

uint32_t gpu_build_l1_sa(const gpu_build *g, uint32_t i)
{
    return g->l1_sa[i];
}
