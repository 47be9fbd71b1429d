#!/bin/bash
# `mgsim litmus` (docs/litmus.md): fenced tests never show their forbidden
# outcome on the platforms each protocol supports; without fences, MP across
# two discrete GPUs shows the stale read (so the tests can fail); exit 1 when
# a forbidden outcome appears; same seed -> same histograms; emu mode is
# sequentially consistent; bad options end with one error line and exit 2.
. "$(dirname "$0")/lib_cli.bash"

N=${MGSIM_LITMUS_ITERATIONS:-2000}

# protocol:platform:placement[:set,set...]: every fenced test on 2 GPUs must
# be clean (the optional fourth field: --set assignments, comma-separated).
# nc keeps dirty lines in each GPU's L2 on `shared`, so across GPUs it gives
# no intra-kernel coherence there (checked below): CUs only.
CLEAN="nc:discrete:both nc:unified:both nc:shared:cu"
CLEAN="$CLEAN halcone:shared:both:l2.write_policy=writethrough"

for c in $CLEAN; do
    IFS=: read -r proto plat place sets <<<"$c"
    args=()
    for a in ${sets//,/ }; do args+=(--set "$a"); done
    expect_exit 0 "$MGSIM" litmus --protocol "$proto" --platform "$plat" \
        --gpus 2 --placement "$place" --fences on --iterations "$N" "${args[@]}"
    expect_in "$OUT" "mgsim litmus: ok: no forbidden outcome"
    [ "$(grep -c ' iterations, ' "$OUT")" -eq \
      "$([ "$place" = both ] && echo 12 || echo 6)" ] || fail "$c: run count"
    grep -q 'FORBIDDEN' "$OUT" && fail "$c: forbidden outcome"
done

# Without fences the stale read of MP across GPUs shows (exit 0: allowed).
expect_exit 0 "$MGSIM" litmus MP --gpus 2 --placement gpu --fences off \
    --iterations "$N"
stale=$(awk '/^  r0=1 r1=0 /{print $3}' "$OUT")
[ -n "$stale" ] && [ "$stale" -gt 0 ] || fail "MP without fences: no r0=1 r1=0"
expect_in "$OUT" "(forbidden with fences; allowed here)"

# Exit 1 when a fenced test shows its forbidden outcome: nc across GPUs on
# `shared` (store buffering through write-back L2s).
expect_exit 1 "$MGSIM" litmus SB --platform shared --gpus 2 --placement gpu \
    --fences on --iterations 256
expect_in "$OUT" "FORBIDDEN OUTCOME SEEN"
expect_in "$OUT" "mgsim litmus: FAIL: forbidden outcomes seen"

# Determinism: same seed, same histograms (wall time aside); another seed
# differs.
run_hist() {
    "$MGSIM" litmus IRIW 2+2W --gpus 2 --iterations 512 --seed "$1" |
        sed 's/, [0-9.]* s$//'
}
[ "$(run_hist 3)" = "$(run_hist 3)" ] || fail "same seed, different histogram"
[ "$(run_hist 3)" != "$(run_hist 4)" ] || fail "seed has no effect"

# emu: sequentially consistent, never a forbidden outcome, with or without
# fences.
expect_exit 0 "$MGSIM" litmus --mode emu --gpus 2 --iterations 512
grep -E ' [1-9][0-9]*  \(?forbidden' "$OUT" && fail "emu shows a non-SC outcome"
[ "$(grep -cE ' 0  \(?forbidden' "$OUT")" -eq 24 ] || fail "emu: 24 runs"


# Bad input.
expect_exit 2 "$MGSIM" litmus XYZ
expect_one_error_line
expect_in "$ERR" "unknown test 'XYZ'"
expect_exit 2 "$MGSIM" litmus --placement gpu
expect_one_error_line
expect_in "$ERR" "needs at least 2 GPUs"
expect_exit 2 "$MGSIM" litmus --placement sideways
expect_one_error_line
expect_exit 2 "$MGSIM" litmus --iterations 0
expect_one_error_line
expect_exit 2 "$MGSIM" litmus --fences maybe
expect_one_error_line
expect_exit 2 "$MGSIM" litmus --protocol nope
expect_one_error_line
expect_exit 0 "$MGSIM" litmus --help
expect_in "$OUT" "usage: mgsim litmus"
echo ok
