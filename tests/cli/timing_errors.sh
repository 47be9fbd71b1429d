#!/bin/bash
# Timing-mode configuration errors end with one error line and exit 2;
# a simulated deadlock (here: none expected) would be exit 3.
. "$(dirname "$0")/lib_cli.bash"

expect_exit 2 "$MGSIM" run vecadd --mode timing --size small --gpus 2 --quiet --db "$TMP/e.db"
expect_one_error_line
expect_in "$ERR" "timing mode models one GPU so far (2 requested)"

expect_exit 2 "$MGSIM" run vecadd --mode timing --size small --quiet --db "$TMP/e.db" \
    --set gpu.num_cus=6
expect_one_error_line
expect_in "$ERR" "gpu.num_cus (6) must be a multiple of gpu.cus_per_sa (4)"

expect_exit 2 "$MGSIM" run vecadd --mode timing --size small --quiet --db "$TMP/e.db" \
    --set l2.interleave=96B
expect_one_error_line
expect_in "$ERR" "L2 interleave (96) must be a power of two"
echo ok
