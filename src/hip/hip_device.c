/*
** libmgsim-hip devices: counting and selecting the simulated GPUs, their
** properties (an R9 Nano as configured: CUs, clock, memory and L2 from the
** effective configuration), peer access, device-wide synchronisation.
**
** Device numbering: on the "unified" platform the program sees one device
** whose allocations and launches span every GPU (MGS_GPU_ALL); on every
** other platform device i is simulated GPU i.
**
** Peer access is recorded (so the error codes of enable/disable follow
** HIP) but does not gate anything: every simulated GPU can reach every
** device address, the platform model decides how (and how fast).
*/
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "hip/hip_internal.h"

static bool unified(void)
{
    return strcmp(mhip_g.env.cfg.platform_type, "unified") == 0;
}

int mhip_visible_devices(void)
{
    return unified() ? 1 : mgs_rt_num_gpus(mhip_g.rt);
}

int mhip_runtime_gpu(int dev) { return unified() ? MGS_GPU_ALL : dev; }

static hipError_t check_dev(int dev, const char *call)
{
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    if (dev < 0 || dev >= mhip_visible_devices())
        return mhip_fail(hipErrorInvalidDevice, call,
                         "device %d is not in 0..%d", dev,
                         mhip_visible_devices() - 1);
    return hipSuccess;
}

hipError_t hipGetDeviceCount(int *count)
{
    if (!count)
        return mhip_fail(hipErrorInvalidValue, "hipGetDeviceCount",
                         "count is NULL");
    *count = 0;
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e == hipErrorInitializationError ? hipErrorNoDevice
                                                            : e);
    *count = mhip_visible_devices();
    return hipSuccess;
}

hipError_t hipSetDevice(int dev)
{
    hipError_t e = check_dev(dev, "hipSetDevice");
    if (e) return e;
    mhip_set_current_device(dev);
    return hipSuccess;
}

hipError_t hipGetDevice(int *dev)
{
    if (!dev)
        return mhip_fail(hipErrorInvalidValue, "hipGetDevice", "NULL");
    *dev = mhip_current_device();
    return hipSuccess;
}

/* The driver API's device handle is the device's number. */
hipError_t hipDeviceGet(hipDevice_t *device, int ordinal)
{
    if (!device)
        return mhip_fail(hipErrorInvalidValue, "hipDeviceGet",
                         "device is NULL");
    hipError_t e = check_dev(ordinal, "hipDeviceGet");
    if (e) return e;
    *device = ordinal;
    return hipSuccess;
}

/* The deprecated context API: one context per device, the device's
** primary context (what ROCm's hipCtxCreate gives too), so creating one
** makes its device current and destroying it frees nothing. */
struct ihipCtx_t {
    int device;
};
static struct ihipCtx_t contexts[MHIP_MAX_GPUS];

hipError_t hipCtxCreate(hipCtx_t *ctx, unsigned int flags, hipDevice_t device)
{
    (void)flags; /* scheduling hints, as hipSetDeviceFlags */
    if (!ctx)
        return mhip_fail(hipErrorInvalidValue, "hipCtxCreate", "ctx is NULL");
    hipError_t e = check_dev(device, "hipCtxCreate");
    if (e) return e;
    contexts[device].device = device;
    mhip_set_current_device(device);
    *ctx = &contexts[device];
    return hipSuccess;
}

hipError_t hipCtxDestroy(hipCtx_t ctx)
{
    for (int i = 0; i < MHIP_MAX_GPUS; i++)
        if (ctx == &contexts[i]) return hipSuccess;
    return mhip_fail(hipErrorInvalidContext, "hipCtxDestroy",
                     "%p is not a context of hipCtxCreate", (void *)ctx);
}

hipError_t hipSetDeviceFlags(unsigned flags)
{
    /* Scheduling and host-mapping hints: meaningless for a simulator. */
    if (flags & ~(unsigned)(hipDeviceScheduleMask | hipDeviceMapHost |
                            hipDeviceLmemResizeToMax))
        return mhip_fail(hipErrorInvalidValue, "hipSetDeviceFlags",
                         "unsupported flags 0x%x", flags);
    return mhip_ret(mhip_ensure_init());
}

/* Fills p for device dev (valid). */
static void fill_props(hipDeviceProp_t *p, int dev)
{
    const mgs_config *cfg = &mhip_g.env.cfg;
    int span = unified() ? cfg->platform_gpus : 1; /* GPUs behind a device */
    memset(p, 0, sizeof *p);
    if (span > 1)
        snprintf(p->name, sizeof p->name,
                 "AMD Radeon R9 Nano x%d (mgsim, unified)", span);
    else
        snprintf(p->name, sizeof p->name, "AMD Radeon R9 Nano (mgsim)");
    snprintf(p->gcnArchName, sizeof p->gcnArchName, "gfx803");
    p->gcnArch = 803;
    p->major = 8;
    p->minor = 0;
    p->totalGlobalMem = (size_t)cfg->platform_mem_per_gpu * (size_t)span;
    p->sharedMemPerBlock = 65536;
    p->maxSharedMemoryPerMultiProcessor = 65536;
    p->regsPerBlock = 65536;
    p->warpSize = 64;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = p->maxThreadsDim[2] = 1024;
    p->maxGridSize[0] = p->maxGridSize[1] = p->maxGridSize[2] = INT_MAX;
    p->clockRate = (int)(cfg->gpu_freq / 1000);  /* kHz */
    p->clockInstructionRate = p->clockRate;
    p->memoryClockRate = 500000;                 /* HBM1, kHz */
    p->memoryBusWidth = 4096;                    /* bits */
    /* ROCm's value (hipInfo prints 2147483647): constant data is global
    ** memory, the figure only bounds a size that fits an int. */
    p->totalConstMem = p->totalGlobalMem < INT_MAX ? p->totalGlobalMem
                                                   : (size_t)INT_MAX;
    p->multiProcessorCount = cfg->gpu_num_cus * span;
    p->l2CacheSize = (int)(cfg->gpu_l2_size * (uint64_t)cfg->gpu_l2_banks);
    p->maxThreadsPerMultiProcessor =
        cfg->gpu_simds_per_cu * cfg->gpu_wf_slots_per_simd * 64;
    p->computeMode = 0;
    p->concurrentKernels = 1;
    p->pciDomainID = 0;
    p->pciBusID = dev + 1;
    p->pciDeviceID = 0;
    p->isMultiGpuBoard = mhip_visible_devices() > 1;
    p->canMapHostMemory = 1;
    p->memPitch = INT_MAX;
    p->textureAlignment = 256;
    p->texturePitchAlignment = 256;
    p->managedMemory = 1;
    p->directManagedMemAccessFromHost = 0;
    p->concurrentManagedAccess = 0;
    p->isLargeBar = 0;
    p->arch.hasGlobalInt32Atomics = 1;
    p->arch.hasGlobalFloatAtomicExch = 1;
    p->arch.hasSharedInt32Atomics = 1;
    p->arch.hasSharedFloatAtomicExch = 1;
    p->arch.hasFloatAtomicAdd = 1;
    p->arch.hasGlobalInt64Atomics = 1;
    p->arch.hasSharedInt64Atomics = 1;
    p->arch.hasDoubles = 1;
    p->arch.hasWarpVote = 1;
    p->arch.hasWarpBallot = 1;
    p->arch.hasWarpShuffle = 1;
    p->arch.hasFunnelShift = 1;
    p->arch.hasThreadFenceSystem = 1;
    p->arch.hasSyncThreadsExt = 1;
    p->arch.has3dGrid = 1;
    p->arch.hasDynamicParallelism = 0;
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int dev)
{
    if (!prop)
        return mhip_fail(hipErrorInvalidValue, "hipGetDeviceProperties",
                         "prop is NULL");
    hipError_t e = check_dev(dev, "hipGetDeviceProperties");
    if (e) return e;
    fill_props(prop, dev);
    return hipSuccess;
}

hipError_t hipDeviceGetName(char *name, int len, int dev)
{
    if (!name || len <= 0)
        return mhip_fail(hipErrorInvalidValue, "hipDeviceGetName", "NULL");
    hipError_t e = check_dev(dev, "hipDeviceGetName");
    if (e) return e;
    hipDeviceProp_t p;
    fill_props(&p, dev);
    snprintf(name, (size_t)len, "%s", p.name);
    return hipSuccess;
}

hipError_t hipDeviceGetAttribute(int *value, hipDeviceAttribute_t attr,
                                 int dev)
{
    const char *call = "hipDeviceGetAttribute";
    if (!value) return mhip_fail(hipErrorInvalidValue, call, "NULL value");
    hipError_t e = check_dev(dev, call);
    if (e) return e;
    hipDeviceProp_t p;
    fill_props(&p, dev);
    switch (attr) {
    case hipDeviceAttributeMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case hipDeviceAttributeMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case hipDeviceAttributeMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case hipDeviceAttributeMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case hipDeviceAttributeMaxGridDimX: *value = p.maxGridSize[0]; break;
    case hipDeviceAttributeMaxGridDimY: *value = p.maxGridSize[1]; break;
    case hipDeviceAttributeMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case hipDeviceAttributeMaxSharedMemoryPerBlock:
        *value = (int)p.sharedMemPerBlock; break;
    case hipDeviceAttributeSharedMemPerMultiprocessor:
        *value = (int)p.maxSharedMemoryPerMultiProcessor; break;
    case hipDeviceAttributeWarpSize: *value = p.warpSize; break;
    case hipDeviceAttributeMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case hipDeviceAttributeClockRate: *value = p.clockRate; break;
    case hipDeviceAttributeMemoryClockRate: *value = p.memoryClockRate; break;
    case hipDeviceAttributeMemoryBusWidth: *value = p.memoryBusWidth; break;
    case hipDeviceAttributeMultiprocessorCount:
        *value = p.multiProcessorCount; break;
    case hipDeviceAttributeComputeCapabilityMajor: *value = p.major; break;
    case hipDeviceAttributeComputeCapabilityMinor: *value = p.minor; break;
    case hipDeviceAttributeL2CacheSize: *value = p.l2CacheSize; break;
    case hipDeviceAttributeMaxThreadsPerMultiProcessor:
        *value = p.maxThreadsPerMultiProcessor; break;
    case hipDeviceAttributeConcurrentKernels: *value = p.concurrentKernels; break;
    case hipDeviceAttributePciBusId: *value = p.pciBusID; break;
    case hipDeviceAttributePciDeviceId: *value = p.pciDeviceID; break;
    case hipDeviceAttributeIsMultiGpuBoard: *value = p.isMultiGpuBoard; break;
    case hipDeviceAttributeIntegrated: *value = 0; break;
    case hipDeviceAttributeManagedMemory: *value = 1; break;
    case hipDeviceAttributeConcurrentManagedAccess: *value = 0; break;
    case hipDeviceAttributeCanMapHostMemory: *value = 1; break;
    case hipDeviceAttributeUnifiedAddressing: *value = 1; break;
    case hipDeviceAttributeComputeMode: *value = 0; break;
    case hipDeviceAttributeEccEnabled: *value = p.ECCEnabled; break;
    case hipDeviceAttributePciDomainID: *value = p.pciDomainID; break;
    case hipDeviceAttributeClockInstructionRate:
        *value = p.clockInstructionRate; break;
    case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
        *value = (int)p.maxSharedMemoryPerMultiProcessor; break;
    case hipDeviceAttributeGcnArch: *value = p.gcnArch; break;
    case hipDeviceAttributeTotalConstantMemory:
        *value = (int)p.totalConstMem; break;
    case hipDeviceAttributeMaxPitch: *value = (int)p.memPitch; break;
    case hipDeviceAttributeTextureAlignment:
        *value = (int)p.textureAlignment; break;
    case hipDeviceAttributeTexturePitchAlignment:
        *value = (int)p.texturePitchAlignment; break;
    case hipDeviceAttributeCooperativeLaunch:
        *value = p.cooperativeLaunch; break;
    case hipDeviceAttributeCooperativeMultiDeviceLaunch:
        *value = p.cooperativeMultiDeviceLaunch; break;
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc:
        *value = p.cooperativeMultiDeviceUnmatchedFunc; break;
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedGridDim:
        *value = p.cooperativeMultiDeviceUnmatchedGridDim; break;
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedBlockDim:
        *value = p.cooperativeMultiDeviceUnmatchedBlockDim; break;
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedSharedMem:
        *value = p.cooperativeMultiDeviceUnmatchedSharedMem; break;
    case hipDeviceAttributeKernelExecTimeout:
        *value = p.kernelExecTimeoutEnabled; break;
    case hipDeviceAttributeTccDriver: *value = p.tccDriver; break;
    case hipDeviceAttributeIsLargeBar: *value = p.isLargeBar; break;
    case hipDeviceAttributeAsicRevision: *value = p.asicRevision; break;
    case hipDeviceAttributeDirectManagedMemAccessFromHost:
        *value = p.directManagedMemAccessFromHost; break;
    case hipDeviceAttributePageableMemoryAccess:
        *value = p.pageableMemoryAccess; break;
    case hipDeviceAttributePageableMemoryAccessUsesHostPageTables:
        *value = p.pageableMemoryAccessUsesHostPageTables; break;
    /* Not in hipDeviceProp_t. Copy engines: each simulated GPU has one DMA
    ** engine (platform.copy_timing = dma), which copies overlap kernels on. */
    case hipDeviceAttributeAsyncEngineCount: *value = 1; break;
    /* No texture or image support (docs/hip.md, "Not provided"). */
    case hipDeviceAttributeImageSupport: *value = 0; break;
    /* Device atomics on host memory are not atomic with the host's
    ** (zero-copy memory is exchanged at synchronisations, docs/hip.md). */
    case hipDeviceAttributeHostNativeAtomicSupported: *value = 0; break;
    default:
        return mhip_fail(hipErrorNotSupported, call,
                         "attribute %d is not provided by libmgsim-hip",
                         (int)attr);
    }
    return hipSuccess;
}

hipError_t hipDeviceSynchronize(void)
{
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    return mhip_sync_all();
}

hipError_t hipDeviceReset(void)
{
    /* Frees what the current device holds: memory allocated on it and its
    ** streams; code objects stay loaded (they are process-wide here). */
    hipError_t e = mhip_ensure_init();
    if (e) return mhip_ret(e);
    if ((e = mhip_sync_all())) return e;
    int dev = mhip_current_device();
    for (size_t i = mhip_g.nallocs; i-- > 0;) {
        mhip_alloc *a = &mhip_g.allocs[i];
        /* Module variables stay with their code objects. */
        if (a->gpu != dev || a->symbol) continue;
        void *p = a->host ? a->host : (void *)(uintptr_t)a->dev;
        if ((e = a->registered ? hipHostUnregister(p)
                 : a->kind == MHIP_MEM_HOST ? hipHostFree(p)
                                            : hipFree(p)))
            return e;
    }
    for (struct ihipStream_t *s = mhip_g.streams, *next; s; s = next) {
        next = s->next;
        if (s->device == dev && (e = hipStreamDestroy(s))) return e;
    }
    for (int j = 0; j < MHIP_MAX_GPUS; j++)
        mhip_g.peer_enabled[dev][j] = false;
    return hipSuccess;
}

hipError_t hipDeviceCanAccessPeer(int *can, int dev, int peer)
{
    const char *call = "hipDeviceCanAccessPeer";
    if (!can) return mhip_fail(hipErrorInvalidValue, call, "NULL");
    hipError_t e;
    if ((e = check_dev(dev, call)) || (e = check_dev(peer, call))) return e;
    *can = dev != peer;
    return hipSuccess;
}

hipError_t hipDeviceEnablePeerAccess(int peer, unsigned int flags)
{
    const char *call = "hipDeviceEnablePeerAccess";
    if (flags != 0)
        return mhip_fail(hipErrorInvalidValue, call, "flags must be 0, got %u",
                         flags);
    hipError_t e = check_dev(peer, call);
    if (e) return e;
    int dev = mhip_current_device();
    if (peer == dev)
        return mhip_fail(hipErrorInvalidDevice, call,
                         "device %d cannot be its own peer", dev);
    if (mhip_g.peer_enabled[dev][peer])
        return mhip_ret(hipErrorPeerAccessAlreadyEnabled);
    mhip_g.peer_enabled[dev][peer] = true;
    return hipSuccess;
}

hipError_t hipDeviceDisablePeerAccess(int peer)
{
    const char *call = "hipDeviceDisablePeerAccess";
    hipError_t e = check_dev(peer, call);
    if (e) return e;
    int dev = mhip_current_device();
    if (!mhip_g.peer_enabled[dev][peer])
        return mhip_ret(hipErrorPeerAccessNotEnabled);
    mhip_g.peer_enabled[dev][peer] = false;
    return hipSuccess;
}
