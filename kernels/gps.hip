// The GPS workloads (seed 003 Table 2; workloads/g*/, docs/gps.md). Every
// kernel indexes whole arrays with global indices; a launch covers the rows
// [row0, row0 + rows) its GPU owns.
#include <hip/hip_runtime.h>

// Jacobi solver of the 2-D Poisson problem (5-point Laplacian, diagonally
// dominant): y = (x_up + x_down + x_left + x_right + b) / 4 inside, the
// boundary fixed.
extern "C" __global__ void gps_jacobi(const float *x, float *y, const float *b,
                                      unsigned n, unsigned row0,
                                      unsigned rows)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned r = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= n || r >= rows)
        return;
    unsigned i = row0 + r;
    size_t k = (size_t)i * n + j;
    float v = x[k];
    if (i > 0 && i < n - 1 && j > 0 && j < n - 1)
        v = 0.25f * (((x[k - n] + x[k + n]) + (x[k - 1] + x[k + 1])) + b[k]);
    y[k] = v;
}

// 3-D stencils on nx x ny x nz grids, z-planes split over the GPUs; a
// launch covers planes [z0, z0 + nzl). Index (x, y, z) = (z * ny + y) * nx + x.
#define IDX(x, y, z) (((size_t)(z) * ny + (y)) * nx + (x))

// Diffusion: 3-D heat equation, explicit 7-point step (boundary fixed).
extern "C" __global__ void gps_diffusion(const float *t, float *o, unsigned nx,
                                         unsigned ny, unsigned nz, unsigned z0,
                                         unsigned nzl, float k)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned z = z0 + blockIdx.z;
    if (x >= nx || y >= ny || z >= z0 + nzl)
        return;
    size_t i = IDX(x, y, z);
    float v = t[i];
    if (x > 0 && y > 0 && z > 0 && x < nx - 1 && y < ny - 1 && z < nz - 1) {
        float s = ((t[i - 1] + t[i + 1]) + (t[i - nx] + t[i + nx])) +
                  (t[i - (size_t)nx * ny] + t[i + (size_t)nx * ny]);
        v = v + k * (s - 6.0f * v);
    }
    o[i] = v;
}

// B2rEqwp-like wave: u_next = 2u - u_prev + c * (4th-order Laplacian),
// radius 2 (boundary layers of 2 fixed).
extern "C" __global__ void gps_eqwp(const float *up, const float *u,
                                    float *un, unsigned nx, unsigned ny,
                                    unsigned nz, unsigned z0, unsigned nzl,
                                    float c)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned z = z0 + blockIdx.z;
    if (x >= nx || y >= ny || z >= z0 + nzl)
        return;
    size_t i = IDX(x, y, z);
    size_t sy = nx, sz = (size_t)nx * ny;
    float v = u[i];
    if (x > 1 && y > 1 && z > 1 && x < nx - 2 && y < ny - 2 && z < nz - 2) {
        float l1 = ((u[i - 1] + u[i + 1]) + (u[i - sy] + u[i + sy])) +
                   (u[i - sz] + u[i + sz]);
        float l2 = ((u[i - 2] + u[i + 2]) + (u[i - 2 * sy] + u[i + 2 * sy])) +
                   (u[i - 2 * sz] + u[i + 2 * sz]);
        float lap = (16.0f * l1 - l2 - 90.0f * v) * (1.0f / 12.0f);
        v = (2.0f * v - up[i]) + c * lap;
    }
    un[i] = v;
}

// Hit-like turbulence step: three velocity components (u, v, w), plane by
// plane (plane z holds u, then v, then w: cell (x, y, z) of component c is
// ((3z + c) * ny + y) * nx + x), advected by the local velocity (central
// differences) and diffused, 7-point.
extern "C" __global__ void gps_hit(const float *q, float *o, unsigned nx,
                                   unsigned ny, unsigned nz, unsigned z0,
                                   unsigned nzl, float dt, float nu)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned z = z0 + blockIdx.z;
    if (x >= nx || y >= ny || z >= z0 + nzl)
        return;
    size_t p = (size_t)nx * ny, sy = nx, sz = 3 * p;
    size_t i = ((size_t)3 * z * ny + y) * nx + x;
    bool in = x > 0 && y > 0 && z > 0 && x < nx - 1 && y < ny - 1 &&
              z < nz - 1;
    float a = q[i], b = q[i + p], cw = q[i + 2 * p];
    for (unsigned c = 0; c < 3; c++) {
        size_t j = i + c * p;
        float v = q[j];
        if (in) {
            float dx = q[j + 1] - q[j - 1], dy = q[j + sy] - q[j - sy];
            float dz = q[j + sz] - q[j - sz];
            float s = ((q[j - 1] + q[j + 1]) + (q[j - sy] + q[j + sy])) +
                      (q[j - sz] + q[j + sz]);
            float adv = 0.5f * ((a * dx + b * dy) + cw * dz);
            v = v + dt * (nu * (s - 6.0f * v) - adv);
        }
        o[j] = v;
    }
}

// Graphs in CSR (rowp[n + 1], col[], wt[]), symmetric; a launch covers the
// vertices [v0, v0 + nv).
// PageRank, pull: out[v] = base + 0.85 * sum over neighbours u of
// rank[u] / deg(u), in integers (exact and order-free).
extern "C" __global__ void gps_pr_pull(const unsigned *rowp,
                                       const unsigned *col,
                                       const unsigned *rank, unsigned *out,
                                       unsigned v0, unsigned nv,
                                       unsigned base)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nv)
        return;
    unsigned v = v0 + t;
    unsigned long long s = 0;
    for (unsigned e = rowp[v]; e < rowp[v + 1]; e++) {
        unsigned u = col[e];
        s += rank[u] / (rowp[u + 1] - rowp[u]);
    }
    out[v] = base + (unsigned)(s * 85u / 100u);
}

#define SSSP_INF 0xffffffffu
// SSSP (Bellman-Ford, one relaxation round per step), three kernels:
// init nd = d on own vertices; push: atomicMin(nd[neighbour], d[u] + w) for
// own u (atomics to shared pages); pull: nd[v] = min(d[v], d[u] + w) over
// neighbours (the memcpy paradigm, which cannot combine remote atomics).
extern "C" __global__ void gps_sssp_init(const unsigned *d, unsigned *nd,
                                         unsigned v0, unsigned nv)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < nv)
        nd[v0 + t] = d[v0 + t];
}

extern "C" __global__ void gps_sssp_push(const unsigned *rowp,
                                         const unsigned *col,
                                         const unsigned *wt, const unsigned *d,
                                         unsigned *nd, unsigned v0,
                                         unsigned nv)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nv)
        return;
    unsigned u = v0 + t, du = d[u];
    if (du == SSSP_INF)
        return;
    for (unsigned e = rowp[u]; e < rowp[u + 1]; e++)
        atomicMin(&nd[col[e]], du + wt[e]);
}

// memcpy's exchange: the minimum of the own value and every other part
// p's candidate stage[p * n + v], for the own vertices [v0, v0 + nv).
__device__ static unsigned sssp_min_staged(const unsigned *stage,
                                           unsigned m, unsigned n,
                                           unsigned parts, unsigned self,
                                           unsigned v)
{
    for (unsigned p = 0; p < parts; p++) {
        unsigned c = stage[(size_t)p * n + v];
        if (p != self && c < m)
            m = c;
    }
    return m;
}

// After the last round: nd[v] takes the staged minimum.
extern "C" __global__ void gps_sssp_merge(const unsigned *stage, unsigned *nd,
                                          unsigned n, unsigned parts,
                                          unsigned self, unsigned v0,
                                          unsigned nv)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nv)
        return;
    unsigned v = v0 + t;
    nd[v] = sssp_min_staged(stage, nd[v], n, parts, self, v);
}

// A round's init with the previous round's exchange folded in: d[v] and
// nd[v] take the staged minimum (gps_sssp_init plus gps_sssp_merge, one
// kernel instead of two).
extern "C" __global__ void gps_sssp_init_merge(const unsigned *stage,
                                               unsigned *d, unsigned *nd,
                                               unsigned n, unsigned parts,
                                               unsigned self, unsigned v0,
                                               unsigned nv)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nv)
        return;
    unsigned v = v0 + t, m = sssp_min_staged(stage, d[v], n, parts, self, v);
    d[v] = m;
    nd[v] = m;
}

// ALS-like factorisation step (all-to-all): for each own row i and factor
// c, out[i][c] = sum_j R[i][j] F[j][c] / (sum_j F[j][c]^2 + lambda) (a
// diagonal approximation of the least-squares solve), k factors.
extern "C" __global__ void gps_als_step(const float *R, const float *F,
                                        float *out, unsigned cols,
                                        unsigned k, unsigned r0, unsigned nr,
                                        float lambda)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nr * k)
        return;
    unsigned i = r0 + t / k, c = t % k;
    const float *r = R + (size_t)i * cols;
    float num = 0.0f, den = lambda;
    for (unsigned j = 0; j < cols; j++) {
        float f = F[(size_t)j * k + c];
        num += r[j] * f;
        den += f * f;
    }
    out[(size_t)i * k + c] = num / den;
}

// CT reconstruction, SIRT-like (all-to-all): ray i's weight on pixel j is
// ct_a(i, j) (computed, a sparse pseudo-random system matrix).
__device__ inline float ct_a(unsigned i, unsigned j)
{
    unsigned h = i * 2654435761u ^ j * 40503u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return (h >> 28) < 3u ? (float)((h >> 24) & 3u) * 0.25f : 0.0f;
}

// res[i] = b[i] - sum_j a(i, j) x[j] for own rays.
extern "C" __global__ void gps_ct_project(const float *x, const float *b,
                                          float *res, unsigned npix,
                                          unsigned i0, unsigned ni)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ni)
        return;
    unsigned i = i0 + t;
    float s = 0.0f;
    for (unsigned j = 0; j < npix; j++)
        s += ct_a(i, j) * x[j];
    res[i] = b[i] - s;
}

// x[j] += lambda * sum_i a(i, j) res[i] for own pixels.
extern "C" __global__ void gps_ct_back(const float *res, float *x,
                                       unsigned nray, unsigned j0,
                                       unsigned nj, float lambda)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nj)
        return;
    unsigned j = j0 + t;
    float s = 0.0f;
    for (unsigned i = 0; i < nray; i++)
        s += ct_a(i, j) * res[i];
    x[j] = x[j] + lambda * s;
}
