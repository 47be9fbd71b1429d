/*
** Device printf formatting (devprintf.h): walks the format string, takes
** each conversion's words from the message and lets the C library format
** them one conversion at a time.
*/
#include "runtime/devprintf.h"

#include "util/xmalloc.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text {
    char *buf;
    size_t len, cap;
} text;

static void text_add(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->buf = mgs_xrealloc(t->buf, t->cap);
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = 0;
}

static void text_printf(text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void text_printf(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->buf = mgs_xrealloc(t->buf, t->cap);
    }
    va_start(ap, fmt);
    vsnprintf(t->buf + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* The message's words as a cursor. */
typedef struct words {
    const uint64_t *w;
    size_t n, at;
} words;

static bool take(words *c, uint64_t *v)
{
    if (c->at >= c->n)
        return false;
    *v = c->w[c->at++];
    return true;
}

/* A NUL-terminated string inline in the words at the cursor: copied to
** *s (owned), the cursor moved past its padding. */
static bool take_string(words *c, char **s)
{
    if (c->at >= c->n)
        return false;
    size_t room = (c->n - c->at) * 8;
    const char *p = (const char *)(c->w + c->at);
    size_t len = strnlen(p, room);
    *s = mgs_xmalloc(len + 1);
    memcpy(*s, p, len);
    (*s)[len] = 0;
    c->at += (len + 1 + 7) / 8;
    if (c->at > c->n)
        c->at = c->n;
    return true;
}

/* Sign- or zero-extends v from the width a length modifier names. */
static long long as_signed(uint64_t v, const char *len)
{
    if (!strcmp(len, "hh")) return (signed char)v;
    if (!strcmp(len, "h")) return (short)v;
    if (!*len) return (int)v;
    return (long long)v;
}

static unsigned long long as_unsigned(uint64_t v, const char *len)
{
    if (!strcmp(len, "hh")) return (unsigned char)v;
    if (!strcmp(len, "h")) return (unsigned short)v;
    if (!*len) return (unsigned)v;
    return v;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
/* One conversion: spec is "%" flags width precision (with '*' already
** replaced by numbers), len the length modifier, conv the conversion. */
static void convert(text *t, words *c, const char *spec, const char *len,
                    char conv)
{
    char f[96];
    uint64_t v;
    switch (conv) {
    case 'd': case 'i':
        if (!take(c, &v)) return;
        snprintf(f, sizeof f, "%sll%c", spec, conv);
        text_printf(t, f, as_signed(v, len));
        return;
    case 'u': case 'o': case 'x': case 'X':
        if (!take(c, &v)) return;
        snprintf(f, sizeof f, "%sll%c", spec, conv);
        text_printf(t, f, as_unsigned(v, len));
        return;
    case 'c':
        if (!take(c, &v)) return;
        snprintf(f, sizeof f, "%sc", spec);
        text_printf(t, f, (int)(unsigned char)v);
        return;
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a':
    case 'A': {
        if (!take(c, &v)) return;
        double d;
        memcpy(&d, &v, sizeof d);
        snprintf(f, sizeof f, "%s%c", spec, conv);
        text_printf(t, f, d);
        return;
    }
    case 'p':
        if (!take(c, &v)) return;
        snprintf(f, sizeof f, "%sp", spec);
        text_printf(t, f, (void *)(uintptr_t)v);
        return;
    case 's': {
        char *s;
        if (!take_string(c, &s)) return;
        snprintf(f, sizeof f, "%ss", spec);
        text_printf(t, f, s);
        free(s);
        return;
    }
    case 'n':
        take(c, &v);
        return;
    default:
        break;
    }
}
#pragma GCC diagnostic pop

int mgs_devprintf_format(const uint64_t *msg, size_t n, mgs_devprintf_out *out)
{
    text t = {0};
    text_add(&t, "", 0);
    words c = {.w = msg, .n = n};
    uint64_t stream = 0;
    char *fmt = NULL;
    take(&c, &stream);
    if (!take_string(&c, &fmt))
        fmt = mgs_xcalloc(1, 1);
    for (const char *p = fmt; *p;) {
        if (*p != '%') {
            const char *q = strchr(p, '%');
            size_t k = q ? (size_t)(q - p) : strlen(p);
            text_add(&t, p, k);
            p += k;
            continue;
        }
        const char *start = p++;
        if (*p == '%') {
            text_add(&t, "%", 1);
            p++;
            continue;
        }
        char spec[64] = "%";
        size_t sl = 1;
        while (*p && strchr("-+ #0", *p) && sl < 16)
            spec[sl++] = *p++;
        for (int part = 0; part < 2; part++) { /* width, then precision */
            if (part == 1) {
                if (*p != '.')
                    break;
                spec[sl++] = *p++;
            }
            if (*p == '*') {
                uint64_t v = 0;
                take(&c, &v);
                sl += (size_t)snprintf(spec + sl, sizeof spec - sl, "%d",
                                       (int)v);
                p++;
            } else {
                while (*p >= '0' && *p <= '9' && sl < sizeof spec - 8)
                    spec[sl++] = *p++;
                while (*p >= '0' && *p <= '9')
                    p++;
            }
        }
        spec[sl] = 0;
        char len[3] = "";
        if ((p[0] == 'h' && p[1] == 'h') || (p[0] == 'l' && p[1] == 'l')) {
            len[0] = p[0];
            len[1] = p[1];
            p += 2;
        } else if (*p && strchr("hljztL", *p)) {
            len[0] = *p == 'L' ? 0 : *p;
            p++;
        }
        if (!*p) {
            text_add(&t, start, strlen(start));
            break;
        }
        char conv = *p++;
        if (!strchr("diuoxXcfFeEgGaApsn", conv)) {
            text_add(&t, start, (size_t)(p - start));
            continue;
        }
        convert(&t, &c, spec, len, conv);
    }
    free(fmt);
    out->text = t.buf;
    out->len = t.len;
    out->stream = stream == 1 ? 1 : 0;
    return (int)t.len;
}
