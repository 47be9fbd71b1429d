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
# Inside a timing-mode kernel the line is refreshed from the engine (every
# 0.25 s of wall time) with the running kernel's work-groups, not only
# after each launch.
expect_exit 0 "$MGSIM" run mm --param n=256 --mode timing --db "$TMP/k.db" \
    --set output.progress=on
inside=$(tr '\r' '\n' < "$ERR" | grep -c 'kernel: [0-9]*/256 WGs done, [0-9]* started')
[ "$inside" -ge 2 ] || fail "progress refreshed inside the kernel ($inside lines)"
tr '\r' '\n' < "$ERR" | grep -q 'kernel: 0/256 WGs done' ||
    fail "work-groups shown before any finished"
# With the parallel engine the simulated time shown advances inside the
# kernel too (it once stood at the kernel's start: the root engine's clock
# does not move while the partitions run).
expect_exit 0 "$MGSIM" run mm --param n=256 --mode timing --db "$TMP/g.db" \
    --platform unified --gpus 4 --set sim.partition=gpu \
    --set output.progress=on
times=$(tr '\r' '\n' < "$ERR" | grep 'kernel: [0-9]*/256 WGs done' |
        sed -n 's/.*sim \([0-9.]* [a-z]*s\) .*/\1/p' | sort -u | wc -l)
[ "$times" -ge 2 ] || fail "simulated time advances in a partitioned kernel ($times values)"
echo ok
