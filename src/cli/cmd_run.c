/* Placeholder until the owning work lands; replaced, not extended. */
#include "cli/cli.h"
#include "mgsim/errors.h"

int cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_usage_error("'run' is not available yet");
}
