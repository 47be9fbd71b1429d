/*
** Reading a study file (study.h): the [study], [paper] and [claim NAME]
** sections; the sweep sections are sweep_spec_parse's.
*/
#include "cli/study.h"

#include "cli/options.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *study_dir(void)
{
    const char *d = getenv("MGSIM_STUDY_DIR");
    return d && *d ? d : MGS_SOURCE_DIR "/studies";
}

typedef struct load_state {
    study *s;
    int rc;
} load_state;

static void set_str(char **field, const char *v)
{
    free(*field);
    *field = mgs_xstrdup(v);
}

/* Long texts continue on indented lines; inih hands each line over as
** the same key again, so the key's text grows. */
static void add_text(char **field, const char *v)
{
    if (!*field) {
        *field = mgs_xstrdup(v);
        return;
    }
    size_t n = strlen(*field) + strlen(v) + 2;
    *field = mgs_xrealloc(*field, n);
    strcat(strcat(*field, " "), v);
}

static int bad(load_state *st, const char *section, const char *key,
               const char *value, const char *why)
{
    st->rc = mgs_error_set(MGS_EINVAL, "study %s: [%s] %s = %s: %s",
                           st->s->path, section, key, value, why);
    return 0;
}

static int parse_number(const char *v, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(v, &end);
    while (isspace((unsigned char)*end))
        end++;
    return end != v && !*end && !errno && isfinite(*out);
}

/* "8MB", "512KB", "1GB", "4096" -> bytes. */
static int parse_bytes(const char *v, uint64_t *out)
{
    char *end;
    double x = strtod(v, &end);
    while (isspace((unsigned char)*end))
        end++;
    double m = 1;
    if (!strcasecmp(end, "KB"))
        m = 1024;
    else if (!strcasecmp(end, "MB"))
        m = 1024.0 * 1024;
    else if (!strcasecmp(end, "GB"))
        m = 1024.0 * 1024 * 1024;
    else if (*end && strcasecmp(end, "B"))
        return 0;
    if (end == v || x < 0)
        return 0;
    *out = (uint64_t)(x * m);
    return 1;
}

static int on_study(load_state *st, const char *key, const char *v)
{
    study *s = st->s;
    static const struct { const char *key; size_t off; } strs[] = {
        {"title", offsetof(study, title)},
        {"source", offsetof(study, source)},
        {"component", offsetof(study, component)},
        {"metric", offsetof(study, metric)},
        {"normalise", offsetof(study, normalise)},
        {"x", offsetof(study, x_axis)},
        {"group", offsetof(study, group_axis)},
        {"aggregate", offsetof(study, aggregate)},
        {"figure", offsetof(study, figure)},
        {"ylabel", offsetof(study, ylabel)},
        {"groups", offsetof(study, groups)},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        if (!strcmp(key, strs[i].key)) {
            set_str((char **)((char *)s + strs[i].off), v);
            return 1;
        }
    if (!strcmp(key, "description")) {
        add_text(&s->description, v);
        return 1;
    }
    if (!strcmp(key, "baseline")) {
        const char *eq = strchr(v, '=');
        if (!eq || eq == v || !eq[1])
            return bad(st, "study", key, v, "expected AXIS=VALUE");
        free(s->baseline_axis);
        s->baseline_axis = strndup(v, (size_t)(eq - v));
        set_str(&s->baseline_value, eq + 1);
        return 1;
    }
    if (!strcmp(key, "min_footprint")) {
        if (!parse_bytes(v, &s->min_footprint))
            return bad(st, "study", key, v, "expected a size such as 8MB");
        return 1;
    }
    return bad(st, "study", key, v, "unknown key");
}

/* GROUP.X = VALUE | source */
static int on_paper(load_state *st, const char *key, const char *v)
{
    study *s = st->s;
    const char *dot = strrchr(key, '.');
    if (!dot || dot == key || !dot[1])
        return bad(st, "paper", key, v, "the key must be GROUP.X");
    char *num = mgs_xstrdup(v), *bar = strchr(num, '|');
    if (bar)
        *bar = '\0';
    double x;
    int ok = parse_number(num, &x);
    free(num);
    if (!ok)
        return bad(st, "paper", key, v, "expected 'NUMBER | source'");
    const char *src = bar ? strchr(v, '|') + 1 : "";
    while (isspace((unsigned char)*src))
        src++;
    s->refs = mgs_xrealloc(s->refs, (s->nrefs + 1) * sizeof *s->refs);
    s->refs[s->nrefs++] = (study_ref){
        .group = strndup(key, (size_t)(dot - key)),
        .x = mgs_xstrdup(dot + 1), .source = mgs_xstrdup(src), .value = x};
    return 1;
}

static int on_claim(load_state *st, const char *name, const char *key,
                    const char *v)
{
    study *s = st->s;
    study_claim *c = NULL;
    for (size_t i = 0; i < s->nclaims; i++)
        if (!strcmp(s->claims[i].name, name))
            c = &s->claims[i];
    if (!c) {
        s->claims = mgs_xrealloc(s->claims, (s->nclaims + 1) * sizeof *s->claims);
        c = &s->claims[s->nclaims++];
        *c = (study_claim){.name = mgs_xstrdup(name), .share = 1.0};
    }
    char **strs[] = {&c->text, &c->source, &c->group, &c->xs, &c->note};
    static const char *names[] = {"text", "source", "group", "workloads", "note"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(key, names[i])) {
            if (i == 0 || i == 4)
                add_text(strs[i], v);
            else
                set_str(strs[i], v);
            return 1;
        }
    double x;
    if (!parse_number(v, &x))
        return bad(st, "claim", key, v, "expected a number (or unknown key)");
    if (!strcmp(key, "min"))
        c->min = x, c->has_min = true;
    else if (!strcmp(key, "max"))
        c->max = x, c->has_max = true;
    else if (!strcmp(key, "share") && x > 0 && x <= 1)
        c->share = x;
    else
        return bad(st, "claim", key, v, "unknown key (text, source, group, "
                   "workloads, min, max, share 0..1, note)");
    return 1;
}

/* The [figure FIG] study called fig, created on first use. */
static study *figure(study *s, const char *fig)
{
    for (size_t i = 0; i < s->nfigures; i++)
        if (!strcmp(s->figures[i].name + strlen(s->name) + 1, fig))
            return &s->figures[i];
    s->figures = mgs_xrealloc(s->figures, (s->nfigures + 1) * sizeof *s->figures);
    study *f = &s->figures[s->nfigures++];
    memset(f, 0, sizeof *f);
    size_t n = strlen(s->name) + strlen(fig) + 2;
    f->name = mgs_xmalloc(n);
    snprintf(f->name, n, "%s-%s", s->name, fig);
    f->path = mgs_xstrdup(s->path);
    return f;
}

/* Runs a section handler on the [figure FIG] study instead. */
static int on_figure(load_state *st, const char *fig, const char *key,
                     const char *value,
                     int (*fn)(load_state *, const char *, const char *))
{
    load_state sub = {.s = figure(st->s, fig), .rc = MGS_OK};
    int ok = fn(&sub, key, value);
    if (!ok)
        st->rc = sub.rc;
    return ok;
}

static int on_key(void *user, const char *section, const char *key,
                  const char *value)
{
    load_state *st = user;
    if (!strcmp(section, "study"))
        return on_study(st, key, value);
    if (!strcmp(section, "paper"))
        return on_paper(st, key, value);
    if (!strncmp(section, "figure ", 7))
        return on_figure(st, section + 7, key, value, on_study);
    if (!strncmp(section, "paper ", 6))
        return on_figure(st, section + 6, key, value, on_paper);
    if (!strncmp(section, "claim ", 6))
        return on_claim(st, section + 6, key, value);
    return 1; /* sweep sections */
}

/* Fills the defaults (from the [study] section `from` for a figure) and
** checks the keys' values. */
static int finish(study *out, const study *from)
{
    const char *path = out->path;
    if (from) {
        char **mine[] = {&out->component, &out->metric, &out->baseline_axis,
                         &out->baseline_value, &out->normalise, &out->x_axis,
                         &out->group_axis, &out->aggregate, &out->figure,
                         &out->ylabel};
        char *const *theirs[] = {&from->component, &from->metric,
                                 &from->baseline_axis, &from->baseline_value,
                                 &from->normalise, &from->x_axis,
                                 &from->group_axis, &from->aggregate,
                                 &from->figure, &from->ylabel};
        for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
            if (!*mine[i] && *theirs[i])
                *mine[i] = mgs_xstrdup(*theirs[i]);
        if (!out->title)
            out->title = mgs_xstrdup(out->name);
    }
    if (!out->metric || !out->x_axis)
        return mgs_error_set(MGS_EINVAL, "study %s: [study] needs metric and x",
                             path);
    if (!out->component)
        out->component = mgs_xstrdup("run");
    if (!out->normalise)
        out->normalise = mgs_xstrdup(out->baseline_axis ? "speedup" : "none");
    if (!out->aggregate)
        out->aggregate = mgs_xstrdup("geomean");
    if (!out->figure)
        out->figure = mgs_xstrdup("bars");
    if (!out->title)
        out->title = mgs_xstrdup(out->name);
    if (strcmp(out->normalise, "speedup") && strcmp(out->normalise, "ratio") &&
        strcmp(out->normalise, "none"))
        return mgs_error_set(MGS_EINVAL, "study %s: normalise = %s: use "
                             "speedup, ratio or none", path, out->normalise);
    if (strcmp(out->normalise, "none") && !out->baseline_axis)
        return mgs_error_set(MGS_EINVAL, "study %s: normalise = %s needs "
                             "baseline = AXIS=VALUE", path, out->normalise);
    if (strcmp(out->aggregate, "geomean") && strcmp(out->aggregate, "mean") &&
        strcmp(out->aggregate, "none"))
        return mgs_error_set(MGS_EINVAL, "study %s: aggregate = %s: use "
                             "geomean, mean or none", path, out->aggregate);
    if (strcmp(out->figure, "bars") && strcmp(out->figure, "lines"))
        return mgs_error_set(MGS_EINVAL, "study %s: figure = %s: use bars "
                             "or lines", path, out->figure);
    return MGS_OK;
}

int study_load(const char *name, study *out)
{
    memset(out, 0, sizeof *out);
    size_t nl = strlen(name);
    char path[4096];
    if (strchr(name, '/') || (nl > 4 && !strcmp(name + nl - 4, ".ini")))
        snprintf(path, sizeof path, "%s", name);
    else
        snprintf(path, sizeof path, "%s/%s.ini", study_dir(), name);
    out->text = cli_read_file(path);
    if (!out->text)
        return mgs_error_set(MGS_ENOENT, "unknown study '%s' (%s: %s; "
                             "'mgsim study --list' shows the studies)",
                             name, path, strerror(errno));
    out->path = mgs_xstrdup(path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t bl = strlen(base);   /* the name: the file's, without ".ini" */
    out->name = strndup(base, bl > 4 && !strcmp(base + bl - 4, ".ini")
                                  ? bl - 4 : bl);
    load_state st = {.s = out, .rc = MGS_OK};
    int line = ini_parse_string(out->text, on_key, &st);
    int rc = st.rc;
    if (rc == MGS_OK && line)
        rc = mgs_error_set(MGS_EINVAL, "study %s:%d: not a valid line", path,
                           line);
    if (rc == MGS_OK)
        rc = finish(out, NULL);
    for (size_t i = 0; rc == MGS_OK && i < out->nfigures; i++)
        rc = finish(&out->figures[i], out);
    if (rc != MGS_OK)
        study_free(out);
    return rc;
}

void study_free(study *s)
{
    char **strs[] = {&s->name, &s->path, &s->text, &s->title, &s->source,
                     &s->description, &s->component, &s->metric,
                     &s->baseline_axis, &s->baseline_value, &s->normalise,
                     &s->x_axis, &s->group_axis, &s->aggregate, &s->figure,
                     &s->ylabel, &s->groups};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        free(*strs[i]);
    for (size_t i = 0; i < s->nrefs; i++) {
        free(s->refs[i].group);
        free(s->refs[i].x);
        free(s->refs[i].source);
    }
    free(s->refs);
    for (size_t i = 0; i < s->nclaims; i++) {
        study_claim *c = &s->claims[i];
        free(c->name);
        free(c->text);
        free(c->source);
        free(c->group);
        free(c->xs);
        free(c->note);
    }
    free(s->claims);
    for (size_t i = 0; i < s->nfigures; i++)
        study_free(&s->figures[i]);
    free(s->figures);
    memset(s, 0, sizeof *s);
}
