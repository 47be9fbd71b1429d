/*
** xtreme1: HALCONE Xtreme1 synthetic benchmark (seed 000 §4.3.2): repeated
** writes by each CU to its own slice (no sharing). The host program is
** shared with the other Xtreme variants; see workloads/xtreme1/xtreme.c for
** the steps, placement and verification.
*/
#include "workloads/xtreme1/xtreme.h"

static int xtreme1_run(mgs_rt *rt, const wl_args *a)
{
    return xtreme_run(rt, a, 1);
}

const mgs_workload wl_xtreme1 = {
    .name = "xtreme1",
    .suite = "HALCONE",
    .pattern = "partitioned",
    .description = "C = A + B by slices: "
                   "repeated writes by each CU to its own slice (no sharing)",
    .kernel_file = "xtreme1.hsaco",
    .params = { XTREME_PARAMS },
    .run = xtreme1_run,
    .footprint = xtreme_footprint,
};
