#include <hip/hip_runtime.h>
/* Litmus tests (docs/litmus.md; host side src/litmus/litmus.c).
**
** One kernel per test and variant: litmus_<test>_<variant>, variant
**   plain  relaxed work-group-scope atomics, no fences (plain loads and
**          stores: nothing forbidden across work-groups under HIP's model)
**   dev    relaxed agent-scope atomics + __threadfence() (one GPU)
**   sys    relaxed system-scope atomics + __threadfence_system() (GPUs)
**
** The plan (written by the host) starts with 16 pointers to the x buffers
** and 16 to the y buffers (one per GPU: buffer g lives on GPU g), then
** holds two words per work-group w: role | xsel << 8 | ysel << 12 |
** delay << 16, and group | delay2 << 16. Work-group w plays that role for
** group g with x and y in the buffers of GPUs xsel and ysel, after a delay
** loop (delay2: a second one inside the test, MP's reader); lane l is
** test instance i = 64g + l (all lanes of a wave play the same role for 64
** instances). Sixteen instances share a line, one dword each: x[LOC(i)],
** y[LOC(i)] with LOC(i) = (i / 16) * STRIDE + i % 16, so one instruction of
** a wave is 4 line requests (as ordinary coalesced code), not 64 requests
** whose queueing would order the wave's earlier accesses before its later
** ones. Each test line is followed by a neighbour line that only stress
** work-groups (role 0xff) read and write. Instance i's registers go to
** out[4i + k]. */

#define STRIDE 32u            /* ints: 128 bytes per 16 instances */
#define NEIGHBOUR 16u         /* ints: the next 64-byte line */
#define LOC(i) (((i) >> 4) * STRIDE + ((i) & 15u))
#define ROLE_STRESS 0xffu

enum { PLAIN = 0, DEV = 1, SYS = 2 };

template <int V> __device__ inline void st(int *p, int v)
{
    if (V == PLAIN)
        __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    else if (V == DEV)
        __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    else
        __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}

template <int V> __device__ inline int ld(int *p)
{
    if (V == PLAIN)
        return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    if (V == DEV)
        return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}

/* The fence between a thread's two accesses; without one, only the
** compiler is kept from reordering them. */
template <int V> __device__ inline void fence()
{
    if (V == PLAIN)
        __asm__ volatile("" ::: "memory");
    else if (V == DEV)
        __threadfence();
    else
        __threadfence_system();
}

/* MP: r0 = y, r1 = x; forbidden r0=1 r1=0. As HIP programs pass data,
** x is the data (work-group-scope atomics: ordinary loads and stores that
** the L1 caches) and y the flag (an atomic of the variant's scope). The
** reader first reads x once (r2, not part of the outcome) and waits a
** second drawn delay, so that its L1 may hold x = 0 when it sees the flag:
** with fences, the acquire fence must drop that copy (a protocol whose
** fences keep the L1 fails here); without, the stale read shows. */
template <int V> __device__ void mp(unsigned role, int *x, int *y, int *r,
                                    unsigned delay2)
{
    if (role == 0) {
        st<PLAIN>(x, 1);
        fence<V>();
        st<V>(y, 1);
    } else {
        int r2 = ld<PLAIN>(x);
        for (unsigned d = 0; d < delay2; d++)
            __asm__ volatile("s_nop 0" ::: "memory");
        int r0 = ld<V>(y);
        fence<V>();
        int r1 = ld<PLAIN>(x);
        r[0] = r0;
        r[1] = r1;
        r[2] = r2;
    }
}

/* SB: forbidden r0=0 r1=0. */
template <int V> __device__ void sb(unsigned role, int *x, int *y, int *r,
                                    unsigned delay2)
{
    (void)delay2;
    if (role == 0) {
        st<V>(x, 1);
        fence<V>();
        r[0] = ld<V>(y);
    } else {
        st<V>(y, 1);
        fence<V>();
        r[1] = ld<V>(x);
    }
}

/* LB: forbidden r0=1 r1=1. */
template <int V> __device__ void lb(unsigned role, int *x, int *y, int *r,
                                    unsigned delay2)
{
    (void)delay2;
    if (role == 0) {
        int r0 = ld<V>(x);
        fence<V>();
        st<V>(y, 1);
        r[0] = r0;
    } else {
        int r1 = ld<V>(y);
        fence<V>();
        st<V>(x, 1);
        r[1] = r1;
    }
}

/* CoRR: forbidden r0=1 r1=0 (one location, read twice). */
template <int V> __device__ void corr(unsigned role, int *x, int *y, int *r,
                                      unsigned delay2)
{
    (void)delay2;
    (void)y;
    if (role == 0) {
        st<V>(x, 1);
    } else {
        int r0 = ld<V>(x);
        fence<V>();
        int r1 = ld<V>(x);
        r[0] = r0;
        r[1] = r1;
    }
}

/* IRIW: forbidden r0=1 r1=0 r2=1 r3=0. */
template <int V> __device__ void iriw(unsigned role, int *x, int *y, int *r,
                                      unsigned delay2)
{
    (void)delay2;
    if (role == 0) {
        st<V>(x, 1);
    } else if (role == 1) {
        st<V>(y, 1);
    } else if (role == 2) {
        int r0 = ld<V>(x);
        fence<V>();
        int r1 = ld<V>(y);
        r[0] = r0;
        r[1] = r1;
    } else {
        int r2 = ld<V>(y);
        fence<V>();
        int r3 = ld<V>(x);
        r[2] = r2;
        r[3] = r3;
    }
}

/* 2+2W: final x, y read by the host; forbidden x=1 y=1. */
template <int V> __device__ void w22(unsigned role, int *x, int *y, int *r,
                                     unsigned delay2)
{
    (void)delay2;
    (void)r;
    if (role == 0) {
        st<V>(x, 1);
        fence<V>();
        st<V>(y, 2);
    } else {
        st<V>(y, 1);
        fence<V>();
        st<V>(x, 2);
    }
}

/* Reads and writes the neighbour lines of pseudo-random instances. */
__device__ void stress(int *x, int *y, unsigned group, unsigned ninst,
                       unsigned iters)
{
    unsigned h = group * 2654435761u + threadIdx.x * 40503u + 1u;
    for (unsigned k = 0; k < iters; k++) {
        h ^= h << 13;
        h ^= h >> 17;
        h ^= h << 5;
        unsigned line = h % ((ninst + 15u) / 16u);
        int *p = (k & 1 ? y : x) + line * STRIDE + NEIGHBOUR + (threadIdx.x & 15u);
        int v = __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
        __hip_atomic_store(p, v + 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    }
}

#define PLAN_HEADER 64u       /* words: 32 pointers */

#define LITMUS(test, variant, V)                                              \
    extern "C" __global__ void litmus_##test##_##variant(                     \
        const unsigned *plan, int *out, unsigned ninst, unsigned stress_iters) \
    {                                                                         \
        const unsigned *wg = plan + PLAN_HEADER + 2 * blockIdx.x;             \
        unsigned word = wg[0], group = wg[1] & 0xffffu, delay2 = wg[1] >> 16;  \
        int *const *tab = (int *const *)plan;                                 \
        int *x = tab[(word >> 8) & 15u], *y = tab[16 + ((word >> 12) & 15u)]; \
        unsigned role = word & 0xffu, delay = word >> 16;                     \
        if (role == ROLE_STRESS) {                                            \
            stress(x, y, group, ninst, stress_iters);                         \
            return;                                                           \
        }                                                                     \
        for (unsigned d = 0; d < delay; d++)                                  \
            __asm__ volatile("s_nop 0" ::: "memory");                         \
        unsigned i = group * 64u + threadIdx.x;                               \
        test<V>(role, x + LOC(i), y + LOC(i), out + 4u * i, delay2);          \
    }

#define LITMUS3(test)                                                         \
    LITMUS(test, plain, PLAIN)                                                \
    LITMUS(test, dev, DEV)                                                    \
    LITMUS(test, sys, SYS)

LITMUS3(mp)
LITMUS3(sb)
LITMUS3(lb)
LITMUS3(corr)
LITMUS3(iriw)
LITMUS3(w22)
