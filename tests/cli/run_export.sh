#!/bin/bash
# `run` (engine demo) writes a database; `export` gives CSV and JSON with
# the metrics; `--json` prints one parseable object.
. "$(dirname "$0")/lib_cli.bash"
SMALL=(--set demo.messages=2000 --set demo.agents=4)

expect_exit 0 "$MGSIM" run "${SMALL[@]}" --db "$TMP/r/a.db"
expect_in "$OUT" "engine demo (4 agents, 2000 messages)"
expect_in "$OUT" "results        $TMP/r/a.db (run 1)"
grep -Eq '^  events +[1-9][0-9]* \(8000 messages\)$' "$OUT" || fail "event count in summary"
[ ! -s "$ERR" ] || fail "stderr not empty (progress must stay off when not a terminal)"

expect_exit 0 "$MGSIM" export --db "$TMP/r/a.db" --format csv
head -1 "$OUT" | grep -q '^run_id,started_utc,workload,mode,verified,exit_code,wall_time_s,git_rev,version,host,command_line,component,metric,value,unit$' \
    || fail "csv header"
grep -Eq '^1,[0-9T:Z-]+,demo,emu,,0,[0-9.e-]+,.*,run,messages,8000,count$' "$OUT" || fail "csv run.messages row"
grep -Eq ',run,sim_time,[1-9][0-9]*,ps$' "$OUT" || fail "csv sim_time row"
[ "$(grep -c ',Demo.Agent\[' "$OUT")" -gt 4 ] || fail "csv lacks per-agent engine statistics"

# Second run in the same file; JSON export has both, with nested metrics.
expect_exit 0 "$MGSIM" run "${SMALL[@]}" --seed 7 --quiet --db "$TMP/r/a.db"
[ ! -s "$OUT" ] || fail "--quiet prints nothing"
expect_exit 0 "$MGSIM" export --db "$TMP/r/a.db" --format json --out "$TMP/a.json"
python3 - "$TMP/a.json" <<'PY' || fail "json export content"
import json, sys
d = json.load(open(sys.argv[1]))
runs = d["runs"]
assert len(runs) == 2, runs
assert [r["id"] for r in runs] == [1, 2]
assert runs[0]["verified"] is None and runs[0]["exit_code"] == 0
assert "seed = 7" in runs[1]["config_text"], runs[1]["config_text"]
m = {(x["component"], x["metric"]): x for x in runs[0]["metrics"]}
assert m[("run", "messages")]["value"] == 8000
assert m[("run", "sim_time")]["unit"] == "ps"
PY

# --json: exactly one JSON object on stdout.
expect_exit 0 "$MGSIM" run "${SMALL[@]}" --json --db "$TMP/r/b.db"
python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["exit_code"] == 0 and d["events"] > 0 and d["run_id"] == 1, d' <"$OUT" \
    || fail "--json output"

# Export errors.
expect_exit 2 "$MGSIM" export --db "$TMP/none.db"
expect_one_error_line
expect_in "$ERR" "no results database $TMP/none.db"
expect_exit 2 "$MGSIM" export --db "$TMP/r/a.db" --format xml
expect_one_error_line
expect_exit 2 "$MGSIM" export
expect_in "$ERR" "--db FILE is required"
echo "not a database, just some text padding padding padding padding" >"$TMP/t.db"
expect_exit 2 "$MGSIM" export --db "$TMP/t.db"
expect_in "$ERR" "is not an mgsim results database"

# Run errors: unknown workload, bad demo parameter, unwritable database.
expect_exit 2 "$MGSIM" run no_such_thing --db "$TMP/r/c.db"
expect_one_error_line
expect_in "$ERR" "unknown workload 'no_such_thing'"
expect_exit 2 "$MGSIM" run --set demo.agents=3 --db "$TMP/r/c.db"
expect_one_error_line
expect_in "$ERR" "agents"
expect_exit 4 "$MGSIM" run "${SMALL[@]}" --db "$TMP/t.db/x.db"
expect_one_error_line
expect_in "$ERR" "results database"
echo ok
