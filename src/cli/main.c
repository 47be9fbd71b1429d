/*
** mgsim entry point: global options and subcommand dispatch.
*/
#include "cli/cli.h"
#include "mgsim/errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct command {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
};

static const struct command commands[] = {
#define X(name, fn, summary) {#name, fn, summary},
#include "cli/commands.def"
#undef X
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

int cli_fail(int code)
{
    fprintf(stderr, "mgsim: error: %s\n", mgs_error_msg());
    return mgs_exit_code(code);
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("mgsim: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return MGS_EXIT_USAGE;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: mgsim [--help] [--version] <command> [options]\n\n"
               "A multi-GPU system simulator for GCN3 (gfx803) kernels.\n\n"
               "commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'mgsim <command> --help' describes a command's options.\n"
               "Exit codes: 0 ok, 1 verification failed, 2 usage/config/input "
               "error,\n3 simulation error, 4 internal error (docs/cli.md).\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return MGS_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return MGS_EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("mgsim %s (%s)\n", MGS_VERSION, MGS_GIT_REV);
        return MGS_EXIT_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    return cli_usage_error("unknown command '%s' (try 'mgsim --help')", cmd);
}
