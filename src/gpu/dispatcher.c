/*
** Round-robin work-group placement over a private resource table
** (dispatcher.h). Invariant: resident[i] equals the number of successful
** places on CU i minus the releases on it, and res[i] equals an empty CU's
** table minus the resources of those work-groups.
*/
#include "gpu/dispatcher.h"

#include <assert.h>
#include <stdlib.h>

#include "util/xmalloc.h"

void gpu_dispatcher_init(gpu_dispatcher *d, uint32_t ncus,
                         const cu_config *cu_cfg)
{
    assert(ncus >= 1);
    d->ncus = ncus;
    d->cu_cfg = *cu_cfg;
    d->res = mgs_xcalloc(ncus, sizeof *d->res);
    d->resident = mgs_xcalloc(ncus, sizeof *d->resident);
    for (uint32_t i = 0; i < ncus; i++)
        cu_res_init(&d->res[i], cu_cfg);
    d->next_cu = 0;
}

void gpu_dispatcher_destroy(gpu_dispatcher *d)
{
    free(d->res);
    free(d->resident);
    d->res = NULL;
    d->resident = NULL;
}

bool gpu_dispatcher_can_run(const gpu_dispatcher *d, const gpu_launch *l)
{
    return cu_res_fits_empty(&d->cu_cfg, l);
}

bool gpu_dispatcher_place(gpu_dispatcher *d, const gpu_launch *l,
                          uint32_t *cu_out,
                          uint8_t simd_of_wave[GCN_EMU_MAX_WAVES])
{
    for (uint32_t k = 0; k < d->ncus; k++) {
        uint32_t i = (d->next_cu + k) % d->ncus;
        if (cu_res_reserve(&d->res[i], l, simd_of_wave)) {
            d->resident[i]++;
            d->next_cu = (i + 1) % d->ncus;
            *cu_out = i;
            return true;
        }
    }
    return false;
}

void gpu_dispatcher_release(gpu_dispatcher *d, uint32_t cu_index,
                            const gpu_launch *l,
                            const uint8_t simd_of_wave[GCN_EMU_MAX_WAVES])
{
    assert(cu_index < d->ncus && d->resident[cu_index] > 0);
    cu_res_release(&d->res[cu_index], l, simd_of_wave);
    d->resident[cu_index]--;
}

uint64_t gpu_dispatcher_resident(const gpu_dispatcher *d)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < d->ncus; i++)
        n += d->resident[i];
    return n;
}
