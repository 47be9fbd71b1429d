// The GPS hints of include/mgsim/hip_gps.h from an ordinary HIP program
// (tests/cli/gps.sh runs it on 2 GPUs of the gps preset): a hipMalloc'ed
// array becomes GPS, both devices write their halves in a profiling
// window, then each reads the other's half (published to its replica);
// advice on host memory fails with hipErrorInvalidValue. Prints "gps hint
// ok" and exits 0, or names the first wrong value and exits 1.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../../../include/mgsim/hip_gps.h" /* mgsim/hip_gps.h */

#define N 65536
#define CHECK(x)                                                              \
    do {                                                                      \
        hipError_t e_ = (x);                                                  \
        if (e_ != hipSuccess) {                                               \
            printf("%s: %s\n", #x, hipGetErrorName(e_));                      \
            return 1;                                                         \
        }                                                                     \
    } while (0)

__global__ void fill(int *a, int lo, int n, int r)
{
    int i = lo + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < lo + n)
        a[i] = 3 * i + 1 + r;
}

__global__ void mirror(const int *a, int *b, int lo, int n)
{
    int i = lo + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < lo + n)
        b[i] = a[i] + a[N - 1 - i];
}

int main(void)
{
    int ndev = 0;
    CHECK(hipGetDeviceCount(&ndev));
    if (ndev < 2) {
        printf("need 2 devices\n");
        return 1;
    }
    int *a, *b, host = 0;
    CHECK(hipSetDevice(0));
    CHECK(hipMalloc(&a, N * sizeof(int)));
    CHECK(hipMalloc(&b, N * sizeof(int)));
    CHECK(hipMemAdvise(a, N * sizeof(int), mgsimMemAdviseGps, 0));
    CHECK(hipMemAdvise(b, N * sizeof(int), mgsimMemAdviseGps, 0));
    if (hipMemAdvise(&host, sizeof host, mgsimMemAdviseGps, 0) !=
        hipErrorInvalidValue) {
        printf("advice on host memory accepted\n");
        return 1;
    }
    int half = N / 2;
    // Round 0 is the profiling window (each device writes its half and
    // reads the other's); round 1 runs on the subscriptions it found.
    for (int r = 0; r < 2; r++) {
        if (r == 0)
            CHECK(hipExtMgsimGpsTrackingStart());
        for (int d = 0; d < 2; d++) {
            CHECK(hipSetDevice(d));
            hipLaunchKernelGGL(fill, dim3(half / 256), dim3(256), 0, 0, a,
                               d * half, half, r);
        }
        for (int d = 0; d < 2; d++) {
            CHECK(hipSetDevice(d));
            CHECK(hipDeviceSynchronize());
        }
        for (int d = 0; d < 2; d++) {
            CHECK(hipSetDevice(d));
            hipLaunchKernelGGL(mirror, dim3(half / 256), dim3(256), 0, 0, a,
                               b, d * half, half);
        }
        for (int d = 0; d < 2; d++) {
            CHECK(hipSetDevice(d));
            CHECK(hipDeviceSynchronize());
        }
        if (r == 0)
            CHECK(hipExtMgsimGpsTrackingStop());
    }
    int *got = (int *)malloc(N * sizeof(int));
    CHECK(hipMemcpy(got, b, N * sizeof(int), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (got[i] != (3 * i + 2) + (3 * (N - 1 - i) + 2)) {
            printf("b[%d] = %d\n", i, got[i]);
            return 1;
        }
    // Device 1 read the first half of a: it may leave it (device 0 stays).
    CHECK(hipMemAdvise(a, half * sizeof(int), mgsimMemAdviseGpsUnsubscribe, 1));
    free(got);
    CHECK(hipFree(a));
    CHECK(hipFree(b));
    printf("gps hint ok\n");
    return 0;
}
