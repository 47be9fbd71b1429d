/*
** xtreme3: HALCONE Xtreme3 synthetic benchmark (seed 000 §4.3.2): a CU
** rewrites a slice read by a CU of another GPU. The host program is shared
** with the other Xtreme variants; see workloads/xtreme1/xtreme.c for the
** steps, placement and verification.
*/
#include "workloads/xtreme1/xtreme.h"

static int xtreme3_run(mgs_rt *rt, const wl_args *a)
{
    return xtreme_run(rt, a, 3);
}

const mgs_workload wl_xtreme3 = {
    .name = "xtreme3",
    .suite = "HALCONE",
    .pattern = "irregular",
    .description = "C = A + B by slices: "
                   "a CU rewrites a slice read by a CU of another GPU",
    .kernel_file = "xtreme1.hsaco",
    .params = { XTREME_PARAMS },
    .run = xtreme3_run,
    .footprint = xtreme_footprint,
};
