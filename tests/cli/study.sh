#!/bin/bash
# mgsim study: a study file -> sweep -> CSV of every point, figure table,
# PNG (scripts/plot.py) and report.md with the normalised table, the
# aggregate, "paper | mgsim | ratio" and the statements; reuse on rerun.
. "$(dirname "$0")/lib_cli.bash"
export MGSIM_STUDY_DIR=$TMP/studies
mkdir -p "$MGSIM_STUDY_DIR"
cat > "$MGSIM_STUDY_DIR/tiny.ini" <<'INI'
[study]
title = Tiny: speedup of 2 GPUs
source = test
description = A two-workload study
  on two lines.
metric = sim_time
baseline = variant=one
normalise = speedup
x = workload
group = variant
ylabel = speedup
min_footprint = 100MB
[sweep]
workloads = fir, vecadd
mode = timing
[variant one]
gpus = 1
[variant two]
gpus = 2
platform = monolithic
[variant twou]
gpus = 2
platform = unified
[size small]
size = small
[size study]
size = small
[size paper]
size = small
variant.two.gpus = 4
variant.twou.set.gpu.num_cus = 4
[paper]
two.fir = 1.5 | a made-up reference
two.geomean = 2 | another
[claim faster]
text = Two GPUs are faster
group = two
workloads = all
min = 1000
note = They are not.
INI
O=$TMP/out
expect_exit 0 "$MGSIM" study tiny --size small --out "$O" -j 2
expect_in "$OUT" "6 points: 6 run, 0 reused, 0 failed, 0 missing"
for f in tiny.csv tiny-figure.csv tiny.png report.md sweep.db; do
    [ -s "$O/$f" ] || fail "$f written"
done
[ "$(head -c 8 "$O/tiny.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "PNG signature"
[ "$(wc -l < "$O/tiny.csv")" = 7 ] || fail "one CSV row per point"
expect_in "$O/tiny.csv" "index,label,workload,mode,variant,size,footprint_bytes,exit_code,run.sim_time,speedup"
# The CSV's speedup is baseline time / time, and the figure's geomean is
# the geometric mean of the workloads' speedups.
/usr/bin/python3 - "$O" <<'PY' || fail "CSV numbers consistent"
import csv, math, sys
d = sys.argv[1]
pts = list(csv.DictReader(open(f"{d}/tiny.csv")))
t = {(p["workload"], p["variant"]): float(p["run.sim_time"]) for p in pts}
for p in pts:
    want = t[(p["workload"], "one")] / t[(p["workload"], p["variant"])]
    assert abs(float(p["speedup"]) - want) < 1e-3 * want, p
fig = {(r["x"], r["group"]): r for r in csv.DictReader(open(f"{d}/tiny-figure.csv"))}
assert set(g for _, g in fig) == {"two", "twou"}, fig.keys()
g = math.sqrt(float(fig[("fir", "two")]["value"]) * float(fig[("vecadd", "two")]["value"]))
assert abs(float(fig[("geomean", "two")]["value"]) - g) < 1e-3 * g
assert fig[("fir", "two")]["paper"] == "1.5" and fig[("geomean", "two")]["paper"] == "2"
PY
expect_in "$O/report.md" "# Tiny: speedup of 2 GPUs"
expect_in "$O/report.md" "A two-workload study on two lines."
expect_in "$O/report.md" "mgsim study tiny --size small"
expect_in "$O/report.md" "| workload | two | twou |"
expect_in "$O/report.md" "| **geomean** |"
expect_in "$O/report.md" "| reference | paper | mgsim | ratio | source |"
expect_in "$O/report.md" "| two fir | 1.5 |"
expect_in "$O/report.md" "**not reproduced**: 0 of 2 two values >= 1000.00"
expect_in "$O/report.md" "Why: They are not."
expect_in "$O/report.md" "![Tiny: speedup of 2 GPUs](tiny.png)"

# Rerun: every point reused, outputs rewritten.
rm "$O/report.md"
expect_exit 0 "$MGSIM" study tiny --size small --out "$O"
expect_in "$OUT" "0 run, 6 reused"
[ -s "$O/report.md" ] || fail "report rewritten"

# --report-only: outputs from the finished points; missing ones are "-".
rm "$O"/points/$(sqlite3 "$O/sweep.db" "SELECT hash FROM sweep_points WHERE idx = 1").db
expect_exit 1 "$MGSIM" study tiny --size small --out "$O" --report-only
expect_in "$OUT" "0 run, 5 reused, 0 failed, 1 missing"
expect_in "$O/report.md" "6 points, 1 failed or not run"
expect_in "$O/report.md" "| fir | - |"
expect_in "$O/report.md" "- point 1 (workload=fir variant=two): not run"

# --size study checks footprints against min_footprint before running.
expect_exit 2 "$MGSIM" study tiny --out "$O"
expect_one_error_line; expect_in "$ERR" "not above min_footprint 100.0 MB"
expect_exit 2 "$MGSIM" study tiny --size huge --out "$O"
expect_one_error_line; expect_in "$ERR" "no [size huge] section"
expect_exit 0 "$MGSIM" study tiny --size small --dry-run
expect_in "$OUT" "study tiny, size small: 6 points"
# A [size] section's variant.NAME.KEY replaces (or adds) a variant's key.
expect_exit 0 "$MGSIM" study tiny --size paper --dry-run
expect_in "$OUT" "fir --mode timing --platform monolithic --gpus 4 --size small"
expect_in "$OUT" "--gpus 2 --platform unified --set gpu.num_cus=4"
grep -q -- "--gpus 2 --platform monolithic" "$OUT" && fail "variant two kept --gpus 2"
sed 's/^variant.two.gpus = 4$/variant.three.gpus = 4/' "$MGSIM_STUDY_DIR/tiny.ini" \
    > "$MGSIM_STUDY_DIR/tinybad.ini"
expect_exit 2 "$MGSIM" study tinybad --size paper --dry-run
expect_one_error_line; expect_in "$ERR" "variant.three.gpus: expected variant.NAME.KEY"

expect_exit 0 "$MGSIM" study --list
expect_in "$OUT" "tiny"
expect_exit 0 env -u MGSIM_STUDY_DIR "$MGSIM" study --list
expect_in "$OUT" "platforms"
expect_exit 2 "$MGSIM" study nosuch
expect_one_error_line; expect_in "$ERR" "unknown study 'nosuch'"
printf '[study]\nmetric = sim_time\nx = workload\nnormalise = sideways\n' > "$MGSIM_STUDY_DIR/bad.ini"
expect_exit 2 "$MGSIM" study bad
expect_one_error_line; expect_in "$ERR" "normalise = sideways"
# The shipped platforms study parses, and its study size is checked.
expect_exit 0 env -u MGSIM_STUDY_DIR "$MGSIM" study platforms --size study --dry-run
expect_in "$OUT" "study platforms, size study: 60 points"
# The REC studies run the paper's own system at --size paper.
expect_exit 0 env -u MGSIM_STUDY_DIR "$MGSIM" study rec-main --size paper --dry-run
grep -q "rec/study" "$OUT" && fail "rec-main --size paper runs the scaled preset"
expect_in "$OUT" "atax variant=dir2x                 128.0 MB  mgsim run atax --mode timing --preset rec --set directory.entries=16384"
echo ok
