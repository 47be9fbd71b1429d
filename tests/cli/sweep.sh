#!/bin/bash
# mgsim sweep: cross product, resume (a second run reuses every point; a
# killed run finishes only the missing ones), failures recorded without
# stopping the sweep (exit 1), the merged database, Slurm script, errors.
. "$(dirname "$0")/lib_cli.bash"
D=$TMP/sw
AXES=(--workloads fir,vecadd --gpus 1,2 --presets default,r9nano --size small --mode emu)
q() { sqlite3 "$D/sweep.db" "$1"; }

expect_exit 0 "$MGSIM" sweep "${AXES[@]}" --out "$D" -j 2
expect_in "$OUT" "8 points: 8 run, 0 reused, 0 failed"
[ "$(q 'SELECT count(*) FROM runs WHERE exit_code = 0')" = 8 ] || fail "8 runs merged"
[ "$(q 'SELECT count(DISTINCT hash) FROM sweep_points')" = 8 ] || fail "8 distinct points"
[ "$(q "SELECT value FROM sweep_axes WHERE idx = 7 AND axis = 'preset'")" = r9nano ] || fail "axes recorded"
[ "$(q "SELECT count(*) FROM metrics m JOIN sweep_points p ON p.run_id = m.run_id
        WHERE p.label = 'workload=vecadd gpus=2 preset=r9nano' AND m.metric = 'wf_insts'")" = 1 ] ||
    fail "metrics of a point found through sweep_points"
q "SELECT p.label, m.value FROM sweep_points p JOIN metrics m ON m.run_id = p.run_id
   WHERE m.component = 'run' AND m.metric = 'wf_insts' ORDER BY p.idx" > "$TMP/first"

# Second run: nothing to do.
expect_exit 0 "$MGSIM" sweep "${AXES[@]}" --out "$D"
expect_in "$OUT" "8 points: 0 run, 8 reused, 0 failed"
# Points are identified by their effective configuration: listing the
# axes in another order reuses them all.
expect_exit 0 "$MGSIM" sweep --presets default,r9nano --gpus 1,2 --workloads fir,vecadd \
    --size small --mode emu --out "$D"
expect_in "$OUT" "0 run, 8 reused"
# A changed configuration is a new point.
expect_exit 0 "$MGSIM" sweep "${AXES[@]}" --set gpu.num_cus=8 --out "$D"
expect_in "$OUT" "8 run, 0 reused"

# Resume after a kill: finished points stay, the rest run.
rm -rf "$D"
"$MGSIM" sweep "${AXES[@]}" --out "$D" -j 1 --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do
    [ "$(ls "$D"/points/*[0-9a-f].db 2>/dev/null | wc -l)" -ge 2 ] && break
    sleep 0.05
done
kill -KILL $pid; wait $pid 2>/dev/null
done_before=$(ls "$D"/points/*[0-9a-f].db | grep -vc part)
[ "$done_before" -ge 2 ] && [ "$done_before" -lt 8 ] || fail "killed midway ($done_before done)"
expect_exit 0 "$MGSIM" sweep "${AXES[@]}" --out "$D"
expect_in "$OUT" "8 points: $((8 - done_before)) run, $done_before reused, 0 failed"
q "SELECT p.label, m.value FROM sweep_points p JOIN metrics m ON m.run_id = p.run_id
   WHERE m.component = 'run' AND m.metric = 'wf_insts' ORDER BY p.idx" > "$TMP/resumed"
cmp -s "$TMP/first" "$TMP/resumed" || fail "resumed sweep has the same statistics"
# --force reruns everything.
expect_exit 0 "$MGSIM" sweep "${AXES[@]}" --out "$D" --force -j2
expect_in "$OUT" "8 run, 0 reused"

# A failing point (here: past --timeout) is recorded, the others finish,
# the summary lists it and the exit code is 1.
F=$TMP/fail
expect_exit 1 "$MGSIM" sweep --workloads fir,vecadd --size small --mode timing \
    --param fir.n=8388608 --timeout 5 --out "$F"
expect_in "$OUT" "2 points: 2 run, 0 reused, 1 failed"
expect_in "$OUT" "point 0 (workload=fir): exit 124: timed out after 5 s"
[ "$(sqlite3 "$F/sweep.db" 'SELECT group_concat(exit_code) FROM sweep_points ORDER BY idx')" = "124,0" ] ||
    fail "exit codes recorded"
# The failure is a result: the rerun reuses it (still exit 1) unless asked.
expect_exit 1 "$MGSIM" sweep --workloads fir,vecadd --size small --mode timing \
    --param fir.n=8388608 --timeout 5 --out "$F"
expect_in "$OUT" "0 run, 2 reused, 1 failed"
expect_exit 1 "$MGSIM" sweep --workloads fir,vecadd --size small --mode timing \
    --param fir.n=8388608 --timeout 5 --out "$F" --retry-failed
expect_in "$OUT" "1 run, 1 reused, 1 failed"

# Equal points (a workload listed twice) run once and share their file.
expect_exit 0 "$MGSIM" sweep --workloads fir,fir --size small --mode emu --out "$TMP/dup"
expect_in "$OUT" "2 points: 1 run, 1 reused, 0 failed"
[ "$(sqlite3 "$TMP/dup/sweep.db" 'SELECT count(DISTINCT hash) || count(*) FROM sweep_points')" = 12 ] ||
    fail "both points merged from one file"

# A sweep file with variants, and --merge of a directory.
cat > "$TMP/v.ini" <<'INI'
[sweep]
workloads = fir, vecadd
size = small
[variant one]
gpus = 1
[variant two-unified]
gpus = 2
platform = unified
INI
V=$TMP/v
expect_exit 0 "$MGSIM" sweep "$TMP/v.ini" --out "$V"
expect_in "$OUT" "4 points: 4 run"
expect_in "$V/sweep.ini" "[variant two-unified]"
[ "$(sqlite3 "$V/sweep.db" "SELECT label FROM sweep_points WHERE idx = 3")" = \
  "workload=vecadd variant=two-unified" ] || fail "variant labels"
rm "$V/sweep.db"
expect_exit 0 "$MGSIM" sweep --merge "$V"
expect_in "$OUT" "4 points: 4 finished, 0 failed, 0 missing"
rm "$V"/points/*.db
expect_exit 1 "$MGSIM" sweep --merge "$V"
expect_in "$OUT" "4 missing"

# Slurm: the batch script (dry run) has one task per unfinished point.
expect_exit 0 "$MGSIM" sweep "$TMP/v.ini" --out "$V" --slurm --dry-run \
    --partition short --time 1:00:00 --max-parallel 2
expect_in "$OUT" "#SBATCH --array=0,1,2,3%2"
expect_in "$OUT" "#SBATCH --partition=short"
expect_in "$OUT" "#SBATCH --time=1:00:00"
expect_in "$OUT" "sweep --run-point \"\$SLURM_ARRAY_TASK_ID\" --out '$V'"

# Mistakes fail before anything runs: exit 2, one line.
expect_exit 2 "$MGSIM" sweep --workloads fir,nosuch --out "$TMP/e"
expect_one_error_line; expect_in "$ERR" "unknown workload 'nosuch'"
[ ! -e "$TMP/e" ] || fail "no directory for a bad sweep"
expect_exit 2 "$MGSIM" sweep --workloads fir --set gpu.nosuch=1,2 --out "$TMP/e"
expect_one_error_line
expect_exit 2 "$MGSIM" sweep --workloads fir -j 0
expect_exit 2 "$MGSIM" sweep --workloads fir -j0
expect_one_error_line
expect_exit 2 "$MGSIM" sweep
expect_one_error_line
expect_exit 2 "$MGSIM" sweep "$TMP/nosuch.ini"
expect_one_error_line
printf '[sweep]\nworkloads = fir\ncolour = red\n' > "$TMP/bad.ini"
expect_exit 2 "$MGSIM" sweep "$TMP/bad.ini"
expect_one_error_line; expect_in "$ERR" "unknown sweep key 'colour'"
echo ok
