#!/bin/bash
# `config show`: origins for defaults, presets, files and --set; layering
# order; output that parses back; the Markdown key table.
. "$(dirname "$0")/lib_cli.bash"

expect_exit 0 "$MGSIM" config show --set gpu.num_cus=32
expect_in "$OUT" "[gpu]"
expect_in "$OUT" "num_cus = 32"
grep -E '^num_cus = 32 +; --set$' "$OUT" >/dev/null || fail "--set origin"
grep -E '^l1v_size = 16KB +; default \(seed 002 Table 5.1' "$OUT" >/dev/null || fail "default origin"
grep -E '^gpus = 1 +; configs/default.ini:[0-9]+$' "$OUT" >/dev/null || fail "preset origin"

expect_exit 0 "$MGSIM" config show --preset r9nano
grep -E '^mode = timing +; configs/r9nano.ini:[0-9]+$' "$OUT" >/dev/null || fail "r9nano origin"

# Layering: preset <- --config (in order) <- --set, whatever the argv order.
printf '[gpu]\nnum_cus = 8\nl2_ways = 4\n' >"$TMP/a.ini"
printf '[gpu]\nnum_cus = 12\n' >"$TMP/b.ini"
expect_exit 0 "$MGSIM" config show --set gpu.l2_ways=2 --config "$TMP/a.ini" \
    --preset r9nano --config "$TMP/b.ini"
grep -E "^num_cus = 12 +; $TMP/b.ini:2\$" "$OUT" >/dev/null || fail "later --config wins"
grep -E '^l2_ways = 2 +; --set$' "$OUT" >/dev/null || fail "--set wins over files"
grep -E '^mode = timing +; configs/r9nano.ini' "$OUT" >/dev/null || fail "preset kept"

# The output is a valid --config file giving the same configuration.
expect_exit 0 "$MGSIM" config show --preset r9nano --set gpu.freq=1.5GHz --no-origins
cp "$OUT" "$TMP/shown.ini"
expect_exit 0 "$MGSIM" config show --config "$TMP/shown.ini" --no-origins
diff <(grep -v '^;' "$TMP/shown.ini") <(grep -v '^;' "$OUT") >/dev/null || fail "round trip differs"
expect_in "$OUT" "freq = 1500MHz"

expect_exit 0 "$MGSIM" config show --markdown
for s in sim demo platform gpu output; do expect_in "$OUT" "### [$s]"; done
expect_in "$OUT" '| `l1v_size` | size | `16KB` |'
echo ok
