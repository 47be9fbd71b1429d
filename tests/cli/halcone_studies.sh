#!/bin/bash
# The HALCONE studies (seed 000 Fig. 7-9, §5.4) run at --size small: every
# point that can run finishes, the figures' metrics exist in the statistics
# (sums over components), and RDMA-WB-C-HMG's points run (the hmg directory
# protocol).
. "$(dirname "$0")/lib_cli.bash"
unset MGSIM_STUDY_DIR
csv_check() {  # csv_check FILE PYTHON-ASSERTIONS (rows in `pts`)
    /usr/bin/python3 - "$1" "$2" <<'PY' || fail "$1: $2"
import csv, sys
pts = list(csv.DictReader(open(sys.argv[1])))
exec(sys.argv[2])
PY
}

# Fig. 7: 11 benchmarks x 5 configurations, three figures of the same points.
O=$TMP/f7
expect_exit 0 "$MGSIM" study halcone-fig7 --size small --out "$O" -j 2 --quiet
expect_in "$OUT" "55 points: 55 run, 0 reused, 0 failed, 0 missing"
csv_check "$O/halcone-fig7.csv" "
hmg = [p for p in pts if p['variant'] == 'rdma-wb-c-hmg']
assert len(hmg) == 11 and all(p['exit_code'] == '0' and float(p['run.total_time']) > 0
                              for p in hmg), hmg"
for f in halcone-fig7 halcone-fig7-l2mm halcone-fig7-l1l2; do
    [ -s "$O/$f.png" ] && [ -s "$O/$f.csv" ] && [ -s "$O/$f-figure.csv" ] || fail "$f outputs"
done
expect_in "$O/report.md" "## HALCONE Fig. 7b: L2-to-memory transactions normalised to SM-WB-NC"
expect_in "$O/report.md" "| sm-wt-nc geomean | 1.29 |"
# Only the groups the figure names; the baseline is 1.
csv_check "$O/halcone-fig7-l2mm-figure.csv" "
assert {r['group'] for r in pts} == {'sm-wt-nc', 'sm-wt-c-halcone'}, pts
assert all(r['value'] for r in pts), pts"
# The L2-to-memory metric is the sum of every DRAM channel's reads, writes
# and atomics, read straight from the merged database.
for i in 2 3; do
    want=$(sqlite3 "$O/sweep.db" "SELECT SUM(m.value) FROM sweep_points p JOIN metrics m
        ON m.run_id = p.run_id WHERE p.idx = $i AND m.component LIKE 'Stack[%].DRAM[%'
        AND m.metric IN ('reads', 'writes', 'atomics')")
    got=$(awk -F, -v i=$i '$1 == i { print $(NF - 1) }' "$O/halcone-fig7-l2mm.csv")
    [ -n "$want" ] && [ "${want%.0}" -gt 0 ] && [ "${got%.0}" = "${want%.0}" ] ||
        fail "point $i L2-to-MM transactions: csv $got, database $want"
done
csv_check "$O/halcone-fig7-l1l2.csv" "
assert all(float(p['ratio']) > 0 for p in pts if p['variant'].startswith('sm-')), pts"

# Fig. 8a (1-16 GPUs), 8b/8c (32-64 CUs), 9 (Xtreme sizes): every point runs.
for s in halcone-fig8a:55 halcone-fig8bc:33 halcone-fig9:12; do
    name=${s%:*}
    expect_exit 0 "$MGSIM" study "$name" --size small --out "$TMP/$name" -j 2 --quiet
    expect_in "$OUT" "${s#*:} points: ${s#*:} run, 0 reused, 0 failed, 0 missing"
    [ -s "$TMP/$name/$name.png" ] || fail "$name figure"
done
expect_in "$TMP/halcone-fig8a/report.md" "| 16 geomean | 5.43 |"
expect_in "$TMP/halcone-fig8bc/report.md" "| workload | 48 | 64 |"
expect_in "$TMP/halcone-fig9/report.md" "| param.kb | xtreme1 | xtreme2 | xtreme3 |"
# Xtreme's slices follow the configuration's CUs: 4 GPUs x 32 CUs, one
# work-group per slice in each launch over all GPUs.
csv_check "$TMP/halcone-fig9/halcone-fig9.csv" "assert len(pts) == 12"
wgs=$(sqlite3 "$TMP/halcone-fig9/sweep.db" "SELECT m.value FROM sweep_points p JOIN metrics m
    ON m.run_id = p.run_id WHERE p.idx = 0 AND m.component = 'run' AND m.metric = 'workgroups'")
[ "${wgs%.0}" = $((2 * 4 * 32)) ] || fail "xtreme1 with 32 CUs per GPU: $wgs work-groups, want 256"

# §5.4 leases: six (RdLease, WrLease) pairs and SM-WT-NC on Xtreme1-3.
expect_exit 0 "$MGSIM" study halcone-leases --size small --out "$TMP/leases" -j 2 --quiet
expect_in "$OUT" "21 points: 21 run, 0 reused, 0 failed, 0 missing"
expect_in "$TMP/leases/report.md" "| workload | rd2-wr10 | rd10-wr2 | rd5-wr10 | rd10-wr5 | rd20-wr10 | rd10-wr20 |"
echo ok
