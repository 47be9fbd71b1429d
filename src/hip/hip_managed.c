/*
** libmgsim-hip hints for managed memory: hipMemPrefetchAsync and
** hipMemAdvise.
**
** Managed memory here is a host buffer plus a device shadow whose
** ownership moves per buffer (hip_memory.c). A prefetch to a device makes
** the device own the buffer now (its bytes are copied to the shadow, as a
** launch would), so the next kernel starts without that copy; a prefetch
** to the host (hipCpuDeviceId) brings them back. Page migration
** (memory.management = migrate, docs/memory-management.md) still moves
** the shadow's pages to each GPU on its first touch. Advice is validated
** and recorded nowhere: the placement policies it asks for are the
** migration schemes' to decide. The GPS advice values of
** include/mgsim/hip_gps.h act on device memory (docs/gps.md).
*/
#include "hip/hip_internal.h"
#include "mgsim/errors.h"

/* include/mgsim/hip_gps.h's advice values. */
enum {
    MGSIM_GPS_ADVISE_ON = 0x47505300,
    MGSIM_GPS_ADVISE_MANUAL,
    MGSIM_GPS_ADVISE_SUBSCRIBE,
    MGSIM_GPS_ADVISE_UNSUBSCRIBE
};

/* The managed allocation holding [p, p + n). */
static hipError_t managed_range(const void *p, size_t n, mhip_alloc **out,
                                const char *call)
{
    if (!p || n == 0)
        return mhip_fail(hipErrorInvalidValue, call, "NULL or empty range");
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    mhip_alloc *a = mhip_alloc_find_host(p);
    if (!a || a->kind != MHIP_MEM_MANAGED)
        return mhip_fail(hipErrorInvalidValue, call,
                         "%p is not managed memory (hipMallocManaged)", p);
    if ((const char *)p - (const char *)a->host + n > a->size)
        return mhip_fail(hipErrorInvalidValue, call,
                         "%p + %zu bytes runs past its %zu-byte allocation",
                         p, n, a->size);
    *out = a;
    return hipSuccess;
}

static hipError_t check_target(int device, const char *call)
{
    if (device == hipCpuDeviceId) return hipSuccess;
    if (device < 0 || device >= mhip_visible_devices())
        return mhip_fail(hipErrorInvalidDevice, call,
                         "device %d is not hipCpuDeviceId or in 0..%d",
                         device, mhip_visible_devices() - 1);
    return hipSuccess;
}

hipError_t hipMemPrefetchAsync(const void *dev_ptr, size_t count, int device,
                               hipStream_t stream)
{
    const char *call = "hipMemPrefetchAsync";
    mhip_alloc *a;
    hipError_t e = managed_range(dev_ptr, count, &a, call);
    if (e || (e = check_target(device, call))) return e;
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, call, "invalid stream");
    if (device != hipCpuDeviceId) return mhip_shared_in(a, call);
    int rc = mgs_synchronize(mhip_g.rt);
    if (rc) return mhip_fail(mhip_from_mgs(rc), call, "%s", mgs_error_msg());
    return mhip_shared_out(a, call);
}

/* The GPS advice values (include/mgsim/hip_gps.h) on device memory. */
static hipError_t gps_advise(const void *dev_ptr, size_t count, int advice,
                             int device, const char *call)
{
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    uint64_t p = (uint64_t)(uintptr_t)dev_ptr;
    mhip_alloc *a = dev_ptr && count ? mhip_alloc_find_device(p) : NULL;
    if (!a || a->kind == MHIP_MEM_MANAGED || p - a->dev + count > a->size)
        return mhip_fail(hipErrorInvalidValue, call, "GPS advice: %p + %zu "
                         "bytes is not inside device memory (hipMalloc)",
                         dev_ptr, count);
    int rc;
    if (advice == MGSIM_GPS_ADVISE_ON || advice == MGSIM_GPS_ADVISE_MANUAL) {
        rc = mgs_gps_adopt(mhip_g.rt, p, count,
                           advice == MGSIM_GPS_ADVISE_MANUAL ? MGS_GPS_MANUAL
                                                             : MGS_GPS_AUTO);
    } else {
        if (device < 0 || device >= mhip_visible_devices())
            return mhip_fail(hipErrorInvalidDevice, call, "GPS advice: no "
                             "device %d", device);
        int gpu = mhip_runtime_gpu(device);
        rc = advice == MGSIM_GPS_ADVISE_SUBSCRIBE
                 ? mgs_gps_subscribe(mhip_g.rt, p, count, gpu)
                 : mgs_gps_unsubscribe(mhip_g.rt, p, count, gpu);
    }
    return rc ? mhip_fail(mhip_from_mgs(rc), call, "%s", mgs_error_msg())
              : hipSuccess;
}

hipError_t hipExtMgsimGpsTrackingStart(void)
{
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    int rc = mgs_gps_tracking_start(mhip_g.rt);
    return rc ? mhip_fail(mhip_from_mgs(rc), "hipExtMgsimGpsTrackingStart",
                          "%s", mgs_error_msg())
              : hipSuccess;
}

hipError_t hipExtMgsimGpsTrackingStop(void)
{
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    int rc = mgs_gps_tracking_stop(mhip_g.rt);
    return rc ? mhip_fail(mhip_from_mgs(rc), "hipExtMgsimGpsTrackingStop",
                          "%s", mgs_error_msg())
              : hipSuccess;
}

hipError_t hipMemAdvise(const void *dev_ptr, size_t count,
                        hipMemoryAdvise advice, int device)
{
    const char *call = "hipMemAdvise";
    if ((int)advice >= MGSIM_GPS_ADVISE_ON &&
        (int)advice <= MGSIM_GPS_ADVISE_UNSUBSCRIBE)
        return gps_advise(dev_ptr, count, (int)advice, device, call);
    mhip_alloc *a;
    hipError_t e = managed_range(dev_ptr, count, &a, call);
    if (e) return e;
    switch (advice) {
    case hipMemAdviseSetReadMostly:
    case hipMemAdviseUnsetReadMostly:
        return hipSuccess;   /* the device argument is ignored (CUDA) */
    case hipMemAdviseSetPreferredLocation:
    case hipMemAdviseUnsetPreferredLocation:
    case hipMemAdviseSetAccessedBy:
    case hipMemAdviseUnsetAccessedBy:
    case hipMemAdviseSetCoarseGrain:
    case hipMemAdviseUnsetCoarseGrain:
        return check_target(device, call);
    default:
        return mhip_fail(hipErrorInvalidValue, call, "unknown advice %d",
                         (int)advice);
    }
}
