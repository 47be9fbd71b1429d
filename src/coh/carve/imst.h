/*
** The In-Memory Sharing Tracker of one home GPU (CARVE-HWC, seed 004
** §IV.B): 2 bits per line of the GPU's memory, kept in the home's ECC
** bits (no DRAM access of their own), saying whether other GPUs may hold
** the line in their RDCs, so that a write broadcasts invalidations only
** when it must (GPU-VI filtered).
**
**   state      remote read  remote write       local write
**   UNCACHED   RS           RW                 PRIVATE
**   PRIVATE    RS           RW                 PRIVATE
**   RS         RS           RW, broadcast      broadcast; RW, or PRIVATE
**                                              with probability p
**   RW         RW           RW, broadcast      broadcast; RW, or PRIVATE
**                                              with probability p
** A local read of an UNCACHED line makes it PRIVATE. The paper states the
** remote-read, remote-write and local-write-with-p rows (§IV.B); the rest
** is the digest's conservative completion (carve-digest.md §5.2). The
** invariant that makes it correct: a line some RDC may hold is RS or RW,
** and a line leaves those states only right after a broadcast. The
** reset draws from a fixed-seed xorshift stream per home (determinism).
**
** The broken variant of the tests (`break_remote_read`) forgets the
** remote-read transition: a line read by others stays PRIVATE and the
** home's writes never invalidate their copies.
*/
#ifndef MGS_COH_CARVE_IMST_H
#define MGS_COH_CARVE_IMST_H

#include <stdbool.h>
#include <stdint.h>

typedef enum imst_state {
    IMST_UNCACHED = 0,
    IMST_PRIVATE,
    IMST_RS,                  /* read-shared */
    IMST_RW                   /* read-write shared */
} imst_state;

#define IMST_CHUNK 65536u

typedef struct imst {
    uint64_t base;            /* first byte of the home's memory */
    uint64_t lines;
    uint32_t line;
    uint32_t reset_per_million; /* p * 10^6 */
    uint64_t rng;             /* xorshift64 state */
    bool break_remote_read;   /* tests only */
    uint8_t **chunk;          /* [nchunks] one byte per line, lazily */
    uint64_t nchunks;
    uint64_t transitions[4][4]; /* [from][to] counts */
    uint64_t broadcasts;      /* writes that broadcast invalidations */
    uint64_t coalesced;       /* of those, sent none: one was in flight */
    uint64_t resets;          /* lines returned to PRIVATE by p */
} imst;

void imst_init(imst *t, uint64_t base, uint64_t bytes, uint32_t line,
               uint32_t reset_per_million, uint64_t seed);
void imst_fini(imst *t);
imst_state imst_get(const imst *t, uint64_t addr);
void imst_remote_read(imst *t, uint64_t addr);
void imst_local_read(imst *t, uint64_t addr);
/* Return true if the write must broadcast invalidations to the other
** GPUs' RDCs (for a remote write: to every GPU but the writer). */
bool imst_remote_write(imst *t, uint64_t addr);
bool imst_local_write(imst *t, uint64_t addr);

#endif
