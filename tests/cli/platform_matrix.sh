#!/bin/bash
# Verification matrix (issue 11): every registered workload verifies
# against its CPU reference at small size, in emu and in timing mode, on
# every platform type (discrete, unified, monolithic, shared) with 1, 2 and
# 4 R9 Nano GPUs, with launches on different GPUs overlapping
# (platform.concurrent_launches=true).
#
# MGSIM_MATRIX=full (`make test-matrix`) runs every combination (24 runs
# per workload) and the in-place platforms (unified, shared) with 2 and 4
# GPUs again with platform.placement=contiguous. The default (the test suite) covers the same cases without
# the runs that are identical by construction: with one GPU every platform
# type builds the same lone GPU and the host code is the same, so 1 GPU
# runs once per mode; in emu mode the platform type only selects the host
# code (one launch per GPU on discrete, one launch over all GPUs on the
# others: wl_platform_gpu_all), so emu runs discrete and unified with 2 and
# 4 GPUs. That is 9 timing + 5 emu runs per workload.
#
# Dirty bytes (issue 11 point 5): on `shared` every GPU's write-back L2 may
# hold a line of any stack, and mt (output tiles of different GPUs share
# lines), lu (update tiles start at column k + 1) and bfs (level entries of
# one line set by different GPUs) write different bytes of one line from
# different GPUs. They verify because write-back caches write back only
# their dirty bytes (docs/memory.md); with whole-line write-backs they
# failed here.
#
# Runs the optimised binary ($MGSIM_BUILD/../mgsim) when it exists (the
# default matrix takes about 2 minutes there); under the sanitizers only a
# subset of workloads runs (tests/unit/platform/test_multi_*.c cover the
# platforms with small GPUs).
. "$(dirname "$0")/lib_cli.bash"

optimised_mgsim "vecadd mm pr gd lu fir"
full=0
[ "${MGSIM_MATRIX:-}" = full ] && full=1
"$bin" list workloads >"$OUT" 2>"$ERR" || fail "mgsim list workloads"
names=$(awk '/^  [a-z][a-z0-9_]* /{print $1}' "$OUT" | grep -v '^name$')
[ -n "$subset" ] && [ "$full" -eq 0 ] && names=$subset
[ -n "$names" ] || fail "no workloads listed"

failed=""
runs=0
attempt() {   # attempt WANT_EXIT WORKLOAD MODE PLATFORM GPUS [--set k=v]...
    local want=$1 w=$2 mode=$3 p=$4 n=$5
    shift 5
    runs=$((runs + 1))
    "$bin" run "$w" --mode "$mode" --size small --quiet --platform "$p" \
        --gpus "$n" --set platform.concurrent_launches=true "$@" \
        --db "$TMP/m.db" >"$TMP/o" 2>"$TMP/e"
    local rc=$?
    [ "$rc" -eq "$want" ] ||
        failed="$failed $mode/$p/$n/$w$*(exit $rc, expected $want: $(head -c 160 "$TMP/e"))"
}
run() {   # run WORKLOAD MODE PLATFORM GPUS
    attempt 0 "$@"
}
all_types="discrete unified monolithic shared"
for w in $names; do
    if [ "$full" -eq 1 ]; then
        for mode in emu timing; do
            for p in $all_types; do
                for n in 1 2 4; do
                    run "$w" "$mode" "$p" "$n"
                done
            done
        done
        for p in unified shared; do   # MGPUSim's contiguous chunks
            for n in 2 4; do
                run "$w" timing "$p" "$n" --set platform.placement=contiguous
            done
        done
        continue
    fi
    run "$w" timing discrete 1
    run "$w" emu discrete 1
    for n in 2 4; do
        for p in $all_types; do
            run "$w" timing "$p" "$n"
        done
        for p in discrete unified; do
            run "$w" emu "$p" "$n"
        done
    done
done
[ -z "$failed" ] || { echo "failing matrix runs:$failed" >&2; exit 1; }
echo "ok ($runs runs)"
