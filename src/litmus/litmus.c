/*
** Litmus runner (litmus.h, docs/litmus.md).
**
** A batch of n instances (n = 64 x groups, the last batch smaller):
**   1. draw the home GPU of x and of y (each its own buffer per GPU, so x and
**      y may live on one GPU or on two), and zero both;
**   2. draw where the threads run: LITMUS_CU puts every thread on one drawn
**      GPU; LITMUS_GPU gives thread r GPU (r + rot) mod N, rot drawn, so
**      consecutive threads are on different GPUs (IRIW on 2 GPUs: writers
**      on different GPUs, readers too);
**   3. per GPU one launch whose work-groups are, group by group, that GPU's
**      threads in a drawn order, each with a drawn delay, and stress
**      work-groups at drawn positions. The dispatcher places consecutive
**      work-groups on consecutive CUs (round robin, docs/cu.md), so the
**      threads of one instance run on different CUs;
**   4. wait for every GPU, copy the registers (or, 2+2W, x and y) back and
**      count each instance's outcome.
** Launches on different GPUs overlap (platform.concurrent_launches).
*/
#include "litmus/litmus.h"

#include "mgsim/errors.h"
#include "util/xmalloc.h"
#include "workloads/wl_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LANES 64u
#define LINE_INSTANCES 16u        /* instances sharing a line (kernel LOC) */
#define STRIDE_BYTES 128u         /* per line of instances: test line and
                                     neighbour line (kernel STRIDE) */
#define ROLE_STRESS 0xffu
#define MAX_DELAY 0xffffu         /* 16 bits in the plan word */
#define PLAN_HEADER 64u           /* words: 16 x and 16 y pointers */
#define PLAN_GPUS 16

static const litmus_test tests[] = {
    {"MP", "mp", 2, 2, false, {"r0", "r1"}, {1, 0},
     "T0: x=1; F; y=1 | T1: r0=y; F; r1=x"},
    {"SB", "sb", 2, 2, false, {"r0", "r1"}, {0, 0},
     "T0: x=1; F; r0=y | T1: y=1; F; r1=x"},
    {"LB", "lb", 2, 2, false, {"r0", "r1"}, {1, 1},
     "T0: r0=x; F; y=1 | T1: r1=y; F; x=1"},
    {"CoRR", "corr", 2, 2, false, {"r0", "r1"}, {1, 0},
     "T0: x=1 | T1: r0=x; F; r1=x"},
    {"IRIW", "iriw", 4, 4, false, {"r0", "r1", "r2", "r3"}, {1, 0, 1, 0},
     "T0: x=1 | T1: y=1 | T2: r0=x; F; r1=y | T3: r2=y; F; r3=x"},
    {"2+2W", "w22", 2, 2, true, {"x", "y"}, {1, 1},
     "T0: x=1; F; y=2 | T1: y=1; F; x=2 (final x, y)"},
};

void litmus_opts_default(litmus_opts *o)
{
    memset(o, 0, sizeof *o);
    o->iterations = 10000;
    o->seed = 1;
    o->placement = LITMUS_CU;
    o->fenced = true;
    o->groups = 64;
    o->max_delay = 512;
    o->stress_wgs = 4;
    o->stress_iters = 32;
}

size_t litmus_count(void)
{
    return sizeof tests / sizeof tests[0];
}

const litmus_test *litmus_get(size_t i)
{
    return i < litmus_count() ? &tests[i] : NULL;
}

const litmus_test *litmus_find(const char *name)
{
    for (size_t i = 0; i < litmus_count(); i++)
        if (!strcasecmp(tests[i].name, name))
            return &tests[i];
    return NULL;
}

const char *litmus_placement_name(litmus_placement p)
{
    return p == LITMUS_GPU ? "gpu" : "cu";
}

unsigned litmus_outcome_key(const litmus_test *t, const uint8_t *values)
{
    unsigned key = 0;
    for (int k = t->nslots - 1; k >= 0; k--)
        key = key * 3 + values[k];
    return key;
}

unsigned litmus_forbidden_key(const litmus_test *t)
{
    return litmus_outcome_key(t, t->forbidden);
}

void litmus_outcome_text(const litmus_test *t, unsigned key, char *buf,
                         size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < t->nslots && len < n; k++) {
        len += (size_t)snprintf(buf + len, n - len, "%s%s=%u", k ? " " : "",
                                t->slot[k], key % 3);
        key /= 3;
    }
}

/* ---- one run ------------------------------------------------------- */

typedef struct run_state {
    wl_ctx c;
    wl_args args;
    const litmus_test *t;
    const litmus_opts *o;
    int ngpus;
    mgs_kernel *k;
    mgs_dptr x[WL_MAX_PARTS], y[WL_MAX_PARTS], plan[WL_MAX_PARTS], out;
    uint32_t *words;              /* host plan of one launch */
    uint8_t *hx, *hy;             /* home GPU of x and y, per group */
    int32_t *regs, *xs, *ys;      /* host copies of one batch */
    wl_rng rng;
} run_state;


/* --gps: a location as a GPS allocation, owned by the context like
** wl_alloc's. */
static int gps_alloc(wl_ctx *c, size_t bytes, mgs_dptr *out)
{
    if (c->nbufs == WL_MAX_BUFS)
        return mgs_error_set(MGS_EINTERNAL, "litmus: too many buffers");
    int rc = mgs_malloc_gps(c->rt, bytes, MGS_GPS_MANUAL, out);
    if (rc == MGS_OK)
        c->bufs[c->nbufs++] = *out;
    return rc;
}

static int setup(run_state *s, mgs_rt *rt)
{
    char name[64];
    const litmus_opts *o = s->o;
    snprintf(name, sizeof name, "litmus_%s_%s", s->t->kernel,
             !o->fenced ? "plain" : o->placement == LITMUS_GPU ? "sys" : "dev");
    s->args.num_gpus = s->ngpus;
    s->args.seed = o->seed;
    int rc = wl_ctx_open(&s->c, rt, &s->args, "litmus.hsaco");
    if (rc == MGS_OK)
        rc = wl_kernel(&s->c, name, &s->k);
    size_t inst = (size_t)o->groups * LANES;
    size_t loc = inst / LINE_INSTANCES * STRIDE_BYTES;
    size_t wgs = (size_t)o->groups * LITMUS_MAX_THREADS + o->stress_wgs;
    for (int g = 0; g < s->ngpus && rc == MGS_OK; g++) {
        if ((rc = o->gps ? gps_alloc(&s->c, loc, &s->x[g])
                         : wl_alloc(&s->c, g, loc, &s->x[g])) ||
            (rc = o->gps ? gps_alloc(&s->c, loc, &s->y[g])
                         : wl_alloc(&s->c, g, loc, &s->y[g])) ||
            (rc = wl_alloc(&s->c, g, (PLAN_HEADER + wgs * 2) *
                           sizeof(uint32_t), &s->plan[g])))
            break;
    }
    if (rc == MGS_OK)
        rc = wl_alloc(&s->c, 0, inst * LITMUS_MAX_SLOTS * sizeof(int32_t),
                      &s->out);
    s->words = mgs_xcalloc(PLAN_HEADER + wgs * 2, sizeof *s->words);
    for (int g = 0; g < s->ngpus; g++) {
        /* The pointer table at the head of every plan. */
        memcpy(&s->words[2 * g], &s->x[g], sizeof(uint64_t));
        memcpy(&s->words[2 * (PLAN_GPUS + g)], &s->y[g], sizeof(uint64_t));
    }
    s->hx = mgs_xcalloc(o->groups, 1);
    s->hy = mgs_xcalloc(o->groups, 1);
    s->regs = mgs_xcalloc(inst * LITMUS_MAX_SLOTS, sizeof *s->regs);
    s->xs = mgs_xcalloc(loc / 4 * (size_t)s->ngpus, sizeof *s->xs);
    s->ys = mgs_xcalloc(loc / 4 * (size_t)s->ngpus, sizeof *s->ys);
    return rc;
}

static void teardown(run_state *s)
{
    wl_ctx_close(&s->c);
    free(s->words);
    free(s->hx);
    free(s->hy);
    free(s->regs);
    free(s->xs);
    free(s->ys);
}

/* The plan word of a work-group (kernel header note). */
static uint32_t plan_word(uint32_t role, uint32_t xsel, uint32_t ysel,
                          uint32_t delay)
{
    return role | xsel << 8 | ysel << 12 | delay << 16;
}

/* Writes the plan of GPU gpu's launch (the roles in roles[0..nroles) for
** `groups` groups) to device memory; returns its work-groups in *nwg. */
static int plan_gpu(run_state *s, int gpu, const int *roles, int nroles,
                    uint32_t groups, uint32_t *nwg)
{
    const litmus_opts *o = s->o;
    uint32_t max_delay = o->max_delay > MAX_DELAY ? MAX_DELAY : o->max_delay;
    uint32_t *words = s->words + PLAN_HEADER;
    uint32_t w = 0, stress_left = o->stress_wgs, ng = (uint32_t)s->ngpus;
    for (uint32_t g = 0; g < groups; g++) {
        int order[LITMUS_MAX_THREADS];
        memcpy(order, roles, (size_t)nroles * sizeof *order);
        for (int i = nroles - 1; i > 0; i--) {
            int j = (int)wl_rng_below(&s->rng, (uint32_t)i + 1), tmp = order[i];
            order[i] = order[j];
            order[j] = tmp;
        }
        for (int i = 0; i < nroles; i++) {
            /* Stress work-groups at drawn positions among the others. */
            if (stress_left && wl_rng_below(&s->rng, groups * (uint32_t)nroles)
                                   < o->stress_wgs) {
                words[2 * w] = plan_word(ROLE_STRESS, wl_rng_below(&s->rng, ng),
                                         wl_rng_below(&s->rng, ng), 0);
                words[2 * w + 1] = stress_left--;
                w++;
            }
            uint32_t d = wl_rng_below(&s->rng, max_delay + 1);
            words[2 * w] = plan_word((uint32_t)order[i], s->hx[g], s->hy[g], d);
            words[2 * w + 1] = g | wl_rng_below(&s->rng, max_delay + 1) << 16;
            w++;
        }
    }
    for (; stress_left; w++) {
        words[2 * w] = plan_word(ROLE_STRESS, wl_rng_below(&s->rng, ng),
                                 wl_rng_below(&s->rng, ng), 0);
        words[2 * w + 1] = stress_left--;
    }
    *nwg = w;
    return mgs_memcpy_h2d(s->c.rt, s->plan[gpu], s->words,
                          (PLAN_HEADER + (size_t)w * 2) * sizeof(uint32_t));
}

/* Index of instance i's dword in a location buffer (kernel LOC). */
static size_t loc_index(uint32_t i)
{
    return (size_t)(i / LINE_INSTANCES) * (STRIDE_BYTES / 4) +
           i % LINE_INSTANCES;
}

/* One batch of ninst instances; counts outcomes into out. */
static int batch(run_state *s, uint32_t ninst, litmus_result *out)
{
    const litmus_test *t = s->t;
    mgs_rt *rt = s->c.rt;
    uint32_t groups = (ninst + LANES - 1) / LANES;
    size_t loc_bytes = (size_t)groups * LANES / LINE_INSTANCES * STRIDE_BYTES;
    int rc;
    for (int g = 0; g < s->ngpus; g++)
        if ((rc = mgs_memset(rt, s->x[g], 0, loc_bytes)) ||
            (rc = mgs_memset(rt, s->y[g], 0, loc_bytes)))
            return rc;
    if ((rc = mgs_memset(rt, s->out, 0, (size_t)groups * LANES *
                         LITMUS_MAX_SLOTS * sizeof(int32_t))))
        return rc;
    for (uint32_t g = 0; g < groups; g++) {
        s->hx[g] = (uint8_t)wl_rng_below(&s->rng, (uint32_t)s->ngpus);
        s->hy[g] = (uint8_t)wl_rng_below(&s->rng, (uint32_t)s->ngpus);
    }
    /* Which GPU runs each thread. */
    int gpu_of[LITMUS_MAX_THREADS];
    if (s->o->placement == LITMUS_CU) {
        int g = (int)wl_rng_below(&s->rng, (uint32_t)s->ngpus);
        for (int r = 0; r < t->threads; r++)
            gpu_of[r] = g;
    } else {
        int rot = (int)wl_rng_below(&s->rng, (uint32_t)s->ngpus);
        for (int r = 0; r < t->threads; r++)
            gpu_of[r] = (r + rot) % s->ngpus;
    }
    /* Every plan is copied before the first launch: a copy synchronises,
    ** and the launches of one batch must overlap. */
    uint32_t nwg[WL_MAX_PARTS] = {0};
    for (int g = 0; g < s->ngpus; g++) {
        int roles[LITMUS_MAX_THREADS], n = 0;
        for (int r = 0; r < t->threads; r++)
            if (gpu_of[r] == g)
                roles[n++] = r;
        if (n && (rc = plan_gpu(s, g, roles, n, groups, &nwg[g])))
            return rc;
    }
    for (int g = 0; g < s->ngpus; g++) {
        if (!nwg[g])
            continue;
        uint32_t grid[3] = {nwg[g] * LANES, 1, 1}, block[3] = {LANES, 1, 1};
        if ((rc = wl_launch(&s->c, s->k, g, grid, block, 0, "ppuu",
                            s->plan[g], s->out, groups * LANES,
                            s->o->stress_iters)))
            return rc;
        out->launches++;
    }
    if ((rc = mgs_synchronize(rt)))
        return rc;
    if (t->finals) {
        for (int g = 0; g < s->ngpus; g++)
            if ((rc = mgs_memcpy_d2h(rt, s->xs + (size_t)g * loc_bytes / 4,
                                     s->x[g], loc_bytes)) ||
                (rc = mgs_memcpy_d2h(rt, s->ys + (size_t)g * loc_bytes / 4,
                                     s->y[g], loc_bytes)))
                return rc;
    } else if ((rc = mgs_memcpy_d2h(rt, s->regs, s->out, (size_t)ninst *
                                    LITMUS_MAX_SLOTS * sizeof(int32_t)))) {
        return rc;
    }
    unsigned bad = litmus_forbidden_key(t);
    for (uint32_t i = 0; i < ninst; i++) {
        uint8_t v[LITMUS_MAX_SLOTS];
        for (int k = 0; k < t->nslots; k++) {
            uint32_t g = i / LANES;
            int32_t x = !t->finals ? s->regs[i * LITMUS_MAX_SLOTS + (uint32_t)k]
                        : k ? s->ys[s->hy[g] * loc_bytes / 4 + loc_index(i)]
                            : s->xs[s->hx[g] * loc_bytes / 4 + loc_index(i)];
            if (x < 0 || x > 2)
                return mgs_error_set(MGS_EVERIFY, "litmus %s: instance %u "
                                     "observed %s=%d (values are 0..2)",
                                     t->name, i, t->slot[k], x);
            v[k] = (uint8_t)x;
        }
        unsigned key = litmus_outcome_key(t, v);
        out->count[key]++;
        out->forbidden += key == bad;
    }
    out->iterations += ninst;
    return MGS_OK;
}

int litmus_run(mgs_rt *rt, const litmus_test *t, const litmus_opts *o,
               litmus_result *out)
{
    memset(out, 0, sizeof *out);
    int ngpus = mgs_rt_num_gpus(rt);
    if (o->iterations == 0 || o->groups == 0 || o->groups > 4096)
        return mgs_error_set(MGS_EINVAL, "litmus: iterations must be at "
                             "least 1 and groups in [1, 4096]");
    if (o->placement == LITMUS_GPU && ngpus < 2)
        return mgs_error_set(MGS_EINVAL, "litmus: placement gpu needs at "
                             "least 2 GPUs (platform.gpus is %d)", ngpus);
    if (ngpus > WL_MAX_PARTS)
        return mgs_error_set(MGS_EINVAL, "litmus: at most %d GPUs, got %d",
                             WL_MAX_PARTS, ngpus);
    run_state s;
    memset(&s, 0, sizeof s);
    s.t = t;
    s.o = o;
    s.ngpus = ngpus;
    /* One stream per (test, placement, variant): a run does not depend on
    ** which other runs share the command line. */
    wl_rng_init(&s.rng, o->seed, (uint64_t)(t - tests) * 4 +
                (uint64_t)o->placement * 2 + o->fenced);
    mgs_rt_totals before, after;
    mgs_rt_totals_get(rt, &before);
    int rc = setup(&s, rt);
    uint64_t per = (uint64_t)o->groups * LANES;
    for (uint64_t done = 0; rc == MGS_OK && done < o->iterations; done += per) {
        uint64_t n = o->iterations - done < per ? o->iterations - done : per;
        rc = batch(&s, (uint32_t)n, out);
    }
    mgs_rt_totals_get(rt, &after);
    out->sim_time_ps = after.sim_time_ps - before.sim_time_ps;
    teardown(&s);
    return rc;
}
