#!/bin/bash
# `mgsim run WORKLOAD`: a small registered workload runs, verifies and is
# recorded; workload parameter mistakes are exit code 2 before any run.
. "$(dirname "$0")/lib_cli.bash"

expect_exit 0 "$MGSIM" run fir --size small --db "$TMP/f.db"
expect_in "$OUT" "mgsim run: fir, mode emu, 1 GPU (discrete), preset default"
expect_in "$OUT" "verified       yes"
grep -Eq '^  kernels +[1-9]' "$OUT" || fail "kernel count"

expect_exit 0 "$MGSIM" run fir --size small --param n=1024 --json --db "$TMP/f.db"
python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["verified"] is True and d["wf_insts"] > 0 and d["run_id"] == 2, d' <"$OUT" \
    || fail "--json for a workload"
expect_exit 0 "$MGSIM" export --db "$TMP/f.db"
grep -Eq '^2,.*,fir,emu,1,0,.*,run,param.n,1024,value$' "$OUT" || fail "param recorded"
grep -Eq '^1,.*,run,param.n,8192,value$' "$OUT" || fail "small size recorded"

# Forced progress line (instructions done; the kernel count appears only on
# refreshes, at most every 0.1 s, so this short run may not show it).
expect_exit 0 "$MGSIM" run fir --size small --set output.progress=on --db "$TMP/f.db"
grep -q $'\r\033\\[K  [0-9.]* [kM]*insts | [0-9.]* [kMG]*insts/s' "$ERR" || fail "workload progress line"

expect_exit 2 "$MGSIM" run fir --param bogus=1 --db "$TMP/g.db"
expect_one_error_line
expect_in "$ERR" "workload fir has no parameter 'bogus' (parameters: n, taps, locality)"
expect_exit 2 "$MGSIM" run fir --param n=lots --db "$TMP/g.db"
expect_in "$ERR" "value is not an integer"
expect_exit 2 "$MGSIM" run fir --size huge --db "$TMP/g.db"
expect_in "$ERR" "--size 'huge': use small or default"
expect_exit 2 "$MGSIM" run --size small --db "$TMP/g.db"
expect_in "$ERR" "--size and --param need a WORKLOAD"
[ ! -e "$TMP/g.db" ] || fail "no database for rejected runs"
echo ok
