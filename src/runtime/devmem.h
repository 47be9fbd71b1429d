/*
** Simulated device memory of N GPUs: physical frames, one page table per
** GPU (plus the host's), and a physical backing store with lazily
** allocated host blocks.
**
** Model:
**   - Physical memory. GPU g owns mem_per_gpu bytes, cut into frames of
**     page_size bytes (4 KiB, 64 KiB or 2 MiB; mem_per_gpu is a multiple).
**     The global physical address of byte o of frame f on GPU g is
**     g * mem_per_gpu + f * page_size + o. Frames are handed out from a
**     per-GPU free stack; a frame is live while some table maps it (a
**     reference count per frame) and returns to the stack when the last
**     mapping goes.
**   - Backing store. Indexed by physical address: host blocks of 4 KiB
**     (MGS_DEVMEM_BLOCK), whatever the page size, allocated on the first
**     write (or atomic) of a byte of the block; reads of never-written bytes
**     return zeros. A 2 MiB page touched once costs one 4 KiB block. Two
**     frames are always distinct bytes: a page move that copies nothing
**     reads zeros, and two replicas of one page can hold different values.
**   - Virtual space. Device virtual addresses start at MGS_DEVMEM_VA_BASE
**     (never 0) and are handed out by a bump pointer in whole pages; every
**     allocation is followed by one unmapped guard page, and addresses are
**     never reused, so a stale or overflowing pointer faults instead of
**     silently hitting another buffer. alloc_end[vpn] records the end of the
**     allocation a virtual page belongs to (0: none), so faults are exact to
**     the byte.
**   - Page tables. One per GPU (translation takes the GPU: the emulator of
**     a work-group on GPU g and the page walker of GPU g use table g) and
**     one for the host (the driver's view: host copies, memset, DMA copy
**     addresses). Each is a flat array indexed by virtual page number whose
**     entry maps the page to (GPU, frame) or to nothing. By default an
**     allocation is mapped identically in every table (same frames).
**   - Placement. An allocation on one GPU takes all its frames there; one
**     on all GPUs (gpu < 0) spreads its pages by the placement policy
**     (interleaved: page i on GPU i % N; contiguous: GPU floor(i*N/npages)).
**   - Operations for migration and replication schemes: map/unmap one page
**     in one table; move a page (new frame, optional data copy; every table
**     mapping the old frame follows); replicate a page (a new frame with a
**     copy of the host-visible bytes, mapped in a set of GPUs' tables).
**     They change mappings only: caches and TLBs holding the old mapping
**     are the caller's to flush and shoot down (the runtime's callers act
**     between kernels, when launches invalidate TLBs).
**
** Invariants: refs[f] of GPU g = number of tables (host included) whose
** entry maps (g, f), plus the holds of migrations in flight; a frame with refs 0 is on the free stack or never
** used, and has no host blocks. alloc_end[v] != 0 for every v some table
** maps. The one-entry translation cache of a table is valid until the next
** mapping change (every change clears all caches).
**
** Errors: out of frames -> MGS_ENOMEM; access to an unmapped byte ->
** MGS_EFAULT with the address recorded in the devmem (last_fault_*), so the
** emulator can report it with kernel and PC; a page size other than 4 KiB,
** 64 KiB or 2 MiB -> MGS_ECONFIG naming gpu.page_size.
*/
#ifndef MGS_RUNTIME_DEVMEM_H
#define MGS_RUNTIME_DEVMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MGS_DEVMEM_PAGE_SHIFT 12   /* the default (smallest) page: 4 KiB */
#define MGS_DEVMEM_PAGE_SIZE (1u << MGS_DEVMEM_PAGE_SHIFT)
#define MGS_DEVMEM_BLOCK_SHIFT 12  /* host backing granule: 4 KiB */
#define MGS_DEVMEM_BLOCK (1u << MGS_DEVMEM_BLOCK_SHIFT)
#define MGS_DEVMEM_VA_BASE 0x100000000ull
#define MGS_DEVMEM_HOST (-2)       /* table id of the host's page table */
#define MGS_DEVMEM_MAX_POOLS 17    /* frame pools: 16 GPUs + host frames */

/* One table's mapping of one virtual page. */
typedef struct mgs_devmem_pte {
    int16_t gpu;            /* GPU holding the frame, -1 = unmapped */
    uint8_t readonly;       /* GPU writes fault (an ESI replica); every new
                               mapping starts writable */
    uint8_t order;          /* the entry is one of a run of 2^order pages
                               mapped to consecutive frames (a PASI piece):
                               the walker reports that reach; 0 = a page */
    uint32_t frame;         /* frame number within that GPU's memory */
} mgs_devmem_pte;

typedef struct mgs_devmem_table {
    mgs_devmem_pte *ptes;   /* [pte_cap] (owned) */
    /* One-entry translation cache: the last page translated. */
    uint64_t cache_vpn;     /* ~0 = empty */
    uint64_t cache_pa;      /* global physical address of its frame */
    uint64_t cache_end;     /* its alloc_end */
} mgs_devmem_table;

typedef struct mgs_devmem_alloc {
    uint64_t va;            /* first byte */
    uint64_t size;          /* bytes requested */
    uint64_t npages;
    int gpu;                /* placement requested (MGS_GPU_ALL: spread) */
    bool live;
} mgs_devmem_alloc;

typedef struct mgs_devmem_gpu {
    uint64_t total_frames;  /* configuration */
    uint64_t next_frame;    /* bump pointer for never-used frames */
    uint32_t *free_frames;  /* stack of released frames (owned) */
    uint64_t nfree, free_cap;
    uint64_t used_frames;
    uint16_t *refs;         /* [total_frames] mappings per frame (owned) */
} mgs_devmem_gpu;

/* Where the pages of an allocation on all GPUs (gpu < 0) go. */
typedef enum mgs_devmem_placement {
    MGS_PLACE_INTERLEAVED = 0,  /* page i on GPU i % N */
    MGS_PLACE_CONTIGUOUS = 1    /* page i on GPU floor(i * N / npages) */
} mgs_devmem_placement;

/* One mapping change (a free, a remap, a permission change) of the VA
** span [lo, hi): change number seq (mgs_devmem_changes_since). */
typedef struct mgs_devmem_change {
    uint64_t seq, lo, hi;
} mgs_devmem_change;

/* The last MGS_DEVMEM_CHANGES changes are kept; a reader further behind
** is told "many". */
#define MGS_DEVMEM_CHANGES 16

typedef struct mgs_devmem {
    int num_gpus;
    mgs_devmem_placement placement; /* for gpu < 0 allocations */
    uint64_t page_size;             /* bytes: 4 KiB, 64 KiB or 2 MiB */
    unsigned page_shift;
    uint64_t mem_per_gpu;           /* bytes of physical memory per GPU */
    mgs_devmem_gpu *gpus;           /* num_gpus + 1 entries, the last the
                                       host frames (owned) */
    uint32_t spill_ppm;             /* application pages spilled to host
                                       frames, per million */
    uint64_t app_pages;             /* application pages allocated so far */
    /* memory.spill_choice = coldest: spill_pick[k] = 1 when application
    ** page k spills ([spill_pick_n], owned); NULL: spread evenly. */
    uint8_t *spill_pick;
    uint64_t spill_pick_n;
    /* Heat recording (mgs_devmem_record_heat): bytes the GPUs accessed per
    ** application page ([heat_cap], owned) and the application page + 1
    ** of each virtual page, 0 for the runtime's ([pte_cap], owned); NULL
    ** when off. */
    uint64_t *heat, heat_cap;
    uint64_t *vpage_app;
    mgs_devmem_table *tables;       /* num_gpus + 1 (last: host) (owned) */
    uint64_t *alloc_end;            /* [pte_cap] per virtual page (owned) */
    uint64_t npte, pte_cap;         /* virtual pages in use (bump) / capacity */
    mgs_devmem_alloc *allocs;       /* in VA order (owned) */
    size_t nalloc, alloc_cap;
    /* Backing store: dir[pa >> 21][(pa >> 12) & 511] -> 4 KiB host block,
    ** NULL until first written. The blocks of dir[d] lie in arena[d], one
    ** 2 MiB mapping of zeros from the OS (huge pages where offered). */
    uint8_t ***dir;                 /* [ndir] (owned, lazily filled) */
    uint8_t **arena;                /* [ndir] (owned, with dir[d]) */
    uint64_t ndir;
    uint64_t backed_pages;          /* 4 KiB host blocks allocated */

    /* Mapping changes: change_seq so far, the last ones in a ring. */
    uint64_t change_seq;
    mgs_devmem_change changes[MGS_DEVMEM_CHANGES];

    /* Last fault, for the emulator's message. */
    uint64_t last_fault_addr;
    size_t last_fault_size;
    bool last_fault_write;
} mgs_devmem;

/* A GPU's view of the memory (its page table): the gcn_mem_ops of the
** emulator take one (mgs_devmem_view_ops). gpu may be changed between
** uses; MGS_DEVMEM_HOST is the host's view. */
typedef struct mgs_devmem_view {
    mgs_devmem *mem;
    int gpu;
    /* Device accesses fault only on unmapped pages, as the GPU's page
    ** tables decide (ROCm does not fault past the end of an allocation
    ** inside its last page); false: past the allocation's end too. */
    bool page_bounds;
} mgs_devmem_view;

/* What changed in the mappings since a reader's mark. */
typedef enum mgs_devmem_changes {
    MGS_DEVMEM_CHANGES_NONE = 0, /* nothing: every translation still holds */
    MGS_DEVMEM_CHANGES_SPAN,     /* only pages inside [*lo, *hi) changed */
    MGS_DEVMEM_CHANGES_MANY      /* more than the ring holds: assume all */
} mgs_devmem_changes;

/* The mapping changes (frees, unmaps, remaps, moves, replicas, permission
** changes; not new allocations, whose VAs are fresh) after *mark, which
** becomes the current one (a new reader starts at 0). Fresh VAs are never
** reused (bump allocation), so a TLB needs to drop only these pages. */
mgs_devmem_changes mgs_devmem_changes_since(const mgs_devmem *m,
                                            uint64_t *mark, uint64_t *lo,
                                            uint64_t *hi);

/* Whether bytes is a supported page size (4 KiB, 64 KiB, 2 MiB). */
bool mgs_devmem_page_size_ok(uint64_t bytes);
/* 4 KiB pages. */
int mgs_devmem_init(mgs_devmem *m, int num_gpus, uint64_t bytes_per_gpu);
int mgs_devmem_init_paged(mgs_devmem *m, int num_gpus, uint64_t bytes_per_gpu,
                          uint64_t page_size);
/* Removes the top `bytes` of every GPU's memory (rounded up to pages) from
** what can be allocated: a region the hardware owns (CARVE's remote data
** cache, docs/coherence.md). MGS_ECONFIG if nothing would be left. */
int mgs_devmem_reserve_top(mgs_devmem *m, uint64_t bytes);
void mgs_devmem_destroy(mgs_devmem *m);

/* gpu >= 0: all pages on that GPU; gpu < 0: spread by m->placement
** (interleaved by default; set the field after init to change it). */
int mgs_devmem_alloc_range(mgs_devmem *m, int gpu, uint64_t size,
                           uint64_t *va_out);
/* Which page tables map the pages of a new allocation (demand paging,
** docs/memory-management.md): every table (the default), only the table
** of the GPU holding the page's frame (and the host's), or only the
** host's (the page waits for its first GPU touch). */
typedef enum mgs_devmem_mapping {
    MGS_MAP_ALL = 0,
    MGS_MAP_RESIDENT,
    MGS_MAP_HOST_ONLY
} mgs_devmem_mapping;
int mgs_devmem_alloc_mapped(mgs_devmem *m, int gpu, uint64_t size,
                            mgs_devmem_mapping how, uint64_t *va_out);
/* The same for the application's buffers (mgs_malloc): with host frames
** enabled, spill_ppm / 10^6 of the application's pages (counted over all
** its allocations, page k when floor((k+1) f) > floor(k f), or the
** coldest of a profile: mgs_devmem_spill_coldest) take a host frame
** instead of their GPU's. */
int mgs_devmem_alloc_app(mgs_devmem *m, int gpu, uint64_t size,
                         mgs_devmem_mapping how, uint64_t *va_out);
/* Host frames (docs/memory-management.md, "Host frames"): a pool of
** frames in host memory, physical addresses [num_gpus * mem_per_gpu,
** (num_gpus + 1) * mem_per_gpu) (frame "GPU" num_gpus in the page
** tables), reached by the GPUs over their host link; spill_ppm (0..500000)
** of the application's pages go there. MGS_ECONFIG if out of range. */
int mgs_devmem_enable_host_frames(mgs_devmem *m, uint32_t spill_ppm);
/* memory.spill_choice = coldest (docs/memory-management.md "Host
** frames"): of the `pages` application pages heat describes, the
** floor(pages * spill_ppm / 10^6) with the least heat (ties: the lower
** page number, i.e. the lower address) spill, instead of the evenly
** spread ones; pages past the profile do not. After
** mgs_devmem_enable_host_frames, before any application allocation. */
void mgs_devmem_spill_coldest(mgs_devmem *m, const uint64_t *heat,
                              uint64_t pages);
/* Heat recording (the profile pass of spill_choice = coldest): from now
** on every GPU view's read, write, atomic or span adds its bytes to its
** application page's count. Before any allocation. */
void mgs_devmem_record_heat(mgs_devmem *m);
/* The counts so far, one per application page (*pages of them; NULL
** when not recording). */
const uint64_t *mgs_devmem_heat(const mgs_devmem *m, uint64_t *pages);
/* Zero-copy memory (HIP's hipHostMalloc, docs/hip.md): an allocation
** whose every page takes a host frame, mapped in every table; gpu is only
** its owner (as mgs_devmem_alloc_range's). MGS_EINVAL if host frames are
** not enabled, MGS_ENOMEM if too few are free. */
int mgs_devmem_alloc_host(mgs_devmem *m, int gpu, uint64_t size,
                          uint64_t *va_out);
/* Whether host frames are enabled (mgs_devmem_enable_host_frames). */
bool mgs_devmem_host_frames_on(const mgs_devmem *m);
/* The first physical address of the host frames. */
uint64_t mgs_devmem_host_frames_base(const mgs_devmem *m);
int mgs_devmem_free_range(mgs_devmem *m, uint64_t va);
/* The end (first byte after) of the live allocation whose pages hold va,
** or 0 (no allocation there). */
uint64_t mgs_devmem_alloc_end(const mgs_devmem *m, uint64_t va);
/* Bytes requested by the live allocation starting at va, or 0. */
uint64_t mgs_devmem_alloc_size(mgs_devmem *m, uint64_t va);

/* Host copies (the host's page table); they may span pages. */
int mgs_devmem_read(mgs_devmem *m, uint64_t va, void *dst, size_t n);
int mgs_devmem_write(mgs_devmem *m, uint64_t va, const void *src, size_t n);
int mgs_devmem_fill(mgs_devmem *m, uint64_t va, uint8_t value, size_t n);
/* Atomic read-modify-write of 4 or 8 bytes (op: a gcn_op atomic). */
int mgs_devmem_atomic(mgs_devmem *m, uint64_t va, unsigned op, unsigned size,
                      uint64_t src, uint64_t cmp, uint64_t *old);
/* The same through table `gpu` (0..num_gpus-1, or MGS_DEVMEM_HOST). */
int mgs_devmem_read_as(mgs_devmem *m, int gpu, uint64_t va, void *dst,
                       size_t n);
int mgs_devmem_write_as(mgs_devmem *m, int gpu, uint64_t va, const void *src,
                        size_t n);

/* GPU of page i of an npages-page allocation requested on gpu. */
int mgs_devmem_page_gpu(const mgs_devmem *m, int gpu, uint64_t i,
                        uint64_t npages);

/* Translation through table `gpu`: MGS_OK and the global physical address
** of va, or MGS_EFAULT (no message: the walker's hot path) if unmapped. */
int mgs_devmem_translate(mgs_devmem *m, int gpu, uint64_t va, uint64_t *pa);

/* The physical backing store (DRAM's view). Reads of never-written bytes
** are zeros; a write to a frame no table maps is MGS_EFAULT. */
int mgs_devmem_phys_read(mgs_devmem *m, uint64_t pa, void *dst, size_t n);
int mgs_devmem_phys_write(mgs_devmem *m, uint64_t pa, const void *src,
                          size_t n);

/* ---- mapping operations (migration, replication) ----------------------
** va is any address inside the page; gpu names a table (0..N-1, or
** MGS_DEVMEM_HOST); the page must belong to a live allocation. */
/* Maps va's page in table gpu to (frame_gpu, frame), a live frame
** (replacing what the table mapped there). */
int mgs_devmem_map(mgs_devmem *m, int gpu, uint64_t va, int frame_gpu,
                   uint32_t frame);
/* Makes table gpu's mapping of va's page read-only or writable again
** (MGS_EFAULT if unmapped). Only the timing model's walker reads the bit:
** a GPU write through a read-only mapping faults at the IOMMU. */
int mgs_devmem_set_readonly(mgs_devmem *m, int gpu, uint64_t va,
                            bool readonly);
/* Whether table gpu maps va's page read-only (false if unmapped). */
bool mgs_devmem_readonly(mgs_devmem *m, int gpu, uint64_t va);
/* Tags table gpu's entries of the 2^order pages at va (aligned) with
** order, when they map consecutive frames of one GPU with one permission;
** otherwise (or order 0) tags them 0. Returns the order set. */
unsigned mgs_devmem_set_run(mgs_devmem *m, int gpu, uint64_t va,
                            unsigned order);
/* Tags the pages of the allocation [va, va + size) as runs in the table of
** the GPU holding each page (the host table says which): greedily, the
** largest aligned blocks of at most 2^max_order pages inside it that
** set_run accepts (a PASI allocation's first pieces, resident pages). */
void mgs_devmem_tag_runs(mgs_devmem *m, uint64_t va, uint64_t size,
                         unsigned max_order);
/* The order tag of table gpu's entry for va's page (0 if unmapped). */
unsigned mgs_devmem_run_order(mgs_devmem *m, int gpu, uint64_t va);
/* Unmaps va's page in table gpu (accesses through it then fault). */
int mgs_devmem_unmap(mgs_devmem *m, int gpu, uint64_t va);
/* Where table gpu maps va's page: MGS_OK and (*frame_gpu, *frame), or
** MGS_EFAULT. */
int mgs_devmem_page_frame(mgs_devmem *m, int gpu, uint64_t va, int *frame_gpu,
                          uint32_t *frame);
/* Moves the frame the host table maps at va's page to a new frame on
** to_gpu, copying its bytes when copy is true (a move that forgets the copy
** leaves zeros); every table that mapped the old frame maps the new one and
** the old frame is released. */
int mgs_devmem_move_page(mgs_devmem *m, uint64_t va, int to_gpu, bool copy);
/* A replica: a new frame on frame_gpu holding a copy of the host-visible
** bytes of va's page, mapped in the tables of the GPUs in gpu_mask (bit g
** = GPU g). The replica then lives its own life: writes through one
** table's mapping are not seen through another's. */
int mgs_devmem_replicate_page(mgs_devmem *m, uint64_t va, int frame_gpu,
                              uint32_t gpu_mask);

/* A frame held outside the page tables (a migration's destination while
** its bytes arrive): a free frame of gpu with one reference, so DRAM may
** write it before any table maps it; mgs_devmem_frame_drop gives the
** reference back (the frame is released when nothing else maps it). */
int mgs_devmem_frame_hold(mgs_devmem *m, int gpu, uint32_t *frame);
void mgs_devmem_frame_drop(mgs_devmem *m, int gpu, uint32_t frame);
/* n consecutive never-used frames of gpu, held as frame_hold does (each
** dropped on its own); MGS_ENOMEM when the never-used frames are fewer. */
int mgs_devmem_frame_hold_run(mgs_devmem *m, int gpu, uint32_t n,
                              uint32_t *first);
/* One more reference to a live frame (kept while a table stops mapping
** it: an invalidated replica being written back); frame_drop returns it. */
void mgs_devmem_frame_keep(mgs_devmem *m, int gpu, uint32_t frame);

/* Host-table query: GPU whose frame holds va, or -1 if unmapped. */
int mgs_devmem_gpu_of(mgs_devmem *m, uint64_t va);
/* Frames (pages) in use on a GPU. */
uint64_t mgs_devmem_used_pages(const mgs_devmem *m, int gpu);

/* The gcn_mem_ops callbacks: mgs_devmem_ops take the mgs_devmem (host
** table), mgs_devmem_view_ops an mgs_devmem_view (its GPU's table). */
struct gcn_mem_ops;
extern const struct gcn_mem_ops mgs_devmem_ops;
extern const struct gcn_mem_ops mgs_devmem_view_ops;
/* Only alloc_end, over an mgs_devmem: the timing model's CUs, whose data
** goes through the memory system, ask it where allocations end. */
extern const struct gcn_mem_ops mgs_devmem_bounds_ops;

#endif
