/*
** DRAM configuration: R9 Nano-like HBM1 defaults, validation, the derived
** picosecond timing table and the channel-local address mapping.
**
** Sources (docs/dram.md repeats them): seed 002 Table 5.1 gives 8 DRAM
** controllers of 512 MB per GPU and 64 B blocks; MGPUSim v3's Akita HBM
** model (research/mgpusim-anchor-study.md §1.7) gives 500 MHz, 16 banks,
** 64 columns x 256 bit rows, tCL/tRCD/tRP 7, tRAS 17, tREFI 1950; the rest
** is marked "assumed:" with its reason.
**
** Mapping. The channel interleave puts `interleave` consecutive bytes on
** one channel, then moves to the next of `channels`. A channel strips those
** bits: local = (a / (interleave*channels)) * interleave + a % interleave,
** with a = paddr - base. Inside the channel: column = local % row_bytes,
** bank = (local / row_bytes) % banks, row = local / (row_bytes * banks), so
** sequential data fills a row, then moves to the next bank (streams keep
** several banks busy while the bus moves the current one).
*/
#include "mem/dram_int.h"

#include "mgsim/errors.h"

void dram_config_default(dram_config *c)
{
    c->banks = 16;            /* MGPUSim v3 HBM: 4 bank groups x 4 banks */
    c->row_bytes = 2048;      /* MGPUSim v3 HBM: 64 columns x 256 bit */
    c->burst_bytes = 64;      /* seed 002 §5.2.7: 64 B blocks, one burst */
    /* assumed: R9 Nano HBM1 peak 512 GB/s (AMD product spec) over the
    ** 8 controllers of Table 5.1 = 64 GB/s = 128 B per 500 MHz cycle. */
    c->bytes_per_cycle = 128;
    c->tRCD = 7;              /* MGPUSim v3 HBM model */
    c->tCL = 7;               /* MGPUSim v3 HBM model */
    c->tCWL = 4;              /* assumed: HBM1 write latency, below tCL */
    c->tRP = 7;               /* MGPUSim v3 HBM model */
    c->tRAS = 17;             /* MGPUSim v3 HBM model */
    c->tWR = 8;               /* assumed: JEDEC 15 ns write recovery,
                                 rounded up to 500 MHz cycles */
    c->tRFC = 130;            /* assumed: JEDEC 4 Gb-class tRFC 260 ns */
    c->tREFI = 1950;          /* MGPUSim v3 HBM model (3.9 us) */
    /* assumed: seed 000 §4 calibrates a fixed 100-cycle (1 GHz) memory
    ** controller latency; 2 x 36 ns + a 29 ns row miss gives ~101 ns. */
    c->ctrl_latency = 18;
    /* assumed: an entry stays allocated from arrival until its response
    ** leaves (both controller pipeline passes included), so the queue must
    ** cover bandwidth x round trip: 64 GB/s x ~110 ns = 110 lines; 256
    ** leaves headroom for row switches (Little's law). */
    c->queue_entries = 256;
    c->top_buffer = 16;       /* assumed: port buffer in front of it */
    c->interleave = 4096;     /* MGPUSim 2020: 4 KB bank interleaving */
    c->channels = 8;          /* seed 002 Table 5.1: 8 DRAM per GPU */
    c->base = 0;
    c->open_page = true;      /* assumed: open-page, as FR-FCFS expects */
    c->period = 2000;         /* MGPUSim v3 HBM model: 500 MHz */
}

static int invalid(const char *field, const char *why)
{
    return mgs_error_set(MGS_ECONFIG, "dram: %s %s", field, why);
}

static bool is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

int dram_config_validate(const dram_config *c)
{
    if (c->banks < 1)
        return invalid("banks", "must be >= 1");
    if (c->burst_bytes < 1 || c->burst_bytes > MEM_LINE_MAX ||
        !is_pow2(c->burst_bytes))
        return invalid("burst_bytes", "must be a power of two <= 128");
    if (c->row_bytes < c->burst_bytes || c->row_bytes % c->burst_bytes)
        return invalid("row_bytes", "must be a multiple of burst_bytes");
    if (c->bytes_per_cycle < 1)
        return invalid("bytes_per_cycle", "must be >= 1");
    if (c->period < 1)
        return invalid("period", "must be >= 1 ps");
    if (c->tRAS < c->tRCD)
        return invalid("tRAS", "must be >= tRCD");
    if (c->tREFI && c->tRFC >= c->tREFI)
        return invalid("tRFC", "must be < tREFI (tREFI 0 disables refresh)");
    if (c->queue_entries < 1)
        return invalid("queue_entries", "must be >= 1");
    if (c->top_buffer < 1)
        return invalid("top_buffer", "must be >= 1");
    if (c->channels < 1)
        return invalid("channels", "must be >= 1");
    if (c->channels > 1 &&
        (c->interleave < c->burst_bytes || c->interleave % c->burst_bytes))
        return invalid("interleave", "must be a multiple of burst_bytes");
    return MGS_OK;
}

void dram_timing_derive(dram_timing *t, const dram_config *c)
{
    mgs_time p = c->period;
    t->period = p;
    t->tRCD = c->tRCD * p;
    t->tCL = c->tCL * p;
    t->tCWL = c->tCWL * p;
    t->tRP = c->tRP * p;
    t->tRAS = c->tRAS * p;
    t->tWR = c->tWR * p;
    t->tRFC = c->tRFC * p;
    t->tREFI = c->tREFI * p;
    t->ctrl = c->ctrl_latency * p;
    /* Whole picoseconds: a bus width that does not divide the burst
    ** evenly rounds the burst time up (never faster than the bus). */
    t->burst = ((mgs_time)c->burst_bytes * p + c->bytes_per_cycle - 1) /
               c->bytes_per_cycle;
}

/* Offset a (from the memory's base) within this channel's own bytes:
** the other channels' interleaving units taken out. */
static uint64_t channel_local(const dram_config *c, uint64_t a)
{
    if (c->channels <= 1)
        return a;
    return a / (c->interleave * c->channels) * c->interleave +
           a % c->interleave;
}

void dram_map(const dram_config *c, uint64_t paddr, dram_loc *loc)
{
    uint64_t a = paddr - c->base;
    uint64_t row_global = channel_local(c, a) / c->row_bytes;
    loc->bank = (uint32_t)(row_global % c->banks);
    loc->row = row_global / c->banks;
    loc->offset = a;
}

uint64_t dram_row_left(const dram_config *c, uint64_t paddr)
{
    uint64_t a = paddr - c->base;
    uint64_t in_row = c->row_bytes - channel_local(c, a) % c->row_bytes;
    uint64_t in_unit = c->channels > 1 ? c->interleave - a % c->interleave
                                       : UINT64_MAX;
    return in_row < in_unit ? in_row : in_unit;
}
