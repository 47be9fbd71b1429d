/*
** Command-line helpers shared by the subcommands: matching "--opt VALUE"
** and "--opt=VALUE", and the configuration options every command that
** builds a configuration accepts (--preset, --config, --set and per-command
** shorthands such as --gpus, which are --set under another name).
**
** Layering is fixed regardless of the order on the command line:
** defaults <- preset <- --config files (in order) <- --set and shorthands
** (in order). Option strings point into argv except shorthand assignments,
** which cli_cfg_opts owns.
*/
#ifndef MGS_CLI_OPTIONS_H
#define MGS_CLI_OPTIONS_H

#include "config/config.h"

#include <stdbool.h>
#include <stddef.h>

/* If argv[*i] is `name` or `name=...`, stores the value (next argument or
** the text after '='), advances *i past it and returns 1; returns 0 if
** argv[*i] is another option; returns -1 (after printing the error) if the
** value is missing. */
int cli_opt_value(int argc, char **argv, int *i, const char *name,
                  const char **value);
/* True if argv[i] is exactly one of the help flags. */
bool cli_is_help(const char *arg);

typedef struct cli_cfg_set {
    char *assignment;     /* "section.key=value" (owned) */
    const char *option;   /* "--set", "--gpus" ... (static or argv) */
} cli_cfg_set;

typedef struct cli_cfg_opts {
    const char *preset;    /* NULL: "default" */
    const char **files;    /* --config, in order */
    size_t nfiles;
    cli_cfg_set *sets;     /* --set and shorthands, in order */
    size_t nsets;
} cli_cfg_opts;

/* Consumes --preset/--config/--set at argv[*i]: 1 consumed, 0 not ours,
** -1 usage error already printed. */
int cli_cfg_take(cli_cfg_opts *o, int argc, char **argv, int *i);
/* Adds "section.key=value" as if given by option (e.g. "--gpus"). */
void cli_cfg_add_set(cli_cfg_opts *o, const char *section_key,
                     const char *value, const char *option);
/* An option that is `--set key=VALUE` under another name (--gpus ...). */
typedef struct cli_shorthand {
    const char *option, *key;
} cli_shorthand;
/* Consumes --preset/--config/--set (cli_cfg_take) or one of the n
** shorthands at argv[*i] as a --set: 1 consumed, 0 not ours, -1 usage
** error already printed. */
int cli_shorthand_take(cli_cfg_opts *o, const cli_shorthand *table, size_t n,
                       int argc, char **argv, int *i);
/* Builds the effective configuration. MGS_OK or an MGS_E* code with the
** message recorded. */
int cli_cfg_build(const cli_cfg_opts *o, mgs_config *cfg);
void cli_cfg_free(cli_cfg_opts *o);

/* "mgsim ARGV..." with shell quoting where needed (for the results
** database); the caller frees it. */
char *cli_join_command_line(int argc, char **argv);

/* The whole file as a NUL-terminated string (caller frees), or NULL with
** errno set. */
char *cli_read_file(const char *path);

/* Help text for the three configuration options (for --help screens). */
extern const char cli_cfg_help[];

#endif
