// Copies whose hipMemcpyKind contradicts the pointers run in the direction
// the pointers give, as ROCm 5.2 does whenever it knows either pointer
// (rocm-examples' bandwidth sample copies host to device with
// hipMemcpyDeviceToHost); between two pointers the runtime does not know,
// only hipMemcpyHostToHost/Default copy. Device addresses outside every
// allocation (past an end, freed) stay hipErrorInvalidValue, and a second
// free of pinned memory says it was already freed (tests/cli/hip_compat.sh
// checks that line). Prints PASSED and exits 0, or names the first failed
// check and exits 1.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>

static int failures = 0;

static void expect(bool ok, const char *what)
{
    if (!ok) {
        std::printf("FAILED: %s\n", what);
        failures++;
    }
}

static void expect_err(hipError_t got, hipError_t want, const char *what)
{
    if (got != want) {
        std::printf("FAILED: %s: %s, expected %s\n", what,
                    hipGetErrorName(got), hipGetErrorName(want));
        failures++;
    }
    (void)hipGetLastError();
}

int main()
{
    const size_t n = 4096;
    unsigned char *d = nullptr, *d2 = nullptr, *pinned = nullptr;
    static unsigned char host[n], back[n], host2[n];
    if (hipMalloc(&d, n) || hipMalloc(&d2, n) || hipHostMalloc(&pinned, n, 0))
        return 2;
    for (size_t i = 0; i < n; i++) {
        pinned[i] = (unsigned char)i;
        host[i] = (unsigned char)(3 * i + 1);
    }
    hipStream_t s;
    if (hipStreamCreate(&s)) return 2;

    // pinned -> device, issued as DeviceToHost (the bandwidth sample)
    expect_err(hipMemcpyAsync(d, pinned, n, hipMemcpyDeviceToHost, 0),
               hipSuccess, "hipMemcpyAsync(dev, pinned, DeviceToHost)");
    expect_err(hipDeviceSynchronize(), hipSuccess, "sync");
    expect_err(hipMemcpy(back, d, n, hipMemcpyHostToDevice), hipSuccess,
               "hipMemcpy(host, dev, HostToDevice)");
    expect(std::memcmp(back, pinned, n) == 0, "pinned bytes reached the device");

    // host -> device on a stream, issued as DeviceToDevice
    expect_err(hipMemcpyWithStream(d, host, n, hipMemcpyDeviceToDevice, s),
               hipSuccess, "hipMemcpyWithStream(dev, host, DeviceToDevice)");
    // device -> device, issued as HostToHost
    expect_err(hipMemcpy(d2, d, n, hipMemcpyHostToHost), hipSuccess,
               "hipMemcpy(dev, dev, HostToHost)");
    std::memset(back, 0, n);
    expect_err(hipMemcpyAsync(back, d2, n, hipMemcpyHostToHost, s),
               hipSuccess, "hipMemcpyAsync(host, dev, HostToHost)");
    expect_err(hipStreamSynchronize(s), hipSuccess, "stream sync");
    expect(std::memcmp(back, host, n) == 0, "host bytes went through both devices");

    // 2-D with a contradicting kind
    std::memset(back, 0, n);
    expect_err(hipMemcpy2D(back, 64, d2, 64, 64, n / 64,
                           hipMemcpyHostToDevice), hipSuccess,
               "hipMemcpy2D(host, dev, HostToDevice)");
    expect(std::memcmp(back, host, n) == 0, "2-D copy");

    // two pointers the runtime does not know: host to host only
    expect_err(hipMemcpy(host2, host, n, hipMemcpyHostToHost), hipSuccess,
               "hipMemcpy(host, host, HostToHost)");
    expect(std::memcmp(host2, host, n) == 0, "host-to-host bytes");
    expect_err(hipMemcpy(host2, host, n, hipMemcpyDefault), hipSuccess,
               "hipMemcpy(host, host, Default)");
    expect_err(hipMemcpy(host2, host, n, hipMemcpyHostToDevice),
               hipErrorInvalidValue, "hipMemcpy(host, host, HostToDevice)");
    expect_err(hipMemcpy(host2, host, n, hipMemcpyDeviceToHost),
               hipErrorInvalidValue, "hipMemcpy(host, host, DeviceToHost)");

    // the other checks stay: past an end, freed, null, too long
    expect_err(hipMemcpy(d + n, d2, 16, hipMemcpyDeviceToDevice),
               hipErrorInvalidValue, "destination just past an allocation");
    expect_err(hipMemcpy(host2, d + n + 64, 16, hipMemcpyDeviceToHost),
               hipErrorInvalidValue, "source past an allocation");
    expect_err(hipMemcpy(host2, d, n + 1, hipMemcpyDeviceToHost),
               hipErrorInvalidValue, "range runs past its allocation");
    expect_err(hipMemcpy(nullptr, d, 16, hipMemcpyDeviceToHost),
               hipErrorInvalidValue, "null destination");
    unsigned char *gone = nullptr;
    if (hipMalloc(&gone, n) || hipFree(gone)) return 2;
    expect_err(hipMemcpy(host2, gone, 16, hipMemcpyDeviceToHost),
               hipErrorInvalidValue, "freed device memory");

    // hipFree of pinned memory, then hipHostFree of the same pointer
    expect_err(hipFree(pinned), hipSuccess, "hipFree(pinned)");
    expect_err(hipHostFree(pinned), hipErrorInvalidValue,
               "hipHostFree after hipFree");

    hipStreamDestroy(s);
    hipFree(d);
    hipFree(d2);
    std::printf(failures ? "FAILED\n" : "PASSED\n");
    return failures ? 1 : 0;
}
