/*
** libmgsim-hip global variables: the symbol API over the code objects'
** data segments.
**
** A __device__ or __constant__ variable lives in its code object's data
** segments, which the runtime places in each device's memory on first use
** (mgs_module_global, docs/codeobj.md "Data segments"): every device has
** its own copy, as with ROCm. The program names a variable by its host
** shadow (HIP_SYMBOL(x) is &x), which __hipRegisterVar recorded with the
** device symbol's name (hip_launch.c); hipModuleGetGlobal names it
** directly. The address found is entered in the allocation table as
** device memory, so hipMemcpy and kernel arguments accept it; hipFree
** refuses it.
*/
#include <string.h>

#include "hip/hip_internal.h"
#include "mgsim/errors.h"

hipError_t mhip_global_address(struct ihipModule_t *m, const char *name,
                               uint64_t *addr, size_t *size,
                               const char *call)
{
    hipError_t e = mhip_module_prepare(m, call);
    if (e) return e;
    int dev = mhip_current_device();
    mgs_dptr a = 0;
    size_t n = 0;
    int rc = mgs_module_global(m->rt_module, mhip_runtime_gpu(dev), name, &a,
                               &n);
    if (rc == MGS_ENOENT)
        return mhip_fail(hipErrorNotFound, call, "no global '%s' in %s",
                         name, m->what);
    if (rc)
        return mhip_fail(mhip_from_mgs(rc), call, "%s", mgs_error_msg());
    mhip_alloc_add_symbol(dev, a, n ? n : 1);
    *addr = a;
    *size = n;
    return hipSuccess;
}

/* The variable whose host shadow is `symbol`, on the current device. */
static hipError_t find_symbol(const void *symbol, uint64_t *addr,
                              size_t *size, const char *call)
{
    if (!symbol) return mhip_fail(hipErrorInvalidSymbol, call, "NULL symbol");
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    for (struct ihipModule_t *m = mhip_g.modules; m; m = m->next)
        for (size_t i = 0; i < m->nvars; i++)
            if (m->vars[i].host == symbol)
                return mhip_global_address(m, m->vars[i].name, addr, size,
                                           call);
    return mhip_fail(hipErrorInvalidSymbol, call,
                     "%p is not a __device__ or __constant__ variable "
                     "(pass HIP_SYMBOL(var))", symbol);
}

hipError_t hipGetSymbolAddress(void **devPtr, const void *symbol)
{
    const char *call = "hipGetSymbolAddress";
    if (!devPtr) return mhip_fail(hipErrorInvalidValue, call, "NULL devPtr");
    uint64_t a;
    size_t n;
    hipError_t e = find_symbol(symbol, &a, &n, call);
    if (e) return e;
    *devPtr = (void *)(uintptr_t)a;
    return hipSuccess;
}

hipError_t hipGetSymbolSize(size_t *size, const void *symbol)
{
    const char *call = "hipGetSymbolSize";
    if (!size) return mhip_fail(hipErrorInvalidValue, call, "NULL size");
    uint64_t a;
    return find_symbol(symbol, &a, size, call);
}

/* The device range [addr + offset, + n) of a symbol, checked. */
static hipError_t symbol_range(const void *symbol, size_t n, size_t offset,
                               uint64_t *at, const char *call)
{
    uint64_t a;
    size_t size;
    hipError_t e = find_symbol(symbol, &a, &size, call);
    if (e) return e;
    if (offset > size || n > size - offset)
        return mhip_fail(hipErrorInvalidValue, call,
                         "%zu bytes at offset %zu run past the %zu-byte "
                         "variable", n, offset, size);
    *at = a + offset;
    return hipSuccess;
}

/* A copy to (to_symbol) or from a variable: kind must name the device on
** the variable's side (or be hipMemcpyDefault). */
static hipError_t symbol_copy(const void *symbol, void *other, size_t n,
                              size_t offset, hipMemcpyKind kind,
                              bool to_symbol, const char *call)
{
    hipMemcpyKind across = to_symbol ? hipMemcpyHostToDevice
                                     : hipMemcpyDeviceToHost;
    if (kind != across && kind != hipMemcpyDeviceToDevice &&
        kind != hipMemcpyDefault)
        return mhip_fail(hipErrorInvalidMemcpyDirection, call,
                         "kind %d cannot copy %s a device variable",
                         (int)kind, to_symbol ? "to" : "from");
    uint64_t at = 0;
    hipError_t e = symbol_range(symbol, n, offset, &at, call);
    if (e) return e;
    void *var = (void *)(uintptr_t)at;
    return to_symbol ? mhip_memcpy(var, other, n, kind, call)
                     : mhip_memcpy(other, var, n, kind, call);
}

hipError_t hipMemcpyToSymbol(const void *symbol, const void *src,
                             size_t sizeBytes, size_t offset,
                             hipMemcpyKind kind)
{
    return symbol_copy(symbol, (void *)src, sizeBytes, offset, kind, true,
                       "hipMemcpyToSymbol");
}

hipError_t hipMemcpyFromSymbol(void *dst, const void *symbol,
                               size_t sizeBytes, size_t offset,
                               hipMemcpyKind kind)
{
    return symbol_copy(symbol, dst, sizeBytes, offset, kind, false,
                       "hipMemcpyFromSymbol");
}

/* The asynchronous forms complete before they return, like hipMemcpyAsync
** here (docs/hip.md). */
hipError_t hipMemcpyToSymbolAsync(const void *symbol, const void *src,
                                  size_t sizeBytes, size_t offset,
                                  hipMemcpyKind kind, hipStream_t stream)
{
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, "hipMemcpyToSymbolAsync",
                         "invalid stream");
    return hipMemcpyToSymbol(symbol, src, sizeBytes, offset, kind);
}

hipError_t hipMemcpyFromSymbolAsync(void *dst, const void *symbol,
                                    size_t sizeBytes, size_t offset,
                                    hipMemcpyKind kind, hipStream_t stream)
{
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, "hipMemcpyFromSymbolAsync",
                         "invalid stream");
    return hipMemcpyFromSymbol(dst, symbol, sizeBytes, offset, kind);
}
