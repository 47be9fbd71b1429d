/*
** libmgsim-hip memory: hipMalloc/hipFree, managed and pinned host memory,
** copies in every direction (including peer copies) and memset.
**
** Pointer classes (mhip_alloc, hip_internal.h):
**   device  a simulated device address from mgs_malloc; never dereferenced
**           on the host; copies go through the runtime.
**   shared  hipMallocManaged / hipHostMalloc: a host buffer the program
**           dereferences, plus a device shadow of the same size. Ownership
**           protocol, per buffer (mhip_alloc.on_device):
**             host owns   --kernel launch: copy in-->        device owns
**             device owns --any blocking call: copy out-->   host owns
**           Blocking calls are hipDeviceSynchronize, hipStreamSynchronize,
**           hipEventSynchronize, hipMemcpy/hipMemset (all variants: they
**           complete before returning here), hipFree and exit. A HIP program
**           may touch managed memory on the host only after such a call
**           (concurrentManagedAccess is 0), so the copies never lose a
**           write the program is allowed to make; a buffer allocated after
**           the launch stays host-owned and is never overwritten.
**   host    anything else: ordinary host memory.
** Copies classify both pointers and, as ROCm 5.2 does (rocclr
** ihipMemcpy), take the direction from them whenever the runtime knows
** either pointer, whatever the hipMemcpyKind says; between two pointers it
** does not know only a host-to-host kind (or hipMemcpyDefault) is valid. A
** device address outside every allocation (freed, past an end) is
** hipErrorInvalidValue, never a wild host access. Copies are
** synchronous, except hipMemcpyAsync between a host buffer and device
** memory: it is queued on its stream of the runtime (mgs_memcpy_*_stream)
** and runs at the next blocking call together with the other streams'
** queued copies and launches, so copies and kernels of different devices,
** and of different streams of one device, overlap; each stream keeps its
** order. Its host buffer must stay valid until then, as in HIP.
*/
#include <stdlib.h>
#include <string.h>

#include "hip/hip_internal.h"
#include "mgsim/errors.h"
#include "runtime/devmem.h"
#include "util/xmalloc.h"

#define HOST_ALIGN 4096

/* ---- allocation table ------------------------------------------------- */

static mhip_alloc *alloc_add(void)
{
    if (mhip_g.nallocs == mhip_g.cap_allocs) {
        mhip_g.cap_allocs = mhip_g.cap_allocs ? 2 * mhip_g.cap_allocs : 64;
        mhip_g.allocs = mgs_xrealloc(mhip_g.allocs,
                                     mhip_g.cap_allocs * sizeof *mhip_g.allocs);
    }
    mhip_alloc *a = &mhip_g.allocs[mhip_g.nallocs++];
    memset(a, 0, sizeof *a);
    return a;
}

static void alloc_remove(mhip_alloc *a)
{
    size_t i = (size_t)(a - mhip_g.allocs);
    mhip_g.allocs[i] = mhip_g.allocs[--mhip_g.nallocs];
}

mhip_alloc *mhip_alloc_find_device(uint64_t addr)
{
    for (size_t i = 0; i < mhip_g.nallocs; i++) {
        mhip_alloc *a = &mhip_g.allocs[i];
        if (a->kind == MHIP_MEM_DEVICE && addr >= a->dev &&
            addr - a->dev < a->size)
            return a;
    }
    return NULL;
}

mhip_alloc *mhip_alloc_find_host(const void *p)
{
    uintptr_t addr = (uintptr_t)p;
    for (size_t i = 0; i < mhip_g.nallocs; i++) {
        mhip_alloc *a = &mhip_g.allocs[i];
        uintptr_t h = (uintptr_t)a->host;
        if (a->kind != MHIP_MEM_DEVICE && addr >= h && addr - h < a->size)
            return a;
    }
    return NULL;
}

static void note_device_range(uint64_t dev, size_t size)
{
    uint64_t end = dev + size + mhip_g.env.cfg.gpu_page_size;
    if (end > mhip_g.device_va_end) mhip_g.device_va_end = end;
}

/* Whether p lies where the runtime hands out device addresses (then, if no
** allocation holds it, it is a stale or overflowing device pointer). */
static bool in_device_space(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    return a >= MGS_DEVMEM_VA_BASE && a < mhip_g.device_va_end;
}

static void note_freed(const void *p)
{
    mhip_g.freed[mhip_g.nfreed++ % MHIP_FREED_KEEP] = p;
}

/* A new host buffer at p is no longer "already freed". */
static void forget_freed(const void *p)
{
    for (size_t i = 0; i < MHIP_FREED_KEEP; i++)
        if (mhip_g.freed[i] == p) mhip_g.freed[i] = NULL;
}

static bool was_freed(const void *p)
{
    for (size_t i = 0; p && i < MHIP_FREED_KEEP; i++)
        if (mhip_g.freed[i] == p) return true;
    return false;
}

void mhip_memory_release_all(void)
{
    for (size_t i = 0; i < mhip_g.nallocs; i++)
        if (!mhip_g.allocs[i].registered) free(mhip_g.allocs[i].host);
    free(mhip_g.allocs);
    mhip_g.allocs = NULL;
    mhip_g.nallocs = mhip_g.cap_allocs = 0;
}

/* ---- shared-memory ownership ------------------------------------------ */

hipError_t mhip_shared_in(mhip_alloc *a, const char *call)
{
    if (a->kind == MHIP_MEM_DEVICE || a->on_device) return hipSuccess;
    /* Zero-copy memory in host frames is host memory: the copy stands for
    ** the one buffer both sides see, so it takes no simulated time. */
    int rc = a->host_link
                 ? mgs_memcpy_h2d_untimed(mhip_g.rt, a->dev, a->host, a->size)
                 : mgs_memcpy_h2d(mhip_g.rt, a->dev, a->host, a->size);
    if (rc)
        return mhip_fail(mhip_from_mgs(rc), call,
                         "copying managed memory to the device: %s",
                         mgs_error_msg());
    mhip_g.counts.shared_in_bytes += a->size;
    a->on_device = true;
    return hipSuccess;
}

hipError_t mhip_shared_out(mhip_alloc *a, const char *call)
{
    if (!a->on_device) return hipSuccess;
    int rc = a->host_link
                 ? mgs_memcpy_d2h_untimed(mhip_g.rt, a->host, a->dev, a->size)
                 : mgs_memcpy_d2h(mhip_g.rt, a->host, a->dev, a->size);
    if (rc)
        return mhip_fail(mhip_from_mgs(rc), call,
                         "copying managed memory to the host: %s",
                         mgs_error_msg());
    mhip_g.counts.shared_out_bytes += a->size;
    a->on_device = false;
    return hipSuccess;
}

hipError_t mhip_shared_to_device(void)
{
    for (size_t i = 0; i < mhip_g.nallocs; i++) {
        hipError_t e = mhip_shared_in(&mhip_g.allocs[i], "kernel launch");
        if (e) return e;
    }
    return hipSuccess;
}

hipError_t mhip_sync_all(void)
{
    if (!mhip_g.initialised) return hipSuccess;
    int rc = mgs_synchronize(mhip_g.rt);
    if (rc)
        return mhip_fail(mhip_from_mgs(rc), "synchronize", "%s",
                         mgs_error_msg());
    for (size_t i = 0; i < mhip_g.nallocs; i++) {
        hipError_t e = mhip_shared_out(&mhip_g.allocs[i], "synchronize");
        if (e) return e;
    }
    hipError_t deferred = mhip_g.deferred_error; /* reported at its launch */
    mhip_g.deferred_error = hipSuccess;
    return mhip_ret(deferred);
}

/* ---- allocation --------------------------------------------------------- */

static hipError_t alloc_common(void **ptr, size_t size, mhip_mem_kind kind,
                               const char *call)
{
    if (!ptr) return mhip_fail(hipErrorInvalidValue, call, "ptr is NULL");
    *ptr = NULL;
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    if (size == 0) return hipSuccess; /* HIP: success, NULL pointer */
    mhip_alloc *a;
    if ((e = mhip_alloc_record(kind, size, &a, call))) return e;
    if (kind != MHIP_MEM_DEVICE) {
        size_t rounded = (size + HOST_ALIGN - 1) / HOST_ALIGN * HOST_ALIGN;
        a->host = aligned_alloc(HOST_ALIGN, rounded);
        if (!a->host) {
            mgs_free(mhip_g.rt, a->dev);
            mhip_alloc_forget(a);
            return mhip_fail(hipErrorOutOfMemory, call,
                             "%zu bytes of host memory", size);
        }
        /* Zeroed like the never-written shadow; host-owned from now. */
        memset(a->host, 0, rounded);
        forget_freed(a->host);
    }
    *ptr = a->host ? a->host : (void *)(uintptr_t)a->dev;
    return hipSuccess;
}

hipError_t hipMalloc(void **ptr, size_t size)
{
    return alloc_common(ptr, size, MHIP_MEM_DEVICE, "hipMalloc");
}

hipError_t hipMallocManaged(void **ptr, size_t size, unsigned int flags)
{
    if (flags != hipMemAttachGlobal && flags != hipMemAttachHost)
        return mhip_fail(hipErrorInvalidValue, "hipMallocManaged",
                         "unsupported flags 0x%x", flags);
    return alloc_common(ptr, size, MHIP_MEM_MANAGED, "hipMallocManaged");
}

hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
    const unsigned known = hipHostMallocPortable | hipHostMallocMapped |
                           hipHostMallocWriteCombined | hipHostMallocNumaUser |
                           hipHostMallocCoherent | hipHostMallocNonCoherent;
    if (flags & ~known)
        return mhip_fail(hipErrorInvalidValue, "hipHostMalloc",
                         "unsupported flags 0x%x", flags);
    hipError_t e = alloc_common(ptr, size, MHIP_MEM_HOST, "hipHostMalloc");
    mhip_alloc *a = e == hipSuccess && *ptr ? mhip_alloc_find_host(*ptr) : NULL;
    if (a) a->flags = flags;
    return e;
}

hipError_t hipMallocHost(void **ptr, size_t size)
{
    return alloc_common(ptr, size, MHIP_MEM_HOST, "hipMallocHost");
}

static hipError_t free_common(void *ptr, bool host_api, const char *call)
{
    if (!ptr) return hipSuccess;
    /* After exit-time teardown everything is already released: a static
    ** destructor's late hipFree gets the HIP code, without noise. */
    if (mhip_g.finalised) return mhip_ret(hipErrorDeinitialized);
    if (!mhip_g.initialised)
        return mhip_fail(hipErrorInvalidValue, call,
                         "%p was not allocated by libmgsim-hip", ptr);
    mhip_alloc *a = mhip_alloc_find_device((uintptr_t)ptr);
    if (!a) a = mhip_alloc_find_host(ptr);
    if (!a && was_freed(ptr))
        return mhip_fail(hipErrorInvalidValue, call,
                         "%p was already freed", ptr);
    if (!a || (a->host ? a->host != ptr : a->dev != (uintptr_t)ptr))
        return mhip_fail(hipErrorInvalidValue, call,
                         "%p is not the start of an allocation", ptr);
    if (a->symbol)
        return mhip_fail(hipErrorInvalidValue, call,
                         "%p is a module's global variable, not an "
                         "allocation", ptr);
    if (host_api && (a->kind != MHIP_MEM_HOST || a->registered))
        return mhip_fail(hipErrorInvalidValue, call,
                         "%p was not allocated by hipHostMalloc%s", ptr,
                         a->registered ? " (hipHostUnregister it)" : "");
    if (a->registered)
        return mhip_fail(hipErrorInvalidValue, call,
                         "%p is registered host memory (hipHostUnregister "
                         "it)", ptr);
    hipError_t e = mhip_sync_all(); /* hipFree synchronises */
    if (e) return e;
    int rc = mgs_free(mhip_g.rt, a->dev);
    free(a->host);
    alloc_remove(a);
    note_freed(ptr);
    if (rc)
        return mhip_fail(mhip_from_mgs(rc), call, "%s", mgs_error_msg());
    return hipSuccess;
}

hipError_t hipFree(void *ptr) { return free_common(ptr, false, "hipFree"); }
hipError_t hipHostFree(void *ptr)
{
    return free_common(ptr, true, "hipHostFree");
}
hipError_t hipFreeHost(void *ptr)
{
    return free_common(ptr, true, "hipFreeHost");
}

hipError_t hipMemGetInfo(size_t *free_bytes, size_t *total)
{
    if (!free_bytes || !total) return mhip_ret(hipErrorInvalidValue);
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    uint64_t used = 0;
    for (size_t i = 0; i < mhip_g.nallocs; i++)
        if (mhip_g.allocs[i].gpu == mhip_current_device())
            used += mhip_g.allocs[i].size;
    *total = mhip_g.env.cfg.platform_mem_per_gpu;
    *free_bytes = used < *total ? *total - used : 0;
    return hipSuccess;
}

hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attr,
                                   const void *ptr)
{
    if (!attr || !ptr) return mhip_ret(hipErrorInvalidValue);
    memset(attr, 0, sizeof *attr);
    mhip_alloc *a = mhip_g.initialised
                        ? mhip_alloc_find_device((uintptr_t)ptr) : NULL;
    if (!a && mhip_g.initialised) a = mhip_alloc_find_host(ptr);
    if (!a) return mhip_ret(hipErrorInvalidValue);
    attr->device = a->gpu;
    if (a->kind == MHIP_MEM_DEVICE) {
        attr->memoryType = hipMemoryTypeDevice;
        attr->devicePointer = (void *)ptr;
    } else {
        attr->memoryType = a->kind == MHIP_MEM_MANAGED ? hipMemoryTypeUnified
                                                       : hipMemoryTypeHost;
        attr->hostPointer = (void *)ptr;
        attr->devicePointer = (void *)ptr; /* the program's view: same */
        attr->isManaged = a->kind == MHIP_MEM_MANAGED;
    }
    return hipSuccess;
}

/* ---- copies --------------------------------------------------------------- */

typedef enum ptr_class { PTR_HOST, PTR_SHARED, PTR_DEVICE } ptr_class;

/* Classifies p for an access of n bytes; a device pointer whose range runs
** past its allocation is an error. */
static hipError_t classify(const void *p, size_t n, ptr_class *cls,
                           const char *call, const char *what)
{
    mhip_alloc *a = mhip_alloc_find_device((uintptr_t)p);
    if (a) {
        if ((uintptr_t)p - a->dev + n > a->size)
            return mhip_fail(hipErrorInvalidValue, call,
                             "%s %p + %zu bytes runs past its %zu-byte "
                             "allocation", what, p, n, a->size);
        *cls = PTR_DEVICE;
        return hipSuccess;
    }
    a = mhip_alloc_find_host(p);
    if (a) {
        if ((uintptr_t)p - (uintptr_t)a->host + n > a->size)
            return mhip_fail(hipErrorInvalidValue, call,
                             "%s %p + %zu bytes runs past its %zu-byte "
                             "allocation", what, p, n, a->size);
        *cls = PTR_SHARED;
        return hipSuccess;
    }
    if (in_device_space(p))
        return mhip_fail(hipErrorInvalidValue, call,
                         "%s %p is a device address outside every "
                         "allocation (%s)", what, p,
                         was_freed(p) ? "freed" : "freed, or past an end");
    *cls = PTR_HOST;
    return hipSuccess;
}

static const char *kind_name(hipMemcpyKind k)
{
    switch (k) {
    case hipMemcpyHostToHost: return "hipMemcpyHostToHost";
    case hipMemcpyHostToDevice: return "hipMemcpyHostToDevice";
    case hipMemcpyDeviceToHost: return "hipMemcpyDeviceToHost";
    case hipMemcpyDeviceToDevice: return "hipMemcpyDeviceToDevice";
    default: return "hipMemcpyDefault";
    }
}

/* The copy engine behind every memcpy variant. */
/* async: hipMemcpyAsync (a host-device copy is queued, see below). */
static hipError_t copy_as(void *dst, const void *src, size_t n,
                          hipMemcpyKind kind, const char *call, bool async,
                          uint32_t stream)
{
    if ((unsigned)kind > (unsigned)hipMemcpyDefault)
        return mhip_fail(hipErrorInvalidMemcpyDirection, call,
                         "unsupported hipMemcpyKind %d", (int)kind);
    if (n == 0) return hipSuccess;
    if (!dst || !src)
        return mhip_fail(hipErrorInvalidValue, call, "%s pointer is NULL",
                         dst ? "source" : "destination");
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    ptr_class dc, sc;
    if ((e = classify(dst, n, &dc, call, "destination")) ||
        (e = classify(src, n, &sc, call, "source")))
        return e;
    /* The pointers give the direction, as in ROCm 5.2 (rocclr
    ** ihipMemcpy ignores the kind when it knows either pointer; the
    ** bandwidth sample of rocm-examples copies host to device with
    ** hipMemcpyDeviceToHost). Between two pointers the runtime does not
    ** know, a kind that names device memory is wrong. */
    if (dc == PTR_HOST && sc == PTR_HOST && kind != hipMemcpyHostToHost &&
        kind != hipMemcpyDefault)
        return mhip_fail(hipErrorInvalidValue, call,
                         "neither %p nor %p is device, managed or "
                         "registered host memory (%s)", dst, src,
                         kind_name(kind));
    int rc = MGS_OK;
    mgs_rt *rt = mhip_g.rt;
    if (async && dc == PTR_DEVICE && sc == PTR_HOST) {
        rc = mgs_memcpy_h2d_stream(rt, stream, (uintptr_t)dst, src, n);
        mhip_g.counts.h2d_bytes += n;
    } else if (async && sc == PTR_DEVICE && dc == PTR_HOST) {
        rc = mgs_memcpy_d2h_stream(rt, stream, dst, (uintptr_t)src, n);
        mhip_g.counts.d2h_bytes += n;
    } else if ((e = mhip_sync_all())) {
        return e;
    } else if (dc == PTR_DEVICE && sc == PTR_DEVICE) {
        rc = mgs_memcpy_d2d(rt, (uintptr_t)dst, (uintptr_t)src, n);
        mhip_g.counts.d2d_bytes += n;
    } else if (dc == PTR_DEVICE) {
        rc = mgs_memcpy_h2d(rt, (uintptr_t)dst, src, n);
        mhip_g.counts.h2d_bytes += n;
    } else if (sc == PTR_DEVICE) {
        rc = mgs_memcpy_d2h(rt, dst, (uintptr_t)src, n);
        mhip_g.counts.d2h_bytes += n;
    } else {
        memmove(dst, src, n);
    }
    if (rc) return mhip_fail(mhip_from_mgs(rc), call, "%s", mgs_error_msg());
    return hipSuccess;
}

static hipError_t copy(void *dst, const void *src, size_t n,
                       hipMemcpyKind kind, const char *call)
{
    return copy_as(dst, src, n, kind, call, false, 0);
}

hipError_t mhip_alloc_record(mhip_mem_kind kind, size_t size,
                             mhip_alloc **out, const char *call)
{
    int gpu = mhip_current_device();
    mgs_dptr dev;
    /* A managed buffer's shadow is managed memory of the runtime: with
    ** memory.management = migrate it starts on the host and each page
    ** moves to the first GPU that touches it (docs/memory-management.md). */
    int host_link = 0;
    int rc = kind == MHIP_MEM_MANAGED
                 ? mgs_malloc_managed(mhip_g.rt, size, &dev)
             : kind == MHIP_MEM_HOST
                 ? mgs_malloc_host(mhip_g.rt, mhip_runtime_gpu(gpu), size,
                                   &dev, &host_link)
                 : mgs_malloc(mhip_g.rt, mhip_runtime_gpu(gpu), size, &dev);
    if (rc)
        return mhip_fail(mhip_from_mgs(rc), call, "%zu bytes on device %d: %s",
                         size, gpu, mgs_error_msg());
    mhip_alloc *a = alloc_add();
    a->kind = kind;
    a->gpu = gpu;
    a->dev = dev;
    a->size = size;
    a->host_link = host_link;
    note_device_range(dev, size);
    *out = a;
    return hipSuccess;
}

void mhip_alloc_forget(mhip_alloc *a) { alloc_remove(a); }

hipError_t mhip_memcpy(void *dst, const void *src, size_t n,
                       hipMemcpyKind kind, const char *call)
{
    return copy(dst, src, n, kind, call);
}

void mhip_alloc_add_symbol(int gpu, uint64_t dev, size_t size)
{
    mhip_alloc *a = mhip_alloc_find_device(dev);
    if (a && a->symbol && a->dev == dev) return;
    a = alloc_add();
    a->kind = MHIP_MEM_DEVICE;
    a->symbol = true;
    a->gpu = gpu;
    a->dev = dev;
    a->size = size;
    note_device_range(dev, size);
}

hipError_t hipMemcpy(void *dst, const void *src, size_t n, hipMemcpyKind k)
{
    return copy(dst, src, n, k, "hipMemcpy");
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t n,
                          hipMemcpyKind k, hipStream_t stream)
{
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, "hipMemcpyAsync",
                         "invalid stream");
    return copy_as(dst, src, n, k, "hipMemcpyAsync", true,
                   mhip_stream_id(stream));
}

/* A synchronous copy in the stream's order: the work issued before it
** runs first, as for hipMemcpy. */
hipError_t hipMemcpyWithStream(void *dst, const void *src, size_t n,
                               hipMemcpyKind k, hipStream_t stream)
{
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, "hipMemcpyWithStream",
                         "invalid stream");
    return copy(dst, src, n, k, "hipMemcpyWithStream");
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t n)
{
    return copy(dst, src, n, hipMemcpyHostToDevice, "hipMemcpyHtoD");
}

hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t n)
{
    return copy(dst, src, n, hipMemcpyDeviceToHost, "hipMemcpyDtoH");
}

hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n)
{
    return copy(dst, src, n, hipMemcpyDeviceToDevice, "hipMemcpyDtoD");
}

static hipError_t check_device(int dev, const char *call, const char *what)
{
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    if (dev < 0 || dev >= mgs_rt_num_gpus(mhip_g.rt))
        return mhip_fail(hipErrorInvalidDevice, call,
                         "%s %d is not in 0..%d", what, dev,
                         mgs_rt_num_gpus(mhip_g.rt) - 1);
    return hipSuccess;
}

static hipError_t peer_copy(void *dst, int dst_dev, const void *src,
                            int src_dev, size_t n, const char *call)
{
    hipError_t e;
    if ((e = check_device(dst_dev, call, "destination device")) ||
        (e = check_device(src_dev, call, "source device")))
        return e;
    e = copy(dst, src, n, hipMemcpyDeviceToDevice, call);
    if (e == hipSuccess && dst_dev != src_dev) {
        /* Counted separately from same-device copies; copy() added it to
        ** the device-to-device total too. */
        mhip_g.counts.peer_bytes += n;
        mhip_g.counts.d2d_bytes -= n;
    }
    return e;
}

hipError_t hipMemcpyPeer(void *dst, int dst_dev, const void *src, int src_dev,
                         size_t n)
{
    return peer_copy(dst, dst_dev, src, src_dev, n, "hipMemcpyPeer");
}

hipError_t hipMemcpyPeerAsync(void *dst, int dst_dev, const void *src,
                              int src_dev, size_t n, hipStream_t stream)
{
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, "hipMemcpyPeerAsync",
                         "invalid stream");
    return peer_copy(dst, dst_dev, src, src_dev, n, "hipMemcpyPeerAsync");
}

/* ---- memset ------------------------------------------------------------- */

static hipError_t fill(void *dst, int value, size_t n, const char *call)
{
    if (n == 0) return hipSuccess;
    if (!dst)
        return mhip_fail(hipErrorInvalidValue, call, "pointer is NULL");
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    ptr_class c;
    if ((e = classify(dst, n, &c, call, "destination"))) return e;
    if (c == PTR_HOST)
        return mhip_fail(hipErrorInvalidValue, call,
                         "%p is not device or managed memory", dst);
    if ((e = mhip_sync_all())) return e;
    if (c == PTR_SHARED) {
        memset(dst, value, n);
        return hipSuccess;
    }
    int rc = mgs_memset(mhip_g.rt, (uintptr_t)dst, value, n);
    if (rc) return mhip_fail(mhip_from_mgs(rc), call, "%s", mgs_error_msg());
    return hipSuccess;
}

hipError_t hipMemset(void *dst, int value, size_t n)
{
    return fill(dst, value, n, "hipMemset");
}

hipError_t hipMemsetAsync(void *dst, int value, size_t n, hipStream_t stream)
{
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, "hipMemsetAsync",
                         "invalid stream");
    return fill(dst, value, n, "hipMemsetAsync");
}

hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char value, size_t n)
{
    return fill(dst, value, n, "hipMemsetD8");
}

hipError_t hipMemsetD32(hipDeviceptr_t dst, int value, size_t count)
{
    if (count == 0) return hipSuccess;
    /* The runtime sets bytes; a 32-bit pattern is byte-uniform only for
    ** some values, so write it through a host staging copy otherwise. */
    uint8_t b = (uint8_t)value;
    uint32_t u = (uint32_t)value;
    if (u == b * 0x01010101u) return fill(dst, b, count * 4, "hipMemsetD32");
    if (count > SIZE_MAX / 4)
        return mhip_fail(hipErrorInvalidValue, "hipMemsetD32",
                         "count %zu too large", count);
    uint32_t *tmp = mgs_xmalloc(count * 4);
    for (size_t i = 0; i < count; i++) tmp[i] = u;
    hipError_t e = copy(dst, tmp, count * 4, hipMemcpyHostToDevice,
                        "hipMemsetD32");
    free(tmp);
    return e;
}
