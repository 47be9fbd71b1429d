// loader_cl: an OpenCL C kernel for the code-object loader tests
// (tests/unit/gcn3/test_codeobj.c). OpenCL, unlike HIP, passes dynamic LDS
// as a __local pointer argument (value_kind dynamic_shared_pointer), names
// argument types (.type_name) and appends hidden arguments (global offsets).
// The tests assert this layout; change both together.

typedef struct {
    int lo;
    int hi;
} loader_range;

__kernel void loader_local(__global const int *in, __global int *out,
                           __local int *scratch, loader_range r, uchar shift)
{
    __local int fixed[64];
    size_t lid = get_local_id(0);
    size_t gid = get_global_id(0);
    scratch[lid] = in[gid] << shift;
    fixed[lid & 63] = r.lo;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = scratch[get_local_size(0) - 1 - lid] + fixed[(lid + 1) & 63] +
               r.hi;
}
