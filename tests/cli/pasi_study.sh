#!/bin/bash
# The Fig. 5.10 study (studies/pasi-fig5.10.ini: DCA, PM, ESI, PS, PS-LA on
# 4 unified GPUs) at --size small: every point runs and verifies, the three
# figures are written, and the layers do what they are for: read
# replication (esi) moves fewer bytes than page migration alone on every
# workload but mt, and is faster than it on average.
. "$(dirname "$0")/lib_cli.bash"
unset MGSIM_STUDY_DIR
optimised_mgsim

O=$TMP/fig510
"$bin" study pasi-fig5.10 --size small --out "$O" -j 2 --quiet >"$OUT" 2>"$ERR" \
    || fail "study pasi-fig5.10 exited $?"
expect_in "$OUT" "42 points: 42 run, 0 reused, 0 failed, 0 missing"
for f in pasi-fig5.10 pasi-fig5.10-vs-dca pasi-fig5.10-migrated; do
    [ -s "$O/$f.png" ] && [ -s "$O/$f.csv" ] && [ -s "$O/$f-figure.csv" ] || fail "$f outputs"
done
/usr/bin/python3 - "$O" <<'PY' || fail "Fig. 5.10 values"
import csv, sys
d = sys.argv[1]
moved = {(r['x'], r['group']): float(r['value'])
         for r in csv.DictReader(open(d + '/pasi-fig5.10-migrated-figure.csv'))}
for w in ('aes', 'bs', 'fir', 'km', 'mm', 'conv'):
    assert moved[(w, 'esi')] < 1.0, (w, moved[(w, 'esi')])
vs = {(r['x'], r['group']): float(r['value'])
      for r in csv.DictReader(open(d + '/pasi-fig5.10-vs-dca-figure.csv'))}
assert vs[('geomean', 'esi')] > vs[('geomean', 'pm')], vs
PY
expect_in "$O/report.md" "PASI: speedup over DCA on the same 4 GPUs"
echo ok
