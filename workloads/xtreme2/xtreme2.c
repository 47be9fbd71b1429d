/*
** xtreme2: HALCONE Xtreme2 synthetic benchmark (seed 000 §4.3.2): a CU
** rewrites a slice read by another CU of its GPU. The host program is shared
** with the other Xtreme variants; see workloads/xtreme1/xtreme.c for the
** steps, placement and verification.
*/
#include "workloads/xtreme1/xtreme.h"

static int xtreme2_run(mgs_rt *rt, const wl_args *a)
{
    return xtreme_run(rt, a, 2);
}

const mgs_workload wl_xtreme2 = {
    .name = "xtreme2",
    .suite = "HALCONE",
    .pattern = "partitioned",
    .description = "C = A + B by slices: "
                   "a CU rewrites a slice read by another CU of its GPU",
    .kernel_file = "xtreme1.hsaco",
    .params = { XTREME_PARAMS },
    .run = xtreme2_run,
    .footprint = xtreme_footprint,
};
