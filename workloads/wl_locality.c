/*
** The workloads' Locality API variant (wl_util.h, "Locality API variant";
** the API: include/mgsim/runtime.h, seed 002 §5.3.2). The workload keeps
** its unified-GPU host program; this file adds the placement of data and
** work-groups on member GPUs:
**   - data: wl_loc_place moves each page of an array to the member whose
**     work-groups use it (mgs_rt_place, whole pages);
**   - small read-only arrays: one copy per member (wl_upload_copies);
**   - launches: wl_loc_launch turns one MGS_GPU_ALL launch into one
**     predicate launch per member (mgs_launch_kernel_pred), each with its
**     own argument block in which every copied array's address is that
**     member's copy.
** Invariant: the launch split (wl_loc_member) and the data split of
** wl_loc_place use the same rule (unit u of `units` on member
** u * members / units), so a workload that gives matching units keeps
** each member's accesses local except where its pattern crosses a
** boundary (halos, gathers, scatters).
*/
#include "workloads/wl_locality.h"

#include "mgsim/errors.h"

#include <string.h>

int wl_ctx_locality(wl_ctx *c, int64_t on)
{
    c->members = 0;
    if (on != 0 && on != 1)
        return mgs_error_set(MGS_EINVAL, "locality must be 0 or 1, got %lld",
                             (long long)on);
    if (!on)
        return MGS_OK;
    if (!mgs_rt_is_unified(c->rt))
        return mgs_error_set(MGS_EINVAL, "locality=1 is the Locality API "
                             "variant: it needs a unified GPU (--platform "
                             "unified)");
    int n = mgs_rt_unified_members(c->rt);
    if (n < 0)
        return n;
    if (n > WL_MAX_PARTS)
        return mgs_error_set(MGS_EINVAL, "locality=1 supports at most %d "
                             "member GPUs, got %d", WL_MAX_PARTS, n);
    c->members = n;
    return MGS_OK;
}

static int member_of_unit(int64_t unit, int64_t units, int members)
{
    return (int)(unit * members / units);
}

int wl_loc_member(const uint32_t ng[3], uint32_t wg, int members)
{
    uint64_t rows = (uint64_t)ng[1] * ng[2];
    if (rows > 1)
        return member_of_unit(wg / ng[0], (int64_t)rows, members);
    return member_of_unit(wg, ng[0], members);
}

int wl_loc_place(wl_ctx *c, mgs_dptr buf, int64_t outer, int64_t inner,
                 size_t elem, int64_t per)
{
    if (!c->members || outer < 1 || inner < 1 || !elem || per < 1)
        return MGS_OK;
    uint64_t ps = mgs_rt_page_size(c->rt);
    uint64_t row = (uint64_t)inner * elem, size = (uint64_t)outer * row;
    int64_t units = (inner + per - 1) / per;
    /* Runs of pages for one member become one placement. */
    mgs_dptr run = 0;
    int run_gpu = -1;
    int rc = MGS_OK;
    for (mgs_dptr page = buf / ps * ps; page < buf + size && !rc;
         page += ps) {
        /* The page's middle byte, inside the array. */
        uint64_t mid = page + ps / 2, off = mid > buf ? mid - buf : 0;
        if (off >= size)
            off = size - 1;
        int64_t i = (int64_t)(off % row / elem);
        int g = member_of_unit(i / per, units, c->members);
        if (g != run_gpu) {
            if (run_gpu >= 0)
                rc = mgs_rt_place(c->rt, run, page - run, run_gpu);
            run = page;
            run_gpu = g;
        }
    }
    mgs_dptr end = (buf + size + ps - 1) / ps * ps;
    return rc ? rc : mgs_rt_place(c->rt, run, end - run, run_gpu);
}

int wl_upload_copies(wl_ctx *c, int gpu, const void *host, size_t bytes,
                     mgs_dptr *out)
{
    if (!c->members)
        return host ? wl_upload(c, gpu, host, bytes, out)
                    : wl_alloc(c, gpu, bytes, out);
    if (c->ncopies == WL_MAX_COPIES)
        return mgs_error_set(MGS_EINTERNAL, "workload duplicates more than "
                             "%d arrays", WL_MAX_COPIES);
    wl_copies *d = &c->copies[c->ncopies];
    for (int g = 0; g < c->members; g++) {
        int rc = host ? wl_upload(c, g, host, bytes, &d->copy[g])
                      : wl_alloc(c, g, bytes, &d->copy[g]);
        if (rc)
            return rc;
    }
    d->base = *out = d->copy[0];
    c->ncopies++;
    return MGS_OK;
}

int wl_h2d_copies(wl_ctx *c, mgs_dptr d, const void *host, size_t bytes)
{
    for (int i = 0; i < c->ncopies; i++)
        if (c->copies[i].base == d) {
            for (int g = 1; g < c->members; g++) {
                int rc = mgs_memcpy_h2d(c->rt, c->copies[i].copy[g], host,
                                        bytes);
                if (rc)
                    return rc;
            }
            break;
        }
    return mgs_memcpy_h2d(c->rt, d, host, bytes);
}

static int injected;

void wl_inject_loc_fault(int how)
{
    injected = how;
}

typedef struct loc_split {
    uint32_t ng[3];
    int members;
} loc_split;

/* The predicate of member g's launch, with the injected faults: work-group
** 0 moves to the next member (1) or runs nowhere (2). */
static bool loc_pred(uint32_t wg, int g, void *user)
{
    const loc_split *s = user;
    int owner = wl_loc_member(s->ng, wg, s->members);
    if (wg == 0 && injected == WL_LOC_FAULT_MISPLACE)
        owner = (owner + 1) % s->members;
    if (wg == 0 && injected == WL_LOC_FAULT_SKIP)
        return false;
    return owner == g;
}

/* Member g's argument block: every copied array's address replaced by
** g's copy. */
static void substitute_copies(const wl_ctx *c, uint8_t *args, size_t size,
                              const uint32_t *ptr_off, int nptr, int g)
{
    for (int i = 0; i < nptr; i++) {
        if (ptr_off[i] + 8 > size)
            continue;
        mgs_dptr v;
        memcpy(&v, args + ptr_off[i], 8);
        for (int k = 0; k < c->ncopies; k++)
            if (c->copies[k].base == v) {
                memcpy(args + ptr_off[i], &c->copies[k].copy[g], 8);
                break;
            }
    }
}

int wl_loc_launch(wl_ctx *c, mgs_kernel *k, const mgs_launch *l,
                  const uint32_t *ptr_off, int nptr)
{
    loc_split s = {.members = c->members};
    for (int d = 0; d < 3; d++)
        s.ng[d] = (l->grid[d] + l->block[d] - 1) / l->block[d];
    uint8_t args[256];
    if (l->args_size > sizeof args)
        return mgs_error_set(MGS_EINTERNAL, "kernel arguments over %zu "
                             "bytes", sizeof args);
    for (int g = 0; g < c->members; g++) {
        mgs_launch lg = *l;
        memcpy(args, l->args, l->args_size);
        substitute_copies(c, args, l->args_size, ptr_off, nptr, g);
        lg.args = args;
        lg.gpu = g;
        int rc = mgs_launch_kernel_pred(c->rt, k, &lg, loc_pred, &s);
        if (rc)
            return rc;
    }
    return MGS_OK;
}
