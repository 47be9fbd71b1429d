#!/bin/bash
# `mgsim sweep --slurm` for real, on the one-node cluster of
# scripts/slurm_local.sh (run by `make test-slurm`, not by `make test`: it
# needs root and daemons). A 4-point sweep runs as a job array, is merged,
# and its statistics equal the local pool's; resubmitting finds nothing to
# do; a deleted point is the only task of the next array.
set -u
: "${MGSIM:?set MGSIM to the mgsim binary}"
: "${SLURM_CONF:?set SLURM_CONF (scripts/slurm_local.sh start prints it)}"
TMP=$(mktemp -d /tmp/mgsim-slurm-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
AXES=(--workloads fir,vecadd --gpus 1,2 --size small --mode timing)

"$MGSIM" sweep "${AXES[@]}" --out "$TMP/local" -j 2 --quiet > "$TMP/local.out" ||
    fail "local sweep: $(cat "$TMP/local.out")"
"$MGSIM" sweep "${AXES[@]}" --out "$TMP/slurm" --slurm --wait > "$TMP/slurm.out" 2>&1 ||
    fail "slurm sweep: $(cat "$TMP/slurm.out")"
grep -q "submitting 4 array tasks" "$TMP/slurm.out" || fail "4 array tasks: $(cat "$TMP/slurm.out")"
grep -q "4 points: 4 finished, 0 failed, 0 missing" "$TMP/slurm.out" || fail "merged: $(cat "$TMP/slurm.out")"
ls "$TMP"/slurm/points/slurm-*_[0-3].out >/dev/null 2>&1 || fail "one Slurm output per task"

# Same statistics, point by point (wall-clock metrics aside).
stats() {
    sqlite3 "$1/sweep.db" "SELECT p.idx, p.hash, m.component, m.metric, m.value
        FROM sweep_points p JOIN metrics m ON m.run_id = p.run_id
        WHERE m.metric NOT IN ('wall_time', 'wf_insts_per_s', 'events_per_s')
        ORDER BY p.idx, m.component, m.metric"
}
stats "$TMP/local" > "$TMP/local.stats"
stats "$TMP/slurm" > "$TMP/slurm.stats"
[ "$(wc -l < "$TMP/local.stats")" -gt 100 ] || fail "statistics found"
cmp -s "$TMP/local.stats" "$TMP/slurm.stats" ||
    fail "Slurm and local statistics differ: $(diff "$TMP/local.stats" "$TMP/slurm.stats" | head -5)"

# Resume: nothing to submit; then only the missing point.
"$MGSIM" sweep "${AXES[@]}" --out "$TMP/slurm" --slurm --wait > "$TMP/again.out" 2>&1 ||
    fail "resubmit: $(cat "$TMP/again.out")"
grep -q "nothing to submit" "$TMP/again.out" || fail "resume: $(cat "$TMP/again.out")"
hash2=$(sqlite3 "$TMP/slurm/sweep.db" "SELECT hash FROM sweep_points WHERE idx = 2")
rm "$TMP/slurm/points/$hash2.db"
"$MGSIM" sweep "${AXES[@]}" --out "$TMP/slurm" --slurm --dry-run > "$TMP/dry.out" ||
    fail "dry run"
grep -q "^#SBATCH --array=2$" "$TMP/dry.out" || fail "only point 2 left: $(cat "$TMP/dry.out")"
"$MGSIM" sweep "${AXES[@]}" --out "$TMP/slurm" --slurm --wait > "$TMP/one.out" 2>&1 ||
    fail "one task: $(cat "$TMP/one.out")"
grep -q "submitting 1 array task" "$TMP/one.out" || fail "1 task: $(cat "$TMP/one.out")"
stats "$TMP/slurm" > "$TMP/slurm2.stats"
cmp -s "$TMP/local.stats" "$TMP/slurm2.stats" || fail "statistics after the rerun"
echo ok
