#!/bin/bash
# Timing-mode configuration errors end with one error line and exit 2;
# a simulated deadlock (here: none expected) would be exit 3.
. "$(dirname "$0")/lib_cli.bash"

# (Multi-GPU timing runs are supported now: tests/cli/platform_*.sh.)
expect_exit 2 "$MGSIM" run vecadd --mode timing --size small --quiet --db "$TMP/e.db" \
    --set gpu.num_cus=6
expect_one_error_line
expect_in "$ERR" "gpu.num_cus (6) must be a multiple of gpu.cus_per_sa (4)"

expect_exit 2 "$MGSIM" run vecadd --mode timing --size small --quiet --db "$TMP/e.db" \
    --set l2.interleave=96B
expect_one_error_line
expect_in "$ERR" "L2 interleave (96) must be a power of two"
echo ok
