/* Placeholder until the owning work lands; replaced, not extended. */
#include "cli/cli.h"
#include "mgsim/errors.h"

int cmd_config(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_usage_error("'config' is not available yet");
}
