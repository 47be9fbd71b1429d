#!/bin/bash
# `mgsim run` of the emulator's workloads (vecadd, mm, mt, fpdiv) in emu
# mode at the small size: verified runs exit 0, multi-GPU platforms work,
# a bad parameter is one error line with exit code 2, and a missing kernel
# directory is an input error, not a crash.
. "$(dirname "$0")/lib_cli.bash"

for w in vecadd mm mt fpdiv; do
    expect_exit 0 "$MGSIM" run "$w" --mode emu --size small --db "$TMP/$w.db"
    expect_in "$OUT" "verified       yes"
done
expect_exit 0 "$MGSIM" run mm --mode emu --size small --gpus 2 \
    --platform unified --db "$TMP/u.db"
expect_exit 0 "$MGSIM" run mt --mode emu --size small --gpus 3 \
    --platform discrete --param rows=33 --param cols=70 --db "$TMP/d.db"

expect_exit 2 "$MGSIM" run mm --size small --param n=100 --db "$TMP/e.db"
expect_one_error_line
expect_in "$ERR" "mm: n must be a multiple of 16"

MGSIM_KERNEL_DIR=$TMP/nowhere expect_exit 2 "$MGSIM" run vecadd \
    --size small --db "$TMP/f.db"
expect_one_error_line
exit 0
