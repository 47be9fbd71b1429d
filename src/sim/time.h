/*
** Simulated time: an unsigned 64-bit count of picoseconds.
**
** 2^64 ps is about 213 days of simulated time, far beyond any GPU run, so
** time never wraps in practice. Every component has its own clock period in
** integer picoseconds; cycles convert to time by multiplication only, never
** through floating point, so two runs agree bit for bit.
**
** Clock edges of a component with period P sit at k*P (phase 0 for every
** clock). A frequency that does not divide 10^12 is rounded to the nearest
** picosecond period (1.5 GHz -> 667 ps); mgs_hz_from_period reports the
** frequency actually simulated.
*/
#ifndef MGS_SIM_TIME_H
#define MGS_SIM_TIME_H

#include <stdint.h>

typedef uint64_t mgs_time; /* picoseconds */

#define MGS_TIME_MAX UINT64_MAX
#define MGS_PS_PER_NS 1000ULL
#define MGS_PS_PER_US 1000000ULL
#define MGS_PS_PER_MS 1000000000ULL
#define MGS_PS_PER_S 1000000000000ULL

/* Period in ps of a clock of hz Hertz, rounded to the nearest ps.
** Requires 1 <= hz <= 10^12 (a period of at least 1 ps). */
static inline mgs_time mgs_period_from_hz(uint64_t hz)
{
    return (MGS_PS_PER_S + hz / 2) / hz;
}

/* Frequency in Hz of a clock with the given period (> 0), rounded. */
static inline uint64_t mgs_hz_from_period(mgs_time period_ps)
{
    return (MGS_PS_PER_S + period_ps / 2) / period_ps;
}

/* Duration of n cycles of a clock with the given period. */
static inline mgs_time mgs_cycles(uint64_t n, mgs_time period_ps)
{
    return n * period_ps;
}

/* Number of whole cycles elapsed at time t (the cycle index of t). */
static inline uint64_t mgs_cycle_of(mgs_time t, mgs_time period_ps)
{
    return t / period_ps;
}

/* First clock edge at or after t. */
static inline mgs_time mgs_edge_at_or_after(mgs_time t, mgs_time period_ps)
{
    mgs_time r = t % period_ps;
    return r ? t + (period_ps - r) : t;
}

/* First clock edge strictly after t. */
static inline mgs_time mgs_edge_after(mgs_time t, mgs_time period_ps)
{
    return t - t % period_ps + period_ps;
}

#endif
