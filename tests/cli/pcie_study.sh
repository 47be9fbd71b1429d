#!/bin/bash
# The PCIe scheduling study (seed 002 Figs. 4.10/4.11) at --size small: all
# 112 points run and verify, the figures and the paper's numbers are in
# the report, Priority_S is ahead of RR on average; the tenants harness
# refuses what it cannot run with one error line and exit 2.
. "$(dirname "$0")/lib_cli.bash"
unset MGSIM_STUDY_DIR
optimised_mgsim
expect_exit 2 "$bin" run tenants --mode emu --gpus 4 --size small
expect_one_error_line
expect_in "$ERR" "record: needs timing mode"
expect_exit 2 "$bin" run tenants --mode timing --gpus 4 --size small --param a=9
expect_one_error_line
expect_exit 2 "$bin" run tenants --mode timing --gpus 1 --size small
expect_one_error_line
expect_exit 2 "$bin" run tenants --mode timing --gpus 4 --size small \
    --set pcie.arbitration=fifo
O=$TMP/pcie
"$bin" study pcie-fig4.10 --size small --out "$O" -j 2 --quiet >"$OUT" 2>"$ERR"
rc=$?
[ $rc = 0 ] || fail "pcie-fig4.10 exited $rc"
expect_in "$OUT" "112 points: 112 run, 0 reused,"
expect_in "$OUT" "0 failed, 0 missing"
for f in pcie-fig4 pcie-fig4-task1 pcie-fig4-task2 pcie-fig4-absolute; do
    [ -s "$O/$f.png" ] && [ -s "$O/$f.csv" ] || fail "$f outputs"
done
expect_in "$O/report.md" "| priority_s mean | 1.08 |"
/usr/bin/python3 - "$O/pcie-fig4-figure.csv" <<'PY' || fail "Priority_S not ahead of RR"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ps = [float(r['value']) for r in rows
      if r['x'] == 'mean' and r['group'] == 'priority_s']
assert len(ps) == 1 and ps[0] > 1.0, ps
PY
echo ok
