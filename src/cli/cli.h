/*
** The mgsim command line. Each subcommand is one function in its own file
** (src/cli/cmd_<name>.c), listed in commands.def. A subcommand receives its
** own arguments (argv[0] is the subcommand name) and returns the process exit
** code (see include/mgsim/errors.h and docs/cli.md).
*/
#ifndef MGS_CLI_H
#define MGS_CLI_H

#define X(name, fn, summary) int fn(int argc, char **argv);
#include "cli/commands.def"
#undef X

/* Prints "mgsim: error: <msg>" as one line on stderr, control characters
** of msg escaped (\n, \r, \t, \xNN). */
void cli_print_error(const char *msg);
/* Prints "mgsim: error: <msg>" on stderr and returns mgs_exit_code(code). */
int cli_fail(int code);
/* Prints "mgsim: error: <formatted>" on stderr and returns exit code 2. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
