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

void cli_print_error(const char *msg)
{
    /* One line whatever the input held: control characters (a newline in
    ** a --set value, an escape sequence in a file name) are escaped. */
    fputs("mgsim: error: ", stderr);
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
        if (*p == '\n')
            fputs("\\n", stderr);
        else if (*p == '\r')
            fputs("\\r", stderr);
        else if (*p == '\t')
            fputs("\\t", stderr);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(stderr, "\\x%02x", *p);
        else
            fputc(*p, stderr);
    }
    fputc('\n', stderr);
}

int cli_fail(int code)
{
    cli_print_error(mgs_error_msg());
    return mgs_exit_code(code);
}

int cli_usage_error(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cli_print_error(msg);
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
    if (argc < 2)
        return cli_usage_error("no command given (try 'mgsim --help')");
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
