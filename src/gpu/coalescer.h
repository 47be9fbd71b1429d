/*
** The CU's memory coalescer: turns the per-lane accesses of one memory
** instruction (a gcn_mem_plan) into line requests, the way the GCN vector
** memory unit does before the L1 (seed 002 §5.2.3: cache-line granularity,
** 64 B).
**
** Rules.
**   - Loads and stores: every access byte belongs to the line that holds
**     it; all accesses of the instruction to one line (any lane, any
**     element) form one request. An access that straddles two lines is
**     split. Requests keep the order in which their lines are first touched
**     (lane 0..63, element 0..n inside a lane), so a fully coalesced
**     dword load of 64 lanes is 4 requests in address order.
**   - A request covers the byte span [first, last] of the line that its
**     accesses touch; a store request carries a byte mask of the bytes
**     written (bit i = byte first + i) and the bytes themselves. For bytes
**     written by several lanes the highest lane wins (as in emu mode).
**   - Atomics are not combined: one request per lane, in lane order.
** Response data is scattered back by cu_coal_fill, which needs only the
** response's address range: every access byte inside it is copied, so a
** read response can be applied without remembering which lanes asked.
**
** Invariants: line_bytes is a power of two <= 64 (one mask word); at most
** CU_COAL_MAX requests per instruction.
*/
#ifndef MGS_GPU_COALESCER_H
#define MGS_GPU_COALESCER_H

#include <stdint.h>

#include "gcn3/exec_mem_plan.h"

/* 64 lanes x 4 elements x 2 pieces (a straddling access). */
#define CU_COAL_MAX (GCN_WAVE_LANES * GCN_MEM_PLAN_ELEMS * 2)

typedef struct cu_coal_req {
    uint64_t line;        /* line address (aligned) */
    uint64_t mask;        /* bytes of the line touched (bit i = line + i) */
    uint64_t lanes;       /* lanes with an access in this request */
    uint8_t lane;         /* atomics: the lane */
    uint8_t data[64];     /* stores: bytes at line offsets; atomics unused */
} cu_coal_req;

/* First byte and size of a request's span. */
static inline uint32_t cu_coal_first(const cu_coal_req *r)
{
    return (uint32_t)__builtin_ctzll(r->mask);
}
static inline uint32_t cu_coal_size(const cu_coal_req *r)
{
    return 64u - (uint32_t)__builtin_clzll(r->mask) - cu_coal_first(r);
}

/* Coalesces p's mem_lanes into out[0..n); returns n (0 when there is
** nothing to send). out must have room for CU_COAL_MAX entries. */
uint32_t cu_coalesce(const gcn_mem_plan *p, uint32_t line_bytes,
                     cu_coal_req *out);

/* Copies the bytes of [addr, addr + size) that p's accesses read into
** p->data (loads). */
void cu_coal_fill(gcn_mem_plan *p, uint64_t addr, uint32_t size,
                  const uint8_t *bytes);
/* The same, looking only at the given lanes: with a request's lanes (the
** lanes with an access in its line) it copies exactly what cu_coal_fill
** copies for a response inside that line, without scanning all 64 lanes. */
void cu_coal_fill_lanes(gcn_mem_plan *p, uint64_t lanes, uint64_t addr,
                        uint32_t size, const uint8_t *bytes);
/* Stores the old value returned for lane's atomic into p->data. */
void cu_coal_fill_atomic(gcn_mem_plan *p, unsigned lane, const uint8_t *old);

#endif
