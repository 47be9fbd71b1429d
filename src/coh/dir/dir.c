/*
** The directory protocols of seed 001 (the REC paper; research/
** rec-digest.md): dir (the baseline, one line per entry), hmg (HMG-style,
** four lines per entry with one sharer set) and rec (REC, a range per
** entry with per-line sharers). They differ only in the directory table's
** organisation (dir_table.h); the rest is one protocol:
**
**   where data lives   every GPU caches remote lines in its L1s and L2
**                      (coherence.remote_cache = l2); remote lines are
**                      written through to their home, local lines are
**                      written back (seed 001 §2.2)
**   L1s                software coherence: invalidated at each launch
**                      (acquire) and by fences (seed 001 §2.1)
**   L2s                kept coherent by the home GPU's directory: a remote
**                      read records its GPU; a write (local or remote)
**                      invalidates the other GPUs' copies; evicting an
**                      entry invalidates its lines everywhere (dir_l2.c,
**                      inv_engine.h). Acquire never invalidates an L2;
**                      release (kernel end) writes the L2 back (seed 001
**                      §5.1)
**   host points        the runtime's direct writes drop the range from
**                      every L2 (writing dirty bytes back first), its
**                      direct reads write the range back: L2 contents
**                      survive kernels, as with nc on one GPU
** Scopes: the seeds describe only kernel-boundary acquire/release (HMG's
** scoped model is not given); a fence invalidates the wave's L1, and
** because a write is acknowledged only once its invalidations landed, a
** fence after it orders it for every GPU (system scope).
**
** Decisions (each "assumed", docs/coherence.md):
**   - one directory per GPU, sliced over its L2 banks like the lines
**     (entries / banks per bank, same ways); an entry's range must fit in
**     one bank's interleave unit;
**   - the directory lookup is free (in parallel with the L2 tag lookup);
**   - invalidations are acknowledged to the home, and a write's answer
**     waits for them (above);
**   - up to 16 GPUs (the paper's largest system).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coh/dir/dir_int.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

#define DIR_CREDITS 16u          /* directory.inv_credits when 0 (tests) */
#define DIR_HEADER_BYTES 8u      /* as an RDMA header (rdma.h) */
#define DIR_ADDR_BITS 48u        /* seed 001 Table 1 */

static uint32_t range_lines_of(dir_org org, const coh_system *sys)
{
    if (sys->dir.range)
        return sys->dir.range / sys->line ? sys->dir.range / sys->line : 1;
    return org == DIR_ORG_LINE ? 1 : org == DIR_ORG_HMG ? 4 : 1024 / sys->line;
}

static void table_config(dir_org org, const coh_system *sys,
                         dir_table_config *tc)
{
    memset(tc, 0, sizeof *tc);
    tc->org = org;
    uint32_t banks = sys->l2_banks ? sys->l2_banks : 1;
    tc->entries = sys->dir.entries / banks;
    tc->ways = sys->dir.ways;
    tc->policy = sys->dir.policy == 1   ? DIR_POLICY_FIFO
                 : sys->dir.policy == 2 ? DIR_POLICY_LRU
                 : org == DIR_ORG_REC   ? DIR_POLICY_LRU
                                        : DIR_POLICY_FIFO;
    tc->line = sys->line;
    tc->range_lines = range_lines_of(org, sys);
    tc->ngpus = sys->ngpus;
    tc->home = 0;
    tc->addr_bits = DIR_ADDR_BITS;
}

/* The [directory] keys, on any number of GPUs. */
static int check_keys(const coh_system *sys, dir_org org, const char *name);

static int check_org(const coh_system *sys, dir_org org, const char *name)
{
    if (sys->ngpus < 2) /* nothing is remote: the directory stays empty */
        return check_keys(sys, org, name);
    if (!sys->rdma)
        return mgs_error_set(MGS_ECONFIG, "coherence.protocol = %s needs "
                             "discrete or unified GPUs (a directory per GPU "
                             "over RDMA), not platform.type = %s", name,
                             sys->shared_platform ? "shared" : "monolithic");
    if (sys->remote_cache != COH_REMOTE_L2)
        return mgs_error_set(MGS_ECONFIG, "coherence.protocol = %s keeps "
                             "remote lines in the L2s: set "
                             "coherence.remote_cache = l2 (configs/rec.ini "
                             "does)", name);
    if (sys->ngpus > INV_ENGINE_MAX_GPUS)
        return mgs_error_set(MGS_ECONFIG, "coherence.protocol = %s supports "
                             "at most %u GPUs (got platform.gpus = %u)",
                             name, INV_ENGINE_MAX_GPUS, sys->ngpus);
    return check_keys(sys, org, name);
}

static int check_keys(const coh_system *sys, dir_org org, const char *name)
{
    uint32_t r = sys->dir.range;
    if (r && (r & (r - 1) || r < sys->line ||
              r / sys->line > DIR_TABLE_MAX_RANGE_LINES))
        return mgs_error_set(MGS_ECONFIG, "directory.range = %u: expected 0 "
                             "or a power of two from one line (%u) to 64 "
                             "lines (%u)", r, sys->line,
                             64 * sys->line);
    if (org == DIR_ORG_LINE && r && r != sys->line)
        return mgs_error_set(MGS_ECONFIG, "directory.range = %u: "
                             "coherence.protocol = dir tracks one line per "
                             "entry (use hmg or rec for ranges)", r);
    uint32_t lines = range_lines_of(org, sys);
    if ((uint64_t)lines * sys->line > sys->l2_interleave)
        return mgs_error_set(MGS_ECONFIG, "directory.range (%u bytes) "
                             "exceeds the L2 bank interleave (gpu.l2_"
                             "interleave = %u): an entry's lines must be in "
                             "one bank", lines * sys->line,
                             sys->l2_interleave);
    uint32_t banks = sys->l2_banks ? sys->l2_banks : 1;
    if (sys->dir.entries % banks)
        return mgs_error_set(MGS_ECONFIG, "directory.entries = %u is not a "
                             "multiple of the L2 banks (%u): the directory "
                             "is sliced over them", sys->dir.entries, banks);
    if (org != DIR_ORG_LINE && lines < 2)
        return mgs_error_set(MGS_ECONFIG, "directory.range = %u: %s entries "
                             "cover at least 2 lines (%u bytes)", r, name,
                             2 * sys->line);
    dir_table_config tc;
    table_config(org, sys, &tc);
    if (tc.ngpus < 2)
        tc.ngpus = 2; /* one GPU: the table is never built, check its keys */
    char why[160];
    if (dir_table_config_validate(&tc, why, sizeof why))
        return mgs_error_set(MGS_ECONFIG, "directory (per L2 bank: %u "
                             "entries of %u): %s", tc.entries, banks, why);
    return MGS_OK;
}

static int dir_check(const coh_system *s) { return check_org(s, DIR_ORG_LINE, "dir"); }
static int hmg_check(const coh_system *s) { return check_org(s, DIR_ORG_HMG, "hmg"); }
static int rec_check(const coh_system *s) { return check_org(s, DIR_ORG_REC, "rec"); }

static void dir_sync(const coh_system *sys, coh_point p, uint32_t gpu,
                     coh_sync *out)
{
    (void)gpu;
    switch (p) {
    case COH_LAUNCH:
        out->l1 = COH_INVALIDATE;
        out->tlb = COH_INVALIDATE;
        break;
    case COH_KERNEL_END:
        /* seed 001 §5.1: "release operations flush the L2 caches" */
        if (sys->ngpus > 1) {
            out->l2 = COH_WRITEBACK;
            out->l2_all = true;
        }
        break;
    case COH_HOST_WRITE:
        out->l2 = COH_WRITEBACK_INVALIDATE;
        break;
    case COH_HOST_READ:
        out->l2 = COH_WRITEBACK;
        break;
    case COH_PEER_RELEASE:
    case COH_COPY_END:
    case COH_POINTS:
        break;
    }
}

static void *create_org(const coh_system *sys, sim_engine *eng,
                        mem_pool *pool, stat_registry *stats, dir_org org)
{
    dir_proto *dp = MGS_NEW(dir_proto);
    dp->sys = *sys;
    dp->eng = eng;
    dp->pool = pool;
    dp->stats = stats;
    table_config(org, sys, &dp->tcfg);
    return dp;
}

static void *dir_create(const coh_system *s, sim_engine *e, mem_pool *p,
                        stat_registry *st)
{
    return create_org(s, e, p, st, DIR_ORG_LINE);
}
static void *hmg_create(const coh_system *s, sim_engine *e, mem_pool *p,
                        stat_registry *st)
{
    return create_org(s, e, p, st, DIR_ORG_HMG);
}
static void *rec_create(const coh_system *s, sim_engine *e, mem_pool *p,
                        stat_registry *st)
{
    return create_org(s, e, p, st, DIR_ORG_REC);
}

static void dir_destroy(void *pd)
{
    dir_proto *dp = pd;
    for (dir_bank *b = dp->banks, *n; b; b = n) {
        n = b->next;
        dir_bank_free(b);
    }
    for (uint32_t g = 0; g < INV_ENGINE_MAX_GPUS; g++)
        inv_engine_free(dp->engines[g]);
    free(dp);
}

static void dir_attach(void *pd, cache *c, coh_level level, uint32_t gpu)
{
    dir_proto *dp = pd;
    if (level == COH_L2 && dp->sys.ngpus > 1 && dp->sys.rdma)
        dir_bank_new(dp, c, gpu);
}

static sim_port *dir_memory_agent(void *pd, const coh_site *site)
{
    dir_proto *dp = pd;
    if (!site->l2 || dp->sys.ngpus < 2 || !dp->sys.rdma)
        return NULL;
    dir_bank *b = dir_bank_of(dp, site->l2);
    if (!b)
        return NULL;
    inv_engine *e = dp->engines[site->gpu];
    if (!e) {
        const cache_config *cc = cache_config_of(site->l2);
        inv_engine_config ec = {
            .gpu = site->gpu, .ngpus = dp->sys.ngpus,
            .banks = dp->sys.l2_banks, .line = dp->sys.line,
            .interleave = dp->sys.l2_interleave,
            .inv_buffer = cc->inv_buffer ? cc->inv_buffer : 1,
            .credits = dp->sys.dir.inv_credits ? dp->sys.dir.inv_credits
                                               : DIR_CREDITS,
            /* every request all banks can have below */
            .home_entries = dp->sys.l2_banks * cc->max_inflight_below,
            .header_bytes = DIR_HEADER_BYTES,
            .per_entry = dp->sys.dir.inv_message == 2 ||
                         (dp->sys.dir.inv_message == 0 &&
                          dp->tcfg.org == DIR_ORG_HMG),
            .period = site->period ? site->period : 1000};
        char name[64];
        snprintf(name, sizeof name, "GPU[%u].InvEngine", site->gpu);
        e = dp->engines[site->gpu] =
            inv_engine_new(site->eng, name, &ec, dp->pool, dp->stats);
        conn_plug(site->net, inv_engine_local(e));
    }
    inv_engine_set_bank(e, site->bank, cache_bottom(site->l2));
    char name[64];
    snprintf(name, sizeof name, "%s.Dir", site->name);
    dir_bank_place(b, site->bank, inv_engine_local(e), name);
    if (dp->stats && site->bank == 0) {
        dir_table_config tc = dp->tcfg;
        tc.entries = dp->sys.dir.entries;
        char gname[64];
        snprintf(gname, sizeof gname, "GPU[%u].Directory", site->gpu);
        stat_value_add(dp->stats, gname, "entry_bits",
                       dir_table_entry_bits(&tc), "bits");
        stat_value_add(dp->stats, gname, "storage_bits",
                       (double)dir_table_storage_bits(&tc), "bits");
    }
    return NULL;
}

static sim_port *dir_network_port(void *pd, uint32_t gpu)
{
    dir_proto *dp = pd;
    if (!dp->engines[gpu])
        return NULL;
    if (!dp->peers_set) {
        for (uint32_t g = 0; g < dp->sys.ngpus; g++)
            for (uint32_t h = 0; h < dp->sys.ngpus; h++)
                if (dp->engines[g] && dp->engines[h])
                    inv_engine_set_peer(dp->engines[g], h,
                                        inv_engine_net(dp->engines[h]));
        dp->peers_set = true;
    }
    return inv_engine_net(dp->engines[gpu]);
}

#define DIR_PROTOCOL(var, nm, sum, chk, mk)                                  \
    const coh_protocol var = {                                               \
        .name = nm,                                                          \
        .summary = sum,                                                      \
        .check = chk,                                                        \
        .sync = dir_sync,                                                    \
        .fence_l1 = COH_INVALIDATE,                                          \
        .create = mk,                                                        \
        .destroy = dir_destroy,                                              \
        .attach_cache = dir_attach,                                          \
        .memory_agent = dir_memory_agent,                                    \
        .network_port = dir_network_port,                                    \
    }

static void *broken_create(const coh_system *s, sim_engine *e, mem_pool *p,
                           stat_registry *st)
{
    dir_proto *dp = create_org(s, e, p, st, DIR_ORG_LINE);
    dp->no_write_inv = true;
    return dp;
}

/* Not registered: tests register it (coh_register) to show that the
** write-initiated invalidations are needed. */
DIR_PROTOCOL(coh_dir_no_write_inv, "dir-no-write-inv",
             "BROKEN on purpose: dir whose plain writes invalidate no "
             "sharer (tests)",
             dir_check, broken_create);


DIR_PROTOCOL(coh_dir, "dir",
             "directory coherence: remote lines cached in L2, a directory "
             "per GPU (one line per entry) invalidates them on writes and "
             "evictions (seed 001 baseline)",
             dir_check, dir_create);
DIR_PROTOCOL(coh_hmg, "hmg",
             "directory coherence with 4-line entries and one sharer set "
             "(HMG as seed 001 models it: false-positive invalidations)",
             hmg_check, hmg_create);
DIR_PROTOCOL(coh_rec, "rec",
             "directory coherence with range entries (1 kB) and per-line "
             "sharers, LRU (REC, seed 001)",
             rec_check, rec_create);
