// Device printf, unmodified HIP: every work-item of two work-groups prints
// a line with integers of several widths, a float, a string argument and
// width/precision taken from arguments; a third kernel prints to stderr via
// an assertion-free fprintf-like path only when asked. The program checks
// printf's return value on the device (the number of characters) and that
// every line arrived (counting them is left to the test, which also
// compares the text with what the C library prints for the same values).
// Usage: printf [work-items per group]   (default 4)
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                        \
    do {                                                                   \
        hipError_t err_ = (call);                                          \
        if (err_ != hipSuccess) {                                          \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__,       \
                         __LINE__, #call, hipGetErrorString(err_));        \
            std::exit(2);                                                  \
        }                                                                  \
    } while (0)

__global__ void hello(int *lens, long long big, const char *word)
{
    int g = blockIdx.x, t = threadIdx.x;
    int i = g * blockDim.x + t;
    // The same text on the CPU below: the two must agree.
    lens[i] = printf("group %d item %2d: %5.2f %lld %x %c %s|%*d|%.*f\n", g, t,
                     0.25 * i, big + i, 255 + i, 'a' + t, t & 1 ? "odd" : "even",
                     6, -i, 3, 1.0 / (i + 1));
}

__global__ void once(const char *word)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        printf("%s %s %u%% %p\n", word, (const char *)0, 100u, (void *)0x1234);
}

int main(int argc, char **argv)
{
    int per = argc > 1 ? std::atoi(argv[1]) : 4;
    if (per < 1 || per > 256) {
        std::fprintf(stderr, "usage: printf [work-items per group, 1..256]\n");
        return 2;
    }
    int n = 2 * per;
    int *lens;
    char *word;
    CHECK(hipMalloc(&lens, n * sizeof(int)));
    CHECK(hipMalloc(&word, 8));
    CHECK(hipMemcpy(word, "device", 7, hipMemcpyHostToDevice));
    long long big = 1ll << 40;
    hipLaunchKernelGGL(hello, dim3(2), dim3(per), 0, 0, lens, big, word);
    CHECK(hipGetLastError());
    CHECK(hipDeviceSynchronize());
    hipLaunchKernelGGL(once, dim3(1), dim3(64), 0, 0, word);
    CHECK(hipDeviceSynchronize());
    int *got = (int *)std::malloc(n * sizeof(int));
    CHECK(hipMemcpy(got, lens, n * sizeof(int), hipMemcpyDeviceToHost));
    int bad = 0;
    for (int g = 0; g < 2; g++)
        for (int t = 0; t < per; t++) {
            int i = g * per + t;
            char line[256];
            int want = std::snprintf(line, sizeof line,
                                     "group %d item %2d: %5.2f %lld %x %c %s|%*d|%.*f\n",
                                     g, t, 0.25 * i, big + i, 255 + i, 'a' + t,
                                     t & 1 ? "odd" : "even", 6, -i, 3,
                                     1.0 / (i + 1));
            if (got[i] != want) {
                if (bad++ < 5)
                    std::fprintf(stderr, "item %d: printf returned %d, want %d\n",
                                 i, got[i], want);
            }
        }
    std::free(got);
    CHECK(hipFree(lens));
    CHECK(hipFree(word));
    if (bad) {
        std::printf("FAILED: %d return values wrong\n", bad);
        return 1;
    }
    std::printf("PASSED: %d lines\n", n);
    return 0;
}
