/*
** Backing store seen by the bottom of the memory hierarchy (DRAM
** controllers): byte reads and writes at PHYSICAL addresses. The runtime
** provides it over its device memory's physical frames (physical address
** = gpu * bytes_per_gpu + frame * page_size + offset; two frames are
** always distinct bytes); tests provide a plain array.
** Caches above hold copies; only DRAM (and the runtime, between kernels,
** after the caches were flushed) touches the backing store.
*/
#ifndef MGS_MEM_BACKING_H
#define MGS_MEM_BACKING_H

#include <stddef.h>
#include <stdint.h>

typedef struct mem_backing {
    int (*read)(void *ud, uint64_t paddr, void *dst, size_t n);
    int (*write)(void *ud, uint64_t paddr, const void *src, size_t n);
    void *ud;
} mem_backing;

#endif
