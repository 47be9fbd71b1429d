// Pitched 2-D and 3-D device memory, unmodified HIP: hipMallocPitch and
// hipMemcpy2D around a kernel that walks rows by the pitch, hipMemset2D,
// and a hipMalloc3D volume filled with hipMemcpy3D from a host array,
// scaled by a kernel and copied back. Checked against the CPU.
// Usage: pitched [width height depth]   (default 100 37 5)
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                        \
    do {                                                                   \
        hipError_t err_ = (call);                                          \
        if (err_ != hipSuccess) {                                          \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__,       \
                         __LINE__, #call, hipGetErrorString(err_));        \
            std::exit(2);                                                  \
        }                                                                  \
    } while (0)

// Every element (x, y) of a w x h float image with the given row pitch.
__global__ void add_coords(float *img, size_t pitch, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x < w && y < h) {
        float *row = (float *)((char *)img + y * pitch);
        row[x] += 1000.0f * y + x;
    }
}

int main(int argc, char **argv)
{
    int w = argc > 3 ? std::atoi(argv[1]) : 100;
    int h = argc > 3 ? std::atoi(argv[2]) : 37;
    int d = argc > 3 ? std::atoi(argv[3]) : 5;
    if (w <= 0 || h <= 0 || d <= 0) {
        std::fprintf(stderr, "usage: pitched [width height depth > 0]\n");
        return 2;
    }
    int bad = 0;
    // 2-D: host rows are tightly packed, device rows pitched.
    float *img;
    size_t pitch;
    CHECK(hipMallocPitch((void **)&img, &pitch, w * sizeof(float), h));
    CHECK(hipMemset2D(img, pitch, 0, w * sizeof(float), h));
    std::vector<float> host(w * h), back(w * h);
    for (int i = 0; i < w * h; i++) host[i] = 0.5f * (i % 13);
    CHECK(hipMemcpy2D(img, pitch, host.data(), w * sizeof(float),
                      w * sizeof(float), h, hipMemcpyHostToDevice));
    add_coords<<<dim3((w + 63) / 64, h), 64>>>(img, pitch, w, h);
    CHECK(hipGetLastError());
    CHECK(hipMemcpy2D(back.data(), w * sizeof(float), img, pitch,
                      w * sizeof(float), h, hipMemcpyDeviceToHost));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (back[y * w + x] != host[y * w + x] + 1000.0f * y + x) bad++;
    std::printf("2-D: %d x %d, pitch %zu bytes, %d mismatches\n", w, h, pitch,
                bad);

    // 3-D: a volume of d slices, treated as one (h * d)-row image.
    hipPitchedPtr vol;
    CHECK(hipMalloc3D(&vol, make_hipExtent(w * sizeof(float), h, d)));
    std::vector<float> vin(w * h * d), vout(w * h * d);
    for (size_t i = 0; i < vin.size(); i++) vin[i] = (float)(i % 101);
    hipMemcpy3DParms p = {};
    p.srcPtr = make_hipPitchedPtr(vin.data(), w * sizeof(float), w, h);
    p.dstPtr = vol;
    p.extent = make_hipExtent(w * sizeof(float), h, d);
    p.kind = hipMemcpyHostToDevice;
    CHECK(hipMemcpy3D(&p));
    add_coords<<<dim3((w + 63) / 64, h * d), 64>>>((float *)vol.ptr,
                                                    vol.pitch, w, h * d);
    CHECK(hipGetLastError());
    p.srcPtr = vol;
    p.dstPtr = make_hipPitchedPtr(vout.data(), w * sizeof(float), w, h);
    p.kind = hipMemcpyDeviceToHost;
    CHECK(hipMemcpy3D(&p));
    int bad3 = 0;
    for (int y = 0; y < h * d; y++)
        for (int x = 0; x < w; x++)
            if (vout[y * w + x] != vin[y * w + x] + 1000.0f * y + x) bad3++;
    std::printf("3-D: %d x %d x %d, pitch %zu bytes, %d mismatches\n", w, h,
                d, vol.pitch, bad3);
    CHECK(hipFree(img));
    CHECK(hipFree(vol.ptr));
    bool ok = bad == 0 && bad3 == 0;
    std::printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
