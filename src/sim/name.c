/*
** Hierarchical name helpers. Grammar accepted by name_valid:
**     name    := segment ( '.' segment )*
**     segment := [A-Za-z_][A-Za-z0-9_]* ( '[' [0-9]+ ']' )?
*/
#include "sim/name.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "util/xmalloc.h"

size_t name_build(char *out, size_t n, const char *parent, const char *kind,
                  long index)
{
    const char *sep = parent && *parent ? "." : "";
    if (!parent)
        parent = "";
    int k = index >= 0
        ? snprintf(out, n, "%s%s%s[%ld]", parent, sep, kind, index)
        : snprintf(out, n, "%s%s%s", parent, sep, kind);
    return k > 0 ? (size_t)k : 0;
}

char *name_new(const char *parent, const char *kind, long index)
{
    size_t len = name_build(NULL, 0, parent, kind, index);
    char *s = mgs_xmalloc(len + 1);
    name_build(s, len + 1, parent, kind, index);
    return s;
}

bool name_valid(const char *s)
{
    if (!s || !*s)
        return false;
    for (;;) {
        if (!(isalpha((unsigned char)*s) || *s == '_'))
            return false;
        while (isalnum((unsigned char)*s) || *s == '_')
            s++;
        if (*s == '[') {
            s++;
            if (!isdigit((unsigned char)*s))
                return false;
            while (isdigit((unsigned char)*s))
                s++;
            if (*s++ != ']')
                return false;
        }
        if (*s == '\0')
            return true;
        if (*s++ != '.')
            return false;
    }
}

const char *name_leaf(const char *s)
{
    const char *dot = strrchr(s, '.');
    return dot ? dot + 1 : s;
}

size_t name_depth(const char *s)
{
    if (!*s)
        return 0;
    size_t d = 1;
    for (; *s; s++)
        d += *s == '.';
    return d;
}
