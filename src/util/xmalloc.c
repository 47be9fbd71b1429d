/* Allocation wrappers that abort on host out-of-memory (see xmalloc.h). */
#include "util/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
