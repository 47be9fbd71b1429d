#!/bin/bash
# Directory coherence (src/coh/dir/, docs/coherence.md): every registered
# workload verifies at small size under coherence.protocol = dir, hmg and
# rec (remote lines cached in the L2s) on 2 and 4 discrete GPUs, with the
# paper's 8K-entry directory and with a 64-entry one that evicts all the
# time; 4 unified GPUs (pages interleaved) too; the fenced litmus tests are
# clean under each; bad directory settings end with one error line and
# exit 2.
#
# Runs the optimised binary ($MGSIM_BUILD/../mgsim) when it exists (about
# 90 s for the ~400 runs); under the sanitizers only a subset of workloads.
. "$(dirname "$0")/lib_cli.bash"

optimised_mgsim "vecadd mm pr bfs"
L2="--set coherence.remote_cache=l2"

expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" --set coherence.protocol=dir
expect_one_error_line
expect_in "$ERR" "coherence.remote_cache = l2"
expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" --platform shared --set coherence.protocol=rec $L2
expect_one_error_line
expect_in "$ERR" "discrete or unified"
expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" --set coherence.protocol=rec $L2 --set directory.range=96
expect_one_error_line
expect_in "$ERR" "directory.range"
expect_exit 2 "$bin" run vecadd --mode timing --gpus 2 --size small --quiet \
    --db "$TMP/e.db" --set coherence.protocol=dir $L2 --set directory.ways=3
expect_one_error_line
expect_in "$ERR" "directory"

workload_names
failed=""
runs=0
run() { # run WORKLOAD ARGS...
    local w=$1
    shift
    runs=$((runs + 1))
    # shellcheck disable=SC2086
    "$bin" run "$w" --mode timing --size small --quiet $L2 "$@" \
        --db "$TMP/m.db" >"$TMP/o" 2>"$TMP/e" ||
        failed="$failed $w/$*(exit $?: $(head -c 160 "$TMP/e"))"
}
for w in $names; do
    for p in dir hmg rec; do
        run "$w" --set coherence.protocol=$p --gpus 2
        run "$w" --set coherence.protocol=$p --gpus 4
        run "$w" --set coherence.protocol=$p --gpus 4 \
            --set directory.entries=64 --set directory.ways=4
    done
    run "$w" --set coherence.protocol=rec --gpus 4 --platform unified
done
[ -z "$failed" ] || { echo "failing directory runs:$failed" >&2; exit 1; }

for p in dir hmg rec; do
    for plat in discrete unified; do
        expect_exit 0 "$bin" litmus --protocol $p --platform $plat --gpus 2 \
            --placement both --fences on --iterations 1000 $L2
        expect_in "$OUT" "mgsim litmus: ok: no forbidden outcome"
    done
done
echo "ok ($runs runs)"
