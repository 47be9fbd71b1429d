/*
** libmgsim-hip occupancy API: how many work-groups of a kernel one CU
** holds at once, and the block size that maximises it, computed by the
** runtime from the kernel's resources (VGPRs, SGPRs, LDS from its
** descriptor) and the configured CU with the timing model's own placement
** rule (mgs_kernel_occupancy): the answer is what the simulated GPU does.
**
** hipOccupancyMaxPotentialBlockSize tries every multiple of the wavefront
** size up to the limit (the kernel's maximum work-group size, 1024, and
** blockSizeLimit if > 0) and keeps the one with the most resident
** work-items per CU, the largest on a tie (assumed: like CUDA's occupancy
** calculator, which scans from the largest size down and keeps only
** strictly better ones: fewer, larger work-groups); the
** grid size returned is the work-groups that fill every CU of the device
** once at that occupancy.
**
** hipLaunchCooperativeKernel launches like hipLaunchKernel when every
** work-group of the grid can be resident at once by that count (its
** promise to a kernel that synchronises the whole grid), else it is
** hipErrorCooperativeLaunchTooLarge. Grid-wide synchronisation itself
** (cooperative groups' grid.sync()) is not modelled (docs/hip.md).
*/
#include "hip/hip_internal.h"
#include "mgsim/errors.h"

/* Resident work-groups per CU for f at block threads and shmem bytes. */
static hipError_t occupancy(struct ihipModuleSymbol_t *f, int block,
                            size_t shmem, int *groups, const char *call)
{
    hipError_t e = mhip_function_prepare(f, call);
    if (e) return e;
    if (block <= 0)
        return mhip_fail(hipErrorInvalidValue, call, "block size %d", block);
    if (shmem > 65536)
        return mhip_fail(hipErrorInvalidValue, call,
                         "%zu bytes of dynamic shared memory (64 KiB per CU)",
                         shmem);
    uint32_t n = 0;
    int rc = mgs_kernel_occupancy(mhip_g.rt, f->kernel, (uint32_t)block,
                                  (uint32_t)shmem, &n);
    if (rc) return mhip_fail(hipErrorInvalidValue, call, "%s", mgs_error_msg());
    *groups = (int)n;
    return hipSuccess;
}

static hipError_t best_block(struct ihipModuleSymbol_t *f, size_t shmem,
                             int limit, int *grid, int *block,
                             const char *call)
{
    if (!grid || !block)
        return mhip_fail(hipErrorInvalidValue, call, "NULL argument");
    hipError_t e = mhip_function_prepare(f, call);
    if (e) return e;
    int max = f->meta->max_flat_workgroup_size
                  ? (int)f->meta->max_flat_workgroup_size : 1024;
    if (max > 1024) max = 1024;
    if (limit > 0 && limit < max) max = limit;
    int best = 0, best_groups = 0;
    long best_items = -1;
    for (int b = 64; b <= max || (b == 64 && max < 64); b += 64) {
        int size = b > max ? max : b;
        int g;
        if ((e = occupancy(f, size, shmem, &g, call))) return e;
        if ((long)g * size >= best_items) {
            best_items = (long)g * size;
            best = size;
            best_groups = g;
        }
    }
    if (best_groups == 0)
        return mhip_fail(hipErrorInvalidValue, call,
                         "kernel %s does not fit a CU with %zu bytes of "
                         "dynamic shared memory", f->name, shmem);
    hipDeviceProp_t p;
    if ((e = hipGetDeviceProperties(&p, mhip_current_device()))) return e;
    *block = best;
    *grid = best_groups * p.multiProcessorCount;
    return hipSuccess;
}

static struct ihipModuleSymbol_t *kernel_of(const void *f, const char *call,
                                            hipError_t *e)
{
    struct ihipModuleSymbol_t *k = mhip_kernel_of_host_fn(f);
    *e = k ? hipSuccess
           : mhip_fail(hipErrorInvalidDeviceFunction, call,
                       "%p is not a registered kernel", f);
    return k;
}

hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                        const void *f,
                                                        int blockSize,
                                                        size_t dynSharedMemPerBlk)
{
    return hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, f, blockSize, dynSharedMemPerBlk, hipOccupancyDefault);
}

hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *f, int blockSize, size_t dynSharedMemPerBlk,
    unsigned int flags)
{
    const char *call = "hipOccupancyMaxActiveBlocksPerMultiprocessor";
    if (!numBlocks) return mhip_fail(hipErrorInvalidValue, call, "NULL numBlocks");
    if (flags != hipOccupancyDefault)
        return mhip_fail(hipErrorInvalidValue, call, "flags 0x%x", flags);
    hipError_t e;
    struct ihipModuleSymbol_t *k = kernel_of(f, call, &e);
    return k ? occupancy(k, blockSize, dynSharedMemPerBlk, numBlocks, call)
             : e;
}

hipError_t hipOccupancyMaxPotentialBlockSize(int *gridSize, int *blockSize,
                                             const void *f,
                                             size_t dynSharedMemPerBlk,
                                             int blockSizeLimit)
{
    const char *call = "hipOccupancyMaxPotentialBlockSize";
    hipError_t e;
    struct ihipModuleSymbol_t *k = kernel_of(f, call, &e);
    return k ? best_block(k, dynSharedMemPerBlk, blockSizeLimit, gridSize,
                          blockSize, call)
             : e;
}

hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
    int *numBlocks, hipFunction_t f, int blockSize, size_t dynSharedMemPerBlk)
{
    return hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, f, blockSize, dynSharedMemPerBlk, hipOccupancyDefault);
}

hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, hipFunction_t f, int blockSize, size_t dynSharedMemPerBlk,
    unsigned int flags)
{
    const char *call = "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor";
    if (!numBlocks || !f)
        return mhip_fail(hipErrorInvalidValue, call, "NULL argument");
    if (flags != hipOccupancyDefault)
        return mhip_fail(hipErrorInvalidValue, call, "flags 0x%x", flags);
    return occupancy(f, blockSize, dynSharedMemPerBlk, numBlocks, call);
}

hipError_t hipModuleOccupancyMaxPotentialBlockSize(int *gridSize,
                                                   int *blockSize,
                                                   hipFunction_t f,
                                                   size_t dynSharedMemPerBlk,
                                                   int blockSizeLimit)
{
    return hipModuleOccupancyMaxPotentialBlockSizeWithFlags(
        gridSize, blockSize, f, dynSharedMemPerBlk, blockSizeLimit,
        hipOccupancyDefault);
}

hipError_t hipModuleOccupancyMaxPotentialBlockSizeWithFlags(
    int *gridSize, int *blockSize, hipFunction_t f, size_t dynSharedMemPerBlk,
    int blockSizeLimit, unsigned int flags)
{
    const char *call = "hipModuleOccupancyMaxPotentialBlockSize";
    if (!f) return mhip_fail(hipErrorInvalidValue, call, "NULL function");
    if (flags != hipOccupancyDefault)
        return mhip_fail(hipErrorInvalidValue, call, "flags 0x%x", flags);
    return best_block(f, dynSharedMemPerBlk, blockSizeLimit, gridSize,
                      blockSize, call);
}

hipError_t hipLaunchCooperativeKernel(const void *f, dim3 grid, dim3 block,
                                      void **kernelParams,
                                      unsigned int sharedMemBytes,
                                      hipStream_t stream)
{
    const char *call = "hipLaunchCooperativeKernel";
    hipError_t e;
    struct ihipModuleSymbol_t *k = kernel_of(f, call, &e);
    if (!k) return e;
    if (!mhip_stream_valid(stream))
        return mhip_fail(hipErrorInvalidHandle, call, "invalid stream");
    int groups;
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    if (threads == 0 || threads > 1024)
        return hipLaunchKernel(f, grid, block, kernelParams, sharedMemBytes,
                               stream); /* its own error line */
    if ((e = occupancy(k, (int)threads, sharedMemBytes, &groups, call)))
        return e;
    hipDeviceProp_t p;
    if ((e = hipGetDeviceProperties(&p, mhip_stream_device(stream))))
        return e;
    uint64_t resident = (uint64_t)groups * (uint64_t)p.multiProcessorCount;
    uint64_t wanted = (uint64_t)grid.x * grid.y * grid.z;
    if (wanted > resident)
        return mhip_fail(hipErrorCooperativeLaunchTooLarge, call,
                         "kernel %s: %llu work-groups of %llu work-items, "
                         "but only %llu can be resident at once (%d per CU "
                         "x %d CUs)", k->name, (unsigned long long)wanted,
                         (unsigned long long)threads,
                         (unsigned long long)resident, groups,
                         p.multiProcessorCount);
    return hipLaunchKernel(f, grid, block, kernelParams, sharedMemBytes,
                           stream);
}
