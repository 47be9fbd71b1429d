/*
** A flat backing store and an identity page table for tests that build a
** platform directly (platform_new): physical address = index into bytes.
** Header-only.
*/
#ifndef MGS_TESTS_FLAT_MEM_H
#define MGS_TESTS_FLAT_MEM_H

#include <stdint.h>
#include <string.h>

#include "mgsim/errors.h"

typedef struct flat_mem {
    uint8_t *bytes;
    uint64_t size;
} flat_mem;

static inline int flat_read(void *ud, uint64_t pa, void *dst, size_t n)
{
    flat_mem *m = ud;
    if (pa + n > m->size)
        return MGS_EFAULT;
    memcpy(dst, m->bytes + pa, n);
    return MGS_OK;
}

static inline int flat_write(void *ud, uint64_t pa, const void *src, size_t n)
{
    flat_mem *m = ud;
    if (pa + n > m->size)
        return MGS_EFAULT;
    memcpy(m->bytes + pa, src, n);
    return MGS_OK;
}

static inline int no_translate(void *ud, int32_t gpu, uint32_t pid,
                               uint64_t va, uint64_t *pa)
{
    (void)ud;
    (void)gpu;
    (void)pid;
    *pa = va;
    return MGS_OK;
}

#endif
