/*
** libmgsim-hip pitched (2-D) and 3-D linear memory: hipMallocPitch,
** hipMemAllocPitch, hipMalloc3D, hipMemcpy2D, hipMemcpy3D, hipMemset2D,
** hipMemset3D and their Async forms (which, like every copy here, complete
** before returning).
**
** Rows are padded to a pitch that is a multiple of MHIP_PITCH_ALIGN bytes
** (assumed: 256, the texturePitchAlignment hipGetDeviceProperties
** reports; ROCm pads to its image pitch alignment, which is device
** dependent). A 2-D or 3-D copy is one hipMemcpy per row, or a single one
** when both sides are contiguous; each row is checked against its
** allocation like any copy. HIP arrays (hipArray_t) are not provided: a
** 3-D copy naming one is hipErrorNotSupported.
*/
#include <stdint.h>

#include "hip/hip_internal.h"

#define MHIP_PITCH_ALIGN 256u

hipError_t hipMallocPitch(void **ptr, size_t *pitch, size_t width,
                          size_t height)
{
    const char *call = "hipMallocPitch";
    if (!ptr || !pitch)
        return mhip_fail(hipErrorInvalidValue, call, "NULL argument");
    size_t p = (width + MHIP_PITCH_ALIGN - 1) / MHIP_PITCH_ALIGN *
               MHIP_PITCH_ALIGN;
    if (height && p > SIZE_MAX / height)
        return mhip_fail(hipErrorInvalidValue, call,
                         "%zu rows of %zu bytes overflow", height, width);
    *pitch = p;
    return hipMalloc(ptr, p * height);
}

hipError_t hipMemAllocPitch(hipDeviceptr_t *dptr, size_t *pitch,
                            size_t widthInBytes, size_t height,
                            unsigned int elementSizeBytes)
{
    if (elementSizeBytes != 4 && elementSizeBytes != 8 &&
        elementSizeBytes != 16)
        return mhip_fail(hipErrorInvalidValue, "hipMemAllocPitch",
                         "element size %u (4, 8 or 16)", elementSizeBytes);
    return hipMallocPitch((void **)dptr, pitch, widthInBytes, height);
}

hipError_t hipMalloc3D(hipPitchedPtr *pitchedDevPtr, hipExtent extent)
{
    const char *call = "hipMalloc3D";
    if (!pitchedDevPtr)
        return mhip_fail(hipErrorInvalidValue, call, "NULL argument");
    size_t pitch = 0;
    if (extent.depth && extent.height > SIZE_MAX / extent.depth)
        return mhip_fail(hipErrorInvalidValue, call, "extent overflows");
    void *p = NULL;
    hipError_t e = hipMallocPitch(&p, &pitch, extent.width,
                                  extent.height * extent.depth);
    if (e) return e;
    *pitchedDevPtr = (hipPitchedPtr){.ptr = p, .pitch = pitch,
                                     .xsize = extent.width,
                                     .ysize = extent.height};
    return hipSuccess;
}

/* rows copies of width bytes, rows dpitch/spitch apart. */
static hipError_t copy_rows(char *dst, size_t dpitch, const char *src,
                            size_t spitch, size_t width, size_t rows,
                            hipMemcpyKind kind, const char *call)
{
    if (width == 0 || rows == 0) return hipSuccess;
    if (!dst || !src)
        return mhip_fail(hipErrorInvalidValue, call, "NULL pointer");
    if (width > dpitch || width > spitch)
        return mhip_fail(hipErrorInvalidPitchValue, call,
                         "width %zu exceeds a pitch (%zu, %zu)", width,
                         dpitch, spitch);
    if (dpitch == width && spitch == width && rows <= SIZE_MAX / width)
        return mhip_memcpy(dst, src, width * rows, kind, call);
    for (size_t r = 0; r < rows; r++) {
        hipError_t e = mhip_memcpy(dst + r * dpitch, src + r * spitch, width,
                                   kind, call);
        if (e) return e;
    }
    return hipSuccess;
}

hipError_t hipMemcpy2D(void *dst, size_t dpitch, const void *src,
                       size_t spitch, size_t width, size_t height,
                       hipMemcpyKind kind)
{
    return copy_rows(dst, dpitch, src, spitch, width, height, kind,
                     "hipMemcpy2D");
}

hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                            size_t spitch, size_t width, size_t height,
                            hipMemcpyKind kind, hipStream_t stream)
{
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, "hipMemcpy2DAsync",
                         "invalid stream");
    return copy_rows(dst, dpitch, src, spitch, width, height, kind,
                     "hipMemcpy2DAsync");
}

static hipError_t copy_3d(const struct hipMemcpy3DParms *p, const char *call)
{
    if (!p) return mhip_fail(hipErrorInvalidValue, call, "NULL parameters");
    if (p->srcArray || p->dstArray)
        return mhip_fail(hipErrorNotSupported, call,
                         "HIP arrays are not provided; use pitched pointers");
    const hipPitchedPtr *s = &p->srcPtr, *d = &p->dstPtr;
    const hipExtent *x = &p->extent;
    if (!s->ysize || !d->ysize)
        return mhip_fail(hipErrorInvalidValue, call,
                         "pitched pointers need ysize (rows per slice)");
    for (size_t z = 0; z < x->depth; z++) {
        const char *sp = (const char *)s->ptr +
                         ((p->srcPos.z + z) * s->ysize + p->srcPos.y) *
                             s->pitch + p->srcPos.x;
        char *dp = (char *)d->ptr +
                   ((p->dstPos.z + z) * d->ysize + p->dstPos.y) * d->pitch +
                   p->dstPos.x;
        hipError_t e = copy_rows(dp, d->pitch, sp, s->pitch, x->width,
                                 x->height, p->kind, call);
        if (e) return e;
    }
    return hipSuccess;
}

hipError_t hipMemcpy3D(const struct hipMemcpy3DParms *p)
{
    return copy_3d(p, "hipMemcpy3D");
}

hipError_t hipMemcpy3DAsync(const struct hipMemcpy3DParms *p,
                            hipStream_t stream)
{
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, "hipMemcpy3DAsync",
                         "invalid stream");
    return copy_3d(p, "hipMemcpy3DAsync");
}

static hipError_t set_rows(char *dst, size_t pitch, int value, size_t width,
                           size_t rows, const char *call)
{
    if (width == 0 || rows == 0) return hipSuccess;
    if (width > pitch)
        return mhip_fail(hipErrorInvalidPitchValue, call,
                         "width %zu exceeds the pitch %zu", width, pitch);
    for (size_t r = 0; r < rows; r++) {
        hipError_t e = hipMemset(dst + r * pitch, value, width);
        if (e) return e;
    }
    return hipSuccess;
}

hipError_t hipMemset2D(void *dst, size_t pitch, int value, size_t width,
                       size_t height)
{
    return set_rows(dst, pitch, value, width, height, "hipMemset2D");
}

hipError_t hipMemset2DAsync(void *dst, size_t pitch, int value, size_t width,
                            size_t height, hipStream_t stream)
{
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, "hipMemset2DAsync",
                         "invalid stream");
    return set_rows(dst, pitch, value, width, height, "hipMemset2DAsync");
}

hipError_t hipMemset3D(hipPitchedPtr pitchedDevPtr, int value,
                       hipExtent extent)
{
    if (extent.depth > 1 && pitchedDevPtr.ysize < extent.height)
        return mhip_fail(hipErrorInvalidValue, "hipMemset3D",
                         "ysize %zu < extent height %zu",
                         pitchedDevPtr.ysize, extent.height);
    for (size_t z = 0; z < extent.depth; z++) {
        char *slice = (char *)pitchedDevPtr.ptr +
                      z * pitchedDevPtr.ysize * pitchedDevPtr.pitch;
        hipError_t e = set_rows(slice, pitchedDevPtr.pitch, value,
                                extent.width, extent.height, "hipMemset3D");
        if (e) return e;
    }
    return hipSuccess;
}

hipError_t hipMemset3DAsync(hipPitchedPtr pitchedDevPtr, int value,
                            hipExtent extent, hipStream_t stream)
{
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, "hipMemset3DAsync",
                         "invalid stream");
    return hipMemset3D(pitchedDevPtr, value, extent);
}
