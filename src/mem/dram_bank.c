/*
** DRAM bank state machine, computed rather than ticked.
**
** A transaction's commands are decided once, at the scheduling instant,
** from the bank's readiness times (see dram_int.h for the states):
**
**   ACTIVE(row r)  --RD/WR to r-------------------------->  ACTIVE(r)     HIT
**   IDLE           --ACT (>= act_ready), +tRCD, RD/WR---->  ACTIVE(r)     MISS
**   ACTIVE(q != r) --PRE (>= ACT+tRAS, >= write end+tWR)
**                  -> PRECHARGING (tRP) -> ACT, +tRCD --->  ACTIVE(r)     CONFLICT
**   any            --refresh window k*tREFI-------------->  REFRESH (tRFC)
**                                                      ->  IDLE (rows closed)
**   close-page policy: every column command is followed by an automatic
**   PRE at max(column, ACT + tRAS, write end + tWR) -> PRECHARGING -> IDLE.
**
** dram_bank_plan computes the command times (pure), dram_bank_commit moves
** the bank along the arrows above. The data bus is shared by all banks:
** a burst starts at max(column + tCL (tCWL for writes), bus free).
**
** Refresh is all-bank: windows [k*tREFI, k*tREFI + tRFC) for k >= 1. No
** command sequence of a transaction (first command .. column command) may
** overlap a window; a sequence that would is restarted after the window,
** with every row closed. Data bursts already committed finish regardless
** (the controller would delay the refresh by that much; we ignore it).
** Not modelled: tRRD, tFAW, tCCD, tRTP, tWTR, bank groups, a command-bus
** limit (one column command moves a whole 64 B line, so the data bus, not
** the command bus, is the bottleneck).
*/
#include "mem/dram_int.h"

static mgs_time tmax(mgs_time a, mgs_time b)
{
    return a > b ? a : b;
}

/* Refresh windows begun at or before t. */
static uint64_t refresh_index(const dram_timing *t, mgs_time at)
{
    return t->tREFI ? at / t->tREFI : 0;
}

/* If `at` lies inside a refresh window, the window's end, else 0. */
static mgs_time refresh_window_end(const dram_timing *t, mgs_time at)
{
    uint64_t k = refresh_index(t, at);
    if (k == 0)
        return 0;
    mgs_time end = k * t->tREFI + t->tRFC;
    return at < end ? end : 0;
}

/* End of the first refresh window that starts in (from, to], else 0. */
static mgs_time refresh_window_between(const dram_timing *t, mgs_time from,
                                       mgs_time to)
{
    if (!t->tREFI)
        return 0;
    mgs_time start = (from / t->tREFI + 1) * t->tREFI;
    return start <= to ? start + t->tRFC : 0;
}

bool dram_bank_row_hit(const dram_timing *t, const dram_bank *b, uint64_t row,
                       mgs_time now)
{
    return b->row_open && b->open_row == row &&
           refresh_index(t, now) == b->epoch;
}

void dram_bank_plan(const dram_timing *t, bool open_page, const dram_bank *b,
                    uint64_t row, dram_access acc, uint32_t bursts,
                    mgs_time now, mgs_time bus_free, dram_plan *p)
{
    (void)open_page; /* the policy acts at commit (auto-precharge) */
    mgs_time start = now;
    mgs_time first;
    for (;;) {
        mgs_time w = refresh_window_end(t, start);
        if (w)
            start = w;
        uint64_t k = refresh_index(t, start);
        bool open = b->row_open && k == b->epoch;
        mgs_time act_ready = b->act_ready;
        if (b->row_open && !open) /* a refresh closed it: ACT after it */
            act_ready = tmax(act_ready, k * t->tREFI + t->tRFC);
        p->pre = p->act = 0;
        if (open && b->open_row == row) {
            p->result = DRAM_ROW_HIT;
            p->col = tmax(start, b->col_ready);
            first = p->col;
        } else if (open) {
            p->result = DRAM_ROW_CONFLICT;
            p->pre = tmax(start, b->pre_ready);
            p->act = p->pre + t->tRP;
            p->col = p->act + t->tRCD;
            first = p->pre;
        } else {
            p->result = DRAM_ROW_MISS;
            p->act = tmax(start, act_ready);
            p->col = p->act + t->tRCD;
            first = p->act;
        }
        w = refresh_window_end(t, first);
        if (!w)
            w = refresh_window_between(t, first, p->col);
        if (!w)
            break;
        start = w; /* the sequence would overlap a refresh: redo after it */
    }
    mgs_time len = (mgs_time)bursts * t->burst;
    if (acc == DRAM_ACC_WRITE) {
        p->data_start = tmax(p->col + t->tCWL, bus_free);
        p->col2 = p->col;
    } else {
        p->data_start = tmax(p->col + t->tCL, bus_free);
        if (acc == DRAM_ACC_ATOMIC) {
            /* Write the new value back once the old one is out. */
            mgs_time read_end = p->data_start + len;
            mgs_time r = read_end % t->period;
            p->col2 = r ? read_end + (t->period - r) : read_end;
            p->data_start = tmax(p->col2 + t->tCWL, read_end);
        } else {
            p->col2 = p->col;
        }
    }
    p->data_end = p->data_start + len;
    p->refreshes = refresh_index(t, p->col);
}

void dram_bank_commit(const dram_timing *t, bool open_page, dram_bank *b,
                      uint64_t row, dram_access acc, const dram_plan *p)
{
    if (p->result != DRAM_ROW_HIT) {
        b->row_open = true;
        b->open_row = row;
        b->act_time = p->act;
        b->epoch = refresh_index(t, p->act);
        b->col_ready = p->act + t->tRCD;
        b->pre_ready = p->act + t->tRAS;
    }
    if (acc != DRAM_ACC_READ)
        b->pre_ready = tmax(b->pre_ready, p->data_end + t->tWR);
    b->busy_until = p->col2;
    if (!open_page) {
        mgs_time pre = tmax(b->pre_ready, p->col2);
        b->row_open = false;
        b->act_ready = pre + t->tRP;
    }
}
