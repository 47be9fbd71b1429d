/* Allocation wrappers that abort on host out-of-memory (see xmalloc.h). */
#include "util/xmalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void oom(size_t size)
{
    fprintf(stderr, "mgsim: fatal: host out of memory allocating %zu bytes\n",
            size);
    abort();
}

void *mgs_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        oom(size);
    return p;
}

void *mgs_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *mgs_xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        oom(size);
    return q;
}

char *mgs_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = mgs_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

void *mgs_trymalloc(size_t size)
{
    return malloc(size ? size : 1);
}

void *mgs_xcalloc_aligned(size_t n, size_t size, size_t align)
{
    size_t bytes = (n ? n : 1) * (size ? size : align);
    void *p = NULL;
    if (posix_memalign(&p, align, bytes) != 0)
        oom(bytes);
    memset(p, 0, bytes);
    return p;
}

void *mgs_xmap_zeroed(size_t bytes)
{
    /* Map twice the size and trim both ends to the alignment. */
    uint8_t *p = mmap(NULL, 2 * bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        oom(bytes);
    uintptr_t a = ((uintptr_t)p + bytes - 1) & ~(uintptr_t)(bytes - 1);
    size_t head = a - (uintptr_t)p;
    if (head)
        munmap(p, head);
    munmap((uint8_t *)a + bytes, bytes - head);
#ifdef MADV_HUGEPAGE
    madvise((void *)a, bytes, MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
    return (void *)a;
}

void mgs_zero_pages(void *p, size_t bytes)
{
    if (madvise(p, bytes, MADV_DONTNEED) != 0)
        memset(p, 0, bytes);
}

void mgs_unmap(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes);
}
