#include <hip/hip_runtime.h>
/* Work-group 1 reads data (its L1V caches the lines), tells work-group 0,
** which then writes new data, fences and raises a flag; work-group 1 waits
** for the flag, fences and reads data again. The second read must see the
** new values: the fence (buffer_wbinvl1_vol) invalidates its L1V. Needs
** both work-groups resident at once (timing mode; emu mode runs them one
** after another and would wait forever). */
extern "C" __global__ void fence_pass(int *data, int *flags, int *out, int n)
{
    int t = threadIdx.x;
    if (blockIdx.x == 0) {
        if (t == 0)
            while (atomicAdd(&flags[1], 0) == 0) {
            }
        __syncthreads();
        for (int i = t; i < n; i += blockDim.x)
            data[i] = i + 1;
        __threadfence();
        __syncthreads();
        if (t == 0)
            atomicExch(&flags[0], 1);
    } else {
        int before = 0;
        for (int i = t; i < n; i += blockDim.x)
            before += data[i];
        __threadfence();
        __syncthreads();
        if (t == 0) {
            atomicExch(&flags[1], 1);
            while (atomicAdd(&flags[0], 0) == 0) {
            }
        }
        __syncthreads();
        __threadfence();
        int after = 0;
        for (int i = t; i < n; i += blockDim.x)
            after += data[i];
        out[t] = after;
        out[blockDim.x + t] = before;
    }
}
