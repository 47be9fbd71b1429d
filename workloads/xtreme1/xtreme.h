/*
** Shared host program of the Xtreme synthetic benchmarks (HALCONE seed 000
** §4.3.2); xtreme1.c, ../xtreme2/xtreme2.c and ../xtreme3/xtreme3.c are thin
** wrappers around it. See xtreme.c for the model.
*/
#ifndef MGS_WORKLOADS_XTREME_H
#define MGS_WORKLOADS_XTREME_H

#include "workloads/workload.h"

/* variant 1, 2 or 3. */
int xtreme_run(mgs_rt *rt, const wl_args *a, int variant);
uint64_t xtreme_footprint(const wl_args *a);

#define XTREME_PARAMS                                                      \
    { "kb", 192, 98304, "size of each of A, B, C in KiB (192 KB - 96 MB)" }, \
    { "cus", 0, 0, "slices per GPU (0: one per CU, gpu.num_cus)" },       \
    { "reps", 10, 10, "times each repeated step runs" }

#endif
