/*
** DRAM controller internals shared by dram_timing.c (configuration and the
** derived picosecond timing table), dram_bank.c (bank state machine and
** command planning) and dram.c (the component: queue, FR-FCFS, data).
**
** Everything here is in picoseconds. The command clock is cfg.period; every
** command (ACT, PRE, RD/WR column) sits on a command-clock edge, data bursts
** may end between edges when bytes_per_cycle moves more than one burst per
** cycle (DDR). Not part of the public API: only the dram*.c files and the
** DRAM tests include it.
*/
#ifndef MGS_MEM_DRAM_INT_H
#define MGS_MEM_DRAM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "mem/dram.h"

/* Timing parameters converted once from cycles to ps (dram_timing_derive). */
typedef struct dram_timing {
    mgs_time period;       /* command clock */
    mgs_time tRCD, tCL, tCWL, tRP, tRAS, tWR, tRFC, tREFI; /* tREFI 0 = off */
    mgs_time ctrl;         /* controller pipeline, each way */
    mgs_time burst;        /* one burst on the data bus:
                              burst_bytes * period / bytes_per_cycle */
} dram_timing;

void dram_timing_derive(dram_timing *t, const dram_config *c);

/* Where a physical address lives inside one channel. */
typedef struct dram_loc {
    uint32_t bank;
    uint64_t row;
    uint64_t offset;       /* byte offset inside the channel (backing) */
} dram_loc;

void dram_map(const dram_config *c, uint64_t paddr, dram_loc *loc);
/* Bytes from paddr to the end of its row within its interleaving unit:
** the addresses after it that dram_map puts at the next offsets of the
** same row and bank. */
uint64_t dram_row_left(const dram_config *c, uint64_t paddr);

/* One bank. Its state is implied by the times below compared with "now":
**   IDLE         !row_open and now >= act_ready
**   PRECHARGING  !row_open and now <  act_ready  (a PRE is in its tRP)
**   ACTIVE       row_open (columns allowed from col_ready)
**   REFRESH      now inside a refresh window [k*tREFI, k*tREFI + tRFC),
**                all banks; a refresh closes every open row.
** Transitions are computed, not ticked: dram_bank_plan decides the command
** times of one transaction and dram_bank_commit applies them. */
typedef struct dram_bank {
    bool row_open;
    uint64_t open_row;
    uint64_t epoch;        /* refresh windows begun before the row opened */
    mgs_time act_time;     /* last ACT */
    mgs_time act_ready;    /* earliest ACT (last PRE + tRP) */
    mgs_time col_ready;    /* earliest column command (ACT + tRCD) */
    mgs_time pre_ready;    /* earliest PRE (ACT + tRAS, write end + tWR) */
    mgs_time busy_until;   /* next scheduling decision for this bank: the
                              column command of its last transaction */
} dram_bank;

typedef enum dram_row_result {
    DRAM_ROW_HIT,          /* open row matches: column command only */
    DRAM_ROW_MISS,         /* bank closed: ACT, column */
    DRAM_ROW_CONFLICT      /* other row open: PRE, ACT, column */
} dram_row_result;

typedef enum dram_access {
    DRAM_ACC_READ,
    DRAM_ACC_WRITE,
    DRAM_ACC_ATOMIC        /* read burst, then write burst of the new value */
} dram_access;

/* The commands of one transaction, decided at one scheduling instant. */
typedef struct dram_plan {
    dram_row_result result;
    mgs_time pre, act;     /* valid for CONFLICT / MISS+CONFLICT */
    mgs_time col;          /* (first) column command */
    mgs_time col2;         /* ATOMIC: the write-back column command */
    mgs_time data_start, data_end; /* last data burst on the bus */
    uint64_t refreshes;    /* refresh windows begun by the first command */
} dram_plan;

/* Plans an access of `bursts` bursts to row `row` of bank b, no command
** before now, data bus free from bus_free. Pure: changes nothing. */
void dram_bank_plan(const dram_timing *t, bool open_page, const dram_bank *b,
                    uint64_t row, dram_access acc, uint32_t bursts,
                    mgs_time now, mgs_time bus_free, dram_plan *p);
/* Applies a plan to the bank (row state, readiness times). */
void dram_bank_commit(const dram_timing *t, bool open_page, dram_bank *b,
                      uint64_t row, dram_access acc, const dram_plan *p);
/* Whether a transaction to `row` would hit the open row at time now
** (no refresh closed it since it opened). */
bool dram_bank_row_hit(const dram_timing *t, const dram_bank *b, uint64_t row,
                       mgs_time now);

#endif
