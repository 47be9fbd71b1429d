/*
** Device printf: formats one completed printf message of the hostcall
** protocol (hostcall.h) the way ROCm's host runtime does.
**
** A message is a sequence of 64-bit words:
**   [0]    0 = stdout, 1 = stderr (__ockl_printf_begin / fprintf_stderr)
**   [1..]  the format string, NUL-terminated, padded to whole words
**   then, for each conversion in order: '*' widths and precisions as one
**   word each; integers and pointers as one word (zero-extended); floating
**   point as the bits of a double; %s as the string's bytes inline,
**   NUL-terminated and padded to whole words (a null pointer is one zero
**   word, an empty string).
** Missing words print nothing; %n is ignored; an unknown conversion is
** printed as written.
*/
#ifndef MGS_RUNTIME_DEVPRINTF_H
#define MGS_RUNTIME_DEVPRINTF_H

#include <stddef.h>
#include <stdint.h>

typedef struct mgs_devprintf_out {
    char *text;         /* NUL-terminated (owned; free()) */
    size_t len;
    int stream;         /* 0 stdout, 1 stderr */
} mgs_devprintf_out;

/* Formats the n words of msg into out (out->text allocated); returns the
** number of characters, printf's return value. */
int mgs_devprintf_format(const uint64_t *msg, size_t n, mgs_devprintf_out *out);

#endif
