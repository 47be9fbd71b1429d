/*
** Simulated device memory: frame allocation, per-GPU page tables, the
** physical backing store and the byte-level access paths used by copies,
** the emulator and DRAM. Design and invariants: devmem.h.
**
** Speed: the emulator calls the read/write paths once per 64-lane access
** when the lanes are contiguous, so the common case is one translation
** (usually a hit in the table's one-entry cache), one two-level block
** lookup and one memcpy.
*/
#include "runtime/devmem.h"

#include "gcn3/emu_atomic.h"
#include "gcn3/exec.h"
#include "mem/tlb.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK_MASK ((uint64_t)MGS_DEVMEM_BLOCK - 1)
#define DIR_SHIFT 21                         /* one directory entry: 2 MiB */
#define DIR_BLOCKS (1u << (DIR_SHIFT - MGS_DEVMEM_BLOCK_SHIFT))

bool mgs_devmem_page_size_ok(uint64_t bytes)
{
    return mem_page_size_ok(bytes);
}

static void caches_clear(mgs_devmem *m)
{
    for (int t = 0; t <= m->num_gpus; t++)
        m->tables[t].cache_vpn = ~0ull;
}

/* The mappings of [va, va + bytes) changed (mgs_devmem_changes_since). */
static void note_change(mgs_devmem *m, uint64_t va, uint64_t bytes)
{
    uint64_t seq = ++m->change_seq;
    m->changes[seq % MGS_DEVMEM_CHANGES] =
        (mgs_devmem_change){.seq = seq, .lo = va, .hi = va + bytes};
}

mgs_devmem_changes mgs_devmem_changes_since(const mgs_devmem *m,
                                            uint64_t *mark, uint64_t *lo,
                                            uint64_t *hi)
{
    uint64_t from = *mark;
    *mark = m->change_seq;
    if (m->change_seq == from)
        return MGS_DEVMEM_CHANGES_NONE;
    if (m->change_seq - from > MGS_DEVMEM_CHANGES)
        return MGS_DEVMEM_CHANGES_MANY;
    *lo = UINT64_MAX;
    *hi = 0;
    for (uint64_t s = from + 1; s <= m->change_seq; s++) {
        const mgs_devmem_change *c = &m->changes[s % MGS_DEVMEM_CHANGES];
        if (c->lo < *lo)
            *lo = c->lo;
        if (c->hi > *hi)
            *hi = c->hi;
    }
    return MGS_DEVMEM_CHANGES_SPAN;
}

int mgs_devmem_init_paged(mgs_devmem *m, int num_gpus, uint64_t bytes_per_gpu,
                          uint64_t page_size)
{
    memset(m, 0, sizeof *m);
    if (num_gpus < 1)
        return mgs_error_set(MGS_EINVAL, "number of GPUs must be >= 1 (got %d)",
                             num_gpus);
    if (!mgs_devmem_page_size_ok(page_size))
        return mgs_error_set(MGS_ECONFIG, "gpu.page_size = %llu bytes: must "
                             "be 4KB, 64KB or 2MB",
                             (unsigned long long)page_size);
    unsigned shift = (unsigned)__builtin_ctzll(page_size);
    if (bytes_per_gpu < page_size)
        return mgs_error_set(MGS_EINVAL, "device memory per GPU must be at "
                             "least one page (%llu bytes)",
                             (unsigned long long)page_size);
    if ((bytes_per_gpu >> shift) > UINT32_MAX)
        return mgs_error_set(MGS_EINVAL,
                             "device memory per GPU too large (%llu bytes)",
                             (unsigned long long)bytes_per_gpu);
    m->num_gpus = num_gpus;
    m->page_size = page_size;
    m->page_shift = shift;
    uint64_t frames = bytes_per_gpu >> shift;
    m->mem_per_gpu = frames << shift;
    /* + 1: the host frames' pool (empty until enabled). */
    m->gpus = mgs_xcalloc((size_t)num_gpus + 1, sizeof(mgs_devmem_gpu));
    for (int g = 0; g < num_gpus; g++) {
        m->gpus[g].total_frames = frames;
        /* Large and zero: the OS maps it lazily. */
        m->gpus[g].refs = mgs_xcalloc(frames, sizeof(uint16_t));
    }
    m->tables = mgs_xcalloc((size_t)num_gpus + 1, sizeof(mgs_devmem_table));
    caches_clear(m);
    m->ndir = ((uint64_t)num_gpus * m->mem_per_gpu + (1ull << DIR_SHIFT) - 1) >>
              DIR_SHIFT;
    m->dir = mgs_xcalloc(m->ndir, sizeof *m->dir);
    m->arena = mgs_xcalloc(m->ndir, sizeof *m->arena);
    return MGS_OK;
}

int mgs_devmem_reserve_top(mgs_devmem *m, uint64_t bytes)
{
    uint64_t frames = (bytes + m->page_size - 1) >> m->page_shift;
    for (int g = 0; g < m->num_gpus; g++) {
        mgs_devmem_gpu *d = &m->gpus[g];
        if (frames >= d->total_frames)
            return mgs_error_set(MGS_ECONFIG, "carve.rdc_size (%llu bytes) "
                                 "leaves no allocatable memory on GPU %d",
                                 (unsigned long long)bytes, g);
        d->total_frames -= frames;
        /* Never allocated, always writable by the DRAM (phys_write). */
        for (uint64_t f = d->total_frames; f < d->total_frames + frames; f++)
            d->refs[f] = 1;
    }
    return MGS_OK;
}

int mgs_devmem_init(mgs_devmem *m, int num_gpus, uint64_t bytes_per_gpu)
{
    return mgs_devmem_init_paged(m, num_gpus, bytes_per_gpu,
                                 MGS_DEVMEM_PAGE_SIZE);
}

void mgs_devmem_destroy(mgs_devmem *m)
{
    for (uint64_t d = 0; m->dir && d < m->ndir; d++) {
        free(m->dir[d]);
        mgs_unmap(m->arena[d], 1ull << DIR_SHIFT);
    }
    free(m->dir);
    free(m->arena);
    for (int t = 0; m->tables && t <= m->num_gpus; t++)
        free(m->tables[t].ptes);
    free(m->tables);
    free(m->alloc_end);
    free(m->allocs);
    for (int g = 0; m->gpus && g <= m->num_gpus; g++) {
        free(m->gpus[g].free_frames);
        free(m->gpus[g].refs);
    }
    free(m->gpus);
    free(m->spill_pick);
    free(m->heat);
    free(m->vpage_app);
    memset(m, 0, sizeof *m);
}

/* ---- the physical store ---------------------------------------------- */

static inline uint8_t *block_peek(const mgs_devmem *m, uint64_t pa)
{
    uint8_t **d = m->dir[pa >> DIR_SHIFT];
    return d ? d[(pa >> MGS_DEVMEM_BLOCK_SHIFT) & (DIR_BLOCKS - 1)] : NULL;
}

/* The host block holding pa, taken (zeroed, counted) on first use. A
** directory entry's blocks come from one 2 MiB mapping: copies and
** first-touch kernels fill memory in order, and one huge page fault costs
** less than 512 small ones and 512 calls to calloc (issue 18's copy speed:
** faults and zeroing were about a quarter of bench_copy's samples). */
static uint8_t *block_get(mgs_devmem *m, uint64_t pa)
{
    uint64_t di = pa >> DIR_SHIFT;
    uint8_t ***d = &m->dir[di];
    if (!*d) {
        *d = mgs_xcalloc(DIR_BLOCKS, sizeof **d);
        m->arena[di] = mgs_xmap_zeroed(1ull << DIR_SHIFT);
    }
    uint32_t bi = (uint32_t)(pa >> MGS_DEVMEM_BLOCK_SHIFT) & (DIR_BLOCKS - 1);
    uint8_t **b = &(*d)[bi];
    if (!*b) {
        *b = m->arena[di] + ((size_t)bi << MGS_DEVMEM_BLOCK_SHIFT);
        /* Partitions (sim/partition.h) back their own GPUs' blocks in
        ** parallel: each GPU's range has its own directory entries, and
        ** only the count is shared. */
        __atomic_fetch_add(&m->backed_pages, 1, __ATOMIC_RELAXED);
    }
    return *b;
}

static inline uint64_t frame_pa(const mgs_devmem *m, int gpu, uint32_t frame)
{
    return (uint64_t)gpu * m->mem_per_gpu + ((uint64_t)frame << m->page_shift);
}

/* Copies the written blocks of one frame into another (unwritten blocks
** of the source read as zeros, as the fresh destination already does). */
static void frame_copy(mgs_devmem *m, uint64_t dst_pa, uint64_t src_pa)
{
    for (uint64_t o = 0; o < m->page_size; o += MGS_DEVMEM_BLOCK) {
        const uint8_t *s = block_peek(m, src_pa + o);
        if (s)
            memcpy(block_get(m, dst_pa + o), s, MGS_DEVMEM_BLOCK);
    }
}

/* ---- frames ----------------------------------------------------------- */

static uint64_t gpu_free_frames(const mgs_devmem_gpu *g)
{
    return g->total_frames - g->used_frames;
}

static uint32_t frame_take(mgs_devmem_gpu *g)
{
    g->used_frames++;
    if (g->nfree)
        return g->free_frames[--g->nfree];
    return (uint32_t)g->next_frame++;
}

/* The last mapping of a frame went: its host blocks and the frame go. */
static void frame_release(mgs_devmem *m, int gpu, uint32_t frame)
{
    uint64_t pa = frame_pa(m, gpu, frame);
    for (uint64_t o = 0; o < m->page_size; o += MGS_DEVMEM_BLOCK) {
        uint8_t **d = m->dir[(pa + o) >> DIR_SHIFT];
        uint8_t **b = d ? &d[((pa + o) >> MGS_DEVMEM_BLOCK_SHIFT) &
                             (DIR_BLOCKS - 1)] : NULL;
        if (b && *b) {
            mgs_zero_pages(*b, MGS_DEVMEM_BLOCK); /* fresh when taken again */
            *b = NULL;
            m->backed_pages--;
        }
    }
    mgs_devmem_gpu *g = &m->gpus[gpu];
    if (g->nfree == g->free_cap) {
        g->free_cap = g->free_cap ? g->free_cap * 2 : 256;
        g->free_frames = mgs_xrealloc(g->free_frames,
                                      g->free_cap * sizeof *g->free_frames);
    }
    g->free_frames[g->nfree++] = frame;
    g->used_frames--;
}

/* Points entry p at (gpu, frame) (gpu < 0: unmapped), keeping the
** reference counts. */
static void pte_set(mgs_devmem *m, mgs_devmem_pte *p, int gpu, uint32_t frame)
{
    if (gpu >= 0)
        m->gpus[gpu].refs[frame]++;
    if (p->gpu >= 0 && --m->gpus[p->gpu].refs[p->frame] == 0)
        frame_release(m, p->gpu, p->frame);
    p->gpu = gpu;
    p->frame = gpu >= 0 ? frame : 0;
    p->readonly = 0;
    p->order = 0;
}

/* ---- allocation ------------------------------------------------------- */

int mgs_devmem_page_gpu(const mgs_devmem *m, int gpu, uint64_t i,
                        uint64_t npages)
{
    if (gpu >= 0)
        return gpu;
    uint64_t n = (uint64_t)m->num_gpus;
    if (m->placement == MGS_PLACE_CONTIGUOUS)
        return (int)(i * n / npages); /* i < npages, so < n */
    return (int)(i % n);
}

static void ensure_vpages(mgs_devmem *m, uint64_t need)
{
    if (need <= m->pte_cap)
        return;
    uint64_t cap = m->pte_cap ? m->pte_cap : 1024;
    while (cap < need)
        cap *= 2;
    for (int t = 0; t <= m->num_gpus; t++)
        m->tables[t].ptes = mgs_xrealloc(m->tables[t].ptes,
                                         cap * sizeof(mgs_devmem_pte));
    m->alloc_end = mgs_xrealloc(m->alloc_end, cap * sizeof *m->alloc_end);
    if (m->heat)
        m->vpage_app = mgs_xrealloc(m->vpage_app, cap * sizeof *m->vpage_app);
    m->pte_cap = cap;
}

int mgs_devmem_alloc_range(mgs_devmem *m, int gpu, uint64_t size,
                           uint64_t *va_out)
{
    return mgs_devmem_alloc_mapped(m, gpu, size, MGS_MAP_ALL, va_out);
}

/* Whether the application's page number k (counted over every
** application allocation, mgs_devmem_alloc_app) goes to a host frame:
** spill_ppm / 10^6 of them, spread evenly or the coldest
** (docs/memory-management.md, "Host frames"). */
static bool page_spilled(const mgs_devmem *m, uint64_t k)
{
    if (m->spill_pick)
        return k < m->spill_pick_n && m->spill_pick[k];
    uint64_t f = m->spill_ppm;
    return (k + 1) * f / 1000000 > k * f / 1000000;
}

/* Heat recording: application pages first..first+npages-1 are virtual
** pages vfirst..; the runtime's own allocations (app = false) count
** nowhere. */
static void heat_map(mgs_devmem *m, uint64_t vfirst, uint64_t npages,
                     bool app)
{
    if (!m->heat)
        return;
    uint64_t first = m->app_pages, need = first + (app ? npages : 0);
    if (need > m->heat_cap) {
        uint64_t cap = m->heat_cap ? m->heat_cap : 1024;
        while (cap < need)
            cap *= 2;
        m->heat = mgs_xrealloc(m->heat, cap * sizeof *m->heat);
        memset(m->heat + m->heat_cap, 0,
               (cap - m->heat_cap) * sizeof *m->heat);
        m->heat_cap = cap;
    }
    for (uint64_t i = 0; i <= npages; i++) /* + the guard page */
        m->vpage_app[vfirst + i] = app && i < npages ? first + i + 1 : 0;
}

/* spill: an application allocation (its pages counted in app_pages; its
** share of host frames under spill_ppm); all_host: every page in a host
** frame (zero-copy memory). */
static int alloc_pages(mgs_devmem *m, int gpu, uint64_t size,
                       mgs_devmem_mapping how, bool spill, bool all_host,
                       uint64_t *va_out)
{
    if (gpu >= m->num_gpus)
        return mgs_error_set(MGS_EINVAL, "malloc on GPU %d: only %d GPU(s)",
                             gpu, m->num_gpus);
    if (size == 0)
        size = 1; /* a distinct, valid address even for empty buffers */
    uint64_t pmask = m->page_size - 1;
    if (size > UINT64_MAX - pmask)
        return mgs_error_set(MGS_ENOMEM, "malloc of %llu bytes: too large",
                             (unsigned long long)size);
    uint64_t npages = (size + pmask) >> m->page_shift;
    bool app = spill;
    spill = spill && m->spill_ppm;
    if (all_host && !m->gpus[m->num_gpus].refs)
        return mgs_error_set(MGS_EINVAL, "malloc in host frames: host "
                             "frames are not enabled");
    /* Pages each GPU (and the host frames) would give up to spilling. */
    uint64_t spilled[MGS_DEVMEM_MAX_POOLS] = {0};
    for (uint64_t i = 0; (spill || all_host) && i < npages; i++)
        if (all_host || page_spilled(m, m->app_pages + i)) {
            spilled[mgs_devmem_page_gpu(m, gpu, i, npages)]++;
            spilled[m->num_gpus]++;
        }
    spill = spill || all_host;
    if (spill && spilled[m->num_gpus] >
                     gpu_free_frames(&m->gpus[m->num_gpus]))
        return mgs_error_set(MGS_ENOMEM, "out of host frames: %llu pages to "
                             "spill, %llu free",
                             (unsigned long long)spilled[m->num_gpus],
                             (unsigned long long)gpu_free_frames(
                                 &m->gpus[m->num_gpus]));
    /* Check capacity first so a failed allocation changes nothing. */
    for (int g = 0; g < m->num_gpus; g++) {
        uint64_t need = 0;
        if (gpu >= 0)
            need = g == gpu ? npages : 0;
        else if (m->placement == MGS_PLACE_CONTIGUOUS) {
            /* Chunk g = pages i with floor(i*N/npages) == g, i.e. i in
            ** [ceil(g*npages/N), ceil((g+1)*npages/N)). */
            uint64_t n = (uint64_t)m->num_gpus, gg = (uint64_t)g;
            need = ((gg + 1) * npages + n - 1) / n - (gg * npages + n - 1) / n;
        } else
            need = npages / (uint64_t)m->num_gpus +
                   ((uint64_t)g < npages % (uint64_t)m->num_gpus);
        if (spill)
            need -= spilled[g];
        if (need > gpu_free_frames(&m->gpus[g]))
            return mgs_error_set(
                MGS_ENOMEM,
                "out of device memory on GPU %d: %llu bytes requested, "
                "%llu bytes free", g, (unsigned long long)size,
                (unsigned long long)(gpu_free_frames(&m->gpus[g])
                                     << m->page_shift));
    }
    uint64_t first = m->npte;
    ensure_vpages(m, first + npages + 1); /* + guard page */
    uint64_t va = MGS_DEVMEM_VA_BASE + (first << m->page_shift);
    for (uint64_t i = 0; i < npages; i++) {
        int g = mgs_devmem_page_gpu(m, gpu, i, npages);
        if (all_host || (spill && page_spilled(m, m->app_pages + i)))
            g = m->num_gpus;          /* a host frame */
        uint32_t f = frame_take(&m->gpus[g]);
        uint16_t refs = 0;
        for (int t = 0; t <= m->num_gpus; t++) {
            bool mapped = how == MGS_MAP_ALL || t == m->num_gpus ||
                          (how == MGS_MAP_RESIDENT && t == g);
            m->tables[t].ptes[first + i] =
                mapped ? (mgs_devmem_pte){.gpu = g, .frame = f}
                       : (mgs_devmem_pte){.gpu = -1};
            refs += mapped;
        }
        m->gpus[g].refs[f] = refs;
        m->alloc_end[first + i] = va + size;
    }
    for (int t = 0; t <= m->num_gpus; t++)
        m->tables[t].ptes[first + npages] = (mgs_devmem_pte){.gpu = -1};
    m->alloc_end[first + npages] = 0;
    m->npte = first + npages + 1;
    heat_map(m, first, npages, app);

    if (m->nalloc == m->alloc_cap) {
        m->alloc_cap = m->alloc_cap ? m->alloc_cap * 2 : 64;
        m->allocs = mgs_xrealloc(m->allocs, m->alloc_cap * sizeof *m->allocs);
    }
    m->allocs[m->nalloc++] = (mgs_devmem_alloc){
        .va = va, .size = size, .npages = npages, .gpu = gpu, .live = true};
    if (app)
        m->app_pages += npages;
    *va_out = va;
    return MGS_OK;
}

int mgs_devmem_alloc_mapped(mgs_devmem *m, int gpu, uint64_t size,
                            mgs_devmem_mapping how, uint64_t *va_out)
{
    return alloc_pages(m, gpu, size, how, false, false, va_out);
}

int mgs_devmem_alloc_app(mgs_devmem *m, int gpu, uint64_t size,
                         mgs_devmem_mapping how, uint64_t *va_out)
{
    return alloc_pages(m, gpu, size, how, true, false, va_out);
}

int mgs_devmem_alloc_host(mgs_devmem *m, int gpu, uint64_t size,
                          uint64_t *va_out)
{
    return alloc_pages(m, gpu, size, MGS_MAP_ALL, false, true, va_out);
}

bool mgs_devmem_host_frames_on(const mgs_devmem *m)
{
    return m->gpus[m->num_gpus].refs != NULL;
}

int mgs_devmem_enable_host_frames(mgs_devmem *m, uint32_t spill_ppm)
{
    if (spill_ppm > 500000)
        return mgs_error_set(MGS_ECONFIG, "memory.spill_ppm = %u: must be "
                             "0..500000", spill_ppm);
    if (m->num_gpus + 1 > MGS_DEVMEM_MAX_POOLS)
        return mgs_error_set(MGS_ECONFIG, "memory.spill_ppm: at most %d "
                             "GPUs", MGS_DEVMEM_MAX_POOLS - 1);
    mgs_devmem_gpu *h = &m->gpus[m->num_gpus];
    if (!h->refs) {
        /* The window after the last GPU's memory, as large as one GPU's:
        ** physical address num_gpus * mem_per_gpu + frame * page_size. */
        h->total_frames = m->mem_per_gpu >> m->page_shift;
        h->refs = mgs_xcalloc(h->total_frames, sizeof(uint16_t));
        uint64_t ndir = ((uint64_t)(m->num_gpus + 1) * m->mem_per_gpu +
                         (1ull << DIR_SHIFT) - 1) >> DIR_SHIFT;
        m->dir = mgs_xrealloc(m->dir, ndir * sizeof *m->dir);
        memset(m->dir + m->ndir, 0, (ndir - m->ndir) * sizeof *m->dir);
        m->arena = mgs_xrealloc(m->arena, ndir * sizeof *m->arena);
        memset(m->arena + m->ndir, 0, (ndir - m->ndir) * sizeof *m->arena);
        m->ndir = ndir;
    }
    m->spill_ppm = spill_ppm;
    return MGS_OK;
}

typedef struct page_heat {
    uint64_t heat, page;
} page_heat;

static int colder(const void *a, const void *b)
{
    const page_heat *x = a, *y = b;
    if (x->heat != y->heat)
        return x->heat < y->heat ? -1 : 1;
    return x->page < y->page ? -1 : x->page > y->page;
}

void mgs_devmem_spill_coldest(mgs_devmem *m, const uint64_t *heat,
                              uint64_t pages)
{
    free(m->spill_pick);
    m->spill_pick = mgs_xcalloc(pages ? pages : 1, 1);
    m->spill_pick_n = pages;
    page_heat *order = mgs_xcalloc(pages ? pages : 1, sizeof *order);
    for (uint64_t k = 0; k < pages; k++)
        order[k] = (page_heat){.heat = heat[k], .page = k};
    qsort(order, pages, sizeof *order, colder);
    uint64_t n = pages * m->spill_ppm / 1000000;
    for (uint64_t i = 0; i < n; i++)
        m->spill_pick[order[i].page] = 1;
    free(order);
}

void mgs_devmem_record_heat(mgs_devmem *m)
{
    if (m->heat)
        return;
    m->heat_cap = 1024;
    m->heat = mgs_xcalloc(m->heat_cap, sizeof *m->heat);
    m->vpage_app = mgs_xcalloc(m->pte_cap ? m->pte_cap : 1,
                               sizeof *m->vpage_app);
}

const uint64_t *mgs_devmem_heat(const mgs_devmem *m, uint64_t *pages)
{
    *pages = m->heat ? m->app_pages : 0;
    return m->heat;
}

/* Heat recording: n bytes a GPU accessed at va. */
static void heat_note(mgs_devmem *m, int gpu, uint64_t va, size_t n)
{
    if (gpu == MGS_DEVMEM_HOST || va < MGS_DEVMEM_VA_BASE)
        return;
    uint64_t vpn = (va - MGS_DEVMEM_VA_BASE) >> m->page_shift;
    if (vpn < m->npte && m->vpage_app[vpn])
        m->heat[m->vpage_app[vpn] - 1] += n;
}

uint64_t mgs_devmem_host_frames_base(const mgs_devmem *m)
{
    return (uint64_t)m->num_gpus * m->mem_per_gpu;
}

/* Allocations are appended in VA order, so a binary search finds one. */
static mgs_devmem_alloc *find_alloc(mgs_devmem *m, uint64_t va)
{
    size_t lo = 0, hi = m->nalloc;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->allocs[mid].va < va)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->nalloc && m->allocs[lo].va == va ? &m->allocs[lo] : NULL;
}

uint64_t mgs_devmem_alloc_size(mgs_devmem *m, uint64_t va)
{
    const mgs_devmem_alloc *a = find_alloc(m, va);
    return a && a->live ? a->size : 0;
}

int mgs_devmem_free_range(mgs_devmem *m, uint64_t va)
{
    mgs_devmem_alloc *a = find_alloc(m, va);
    if (!a || !a->live)
        return mgs_error_set(MGS_EINVAL,
                             "free of 0x%llx: not the start of a live allocation",
                             (unsigned long long)va);
    uint64_t first = (va - MGS_DEVMEM_VA_BASE) >> m->page_shift;
    for (uint64_t i = 0; i < a->npages; i++) {
        for (int t = 0; t <= m->num_gpus; t++)
            pte_set(m, &m->tables[t].ptes[first + i], -1, 0);
        m->alloc_end[first + i] = 0;
    }
    a->live = false;
    caches_clear(m);
    note_change(m, va, a->npages << m->page_shift);
    return MGS_OK;
}

/* ---- translation and byte access ------------------------------------- */

static int fault(mgs_devmem *m, uint64_t va, size_t n, bool write)
{
    m->last_fault_addr = va;
    m->last_fault_size = n;
    m->last_fault_write = write;
    return mgs_error_set(MGS_EFAULT,
                         "memory fault at address 0x%llx (%s of %zu bytes)",
                         (unsigned long long)va, write ? "write" : "read", n);
}

/* Table of `gpu` (a GPU index or MGS_DEVMEM_HOST); NULL if out of range. */
static inline mgs_devmem_table *table_of(mgs_devmem *m, int gpu)
{
    if (gpu == MGS_DEVMEM_HOST)
        return &m->tables[m->num_gpus];
    return gpu >= 0 && gpu < m->num_gpus ? &m->tables[gpu] : NULL;
}

/* Physical address of va through table t and the end of its allocation;
** false if unmapped there. */
static inline bool lookup(mgs_devmem *m, mgs_devmem_table *t, uint64_t va,
                          uint64_t *pa, uint64_t *end)
{
    uint64_t vpn = (va - MGS_DEVMEM_VA_BASE) >> m->page_shift;
    uint64_t off = va & (m->page_size - 1);
    if (vpn == t->cache_vpn) {
        *pa = t->cache_pa + off;
        *end = t->cache_end;
        return true;
    }
    if (va < MGS_DEVMEM_VA_BASE || vpn >= m->npte)
        return false;
    const mgs_devmem_pte *p = &t->ptes[vpn];
    if (p->gpu < 0)
        return false;
    t->cache_vpn = vpn;
    t->cache_pa = frame_pa(m, p->gpu, p->frame);
    t->cache_end = m->alloc_end[vpn];
    *pa = t->cache_pa + off;
    *end = t->cache_end;
    return true;
}

int mgs_devmem_translate(mgs_devmem *m, int gpu, uint64_t va, uint64_t *pa)
{
    mgs_devmem_table *t = table_of(m, gpu);
    uint64_t end;
    return t && lookup(m, t, va, pa, &end) ? MGS_OK : MGS_EFAULT;
}

/* Bytes from va to the end of its 4 KiB block, at most n. */
static inline size_t block_run(uint64_t va, size_t n)
{
    size_t room = MGS_DEVMEM_BLOCK - (size_t)(va & BLOCK_MASK);
    return room < n ? room : n;
}

/* alloc: bytes past the end of an allocation fault (the runtime's own
** accesses, emu with sim.strict_bounds); else only unmapped pages do, as
** a GPU's page tables decide (mgs_devmem_view.page_bounds). */
static int read_table(mgs_devmem *m, mgs_devmem_table *t, uint64_t va,
                      void *dst, size_t n, bool alloc)
{
    uint8_t *out = dst;
    while (n) {
        uint64_t pa, end;
        bool ok = lookup(m, t, va, &pa, &end);
        if (!ok || (alloc && va + n > end))
            /* Report the first byte that is really outside. */
            return fault(m, ok ? end : va, n, false);
        size_t chunk = block_run(va, n);
        const uint8_t *b = block_peek(m, pa);
        if (b)
            memcpy(out, b + (pa & BLOCK_MASK), chunk);
        else
            memset(out, 0, chunk);
        out += chunk;
        va += chunk;
        n -= chunk;
    }
    return MGS_OK;
}

/* A multi-page access is checked fully (every page mapped in t, inside
** the allocation) before any byte is written, so a faulting store changes
** nothing. */
static int check_range(mgs_devmem *m, mgs_devmem_table *t, uint64_t va,
                       size_t n, bool write, bool alloc)
{
    uint64_t pa, end;
    if (!lookup(m, t, va, &pa, &end))
        return fault(m, va, n, write);
    if (alloc && va + n > end)
        return fault(m, end, n, write);
    uint64_t pmask = m->page_size - 1;
    for (uint64_t p = (va | pmask) + 1; p < va + n; p += m->page_size)
        if (!lookup(m, t, p, &pa, &end))
            return fault(m, p, n, write);
    return MGS_OK;
}

static int write_table(mgs_devmem *m, mgs_devmem_table *t, uint64_t va,
                       const void *src, size_t n, bool alloc)
{
    if (n == 0)
        return MGS_OK;
    int rc = check_range(m, t, va, n, true, alloc);
    if (rc)
        return rc;
    const uint8_t *in = src;
    while (n) {
        uint64_t pa = 0, end;
        lookup(m, t, va, &pa, &end);
        size_t chunk = block_run(va, n);
        memcpy(block_get(m, pa) + (pa & BLOCK_MASK), in, chunk);
        in += chunk;
        va += chunk;
        n -= chunk;
    }
    return MGS_OK;
}

int mgs_devmem_read_as(mgs_devmem *m, int gpu, uint64_t va, void *dst,
                       size_t n)
{
    mgs_devmem_table *t = table_of(m, gpu);
    return t ? read_table(m, t, va, dst, n, true) : fault(m, va, n, false);
}

int mgs_devmem_write_as(mgs_devmem *m, int gpu, uint64_t va, const void *src,
                        size_t n)
{
    mgs_devmem_table *t = table_of(m, gpu);
    return t ? write_table(m, t, va, src, n, true) : fault(m, va, n, true);
}

int mgs_devmem_read(mgs_devmem *m, uint64_t va, void *dst, size_t n)
{
    return read_table(m, &m->tables[m->num_gpus], va, dst, n, true);
}

int mgs_devmem_write(mgs_devmem *m, uint64_t va, const void *src, size_t n)
{
    return write_table(m, &m->tables[m->num_gpus], va, src, n, true);
}

int mgs_devmem_fill(mgs_devmem *m, uint64_t va, uint8_t value, size_t n)
{
    if (n == 0)
        return MGS_OK;
    mgs_devmem_table *t = &m->tables[m->num_gpus];
    int rc = check_range(m, t, va, n, true, true);
    if (rc)
        return rc;
    while (n) {
        uint64_t pa = 0, end;
        lookup(m, t, va, &pa, &end);
        size_t chunk = block_run(va, n);
        /* Zero-filling an unbacked block keeps it unbacked: it reads 0. */
        uint8_t *b = value ? block_get(m, pa) : block_peek(m, pa);
        if (b)
            memset(b + (pa & BLOCK_MASK), value, chunk);
        va += chunk;
        n -= chunk;
    }
    return MGS_OK;
}

static int atomic_table(mgs_devmem *m, mgs_devmem_table *t, uint64_t va,
                        unsigned op, unsigned size, uint64_t src, uint64_t cmp,
                        uint64_t *old, bool alloc)
{
    /* Naturally aligned 4/8-byte accesses never cross a block. */
    if ((size != 4 && size != 8) || (va & (size - 1)))
        return mgs_error_set(MGS_EFAULT,
                             "misaligned %u-byte atomic at address 0x%llx",
                             size, (unsigned long long)va);
    int rc = check_range(m, t, va, size, true, alloc);
    if (rc)
        return rc;
    uint64_t pa = 0, end;
    lookup(m, t, va, &pa, &end);
    uint8_t *b = block_get(m, pa) + (pa & BLOCK_MASK);
    uint64_t cur = 0;
    memcpy(&cur, b, size);
    uint64_t next = gcn_atomic_apply(gcn_atomic_kind_of(op), size, cur, src,
                                     cmp);
    memcpy(b, &next, size);
    *old = cur;
    return MGS_OK;
}

int mgs_devmem_atomic(mgs_devmem *m, uint64_t va, unsigned op, unsigned size,
                      uint64_t src, uint64_t cmp, uint64_t *old)
{
    return atomic_table(m, &m->tables[m->num_gpus], va, op, size, src, cmp,
                        old, true);
}

/* ---- physical view (DRAM) --------------------------------------------- */

int mgs_devmem_phys_read(mgs_devmem *m, uint64_t pa, void *dst, size_t n)
{
    uint8_t *out = dst;
    while (n) {
        size_t chunk = block_run(pa, n);
        const uint8_t *b = pa >> DIR_SHIFT < m->ndir ? block_peek(m, pa)
                                                     : NULL;
        if (b)
            memcpy(out, b + (pa & BLOCK_MASK), chunk);
        else
            memset(out, 0, chunk);   /* never written: zeros */
        out += chunk;
        pa += chunk;
        n -= chunk;
    }
    return MGS_OK;
}

int mgs_devmem_phys_write(mgs_devmem *m, uint64_t pa, const void *src,
                          size_t n)
{
    const uint8_t *in = src;
    while (n) {
        size_t chunk = block_run(pa, n);
        uint64_t g = pa / m->mem_per_gpu;
        uint64_t f = (pa - g * m->mem_per_gpu) >> m->page_shift;
        if (g > (uint64_t)m->num_gpus ||
            (g == (uint64_t)m->num_gpus && f >= m->gpus[g].total_frames) ||
            !m->gpus[g].refs[f])
            return mgs_error_set(MGS_EFAULT, "DRAM write to unmapped "
                                 "physical address 0x%llx",
                                 (unsigned long long)pa);
        /* By frame, not by VA: whole-line write-backs may pass the end of
        ** the allocation. */
        memcpy(block_get(m, pa) + (pa & BLOCK_MASK), in, chunk);
        in += chunk;
        pa += chunk;
        n -= chunk;
    }
    return MGS_OK;
}

/* ---- mapping operations ----------------------------------------------- */

/* The virtual page of va if it belongs to a live allocation. */
static int live_vpn(mgs_devmem *m, uint64_t va, uint64_t *vpn)
{
    *vpn = (va - MGS_DEVMEM_VA_BASE) >> m->page_shift;
    if (va < MGS_DEVMEM_VA_BASE || *vpn >= m->npte || !m->alloc_end[*vpn])
        return mgs_error_set(MGS_EFAULT, "page of address 0x%llx is not part "
                             "of a live allocation", (unsigned long long)va);
    return MGS_OK;
}

/* Table `gpu` and the virtual page of va in a live allocation. */
static int table_page(mgs_devmem *m, int gpu, uint64_t va,
                      mgs_devmem_table **t, uint64_t *vpn)
{
    if (!(*t = table_of(m, gpu)))
        return mgs_error_set(MGS_EINVAL, "no page table for GPU %d", gpu);
    return live_vpn(m, va, vpn);
}

/* Table t's entry vpn changes: the run it belonged to is one no more. */
static void run_clear(mgs_devmem_table *t, uint64_t vpn)
{
    unsigned o = t->ptes[vpn].order;
    uint64_t base = vpn & ~((1ull << o) - 1);
    for (uint64_t k = 0; o && k < 1ull << o; k++)
        t->ptes[base + k].order = 0;
}

int mgs_devmem_map(mgs_devmem *m, int gpu, uint64_t va, int frame_gpu,
                   uint32_t frame)
{
    mgs_devmem_table *t;
    uint64_t vpn;
    int rc = table_page(m, gpu, va, &t, &vpn);
    if (rc)
        return rc;
    if (frame_gpu < 0 || frame_gpu >= m->num_gpus ||
        frame >= m->gpus[frame_gpu].total_frames ||
        !m->gpus[frame_gpu].refs[frame])
        return mgs_error_set(MGS_EINVAL, "map of 0x%llx: frame %u of GPU %d "
                             "is not a live frame", (unsigned long long)va,
                             frame, frame_gpu);
    if (m->gpus[frame_gpu].refs[frame] == UINT16_MAX)
        return mgs_error_set(MGS_EINVAL, "map of 0x%llx: frame %u of GPU %d "
                             "is mapped too often", (unsigned long long)va,
                             frame, frame_gpu);
    run_clear(t, vpn);
    pte_set(m, &t->ptes[vpn], frame_gpu, frame);
    caches_clear(m);
    note_change(m, va & ~(m->page_size - 1), m->page_size);
    return MGS_OK;
}

int mgs_devmem_unmap(mgs_devmem *m, int gpu, uint64_t va)
{
    mgs_devmem_table *t;
    uint64_t vpn;
    int rc = table_page(m, gpu, va, &t, &vpn);
    if (rc)
        return rc;
    run_clear(t, vpn);
    pte_set(m, &t->ptes[vpn], -1, 0);
    caches_clear(m);
    note_change(m, va & ~(m->page_size - 1), m->page_size);
    return MGS_OK;
}

int mgs_devmem_set_readonly(mgs_devmem *m, int gpu, uint64_t va,
                            bool readonly)
{
    mgs_devmem_table *t;
    uint64_t vpn;
    int rc = table_page(m, gpu, va, &t, &vpn);
    if (rc)
        return rc;
    if (t->ptes[vpn].gpu < 0)
        return mgs_error_set(MGS_EFAULT, "page of address 0x%llx is not "
                             "mapped for GPU %d", (unsigned long long)va, gpu);
    if (t->ptes[vpn].readonly != readonly) {
        run_clear(t, vpn);
        note_change(m, va & ~(m->page_size - 1), m->page_size);
    }
    t->ptes[vpn].readonly = readonly;
    return MGS_OK;
}

unsigned mgs_devmem_set_run(mgs_devmem *m, int gpu, uint64_t va,
                            unsigned order)
{
    mgs_devmem_table *t = table_of(m, gpu);
    uint64_t vpn = (va - MGS_DEVMEM_VA_BASE) >> m->page_shift;
    uint64_t n = 1ull << order;
    if (!t || va < MGS_DEVMEM_VA_BASE || vpn + n > m->npte || order > 20)
        return 0;
    for (uint64_t k = 0; k < n; k++)
        run_clear(t, vpn + k);    /* no run may straddle the new one */
    const mgs_devmem_pte *p0 = &t->ptes[vpn];
    for (uint64_t k = 0; k < n && order; k++) {
        const mgs_devmem_pte *p = &t->ptes[vpn + k];
        if (p0->gpu < 0 || p->gpu != p0->gpu || p->readonly != p0->readonly ||
            p->frame != p0->frame + k)
            order = 0;
    }
    for (uint64_t k = 0; k < n; k++)
        t->ptes[vpn + k].order = (uint8_t)order;
    return order;
}

void mgs_devmem_tag_runs(mgs_devmem *m, uint64_t va, uint64_t size,
                         unsigned max_order)
{
    uint64_t v0 = (va - MGS_DEVMEM_VA_BASE) >> m->page_shift;
    uint64_t end = v0 + ((size + m->page_size - 1) >> m->page_shift);
    const mgs_devmem_table *host = &m->tables[m->num_gpus];
    for (uint64_t v = v0; v < end && end <= m->npte;) {
        int g = host->ptes[v].gpu;
        unsigned o = max_order;
        while (o && ((v & ((1ull << o) - 1)) || v + (1ull << o) > end))
            o--;
        while (o && (g < 0 || mgs_devmem_set_run(m, g, MGS_DEVMEM_VA_BASE +
                                                 (v << m->page_shift),
                                                 o) != o))
            o--;
        v += 1ull << o;
    }
}

unsigned mgs_devmem_run_order(mgs_devmem *m, int gpu, uint64_t va)
{
    mgs_devmem_table *t = table_of(m, gpu);
    uint64_t vpn = (va - MGS_DEVMEM_VA_BASE) >> m->page_shift;
    return t && va >= MGS_DEVMEM_VA_BASE && vpn < m->npte &&
                   t->ptes[vpn].gpu >= 0
               ? t->ptes[vpn].order : 0;
}

bool mgs_devmem_readonly(mgs_devmem *m, int gpu, uint64_t va)
{
    mgs_devmem_table *t = table_of(m, gpu);
    uint64_t vpn = (va - MGS_DEVMEM_VA_BASE) >> m->page_shift;
    return t && va >= MGS_DEVMEM_VA_BASE && vpn < m->npte &&
           t->ptes[vpn].gpu >= 0 && t->ptes[vpn].readonly;
}

int mgs_devmem_page_frame(mgs_devmem *m, int gpu, uint64_t va, int *frame_gpu,
                          uint32_t *frame)
{
    mgs_devmem_table *t;
    uint64_t vpn;
    int rc = table_page(m, gpu, va, &t, &vpn);
    if (rc)
        return rc;
    const mgs_devmem_pte *p = &t->ptes[vpn];
    if (p->gpu < 0)
        return mgs_error_set(MGS_EFAULT, "page of address 0x%llx is not "
                             "mapped for GPU %d", (unsigned long long)va, gpu);
    *frame_gpu = p->gpu;
    *frame = p->frame;
    return MGS_OK;
}

/* A new frame on gpu for va's page, holding a copy of the host table's
** frame when copy is set. */
static int new_frame_for(mgs_devmem *m, uint64_t va, int gpu, bool copy,
                         uint64_t *vpn, uint32_t *frame)
{
    int rc;
    if ((rc = live_vpn(m, va, vpn)))
        return rc;
    if (gpu < 0 || gpu >= m->num_gpus)
        return mgs_error_set(MGS_EINVAL, "no GPU %d for a frame", gpu);
    const mgs_devmem_pte *h = &m->tables[m->num_gpus].ptes[*vpn];
    if (h->gpu < 0)
        return mgs_error_set(MGS_EFAULT, "page of address 0x%llx is not "
                             "mapped in the host table",
                             (unsigned long long)va);
    if (!gpu_free_frames(&m->gpus[gpu]))
        return mgs_error_set(MGS_ENOMEM, "out of device memory on GPU %d: "
                             "no free frame", gpu);
    *frame = frame_take(&m->gpus[gpu]);
    if (copy)
        frame_copy(m, frame_pa(m, gpu, *frame), frame_pa(m, h->gpu, h->frame));
    return MGS_OK;
}

int mgs_devmem_move_page(mgs_devmem *m, uint64_t va, int to_gpu, bool copy)
{
    uint64_t vpn;
    uint32_t nf;
    int rc = new_frame_for(m, va, to_gpu, copy, &vpn, &nf);
    if (rc)
        return rc;
    /* Every table that mapped the old frame follows, the host's last. */
    mgs_devmem_pte old = m->tables[m->num_gpus].ptes[vpn];
    for (int t = 0; t <= m->num_gpus; t++) {
        mgs_devmem_pte *p = &m->tables[t].ptes[vpn];
        if (p->gpu == old.gpu && p->frame == old.frame)
            pte_set(m, p, to_gpu, nf);
    }
    caches_clear(m);
    note_change(m, va & ~(m->page_size - 1), m->page_size);
    return MGS_OK;
}

int mgs_devmem_replicate_page(mgs_devmem *m, uint64_t va, int frame_gpu,
                              uint32_t gpu_mask)
{
    if (!gpu_mask || (m->num_gpus < 32 && gpu_mask >> m->num_gpus))
        return mgs_error_set(MGS_EINVAL, "replicate 0x%llx: GPU mask 0x%x "
                             "names no GPU or a GPU beyond %d",
                             (unsigned long long)va, gpu_mask, m->num_gpus);
    uint64_t vpn;
    uint32_t nf;
    int rc = new_frame_for(m, va, frame_gpu, true, &vpn, &nf);
    if (rc)
        return rc;
    for (int g = 0; g < m->num_gpus; g++)
        if (gpu_mask >> g & 1)
            pte_set(m, &m->tables[g].ptes[vpn], frame_gpu, nf);
    caches_clear(m);
    note_change(m, va & ~(m->page_size - 1), m->page_size);
    return MGS_OK;
}

int mgs_devmem_frame_hold(mgs_devmem *m, int gpu, uint32_t *frame)
{
    if (gpu < 0 || gpu >= m->num_gpus)
        return mgs_error_set(MGS_EINVAL, "no GPU %d for a frame", gpu);
    if (!gpu_free_frames(&m->gpus[gpu]))
        return mgs_error_set(MGS_ENOMEM, "out of device memory on GPU %d: "
                             "no free frame", gpu);
    *frame = frame_take(&m->gpus[gpu]);
    m->gpus[gpu].refs[*frame] = 1;
    return MGS_OK;
}

int mgs_devmem_frame_hold_run(mgs_devmem *m, int gpu, uint32_t n,
                              uint32_t *first)
{
    if (gpu < 0 || gpu >= m->num_gpus)
        return mgs_error_set(MGS_EINVAL, "no GPU %d for a frame", gpu);
    mgs_devmem_gpu *g = &m->gpus[gpu];
    if (g->next_frame + n > g->total_frames)
        return MGS_ENOMEM;    /* no message: the caller falls back */
    *first = (uint32_t)g->next_frame;
    g->next_frame += n;
    g->used_frames += n;
    for (uint32_t k = 0; k < n; k++)
        g->refs[*first + k] = 1;
    return MGS_OK;
}

void mgs_devmem_frame_keep(mgs_devmem *m, int gpu, uint32_t frame)
{
    m->gpus[gpu].refs[frame]++;
}

void mgs_devmem_frame_drop(mgs_devmem *m, int gpu, uint32_t frame)
{
    if (--m->gpus[gpu].refs[frame] == 0)
        frame_release(m, gpu, frame);
}

/* ---- queries ------------------------------------------------------------ */

int mgs_devmem_gpu_of(mgs_devmem *m, uint64_t va)
{
    uint64_t pa, end;
    if (!lookup(m, &m->tables[m->num_gpus], va, &pa, &end))
        return -1;
    return (int)(pa / m->mem_per_gpu);
}

uint64_t mgs_devmem_used_pages(const mgs_devmem *m, int gpu)
{
    return gpu >= 0 && gpu < m->num_gpus ? m->gpus[gpu].used_frames : 0;
}

/* ---- emulator callbacks ----------------------------------------------- */

static int ops_read(void *mem, uint64_t addr, void *dst, size_t n)
{
    return mgs_devmem_read(mem, addr, dst, n);
}

static int ops_write(void *mem, uint64_t addr, const void *src, size_t n)
{
    return mgs_devmem_write(mem, addr, src, n);
}

static int ops_atomic(void *mem, uint64_t addr, unsigned op, unsigned size,
                      uint64_t src, uint64_t cmp, uint64_t *old)
{
    return mgs_devmem_atomic(mem, addr, op, size, src, cmp, old);
}

const gcn_mem_ops mgs_devmem_ops = {
    .read = ops_read, .write = ops_write, .atomic = ops_atomic};

static int view_read(void *v, uint64_t addr, void *dst, size_t n)
{
    const mgs_devmem_view *w = v;
    mgs_devmem_table *t = table_of(w->mem, w->gpu);
    if (w->mem->heat)
        heat_note(w->mem, w->gpu, addr, n);
    return t ? read_table(w->mem, t, addr, dst, n, !w->page_bounds)
             : fault(w->mem, addr, n, false);
}

static int view_write(void *v, uint64_t addr, const void *src, size_t n)
{
    const mgs_devmem_view *w = v;
    mgs_devmem_table *t = table_of(w->mem, w->gpu);
    if (w->mem->heat)
        heat_note(w->mem, w->gpu, addr, n);
    return t ? write_table(w->mem, t, addr, src, n, !w->page_bounds)
             : fault(w->mem, addr, n, true);
}

static int view_atomic(void *v, uint64_t addr, unsigned op, unsigned size,
                       uint64_t src, uint64_t cmp, uint64_t *old)
{
    const mgs_devmem_view *w = v;
    mgs_devmem_table *t = table_of(w->mem, w->gpu);
    if (w->mem->heat)
        heat_note(w->mem, w->gpu, addr, size);
    if (!t)
        return fault(w->mem, addr, size, true);
    return atomic_table(w->mem, t, addr, op, size, src, cmp, old,
                        !w->page_bounds);
}

/* The host bytes of [addr, addr + n) when they lie in one host block and
** the access is allowed (mapped in the GPU's table; inside the allocation
** unless page_bounds): what read_table / write_table would touch. A read
** of a block never written is NULL (read_table gives zeros without
** allocating it). */
static uint8_t *view_span(void *v, uint64_t addr, size_t n, bool write)
{
    const mgs_devmem_view *w = v;
    mgs_devmem_table *t = table_of(w->mem, w->gpu);
    uint64_t pa, end;
    if (!t || n == 0 || block_run(addr, n) != n ||
        !lookup(w->mem, t, addr, &pa, &end) ||
        (!w->page_bounds && addr + n > end))
        return NULL;
    uint8_t *b = write ? block_get(w->mem, pa) : block_peek(w->mem, pa);
    /* NULL sends the caller to view_read, which counts the bytes. */
    if (b && w->mem->heat)
        heat_note(w->mem, w->gpu, addr, n);
    return b ? b + (pa & BLOCK_MASK) : NULL;
}

uint64_t mgs_devmem_alloc_end(const mgs_devmem *m, uint64_t va)
{
    if (va < MGS_DEVMEM_VA_BASE)
        return 0;
    uint64_t vpn = (va - MGS_DEVMEM_VA_BASE) >> m->page_shift;
    return vpn < m->npte ? m->alloc_end[vpn] : 0;
}

static uint64_t ops_alloc_end(void *mem, uint64_t addr)
{
    return mgs_devmem_alloc_end(mem, addr);
}

const gcn_mem_ops mgs_devmem_bounds_ops = {.alloc_end = ops_alloc_end};

static uint64_t view_alloc_end(void *v, uint64_t addr)
{
    const mgs_devmem_view *w = v;
    return mgs_devmem_alloc_end(w->mem, addr);
}

const gcn_mem_ops mgs_devmem_view_ops = {
    .read = view_read, .write = view_write, .atomic = view_atomic,
    .span = view_span, .alloc_end = view_alloc_end};
