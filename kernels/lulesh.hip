// lulesh: an unstructured quad mesh (CARVE stand-in for Lulesh's
// unstructured mesh, seed 004 Table II). lulesh_elem gathers its 4 nodes'
// values through the connectivity; lulesh_node gathers its (up to 4)
// elements' values and relaxes its own.
#include <hip/hip_runtime.h>

extern "C" __global__ void lulesh_elem(const unsigned *elem_node,
                                       const float *node_v, float *elem_v,
                                       unsigned first, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    unsigned e = first + i;
    float s = 0.0f;
    for (unsigned k = 0; k < 4; k++)
        s += node_v[elem_node[e * 4 + k]];
    elem_v[e] = 0.25f * s;
}

extern "C" __global__ void lulesh_node(const int *node_elem,
                                       const float *elem_v, float *node_v,
                                       unsigned first, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    unsigned n = first + i;
    float s = 0.0f;
    unsigned m = 0;
    for (unsigned k = 0; k < 4; k++) {
        int e = node_elem[n * 4 + k];
        if (e >= 0) {
            s += elem_v[e];
            m++;
        }
    }
    node_v[n] = 0.5f * node_v[n] + 0.5f * s / (float)m;
}
