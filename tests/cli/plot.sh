#!/bin/bash
# scripts/plot.py reads a results database and writes a PNG; bad input is
# one error line and a non-zero exit.
. "$(dirname "$0")/lib_cli.bash"
PY=/usr/bin/python3
PLOT=$(dirname "$0")/../../scripts/plot.py
$PY -c 'import matplotlib' 2>/dev/null || { echo "skip: no python3-matplotlib"; exit 0; }

expect_exit 0 $PY "$PLOT" --help
expect_in "$OUT" "--metric"

for seed in 1 2; do
    expect_exit 0 "$MGSIM" run --set demo.messages=500 --set demo.agents=2 \
        --set demo.latency_cycles=$((seed * 5)) --quiet --db "$TMP/p.db"
done
expect_exit 0 $PY "$PLOT" "$TMP/p.db" --list
grep -Pq '^run\tsim_time\tps\t2 runs$' "$OUT" || fail "--list shows run/sim_time"
expect_exit 0 $PY "$PLOT" "$TMP/p.db" --metric sim_time -o "$TMP/p.png"
expect_in "$OUT" "wrote $TMP/p.png (2 runs)"
[ "$(head -c 8 "$TMP/p.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "not a PNG"
expect_exit 0 $PY "$PLOT" "$TMP/p.db" --metric sim_time --by config:demo.latency_cycles -o "$TMP/q.png"
expect_in "$OUT" "(2 runs)"

expect_exit 1 $PY "$PLOT" "$TMP/p.db" --metric no_such_metric -o "$TMP/r.png"
expect_in "$ERR" "no run has metric run/no_such_metric"
expect_exit 1 $PY "$PLOT" "$TMP/missing.db" --metric sim_time
expect_in "$ERR" "no such database"
echo ok
