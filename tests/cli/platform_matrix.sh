#!/bin/bash
# Every registered workload verifies at small size in timing mode on every
# multi-GPU platform (discrete, unified, monolithic, shared) with 2 and 4
# GPUs, and on 1 GPU (all four platform types build the same lone GPU
# then, so one run per workload). R9 Nano GPUs (64 CUs).
# Runs the optimised binary ($MGSIM_BUILD/../mgsim) when it exists: the
# whole matrix takes about 1.5 minutes there, far more under ASan, so under
# the sanitizers only a subset runs (the unit tests
# tests/unit/platform/test_multi_*.c cover the rest with small GPUs).
. "$(dirname "$0")/lib_cli.bash"

bin=$MGSIM
subset=""
if [ -n "${MGSIM_BUILD:-}" ] && [ -x "$MGSIM_BUILD/../mgsim" ]; then
    bin=$MGSIM_BUILD/../mgsim
else
    subset="vecadd mm pr"
fi
"$bin" list workloads >"$OUT" 2>"$ERR" || fail "mgsim list workloads"
names=$(awk '/^  [a-z][a-z0-9_]* /{print $1}' "$OUT" | grep -v '^name$')
[ -n "$subset" ] && names=$subset
[ -n "$names" ] || fail "no workloads listed"

failed=""
runs=0
run() {   # run WORKLOAD PLATFORM GPUS
    runs=$((runs + 1))
    "$bin" run "$1" --mode timing --size small --quiet --platform "$2" \
        --gpus "$3" --db "$TMP/m.db" >"$TMP/o" 2>"$TMP/e"
    local rc=$?
    [ "$rc" -eq 0 ] || failed="$failed $2/$3/$1(exit $rc: $(head -c 160 "$TMP/e"))"
}
for w in $names; do
    run "$w" discrete 1
    for p in discrete unified monolithic shared; do
        for n in 2 4; do
            run "$w" "$p" "$n"
        done
    done
done
[ -z "$failed" ] || { echo "failing platform runs:$failed" >&2; exit 1; }
echo "ok ($runs runs)"
