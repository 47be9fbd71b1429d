// comd: neighbour-list force and position update (CARVE stand-in for CoMD,
// seed 004 Table II). comd_force sums a linear pair force over each atom's
// neighbour list (positions of atoms that may live on any GPU);
// comd_move advances the atom's own position.
#include <hip/hip_runtime.h>

#define COMD_NB 16

extern "C" __global__ void comd_force(const int *nbr, const float *pos,
                                      float *force, unsigned first,
                                      unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    unsigned a = first + i;
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    float x = pos[a * 3], y = pos[a * 3 + 1], z = pos[a * 3 + 2];
    for (unsigned k = 0; k < COMD_NB; k++) {
        int b = nbr[a * COMD_NB + k];
        if (b < 0)
            break;
        fx += pos[b * 3] - x;
        fy += pos[b * 3 + 1] - y;
        fz += pos[b * 3 + 2] - z;
    }
    force[a * 3] = fx;
    force[a * 3 + 1] = fy;
    force[a * 3 + 2] = fz;
}

extern "C" __global__ void comd_move(float *pos, const float *force, float dt,
                                     unsigned first, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    unsigned a = first + i;
    for (unsigned c = 0; c < 3; c++)
        pos[a * 3 + c] += dt * force[a * 3 + c];
}
