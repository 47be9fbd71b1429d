/*
** Hierarchical component names: dot-separated segments, each an
** identifier with an optional [index], e.g. "GPU[1].SA[3].L1V[2]".
** Names are what statistics rows and diagnostics print, so they are built
** by these helpers only (never by ad-hoc string pasting) and validated.
*/
#ifndef MGS_SIM_NAME_H
#define MGS_SIM_NAME_H

#include <stdbool.h>
#include <stddef.h>

/* Writes "<parent>.<kind>[<index>]" into out (parent NULL or "" -> no
** prefix; index < 0 -> no brackets). Returns the length the full name
** needs, like snprintf; out is always NUL-terminated when n > 0. */
size_t name_build(char *out, size_t n, const char *parent, const char *kind,
                  long index);
/* Same, into a new string the caller frees. */
char *name_new(const char *parent, const char *kind, long index);
/* Whether s is a well-formed hierarchical name. */
bool name_valid(const char *s);
/* The last segment of a name ("L1V[2]" for "GPU[1].SA[3].L1V[2]"). */
const char *name_leaf(const char *s);
/* Number of segments (3 for "GPU[1].SA[3].L1V[2]"; 0 for ""). */
size_t name_depth(const char *s);

#endif
