/*
** What became of each line an L2 once held: the record behind the split
** of L2 misses into cold, capacity and coherence misses (seed 001 Figs. 4
** and 13 exclude cold misses). A line absent from the history was never
** filled (its next miss is cold); a line that left by an invalidation from
** a directory is COHERENCE (its next miss is a coherence miss); a line
** that left otherwise (replacement, a flush) is EVICTED (capacity).
**
** An open-addressing hash of line addresses (the low bits hold the state,
** lines being 64-byte aligned or more), doubling at half load. Grows with
** the lines the cache ever held: 16 bytes per line at worst.
*/
#ifndef MGS_COH_DIR_LINE_HISTORY_H
#define MGS_COH_DIR_LINE_HISTORY_H

#include <stdint.h>

typedef enum line_fate {
    LINE_NEVER = 0,      /* not in the history */
    LINE_PRESENT,        /* in the cache (as far as the history knows) */
    LINE_EVICTED,        /* left by replacement or a flush */
    LINE_COHERENCE       /* left by an invalidation from a directory */
} line_fate;

typedef struct line_history {
    uint64_t *slot;      /* line | fate, 0 = empty */
    uint64_t cap, used;  /* cap a power of two */
} line_history;

void line_history_init(line_history *h);
void line_history_fini(line_history *h);
line_fate line_history_get(const line_history *h, uint64_t line);
/* line must be aligned to 4 bytes at least (its low 2 bits hold fate). */
void line_history_set(line_history *h, uint64_t line, line_fate fate);

#endif
