#!/bin/bash
# HALCONE (src/coh/halcone/, docs/coherence.md): every registered workload
# verifies at small size under coherence.protocol = halcone on the shared
# platform (write-through L2s) with 1, 2 and 4 GPUs, launches overlapping
# (platform.concurrent_launches=true); halcone refuses other platforms and
# write-back L2s with one error line and exit 2.
#
# Runs the optimised binary ($MGSIM_BUILD/../mgsim) when it exists (about
# 30 s for the 99 runs, then a 50 s regression run of bfs on 16 GPUs);
# under the sanitizers only a subset of workloads.
. "$(dirname "$0")/lib_cli.bash"

optimised_mgsim "vecadd mm xtreme3 bfs"
H="--set coherence.protocol=halcone --set l2.write_policy=writethrough"

expect_exit 2 "$bin" run vecadd --mode timing --size small --quiet \
    --db "$TMP/e.db" --set coherence.protocol=halcone
expect_one_error_line
expect_in "$ERR" "platform.type = shared"
expect_exit 2 "$bin" run vecadd --mode timing --size small --quiet \
    --db "$TMP/e.db" --platform shared --set coherence.protocol=halcone
expect_one_error_line
expect_in "$ERR" "l2.write_policy = writethrough"
expect_exit 2 "$bin" run vecadd --mode timing --size small --quiet \
    --db "$TMP/e.db" --platform shared $H --set halcone.tsu_entries=12
expect_one_error_line

workload_names
failed=""
runs=0
for w in $names; do
    for n in 1 2 4; do
        runs=$((runs + 1))
        # shellcheck disable=SC2086
        "$bin" run "$w" --mode timing --size small --quiet --platform shared \
            --gpus "$n" --set platform.concurrent_launches=true $H \
            --db "$TMP/m.db" >"$TMP/o" 2>"$TMP/e" ||
            failed="$failed $w/$n(exit $?: $(head -c 160 "$TMP/e"))"
    done
done
[ -z "$failed" ] || { echo "failing halcone runs:$failed" >&2; exit 1; }

# Regression: bfs (scale 17) on 16 GPUs of the SM-WT-C-HALCONE preset
# queues more answers behind a TSU's top port than it has records; the TSU
# once freed a record when its answer was queued, overflowed its answer
# queue and stopped ("destination port is not attached", then a double
# free). The smallest input that showed it; about 50 s, optimised only.
if [ -z "$subset" ]; then
    expect_exit 0 "$bin" run bfs --mode timing --preset halcone/sm-wt-c-halcone \
        --gpus 16 --size small --param scale=17 --param edgefactor=16 \
        --quiet --db "$TMP/b.db"
    runs=$((runs + 1))
fi
echo "ok ($runs runs)"
