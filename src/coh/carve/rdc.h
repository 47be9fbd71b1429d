/*
** The tag store of one slice of a Remote Data Cache (CARVE, seed 004
** §IV.A): direct-mapped, one line per set, the tag, valid bit and epoch of
** every set kept "in ECC" (no DRAM access of their own; the data lives in
** the carved DRAM region and is read and written by the agent,
** rdc_agent.c). No timing here: the agent asks, this answers, and the unit
** test drives it alone.
**
** A set's state: INVALID, FETCHING (a miss went to the home; a fill may
** follow), VALID (tag, epoch). Every change bumps the set's sequence
** number, so an operation that started earlier (a probe read in flight, a
** fetch) can tell that the set changed under it and must not trust what
** it carries: a probe whose set changed is a miss, a fetch whose set
** changed does not fill (an invalidation landed meanwhile, so the fetched
** bytes may be stale).
**
** SWC epochs (§IV.B): a line is valid only if its epoch equals the
** slice's current epoch; a kernel boundary increments the epoch (all lines
** invalid at once). The counter is epoch_bits wide (20); when it wraps,
** every set is reset (a full sweep, counted).
**
** Write-back (carve.rdc_write = back): each set also keeps a dirty byte
** mask (lines of at most 64 bytes) and the slice a dirty map, the list of
** sets that became dirty, so a flush visits only dirty lines (the paper's
** dirty-map, §IV.B). Whoever clears a line's dirty bits (rdc_clean, a
** victim taken by rdc_take_victim, rdc_dirty_next) writes them back; a
** dirty line dropped otherwise (invalidation, sweep) loses its bytes and
** is counted (dirty_dropped; the agent flushes before it drops).
**
** Storage: metadata for 2 GB / 64 B = 32 M sets per GPU would be 384 MB,
** so it is allocated lazily in chunks of RDC_CHUNK sets; an untouched
** chunk reads as INVALID.
*/
#ifndef MGS_COH_CARVE_RDC_H
#define MGS_COH_CARVE_RDC_H

#include <stdbool.h>
#include <stdint.h>

#define RDC_CHUNK 4096u

typedef enum rdc_state { RDC_INVALID = 0, RDC_FETCHING, RDC_VALID } rdc_state;

typedef struct rdc_meta {
    uint32_t tag;             /* line address / rdc span (see rdc_tag) */
    uint32_t epoch;
    uint16_t seq;             /* bumped by every change but writes */
    uint8_t state;            /* rdc_state */
    uint8_t listed;           /* in the dirty map */
    uint64_t dirty;           /* write-back: bytes written, not yet home */
} rdc_meta;

typedef struct rdc_counts {
    uint64_t fills, evictions, invalidations, sweeps, bumps;
    uint64_t range_invalidations;   /* lines dropped by ranges */
    uint64_t full_invalidations;    /* rdc_invalidate_all calls */
    uint64_t write_hits;            /* rdc_write_hit on a usable line */
    uint64_t cleaned, cleaned_bytes;/* dirty lines handed out for write-back */
    uint64_t dirty_dropped;         /* dirty lines dropped unwritten */
} rdc_counts;

typedef struct rdc {
    uint64_t sets;            /* lines of this slice */
    uint64_t span;            /* bytes the whole cache maps (rdc_bytes) */
    uint32_t line;            /* bytes */
    uint32_t slices;          /* slices of the cache (one per L2 bank) */
    uint32_t slice;           /* this one */
    uint32_t interleave;      /* bytes per bank-interleaving unit */
    uint32_t epoch;           /* current (SWC) */
    uint32_t epoch_mask;      /* (1 << epoch_bits) - 1 */
    bool use_epoch;           /* SWC: lines of an older epoch are invalid */
    rdc_meta **chunk;         /* [nchunks], lazily allocated */
    uint64_t nchunks;
    uint64_t *dmap;           /* the dirty map: sets, maybe clean since */
    uint64_t dmap_len, dmap_cap;
    uint64_t ndirty;          /* sets with dirty bytes now */
    rdc_counts n;
} rdc;

/* A slice of a cache of rdc_bytes (a multiple of interleave * slices)
** spread over `slices` slices by the L2 bank interleave: the line at
** address a lives in slice (a / interleave) % slices, set rdc_set(). */
void rdc_init(rdc *r, uint64_t rdc_bytes, uint32_t line, uint32_t slices,
              uint32_t slice, uint32_t interleave, bool use_epoch,
              uint32_t epoch_bits);
void rdc_fini(rdc *r);

/* The set of line address a in this slice, and its tag. Within one tag
** (an rdc_bytes-aligned span of addresses) the slice's lines map one to
** one onto its sets; the sets are rotated by a hash of the tag (assumed:
** seed 004 says only that combinational logic maps sets to DRAM), since
** mgsim hands out every GPU's frames from frame 0, so the data of
** different home GPUs sits at the same offsets and would otherwise fill
** the same sets. */
uint64_t rdc_set(const rdc *r, uint64_t a);
uint32_t rdc_tag(const rdc *r, uint64_t a);
/* Byte offset of a's set inside the carved region (a slice's sets lie in
** the interleaving units of its own bank, so region base + offset is in the
** same DRAM channel as a). */
uint64_t rdc_offset(const rdc *r, uint64_t a);

/* The set's metadata (a zeroed INVALID entry for an untouched chunk). */
rdc_meta rdc_peek(const rdc *r, uint64_t set);
/* Whether line a is present and usable now. */
bool rdc_hit(const rdc *r, uint64_t a);
/* A miss of a goes to the home: the set becomes FETCHING(a); returns the
** sequence number the fill must find. */
uint16_t rdc_fetch(rdc *r, uint64_t a);
/* The fetched line arrived: installs it (VALID at epoch `epoch`) if the
** set is still FETCHING(a) with sequence seq; true if installed (the agent
** then writes the data into DRAM). A VALID line of another tag that the
** fetch replaced counts as an eviction. */
bool rdc_fill(rdc *r, uint64_t a, uint16_t seq, uint32_t epoch);
/* Drops line a if the set holds it (VALID or FETCHING); true if it
** dropped a usable line (counted as an invalidation). */
bool rdc_invalidate(rdc *r, uint64_t a);
/* Drops every line of [addr, addr + bytes) this slice may hold. */
uint64_t rdc_invalidate_range(rdc *r, uint64_t addr, uint64_t bytes);
/* Drops every line (the runtime wrote more ranges than a launch names). */
void rdc_invalidate_all(rdc *r);
/* SWC: a kernel boundary. Returns true if the epoch wrapped (a sweep). */
bool rdc_epoch_bump(rdc *r);

/* ---- write-back (the dirty map) ---- */
/* A write of the bytes `mask` (bit i: byte i of the line) to line a: if
** a is present and usable, marks them dirty and returns true (the agent
** then writes the bytes into the carved DRAM); the set's sequence number
** is not bumped (a probe in flight reads the bytes before or after the
** write, both allowed). */
bool rdc_write_hit(rdc *r, uint64_t a, uint64_t mask);
/* The dirty bytes of line a (0 if the set does not hold a). */
uint64_t rdc_dirty(const rdc *r, uint64_t a);
/* Clears and returns the dirty bytes of line a (the caller writes them
** back; the line stays valid and clean). */
uint64_t rdc_clean(rdc *r, uint64_t a);
/* Before a fetch of a into its set: if the set holds another line with
** dirty bytes, clears them and returns them (*victim its address). */
uint64_t rdc_take_victim(rdc *r, uint64_t a, uint64_t *victim);
/* The next dirty line of the map (cleared, as rdc_clean): false when the
** slice holds no dirty line. */
bool rdc_dirty_next(rdc *r, uint64_t *line, uint64_t *mask);
/* Tests (a broken flush): drops every dirty line's bytes (counted as
** dropped); returns how many lines. */
uint64_t rdc_dirty_drop_all(rdc *r);

#endif
