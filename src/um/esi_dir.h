/*
** The IOMMU's page directory (seed 002 §5.3.3.2, Fig. 5.7): for every page
** the GPUs holding a copy and whether the copy is Exclusive (one holder,
** writable) or Shared (read-only replicas); a GPU not holding it is
** Invalid. Pure bookkeeping, no simulation: the migrator (migrator.c) asks
** it what a fault needs (esi_dir_plan), sends the messages the plan names,
** and records the outcome when they are answered (esi_dir_commit). A unit
** test drives it with a script of faults (tests/unit/um/test_esi.c).
**
** The plan for a fault of GPU g on page P (docs/memory-management.md):
**   read,  g holds P                  -> nothing (a race: it is mapped)
**   read,  nobody holds P             -> fetch from the staging frame; E
**   read,  P is E at o                -> o supplies a copy and keeps its
**                                        own read-only (downgrade): S, S
**   read,  P is S at several          -> one sharer supplies (chosen as
**                                        below); g joins them: S
**   write, P is E at g                -> nothing
**   write, P is S at g (and others)   -> upgrade: the others' copies are
**                                        invalidated, no data moves; E
**   write, nobody holds P             -> fetch from the staging frame; E
**   write, P is held elsewhere        -> one holder supplies (the owner,
**                                        or a sharer chosen as below);
**                                        every holder is invalidated; E
** Supplier among several sharers: seed 002 lets the IOMMU pick one at
** random on a bus; a PCIe tree is a bus and the links are all one hop, so
** the pick is pseudo-random here too, deterministic (a xorshift stream
** from `seed`, advanced once per committed fetch from sharers).
** exclusive_only (memory.management = migrate) turns every read into a
** write: pages move, never replicate (seed 002 §5.3.3.1).
**
** Pieces (memory.management = pasi, §5.3.3.3): a directory entry covers a
** piece of 2^order pages aligned to its size (order 0: one page, the only
** size under esi and migrate). Every page of a piece shares its state and
** holders. esi_dir_split halves the piece holding a page (both halves keep
** the state); esi_dir_merge joins a piece with its buddy (the other half
** of the piece twice its size) while both hold the same state on the same
** GPUs, up to the largest order, and neither was split less than the merge
** hold ago (esi_dir_set_merge_hold; 0: no hold). The hold is the guard
** against split/merge churn: without it, halves that meet on one GPU join
** at once and the next conflict splits them again, so a piece shared at a
** fine grain keeps growing back and every fault steals (and shoots down)
** the whole grown piece (memory.pasi_merge_hold, docs/memory-management.md).
** Times are the caller's (the migrator passes simulated ps).
*/
#ifndef MGS_UM_ESI_DIR_H
#define MGS_UM_ESI_DIR_H

#include <stdbool.h>
#include <stdint.h>

typedef enum esi_state { ESI_I = 0, ESI_S, ESI_E } esi_state;

typedef enum esi_kind {
    ESI_NOTHING = 0,          /* g has what it needs already */
    ESI_FETCH,                /* data goes to a new frame on g */
    ESI_UPGRADE               /* g keeps its frame; others invalidated */
} esi_kind;

typedef struct esi_plan {
    esi_kind kind;
    int supplier;             /* GPU sending the data; -1: the staging
                                 frame (nobody holds the page) or no data */
    uint64_t invalidate;      /* GPUs whose copies go (bit per GPU; may
                                 include the supplier: a move) */
    uint64_t downgrade;       /* GPUs that keep their copy read-only */
    esi_state result;         /* g's state once done */
} esi_plan;

typedef struct esi_dir esi_dir;

/* max_order: the largest piece is 2^max_order pages (0: pages only). */
esi_dir *esi_dir_new(uint32_t ngpus, bool exclusive_only, uint64_t seed,
                     unsigned max_order);
void esi_dir_free(esi_dir *d);

/* Whether the directory has seen page (a page number). */
bool esi_dir_known(const esi_dir *d, uint64_t page);
/* The first sight of the piece of 2^order pages at first (aligned; none of
** its pages seen): held Exclusive by gpu, or by nobody (gpu < 0: the
** pages wait in their staging frames). Also makes a seen piece Exclusive
** at gpu again (host writes; order must be the piece's). */
void esi_dir_seed(esi_dir *d, uint64_t first, unsigned order, int gpu);
/* The piece holding a seen page: its first page and order. */
void esi_dir_piece(const esi_dir *d, uint64_t page, uint64_t *first,
                   unsigned *order);
/* Halves the piece holding page (order > 0) at time now; false if it is
** one page. */
bool esi_dir_split(esi_dir *d, uint64_t page, uint64_t now);
/* The merge hold: pieces split at t do not merge before t + hold. */
void esi_dir_set_merge_hold(esi_dir *d, uint64_t hold);
/* Joins the piece holding page with its buddy while they agree (seen,
** same order, state and holders), the order stays <= max_order and the
** merge hold of both has passed at now, unless busy(ud, first, pages)
** says a range is in flight; returns the joins. */
unsigned esi_dir_merge(esi_dir *d, uint64_t page, uint64_t now,
                       bool (*busy)(void *ud, uint64_t first, uint64_t n),
                       void *ud);

esi_state esi_dir_state(const esi_dir *d, uint64_t page, uint32_t gpu);
uint64_t esi_dir_holders(const esi_dir *d, uint64_t page);

/* What a fault of gpu on page needs (a seen page; the plan is for its
** whole piece). Changes nothing. */
esi_plan esi_dir_plan(const esi_dir *d, uint64_t page, uint32_t gpu,
                      bool write);
/* The plan's messages were answered: gpu holds page's piece in
** plan->result, the
** invalidated GPUs no longer do, the downgraded ones hold it Shared. */
void esi_dir_commit(esi_dir *d, uint64_t page, uint32_t gpu,
                    const esi_plan *plan);

#endif
