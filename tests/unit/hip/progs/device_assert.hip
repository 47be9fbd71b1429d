// A failing device-side assert(): hipcc prints the message through the
// hostcall buffer and then executes s_trap 2. The kernel ends as a device
// assertion and hipDeviceSynchronize returns hipErrorAssert (emu mode also
// returns it from the launch, which ran the kernel), in emu and timing
// mode. tests/cli/hip_compat.sh checks the messages and the exit summary.
// Prints PASSED and exits 0, or what went wrong and exits 1.
#include <hip/hip_runtime.h>

#include <cassert>
#include <cstdio>

__global__ void bounded(int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    assert(gid < n);
}

int main()
{
    hipLaunchKernelGGL(bounded, dim3(1), dim3(64), 0, 0, 64); // holds
    hipError_t ok = hipDeviceSynchronize();
    hipLaunchKernelGGL(bounded, dim3(1), dim3(64), 0, 0, 63); // one fails
    hipError_t launch = hipGetLastError();
    hipError_t sync = hipDeviceSynchronize();
    std::printf("passing assert: %s; failing assert: launch %s, "
                "hipDeviceSynchronize %s\n", hipGetErrorName(ok),
                hipGetErrorName(launch), hipGetErrorName(sync));
    bool pass = ok == hipSuccess && sync == hipErrorAssert &&
                (launch == hipSuccess || launch == hipErrorAssert);
    std::printf(pass ? "PASSED\n" : "FAILED\n");
    return pass ? 0 : 1;
}
