/*
** Configuration loading, validation and printing (see config.h).
**
** Everything is driven by the key table generated from keys.def: the parser
** looks a key up in it, converts the text by the key's type, checks the
** bounds and stores the result at the key's offset in struct mgs_config,
** then records the origin. Defaults go through the same path at
** mgs_config_defaults, so a default that would not parse is caught by the
** unit tests rather than shipped.
**
** INI files are parsed by inih through ini_parse_stream with our own line
** reader: inih's handler does not report line numbers in the Debian build
** (INI_HANDLER_LINENO is 0), so the reader counts lines itself and the
** handler reads the count. The reader also sees each raw line, which lets
** us reject indented continuation lines and over-long lines instead of
** letting inih silently glue or split them.
*/
#include "config/config.h"

#include "config/units.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define KEY_ROW(s, k, T, d, lo, hi, ch, hp, src)                            \
    {#s, #k, MGS_CFG_##T, d, (int64_t)(lo), (uint64_t)(hi), ch, hp, src,    \
     offsetof(mgs_config, s##_##k)},
static const mgs_cfg_key key_table[MGS_CFG_NKEYS] = {
#define MGS_CFG_KEY KEY_ROW
#include "config/keys.def"
#undef MGS_CFG_KEY
};

/* A line longer than this is an error (inih would split it silently). */
#define LINE_MAX_CHARS 1000

size_t mgs_config_key_count(void)
{
    return MGS_CFG_NKEYS;
}

const mgs_cfg_key *mgs_config_key(size_t id)
{
    return id < MGS_CFG_NKEYS ? &key_table[id] : NULL;
}

const mgs_cfg_key *mgs_config_find_key(const char *section, const char *name)
{
    for (size_t i = 0; i < MGS_CFG_NKEYS; i++)
        if (!strcmp(key_table[i].section, section) &&
            !strcmp(key_table[i].name, name))
            return &key_table[i];
    return NULL;
}

static bool section_exists(const char *section)
{
    for (size_t i = 0; i < MGS_CFG_NKEYS; i++)
        if (!strcmp(key_table[i].section, section))
            return true;
    return false;
}

const char *mgs_config_type_name(mgs_cfg_type t)
{
    switch (t) {
    case MGS_CFG_INT: return "int";
    case MGS_CFG_COUNT: return "count";
    case MGS_CFG_SIZE: return "size";
    case MGS_CFG_FREQ: return "frequency";
    case MGS_CFG_BW: return "bandwidth";
    case MGS_CFG_TIME: return "time";
    case MGS_CFG_BOOL: return "bool";
    case MGS_CFG_ENUM: return "enum";
    case MGS_CFG_STRING: return "string";
    }
    return "?";
}

static bool unit_kind_of(mgs_cfg_type t, mgs_unit_kind *k)
{
    switch (t) {
    case MGS_CFG_SIZE: *k = MGS_UNIT_SIZE; return true;
    case MGS_CFG_FREQ: *k = MGS_UNIT_FREQ; return true;
    case MGS_CFG_BW: *k = MGS_UNIT_BW; return true;
    case MGS_CFG_TIME: *k = MGS_UNIT_TIME; return true;
    default: return false;
    }
}

/* Is v one of "a|b|c"? */
static bool enum_has(const char *choices, const char *v)
{
    size_t n = strlen(v);
    for (const char *p = choices; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !strncmp(p, v, n))
            return true;
        if (!bar)
            break;
        p = bar + 1;
    }
    return false;
}

static const char *bound_text(const mgs_cfg_key *k, bool upper, char *buf,
                              size_t n)
{
    mgs_unit_kind uk;
    if (upper && k->max == UINT64_MAX)
        snprintf(buf, n, "no limit");
    else if (unit_kind_of(k->type, &uk))
        mgs_unit_format(uk, upper ? k->max : (uint64_t)k->min, buf, n);
    else if (upper)
        snprintf(buf, n, "%" PRIu64, k->max);
    else
        snprintf(buf, n, "%" PRId64, k->min);
    return buf;
}

static void origin_prefix(const mgs_cfg_origin *o, char *buf, size_t n)
{
    switch (o->kind) {
    case MGS_ORIGIN_FILE:
        snprintf(buf, n, "%s:%d", o->where, o->line);
        break;
    case MGS_ORIGIN_OPTION:
        snprintf(buf, n, "%s", o->where);
        break;
    case MGS_ORIGIN_DEFAULT:
        snprintf(buf, n, "built-in default");
        break;
    }
}

static int bad_value(const mgs_cfg_key *k, const char *value,
                     const mgs_cfg_origin *o, const char *why)
{
    char where[MGS_CFG_WHERE_MAX + 16];
    origin_prefix(o, where, sizeof where);
    return mgs_error_set(MGS_ECONFIG, "%s: [%s] %s = \"%s\": %s", where,
                         k->section, k->name, value, why);
}

/* Converts and range-checks text for key k into *field. */
static int store_value(const mgs_cfg_key *k, void *field, const char *value,
                       const mgs_cfg_origin *o)
{
    char why[256];
    mgs_unit_kind uk;
    switch (k->type) {
    case MGS_CFG_INT: {
        int64_t v;
        if (mgs_parse_int64(value, &v, why, sizeof why))
            return bad_value(k, value, o, why);
        if (v < k->min || (v >= 0 && (uint64_t)v > k->max)) {
            snprintf(why, sizeof why, "out of range (%" PRId64 "..%" PRIu64 ")",
                     k->min, k->max);
            return bad_value(k, value, o, why);
        }
        *(int *)field = (int)v;
        return MGS_OK;
    }
    case MGS_CFG_COUNT:
    case MGS_CFG_SIZE:
    case MGS_CFG_FREQ:
    case MGS_CFG_BW:
    case MGS_CFG_TIME: {
        uint64_t v;
        int rc = unit_kind_of(k->type, &uk)
                     ? mgs_unit_parse(uk, value, &v, why, sizeof why)
                     : mgs_parse_uint64(value, &v, why, sizeof why);
        if (rc)
            return bad_value(k, value, o, why);
        if (v < (uint64_t)k->min || v > k->max) {
            char lo[32], hi[32];
            snprintf(why, sizeof why, "out of range (%s..%s)",
                     bound_text(k, false, lo, sizeof lo),
                     bound_text(k, true, hi, sizeof hi));
            return bad_value(k, value, o, why);
        }
        *(uint64_t *)field = v;
        return MGS_OK;
    }
    case MGS_CFG_BOOL:
        if (mgs_parse_bool(value, (bool *)field, why, sizeof why))
            return bad_value(k, value, o, why);
        return MGS_OK;
    case MGS_CFG_ENUM:
        if (!enum_has(k->choices, value) || strlen(value) >= MGS_CFG_ENUM_MAX) {
            char tmp[200], *t = tmp;
            snprintf(tmp, sizeof tmp, "not one of %s", k->choices);
            for (; *t; t++)
                if (*t == '|')
                    *t = ',';
            return bad_value(k, value, o, tmp);
        }
        memcpy(field, value, strlen(value) + 1); /* length checked above */
        return MGS_OK;
    case MGS_CFG_STRING:
        if (strlen(value) >= MGS_CFG_STR_MAX) {
            snprintf(why, sizeof why, "longer than %d characters",
                     MGS_CFG_STR_MAX - 1);
            return bad_value(k, value, o, why);
        }
        memcpy(field, value, strlen(value) + 1); /* length checked above */
        return MGS_OK;
    }
    return mgs_error_set(MGS_EINTERNAL, "config key %s.%s has no type",
                         k->section, k->name);
}

int mgs_config_apply(mgs_config *cfg, const char *section, const char *name,
                     const char *value, const mgs_cfg_origin *origin)
{
    char where[MGS_CFG_WHERE_MAX + 16];
    const mgs_cfg_key *k = mgs_config_find_key(section, name);
    if (!k) {
        origin_prefix(origin, where, sizeof where);
        if (!section_exists(section))
            return mgs_error_set(MGS_ECONFIG,
                                 "%s: unknown section [%s] (key \"%s\"; "
                                 "'mgsim config show' lists every key)",
                                 where, section, name);
        return mgs_error_set(MGS_ECONFIG,
                             "%s: unknown key \"%s\" in section [%s] "
                             "('mgsim config show' lists every key)",
                             where, name, section);
    }
    /* One pair of surrounding double quotes is syntax, not value. */
    char unq[MGS_CFG_STR_MAX + 2];
    size_t n = strlen(value);
    if (n >= 2 && value[0] == '"' && value[n - 1] == '"' &&
        n - 2 < sizeof unq) {
        memcpy(unq, value + 1, n - 2);
        unq[n - 2] = '\0';
        value = unq;
    }
    size_t id = (size_t)(k - key_table);
    int rc = store_value(k, (char *)cfg + k->offset, value, origin);
    if (rc == MGS_OK && &cfg->origin[id] != origin)
        cfg->origin[id] = *origin;
    return rc;
}

void mgs_config_defaults(mgs_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    mgs_cfg_origin o = {.kind = MGS_ORIGIN_DEFAULT};
    for (size_t i = 0; i < MGS_CFG_NKEYS; i++) {
        const mgs_cfg_key *k = &key_table[i];
        int rc = mgs_config_apply(cfg, k->section, k->name, k->dflt, &o);
        /* keys.def is code: a default that does not parse is a bug that
        ** tests/unit/config catches; keep the zero value rather than crash. */
        (void)rc;
    }
}

/* ---- INI files ---------------------------------------------------- */

typedef struct ini_ctx {
    mgs_config *cfg;
    const char *display;
    const char *pos;       /* next unread character of the text */
    const char *raw_line;  /* start of the line inih is processing */
    int line;              /* its 1-based number */
    bool line_too_long;
    int max_line;          /* longest line accepted (characters) */
    int rc;                /* first error, MGS_OK if none */
    int err_line;          /* its line */
} ini_ctx;

static char *ini_reader_fn(char *str, int num, void *stream)
{
    ini_ctx *c = stream;
    if (*c->pos == '\0')
        return NULL;
    const char *nl = strchr(c->pos, '\n');
    size_t len = nl ? (size_t)(nl - c->pos) : strlen(c->pos);
    size_t copy = len < (size_t)num - 1 ? len : (size_t)num - 1;
    memcpy(str, c->pos, copy);
    str[copy] = '\0';
    c->raw_line = c->pos;
    c->line++;
    c->max_line = num - 1 < LINE_MAX_CHARS ? num - 1 : LINE_MAX_CHARS;
    c->line_too_long = len > (size_t)c->max_line;
    c->pos += nl ? len + 1 : len;
    return str;
}

static int ini_fail(ini_ctx *c, const char *fmt, const char *arg)
{
    if (c->rc == MGS_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, fmt, arg);
        c->rc = mgs_error_set(MGS_ECONFIG, "%s:%d: %s", c->display, c->line,
                              msg);
        c->err_line = c->line;
    }
    return 0;
}

/* [preset] base = NAME: the preset NAME is loaded first, then the rest of
** this file on top (a preset that differs from another in a few keys).
** Bases nest up to MAX_BASE_DEPTH deep, which also stops a cycle. */
#define MAX_BASE_DEPTH 4

static int preset_base(ini_ctx *c, const char *name, const char *value)
{
    static int depth;
    if (strcmp(name, "base"))
        return ini_fail(c, "[preset] %s: unknown key (only base = PRESET)",
                        name);
    if (depth == MAX_BASE_DEPTH)
        return ini_fail(c, "[preset] base = %s: bases nested too deep (a "
                        "cycle?)", value);
    depth++;
    c->rc = mgs_config_load_preset(c->cfg, value);
    depth--;
    c->err_line = c->line;
    return c->rc == MGS_OK;
}

static int ini_handler_fn(void *user, const char *section, const char *name,
                          const char *value)
{
    ini_ctx *c = user;
    if (c->rc != MGS_OK)
        return 1; /* report only the first error */
    if (c->line_too_long) {
        char n[16];
        snprintf(n, sizeof n, "%d", c->max_line);
        return ini_fail(c, "line longer than %s characters", n);
    }
    if (isspace((unsigned char)c->raw_line[0]))
        return ini_fail(c, "%s", "indented line (continuation lines are not "
                                 "supported; put each key on its own line)");
    if (!*section)
        return ini_fail(c, "key \"%s\" before any [section]", name);
    if (!strcmp(section, "preset"))
        return preset_base(c, name, value);
    mgs_cfg_origin o = {.kind = MGS_ORIGIN_FILE, .line = c->line};
    snprintf(o.where, sizeof o.where, "%s", c->display);
    c->rc = mgs_config_apply(c->cfg, section, name, value, &o);
    c->err_line = c->line;
    return c->rc == MGS_OK;
}

static int load_result(const ini_ctx *c, int r);

int mgs_config_load_string(mgs_config *cfg, const char *text,
                           const char *display)
{
    /* Parse into a copy so that a failed load leaves cfg unchanged. */
    mgs_config *work = mgs_xmalloc(sizeof *work);
    *work = *cfg;
    ini_ctx c = {.cfg = work, .display = display ? display : "<string>",
                 .pos = text, .rc = MGS_OK};
    int r = ini_parse_stream(ini_reader_fn, &c, ini_handler_fn, &c);
    int rc = load_result(&c, r);
    if (rc == MGS_OK)
        *cfg = *work;
    free(work);
    return rc;
}

/* The outcome of one ini_parse_stream call over ctx c. */
static int load_result(const ini_ctx *c, int r)
{
    /* inih reports the first line it could not parse; an earlier bad value
    ** of ours wins, a later one is a consequence (e.g. of a broken [section
    ** header) and loses. */
    if (c->rc != MGS_OK && (r <= 0 || c->err_line <= r))
        return c->rc;
    if (r > 0) {
        /* inih found a line that is neither a section nor key = value. */
        return mgs_error_set(MGS_ECONFIG,
                             "%s:%d: syntax error (expected [section] or "
                             "key = value)",
                             c->display, r);
    }
    if (r < 0)
        return mgs_error_set(MGS_EINTERNAL, "%s: INI parser failed (%d)",
                             c->display, r);
    return MGS_OK;
}

int mgs_config_load_file(mgs_config *cfg, const char *path,
                         const char *display)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return mgs_error_set(MGS_ENOENT, "cannot open config file %s: %s",
                             path, strerror(errno));
    size_t cap = 4096, len = 0;
    char *text = mgs_xmalloc(cap);
    size_t got;
    while ((got = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap)
            text = mgs_xrealloc(text, cap *= 2);
    }
    bool failed = ferror(f);
    fclose(f);
    text[len] = '\0';
    int rc;
    if (failed)
        rc = mgs_error_set(MGS_EIO, "cannot read config file %s", path);
    else if (strlen(text) != len)
        rc = mgs_error_set(MGS_ECONFIG, "%s: not a text file (NUL byte)",
                           display ? display : path);
    else
        rc = mgs_config_load_string(cfg, text, display ? display : path);
    free(text);
    return rc;
}

int mgs_config_set(mgs_config *cfg, const char *assignment,
                   const char *option)
{
    const char *eq = strchr(assignment, '=');
    const char *dot = eq ? memchr(assignment, '.', (size_t)(eq - assignment))
                         : NULL;
    if (!eq || !dot || dot == assignment || dot + 1 == eq)
        return mgs_error_set(MGS_ECONFIG,
                             "%s \"%s\": expected section.key=value "
                             "(e.g. gpu.num_cus=32)",
                             option, assignment);
    char section[64], name[64];
    size_t slen = (size_t)(dot - assignment), nlen = (size_t)(eq - dot - 1);
    if (slen >= sizeof section || nlen >= sizeof name)
        return mgs_error_set(MGS_ECONFIG, "%s \"%s\": key name too long",
                             option, assignment);
    memcpy(section, assignment, slen);
    section[slen] = '\0';
    memcpy(name, dot + 1, nlen);
    name[nlen] = '\0';
    mgs_cfg_origin o = {.kind = MGS_ORIGIN_OPTION};
    snprintf(o.where, sizeof o.where, "%s", option);
    return mgs_config_apply(cfg, section, name, eq + 1, &o);
}

/* ---- presets ------------------------------------------------------ */

const char *mgs_config_preset_dir(void)
{
    const char *d = getenv("MGSIM_CONFIG_DIR");
    return d && *d ? d : MGS_SOURCE_DIR "/configs";
}

/* NAME or FOLDER/NAME (one level: configs/halcone/sm-wt-nc.ini is
** "halcone/sm-wt-nc"); each part letters, digits, '-', '_', '.', not
** starting with '.'. */
static bool preset_name_ok(const char *name)
{
    if (!*name || strlen(name) > 60)
        return false;
    const char *slash = strchr(name, '/');
    if (slash && (strchr(slash + 1, '/') || !slash[1]))
        return false;
    for (const char *p = name; *p; p++) {
        bool start = p == name || p[-1] == '/';
        if (start && (*p == '.' || *p == '/'))
            return false;
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' &&
            *p != '.' && *p != '/')
            return false;
    }
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the presets of dir (prefixed "sub/" when sub is set) to names;
** descends one level into the folders of the top directory. */
static void collect_presets(const char *dir, const char *sub, char ***names,
                            size_t *n, size_t *cap)
{
    char path[4096];
    if (sub)
        snprintf(path, sizeof path, "%s/%s", dir, sub);
    else
        snprintf(path, sizeof path, "%s", dir);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.')
            continue;
        if (len <= 4 || strcmp(e->d_name + len - 4, ".ini")) {
            char inner[4400];
            struct stat sb;
            snprintf(inner, sizeof inner, "%s/%s", path, e->d_name);
            if (!sub && stat(inner, &sb) == 0 && S_ISDIR(sb.st_mode))
                collect_presets(dir, e->d_name, names, n, cap);
            continue;
        }
        if (*n == *cap)
            *names = mgs_xrealloc(*names, (*cap = *cap ? 2 * *cap : 16) *
                                              sizeof **names);
        char name[600];
        snprintf(name, sizeof name, "%s%s%.*s", sub ? sub : "", sub ? "/" : "",
                 (int)(len - 4), e->d_name);
        (*names)[(*n)++] = mgs_xstrdup(name);
    }
    closedir(d);
}

size_t mgs_config_foreach_preset(void (*fn)(const char *name,
                                            const char *path, void *ud),
                                 void *ud)
{
    const char *dir = mgs_config_preset_dir();
    char **names = NULL;
    size_t n = 0, cap = 0;
    collect_presets(dir, NULL, &names, &n, &cap);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (fn) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s.ini", dir, names[i]);
            fn(names[i], path, ud);
        }
        free(names[i]);
    }
    free(names);
    return n;
}

static void append_name(const char *name, const char *path, void *ud)
{
    (void)path;
    char *list = ud;
    size_t len = strlen(list);
    snprintf(list + len, 512 - len, "%s%s", len ? ", " : "", name);
}

int mgs_config_load_preset(mgs_config *cfg, const char *name)
{
    char list[512] = "";
    if (!preset_name_ok(name)) {
        mgs_config_foreach_preset(append_name, list);
        return mgs_error_set(MGS_ECONFIG,
                             "bad preset name \"%s\" (presets: %s)", name,
                             *list ? list : "none found");
    }
    const char *dir = mgs_config_preset_dir();
    char path[4096], display[4096];
    snprintf(path, sizeof path, "%s/%s.ini", dir, name);
    if (!getenv("MGSIM_CONFIG_DIR") || !*getenv("MGSIM_CONFIG_DIR"))
        snprintf(display, sizeof display, "configs/%s.ini", name);
    else
        snprintf(display, sizeof display, "%s", path);
    FILE *probe = fopen(path, "r");
    if (!probe) {
        mgs_config_foreach_preset(append_name, list);
        return mgs_error_set(MGS_ENOENT,
                             "unknown preset \"%s\" (no %s; presets: %s)",
                             name, path, *list ? list : "none found");
    }
    fclose(probe);
    int rc = mgs_config_load_file(cfg, path, display);
    if (rc == MGS_OK)
        snprintf(cfg->preset, sizeof cfg->preset, "%s", name);
    return rc;
}

/* ---- printing ----------------------------------------------------- */

const char *mgs_config_value_text(const mgs_config *cfg, size_t id,
                                  char *buf, size_t size)
{
    const mgs_cfg_key *k = &key_table[id];
    const void *field = (const char *)cfg + k->offset;
    mgs_unit_kind uk;
    switch (k->type) {
    case MGS_CFG_INT:
        snprintf(buf, size, "%d", *(const int *)field);
        break;
    case MGS_CFG_COUNT:
        snprintf(buf, size, "%" PRIu64, *(const uint64_t *)field);
        break;
    case MGS_CFG_SIZE:
    case MGS_CFG_FREQ:
    case MGS_CFG_BW:
    case MGS_CFG_TIME:
        unit_kind_of(k->type, &uk);
        mgs_unit_format(uk, *(const uint64_t *)field, buf, size);
        break;
    case MGS_CFG_BOOL:
        snprintf(buf, size, "%s", *(const bool *)field ? "true" : "false");
        break;
    case MGS_CFG_ENUM:
        snprintf(buf, size, "%s", (const char *)field);
        break;
    case MGS_CFG_STRING:
        snprintf(buf, size, "\"%s\"", (const char *)field);
        break;
    }
    return buf;
}

const char *mgs_config_origin_text(const mgs_config *cfg, size_t id,
                                   char *buf, size_t size)
{
    const mgs_cfg_origin *o = &cfg->origin[id];
    if (o->kind == MGS_ORIGIN_DEFAULT)
        snprintf(buf, size, "default (%s)", key_table[id].source);
    else
        origin_prefix(o, buf, size);
    return buf;
}

void mgs_config_write_ini(const mgs_config *cfg, FILE *f, bool with_origins)
{
    fprintf(f, "; mgsim effective configuration (preset: %s)\n",
            *cfg->preset ? cfg->preset : "none");
    const char *section = "";
    for (size_t i = 0; i < MGS_CFG_NKEYS; i++) {
        const mgs_cfg_key *k = &key_table[i];
        if (strcmp(section, k->section)) {
            section = k->section;
            fprintf(f, "\n[%s]\n", section);
        }
        char val[MGS_CFG_STR_MAX + 4], line[MGS_CFG_STR_MAX + 80];
        snprintf(line, sizeof line, "%s = %s", k->name,
                 mgs_config_value_text(cfg, i, val, sizeof val));
        if (with_origins) {
            char org[MGS_CFG_WHERE_MAX + 300];
            fprintf(f, "%-32s ; %s\n", line,
                    mgs_config_origin_text(cfg, i, org, sizeof org));
        } else {
            fprintf(f, "%s\n", line);
        }
    }
}

char *mgs_config_ini_string(const mgs_config *cfg, bool with_origins)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return mgs_xstrdup("");
    mgs_config_write_ini(cfg, f, with_origins);
    fclose(f);
    return buf;
}

/* Markdown cells must not contain a bare '|'. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s, f);
    }
}

void mgs_config_write_markdown(FILE *f)
{
    const char *section = "";
    for (size_t i = 0; i < MGS_CFG_NKEYS; i++) {
        const mgs_cfg_key *k = &key_table[i];
        if (strcmp(section, k->section)) {
            section = k->section;
            fprintf(f, "%s### [%s]\n\n"
                       "| key | type | default | allowed | meaning | source of default |\n"
                       "|---|---|---|---|---|---|\n",
                    i ? "\n" : "", section);
        }
        char lo[32], hi[32];
        fprintf(f, "| `%s` | %s | `%s` | ", k->name,
                mgs_config_type_name(k->type), *k->dflt ? k->dflt : "\"\"");
        if (k->type == MGS_CFG_ENUM)
            md_cell(f, k->choices);
        else if (k->type == MGS_CFG_BOOL || k->type == MGS_CFG_STRING)
            fputs("-", f);
        else
            fprintf(f, "%s .. %s", bound_text(k, false, lo, sizeof lo),
                    bound_text(k, true, hi, sizeof hi));
        fputs(" | ", f);
        md_cell(f, k->help);
        fputs(" | ", f);
        md_cell(f, k->source);
        fputs(" |\n", f);
    }
}

bool mgs_config_is(const mgs_config *cfg, size_t id, const char *v)
{
    const mgs_cfg_key *k = mgs_config_key(id);
    return k && k->type == MGS_CFG_ENUM &&
           !strcmp((const char *)cfg + k->offset, v);
}
