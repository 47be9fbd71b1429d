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

#define MGS_NEW(type) ((type *)mgs_xcalloc(1, sizeof(type)))
#define MGS_NEW_ARRAY(type, n) ((type *)mgs_xcalloc((n), sizeof(type)))

#endif
