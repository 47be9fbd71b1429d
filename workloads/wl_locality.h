/*
** The workloads' Locality API variant: see the note below and
** wl_locality.c.
*/
#ifndef MGS_WORKLOADS_WL_LOCALITY_H
#define MGS_WORKLOADS_WL_LOCALITY_H

#include "workloads/wl_util.h"

/* ---- Locality API variant (--param locality=1; wl_locality.c) ---------
** On a unified platform the workload keeps its single-GPU host program
** (one launch over MGS_GPU_ALL, buffers spread over the GPUs) and adds the
** seed's Locality API calls (seed 002 §5.3.2, docs/workloads.md):
**   - wl_ctx_locality(c, on): on = 1 turns the variant on; MGS_EINVAL
**     (exit 2) unless the runtime is a unified GPU, or on is not 0 or 1;
**   - wl_loc_place: each member GPU's part of an array on that GPU;
**   - wl_upload_copies: a small read-only array duplicated on every
**     member (the seed's FIR filter), each launch reading its own copy;
**   - launches (wl_launch*) on MGS_GPU_ALL become one launch per member
**     with a predicate (mgs_launch_kernel_pred): member g runs the
**     work-groups of units [g * units / N, (g + 1) * units / N), where a
**     unit is one work-group of a 1-D grid or one row of work-groups
**     (all x for one y, z) of a 2-D or 3-D grid.
** Without the variant they do what the plain helpers do. */
int wl_ctx_locality(wl_ctx *c, int64_t on);
/* Places the array [outer][inner] of elem-byte elements at buf: element
** (o, i) belongs to unit i / per (units = ceil(inner / per), meant to
** match the launch's units); each page goes to the member owning the
** unit of its middle byte (clamped into the array), so a page shared by
** two members goes to the one with more of it. */
int wl_loc_place(wl_ctx *c, mgs_dptr buf, int64_t outer, int64_t inner,
                 size_t elem, int64_t per);
/* wl_upload on gpu (host NULL: wl_alloc); in the variant one copy per
** member (*out = copy 0). */
int wl_upload_copies(wl_ctx *c, int gpu, const void *host, size_t bytes,
                     mgs_dptr *out);
/* mgs_memcpy_h2d into d and, in the variant, every copy of d. */
int wl_h2d_copies(wl_ctx *c, mgs_dptr d, const void *host, size_t bytes);
/* Member of work-group wg of a grid of ng work-groups per dimension, for
** `members` members (the rule above). */
int wl_loc_member(const uint32_t ng[3], uint32_t wg, int members);
/* One launch of l (gpu MGS_GPU_ALL, args packed) per member, by the
** rule above; ptr_off[0 .. nptr) are the offsets of l's pointer
** arguments, where copied arrays are replaced by the member's copy. */
int wl_loc_launch(wl_ctx *c, mgs_kernel *k, const mgs_launch *l,
                  const uint32_t *ptr_off, int nptr);
/* Test hook, a broken variant: work-group 0 of every variant launch runs
** on the next member (MISPLACE: still verifies, but its accesses cross
** GPUs) or nowhere (SKIP: verification fails). */
enum { WL_LOC_FAULT_NONE, WL_LOC_FAULT_MISPLACE, WL_LOC_FAULT_SKIP };
void wl_inject_loc_fault(int how);

#endif
