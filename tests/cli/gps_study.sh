#!/bin/bash
# The GPS studies at --size small (studies/gps-fig8.ini: paradigms on 4
# GPUs, four of the workloads; studies/gps-fig12.ini: 16 GPUs, two): every
# point runs and verifies, the figures are written, and subscription
# tracking moves fewer bytes than GPS without subscription on the
# peer-to-peer workloads; studies/gps-long.ini (16 iterations) runs small.
. "$(dirname "$0")/lib_cli.bash"
unset MGSIM_STUDY_DIR
optimised_mgsim

O=$TMP/fig8
"$bin" study gps-fig8 --size small --out "$O" -j 2 --quiet >"$OUT" 2>"$ERR" \
    || fail "study gps-fig8 exited $?"
expect_in "$OUT" "28 points: 28 run, 0 reused, 0 failed, 0 missing"
for f in gps-fig8 gps-fig8-traffic gps-fig8-nosub gps-fig8-wq; do
    [ -s "$O/$f.png" ] && [ -s "$O/$f.csv" ] && [ -s "$O/$f-figure.csv" ] || fail "$f outputs"
done
/usr/bin/python3 - "$O" <<'PY' || fail "Fig. 10 values"
import csv, sys
d = sys.argv[1]
t = {(r['x'], r['group']): float(r['value'])
     for r in csv.DictReader(open(d + '/gps-fig8-traffic-figure.csv'))}
for w in ('gjacobi', 'gdiff'):
    assert t[(w, 'gps')] < t[(w, 'gps-nosub')], (w, t)
PY
expect_in "$O/report.md" "Interconnect data normalised to memcpy"

O=$TMP/fig12
"$bin" study gps-fig12 --size small --out "$O" -j 2 --quiet >"$OUT" 2>"$ERR" \
    || fail "study gps-fig12 exited $?"
expect_in "$OUT" "10 points: 10 run, 0 reused, 0 failed, 0 missing"

# gps-long (fig. 8 with more iterations): the small size runs, and the study
# size gives every workload 16 iterations.
O=$TMP/long
"$bin" study gps-long --size small --out "$O" -j 2 --quiet >"$OUT" 2>"$ERR" \
    || fail "study gps-long exited $?"
expect_in "$OUT" "10 points: 10 run, 0 reused, 0 failed, 0 missing"
[ -s "$O/gps-long.png" ] || fail "gps-long figure"
"$bin" study gps-long --size study --dry-run >"$OUT" 2>"$ERR" \
    || fail "gps-long --dry-run exited $?"
expect_in "$OUT" "study gps-long, size study: 40 points"
[ "$(grep -c -- '--param iters=16' "$OUT")" = 40 ] || fail "gps-long: 16 iterations at every point"
echo ok
