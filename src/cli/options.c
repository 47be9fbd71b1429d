/*
** Command-line helpers (see options.h).
*/
#include "cli/options.h"

#include "cli/cli.h"
#include "mgsim/errors.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cli_cfg_help[] =
    "  --preset NAME        start from configs/NAME.ini (default: default)\n"
    "  --config FILE        apply an INI file on top (repeatable, in order)\n"
    "  --set SECTION.KEY=VALUE\n"
    "                       set one key last (repeatable, in order)\n";

bool cli_is_help(const char *arg)
{
    return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

int cli_opt_value(int argc, char **argv, int *i, const char *name,
                  const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n))
        return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        cli_usage_error("option %s needs a value", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

void cli_cfg_add_set(cli_cfg_opts *o, const char *section_key,
                     const char *value, const char *option)
{
    o->sets = mgs_xrealloc(o->sets, (o->nsets + 1) * sizeof *o->sets);
    size_t len = strlen(section_key) + strlen(value) + 2;
    char *a = mgs_xmalloc(len);
    if (section_key[0])
        snprintf(a, len, "%s=%s", section_key, value);
    else
        snprintf(a, len, "%s", value);
    o->sets[o->nsets++] = (cli_cfg_set){a, option};
}

int cli_shorthand_take(cli_cfg_opts *o, const cli_shorthand *table, size_t n,
                       int argc, char **argv, int *i)
{
    int taken = cli_cfg_take(o, argc, argv, i);
    if (taken != 0)
        return taken;
    for (size_t s = 0; s < n; s++) {
        const char *v;
        int r = cli_opt_value(argc, argv, i, table[s].option, &v);
        if (r > 0)
            cli_cfg_add_set(o, table[s].key, v, table[s].option);
        if (r != 0)
            return r;
    }
    return 0;
}

int cli_cfg_take(cli_cfg_opts *o, int argc, char **argv, int *i)
{
    const char *v;
    int r;
    if ((r = cli_opt_value(argc, argv, i, "--preset", &v)) != 0) {
        if (r > 0)
            o->preset = v;
        return r;
    }
    if ((r = cli_opt_value(argc, argv, i, "--config", &v)) != 0) {
        if (r > 0) {
            o->files = mgs_xrealloc(o->files, (o->nfiles + 1) * sizeof *o->files);
            o->files[o->nfiles++] = v;
        }
        return r;
    }
    if ((r = cli_opt_value(argc, argv, i, "--set", &v)) != 0) {
        if (r > 0)
            cli_cfg_add_set(o, "", v, "--set");
        return r;
    }
    return 0;
}

int cli_cfg_build(const cli_cfg_opts *o, mgs_config *cfg)
{
    mgs_config_defaults(cfg);
    int rc = MGS_OK;
    if (o->preset) {
        rc = mgs_config_load_preset(cfg, o->preset);
    } else {
        /* The implicit "default" preset is optional: an installed binary
        ** without a configs/ directory still runs on built-in defaults. */
        char path[4096];
        snprintf(path, sizeof path, "%s/default.ini", mgs_config_preset_dir());
        if (access(path, F_OK) == 0)
            rc = mgs_config_load_preset(cfg, "default");
    }
    for (size_t i = 0; rc == MGS_OK && i < o->nfiles; i++)
        rc = mgs_config_load_file(cfg, o->files[i], NULL);
    for (size_t i = 0; rc == MGS_OK && i < o->nsets; i++)
        rc = mgs_config_set(cfg, o->sets[i].assignment, o->sets[i].option);
    return rc;
}

void cli_cfg_free(cli_cfg_opts *o)
{
    for (size_t i = 0; i < o->nsets; i++)
        free(o->sets[i].assignment);
    free(o->sets);
    free(o->files);
    memset(o, 0, sizeof *o);
}

char *cli_join_command_line(int argc, char **argv)
{
    size_t len = 8;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) * 2 + 3;
    char *s = mgs_xmalloc(len), *p = s;
    memcpy(p, "mgsim", 5);
    p += 5;
    for (int i = 0; i < argc; i++) {
        bool quote = argv[i][0] == '\0' || strpbrk(argv[i], " \t\"'$\\;&|<>*?");
        *p++ = ' ';
        if (quote)
            *p++ = '\'';
        for (const char *c = argv[i]; *c; c++) {
            if (quote && *c == '\'') {
                memcpy(p, "'\\''", 4);
                p += 4;
            } else {
                *p++ = *c;
            }
        }
        if (quote)
            *p++ = '\'';
    }
    *p = '\0';
    return s;
}

char *cli_read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0, n;
    char *t = mgs_xmalloc(cap);
    while ((n = fread(t + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2)
            t = mgs_xrealloc(t, cap *= 2);
    }
    t[len] = '\0';
    int e = ferror(f) ? EIO : 0;
    fclose(f);
    if (e) {
        free(t);
        errno = e;
        return NULL;
    }
    return t;
}
