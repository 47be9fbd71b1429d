/*
** Simulated device memory: page allocation, page table, lazy backing and
** the byte-level access paths used by copies and by the emulator.
** Design and invariants: devmem.h.
**
** Speed: the emulator calls mgs_devmem_read/write once per 64-lane access
** when the lanes are contiguous, so the common case is one translation
** (usually a hit in the one-entry cache) and one memcpy.
*/
#include "runtime/devmem.h"

#include "gcn3/emu_atomic.h"
#include "gcn3/exec.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

#define PAGE_MASK ((uint64_t)MGS_DEVMEM_PAGE_SIZE - 1)

int mgs_devmem_init(mgs_devmem *m, int num_gpus, uint64_t bytes_per_gpu)
{
    memset(m, 0, sizeof *m);
    if (num_gpus < 1)
        return mgs_error_set(MGS_EINVAL, "number of GPUs must be >= 1 (got %d)",
                             num_gpus);
    if (bytes_per_gpu < MGS_DEVMEM_PAGE_SIZE)
        return mgs_error_set(MGS_EINVAL,
                             "device memory per GPU must be at least %u bytes",
                             MGS_DEVMEM_PAGE_SIZE);
    if ((bytes_per_gpu >> MGS_DEVMEM_PAGE_SHIFT) > UINT32_MAX)
        return mgs_error_set(MGS_EINVAL,
                             "device memory per GPU too large (%llu bytes)",
                             (unsigned long long)bytes_per_gpu);
    m->num_gpus = num_gpus;
    m->gpus = mgs_xcalloc((size_t)num_gpus, sizeof(mgs_devmem_gpu));
    for (int g = 0; g < num_gpus; g++)
        m->gpus[g].total_pages = bytes_per_gpu >> MGS_DEVMEM_PAGE_SHIFT;
    m->cache_vpn = ~0ull;
    return MGS_OK;
}

void mgs_devmem_destroy(mgs_devmem *m)
{
    for (uint64_t i = 0; i < m->npte; i++)
        free(m->ptes[i].backing);
    free(m->ptes);
    free(m->allocs);
    if (m->gpus)
        for (int g = 0; g < m->num_gpus; g++)
            free(m->gpus[g].free_pages);
    free(m->gpus);
    memset(m, 0, sizeof *m);
}

static uint64_t gpu_free_pages(const mgs_devmem_gpu *g)
{
    return g->total_pages - g->used_pages;
}

static uint32_t gpu_take_page(mgs_devmem_gpu *g)
{
    g->used_pages++;
    if (g->nfree)
        return g->free_pages[--g->nfree];
    return (uint32_t)g->next_page++;
}

static void gpu_return_page(mgs_devmem_gpu *g, uint32_t page)
{
    if (g->nfree == g->free_cap) {
        g->free_cap = g->free_cap ? g->free_cap * 2 : 256;
        g->free_pages = mgs_xrealloc(g->free_pages,
                                     g->free_cap * sizeof *g->free_pages);
    }
    g->free_pages[g->nfree++] = page;
    g->used_pages--;
}

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

int mgs_devmem_alloc_range(mgs_devmem *m, int gpu, uint64_t size,
                           uint64_t *va_out)
{
    if (gpu >= m->num_gpus)
        return mgs_error_set(MGS_EINVAL, "malloc on GPU %d: only %d GPU(s)",
                             gpu, m->num_gpus);
    if (size == 0)
        size = 1; /* a distinct, valid address even for empty buffers */
    uint64_t npages = (size + PAGE_MASK) >> MGS_DEVMEM_PAGE_SHIFT;
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
        if (need > gpu_free_pages(&m->gpus[g]))
            return mgs_error_set(
                MGS_ENOMEM,
                "out of device memory on GPU %d: %llu bytes requested, "
                "%llu bytes free", g, (unsigned long long)size,
                (unsigned long long)(gpu_free_pages(&m->gpus[g])
                                     << MGS_DEVMEM_PAGE_SHIFT));
    }
    uint64_t first = m->npte;
    uint64_t need_pte = first + npages + 1; /* + guard page */
    if (need_pte > m->pte_cap) {
        uint64_t cap = m->pte_cap ? m->pte_cap : 1024;
        while (cap < need_pte)
            cap *= 2;
        m->ptes = mgs_xrealloc(m->ptes, cap * sizeof *m->ptes);
        m->pte_cap = cap;
        m->cache_vpn = ~0ull; /* entries moved */
    }
    uint64_t va = MGS_DEVMEM_VA_BASE + (first << MGS_DEVMEM_PAGE_SHIFT);
    for (uint64_t i = 0; i < npages; i++) {
        int g = mgs_devmem_page_gpu(m, gpu, i, npages);
        mgs_devmem_pte *p = &m->ptes[first + i];
        p->backing = NULL;
        p->alloc_end = va + size;
        p->gpu = g;
        p->phys_page = gpu_take_page(&m->gpus[g]);
    }
    mgs_devmem_pte *guard = &m->ptes[first + npages];
    memset(guard, 0, sizeof *guard);
    guard->gpu = -1;
    m->npte = need_pte;

    if (m->nalloc == m->alloc_cap) {
        m->alloc_cap = m->alloc_cap ? m->alloc_cap * 2 : 64;
        m->allocs = mgs_xrealloc(m->allocs, m->alloc_cap * sizeof *m->allocs);
    }
    m->allocs[m->nalloc++] = (mgs_devmem_alloc){
        .va = va, .size = size, .npages = npages, .gpu = gpu, .live = true};
    *va_out = va;
    return MGS_OK;
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

int mgs_devmem_free_range(mgs_devmem *m, uint64_t va)
{
    mgs_devmem_alloc *a = find_alloc(m, va);
    if (!a || !a->live)
        return mgs_error_set(MGS_EINVAL,
                             "free of 0x%llx: not the start of a live allocation",
                             (unsigned long long)va);
    uint64_t first = (va - MGS_DEVMEM_VA_BASE) >> MGS_DEVMEM_PAGE_SHIFT;
    for (uint64_t i = 0; i < a->npages; i++) {
        mgs_devmem_pte *p = &m->ptes[first + i];
        if (p->backing) {
            free(p->backing);
            m->backed_pages--;
        }
        gpu_return_page(&m->gpus[p->gpu], p->phys_page);
        memset(p, 0, sizeof *p);
        p->gpu = -1;
    }
    a->live = false;
    m->cache_vpn = ~0ull;
    return MGS_OK;
}

static int fault(mgs_devmem *m, uint64_t va, size_t n, bool write)
{
    m->last_fault_addr = va;
    m->last_fault_size = n;
    m->last_fault_write = write;
    return mgs_error_set(MGS_EFAULT,
                         "memory fault at address 0x%llx (%s of %zu bytes)",
                         (unsigned long long)va, write ? "write" : "read", n);
}

/* The entry of the page holding va, or NULL if unmapped. */
static inline mgs_devmem_pte *lookup(mgs_devmem *m, uint64_t va)
{
    uint64_t vpn = (va - MGS_DEVMEM_VA_BASE) >> MGS_DEVMEM_PAGE_SHIFT;
    if (vpn == m->cache_vpn)
        return m->cache_pte;
    if (va < MGS_DEVMEM_VA_BASE || vpn >= m->npte)
        return NULL;
    mgs_devmem_pte *p = &m->ptes[vpn];
    if (p->alloc_end == 0)
        return NULL;
    m->cache_vpn = vpn;
    m->cache_pte = p;
    return p;
}

static inline uint8_t *backing_of(mgs_devmem *m, mgs_devmem_pte *p)
{
    if (!p->backing) {
        p->backing = mgs_xcalloc(1, MGS_DEVMEM_PAGE_SIZE);
        m->backed_pages++;
    }
    return p->backing;
}

mgs_devmem_pte *mgs_devmem_pte_of(mgs_devmem *m, uint64_t va)
{
    return lookup(m, va);
}

uint8_t *mgs_devmem_page_backing(mgs_devmem *m, mgs_devmem_pte *p)
{
    return backing_of(m, p);
}

/* Pages after the first are checked as the copy walks them. */
int mgs_devmem_read(mgs_devmem *m, uint64_t va, void *dst, size_t n)
{
    uint8_t *out = dst;
    while (n) {
        mgs_devmem_pte *p = lookup(m, va);
        if (!p || va + n > p->alloc_end) {
            /* Report the first byte that is really outside. */
            uint64_t bad = p ? p->alloc_end : va;
            return fault(m, bad, n, false);
        }
        size_t off = va & PAGE_MASK;
        size_t chunk = MGS_DEVMEM_PAGE_SIZE - off;
        if (chunk > n)
            chunk = n;
        if (p->backing)
            memcpy(out, p->backing + off, chunk);
        else
            memset(out, 0, chunk);
        out += chunk;
        va += chunk;
        n -= chunk;
    }
    return MGS_OK;
}

/* A multi-page access is checked fully before any byte is written, so a
** faulting store changes nothing. */
static int check_range(mgs_devmem *m, uint64_t va, size_t n, bool write)
{
    mgs_devmem_pte *p = lookup(m, va);
    if (!p)
        return fault(m, va, n, write);
    if (va + n > p->alloc_end)
        return fault(m, p->alloc_end, n, write);
    return MGS_OK;
}

int mgs_devmem_write(mgs_devmem *m, uint64_t va, const void *src, size_t n)
{
    if (n == 0)
        return MGS_OK;
    int rc = check_range(m, va, n, true);
    if (rc)
        return rc;
    const uint8_t *in = src;
    while (n) {
        mgs_devmem_pte *p = lookup(m, va);
        size_t off = va & PAGE_MASK;
        size_t chunk = MGS_DEVMEM_PAGE_SIZE - off;
        if (chunk > n)
            chunk = n;
        memcpy(backing_of(m, p) + off, in, chunk);
        in += chunk;
        va += chunk;
        n -= chunk;
    }
    return MGS_OK;
}

int mgs_devmem_fill(mgs_devmem *m, uint64_t va, uint8_t value, size_t n)
{
    if (n == 0)
        return MGS_OK;
    int rc = check_range(m, va, n, true);
    if (rc)
        return rc;
    while (n) {
        mgs_devmem_pte *p = lookup(m, va);
        size_t off = va & PAGE_MASK;
        size_t chunk = MGS_DEVMEM_PAGE_SIZE - off;
        if (chunk > n)
            chunk = n;
        /* Zero-filling an unbacked page keeps it unbacked: it reads as 0. */
        if (value || p->backing)
            memset(backing_of(m, p) + off, value, chunk);
        va += chunk;
        n -= chunk;
    }
    return MGS_OK;
}

int mgs_devmem_atomic(mgs_devmem *m, uint64_t va, unsigned op, unsigned size,
                      uint64_t src, uint64_t cmp, uint64_t *old)
{
    /* Naturally aligned 4/8-byte accesses never cross a page. */
    if ((size != 4 && size != 8) || (va & (size - 1)))
        return mgs_error_set(MGS_EFAULT,
                             "misaligned %u-byte atomic at address 0x%llx",
                             size, (unsigned long long)va);
    int rc = check_range(m, va, size, true);
    if (rc)
        return rc;
    uint8_t *b = backing_of(m, lookup(m, va)) + (va & PAGE_MASK);
    uint64_t cur = 0;
    memcpy(&cur, b, size);
    uint64_t next = gcn_atomic_apply(gcn_atomic_kind_of(op), size, cur, src,
                                     cmp);
    memcpy(b, &next, size);
    *old = cur;
    return MGS_OK;
}

int mgs_devmem_gpu_of(mgs_devmem *m, uint64_t va)
{
    mgs_devmem_pte *p = lookup(m, va);
    return p ? p->gpu : -1;
}

uint64_t mgs_devmem_used_pages(const mgs_devmem *m, int gpu)
{
    return gpu >= 0 && gpu < m->num_gpus ? m->gpus[gpu].used_pages : 0;
}

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
