/*
** Allocation wrappers. Host allocation failure is not a recoverable error in
** a simulator: mgs_xmalloc and friends abort with the size requested.
** mgs_trymalloc returns NULL instead, for large optional buffers.
*/
#ifndef MGS_UTIL_XMALLOC_H
#define MGS_UTIL_XMALLOC_H

#include <stddef.h>

void *mgs_xmalloc(size_t size);
void *mgs_xcalloc(size_t n, size_t size);
void *mgs_xrealloc(void *p, size_t size);
char *mgs_xstrdup(const char *s);
void *mgs_trymalloc(size_t size);
/* n zeroed elements of size bytes starting at a multiple of align (a power
** of two >= sizeof(void *)); size must be a multiple of align. free() it. */
void *mgs_xcalloc_aligned(size_t n, size_t size, size_t align);
/* bytes (a multiple of the OS page) of zeroed, lazily backed memory from
** the OS, starting at a multiple of bytes (a power of two), with the OS
** asked for huge pages where it offers them: a large store filled page by
** page faults once per huge page instead of once per 4 KiB. Give it back
** with mgs_unmap; mgs_zero_pages returns a part of it to the OS (it reads
** as zeros again). */
void *mgs_xmap_zeroed(size_t bytes);
void mgs_zero_pages(void *p, size_t bytes);
void mgs_unmap(void *p, size_t bytes);

#define MGS_NEW(type) ((type *)mgs_xcalloc(1, sizeof(type)))
#define MGS_NEW_ARRAY(type, n) ((type *)mgs_xcalloc((n), sizeof(type)))

#endif
