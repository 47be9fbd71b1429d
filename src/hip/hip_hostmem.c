/*
** libmgsim-hip page-locked host memory seen by kernels ("zero-copy"):
** hipHostGetDevicePointer, hipHostGetFlags, hipHostRegister and
** hipHostUnregister.
**
** Host memory of the program is shared memory here (hip_memory.c): a host
** buffer plus a device shadow, ownership moving at launches and blocking
** calls. As with ROCm, where pinned memory has one address for host and
** device, the device pointer of such memory is its host pointer: a kernel
** argument pointing into it is translated to the shadow at launch
** (hip_launch.c). hipHostRegister makes the program's own memory shared the
** same way (the program keeps ownership of the bytes; the runtime only adds
** a shadow). In timing mode the shadow of such memory is normally in host
** frames (memory.zero_copy = host_link, mgs_malloc_host), so kernels reach
** it over the host link (docs/hip.md).
*/
#include "hip/hip_internal.h"
#include "mgsim/errors.h"

hipError_t hipHostGetDevicePointer(void **devPtr, void *hstPtr,
                                   unsigned int flags)
{
    const char *call = "hipHostGetDevicePointer";
    if (!devPtr || !hstPtr)
        return mhip_fail(hipErrorInvalidValue, call, "NULL argument");
    if (flags != 0)
        return mhip_fail(hipErrorInvalidValue, call, "flags must be 0");
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    mhip_alloc *a = mhip_alloc_find_host(hstPtr);
    if (!a || a->kind != MHIP_MEM_HOST)
        return mhip_fail(hipErrorInvalidValue, call,
                         "%p is not host memory from hipHostMalloc or "
                         "hipHostRegister", hstPtr);
    *devPtr = hstPtr;
    return hipSuccess;
}

hipError_t hipHostGetFlags(unsigned int *flagsPtr, void *hostPtr)
{
    const char *call = "hipHostGetFlags";
    if (!flagsPtr || !hostPtr)
        return mhip_fail(hipErrorInvalidValue, call, "NULL argument");
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    mhip_alloc *a = mhip_alloc_find_host(hostPtr);
    if (!a || a->kind != MHIP_MEM_HOST)
        return mhip_fail(hipErrorInvalidValue, call,
                         "%p is not host memory from hipHostMalloc or "
                         "hipHostRegister", hostPtr);
    *flagsPtr = a->flags;
    return hipSuccess;
}

hipError_t hipHostRegister(void *hostPtr, size_t sizeBytes,
                           unsigned int flags)
{
    const char *call = "hipHostRegister";
    if (!hostPtr || sizeBytes == 0)
        return mhip_fail(hipErrorInvalidValue, call, "NULL or empty range");
    const unsigned known = hipHostRegisterPortable | hipHostRegisterMapped |
                           hipHostRegisterIoMemory;
    if (flags & ~known)
        return mhip_fail(hipErrorInvalidValue, call, "unsupported flags 0x%x",
                         flags);
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    const char *p = hostPtr;
    if (mhip_alloc_find_host(p) || mhip_alloc_find_host(p + sizeBytes - 1))
        return mhip_fail(hipErrorHostMemoryAlreadyRegistered, call,
                         "%p + %zu bytes overlaps host memory already known "
                         "to HIP", hostPtr, sizeBytes);
    mhip_alloc *a;
    if ((e = mhip_alloc_record(MHIP_MEM_HOST, sizeBytes, &a, call))) return e;
    a->host = hostPtr;
    a->registered = true;
    a->flags = flags;
    return hipSuccess;
}

hipError_t hipHostUnregister(void *hostPtr)
{
    const char *call = "hipHostUnregister";
    if (!hostPtr) return mhip_fail(hipErrorInvalidValue, call, "NULL pointer");
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    mhip_alloc *a = mhip_alloc_find_host(hostPtr);
    if (!a || !a->registered || a->host != hostPtr)
        return mhip_fail(hipErrorHostMemoryNotRegistered, call,
                         "%p is not the start of memory registered with "
                         "hipHostRegister", hostPtr);
    if ((e = mhip_sync_all())) return e; /* the bytes come home first */
    int rc = mgs_free(mhip_g.rt, a->dev);
    mhip_alloc_forget(a);
    if (rc) return mhip_fail(mhip_from_mgs(rc), call, "%s", mgs_error_msg());
    return hipSuccess;
}
