/*
** Simulated device memory of N GPUs: physical pages, a virtual address
** space with a page table, and lazily allocated host backing.
**
** Model:
**   - Placement: an allocation on one GPU takes all its pages there; one on
**     all GPUs (gpu < 0) spreads them by the placement policy (interleaved:
**     page i on GPU i % N; contiguous: GPU floor(i * N / npages)).
**   - Each GPU owns mem_per_gpu bytes of physical memory, handed out in
**     4 KiB pages (a free-page stack per GPU; no host memory is reserved).
**   - Device virtual addresses start at MGS_DEVMEM_VA_BASE (never 0) and are
**     handed out by a bump pointer; every allocation is followed by one
**     unmapped guard page, and addresses are never reused, so a stale or
**     overflowing pointer faults instead of silently hitting another buffer.
**   - The page table is a flat array indexed by (va - base) / 4 KiB; an
**     entry maps a virtual page to (GPU, physical page) and records the end
**     of the allocation it belongs to, so a fault is detected to the byte.
**   - Host backing for a page is allocated on its first write (or atomic);
**     reads of never-written pages return zeros. A 4 GiB device costs host
**     memory only for the pages a program touches.
**
** Invariants: a live page-table entry has gpu >= 0; alloc_end > va of every
** byte of the page that belongs to the allocation; backing is NULL or a
** 4 KiB block owned by the entry.
**
** Errors: out of physical pages -> MGS_ENOMEM; access to an unmapped byte
** -> MGS_EFAULT with the address recorded in the devmem (last_fault_*), so
** the emulator can report it with kernel and PC.
*/
#ifndef MGS_RUNTIME_DEVMEM_H
#define MGS_RUNTIME_DEVMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MGS_DEVMEM_PAGE_SHIFT 12
#define MGS_DEVMEM_PAGE_SIZE (1u << MGS_DEVMEM_PAGE_SHIFT)
#define MGS_DEVMEM_VA_BASE 0x100000000ull

typedef struct mgs_devmem_pte {
    uint8_t *backing;       /* host copy of the page, NULL until written */
    uint64_t alloc_end;     /* VA one past the owning allocation's end; 0 = unmapped */
    uint32_t phys_page;     /* page number within the GPU's memory */
    int32_t gpu;            /* owning GPU, -1 when unmapped */
} mgs_devmem_pte;

typedef struct mgs_devmem_alloc {
    uint64_t va;            /* first byte */
    uint64_t size;          /* bytes requested */
    uint64_t npages;
    int gpu;                /* placement requested (MGS_GPU_ALL: spread) */
    bool live;
} mgs_devmem_alloc;

typedef struct mgs_devmem_gpu {
    uint64_t total_pages;   /* configuration */
    uint64_t next_page;     /* bump pointer for never-used pages */
    uint32_t *free_pages;   /* stack of released pages (owned) */
    uint64_t nfree, free_cap;
    uint64_t used_pages;
} mgs_devmem_gpu;

/* Where the pages of an allocation on all GPUs (gpu < 0) go. */
typedef enum mgs_devmem_placement {
    MGS_PLACE_INTERLEAVED = 0,  /* page i on GPU i % N */
    MGS_PLACE_CONTIGUOUS = 1    /* page i on GPU floor(i * N / npages) */
} mgs_devmem_placement;

typedef struct mgs_devmem {
    int num_gpus;
    mgs_devmem_placement placement; /* for gpu < 0 allocations */
    mgs_devmem_gpu *gpus;           /* num_gpus entries (owned) */
    mgs_devmem_pte *ptes;           /* page table (owned) */
    uint64_t npte, pte_cap;         /* entries in use (VA bump) / capacity */
    mgs_devmem_alloc *allocs;       /* in VA order (owned) */
    size_t nalloc, alloc_cap;
    uint64_t backed_pages;          /* pages with host backing */

    /* One-entry translation cache: the last page touched. */
    uint64_t cache_vpn;             /* virtual page number, ~0 = empty */
    mgs_devmem_pte *cache_pte;

    /* Last fault, for the emulator's message. */
    uint64_t last_fault_addr;
    size_t last_fault_size;
    bool last_fault_write;
} mgs_devmem;

int mgs_devmem_init(mgs_devmem *m, int num_gpus, uint64_t bytes_per_gpu);
void mgs_devmem_destroy(mgs_devmem *m);

/* gpu >= 0: all pages on that GPU; gpu < 0: spread by m->placement
** (interleaved by default; set the field after init to change it). */
int mgs_devmem_alloc_range(mgs_devmem *m, int gpu, uint64_t size,
                           uint64_t *va_out);
int mgs_devmem_free_range(mgs_devmem *m, uint64_t va);

/* Byte copies between host and device; they may span pages. */
int mgs_devmem_read(mgs_devmem *m, uint64_t va, void *dst, size_t n);
int mgs_devmem_write(mgs_devmem *m, uint64_t va, const void *src, size_t n);
int mgs_devmem_fill(mgs_devmem *m, uint64_t va, uint8_t value, size_t n);
/* Atomic read-modify-write of 4 or 8 bytes (op: a gcn_op atomic). */
int mgs_devmem_atomic(mgs_devmem *m, uint64_t va, unsigned op, unsigned size,
                      uint64_t src, uint64_t cmp, uint64_t *old);

/* GPU of page i of an npages-page allocation requested on gpu. */
int mgs_devmem_page_gpu(const mgs_devmem *m, int gpu, uint64_t i,
                        uint64_t npages);

/* The live page-table entry holding va, or NULL if unmapped (the timing
** model's page walker and physical view use it). */
mgs_devmem_pte *mgs_devmem_pte_of(mgs_devmem *m, uint64_t va);
/* The page's host backing, allocated (zeroed, counted) on first use. */
uint8_t *mgs_devmem_page_backing(mgs_devmem *m, mgs_devmem_pte *p);

/* Page-table query: GPU owning va, or -1 if unmapped. */
int mgs_devmem_gpu_of(mgs_devmem *m, uint64_t va);
/* Physical pages in use on a GPU / pages with host backing. */
uint64_t mgs_devmem_used_pages(const mgs_devmem *m, int gpu);

/* The gcn_mem_ops callbacks (mem = the mgs_devmem). */
struct gcn_mem_ops;
extern const struct gcn_mem_ops mgs_devmem_ops;

#endif
