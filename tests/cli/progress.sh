#!/bin/bash
# The live progress line: drawn on stderr in place (\r + clear line) when
# forced on, erased before the summary; absent with --quiet or when off.
. "$(dirname "$0")/lib_cli.bash"
DEMO=(--set demo.messages=3000 --set demo.agents=2 --db "$TMP/p.db")

expect_exit 0 "$MGSIM" run "${DEMO[@]}" --set output.progress=on
grep -q $'\r\033\\[K  sim .* events/s' "$ERR" || fail "progress line drawn"
[ "$(tail -c 4 "$ERR" | od -An -tx1 | tr -d ' \n')" = 0d1b5b4b ] || fail "progress line erased at the end"
expect_in "$OUT" "mgsim run: engine demo"

expect_exit 0 "$MGSIM" run "${DEMO[@]}" --set output.progress=on --quiet
[ ! -s "$ERR" ] || fail "--quiet draws no progress"
expect_exit 0 "$MGSIM" run "${DEMO[@]}" --set output.progress=off
[ ! -s "$ERR" ] || fail "output.progress=off draws nothing"
echo ok
