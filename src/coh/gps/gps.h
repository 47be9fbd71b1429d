/*
** GPS: publish-subscribe replication of shared pages across GPUs (seed 003,
** research/gps-digest.md; docs/gps.md is the user's page). Everything GPS
** is in this folder:
**
**   gps.h          this interface (the runtime's driver calls, the
**                  statistics, the protocol)
**   gps_table.c    the GPS page table: per GPS page the physical replica of
**                  every subscriber, the subscriber set, the GPS bit, and
**                  the access-tracking bitmap of the profiling window; a
**                  reverse map frame -> page for the L2 shim
**   gps_queue.c    the remote write queue (fully associative, virtually
**                  addressed, 128 B blocks coalesced with byte masks,
**                  oldest first out)
**   gps_unit.c     per GPU: drains the queue at the high watermark and
**                  fully at releases, the GPS address translation unit
**                  with its GPS-TLB, and the publisher that sends one copy
**                  per remote subscriber over the inter-GPU network
**   gps_map.c      a small hash map (reverse map, queue tags)
**   gps.c          the coherence protocol "gps": nc's bulk-synchronous rules
**                  plus the L2 ingress shim (cache hooks) and the releases
**                  that wait for the queue to drain (kernel end, fences)
**   gps_driver.c   the driver side: GPS allocations (replicas in every
**                  subscriber's memory, real separate bytes), manual
**                  subscribe / unsubscribe, the profiling window
**
** Data path of a store to a GPS page on GPU g (seed 003 Fig. 7):
**   CU -> L1 (write-through) -> L2 bank of g: the page table of g maps the
**   page to g's own replica, so the store updates it (W3). The L2's ingress
**   shim (gps.c, cache hook `admit`) sees the physical address, finds the
**   GPS page through the reverse map and hands the store (VA block, bytes,
**   byte mask) to g's remote write queue (W4), where it coalesces. Drained
**   entries go through the GPS-TLB (a miss walks the GPS page table, W5)
**   and leave as one MEM_WRITE per remote subscriber, addressed to that
**   subscriber's replica, through g's RDMA engine (W6); the subscriber's
**   RDMA engine writes it through its L2 like any remote write.
** Loads need nothing: each subscriber's page table maps its own replica.
**
** Decisions where the seed is silent (each "assumed", docs/gps.md):
**   - non-subscribers: their page table maps the replica of the lowest
**     numbered subscriber; loads and stores go there remotely (RDMA). A
**     store arriving that way is published by that subscriber's queue
**     (the paper publishes it from the storer's queue; same bytes, one
**     more hop);
**   - atomics to GPS pages are performed on the local replica (returning
**     its old value) and forwarded as operations, never coalesced, one per
**     remote subscriber, which re-executes it: replicas converge for the
**     commutative atomics the workloads use (sums, min);
**   - system scope: gfx803 code compiles agent- and system-scope fences to
**     the same instructions (docs/litmus.md), so every fence
**     (buffer_wbinvl1[_vol]) is treated as a system-scope release: it
**     drains the queue and waits for every publication's acknowledgement.
**     A system-scope store or atomic cannot be told from an agent-scope
**     one either, so the §5.3 collapse of a page is not modelled:
**     synchronisation variables belong in ordinary memory (as the paper
**     advises) and atomics follow the rule above;
**   - the profiling window records L2 accesses of each GPU to its own
**     replica of a GPS page instead of last-level TLB misses: every page
**     a GPU touches in the window reaches its L2 (TLBs and L1s are dropped
**     at each launch), so the bitmap is the same.
*/
#ifndef MGS_COH_GPS_GPS_H
#define MGS_COH_GPS_GPS_H

#include <stdbool.h>
#include <stdint.h>

#include "coh/coh.h"

#define GPS_MAX_GPUS 16
#define GPS_NO_PA UINT64_MAX

/* The GPS protocol (coherence.protocol = gps). */
extern const coh_protocol coh_gps;

typedef struct gps gps;  /* the protocol's instance (coh.pd) */

/* The instance of a platform's protocol when it is gps, else NULL. */
gps *gps_of(coh *c);

/* ---- GPS page table (driver side) -------------------------------------
** Pages are page-aligned VAs; pa[g] the page-aligned global physical
** address of GPU g's replica or GPS_NO_PA. Changed only between kernels. */
typedef struct gps_page {
    uint64_t va;
    uint64_t pa[GPS_MAX_GPUS];
    uint32_t subs;            /* subscribers (bit g = GPU g) */
    uint32_t touched;         /* profiling window: GPUs that accessed it */
    bool gps;                 /* the GPS bit: >= 2 subscribers */
    bool manual;              /* not touched by the profiling window */
} gps_page;

/* Adds a page (all of pa[] set by the caller); returns its index. */
uint32_t gps_table_add(gps *s, const gps_page *p);
/* The page at va's page, or NULL. */
gps_page *gps_table_find(gps *s, uint64_t va);
/* Page index i (NULL past the end). */
gps_page *gps_table_at(gps *s, uint32_t i);
uint32_t gps_table_count(const gps *s);
/* Re-reads page i's replicas into the reverse map (after the driver
** dropped or added a replica) and sets its GPS bit from its subscribers. */
void gps_table_update(gps *s, uint32_t i);
/* The driver dropped GPU g's replica of page i (its frame is freed) and
** unsubscribed g. */
void gps_table_forget(gps *s, uint32_t i, uint32_t g);
/* Profiling window: while on, each GPU's L2 accesses to its replica of a
** page mark the page's touched bit. */
void gps_tracking_set(gps *s, bool on);
uint64_t gps_page_bytes(const gps *s);
/* A page's subscriber count goes into the Fig. 9 histogram. */
void gps_count_subscribers(gps *s);

/* ---- driver (gps_driver.c): the runtime calls these between kernels --- */
struct mgs_devmem;
/* The allocation [va, va + size) (mapped by the runtime on every GPU)
** becomes GPS: every GPU gets a replica of every page and subscribes. */
int gps_drv_alloc(gps *s, struct mgs_devmem *m, uint64_t va, uint64_t size,
                  bool manual);
/* GPU gpu (un)subscribes the GPS pages overlapping [va, va + n). */
int gps_drv_subscription(gps *s, struct mgs_devmem *m, uint64_t va,
                         uint64_t n, int gpu, bool subscribe);
/* Ends the profiling window: each automatic page keeps the subscribers
** that touched it and the others are unsubscribed; a page nobody touched
** keeps the copy its allocation placed (the host's mapping). */
int gps_drv_tracking_stop(gps *s, struct mgs_devmem *m);
/* The host wrote [va, va + n) through its table: copy the bytes to the
** other replicas. */
int gps_drv_host_wrote(gps *s, struct mgs_devmem *m, uint64_t va,
                       uint64_t n);

#endif
