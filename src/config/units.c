/*
** Unit parsing and formatting for configuration values (see units.h).
**
** Parsing is exact: the mantissa is read as an integer part plus up to 18
** fraction digits and scaled in 128-bit arithmetic, so "1.5GHz" is exactly
** 1500000000 Hz and a value that is not a whole number of the stored unit
** ("1.5B") is an error rather than a silent rounding. Overflow of 64 bits
** is an error too.
*/
#include "config/units.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct unit_def {
    const char *name;
    uint64_t mult; /* stored units per one of this unit */
    bool preferred; /* used when formatting */
} unit_def;

#define KI 1024ull
static const unit_def size_units[] = {
    {"B", 1, true},
    {"KB", KI, true},
    {"MB", KI * KI, true},
    {"GB", KI * KI * KI, true},
    {"TB", KI * KI * KI * KI, true},
    {"KiB", KI, false},
    {"MiB", KI * KI, false},
    {"GiB", KI * KI * KI, false},
    {"TiB", KI * KI * KI * KI, false},
    {NULL, 0, false}};
static const unit_def freq_units[] = {
    {"Hz", 1, true},
    {"kHz", 1000ull, true},
    {"MHz", 1000000ull, true},
    {"GHz", 1000000000ull, true},
    {NULL, 0, false}};
static const unit_def bw_units[] = {
    {"B/s", 1, true},
    {"KB/s", 1000ull, true},
    {"MB/s", 1000000ull, true},
    {"GB/s", 1000000000ull, true},
    {"TB/s", 1000000000000ull, true},
    {"KiB/s", KI, false},
    {"MiB/s", KI * KI, false},
    {"GiB/s", KI * KI * KI, false},
    {NULL, 0, false}};
static const unit_def time_units[] = {
    {"ps", 1, true},
    {"ns", 1000ull, true},
    {"us", 1000000ull, true},
    {"ms", 1000000000ull, true},
    {"s", 1000000000000ull, true},
    {NULL, 0, false}};

static const struct kind_info {
    const char *what;       /* "size" */
    const unit_def *units;
    bool bare_ok;           /* a bare number means the base unit */
    const char *hint;       /* list shown in errors */
} kinds[] = {
    [MGS_UNIT_SIZE] = {"size", size_units, true, "B, KB, MB, GB, TB"},
    [MGS_UNIT_FREQ] = {"frequency", freq_units, false, "Hz, kHz, MHz, GHz"},
    [MGS_UNIT_BW] = {"bandwidth", bw_units, false, "B/s, KB/s, MB/s, GB/s, TB/s"},
    [MGS_UNIT_TIME] = {"time", time_units, false, "ps, ns, us, ms, s"},
};

static int fail(char *why, size_t n, const char *fmt, const char *arg)
{
    if (why && n)
        snprintf(why, n, fmt, arg);
    return -1;
}

/* Reads "123" or "1.25" at *p; returns value * 10^frac_digits in *num. */
static int parse_mantissa(const char **p, unsigned __int128 *num,
                          unsigned *frac_digits)
{
    const char *s = *p;
    unsigned __int128 v = 0;
    unsigned nd = 0, fd = 0;
    while (isdigit((unsigned char)*s)) {
        v = v * 10 + (unsigned)(*s++ - '0');
        if (++nd > 20)
            return -1;
    }
    if (*s == '.') {
        s++;
        while (isdigit((unsigned char)*s)) {
            if (fd >= 18)
                return -1;
            v = v * 10 + (unsigned)(*s++ - '0');
            fd++;
        }
        if (fd == 0)
            return -1;
    }
    if (nd == 0)
        return -1;
    *num = v;
    *frac_digits = fd;
    *p = s;
    return 0;
}

int mgs_unit_parse(mgs_unit_kind kind, const char *text, uint64_t *out,
                   char *why, size_t why_size)
{
    const struct kind_info *k = &kinds[kind];
    const char *s = text;
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '\0')
        return fail(why, why_size, "empty %s", k->what);
    if (*s == '-')
        return fail(why, why_size, "%s cannot be negative", k->what);
    unsigned __int128 mant;
    unsigned fd;
    if (parse_mantissa(&s, &mant, &fd) != 0)
        return fail(why, why_size, "not a number (expected e.g. 16%s)",
                    k->units[k->bare_ok ? 1 : 0].name);
    while (isspace((unsigned char)*s))
        s++;
    /* The unit runs to the end, minus trailing blanks. */
    char unit[16];
    size_t ulen = strlen(s);
    while (ulen && isspace((unsigned char)s[ulen - 1]))
        ulen--;
    if (ulen >= sizeof unit) {
        char shown[sizeof unit];
        snprintf(shown, sizeof shown, "%.*s", (int)(sizeof unit - 4), s);
        char tmp[128];
        snprintf(tmp, sizeof tmp, "unknown %s unit \"%s...\" (use %s)",
                 k->what, shown, k->hint);
        return fail(why, why_size, "%s", tmp);
    }
    memcpy(unit, s, ulen);
    unit[ulen] = '\0';

    uint64_t mult = 0;
    if (ulen == 0) {
        if (!k->bare_ok && mant != 0)
            return fail(why, why_size, "missing unit (use %s)", k->hint);
        mult = 1;
    } else {
        for (const unit_def *u = k->units; u->name; u++)
            if (!strcasecmp(u->name, unit)) {
                mult = u->mult;
                break;
            }
        if (!mult) {
            char tmp[128];
            snprintf(tmp, sizeof tmp, "unknown %s unit \"%s\" (use %s)",
                     k->what, unit, k->hint);
            return fail(why, why_size, "%s", tmp);
        }
    }
    unsigned __int128 pow10 = 1;
    for (unsigned i = 0; i < fd; i++)
        pow10 *= 10;
    unsigned __int128 scaled = mant * mult; /* < 10^38 * 2^40: no overflow */
    if (mant != 0 && scaled / mult != mant)
        return fail(why, why_size, "%s is too large", k->what);
    if (scaled % pow10 != 0)
        return fail(why, why_size,
                    "not a whole number of %s", k->units[0].name);
    scaled /= pow10;
    if (scaled > UINT64_MAX)
        return fail(why, why_size, "%s is too large", k->what);
    *out = (uint64_t)scaled;
    return 0;
}

const char *mgs_unit_format(mgs_unit_kind kind, uint64_t v, char *buf,
                            size_t size)
{
    const unit_def *best = &kinds[kind].units[0];
    for (const unit_def *u = kinds[kind].units; u->name; u++)
        if (u->preferred && v != 0 && v % u->mult == 0 && u->mult > best->mult)
            best = u;
    snprintf(buf, size, "%" PRIu64 "%s", v / best->mult, best->name);
    return buf;
}

int mgs_parse_int64(const char *text, int64_t *out, char *why,
                    size_t why_size)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    while (end != text && isspace((unsigned char)*end))
        end++;
    if (end == text || *end != '\0' || isspace((unsigned char)*text))
        return fail(why, why_size, "not an integer%s", "");
    if (errno == ERANGE)
        return fail(why, why_size, "integer is too large%s", "");
    *out = v;
    return 0;
}

int mgs_parse_uint64(const char *text, uint64_t *out, char *why,
                     size_t why_size)
{
    const char *s = text;
    if (!isdigit((unsigned char)*s))
        return fail(why, why_size, "%s",
                    *s == '-' ? "must not be negative"
                              : "not a non-negative integer");
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0')
        return fail(why, why_size, "not a non-negative integer%s", "");
    if (errno == ERANGE)
        return fail(why, why_size, "integer is too large%s", "");
    *out = v;
    return 0;
}

int mgs_parse_bool(const char *text, bool *out, char *why, size_t why_size)
{
    static const char *const yes[] = {"true", "yes", "on", "1"};
    static const char *const no[] = {"false", "no", "off", "0"};
    for (size_t i = 0; i < 4; i++) {
        if (!strcasecmp(text, yes[i])) {
            *out = true;
            return 0;
        }
        if (!strcasecmp(text, no[i])) {
            *out = false;
            return 0;
        }
    }
    return fail(why, why_size, "not a boolean (use true/false, yes/no, on/off, 1/0)%s", "");
}
