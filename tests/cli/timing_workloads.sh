#!/bin/bash
# Timing mode end to end: every registered workload verifies in
# `--mode timing` at small size (the same CPU references as emu mode), the
# run records simulated time and per-component statistics, and two
# identical runs record identical statistics (determinism).
. "$(dirname "$0")/lib_cli.bash"

"$MGSIM" list workloads >"$OUT" 2>"$ERR" || fail "mgsim list workloads"
names=$(awk '/^  [a-z][a-z0-9_]* /{print $1}' "$OUT" | grep -v '^name$')
[ -n "$names" ] || fail "no workloads listed"
failed=""
for w in $names; do
    "$MGSIM" run "$w" --mode timing --size small --quiet \
        --db "$TMP/w.db" >"$TMP/$w.out" 2>"$TMP/$w.err"
    rc=$?
    [ "$rc" -eq 0 ] || failed="$failed $w(exit $rc: $(head -c 200 "$TMP/$w.err"))"
done
[ -z "$failed" ] || { echo "workloads failing in timing mode:$failed" >&2; exit 1; }

# Summary and statistics of one run.
expect_exit 0 "$MGSIM" run mm --mode timing --size small --db "$TMP/d.db"
expect_in "$OUT" "mode timing"
expect_in "$OUT" "verified       yes"
grep -Eq '^  simulated time +[0-9.]+ [num]?s' "$OUT" || fail "simulated time"
expect_exit 0 "$MGSIM" run mm --mode timing --size small --db "$TMP/d.db"
python3 - "$TMP/d.db" <<'PY' || fail "statistics differ between two identical runs"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def rows(run):
    return db.execute("select component, metric, value from metrics "
                      "where run_id = ? and component like 'GPU[%' "
                      "order by rowid", (run,)).fetchall()
a, b = rows(1), rows(2)
names = {(c, m) for c, m, _ in a}
need = [("GPU[0].CP", "kernels"), ("GPU[0].CP", "invalidations"),
        ("GPU[0].L2[0]", "read_hits"), ("GPU[0].DRAM[0]", "row_hits"),
        ("GPU[0].SA[0].L1V[0]", "read_misses")]
missing = [n for n in need if n not in names]
assert not missing, missing
assert len(a) > 1000 and a == b, (len(a), len(b))
PY
echo ok
