/*
** Sweep description: INI text -> axes -> points (see sweep.h for the
** format). Every point is checked here, before anything runs, by building
** its effective configuration and resolving its workload parameters the
** way `mgsim run` will: a typo in a sweep fails at once with exit code 2.
*/
#include "cli/sweep.h"

#include "cli/options.h"
#include "cli/run.h"
#include "config/config.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <ctype.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_MAX_POINTS 100000

/* The keys of [sweep] and [variant ...]: key (singular and plural) ->
** `mgsim run` option (NULL: the workload itself). */
static const struct {
    const char *one, *many, *opt;
} keys[] = {
    {"workload", "workloads", NULL},
    {"preset", "presets", "--preset"},
    {"config", "configs", "--config"},
    {"gpus", "gpus", "--gpus"},
    {"platform", "platforms", "--platform"},
    {"mode", "modes", "--mode"},
    {"size", "sizes", "--size"},
    {"seed", "seeds", "--seed"},
};

typedef struct deferred {
    char *key, *value;
} deferred;

typedef struct parse_state {
    sweep_spec *s;
    const char *origin;
    const char *size;         /* active [size NAME], may be NULL */
    deferred *later;          /* keys of the active [size] section */
    size_t nlater;
    long variant_axis;        /* index of the "variant" axis, -1: none */
    int rc;
    char sizes_seen[256];     /* names of [size] sections, for messages */
} parse_state;

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Maps a key to its axis name and one option for value v. 0, or -1 with
** the error set. */
static int key_arg(parse_state *st, const char *key, const char *v,
                   char **axis, sweep_arg *arg)
{
    memset(arg, 0, sizeof *arg);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(key, keys[i].one) || !strcmp(key, keys[i].many)) {
            *axis = mgs_xstrdup(keys[i].one);
            arg->opt = keys[i].opt ? mgs_xstrdup(keys[i].opt) : NULL;
            arg->val = mgs_xstrdup(v);
            return 0;
        }
    size_t len = strlen(key) + strlen(v) + 2;
    if (!strncmp(key, "set.", 4) && strchr(key + 4, '.')) {
        *axis = mgs_xstrdup(key);
        arg->opt = mgs_xstrdup("--set");
        arg->val = mgs_xmalloc(len);
        snprintf(arg->val, len, "%s=%s", key + 4, v);
        return 0;
    }
    if (!strncmp(key, "param.", 6) && key[6]) {
        const char *name = key + 6, *dot = strchr(name, '.');
        *axis = mgs_xstrdup(key);
        arg->opt = mgs_xstrdup("--param");
        if (dot) {
            arg->only_workload = mgs_xmalloc((size_t)(dot - name) + 1);
            memcpy(arg->only_workload, name, (size_t)(dot - name));
            arg->only_workload[dot - name] = '\0';
            name = dot + 1;
        }
        arg->val = mgs_xmalloc(len);
        snprintf(arg->val, len, "%s=%s", name, v);
        return 0;
    }
    st->rc = mgs_error_set(MGS_EINVAL,
                           "%s: unknown sweep key '%s' (use workloads, "
                           "presets, configs, gpus, platforms, modes, sizes, "
                           "seeds, set.SECTION.KEY, param.[WORKLOAD.]NAME)",
                           st->origin, key);
    return -1;
}

static void arg_free(sweep_arg *a)
{
    free(a->opt);
    free(a->val);
    free(a->only_workload);
}

static void choice_free(sweep_choice *c)
{
    for (size_t i = 0; i < c->nargs; i++)
        arg_free(&c->args[i]);
    free(c->args);
    free(c->label);
}

static void axis_clear(sweep_axis *a)
{
    for (size_t i = 0; i < a->n; i++)
        choice_free(&a->choices[i]);
    free(a->choices);
    a->choices = NULL;
    a->n = 0;
}

static sweep_axis *axis_get(sweep_spec *s, const char *name)
{
    for (size_t i = 0; i < s->naxes; i++)
        if (!strcmp(s->axes[i].name, name))
            return &s->axes[i];
    s->axes = mgs_xrealloc(s->axes, (s->naxes + 1) * sizeof *s->axes);
    sweep_axis *a = &s->axes[s->naxes++];
    *a = (sweep_axis){.name = mgs_xstrdup(name)};
    return a;
}

static void choice_add_arg(sweep_choice *c, sweep_arg *arg)
{
    c->args = mgs_xrealloc(c->args, (c->nargs + 1) * sizeof *c->args);
    c->args[c->nargs++] = *arg;
}

/* key = v1, v2, ...: (re)defines the axis of that key. */
static int set_axis(parse_state *st, const char *key, const char *value)
{
    char *copy = mgs_xstrdup(value), *save = NULL;
    sweep_axis *axis = NULL;
    int rc = 1;
    for (char *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *v = trim(tok);
        sweep_arg arg;
        char *name = NULL;
        if (key_arg(st, key, v, &name, &arg) < 0) {
            rc = 0;
            break;
        }
        if (!axis) {
            axis = axis_get(st->s, name);
            axis_clear(axis);
        }
        free(name);
        axis->choices = mgs_xrealloc(axis->choices,
                                     (axis->n + 1) * sizeof *axis->choices);
        sweep_choice *c = &axis->choices[axis->n++];
        *c = (sweep_choice){.label = mgs_xstrdup(v)};
        choice_add_arg(c, &arg);
    }
    if (rc && !axis) {
        st->rc = mgs_error_set(MGS_EINVAL, "%s: sweep key '%s' has no value",
                               st->origin, key);
        rc = 0;
    }
    free(copy);
    return rc;
}

static int add_to_variant(parse_state *st, const char *variant,
                          const char *key, const char *value)
{
    if (strchr(value, ',')) {
        st->rc = mgs_error_set(MGS_EINVAL, "%s: [variant %s] %s = %s: a "
                               "variant takes one value per key",
                               st->origin, variant, key, value);
        return 0;
    }
    sweep_arg arg;
    char *name = NULL;
    char *v = mgs_xstrdup(value);
    int ok = key_arg(st, key, trim(v), &name, &arg) == 0;
    free(v);
    free(name);
    if (!ok)
        return 0;
    if (st->variant_axis < 0) {
        axis_get(st->s, "variant");
        st->variant_axis = (long)st->s->naxes - 1;
    }
    sweep_axis *a = &st->s->axes[st->variant_axis];
    sweep_choice *c = NULL;
    for (size_t i = 0; i < a->n; i++)
        if (!strcmp(a->choices[i].label, variant))
            c = &a->choices[i];
    if (!c) {
        a->choices = mgs_xrealloc(a->choices, (a->n + 1) * sizeof *a->choices);
        c = &a->choices[a->n++];
        *c = (sweep_choice){.label = mgs_xstrdup(variant)};
    }
    choice_add_arg(c, &arg);
    return 1;
}

/* Do a and b set the same thing (the same option; for --set and --param
** the same name, for --param the same workload)? */
static bool same_target(const sweep_arg *a, const sweep_arg *b)
{
    if (!a->opt || !b->opt)
        return !a->opt && !b->opt;
    if (strcmp(a->opt, b->opt))
        return false;
    if (strcmp(a->opt, "--set") && strcmp(a->opt, "--param"))
        return true;
    if ((a->only_workload == NULL) != (b->only_workload == NULL) ||
        (a->only_workload && strcmp(a->only_workload, b->only_workload)))
        return false;
    size_t na = strcspn(a->val, "="), nb = strcspn(b->val, "=");
    return na == nb && !strncmp(a->val, b->val, na);
}

/* variant.NAME.KEY = V in a [size] section: replaces (or adds) KEY of the
** existing [variant NAME] for that size. */
static int override_variant(parse_state *st, const char *key,
                            const char *value)
{
    const char *name = key + 8, *dot = NULL;
    sweep_axis *a = st->variant_axis >= 0 ? &st->s->axes[st->variant_axis]
                                          : NULL;
    sweep_choice *c = NULL;
    /* The longest variant name followed by '.' (names may hold dots). */
    for (size_t i = 0; a && i < a->n; i++) {
        size_t n = strlen(a->choices[i].label);
        if (!strncmp(a->choices[i].label, name, n) && name[n] == '.' &&
            (!dot || name + n > dot)) {
            c = &a->choices[i];
            dot = name + n;
        }
    }
    if (!c) {
        st->rc = mgs_error_set(MGS_EINVAL, "%s: [size %s] %s: expected "
                               "variant.NAME.KEY with NAME a [variant]",
                               st->origin, st->size, key);
        return 0;
    }
    sweep_arg arg;
    char *axis = NULL, *v = mgs_xstrdup(value);
    int ok = key_arg(st, dot + 1, trim(v), &axis, &arg) == 0;
    free(v);
    free(axis);
    if (!ok)
        return 0;
    size_t kept = 0;
    for (size_t i = 0; i < c->nargs; i++) {
        if (same_target(&c->args[i], &arg))
            arg_free(&c->args[i]);
        else
            c->args[kept++] = c->args[i];
    }
    c->nargs = kept;
    choice_add_arg(c, &arg);
    return 1;
}

static int on_key(void *user, const char *section, const char *key,
                  const char *value)
{
    parse_state *st = user;
    if (!strcmp(section, "sweep"))
        return set_axis(st, key, value);
    if (!strncmp(section, "variant ", 8))
        return add_to_variant(st, section + 8, key, value);
    if (!strncmp(section, "size ", 5)) {
        if (!strstr(st->sizes_seen, section + 5)) {
            size_t n = strlen(st->sizes_seen);
            snprintf(st->sizes_seen + n, sizeof st->sizes_seen - n, "%s%s",
                     n ? ", " : "", section + 5);
        }
        if (st->size && !strcmp(section + 5, st->size)) {
            st->later = mgs_xrealloc(st->later,
                                     (st->nlater + 1) * sizeof *st->later);
            st->later[st->nlater++] = (deferred){mgs_xstrdup(key),
                                                 mgs_xstrdup(value)};
        }
        return 1;
    }
    return 1; /* [sweep-run] (first pass), [study], [paper] ...: not ours */
}

/* Only [sweep-run] size = NAME, for the first pass. */
static int on_run_size(void *user, const char *section, const char *key,
                       const char *value)
{
    char **size = user;
    if (!strcmp(section, "sweep-run") && !strcmp(key, "size")) {
        free(*size);
        *size = mgs_xstrdup(value);
    }
    return 1;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    h ^= 0xff; /* separator, so "ab"+"c" != "a"+"bc" */
    return h * 0x100000001b3ULL;
}

/* The configuration and workload options of point p, as `mgsim run` would
** read them; checks them and computes the point's hash. */
static int point_check(const sweep_spec *s, sweep_point *p, const char *origin)
{
    cli_cfg_opts co = {0};
    cli_workload_opts wo = {.name = p->workload};
    const char **params = NULL;
    size_t nparams = 0;
    for (int i = 2; i + 1 < p->argc; i += 2) {
        const char *opt = p->argv[i], *v = p->argv[i + 1];
        static const struct { const char *opt, *key; } sh[] = {
            {"--gpus", "platform.gpus"}, {"--platform", "platform.type"},
            {"--mode", "sim.mode"}, {"--seed", "sim.seed"}};
        if (!strcmp(opt, "--preset"))
            co.preset = v;
        else if (!strcmp(opt, "--config")) {
            co.files = mgs_xrealloc(co.files, (co.nfiles + 1) * sizeof *co.files);
            co.files[co.nfiles++] = v;
        } else if (!strcmp(opt, "--set"))
            cli_cfg_add_set(&co, "", v, "--set");
        else if (!strcmp(opt, "--size"))
            wo.size = v;
        else if (!strcmp(opt, "--param")) {
            params = mgs_xrealloc(params, (nparams + 1) * sizeof *params);
            params[nparams++] = v;
        }
        for (size_t k = 0; k < sizeof sh / sizeof sh[0]; k++)
            if (!strcmp(opt, sh[k].opt))
                cli_cfg_add_set(&co, sh[k].key, v, sh[k].opt);
    }
    wo.params = params;
    wo.nparams = nparams;
    mgs_config *cfg = MGS_NEW(mgs_config);
    int rc = cli_cfg_build(&co, cfg);
    if (rc == MGS_OK)
        rc = cli_workload_check(&wo, NULL, &p->footprint);
    if (rc == MGS_OK) {
        char *text = mgs_config_ini_string(cfg, false);
        uint64_t h = 0xcbf29ce484222325ULL;
        h = fnv1a(h, MGS_VERSION);
        h = fnv1a(h, p->workload);
        h = fnv1a(h, wo.size ? wo.size : "default");
        for (size_t i = 0; i < nparams; i++)
            h = fnv1a(h, params[i]);
        h = fnv1a(h, text);
        free(text);
        snprintf(p->hash, sizeof p->hash, "%016llx", (unsigned long long)h);
    } else {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", mgs_error_msg());
        rc = mgs_error_set(rc, "%s: point %zu (%s): %s", origin, p->index,
                           *p->label ? p->label : p->workload, msg);
    }
    (void)s;
    free(cfg);
    free(params);
    cli_cfg_free(&co);
    return rc;
}

static void push_argv(sweep_point *p, const char *a)
{
    p->argv = mgs_xrealloc(p->argv, (size_t)(p->argc + 2) * sizeof *p->argv);
    p->argv[p->argc++] = mgs_xstrdup(a);
    p->argv[p->argc] = NULL;
}

static int expand(sweep_spec *s, const char *origin)
{
    size_t total = 1;
    for (size_t a = 0; a < s->naxes; a++) {
        total *= s->axes[a].n;
        if (total > SWEEP_MAX_POINTS)
            return mgs_error_set(MGS_EINVAL, "%s: more than %d points",
                                 origin, SWEEP_MAX_POINTS);
    }
    if (!total)
        return mgs_error_set(MGS_EINVAL, "%s: the sweep has no points", origin);
    s->points = MGS_NEW_ARRAY(sweep_point, total);
    s->npoints = total;
    for (size_t i = 0; i < total; i++) {
        sweep_point *p = &s->points[i];
        p->index = i;
        p->choice = MGS_NEW_ARRAY(size_t, s->naxes ? s->naxes : 1);
        size_t rest = i;
        for (size_t a = s->naxes; a-- > 0;) {
            p->choice[a] = rest % s->axes[a].n;
            rest /= s->axes[a].n;
        }
        char label[1024] = "";
        const char *wl = NULL;
        for (size_t a = 0; a < s->naxes; a++) {
            const sweep_choice *c = &s->axes[a].choices[p->choice[a]];
            for (size_t k = 0; k < c->nargs; k++)
                if (!c->args[k].opt) {
                    if (wl)
                        return mgs_error_set(MGS_EINVAL, "%s: point %zu has "
                                             "two workloads (%s and %s)",
                                             origin, i, wl, c->args[k].val);
                    wl = c->args[k].val;
                }
            size_t n = strlen(label);
            if (s->axes[a].n > 1)
                snprintf(label + n, sizeof label - n, "%s%s=%s", n ? " " : "",
                         s->axes[a].name, c->label);
        }
        p->label = mgs_xstrdup(label);
        if (!wl)
            return mgs_error_set(MGS_EINVAL, "%s: no workload (add "
                                 "'workloads = NAME, ...' to [sweep])", origin);
        p->workload = mgs_xstrdup(wl);
        push_argv(p, "run");
        push_argv(p, p->workload);
        for (size_t a = 0; a < s->naxes; a++) {
            const sweep_choice *c = &s->axes[a].choices[p->choice[a]];
            for (size_t k = 0; k < c->nargs; k++) {
                const sweep_arg *g = &c->args[k];
                if (!g->opt || (g->only_workload &&
                                strcmp(g->only_workload, p->workload)))
                    continue;
                push_argv(p, g->opt);
                push_argv(p, g->val);
            }
        }
        int rc = point_check(s, p, origin);
        if (rc != MGS_OK)
            return rc;
    }
    return MGS_OK;
}

int sweep_spec_parse(const char *text, const char *origin, const char *size,
                     sweep_spec *out)
{
    memset(out, 0, sizeof *out);
    char *run_size = NULL;
    bool given = size != NULL;
    if (!size) {
        ini_parse_string(text, on_run_size, &run_size);
        size = run_size;
    }
    parse_state st = {.s = out, .origin = origin, .size = size,
                      .variant_axis = -1, .rc = MGS_OK};
    int line = ini_parse_string(text, on_key, &st);
    int rc = st.rc;
    if (rc == MGS_OK && line != 0)
        rc = mgs_error_set(MGS_EINVAL, "%s:%d: not a valid sweep line",
                           origin, line);
    for (size_t i = 0; i < st.nlater; i++) {
        const char *k = st.later[i].key, *v = st.later[i].value;
        if (rc == MGS_OK && !(strncmp(k, "variant.", 8)
                                  ? set_axis(&st, k, v)
                                  : override_variant(&st, k, v)))
            rc = st.rc;
        free(st.later[i].key);
        free(st.later[i].value);
    }
    free(st.later);
    if (rc == MGS_OK && size && !strstr(st.sizes_seen, size) &&
        strcmp(size, "default"))
        rc = mgs_error_set(MGS_EINVAL, "%s: no [size %s] section (sizes: %s)",
                           origin, size, *st.sizes_seen ? st.sizes_seen : "none");
    if (rc == MGS_OK)
        rc = expand(out, origin);
    if (rc == MGS_OK) {
        /* Keep the text, with the size that was applied. */
        size_t len = strlen(text) + 64 + (size ? strlen(size) : 0);
        out->text = mgs_xmalloc(len);
        snprintf(out->text, len, "%s%s%s%s", text,
                 *text && text[strlen(text) - 1] != '\n' ? "\n" : "",
                 given ? "\n[sweep-run]\nsize = " : "", given ? size : "");
    }
    free(run_size);
    if (rc != MGS_OK)
        sweep_spec_free(out);
    return rc;
}

void sweep_spec_free(sweep_spec *s)
{
    for (size_t a = 0; a < s->naxes; a++) {
        axis_clear(&s->axes[a]);
        free(s->axes[a].name);
    }
    free(s->axes);
    for (size_t i = 0; i < s->npoints; i++) {
        sweep_point *p = &s->points[i];
        free(p->label);
        free(p->workload);
        free(p->choice);
        for (int k = 0; k < p->argc; k++)
            free(p->argv[k]);
        free(p->argv);
    }
    free(s->points);
    free(s->text);
    memset(s, 0, sizeof *s);
}

const char *sweep_point_axis(const sweep_spec *s, const sweep_point *p,
                             const char *name)
{
    for (size_t a = 0; a < s->naxes; a++)
        if (!strcmp(s->axes[a].name, name))
            return s->axes[a].choices[p->choice[a]].label;
    return NULL;
}
