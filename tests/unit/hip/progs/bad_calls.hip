// An ordinary HIP program that makes one invalid or unsupported call,
// chosen by argv[1], and reports what the runtime returned. Used by
// tests/cli/hip_errors.sh: libmgsim-hip must return the proper HIP error
// code and print one line naming the call, never crash.
// Prints "<scenario>: <hipErrorName>"; exits 3 when the call failed (as a
// careful program would), 0 when it wrongly succeeded, 2 on bad usage.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>

__global__ void poke(int *p, long offset) { p[offset] = 1; }

// A managed structure holding a managed pointer: the pointer inside is not
// translated (docs/hip.md), so the kernel faults on the host address.
struct holder { int *p; };
__global__ void poke_holder(holder *h) { h->p[0] = 1; }

static int report(const char *what, hipError_t e)
{
    std::printf("%s: %s\n", what, hipGetErrorName(e));
    return e == hipSuccess ? 0 : 3;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: bad_calls kind|wildptr|block|fault|peer|attr|oom|free|"
                             "symbol|prefetch|advise|unregister|pitch|occupancy|"
                             "structfault\n");
        return 2;
    }
    const char *s = argv[1];
    int *d = nullptr;
    int host[16] = {0};
    if (hipMalloc(&d, sizeof host) != hipSuccess) return 4;
    if (!std::strcmp(s, "kind"))
        return report(s, hipMemcpy(d, host, sizeof host, (hipMemcpyKind)42));
    if (!std::strcmp(s, "wildptr"))
        return report(s, hipMemcpy(host, (void *)0xdead0000, sizeof host,
                                   hipMemcpyDeviceToHost));
    if (!std::strcmp(s, "block")) {
        poke<<<1, 4096>>>(d, 0);
        return report(s, hipGetLastError());
    }
    if (!std::strcmp(s, "fault")) {
        poke<<<1, 1>>>(d, 1L << 28);  // far outside any allocation
        hipError_t e = hipGetLastError();
        hipDeviceSynchronize();
        return report(s, e);
    }
    if (!std::strcmp(s, "peer"))
        return report(s, hipDeviceEnablePeerAccess(5, 0));
    if (!std::strcmp(s, "attr")) {
        int v = 0;
        return report(s, hipDeviceGetAttribute(
                             &v, hipDeviceAttributeMaxTexture1DWidth, 0));
    }
    if (!std::strcmp(s, "oom")) {
        void *big = nullptr;
        return report(s, hipMalloc(&big, (size_t)1 << 44)); // 16 TiB
    }
    if (!std::strcmp(s, "free"))
        return report(s, hipFree(host));
    if (!std::strcmp(s, "symbol"))   // not a __device__ variable
        return report(s, hipMemcpyToSymbol(HIP_SYMBOL(host), host, 4));
    if (!std::strcmp(s, "prefetch")) // hipMalloc memory is not managed
        return report(s, hipMemPrefetchAsync(d, sizeof host, 0, 0));
    if (!std::strcmp(s, "advise")) {
        int *m = nullptr;
        if (hipMallocManaged(&m, 64) != hipSuccess) return 4;
        return report(s, hipMemAdvise(m, 64, (hipMemoryAdvise)77, 0));
    }
    if (!std::strcmp(s, "unregister"))
        return report(s, hipHostUnregister(host));
    if (!std::strcmp(s, "pitch"))    // width wider than the pitch
        return report(s, hipMemcpy2D(d, 16, host, 64, 32, 2,
                                     hipMemcpyHostToDevice));
    if (!std::strcmp(s, "occupancy")) {
        int n = 0;
        return report(s, hipOccupancyMaxActiveBlocksPerMultiprocessor(
                             &n, poke, 0, 0));
    }
    if (!std::strcmp(s, "structfault")) {
        // The fault is reported once, by the call that sees it first,
        // although every later call that copies managed memory back fails
        // with it too (timing mode: the simulation stopped).
        holder *h = nullptr;
        if (hipMallocManaged(&h, sizeof *h) != hipSuccess ||
            hipMallocManaged(&h->p, 64 * sizeof(int)) != hipSuccess)
            return 4;
        poke_holder<<<1, 1>>>(h);
        hipError_t e = hipGetLastError();
        if (e == hipSuccess) e = hipDeviceSynchronize();
        hipFree(h->p);
        hipFree(h);
        hipFree(d);
        hipDeviceSynchronize();
        return report(s, e);
    }
    std::fprintf(stderr, "bad_calls: unknown scenario %s\n", s);
    return 2;
}
