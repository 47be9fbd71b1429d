/*
** `mgsim config show`: prints the effective configuration as INI, each
** value followed by "; <origin>" (the file and line, the option, or the
** default with its source). The output is itself a valid --config file.
** `--markdown` prints the key reference table of docs/configuration.md
** instead, generated from the same keys.def table.
*/
#include "cli/cli.h"
#include "cli/options.h"
#include "config/config.h"
#include "mgsim/errors.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mgsim config show [options]\n\n"
        "Prints the effective configuration as INI; each value is followed by\n"
        "a comment saying where it came from. The output is a valid --config file.\n\n"
        "options:\n%s"
        "  --no-origins         omit the origin comments\n"
        "  --markdown           print the reference table of every key instead\n"
        "  -h, --help           this text\n",
        cli_cfg_help);
}

int cmd_config(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return MGS_EXIT_USAGE;
    }
    if (cli_is_help(argv[1])) {
        usage(stdout);
        return MGS_EXIT_OK;
    }
    if (strcmp(argv[1], "show"))
        return cli_usage_error("unknown config action '%s' (use 'mgsim config show')",
                               argv[1]);
    cli_cfg_opts opts = {0};
    bool origins = true, markdown = false;
    int exit_code = MGS_EXIT_OK;
    for (int i = 2; i < argc; i++) {
        int r = cli_cfg_take(&opts, argc, argv, &i);
        if (r < 0) {
            exit_code = MGS_EXIT_USAGE;
            goto out;
        }
        if (r > 0)
            continue;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            goto out;
        } else if (!strcmp(argv[i], "--no-origins")) {
            origins = false;
        } else if (!strcmp(argv[i], "--markdown")) {
            markdown = true;
        } else {
            exit_code = cli_usage_error("config show: unknown option '%s' "
                                        "(try 'mgsim config --help')", argv[i]);
            goto out;
        }
    }
    if (markdown) {
        mgs_config_write_markdown(stdout);
        goto out;
    }
    mgs_config cfg;
    int rc = cli_cfg_build(&opts, &cfg);
    if (rc != MGS_OK) {
        exit_code = cli_fail(rc);
        goto out;
    }
    mgs_config_write_ini(&cfg, stdout, origins);
out:
    cli_cfg_free(&opts);
    return exit_code;
}
